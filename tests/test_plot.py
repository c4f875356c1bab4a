"""`plot`: a PNG of a vehicle's tuning for every kind of drive."""
from __future__ import annotations

from pathlib import Path

import pytest

from physxvehicle_usd.author import author_vehicle, preset_spec
from physxvehicle_usd.cli import main
from physxvehicle_usd.errors import InputError
from physxvehicle_usd.outputs.plot import plot_vehicle, vehicle_figure
from physxvehicle_usd.read import read_stage

SAMPLES = Path(__file__).resolve().parent.parent / "samples"
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


@pytest.mark.parametrize("preset", ["car", "basic_car", "tank", "robot_base"])
def test_plot_writes_a_png_for_every_drive(tmp_path, preset):
    out = tmp_path / f"{preset}.png"
    plot_vehicle(read_stage(author_vehicle(preset_spec(preset), "cm")), out)
    data = out.read_bytes()
    assert data.startswith(PNG_SIGNATURE)
    assert len(data) > 20_000


def test_figure_is_in_si_whatever_the_stage_units():
    import matplotlib.pyplot as plt

    figures = [vehicle_figure(read_stage(author_vehicle(preset_spec("truck"), units))) for units in ("m", "cm")]
    try:
        engine_m, engine_cm = (f.axes[0].get_lines()[0].get_ydata() for f in figures)
        assert engine_cm == pytest.approx(engine_m, rel=1e-5)
        assert max(engine_m) == pytest.approx(read_stage(author_vehicle(preset_spec("truck"))).vehicles["/World/Truck"]
                                               .drive.engine["peakTorque"], rel=1e-5)
    finally:
        for f in figures:
            plt.close(f)


def test_cli_plot_writes_the_sample_car(tmp_path, capsys):
    out = tmp_path / "car.png"
    main(["plot", str(SAMPLES / "car" / "car.usda"), "-o", str(out)])
    assert out.read_bytes().startswith(PNG_SIGNATURE)
    assert "wrote" in capsys.readouterr().out


def test_unknown_vehicle_is_an_input_error(tmp_path):
    with pytest.raises(InputError, match="no vehicle"):
        plot_vehicle(read_stage(SAMPLES / "car" / "car.usda"), tmp_path / "x.png", "/World/Boat")
    assert not (tmp_path / "x.png").exists()


def test_cli_plot_without_output_is_a_usage_error(capsys):
    with pytest.raises(SystemExit) as done:
        main(["plot", str(SAMPLES / "car" / "car.usda")])
    assert done.value.code == 2


@pytest.mark.parametrize("preset, steered", [("tank", 0), ("basic_car", 2), ("truck", 2)])
def test_layout_marks_only_steered_wheels(preset, steered):
    import matplotlib.pyplot as plt

    fig = vehicle_figure(read_stage(author_vehicle(preset_spec(preset))))
    try:
        edges = [patch.get_edgecolor() for patch in fig.axes[2].patches]
        assert len(edges) == preset_spec(preset).wheel_count
        assert sum(1 for red, green, *_ in edges if red > 0.5 and green < 0.5) == steered
    finally:
        plt.close(fig)
