"""A patch's points reduced to PhysX's manifold: at most four per pair and normal (six kept whole for a convex shape
on a triangle mesh): the deepest, the one farthest from it, the one making the largest triangle with them, and the
one farthest outside that triangle."""
from __future__ import annotations

import numpy as np

from .. import compiled_bookkeeping, compiled_manifolds
from .geometry import SAME_NORMAL
from .records import Contacts, contacts_subset, run_lengths, run_starts

MAX_POINTS = 4  # PhysX's manifold: four points per contact patch

# ... but a convex shape's patch on a triangle mesh (a patch of PCM's multi-manifold) keeps up to six whole
# (GU_SINGLE_MANIFOLD_CACHE_SIZE): a box lying across two triangles keeps its corners and the diagonal's crossings
MESH_PATCH_POINTS = 6


def reduce_contacts(c: Contacts, whole: np.ndarray | None = None) -> Contacts:
    """At most MAX_POINTS contacts per pair and normal (the module docstring's rule), patch after patch (in the order of
    their first contact), in generation order within a patch; every pair and patch at once. whole (C,): how many
    points each contact's patch keeps whole (None: MAX_POINTS); a larger patch is reduced to MAX_POINTS. Compiled
    (sim/compiled_manifolds.py) where the extension is loaded and covers the call: the same bits as
    `reduce_contacts_numpy`."""
    if not len(c):
        return c
    whole = np.full(len(c), MAX_POINTS) if whole is None else whole
    if (compiled_bookkeeping.available() and c.point.dtype == c.normal.dtype == c.separation.dtype == np.float64
            and c.normal.strides[1] == 8 and compiled_bookkeeping.same_normal_agrees(SAME_NORMAL)):
        # (einsum's sums of the normals' products: over a contiguous axis, as the C sums them)
        index, patch = compiled_manifolds.reduce_contacts(c.shape, c.static, c.point, c.normal, c.separation,
                                                          whole)
        # every contact kept in its order (a pair's few points, most steps): its arrays as they are (read, never
        # written), not copied
        whole_kept = len(index) == len(c) and _ascending(index)
        out = Contacts(c.shape, c.static, c.point, c.normal, c.separation, c.pair) if whole_kept else contacts_subset(
            c, index)
        out.patch = patch
        return out
    return reduce_contacts_numpy(c, whole)


def _ascending(index: np.ndarray) -> bool:
    """Whether the indices increase strictly: a few compared in Python (a step's pair or two), more in numpy."""
    if len(index) <= 16:
        values = index.tolist()
        return all(a < b for a, b in zip(values, values[1:]))
    return bool((index[1:] > index[:-1]).all())


def reduce_contacts_numpy(c: Contacts, whole: np.ndarray | None = None) -> Contacts:
    """`reduce_contacts` in numpy: the reference."""
    if not len(c):
        return c
    whole = np.full(len(c), MAX_POINTS) if whole is None else whole
    shape, static = c.shape, c.static
    if not ((shape[1:] > shape[:-1]) | ((shape[1:] == shape[:-1]) & (static[1:] >= static[:-1]))).all():
        order = np.lexsort((static, shape))  # (in pair order already, the sort would keep the order)
        c, whole = contacts_subset(c, order), whole[order]
    n = len(c)
    new_pair = run_starts(c.shape, c.static)
    pair = np.cumsum(new_pair) - 1
    # patches: the first contact of a pair not yet in a patch takes every such contact whose normal agrees with its
    # own, then the next, as long as any is left (a pair has a few normals: one per triangle of a mesh it meets); in
    # the first round every contact is free, and its pair's first is where the pair begins
    index = np.arange(n)
    lead = np.flatnonzero(new_pair)[pair]
    leader = np.where(np.einsum("cj,cj->c", c.normal, c.normal[lead]) >= SAME_NORMAL, lead, -1)
    while (leader < 0).any():
        free = leader < 0
        first = np.full(pair[-1] + 1, n)
        np.minimum.at(first, pair[free], index[free])
        lead = first[pair]
        has = lead < n
        agree = np.einsum("cj,cj->c", c.normal, c.normal[np.minimum(lead, n - 1)]) >= SAME_NORMAL
        leader = np.where(free & has & agree, lead, leader)
    if not (leader[1:] >= leader[:-1]).all():  # patch by patch, generation order within one
        patch_order = np.lexsort((index, leader))
        c, leader, whole = contacts_subset(c, patch_order), leader[patch_order], whole[patch_order]
    start = run_starts(leader)
    patch = np.cumsum(start) - 1
    # a point made twice in a patch (the shared edge of two triangles of one mesh) counts once, as PCM's manifold
    # keeps one point where a new one lands on an old one
    grid = 1e-7 * max(1.0, float(np.abs(c.point).max()))
    first = first_of_equals(patch, np.round(c.point / grid))
    if not first.all():
        c, leader, patch, whole = contacts_subset(c, first), leader[first], patch[first], whole[first]
        start = run_starts(leader)
    keep = _four(c.point, c.separation, patch, np.nonzero(start)[0], whole[start])
    out = contacts_subset(c, keep)
    patch = patch[keep]  # (non-decreasing) numbered anew from 0
    out.patch = np.cumsum(run_starts(patch)) - 1
    return out


# a patch of more points than this finds its repeated points by sorting rather than by comparing every two
_PAIRWISE_POINTS = 32

# a step of this many points or fewer compares every two at once
_ALL_PAIRS_POINTS = 64


def first_of_equals(patch: np.ndarray, key: np.ndarray) -> np.ndarray:
    """(C,) whether each contact is the first of its patch (`patch`: contiguous, non-decreasing) with its `key`
    (C, 3) (compared as numbers: -0 equals 0, NaN equals nothing). A patch holds a few points: each is compared with
    the ones before it in its patch, one offset at a time (a few points in all: every two at once)."""
    C = len(patch)
    if C <= _ALL_PAIRS_POINTS:  # few points: every two at once
        repeated = np.tri(C, k=-1, dtype=bool) & (patch[:, None] == patch[None, :])  # an earlier one, same patch
        for axis in range(3):
            repeated &= key[:, None, axis] == key[None, :, axis]
        return ~repeated.any(axis=1)
    longest = int(run_lengths(np.flatnonzero(run_starts(patch)), C).max())
    if longest > _PAIRWISE_POINTS:  # the rows' first occurrences, by a stable sort of the rows
        first = np.zeros(C, bool)
        rows = np.concatenate([patch[:, None].astype(key.dtype), key], axis=1)
        first[np.unique(rows, axis=0, return_index=True)[1]] = True
        return first
    repeated = np.zeros(C, bool)
    for d in range(1, longest):
        repeated[d:] |= ((patch[d:] == patch[:-d]) & (key[d:, 0] == key[:-d, 0]) & (key[d:, 1] == key[:-d, 1])
                         & (key[d:, 2] == key[:-d, 2]))
    return ~repeated


def _four(point: np.ndarray, separation: np.ndarray, patch: np.ndarray, starts: np.ndarray,
          whole: np.ndarray | int = MAX_POINTS) -> np.ndarray:
    """Which contacts to keep (mask), patches (contiguous, numbered from 0, starting at `starts`) of at most `whole`
    (per patch) kept whole, of the others: the deepest, the one farthest from it, the one making the largest triangle
    with them, and the one farthest outside that triangle (the first of equals each time)."""
    counts = run_lengths(starts, len(patch))
    keep = counts[patch] <= np.broadcast_to(whole, counts.shape)[patch]
    big = ~keep
    if not big.any():
        return keep
    rows = np.nonzero(big)[0]
    pt, sep, seg = point[rows], separation[rows], patch[rows]
    segments = np.unique(seg)
    slot = np.searchsorted(segments, seg)
    count = len(segments)

    def first_best(value: np.ndarray, lowest: bool = False) -> np.ndarray:
        value = -value if lowest else value
        best = np.full(count, -np.inf)
        np.maximum.at(best, slot, value)
        at = np.full(count, len(value))
        hit = value == best[slot]
        np.minimum.at(at, slot[hit], np.nonzero(hit)[0])
        return at

    c0 = first_best(sep, lowest=True)
    p0 = pt[c0][slot]
    c1 = first_best(((pt - p0) ** 2).sum(1))
    p1 = pt[c1][slot]
    c2 = first_best(np.linalg.norm(np.cross(pt - p0, pt - p1), axis=1))
    a, b, c3 = pt[c0], pt[c1], pt[c2]
    normal = np.cross(b - a, c3 - a)
    outside = np.zeros(len(pt))
    for e0, e1 in ((a, b), (b, c3), (c3, a)):
        outward = np.cross(e1 - e0, normal)
        outward /= np.maximum(np.linalg.norm(outward, axis=1), 1e-30)[:, None]
        outside = np.maximum(outside, np.einsum("cj,cj->c", pt - e0[slot], outward[slot]))
    chosen = np.zeros(len(pt), bool)
    chosen[c0] = chosen[c1] = chosen[c2] = True
    outside[chosen] = -np.inf
    chosen[first_best(outside)] = True
    keep[rows[chosen]] = True
    return keep
