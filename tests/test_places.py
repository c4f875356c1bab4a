"""tests/scenarios/places.py: a stage with the whole world moved along X, for PhysX against itself at other places
(the runs themselves are in tests/test_conformance_spread_regimes.py, soak)."""
from __future__ import annotations

import numpy as np
import pytest
from pxr import Usd, UsdGeom
from scenarios import roads, spread_regimes
from scenarios.places import moved


def _world(path) -> dict[str, np.ndarray]:
    """Every prim's local-to-world translation, and a mesh's points in world space."""
    stage = Usd.Stage.Open(str(path))
    cache = UsdGeom.XformCache()
    out = {}
    for prim in stage.Traverse():
        if prim.IsA(UsdGeom.Xformable):
            m = cache.GetLocalToWorldTransform(prim)
            out[str(prim.GetPath())] = np.array(m.ExtractTranslation())
            if prim.IsA(UsdGeom.Mesh):
                points = np.array(UsdGeom.Mesh(prim).GetPointsAttr().Get(), float)
                out[f"{prim.GetPath()}.points"] = np.array([m.Transform(tuple(p)) for p in points])
    return out


@pytest.mark.parametrize("build", [lambda folder: spread_regimes.ramp(folder / "ramp.usda"),
                                   lambda folder: roads.mixed_fleet(folder / "fleet.usda")], ids=["ramp", "fleet"])
def test_the_whole_world_moves_along_x_and_nothing_else_changes(tmp_path, build):
    # the ramp: the car's translate and the ramp mesh's world-space points; the fleet: translates and the ground
    # plane's matrix op. Every placed prim moves by the same offset; a child keeps its place on its parent
    source = build(tmp_path)
    before, after = _world(source), _world(moved(source, tmp_path / "moved.usda", 7.3))
    assert before.keys() == after.keys() and any(k.endswith(".points") for k in before) == ("ramp" in source.name)
    # what stays: the world's root, which places nothing, a ground plane without a translate (infinite along X), and
    # the transform of a mesh authored in world coordinates (its points move)
    stays = {"/World"} | ({"/World/GroundPlane", "/World/Ramp"} if "ramp" in source.name else set())
    for key in stays:
        assert np.array_equal(after[key], before[key]), key
    for key, where in before.items():
        if key in stays:
            continue
        shift = after[key] - where
        assert np.allclose(shift[..., 0], 7.3, atol=1e-5) and np.allclose(shift[..., 1:], 0.0, atol=1e-6), key


def test_a_figure_is_held_to_the_gate_or_to_one_and_a_half_times_physxs_own_spread():
    from scenarios.places import SPREAD_FACTOR, spread_gate

    assert SPREAD_FACTOR == 1.5
    assert spread_gate(0.0, 0.02) == 0.02 and spread_gate(0.013, 0.02) == 0.02  # 1.5 x 1.3 % is under 2 %
    assert spread_gate(0.1, 0.02) == 0.1 * 1.5
