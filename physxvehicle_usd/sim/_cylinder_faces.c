/* The points of exact cylinders on mesh triangles (sim/contact/cylinder_faces.py `cylinder_triangles`, after its
   closest stage, _cylinder_triangles.c): each pair's faces towards each other (`_cylinder_face`, `_points_face`),
   clipped (`_patch`: `_prism_planes`, `_clip_loop`, `_two_by_two`, `reduce_polygon`), and the points of a group
   (a cylinder and one mesh) gathered into patches (`_add`, `_flush`), pair after pair.

   The Python code's float64 arithmetic in its order: a @ b of two 3-vectors is numpy's BLAS's ddot (`ddot`: fused
   multiply-adds from +0, left to right, where compiled_cylinder.py's probe finds numpy's BLAS does so; the Python
   code runs otherwise), np.cross and np.linalg.norm of a 3-vector (the square root of its ddot) as numpy
   computes them; a (K, 3) @ (3,) (a triangle's corners along the axis, two faces' points across it) is numpy's
   BLAS's gemv (`gemv_row`, probed too). A NaN where the Python code sorts or takes a minimum leaves the call to it. */
#include <math.h>
#include <stdint.h>
#include <string.h>

static const double FACE = 0.99, HULL_SIDES = 0.14; /* cylinder_faces.py _FACE, HULL_SIDES */
static const double EPS = 1e-5;                     /* _EPS */
static const double FLT_EPS = 1.1920929e-07;        /* geometry.py FLT_EPSILON, a Python float */
static const double SAME_NORMAL = 0.999;            /* geometry.py SAME_NORMAL */

#define MAX_FACE 4    /* a face's points */
#define MAX_POLY 64   /* a clipped polygon's */
#define MAX_PATCHES 64 /* a group's patches */

enum { NOT_COVERED = -2 };

typedef struct {
    double v[3];
} P3;

/* numpy's a @ b of two 3-vectors (its BLAS's ddot): each product added fused, left to right, from +0
   (compiled_cylinder.py's probe) */
static inline double ddot(const double *a, const double *b) {
    return fma(a[2], b[2], fma(a[1], b[1], fma(a[0], b[0], 0.0)));
}

/* a row of numpy's (K, 3) @ (3,) (its BLAS's gemv): the middle product first, the first's and the last's added
   fused (compiled_cylinder.py's probe) */
static inline double gemv_row(const double *a, const double *b) {
    return fma(a[2], b[2], fma(a[0], b[0], fma(a[1], b[1], 0.0)));
}

static inline P3 p3(double x, double y, double z) { P3 p = {{x, y, z}}; return p; }
static inline P3 psub(P3 a, P3 b) { return p3(a.v[0] - b.v[0], a.v[1] - b.v[1], a.v[2] - b.v[2]); }
static inline P3 padd(P3 a, P3 b) { return p3(a.v[0] + b.v[0], a.v[1] + b.v[1], a.v[2] + b.v[2]); }
static inline P3 pscale(P3 a, double k) { return p3(a.v[0] * k, a.v[1] * k, a.v[2] * k); } /* array * scalar */
static inline P3 pdiv(P3 a, double k) { return p3(a.v[0] / k, a.v[1] / k, a.v[2] / k); }
static inline P3 pneg(P3 a) { return p3(-a.v[0], -a.v[1], -a.v[2]); }
static inline P3 half_sum(P3 a, P3 b) { return pdiv(padd(a, b), 2.0); } /* (a + b) / 2 */
static inline double pdot(P3 a, P3 b) { return ddot(a.v, b.v); }
static inline double pnorm(P3 a) { return sqrt(ddot(a.v, a.v)); } /* np.linalg.norm of a 3-vector */
static inline P3 pcross(P3 a, P3 b) {
    return p3(a.v[1] * b.v[2] - a.v[2] * b.v[1], a.v[2] * b.v[0] - a.v[0] * b.v[2], a.v[0] * b.v[1] - a.v[1] * b.v[0]);
}
static inline P3 load(const double *x) { return p3(x[0], x[1], x[2]); }

/* a face: its normal and points (none: count 0) */
typedef struct {
    P3 normal;
    P3 points[MAX_FACE];
    int count;
} Face;

/* _cylinder_face: the cylinder's face towards `direction` (unit) */
static void cylinder_face(P3 centre, P3 axis, double half, double radius, P3 direction, P3 ref, Face *f) {
    const double x = pdot(direction, axis);
    f->count = 0;
    if (fabs(x) > FACE && radius > 0.0) {
        const double s = x > 0.0 ? 1.0 : -1.0;
        f->normal = p3(s * axis.v[0], s * axis.v[1], s * axis.v[2]);
        const P3 cap = padd(centre, pscale(axis, s * half));
        P3 towards = psub(ref, cap);
        towards = psub(towards, pscale(axis, pdot(towards, axis)));
        double length = pnorm(towards);
        if (length < FLT_EPS) { /* no direction to turn the rim to: any */
            towards = pcross(axis, fabs(axis.v[0]) < 0.9 ? p3(1.0, 0.0, 0.0) : p3(0.0, 1.0, 0.0));
            length = pnorm(towards);
        }
        const P3 e1 = pdiv(towards, length);
        const P3 e2 = pcross(axis, e1);
        f->points[0] = padd(cap, pscale(e1, radius));
        f->points[1] = padd(cap, pscale(e2, radius));
        f->points[2] = psub(cap, pscale(e1, radius));
        f->points[3] = psub(cap, pscale(e2, radius));
        f->count = 4;
    } else if (fabs(x) < HULL_SIDES && half > 0.0) {
        P3 dr = psub(direction, pscale(axis, x));
        dr = pdiv(dr, pnorm(dr));
        f->normal = dr;
        f->points[0] = padd(padd(centre, pscale(axis, half)), pscale(dr, radius));
        f->points[1] = padd(psub(centre, pscale(axis, half)), pscale(dr, radius));
        f->count = 2;
    }
}

/* reduce_polygon: PhysX's reduction to four points, the first kept; the kept indices into `keep`, their count, or
   NOT_COVERED (a NaN leaves the Python code without a farthest point) */
static int reduce_polygon(const P3 *points, int n, P3 normal, int *keep) {
    const P3 p0 = points[0];
    double far = -INFINITY;
    int i1 = -1;
    for (int j = 0; j < n; ++j) {
        const P3 d = psub(points[j], p0);
        const double dd = pdot(d, d);
        if (dd > far + FLT_EPS)
            far = dd, i1 = j;
    }
    if (i1 < 0)
        return NOT_COVERED;
    keep[0] = 0;
    if (i1 == 0)
        return 1;
    const P3 n01 = pcross(normal, psub(points[i1], p0));
    double low = 0.0, high = 0.0;
    int i2 = -1, i3 = -1;
    for (int j = 0; j < n; ++j) {
        const double s = pdot(n01, psub(points[j], p0));
        if (s < low - FLT_EPS)
            i2 = j, low = s;
        if (s > high + FLT_EPS)
            i3 = j, high = s;
    }
    int m = 0;
    keep[m++] = 0, keep[m++] = i1;
    if (i2 >= 0 && i2 != 0 && i2 != i1)
        keep[m++] = i2;
    if (i3 >= 0 && i3 != 0 && i3 != i1 && i3 != i2)
        keep[m++] = i3;
    return m;
}

/* _points_face of a triangle (3, 3) towards `direction`, pushed out by `margin`; 0 or NOT_COVERED */
static int points_face(const double *tri, P3 direction, double margin, Face *f) {
    f->count = 0;
    double dots[3];
    for (int i = 0; i < 3; ++i) {
        dots[i] = gemv_row(tri + 3 * i, direction.v);
        if (isnan(dots[i]))
            return NOT_COVERED;
    }
    int order[3] = {0, 1, 2}; /* argsort(-dots, stable) */
    for (int i = 1; i < 3; ++i)
        for (int j = i; j > 0 && -dots[order[j]] < -dots[order[j - 1]]; --j) {
            const int t = order[j];
            order[j] = order[j - 1], order[j - 1] = t;
        }
    const P3 q0 = load(tri + 3 * order[0]), q1 = load(tri + 3 * order[1]), q2 = load(tri + 3 * order[2]);
    P3 n0 = pcross(psub(q1, q0), psub(q2, q0));
    n0 = pdiv(n0, pnorm(n0));
    P3 normal;
    if (pdot(direction, n0) > FACE) {
        normal = n0;
    } else if (pdot(direction, n0) < -FACE) {
        normal = pneg(n0);
    } else {
        const P3 edges[2] = {psub(q1, q0), psub(q2, q0)};
        int found = 0;
        for (int k = 0; k < 2 && !found; ++k) {
            P3 m = pcross(pcross(edges[k], direction), edges[k]);
            const double length = pnorm(m);
            m = pdiv(m, 1e-300 > length ? 1e-300 : length);
            if (pdot(direction, m) > FACE)
                normal = m, found = 1;
        }
        if (!found)
            return 0;
    }
    const double top = pdot(normal, q0);
    P3 points[MAX_FACE];
    int count = 0;
    for (int i = 0; i < 3; ++i) {
        const P3 p = load(tri + 3 * i);
        if (!(fabs(pdot(normal, p) - top) < 1e-4))
            continue;
        P3 added[MAX_FACE + 1];
        added[0] = p;
        for (int j = 0; j < count; ++j)
            added[j + 1] = points[j];
        for (int j = 0; j < count; ++j) /* the one deepest along the direction first */
            if (pdot(added[0], direction) < pdot(added[j + 1], direction)) {
                const P3 t = added[0];
                added[0] = added[j + 1], added[j + 1] = t;
            }
        int keep[4];
        const int m = reduce_polygon(added, count + 1, direction, keep);
        if (m < 0)
            return m;
        for (int k = 0; k < m; ++k)
            points[k] = added[keep[k]];
        count = m;
    }
    if (count < 2)
        return 0;
    f->normal = normal;
    for (int k = 0; k < count; ++k)
        f->points[k] = padd(points[k], pscale(normal, margin));
    f->count = count;
    return 0;
}

/* a clipping plane: n . x + d >= 0 inside */
typedef struct {
    P3 n;
    double d;
} Plane;

/* _prism_planes of a face's points (three or more) along `axis`, appended to planes */
static void prism_planes(const Face *f, P3 axis, Plane *planes, int *count) {
    if (f->count < 3)
        return;
    for (int i = 0; i < f->count; ++i) {
        const P3 s = f->points[i];
        for (int j = i + 1; j < f->count; ++j) {
            P3 nrm = pcross(psub(f->points[j], s), axis);
            const double length = pnorm(nrm);
            if (length < EPS)
                continue;
            nrm = pdiv(nrm, length);
            int pos = 0, sides = 0;
            for (int k = 0; k < f->count; ++k)
                if (k != i && k != j)
                    pos += pdot(psub(f->points[k], s), nrm) > EPS, sides += 1;
            if (pos && pos < sides)
                continue;
            if (pos)
                nrm = pneg(nrm);
            planes[*count].n = pneg(nrm);
            planes[*count].d = pdot(nrm, s);
            *count += 1;
        }
    }
}

/* _clip_loop: the polygon clipped by a plane; its new count or NOT_COVERED (too many points) */
static int clip_loop(const P3 *points, int n, Plane plane, P3 *out) {
    double dist[MAX_POLY];
    for (int i = 0; i < n; ++i)
        dist[i] = pdot(plane.n, points[i]) + plane.d;
    int m = 0;
    for (int i = 0; i < n; ++i) {
        const int j = (i + 1) % n;
        const double d0 = dist[i], d1 = dist[j];
        const P3 p0 = points[i], p1 = points[j];
        if (m + 2 > MAX_POLY)
            return NOT_COVERED;
        if (d0 > -EPS) {
            out[m++] = p0;
            if (d1 < -EPS && d0 - d1 > EPS)
                out[m++] = padd(p0, pscale(psub(p1, p0), d0 / (d0 - d1)));
        } else if (d1 > -EPS && d1 - d0 > EPS) {
            out[m++] = padd(p0, pscale(psub(p1, p0), d0 / (d0 - d1)));
        }
    }
    return m;
}

/* _basis: PxComputeBasisVectors in float64 */
static void basis(P3 d, P3 *right, P3 *up) {
    if (fabs(d.v[1]) <= 0.9999) {
        P3 r = p3(d.v[2], 0.0, -d.v[0]);
        r = pdiv(r, pnorm(r));
        *right = r;
        *up = p3(d.v[1] * r.v[2], d.v[2] * r.v[0] - d.v[0] * r.v[2], -d.v[1] * r.v[0]);
    } else {
        *right = p3(1.0, 0.0, 0.0);
        *up = p3(0.0, d.v[2], -d.v[1]);
    }
}

/* _two_by_two: two segments' points (at most four) and separations; their count */
static int two_by_two(const Face *f0, const Face *f1, P3 n, P3 w0, P3 w1, P3 *points, double *seps) {
    const P3 a = f0->points[0], b = f0->points[1], c = f1->points[0], d = f1->points[1];
    if (fabs(pdot(pcross(psub(b, a), psub(d, c)), n)) > EPS) {
        points[0] = half_sum(w0, w1), seps[0] = pdot(n, psub(w0, w1));
        return 1;
    }
    const P3 ps[4] = {a, b, c, d}, ss[4] = {c, c, a, a}, es[4] = {d, d, b, b};
    const double signs[4] = {1.0, 1.0, -1.0, -1.0};
    int m = 0;
    for (int k = 0; k < 4; ++k) {
        const P3 p = ps[k], s = ss[k], e = es[k];
        if (pdot(psub(p, s), psub(e, s)) > -EPS && pdot(psub(p, e), psub(s, e)) > -EPS) {
            const P3 es_ = psub(e, s);
            const P3 q = padd(s, pdiv(pscale(es_, pdot(es_, psub(p, s))), pdot(es_, es_)));
            points[m] = half_sum(p, q);
            seps[m] = signs[k] * pdot(n, psub(p, q));
            m += 1;
        }
    }
    for (int i = m - 1; i >= 0; --i) { /* merge coincident points, the deeper kept */
        for (int j = i - 1; j >= 0; --j) {
            const P3 d_ = psub(points[i], points[j]);
            if (pdot(d_, d_) < 1e-6) {
                if (seps[i] < seps[j])
                    points[j] = points[i], seps[j] = seps[i];
                points[i] = points[m - 1], seps[i] = seps[m - 1];
                m -= 1;
                break;
            }
        }
    }
    return m;
}

/* _patch: one pair's points and separations (at most four: their count) between the cylinder's face and the
   triangle's, or NOT_COVERED */
static int patch(const Face *f0, const Face *f1, P3 w0, P3 w1, P3 n, P3 *out_points, double *out_seps) {
    if (f0->count < 2 || f1->count < 2) {
        out_points[0] = half_sum(w0, w1), out_seps[0] = pdot(n, psub(w0, w1));
        return 1;
    }
    if (f0->count == 2 && f1->count == 2)
        return two_by_two(f0, f1, n, w0, w1, out_points, out_seps);
    Plane planes[2 * MAX_FACE * MAX_FACE];
    int nplanes = 0;
    prism_planes(f0, n, planes, &nplanes);
    prism_planes(f1, n, planes, &nplanes);
    P3 poly[MAX_POLY], next[MAX_POLY];
    int count;
    if (f0->count == 2 || f1->count == 2) {
        const Face *two = f0->count == 2 ? f0 : f1;
        count = 2;
        poly[0] = two->points[0], poly[1] = two->points[1];
    } else { /* the faces' bounding rectangle about the axis, through the witnesses' midpoint */
        P3 X, Y;
        basis(n, &X, &Y);
        double lo_x = 0.0, hi_x = 0.0, lo_y = 0.0, hi_y = 0.0;
        for (int i = 0; i < f0->count + f1->count; ++i) {
            const P3 *p = i < f0->count ? &f0->points[i] : &f1->points[i - f0->count];
            const double x = gemv_row(p->v, X.v), y = gemv_row(p->v, Y.v);
            if (isnan(x) || isnan(y))
                return NOT_COVERED;
            lo_x = i == 0 || x < lo_x ? x : lo_x, hi_x = i == 0 || x > hi_x ? x : hi_x;
            lo_y = i == 0 || y < lo_y ? y : lo_y, hi_y = i == 0 || y > hi_y ? y : hi_y;
        }
        const P3 ref = half_sum(w0, w1);
        const double rx = pdot(ref, X), ry = pdot(ref, Y);
        const double corners[4][2] = {{lo_x, lo_y}, {hi_x, lo_y}, {hi_x, hi_y}, {lo_x, hi_y}};
        for (int k = 0; k < 4; ++k)
            poly[k] = padd(padd(ref, pscale(X, corners[k][0] - rx)), pscale(Y, corners[k][1] - ry));
        count = 4;
    }
    for (int k = 0; k < nplanes; ++k) {
        count = clip_loop(poly, count, planes[k], next);
        if (count < 0)
            return count;
        memcpy(poly, next, count * sizeof *poly);
    }
    if (count + 1 > MAX_POLY)
        return NOT_COVERED;
    poly[count++] = half_sum(w0, w1);
    const double d0 = pdot(f0->normal, f0->points[0]), d1 = pdot(f1->normal, f1->points[0]);
    P3 placed[MAX_POLY];
    double seps[MAX_POLY];
    for (int i = 0; i < count; ++i) {
        const P3 p = poly[i];
        const P3 q0 = psub(p, pdiv(pscale(n, pdot(f0->normal, p) - d0), pdot(n, f0->normal)));
        const P3 q1 = psub(p, pdiv(pscale(n, pdot(f1->normal, p) - d1), pdot(n, f1->normal)));
        placed[i] = half_sum(q0, q1);
        seps[i] = pdot(n, psub(q0, q1));
    }
    int k = 0; /* np.argmin: the first of the deepest, the first NaN */
    for (int i = 0; i < count; ++i) {
        if (isnan(seps[i])) {
            k = i;
            break;
        }
        if (seps[i] < seps[k])
            k = i;
    }
    const P3 tp = placed[0];
    placed[0] = placed[k], placed[k] = tp;
    const double ts = seps[0];
    seps[0] = seps[k], seps[k] = ts;
    int keep[4];
    const int m = reduce_polygon(placed, count, n, keep);
    if (m < 0)
        return m;
    for (int i = 0; i < m; ++i)
        out_points[i] = placed[keep[i]], out_seps[i] = seps[keep[i]];
    return m;
}

/* a patch of a group: its normal and points (point, separation, pair), deepest first */
typedef struct {
    P3 normal;
    P3 points[5];
    double seps[5];
    int64_t pairs[5];
    int count;
} Patch;

/* _add: into the first patch whose normal agrees, else a new one; 0 or NOT_COVERED */
static int add_point(Patch *patches, int *npatches, P3 normal, P3 point, double sep, int64_t pair) {
    for (int k = 0; k < *npatches; ++k) {
        Patch *h = &patches[k];
        if (pdot(h->normal, normal) >= SAME_NORMAL) {
            P3 pts[5];
            double sps[5];
            int64_t prs[5];
            pts[0] = point, sps[0] = sep, prs[0] = pair;
            for (int i = 0; i < h->count; ++i)
                pts[i + 1] = h->points[i], sps[i + 1] = h->seps[i], prs[i + 1] = h->pairs[i];
            for (int i = 0; i < h->count; ++i) { /* the new point moves behind the deeper ones */
                if (sps[i] > sps[i + 1]) {
                    const P3 tp = pts[i];
                    pts[i] = pts[i + 1], pts[i + 1] = tp;
                    const double ts = sps[i];
                    sps[i] = sps[i + 1], sps[i + 1] = ts;
                    const int64_t tr = prs[i];
                    prs[i] = prs[i + 1], prs[i + 1] = tr;
                } else {
                    break;
                }
            }
            int keep[4];
            const int m = reduce_polygon(pts, h->count + 1, h->normal, keep);
            if (m < 0)
                return m;
            for (int i = 0; i < m; ++i)
                h->points[i] = pts[keep[i]], h->seps[i] = sps[keep[i]], h->pairs[i] = prs[keep[i]];
            h->count = m;
            return 0;
        }
    }
    if (*npatches == MAX_PATCHES)
        return NOT_COVERED;
    Patch *h = &patches[(*npatches)++];
    h->normal = normal, h->points[0] = point, h->seps[0] = sep, h->pairs[0] = pair, h->count = 1;
    return 0;
}

typedef struct {
    int64_t *pair;
    double *point, *normal, *separation;
    int64_t count;
} Out;

static void flush(const Patch *patches, int npatches, Out *o) {
    for (int k = 0; k < npatches; ++k)
        for (int i = 0; i < patches[k].count; ++i) {
            const int64_t c = o->count++;
            o->pair[c] = patches[k].pairs[i];
            memcpy(o->point + 3 * c, patches[k].points[i].v, 3 * sizeof(double));
            memcpy(o->normal + 3 * c, patches[k].normal.v, 3 * sizeof(double));
            o->separation[c] = patches[k].seps[i];
        }
}

/* The points of the P pairs of `cylinder_triangles` (centres, axes (P, 3), half heights, radii (P,), triangles
   (P, 3, 3)) that its closest stage made (`made` (P,) bytes: near enough, the axis w (P, 3) not against the triangle's
   front), with their witnesses w0, w1 (the triangle's pushed out by its margin) and margins (P,); group (P,): the
   pairs whose points gather into patches together, in order. Writes the contacts (pair, point, normal, separation:
   4 P at most) patch after patch, group after group; their count, or -1 where the Python code must make them
   (nothing to keep then). */
int64_t pvu_cylinder_triangles_points(int64_t P, const double *centre, const double *axis, const double *half,
                                      const double *radius, const double *triangles, const uint8_t *made,
                                      const double *normal, const double *w0, const double *w1, const double *margin,
                                      const int64_t *group, int64_t *out_pair, double *out_point,
                                      double *out_normal, double *out_separation) {
    Out o = {out_pair, out_point, out_normal, out_separation, 0};
    Patch patches[MAX_PATCHES];
    int npatches = 0;
    for (int64_t p = 0; p < P; ++p) {
        if (p == 0 || group[p] != group[p - 1]) {
            flush(patches, npatches, &o);
            npatches = 0;
        }
        if (!made[p])
            continue;
        const P3 n = load(normal + 3 * p), a = load(w0 + 3 * p), b = load(w1 + 3 * p);
        Face f0, f1;
        cylinder_face(load(centre + 3 * p), load(axis + 3 * p), half[p], radius[p], pneg(n), a, &f0);
        if (points_face(triangles + 9 * p, n, margin[p], &f1) < 0)
            return -1;
        P3 points[MAX_POLY];
        double seps[MAX_POLY];
        const int m = patch(&f0, &f1, a, b, n, points, seps);
        if (m < 0)
            return -1;
        for (int i = 0; i < m; ++i)
            if (add_point(patches, &npatches, n, points[i], seps[i], p) < 0)
                return -1;
    }
    flush(patches, npatches, &o);
    return o.count;
}
