"""`plot`: a PNG of a vehicle's tuning for every kind of drive."""
from __future__ import annotations

from pathlib import Path

import pytest

from physxvehicle_usd.author import author_vehicle, preset_spec
from physxvehicle_usd.cli import main
from physxvehicle_usd.errors import InputError
from physxvehicle_usd.outputs.plot import figure_bytes, figure_format, plot_vehicle, vehicle_figure
from physxvehicle_usd.read import read_stage

SAMPLES = Path(__file__).resolve().parent.parent / "samples"
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


@pytest.mark.parametrize("preset", ["car", "basic_car", "tank", "robot_base"])
def test_figure_has_every_panel_for_every_drive(preset):
    import matplotlib.pyplot as plt

    fig = vehicle_figure(read_stage(author_vehicle(preset_spec(preset), "cm")))
    try:
        panels = fig.axes[:6]  # the 2 x 3 grid; twin axes (a second y scale) come after it
        empty = [ax.get_title() for ax in panels if not (ax.get_lines() or ax.patches or ax.collections or ax.texts)]
        assert len(panels) == 6 and not empty, empty
    finally:
        plt.close(fig)


def test_plot_writes_a_png(tmp_path):
    out = tmp_path / "car.png"
    plot_vehicle(read_stage(author_vehicle(preset_spec("car"), "cm")), out)
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


# What each extension must produce: the file's first bytes.
SIGNATURES = {".png": PNG_SIGNATURE, ".svg": b"<?xml", ".pdf": b"%PDF", ".jpg": b"\xff\xd8\xff", ".jpeg": b"\xff\xd8\xff",
              ".eps": b"%!PS-Adobe", ".tif": b"II*\x00"}


@pytest.mark.parametrize("suffix", sorted(SIGNATURES))
def test_each_extension_names_a_format_matplotlib_writes(suffix):
    # a small figure: what is tested is the extension -> format mapping; the CLI writes a whole one below
    import matplotlib.pyplot as plt

    data = figure_bytes(plt.figure(figsize=(1, 1)), figure_format(f"car{suffix}"))
    assert data.startswith(SIGNATURES[suffix]), data[:16]
    if suffix == ".svg":
        assert b"<svg" in data[:2000]


def test_cli_plot_writes_the_format_the_extension_names(tmp_path):
    out = tmp_path / "car.pdf"
    main(["plot", str(SAMPLES / "car" / "car.usda"), "-o", str(out)])
    assert out.read_bytes().startswith(SIGNATURES[".pdf"])


@pytest.mark.parametrize("name", ["car.gif", "car.txt", "car"])
def test_cli_plot_refuses_an_extension_it_cannot_write(tmp_path, capfd, name):
    out = tmp_path / name
    with pytest.raises(SystemExit) as done:
        main(["plot", str(SAMPLES / "car" / "car.usda"), "-o", str(out)])
    assert done.value.code == 2
    err = capfd.readouterr().err
    assert len(err.strip().splitlines()) == 1 and ".png, .svg, .pdf" in err, err
    assert not out.exists()


def test_simulate_plot_writes_svg_and_refuses_gif_before_running(tmp_path, capfd):
    car = SAMPLES / "car" / "car.usda"
    with pytest.raises(SystemExit) as done:
        main(["simulate", str(car), "--steps", "5", "--dt", "0.02", "--plot", str(tmp_path / "p.gif")])
    assert done.value.code == 2 and "not a figure format" in capfd.readouterr().err
    main(["simulate", str(car), "--steps", "5", "--dt", "0.02", "--plot", str(tmp_path / "p.svg")])
    assert (tmp_path / "p.svg").read_bytes().startswith(b"<?xml")


def test_reverse_gear_is_drawn_backwards_not_under_first_gear():
    import matplotlib.pyplot as plt

    fig = vehicle_figure(read_stage(SAMPLES / "car" / "car.usda"))
    try:
        lines = {line.get_label().split(" (")[0]: line for line in fig.axes[1].get_lines()}
        reverse, first = lines["reverse"].get_xdata(), lines["gear 1"].get_xdata()
        assert max(reverse) <= 0 < max(first)
        assert min(reverse) == pytest.approx(-max(first))  # the sample's reverse ratio is -4, first gear's 4
    finally:
        plt.close(fig)


def test_simulation_plot_labels_reverse_below_neutral():
    import matplotlib.pyplot as plt
    import numpy as np

    from physxvehicle_usd import simulate
    from physxvehicle_usd.outputs.sim_plot import simulation_figure

    result = simulate.run(SAMPLES / "car" / "car.usda", 60, 1 / 60, outputs=("plot",),
                          controls={"accelerator": 1.0, "targetGear": -1})
    assert result.vehicles[0].gear == -1
    fig = simulation_figure(result)
    try:
        gear_axis = fig.axes[2]
        ticks = dict(zip(gear_axis.get_yticks(), (t.get_text() for t in gear_axis.get_yticklabels())))
        # one word for each gear, the text summary's too
        assert ticks[-1] == "reverse" and ticks[0] == "neutral" and ticks[1] == "1"
        drawn = gear_axis.get_lines()[0].get_ydata()
        assert np.all(np.asarray(drawn)[-5:] == -1)  # in reverse at the end, drawn at reverse
    finally:
        plt.close(fig)
