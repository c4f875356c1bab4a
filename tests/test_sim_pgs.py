"""The PGS solve (sim/row_solver.py `_solve_rows_pgs`) where a scene asks it (physxScene:solverType = "PGS"): the choice
read from the scene as omni.physx reads it, a car resting on its roof stays at rest, and the two solvers' closed forms
for one sticky row and one suspension-limit row. The motion is checked against PhysX in tests/test_conformance_pgs.py."""
from __future__ import annotations

import numpy as np
import pytest
from conftest import SAMPLES
from pxr import Gf, Sdf, Usd

from physxvehicle_usd import properties as P
from physxvehicle_usd.read import read_stage
from physxvehicle_usd.sim import Simulator
from physxvehicle_usd.sim.row_solver import solve_vehicle_constraints
from physxvehicle_usd.sim.solver_rows import ConstraintRows

CAR = SAMPLES / "car" / "car.usda"
SCENE = "/World/PhysicsScene"
DT = 1.0 / 60.0
SOLVER = P.physx_scene_attribute("solverType")


def _car(solver: str | None, applied: bool = True, roof_down: bool = False) -> Usd.Stage:
    stage = Usd.Stage.Open(str(CAR))
    scene = stage.GetPrimAtPath(SCENE)
    if applied:
        scene.AddAppliedSchema("PhysxSceneAPI")
    if solver is not None:
        scene.CreateAttribute(SOLVER, Sdf.ValueTypeNames.Token).Set(solver)
    if roof_down:  # upside down, the chassis box's top face (0.75 above the origin) on the ground
        car = stage.GetPrimAtPath("/World/Car")
        car.GetAttribute("xformOp:translate").Set(Gf.Vec3d(0.0, 0.0, 0.75))
        car.GetAttribute("xformOp:orient").Set(Gf.Quatf(0.0, 1.0, 0.0, 0.0))
    return stage


def test_the_solver_is_the_scene_s_as_omni_physx_reads_it():
    def read(stage):
        d = read_stage(stage)
        return bool(Simulator.from_description(d, DT).params.pgs[0]), [(x.code, x.prim, x.property)
                                                                         for x in d.diagnostics]

    assert read(_car(None)) == (False, [])  # omni.physx's default: TGS
    assert read(_car("TGS")) == (False, [])
    assert read(_car("PGS")) == (True, [])
    pgs, said = read(_car("Jacobi"))  # a token omni.physx does not know: it keeps TGS, and so do we, said
    assert not pgs and said == [("SOLVER_TYPE", SCENE, SOLVER)]
    pgs, said = read(_car("PGS", applied=False))  # without PhysxSceneAPI omni.physx does not read it
    assert not pgs and said == [("SCENE_API", SCENE, SOLVER)]


def test_a_car_resting_on_its_roof_stays_at_rest_under_pgs():
    sim = Simulator.from_description(read_stage(_car("PGS", roof_down=True)), DT)
    start = sim.state.body_position[:, 0].astype(float)
    for _ in range(20):
        sim.step()
    s = sim.state
    assert s.contacts is not None and s.contacts.telemetry["contactCount"][0] >= 4  # it lies on its roof
    assert np.abs(s.linear_velocity[:, 0]).max() < 1e-3 and np.abs(s.angular_velocity[:, 0]).max() < 1e-3
    assert np.abs(s.body_position[:, 0] - start).max() < 1e-3


def _one_row(hard: bool, separation: float, damping: float) -> ConstraintRows:
    """One row along +x (sticky) or +z (limit) through the centre of mass of vehicle 0."""
    axis = [0.0, 0.0, 1.0] if hard else [1.0, 0.0, 0.0]
    return ConstraintRows(vehicles=np.array([0]), linear=np.array(axis).reshape(3, 1, 1), arm=np.zeros((3, 1, 1)),
                          damping=np.array([[damping]]), active=np.array([[True]]), hard=np.array([[hard]]),
                          separation=np.array([[separation]]))


@pytest.fixture(scope="module")
def cars() -> dict[bool, Simulator]:
    """The sample car in a PGS scene (True) and in a TGS one (False)."""
    return {pgs: Simulator.from_description(read_stage(_car("PGS" if pgs else None)), DT, dtype=np.float64)
            for pgs in (True, False)}


def _solve(cars: dict[bool, Simulator], pgs: bool, rows: dict, velocity: tuple) -> tuple[np.ndarray, np.ndarray]:
    """The velocity and the position change of the sample car under `rows`, from `velocity`, without rotation."""
    p, s = cars[pgs].params, cars[pgs].state
    begin_position, begin_orientation = s.body_position.copy(), s.body_orientation.copy()
    s.linear_velocity[:, 0], s.angular_velocity[:, 0] = velocity, 0.0
    solve_vehicle_constraints(p, s, rows, DT, begin_position, begin_orientation)
    moved = s.body_position[:, 0] - begin_position[:, 0]
    s.body_position, s.body_orientation = begin_position, begin_orientation
    return s.linear_velocity[:, 0].copy(), moved


def test_a_sticky_row_damps_as_each_solver_does(cars):
    """PGS: an acceleration spring of damping c over the whole step, a = c dt, converges on v / (1 + a) in its first
    sweep and holds it (its impulse multiplier), in the velocity iteration too. TGS: (1 + c dt / n)^-n over the n
    position iterations, nothing in the velocity iterations."""
    c, v0 = 40.0, 1.0
    n = int(cars[True].params.position_iterations[0])
    pgs, moved_pgs = _solve(cars, True, _one_row(False, 0.0, c), (v0, 0.0, 0.0))
    tgs, _ = _solve(cars, False, _one_row(False, 0.0, c), (v0, 0.0, 0.0))
    assert pgs[0] == pytest.approx(v0 / (1.0 + c * DT), rel=1e-9)
    assert moved_pgs[0] == pytest.approx(v0 / (1.0 + c * DT) * DT, rel=1e-9)
    assert tgs[0] == pytest.approx(v0 * (1.0 + c * DT / n) ** -n, rel=1e-9)
    assert abs(pgs[0] - tgs[0]) > 1e-3


def test_a_suspension_limit_row_is_resolved_whole_under_pgs_and_by_sub_steps_under_tgs(cars):
    """A wheel 0.15 m past full compression, the car at rest. PGS: the position iterations drive J v to the whole
    separation / dt (Baumgarte factor 1, no cap), the pose moves by it, the velocity iteration takes it back. TGS:
    each of the n position iterations closes sqrt(n) / n of what is left (0.1485 m of 0.15 with 16)."""
    separation = -0.15
    n = int(cars[True].params.position_iterations[0])
    pgs, moved_pgs = _solve(cars, True, _one_row(True, separation, 0.0), (0.0, 0.0, 0.0))
    tgs, moved_tgs = _solve(cars, False, _one_row(True, separation, 0.0), (0.0, 0.0, 0.0))
    assert moved_pgs[2] == pytest.approx(-separation, rel=1e-9)
    assert moved_tgs[2] == pytest.approx(-separation * (1.0 - (1.0 - np.sqrt(n) / n) ** n), rel=1e-9)
    assert np.abs(pgs).max() < 1e-12 and np.abs(tgs).max() < 1e-12
