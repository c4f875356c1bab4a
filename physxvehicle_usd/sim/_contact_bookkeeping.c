/* The contact bookkeeping after the narrow phase, compiled (sim/compiled_manifolds.py calls it; telemetry's slots
   sim/compiled_patches.py): reduction.py reduce_contacts (`pvu_reduce_contacts`), persistence.py's refresh of the
   kept manifolds (`pvu_refresh_manifolds`) and telemetry.py's slots (`pvu_contact_telemetry`), each the numpy twin's
   arithmetic in its order (_contact_bookkeeping.h), the same bits. */
#include "_contact_bookkeeping.h"

/* ---- reduction.py reduce_contacts: a pair's points reduced to PhysX's manifold, patch by patch ---- */

static void cross3(const double *a, const double *b, double *out) {
    out[0] = a[1] * b[2] - a[2] * b[1];
    out[1] = a[2] * b[0] - a[0] * b[2];
    out[2] = a[0] * b[1] - a[1] * b[0];
}

/* np.linalg.norm of a 3-vector: the squares added left to right from the first, the square root */
static double norm3(const double *a) { return sqrt((a[0] * a[0] + a[1] * a[1]) + a[2] * a[2]); }

/* reduction.py _four on one patch of n > whole points (at `at`: indices into point, separation): marks the deepest,
   the one farthest from it, the one making the largest triangle with them and the one farthest outside that
   triangle (the first of equals each time): sets mark[i] (0..n) for those four */
static void four_of(int64_t n, const int64_t *at, const double *point, const double *separation, uint8_t *mark) {
    int64_t c0 = 0, c1 = 0, c2 = 0, c3 = 0;
    for (int64_t i = 1; i < n; ++i)
        if (-separation[at[i]] > -separation[at[c0]]) c0 = i;
    const double *p0 = point + 3 * at[c0];
    double best = -INFINITY;
    for (int64_t i = 0; i < n; ++i) {
        const double *x = point + 3 * at[i];
        const double d[3] = {x[0] - p0[0], x[1] - p0[1], x[2] - p0[2]};
        const double value = (d[0] * d[0] + d[1] * d[1]) + d[2] * d[2];
        if (i == 0 || value > best) best = value, c1 = i;
    }
    const double *p1 = point + 3 * at[c1];
    for (int64_t i = 0; i < n; ++i) {
        const double *x = point + 3 * at[i];
        const double u[3] = {x[0] - p0[0], x[1] - p0[1], x[2] - p0[2]};
        const double w[3] = {x[0] - p1[0], x[1] - p1[1], x[2] - p1[2]};
        double area[3];
        cross3(u, w, area);
        const double value = norm3(area);
        if (i == 0 || value > best) best = value, c2 = i;
    }
    const double *a = p0, *b = p1, *c = point + 3 * at[c2];
    const double ba[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]}, ca[3] = {c[0] - a[0], c[1] - a[1], c[2] - a[2]};
    double normal[3], outward[3][3];
    cross3(ba, ca, normal);
    const double *edge[3][2] = {{a, b}, {b, c}, {c, a}};
    for (int e = 0; e < 3; ++e) {
        const double *e0 = edge[e][0], *e1 = edge[e][1];
        const double along[3] = {e1[0] - e0[0], e1[1] - e0[1], e1[2] - e0[2]};
        cross3(along, normal, outward[e]);
        const double length = np_max(norm3(outward[e]), 1e-30);
        for (int j = 0; j < 3; ++j)
            outward[e][j] /= length;
    }
    for (int64_t i = 0; i < n; ++i) {
        double outside = 0.0;
        if (i == c0 || i == c1 || i == c2) {
            outside = -INFINITY;
        } else {
            const double *x = point + 3 * at[i];
            for (int e = 0; e < 3; ++e) {
                const double *e0 = edge[e][0];
                const double d[3] = {x[0] - e0[0], x[1] - e0[1], x[2] - e0[2]};
                outside = np_max(outside, dot3(d, outward[e]));
            }
        }
        if (i == 0 || outside > best) best = outside, c3 = i;
    }
    mark[c0] = mark[c1] = mark[c2] = mark[c3] = 1;
}

/* reduction.py reduce_contacts on C contacts (shape, static (C,), point, normal (C, 3), separation (C,), whole (C,):
   how many points each contact's patch keeps whole): writes the kept contacts' indices (into the input, in output
   order) to `index` and their patches (numbered from 0) to `patch`; returns how many, or -1 where memory ran out. */
int64_t pvu_reduce_contacts(int64_t C, const int64_t *shape, const int64_t *cstatic, const double *point,
                            const double *normal, const double *separation, const int64_t *whole, int64_t *index,
                            int64_t *patch) {
    int64_t n_out = -1;
    Sortable *sorted = malloc(sizeof(Sortable) * (size_t)(C + 1));
    int64_t *order = malloc(sizeof(int64_t) * (size_t)(C + 1)), *leader = malloc(sizeof(int64_t) * (size_t)(C + 1));
    int64_t *kept = malloc(sizeof(int64_t) * (size_t)(C + 1)), *kept_patch = malloc(sizeof(int64_t) * (size_t)(C + 1));
    double *key = malloc(sizeof(double) * 3 * (size_t)(C + 1));
    uint8_t *keep = calloc((size_t)(C + 1), 1);
    if (!sorted || !order || !leader || !kept || !kept_patch || !key || !keep)
        goto done;
    /* in pair order (a stable sort by shape, static) */
    for (int64_t c = 0; c < C; ++c) {
        sorted[c].key[0] = shape[c], sorted[c].key[1] = cstatic[c], sorted[c].key[2] = c, sorted[c].key[3] = 0;
        sorted[c].index = c;
    }
    if (sort_keys(sorted, C))
        goto done;
    for (int64_t c = 0; c < C; ++c)
        order[c] = sorted[c].index;
    /* patches: the first contact of a pair not yet in one takes every such contact whose normal agrees with its own */
    for (int64_t a = 0, b; a < C; a = b) {
        for (b = a + 1; b < C && shape[order[b]] == shape[order[a]] && cstatic[order[b]] == cstatic[order[a]]; ++b) {}
        for (int64_t c = a; c < b; ++c)
            leader[c] = -1;
        for (int64_t f = a; f < b; ++f) {
            if (leader[f] >= 0)
                continue;
            const double *n = normal + 3 * order[f];
            for (int64_t c = f; c < b; ++c)
                if (leader[c] < 0 && dot3(normal + 3 * order[c], n) >= SAME_NORMAL)
                    leader[c] = f;
            leader[f] = f;  /* (a normal that disagrees with itself, a NaN: numpy's loop would not end) */
        }
    }
    /* patch by patch (by leader), generation order within one */
    for (int64_t c = 0; c < C; ++c) {
        sorted[c].key[0] = leader[c], sorted[c].key[1] = c, sorted[c].key[2] = sorted[c].key[3] = 0;
        sorted[c].index = order[c];
    }
    if (sort_keys(sorted, C))
        goto done;
    /* a point made twice in a patch counts once: keys on a grid of 1e-7 of the largest coordinate (at least 1) */
    double largest = 0.0;
    for (int64_t k = 0; k < 3 * C; ++k)
        largest = np_max(largest, fabs(point[k]));
    const double grid = 1e-7 * (largest > 1.0 ? largest : 1.0);
    int64_t n = 0;
    for (int64_t c = 0, patch_no = -1; c < C; ++c) {
        const int64_t i = sorted[c].index;
        if (c == 0 || sorted[c].key[0] != sorted[c - 1].key[0])
            ++patch_no;
        double *k = key + 3 * n;
        for (int j = 0; j < 3; ++j)
            k[j] = nearbyint(point[3 * i + j] / grid);
        int repeated = 0;
        for (int64_t e = n - 1; e >= 0 && kept_patch[e] == patch_no && !repeated; --e)
            repeated = key[3 * e] == k[0] && key[3 * e + 1] == k[1] && key[3 * e + 2] == k[2];
        if (!repeated)
            kept[n] = i, kept_patch[n++] = patch_no;
    }
    /* at most `whole` points per patch kept whole; of a larger one, four (`order` and `leader` no longer needed) */
    uint8_t *mark = (uint8_t *)leader;
    for (int64_t a = 0, b; a < n; a = b) {
        for (b = a + 1; b < n && kept_patch[b] == kept_patch[a]; ++b) {}
        if (b - a <= whole[kept[a]]) {
            memset(keep + a, 1, (size_t)(b - a));
        } else {
            memset(mark, 0, (size_t)(b - a));
            four_of(b - a, kept + a, point, separation, mark);
            memcpy(keep + a, mark, (size_t)(b - a));
        }
    }
    n_out = 0;
    for (int64_t c = 0, last = -1; c < n; ++c)
        if (keep[c]) {
            patch[n_out] = n_out == 0 ? 0 : patch[n_out - 1] + (kept_patch[c] != last);
            last = kept_patch[c];
            index[n_out++] = kept[c];
        }
done:
    free(sorted), free(order), free(leader), free(kept), free(kept_patch), free(key), free(keep);
    return n_out;
}

/* ---- telemetry.py telemetry: one solve group's points into the vehicles' slots ---- */

/* The solved points of one group of Vr vehicles (`vehicles`, their index in the batch of V), E = Pm K entries each
   (active (Vr, E) bytes, arm (3, Vr, E), normal (3, Vr, Pm), impulse (Vr, E)) written after the points already
   reported (count (V,)) into the S slots of points, normals (V, S, 3) and impulses (V, S): in the solver's order,
   each point the vehicle's begin position (3, V) plus its arm, its patch's normal. */
int pvu_contact_telemetry(int64_t Vr, int64_t E, int64_t K, int64_t S, int64_t V, const int64_t *vehicles,
                          const uint8_t *active, const double *arm, const double *normal, const double *impulse,
                          const double *begin, int64_t *count, double *points, double *normals, double *impulses) {
    const int64_t Pm = K ? E / K : 0;
    for (int64_t r = 0; r < Vr; ++r) {
        const int64_t v = vehicles[r], before = count[v];
        int64_t seen = 0;
        for (int64_t e = 0; e < E; ++e) {
            if (!active[r * E + e])
                continue;
            const int64_t slot = before + seen++;
            if (slot >= S)
                continue;
            for (int i = 0; i < 3; ++i) {
                points[(v * S + slot) * 3 + i] = begin[i * V + v] + arm[(i * Vr + r) * E + e];
                normals[(v * S + slot) * 3 + i] = normal[(i * Vr + r) * Pm + e / K];
            }
            impulses[v * S + slot] = impulse[r * E + e];
        }
        count[v] = before + seen;
    }
    return 0;
}

/* ---- persistence.py Persistence: the kept manifolds' points re-measured (refreshContactPoints) and the pairs
   that keep them (invalidate_*), for pairs against planes, meshes and static polytopes ---- */

/* how near (relative) a travel of libm's arccos may come to its limit and still decide the comparison as numpy's
   arccos would: the two differ by an ulp or so (some 1e-16 relative) */
#define TRAVEL_NEAR 1e-9

/* row i of a row's body rotation (3, 3, N) times v: einsum's "qij,qj->qi" (and "ijn,nj->ni") of the rotations taken
   by row, which numpy sums as over a contiguous axis (dot3) */
static double rotation_row_dot(const double *rotation, int64_t N, int64_t r, int i, const double *v) {
    const double row_i[3] = {rotation[(3 * i) * N + r], rotation[(3 * i + 1) * N + r], rotation[(3 * i + 2) * N + r]};
    return dot3(row_i, v);
}

/* K candidate pairs that keep manifolds (key, row, static, kind (persistence.py PLANE, MESH, POLYTOPE), found: the
   last step recorded it, at `at` of its M pairs (origin (M, 3))), Q points it kept (pair: each one's candidate pair,
   their body_point, world_point, normal (Q, 3)). The model: vehicle (N,), box (N,) bytes, inner (N,) (the PCM inner
   extents), radius (N,), origin (N, 3) (NULL: at 0), static_box and static_inner of the static polytopes (from
   polytope_first), contact_distance (N, G; element strides cd_row, cd_column); length (V,) the length scales,
   rotation (3, 3, N) each row's body rotation, position (3, V) the bodies' (float64); per pair static_radius, turn (the
   quaternion dot) and travel (numpy's arccos of it times the shape's reach, or 0). Writes keep_pair (K,), keep_point
   (Q,) and the reported kept contacts (row, static, point, normal, separation; count returned). travel_near: the
   travels are libm's arccos, which may differ from numpy's in the last bits: where one lies within TRAVEL_NEAR of its
   limit (relative), returns -2 (the caller asks again with numpy's) rather than decide. */
int64_t pvu_refresh_manifolds(int64_t K, int64_t Q, int64_t N, int64_t V, int64_t cd_row, int64_t cd_column,
                              int64_t polytope_first,
                              const int64_t *row, const int64_t *cstatic, const int64_t *kind, const uint8_t *found,
                              const int64_t *at, const double *prev_origin, const int64_t *pair,
                              const double *body_point, const double *world_point, const double *pnormal,
                              const int64_t *vehicle, const uint8_t *box, const double *inner, const double *radius,
                              const double *origin, const uint8_t *static_box, const double *static_inner,
                              const double *contact_distance, const double *length, const double *rotation,
                              const double *position, const double *static_radius, const double *turn,
                              const double *travel, uint8_t *keep_pair, uint8_t *keep_point, int64_t *out_row,
                              int64_t *out_static, double *out_point, double *out_normal, double *out_separation,
                              int travel_near) {
    static const double polytope_moved[5] = {0.5, 0.125, 0.25, 0.375, 0.375};
    static const double polytope_turned[5] = {0.9998, 0.9999, 0.9999, 0.9999, 0.9999};
    double *margin = malloc(sizeof(double) * (size_t)(K + 1)), *drift_limit = malloc(sizeof(double) * (size_t)(K + 1));
    int64_t *held = calloc((size_t)(K + 1), sizeof(int64_t));
    uint8_t *lost = calloc((size_t)(K + 1), 1), *dropped = calloc((size_t)(Q + 1), 1);
    double *refreshed = malloc(sizeof(double) * 7 * (size_t)(Q + 1));  /* per point: on_body, normal, separation */
    int64_t n = -1;
    if (!margin || !drift_limit || !held || !lost || !dropped || !refreshed)
        goto done;
    (void)V;
    /* _rules: the margins (PCM's, the lesser of the two shapes' against a static polytope), the drift limits */
    for (int64_t k = 0; k < K; ++k) {
        const int64_t r = row[k];
        const double len = length[vehicle[r]];
        const double ratio = box[r] ? 0.15 : 0.25, tolerance = kind[k] == 1 ? 0.05 : (box[r] ? 0.15 : 0.05);
        double m = np_min(ratio * inner[r], tolerance * len);
        if (kind[k] == 2) {
            const int64_t h = cstatic[k] - polytope_first;
            const double static_ratio = static_box[h] ? 0.15 : 0.25, static_tolerance = static_box[h] ? 0.15 : 0.05;
            m = np_min(m, np_min(static_ratio * static_inner[h], static_tolerance * len));
        }
        margin[k] = m;
        drift_limit[k] = (kind[k] == 0 ? 0.2 : 0.8) * m;
    }
    /* refreshContactPoints: the kept points' separations from the current poses, the drifted ones dropped */
    for (int64_t q = 0; q < Q; ++q) {
        const int64_t k = pair[q], r = row[k], v = vehicle[r];
        double *on_body = refreshed + 7 * q, *normal = on_body + 3;
        for (int i = 0; i < 3; ++i)
            on_body[i] = rotation_row_dot(rotation, N, r, i, body_point + 3 * q) + position[i * V + v];
        static const double eye[3][3] = {{1.0, 0.0, 0.0}, {0.0, 1.0, 0.0}, {0.0, 0.0, 1.0}};
        for (int i = 0; i < 3; ++i)
            normal[i] = dot3(eye[i], pnormal + 3 * q);
        const double *wp = world_point + 3 * q;
        const double gap[3] = {on_body[0] - wp[0], on_body[1] - wp[1], on_body[2] - wp[2]};
        const double core = dot3(gap, normal);
        double drift[3];
        for (int i = 0; i < 3; ++i)
            drift[i] = (on_body[i] - core * normal[i]) - wp[i];
        on_body[6] = (core - radius[r]) - static_radius[k];
        const double limit = drift_limit[k];
        dropped[q] = !(((drift[0] * drift[0] + drift[1] * drift[1]) + drift[2] * drift[2]) <= limit * limit);
        if (dropped[q]) lost[k] = 1; else ++held[k];
    }
    /* invalidate_*: moved or turned too far since the points were made (against a polytope, by how many are left) */
    for (int64_t k = 0; k < K; ++k) {
        const int64_t r = row[k], v = vehicle[r];
        const int64_t h = held[k] < 4 ? held[k] : 4;
        const int polytope = kind[k] == 2;
        const double moved_limit = polytope ? polytope_moved[h] * margin[k] : 0.2 * margin[k];
        const double turned_limit = polytope ? polytope_turned[h] : (kind[k] == 0 ? 0.99996 : 0.9998);
        double moved = -INFINITY;
        for (int i = 0; i < 3; ++i) {
            static const double at_zero[3] = {0.0, 0.0, 0.0};
            const double o = rotation_row_dot(rotation, N, r, i, origin ? origin + 3 * r : at_zero);
            const double now = o + position[i * V + v];
            const double apart = fabs(now - prev_origin[3 * at[k] + i]);
            moved = i == 0 ? apart : np_max(moved, apart);
        }
        if (travel_near && polytope
            && fabs(travel[k] - moved_limit) <= TRAVEL_NEAR * (fabs(travel[k]) + fabs(moved_limit))) {
            n = -2;  /* (a travel of libm's arccos too near its limit to tell numpy's side: the caller's numpy) */
            goto done;
        }
        const int invalid = !((moved <= moved_limit) && (turn[k] >= turned_limit) && (travel[k] <= moved_limit));
        keep_pair[k] = found[k] && !invalid && !(lost[k] && kind[k] != 1);
    }
    n = 0;
    for (int64_t q = 0; q < Q; ++q) {
        const int64_t k = pair[q], r = row[k];
        keep_point[q] = keep_pair[k] && !dropped[q];
        if (!keep_point[q])
            continue;
        const double *on_body = refreshed + 7 * q, *normal = on_body + 3, separation = on_body[6];
        /* reported: against a mesh every kept point, else those within the contact distance */
        if (kind[k] != 1 && !(separation <= contact_distance[r * cd_row + cstatic[k] * cd_column]))
            continue;
        out_row[n] = r, out_static[n] = cstatic[k];
        for (int i = 0; i < 3; ++i) {
            out_point[3 * n + i] = radius[r] > 0.0 ? on_body[i] - radius[r] * normal[i]
                                                   : world_point[3 * q + i] + static_radius[k] * normal[i];
            out_normal[3 * n + i] = normal[i];
        }
        out_separation[n++] = separation;
    }
done:
    free(margin), free(drift_limit), free(held), free(lost), free(dropped), free(refreshed);
    return n;
}

/* persistence.py Persistence.record's manifolds of the pairs made anew: of the K candidate pairs (key sorted, row,
   static, is_kept) those not kept, where each shape's frame is (its origin (N, 3), NULL: at 0, by the rotation
   (3, 3, N) and position (3, V)) and its body's orientation (4, V); and the points of the C contacts (shape, static,
   point, normal (C, 3), separation) that those pairs made, each on the static shape and on the vehicle's (body frame),
   by the rows' radius (N,) and the static shapes' (G,). Writes the pairs (vehicle, shape within it, static, origin,
   orientation) and the points (vehicle, shape, static, body point, world point, normal); counts[0], counts[1]: how
   many of each. */
int pvu_record_manifolds(int64_t K, int64_t C, int64_t N, int64_t V, int64_t G, const int64_t *key,
                         const uint8_t *is_kept, const int64_t *row, const int64_t *cstatic, const int64_t *vehicle,
                         const int64_t *first, const double *rotation, const double *origin, const double *position,
                         const double *orientation, const double *radius, const double *static_radius,
                         const int64_t *shape, const int64_t *contact_static, const double *point,
                         const double *normal, const double *separation, int64_t *pair_vehicle, int64_t *pair_shape,
                         int64_t *pair_static, double *pair_origin, double *pair_orientation, int64_t *point_vehicle,
                         int64_t *point_shape, int64_t *point_static, double *body_point, double *world_point,
                         double *point_normal, int64_t *counts) {
    static const double at_zero[3] = {0.0, 0.0, 0.0};
    int64_t M = 0;
    int64_t *made_key = malloc(sizeof(int64_t) * (size_t)(K + 1));
    if (!made_key)
        return -1;
    for (int64_t k = 0; k < K; ++k) {
        if (is_kept[k])
            continue;
        const int64_t r = row[k], v = vehicle[r];
        made_key[M] = key[k];
        pair_vehicle[M] = v, pair_shape[M] = r - first[v], pair_static[M] = cstatic[k];
        for (int i = 0; i < 3; ++i)
            pair_origin[3 * M + i] = rotation_row_dot(rotation, N, r, i, origin ? origin + 3 * r : at_zero)
                                     + position[i * V + v];
        for (int i = 0; i < 4; ++i)
            pair_orientation[4 * M + i] = orientation[i * V + v];
        ++M;
    }
    int64_t Q = 0;
    for (int64_t c = 0; c < C && M; ++c) {
        const int64_t want = shape[c] * G + contact_static[c];
        int64_t lo = 0, hi = M;
        while (lo < hi) {
            const int64_t mid = (lo + hi) / 2;
            if (made_key[mid] < want) lo = mid + 1; else hi = mid;
        }
        if (made_key[lo < M ? lo : M - 1] != want)
            continue;
        const int64_t r = shape[c], v = vehicle[r];
        const double *n = normal + 3 * c, sep = separation[c], rr = radius[r], sr = static_radius[contact_static[c]];
        const double inward = (rr > 0.0 ? sep : 0.0) + sr, outward = (sep + rr) + sr;
        double on_body[3];
        for (int i = 0; i < 3; ++i) {
            const double on_static = point[3 * c + i] - inward * n[i];
            world_point[3 * Q + i] = on_static;
            on_body[i] = (on_static + outward * n[i]) - position[i * V + v];
            point_normal[3 * Q + i] = n[i];
        }
        for (int i = 0; i < 3; ++i)  /* einsum "qji,qj->qi": a column of the rotation, from +0 in order */
            body_point[3 * Q + i] = ((0.0 + rotation[i * N + r] * on_body[0]) + rotation[(3 + i) * N + r] * on_body[1])
                                    + rotation[(6 + i) * N + r] * on_body[2];
        point_vehicle[Q] = v, point_shape[Q] = r - first[v], point_static[Q] = contact_static[c];
        ++Q;
    }
    counts[0] = M, counts[1] = Q;
    free(made_key);
    return 0;
}

/* persistence.py's compiled refresh of a step (sim/compiled_manifolds.py `refresh_and_reduce`): the turns and
   their travels, pvu_refresh_manifolds, and where every pair keeps its points and `reduce` says nothing else is made
   this step (persistence.py's steady step: the kept contacts are the step's), the kept contacts reduced as
   reduction.py reduce_contacts reduces them (pvu_reduce_contacts), in place. Words: w[0 .. 6] K, Q, N, V, cd_row,
   cd_column, polytope_first; w[7 .. 16] row .. pnormal; w[17 .. 24] vehicle .. contact_distance; w[25]
   static_radius (pvu_refresh_manifolds' arguments); the step's w[26 .. 32] length, rotation, position, the
   outputs' three blocks (flags: keep_pair then keep_point; ints: out_row, out_static, then each reduced contact's
   patch, Q each; floats: out_point, out_normal, out_separation) and the bodies' orientation (4, V), float32 where
   w[33]; w[34] the pairs'
   prev_orientation (K, 4) and w[35] turn_radius (K,); w[36], w[37] the turns and travels (numpy's) or 0: made here
   (persistence.py's einsum, in its order, and libm's arccos: -2 returned where a travel lies too near its limit to
   tell, see pvu_refresh_manifolds); w[38] plane_count, w[39] the rows whose patches on a mesh keep w[40] points whole
   (bytes, (N,); world.py patch_points: MESH_PATCH_POINTS, every other patch w[41], MAX_POINTS); w[42] counts (3):
   the pairs kept, the points kept, the contacts reduced (-1: not reduced); w[43] reduce. Returns the contacts
   written (refreshed, or reduced), -1 where memory ran out, -2 (see above). */
int64_t pvu_refresh_reduce_words(const int64_t *w) {
#define P(type, k) ((type)(intptr_t)w[k])
    const int64_t K = w[0], Q = w[1], N = w[2], V = w[3], polytope_first = w[6], plane_count = w[38];
    const int64_t *row = P(const int64_t *, 7), *kind = P(const int64_t *, 9), *vehicle = P(const int64_t *, 17);
    const uint8_t *mesh_rows = P(const uint8_t *, 39);
    uint8_t *flags = P(uint8_t *, 29);
    int64_t *ints = P(int64_t *, 30), *counts = P(int64_t *, 42);
    double *floats = P(double *, 31);
    counts[2] = -1;
    double *made = NULL;
    const double *turn = P(const double *, 36), *travel = P(const double *, 37);
    if (!turn) {  /* persistence.py _refresh_compiled's turn and travel */
        made = malloc(sizeof(double) * 2 * (size_t)(K + 1));
        if (!made)
            return -1;
        const double *prev = P(const double *, 34), *radius = P(const double *, 35);
        const float *single = P(const float *, 32);
        const double *twice = P(const double *, 32);
        for (int64_t k = 0; k < K; ++k) {
            const int64_t v = vehicle[row[k]];
            double dot = 0.0;  /* einsum "jp,pj->p": from +0, left to right */
            for (int j = 0; j < 4; ++j)
                dot = dot + (w[33] ? (double)single[j * V + v] : twice[j * V + v]) * prev[4 * k + j];
            made[k] = dot;
            made[K + k] = kind[k] == 2 ? acos(np_min(np_max(dot, -1.0), 1.0)) * radius[k] : 0.0;
        }
        turn = made, travel = made + K;
    }
    int64_t n = pvu_refresh_manifolds(K, Q, N, V, w[4], w[5], polytope_first, row, P(const int64_t *, 8), kind,
                                      P(const uint8_t *, 10), P(const int64_t *, 11), P(const double *, 12),
                                      P(const int64_t *, 13), P(const double *, 14), P(const double *, 15),
                                      P(const double *, 16), vehicle, P(const uint8_t *, 18), P(const double *, 19),
                                      P(const double *, 20), P(const double *, 21), P(const uint8_t *, 22),
                                      P(const double *, 23), P(const double *, 24), P(const double *, 26),
                                      P(const double *, 27), P(const double *, 28), P(const double *, 25), turn,
                                      travel, flags, flags + K, ints, ints + Q, floats, floats + 3 * Q,
                                      floats + 6 * Q, made != NULL);
    free(made);
    if (n < 0)
        return n;
    int64_t pairs = 0, points = 0;
    for (int64_t k = 0; k < K; ++k)
        pairs += flags[k];
    for (int64_t q = 0; q < Q; ++q)
        points += flags[K + q];
    counts[0] = pairs, counts[1] = points;
    if (!w[43] || pairs != K)
        return n;
    if (n == 0) {
        counts[2] = 0;
        return 0;
    }
    int64_t *out_row = ints, *cstatic = ints + Q, *patch_out = ints + 2 * Q;
    double *point = floats, *normal = floats + 3 * Q, *separation = floats + 6 * Q;
    int64_t *scratch = malloc(sizeof(int64_t) * 5 * (size_t)n);
    double *copied = malloc(sizeof(double) * 7 * (size_t)n);
    int64_t m = -1;
    if (!scratch || !copied)
        goto done;
    int64_t *whole = scratch, *index = scratch + n, *patch = scratch + 2 * n, *row_was = scratch + 3 * n,
            *static_was = scratch + 4 * n;
    for (int64_t c = 0; c < n; ++c)
        whole[c] = cstatic[c] >= plane_count && cstatic[c] < polytope_first && mesh_rows[out_row[c]] ? w[40] : w[41];
    m = pvu_reduce_contacts(n, out_row, cstatic, point, normal, separation, whole, index, patch);
    if (m < 0)
        goto done;
    /* the kept contacts taken in the reduction's order (index), each field over the refreshed one */
    memcpy(row_was, out_row, sizeof(int64_t) * (size_t)n), memcpy(static_was, cstatic, sizeof(int64_t) * (size_t)n);
    memcpy(copied, point, sizeof(double) * 3 * (size_t)n);
    memcpy(copied + 3 * n, normal, sizeof(double) * 3 * (size_t)n);
    memcpy(copied + 6 * n, separation, sizeof(double) * (size_t)n);
    for (int64_t j = 0; j < m; ++j) {
        const int64_t i = index[j];
        out_row[j] = row_was[i], cstatic[j] = static_was[i], patch_out[j] = patch[j];
        for (int d = 0; d < 3; ++d)
            point[3 * j + d] = copied[3 * i + d], normal[3 * j + d] = copied[3 * n + 3 * i + d];
        separation[j] = copied[6 * n + i];
    }
    counts[2] = m;
done:
    free(scratch), free(copied);
    return m;
#undef P
}

/* pvu_reduce_contacts with its arguments as 64-bit words (sim/compiled_manifolds.py `reduce_contacts`, a step's
   addresses written into kept words by one call): w[0] C, w[1 .. 8] shape, cstatic, point, normal, separation, whole,
   index, patch. */
int64_t pvu_reduce_contacts_words(const int64_t *w) {
#define P(type, k) ((type)(intptr_t)w[k])
    return pvu_reduce_contacts(w[0], P(const int64_t *, 1), P(const int64_t *, 2), P(const double *, 3),
                               P(const double *, 4), P(const double *, 5), P(const int64_t *, 6), P(int64_t *, 7),
                               P(int64_t *, 8));
#undef P
}

/* pvu_contact_telemetry with its arguments as 64-bit words (sim/compiled_patches.py `telemetry_group`): w[0 .. 4]
   Vr, E, K, S, V; w[5 .. 14] vehicles, active, arm, normal, impulse, begin, count, points, normals, impulses. */
int pvu_contact_telemetry_words(const int64_t *w) {
#define P(type, k) ((type)(intptr_t)w[k])
    return pvu_contact_telemetry(w[0], w[1], w[2], w[3], w[4], P(const int64_t *, 5), P(const uint8_t *, 6),
                                 P(const double *, 7), P(const double *, 8), P(const double *, 9),
                                 P(const double *, 10), P(int64_t *, 11), P(double *, 12), P(double *, 13),
                                 P(double *, 14));
#undef P
}
