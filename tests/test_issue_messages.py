"""Issue 17, "every problem said, once, truthfully": each case here was silent, wrong or unclear before.

Every test authors a real stage (usd-core, in memory or in tmp_path), reads, validates, converts or simulates it
for real, and checks what the user is told: the code, the prim and property named, the severity, the exit code.
"""
from __future__ import annotations

import json
import math

import pytest
from pxr import Gf, Sdf, UsdPhysics
from stage_factory import add_vehicle, build_vehicle, new_stage

from physxvehicle_usd.diagnostics import Severity

CAR = "/World/Car"


def _errors(description, prim: str | None = None) -> list:
    return [d for d in description.diagnostics if d.severity == Severity.ERROR and (prim is None or d.prim == prim)]


def _codes(description, prim: str | None = None) -> set[tuple[str, str | None]]:
    return {(d.code, d.property) for d in _errors(description, prim)}


# -- rigid-body mass properties -------------------------------------------------------------------------

@pytest.mark.parametrize("value, code", [(math.nan, "NONFINITE"), (-math.inf, "NONFINITE"), (math.inf, "NONFINITE"),
                                         (-1800.0, "MASS_RANGE")])
def test_unusable_mass_is_an_error_naming_the_property_and_rejects_only_that_vehicle(value, code):
    car = new_stage()
    add_vehicle(car, name="Good")
    add_vehicle(car, name="Car")
    UsdPhysics.MassAPI(car.prim(CAR)).GetMassAttr().Set(value)
    description = car.read()
    assert (code, "physics:mass") in _codes(description, CAR)
    assert CAR not in description.vehicles
    assert "/World/Good" in description.vehicles
    assert not _errors(description, "/World/Good")


def test_mass_authored_as_a_string_is_a_type_error():
    car = build_vehicle()
    spec = car.stage.GetRootLayer().GetPrimAtPath(CAR)
    del spec.properties["physics:mass"]
    Sdf.AttributeSpec(spec, "physics:mass", Sdf.ValueTypeNames.String).default = "heavy"
    description = car.read()
    assert ("TYPE", "physics:mass") in _codes(description, CAR)
    assert CAR not in description.vehicles


def test_nan_in_diagonal_inertia_is_an_error():
    car = build_vehicle()
    UsdPhysics.MassAPI(car.prim(CAR)).GetDiagonalInertiaAttr().Set(Gf.Vec3f(math.nan, 2500.0, 2700.0))
    description = car.read()
    assert ("NONFINITE", "physics:diagonalInertia") in _codes(description, CAR)
    assert CAR not in description.vehicles


def test_unset_sentinels_of_mass_api_are_not_findings():
    """0 mass, the (-inf, -inf, -inf) centre of mass and the zero principal axes mean "not set" in UsdPhysics."""
    car = build_vehicle()
    mass = UsdPhysics.MassAPI(car.prim(CAR))
    mass.GetCenterOfMassAttr().Set(Gf.Vec3f(-math.inf, -math.inf, -math.inf))
    mass.GetPrincipalAxesAttr().Set(Gf.Quatf(0, 0, 0, 0))
    description = car.read()
    assert not {c for c, _ in _codes(description, CAR)} & {"NONFINITE", "MASS_RANGE", "MASS", "TYPE"}
    assert CAR in description.vehicles
