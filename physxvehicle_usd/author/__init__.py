"""Authoring whole vehicles: presets scaled like Omniverse's vehicle wizard, in any stage units.

    from physxvehicle_usd.author import preset_spec, author_vehicle, save_vehicle
    spec = preset_spec("truck", mass=9000)
    save_vehicle(spec, "truck.usda", units="cm", up="Y")

`describe_vehicle(spec, units, up)` gives the stage description (and collider geometry) without a stage.
"""
from .build import author_vehicle, save_vehicle
from .describe import UNITS, describe_vehicle
from .presets import PRESETS, preset_spec
from .spec import VehicleSpec

__all__ = ["PRESETS", "UNITS", "VehicleSpec", "author_vehicle", "describe_vehicle", "preset_spec", "save_vehicle"]
