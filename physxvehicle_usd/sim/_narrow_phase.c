/* The narrow phases of a step's contacts with the static world, compiled, pair after pair, without the numpy code's
   padded temporaries and its hundreds of numpy calls a call: here PCM's box-box contacts (sim/contact/box.py
   `box_box_numpy`, PhysX's GuPCMContactBoxBox); in _polytope_contacts.c a vehicle's polytope against single-sided
   mesh triangles (sim/contact/separating_axes.py `polytope_contacts_numpy` with triangles). The arithmetic both
   share with numpy is in _narrow_phase.h.

   The numpy code's arithmetic in its order and precision (float64). numpy's einsum adds three products from +0 in
   an order that follows its operands' layout: left to right over a strided axis (`sum3`), (p0 + p2) + p1 over a
   contiguous one (`sum3_lanes`: its two-lane vector loop); np.linalg.norm adds the squares left to right; a @ b of
   two 3-vectors is numpy's BLAS's (`blas_dot3`, probed at load). np.minimum and np.maximum propagate NaN and keep
   their first argument among equals; argmin and argmax give the first of equals (the first NaN where there is one).
   Box-box computes every slot of the sixteen, valid or not, as the numpy arrays are, so the two return the same bits
   everywhere. Built with -ffp-contract=off: no fused multiply-add but those `blas_dot3` asks for.

   Layout: what numpy holds, C order: centres and half extents (P, 3), axes (P, 3, 3) (row k: the box's unit k axis),
   points (P, 16, 3), separations (P, 16), valid (P, 16) and made (P,) as bytes (numpy's bool), normals (P, 3). */
#include "_narrow_phase.h"

#define SLOTS 16

static const double U_EPS = 1e-6;         /* box.py _U_EPS */
static const double EXTENT_SLACK = 1.0001; /* _EXTENT_SLACK */
static const double PARALLEL = 1e-6;      /* _PARALLEL */

/* the points _calculate_contacts has added so far, and where the next goes */
typedef struct {
    double *out;    /* (16, 3) */
    double *sep;    /* (16,) */
    uint8_t *valid; /* (16,) */
    int count;
} Slots;

static inline void add(Slots *s, int ok, double x, double y, double z, double pen) {
    if (!ok)
        return;
    const int slot = s->count < SLOTS - 1 ? s->count : SLOTS - 1;
    s->out[3 * slot] = x, s->out[3 * slot + 1] = y, s->out[3 * slot + 2] = z;
    s->sep[slot] = pen;
    s->valid[slot] = 1;
    s->count += 1;
}

/* _contains: q inside the quad pts seen along z (crossing number, a corner counting as inside) */
static int contains(const double pts[4][3], double q0, double q1, const double *lo, const double *hi) {
    static const int pairs[4][2] = {{0, 3}, {1, 0}, {2, 1}, {3, 2}};
    const int outside = (q0 < lo[0]) | (q0 > hi[0]) | (q1 < lo[1]) | (q1 > hi[1]);
    int inside = 0, corner = 0;
    for (int e = 0; e < 4; ++e) {
        const double *pi = pts[pairs[e][0]], *pj = pts[pairs[e][1]];
        corner |= ((q0 == pj[0]) & (q1 == pj[1])) | ((q0 == pi[0]) & (q1 == pi[1]));
        const int straddle = (pj[1] > q1) != (pi[1] > q1);
        const double dy = straddle ? pi[1] - pj[1] : 1.0;
        const double x_at = pj[0] + (q1 - pj[1]) * (pi[0] - pj[0]) / dy;
        inside ^= straddle & (q0 < x_at);
    }
    return !outside && (corner | inside);
}

/* _segment_box: whether p0 + t d, t in [0, 1], meets the box [lo, hi], and its entry and exit t */
static int segment_box(const double *p0, const double *d, const double *lo, const double *hi, double *tmin,
                       double *tmax) {
    int blocked = 0;
    double near = 0.0, far = 0.0;
    for (int k = 0; k < 3; ++k) {
        const int parallel = fabs(d[k]) < PARALLEL;
        const int out_of_range = (p0[k] > hi[k]) | (lo[k] > p0[k]);
        blocked |= parallel & out_of_range;
        const double t1 = parallel ? 0.0 : (lo[k] - p0[k]) / d[k];
        const double t2 = parallel ? INFINITY : (hi[k] - p0[k]) / d[k];
        const double a = np_min(t1, t2), b = np_max(t1, t2);
        near = k == 0 ? a : np_max(near, a);
        far = k == 0 ? b : np_min(far, b);
    }
    *tmin = np_max(near, 0.0);
    *tmax = np_min(far, 1.0);
    return !blocked & !((*tmin > *tmax) | (*tmin > 1.0));
}

/* _calculate_contacts: PCM's clipping of the incident quad pts by the reference rectangle (half sides ex, ey) at
   z = 0, into the slots */
static void calculate_contacts(double ex, double ey, const double pts[4][3], const double *inc_normal,
                               double distance, Slots *s) {
    ex = ex * EXTENT_SLACK, ey = ey * EXTENT_SLACK;
    double z[4];
    int penetrating[4], area[4];
    for (int i = 0; i < 4; ++i) {
        z[i] = -pts[i][2];
        penetrating[i] = distance > z[i];
        area[i] = penetrating[i] & (fabs(pts[i][0]) <= ex) & (fabs(pts[i][1]) <= ey);
    }
    for (int i = 0; i < 4; ++i)
        add(s, area[i], pts[i][0], pts[i][1], pts[i][2], z[i]);
    const int more = s->count < 4;
    double lo[3], hi[3];
    for (int k = 0; k < 3; ++k) {
        lo[k] = pts[0][k], hi[k] = pts[0][k];
        for (int i = 1; i < 4; ++i)
            lo[k] = np_min(lo[k], pts[i][k]), hi[k] = np_max(hi[k], pts[i][k]);
    }
    const double denom = inc_normal[2];
    static const int corners[4][2] = {{1, 1}, {1, -1}, {-1, 1}, {-1, -1}};
    for (int c = 0; c < 4; ++c) {
        const double q[3] = {corners[c][0] * ex, corners[c][1] * ey, 0.0};
        const int inside = more && contains(pts, q[0], q[1], lo, hi);
        const double w[3] = {pts[0][0] - q[0], pts[0][1] - q[1], pts[0][2] - q[2]};
        const double t = dot3(inc_normal, w) / (denom != 0.0 ? denom : 1.0);
        add(s, inside & (distance > -t), q[0], q[1], t, -t);
    }
    const double box_hi[3] = {ex, ey, INFINITY};
    const double box_lo[3] = {-ex, -ey, -(distance + FLOAT_EPS)};
    static const int edges[4][2] = {{0, 3}, {1, 0}, {2, 1}, {3, 2}};
    for (int e = 0; e < 4; ++e) {
        const int start = edges[e][0], end = edges[e][1];
        const int con0 = area[start], con1 = area[end];
        const int todo = more & (penetrating[start] | penetrating[end]) & !(con0 & con1);
        const double *p0 = pts[start];
        const double d[3] = {pts[end][0] - p0[0], pts[end][1] - p0[1], pts[end][2] - p0[2]};
        double tmin, tmax;
        const int hit = segment_box(p0, d, box_lo, box_hi, &tmin, &tmax) & todo;
        const double tt[2] = {tmin, tmax};
        const int ok[2] = {hit & !con0, hit & !con1};
        for (int m = 0; m < 2; ++m) {
            const double x = p0[0] + tt[m] * d[0], y = p0[1] + tt[m] * d[1], zz = p0[2] + tt[m] * d[2];
            add(s, ok[m], x, y, zz, -zz);
        }
    }
}

/* _choose_four: PersistentContactManifold's reduceBatchContacts choice among n > 4 points (indices, in the order
   chosen) */
static void choose_four(const double *pts, const double *sep, int n, const double *normal, int fused, int chosen[4]) {
    int candidates[SLOTS];
    double d[SLOTS];
    for (int i = 0; i < n; ++i)
        candidates[i] = i;
    const int deepest = arg_min(sep, n);
    const double *deep = pts + 3 * deepest;
    chosen[0] = deepest;
    candidates[deepest] = candidates[n - 1]; /* (candidates are 0..n-1 in order: deepest's place is its index) */
    int left = n - 1;
    for (int c = 0; c < left; ++c) {
        const double *p = pts + 3 * candidates[c];
        const double v[3] = {p[0] - deep[0], p[1] - deep[1], p[2] - deep[2]};
        d[c] = blas_dot3(v, v, fused);
    }
    int at = arg_max(d, left);
    chosen[1] = candidates[at];
    candidates[at] = candidates[left - 1];
    left -= 1;
    const double *second = pts + 3 * chosen[1];
    const double span[3] = {second[0] - deep[0], second[1] - deep[1], second[2] - deep[2]};
    double line[3];
    cross3(span, normal, line);
    const double length = sqrt(blas_dot3(line, line, fused));
    if (length > 0.0)
        line[0] = line[0] / length, line[1] = line[1] / length, line[2] = line[2] / length;
    else
        line[0] = normal[0], line[1] = normal[1], line[2] = normal[2];
    for (int c = 0; c < left; ++c) {
        const double *p = pts + 3 * candidates[c];
        const double v[3] = {p[0] - deep[0], p[1] - deep[1], p[2] - deep[2]};
        d[c] = blas_dot3(v, line, fused);
    }
    const int hi_at = arg_max(d, left);
    int lo_at = arg_min(d, left);
    const double high = d[hi_at], low = d[lo_at];
    chosen[2] = candidates[hi_at];
    candidates[hi_at] = candidates[left - 1];
    left -= 1;
    if (lo_at == left)
        lo_at = hi_at;
    if (high * low > 0.0) {
        for (int c = 0; c < left; ++c) {
            const double *p = pts + 3 * candidates[c];
            const double v[3] = {p[0] - deep[0], p[1] - deep[1], p[2] - deep[2]};
            d[c] = blas_dot3(v, line, fused);
        }
        lo_at = arg_max(d, left);
    }
    chosen[3] = candidates[lo_at];
}

/* box_box_numpy for one pair: the pair's slots (zeroed by the caller) and normal; made */
static int box_box_pair(const double *ca, const double *Ra, const double *ea, const double *cb, const double *Rb,
                        const double *eb, double distance, int fused, double *points, double *sep, uint8_t *valid,
                        double *normal) {
    double C[3][3], abs_c[3][3], abs_a[3][3], t[3], sign[6], overlap[6];
    const double dc[3] = {cb[0] - ca[0], cb[1] - ca[1], cb[2] - ca[2]};
    for (int i = 0; i < 3; ++i) {
        for (int k = 0; k < 3; ++k)
            C[i][k] = dot3(Ra + 3 * i, Rb + 3 * k); /* B's axes in A's frame (columns) */
        t[i] = dot3(Ra + 3 * i, dc);
    }
    for (int i = 0; i < 3; ++i)
        for (int k = 0; k < 3; ++k)
            abs_c[i][k] = fabs(C[i][k]) + U_EPS, abs_a[i][k] = fabs(C[k][i]) + U_EPS;
    for (int j = 0; j < 3; ++j) {
        sign[j] = t[j];
        sign[3 + j] = sum3(t[0], C[0][j], t[1], C[1][j], t[2], C[2][j]);
    }
    for (int i = 0; i < 3; ++i) {
        const double rb = sum3_lanes(abs_a[0][i], eb[0], abs_a[1][i], eb[1], abs_a[2][i], eb[2]);
        const double ra = sum3(abs_c[0][i], ea[0], abs_c[1][i], ea[1], abs_c[2][i], ea[2]);
        overlap[i] = ea[i] + rb - fabs(sign[i]) + distance;
        overlap[3 + i] = ra + eb[i] - fabs(sign[3 + i]) + distance;
    }
    int apart = 0;
    for (int f = 0; f < 6; ++f)
        apart |= overlap[f] < 0.0;
    for (int i = 0; i < 3; ++i) { /* the edge-edge axes reject only */
        const int i1 = i == 0 ? 1 : 0, i2 = i == 2 ? 1 : 2;
        for (int j = 0; j < 3; ++j) {
            const int j1 = j == 0 ? 1 : 0, j2 = j == 2 ? 1 : 2;
            double L[3] = {0.0, 0.0, 0.0}; /* e_i x c_j */
            L[(i + 1) % 3] = -C[(i + 2) % 3][j];
            L[(i + 2) % 3] = C[(i + 1) % 3][j];
            const double r_a = ea[i1] * abs_c[i2][j] + ea[i2] * abs_c[i1][j];
            const double r_b = eb[j1] * abs_a[j2][i] + eb[j2] * abs_a[j1][i];
            apart |= fabs(dot3(t, L)) > r_a + r_b + distance;
        }
    }
    const int feature = arg_min(overlap, 6);
    const double s = sign[feature];
    const int on_b = feature >= 3, k = feature % 3;
    const double *ref_c = on_b ? cb : ca, *ref_R = on_b ? Rb : Ra, *ref_e = on_b ? eb : ea;
    const double *inc_c = on_b ? ca : cb, *inc_R = on_b ? Ra : Rb, *inc_e = on_b ? ea : eb;
    const double *axis = ref_R + 3 * k;
    double z[3], face[3];
    for (int j = 0; j < 3; ++j) {
        normal[j] = s <= 0.0 ? axis[j] : -axis[j];
        z[j] = on_b ? -normal[j] : normal[j];
        face[j] = ref_c[j] - z[j] * ref_e[k];
    }
    /* _clip_frame */
    const int first = k == 0 ? 2 : 0, second = k == 1 ? 2 : 1;
    double frame[3][3];
    memcpy(frame[0], ref_R + 3 * first, sizeof frame[0]);
    memcpy(frame[1], ref_R + 3 * second, sizeof frame[1]);
    memcpy(frame[2], z, sizeof frame[2]);
    double xy[3];
    cross3(frame[0], frame[1], xy);
    if (dot3(xy, z) < 0.0) {
        double *flipped = k == 0 ? frame[0] : frame[1];
        flipped[0] = -flipped[0], flipped[1] = -flipped[1], flipped[2] = -flipped[2];
    }
    const double ex = ref_e[first], ey = ref_e[second];
    /* the incident box in the clipping frame */
    double inc_axes[3][3], inc_centre[3];
    const double rel[3] = {inc_c[0] - face[0], inc_c[1] - face[1], inc_c[2] - face[2]};
    for (int i = 0; i < 3; ++i) {
        for (int m = 0; m < 3; ++m)
            inc_axes[m][i] = dot3(frame[i], inc_R + 3 * m);
        inc_centre[i] = dot3(frame[i], rel);
    }
    /* _incident_polygon */
    double a[3], dz[3];
    for (int m = 0; m < 3; ++m)
        dz[m] = -inc_axes[m][2], a[m] = fabs(dz[m]);
    const int n = (a[0] >= a[1] && a[0] >= a[2]) ? 0 : (a[1] >= a[2] ? 1 : 2);
    const int positive = dz[n] > 0.0;
    const double *u = inc_axes[n];
    double inc_normal[3], pts[4][3];
    const double e_n = positive ? -inc_e[n] : inc_e[n];
    const int f1 = n == 0 ? 1 : 0, f2 = n == 2 ? 1 : 2;
    for (int j = 0; j < 3; ++j) {
        inc_normal[j] = positive ? -u[j] : u[j];
        const double r_f = inc_axes[f1][j] * inc_e[f1], r_s = inc_axes[f2][j] * inc_e[f2];
        const double base = inc_centre[j] + u[j] * e_n;
        pts[0][j] = base + r_f + r_s;
        pts[1][j] = base + r_f - r_s;
        pts[2][j] = base - r_f - r_s;
        pts[3][j] = base - r_f + r_s;
    }
    double local[SLOTS][3];
    memset(local, 0, sizeof local);
    Slots slots = {&local[0][0], sep, valid, 0};
    calculate_contacts(ex, ey, (const double(*)[3])pts, inc_normal, distance, &slots);
    /* in the world, on B's surface (the reference face's plane where B is the reference) */
    for (int q = 0; q < SLOTS; ++q) {
        const double w[3] = {local[q][0], local[q][1], on_b ? local[q][2] * 0.0 : local[q][2]};
        for (int j = 0; j < 3; ++j)
            points[3 * q + j] = face[j] + sum3(w[0], frame[0][j], w[1], frame[1][j], w[2], frame[2][j]);
    }
    int count = 0;
    for (int q = 0; q < SLOTS; ++q) {
        valid[q] = valid[q] & !apart;
        count += valid[q];
    }
    if (count > 4) { /* _reduce_batch: the valid slots are the first `count` (added in turn) */
        int chosen[4];
        choose_four(points, sep, count, normal, fused, chosen);
        double kept_points[4][3], kept_sep[4];
        for (int c = 0; c < 4; ++c) {
            memcpy(kept_points[c], points + 3 * chosen[c], sizeof kept_points[c]);
            kept_sep[c] = sep[chosen[c]];
        }
        memcpy(points, kept_points, sizeof kept_points);
        memcpy(sep, kept_sep, sizeof kept_sep);
        for (int q = 0; q < SLOTS; ++q)
            valid[q] = q < 4;
    }
    return count > 0;
}

/* box_box_numpy over P pairs: A (the vehicle's box) against B (static) within `distance` (P,) */
int pvu_box_box(int64_t P, const double *ca, const double *Ra, const double *ea, const double *cb, const double *Rb,
                const double *eb, const double *distance, int64_t blas_fused, uint8_t *made, double *points,
                double *sep, uint8_t *valid, double *normal) {
    for (int64_t p = 0; p < P; ++p) {
        memset(sep + SLOTS * p, 0, SLOTS * sizeof(double));
        memset(valid + SLOTS * p, 0, SLOTS);
        made[p] = (uint8_t)box_box_pair(ca + 3 * p, Ra + 9 * p, ea + 3 * p, cb + 3 * p, Rb + 9 * p, eb + 3 * p,
                                        distance[p], (int)blas_fused, points + 3 * SLOTS * p, sep + SLOTS * p, valid + SLOTS * p,
                                        normal + 3 * p);
    }
    return 0;
}
