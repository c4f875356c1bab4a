"""The vehicle checks as validators in USD's own UsdValidation registry.

    import physxvehicle_usd.validate.usd_validation as vv
    vv.register()                       # idempotent
    context = UsdValidation.ValidationContext(vv.validators())
    errors = context.Validate(stage)

Validators, under the plugin name `physxVehicleUsd`:
- `physxVehicleUsd:VehicleStage` (stage validator): every finding of `physxvehicle-usd validate`.
- `physxVehicleUsd:Vehicle` (prim validator keyed to PhysxVehicleAPI): findings on that vehicle's subtree.
- `physxVehicleUsd:TireFrictionTable` (keyed to PhysxVehicleTireFrictionTable) and
  `physxVehicleUsd:VehicleContext` (keyed to PhysxVehicleContextAPI): findings on that prim.
Each finding becomes a UsdValidation.ValidationError named by its code, sited at its prim (and property).
"""
from __future__ import annotations

import threading
import weakref

from pxr import Sdf, Usd, UsdValidation

from .. import properties as P
from ..diagnostics import Diagnostic, Severity
from ..prim_paths import at_or_below
from . import validate_stage

PLUGIN = "physxVehicleUsd"
KEYWORDS = ["PhysxVehicle", PLUGIN]
STAGE_VALIDATOR = f"{PLUGIN}:VehicleStage"
PRIM_VALIDATORS = {
    f"{PLUGIN}:Vehicle": (P.VEHICLE, True),
    f"{PLUGIN}:TireFrictionTable": (P.TABLE, False),
    f"{PLUGIN}:VehicleContext": (P.CONTEXT, False),
}
_SEVERITY = {Severity.ERROR: UsdValidation.ValidationErrorType.Error,
             Severity.WARNING: UsdValidation.ValidationErrorType.Warn,
             Severity.INFO: UsdValidation.ValidationErrorType.Info}

_lock = threading.Lock()
# Prim validators run once per prim; the stage is read once per stage and reused while it lives.
_findings_by_stage: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


def _findings(stage: Usd.Stage) -> list[Diagnostic]:
    key = stage.GetRootLayer()
    cached = _findings_by_stage.get(key)
    if cached is None:
        cached = _findings_by_stage[key] = validate_stage(stage)[0]
    return cached


def _error(stage: Usd.Stage, finding: Diagnostic) -> UsdValidation.ValidationError:
    path = Sdf.Path(finding.prim) if Sdf.Path.IsValidPathString(finding.prim) else Sdf.Path.absoluteRootPath
    if finding.property and path != Sdf.Path.absoluteRootPath:
        path = path.AppendProperty(finding.property)
    site = UsdValidation.ValidationErrorSite(stage, path)
    return UsdValidation.ValidationError(finding.code, _SEVERITY[finding.severity], [site], finding.message)


def _stage_task(stage: Usd.Stage, _time_range=None) -> list:
    _findings_by_stage.pop(stage.GetRootLayer(), None)  # a stage validation always reads afresh
    return [_error(stage, f) for f in _findings(stage)]


def _prim_task(subtree: bool):
    def task(prim: Usd.Prim, _time_range=None) -> list:
        if prim.IsPseudoRoot():
            return []
        stage, path = prim.GetStage(), str(prim.GetPath())
        return [_error(stage, f) for f in _findings(stage)
                if (at_or_below(f.prim, path) if subtree else f.prim == path)]
    return task


def _tf_type_name(schema: str) -> str:
    # Prim validators are keyed by TfType name, which depends on the active schema provider.
    return Usd.SchemaRegistry.GetTypeFromSchemaTypeName(schema).typeName


def register() -> None:
    """Register the validators once per process (whichever plugin provides the schemas)."""
    registry = UsdValidation.ValidationRegistry()
    with _lock:
        if not registry.HasValidator(STAGE_VALIDATOR):
            registry.RegisterStageValidator(
                UsdValidation.ValidatorMetadata(name=STAGE_VALIDATOR, keywords=KEYWORDS,
                                                doc="PhysX vehicle parser rules and asset checks for the whole stage"),
                _stage_task)
        for name, (schema, subtree) in PRIM_VALIDATORS.items():
            if not registry.HasValidator(name):
                registry.RegisterPrimValidator(
                    UsdValidation.ValidatorMetadata(name=name, keywords=KEYWORDS, schemaTypes=[_tf_type_name(schema)],
                                                    doc=f"PhysX vehicle findings on prims with {schema}"),
                    _prim_task(subtree))


def validators(prim_level: bool = False) -> list:
    """The registered validators: the stage validator, or the per-prim ones."""
    register()
    registry = UsdValidation.ValidationRegistry()
    names = list(PRIM_VALIDATORS) if prim_level else [STAGE_VALIDATOR]
    return [registry.GetOrLoadValidatorByName(n) for n in names]
