"""Which vehicle schemas and properties a stage uses: a quick census of a composed stage."""
from __future__ import annotations

from dataclasses import dataclass, field

from pxr import Usd

VEHICLE_SCHEMA_PREFIX = "PhysxVehicle"


@dataclass
class PrimUsage:
    path: str
    type_name: str
    schemas: list[str] = field(default_factory=list)
    authored: list[str] = field(default_factory=list)


def vehicle_schema_usage(stage: Usd.Stage) -> list[PrimUsage]:
    """Every prim that applies (or is typed as) a vehicle schema, with its authored vehicle properties."""
    usages = []
    for prim in Usd.PrimRange.Stage(stage, Usd.TraverseInstanceProxies()):
        schemas = [s for s in prim.GetAppliedSchemas() if s.startswith(VEHICLE_SCHEMA_PREFIX)]
        typed = prim.GetTypeName().startswith(VEHICLE_SCHEMA_PREFIX)
        if not schemas and not typed:
            continue
        definition = prim.GetPrimDefinition()
        schema_props = set(definition.GetPropertyNames())
        authored = sorted(
            p.GetName() for p in prim.GetAuthoredProperties() if p.GetName() in schema_props
        )
        usages.append(PrimUsage(str(prim.GetPath()), str(prim.GetTypeName()), schemas, authored))
    return usages
