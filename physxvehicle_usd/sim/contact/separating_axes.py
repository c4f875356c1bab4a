"""Polytope against polytope or triangle (and a round shape's core against either): separating axes (the faces of
either shape, the cross products of their edges), the reference face's clipping of the incident face in PCM's
order, or the closest points of two edges; single-sided triangles take the triangle's normal where PCM does."""
from __future__ import annotations

import numpy as np

from .. import compiled_narrow_phase
from .geometry import segments_closest
from .polytopes import Polytopes, support_min
from .records import Contacts, contacts_subset

# The order of a patch's points decides how the Gauss-Seidel sweep spreads the impulse over them, and which points
# anchor its friction (growPatches), and so what a symmetric impact leaves as roll and yaw: boxes make PhysX's own
# points in its order (sim/contact/box.py); the other shapes' points keep the order they are made in.
FLOAT_EPS = float(np.finfo(np.float32).eps)  # PhysX's FEps(): the triangle's normal wins a tie with an edge by it

_TIE_ULPS = 1.0  # an edge must beat the triangle by float32 rounding of the coordinates: nearer, PhysX's rounding decides

_TRIANGLE_FACING = 0.707106781  # cos 45 degrees: PCM's bound for taking a triangle's normal over a hull face's

_FACE_PREFERENCE = 1e-4  # a face axis is taken over an edge axis this little (relative) deeper

# ... relative to the depth plus this many contact distances (1 m for a box on the sample's ground: the tolerance
# was tuned in metres as 1e-4 (1 m + depth); in stage units as it was, the curb run in centimetres chose the other
# face of a near tie and left 49 % angular speed error, 1.2 % with this)
_FACE_PREFERENCE_LENGTH = 25.0


def polytope_contacts(A: Polytopes, B: Polytopes, shape: np.ndarray, static: np.ndarray, limit: np.ndarray,
                      single_sided: np.ndarray | None, first_faces: bool = False,
                      radius: np.ndarray | None = None) -> Contacts:
    """`polytope_contacts_numpy`, compiled (sim/compiled_narrow_phase.py) where the extension is loaded and covers the
    call (the vehicle's polytopes with faces against static polytopes or single-sided mesh triangles): the same
    contacts, in the same order, the same bits."""
    if not first_faces:
        compiled = compiled_narrow_phase.polytope_contacts(A, B, limit, single_sided, radius)
        if compiled is not None:
            made, pair, point, normal, separation = compiled
            if not made:
                return Contacts.empty()
            return Contacts(shape[pair], static[pair], point, normal, separation, pair)
    return polytope_contacts_numpy(A, B, shape, static, limit, single_sided, first_faces, radius)


def polytope_contacts_numpy(A: Polytopes, B: Polytopes, shape: np.ndarray, static: np.ndarray, limit: np.ndarray,
                            single_sided: np.ndarray | None, first_faces: bool = False,
                            radius: np.ndarray | None = None) -> Contacts:
    """Contacts of pairs of polytopes A (the vehicle's) and B (static, or another vehicle's) by separating axes; see
    the package's docstring (polytope). limit: each pair's contact distance; single_sided: B's front normals (triangles), whose
    back side makes no contact. Of a face of A and one of B that separate the pair about equally (within
    _FACE_PREFERENCE of _FACE_PREFERENCE_LENGTH contact distances + the depth), B's is the reference face; with
    first_faces, A's (the rule for two vehicles, sim/contact/pairs.py). radius: a sphere's or capsule's radius
    about its core, A's polytope (0 for a polytope; None: no round shape)."""
    P = len(shape)
    rows = np.arange(P)
    # a sphere or capsule meets B with its core (a point, a segment) within the contact distance plus its radius
    if radius is not None:
        limit = limit + radius
    # face axes of A (outward normals n_f: B's separation from A along n_f), of B (A's separation from B)
    sep_a = np.where(A.face_mask, support_min(B.vertices, A.normals) - A.offsets, -np.inf)
    sep_b = np.where(B.face_mask, support_min(A.vertices, B.normals) - B.offsets, -np.inf)
    # edge axes, oriented from B towards A
    # (one edge of each direction: parallel edges give the same axis)
    ea = A.vertices[rows[:, None], A.axis_edges[:, :, 1]] - A.vertices[rows[:, None], A.axis_edges[:, :, 0]]
    eb = B.vertices[rows[:, None], B.axis_edges[:, :, 1]] - B.vertices[rows[:, None], B.axis_edges[:, :, 0]]
    axes = np.cross(ea[:, :, None, :], eb[:, None, :, :]).reshape(P, -1, 3)
    length = np.linalg.norm(axes, axis=2)
    scale = (np.linalg.norm(ea, axis=2)[:, :, None] * np.linalg.norm(eb, axis=2)[:, None, :]).reshape(P, -1)
    usable = (length > 1e-6 * np.maximum(scale, 1e-30)) & (A.axis_mask[:, :, None] & B.axis_mask[:, None, :]).reshape(P, -1)
    axes = axes / np.where(usable, length, 1.0)[:, :, None]
    towards = np.einsum("paj,pj->pa", axes, A.vertices.mean(axis=1) - B.vertices.mean(axis=1))
    axes = np.where((towards < 0.0)[:, :, None], -axes, axes)
    sep_e = support_min(A.vertices, axes) + support_min(B.vertices, -axes)  # min_A n.x - max_B n.x
    sep_e = np.where(usable, sep_e, -np.inf)
    # (a sphere has no face and no edge)
    best_a, best_b, best_e = (sep.max(axis=1, initial=-np.inf) for sep in (sep_a, sep_b, sep_e))
    face = np.maximum(best_a, best_b)
    tol = _FACE_PREFERENCE * (_FACE_PREFERENCE_LENGTH * limit + np.abs(face))
    if first_faces:
        use_a = (best_a >= best_b - tol) & (best_a >= best_e - tol)
        use_b = ~use_a & (best_b >= best_e - tol)
    else:
        use_b = (best_b >= best_a - tol) & (best_b >= best_e - tol)
        use_a = ~use_b & (best_a >= best_e - tol)
    use_e = ~use_b & ~use_a
    f_best = sep_a.argmax(axis=1)
    f_ref = f_best  # A's reference face where A's face is
    edge_face = np.zeros(P, bool)
    if single_sided is not None:
        use_b, use_a, use_e, edge_face, best_e, f_ref = _pcm_triangle_axes(A, B, axes, sep_e, best_a, best_b, tol,
                                                                          use_a, use_b, use_e, f_best)
    best = np.where(use_b, best_b, np.where(use_a, np.where(edge_face, best_e, best_a), best_e))
    touching = best < limit
    if single_sided is not None:  # PCM's convex-triangle rule: a face of A within 45 degrees of facing the triangle
        # leaves the normal to the triangle, its face clipped by the triangle (GuPCMTriangleContactGen.cpp)
        facing = ~edge_face & (-np.einsum("pj,pj->p", A.normals[rows, f_best], B.normals[:, 0]) > _TRIANGLE_FACING)
        use_b = use_b | (use_a & facing)
        use_a = use_a & ~facing
    parts = []
    sel = np.nonzero(touching & use_b)[0]
    if sel.size:  # reference face on B: A's most opposed face clipped by it (a triangle: A's face of the separating
        # axis, where it was A's); normal = B's face normal
        g = sep_b[sel].argmax(axis=1)
        normal = B.normals[sel, g]
        f = np.where(A.face_mask[sel], np.einsum("pfj,pj->pf", A.normals[sel], normal), np.inf).argmin(axis=1)
        if single_sided is not None:
            f = np.where(best_a[sel] > best_b[sel] + tol[sel], f_best[sel], f)
        clipped = _clip(B, sel, g, A, f, normal, shape[sel], static[sel], limit[sel], points_on_reference=False,
                        triangle=single_sided is not None, mesh=single_sided is not None)
        parts.append(clipped)
        if radius is not None:  # a round core beside the face, not over it: its nearest point on the face's rim
            missed = np.ones(len(sel), bool)
            missed[np.searchsorted(sel, clipped.pair)] = False  # (the pairs that made a point; sel is ascending)
            missed &= radius[sel] > 0.0
            if missed.any():
                parts.append(_core_to_rim(A, B, sel[missed], g[missed], shape[sel[missed]], static[sel[missed]],
                                          limit[sel[missed]]))
    sel = np.nonzero(touching & use_a)[0]
    if sel.size:  # reference face on A: B's most opposed face clipped by it; normal = minus A's face normal
        f = f_ref[sel]
        normal = -A.normals[sel, f]
        g = np.where(B.face_mask[sel], np.einsum("pfj,pj->pf", B.normals[sel], -normal), np.inf).argmin(axis=1)
        parts.append(_clip(A, sel, f, B, g, normal, shape[sel], static[sel], limit[sel], points_on_reference=True,
                           mesh=single_sided is not None))
    sel = np.nonzero(touching & use_e)[0]
    if sel.size:
        parts.append(_edge_contacts(A, B, sel, axes[sel, sep_e[sel].argmax(axis=1)], best[sel], shape[sel],
                                    static[sel]))
    parts = [p for p in parts if len(p)]
    if not parts:
        return Contacts.empty()
    out = Contacts(*(np.concatenate([getattr(p, f) for p in parts]) for f in ("shape", "static", "point", "normal",
                                                                              "separation", "pair")))
    if radius is not None:  # from the core to the round surface
        r = radius[out.pair]
        out.separation = out.separation - r
        out.point = out.point - r[:, None] * out.normal
    if single_sided is not None:  # a triangle pushes only to its front side
        out = contacts_subset(out, np.einsum("cj,cj->c", out.normal, single_sided[out.pair]) > 0.0)
    return out


def _pcm_triangle_axes(A: Polytopes, B: Polytopes, axes: np.ndarray, sep_e: np.ndarray, best_a: np.ndarray,
                       best_b: np.ndarray, tol: np.ndarray, use_a: np.ndarray, use_b: np.ndarray, use_e: np.ndarray,
                       f_best: np.ndarray):
    """PCM's choice of axis for a polytope A against a triangle B (GuPCMTriangleContactGen.cpp,
    generateTriangleFullContactManifold), where A has faces: the triangle's normal (its overlap less FLOAT_EPS) or A's
    face, chosen between them as polytope_contacts chooses, unless an edge pair (an edge of A, an active edge of the
    triangle, the axis on the triangle's front side) overlaps strictly less. Then A's face most opposed to that axis is
    the reference face (getPolygonIndex) and its normal the contact normal: where the edge of A's box lies on a ramp
    and crosses the mesh's boundary, the normal is the box's face, not the ramp's (ovphysx's contacts at the ramp run's
    step 27). A round core (no faces) keeps polytope_contacts' choice. Returns use_b, use_a, use_e, which pairs take
    A's face for an edge axis, the best edge separation of each pair, A's reference face of each pair."""
    rows = np.arange(len(best_a))
    front = np.einsum("paj,pj->pa", axes, B.normals[:, 0]) > 0.0
    edge_sep = np.where(front, sep_e, -np.inf)
    k = edge_sep.argmax(axis=1)
    best_edge = edge_sep[rows, k]
    faced = A.face_mask.any(axis=1)
    face_a = use_a | (use_e & ~(best_b >= best_a - tol))  # A's face or the triangle's, edges aside
    rounding = FLOAT_EPS * _TIE_ULPS * np.abs(B.vertices).max(axis=(1, 2))
    edge_face = faced & (best_edge > np.where(face_a, best_a, best_b + FLOAT_EPS) + rounding)
    f_edge = np.where(A.face_mask, np.einsum("pfj,pj->pf", A.normals, axes[rows, k]), np.inf).argmin(axis=1)
    use_a = np.where(faced, (face_a & ~edge_face) | edge_face, use_a)
    use_b = np.where(faced, ~face_a & ~edge_face, use_b)
    use_e = use_e & ~faced
    best_e = np.where(edge_face, best_edge, sep_e.max(axis=1, initial=-np.inf))
    return use_b, use_a, use_e, edge_face, best_e, np.where(edge_face, f_edge, f_best)


def _clip(R: Polytopes, sel: np.ndarray, rf: np.ndarray, I: Polytopes, inc: np.ndarray, normal: np.ndarray,
          shape: np.ndarray, static: np.ndarray, limit: np.ndarray, points_on_reference: bool,
          triangle: bool = False, mesh: bool = False) -> Contacts:
    """The incident face `inc` of I clipped by the reference face `rf` of R (pairs `sel`): the incident polygon's
    vertices inside the reference face, the reference face's vertices inside the incident polygon (moved onto its
    plane along the normal) and the crossings of their edges, kept where their separation along the reference face's
    normal is below `limit`. Points lie on the incident face; `normal` points from the static shape to the vehicle's.
    triangle: R is a mesh triangle, whose contacts PCM makes on the triangle (generatedTriangleContacts): the points on
    its plane, a triangle vertex inside the incident face separated by its distance from that face's plane times the
    cosine between the two normals.
    mesh: one of the two faces is a mesh triangle (R's where `triangle`, else I's): the edge crossings come in PCM's
    order (GuPCMTriangleContactGen.cpp generatedTriangleContacts, generatedPolyContacts): the triangle's edges outer,
    the face's inner, each loop's closing edge (last vertex to first) first. The order decides which contacts become
    the friction patch's anchors and in what order the solver meets them (RolloverSlope's first strike: 38 % more
    normal impulse in the other order)."""
    n_r = R.normals[sel, rf]  # the reference face's outward normal
    d_r = R.offsets[sel, rf]
    ref = R.vertices[sel[:, None], R.loops[sel, rf]]  # (P, M, 3)
    inc_pts = I.vertices[sel[:, None], I.loops[sel, inc]]
    n_i = I.normals[sel, inc]
    d_i = I.offsets[sel, inc]
    d_i = np.where(np.isfinite(d_i), d_i, 0.0)  # a core's loop is no face: no plane to lift onto (n_i is zero)
    P = len(sel)
    ref_next, inc_next = np.roll(ref, -1, axis=1), np.roll(inc_pts, -1, axis=1)
    ref_count, inc_count = R.loop_counts[sel, rf], I.loop_counts[sel, inc]
    Mr, Mi = ref.shape[1], inc_pts.shape[1]
    # the padded loops repeat their last vertex: their closing edge runs from the last real vertex to the first
    ref_next = np.where((np.arange(Mr)[None, :] >= ref_count[:, None] - 1)[:, :, None], ref[:, :1], ref_next)
    inc_next = np.where((np.arange(Mi)[None, :] >= inc_count[:, None] - 1)[:, :, None], inc_pts[:, :1], inc_next)
    ref_edge, inc_edge = ref_next - ref, inc_next - inc_pts
    eps = 1e-7 * (1.0 + np.abs(ref).max(axis=(1, 2)))[:, None, None]

    def inside(points, loop, edge, nrm):  # points (P, Q, 3) inside the loop's prism about nrm
        side = np.einsum("pj,pmqj->pmq", nrm, np.cross(edge[:, :, None, :], points[:, None, :, :] - loop[:, :, None, :]))
        degenerate = (np.linalg.norm(edge, axis=2) < 1e-12)[:, :, None]
        return ((side >= -eps) | degenerate).all(axis=1)

    candidates, valid = [], []
    # 1. incident vertices inside the reference face
    candidates.append(inc_pts)
    valid.append(inside(inc_pts, ref, ref_edge, n_r) & (np.arange(Mi)[None, :] < inc_count[:, None]))
    # 2. reference vertices inside the incident face, moved along n_r onto its plane
    along = np.einsum("pj,pj->p", n_i, n_r)
    t = (d_i[:, None] - np.einsum("pj,pmj->pm", n_i, ref)) / np.where(np.abs(along) > 1e-9, along, 1e-9)[:, None]
    lifted = ref + t[:, :, None] * n_r[:, None, :]
    candidates.append(lifted)
    valid.append(inside(lifted, inc_pts, inc_edge, n_i) & (np.arange(Mr)[None, :] < ref_count[:, None])
                 & (np.abs(along) > 1e-9)[:, None])
    # 3. crossings of the two loops' edges, in the reference plane (components along n_r removed)
    flat = lambda x: x - np.einsum("pj,p...j->p...", n_r, x)[..., None] * n_r[:, None, :]  # noqa: E731
    a0, da = flat(ref)[:, :, None, :], flat(ref_edge)[:, :, None, :]
    b0, db = flat(inc_pts)[:, None, :, :], flat(inc_edge)[:, None, :, :]
    nr = n_r[:, None, None, :]
    denom = np.einsum("pabj,pabj->pab", np.cross(da, db), np.broadcast_to(nr, np.broadcast_shapes(da.shape, db.shape)))
    ok = np.abs(denom) > 1e-12
    w = b0 - a0
    s = np.einsum("pabj,pabj->pab", np.cross(w, db), np.broadcast_to(nr, w.shape)) / np.where(ok, denom, 1.0)
    u = np.einsum("pabj,pabj->pab", np.cross(w, da), np.broadcast_to(nr, w.shape)) / np.where(ok, denom, 1.0)
    crossing = ok & (s >= 0) & (s <= 1) & (u >= 0) & (u <= 1)
    inc_edges = np.where(inc_count == 2, 1, inc_count)  # a two-point loop (a capsule's segment) is one edge
    crossing &= (np.arange(Mr)[None, :, None] < ref_count[:, None, None]) & (np.arange(Mi)[None, None, :]
                                                                            < inc_edges[:, None, None])
    point = inc_pts[:, None, :, :] + u[..., None] * inc_edge[:, None, :, :]
    if mesh:
        point, crossing = _pcm_crossing_order(point, crossing, ref_count, inc_edges, triangle_outer=triangle)
    candidates.append(point.reshape(P, -1, 3))
    valid.append(crossing.reshape(P, -1))
    pts = np.concatenate(candidates, axis=1)
    ok = np.concatenate(valid, axis=1)
    sep = np.einsum("pj,pqj->pq", n_r, pts) - d_r[:, None]  # distance outside the reference face
    if triangle:  # the reference vertices' separation as PCM measures it
        lifted_at = slice(Mi, Mi + Mr)
        sep[:, lifted_at] = sep[:, lifted_at] * (along ** 2)[:, None]
    ok &= sep < limit[:, None]
    p_idx, q_idx = np.nonzero(ok)
    point = pts[p_idx, q_idx]
    separation = sep[p_idx, q_idx]
    if triangle:  # on the triangle's plane
        point = point - (np.einsum("pj,pj->p", n_r[p_idx], point) - d_r[p_idx])[:, None] * n_r[p_idx]
    if points_on_reference:  # the incident points are B's: report them on A's side (the shape's own surface)
        point = point - separation[:, None] * n_r[p_idx]
    return Contacts(shape[p_idx], static[p_idx], point, normal[p_idx], separation, sel[p_idx])


def _pcm_crossing_order(point: np.ndarray, crossing: np.ndarray, ref_edges: np.ndarray, inc_edges: np.ndarray,
                        triangle_outer: bool) -> tuple[np.ndarray, np.ndarray]:
    """The edge crossings point (P, Mr, Mi, 3), crossing (P, Mr, Mi) of `_clip` (reference edges outer, each loop
    from its first edge) in PCM's order: each loop's edges from its closing one (of ref_edges / inc_edges real
    edges), the triangle's loop outer (the reference's where triangle_outer, else the incident's)."""
    def closing_first(count, M):  # per pair: edge k of PCM's order is edge (k - 1) mod count here
        k = np.arange(M)[None, :]
        return np.where(k < count[:, None], (k - 1) % np.maximum(count, 1)[:, None], k)

    Mr, Mi = crossing.shape[1:]
    r, i = closing_first(ref_edges, Mr)[:, :, None], closing_first(inc_edges, Mi)[:, None, :]
    p = np.arange(len(crossing))[:, None, None]
    point, crossing = point[p, r, i], crossing[p, r, i]
    if not triangle_outer:
        point, crossing = point.transpose(0, 2, 1, 3), crossing.transpose(0, 2, 1)
    return point, crossing


def _core_to_rim(A: Polytopes, B: Polytopes, sel: np.ndarray, g: np.ndarray, shape: np.ndarray, static: np.ndarray,
                 limit: np.ndarray) -> Contacts:
    """One point for a sphere's or capsule's core beside B's face g (no point of it over the face): the closest points
    of the core (a point, a segment) and the face's rim, the normal along them (the face's where they meet). The
    point is on the core (the caller moves it to the round surface)."""
    a = A.vertices[sel, A.loops[sel, 0, 0]]
    b = A.vertices[sel, A.loops[sel, 0, min(1, A.loops.shape[2] - 1)]]  # a sphere: its one point again
    rim = B.vertices[sel[:, None], B.loops[sel, g]]  # (P, M, 3)
    count = B.loop_counts[sel, g]
    M = rim.shape[1]
    following = np.where((np.arange(M)[None, :] >= count[:, None] - 1)[:, :, None], rim[:, :1], np.roll(rim, -1, axis=1))
    on_core, on_rim = segments_closest(a[:, None, :], (b - a)[:, None, :], rim, following - rim)
    distance = np.linalg.norm(on_core - on_rim, axis=2)
    distance = np.where(np.arange(M)[None, :] < count[:, None], distance, np.inf)
    k = distance.argmin(axis=1)
    rows = np.arange(len(sel))
    d, point, nearest = distance[rows, k], on_core[rows, k], on_rim[rows, k]
    face_normal = B.normals[sel, g]
    normal = np.where((d > 1e-9)[:, None], (point - nearest) / np.maximum(d, 1e-30)[:, None], face_normal)
    keep = d < limit
    return Contacts(shape[keep], static[keep], point[keep], normal[keep], d[keep], sel[keep])


def _edge_contacts(A: Polytopes, B: Polytopes, sel: np.ndarray, axis: np.ndarray, separation: np.ndarray,
                   shape: np.ndarray, static: np.ndarray) -> Contacts:
    """One point for an edge-edge contact: the middle of the closest points of A's edge nearest B along the axis
    (least axis . x) and B's edge nearest A (greatest)."""
    def pick(P: Polytopes, lowest: bool):
        a = P.vertices[sel[:, None], P.edges[sel, :, 0]]
        b = P.vertices[sel[:, None], P.edges[sel, :, 1]]
        direction = b - a
        across = np.linalg.norm(np.cross(direction, axis[:, None, :]), axis=2) / np.maximum(
            np.linalg.norm(direction, axis=2), 1e-30)
        height = np.einsum("pej,pj->pe", (a + b) / 2, axis)
        height = np.where(P.edge_mask[sel] & (across > 0.999 * across.max(axis=1, keepdims=True)), height,
                          np.inf if lowest else -np.inf)
        # among the edges square to the axis, the lowest (highest): the edge that realises the separation
        k = height.argmin(axis=1) if lowest else height.argmax(axis=1)
        rows = np.arange(len(sel))
        return a[rows, k], direction[rows, k]

    pa, da = pick(A, True)
    pb, db = pick(B, False)
    r = pa - pb
    aa, bb, ab = (da * da).sum(1), (db * db).sum(1), (da * db).sum(1)
    ar, br = (da * r).sum(1), (db * r).sum(1)
    denom = aa * bb - ab * ab
    s = np.clip(np.where(denom > 1e-12, (ab * br - bb * ar) / np.where(denom > 1e-12, denom, 1.0), 0.0), 0.0, 1.0)
    t = np.clip((ab * s + br) / np.maximum(bb, 1e-30), 0.0, 1.0)
    point = ((pa + s[:, None] * da) + (pb + t[:, None] * db)) / 2
    return Contacts(shape, static, point, axis, separation, sel)
