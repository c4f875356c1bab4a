"""PhysX's contacts of one body with one collider, step by step, as ovphysx's contact binding reports them: each
contact's point, normal, separation and normal force in the order PhysX's solver met them, and each friction anchor
with its friction force. For checking the contact points sim/contact/ makes against PhysX's (same stage, same
steps). The stage is copied to a temporary file with PhysxContactReportAPI applied to the body (the binding needs it).

    python3 tools/physx_contacts.py STAGE BODY COLLIDER --from 40 --to 43
    python3 tools/physx_contacts.py STAGE /World/Push2A /World/Push2B/ChassisCollision --from 47 --to 49 \
        --control /World/Push2A accelerator 0.5

COLLIDER may be another vehicle's shape (contacts between vehicles: the body's shape is shape 0 of the report);
--control holds a vehicle control (oracle/worker.py's writable ones) for the whole run, as the conformance tests do.

Steps count from 1 (the state after the first simulated step). Needs ovphysx (the `test` extra).

Where a shape pair's contacts make two patches, the friction reported can miss one: WheelsRolling's front right
cylinder on the road's diagonal (a point on its rim, normal tilted 20-45 degrees, beside three flat ones) shows
0 N at that point's anchor under 4-16 kN of normal force, while the chassis's momentum over the step shows a
friction of 0.60-0.63 times that force applied along the car.
"""
from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

CAPACITY = 64  # contacts (and anchors) read per step
DT = 1.0 / 60.0


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("stage")
    parser.add_argument("body", help="the rigid body's prim path (the vehicle)")
    parser.add_argument("collider", help="the other collider's prim path")
    parser.add_argument("--from", dest="first", type=int, default=1, help="first step to print")
    parser.add_argument("--to", dest="last", type=int, default=None, help="last step to print (default: --from)")
    parser.add_argument("--dt", type=float, default=DT)
    parser.add_argument("--control", nargs=3, action="append", default=[], metavar=("VEHICLE", "NAME", "VALUE"),
                        help="a vehicle control held for the whole run (repeatable)")
    args = parser.parse_args(argv)
    from ovphysx import PhysX
    from ovphysx.types import SimObjectType
    from pxr import Sdf, Usd

    from physxvehicle_usd.oracle.worker import ControlWriter, _open_stage, _release

    stage = Usd.Stage.Open(args.stage)
    body = stage.GetPrimAtPath(args.body)
    if not body:
        print(f"{args.stage}: no prim at {args.body}", file=sys.stderr)
        return 2
    body.AddAppliedSchema("PhysxContactReportAPI")
    body.CreateAttribute("physxContactReport:threshold", Sdf.ValueTypeNames.Float).Set(0.0)
    last = args.last if args.last is not None else args.first
    with tempfile.TemporaryDirectory() as folder:
        copy = Path(folder) / "reported.usda"
        stage.GetRootLayer().Export(str(copy))
        PhysX.set_cpu_mode(True)
        physx = PhysX()
        opened = _open_stage(physx, str(copy))
        physx.wait_all()
        binding = physx.create_contact_binding(sensor_patterns=[args.body], filter_patterns=[args.collider],
                                               filters_per_sensor=1, max_contact_data_count=CAPACITY)
        controls: dict[str, dict[str, float]] = {}
        for vehicle, name, value in args.control:
            controls.setdefault(vehicle, {})[name] = float(value)
        writer = ControlWriter(physx, SimObjectType, sorted(controls), [], controls, last)
        try:
            for step in range(1, last + 1):
                writer.before_step(step - 1)
                physx.step_sync(args.dt)
                if step >= args.first:
                    _print_step(binding, step)
        finally:
            writer.close()
            binding.destroy()
            _release(physx, opened)
    return 0


def _print_step(binding, step: int) -> None:
    force = np.zeros((CAPACITY, 1), np.float32)
    point, normal = np.zeros((CAPACITY, 3), np.float32), np.zeros((CAPACITY, 3), np.float32)
    separation = np.zeros((CAPACITY, 1), np.float32)
    count, start = np.zeros((1, 1), np.int32), np.zeros((1, 1), np.int32)
    total = binding.read_normal_contact_data(force, point, normal, separation, count, start)
    print(f"step {step}: {total} contacts")
    for k in range(int(start[0, 0]), int(start[0, 0] + count[0, 0])):
        print(f"  point {np.round(point[k], 6)} normal {np.round(normal[k], 6)} separation {separation[k, 0]:+.7f} "
              f"normal force {force[k, 0]:.1f}")
    friction, anchor = np.zeros((CAPACITY, 3), np.float32), np.zeros((CAPACITY, 3), np.float32)
    binding.read_friction_contact_data(friction, anchor, count, start)
    for k in range(int(start[0, 0]), int(start[0, 0] + count[0, 0])):
        print(f"  anchor {np.round(anchor[k], 4)} friction force {np.round(friction[k], 1)}")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
