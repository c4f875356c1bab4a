/* A vehicle's polytope against a static polytope or a mesh triangle (sim/contact/separating_axes.py
   `polytope_contacts_numpy`): the separating axes (the faces of either, the cross products of their edge directions),
   against a single-sided triangle PCM's rules (_pcm_triangle_axes, the 45-degree facing rule, the front side), the
   reference face's clipping of the incident face (_clip; against a triangle in PCM's crossing order), or an
   edge-edge point (_edge_contacts), pair by pair. The numpy code's padded rows are read as they are: a polytope's K
   vertices (padded with vertex 0), F faces (padding masked), loops of M vertices (padded with their last), E edges
   and D edge directions (padding masked). Every vehicle polytope has faces (a round core's pairs stay with numpy);
   the contacts come as numpy's do: the pairs whose reference face is the static shape's, then those whose is the
   vehicle's, then the edge-edge pairs, each pair's points in its candidate order. The numpy code's arithmetic in its
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
    int64_t E;
    const int64_t *edges;       /* (P, E, 2) */
    const uint8_t *edge_mask;   /* (P, E) */
} PolytopeRows;

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

/* how many of a row's K vertices support_min must meet: the padding (copies of vertex 0, bit for bit, at the end)
   cannot lower a minimum that vertex 0 already holds */
static int64_t unpadded(const double *vertices, int64_t K) {
    int64_t n = K;
    while (n > 1 && memcmp(vertices + 3 * (n - 1), vertices, 3 * sizeof(double)) == 0)
        --n;
    return n;
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
    if (o->single_sided && !(dot3(normal, o->single_sided + 3 * p) > 0.0))
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
                 const double *normal, double limit, int triangle, int mesh, int points_on_reference, int64_t p,
                 Out *o) {
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
    /* 3. crossings of the loops' edges in the reference plane: the reference loop's edges outer, each loop from its
       first edge; against a triangle (mesh) in PCM's order: the triangle's loop outer, each loop from its closing
       edge */
    const int64_t ref_edges = R->count, inc_edges = I->count == 2 ? 1 : I->count;
    const int ref_outer = triangle || !mesh;
    const int64_t outer = ref_outer ? Mr : Mi, inner = ref_outer ? Mi : Mr;
    for (int64_t x = 0; x < outer; ++x) {
        for (int64_t y = 0; y < inner; ++y) {
            const int64_t a = mesh ? closing_first(ref_outer ? x : y, ref_edges) : x;
            const int64_t b = mesh ? closing_first(ref_outer ? y : x, inc_edges) : y;
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

enum { MAX_LOOP = 64 };

/* argmax / argmin as numpy's: the first of equals, the first NaN */
static inline int better_max(double v, double best, int64_t at) {
    return at == 0 || (!isnan(best) && (isnan(v) || v > best));
}
static inline int better_min(double v, double best, int64_t at) {
    return at == 0 || (!isnan(best) && (isnan(v) || v < best));
}

/* the face of rows X (pair p) whose normal is least along `axis` (masked faces aside): np.where(mask, n . axis,
   inf).argmin() */
static int64_t least_face(const PolytopeRows *X, int64_t p, const double *axis) {
    const double *n = X->normals + 3 * X->F * p;
    const uint8_t *mask = X->face_mask + X->F * p;
    int64_t at = 0;
    double least = 0.0;
    for (int64_t f = 0; f < X->F; ++f) {
        const double along = mask[f] ? dot3(n + 3 * f, axis) : INFINITY;
        if (better_min(along, least, f))
            least = along, at = f;
    }
    return at;
}

/* What polytope_contacts makes of pair p. */
typedef struct {
    int group;        /* 0 none; 1 B's face the reference (its face g, A's incident face f); 2 A's (f; B's g);
                         3 an edge-edge point */
    int64_t f, g;
    double axis[3];   /* group 3: the separating axis, from B towards A */
    double separation;
} Choice;

/* One shape's face axes against the other's vertices: each listed face's separation (the other's least support along
   its normal less the face's offset; -inf for a face not listed): their numpy maximum in *best, and the face numpy's
   argmax picks returned. */
static int64_t best_face_axis(const double *normals, const double *offsets, const uint8_t *mask, int64_t F,
                              const double *other, int64_t n_other, double *best) {
    double most = -INFINITY, picked = 0.0;
    int64_t face = 0;
    for (int64_t f = 0; f < F; ++f) {
        const double sep = mask[f] ? support_min(other, n_other, normals + 3 * f) - offsets[f] : -INFINITY;
        most = np_max(most, sep);
        if (better_max(sep, picked, f))
            picked = sep, face = f;
    }
    *best = most;
    return face;
}

static Choice choose(const PolytopeRows *A, const PolytopeRows *B, int64_t p, double limit, int triangle) {
    Choice c = {0, 0, 0, {0.0, 0.0, 0.0}, 0.0};
    const int64_t KA = A->K, FA = A->F, DA = A->D, KB = B->K, FB = B->F, DB = B->D;
    const double *Av = A->vertices + 3 * KA * p, *An = A->normals + 3 * FA * p, *Ao = A->offsets + FA * p;
    const double *Bv = B->vertices + 3 * KB * p, *Bn = B->normals + 3 * FB * p, *Bo = B->offsets + FB * p;
    const uint8_t *mask_a = A->face_mask + FA * p, *mask_b = B->face_mask + FB * p;
    const int64_t na = unpadded(Av, KA), nb_real = unpadded(Bv, KB); /* the vertices the supports meet */
    /* face axes of A (B's separation from A), of B (A's from B) */
    double best_a, best_b;
    const int64_t f_best = best_face_axis(An, Ao, mask_a, FA, Bv, nb_real, &best_a);
    const int64_t g_best = best_face_axis(Bn, Bo, mask_b, FB, Av, na, &best_b);
    /* edge axes, from B towards A (the shapes' vertex means) */
    double towards_a[3];
    for (int j = 0; j < 3; ++j) {
        double sa = Av[j], sb = Bv[j];
        for (int64_t k = 1; k < KA; ++k)
            sa = sa + Av[3 * k + j];
        for (int64_t k = 1; k < KB; ++k)
            sb = sb + Bv[3 * k + j];
        towards_a[j] = sa / (double)KA - sb / (double)KB;
    }
    double best_e = -INFINITY, sep_e_top = 0.0, edge_top = 0.0;
    double e_axis[3] = {0.0, 0.0, 0.0}, front_axis[3] = {0.0, 0.0, 0.0};
    const int64_t *edges_a = A->axis_edges + 2 * DA * p, *edges_b = B->axis_edges + 2 * DB * p;
    const uint8_t *axis_mask_a = A->axis_mask + DA * p, *axis_mask_b = B->axis_mask + DB * p;
    const double *nb = Bn; /* a triangle's one face normal */
    for (int64_t d = 0; d < DA; ++d) {
        const double *a0 = Av + 3 * edges_a[2 * d], *a1 = Av + 3 * edges_a[2 * d + 1];
        const double ea[3] = {a1[0] - a0[0], a1[1] - a0[1], a1[2] - a0[2]};
        for (int64_t e = 0; e < DB; ++e) {
            const double *b0 = Bv + 3 * edges_b[2 * e], *b1 = Bv + 3 * edges_b[2 * e + 1];
            const double eb[3] = {b1[0] - b0[0], b1[1] - b0[1], b1[2] - b0[2]};
            double ax[3];
            cross3(ea, eb, ax);
            const double length = norm3(ax), scale = norm3(ea) * norm3(eb);
            const int usable = (length > 1e-6 * np_max(scale, 1e-30)) & axis_mask_a[d] & axis_mask_b[e];
            const double by = usable ? length : 1.0;
            for (int j = 0; j < 3; ++j)
                ax[j] = ax[j] / by;
            if (dot3(ax, towards_a) < 0.0)
                for (int j = 0; j < 3; ++j)
                    ax[j] = -ax[j];
            const double back[3] = {-ax[0], -ax[1], -ax[2]};
            const double sep = usable ? support_min(Av, na, ax) + support_min(Bv, nb_real, back) : -INFINITY;
            const int64_t at = DB * d + e;
            best_e = np_max(best_e, sep);
            if (better_max(sep, sep_e_top, at))
                sep_e_top = sep, memcpy(e_axis, ax, sizeof ax);
            if (triangle) { /* the edge pairs on the triangle's front side */
                const double front = dot3(ax, nb) > 0.0 ? sep : -INFINITY;
                if (better_max(front, edge_top, at))
                    edge_top = front, memcpy(front_axis, ax, sizeof ax);
            }
        }
    }
    const double deepest_face = np_max(best_a, best_b);
    const double tol = FACE_PREFERENCE * (FACE_PREFERENCE_LENGTH * limit + fabs(deepest_face));
    int use_b = (best_b >= best_a - tol) & (best_b >= best_e - tol);
    int use_a = !use_b & (best_a >= best_e - tol);
    int use_e = !use_b & !use_a;
    int64_t f_ref = f_best;
    int edge_face = 0;
    double best_edges = best_e;
    if (triangle) { /* _pcm_triangle_axes: the triangle's normal or A's face, unless an edge pair on the
                       triangle's front overlaps strictly less */
        const int face_a = use_a | (use_e & !(best_b >= best_a - tol));
        double biggest = fabs(Bv[0]);
        for (int64_t i = 1; i < 3 * KB; ++i)
            biggest = np_max(biggest, fabs(Bv[i]));
        const double rounding = FLOAT_EPS * TIE_ULPS * biggest;
        edge_face = edge_top > (face_a ? best_a : best_b + FLOAT_EPS) + rounding;
        const int64_t f_edge = least_face(A, p, front_axis);
        use_a = (face_a & !edge_face) | edge_face;
        use_b = !face_a & !edge_face;
        use_e = 0;
        best_edges = edge_face ? edge_top : best_e;
        f_ref = edge_face ? f_edge : f_best;
    }
    const double best = use_b ? best_b : (use_a ? (edge_face ? best_edges : best_a) : best_edges);
    if (!(best < limit))
        return c;
    if (triangle) { /* PCM's convex-triangle rule: a face of A within 45 degrees of facing the triangle leaves the
                       triangle's normal */
        const int facing = !edge_face & (-dot3(An + 3 * f_best, nb) > TRIANGLE_FACING);
        use_b = use_b | (use_a & facing);
        use_a = use_a & !facing;
    }
    if (use_b) { /* B's face: A's most opposed to it the incident face (against a triangle, A's face of the
                    separating axis where it was A's) */
        c.group = 1, c.g = g_best;
        c.f = least_face(A, p, Bn + 3 * g_best);
        if (triangle && best_a > best_b + tol)
            c.f = f_best;
    } else if (use_a) { /* A's face: B's most opposed to it the incident face */
        const double *n = An + 3 * f_ref;
        const double normal[3] = {-n[0], -n[1], -n[2]};
        const double away[3] = {-normal[0], -normal[1], -normal[2]};
        c.group = 2, c.f = f_ref;
        c.g = least_face(B, p, away);
    } else if (use_e) {
        c.group = 3;
        memcpy(c.axis, e_axis, sizeof e_axis);
        c.separation = best;
    }
    return c;
}

/* np.clip(x, 0, 1): NaN kept; max then min, each taking the bound among equals */
static inline double clip01(double x) {
    const double lo = isnan(x) ? x : (x > 0.0 ? x : 0.0);
    return isnan(lo) ? lo : (lo < 1.0 ? lo : 1.0);
}

/* _edge_contacts' pick: of X's edges square to the axis (within 0.999 of the squarest), the lowest along it
   (lowest) or the highest; its start and direction */
static void pick_edge(const PolytopeRows *X, int64_t p, const double *axis, int lowest, double *start,
                      double *direction) {
    const double *v = X->vertices + 3 * X->K * p;
    const int64_t *edges = X->edges + 2 * X->E * p;
    const uint8_t *mask = X->edge_mask + X->E * p;
    double most = 0.0;
    for (int64_t e = 0; e < X->E; ++e) { /* across.max(): the squarest */
        const double *a = v + 3 * edges[2 * e], *b = v + 3 * edges[2 * e + 1];
        const double d[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]};
        double c[3];
        cross3(d, axis, c);
        const double across = norm3(c) / np_max(norm3(d), 1e-30);
        most = e == 0 ? across : np_max(most, across);
    }
    int64_t at = 0;
    double top = 0.0;
    for (int64_t e = 0; e < X->E; ++e) {
        const double *a = v + 3 * edges[2 * e], *b = v + 3 * edges[2 * e + 1];
        const double d[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]};
        double c[3];
        cross3(d, axis, c);
        const double across = norm3(c) / np_max(norm3(d), 1e-30);
        const double mid[3] = {(a[0] + b[0]) / 2, (a[1] + b[1]) / 2, (a[2] + b[2]) / 2};
        const double h = mask[e] & (across > 0.999 * most) ? dot3(mid, axis) : (lowest ? INFINITY : -INFINITY);
        if (lowest ? better_min(h, top, e) : better_max(h, top, e))
            top = h, at = e;
    }
    const double *a = v + 3 * edges[2 * at], *b = v + 3 * edges[2 * at + 1];
    for (int j = 0; j < 3; ++j)
        start[j] = a[j], direction[j] = b[j] - a[j];
}

/* _edge_contacts for pair p: the middle of the closest points of A's edge nearest B along the axis and B's nearest
   A */
static void edge_contact(const PolytopeRows *A, const PolytopeRows *B, int64_t p, const Choice *c, Out *o) {
    double pa[3], da[3], pb[3], db[3];
    pick_edge(A, p, c->axis, 1, pa, da);
    pick_edge(B, p, c->axis, 0, pb, db);
    const double r[3] = {pa[0] - pb[0], pa[1] - pb[1], pa[2] - pb[2]};
    const double aa = (da[0] * da[0] + da[1] * da[1]) + da[2] * da[2];
    const double bb = (db[0] * db[0] + db[1] * db[1]) + db[2] * db[2];
    const double ab = (da[0] * db[0] + da[1] * db[1]) + da[2] * db[2];
    const double ar = (da[0] * r[0] + da[1] * r[1]) + da[2] * r[2];
    const double br = (db[0] * r[0] + db[1] * r[1]) + db[2] * r[2];
    const double denom = aa * bb - ab * ab;
    const int solvable = denom > 1e-12;
    const double s = clip01(solvable ? (ab * br - bb * ar) / (solvable ? denom : 1.0) : 0.0);
    const double t = clip01((ab * s + br) / np_max(bb, 1e-30));
    double point[3];
    for (int j = 0; j < 3; ++j)
        point[j] = ((pa[j] + s * da[j]) + (pb[j] + t * db[j])) / 2;
    emit(o, p, point, c->axis, c->separation);
}

/* polytope_contacts of P pairs of A's rows (the vehicle's polytopes, every one with faces) against B's (static
   polytopes, or single-sided mesh triangles where single_sided (P, 3) is given), within `limit` (P,) (plus
   `radius` (P,) or NULL: a round shape's radius, zero for a polytope). Writes the contacts, at most
   P (M + M_B + M M_B) of them; returns how many, and in *made how many before a triangle's front side kept them;
   -1 where the rows are wider than it takes. group, f, g: (P,) scratch. */
int64_t pvu_polytope_contacts(int64_t P, const int64_t *a_sizes, const double *a_vertices, const double *a_normals,
                              const double *a_offsets, const uint8_t *a_face_mask, const int64_t *a_loops,
                              const int64_t *a_loop_counts, const int64_t *a_axis_edges, const uint8_t *a_axis_mask,
                              const int64_t *a_edges, const uint8_t *a_edge_mask, const int64_t *b_sizes,
                              const double *b_vertices, const double *b_normals, const double *b_offsets,
                              const uint8_t *b_face_mask, const int64_t *b_loops, const int64_t *b_loop_counts,
                              const int64_t *b_axis_edges, const uint8_t *b_axis_mask, const int64_t *b_edges,
                              const uint8_t *b_edge_mask, const double *limit, const double *radius,
                              const double *single_sided, int64_t *pair, double *point, double *normal,
                              double *separation, int64_t *made, int64_t *group, int64_t *chosen_f,
                              int64_t *chosen_g) {
    /* sizes: K, F, M, D, E */
    const PolytopeRows A = {a_sizes[0], a_sizes[1], a_sizes[2], a_sizes[3], a_vertices, a_normals, a_offsets,
                            a_face_mask, a_loops, a_loop_counts, a_axis_edges, a_axis_mask, a_sizes[4], a_edges,
                            a_edge_mask};
    const PolytopeRows B = {b_sizes[0], b_sizes[1], b_sizes[2], b_sizes[3], b_vertices, b_normals, b_offsets,
                            b_face_mask, b_loops, b_loop_counts, b_axis_edges, b_axis_mask, b_sizes[4], b_edges,
                            b_edge_mask};
    if (A.M > MAX_LOOP || B.M > MAX_LOOP)
        return -1;
    const int triangle = single_sided != NULL;
    Out o = {pair, point, normal, separation, 0, 0, radius, single_sided};
    for (int64_t p = 0; p < P; ++p) {
        const double lim = radius ? limit[p] + radius[p] : limit[p];
        const Choice c = choose(&A, &B, p, lim, triangle);
        group[p] = c.group, chosen_f[p] = c.f, chosen_g[p] = c.g;
    }
    for (int g = 1; g <= 2; ++g) { /* B's reference faces first, then A's */
        for (int64_t p = 0; p < P; ++p) {
            if (group[p] != g)
                continue;
            const double lim = radius ? limit[p] + radius[p] : limit[p];
            const int64_t f = chosen_f[p], h = chosen_g[p];
            const int64_t fa = A.F * p + f, fb = B.F * p + h;
            const double *n_a = a_normals + 3 * fa, *n_b = b_normals + 3 * fb;
            Loop loop_a, loop_b;
            loop_of(a_vertices + 3 * A.K * p, a_loops + A.M * fa, A.M, a_loop_counts[fa], &loop_a);
            loop_of(b_vertices + 3 * B.K * p, b_loops + B.M * fb, B.M, b_loop_counts[fb], &loop_b);
            if (g == 1) {
                clip(&loop_b, n_b, b_offsets[fb], &loop_a, n_a, a_offsets[fa], n_b, lim, triangle, triangle, 0, p,
                     &o);
            } else {
                const double away[3] = {-n_a[0], -n_a[1], -n_a[2]};
                clip(&loop_a, n_a, a_offsets[fa], &loop_b, n_b, b_offsets[fb], away, lim, 0, triangle, 1, p, &o);
            }
        }
    }
    for (int64_t p = 0; p < P; ++p) { /* the edge-edge points */
        if (group[p] != 3)
            continue;
        const double lim = radius ? limit[p] + radius[p] : limit[p];
        const Choice c = choose(&A, &B, p, lim, triangle);
        edge_contact(&A, &B, p, &c, &o);
    }
    *made = o.made;
    return o.count;
}
