"""The contact telemetry a step reports per vehicle (`TELEMETRY`; Simulator.telemetry's "bodies" keys, `--trace`): its
solved points, normals and impulses in the order the solver met them."""
from __future__ import annotations

from typing import Sequence

import numpy as np

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
    each group's after the ones before it."""
    out = empty_telemetry(V)
    S = TELEMETRY_SLOTS
    for vehicles, rows in solved:
        Vr = len(vehicles)
        active = rows.active.reshape(Vr, -1)
        order = np.argsort(~active, axis=1, kind="stable")[:, :S]  # the active points first, in the solver's order
        taken = np.take_along_axis(active, order, axis=1)
        k = order.shape[1]
        arm = np.take_along_axis(rows.arm.reshape(3, Vr, -1), order[None], axis=2)
        normal = np.broadcast_to(rows.normal[..., None], rows.arm.shape).reshape(3, Vr, -1)
        normal = np.take_along_axis(normal, order[None], axis=2)
        impulse = np.take_along_axis(rows.impulse.reshape(Vr, -1), order, axis=1)
        point = begin_position[:, vehicles].astype(float)[:, :, None] + arm
        slot = out["contactCount"][vehicles][:, None] + np.arange(k)[None, :]  # after the points already reported
        ok = taken & (slot < S)
        vehicle = np.broadcast_to(vehicles[:, None], slot.shape)[ok]
        out["contactPoints"][vehicle, slot[ok]] = np.moveaxis(point, 0, -1)[ok]
        out["contactNormals"][vehicle, slot[ok]] = np.moveaxis(normal, 0, -1)[ok]
        out["contactImpulses"][vehicle, slot[ok]] = impulse[ok]
        out["contactCount"][vehicles] += active.sum(axis=1)
    return out
