"""Two readings of one asset against real PhysX (ovphysx 0.7): our ovphysx reading (`--as ovphysx`) against
ovphysx running the asset as authored, and our Omniverse reading of drive cycles against ovphysx fed the same
controls step by step.

ovphysx 0.7 reads some assets differently from Omniverse Kit (read/readings.py): it takes wheel and suspension
frames relative to the centre of mass whatever physxVehicle:referenceFrameIsCenterOfMass says, applies no
nonlinear command response, and reads the controller attributes once, at creation. Scenarios:

- NVIDIA's sample (ovphysx's samples/data/vehicle_read_write.usda), as authored: referenceFrameIsCenterOfMass =
  False with the centre of mass 0.25 below the prim origin. Its four vehicles (basic drive, standard drive, tank,
  wheel controllers) get the same controls on both sides, ours --as ovphysx. Our Omniverse reading is printed beside
  it: each car rides 0.25 lower there, which the test also asserts (the readings differ, and ovphysx's is the one
  it runs).
- Drive cycles on the conformance fleet (tests/scenarios/fleet.usda, vehicles moved 50 m apart): a car whose
  accelerator and steer have a single time sample each, a car with multi-sample accelerator, brake and steer, and a
  tank with a single-sample thrust0 and a multi-sample thrust1 that turns it while it moves. Ours reads the time
  samples (the Omniverse reading); ovphysx, which would hold the values read at creation, gets each step's value
  written before the step, as USD resolves it at that step's stage time (pxr's own Get, not our drive cycle).
- In the same ovphysx run, two vehicles it gets no controls for, against our ovphysx reading: the multi-sample car
  with defaults authored under its samples (ovphysx holds the defaults), and a car whose brakes0 has a nonlinear
  response that brakes at a zero command (the Omniverse reading holds it back; ovphysx lets it drive).

Metric and gate: tests/test_conformance_ovphysx.py's (`figures`): the worst error relative to the run's peak, over
the whole run (every recorded step, the launch included) for chassis speed, chassis angular speed, engine speed and
jounce, the final position relative to the path length, and the wheel speeds, which are not chassis quantities, once
the launch is over: after 1 s for engine-driven vehicles (1.1 s for the multi-sample car as authored, whose chatter
outlasts 1 s in PhysX against its own copy too: LATE_SETTLE_S), after 2 s for direct-drive wheels (the basic drive, the
wheel controllers). Every figure must be <= 2 %; the chassis angular speed of four scenarios is not, and is held to
max(2 %, 1.5 x PhysX's own spread with the whole world moved along X) (LAUNCH_CHAOS: tests/scenarios/places.py).

Why the wheels' window: a launch from rest is chaotic, as tests/test_conformance_ovphysx.py explains (the explicit
tire at the active slip denominator makes the wheels chatter, bounded by tire saturation, and the chattering forces
pitch the chassis); float32 PhysX and our arithmetic leave it on different branches. Measured here: the wheel
speeds of NVIDIA's basic car differ by 65-80 % of their peak between 0.5 and 1.5 s (the two front wheels chatter in
mirror image, left against right) and by 0.001 % after 2 s; the multi-sample car's by 11 % after 0.5 s (its
launch begins at 0.25 s) and 0.003 % after 1 s. So the wheel speeds after 0.5 s cannot be held to 2 %; a printed
table gives them.

The chassis over the launch: the same chatter pitches the chassis, and ours differs from PhysX's by 3.0 to 6.8 mrad/s
between 0.22 and 0.47 s, 4.2 to 8.1 % of the run's peak (37 to 159 mrad/s) for NVIDIA's basic car, the tank, the
multi-sample car as authored and the car with a brake response. PhysX against itself (each of those vehicles copied
30 m aside and given the same inputs in the same run: test_physx_against_its_own_copies_is_over_the_gate_too) differs
by 3.3 to 10.3 %, over the gate too, and by other figures again (tank 5.3 %, multi-sample car 5.4 %, brake response
7.2 %) when the run also holds the drive cycles' other cars: the same vehicle with the same inputs comes out otherwise
when its run holds other vehicles, a difference the chatter amplifies like any. tests/test_conformance_ovphysx.py says where ours and PhysX part (steps 3 and 4 of the launch). The
drive-cycle cars driven by time samples stay below 2 % because their run's peak, a turn, is larger (355 and 540
mrad/s; their launch differs by 2.1 and 5.3 mrad/s); NVIDIA's wheel-controller car differs by 0.6 mrad/s, its
standard car and tank by 0.006 %. After the launch (the last table printed: every quantity from 1 s, 2 s for
direct-drive wheels) the angular speed differs by at most 0.09 %. Every event of the scenarios (steering, braking,
the drive cycles' changes, the tanks' turns) happens after the launch.

NVIDIA's sample starts with its wheels 0.2 below full compression in ovphysx's reading (the frames move 0.25 down),
so PhysX's suspension-limit constraint lifts it in its first steps, as ours does (the same constraint).
"""
from __future__ import annotations

import importlib.util
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from pxr import Gf, Sdf, Usd
from scenarios.places import self_spread, spread_gate
from test_conformance_ovphysx import (
    COLUMNS,
    DT,
    LIMIT,
    MIN_PATH,
    RECORDED,
    Scenario,
    Stage,
    _control_arrays,
    _schedule,
    angular_over_the_run,
    figures,
    over_limit,
    physx_against_copies,
    physx_run,
    steps_of,
    table,
)

from physxvehicle_usd import oracle, simulate
from physxvehicle_usd import properties as P

# in the soak run (CI runs it after the README's test command, which must stay within 3 minutes on 2 cores)
pytestmark = [pytest.mark.ovphysx, pytest.mark.soak]

REPO = Path(__file__).resolve().parents[1]
FLEET = REPO / "tests" / "scenarios" / "fleet.usda"
NVIDIA_SAMPLE = Path(importlib.util.find_spec("ovphysx").origin).parent / "samples" / "data" / "vehicle_read_write.usda"
STEPS = 240  # 4 s
SETTLE_S, DIRECT_SETTLE_S = 1.0, 2.0  # the launch, engine-driven and direct-drive (see the docstring)
# The multi-sample car as authored chatters longer: at 1.0 s PhysX's own wheels differ from its copy's by 3.4 % of
# their peak (0.7 % from 1.05 s, 0.03 % from 1.1 s; test_physx_against_its_own_copies_is_over_the_gate_too), ours
# from PhysX's by 3.6 % at 1.0 s and below 2 % from 1.03 s. Its wheels are compared from 1.1 s.
LATE_SETTLE_S = {"/World/Handbrake": 1.1}
TIME_CODES_PER_SECOND = 60.0

ACCELERATOR, BRAKE0, STEER = (P.full_name(P.CONTROLLER, b) for b in ("accelerator", "brake0", "steer"))
THRUST0, THRUST1 = P.full_name(P.TANK_CONTROLLER, "thrust0"), P.full_name(P.TANK_CONTROLLER, "thrust1")


# ------------------------------------------------------------------------------------------- NVIDIA's sample


def _nvidia() -> Stage:
    s = lambda before, after, at: _schedule(STEPS, before, after, at)  # noqa: E731
    raw = "/World/Raw/{}".format
    return Stage(NVIDIA_SAMPLE, STEPS, [
        Scenario("NVIDIA basic drive, then steer", "/World/Basic",
                 {"/World/Basic": {"accelerator": 1.0, "steer": s(0.0, 0.3, 2.5)}}),
        Scenario("NVIDIA standard drive, gear 1", "/World/Standard", {"/World/Standard": {"accelerator": 1.0}}),
        Scenario("NVIDIA tank, turning while moving", "/World/Tank",
                 {"/World/Tank": {"accelerator": 1.0, "thrust0": 1.0, "thrust1": s(1.0, 0.4, 1.5)}}),
        Scenario("NVIDIA wheel controllers", "/World/Raw", {
            raw("FrontLeftWheel"): {"steerAngle": s(0.0, 0.1, 2.0)},
            raw("FrontRightWheel"): {"steerAngle": s(0.0, 0.1, 2.0)},
            raw("RearLeftWheel"): {"driveTorque": 400.0}, raw("RearRightWheel"): {"driveTorque": 400.0}}),
    ])


DIRECT = {"/World/Basic", "/World/Raw"}  # NVIDIA's vehicles whose wheels no engine couples


# ------------------------------------------------------------------------------------------- drive cycles

# vehicle of the fleet -> (its name here, lateral position): 50 m apart, so that no turn reaches a neighbour
PLACES = {"Autobox": ("single samples", 100.0), "Braking": ("multi samples", 50.0), "Tank": ("tank", 0.0),
          "Handbrake": ("multi samples, as authored", -50.0), "Turning": ("brake response, as authored", -100.0)}
CYCLE = {  # attribute -> {time code: value}, on both cars with a multi-sample cycle
    ACCELERATOR: {0.0: 0.0, 30.0: 1.0, 150.0: 1.0, 160.0: 0.2},
    BRAKE0: {150.0: 0.0, 165.0: 0.8, 200.0: 0.0},
    STEER: {60.0: 0.0, 90.0: 0.3, 130.0: -0.2},
}
# brakes0 of the "brake response" car: a zero command still brakes at 0.3 of the maximum below 5 m/s
BRAKE_RESPONSE = {"commandValues": [0.5, 1.0], "speedResponsesPerCommandValue": [0, 2],
                  "speedResponses": [(0.0, 0.3), (5.0, 0.3), (0.0, 1.0), (20.0, 0.6)]}


def _set(prim: Usd.Prim, name: str, samples: dict[float, float] | None = None, default: float | None = None) -> None:
    attr = prim.GetAttribute(name)
    if default is not None:
        attr.Set(default)
    for time, value in (samples or {}).items():
        attr.Set(value, time)


def build_cycles(path: Path) -> Path:
    """The fleet with the five vehicles above (the others deactivated) and their time samples."""
    stage = Usd.Stage.CreateNew(str(path))
    stage.GetRootLayer().subLayerPaths.append(str(FLEET))
    stage.SetTimeCodesPerSecond(TIME_CODES_PER_SECOND)
    for prim in stage.GetPrimAtPath("/World").GetChildren():
        if prim.HasAPI(P.VEHICLE) and prim.GetName() not in PLACES:
            prim.SetActive(False)
    for name, (_, y) in PLACES.items():
        prim = stage.GetPrimAtPath(f"/World/{name}")
        prim.GetAttribute("xformOp:translate").Set(Gf.Vec3f(0.0, y, 0.55))
    single = stage.GetPrimAtPath("/World/Autobox")
    _set(single, ACCELERATOR, {0.0: 1.0})  # over the sample's default 0: 1 at every time
    _set(single, STEER, {500.0: 0.25})     # a sample long after the run: still 0.25 from the first step
    for name, default in (("Braking", None), ("Handbrake", 0.6)):
        prim = stage.GetPrimAtPath(f"/World/{name}")
        for attr, samples in CYCLE.items():
            _set(prim, attr, samples, default if attr == ACCELERATOR else None)
    _set(stage.GetPrimAtPath("/World/Handbrake"), STEER, default=0.15)
    tank = stage.GetPrimAtPath("/World/Tank")
    _set(tank, ACCELERATOR, {0.0: 1.0})
    _set(tank, THRUST0, {0.0: 1.0})
    _set(tank, THRUST1, {0.0: 1.0, 60.0: 1.0, 90.0: 0.4})  # straight for 1 s, then the right track slows
    brake = stage.GetPrimAtPath("/World/Turning")
    _set(brake, ACCELERATOR, default=1.0)
    brake.ApplyAPI(P.NCR, "brakes0")
    for base, value in BRAKE_RESPONSE.items():
        type_name = {"commandValues": Sdf.ValueTypeNames.FloatArray,
                     "speedResponsesPerCommandValue": Sdf.ValueTypeNames.IntArray,
                     "speedResponses": Sdf.ValueTypeNames.Float2Array}[base]
        brake.CreateAttribute(P.full_name(P.NCR, base, "brakes0"), type_name).Set(value)
    stage.GetRootLayer().Save()
    return path


def usd_controls(path: Path, vehicles: list[str], steps: int) -> dict[str, dict[str, list[float]]]:
    """Each time-sampled controller attribute of these vehicles, as USD resolves it at the stage time each step
    begins (pxr's Get; our drive cycle is what is tested): the oracle's per-step controls."""
    stage = Usd.Stage.Open(str(path))
    codes = stage.GetStartTimeCode() + np.arange(steps) * DT * stage.GetTimeCodesPerSecond()
    out: dict[str, dict[str, list[float]]] = {}
    for vehicle in vehicles:
        prim = stage.GetPrimAtPath(vehicle)
        for attr in prim.GetAttributes():
            if attr.GetNumTimeSamples() and attr.GetName().startswith(("physxVehicleController:",
                                                                        "physxVehicleTankController:")):
                out.setdefault(vehicle, {})[attr.GetName().split(":")[-1]] = [float(attr.Get(t)) for t in codes]
    return out


# ------------------------------------------------------------------------------------------- both sides


def ours(path: Path, groups: list[list[str]], reading: str, stage: Stage | None = None) -> dict[str, Any]:
    """Our side, in the comparison's layout: each group of vehicles one run (a tank apart: the compiled kernel
    steps the cars, numpy the tank); `stage`: the oracle controls to give (None: the stage's own)."""
    controls = (lambda i, sim: _control_arrays(sim, stage, i)) if stage is not None else None
    out: dict[str, Any] = {"vehicles": {}, "wheels": {}, "bodies": {}}
    for vehicles in groups:
        result = simulate.run(path, STEPS, DT, vehicles=vehicles, reading=reading, controls=controls)
        a = result.arrays
        for v, vehicle in enumerate(result.paths):
            out["vehicles"][vehicle] = {k: a["vehicles"][k][:, v] for k in RECORDED["vehicles"]}
            out["bodies"][vehicle] = {k: a["bodies"][k][:, v] for k in RECORDED["bodies"]}
            for w, wheel in enumerate(result.wheel_paths[v]):
                out["wheels"][wheel] = {k: a["wheels"][k][:, v, w] for k in RECORDED["wheels"]}
    return out


def physx(path: Path, controls: dict) -> dict[str, Any]:
    return oracle.run_ovphysx(path, STEPS, DT, controls=controls, telemetry=RECORDED)


def gate_figures(scenario: Scenario, mine: dict, ref: dict, wheels_from_s: float | None = None) -> dict[str, float]:
    """The gate's figures: every quantity over the whole run but the wheel speeds, which are compared once the launch
    is over (see the docstring), or from `wheels_from_s` (printed, not gated)."""
    return figures(scenario, mine, ref, int(round((settle_s(scenario) if wheels_from_s is None else wheels_from_s) / DT)),
                   MIN_PATH)


def settle_s(scenario: Scenario) -> float:
    """When the scenario's launch is over: from then on its wheel speeds are gated."""
    return DIRECT_SETTLE_S if scenario.vehicle in DIRECT else LATE_SETTLE_S.get(scenario.vehicle, SETTLE_S)


def after_launch(scenario: Scenario, mine: dict, ref: dict) -> dict[str, float]:
    """Every quantity once the launch is over, relative to the peak over those steps (printed, not gated)."""
    late = slice(int(round(settle_s(scenario) / DT)), None)
    out = figures(scenario, steps_of(mine, late), steps_of(ref, late), 0, MIN_PATH)
    out.pop("final pos")
    return out


NVIDIA_SCENARIOS = [f"{sc.name} (--as ovphysx)" for sc in _nvidia().scenarios]
CYCLE_SCENARIOS = [f"{label} ({'omniverse' if name in ('Autobox', 'Braking', 'Tank') else '--as ovphysx'})"
                   for name, (label, _) in PLACES.items()]
DRIVEN = ["/World/Autobox", "/World/Braking"]  # ovphysx gets their drive cycles written (and the tank's)
AS_AUTHORED = ["/World/Handbrake", "/World/Turning"]  # ovphysx gets nothing: it holds what it read


@pytest.fixture(scope="module")
def results(tmp_path_factory) -> dict[str, Any]:
    """Both ovphysx runs go on in a thread (subprocesses, one after the other) while this one steps our side."""
    cycles = build_cycles(tmp_path_factory.mktemp("readings") / "cycles.usda")
    nvidia = _nvidia()
    oracle_controls: dict[str, dict] = {}
    for scenario in nvidia.scenarios:
        for path, values in scenario.controls.items():
            oracle_controls.setdefault(path, {}).update(values)
    cycle_controls = usd_controls(cycles, DRIVEN + ["/World/Tank"], STEPS)
    with ThreadPoolExecutor(max_workers=1) as pool:
        pending = {"nvidia": pool.submit(physx, NVIDIA_SAMPLE, oracle_controls),
                   "cycles": pool.submit(physx, cycles, cycle_controls)}
        mine = {"nvidia": ours(NVIDIA_SAMPLE, [["/World/Basic", "/World/Raw", "/World/Standard"], ["/World/Tank"]],
                               "ovphysx", nvidia),
                "nvidia omniverse": ours(NVIDIA_SAMPLE, [["/World/Standard"]], "omniverse", nvidia),
                "cycles": ours(cycles, [DRIVEN, ["/World/Tank"]], "omniverse"),
                "cycles ovphysx": ours(cycles, [AS_AUTHORED], "ovphysx"),
                "cycles omniverse": ours(cycles, [AS_AUTHORED], "omniverse")}
        refs = {name: future.result() for name, future in pending.items()}
    gated: dict[str, dict[str, float]] = {}
    early_wheels: dict[str, dict[str, float]] = {}
    late: dict[str, dict[str, float]] = {}
    contrast: dict[str, dict[str, float]] = {}
    compared = [(scenario, name, mine["nvidia"], refs["nvidia"]) for scenario, name in zip(nvidia.scenarios,
                                                                                          NVIDIA_SCENARIOS)]
    for (vehicle, (label, _)), name in zip(PLACES.items(), CYCLE_SCENARIOS):
        scenario = Scenario(label, f"/World/{vehicle}", {})
        compared.append((scenario, name, mine["cycles ovphysx" if "--as ovphysx" in name else "cycles"], refs["cycles"]))
        if scenario.vehicle in AS_AUTHORED:
            contrast[f"{label} (omniverse)"] = gate_figures(scenario, mine["cycles omniverse"], refs["cycles"])
    for scenario, name, side, ref in compared:
        gated[name] = gate_figures(scenario, side, ref)
        early_wheels[name] = gate_figures(scenario, side, ref, wheels_from_s=0.5)
        late[name] = after_launch(scenario, side, ref)
    print(f"\nour readings vs ovphysx 0.7: worst error relative to the run's peak, over the whole run (wheel speeds "
          f"after {SETTLE_S:g} s, {DIRECT_SETTLE_S:g} s for direct-drive wheels); final position relative to the path "
          "length\n" + table(gated))
    print("\nthe same with the wheel speeds after 0.5 s (not gated)\n" + table(early_wheels))
    print(f"\nevery quantity after the launch ({SETTLE_S:g} s, {DIRECT_SETTLE_S:g} s for direct-drive wheels), relative "
          "to the peak over those steps (not gated)\n" + table(late))
    print("\nthe cars ovphysx runs as authored, in our Omniverse reading, for contrast (not gated)\n" + table(contrast))
    height = lambda run: float(np.asarray(run["bodies"]["/World/Standard"]["position"])[-1, 1])  # noqa: E731
    heights = {"ovphysx": height(refs["nvidia"]), "ours --as ovphysx": height(mine["nvidia"]),
               "ours, omniverse": height(mine["nvidia omniverse"])}
    print("\nNVIDIA's standard car, final height (Y up): " + ", ".join(f"{k} {v:.4f}" for k, v in heights.items()))
    return {"gated": gated, "contrast": contrast, "heights": heights}


# The chassis angular speed over the launch from rest, whole run (the docstring), is held to PhysX's own spread:
# max(LIMIT, SPREAD_FACTOR x PhysX with the whole world moved 7.3, 30, -13.1 m along X against PhysX in place,
# own_spread). Measured: ours against ovphysx, PhysX moved, then PhysX against its own copy 30 m aside given the same
# inputs in the same run (test_physx_against_its_own_copies_...), all within.
LAUNCH_CHAOS = {
    "NVIDIA basic drive, then steer (--as ovphysx)": "4.27 % (6.8 mrad/s at 0.47 s), PhysX moved 4.86 %, its copy 3.30 %",
    "tank (omniverse)": "5.70 % (3.1 mrad/s at 0.22 s), PhysX moved 9.98 %, its copy 4.42 %",
    "multi samples, as authored (--as ovphysx)": "4.18 % (6.4 mrad/s at 0.33 s), PhysX moved 5.33 %, its copy 5.15 %",
    "brake response, as authored (--as ovphysx)": "8.06 % (3.0 mrad/s at 0.22 s), PhysX moved 10.28 %, its copy "
                                                  "10.28 %",
}


@pytest.fixture(scope="module")
def own_spread(tmp_path_factory) -> dict[str, dict[str, float]]:
    """PhysX's own spread, NVIDIA's sample and the drive cycles run again with the whole world moved along X
    (tests/scenarios/places.py; recorded runs): {test name: the gate's figures, the largest over the places}."""
    folder = tmp_path_factory.mktemp("readings_places")
    cycles = build_cycles(folder / "cycles.usda")
    cycle_scenarios = [Scenario(label, f"/World/{vehicle}", {}) for vehicle, (label, _) in PLACES.items()]
    cycle_scenarios[0].controls = usd_controls(cycles, DRIVEN + ["/World/Tank"], STEPS)  # the run's, all vehicles'
    spread: dict[str, dict[str, float]] = {}
    for stage, names in ((Stage(NVIDIA_SAMPLE, STEPS, _nvidia().scenarios), NVIDIA_SCENARIOS),
                         (Stage(cycles, STEPS, cycle_scenarios), CYCLE_SCENARIOS)):
        by_label = self_spread(stage, folder, physx_run, gate_figures)
        spread.update({name: by_label[sc.name] for sc, name in zip(stage.scenarios, names)})
    return spread


ANGULAR = "ang.speed"  # gated by its own test, so that an expected failure of it hides no other figure


def _case(name: str, *marks):
    return pytest.param(name, marks=list(marks), id=name)


@pytest.mark.parametrize("name", [_case(n) for n in NVIDIA_SCENARIOS + CYCLE_SCENARIOS])
def test_scenario_matches_ovphysx(results, name):
    figures_ = results["gated"][name]
    assert set(COLUMNS) - {"engine"} <= set(figures_), name
    bad = over_limit({k: v for k, v in figures_.items() if k != ANGULAR})
    assert not bad, f"{name}: over {100 * LIMIT:g}% (in %): {bad}"


@pytest.mark.parametrize("name", [_case(n) for n in NVIDIA_SCENARIOS + CYCLE_SCENARIOS])
def test_chassis_angular_speed_matches_ovphysx(request, results, name):
    got = results["gated"][name][ANGULAR]
    gate = spread_gate(request.getfixturevalue("own_spread")[name][ANGULAR], LIMIT) if name in LAUNCH_CHAOS else LIMIT
    assert got <= gate, f"{name}: chassis angular speed over the whole run {100 * got:.3f} % over {100 * gate:.3f} %"


def test_physx_against_its_own_copies_is_over_the_gate_too(tmp_path):
    """What LAUNCH_CHAOS's gate rests on: PhysX itself, each of those vehicles against its copy, differs over the launch by
    more than LIMIT in the chassis angular speed."""
    cycles = build_cycles(tmp_path / "cycles.usda")
    controls = usd_controls(cycles, DRIVEN + ["/World/Tank"], STEPS)
    stages = [(_nvidia(), NVIDIA_SCENARIOS),
              (Stage(cycles, STEPS, [Scenario(label, f"/World/{vehicle}", {k: v for k, v in controls.items()
                                                                           if k == f"/World/{vehicle}"})
                                     for vehicle, (label, _) in PLACES.items()]), CYCLE_SCENARIOS)]
    spread: dict[str, float] = {}
    late_wheels: dict[str, float] = {}  # the LATE_SETTLE_S vehicles' wheels from SETTLE_S on

    def figures_of(scenario, copy, ref):
        if scenario.vehicle in LATE_SETTLE_S:
            late_wheels[scenario.vehicle] = figures(scenario, copy, ref, int(round(SETTLE_S / DT)), MIN_PATH)["wheels"]
        return angular_over_the_run(int(round(SETTLE_S / DT)))(scenario, copy, ref)

    for stage, names in stages:
        labels = {sc.name: name for sc, name in zip(stage.scenarios, names) if name in LAUNCH_CHAOS}
        for label, figure in physx_against_copies(stage, list(labels), tmp_path, figures_of).items():
            spread[labels[label]] = figure
    print("\nPhysX against its own copies, chassis angular speed over the whole run (%): "
          + ", ".join(f"{name} {100 * v:.2f}" for name, v in spread.items())
          + f"; wheel speeds from {SETTLE_S:g} s: " + ", ".join(f"{k} {100 * v:.2f}" for k, v in late_wheels.items()))
    assert set(spread) == set(LAUNCH_CHAOS)
    assert all(v > LIMIT for v in spread.values()), spread
    assert set(late_wheels) == set(LATE_SETTLE_S) and all(v > LIMIT for v in late_wheels.values()), late_wheels


def test_the_readings_really_differ(results):
    """Omniverse's reading of NVIDIA's sample rides 0.25 lower than ovphysx's (the frames' centre-of-mass offset),
    and the zero-command brake response holds back the car ovphysx lets drive: the gate above is not trivial."""
    heights = results["heights"]
    assert heights["ovphysx"] - heights["ours, omniverse"] == pytest.approx(0.25, abs=0.01)
    assert results["contrast"]["brake response, as authored (omniverse)"]["speed"] > 0.5
    assert results["contrast"]["multi samples, as authored (omniverse)"]["final pos"] > 0.1
