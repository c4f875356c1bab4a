"""Run a batch of NVIDIA's scenarios side by side, in our simulator and in ovphysx, and look at the results the way
NVIDIA's tests look at them (positions of the vehicle prim, wheel and drive states at given times).

A Fleet holds entries, each a factory car with its own options, stage edits and control schedules, placed 30 m apart
along the side axis so that one run serves many tests. Schedules are piecewise constant: {name: [(t0, v0), (t1, v1)]}
(the value from t0 on; a plain number: held from the start), as NVIDIA's tests set a controller attribute, step for a
while and set it again.

Readings. Ours reads NVIDIA's stage as Omniverse does (wheel positions in the vehicle prim's frame). ovphysx 0.7 reads
every frame relative to the centre of mass (the OVPHYSX_READING notes of read/readings.py), which would put the
factory's wheels 0.25 m lower and lift the body by as much; so ovphysx runs the same physical cars authored relative
to the centre of mass (the factory's referenceFrameIsCenterOfMass variant), which both readings agree on.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Sequence

import numpy as np
from factory import WHEEL_RADIUS, Y_UP_Z_FORWARD, Car, Options, cars_scenario
from pxr import Gf, Usd, UsdPhysics

from physxvehicle_usd import simulate
from physxvehicle_usd.oracle import run_ovphysx

DT = 1.0 / 60.0
SPACING = 30.0
AUTOMATIC = 255
VEHICLE_CONTROLS = ("accelerator", "brake0", "brake1", "steer", "targetGear", "thrust0", "thrust1")
WHEEL_CONTROLS = ("driveTorque", "brakeTorque", "steerAngle")
TELEMETRY = {"vehicles": ["engineRotationSpeed", "currentGear", "targetGear", "gearSwitchTime",
                          "autoboxTimeSinceLastShift", "automaticTransmission"],
             "wheels": ["rotationSpeed", "wheelSteerAngle", "suspensionJounce", "suspensionForce", "isOnGround",
                        "tireFriction", "position", "orientation"],
             "bodies": ["position", "orientation", "linearVelocity", "angularVelocity"]}

Schedule = dict[str, Any]  # control name -> number or [(t, value), ...]


@dataclass
class Entry:
    name: str
    options: Options
    controls: Schedule = field(default_factory=dict)
    wheel_controls: dict[int, Schedule] = field(default_factory=dict)
    edit: Callable[[Usd.Stage, Car], None] | None = None
    shift: tuple[float, float, float] = (0.0, 0.0, 0.0)  # extra offset of this car (stage units, up/forward/side)
    speed: float = 0.0  # initial forward speed of the body (stage units/s)
    side_speed: float = 0.0  # initial speed along the side axis
    # NVIDIA sets the wheels of a car given a speed to free rolling (set_wheel_rotation_speed): ours can (the
    # simulator's state); ovphysx 0.7 cannot, its wheels start at rest and the tires spin them up
    spin: bool = False
    wheel_speed: float | None = None  # ours only: every wheel's initial rotation speed (rad/s), overriding `spin`


def _per_step(schedule: Any, steps: int) -> np.ndarray:
    if not isinstance(schedule, (list, tuple)):
        return np.full(steps, float(schedule))
    out = np.empty(steps)
    out[:] = float(schedule[0][1])
    for t, value in schedule:
        out[int(round(t / DT)):] = float(value)
    return out


@dataclass
class View:
    """One car's run: body positions (steps + 1, 3) from the start, wheel and drive traces (steps, ...)."""

    car: Car
    axes: tuple[int, int, int]
    bodies: dict[str, np.ndarray]
    wheels: list[dict[str, np.ndarray]]
    vehicle: dict[str, np.ndarray]
    final: dict[str, float] = field(default_factory=dict)  # drive state after the last step (see Fleet.run_*)

    @staticmethod
    def step(t: float) -> int:
        """The trace row after `t` seconds of steps (NVIDIA steps ceil(t / dt) times)."""
        return int(np.ceil(t / DT - 1e-9)) - 1

    def pos(self, t: float) -> np.ndarray:
        return self.bodies["position"][self.step(t)] if t > 0 else np.asarray(self.car.position, float)

    def delta(self, t: float, since: float = 0.0) -> np.ndarray:
        """Displacement (up, forward, side components in the stage's axes order x, y, z) between two times."""
        return self.pos(t) - self.pos(since)

    def forward(self, t: float, since: float = 0.0) -> float:
        return float(self.delta(t, since)[self.axes[1]])

    def up(self, t: float, since: float = 0.0) -> float:
        return float(self.delta(t, since)[self.axes[0]])

    def side(self, t: float, since: float = 0.0) -> float:
        return float(self.delta(t, since)[self.axes[2]])

    def wheel(self, index: int, name: str, t: float) -> Any:
        return self.wheels[index][name][self.step(t)]

    def drive(self, name: str, t: float) -> Any:
        return self.vehicle[name][self.step(t)]

    def speed(self, t: float) -> float:
        return float(np.linalg.norm(self.bodies["linearVelocity"][self.step(t)]))


class Fleet:
    """Entries stepped together for `seconds`; `build(frame)` authors the stage ("prim": NVIDIA's own, "com": the
    same cars relative to the centre of mass, for ovphysx)."""

    def __init__(self, entries: Sequence[Entry], seconds: float, *, length_scale: float = 1.0, mass_scale: float = 1.0,
                 axes: Sequence[int] = Y_UP_Z_FORWARD, spacing: float = SPACING, air: bool = False,
                 gravity: float | None = None, stage_edit: Callable[[Usd.Stage], None] | None = None):
        names = [e.name for e in entries]
        assert len(set(names)) == len(names), "entry names must be unique"
        self.entries = list(entries)
        self.steps = int(np.ceil(seconds / DT - 1e-9))
        self.L, self.M, self.axes, self.spacing = length_scale, mass_scale, tuple(axes), spacing
        self.air = air  # NVIDIA's _remove_factory_ground_plane_and_set_gravity_zero
        # gravity (m/s^2, negative: upwards): the factory's 10 plus the load of NVIDIA's force on the body, which
        # acts through the centre of mass as gravity does; stage_edit: a change of the whole stage, after the cars
        self.gravity, self.stage_edit = gravity, stage_edit

    def build(self, frame: str = "prim") -> tuple[Usd.Stage, dict[str, Car]]:
        options = [Options(**{**e.options.__dict__, "com_frame": frame == "com" or e.options.com_frame})
                   for e in self.entries]
        delta = [0.0, 0.0, 0.0]
        delta[self.axes[2]] = self.spacing * self.L
        stage, cars = cars_scenario(len(self.entries), length_scale=self.L, mass_scale=self.M, axes=self.axes,
                                    delta=delta, options=options, names=[f"/World/{n}" for n in self._names()])
        if self.air:
            stage.RemovePrim("/World/GroundPlane")
            UsdPhysics.Scene(stage.GetPrimAtPath("/World/PhysicsScene")).GetGravityMagnitudeAttr().Set(0.0)
        if self.gravity is not None:
            scene = UsdPhysics.Scene(stage.GetPrimAtPath("/World/PhysicsScene"))
            scene.GetGravityMagnitudeAttr().Set(abs(self.gravity) * self.L)
            down = [0.0, 0.0, 0.0]
            down[self.axes[0]] = -1.0 if self.gravity >= 0 else 1.0
            scene.GetGravityDirectionAttr().Set(Gf.Vec3f(*down))
        out = {}
        for entry, car in zip(self.entries, cars):
            if any(entry.shift):
                attr = stage.GetPrimAtPath(car.path).GetAttribute("xformOp:translate")
                shifted = list(attr.Get())
                for k, axis in enumerate(self.axes):
                    shifted[axis] += entry.shift[k]
                attr.Set(type(attr.Get())(*shifted))
                car = Car(car.path, car.wheels, tuple(shifted))
            if entry.speed or entry.side_speed:
                velocity = [0.0, 0.0, 0.0]
                velocity[self.axes[1]] = entry.speed
                velocity[self.axes[2]] = entry.side_speed
                UsdPhysics.RigidBodyAPI(stage.GetPrimAtPath(car.path)).CreateVelocityAttr(Gf.Vec3f(*velocity))
            if entry.edit is not None:
                entry.edit(stage, car)
            out[entry.name] = car
        if self.stage_edit is not None:
            self.stage_edit(stage)
        return stage, out

    def _names(self) -> list[str]:
        return [e.name for e in self.entries]

    def _schedules(self, cars: dict[str, Car]) -> tuple[dict, dict]:
        """Per-step values of every scheduled control: {path: {name: (steps,)}} for vehicles and for wheels."""
        vehicles, wheels = {}, {}
        for e in self.entries:
            car = cars[e.name]
            if e.controls:
                vehicles[car.path] = {n: _per_step(s, self.steps) for n, s in e.controls.items()}
            for index, schedule in e.wheel_controls.items():
                wheels[car.wheels[index]] = {n: _per_step(s, self.steps) for n, s in schedule.items()}
        return vehicles, wheels

    # -- ours ----------------------------------------------------------------------------------------------------

    def run_ours(self) -> dict[str, View]:
        stage, cars = self.build("prim")
        loaded = simulate.load(stage, DT)
        paths = list(loaded.paths)
        wheel_paths = [list(w) for w in loaded.wheel_paths]
        vehicles, wheels = self._schedules(cars)
        rows = {path: i for i, path in enumerate(paths)}
        slots = {w: (v, k) for v, ws in enumerate(wheel_paths) for k, w in enumerate(ws)}
        sim = loaded.simulator
        for e in self.entries:
            if e.spin or e.wheel_speed is not None:
                value = e.wheel_speed if e.wheel_speed is not None else e.speed / (WHEEL_RADIUS * self.L)
                for speed in (sim.state.rotation_speed, sim.state.corrected_rotation_speed):
                    speed[rows[cars[e.name].path]] = value

        def current(name: str) -> np.ndarray:
            s = sim.state
            if name == "targetGear":
                g = np.asarray(s.target_gear_command)
                return np.where(g == AUTOMATIC, AUTOMATIC, g - 1).astype(float)
            if name in WHEEL_CONTROLS:
                return np.array(getattr(s, {"driveTorque": "wheel_drive_torque", "brakeTorque": "wheel_brake_torque",
                                            "steerAngle": "wheel_steer_angle"}[name]), dtype=float)
            return np.array(getattr(s, name), dtype=float)

        def controls(i: int, _sim: Any) -> dict[str, np.ndarray] | None:
            out: dict[str, np.ndarray] = {}
            for path, per in vehicles.items():
                for name, values in per.items():
                    if i == 0 or values[i] != values[i - 1]:
                        arr = out.setdefault(name, current(name))
                        arr[rows[path]] = values[i]
            for path, per in wheels.items():
                for name, values in per.items():
                    if i == 0 or values[i] != values[i - 1]:
                        arr = out.setdefault(name, current(name))
                        arr[slots[path]] = values[i]
            return out or None

        result = simulate.run(loaded, self.steps, DT, controls=controls)
        s = sim.state
        # the drive state ovphysx reports as telemetry and our simulator keeps in its state (not in its telemetry)
        final = {"gearSwitchTime": s.gear_switch_time, "autoboxTimeSinceLastShift": s.autobox_time_since_shift,
                 "automaticTransmission": np.asarray(s.target_gear_command) == AUTOMATIC}
        views = {}
        for e in self.entries:
            car = cars[e.name]
            v = rows[car.path]
            order = [wheel_paths[v].index(w) for w in car.wheels]
            views[e.name] = View(
                car, self.axes,
                {n: result.arrays["bodies"][n][:, v] for n in TELEMETRY["bodies"]},
                [{n: result.arrays["wheels"][n][:, v, k] for n in TELEMETRY["wheels"] if n in result.arrays["wheels"]}
                 for k in order],
                {n: result.arrays["vehicles"][n][:, v] for n in TELEMETRY["vehicles"] if n in result.arrays["vehicles"]},
                {n: float(a[v]) for n, a in final.items()})
        return views

    # -- PhysX ---------------------------------------------------------------------------------------------------

    def run_physx(self, folder: Path) -> dict[str, View]:
        stage, cars = self.build("com")
        path = Path(folder) / "fleet.usda"
        stage.GetRootLayer().Export(str(path))
        vehicles, wheels = self._schedules(cars)
        controls = {p: {n: v.tolist() for n, v in per.items()} for p, per in {**vehicles, **wheels}.items()}
        trace = run_ovphysx(path, self.steps, DT, controls=controls, telemetry=TELEMETRY)
        views = {}
        for e in self.entries:
            car = cars[e.name]
            drive = trace["vehicles"].get(car.path, {})
            # (a wheel ovphysx reports nothing of, e.g. an attachment prim that is not xformable, reads as empty)
            views[e.name] = View(car, self.axes, trace["bodies"][car.path], [trace["wheels"].get(w, {}) for w in car.wheels],
                                 drive, {n: float(drive[n][-1]) for n in ("gearSwitchTime", "autoboxTimeSinceLastShift",
                                                                          "automaticTransmission") if n in drive})
        return views
