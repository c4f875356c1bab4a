/* A vehicle's polytope against mesh triangles (sim/contact/separating_axes.py `polytope_contacts` with
   single-sided triangles: the separating axes, PCM's triangle rules (_pcm_triangle_axes), the reference face's
   clipping (_clip, in PCM's crossing order) and the triangle's front side), pair by pair. The numpy code's padded
   rows are read as they are: a polytope's K vertices (padded with vertex 0), F faces (padding masked), loops of M
   vertices (padded with their last) and D edge directions (padding masked). Every polytope has faces (a round core's
   pairs stay with numpy); the contacts come as numpy's do: the pairs whose reference face is the triangle's, then
   those whose is the polytope's, each pair's points in its candidate order. The numpy code's arithmetic in its
   order (_narrow_phase.h). */
#include "_narrow_phase.h"

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
