"""The static contact rows' set-up in C (sim/_contact_rows.c through sim/compiled_rows.py `CompiledContactRows`)
against its numpy twin (sim/contact_rows.py `StaticContactRows.__init__`, and `prepare_pgs_constants` for PGS):
Jacobians, responses, targets, biases' constants, friction axes and gains, to the bit (0 ulps, and the sign of
zeros), on random patches and on the patches of real runs (the benchmarks' obstacles fleet, a car driven into a box);
and the constraint rows' set-up (sim/_row_solver.c pvu_constraint_rows) against row_solver's numpy one.
"""
from __future__ import annotations

import copy
import sys
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest
from conftest import SAMPLES
from pxr import Gf, UsdGeom, UsdPhysics, UsdShade

from physxvehicle_usd.read import read_stage
from physxvehicle_usd.sim import (
    Simulator,
    compiled_end_step,
    compiled_kept_solve,
    compiled_row_structs,
    compiled_rows,
    compiled_wheel_rows,
    pipeline,
)
from physxvehicle_usd.sim import vecmath as vm
from physxvehicle_usd.sim.contact_rows import StaticContactRows
from physxvehicle_usd.sim.pipeline import StepOptions
from physxvehicle_usd.sim.rigid_body import end_velocity
from physxvehicle_usd.sim.row_solver import _row_jacobians, _solve_rows_tgs, _spring_gains
from physxvehicle_usd.sim.solver_rows import ConstraintRows, PatchRows

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
from fleet import fleet_stage  # noqa: E402  (benchmarks/ is no package)

pytestmark = pytest.mark.skipif(not compiled_rows.available(), reason="the compiled extension is not built")

DT = 1.0 / 60.0


def _bits(a: np.ndarray) -> np.ndarray:
    """The bit patterns of float64 values (+0 and -0 differ, as do NaNs' payloads)."""
    return np.ascontiguousarray(a, np.float64).view(np.int64)


def _numpy_arrays(rows: StaticContactRows, pgs: bool) -> dict[str, np.ndarray]:
    """StaticContactRows' arrays under the names of the compiled solve's fields, at their full shapes."""
    V, Pm, N = rows.active.shape
    M = rows.anchors.shape[2]
    out = {"cJ": rows.J, "cWJ": rows.WJ, "c_recip": rows.recip, "c_target": rows.target, "c_error": rows.error,
           "c_bias_coefficient": rows.bias_coefficient, "c_max_bias": rows.max_bias,
           "fJ": np.stack([J for J, _, _, _ in rows.F]), "fWJ": np.stack([WJ for _, WJ, _, _ in rows.F]),
           "f_gain": np.stack([g for _, _, g, _ in rows.F]), "f_error": np.stack([e for _, _, _, e in rows.F]),
           "scale": rows.scale, "c_impulse": rows.impulse, "friction": rows.friction}
    if pgs:
        out["c_pgs_bias"] = rows.pgs_bias
        out["f_pgs_bias"] = np.stack(rows.pgs_friction_bias)
    shapes = {"c": (V, Pm, N), "f": (2, V, Pm, M)}
    for name in ("c_recip", "c_target", "c_error", "c_bias_coefficient", "c_pgs_bias"):
        if name in out:
            out[name] = np.broadcast_to(out[name], shapes["c"])
    for name in ("f_gain", "f_error", "f_pgs_bias"):
        if name in out:
            out[name] = np.broadcast_to(out[name], shapes["f"])
    return out


def _assert_same_rows(p, patches: PatchRows, vehicles: np.ndarray, orientation: np.ndarray, x: np.ndarray,
                      iterations: int, pgs: bool, threads: int = 1) -> dict[str, np.ndarray]:
    """C's rows against numpy's from the same patches and bodies (orientation (4, batch), x (6, Vr) float32, as
    row_solver hands them over), every field to the bit; C's rows by name."""
    ours = compiled_rows.CompiledContactRows(p, patches, vehicles, orientation, x, DT, iterations, pgs, threads)
    rotation = vm.quat_to_mat(orientation[:, vehicles]).astype(float)
    theirs = StaticContactRows(p, patches, vehicles, rotation, x.astype(float), DT, iterations, np.float32,
                               cut_rows=False)
    if pgs:
        theirs.prepare_pgs(DT)
    expected = _numpy_arrays(theirs, pgs)
    arrays = ours.arrays()
    assert set(arrays) == set(expected) | {"c_listed", "a_listed"}
    for name, value in expected.items():
        assert arrays[name].shape == value.shape, name
        np.testing.assert_array_equal(_bits(arrays[name]), _bits(value), err_msg=name)  # 0 ulps
    assert ours.broken.dtype == bool and ours.broken.shape == patches.point_active.shape[:2] and not ours.broken.any()
    np.testing.assert_array_equal(arrays["c_listed"], patches.point_active.any(axis=0))
    np.testing.assert_array_equal(arrays["a_listed"], patches.anchor_active.any(axis=0))
    return arrays


# --- random patches ------------------------------------------------------------------------------------------------

def _unit(rng, shape) -> np.ndarray:
    v = rng.standard_normal((3,) + shape)
    return v / np.linalg.norm(v, axis=0)


def _random_patches(rng, V: int, Pm: int, N: int) -> PatchRows:
    """Patches as contact.patch_rows makes them (float64, N points a patch) with the cases the set-up branches on:
    inactive points and anchors, a vehicle without contact, bouncing and speculative points, zero arms (a zero
    angular Jacobian), normals along each axis (both fallback friction axes), a patch with two anchors and with one."""
    points = rng.random((V, Pm, N)) < 0.7
    points[0] = False  # vehicle 0 touches nothing
    anchors = (rng.random((V, Pm, 2)) < 0.7) & points[:, :, :2]
    static = rng.uniform(0.3, 1.2, (V, Pm))
    normal = _unit(rng, (V, Pm))
    normal[:, :, 0] = np.where(rng.random(V) < 0.5, [[1.0], [0.0], [0.0]], [[0.0], [0.0], [1.0]])  # axis-aligned
    arm = rng.standard_normal((3, V, Pm, N)) * 1.5
    arm[:, :, :, 0] = np.where(rng.random((V, Pm)) < 0.2, 0.0, arm[:, :, :, 0])
    return PatchRows(point_active=points, arm=arm, separation=rng.uniform(-0.05, 0.02, (V, Pm, N)), normal=normal,
                     rest_distance=np.where(rng.random((V, Pm)) < 0.5, 0.0, rng.uniform(0.0, 0.01, (V, Pm))),
                     static_friction=static, dynamic_friction=static * rng.uniform(0.5, 1.0, (V, Pm)),
                     restitution=np.where(rng.random((V, Pm)) < 0.4, rng.uniform(0.1, 0.9, (V, Pm)), 0.0),
                     anchor_active=anchors, anchor_arm=rng.standard_normal((3, V, Pm, 2)) * 1.5,
                     anchor_error=rng.standard_normal((3, V, Pm, 2)) * 0.01, bounce_threshold=np.full(V, 0.2))


@pytest.fixture(scope="module")
def car_params():
    """The sample car's parameters (float32), which the random groups' bodies vary."""
    return Simulator.from_description(read_stage(str(SAMPLES / "car" / "car.usda")), DT).params


def _random_bodies(p, rng, batch: int) -> None:
    """Random masses, inertias and depenetration limits of a batch, float32 as the parameters hold them."""
    p.mass = rng.uniform(500.0, 3000.0, batch).astype(np.float32)
    p.moi = rng.uniform(200.0, 4000.0, (3, batch)).astype(np.float32)
    p.max_depenetration_velocity = rng.uniform(1.0, 10.0, batch).astype(np.float32)


def _bodies(rng, batch: int, V: int) -> tuple[np.ndarray, np.ndarray]:
    """Random orientations of a batch (4, batch) and velocities of a group of V (6, V), float32 as the solver has them;
    some vehicles at rest (the fallback friction axes), some with a zero component (sums of -0 products), one
    unrotated (zeros in the rotation)."""
    q = rng.standard_normal((4, batch))
    q[:, 0] = (1.0, 0.0, 0.0, 0.0)
    orientation = (q / np.linalg.norm(q, axis=0)).astype(np.float32)
    x = np.concatenate((rng.standard_normal((3, V)) * 3.0, rng.standard_normal((3, V)))).astype(np.float32)
    x[:, rng.random(V) < 0.25] = 0.0
    x[1, rng.random(V) < 0.3] = -0.0
    return orientation, x


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("V, Pm, N", [(1, 1, 4), (3, 2, 4), (12, 3, 6), (9, 2, 2), (19, 2, 4)])
@pytest.mark.parametrize("iterations, pgs", [(16, False), (4, False), (1, False), (1, True)], ids=str)
def test_the_compiled_contact_rows_of_random_patches_are_numpy_s_to_the_bit(car_params, seed, V, Pm, N, iterations,
                                                                            pgs):
    """(12, 9 and 19 vehicles: numpy's set-up spreads the rotations over the rows from 8 on, _SPREAD_ROTATION_VEHICLES;
    C's takes 8 vehicles side by side, the rest one at a time.)"""
    rng = np.random.default_rng(seed)
    p = copy.copy(car_params)
    # a batch of 20 vehicles of random masses and inertias (the sample car's parameters otherwise); the group: V of them
    batch = 20
    p.mass = rng.uniform(500.0, 3000.0, batch).astype(np.float32)
    p.moi = rng.uniform(200.0, 4000.0, (3, batch)).astype(np.float32)
    p.max_depenetration_velocity = np.where(rng.random(batch) < 0.5, 3.0, 1e30).astype(np.float32)
    vehicles = np.sort(rng.choice(batch, V, replace=False))
    orientation, x = _bodies(rng, batch, V)
    ours = _assert_same_rows(p, _random_patches(rng, V, Pm, N), vehicles, orientation, x, iterations, pgs)
    assert V < 9 or np.any(ours["c_target"] != 0.0)  # some points bounce
    assert np.any(ours["f_gain"] != 0.0) == bool(ours["a_listed"].any())


@pytest.mark.parametrize("threads", [2, 3])
def test_the_compiled_contact_rows_do_not_depend_on_the_thread_count(car_params, threads):
    rng = np.random.default_rng(5)
    p = car_params
    V = 19
    vehicles = np.zeros(V, np.int64)  # nineteen vehicles of the one car's parameters and pose (two blocks of lanes)
    orientation, x = _bodies(rng, 1, V)
    _assert_same_rows(p, _random_patches(rng, V, 2, 4), vehicles, orientation, x, 4, False, threads)


def test_patches_in_another_precision_stay_with_numpy(car_params):
    patches = _random_patches(np.random.default_rng(0), 1, 1, 4)
    assert compiled_rows.covers(np.float32, None, car_params, None, patches)
    patches.separation = patches.separation.astype(np.float32)  # numpy's arithmetic would be float32's
    assert not compiled_rows.covers(np.float32, None, car_params, None, patches)


# --- real runs -----------------------------------------------------------------------------------------------------

class _Calls(list):
    """The recorded set-ups' inputs, and for each solve_tgs_contacts call whether it formed the velocities too."""

    with_velocity: list


def _recording(monkeypatch) -> list:
    """Record the inputs of every compiled contact rows' set-up (`CompiledContactRows`, and the one
    `solve_tgs_contacts` and `solve_every_touching` run into their kept buffers; the real one runs, and the step goes
    on with it)."""
    calls = _Calls()
    made = compiled_rows.CompiledContactRows

    def recorded(p, patches, vehicles, orientation, x, dt, iterations, pgs=False, threads=1):
        kept = patches.subset(np.ones(len(vehicles), bool))  # its arrays' copies
        calls.append((p, kept, vehicles.copy(), orientation.copy(), x.copy(), dt, iterations, pgs))
        return made(p, patches, vehicles, orientation, x, dt, iterations, pgs, threads)

    monkeypatch.setattr(compiled_rows, "CompiledContactRows", recorded)
    solve_kept = compiled_kept_solve.solve_tgs_contacts

    def recorded_kept(p, rows, patches, linear_velocity, angular_velocity, begin_position, begin_orientation, dt,
                      iterations, velocity_iterations, threads=1, velocity=None, orientation=None):
        # (a TGS solve with contacts sets its rows up in its kept buffers: the same C set-up from the same inputs;
        # where it forms the end of the step's velocities first (`velocity`), x is the state's before them)
        vehicles = rows.vehicles
        x = np.concatenate((linear_velocity[:, vehicles], angular_velocity[:, vehicles]))
        calls.append((p, patches.subset(np.ones(len(vehicles), bool)), vehicles.copy(), begin_orientation.copy(), x,
                      dt, iterations, False))
        with_velocity.append(velocity is not None)
        return solve_kept(p, rows, patches, linear_velocity, angular_velocity, begin_position, begin_orientation, dt,
                          iterations, velocity_iterations, threads, velocity, orientation)

    monkeypatch.setattr(compiled_kept_solve, "solve_tgs_contacts", recorded_kept)
    solve_touching = compiled_kept_solve.solve_every_touching

    def recorded_touching(p, patches, wheels, linear_velocity, angular_velocity, begin_position, begin_orientation,
                          dt, iterations, velocity_iterations, threads, velocity, orientation):
        # (every vehicle, its constraint rows made from the wheels in the same call: the contact rows' set-up as
        # solve_tgs_contacts', from the velocities before the end of the step's)
        vehicles = np.arange(p.V)
        calls.append((p, patches.subset(np.ones(p.V, bool)), vehicles, begin_orientation.copy(),
                      np.concatenate((linear_velocity, angular_velocity)), dt, iterations, False))
        with_velocity.append(True)
        return solve_touching(p, patches, wheels, linear_velocity, angular_velocity, begin_position, begin_orientation,
                              dt, iterations, velocity_iterations, threads, velocity, orientation)

    monkeypatch.setattr(compiled_kept_solve, "solve_every_touching", recorded_touching)
    with_velocity = calls.with_velocity = []
    return calls


def _run(path, steps: int, options: StepOptions) -> np.ndarray:
    sim = Simulator.from_description(read_stage(str(path)), DT, options=options)
    states = []
    for _ in range(steps):
        sim.step({"accelerator": np.full(sim.params.V, 1.0)})
        s = sim.state
        states.append(np.concatenate([s.body_position.ravel(), s.body_orientation.ravel(), s.linear_velocity.ravel(),
                                      s.angular_velocity.ravel()]))
    return np.array(states)


def test_the_obstacles_fleet_s_contact_rows_are_numpy_s_and_so_is_its_run(tmp_path, monkeypatch):
    """The benchmarks' obstacles road (a box ahead of each car, a triangle-mesh road), 20 cars driven into their
    boxes: every step's rows from C are numpy's from the same patches, and the run is numpy's run."""
    path = fleet_stage(20, tmp_path, road="obstacles")
    calls = _recording(monkeypatch)
    ours = _run(path, 100, StepOptions())
    with_points = [c for c in calls if c[1].point_active.any()]
    assert len(with_points) > 30  # the chassis met its box (and the road) for much of the run
    assert any(calls.with_velocity)  # (steps where every car touched: the end velocities in the same solve)
    assert sum(c[1].anchor_active.any() for c in with_points) > 30  # and its friction held it there
    assert max(len(c[2]) for c in with_points) > 16  # groups of many vehicles (numpy spreads their rotations)
    for p, patches, vehicles, orientation, x, dt, iterations, pgs in with_points[::5]:
        assert dt == DT and not pgs
        _assert_same_rows(p, patches, vehicles, orientation, x, iterations, pgs)
    theirs = _run(path, 100, StepOptions(compiled_rows=False))  # numpy's rows and solve
    np.testing.assert_array_equal(ours.view(np.int32), theirs.view(np.int32))  # 0 ulps, every step
    # and on two threads (the compiled solve's blocks of vehicles split between them)
    threads = _run(path, 100, StepOptions(kernel_threads=2))
    np.testing.assert_array_equal(threads.view(np.int32), theirs.view(np.int32))


def _car_before_a_box(solver: str):
    """The sample car with a box 0.5 m ahead of its nose (tests/test_sim_row_solver.py's ridge), in the scene's
    `solver` (TGS or PGS)."""
    from pxr import Sdf, Usd

    from physxvehicle_usd import properties as P
    stage = Usd.Stage.CreateInMemory()
    stage.GetRootLayer().subLayerPaths.append(str(SAMPLES / "car" / "car.usda"))
    UsdGeom.SetStageMetersPerUnit(stage, 1.0)
    UsdGeom.SetStageUpAxis(stage, UsdGeom.Tokens.z)
    UsdPhysics.SetStageKilogramsPerUnit(stage, 1.0)
    cube = UsdGeom.Cube.Define(stage, "/World/Ridge")
    cube.CreateSizeAttr(1.0)
    cube.AddTranslateOp().Set(Gf.Vec3d(2.54 + 0.2, 0.0, 0.25))
    cube.AddScaleOp().Set(Gf.Vec3f(0.4, 0.6, 0.5))
    UsdPhysics.CollisionAPI.Apply(cube.GetPrim())
    UsdShade.MaterialBindingAPI.Apply(cube.GetPrim()).Bind(UsdShade.Material(stage.GetPrimAtPath("/World/Asphalt")),
                                                           materialPurpose="physics")
    scene = stage.GetPrimAtPath("/World/PhysicsScene")
    scene.AddAppliedSchema("PhysxSceneAPI")
    scene.CreateAttribute(P.physx_scene_attribute("solverType"), Sdf.ValueTypeNames.Token).Set(solver)
    return read_stage(stage)


@pytest.mark.parametrize("solver", ["TGS", "PGS"])
def test_a_car_driven_into_a_box_has_numpy_s_contact_rows(monkeypatch, solver):
    description = _car_before_a_box(solver)
    calls = _recording(monkeypatch)
    sim = Simulator.from_description(copy.deepcopy(description), DT)
    for _ in range(90):
        sim.step({"accelerator": np.ones(1)})
    with_points = [c for c in calls if c[1].point_active.any()]
    assert len(with_points) > 20 and all(c[7] == (solver == "PGS") for c in calls)
    for p, patches, vehicles, orientation, x, dt, iterations, pgs in with_points[::3]:
        _assert_same_rows(p, patches, vehicles, orientation, x, iterations, pgs)


# --- the constraint rows' set-up -----------------------------------------------------------------------------------

def _random_constraint_rows(rng, V: int, batch: int, R: int = 12) -> ConstraintRows:
    """Rows as pipeline.constraint_rows makes them (float32 directions and arms, float64 dampings and separations,
    the last third hard), with inactive rows, a zero direction (a zero response) and a row active nowhere."""
    active = rng.random((V, R)) < 0.75
    active[:, 1] = False
    hard = np.zeros((V, R), bool)
    hard[:, 2 * R // 3:] = True
    linear = _unit(rng, (V, R)).astype(np.float32)
    linear[:, 0, 3] = 0.0
    return ConstraintRows(vehicles=np.sort(rng.choice(batch, V, replace=False)), linear=linear,
                          arm=(rng.standard_normal((3, V, R)) * 1.5).astype(np.float32),
                          damping=np.where(rng.random((V, R)) < 0.2, 0.0, rng.uniform(1.0, 3000.0, (V, R))),
                          active=active, hard=hard, separation=np.where(hard, rng.uniform(-0.2, 0.02, (V, R)), 0.0))


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("V", [1, 5, 19])
@pytest.mark.parametrize("pgs", [False, True], ids=["tgs", "pgs"])
@pytest.mark.parametrize("threads", [1, 3])
def test_the_compiled_constraint_rows_are_row_solver_s_to_the_bit(car_params, seed, V, pgs, threads):
    """pvu_constraint_rows against row_solver's numpy set-up (`_row_jacobians`, the reciprocal responses,
    `_spring_gains`; TGS: the separations in float32; PGS: impulse_kept and limit_bias), 0 ulps, on one thread or
    the vehicles split over three."""
    rng = np.random.default_rng(seed)
    p = copy.copy(car_params)
    batch = 24
    p.mass = rng.uniform(500.0, 3000.0, batch).astype(np.float32)
    p.moi = rng.uniform(200.0, 4000.0, (3, batch)).astype(np.float32)
    rows = _random_constraint_rows(rng, V, batch)
    orientation, _ = _bodies(rng, batch, V)
    x = np.zeros((6, V), np.float32)
    n = 4
    spring_time = DT if pgs else DT / n
    call = compiled_row_structs.RowSolveCall()
    block, fields = compiled_rows._constraint_rows(call, p, rows, x, orientation, spring_time, DT, n, 1, pgs,
                                                   threads)
    ours = {name: compiled_row_structs.block_view(block, fields, name) for name in fields}
    J, WJ, u = _row_jacobians(p, rows, vm.quat_to_mat(orientation[:, rows.vehicles]))
    act = rows.active & (u > 0.0)
    gain = _spring_gains(rows, u, spring_time, np.float32)
    expected = {"J": J, "WJ": WJ, "recip": np.where(act, 1.0 / np.where(act, u, 1.0), 0.0).astype(np.float32),
                "spring_gain": gain}
    if pgs:
        expected["impulse_kept"] = (gain * np.where(act, u, 0.0)).astype(np.float32)
        expected["limit_bias"] = (-rows.separation / DT).astype(np.float32)
    else:
        expected["separation"] = rows.separation.astype(np.float32)
    for name, value in expected.items():
        assert value.dtype == np.float32
        np.testing.assert_array_equal(ours[name].view(np.int32), value.view(np.int32), err_msg=name)  # 0 ulps
    np.testing.assert_array_equal(ours["act"].view(bool), act)
    np.testing.assert_array_equal(ours["listed"].view(bool), act.any(axis=0))
    if not pgs:
        np.testing.assert_array_equal(ours["hard_listed"].view(bool), act.any(axis=0) & rows.hard.any(axis=0))
    assert not act[:, 1].any() and (ours["recip"] != 0.0).any()


# --- the TGS solve with contacts in kept buffers -------------------------------------------------------------------

@pytest.mark.parametrize("V, Pm, N", [(2, 1, 4), (12, 3, 6), (19, 2, 4)])  # (vehicle 0 touches nothing)
@pytest.mark.parametrize("iterations", [4, 1])
@pytest.mark.parametrize("threads", [1, 3])
def test_the_kept_tgs_solve_with_contacts_is_the_fresh_one_to_the_bit(car_params, V, Pm, N, iterations, threads):
    """solve_tgs_contacts (the rows set up and solved in buffers kept from call to call) against CompiledContactRows
    and solve_tgs (fresh buffers every call), three calls of one shape in a row with other rows, patches and bodies
    each time: the velocity, pose, impulses, friction and which slid, 0 ulps; what an earlier call returned of its
    contacts is not overwritten by a later one."""
    p = copy.copy(car_params)
    batch = V + 5
    rng = np.random.default_rng(V * 10 + iterations)
    _random_bodies(p, rng, batch)
    kept = []
    for _ in range(3):
        rows = _random_constraint_rows(rng, V, batch)
        patches = _random_patches(rng, V, Pm, N)
        orientation, _ = _bodies(rng, batch, V)
        position = rng.standard_normal((3, batch)).astype(np.float32)
        velocity = (rng.standard_normal((6, batch)) * 2.0).astype(np.float32)
        x = velocity[:, rows.vehicles]
        n = iterations
        fresh = compiled_rows.CompiledContactRows(p, patches, rows.vehicles, orientation, x, DT, n, False, threads)
        expected = compiled_rows.solve_tgs(fresh, p, rows, x, position, orientation, np.float32(np.sqrt(n) / DT),
                                           np.float32(0.75 / DT), DT, n, 2, threads)
        solved = compiled_kept_solve.solve_tgs_contacts(p, rows, patches, velocity[:3], velocity[3:], position,
                                                        orientation, DT, n, 2, threads)
        for ours, theirs in zip(solved[1:], expected):
            np.testing.assert_array_equal(ours.view(np.int32), theirs.view(np.int32))  # 0 ulps
        contacts = solved[0]
        for name in ("impulse", "friction"):
            np.testing.assert_array_equal(_bits(getattr(contacts, name)), _bits(getattr(fresh, name)), err_msg=name)
        np.testing.assert_array_equal(contacts.broken, fresh.broken)
        assert contacts.active is patches.point_active and contacts.normal is patches.normal
        kept.append((contacts, fresh))
    assert any((fresh.impulse != 0.0).any() for _, fresh in kept)
    for contacts, fresh in kept:  # (each call's contacts its own)
        np.testing.assert_array_equal(_bits(contacts.impulse), _bits(fresh.impulse))
        np.testing.assert_array_equal(_bits(contacts.friction), _bits(fresh.friction))


# --- the constraint rows from the wheels ---------------------------------------------------------------------------

def test_the_obstacles_fleet_s_constraint_rows_from_c_are_numpy_s(tmp_path, monkeypatch):
    """pipeline.constraint_rows through compiled_wheel_rows.wheel_rows (the listed vehicles and their rows in one C call)
    against its numpy stacking, every step of 20 cars driven into their boxes and of 3 on a plane: the same vehicles
    and the same rows, dtypes and bits; groups of some of the vehicles and of all of them."""
    made = pipeline.constraint_rows
    wheel_rows = compiled_wheel_rows.wheel_rows
    compared, from_c = [], []

    def counted(*arrays):
        out = wheel_rows(*arrays)
        from_c.append(out is not None)
        return out

    def compared_rows(p, s, road, also=None):
        monkeypatch.setattr(compiled_wheel_rows, "wheel_rows", counted)
        ours = made(p, s, road, also)
        monkeypatch.setattr(compiled_wheel_rows, "wheel_rows", lambda *arrays: None)
        theirs = made(p, s, road, also)
        monkeypatch.setattr(compiled_wheel_rows, "wheel_rows", wheel_rows)
        assert (ours is None) == (theirs is None)
        if ours is not None:
            for name in ("vehicles", "linear", "arm", "damping", "active", "hard", "separation"):
                a, b = getattr(ours, name), getattr(theirs, name)
                assert a.dtype == b.dtype and a.shape == b.shape, name
                assert a.tobytes() == b.tobytes(), name
            compared.append((len(ours.vehicles), p.V, also is not None))
        return ours

    monkeypatch.setattr(pipeline, "constraint_rows", compared_rows)
    _run(fleet_stage(20, tmp_path, road="obstacles"), 60, StepOptions(compiled_end_step=False))
    # (a braked fleet on a plane: sticky rows, no contacts, no `also`)
    sim = Simulator.from_description(read_stage(str(fleet_stage(3, tmp_path / "plane"))), DT,
                                     options=StepOptions(compiled_end_step=False))
    for _ in range(10):
        sim.step({"brake0": np.ones(sim.params.V)})
    assert any(also for _, _, also in compared) and any(not also for _, _, also in compared)
    assert from_c and all(from_c)  # (every step's rows from C: float32 wheels, bool flags)
    assert any(listed < V for listed, V, _ in compared) and any(listed == V for listed, V, _ in compared)


# --- the end of a step with contacts: the velocities and the solve of every vehicle in one set of calls ------------

@pytest.mark.parametrize("V, Pm, N", [(2, 1, 4), (12, 3, 6), (19, 2, 4)])
@pytest.mark.parametrize("iterations", [4, 1])
@pytest.mark.parametrize("threads", [1, 3])
def test_the_solve_of_every_vehicle_with_its_velocities_is_numpy_s_to_the_bit(tmp_path, V, Pm, N, iterations,
                                                                              threads):
    """solve_tgs_contacts with the velocities before the rows formed in C (`velocity`: _KeptTGS.solve_every, two C
    calls) against numpy's rigid_body.end_velocity then row_solver._solve_rows_tgs, three calls in a row with other
    rows, patches and bodies each time: velocity, pose, impulses, friction and which slid, 0 ulps; each call's outputs
    new arrays. A vehicle with neither a contact point nor an active limit row: refused, nothing written."""
    p = Simulator.from_description(read_stage(str(fleet_stage(V, tmp_path))), DT).params
    rng = np.random.default_rng(V * 10 + iterations)
    _random_bodies(p, rng, V)
    outputs = []
    for call in range(3):
        rows = _random_constraint_rows(rng, V, V)
        rows.active[0, -1] = True  # (vehicle 0 touches nothing: held by its limit row)
        patches = _random_patches(rng, V, Pm, N)
        begin_orientation, _ = _bodies(rng, V, V)
        orientation, _ = _bodies(rng, V, V)  # (the state's after the substeps: the gyroscopic term's frame)
        position = rng.standard_normal((3, V)).astype(np.float32)
        velocity = (rng.standard_normal((6, V)) * 2.0).astype(np.float32)
        state = SimpleNamespace(linear_velocity=velocity[:3].copy(), angular_velocity=velocity[3:].copy(),
                                body_orientation=orientation.copy(), body_position=position.copy(), contacts=None)
        end_velocity(p, state, DT)  # numpy's
        formed = np.concatenate((state.linear_velocity, state.angular_velocity))
        _solve_rows_tgs(p, state, rows, DT, iterations, 2, position, begin_orientation, patches)
        solved = compiled_kept_solve.solve_tgs_contacts(p, rows, patches, velocity[:3], velocity[3:], position,
                                                        begin_orientation, DT, iterations, 2, threads,
                                                        compiled_end_step.velocity_struct(p), orientation)
        contacts, x, ours_position, ours_orientation = solved
        for ours, theirs in ((x[:3], state.linear_velocity), (x[3:], state.angular_velocity),
                             (ours_position, state.body_position), (ours_orientation, state.body_orientation)):
            assert ours.dtype == np.float32 and ours.flags.c_contiguous
            np.testing.assert_array_equal(ours.view(np.int32), theirs.view(np.int32))  # 0 ulps
        # the contacts' impulses, friction and which slid: the fresh compiled solve's from numpy's velocities
        fresh = compiled_rows.CompiledContactRows(p, patches, rows.vehicles, begin_orientation, formed, DT,
                                                  iterations, False, threads)
        compiled_rows.solve_tgs(fresh, p, rows, formed, position, begin_orientation,
                                np.float32(np.sqrt(iterations) / DT), np.float32(0.75 / DT), DT, iterations, 2, threads)
        for name in ("impulse", "friction"):
            np.testing.assert_array_equal(_bits(getattr(contacts, name)), _bits(getattr(fresh, name)), err_msg=name)
        np.testing.assert_array_equal(contacts.broken, fresh.broken)
        assert contacts.broken.dtype == bool and contacts.active is patches.point_active
        outputs.append((solved, [a.copy() for a in (x, ours_position, ours_orientation, contacts.impulse,
                                                      contacts.friction, contacts.broken)]))
    for (solved, copies) in outputs:  # (each call's outputs its own)
        contacts, x, position_out, orientation_out = solved
        for ours, kept in zip((x, position_out, orientation_out, contacts.impulse, contacts.friction,
                               contacts.broken), copies):
            assert ours.tobytes() == kept.tobytes()
    # a vehicle held by nothing (sticky rows alone): refused before anything is formed
    rows.active[0] &= ~rows.hard[0]
    velocity_before = velocity.copy()
    assert compiled_kept_solve.solve_tgs_contacts(p, rows, patches, velocity[:3], velocity[3:], position,
                                                  begin_orientation, DT, iterations, 2, threads,
                                                  compiled_end_step.velocity_struct(p), orientation) is None
    assert velocity.tobytes() == velocity_before.tobytes()


@pytest.mark.parametrize("V, Pm, N", [(1, 1, 4), (12, 3, 6)])
@pytest.mark.parametrize("threads", [1, 3])
def test_the_solve_of_every_vehicle_touching_makes_numpy_s_rows_and_solve(tmp_path, monkeypatch, V, Pm, N, threads):
    """solve_every_touching (the constraint rows made from the wheels' outputs in the solve's own C call) against
    numpy's pipeline.constraint_rows, rigid_body.end_velocity and row_solver._solve_rows_tgs from random wheels, two
    calls in a row: velocity and pose, 0 ulps; a vehicle not listed (no flag, no acting row): refused, nothing
    written."""
    p = Simulator.from_description(read_stage(str(fleet_stage(V, tmp_path))), DT).params
    W = p.W
    rng = np.random.default_rng(V + threads)
    iterations = 4
    for _ in range(2):
        wheels = SimpleNamespace(
            out={name: _unit(rng, (V, W)).astype(np.float32) for name in ("_lng_dir", "_lat_dir")}
            | {"_app_arm": (rng.standard_normal((3, V, W)) * 1.5).astype(np.float32)},
            separation=rng.uniform(-0.05, 0.05, (V, W)).astype(np.float32),
            sticky_lng=rng.random((V, W)) < 0.5, sticky_lat=rng.random((V, W)) < 0.5)
        road = SimpleNamespace(normal=_unit(rng, (V, W)).astype(np.float32))
        touching = np.ones(V, bool)
        patches = _random_patches(rng, V, Pm, N)
        patches.point_active[0, 0, 0] = True  # (every vehicle touching)
        begin_orientation, _ = _bodies(rng, V, V)
        orientation, _ = _bodies(rng, V, V)
        position = rng.standard_normal((3, V)).astype(np.float32)
        velocity = (rng.standard_normal((6, V)) * 2.0).astype(np.float32)
        with monkeypatch.context() as numpy_rows:
            numpy_rows.setattr(compiled_wheel_rows, "wheel_rows", lambda *arrays: None)
            rows = pipeline.constraint_rows(p, wheels, road, touching)
        assert np.array_equal(rows.vehicles, np.arange(V))
        state = SimpleNamespace(linear_velocity=velocity[:3].copy(), angular_velocity=velocity[3:].copy(),
                                body_orientation=orientation.copy(), body_position=position.copy(), contacts=None)
        end_velocity(p, state, DT)
        _solve_rows_tgs(p, state, rows, DT, iterations, 2, position, begin_orientation, patches)
        arrays = (wheels.out["_lng_dir"], wheels.out["_lat_dir"], road.normal, wheels.out["_app_arm"],
                  wheels.separation, p.sticky_lng_damping_w, p.sticky_lat_damping_w, wheels.sticky_lng,
                  wheels.sticky_lat, p.mask, touching)
        solved = compiled_kept_solve.solve_every_touching(p, patches, arrays, velocity[:3], velocity[3:], position,
                                                          begin_orientation, DT, iterations, 2, threads,
                                                          compiled_end_step.velocity_struct(p), orientation)
        _, x, ours_position, ours_orientation = solved
        for ours, theirs in ((x[:3], state.linear_velocity), (x[3:], state.angular_velocity),
                             (ours_position, state.body_position), (ours_orientation, state.body_orientation)):
            np.testing.assert_array_equal(ours.view(np.int32), theirs.view(np.int32))  # 0 ulps
    # vehicle 0 neither flagged nor with an acting row: not listed, so not this solve's
    touching[0] = False
    wheels.sticky_lng[0] = wheels.sticky_lat[0] = False
    wheels.separation[0] = 1.0
    assert compiled_kept_solve.solve_every_touching(p, patches, arrays, velocity[:3], velocity[3:], position,
                                                    begin_orientation, DT, iterations, 2, threads,
                                                    compiled_end_step.velocity_struct(p), orientation) is None
