"""Dump the composed prim definitions of the PhysX vehicle schema family as JSON.

Run as a script in a fresh interpreter: `python schema_dump.py ours|nvidia|env`.
- ours:   import physxvehicle_usd (registers our plugin)
- nvidia: import physx_usd_schemas (NVIDIA's codeless wheel)
- env:    import nothing; whatever PXR_PLUGINPATH_NAME provides
The two plugins cannot be registered in one process, hence the subprocesses.
"""
from __future__ import annotations

import json
import sys

FAMILY = [
    "PhysxVehicleContextAPI", "PhysxVehicleTireFrictionTable", "PhysxVehicleWheelAPI", "PhysxVehicleTireAPI",
    "PhysxVehicleSuspensionAPI", "PhysxVehicleWheelAttachmentAPI", "PhysxVehicleSuspensionComplianceAPI",
    "PhysxVehicleEngineAPI", "PhysxVehicleGearsAPI", "PhysxVehicleAutoGearBoxAPI", "PhysxVehicleClutchAPI",
    "PhysxVehicleDriveBasicAPI", "PhysxVehicleDriveStandardAPI", "PhysxVehicleMultiWheelDifferentialAPI",
    "PhysxVehicleTankDifferentialAPI", "PhysxVehicleBrakesAPI", "PhysxVehicleSteeringAPI",
    "PhysxVehicleAckermannSteeringAPI", "PhysxVehicleAPI", "PhysxVehicleControllerAPI",
    "PhysxVehicleTankControllerAPI", "PhysxVehicleWheelControllerAPI", "PhysxVehicleNonlinearCommandResponseAPI",
]


def _value(v):
    if v is None:
        return None
    if hasattr(v, "__len__") and not isinstance(v, str):
        return [_value(x) for x in v]
    if isinstance(v, float):
        return round(v, 6)
    return v if isinstance(v, (int, str, bool)) else str(v)


def dump() -> dict:
    from pxr import Usd

    registry = Usd.SchemaRegistry()
    out = {}
    for name in FAMILY:
        tf_type = Usd.SchemaRegistry.GetTypeFromSchemaTypeName(name)
        kind = Usd.SchemaRegistry.GetSchemaKind(tf_type) if not tf_type.isUnknown else None
        definition = registry.FindConcretePrimDefinition(name) or registry.FindAppliedAPIPrimDefinition(name)
        if definition is None:
            out[name] = None
            continue
        props = {}
        for prop_name in definition.GetPropertyNames():
            spec = definition.GetPropertyDefinition(prop_name)
            entry = {"kind": "relationship" if spec.IsRelationship() else "attribute",
                     "variability": str(spec.GetVariability())}
            if spec.IsAttribute():
                spec = definition.GetAttributeDefinition(prop_name)
                entry["type"] = str(spec.GetTypeName())
                entry["fallback"] = _value(spec.GetFallbackValue())
                tokens = spec.GetMetadata("allowedTokens")
                entry["allowedTokens"] = list(tokens) if tokens else None
            props[prop_name] = entry
        out[name] = {
            "kind": str(kind),
            "builtinAPISchemas": list(definition.GetAppliedAPISchemas()),
            "properties": props,
        }
    return out


if __name__ == "__main__":
    mode = sys.argv[1]
    if mode == "ours":
        import physxvehicle_usd  # noqa: F401
    elif mode == "nvidia":
        import physx_usd_schemas  # noqa: F401
    elif mode == "both":
        import physx_usd_schemas  # noqa: F401

        import physxvehicle_usd

        print(json.dumps({"provider": physxvehicle_usd.active_provider().plugin_name}), file=sys.stderr)
    json.dump(dump(), sys.stdout, sort_keys=True)
