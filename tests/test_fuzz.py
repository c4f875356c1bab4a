"""Fuzzing: a short coverage-guided run of the reader's atheris target (a soak test: instrumenting pxr alone
takes half a minute), and hypothesis property tests that author random values on random vehicle properties
of the sample car.

Invariants: reading never raises; every diagnostic names a prim of the stage, and a property that prim has
(or, for a rule across a vehicle's parts reported on the vehicle, a property of one of them); a stage that
reads without errors round-trips through the writer.
"""
from __future__ import annotations

import math
import resource
import shutil
import subprocess
import sys

import pytest
from conftest import REPO, SAMPLES, written_values
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pxr import Sdf, Usd

from physxvehicle_usd import properties as P
from physxvehicle_usd.read import read_stage
from physxvehicle_usd.write import write_stage

FUZZ_RUNS = 400


@pytest.mark.soak
def test_atheris_short_run(tmp_path):
    """The coverage-guided target runs clean for a few hundred inputs (the longer run is in fuzz/'s docstring)."""
    corpus = tmp_path / "corpus"  # libFuzzer adds what it finds to the corpus folder: keep the seeds clean
    shutil.copytree(REPO / "fuzz" / "corpus", corpus)
    # libFuzzer's memory limit (2 GB) is checked against the process's peak RSS, which Linux carries over from the
    # process it was forked from: this pytest worker, which other soak tests (Ray, full-size inputs) may have grown
    # past 2 GB. The limit is 2 GB over what the child starts with.
    rss_limit_mb = 2048 + resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024
    proc = subprocess.run([sys.executable, str(REPO / "fuzz" / "fuzz_reader.py"), f"-runs={FUZZ_RUNS}", "-seed=1",
                           "-max_len=8192", f"-rss_limit_mb={rss_limit_mb}", f"-artifact_prefix={tmp_path}/",
                           str(corpus)], capture_output=True, text=True, timeout=600, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert f"Done {FUZZ_RUNS} runs" in proc.stderr or "DONE" in proc.stderr, proc.stderr[-2000:]
    print(f"atheris: {FUZZ_RUNS} inputs, last line: {proc.stderr.strip().splitlines()[-1]}")


_CAR_LAYER = Usd.Stage.Open(str(SAMPLES / "car" / "car.usda")).Flatten()
_OWNERS = {
    P.WHEEL: "/World/CarParts/Wheel", P.TIRE: "/World/CarParts/FrontTire", P.SUSPENSION: "/World/CarParts/FrontSuspension",
    P.ENGINE: "/World/CarParts/Engine", P.GEARS: "/World/CarParts/Gears", P.AUTOBOX: "/World/CarParts/AutoGearBox",
    P.CLUTCH: "/World/CarParts/Clutch", P.VEHICLE: "/World/Car", P.CONTROLLER: "/World/Car",
    P.ACKERMANN: "/World/Car", P.MULTI_DIFF: "/World/Car", P.ATTACHMENT: "/World/Car/FrontLeftWheel",
    P.COMPLIANCE: "/World/Car/FrontLeftWheel", P.CONTEXT: "/World/PhysicsScene", P.TABLE: "/World/TireFrictionTable",
}
_SCALARS = [p for p in P.TABLE_ROWS if p.schema in _OWNERS and P.is_schema_property(p.schema, p.base)]

floats = st.one_of(st.floats(allow_nan=True, allow_infinity=True, width=32),
                   st.sampled_from([0.0, -1.0, 1e30, -1e-30, 255.0, 3.1416]))


def _stage_with(edits) -> Usd.Stage:
    layer = Sdf.Layer.CreateAnonymous(".usda")
    layer.TransferContent(_CAR_LAYER)
    stage = Usd.Stage.Open(layer)
    for prop, value in edits:
        prim = stage.GetPrimAtPath(_OWNERS[prop.schema])
        attr = prim.GetAttribute(P.full_name(prop.schema, prop.base))
        if not attr:
            continue
        type_name = attr.GetTypeName()
        try:
            if type_name in (Sdf.ValueTypeNames.Float, Sdf.ValueTypeNames.Double):
                attr.Set(value)
            elif type_name == Sdf.ValueTypeNames.Int:
                attr.Set(int(value) if math.isfinite(value) and abs(value) < 2**31 else -7)
            elif type_name == Sdf.ValueTypeNames.FloatArray:
                attr.Set([value] * 3)
            elif type_name == Sdf.ValueTypeNames.Float2Array:
                attr.Set([(value, value)] * 2)
            elif type_name == Sdf.ValueTypeNames.Float2:
                attr.Set((value, value))
        except Exception:  # noqa: BLE001 - USD itself refused the value: nothing to read
            continue
    return stage


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(st.sampled_from(_SCALARS), floats), min_size=1, max_size=5))
def test_random_values_never_raise_and_findings_name_prims(edits):
    stage = _stage_with(edits)
    description = read_stage(stage)
    in_stage = {prop.GetName() for prim in stage.Traverse() for prop in prim.GetProperties()}
    for diagnostic in description.diagnostics:
        assert diagnostic.prim and diagnostic.message
        if diagnostic.prim != "/":
            assert stage.GetPrimAtPath(diagnostic.prim), diagnostic
        if diagnostic.property:
            prim = stage.GetPrimAtPath(diagnostic.prim)
            # The rules across a vehicle's wheels (rest loads, indices, sprung masses) are reported on the vehicle
            # and name the property of its parts.
            on_vehicle = P.VEHICLE in prim.GetAppliedSchemas() and diagnostic.property in in_stage
            assert prim.GetProperty(diagnostic.property) or on_vehicle, diagnostic
    if not [d for d in description.diagnostics if d.severity.value == "error"]:
        again = read_stage(write_stage(description))
        assert written_values(description)["vehicles"] == written_values(again)["vehicles"]
