"""A simulation as time samples on a new USD layer that sublayers the simulated stage, for usdview playback.

The layer overrides each simulated vehicle prim and each of its wheel attachment prims with three ops,
`xformOp:translate:simulated` (time-sampled), `xformOp:orient:simulated` (time-sampled, double precision: USD turns a float quaternion of a tiny rotation into none) and
`xformOp:scale:simulated` (the prim's own authored scale), and makes them the prim's whole xformOpOrder,
so whatever ops the stage authored are replaced by the simulated motion. Time code k is the state after
k steps (the first one is the stage as authored); timeCodesPerSecond = 1/dt, so playback runs in real
time. When the stage has a drive cycle with a startTimeCode, the record starts at the same instant
(in seconds), so the controller's time samples line up with the motion.

Wheel orientations are the telemetry's (the body's times PhysX's wheel local orientation: suspension frame, camber
and steer plus toe, wheel frame, rotation about the lateral axis; sim/wheel.py wheel_orientation).
Parents of the vehicle prims are taken as static.
"""
from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
from pxr import Gf, Sdf, Usd, UsdGeom, Vt

from ..sim import vecmath
from ..stage.io import export_layer_atomic

if TYPE_CHECKING:
    from ..simulate import SimulationResult

OPS = ("xformOp:translate:simulated", "xformOp:orient:simulated", "xformOp:scale:simulated")
# Root-layer metadata the recorded stage must keep (the root layer decides the stage's units and axes).
_TIMING_KEYS = {"subLayers", "subLayerOffsets", "timeCodesPerSecond", "framesPerSecond", "startTimeCode",
                "endTimeCode", "primChildren"}


# -- quaternions (x, y, z, w) and 4x4 matrices in USD's row-vector convention -----------------------------

_WXYZ = [3, 0, 1, 2]  # telemetry (x, y, z, w) -> the core's component-first (w, x, y, z)
_XYZW = [1, 2, 3, 0]

def quat_mul(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Hamilton product of (..., 4) quaternions stored x, y, z, w (telemetry's order), via the core's own."""
    product = vecmath.quat_mul(np.moveaxis(a[..., _WXYZ], -1, 0), np.moveaxis(b[..., _WXYZ], -1, 0))
    return np.moveaxis(product, 0, -1)[..., _XYZW]


def rotation_rows(q: np.ndarray) -> np.ndarray:
    """(..., 3, 3) matrix R such that a row vector v maps to v @ R (USD's convention)."""
    unit = q / np.linalg.norm(q, axis=-1, keepdims=True)
    R = vecmath.quat_to_mat(np.moveaxis(unit[..., _WXYZ], -1, 0))  # (3, 3, ...), R[i, j]: column vectors
    return np.swapaxes(np.moveaxis(R, (0, 1), (-2, -1)), -1, -2)


def pose_matrices(position: np.ndarray, orientation: np.ndarray, scale: np.ndarray) -> np.ndarray:
    """(..., 4, 4) = S * R * T for row vectors."""
    m = np.zeros(position.shape[:-1] + (4, 4))
    m[..., :3, :3] = scale[..., :, None] * rotation_rows(orientation)
    m[..., 3, :3] = position
    m[..., 3, 3] = 1.0
    return m


def matrix_to_quat(r: np.ndarray) -> np.ndarray:
    """Rotation rows (..., 3, 3) -> (x, y, z, w), w >= 0."""
    m = np.swapaxes(r, -1, -2)  # column convention
    w = np.sqrt(np.maximum(0.0, 1 + m[..., 0, 0] + m[..., 1, 1] + m[..., 2, 2])) / 2
    x = np.sqrt(np.maximum(0.0, 1 + m[..., 0, 0] - m[..., 1, 1] - m[..., 2, 2])) / 2
    y = np.sqrt(np.maximum(0.0, 1 - m[..., 0, 0] + m[..., 1, 1] - m[..., 2, 2])) / 2
    z = np.sqrt(np.maximum(0.0, 1 - m[..., 0, 0] - m[..., 1, 1] + m[..., 2, 2])) / 2
    x = np.copysign(x, m[..., 2, 1] - m[..., 1, 2])
    y = np.copysign(y, m[..., 0, 2] - m[..., 2, 0])
    z = np.copysign(z, m[..., 1, 0] - m[..., 0, 1])
    q = np.stack((x, y, z, w), axis=-1)
    return q / np.linalg.norm(q, axis=-1, keepdims=True)


def _gf_matrix(m: Gf.Matrix4d) -> np.ndarray:
    return np.array(m, dtype=float).reshape(4, 4)


def _local_trs(m: np.ndarray, scale: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Translation and orientation of local matrices whose scale is known."""
    rows = m[..., :3, :3] / np.where(scale == 0.0, 1.0, scale)[..., :, None]
    rows = rows / np.linalg.norm(rows, axis=-1, keepdims=True)
    return m[..., 3, :3].copy(), matrix_to_quat(rows)


# -- the layer --------------------------------------------------------------------------------------------

def _static(prim: Usd.Prim, cache: UsdGeom.XformCache) -> dict[str, Any]:
    world = _gf_matrix(cache.GetLocalToWorldTransform(prim))
    parent = _gf_matrix(cache.GetParentToWorldTransform(prim))
    local = Gf.Transform(cache.GetLocalTransformation(prim)[0])
    world_scale = np.array(Gf.Transform(cache.GetLocalToWorldTransform(prim)).GetScale(), dtype=float)
    q = local.GetRotation().GetQuat()
    return {"world": world, "parent": parent, "local_scale": np.array(local.GetScale(), dtype=float),
            "world_scale": world_scale, "translate": np.array(local.GetTranslation(), dtype=float),
            "orient": np.array([*q.GetImaginary(), q.GetReal()], dtype=float)}


def playback_rate(dt: float) -> float:
    """Time codes (and frames) per second for steps of `dt`: the number with the fewest significant digits within
    10 ppm of 1/dt, which is what a dt typed as a rounded decimal means (0.016666667 -> 60, not 59.99999880000003;
    0.0416667 -> 24; 0.007 -> 142.857); playback drifts from the simulated time by at most 36 ms an hour."""
    exact = 1.0 / dt
    for digits in range(1, 17):
        rate = float(f"{exact:.{digits}g}")
        if abs(rate * dt - 1.0) < 1e-5:
            return rate
    return exact


def record_layer(result: "SimulationResult", stage: Usd.Stage, source_identifier: str, output: str | os.PathLike) -> Sdf.Layer:
    """Build the layer (in memory) that plays `result` back on `stage`; `output` decides the sublayer path."""
    assert result.loaded is not None
    bodies, wheels = result.arrays["bodies"], result.arrays["wheels"]
    for kind, name in (("bodies", "position"), ("bodies", "orientation"), ("wheels", "position"),
                       ("wheels", "orientation")):
        if name not in result.arrays[kind]:
            raise ValueError(f"the result has no {kind} {name}; run with outputs including 'record'")
    layer = Sdf.Layer.CreateAnonymous(".usda")
    _copy_stage_metadata(stage.GetRootLayer(), layer)
    layer.subLayerPaths.append(_sublayer_path(source_identifier, output))
    fps = playback_rate(result.dt)
    layer.timeCodesPerSecond = fps
    layer.framesPerSecond = fps
    first = result.time_code_offset
    layer.startTimeCode = first
    layer.endTimeCode = first + result.steps
    times = first + np.arange(result.steps + 1, dtype=float)

    cache = UsdGeom.XformCache(Usd.TimeCode.Default())
    for v, path in enumerate(result.paths):
        prim = stage.GetPrimAtPath(path)
        body = _static(prim, cache)
        # frames 1..steps from the simulation, frame 0 as authored
        vehicle_world = pose_matrices(bodies["position"][:, v], bodies["orientation"][:, v], body["world_scale"])
        local = vehicle_world @ np.linalg.inv(body["parent"])
        translate, orient = _local_trs(local, body["local_scale"])
        _author(layer, path, times, np.vstack((body["translate"], translate)), np.vstack((body["orient"], orient)),
                body["local_scale"])

        wheel_q = wheels["orientation"][:, v]
        vehicle_static_inverse = np.linalg.inv(body["world"])
        for w, wheel_path in enumerate(result.wheel_paths[v]):
            wheel_prim = stage.GetPrimAtPath(wheel_path)
            wheel = _static(wheel_prim, cache)
            wheel_world = pose_matrices(wheels["position"][:, v, w], wheel_q[:, w], wheel["world_scale"])
            if wheel_prim.GetParent().GetPath().HasPrefix(prim.GetPath()):
                # the parent moves with the vehicle: its pose relative to the vehicle stays as authored
                parent = (wheel["parent"] @ vehicle_static_inverse)[None] @ vehicle_world
            else:
                parent = np.broadcast_to(wheel["parent"], vehicle_world.shape)
            local = wheel_world @ np.linalg.inv(parent)
            translate, orient = _local_trs(local, wheel["local_scale"])
            _author(layer, wheel_path, times, np.vstack((wheel["translate"], translate)),
                    np.vstack((wheel["orient"], orient)), wheel["local_scale"])
    return layer


def write_record(result: "SimulationResult", stage: Usd.Stage, source_identifier: str, output: str | os.PathLike) -> None:
    """Write the playback layer to `output` atomically."""
    export_layer_atomic(record_layer(result, stage, source_identifier, output), output)


def _copy_stage_metadata(source: Sdf.Layer, target: Sdf.Layer) -> None:
    for key in source.pseudoRoot.ListInfoKeys():
        if key not in _TIMING_KEYS:
            target.pseudoRoot.SetInfo(key, source.pseudoRoot.GetInfo(key))


def _sublayer_path(source_identifier: str, output: str | os.PathLike) -> str:
    """The input as the record layer should name it: relative to the output's folder, so both can move together."""
    if Sdf.Layer.IsAnonymousLayerIdentifier(source_identifier) or not os.path.exists(source_identifier):
        return source_identifier
    relative = Path(os.path.relpath(os.path.abspath(source_identifier), os.path.dirname(os.path.abspath(output))))
    text = relative.as_posix()
    return text if text.startswith("../") else "./" + text


def _author(layer: Sdf.Layer, path: str, times: np.ndarray, translate: np.ndarray, orient: np.ndarray,
            scale: np.ndarray) -> None:
    spec = Sdf.CreatePrimInLayer(layer, path)
    translate_spec = Sdf.AttributeSpec(spec, OPS[0], Sdf.ValueTypeNames.Double3)
    orient_spec = Sdf.AttributeSpec(spec, OPS[1], Sdf.ValueTypeNames.Quatd)
    scale_spec = Sdf.AttributeSpec(spec, OPS[2], Sdf.ValueTypeNames.Float3)
    scale_spec.default = Gf.Vec3f(*scale.tolist())
    order = Sdf.AttributeSpec(spec, "xformOpOrder", Sdf.ValueTypeNames.TokenArray, Sdf.VariabilityUniform)
    order.default = Vt.TokenArray(list(OPS))
    t_list, p_list, q_list = times.tolist(), translate.tolist(), orient.tolist()
    translate_path, orient_path = translate_spec.path, orient_spec.path
    for t, p, q in zip(t_list, p_list, q_list):
        layer.SetTimeSample(translate_path, t, Gf.Vec3d(*p))
        layer.SetTimeSample(orient_path, t, Gf.Quatd(q[3], q[0], q[1], q[2]))
