"""Runtime structs PhysX builds vehicles from.

PhysX 3.4 (the seeds' API): `physx34_engine` (PxVehicleEngineData and its torque-curve lookup table),
`physx34_tire` (PxVehicleTireData and its friction-vs-slip graph), `physx34_friction`
(PxVehicleDrivableSurfaceToTireFrictionPairs) and `physx34_convert` (stage description <-> 3.4 structs).
"""
from __future__ import annotations

from .physx34_convert import (
    FrictionTablesAsPairs,
    Physx34ConversionError,
    Physx34Setup,
    Physx34Vehicle,
    Physx34Wheel,
    description_from_physx34,
    description_from_physx34_setup,
    engine_block_from_data,
    engine_data_from_block,
    friction_pairs_from_tables,
    friction_tables_from_pairs,
    physx34_from_description,
    tire_block_from_data,
    tire_data_from_block,
)
from .physx34_engine import (
    MAX_TORQUE_CURVE_POINTS,
    EngineData,
    FixedSizeLookupTable,
    TorqueCurve,
    engine_damping_rate,
)
from .physx34_friction import (
    MAX_SURFACE_TYPES,
    SURFACE_TYPE_UNKNOWN,
    DrivableSurfaceToTireFrictionPairs,
    FrictionPairs,
    FrictionPairsSnapshot,
)
from .physx34_tire import TireData, tire_friction_multiplier

__all__ = [
    "MAX_SURFACE_TYPES",
    "MAX_TORQUE_CURVE_POINTS",
    "SURFACE_TYPE_UNKNOWN",
    "DrivableSurfaceToTireFrictionPairs",
    "EngineData",
    "FixedSizeLookupTable",
    "FrictionPairs",
    "FrictionPairsSnapshot",
    "FrictionTablesAsPairs",
    "Physx34ConversionError",
    "Physx34Setup",
    "Physx34Vehicle",
    "Physx34Wheel",
    "TireData",
    "TorqueCurve",
    "description_from_physx34",
    "description_from_physx34_setup",
    "engine_block_from_data",
    "engine_damping_rate",
    "engine_data_from_block",
    "friction_pairs_from_tables",
    "friction_tables_from_pairs",
    "physx34_from_description",
    "tire_block_from_data",
    "tire_data_from_block",
    "tire_friction_multiplier",
]
