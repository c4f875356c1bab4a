"""PhysX 3.4 drivable-surface-to-tire friction pairs (`PxVehicleDrivableSurfaceToTireFrictionPairs`).

A matrix of friction values, one row per surface type and one column per tire type. Ground materials (here USD
material prim paths) map to surface types; a material that is not listed, or no material at all, uses surface type 0.
The friction the tire model uses is the pair value times the tire's friction-vs-slip multiplier.

Life cycle as in PhysX: `allocate(max_tire_types, max_surface_types)` fixes the capacity; `setup(...)` declares the
counts, the material -> surface type list and resets every pair to 1.0; it may be called again to reuse the instance.
Where PhysX would fail a check (and, in release builds, silently do nothing or return 0), this raises ValueError.
"""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from ._physx34_common import PX_MAX_U32

MAX_SURFACE_TYPES = 256  # eMAX_NB_SURFACE_TYPES
SURFACE_TYPE_UNKNOWN = 0xFFFFFFFF  # PxVehicleDrivableSurfaceType::eSURFACE_TYPE_UNKNOWN
DEFAULT_PAIR_FRICTION = 1.0
# PhysX sizes the allocation as 4 bytes * maxTireTypes * maxSurfaceTypes in 32-bit arithmetic; there is no other
# limit on tire types (mType is a PxU32), so the product must keep that size below 2^32.
MAX_PAIR_COUNT = (PX_MAX_U32 // 4)


class FrictionPairsSnapshot(BaseModel):
    """The JSON form of a friction-pairs instance (what `DrivableSurfaceToTireFrictionPairs.snapshot` returns)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    max_tire_types: int = Field(ge=0, le=PX_MAX_U32, description="Capacity in tire types given to allocate().",
                                json_schema_extra={"unit": "count"})
    max_surface_types: int = Field(ge=0, le=MAX_SURFACE_TYPES, description="Capacity in surface types given to "
                                   "allocate().", json_schema_extra={"unit": "count"})
    num_tire_types: int = Field(ge=0, le=PX_MAX_U32, description="Tire types declared by setup().",
                                json_schema_extra={"unit": "count"})
    num_surface_types: int = Field(ge=0, le=MAX_SURFACE_TYPES, description="Surface types declared by setup().",
                                   json_schema_extra={"unit": "count"})
    materials: list[str | None] = Field(description="Ground material of each entry (a USD material prim path; null "
                                        "for an entry that matches no material).", json_schema_extra={"unit": "path"})
    surface_types: list[int] = Field(description="Surface type of each entry of materials.",
                                     json_schema_extra={"unit": "index"})
    pairs: list[list[float]] = Field(description="Friction per [surface type][tire type].",
                                     json_schema_extra={"unit": "unitless friction coefficient"})


def _count(name: str, value: int, limit: int, limit_text: str) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise ValueError(f"{name} must be an integer, got {value!r}")
    value = int(value)
    if value < 0:
        raise ValueError(f"{name} must not be negative, got {value}")
    if value > limit:
        raise ValueError(f"{name} must be at most {limit} ({limit_text}), got {value}")
    return value


class DrivableSurfaceToTireFrictionPairs:
    """Friction for every (surface type, tire type) pair, and the ground material -> surface type lookup."""

    def __init__(self, max_tire_types: int, max_surface_types: int):
        """Prefer `allocate`, which reads like PhysX; both check the same limits."""
        self._max_surface_types = _count(
            "max_surface_types", max_surface_types, MAX_SURFACE_TYPES, "eMAX_NB_SURFACE_TYPES"
        )
        self._max_tire_types = _count("max_tire_types", max_tire_types, PX_MAX_U32, "a PxU32")
        if self._max_tire_types * self._max_surface_types > MAX_PAIR_COUNT:
            raise ValueError(
                f"max_tire_types * max_surface_types = {self._max_tire_types * self._max_surface_types} pairs is more "
                f"than PhysX can allocate (at most {MAX_PAIR_COUNT}, as it sizes the pair table in 32 bits)"
            )
        self._num_tire_types = 0
        self._num_surface_types = 0
        self._materials: tuple[str | None, ...] = ()
        self._surface_types: tuple[int, ...] = ()
        self._surface_type_by_material: dict[str, int] = {}
        self._pairs = np.zeros((0, 0), dtype=float)

    @classmethod
    def allocate(cls, max_tire_types: int, max_surface_types: int) -> "DrivableSurfaceToTireFrictionPairs":
        """An instance for up to max_tire_types tire types and max_surface_types (<= 256) surface types."""
        return cls(max_tire_types, max_surface_types)

    # Capacity and counts -------------------------------------------------------------------------------------------
    @property
    def max_tire_types(self) -> int:
        return self._max_tire_types

    @property
    def max_surface_types(self) -> int:
        return self._max_surface_types

    @property
    def num_tire_types(self) -> int:
        return self._num_tire_types

    @property
    def num_surface_types(self) -> int:
        return self._num_surface_types

    @property
    def materials(self) -> tuple[str | None, ...]:
        return self._materials

    @property
    def surface_types(self) -> tuple[int, ...]:
        return self._surface_types

    @property
    def pairs(self) -> np.ndarray:
        """A read-only view of the friction matrix, indexed [surface type, tire type]."""
        view = self._pairs.view()
        view.flags.writeable = False
        return view

    # Setup ---------------------------------------------------------------------------------------------------------
    def setup(
        self,
        num_tire_types: int,
        num_surface_types: int,
        materials: Sequence[str | None],
        surface_types: Sequence[int],
    ) -> None:
        """Declare the counts and the material list; every pair becomes 1.0. May be called again to reuse the instance.

        materials[i] (a USD material prim path, or None for an entry that never matches) has surface type
        surface_types[i]; both lists have num_surface_types entries, as PhysX reads them. A material listed twice takes
        the surface type of its last entry (PhysX's hash table finds the most recent insertion first).
        """
        num_tire_types = _count(
            "num_tire_types", num_tire_types, self._max_tire_types, "the max_tire_types given to allocate()"
        )
        num_surface_types = _count(
            "num_surface_types", num_surface_types, self._max_surface_types,
            "the max_surface_types given to allocate()",
        )
        materials = list(materials)
        surface_types = list(surface_types)
        if len(materials) != num_surface_types:
            raise ValueError(f"materials must have num_surface_types={num_surface_types} entries, got {len(materials)}")
        if len(surface_types) != num_surface_types:
            raise ValueError(
                f"surface_types must have num_surface_types={num_surface_types} entries, got {len(surface_types)}"
            )
        checked_types = []
        for i, surface_type in enumerate(surface_types):
            if isinstance(surface_type, bool) or not isinstance(surface_type, (int, np.integer)):
                raise ValueError(f"surface_types[{i}] must be an integer, got {surface_type!r}")
            if not 0 <= int(surface_type) < num_surface_types:
                # PhysX does not check this at setup; its lookup would then read outside the pair table.
                raise ValueError(
                    f"surface_types[{i}]={int(surface_type)} is not a surface type: it must be in "
                    f"[0, {num_surface_types})"
                )
            checked_types.append(int(surface_type))
        checked_materials = [None if m is None else str(m) for m in materials]

        self._num_tire_types = num_tire_types
        self._num_surface_types = num_surface_types
        self._materials = tuple(checked_materials)
        self._surface_types = tuple(checked_types)
        self._surface_type_by_material = {
            material: surface_type
            for material, surface_type in zip(checked_materials, checked_types)
            if material is not None
        }
        self._pairs = np.full((num_surface_types, num_tire_types), DEFAULT_PAIR_FRICTION, dtype=float)

    # Pair access ---------------------------------------------------------------------------------------------------
    def _check_pair(self, surface_type: int, tire_type: int) -> tuple[int, int]:
        tire_type = _index("tire_type", tire_type)
        surface_type = _index("surface_type", surface_type)
        if tire_type >= self._num_tire_types:
            raise ValueError(
                f"tire_type {tire_type} is out of range: setup() declared {self._num_tire_types} tire types"
            )
        if surface_type >= self._num_surface_types:
            raise ValueError(
                f"surface_type {surface_type} is out of range: setup() declared {self._num_surface_types} surface types"
            )
        return surface_type, tire_type

    def set_type_pair_friction(self, surface_type: int, tire_type: int, value: float) -> None:
        """Set the friction of one (surface type, tire type) pair."""
        surface_type, tire_type = self._check_pair(surface_type, tire_type)
        value = float(value)
        if not value >= 0.0:
            # PhysX asserts frictionMultiplier >= 0 when the value is used.
            raise ValueError(f"friction must be a number >= 0, got {value!r}")
        self._pairs[surface_type, tire_type] = value

    def get_type_pair_friction(self, surface_type: int, tire_type: int) -> float:
        """The friction of one (surface type, tire type) pair."""
        surface_type, tire_type = self._check_pair(surface_type, tire_type)
        return float(self._pairs[surface_type, tire_type])

    # Material lookup -----------------------------------------------------------------------------------------------
    def get_surface_type(self, material: str | None) -> int:
        """The surface type of a ground material; 0 for a material not listed in setup() or for no material."""
        if material is None:
            return 0
        return self._surface_type_by_material.get(str(material), 0)

    def get_material_friction(self, material: str | None, tire_type: int) -> float:
        """The pair friction a tire of tire_type gets on a ground material (unknown material -> surface type 0)."""
        return self.get_type_pair_friction(self.get_surface_type(material), tire_type)

    # JSON form -----------------------------------------------------------------------------------------------------
    def snapshot(self) -> FrictionPairsSnapshot:
        return FrictionPairsSnapshot(
            max_tire_types=self._max_tire_types,
            max_surface_types=self._max_surface_types,
            num_tire_types=self._num_tire_types,
            num_surface_types=self._num_surface_types,
            materials=list(self._materials),
            surface_types=list(self._surface_types),
            pairs=self._pairs.tolist(),
        )

    @classmethod
    def from_snapshot(cls, snapshot: FrictionPairsSnapshot | dict) -> "DrivableSurfaceToTireFrictionPairs":
        if not isinstance(snapshot, FrictionPairsSnapshot):
            snapshot = FrictionPairsSnapshot.model_validate(snapshot)
        pairs = cls.allocate(snapshot.max_tire_types, snapshot.max_surface_types)
        pairs.setup(snapshot.num_tire_types, snapshot.num_surface_types, snapshot.materials, snapshot.surface_types)
        matrix = np.asarray(snapshot.pairs, dtype=float).reshape(-1)
        expected = snapshot.num_surface_types * snapshot.num_tire_types
        if matrix.size != expected:
            raise ValueError(
                f"pairs must hold num_surface_types x num_tire_types = {expected} values, got {matrix.size}"
            )
        for flat_index, value in enumerate(matrix):
            surface_type, tire_type = divmod(flat_index, snapshot.num_tire_types)
            pairs.set_type_pair_friction(surface_type, tire_type, value)
        return pairs

    def __repr__(self) -> str:
        return (
            f"{type(self).__name__}(tire types {self._num_tire_types}/{self._max_tire_types}, "
            f"surface types {self._num_surface_types}/{self._max_surface_types})"
        )


def _index(name: str, value: int) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise ValueError(f"{name} must be an integer, got {value!r}")
    if value < 0:
        raise ValueError(f"{name} must not be negative, got {value}")
    return int(value)


FrictionPairs = DrivableSurfaceToTireFrictionPairs
