"""Conversion between the stage description (JSON-shaped dicts, see docs/description-layout.md) and the PhysX 3.4 structs.

Works on the plain dicts of the JSON form (`StageDescription.to_json()`, what `convert` prints), so it does not
depend on the description's dataclasses and takes a JSON file's contents as they are. Values keep the units they
have (PhysX has no unit system); gravity must be given in the same units.

Mapping (description block -> 3.4 struct):
- engine: torqueCurve -> torque_curve, moi, peakTorque -> peak_torque, maxRotationSpeed -> max_omega, the three
  damping rates. idleRotationSpeed has no 3.4 field: it is dropped going in and given back as a parameter going out.
- tire: lateralStiffnessGraph (x, y) -> lat_stiff_x = x, lat_stiff_y = y / restLoad;
  longitudinalStiffness -> longitudinal_stiffness_per_unit_gravity = longitudinalStiffness / |g|;
  camberStiffness -> camber_stiffness_per_unit_gravity = camberStiffness / |g|; frictionVsSlipGraph copied;
  frictionTable -> type (the tire type of its table).
- tireFrictionTables -> friction pairs: tire type 0 is the built-in default table (tires without a usable table:
  friction 1.0 on everything), then one tire type per table in path order; surface type 0 is "any other material"
  (each table's defaultFrictionValue), then one surface type per ground material of any table, in path order. A table
  listing a material twice uses the first entry, as the USD runtime does.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence

from pydantic import BaseModel, ConfigDict, Field

from .physx34_engine import MAX_TORQUE_CURVE_POINTS, EngineData, TorqueCurve
from .physx34_friction import (
    MAX_SURFACE_TYPES,
    DrivableSurfaceToTireFrictionPairs,
    FrictionPairsSnapshot,
)
from .physx34_tire import TireData

BUILTIN_DEFAULT_TIRE_TYPE = 0
UNKNOWN_MATERIAL_SURFACE_TYPE = 0
BUILTIN_DEFAULT_FRICTION = 1.0


class Physx34ConversionError(ValueError):
    """A description block that cannot become a 3.4 struct (or back); the message names the block."""


# Engine ---------------------------------------------------------------------------------------------------------------
ENGINE_FIELDS = (  # (description key, EngineData field)
    ("moi", "moi"),
    ("peakTorque", "peak_torque"),
    ("maxRotationSpeed", "max_omega"),
    ("dampingRateFullThrottle", "damping_rate_full_throttle"),
    ("dampingRateZeroThrottleClutchEngaged", "damping_rate_zero_throttle_clutch_engaged"),
    ("dampingRateZeroThrottleClutchDisengaged", "damping_rate_zero_throttle_clutch_disengaged"),
)


def engine_data_from_block(engine: Mapping, where: str = "engine") -> EngineData:
    """EngineData from a description engine block (resolved values, no sentinels)."""
    values = {field: _number(engine, key, where) for key, field in ENGINE_FIELDS}
    curve = _value(engine, "torqueCurve")
    if curve is None:
        raise Physx34ConversionError(f"{where}: torqueCurve is missing")
    curve = [_pair(point, f"{where}.torqueCurve[{i}]") for i, point in enumerate(curve)]
    if len(curve) > MAX_TORQUE_CURVE_POINTS:
        raise Physx34ConversionError(
            f"{where}: torqueCurve has {len(curve)} points; PhysX 3.4 holds at most {MAX_TORQUE_CURVE_POINTS}"
        )
    return EngineData(torque_curve=TorqueCurve(points=curve), **values)


def engine_block_from_data(engine: EngineData, idle_rotation_speed: float = 0.0) -> dict:
    """A description engine block from EngineData; idleRotationSpeed (not part of 3.4) is the value given."""
    block = {key: getattr(engine, field) for key, field in ENGINE_FIELDS}
    block["torqueCurve"] = [list(point) for point in engine.torque_curve.points]
    block["idleRotationSpeed"] = float(idle_rotation_speed)
    return block


# Tire -----------------------------------------------------------------------------------------------------------------
def tire_data_from_block(tire: Mapping, gravity_magnitude: float, tire_type: int = 0, where: str = "tire") -> TireData:
    """TireData from a description tire block, with |g| of the vehicle's scene and the tire type to give it."""
    g = _positive(gravity_magnitude, f"{where}: gravity magnitude")
    rest_load = _positive(_number(tire, "restLoad", where), f"{where}: restLoad")
    lat_x, lat_y = _pair(_value(tire, "lateralStiffnessGraph"), f"{where}.lateralStiffnessGraph")
    graph = _value(tire, "frictionVsSlipGraph")
    if graph is None or len(graph) != 3:
        raise Physx34ConversionError(f"{where}: frictionVsSlipGraph must have exactly 3 points, got {graph!r}")
    return TireData(
        lat_stiff_x=lat_x,
        lat_stiff_y=lat_y / rest_load,
        longitudinal_stiffness_per_unit_gravity=_number(tire, "longitudinalStiffness", where) / g,
        camber_stiffness_per_unit_gravity=_number(tire, "camberStiffness", where) / g,
        friction_vs_slip_graph=tuple(_pair(p, f"{where}.frictionVsSlipGraph[{i}]") for i, p in enumerate(graph)),
        type=tire_type,
    )


def tire_block_from_data(
    tire: TireData, rest_load: float, gravity_magnitude: float, friction_table: str | None = None
) -> dict:
    """A description tire block from TireData, the tire's rest load (force) and |g|."""
    g = _positive(gravity_magnitude, "gravity magnitude")
    rest_load = _positive(rest_load, "restLoad")
    return {
        "lateralStiffnessGraph": [tire.lat_stiff_x, tire.lat_stiff_y * rest_load],
        "longitudinalStiffness": tire.longitudinal_stiffness_per_unit_gravity * g,
        "camberStiffness": tire.camber_stiffness_per_unit_gravity * g,
        "frictionVsSlipGraph": [list(point) for point in tire.friction_vs_slip_graph],
        "frictionTable": friction_table,
        "restLoad": rest_load,
    }


# Friction tables <-> pairs ------------------------------------------------------------------------------------------
class FrictionTablesAsPairs(BaseModel):
    """Friction pairs built from the description's tire friction tables, with the index maps to read them."""

    model_config = ConfigDict(frozen=True, arbitrary_types_allowed=True)

    pairs: DrivableSurfaceToTireFrictionPairs = Field(exclude=True)
    table_paths: list[str | None] = Field(
        description="Friction table of each tire type (index = tire type); null: the built-in default table.",
        json_schema_extra={"unit": "path"},
    )
    ground_materials: list[str | None] = Field(
        description="Ground material of each surface type (index = surface type); null: any other material.",
        json_schema_extra={"unit": "path"},
    )

    def tire_type_of_table(self, table_path: str | None) -> int:
        """The tire type of a friction table path; the built-in default for None or a table that is not there."""
        if table_path is None:
            return BUILTIN_DEFAULT_TIRE_TYPE
        try:
            return self.table_paths.index(table_path)
        except ValueError:
            return BUILTIN_DEFAULT_TIRE_TYPE


def friction_pairs_from_tables(tables: Mapping[str, Mapping]) -> FrictionTablesAsPairs:
    """Friction pairs equivalent to the description's tireFrictionTables (see the module notes for the layout)."""
    table_paths = sorted(tables)
    material_values: dict[str, dict[str, float]] = {}
    defaults: dict[str, float] = {}
    for path in table_paths:
        table = tables[path]
        where = f"tireFrictionTables[{path}]"
        materials = [str(m) for m in _value(table, "groundMaterials") or []]
        values = [float(v) for v in _value(table, "frictionValues") or []]
        if len(values) != len(materials):
            raise Physx34ConversionError(
                f"{where}: {len(materials)} groundMaterials but {len(values)} frictionValues"
            )
        first_entry: dict[str, float] = {}
        for material, value in zip(materials, values):
            first_entry.setdefault(material, value)  # the first entry for a material wins
        material_values[path] = first_entry
        defaults[path] = _number(table, "defaultFrictionValue", where)

    ground_materials = sorted({m for values in material_values.values() for m in values})
    num_surface_types = len(ground_materials) + 1
    if num_surface_types > MAX_SURFACE_TYPES:
        raise Physx34ConversionError(
            f"the friction tables name {len(ground_materials)} distinct ground materials; PhysX 3.4 holds at most "
            f"{MAX_SURFACE_TYPES} surface types, one of which is kept for unlisted materials "
            f"(so at most {MAX_SURFACE_TYPES - 1} materials)"
        )
    num_tire_types = len(table_paths) + 1

    pairs = DrivableSurfaceToTireFrictionPairs.allocate(num_tire_types, num_surface_types)
    pairs.setup(
        num_tire_types,
        num_surface_types,
        [None, *ground_materials],
        list(range(num_surface_types)),
    )
    for surface_type in range(num_surface_types):
        pairs.set_type_pair_friction(surface_type, BUILTIN_DEFAULT_TIRE_TYPE, BUILTIN_DEFAULT_FRICTION)
    for tire_type, path in enumerate(table_paths, start=1):
        pairs.set_type_pair_friction(UNKNOWN_MATERIAL_SURFACE_TYPE, tire_type, defaults[path])
        for surface_type, material in enumerate(ground_materials, start=1):
            pairs.set_type_pair_friction(
                surface_type, tire_type, material_values[path].get(material, defaults[path])
            )
    return FrictionTablesAsPairs(
        pairs=pairs, table_paths=[None, *table_paths], ground_materials=[None, *ground_materials]
    )


def friction_tables_from_pairs(
    pairs: DrivableSurfaceToTireFrictionPairs, table_paths: Sequence[str | None] | None = None
) -> dict[str, dict]:
    """tireFrictionTables equivalent to friction pairs: one table per tire type.

    table_paths[t] names the table of tire type t; None there marks the built-in default table (no table is written
    for it). Without table_paths the tables are named /PhysX34/TireFrictionTables/TireType<t>.
    defaultFrictionValue is the friction of surface type 0 (what PhysX uses for unlisted materials); a material is
    listed when its friction differs from that default.
    """
    num_tire_types = pairs.num_tire_types
    if table_paths is None:
        table_paths = [f"/PhysX34/TireFrictionTables/TireType{t}" for t in range(num_tire_types)]
    if len(table_paths) != num_tire_types:
        raise Physx34ConversionError(
            f"table_paths names {len(table_paths)} tables but the friction pairs have {num_tire_types} tire types"
        )
    # The material a surface type is looked up by: unique materials, in setup order, through the same lookup PhysX does.
    listed: list[str] = []
    for material in pairs.materials:
        if material is not None and material not in listed:
            listed.append(material)
    tables: dict[str, dict] = {}
    for tire_type, path in enumerate(table_paths):
        if path is None:
            continue
        default = (
            pairs.get_type_pair_friction(UNKNOWN_MATERIAL_SURFACE_TYPE, tire_type)
            if pairs.num_surface_types > 0 else BUILTIN_DEFAULT_FRICTION
        )
        ground_materials, friction_values = [], []
        for material in listed:
            value = pairs.get_material_friction(material, tire_type)
            if value != default:
                ground_materials.append(material)
                friction_values.append(value)
        tables[path] = {
            "groundMaterials": ground_materials,
            "frictionValues": friction_values,
            "defaultFrictionValue": default,
        }
    return tables


# Whole description -------------------------------------------------------------------------------------------------
class Physx34Wheel(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    path: str = Field(description="Wheel attachment prim path.", json_schema_extra={"unit": "path"})
    index: int = Field(description="Wheel index in the vehicle.", json_schema_extra={"unit": "index"})
    rest_load: float = Field(description="Tire rest load the lateral stiffness was normalized by.",
                             json_schema_extra={"unit": "kg*m/s^2 (N)"})
    tire: TireData


class Physx34Vehicle(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    scene: str | None = Field(description="Physics scene prim path.", json_schema_extra={"unit": "path"})
    gravity_magnitude: float = Field(description="|g| of the scene, used for the per-unit-gravity stiffnesses.",
                                     json_schema_extra={"unit": "m/s^2"})
    engine: EngineData | None = Field(description="Engine of a standard drive; null for other drives.")
    idle_rotation_speed: float | None = Field(
        description="The engine's idle speed from USD (no 3.4 field; kept to convert back).",
        json_schema_extra={"unit": "rad/s"},
    )
    wheels: list[Physx34Wheel]


class Physx34Setup(BaseModel):
    """Everything a PhysX 3.4 vehicle setup takes from a stage description (the JSON of `convert --target physx34`)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    friction_pairs: FrictionPairsSnapshot
    friction_table_paths: list[str | None] = Field(
        description="Friction table of each tire type (index = tire type); null: the built-in default table.",
        json_schema_extra={"unit": "path"},
    )
    vehicles: dict[str, Physx34Vehicle]


def physx34_from_description(description: Mapping) -> Physx34Setup:
    """The PhysX 3.4 structs of every vehicle in a stage description."""
    converted = friction_pairs_from_tables(description.get("tireFrictionTables") or {})
    scenes = description.get("scenes") or {}
    vehicles: dict[str, Physx34Vehicle] = {}
    for vehicle_path, vehicle in (description.get("vehicles") or {}).items():
        scene_path = vehicle.get("scene")
        scene = scenes.get(scene_path) if scene_path is not None else None
        if scene is None:
            raise Physx34ConversionError(f"{vehicle_path}: its physics scene {scene_path!r} is not in the description")
        gravity = _number(scene, "gravityMagnitude", f"scenes[{scene_path}]")
        drive = vehicle.get("drive") or {}
        engine_block = drive.get("engine") if drive.get("type") == "standard" else None
        engine = engine_data_from_block(engine_block, f"{vehicle_path}.drive.engine") if engine_block else None
        wheels = []
        for wheel in vehicle.get("wheels") or []:
            where = f"{wheel.get('path', vehicle_path)}.tire"
            tire_block = wheel.get("tire")
            if tire_block is None:
                raise Physx34ConversionError(f"{where}: the wheel has no tire block")
            tire_type = converted.tire_type_of_table(_value(tire_block, "frictionTable"))
            tire = tire_data_from_block(tire_block, gravity, tire_type, where)
            wheels.append(Physx34Wheel(
                path=str(wheel.get("path")), index=int(wheel.get("index", len(wheels))),
                rest_load=_number(tire_block, "restLoad", where), tire=tire,
            ))
        vehicles[vehicle_path] = Physx34Vehicle(
            scene=scene_path, gravity_magnitude=gravity, engine=engine,
            idle_rotation_speed=float(_value(engine_block, "idleRotationSpeed", 0.0)) if engine_block else None,
            wheels=wheels,
        )
    return Physx34Setup(
        friction_pairs=converted.pairs.snapshot(), friction_table_paths=converted.table_paths, vehicles=vehicles
    )


def description_from_physx34(
    engine: EngineData | None,
    tires: Mapping[str, TireData],
    pairs: DrivableSurfaceToTireFrictionPairs | None,
    gravity: float,
    *,
    rest_loads: Mapping[str, float],
    table_paths: Sequence[str | None] | None = None,
    idle_rotation_speed: float = 0.0,
) -> dict:
    """Description blocks for a PhysX 3.4 setup, to bring it into USD.

    tires maps a name (the wheel attachment path the tire will live on) to its TireData; rest_loads gives each tire's
    rest load (force, as PhysX 3.4 computes it: (wheel mass + sprung mass) * |g|), needed because 3.4 stores the
    lateral stiffness per rest load. table_paths names the friction table of each tire type (see
    `friction_tables_from_pairs`). Returns {"engine": block | None, "tires": {name: block},
    "tireFrictionTables": {path: block}, "gravityMagnitude": gravity}.
    """
    tables: dict[str, dict] = {}
    paths: list[str | None] = []
    if pairs is not None:
        paths = list(table_paths) if table_paths is not None else [
            f"/PhysX34/TireFrictionTables/TireType{t}" for t in range(pairs.num_tire_types)
        ]
        tables = friction_tables_from_pairs(pairs, paths)
    tire_blocks: dict[str, dict] = {}
    for name, tire in tires.items():
        if name not in rest_loads:
            raise Physx34ConversionError(f"{name}: no rest load given for this tire")
        if pairs is not None and tire.type >= pairs.num_tire_types:
            raise Physx34ConversionError(
                f"{name}: tire type {tire.type} is not in the friction pairs ({pairs.num_tire_types} tire types)"
            )
        table = paths[tire.type] if pairs is not None else None
        tire_blocks[name] = tire_block_from_data(tire, rest_loads[name], gravity, table)
    return {
        "engine": engine_block_from_data(engine, idle_rotation_speed) if engine is not None else None,
        "tires": tire_blocks,
        "tireFrictionTables": tables,
        "gravityMagnitude": float(gravity),
    }


def description_from_physx34_setup(setup: Physx34Setup) -> dict:
    """The description blocks of a Physx34Setup: {"vehicles": {path: {"engine", "tires", "gravityMagnitude"}},
    "tireFrictionTables": {...}} (the inverse of physx34_from_description for the blocks it reads)."""
    pairs = DrivableSurfaceToTireFrictionPairs.from_snapshot(setup.friction_pairs)
    out: dict = {"vehicles": {}, "tireFrictionTables": friction_tables_from_pairs(pairs, setup.friction_table_paths)}
    for path, vehicle in setup.vehicles.items():
        blocks = description_from_physx34(
            vehicle.engine,
            {w.path: w.tire for w in vehicle.wheels},
            pairs,
            vehicle.gravity_magnitude,
            rest_loads={w.path: w.rest_load for w in vehicle.wheels},
            table_paths=setup.friction_table_paths,
            idle_rotation_speed=vehicle.idle_rotation_speed or 0.0,
        )
        out["vehicles"][path] = {
            "engine": blocks["engine"], "tires": blocks["tires"], "gravityMagnitude": blocks["gravityMagnitude"]
        }
    return out


def physx34_json_text(description: Mapping) -> str:
    """`convert --target physx34`: the 3.4 structs of a description as deterministic JSON (sorted keys).

    A description the 3.4 structs cannot hold raises InputError (a message for the user, exit code 2)."""
    import json

    from pydantic import ValidationError

    from ..errors import InputError

    try:
        setup = physx34_from_description(description)
    except Physx34ConversionError as exc:
        raise InputError(f"cannot convert to the PhysX 3.4 structs: {exc}") from None
    except ValidationError as exc:
        problems = "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors()[:5])
        raise InputError(f"the PhysX 3.4 structs reject a value: {problems}") from None
    return json.dumps(setup.model_dump(mode="json"), sort_keys=True, indent=2) + "\n"


# Helpers --------------------------------------------------------------------------------------------------------------
def _value(block: Mapping | None, key: str, default=None):
    """A block's value; descriptions written with provenance hold {"value": v, "source": s} instead of v."""
    if block is None:
        return default
    value = block.get(key, default)
    if isinstance(value, Mapping) and "value" in value and "source" in value:
        return value["value"]
    return value


def _number(block: Mapping, key: str, where: str) -> float:
    value = _value(block, key)
    if value is None:
        raise Physx34ConversionError(f"{where}: {key} is missing")
    try:
        return float(value)  # also reads the "inf"/"nan" strings the JSON form uses
    except (TypeError, ValueError):
        raise Physx34ConversionError(f"{where}: {key} must be a number, got {value!r}") from None


def _pair(value, where: str) -> tuple[float, float]:
    try:
        x, y = value
        return float(x), float(y)
    except (TypeError, ValueError):
        raise Physx34ConversionError(f"{where}: expected an (x, y) pair, got {value!r}") from None


def _positive(value: float, what: str) -> float:
    value = float(value)
    if not value > 0.0:
        raise Physx34ConversionError(f"{what} must be greater than zero to convert, got {value!r}")
    return value
