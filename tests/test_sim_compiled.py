"""The compiled substeps (sim/_substeps.c) against the numpy kernels they stand in for.

The kernel does the numpy kernels' arithmetic in the same order, in float32, without fused multiply-adds;
only atan, tan, cos and asin are its own (within 3 ulp), and it flushes denormals as PhysX does. Vehicles
that are driven, steered and braked agree with the numpy path to the bit on most steps, and within 2e-3 of
each quantity's scale where a launch or a stop amplifies a last-bit difference; the conformance suite holds
both to PhysX. Where the kernel is not built (no C compiler) its tests skip; .ci/run requires it.
"""
from __future__ import annotations

import copy
from pathlib import Path

import numpy as np
import pytest
from conftest import needs_kernel
from stage_factory import add_copies, author, car_spec, preset_stage, set_velocity, translate

from physxvehicle_usd import properties as P
from physxvehicle_usd import simulate
from physxvehicle_usd.read import read_stage
from physxvehicle_usd.sim import Simulator, compiled
from physxvehicle_usd.sim.pipeline import StepOptions

SAMPLES = Path(__file__).resolve().parent.parent / "samples"
DT = 1.0 / 60.0


def drive(sim: Simulator, steps: int) -> list[dict]:
    """Full throttle, a steer from step 60, braking from step 150; telemetry after every step.

    Vehicles without a drive get the same as wheel torques (N m) and a steer angle on every wheel."""
    V, W = sim.params.V, sim.params.W
    trace = []
    for i in range(steps):
        braking, steering = i >= 150, i >= 60
        sim.step({"accelerator": np.full(V, 0.0 if braking else 1.0), "steer": np.full(V, 0.4 if steering else 0.0),
                  "brake0": np.full(V, 1.0 if braking else 0.0), "driveTorque": np.full((V, W), 0.0 if braking else 2.0),
                  "brakeTorque": np.full((V, W), 5.0 if braking else 0.0),
                  "steerAngle": np.full((V, W), 0.2 if steering else 0.0)})
        trace.append(sim.telemetry())
    return trace


def assert_same_run(description_or_loaded, steps: int = 200):
    """Step the batch with numpy and with the kernel, and compare every telemetry value relative to its scale over
    the run: most steps agree to the bit (median deviation <= 1e-5, integrated angles included); the worst, in
    launch and braking transients where a last-bit difference in a slip is amplified, within 2e-3 (float32
    numpy against float64 numpy differ by up to 0.3 there)."""
    if isinstance(description_or_loaded, simulate.LoadedSimulation):
        base = description_or_loaded.simulator
        make = lambda opt: Simulator(base.batch, base.ground, DT, options=opt)  # noqa: E731
    else:
        make = lambda opt: Simulator.from_description(copy.deepcopy(description_or_loaded), DT, options=opt)  # noqa: E731
    reference, kernel = make(StepOptions(compiled=False)), make(StepOptions())
    assert kernel.options.compiled and compiled.covers(kernel.params), "the kernel should cover this batch"
    assert not reference.options.compiled
    ours, theirs = drive(kernel, steps), drive(reference, steps)
    for kind in ("vehicles", "wheels", "bodies"):
        for name in ours[0][kind]:
            a = np.array([t[kind][name] for t in ours], dtype=float)
            b = np.array([t[kind][name] for t in theirs], dtype=float)
            deviation = np.abs(a - b) / max(float(np.abs(b).max()), 1e-3)
            assert deviation.max() <= 2e-3, (kind, name, deviation.max(), np.unravel_index(deviation.argmax(), a.shape))
            assert np.median(deviation) <= 1e-5, (kind, name, np.median(deviation))
    speed = np.linalg.norm(np.array([t["bodies"]["linearVelocity"] for t in ours]), axis=-1)
    assert speed.max() > 1.0  # the vehicles really drove


@needs_kernel
@pytest.mark.parametrize("sample", ["car/drive_cycle.usda", "basic_car/basic_car.usda", "truck/truck.usda",
                                    "robot_base/robot_base.usda", "car_cm/car_cm.usda"])
def test_samples_step_alike_with_the_kernel_and_with_numpy(sample):
    assert_same_run(simulate.load(SAMPLES / sample, DT))


def _variant(**vehicle):
    stage = preset_stage(car_spec("standard"))
    for base, value in vehicle.items():
        author(stage, "/World/Car", P.VEHICLE, base, value)
    return read_stage(stage)


@needs_kernel
@pytest.mark.parametrize("vehicle", [{"suspensionLineQueryType": "sweep"}, {"limitSuspensionExpansionVelocity": True}],
                         ids=["sweep", "limit-expansion"])
def test_vehicle_options_step_alike(vehicle):
    assert_same_run(_variant(**vehicle))


@needs_kernel
def test_camber_stiffness_steps_alike():
    stage = preset_stage(car_spec("standard"))
    for tire in {wheel.tire.path: wheel.tire for wheel in read_stage(stage).vehicles["/World/Car"].wheels}.values():
        author(stage, tire.path, P.TIRE, "camberStiffness", 0.5 * tire["restLoad"])
    assert_same_run(read_stage(stage))


@needs_kernel
def test_mixed_drives_and_substep_counts_in_one_batch_step_alike():
    # one car starts above the substep threshold speed: it takes fewer substeps than the others in a step
    stage = preset_stage(car_spec("standard", "A"), car_spec("basic", "B"), car_spec("none", "C"))
    set_velocity(stage, "/World/B", (0.0, 0.0, 8.0))
    translate(stage, "/World/B", (5.0, 0.0, 0.0))
    translate(stage, "/World/C", (-5.0, 0.0, 0.0))
    description = read_stage(stage)
    sim = Simulator.from_description(copy.deepcopy(description), DT)
    assert len(set(sim.params.low_speed_substeps.tolist() + sim.params.high_speed_substeps.tolist())) > 1
    assert_same_run(description)


@needs_kernel
def test_kernel_threads_give_bit_identical_results():
    stage = preset_stage(car_spec("standard", "Car0"))  # and 149 copies by reference, side by side
    for i, path in enumerate(add_copies(stage, "/World/Car0", [f"/World/Car{i}" for i in range(1, 150)]), start=1):
        translate(stage, path, (4.0 * i, 0.0, 0.0))
        set_velocity(stage, path, (0.0, 0.0, float(i % 7)))
    description = read_stage(stage)
    sims = {threads: Simulator.from_description(copy.deepcopy(description), DT, threads=threads) for threads in (1, 2, 3)}
    assert sims[3].threads == 3 and sims[3].options.kernel_threads == 3
    runs = {threads: drive(sim, 40)[-1] for threads, sim in sims.items()}
    for threads in (2, 3):
        for kind, values in runs[1].items():
            for name, value in values.items():
                assert np.array_equal(value, runs[threads][kind][name]), (threads, kind, name)


@needs_kernel  # without it no batch is covered, and this would hold whatever covers() said
def test_batches_the_kernel_does_not_cover_run_numpy():
    tank = simulate.load(SAMPLES / "tank" / "tank.usda", DT).simulator
    assert not compiled.covers(tank.params)
    assert not tank.options.compiled
    f64 = Simulator(tank.batch, tank.ground, DT, dtype=np.float64)
    assert not compiled.covers(f64.params)


@needs_kernel
def test_the_kernel_reports_what_the_numpy_substeps_report():
    # the per-step outputs the end of the step and telemetry() read: the same keys, shapes and types either way
    description = read_stage(preset_stage(car_spec("standard")))
    kernel, reference = (Simulator.from_description(copy.deepcopy(description), DT, options=StepOptions(compiled=flag))
                         for flag in (True, False))
    for sim in (kernel, reference):
        sim.step({"accelerator": 1.0})
    assert kernel.options.compiled and not reference.options.compiled
    assert {k: (v.shape, v.dtype) for k, v in kernel.state.out.items()} == \
        {k: (v.shape, v.dtype) for k, v in reference.state.out.items()}
