"""The quiet broad phases' first references, taken when the simulator is built.

Three broad phases skip their work while no body has moved by a margin since the pose they last found quiet: the
planes' (sim/contact/broad.py `static_candidates` on a ground of planes alone), the one between vehicles
(`candidate_pairs`) and the one between the wheels' queries and the other vehicles' shapes (sim/vehicle_queries.py).
Each keeps its reference in its model. Taken here, at the state's pose, the first step finds them kept and quiet
where nothing is near, as every later step does; where something is near, that step runs the broad phase as before.
Either way the step's contacts and queries are the same: a quiet phase is one that would find nothing. What moves is
the cost of a fleet's first full broad phases (about 0.7 ms at 1,000 cars) from the first step into the build, which
knows the pose they are taken at.
"""
from __future__ import annotations

import numpy as np

from . import vecmath as vm
from .contact.broad import begin_check, candidate_pairs, static_candidates
from .contact.model import ContactModel
from .ground import Ground
from .motion import Motion
from .pipeline import wheel_frame
from .state import SimParams, SimState
from .suspension import steered_wheel_offset
from .vehicle_queries import VehicleQueries, candidates


def take_quiet_references(p: SimParams, s: SimState, ground: Ground, contact: ContactModel | None,
                          queries: VehicleQueries | None) -> None:
    """Run the quiet broad phases once at the state's body pose, so that their references are kept (see the module
    docstring); the wheels' queries as they stand with no steer (their quiet test, at every step, measures the bodies'
    motion alone: a steer is not part of it). Shapes that follow a wheel are posed by the step: their phases are left
    to it."""
    if contact is None or contact.following.size:
        return
    position, orientation = s.body_position, s.body_orientation
    motion = Motion(position, orientation)
    if contact.static_shapes is None and ground.grid is None and contact.static_rounds is None:
        static_candidates(contact, ground, position, orientation, motion)  # (planes alone: the quiet one)
        begin_check(contact, ground, p.V)  # (and the compiled begin's copy of its reference, made once per reference)
    if contact.pairs is not None:
        candidate_pairs(contact, position, orientation, motion)
    if queries is not None and not queries.meets_own:
        offset = steered_wheel_offset(p, np.zeros((p.V, p.W), p.dtype))
        frame = wheel_frame(p, vm.quat_to_mat(orientation), position, offset)
        candidates(queries, contact, p, frame, p.travel_distance + 2.0 * p.radius, position, orientation, motion)
