"""Our checks as rules of NVIDIA's validator (PyPI usd-validation-nvidia: `nvidia_usd_validate`, `ValidationEngine`).

Installed beside it, our package registers them through the validator's plugin entry point (pyproject.toml,
`[project.entry-points."usd_validation_nvidia"]`): `nvidia_usd_validate` runs them with its own rules, and

    nvidia_usd_validate --category "PhysX Vehicles" assets/           # ours alone
    nvidia_usd_validate --fix assets/car.usda                          # applies our repairs with its own fixes

The rules, category "PhysX Vehicles", derive from our list of checks, one rule per check:
`PhysxVehicleParserChecker` reports the reader's findings (the parser rules V01-V142 and the reader's named codes),
and each asset check of `validate/checks.ASSET_CHECKS` is a rule named after it (`check_wheel_collision_setup`:
`PhysxVehicleWheelCollisionSetupChecker`). The stage is read, and its findings' repairs planned, once for all of
them.

A finding becomes an Issue with its code (`Issue.code`, and leading the message, "V74: ...", as the validator's logs
and JSON/CSV reports show only the message) and its message as it is, sited at its property (else its prim, else the
stage): error -> FAILURE (a rule not met; the validator keeps ERROR for a rule that failed to run, our INTERNAL),
warning -> WARNING, info -> INFO. A finding's repair (`Diagnostic.fix`) is the issue's suggestion, so the
validator's IssueFixer (and `--fix`) apply it into the layer it chooses. The runtime profiles (`validate --profile`)
stay ours: the validator's own `--profile` is its capability profiles.

Importing this module is cheap (the validator imports every plugin whenever it is imported): the reader is imported
when a rule first runs.
"""
from __future__ import annotations

import threading
import weakref

from pxr import Sdf, Usd
from usd_validation_nvidia import BaseRuleChecker, CategoryRuleRegistry, Issue, IssueSeverity, Suggestion, register_rule

from ..diagnostics import Diagnostic, Severity
from ..repairs import Repair

CATEGORY = "PhysX Vehicles"
READER_RULE = "PhysxVehicleParserChecker"

_SEVERITY = {Severity.ERROR: IssueSeverity.FAILURE, Severity.WARNING: IssueSeverity.WARNING,
             Severity.INFO: IssueSeverity.INFO}
INTERNAL = "INTERNAL"  # our code for a check that failed to run: the validator's ERROR

_lock = threading.Lock()
# Each rule's findings, for all our rules at once: the stage is read once, and the repairs are planned over all the
# findings (one finding's repair may depend on another's). The validator hands each rule the same stage object, from
# its worker threads (a rule that only checks the stage runs as a task of its own).
_findings_by_stage: "weakref.WeakKeyDictionary[Usd.Stage, dict[str, list[Diagnostic]]]" = weakref.WeakKeyDictionary()


def _findings(stage: Usd.Stage, rule: str) -> list[Diagnostic]:
    with _lock:
        by_rule = _findings_by_stage.get(stage)
        if by_rule is None:
            by_rule = _findings_by_stage[stage] = _check(stage)
        return by_rule[rule]


def _check(stage: Usd.Stage) -> dict[str, list[Diagnostic]]:
    """The findings of `validate` (its default checks, with their repairs), by the rule that reports them."""
    from ..fix.plan import attach_repairs
    from ..read import read_stage
    from .checks import ASSET_CHECKS, run_check

    description = read_stage(stage)
    groups = [(READER_RULE, list(description.diagnostics))]
    groups += [(_rule_name(check), run_check(check, stage, description)) for check in ASSET_CHECKS]
    repaired = iter(attach_repairs(stage, description, [f for _, found in groups for f in found]))
    return {rule: [next(repaired) for _ in found] for rule, found in groups}


def _site(stage: Usd.Stage, finding: Diagnostic):
    """Where the issue is: the finding's property, else its prim, else the stage."""
    if finding.prim != "/" and Sdf.Path.IsValidPathString(finding.prim):
        prim = stage.GetPrimAtPath(finding.prim)
        if prim:
            prop = prim.GetProperty(finding.property) if finding.property else None
            return prop if prop else prim
    return stage


class _ApplyRepair:
    """A suggestion's callable: the finding's repair, authored into the edit target the fixer chose. Compares by
    the repair, as the validator deduplicates suggestions."""

    def __init__(self, repair: Repair):
        self.repair = repair
        self.__name__ = "apply_repair"

    def __call__(self, stage: Usd.Stage, _at) -> None:
        self.repair.apply(stage)

    def __eq__(self, other) -> bool:
        return isinstance(other, _ApplyRepair) and other.repair == self.repair

    def __hash__(self) -> int:
        return hash(self.repair)


def issue(rule: type, stage: Usd.Stage, finding: Diagnostic) -> Issue:
    """The validator's Issue for one of our findings."""
    severity = IssueSeverity.ERROR if finding.code == INTERNAL else _SEVERITY[finding.severity]
    suggestion = (Suggestion(callable=_ApplyRepair(finding.fix), message=finding.fix.summary)
                  if finding.fix is not None else None)
    return Issue(message=f"{finding.code}: {finding.message}", severity=severity, rule=rule, at=_site(stage, finding),
                 suggestion=suggestion, code=finding.code)


def _rule(name: str, doc: str) -> type[BaseRuleChecker]:
    def CheckStage(self, stage: Usd.Stage) -> None:  # noqa: N802 - the validator's method name
        try:
            found = _findings(stage, name)
        except Exception as exc:  # noqa: BLE001 - as validate_file: the last line of defence, said as INTERNAL
            found = [Diagnostic(severity=Severity.ERROR, code=INTERNAL, prim="/",
                                message=f"validation failed unexpectedly: {type(exc).__name__}: {exc}")]
        for finding in found:
            self._AddIssue(issue(type(self), stage, finding))

    return type(name, (BaseRuleChecker,), {"__doc__": doc, "__module__": __name__, "CheckStage": CheckStage})


def _rule_name(check) -> str:
    """check_wheel_collision_setup -> PhysxVehicleWheelCollisionSetupChecker."""
    words = check.__name__.removeprefix("check_").split("_")
    return "PhysxVehicle" + "".join(w[:1].upper() + w[1:] for w in words) + "Checker"


def _first_paragraph(text: str | None) -> str:
    return " ".join((text or "").strip().split("\n\n")[0].split())


def _rules() -> list[type[BaseRuleChecker]]:
    from .checks import ASSET_CHECKS

    rules = [_rule(READER_RULE, "PhysX vehicle parser rules (V01-V142) and the reader's other findings, as "
                   "`physxvehicle-usd validate` reports them.")]
    for check in ASSET_CHECKS:
        rules.append(_rule(_rule_name(check), _first_paragraph(check.__doc__) or f"The asset check {check.__name__}."))
    return rules


RULES: tuple[type[BaseRuleChecker], ...] = tuple(_rules())
globals().update({rule.__name__: rule for rule in RULES})  # importable by name, as the validator's own rules are


class NvidiaPlugin:
    """The validator's plugin (its `usd_validation_nvidia` entry point group): registers our rules in CATEGORY."""

    def on_startup(self) -> None:
        # the vehicle schemas are registered already: importing this module imported physxvehicle_usd, which
        # registers them, before the validator opens any stage
        for rule in RULES:
            register_rule(CATEGORY)(rule)

    def on_shutdown(self) -> None:
        registry = CategoryRuleRegistry()
        for rule in RULES:
            registry.remove(rule)
