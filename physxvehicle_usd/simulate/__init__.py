"""Simulate the vehicles of a stage: read it, build the numpy simulator, drive it, collect what was asked for.

    from physxvehicle_usd import simulate
    result = simulate.run("samples/car/car.usda", steps=300, dt=1 / 60)          # the stage's own controls
    result = simulate.run(stage, 300, 1 / 60, controls={"accelerator": np.linspace(0, 1, 300)})
    result = simulate.run(stage, 300, 1 / 60, controls=lambda step, sim: {"steer": policy(sim.telemetry())})
    result.trace        # {"dt", "steps", "vehicles": {path: {attr: [...]}}, "wheels": {...}, "bodies": {...}}

Where the controls come from, in the order they are applied before each step (later wins):
1. the controller attributes authored in the stage (PhysxVehicleControllerAPI, PhysxVehicleTankControllerAPI,
   PhysxVehicleWheelControllerAPI): their values set the simulator's initial commands;
2. time samples on those attributes (a drive cycle): step i (counting from 0) uses the value at stage time
   startTimeCode + i * dt * timeCodesPerSecond, i.e. the stage time at which the step begins, interpolated
   as the stage says (targetGear is always held);
3. the caller's `controls`: scalars (held for the whole run), arrays with one row per step (shape (steps,),
   (steps, vehicles) or (steps, vehicles, wheels)), or a callable `controls(step, simulator)` returning the
   controls of that step (or None). Names are the Simulator's (accelerator, brake0, brake1, steer, targetGear,
   thrust0, thrust1, driveTorque, brakeTorque, steerAngle); vehicles are in `result.paths` order.

For a hand-written reinforcement-learning loop, `load()` returns the simulator and the drive cycle without
stepping: call `loaded.simulator.step(controls)` yourself, and `loaded.reset()` between episodes. `run()` also
accepts a loaded simulation and goes on from its current state.
"""
from __future__ import annotations

from .drive_cycle import DriveCycle, drive_cycle
from .result import (
                     TELEMETRY_FOR,
                     LoadedSimulation,
                     SimulationResult,
                     VehicleSummary,
                     forward_speeds,
                     rotate_xyzw,
                     text_summary,
                     trace_from_arrays,
)
from .run import ControlsArg, NoVehicleError, load, problem_lines, run

__all__ = ["ControlsArg", "DriveCycle", "LoadedSimulation", "NoVehicleError", "SimulationResult", "TELEMETRY_FOR",
           "VehicleSummary", "drive_cycle", "forward_speeds", "load", "problem_lines", "rotate_xyzw", "run", "text_summary",
           "trace_from_arrays"]
