"""The sample assets, read by the stage reader, converted to PhysX 3.4 structs and back."""
from __future__ import annotations

from pathlib import Path

import pytest

from physxvehicle_usd.read import read_stage
from physxvehicle_usd.runtime import description_from_physx34_setup, physx34_from_description

SAMPLE_FILES = sorted((Path(__file__).resolve().parent.parent / "samples").glob("*/*.usda"))


@pytest.fixture(scope="module", params=SAMPLE_FILES, ids=lambda p: p.name)
def description(request) -> dict:
    return read_stage(str(request.param)).to_json()


def test_samples_give_valid_physx_34_structs(description):
    setup = physx34_from_description(description)
    assert setup.vehicles, "the sample has vehicles"
    for path, vehicle in setup.vehicles.items():
        if vehicle.engine is not None:
            assert vehicle.engine.validation_errors() == [], path
        for wheel in vehicle.wheels:
            assert wheel.tire.validation_errors() == [], wheel.path


@pytest.mark.parametrize("sample", SAMPLE_FILES, ids=lambda p: p.name)
def test_provenance_form_converts_the_same(sample):
    with_provenance = read_stage(str(sample)).to_json(provenance=True)
    assert physx34_from_description(with_provenance) == physx34_from_description(read_stage(str(sample)).to_json())


def test_sample_tire_blocks_come_back(description):
    back = description_from_physx34_setup(physx34_from_description(description))
    for path, vehicle in description["vehicles"].items():
        for wheel in vehicle["wheels"]:
            original, returned = wheel["tire"], back["vehicles"][path]["tires"][wheel["path"]]
            for key in ("longitudinalStiffness", "camberStiffness", "restLoad"):
                assert returned[key] == pytest.approx(original[key], rel=1e-6)
            assert returned["lateralStiffnessGraph"] == pytest.approx(original["lateralStiffnessGraph"], rel=1e-6)


def test_per_unit_gravity_values_do_not_depend_on_the_length_unit():
    by_file = {p.parent.name: physx34_from_description(read_stage(str(p)).to_json()) for p in SAMPLE_FILES}
    assert {"car", "car_cm"} <= set(by_file), "needs the car and car_cm samples"
    metres, centimetres = by_file["car"].vehicles["/World/Car"], by_file["car_cm"].vehicles["/World/Car"]
    assert centimetres.gravity_magnitude == pytest.approx(100 * metres.gravity_magnitude)
    for m, cm in zip(metres.wheels, centimetres.wheels):
        # kg per unit gravity and the per-rest-load ratio carry no length: equal in both stages.
        assert cm.tire.longitudinal_stiffness_per_unit_gravity == pytest.approx(
            m.tire.longitudinal_stiffness_per_unit_gravity, rel=1e-5)
        assert cm.tire.lat_stiff_y == pytest.approx(m.tire.lat_stiff_y, rel=1e-5)
