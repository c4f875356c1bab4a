"""Parameters of copies: a vehicle whose description is another's moved to its own path takes that vehicle's
parameters, with its own paths, description and initial state.

A fleet read from references of one asset (read/copies.py) holds thousands of vehicle records that are one record
at different paths and poses. `build_vehicle_params` is a function of the vehicle's record and of the stage's
units, scenes and friction tables; in the record it reads paths only as names (the vehicle's and its wheels') and
to look up its scene and its tires' friction tables, and the pose only into the initial state. So for a vehicle
whose record equals a representative's moved to its path (read.copy_paths.vehicle_matcher: every value equal, paths
re-rooted, whatever the body's world position and orientation), and whose scene and friction tables do not lie
below the representative (the look-ups find the same prims), the parameters are the representative's with:
path, initial state (rigid_body_initial_state of its own record), description, and each wheel's path and
description. The first such vehicle of a representative (its twin) is built in full as well and must compare
equal to what reuse gives, or the representative lends nothing.

A record changed after reading (a caller randomising one car of a fleet) no longer matches: it is built in full.
"""
from __future__ import annotations

from typing import Any, Callable, Mapping, Sequence

from ...description import Resolved, StageDescription, VehicleDescription
from ...prim_paths import at_or_below
from ...read.copy_paths import POSE, record_mover, vehicle_matcher
from .build import build_vehicle_params, rigid_body_initial_state
from .params import VehicleParams


def replaced(record: Any, **changes: Any) -> Any:
    """A frozen parameter record with some fields changed (dataclasses.replace without re-running __init__: the
    other fields are the original's objects)."""
    out = object.__new__(type(record))
    fields = record.__dict__.copy()
    fields.update(changes)
    object.__setattr__(out, "__dict__", fields)
    return out


class _Representative:
    """A vehicle built in full whose parameters its copies take."""

    def __init__(self, params: VehicleParams, record: VehicleDescription) -> None:
        self.params, self.record, self.root = params, record, record.path
        self._matcher: Callable[[Any, str], bool] | None = None  # made when a vehicle is first compared with it
        below = [record.scene] + [w.tire.get("frictionTable") for w in record.wheels]
        self.lends = not any(p is not None and at_or_below(p, self.root) for p in below)
        self.verified: bool | None = None  # whether reuse gave its twin what a full build gives (None: no twin yet)
        self._converted: dict = {}  # rigid_body_initial_state's conversions of the values its copies share

    def matches(self, record: VehicleDescription, path: str) -> bool:
        if self._matcher is None:
            self._matcher = vehicle_matcher(self.record, self.root)
        return self._matcher(record, path)

    def reuse(self, record: VehicleDescription) -> VehicleParams:
        wheels = sorted(record.wheels, key=lambda w: w.index)
        initial_state = rigid_body_initial_state(record.rigidBody, self._converted)
        return replaced(self.params, path=record.path, initial_state=initial_state, description=record,
                        wheels=tuple(replaced(w, path=d.path, description=d) for w, d in zip(self.params.wheels, wheels)))


def build_params_sharing(description: StageDescription, paths: Sequence[str],
                         copies: Mapping[str, str] | None = None) -> tuple[list[VehicleParams], list[int]]:
    """The vehicle2 parameters of the vehicles at `paths` (build_vehicle_params of each), and for each vehicle the
    index of the one whose parameters it took (its own index where it was built in full).

    copies: vehicle path -> the path of a vehicle whose record it is moved to its own path, as the reader that made
    this description found (CopyStats.templates); only for a description nobody has changed since it was read.
    Copies of one vehicle are then not compared with one another: the first is built in full and lends its
    parameters, the second is built in full too and must equal what reuse gives it."""
    params: list[VehicleParams] = []
    like: list[int] = []
    representatives: dict[tuple, list[tuple[int, _Representative]]] = {}
    lenders: dict[str, tuple[int, _Representative]] = {}  # by the reader's template path
    copies = copies or {}
    for path in paths:
        record = description.vehicles.get(path)
        if record is None:
            params.append(build_vehicle_params(description, path))  # raises: no such vehicle
            continue
        source = copies.get(path)
        if source is not None:
            found = lenders.get(source)
            if found is not None and found[1].verified and found[1].lends:
                params.append(found[1].reuse(record))
                like.append(found[0])
                continue
            built = build_vehicle_params(description, path)
            if found is None:
                lenders[source] = (len(params), _Representative(built, record))
            elif found[1].verified is None and found[1].lends:  # the twin
                found[1].verified = found[1].reuse(record) == built
            like.append(len(params))
            params.append(built)
            continue
        shape = _shape(record)
        if shape is None:
            like.append(len(params))
            params.append(build_vehicle_params(description, path))
            continue
        candidates = representatives.setdefault(shape, [])
        # the first representative of this shape and the latest: a fleet's copies follow one another, and a vehicle
        # that matches neither is built in full (it becomes the latest), never compared with every earlier one
        tried = candidates[:1] + candidates[-1:] if len(candidates) > 1 else candidates
        found = next(((i, rep) for i, rep in tried if rep.lends and rep.verified is not False
                      and rep.matches(record, path)), None)
        if found is not None and found[1].verified:
            params.append(found[1].reuse(record))
            like.append(found[0])
            continue
        built = build_vehicle_params(description, path)
        if found is not None:  # the twin: reuse must give what the full build gives
            found[1].verified = found[1].reuse(record) == built
        else:
            candidates.append((len(params), _Representative(built, record)))
        like.append(len(params))
        params.append(built)
    return params, like


def _shape(record: VehicleDescription) -> tuple | None:
    """What copies of one vehicle have in common, cheap to read: the wheel count, drive type and scene, and a few
    values that set vehicles apart (body mass and inertia, the first wheel's tire and spring stiffness), so that a
    stage of different vehicles (a fleet with randomised masses) compares none of them with another. None where a
    value cannot be a key."""
    rb = record.rigidBody
    first = min(record.wheels, key=lambda w: w.index) if record.wheels else None
    shape = (len(record.wheels), record.drive.type if record.drive is not None else None, record.scene,
             rb.get("mass"), rb.get("diagonalInertia"),
             first.tire.get("longitudinalStiffness") if first is not None else None,
             first.suspension.get("springStrength") if first is not None else None)
    try:
        hash(shape)
    except TypeError:
        return None
    return shape


# -- what differs between copies --------------------------------------------------------------------------

class Touched(Exception):
    """A computation used a value that differs between copies."""


class Varies:
    """Stands for a value that differs between copies (a path, the body's pose, the initial state): every use of
    it raises Touched, but a path built from it (+) is it again."""

    __slots__ = ()

    def __add__(self, other: Any) -> "Varies":
        return self

    __radd__ = __add__

    def _touched(self, *args: Any, **kwargs: Any) -> Any:
        raise Touched("a value that differs between copies")

    __getattr__ = __getitem__ = __iter__ = __len__ = __contains__ = _touched
    __eq__ = __ne__ = __lt__ = __le__ = __gt__ = __ge__ = __hash__ = __bool__ = _touched
    __float__ = __int__ = __index__ = __complex__ = __str__ = __format__ = __array__ = _touched
    __sub__ = __rsub__ = __mul__ = __rmul__ = __truediv__ = __rtruediv__ = __neg__ = __abs__ = __pow__ = _touched


VARIES = Varies()


def copy_probe(params: VehicleParams) -> VehicleParams | None:
    """`params` as any copy taking them would have them, with what differs between copies (paths, initial state,
    the body's world position and orientation in the description) standing as VARIES: a value worked out from
    this probe equal to the one from `params` is every copy's. None where the description cannot be moved."""
    record = params.description
    if record is None:
        return None
    try:
        moved = record_mover(record, record.path)(VARIES)
    except Exception:  # noqa: BLE001 - a value the mover does not know: no probe, no sharing
        return None
    values = moved.rigidBody.values
    for key in POSE:
        values[key] = Resolved(VARIES, values[key].source)
    wheels = sorted(moved.wheels, key=lambda w: w.index)
    return replaced(params, path=VARIES, initial_state=VARIES, description=moved,
                    wheels=tuple(replaced(w, path=VARIES, description=d) for w, d in zip(params.wheels, wheels)))
