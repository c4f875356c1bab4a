"""The compiled row solver (sim/_row_solver.c through sim/compiled_rows.py and sim/compiled_kept_solve.py) against its
numpy twins (sim/row_solver.py `_solve_rows_tgs` with `StaticContactRows.sweep`, `_solve_rows_pgs` with
`StaticContactRows.sweep_pgs`).

The C solve does the numpy code's arithmetic in its order and precision (float32 constraint rows, float64 contact
rows rounded to float32 after each sweep, numpy's own sin and cos for the pose's rotation), so the two are held to
0 ulps: bit-identical velocities, poses, impulses, friction impulses and slid patches, on random rows (some rows and
anchors inactive, some vehicles without a contact, patches of 2, 4 and 6 points, random velocities and orientations)
and over whole simulated runs (cars driving into static boxes under TGS and under PGS, cars below full compression or
dropped onto the ground, so that suspension-limit rows act, a car resting on its roof). The result of a vehicle does
not depend on the number of threads the solve runs on. Where the extension is not built (no C compiler) these tests
skip.
"""
from __future__ import annotations

import copy

import numpy as np
import pytest
from conftest import SAMPLES
from pxr import Gf, Sdf, Usd, UsdGeom, UsdPhysics, UsdShade
from scenarios.regimes import build as build_regimes
from stage_factory import add_copies

from physxvehicle_usd import properties as P
from physxvehicle_usd.read import read_stage
from physxvehicle_usd.sim import Simulator, compiled_kept_solve, compiled_rows
from physxvehicle_usd.sim.contact.records import StepContacts
from physxvehicle_usd.sim.pipeline import StepOptions
from physxvehicle_usd.sim.row_solver import _solve_rows_pgs, _solve_rows_tgs, _solve_soft_rows
from physxvehicle_usd.sim.solver_rows import ConstraintRows, PatchRows

pytestmark = pytest.mark.skipif(not compiled_rows.available(), reason="the compiled extension is not built")

CAR = SAMPLES / "car" / "car.usda"
DT = 1.0 / 60.0
RIDGE = (0.4, 0.6, 0.5)  # a box between the wheel tracks, 0.5 m ahead of the chassis's nose (benchmarks/fleet.py)
RIDGE_AHEAD = 2.54


def _over_sample() -> Usd.Stage:
    """An in-memory stage over the sample car (its edits stay off the sample's layer), in its units and axes."""
    stage = Usd.Stage.CreateInMemory()
    stage.GetRootLayer().subLayerPaths.append(str(CAR))
    UsdGeom.SetStageMetersPerUnit(stage, 1.0)
    UsdGeom.SetStageUpAxis(stage, UsdGeom.Tokens.z)
    UsdPhysics.SetStageKilogramsPerUnit(stage, 1.0)
    return stage


def _cars(count: int) -> Usd.Stage:
    """The sample car and count - 1 copies of it, 10 m apart sideways."""
    stage = _over_sample()
    paths = add_copies(stage, "/World/Car", [f"/World/Car{k}" for k in range(1, count)])
    for k, path in enumerate(paths, start=1):
        attr = stage.GetPrimAtPath(path).GetAttribute("xformOp:translate")
        attr.Set(attr.Get() + type(attr.Get())(0.0, 10.0 * k, 0.0))
    return stage


def _with_ridges(stage: Usd.Stage, count: int) -> Usd.Stage:
    """A static box ahead of each car, bound to the ground's physics material."""
    material = UsdShade.Material(stage.GetPrimAtPath("/World/Asphalt"))
    for k in range(count):
        cube = UsdGeom.Cube.Define(stage, f"/World/Ridge{k}")
        cube.CreateSizeAttr(1.0)
        cube.AddTranslateOp().Set(Gf.Vec3d(RIDGE_AHEAD + RIDGE[0] / 2, 10.0 * k, RIDGE[2] / 2))
        cube.AddScaleOp().Set(Gf.Vec3f(*RIDGE))
        UsdPhysics.CollisionAPI.Apply(cube.GetPrim())
        UsdShade.MaterialBindingAPI.Apply(cube.GetPrim()).Bind(material, materialPurpose="physics")
    return stage


# --- random rows ---------------------------------------------------------------------------------------------------

def _unit(rng, shape, dtype) -> np.ndarray:
    v = rng.standard_normal((3,) + shape)
    return (v / np.linalg.norm(v, axis=0)).astype(dtype)


def _random_rows(rng, V: int, R: int = 12, Pm: int = 2, N: int = 4) -> tuple[ConstraintRows, PatchRows]:
    """Constraint rows as pipeline.constraint_rows makes them (float32 Jacobians, float64 dampings and separations,
    the last third hard) and contact patches as contact.patch_rows does (float64, N points a patch), with inactive
    rows and anchors, a row inactive in every vehicle, a vehicle without contact points, bouncing and speculative
    points."""
    active = rng.random((V, R)) < 0.75
    active[:, 1] = False  # swept by no vehicle
    hard = np.zeros((V, R), bool)
    hard[:, 2 * R // 3:] = True
    rows = ConstraintRows(vehicles=np.arange(V), linear=_unit(rng, (V, R), np.float32),
                          arm=(rng.standard_normal((3, V, R)) * 1.5).astype(np.float32),
                          damping=np.where(rng.random((V, R)) < 0.2, 0.0, rng.uniform(1.0, 3000.0, (V, R))),
                          active=active, hard=hard, separation=np.where(hard, rng.uniform(-0.2, 0.02, (V, R)), 0.0))
    points = rng.random((V, Pm, N)) < 0.7
    points[0] = False  # vehicle 0 touches nothing
    anchors = (rng.random((V, Pm, 2)) < 0.7) & points[:, :, :2]
    static = rng.uniform(0.3, 1.2, (V, Pm))
    patches = PatchRows(point_active=points, arm=rng.standard_normal((3, V, Pm, N)) * 1.5,
                        separation=rng.uniform(-0.05, 0.02, (V, Pm, N)), normal=_unit(rng, (V, Pm), float),
                        rest_distance=rng.uniform(0.0, 0.01, (V, Pm)), static_friction=static,
                        dynamic_friction=static * rng.uniform(0.5, 1.0, (V, Pm)),
                        restitution=np.where(rng.random((V, Pm)) < 0.3, rng.uniform(0.1, 0.9, (V, Pm)), 0.0),
                        anchor_active=anchors, anchor_arm=rng.standard_normal((3, V, Pm, 2)) * 1.5,
                        anchor_error=rng.standard_normal((3, V, Pm, 2)) * 0.01, bounce_threshold=np.full(V, 0.2))
    return rows, patches


@pytest.fixture(scope="module")
def fleet() -> Simulator:
    """Seven sample cars (float32): the parameters of the random solves."""
    return Simulator.from_description(read_stage(_cars(7)), DT)


def _solve(sim: Simulator, rng_seed: int, iterations: tuple[int, int], kernel_threads: int | None,
           with_contacts: bool = True, solver=_solve_rows_tgs):
    """One solve (TGS or PGS) of random rows from a random state; (state arrays after it, the contact rows'
    results). Patches of 4 points, or of 2 or 6 (round shapes, mesh patches) by the seed."""
    rng = np.random.default_rng(rng_seed)
    p, s = sim.params, copy.deepcopy(sim.state)
    V = p.V
    rows, patches = _random_rows(rng, V, N=(4, 2, 6)[rng_seed % 3])
    s.linear_velocity = (rng.standard_normal((3, V)) * 2.0).astype(np.float32)
    s.angular_velocity = (rng.standard_normal((3, V)) * 1.0).astype(np.float32)
    q = rng.standard_normal((4, V))
    s.body_orientation = (q / np.linalg.norm(q, axis=0)).astype(np.float32)
    s.body_position = (rng.standard_normal((3, V)) * 50.0).astype(np.float32)
    s.contacts = StepContacts()
    begin_position, begin_orientation = s.body_position.copy(), s.body_orientation.copy()
    solver(p, s, rows, DT, iterations[0], iterations[1], begin_position, begin_orientation,
           patches if with_contacts else None, None, kernel_threads)
    state = [s.linear_velocity, s.angular_velocity, s.body_position, s.body_orientation]
    solved = s.contacts.solved
    contacts = [] if not solved else [solved[0][1].impulse, solved[0][1].friction, solved[0][1].broken]
    return state, contacts


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("iterations", [(16, 1), (4, 2), (1, 1)])
@pytest.mark.parametrize("with_contacts", [True, False])
@pytest.mark.parametrize("solver", [_solve_rows_tgs, _solve_rows_pgs], ids=["tgs", "pgs"])
def test_the_compiled_solve_of_random_rows_is_numpy_s_to_the_bit(fleet, seed, iterations, with_contacts, solver):
    ours, our_contacts = _solve(fleet, seed, iterations, 1, with_contacts, solver)
    theirs, their_contacts = _solve(fleet, seed, iterations, None, with_contacts, solver)
    assert len(our_contacts) == len(their_contacts) == (3 if with_contacts else 0)
    for a, b in zip(ours + our_contacts, theirs + their_contacts):
        assert a.dtype == b.dtype and a.shape == b.shape
        np.testing.assert_array_equal(a, b)  # 0 ulps
    if with_contacts:  # the random rows did take impulses, and some patches slid
        assert np.abs(their_contacts[0]).max() > 0.0 and np.abs(their_contacts[1]).max() > 0.0
    assert np.abs(theirs[0] - fleet.state.linear_velocity).max() > 0.0


@pytest.mark.parametrize("threads", [2, 3])
@pytest.mark.parametrize("solver", [_solve_rows_tgs, _solve_rows_pgs], ids=["tgs", "pgs"])
def test_the_compiled_solve_does_not_depend_on_the_thread_count(fleet, threads, solver):
    one, one_contacts = _solve(fleet, 11, (16, 1), 1, True, solver)
    many, many_contacts = _solve(fleet, 11, (16, 1), threads, True, solver)
    for a, b in zip(one + one_contacts, many + many_contacts):
        np.testing.assert_array_equal(a, b)


def test_vehicle_pairs_and_float64_states_stay_with_numpy():
    assert compiled_rows.covers(np.float32, None)
    assert not compiled_rows.covers(np.float64, None)
    assert not compiled_rows.covers(np.float32, {"body0": np.array([0])})


# --- whole runs ----------------------------------------------------------------------------------------------------

def _trajectory(description, steps: int, options: StepOptions, controls: dict | None = None):
    """The body state after every step, and each step's contact count summed over the cars."""
    sim = Simulator.from_description(copy.deepcopy(description), DT, options=options)
    states, touching = [], 0
    for _ in range(steps):
        sim.step(None if controls is None else {k: np.full(sim.params.V, v) for k, v in controls.items()})
        s = sim.state
        states.append(np.concatenate([s.body_position.ravel(), s.body_orientation.ravel(), s.linear_velocity.ravel(),
                                      s.angular_velocity.ravel()]))
        if s.contacts is not None:
            touching += int(np.sum(s.contacts.telemetry["contactCount"]))
    return np.array(states), touching


def _counting(monkeypatch) -> dict:
    """Count the compiled solves, TGS and PGS (the real ones run; TGS with contacts: solve_tgs_contacts, and
    solve_every_touching where every vehicle touches)."""
    calls = {"solves": 0, "with contacts": 0}

    def counting(solve):
        def counted(*args, **kwargs):
            patches = next((a for a in args if hasattr(a, "point_active")), None)  # solve_tgs_contacts' PatchRows
            contacts = next((a for a in args if hasattr(a, "active")), None)  # the StaticContactRows, if any
            active = patches.point_active if patches is not None else None if contacts is None else contacts.active
            calls["solves"] += 1
            calls["with contacts"] += active is not None and bool(active.any())
            return solve(*args, **kwargs)
        return counted

    for module, name in ((compiled_rows, "solve_tgs"), (compiled_rows, "solve_pgs"),
                         (compiled_kept_solve, "solve_tgs_contacts"), (compiled_kept_solve, "solve_every_touching")):
        monkeypatch.setattr(module, name, counting(getattr(module, name)))
    return calls


@pytest.mark.parametrize("solver", ["TGS", "PGS"])
def test_cars_driving_into_boxes_run_alike_with_the_compiled_solver_and_numpy(monkeypatch, solver):
    stage = _with_ridges(_cars(3), 3)
    scene = stage.GetPrimAtPath("/World/PhysicsScene")
    scene.AddAppliedSchema("PhysxSceneAPI")
    scene.CreateAttribute(P.physx_scene_attribute("solverType"), Sdf.ValueTypeNames.Token).Set(solver)
    description = read_stage(stage)
    calls = _counting(monkeypatch)
    ours, touching = _trajectory(description, 150, StepOptions(), {"accelerator": 1.0})
    solves = dict(calls)
    theirs, _ = _trajectory(description, 150, StepOptions(compiled_rows=False), {"accelerator": 1.0})
    assert calls == solves  # numpy's run made no compiled solve
    assert solves["with contacts"] > 50 and touching > 0  # the chassis met its box for most of the run
    np.testing.assert_array_equal(ours, theirs)  # 0 ulps, every step
    position = ours[-1][:9].reshape(3, 3)
    assert np.all(position[0] < RIDGE_AHEAD - 1.9)  # held by the box (the car's nose is 2.04 m ahead of it)
    # and on two threads
    threads, _ = _trajectory(description, 150, StepOptions(kernel_threads=2), {"accelerator": 1.0})
    np.testing.assert_array_equal(threads, theirs)


@pytest.mark.parametrize("units", ["m", "cm_g"])
def test_suspension_limit_rows_run_alike_with_the_compiled_solver_and_numpy(tmp_path, monkeypatch, units):
    """The regimes' cars (tests/scenarios/regimes.py): one rolling 0.15 m below full compression, one dropped 1.5 m:
    their limit rows act in the first steps and on landing."""
    description = read_stage(str(build_regimes(tmp_path)[units]))
    calls = _counting(monkeypatch)
    # (without contacts the step's end would go to sim/compiled_end_step.py: tests/test_sim_end_step.py)
    ours, _ = _trajectory(description, 90, StepOptions(compiled_end_step=False), {"accelerator": 1.0})
    assert calls["solves"] > 0  # (a limit row makes the solve iterate; sticky rows alone are solved in closed form)
    theirs, _ = _trajectory(description, 90, StepOptions(compiled_rows=False), {"accelerator": 1.0})
    np.testing.assert_array_equal(ours, theirs)  # 0 ulps, every step


def test_a_car_resting_on_its_roof_runs_alike_with_the_compiled_solver_and_numpy(monkeypatch):
    stage = _over_sample()
    car = stage.GetPrimAtPath("/World/Car")  # the chassis box's roof 0.75 m above the origin: 5 mm into the ground
    car.GetAttribute("xformOp:translate").Set(Gf.Vec3d(0.0, 0.0, 0.745))
    car.GetAttribute("xformOp:orient").Set(Gf.Quatf(0.0, 1.0, 0.0, 0.0))
    description = read_stage(stage)
    calls = _counting(monkeypatch)
    ours, touching = _trajectory(description, 40, StepOptions())
    assert calls["with contacts"] == 40 and touching >= 4 * 40
    theirs, _ = _trajectory(description, 40, StepOptions(compiled_rows=False))
    np.testing.assert_array_equal(ours, theirs)


def _soft_solve(sim: Simulator, seed: int, iterations: int, kernel_threads: int | None) -> list[np.ndarray]:
    """One solve of random sticky rows (no limit rows, no contacts) from a random state: the state after it."""
    rng = np.random.default_rng(seed)
    p, s = sim.params, copy.deepcopy(sim.state)
    rows, _ = _random_rows(rng, p.V)
    rows.hard[:] = False
    s.linear_velocity = (rng.standard_normal((3, p.V)) * 2.0).astype(np.float32)
    s.angular_velocity = (rng.standard_normal((3, p.V)) * 1.0).astype(np.float32)
    q = rng.standard_normal((4, p.V))
    s.body_orientation = (q / np.linalg.norm(q, axis=0)).astype(np.float32)
    s.body_position = (rng.standard_normal((3, p.V)) * 50.0).astype(np.float32)
    _solve_soft_rows(p, s, rows, DT, iterations, s.body_position.copy(), s.body_orientation.copy(), kernel_threads)
    return [s.linear_velocity, s.angular_velocity, s.body_position, s.body_orientation]


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("iterations", [16, 4, 1])
def test_the_compiled_solve_of_random_sticky_rows_is_numpy_s_to_the_bit(fleet, seed, iterations):
    assert compiled_rows.available()  # CI builds the extension: this compares C with numpy
    ours = _soft_solve(fleet, seed, iterations, 1)
    theirs = _soft_solve(fleet, seed, iterations, None)
    for a, b in zip(ours, theirs):
        np.testing.assert_array_equal(a, b)
    assert not np.array_equal(ours[0], _soft_solve(fleet, seed + 10, iterations, 1)[0])  # the rows act


def test_a_braked_fleet_at_rest_runs_alike_with_the_compiled_solver_and_numpy():
    """The sticky rows of braked cars at rest (the closed-form solve) in C and in numpy: every step the same bits."""
    description = read_stage(_cars(3))
    braked = {"accelerator": 0.0, "brake0": 1.0}
    ours, _ = _trajectory(description, 60, StepOptions(compiled_end_step=False), braked)
    theirs, _ = _trajectory(description, 60, StepOptions(compiled_rows=False), braked)
    np.testing.assert_array_equal(ours, theirs)
    assert np.abs(ours[-1] - ours[0]).max() < 0.05  # at rest, held by the brakes
