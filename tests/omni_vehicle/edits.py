"""Stage edits NVIDIA's tests make to a factory car, as functions a harness Entry applies after building
(Entry.edit). Every car of a Fleet carries its own components (Options.shared=False), so an edit touches one car."""
from __future__ import annotations

from typing import Any, Callable, Sequence

from factory import GRAVEL, TARMAC, Car
from pxr import Usd, UsdPhysics, UsdShade
from stage_factory import set_property, set_targets

from physxvehicle_usd import properties as P

Edit = Callable[[Usd.Stage, Car], None]


def chain(*edits: Edit) -> Edit:
    def apply(stage: Usd.Stage, car: Car) -> None:
        for edit in edits:
            edit(stage, car)
    return apply


def on_vehicle(schema: str, base: str, value: Any, instance: str | None = None) -> Edit:
    return lambda stage, car: set_property(stage.GetPrimAtPath(car.path), schema, base, value, instance)


def on_wheels(schema: str, base: str, value: Any, wheels: Sequence[int] = (0, 1, 2, 3)) -> Edit:
    def apply(stage: Usd.Stage, car: Car) -> None:
        for i in wheels:
            set_property(stage.GetPrimAtPath(car.wheels[i]), schema, base, value)
    return apply


def mass(value: float) -> Edit:
    return lambda stage, car: UsdPhysics.MassAPI(stage.GetPrimAtPath(car.path)).GetMassAttr().Set(value)


def own_friction_table(values: Sequence[float], materials: Sequence[str] = (TARMAC, GRAVEL),
                       default: float | None = None) -> Edit:
    """A tire friction table of the car's own (/World/<car>Table) that every one of its tires names."""
    def apply(stage: Usd.Stage, car: Car) -> None:
        for material in materials:
            if not stage.GetPrimAtPath(material):  # a new material, with the factory's tarmac values
                UsdShade.Material.Define(stage, material)
                api = UsdPhysics.MaterialAPI.Apply(stage.GetPrimAtPath(material))
                api.CreateStaticFrictionAttr(0.9)
                api.CreateDynamicFrictionAttr(0.7)
                api.CreateRestitutionAttr(0.0)
        path = f"{car.path}Table"
        table = stage.DefinePrim(path, P.TABLE)
        set_targets(table, P.TABLE, "groundMaterials", list(materials))
        set_property(table, P.TABLE, "frictionValues", list(values))
        if default is not None:
            set_property(table, P.TABLE, "defaultFrictionValue", default)
        for wheel in car.wheels:
            set_targets(stage.GetPrimAtPath(wheel), P.TIRE, "frictionTable", [path])
    return apply
