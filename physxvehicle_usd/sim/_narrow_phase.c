/* The narrow phases of a step's contacts with the static world, compiled: PCM's box-box contacts (sim/contact/box.py
   `box_box_numpy`, PhysX's GuPCMContactBoxBox), pair after pair, without the numpy code's (P, 16, 3) temporaries and
   its some two hundred numpy calls a call.

   The numpy code's arithmetic in its order and precision (float64): its einsum sums start from +0 and add their
   products left to right, as numpy's sum-of-products loops do for three terms (so a sum of -0 products is +0, as
   there); np.minimum and np.maximum propagate NaN and keep their first argument among equals; argmin and argmax give
   the first of equals (the first NaN where there is one). Every slot of the sixteen is computed, valid or not, as the
   numpy arrays are, so the two return the same bits everywhere. Built with -ffp-contract=off: no fused multiply-add.

   Layout: what numpy holds, C order: centres and half extents (P, 3), axes (P, 3, 3) (row k: the box's unit k axis),
   points (P, 16, 3), separations (P, 16), valid (P, 16) and made (P,) as bytes (numpy's bool), normals (P, 3). */
#include <math.h>
#include <stdint.h>
#include <string.h>

#define SLOTS 16

static const double U_EPS = 1e-6;         /* box.py _U_EPS */
static const double EXTENT_SLACK = 1.0001; /* _EXTENT_SLACK */
static const double PARALLEL = 1e-6;      /* _PARALLEL */
static const double FLOAT_EPS = 1.1920928955078125e-07; /* _FLOAT_EPS: float32's epsilon */

/* np.minimum / np.maximum of two (NaN first, else the first of equals) */
static inline double np_min(double a, double b) { return (a <= b || isnan(a)) ? a : b; }
static inline double np_max(double a, double b) { return (a >= b || isnan(a)) ? a : b; }

/* An einsum's sum of three products over an axis the operands do not hold contiguously (numpy's scalar
   sum-of-products loop): from +0, left to right. */
static inline double sum3(double a0, double b0, double a1, double b1, double a2, double b2) {
    double s = 0.0;
    s += a0 * b0;
    s += a1 * b1;
    s += a2 * b2;
    return s;
}

/* The same over an axis both operands hold contiguously: numpy's vector loop (two doubles a register, numpy's
   baseline SIMD on x86-64 and Arm) multiplies and adds the pairs (0, 1), then (2, zero padding), and adds the two
   lanes: (p0 + p2) + p1, from +0. */
static inline double sum3_lanes(double a0, double b0, double a1, double b1, double a2, double b2) {
    double lane0 = 0.0, lane1 = 0.0;
    lane0 = a0 * b0 + lane0;
    lane1 = a1 * b1 + lane1;
    lane0 = a2 * b2 + lane0;
    lane1 = 0.0 * 0.0 + lane1;
    return (lane0 + lane1) + 0.0;
}

static inline double dot3(const double *a, const double *b) { return sum3_lanes(a[0], b[0], a[1], b[1], a[2], b[2]); }

/* numpy's a @ b of two 3-vectors (its BLAS's ddot): OpenBLAS's kernels on x86-64 with FMA add each product fused,
   left to right; without FMA the products are rounded first. Which one numpy's BLAS does is probed at load
   (compiled_narrow_phase.py) and passed in. */
static inline double blas_dot3(const double *a, const double *b, int fused) {
    if (fused)
        return fma(a[2], b[2], fma(a[1], b[1], a[0] * b[0]));
    return (a[0] * b[0] + a[1] * b[1]) + a[2] * b[2];
}

/* np.cross of two 3-vectors */
static inline void cross3(const double *a, const double *b, double *out) {
    out[0] = a[1] * b[2] - a[2] * b[1];
    out[1] = a[2] * b[0] - a[0] * b[2];
    out[2] = a[0] * b[1] - a[1] * b[0];
}

/* argmin / argmax of n values: the first of equals, the first NaN where there is one */
static int arg_min(const double *v, int n) {
    int at = 0;
    for (int i = 0; i < n; ++i) {
        if (isnan(v[i]))
            return i;
        if (v[i] < v[at])
            at = i;
    }
    return at;
}

static int arg_max(const double *v, int n) {
    int at = 0;
    for (int i = 0; i < n; ++i) {
        if (isnan(v[i]))
            return i;
        if (v[i] > v[at])
            at = i;
    }
    return at;
}

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

/* ---- A vehicle's polytope against mesh triangles (sim/contact/separating_axes.py `polytope_contacts` with
   single-sided triangles: the separating axes, PCM's triangle rules (_pcm_triangle_axes), the reference face's
   clipping (_clip, in PCM's crossing order) and the triangle's front side), pair by pair. The numpy code's padded
   rows are read as they are: a polytope's K vertices (padded with vertex 0), F faces (padding masked), loops of M
   vertices (padded with their last) and D edge directions (padding masked). Every polytope has faces (a round core's
   pairs stay with numpy); the contacts come as numpy's do: the pairs whose reference face is the triangle's, then
   those whose is the polytope's, each pair's points in its candidate order. */

typedef struct {
    int64_t K, F, M, D;
    const double *vertices;  /* (P, K, 3) */
    const double *normals;   /* (P, F, 3) */
    const double *offsets;   /* (P, F) */
    const uint8_t *face_mask; /* (P, F) */
    const int64_t *loops;    /* (P, F, M) */
    const int64_t *loop_counts; /* (P, F) */
    const int64_t *axis_edges;  /* (P, D, 2) */
    const uint8_t *axis_mask;   /* (P, D) */
} PolytopeRows;

static const int TRIANGLE_EDGES[3][2] = {{0, 1}, {1, 2}, {0, 2}}; /* triangle_polytopes' edges */
static const double FACE_PREFERENCE = 1e-4, FACE_PREFERENCE_LENGTH = 25.0, TIE_ULPS = 1.0;
static const double TRIANGLE_FACING = 0.707106781;

/* np.linalg.norm of a 3-vector (add.reduce of the squares, left to right) */
static inline double norm3(const double *v) { return sqrt((v[0] * v[0] + v[1] * v[1]) + v[2] * v[2]); }

/* support_min: min over n vertices of axis . x */
static double support_min(const double *vertices, int64_t n, const double *axis) {
    double lowest = dot3(axis, vertices);
    for (int64_t k = 1; k < n; ++k)
        lowest = np_min(lowest, dot3(axis, vertices + 3 * k));
    return lowest;
}

/* One face loop of a polytope row (or the triangle): its M vertices and count. */
typedef struct {
    double v[64][3];
    int64_t M, count;
} Loop;

static void loop_of(const double *vertices, const int64_t *loop, int64_t M, int64_t count, Loop *out) {
    out->M = M, out->count = count;
    for (int64_t m = 0; m < M; ++m)
        memcpy(out->v[m], vertices + 3 * loop[m], sizeof out->v[m]);
}

/* the loop's edges as _clip makes them: to the next vertex, the closing one (from the last real vertex, and from
   every padding vertex) back to the first */
static void loop_edges(const Loop *l, double edge[][3]) {
    for (int64_t m = 0; m < l->M; ++m) {
        const double *next = m >= l->count - 1 ? l->v[0] : l->v[(m + 1) % l->M];
        for (int j = 0; j < 3; ++j)
            edge[m][j] = next[j] - l->v[m][j];
    }
}

/* _clip's `inside`: the point inside the loop's prism about nrm (every edge, padding's included) */
static int inside_loop(const double *point, const Loop *l, const double edge[][3], const double *nrm, double eps) {
    for (int64_t m = 0; m < l->M; ++m) {
        const double rel[3] = {point[0] - l->v[m][0], point[1] - l->v[m][1], point[2] - l->v[m][2]};
        double c[3];
        cross3(edge[m], rel, c);
        const double side = sum3_lanes(nrm[0], c[0], nrm[1], c[1], nrm[2], c[2]);
        const int degenerate = norm3(edge[m]) < 1e-12;
        if (!((side >= -eps) | degenerate))
            return 0;
    }
    return 1;
}

/* the flat(x) of _clip: x less its component along n */
static inline void flat(const double *n, const double *x, double *out) {
    const double along = dot3(n, x);
    for (int j = 0; j < 3; ++j)
        out[j] = x[j] - along * n[j];
}

/* where _pcm_crossing_order takes edge k of a loop from: PCM starts at the closing edge */
static inline int64_t closing_first(int64_t k, int64_t count) {
    const int64_t c = count > 1 ? count : 1;
    return k < count ? ((k - 1) % c + c) % c : k;
}

/* The contacts being written: pair, point, normal, separation; `radius` (or NULL) and the single-sided normals. */
typedef struct {
    int64_t *pair;
    double *point, *normal, *separation;
    int64_t count, made; /* written; made before the front-side filter */
    const double *radius, *single_sided;
} Out;

static void emit(Out *o, int64_t p, const double *point, const double *normal, double separation) {
    o->made += 1;
    double pt[3] = {point[0], point[1], point[2]};
    if (o->radius) { /* from the core to the round surface */
        const double r = o->radius[p];
        separation = separation - r;
        for (int j = 0; j < 3; ++j)
            pt[j] = pt[j] - r * normal[j];
    }
    const double *front = o->single_sided + 3 * p;
    if (!(dot3(normal, front) > 0.0))
        return; /* a triangle pushes only to its front side */
    const int64_t c = o->count++;
    o->pair[c] = p;
    memcpy(o->point + 3 * c, pt, sizeof pt);
    memcpy(o->normal + 3 * c, normal, 3 * sizeof(double));
    o->separation[c] = separation;
}

/* a kept candidate of _clip: on the triangle's plane where the reference face is the triangle's, on the reference
   face's side where points_on_reference */
static void put(Out *o, int64_t p, const double *point, double sep, const double *n_r, double d_r,
                const double *normal, int triangle, int points_on_reference) {
    double out[3] = {point[0], point[1], point[2]};
    if (triangle) {
        const double h = dot3(n_r, out) - d_r;
        for (int j = 0; j < 3; ++j)
            out[j] = out[j] - h * n_r[j];
    }
    if (points_on_reference)
        for (int j = 0; j < 3; ++j)
            out[j] = out[j] - sep * n_r[j];
    emit(o, p, out, normal, sep);
}

/* _clip of pair p: the incident loop I (normal n_i, offset d_i) clipped by the reference loop R (n_r, d_r);
   triangle: R is the triangle (else I is); points_on_reference: report the points on R's side */
static void clip(const Loop *R, const double *n_r, double d_r, const Loop *I, const double *n_i, double d_i,
                 const double *normal, double limit, int triangle, int points_on_reference, int64_t p, Out *o) {
    const int64_t Mr = R->M, Mi = I->M;
    double ref_edge[64][3], inc_edge[64][3];
    loop_edges(R, ref_edge);
    loop_edges(I, inc_edge);
    if (!isfinite(d_i))
        d_i = 0.0;
    double biggest = fabs(R->v[0][0]);
    for (int64_t m = 0; m < Mr; ++m)
        for (int j = 0; j < 3; ++j)
            biggest = np_max(biggest, fabs(R->v[m][j]));
    const double eps = 1e-7 * (1.0 + biggest);
    const double along = dot3(n_i, n_r);
    const int lifts = fabs(along) > 1e-9;
    const double divisor = lifts ? along : 1e-9;
    /* the candidates in _clip's order, each with its separation; kept where below the limit */
    for (int64_t q = 0; q < Mi; ++q) { /* 1. incident vertices inside the reference face */
        if (!(q < I->count && inside_loop(I->v[q], R, (const double(*)[3])ref_edge, n_r, eps)))
            continue;
        const double sep = dot3(n_r, I->v[q]) - d_r;
        if (sep < limit)
            put(o, p, I->v[q], sep, n_r, d_r, normal, triangle, points_on_reference);
    }
    for (int64_t m = 0; m < Mr; ++m) { /* 2. reference vertices inside the incident face, lifted onto it */
        const double t = (d_i - dot3(n_i, R->v[m])) / divisor;
        double lifted[3];
        for (int j = 0; j < 3; ++j)
            lifted[j] = R->v[m][j] + t * n_r[j];
        if (!(lifts && m < R->count && inside_loop(lifted, I, (const double(*)[3])inc_edge, n_i, eps)))
            continue;
        double sep = dot3(n_r, lifted) - d_r;
        if (triangle)
            sep = sep * (along * along);
        if (!(sep < limit))
            continue;
        put(o, p, lifted, sep, n_r, d_r, normal, triangle, points_on_reference);
    }
    /* 3. crossings of the loops' edges in the reference plane, in PCM's order: the triangle's loop outer, each loop
       from its closing edge */
    const int64_t ref_edges = R->count, inc_edges = I->count == 2 ? 1 : I->count;
    const int64_t outer = triangle ? Mr : Mi, inner = triangle ? Mi : Mr;
    for (int64_t x = 0; x < outer; ++x) {
        for (int64_t y = 0; y < inner; ++y) {
            const int64_t a = closing_first(triangle ? x : y, ref_edges);
            const int64_t b = closing_first(triangle ? y : x, inc_edges);
            double a0[3], da[3], b0[3], db[3];
            flat(n_r, R->v[a], a0);
            flat(n_r, ref_edge[a], da);
            flat(n_r, I->v[b], b0);
            flat(n_r, inc_edge[b], db);
            double c[3], w[3];
            cross3(da, db, c);
            const double denom = sum3_lanes(c[0], n_r[0], c[1], n_r[1], c[2], n_r[2]);
            const int ok = fabs(denom) > 1e-12;
            for (int j = 0; j < 3; ++j)
                w[j] = b0[j] - a0[j];
            cross3(w, db, c);
            const double s = sum3_lanes(c[0], n_r[0], c[1], n_r[1], c[2], n_r[2]) / (ok ? denom : 1.0);
            cross3(w, da, c);
            const double u = sum3_lanes(c[0], n_r[0], c[1], n_r[1], c[2], n_r[2]) / (ok ? denom : 1.0);
            const int crossing = ok & (s >= 0) & (s <= 1) & (u >= 0) & (u <= 1) & (a < ref_edges) & (b < inc_edges);
            if (!crossing)
                continue;
            double pt[3];
            for (int j = 0; j < 3; ++j)
                pt[j] = I->v[b][j] + u * inc_edge[b][j];
            const double sep = dot3(n_r, pt) - d_r;
            if (sep < limit)
                put(o, p, pt, sep, n_r, d_r, normal, triangle, points_on_reference);
        }
    }
}

enum { MAX_LOOP = 64, MAX_AXES = 3 * 128 };

/* polytope_contacts' choice for pair p against its triangle: 0 no contact, 1 the triangle's face is the reference
   (`face`: the polytope's incident face), 2 the polytope's face is (`face`: it) */
static int choose(const PolytopeRows *A, int64_t p, const double *Bv, const double *nb, double db,
                  const uint8_t *active, double limit, int64_t *chosen_face) {
    const int64_t K = A->K, F = A->F, D = A->D;
    const double *Av = A->vertices + 3 * K * p, *An = A->normals + 3 * F * p, *Ao = A->offsets + F * p;
    const uint8_t *mask = A->face_mask + F * p;
    /* face axes of A (B's separation from A), of the triangle (A's from it) */
    double best_a = -INFINITY;
    int64_t f_best = 0;
    double sep_a_best = 0.0;
    for (int64_t f = 0; f < F; ++f) {
        const double sep = mask[f] ? support_min(Bv, 3, An + 3 * f) - Ao[f] : -INFINITY;
        best_a = np_max(best_a, sep);
        /* argmax: the first of equals, the first NaN */
        if (f == 0 || (!isnan(sep_a_best) && (isnan(sep) || sep > sep_a_best)))
            sep_a_best = sep, f_best = f;
    }
    const double best_b = np_max(-INFINITY, support_min(Av, K, nb) - db);
    /* edge axes, from B towards A */
    double mean_a[3], mean_b[3], towards_a[3];
    for (int j = 0; j < 3; ++j) {
        double s = Av[j];
        for (int64_t k = 1; k < K; ++k)
            s = s + Av[3 * k + j];
        mean_a[j] = s / (double)K;
        mean_b[j] = ((Bv[j] + Bv[3 + j]) + Bv[6 + j]) / 3.0;
        towards_a[j] = mean_a[j] - mean_b[j];
    }
    double axes[MAX_AXES][3], sep_e[MAX_AXES];
    double best_e = -INFINITY;
    const int64_t *edges = A->axis_edges + 2 * D * p;
    const uint8_t *axis_mask = A->axis_mask + D * p;
    for (int64_t d = 0; d < D; ++d) {
        const double *a0 = Av + 3 * edges[2 * d], *a1 = Av + 3 * edges[2 * d + 1];
        const double ea[3] = {a1[0] - a0[0], a1[1] - a0[1], a1[2] - a0[2]};
        for (int e = 0; e < 3; ++e) {
            const double *b0 = Bv + 3 * TRIANGLE_EDGES[e][0], *b1 = Bv + 3 * TRIANGLE_EDGES[e][1];
            const double eb[3] = {b1[0] - b0[0], b1[1] - b0[1], b1[2] - b0[2]};
            double *ax = axes[3 * d + e];
            cross3(ea, eb, ax);
            const double length = norm3(ax), scale = norm3(ea) * norm3(eb);
            const int usable = (length > 1e-6 * np_max(scale, 1e-30)) & axis_mask[d] & active[e];
            const double by = usable ? length : 1.0;
            for (int j = 0; j < 3; ++j)
                ax[j] = ax[j] / by;
            if (dot3(ax, towards_a) < 0.0)
                for (int j = 0; j < 3; ++j)
                    ax[j] = -ax[j];
            const double back[3] = {-ax[0], -ax[1], -ax[2]};
            const double sep = usable ? support_min(Av, K, ax) + support_min(Bv, 3, back) : -INFINITY;
            sep_e[3 * d + e] = sep;
            best_e = np_max(best_e, sep);
        }
    }
    const double deepest_face = np_max(best_a, best_b);
    const double tol = FACE_PREFERENCE * (FACE_PREFERENCE_LENGTH * limit + fabs(deepest_face));
    int use_b = (best_b >= best_a - tol) & (best_b >= best_e - tol);
    int use_a = !use_b & (best_a >= best_e - tol);
    const int use_e = !use_b & !use_a;
    /* _pcm_triangle_axes: the triangle's normal or A's face, unless an edge pair on the triangle's front overlaps
       strictly less */
    int64_t k = 0;
    double best_edge = 0.0;
    for (int64_t a = 0; a < 3 * D; ++a) {
        const double sep = dot3(axes[a], nb) > 0.0 ? sep_e[a] : -INFINITY;
        if (a == 0 || (!isnan(best_edge) && (isnan(sep) || sep > best_edge)))
            best_edge = sep, k = a;
    }
    const int face_a = use_a | (use_e & !(best_b >= best_a - tol));
    double biggest = fabs(Bv[0]);
    for (int i = 1; i < 9; ++i)
        biggest = np_max(biggest, fabs(Bv[i]));
    const double rounding = FLOAT_EPS * TIE_ULPS * biggest;
    const int edge_face = best_edge > (face_a ? best_a : best_b + FLOAT_EPS) + rounding;
    int64_t f_edge = 0;
    double lowest = 0.0;
    for (int64_t f = 0; f < F; ++f) {
        const double along = mask[f] ? dot3(An + 3 * f, axes[k]) : INFINITY;
        if (f == 0 || (!isnan(lowest) && (isnan(along) || along < lowest)))
            lowest = along, f_edge = f;
    }
    use_a = (face_a & !edge_face) | edge_face;
    use_b = !face_a & !edge_face;
    const double best_edges = edge_face ? best_edge : best_e;
    const int64_t f_ref = edge_face ? f_edge : f_best;
    const double best = use_b ? best_b : (use_a ? (edge_face ? best_edges : best_a) : best_edges);
    if (!(best < limit))
        return 0;
    /* PCM's convex-triangle rule: a face of A within 45 degrees of facing the triangle leaves the triangle's normal */
    const int facing = !edge_face & (-dot3(An + 3 * f_best, nb) > TRIANGLE_FACING);
    use_b = use_b | (use_a & facing);
    use_a = use_a & !facing;
    if (use_b) { /* A's face most opposed to the triangle's normal, or A's face of the separating axis */
        int64_t f_inc = 0;
        double least = 0.0;
        for (int64_t f = 0; f < F; ++f) {
            const double along = mask[f] ? dot3(An + 3 * f, nb) : INFINITY;
            if (f == 0 || (!isnan(least) && (isnan(along) || along < least)))
                least = along, f_inc = f;
        }
        *chosen_face = best_a > best_b + tol ? f_best : f_inc;
        return 1;
    }
    if (use_a) {
        *chosen_face = f_ref;
        return 2;
    }
    return 0;
}

/* polytope_contacts of P pairs of A's rows against triangles B (vertices (P, 3, 3), front normals and offsets,
   which edges are active (P, 3)), single-sided, within `limit` (P,) (plus `radius` (P,) or NULL: a round shape's
   radius, zero for a polytope). Writes at most P (M + 3 + 3 M) contacts; returns how many, and in *made how many
   the clipping made before the triangles' front side kept them. */
int64_t pvu_polytope_triangles(int64_t P, int64_t K, int64_t F, int64_t M, int64_t D, const double *a_vertices,
                               const double *a_normals, const double *a_offsets, const uint8_t *a_face_mask,
                               const int64_t *a_loops, const int64_t *a_loop_counts, const int64_t *a_axis_edges,
                               const uint8_t *a_axis_mask, const double *b_vertices, const double *b_normal,
                               const double *b_offset, const uint8_t *b_active, const double *limit,
                               const double *radius, const double *single_sided, int64_t *pair, double *point,
                               double *normal, double *separation, int64_t *made, int64_t *group,
                               int64_t *face) {
    if (M > MAX_LOOP || 3 * D > MAX_AXES)
        return -1;
    const PolytopeRows A = {K, F, M, D, a_vertices, a_normals, a_offsets, a_face_mask, a_loops, a_loop_counts,
                            a_axis_edges, a_axis_mask};
    for (int64_t p = 0; p < P; ++p) {
        const double lim = radius ? limit[p] + radius[p] : limit[p];
        group[p] = choose(&A, p, b_vertices + 9 * p, b_normal + 3 * p, b_offset[p], b_active + 3 * p, lim, face + p);
    }
    Out o = {pair, point, normal, separation, 0, 0, radius, single_sided};
    static const int64_t TRIANGLE_LOOP[3] = {0, 1, 2};
    for (int g = 1; g <= 2; ++g) { /* the triangle's reference faces first, then A's */
        for (int64_t p = 0; p < P; ++p) {
            if (group[p] != g)
                continue;
            const double lim = radius ? limit[p] + radius[p] : limit[p];
            const int64_t f = face[p];
            const double *Av = a_vertices + 3 * K * p, *n_a = a_normals + 3 * (F * p + f);
            const double *nb = b_normal + 3 * p;
            Loop tri, poly;
            loop_of(b_vertices + 9 * p, TRIANGLE_LOOP, 3, 3, &tri);
            loop_of(Av, a_loops + M * (F * p + f), M, a_loop_counts[F * p + f], &poly);
            if (g == 1) {
                clip(&tri, nb, b_offset[p], &poly, n_a, a_offsets[F * p + f], nb, lim, 1, 0, p, &o);
            } else {
                const double away[3] = {-n_a[0], -n_a[1], -n_a[2]};
                clip(&poly, n_a, a_offsets[F * p + f], &tri, nb, b_offset[p], away, lim, 0, 1, p, &o);
            }
        }
    }
    *made = o.made;
    return o.count;
}
