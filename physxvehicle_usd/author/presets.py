"""Ready-made vehicles, each a VehicleSpec that the wizard rules scale to the mass and size asked for.

Sizes are typical of the kind of vehicle; masses follow from the wizard's chassis density unless stated.
`preset_spec("truck", mass=9000, wheels=8)` gives the truck with those changes applied.
"""
from __future__ import annotations

from ..errors import InputError
from .spec import Preset, VehicleSpec

PRESETS: dict[str, Preset] = {
    p.name: p
    for p in (
        Preset("car", "passenger car: standard drive, automatic gearbox, front-wheel drive, Ackermann steering",
               VehicleSpec(name="Car", drive="standard", ackermann=True, mass=1800.0,
                           doc="Passenger car: standard drive (engine, five gears, automatic gearbox, clutch), "
                               "front-wheel drive, Ackermann steering on the front axle.")),
        Preset("basic_car", "car with a basic drive (torque straight to the driven wheels) and plain steering",
               VehicleSpec(name="BasicCar", drive="basic", mass=1800.0,
                           doc="Car with a basic drive: the accelerator scales one peak torque shared by the "
                               "driven front wheels; plain steering on the front axle.")),
        Preset("truck", "six-wheel truck: standard drive on the two rear axles, Ackermann steering in front",
               VehicleSpec(name="Truck", drive="standard", axles=3, chassis_length=7.5, chassis_width=2.5,
                           chassis_height=1.6, mass=7500.0, wheel_radius=0.5, driven_axles=(1, 2), ackermann=True,
                           max_steer_deg=35.0,
                           doc="Six-wheel truck: standard drive on the two rear axles, Ackermann steering "
                               "on the front axle.")),
        Preset("tank", "wheeled tank: standard drive, tank differential and tank controller, skid steering",
               VehicleSpec(name="Tank", drive="standard", tank=True, axles=4, chassis_length=6.0, chassis_width=3.0,
                           chassis_height=1.5, mass=8000.0, wheel_radius=0.45,
                           doc="Wheeled tank: standard drive through a tank differential; thrust0 drives the "
                               "left track, thrust1 the right; brakes0 brakes the left track, brakes1 the right.")),
        Preset("robot_base", "raw wheel-controlled robot base: no drive, torques and steer angles per wheel",
               VehicleSpec(name="RobotBase", drive="none", chassis_length=0.7, chassis_width=0.5,
                           chassis_height=0.2, mass=25.0, wheel_radius=0.08, wheel_width=0.04, wheel_mass=0.6,
                           doc="Robot base without a drive: each wheel takes its own drive torque, brake torque "
                               "and steer angle through PhysxVehicleWheelControllerAPI.")),
    )
}


def preset_spec(preset: str, *, mass: float | None = None, wheels: int | None = None, **changes) -> VehicleSpec:
    """The preset's spec with the asked-for changes; the result is checked (InputError when unusable)."""
    if preset not in PRESETS:
        raise InputError(f"unknown preset {preset!r}; choose one of {', '.join(PRESETS)}")
    if wheels is not None and (wheels < 2 or wheels % 2):
        raise InputError(f"wheels must be an even number of at least 2 (got {wheels})")
    spec = PRESETS[preset].spec.with_changes(mass=mass, axles=None if wheels is None else wheels // 2, **changes)
    if wheels is not None and spec.driven_axles is not None:
        # keep "the rear axles" meaning the rear axles when the axle count changes
        base = PRESETS[preset].spec
        rear = [a for a in base.driven_axles if a > 0]
        if rear and len(rear) == base.axles - 1:
            spec = spec.with_changes(driven_axles=tuple(range(1, spec.axles)))
        else:
            spec = spec.with_changes(driven_axles=tuple(a for a in base.driven_axles if a < spec.axles) or (0,))
    spec.check()
    return spec
