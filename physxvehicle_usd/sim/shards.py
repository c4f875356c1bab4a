"""Stepping one batch as several ranges of vehicles, in parallel threads.

No kernel mixes two vehicles, so a batch can be cut into contiguous ranges of vehicles and each range
stepped on its own, with its own `SimParams` (built from `VehicleBatch.select`): the results are the
same, bit for bit, as stepping the whole batch. numpy releases the GIL inside its loops, so the ranges'
array work can run on several cores at once while their Python (the kernels' dispatch, a few milliseconds
a step whatever the batch size) takes turns. Whether that pays depends on the machine: on the 2-vCPU
machine this project is developed on, even a trivially parallel numpy loop gains nothing from a second
thread, and two ranges step 10,000 cars about 20 % slower than one. Hence opt-in (`Simulator(threads=)`,
`simulate --threads`); `benchmarks/bench_sim.py --threads 1 2 4` measures it on the machine at hand.
"""
from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import numpy as np
import numpy.typing  # noqa: F401  (np.typing.DTypeLike)

from .batch import VehicleBatch
from .contact.records import FrictionPatches, Manifolds, StepContacts
from .contact.telemetry import TELEMETRY, empty_telemetry
from .ground import Ground
from .pipeline import StepOptions, step
from .query_groups import GroundFilter
from .state import VEHICLE_ARRAYS, SimParams, SimState, output_vehicle_axis, vehicle_axis, vehicle_rows


def vehicle_ranges(vehicles: int, parts: int) -> list[slice]:
    """`vehicles` cut into at most `parts` contiguous ranges of nearly equal size (none empty), in order."""
    bounds = np.linspace(0, vehicles, parts + 1).round().astype(int)
    return [slice(int(a), int(b)) for a, b in zip(bounds[:-1], bounds[1:]) if b > a]


class ShardedStep:
    """Steps a whole-batch `SimState` range by range, one thread per range, and joins the ranges' results.

    The joined arrays are new arrays, as a whole-batch step makes them (the numerical guard relies on it).
    """

    def __init__(self, batch: VehicleBatch, dtype: np.typing.DTypeLike, shards: int, contact=None,
                 ground_filter: GroundFilter | None = None):
        """contact: a function of a range's params making its contact model (None: no contacts); ground_filter: the
        whole batch's (sim/query_groups.py)."""
        self.ranges = vehicle_ranges(batch.nb_vehicles, shards)
        self.ground_filters = [None if ground_filter is None else ground_filter.select(r) for r in self.ranges]
        self.params = [SimParams.from_batch(batch.select(r), dtype) for r in self.ranges]
        self.contacts = [contact(p) if contact is not None else None for p in self.params]
        self._pool: ThreadPoolExecutor | None = None

    def __getstate__(self) -> dict:
        return {**self.__dict__, "_pool": None}  # threads do not pickle; a copy starts its own

    def __call__(self, s: SimState, ground: Ground, friction: np.ndarray, dt: float, options: StepOptions) -> None:
        if self._pool is None:
            self._pool = ThreadPoolExecutor(len(self.ranges), thread_name_prefix="vehicle-range")
        parts = [_range_view(s, r) for r in self.ranges]
        errors = np.geterr()  # numpy's error state is per thread: the workers take the caller's

        def advance(k: int) -> None:
            with np.errstate(**errors):
                step(self.params[k], parts[k], ground, friction, dt, options, self.contacts[k],
                     ground_filter=self.ground_filters[k])

        list(self._pool.map(advance, range(len(parts))))
        for name in VEHICLE_ARRAYS:
            value = getattr(s, name)
            if isinstance(value, np.ndarray):
                setattr(s, name, np.concatenate([getattr(part, name) for part in parts], axis=vehicle_axis(name)))
        s.out = {key: np.concatenate([part.out[key] for part in parts], axis=output_vehicle_axis(value))
                 for key, value in parts[0].out.items()}
        s.time, s.steps = parts[0].time, parts[0].steps
        s.friction = FrictionPatches.join([part.friction for part in parts], [r.start for r in self.ranges])
        s.manifolds = Manifolds.join([part.manifolds for part in parts], [r.start for r in self.ranges])
        # a batch is stepped in ranges only while no two vehicles may touch (Simulator): patches between them end
        s.pair_friction = s.pair_manifolds = None
        touching = [part.contacts for part in parts]
        s.contacts = None if all(c is None for c in touching) else StepContacts(telemetry={
            key: np.concatenate([(c.telemetry if c is not None else empty_telemetry(part.linear_velocity.shape[1]))[key]
                                 for c, part in zip(touching, parts)]) for key in TELEMETRY})


def _range_view(s: SimState, rows: slice) -> SimState:
    """The vehicles `rows` of a whole-batch state, as a state of their own: contiguous, views where the rows
    already are (a kernel writing into one writes into the whole-batch array, which the join replaces)."""
    values = {}
    for name in VEHICLE_ARRAYS:
        value = getattr(s, name)
        if isinstance(value, np.ndarray):
            value = np.ascontiguousarray(value[vehicle_rows(vehicle_axis(name), rows)])
        values[name] = value
    out = {key: np.ascontiguousarray(value[vehicle_rows(output_vehicle_axis(value), rows)])
           for key, value in s.out.items()}
    friction = None if s.friction is None else s.friction.of_vehicles(rows)
    manifolds = None if s.manifolds is None else s.manifolds.of_vehicles(rows)
    return SimState(**values, out=out, time=s.time, steps=s.steps, friction=friction, manifolds=manifolds)
