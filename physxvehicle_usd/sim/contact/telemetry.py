"""The contact telemetry a step reports per vehicle (`TELEMETRY`; Simulator.telemetry's "bodies" keys, `--trace`): its
solved points, normals and impulses in the order the solver met them."""
from __future__ import annotations

from typing import Sequence

import numpy as np

from .. import compiled_bookkeeping

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
    each group's after the ones before it. Compiled (sim/compiled_bookkeeping.py) where the extension is loaded: the
    same bits as `telemetry_numpy`."""
    if not compiled_bookkeeping.available():
        return telemetry_numpy(V, solved, begin_position)
    out = empty_telemetry(V)
    begin = np.ascontiguousarray(begin_position, dtype=np.float64)  # (numpy's astype(float): exact)
    for vehicles, rows in solved:
        if len(vehicles):
            compiled_bookkeeping.telemetry_group(vehicles, rows.active, rows.arm, rows.normal, rows.impulse, begin,
                                                 out)
    return out


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
