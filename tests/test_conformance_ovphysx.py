"""The simulator against real PhysX (ovphysx 0.7, CPU, in a subprocess) over a set of driving scenarios:
the compiled kernel (the default), the numpy kernels in float32 and in float64.

Stages: tests/scenarios/fleet.usda (nine vehicles far apart on one plane, stepped together in one ovphysx
run: fixed gear, automatic gears, braking, steady turn, handbrake turn, tank pivot, raw wheel torques,
basic drive, sentinel defaults, rigid-body settings), samples/car_cm/car_cm.usda (centimetres) and
tests/scenarios/car_grams.usda (kilogramsPerUnit 0.001). tests/scenarios/build.py makes the stages.

Metric. For a quantity q (chassis speed |v|, chassis angular speed |w|, engine speed, wheel rotation
speeds, suspension jounces) of one scenario, the error is

    max over recorded steps (and wheels) of |q_ours - q_physx|  /  max over the run of |q_physx|

i.e. the worst deviation relative to the peak magnitude the quantity reaches in that run. Every quantity is
compared over every recorded step, the launch from rest included, but the wheel rotation speeds, which are not
chassis quantities: those from SETTLE_S on (the peak then that of the compared steps).

Why the wheels' window. In the first instants of a launch from rest the tire torque is explicit and far too stiff
for the substep (gain about 50 per substep at the active slip denominator), so the wheels chatter, bounded only by
tire saturation, and the chattering tire forces pitch the chassis. That phase is chaotic: float32 PhysX and float64
numpy leave it on different branches (wheel speeds differ by 1 % after the second step), so only its outcome can be
compared. Engine-driven cars settle within 0.5 s; direct-drive wheels (raw torques, basic drive), which no engine
inertia couples, leave it after 1.0 to 1.5 s depending on which branch rounding picks (float32 or float64, SIMD
width); hence 1.5 s for all.

The chassis over the launch. Speed, jounce, engine speed and final position agree to 0.8 % over the whole run (the
float32 tank apart, below). The angular speed of the engine-driven straight runs does not: their run's peak |w| is a
pitch of 20 to 57 mrad/s (the launch's own, a gear shift's, the braking's), and the chatter makes ours differ from
PhysX's by 2.4 mrad/s (float32, at 0.08 s; float64 4.3 to 4.4 mrad/s at 0.25 s), 5 to 22 % of that peak (fixed gear,
automatic gears, braking, sentinel defaults: LAUNCH below, held to PhysX's own spread with the world moved). Where the two part, step by step (braking car, pitch rate): steps 0 and 1 agree to 1e-4
(relative), step 2 to 5e-3 (float32; 1e-4 float64), step 3 to 4 % (1.5 %), and at step 4 they are 46 % (33 %) apart:
the step at which the front wheels part left from right. Both sides solve the engine drivetrain (wheels and engine)
with PhysX's LU, full pivoting, float32 (sim/lu.py), whose rounding parts left from right after step 0: PhysX's by
+1.8e-7 rad/s, ours by -1.0e-6 (from wheel speeds 3e-4 apart the roundings fall otherwise; float64 parts by 4e-16).
The chatter grows both to rad/s by step 4 (front left minus right: PhysX +4.97, ours +1.50; -6.1e-3 and -1.1e-3 at
step 3), and the yaw jumps with it: PhysX's to 5.0 mrad/s, ours to 1.4 (float64's stays below 1e-5 through step 8).
With the closed-form solve before the LU, ours kept left and right equal to the bit, its yaw 0, and differed from
PhysX by 3.4 to 3.8 mrad/s (7 to 17 % of the peak). The seed ours starts from, 1e-4 of the wheel speeds after step 0, is float32 rounding's reach
in that step (our float32 and float64 runs differ by 2.3e-4 there; a 1e-7 change of the time step moves our float64
run by less than 1e-7), and the chatter multiplies a difference by 100 to 250 a step. PhysX against itself: each car
copied 30 m aside and stepped in the same ovphysx run with the same inputs differs from its copy by 2.6 mrad/s at
0.13 s, 4.6 % (braking) to 13.1 % (fixed gear) of the run's peak, above the gate; ours (float32) from PhysX by 1.05
to 1.07 times PhysX's own spread (float64: 1.7 times; 1.3 to 1.8 times in float32 before the LU; 0.9 times with the LU
before the TGS pose moved per position iteration, rigid_body.integrate_position). (The fleet's own twins, Braking and Handbrake,
identical inputs for 4 s, differ by 7.7 %: printed.) The other scenarios' peak is a turn or a spin, 16 to 120 times
the launch's pitch (20 mrad/s), so the same launch reads below 2 %. After the launch (the last table printed: every
quantity from SETTLE_S on) all figures are below 0.25 %.
The largest, the braking car's angular speed, is an event: at 5.25 s the car comes to rest, the sticky-tire
rows take its last 0.23 m/s within one step and the chassis pitches back. Our speed trails PhysX's by 1.0 mm/s
(of 0.23 m/s) into that step, and the first peak of the rebound differs by 0.13 mrad/s, 0.23 % of the run's
peak pitch rate; up to the stop the pitch rates agree to 0.005 mrad/s. (With each TGS pass of the sticky
rows solved to convergence instead of swept once in PhysX's row order, as before, the rebound differed by
0.6 mrad/s, 1.3 %.)

The tank pivoting in place is the exception: its launch decides which of two track-chatter cycles it settles
in, and float32 numpy settles in another one than PhysX (see TANK_BRANCH below); float64 numpy agrees with PhysX.
Until this was run with the compiled kernel, a targetGear control turned the float32 fleet's drive torques
float64, so the tank's float32 figures were in part float64 ones.

The final position error is the distance between the two final chassis positions divided by the path
length PhysX's chassis travelled (at least one metre, so a tank pivoting in place is judged against a
metre). Every figure must be <= LIMIT.

The fleet runs 520 steps (8.7 s): the automatic gearbox makes three up-shifts. Its fourth, at 8.87 s, is
decided by the engine speed crossing 0.65 * 600 = 390 rad/s; PhysX crosses it one step earlier than
numpy (390.006 against 389.994 rad/s, a 3e-5 difference left over from the launch), which would read
as a 4 % wheel-speed error around the shift, so the run stops before it.
"""
from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable

import numpy as np
import pytest
from conftest import needs_kernel
from scenarios.copies import as_original, copy_controls, with_copies
from scenarios.places import self_spread, spread_gate

from physxvehicle_usd import oracle
from physxvehicle_usd.read import read_stage
from physxvehicle_usd.sim import Simulator, compiled
from physxvehicle_usd.sim.pipeline import StepOptions

pytestmark = pytest.mark.ovphysx

REPO = Path(__file__).resolve().parents[1]
SCENARIOS = REPO / "tests" / "scenarios"
DT = 1.0 / 60.0
LIMIT = 0.02
SETTLE_S = 1.5
MIN_PATH = 1.0  # metres


def _schedule(steps: int, before: float, after: float, at_s: float) -> list[float]:
    switch = int(round(at_s / DT))
    return [before if i < switch else after for i in range(steps)]


@dataclass
class Scenario:
    name: str
    vehicle: str
    controls: dict[str, Any]  # oracle layout: {path: {name: value or per-step list}}


@dataclass
class Stage:
    path: Path
    steps: int
    scenarios: list[Scenario] = field(default_factory=list)


def _fleet(steps: int) -> Stage:
    s = lambda before, after, at: _schedule(steps, before, after, at)  # noqa: E731
    w = "/World/Raw/{}".format
    ramp = [min(1.0, i * DT) for i in range(steps)]  # full throttle after 1 s
    return Stage(SCENARIOS / "fleet.usda", steps, [
        Scenario("fixed gear, full throttle", "/World/FixedGear", {"/World/FixedGear": {"accelerator": 1.0, "targetGear": 1}}),
        Scenario("automatic gears", "/World/Autobox", {"/World/Autobox": {"accelerator": 1.0}}),
        Scenario("braking from speed", "/World/Braking",
                 {"/World/Braking": {"accelerator": s(1.0, 0.0, 4.0), "brake0": s(0.0, 1.0, 4.0)}}),
        Scenario("steady turn", "/World/Turning",
                 {"/World/Turning": {"accelerator": s(1.0, 0.4, 2.0), "steer": s(0.0, 0.3, 2.0)}}),
        Scenario("handbrake turn", "/World/Handbrake",
                 {"/World/Handbrake": {"accelerator": s(1.0, 0.0, 4.0), "brake1": s(0.0, 1.0, 4.0),
                                       "steer": s(0.0, 0.5, 4.0)}}),
        Scenario("tank pivot", "/World/Tank", {"/World/Tank": {"accelerator": 0.5, "thrust0": 1.0, "thrust1": -1.0}}),
        Scenario("raw wheel torques", "/World/Raw", {
            w("FrontLeftWheel"): {"steerAngle": s(0.0, 0.15, 1.0), "brakeTorque": s(0.0, 200.0, 7.0)},
            w("FrontRightWheel"): {"steerAngle": s(0.0, 0.15, 1.0), "brakeTorque": s(0.0, 200.0, 7.0)},
            w("RearLeftWheel"): {"driveTorque": s(500.0, 0.0, 4.0), "brakeTorque": s(0.0, 200.0, 7.0)},
            w("RearRightWheel"): {"driveTorque": s(500.0, 0.0, 4.0), "brakeTorque": s(0.0, 200.0, 7.0)}}),
        Scenario("basic drive", "/World/Basic", {"/World/Basic": {"accelerator": ramp, "steer": s(0.0, 0.2, 3.0)}}),
        Scenario("sentinel defaults", "/World/Defaults", {"/World/Defaults": {"accelerator": 1.0}}),
        Scenario("rigid-body settings", "/World/Actor",
                 {"/World/Actor": {"accelerator": 1.0, "steer": s(0.0, 0.3, 3.0)}}),
    ])


def _single(path: Path, name: str, steps: int) -> Stage:
    controls = {"accelerator": 1.0, "steer": _schedule(steps, 0.0, 0.3, 2.0)}
    return Stage(path, steps, [Scenario(name, "/World/Car", {"/World/Car": controls})])


STAGES = [
    _fleet(520),
    _single(REPO / "samples" / "car_cm" / "car_cm.usda", "centimetres, throttle + steer", 300),
    _single(SCENARIOS / "car_grams.usda", "grams, throttle + steer", 300),
]


# ------------------------------------------------------------------------------------------- our side


def _control_arrays(sim: Simulator, stage: Stage, step: int) -> dict[str, np.ndarray]:
    """The oracle's {path: {name: value}} controls of one step as the Simulator's batched arrays."""
    p = sim.params
    vehicle_row = {path: v for v, path in enumerate(p.paths)}
    wheel_row = {wp: (v, w) for v, paths in enumerate(p.wheel_paths) for w, wp in enumerate(paths)}
    out: dict[str, np.ndarray] = {}
    for scenario in stage.scenarios:
        for path, values in scenario.controls.items():
            for name, value in values.items():
                x = value[step] if isinstance(value, list) else value
                if path in vehicle_row:
                    if name not in out:
                        out[name] = (sim.state.target_gear_command.copy() if name == "targetGear"
                                     else getattr(sim.state, name).copy())
                        if name == "targetGear":  # back to USD numbering
                            out[name] = np.where(out[name] == 255, 255, out[name] - 1)
                    out[name][vehicle_row[path]] = x
                elif path in wheel_row:  # (a vehicle of another batch of the stage otherwise)
                    state_name = {"driveTorque": "wheel_drive_torque", "brakeTorque": "wheel_brake_torque",
                                  "steerAngle": "wheel_steer_angle"}[name]
                    if name not in out:
                        out[name] = getattr(sim.state, state_name).copy()
                    out[name][wheel_row[path]] = x
    return out


def simulators(stage: Stage, variant: Variant) -> list[Simulator]:
    """The stage's vehicles as Simulator batches. With the compiled kernel: the vehicles it covers in one batch
    and the rest (the tank) in another, so that a tank in the fleet does not send every car to numpy."""
    description = read_stage(stage.path)
    make = lambda paths: Simulator.from_description(description, DT, paths, dtype=variant.dtype,  # noqa: E731
                                                    options=StepOptions(compiled=variant.compiled))
    if not variant.compiled:
        return [make(None)]
    paths = sorted(description.vehicles)
    covered = [path for path in paths if make([path]).options.compiled]
    rest = [path for path in paths if path not in covered]
    return [make(group) for group in (covered, rest) if group]


# What both sides record after every step (the oracle's telemetry names).
RECORDED = {"vehicles": ("engineRotationSpeed", "currentGear"),
            "wheels": ("rotationSpeed", "suspensionJounce"),
            "bodies": ("position", "linearVelocity", "angularVelocity")}


def run_sim(stage: Stage, variant: Variant) -> dict[str, Any]:
    """Our side of a stage: the recorded quantities by path, and which vehicles the compiled kernel stepped."""
    out: dict[str, Any] = {"vehicles": {}, "wheels": {}, "bodies": {}, "compiled": {}}
    for sim in simulators(stage, variant):
        rec: dict[str, dict[str, list]] = {kind: {k: [] for k in names} for kind, names in RECORDED.items()}
        for i in range(stage.steps):
            sim.step(_control_arrays(sim, stage, i))
            t = sim.telemetry()
            for kind, names in RECORDED.items():
                for k in names:
                    rec[kind][k].append(np.array(t[kind][k]))
        p = sim.params
        for v, path in enumerate(p.paths):
            out["compiled"][path] = sim.options.compiled
            out["vehicles"][path] = {k: np.stack(rec["vehicles"][k])[:, v] for k in RECORDED["vehicles"]}
            out["bodies"][path] = {k: np.stack(rec["bodies"][k])[:, v] for k in RECORDED["bodies"]}
            for w, wp in enumerate(p.wheel_paths[v]):
                out["wheels"][wp] = {k: np.stack(rec["wheels"][k])[:, v, w] for k in RECORDED["wheels"]}
    return out


# ------------------------------------------------------------------------------------------- figures


def worst_relative(mine: np.ndarray, ref: np.ndarray) -> float:
    mine, ref = np.asarray(mine, float), np.asarray(ref, float)
    return float(np.abs(mine - ref).max() / max(np.abs(ref).max(), 1e-9))


def figures(scenario: Scenario, mine: dict, ref: dict, wheel_settle_steps: int, min_path: float) -> dict[str, float]:
    """The scenario's figures (see the module docstring): every quantity over the whole run, but the wheel rotation
    speeds, which are not chassis quantities, from step `wheel_settle_steps` on."""
    v = scenario.vehicle
    body, rbody = mine["bodies"][v], ref["bodies"][v]
    speed = lambda b, k: np.linalg.norm(np.asarray(b[k], float), axis=1)  # noqa: E731
    settled = slice(wheel_settle_steps, None)
    out = {
        "speed": worst_relative(speed(body, "linearVelocity"), speed(rbody, "linearVelocity")),
        "ang.speed": worst_relative(speed(body, "angularVelocity"), speed(rbody, "angularVelocity")),
    }
    if "engineRotationSpeed" in ref["vehicles"].get(v, {}):
        out["engine"] = worst_relative(mine["vehicles"][v]["engineRotationSpeed"], ref["vehicles"][v]["engineRotationSpeed"])
    wheels = [w for w in ref["wheels"] if w.startswith(v + "/")]
    stack = lambda src, k, sl=slice(None): np.stack([np.asarray(src["wheels"][w][k], float)[sl] for w in wheels])  # noqa: E731
    out["wheels"] = worst_relative(stack(mine, "rotationSpeed", settled), stack(ref, "rotationSpeed", settled))
    out["jounce"] = worst_relative(stack(mine, "suspensionJounce"), stack(ref, "suspensionJounce"))
    ref_pos = np.asarray(rbody["position"], float)
    path_length = float(np.linalg.norm(np.diff(ref_pos, axis=0), axis=1).sum())
    out["final pos"] = float(np.linalg.norm(np.asarray(body["position"], float)[-1] - ref_pos[-1]) / max(path_length, min_path))
    return out


def steps_of(trace: dict, steps: slice) -> dict:
    """The trace (either side's layout) cut to the recorded steps `steps`."""
    return {kind: {path: {k: np.asarray(v)[steps] for k, v in values.items()} for path, values in trace[kind].items()}
            for kind in ("vehicles", "wheels", "bodies")}


def physx_spread(ref: dict, wheel_settle_steps: int) -> dict[str, float]:
    """The same figures (wheel speeds from `wheel_settle_steps`, the rest over the 4 s) between two PhysX cars of the
    fleet that get identical inputs for the first 4 s: the launch chaos of PhysX alone, a floor for what any
    reimplementation can reach."""
    cut = steps_of(ref, slice(None, int(round(4.0 / DT))))
    twin = {kind: {path.replace("/World/Handbrake", "/World/Braking"): values for path, values in cut[kind].items()
                   if path.startswith("/World/Handbrake")} for kind in cut}
    scenario = Scenario("spread", "/World/Braking", {})
    figures_ = figures(scenario, twin, cut, wheel_settle_steps, MIN_PATH)
    figures_.pop("final pos")
    return figures_


COLUMNS = ("speed", "ang.speed", "engine", "wheels", "jounce", "final pos")


def table(rows: dict[str, dict[str, float]]) -> str:
    head = f"{'scenario':32s}" + "".join(f"{c:>11s}" for c in COLUMNS)
    lines = [head, "-" * len(head)]
    for name, f in rows.items():
        lines.append(f"{name:32s}" + "".join(f"{100 * f[c]:10.3f}%" if c in f else f"{'-':>11s}" for c in COLUMNS))
    return "\n".join(lines)


# ------------------------------------------------------------------------------------------- tests


def _stage_meters(path: Path) -> float:
    from pxr import Usd, UsdGeom

    return UsdGeom.GetStageMetersPerUnit(Usd.Stage.Open(str(path)))


@dataclass(frozen=True)
class Variant:
    dtype: type
    compiled: bool


VARIANTS = {"float32, compiled kernel": Variant(np.float32, True), "float32, numpy": Variant(np.float32, False),
            "float64, numpy": Variant(np.float64, False)}
DEFAULT = "float32, compiled kernel"  # what Simulator does unless told otherwise
# Without the compiled kernel (no C compiler) its variant is not run and its cases skip.
RUN = {name: v for name, v in VARIANTS.items() if compiled.available() or not v.compiled}


@dataclass
class Results:
    figures: dict[str, dict[str, dict[str, float]]]  # {variant: {scenario: figures}}
    kernel_ran: dict[str, bool]  # {scenario: whether the compiled kernel stepped it} (DEFAULT variant)


def physx_run(stage: Stage) -> dict[str, Any]:
    """PhysX's side of a stage: every scenario's controls in one ovphysx run."""
    controls: dict[str, dict[str, Any]] = {}
    for scenario in stage.scenarios:
        for path, values in scenario.controls.items():
            controls.setdefault(path, {}).update(values)
    return oracle.run_ovphysx(stage.path, stage.steps, DT, controls=controls, telemetry=RECORDED)



def run_beside_physx(stages: dict[str, Stage], ours: Callable[[Stage], Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """(ours, PhysX's) run of each stage: PhysX's in its subprocesses one after the other (`physx_run`) while this
    process runs `ours` on each."""
    with ThreadPoolExecutor(max_workers=1) as pool:
        pending = {key: pool.submit(physx_run, stage) for key, stage in stages.items()}
        mine = {key: ours(stage) for key, stage in stages.items()}
        return mine, {key: run.result() for key, run in pending.items()}

@pytest.fixture(scope="module")
def results() -> Results:
    """One ovphysx run per stage serves every variant. The ovphysx runs (subprocesses) go on one after the other in
    a thread while this one steps our side: two cores, both busy."""
    with ThreadPoolExecutor(max_workers=1) as pool:
        pending = [pool.submit(physx_run, stage) for stage in STAGES]
        ours = [{name: run_sim(stage, variant) for name, variant in RUN.items()} for stage in STAGES]
        refs = [run.result() for run in pending]
    rows: dict[str, dict[str, dict[str, float]]] = {name: {} for name in RUN}
    kernel_ran: dict[str, bool] = {}
    after_launch: dict[str, dict[str, float]] = {}  # the default variant, every quantity from SETTLE_S on (printed only)
    settle = int(round(SETTLE_S / DT))
    noise_floor = physx_spread(refs[0], settle)
    for stage, ref, by_variant in zip(STAGES, refs, ours):
        for name, mine in by_variant.items():
            for scenario in stage.scenarios:
                rows[name][scenario.name] = figures(scenario, mine, ref, settle, MIN_PATH / _stage_meters(stage.path))
                if name == DEFAULT:
                    kernel_ran[scenario.name] = mine["compiled"][scenario.vehicle]
                    late = slice(settle, None)
                    after_launch[scenario.name] = figures(scenario, steps_of(mine, late), steps_of(ref, late), 0, 1.0)
                    after_launch[scenario.name].pop("final pos")
    print("\nPhysX against itself: Braking and Handbrake get identical inputs for 4 s; their traces differ by (%): "
          + ", ".join(f"{k} {100 * v:.3f}" for k, v in noise_floor.items()))
    for name in RUN:
        print(f"\n{name} vs ovphysx: worst error relative to the run's peak, over the whole run (wheel speeds after "
              f"{SETTLE_S} s); final position relative to the path length\n" + table(rows[name]))
    if DEFAULT in RUN:
        print("   (compiled kernel: every scenario but "
              + ", ".join(n for n, ran in kernel_ran.items() if not ran) + ", which it does not cover)")
        print(f"\n{DEFAULT} vs ovphysx from {SETTLE_S} s on (after the launch), every quantity; relative to "
              "the peak over that window\n" + table(after_launch))
    return Results(rows, kernel_ran)


ALL_SCENARIOS = [sc.name for st in STAGES for sc in st.scenarios]


# The tank pivoting in place chatters: from its fifth step its tracks swing by several rad/s every step, a limit
# cycle PhysX shows too. Which cycle it settles in is decided at step 9 on a knife edge: float64 numpy takes
# PhysX's (mean yaw rate after 1.5 s -0.1386 rad/s for both), float32 another (-0.1566). Every other quantity
# and scenario agrees in float32. Expected to fail, strictly: if float32 ever lands on PhysX's cycle, this says so.
# (The tank's drivetrain solved as PhysX solves it, the track groups' normal equations by the full-pivoting LU in
# float32, instead of a float32 LAPACK least squares, leaves it there: -0.1568 before, the worst wheel difference still
# 6.3 times the speeds' peak at step 9, 1e-2 at most before.)
TANK_BRANCH = pytest.mark.xfail(strict=True, reason="float32 settles on another chatter cycle of the tank pivot: mean "
                                "yaw rate after 1.5 s -0.1566 rad/s against PhysX's -0.1386 (-0.1386 too with the "
                                "world moved 7.3, 30, -13.1 m along X); speed 17.3 %, angular speed 16.4 %, wheels "
                                "94.8 %, final position 3.4 %, where PhysX moved is 1.4 / 1.8 / 0.26 / 0.04 % from "
                                "PhysX in place")


def gated_cases(names, out: dict[str, dict[str, str]], figure: str) -> list:
    """Test parameters of `names` for one figure, each that `out` (name -> {figure: why}) lists a strict xfail with
    its reason. Shared by the conformance files."""
    return [pytest.param(n, marks=[pytest.mark.xfail(strict=True, reason=out[n][figure])]
                         if figure in out.get(n, {}) else []) for n in names]


def variant_cases(names, variants, marks=lambda name, variant: ()):
    """(scenario, variant) test parameters: `marks` of each, and a compiled-kernel variant needs the kernel. Shared by
    the conformance files."""
    for name in names:
        for variant in variants:
            extra = [*marks(name, variant), *([needs_kernel] if VARIANTS[variant].compiled else [])]
            yield pytest.param(name, variant, marks=extra, id=f"{name}-{variant}")


def over_limit(figures_: dict[str, float]) -> dict[str, float]:
    """The figures above LIMIT, in per cent: what a gate reports when it fails."""
    return {k: round(100 * v, 3) for k, v in figures_.items() if not v <= LIMIT}


def _tank_branch(name: str, variant: str):
    return [TANK_BRANCH] if name == "tank pivot" and VARIANTS[variant].dtype is np.float32 else []


# The chassis angular speed over the launch from rest (see the docstring) of the engine-driven straight runs, whose
# run's peak |w| is a pitch of 20 to 57 mrad/s, is held to PhysX's own spread: max(LIMIT, SPREAD_FACTOR x PhysX with
# the whole world moved 7.3, 30, -13.1 m along X against PhysX in place; own_spread). Measured, the whole run's worst
# |w| difference relative to the run's peak: PhysX moved 14.1 / 7.6 / 4.9 / 7.6 % (the order of LAUNCH); ours float32
# (either kernel) 14.0 / 7.5 / 4.9 / 7.5 %, within; float64 over it (LAUNCH_OUT, strictly).
LAUNCH = ("fixed gear, full throttle", "automatic gears", "braking from speed", "sentinel defaults")
LAUNCH_OUT = {name: pytest.mark.xfail(strict=True, reason=f"the launch from rest's chatter, whole run, float64: {figures_}")
              for name, figures_ in {
    "fixed gear, full throttle": "22.5 % (4.3 mrad/s), PhysX moved 14.1 % (gate 21.1 %)",
    "automatic gears": "12.1 % (4.3 mrad/s), PhysX moved 7.6 % (gate 11.3 %)",
    "braking from speed": "8.0 % (4.4 mrad/s), PhysX moved 4.9 % (gate 7.3 %)",
    "sentinel defaults": "12.4 % (4.4 mrad/s), PhysX moved 7.6 % (gate 11.3 %)",
}.items()}
ANGULAR = "ang.speed"  # gated by its own test, so that an expected failure of it hides no other figure


@pytest.fixture(scope="module")
def own_spread(tmp_path_factory) -> dict[str, dict[str, float]]:
    """PhysX's own spread on the fleet, the whole world moved along X (tests/scenarios/places.py; recorded runs)."""
    fleet, settle = STAGES[0], int(round(SETTLE_S / DT))
    return self_spread(fleet, tmp_path_factory.mktemp("fleet_places"), physx_run, lambda sc, moved, original: figures(
        sc, moved, original, settle, MIN_PATH / _stage_meters(fleet.path)))


@pytest.mark.parametrize("name, variant", list(variant_cases(ALL_SCENARIOS, VARIANTS, _tank_branch)))
def test_scenario_matches_physx(results, name, variant):
    bad = over_limit({k: v for k, v in results.figures[variant][name].items() if k != ANGULAR})
    assert not bad, f"{name} ({variant}): over {100 * LIMIT:g}% (in %): {bad}"


def _angular_marks(name: str, variant: str):
    launch = name in LAUNCH_OUT and VARIANTS[variant].dtype is np.float64
    return [*_tank_branch(name, variant), *([LAUNCH_OUT[name]] if launch else [])]


@pytest.mark.parametrize("name, variant", list(variant_cases(ALL_SCENARIOS, VARIANTS, _angular_marks)))
def test_chassis_angular_speed_matches_physx(request, results, name, variant):
    got = results.figures[variant][name][ANGULAR]
    gate = spread_gate(request.getfixturevalue("own_spread")[name][ANGULAR], LIMIT) if name in LAUNCH else LIMIT
    assert got <= gate, f"{name} ({variant}): chassis angular speed over the whole run {100 * got:.3f} % over " \
                        f"{100 * gate:.3f} %"


def test_every_scenario_produced_every_figure(results):
    assert set(results.figures) == set(RUN)
    for variant in RUN:
        for name in ALL_SCENARIOS:
            expected = set(COLUMNS) - ({"engine"} if name in ("raw wheel torques", "basic drive") else set())
            assert expected <= set(results.figures[variant][name]), (variant, name)


@needs_kernel
def test_the_compiled_kernel_stepped_every_scenario_but_the_tank(results):
    assert results.kernel_ran == {name: name != "tank pivot" for name in ALL_SCENARIOS}


def physx_against_copies(stage: Stage, names: list[str], folder: Path, figures_of: Callable[[Scenario, dict, dict], Any],
                         obstacles: Iterable[str] = ()) -> dict[str, Any]:
    """PhysX against itself, scenario by scenario: `figures_of(scenario, the copy's trace under the original's paths,
    the run's trace)` for each scenario's vehicle against its copy 30 m aside, given the same inputs in the same ovphysx
    run (tests/scenarios/copies.py), the static prims `obstacles` copied with them."""
    scenarios = [sc for sc in stage.scenarios if sc.name in names]
    vehicles = [sc.vehicle for sc in scenarios]
    path = with_copies(stage.path, folder / f"copies_{stage.path.stem}.usda", vehicles, read_stage(stage.path).vehicles,
                       obstacles)
    controls: dict[str, dict[str, Any]] = {}
    for scenario in scenarios:
        controls.update(scenario.controls)
    ref = oracle.run_ovphysx(path, stage.steps, DT, controls=copy_controls(controls, vehicles), telemetry=RECORDED)
    meters = _stage_meters(stage.path)
    return {sc.name: figures_of(sc, as_original(ref, sc.vehicle, meters), ref) for sc in scenarios}


def angular_over_the_run(wheel_settle_steps: int) -> Callable[[Scenario, dict, dict], float]:
    """physx_against_copies' figure for the driving scenarios: the chassis angular speed over the whole run."""
    return lambda scenario, copy, ref: figures(scenario, copy, ref, wheel_settle_steps, MIN_PATH)[ANGULAR]


@pytest.mark.soak
def test_physx_against_its_own_copies_is_over_the_gate_too(tmp_path):
    """What LAUNCH's gate rests on: PhysX itself, each of those cars against its copy, differs over the launch by more
    than LIMIT in the chassis angular speed (in the soak run: one more ovphysx run of the fleet)."""
    spread = physx_against_copies(STAGES[0], list(LAUNCH), tmp_path,
                                  angular_over_the_run(int(round(SETTLE_S / DT))))
    print("\nPhysX against its own copies, chassis angular speed over the whole run (%): "
          + ", ".join(f"{name} {100 * v:.2f}" for name, v in spread.items()))
    assert all(v > LIMIT for v in spread.values()), spread
