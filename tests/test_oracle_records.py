"""PhysX records (physxvehicle_usd.oracle.records): a run recorded once is taken from its record, keyed by the stage
as composed and the request; check mode finds a stale record."""
from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest
from pxr import Sdf, Usd

from physxvehicle_usd.oracle import records, run_ovphysx

pytestmark = pytest.mark.ovphysx

CAR = Path(__file__).resolve().parent.parent / "samples" / "car" / "car.usda"
DT = 1.0 / 60.0
STEPS = 6
CONTROLS = {"*": {"accelerator": 1.0}}
TELEMETRY = {"bodies": ["position", "linearVelocity"], "wheels": ["rotationSpeed"], "vehicles": []}


def _run(usd: Path) -> dict:
    return run_ovphysx(usd, STEPS, DT, controls=CONTROLS, telemetry=TELEMETRY)


def _car_in(folder: Path) -> Path:
    """The sample car as a layer of its own that references the sample (a stage in a temporary folder)."""
    path = folder / "car.usda"
    stage = Usd.Stage.CreateNew(str(path))
    stage.GetRootLayer().subLayerPaths.append(str(CAR))
    stage.Save()
    return path


@pytest.fixture
def folder(tmp_path, monkeypatch) -> Path:
    monkeypatch.setenv(records.FOLDER_VARIABLE, str(tmp_path / "records"))
    monkeypatch.delenv(records.MODE_VARIABLE, raising=False)
    return tmp_path / "records"


def test_a_recorded_run_is_taken_from_its_record_whatever_the_stage_file_is_called(folder, tmp_path, monkeypatch):
    first = _run(_car_in(tmp_path))
    assert len(list(folder.glob("*.npz"))) == 1
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    again = _run(_car_in(elsewhere))
    # the record's timings come back too: a second PhysX run would have measured its own
    assert (again["load_s"], again["step_s"]) == (first["load_s"], first["step_s"])
    for path, body in first["bodies"].items():
        for name, values in body.items():
            assert values.dtype == again["bodies"][path][name].dtype == np.float64
            np.testing.assert_array_equal(values, again["bodies"][path][name])
    monkeypatch.delenv(records.FOLDER_VARIABLE)
    fresh = _run(_car_in(tmp_path / "elsewhere"))
    assert fresh["load_s"] != first["load_s"]
    for path, body in first["bodies"].items():
        np.testing.assert_array_equal(body["position"], fresh["bodies"][path]["position"])


def test_a_changed_stage_or_request_is_another_record(folder, tmp_path):
    car = _car_in(tmp_path)
    request = {"usd_path": str(car), "steps": STEPS, "dt": DT, "controls": {}}
    key = records.record_key(request)
    assert records.record_key({**request, "usd_path": str(shutil.copy(car, tmp_path / "copy.usda"))}) == key
    assert records.record_key({**request, "steps": STEPS + 1}) != key
    layer = Sdf.Layer.FindOrOpen(str(car))
    stage = Usd.Stage.Open(layer)
    body = next(p for p in stage.Traverse() if p.HasAPI("PhysicsMassAPI"))
    body.GetAttribute("physics:mass").Set(1234.0)
    layer.Save()
    assert records.record_key(request) != key


@pytest.mark.soak  # three PhysX runs (about 10 s)
def test_check_mode_fails_on_a_stale_record_and_passes_on_a_true_one(folder, tmp_path, monkeypatch):
    car = _car_in(tmp_path)
    _run(car)
    monkeypatch.setenv(records.MODE_VARIABLE, "check")
    _run(car)  # PhysX again, the same as recorded
    (record,) = folder.glob("*.npz")
    with np.load(record) as stored:
        entries = {key: stored[key] for key in stored.files}
    key = next(k for k in entries if k.startswith("bodies|position"))
    entries[key] = entries[key] + np.float32(1e-3)
    np.savez_compressed(record, **entries)
    with pytest.raises(records.StaleRecord, match=f"stale \\({key} differs\\)"):
        _run(car)
    record.unlink()
    with pytest.raises(records.StaleRecord, match="no PhysX record"):
        _run(car)


def test_an_unknown_mode_is_refused(folder, tmp_path, monkeypatch):
    monkeypatch.setenv(records.MODE_VARIABLE, "sometimes")
    with pytest.raises(ValueError, match="PVU_PHYSX_RECORDS_MODE='sometimes'"):
        _run(_car_in(tmp_path))
