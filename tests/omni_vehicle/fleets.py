"""Module fixtures shared by the behaviour tests: each test module declares its Fleet, and `views(backend)` runs it
once per backend (ours, ovphysx) and keeps the result for every test of the module."""
from __future__ import annotations

from typing import Callable

import pytest
from harness import Fleet, View
from results_plugin import backend_of, nvidia_name

# ovphysx's side of the fleets costs about 18 s of CPU (a worker start and a few hundred steps of 10 to 60 cars per
# fleet): soak, which CI runs, so that the default run keeps its 3 minutes; ours stays in the default run (about 8 s)
BACKENDS = ["ours", pytest.param("ovphysx", marks=[pytest.mark.ovphysx, pytest.mark.soak])]


def fleet_fixture(make: Callable[[], Fleet]):
    """A module-scoped fixture returning run(backend) -> {entry name: View}, each backend run at most once."""

    @pytest.fixture(scope="module")
    def runs(tmp_path_factory):
        cache: dict[str, dict[str, View]] = {}
        fleet = make()

        def run(backend: str) -> dict[str, View]:
            if backend not in cache:
                cache[backend] = fleet.run_ours() if backend == "ours" else \
                    fleet.run_physx(tmp_path_factory.mktemp("fleet"))
            return cache[backend]
        return run
    return runs



def known_failures(request, failures: dict[tuple[str, str], str]) -> None:
    """At set-up, mark the test a strict xfail where (its NVIDIA name, its backend) is listed; the reason carries the
    measured figure."""
    reason = failures.get((nvidia_name(request.node), backend_of(request.node)))
    if reason:
        request.applymarker(pytest.mark.xfail(strict=True, reason=reason))


def backend_fixture(failures: dict[tuple[str, str], str]):
    """The module's function-scoped `run` fixture: its fleet's views (the module's `runs`, fleet_fixture) for each
    backend in BACKENDS, the tests in `failures` (known_failures) marked strict xfails."""

    @pytest.fixture(params=BACKENDS)
    def run(request, runs):
        known_failures(request, failures)
        return runs(request.param)
    return run
