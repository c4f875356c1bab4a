"""A uniform grid over the ground's triangles, for suspension queries against large meshes.

Testing every wheel's query against every triangle costs wheels x triangles a step: 4,000 wheels on a road of
60,000 triangles would be 240 million ray-triangle tests. The grid bins each triangle's bounding box into square
cells over the two axes along which the meshes spread most (for a road: the ground plane, whatever the stage's up
axis is); a query (a ray's segment, a swept wheel's box, a chassis box) meets only the triangles binned in the cells
its own box covers, and of those cells only the ones whose triangles reach its box along the third axis (a chassis
over a road spans dozens of cells, all beneath it). Which triangles are candidates changes nothing else: the tests
and the choice of the closest hit are the same as against every triangle.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from . import compiled_mesh

# Cell edge over the typical triangle's size. A suspension ray seen from above is nearly a point, so small cells give
# it few candidates; each triangle is then listed in several cells. 1,000 cars on a 133,000-triangle road (bench_sim.py
# --road bumps) took 28.4 ms a step with cells of 2 triangles, 13.2 ms with 1 and 11.0 ms with half a triangle (1.3
# million entries), on a machine busy with other work.
CELL_TRIANGLES = 0.5
MAX_CELLS_PER_TRIANGLE = 8.0  # on average; bounds the grid's memory for meshes of very uneven triangles


@dataclass(frozen=True)
class TriangleGrid:
    axes: tuple[int, int]  # the two world axes the cells span
    origin: np.ndarray  # (2,) the low corner of cell (0, 0)
    cell: float  # cell edge length
    size: tuple[int, int]  # cells along each axis
    starts: np.ndarray  # (cells + 1,) where each cell's triangles start in `triangles` (cell = i * size[1] + j)
    triangles: np.ndarray  # triangle indices, cell after cell
    triangle_columns: np.ndarray  # (9, T): v0, v1 - v0, v2 - v0 component by component, one gather for a query's pairs
    triangle_boxes: np.ndarray  # (6, T): each triangle's box, low corner then high corner
    first_cell: np.ndarray  # (T, 2): the first cell (i, j) of each triangle's range, to list a pair once
    cell_low: np.ndarray  # (cells,) the lowest of a cell's triangles along the third axis (+inf: none)
    cell_high: np.ndarray  # (cells,) the highest (-inf: none)

    @classmethod
    def build(cls, v0: np.ndarray, e1: np.ndarray, e2: np.ndarray) -> "TriangleGrid":
        """The grid of the triangles v0, v0 + e1, v0 + e2 (each (T, 3))."""
        corners = np.stack((v0, v0 + e1, v0 + e2))
        lo, hi = corners.min(axis=0), corners.max(axis=0)
        extent = hi.max(axis=0) - lo.min(axis=0)
        axes = tuple(int(a) for a in np.sort(np.argsort(extent)[1:]))  # drop the axis the meshes spread least along
        lo2, hi2 = lo[:, axes], hi[:, axes]
        ext = hi2 - lo2
        # a triangle's size: the geometric mean of its box's sides, neither taken below an eighth of the other
        span = np.sqrt(np.maximum(ext[:, 0], ext[:, 1] / 8.0) * np.maximum(ext[:, 1], ext[:, 0] / 8.0))
        cell = CELL_TRIANGLES * float(np.median(span))
        area = float(np.prod(np.maximum(hi2.max(axis=0) - lo2.min(axis=0), 1e-9)))
        cell = max(cell, np.sqrt(area / (MAX_CELLS_PER_TRIANGLE * len(lo))), 1e-6)
        origin = lo2.min(axis=0)
        size = tuple(int(n) for n in np.floor((hi2.max(axis=0) - origin) / cell).astype(np.int64) + 1)
        first, last = _cell_range(lo2, hi2, origin, cell, size)
        triangle, cells = _expand(first, last, size)
        order = np.argsort(cells, kind="stable")  # a cell's triangles in index order
        starts = np.zeros(size[0] * size[1] + 1, dtype=np.int64)
        np.cumsum(np.bincount(cells, minlength=size[0] * size[1]), out=starts[1:])
        listed = triangle[order]
        up = 3 - axes[0] - axes[1]
        filled = np.nonzero(starts[1:] > starts[:-1])[0]
        cell_low = np.full(size[0] * size[1], np.inf)
        cell_high = np.full(size[0] * size[1], -np.inf)
        if filled.size:  # consecutive filled cells' runs abut: reduceat over their starts gives each run's extreme
            cell_low[filled] = np.minimum.reduceat(lo[listed, up], starts[filled])
            cell_high[filled] = np.maximum.reduceat(hi[listed, up], starts[filled])
        return cls(axes, origin, cell, size, starts, listed, np.concatenate((v0, e1, e2), axis=1).T.copy(),
                   np.concatenate((lo, hi), axis=1).T.copy(), np.ascontiguousarray(first), cell_low, cell_high)

    def box(self, triangles: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The boxes (low, high corners: (n, 3) each) of some triangles."""
        columns = self.triangle_boxes[:, triangles]
        return columns[:3].T, columns[3:].T

    def pairs(self, lo: np.ndarray, hi: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(query, triangle) index pairs whose boxes may overlap, each once, for queries with bounding boxes lo, hi
        (Q, 3); a query outside the grid has none. Compiled (sim/compiled_mesh.py) where the extension is loaded: the
        pairs of `numpy_pairs`, in its order."""
        compiled = compiled_mesh.grid_pairs(self, lo, hi, overlap=False)
        return self.numpy_pairs(lo, hi) if compiled is None else compiled

    def numpy_pairs(self, lo: np.ndarray, hi: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """`pairs` in numpy (the reference): query after query, its cells row after row, a cell's triangles in the
        grid's order."""
        lo2, hi2 = lo[:, self.axes], hi[:, self.axes]
        outside = ((hi2 < self.origin) | (lo2 > self.origin + self.cell * np.asarray(self.size))).any(axis=1)
        first, last = _cell_range(lo2, hi2, self.origin, self.cell, self.size)
        query, cells = _expand(first, last, self.size, keep=~outside)
        # a cell whose triangles all lie above or below the query's box along the third axis gives it none: a chassis
        # box over a road spans dozens of cells whose triangles are all beneath it
        up = 3 - self.axes[0] - self.axes[1]
        near = (self.cell_low[cells] <= hi[query, up]) & (self.cell_high[cells] >= lo[query, up])
        query, cells = query[near], cells[near]
        count = self.starts[cells + 1] - self.starts[cells]
        query = np.repeat(query, count)
        # positions in `triangles`: each cell's run start, then 0, 1, ... within the run
        run_start = np.repeat(self.starts[cells], count)
        within = np.arange(len(query)) - np.repeat(np.cumsum(count) - count, count)
        triangle = self.triangles[run_start + within]
        # a pair whose two cell ranges share several cells is met in each: keep it in the first shared one, the
        # corner (max of the two first cells) where the ranges' overlap starts
        cell = np.repeat(cells, count)
        start = np.maximum(first[query], self.first_cell[triangle])
        once = (cell // self.size[1] == start[:, 0]) & (cell % self.size[1] == start[:, 1])
        return query[once], triangle[once]


def _cell_range(lo2: np.ndarray, hi2: np.ndarray, origin: np.ndarray, cell: float, size: tuple[int, int]):
    """The first and last cell (i, j) each box covers, clipped to the grid: (n, 2) each."""
    top = np.asarray(size) - 1
    first = np.clip(np.floor((lo2 - origin) / cell), 0, top).astype(np.int64)
    last = np.clip(np.floor((hi2 - origin) / cell), 0, top).astype(np.int64)
    return first, last


def _expand(first: np.ndarray, last: np.ndarray, size: tuple[int, int], keep: np.ndarray | None = None):
    """Every (box, cell) of boxes covering the cell ranges first..last: box indices and flat cell indices."""
    n_i, n_j = last[:, 0] - first[:, 0] + 1, last[:, 1] - first[:, 1] + 1
    count = n_i * n_j if keep is None else np.where(keep, n_i * n_j, 0)
    box = np.repeat(np.arange(len(first)), count)
    k = np.arange(len(box)) - np.repeat(np.cumsum(count) - count, count)  # 0 .. count - 1 within each box
    i = first[box, 0] + k // n_j[box]
    j = first[box, 1] + k % n_j[box]
    return box, i * size[1] + j
