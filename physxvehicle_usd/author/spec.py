"""What a vehicle to author is made of, in SI units, before the wizard rules fill in the details.

A VehicleSpec holds the choices the vehicle wizard asks for (size, mass, axles, tires, drive, steering);
`wizard.py` derives every physical parameter from them, `describe.py` turns the result into a stage
description in any stage units.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace

from ..errors import InputError
from . import wizard

DRIVES = ("standard", "basic", "none")
MAX_WHEELS = 20


@dataclass(frozen=True)
class VehicleSpec:
    name: str = "Vehicle"                 # prim name of the vehicle under /World
    drive: str = "standard"               # standard | basic | none
    tank: bool = False                    # standard drive with a tank differential and tank controller
    chassis_length: float = wizard.REF_CHASSIS_LENGTH   # m
    chassis_width: float = wizard.REF_CHASSIS_WIDTH     # m
    chassis_height: float = wizard.REF_CHASSIS_HEIGHT   # m
    mass: float | None = None             # kg; None: the wizard's chassis density times the chassis volume
    axles: int = 2
    wheel_radius: float | None = None     # m; None: scaled with the chassis length
    wheel_width: float | None = None      # m; None: scaled with the radius
    wheel_mass: float | None = None       # kg; None: the wizard's wheel density times the wheel volume
    max_steer_deg: float | None = None    # steering of the first axle; None: 30 with a drive, 0 without or for tanks
    ackermann: bool = False               # Ackermann correction on the first axle (needs 2+ axles)
    driven_axles: tuple[int, ...] | None = None  # None: the first axle, or all axles for tanks
    gears: int = 5                        # forward gears (standard drive)
    damping_ratio: float = 0.3            # suspension damping ratio, every axle
    tire_friction: float = 0.75           # tire friction on the ground material (the wizard's summer tire)
    sub_step_floor: tuple[int, int] = (3, 1)  # least (low, high) forward-speed sub-step counts
    doc: str = ""

    # -- resolved choices -------------------------------------------------------------------------------
    @property
    def wheel_count(self) -> int:
        return 2 * self.axles

    @property
    def resolved_mass(self) -> float:
        if self.mass is not None:
            return self.mass
        return wizard.chassis_mass(self.chassis_length, self.chassis_width, self.chassis_height)

    @property
    def resolved_wheel_radius(self) -> float:
        return self.wheel_radius if self.wheel_radius is not None else wizard.wheel_radius(self.chassis_length)

    @property
    def resolved_wheel_width(self) -> float:
        return self.wheel_width if self.wheel_width is not None else wizard.wheel_width(self.resolved_wheel_radius)

    @property
    def resolved_wheel_mass(self) -> float:
        if self.wheel_mass is not None:
            return self.wheel_mass
        return wizard.wheel_mass(self.resolved_wheel_radius, self.resolved_wheel_width)

    @property
    def resolved_steer_deg(self) -> float:
        if self.max_steer_deg is not None:
            return self.max_steer_deg
        return 0.0 if (self.tank or self.drive == "none") else 30.0

    @property
    def resolved_driven_axles(self) -> tuple[int, ...]:
        if self.drive == "none":
            return ()
        if self.tank:
            return tuple(range(self.axles))
        return self.driven_axles if self.driven_axles is not None else (0,)

    def with_changes(self, **changes) -> "VehicleSpec":
        return replace(self, **{k: v for k, v in changes.items() if v is not None})

    def check(self) -> None:
        """Raise InputError for choices no vehicle can be built from."""
        problems = []
        if self.drive not in DRIVES:
            problems.append(f"drive must be one of {', '.join(DRIVES)}, not {self.drive!r}")
        if self.tank and self.drive != "standard":
            problems.append("a tank needs the standard drive")
        if not 1 <= self.axles <= MAX_WHEELS // 2:
            problems.append(f"wheels must be an even number from 2 to {MAX_WHEELS} (got {self.wheel_count})")
        if self.tank and self.axles < 2:
            problems.append("a tank needs at least 4 wheels")
        for name in ("chassis_length", "chassis_width", "chassis_height"):
            if not getattr(self, name) > 0:
                problems.append(f"{name.replace('_', ' ')} must be positive")
        if not self.resolved_mass > 0:
            problems.append(f"mass must be positive (got {self.resolved_mass:g} kg)")
        for name in ("wheel_radius", "wheel_width", "wheel_mass"):
            value = getattr(self, name)
            if value is not None and not value > 0:
                problems.append(f"{name.replace('_', ' ')} must be positive")
        if self.resolved_wheel_radius * 4.0 > self.chassis_length and self.axles > 1:
            problems.append("the wheels are too large for the chassis length (radius over a quarter of it)")
        if not 0.0 <= self.resolved_steer_deg < 90.0:
            problems.append("the maximum steer angle must lie in [0, 90) degrees")
        if self.ackermann and self.axles < 2:
            problems.append("Ackermann steering needs at least two axles")
        if any(not 0 <= a < self.axles for a in self.resolved_driven_axles):
            problems.append(f"driven axles {self.resolved_driven_axles} do not fit {self.axles} axles")
        if self.drive == "standard" and not 1 <= self.gears <= 30:
            problems.append("gears must be between 1 and 30")
        if not self.damping_ratio > 0:
            problems.append("the damping ratio must be positive")
        if problems:
            raise InputError("; ".join(problems))


@dataclass(frozen=True)
class Preset:
    name: str
    summary: str
    spec: VehicleSpec
    extra: dict = field(default_factory=dict)
