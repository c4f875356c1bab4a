"""The contact telemetry a step reports per vehicle (`TELEMETRY`; Simulator.telemetry's "bodies" keys, `--trace`): its
solved points, normals and impulses in the order the solver met them."""
from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence

import numpy as np

from .. import compiled_bookkeeping, compiled_patches

# Simulator.telemetry's contact keys ("bodies", per vehicle; `--trace` writes them): name -> (unit, frame, what).
# A vehicle reports at most TELEMETRY_SLOTS points a step, patch after patch in the order the solver met them; the
# slots past contactCount hold 0.
TELEMETRY_SLOTS = 16

TELEMETRY = {
    "contactCount": ("count", "-", "the step's contact points (more than the slots: the first are reported)"),
    "contactPoints": ("length", "world", "on the vehicle's shape, at the pose the step began with"),
    "contactNormals": ("unit vector", "world", "from the static shape towards the vehicle's"),
    "contactImpulses": ("mass * length / s", "along the normal", "the normal impulse the step's solve applied"),
}


def empty_telemetry(V: int) -> dict[str, np.ndarray]:
    """The contact telemetry of V vehicles touching nothing."""
    S = TELEMETRY_SLOTS
    return {"contactCount": np.zeros(V, np.int64), "contactPoints": np.zeros((V, S, 3)),
            "contactNormals": np.zeros((V, S, 3)), "contactImpulses": np.zeros((V, S))}


def telemetry(V: int, solved: Sequence, begin_position: np.ndarray) -> dict[str, np.ndarray]:
    """The contact telemetry of a step: `solved`, (vehicles, solved contact rows) of each group the solver ran
    (contact_rows.StaticContactRows: active (Vr, Pm, 4), arm (3, Vr, Pm, 4), normal (3, Vr, Pm), impulse (Vr, Pm, 4); and
    each side of the contacts between vehicles, contact_rows.PairContactRows.views), a vehicle's points in the order met,
    each group's after the ones before it. Compiled (sim/compiled_patches.py) where the extension is loaded: the
    same bits as `telemetry_numpy`."""
    if not compiled_bookkeeping.available():
        return telemetry_numpy(V, solved, begin_position)
    out = empty_telemetry(V)
    begin = np.ascontiguousarray(begin_position, dtype=np.float64)  # (numpy's astype(float): exact)
    for vehicles, rows in solved:
        if len(vehicles):
            compiled_patches.telemetry_group(vehicles, rows.active, rows.arm, rows.normal, rows.impulse, begin,
                                             out)
    return out


class DeferredTelemetry(Mapping):
    """`telemetry` of a step, made when first read (Simulator.telemetry, shards joining their parts): a run that asks
    for no output reads none, most steps. Holds the step's solve groups and its begin positions (a float64 copy: the
    begin's arrays may be buffers the next step writes); the groups' rows must be the step's own, never written after
    it (`deferred_telemetry` says which are)."""

    def __init__(self, V: int, solved: Sequence, begin_position: np.ndarray):
        self._inputs: tuple | None = (V, tuple(solved), np.array(begin_position, dtype=np.float64))
        self._made: dict[str, np.ndarray] | None = None

    def _values(self) -> dict[str, np.ndarray]:
        if self._made is None:
            self._made = telemetry(*self._inputs)
            self._inputs = None  # (made: the rows are no longer held)
        return self._made

    def __getitem__(self, key: str) -> np.ndarray:
        return self._values()[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._values())

    def __len__(self) -> int:
        return len(self._values())


def deferred_telemetry(V: int, solved: Sequence, begin_position: np.ndarray) -> Mapping[str, np.ndarray]:
    """`telemetry` of a step's solve, as a DeferredTelemetry where every group's rows are the step's own (a solve that
    marks them `step_owned`: made for this step and never written after it), else made now (a solve whose rows are
    buffers kept from step to step)."""
    if all(getattr(rows, "step_owned", False) for _, rows in solved):
        return DeferredTelemetry(V, solved, begin_position)
    return telemetry(V, solved, begin_position)


def telemetry_numpy(V: int, solved: Sequence, begin_position: np.ndarray) -> dict[str, np.ndarray]:
    """`telemetry` in numpy: the reference."""
    out = empty_telemetry(V)
    S = TELEMETRY_SLOTS
    count = out["contactCount"]
    for vehicles, rows in solved:
        Vr = len(vehicles)
        active = rows.active.reshape(Vr, -1)
        # the active points in the solver's order, each after the points already reported: its slot
        slot = count[vehicles][:, None] + (np.cumsum(active, axis=1) - 1)
        v, e = np.nonzero(active & (slot < S))
        vehicle = vehicles[v]
        at = (vehicle, slot[v, e])
        arm = rows.arm.reshape(3, Vr, -1)[:, v, e]
        out["contactPoints"][at] = (begin_position[:, vehicle].astype(float) + arm).T
        # a patch's normal serves each of its points (the arm's last axis)
        out["contactNormals"][at] = rows.normal.reshape(3, Vr, -1)[:, v, e // rows.arm.shape[-1]].T
        out["contactImpulses"][at] = rows.impulse.reshape(Vr, -1)[v, e]
        count[vehicles] += active.sum(axis=1)
    return out
