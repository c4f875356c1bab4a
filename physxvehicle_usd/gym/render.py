"""A top-down picture of each vehicle of an environment, drawn with numpy alone: `render_mode="rgb_array"`.

Each frame looks down on one vehicle (against gravity), centred on its prim, north up: the world's axes stay put and
the vehicle turns in the frame. The chassis is the box around its wheels' centres, its front quarter lighter (the
heading), the wheels dark boxes (their radius long, their width wide), the goal a red square, and a grid of lines
every `GRID` metres shows how the vehicle moves over the ground. Every frame is drawn at once, as whole-batch
array operations (no loop over vehicles), the vehicles within the square around the centre that holds them.
"""
from __future__ import annotations

import numpy as np

from ..sim import vecmath as vm
from ..sim.state import SimParams

GRID = 5.0  # metres between grid lines
BACKGROUND = (236, 234, 224)
GRID_LINE = (196, 194, 184)
CHASSIS = (44, 104, 196)
FRONT = (250, 196, 64)
FROZEN = (200, 60, 60)  # the chassis of a vehicle the guard froze
WHEEL = (30, 30, 30)
GOAL = (220, 40, 40)


class TopDown:
    """Frames of `size` x `size` pixels, `metres` across, for the vehicles of `p`."""

    def __init__(self, p: SimParams, size: int = 128, metres: float = 24.0):
        if not (isinstance(size, (int, np.integer)) and size >= 16):
            raise ValueError(f"render_size must be a whole number of pixels, 16 or more (got {size!r})")
        if not metres > 0:
            raise ValueError(f"render_metres must be > 0 (got {metres!r})")
        self.size, self.metres = int(size), float(metres)
        inv = 1.0 / p.length_scale.astype(float)  # stage lengths -> metres
        # the wheels in the vehicle's frame (longitudinal, lateral; metres, from the vehicle prim): the attachment
        # (from the centre of mass, body frame) plus the centre of mass (from the prim)
        R_com = vm.quat_to_mat(p.com_orientation.astype(float))
        com_body = vm.matTvec(R_com, p.com_position.astype(float))
        axes = np.einsum("jiv,kjv->kiv", R_com, np.stack((p.lng_axis, p.lat_axis)).astype(float))  # (2, 3, V) body
        wheel = p.attachment_position.astype(float) + com_body[:, :, None]  # (3, V, W) body frame, stage units
        self.wheel = np.einsum("kiv,ivw->kvw", axes, wheel) * inv[None, :, None]  # (2, V, W)
        self.radius = p.radius.astype(float) * inv[:, None]
        self.half_width = p.half_width.astype(float) * inv[:, None]
        self.mask = p.mask
        lng, lat = (np.where(p.mask, self.wheel[k], np.nan) for k in (0, 1))
        self.centre = np.stack((np.nanmax(lng, 1) + np.nanmin(lng, 1), np.nanmax(lat, 1) + np.nanmin(lat, 1))) / 2
        self.half_length = (np.nanmax(lng, 1) - np.nanmin(lng, 1)) / 2 + np.nanmax(np.where(p.mask, self.radius,
                                                                                            np.nan), 1)
        self.half_track = np.maximum((np.nanmax(lat, 1) - np.nanmin(lat, 1)) / 2
                                     - np.nanmax(np.where(p.mask, self.half_width, np.nan), 1), 0.1)
        g = p.gravity.astype(float)[:, 0]
        up = -g / np.linalg.norm(g) if np.linalg.norm(g) > 0 else np.array([0.0, 0.0, 1.0])
        # the picture's east and north: the world axis farthest from up, made square to it, and up x east
        first = np.eye(3)[np.argmin(np.abs(up))]
        east = first - up * (first @ up)
        east /= np.linalg.norm(east)
        self.plane = np.stack((east, np.cross(up, east)))  # (2, 3)
        # pixel centres as offsets from the frame's centre, metres: east across, north up the picture
        self.step = self.metres / self.size
        offsets = (np.arange(self.size) + 0.5 - self.size / 2) * self.step
        self.east_of_centre, self.north_of_centre = offsets, -offsets
        # the vehicles are drawn in the square of pixels around the centre that holds the farthest of them
        corners = np.hypot(np.abs(self.centre[0]) + self.half_length, np.abs(self.centre[1]) + self.half_track)
        wheels = np.hypot(np.abs(self.wheel[0]) + self.radius, np.abs(self.wheel[1]) + self.half_width)
        reach = max(float(corners.max()), float(np.max(np.where(p.mask, wheels, 0.0))))
        half = min(self.size // 2, int(np.ceil(reach / self.step)) + 1)
        self.window = slice(self.size // 2 - half, self.size // 2 + half)

    def frames(self, position: np.ndarray, axes: np.ndarray, goal: np.ndarray, frozen: np.ndarray) -> np.ndarray:
        """(V, size, size, 3) uint8. position (3, V) world, metres; axes (2, 3, V) the vehicles' longitudinal and
        lateral axes, world; goal (V, 2) the goal in the vehicle's frame (forward, lateral; metres)."""
        V, n = position.shape[1], self.size
        image = np.empty((V, n, n, 3), np.uint8)
        image[...] = BACKGROUND
        at = self.plane @ position  # (2, V): east, north of each vehicle
        east = at[0][:, None] + self.east_of_centre  # (V, n) metres, per column
        north = at[1][:, None] + self.north_of_centre  # (V, n) per row
        line = 0.5 * self.metres / n  # half a pixel: lines one pixel wide
        on_column = np.abs(east - GRID * np.round(east / GRID)) < line
        on_row = np.abs(north - GRID * np.round(north / GRID)) < line
        image[on_row[:, :, None] | on_column[:, None, :]] = GRID_LINE
        # each pixel of the window in each vehicle's frame: its offset from the prim along the vehicle's axes
        # (flattened onto the ground: the axes' east and north parts, normalised)
        heading = np.einsum("ij,kjv->kvi", self.plane, axes)  # (2 axes, V, 2 plane)
        heading /= np.maximum(np.linalg.norm(heading, axis=2, keepdims=True), 1e-9)
        de = self.east_of_centre[None, None, self.window]  # (1, 1, m)
        dn = self.north_of_centre[None, self.window, None]  # (1, m, 1)
        lng = heading[0, :, 0, None, None] * de + heading[0, :, 1, None, None] * dn  # (V, m, m)
        lat = heading[1, :, 0, None, None] * de + heading[1, :, 1, None, None] * dn
        x, y = lng - self.centre[0, :, None, None], lat - self.centre[1, :, None, None]
        half_length = self.half_length[:, None, None]
        chassis = (np.abs(x) <= half_length) & (np.abs(y) <= self.half_track[:, None, None])
        still = ~frozen[:, None, None]
        view = image[:, self.window, self.window]
        view[chassis] = CHASSIS
        view[chassis & ~still] = FROZEN
        view[chassis & (x >= half_length / 2) & still] = FRONT
        wheels = np.zeros_like(chassis)
        for w in range(self.wheel.shape[2]):  # a handful of wheels (tracks: a few more)
            near = ((np.abs(lng - self.wheel[0, :, w, None, None]) <= self.radius[:, w, None, None])
                    & (np.abs(lat - self.wheel[1, :, w, None, None]) <= self.half_width[:, w, None, None]))
            wheels |= near & self.mask[:, w, None, None]
        view[wheels] = WHEEL
        # the goal: a square five pixels wide around its pixel, where that lies in the frame
        to_goal = goal[:, 0, None] * heading[0] + goal[:, 1, None] * heading[1]  # (V, 2) east, north
        column = np.floor(n / 2 + to_goal[:, 0] / self.step).astype(np.int64)
        row = np.floor(n / 2 - to_goal[:, 1] / self.step).astype(np.int64)
        for dr in range(-2, 3):
            for dc in range(-2, 3):
                r, c = row + dr, column + dc
                inside = (r >= 0) & (r < n) & (c >= 0) & (c < n)
                image[np.flatnonzero(inside), r[inside], c[inside]] = GOAL
        return image
