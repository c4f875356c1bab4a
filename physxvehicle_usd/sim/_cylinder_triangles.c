/* The closest features of exact cylinders and mesh triangles (sim/contact/cylinder_faces.py `cylinder_triangles`,
   its "closest" stage): PhysX's reference GJK distance and, where GJK finds the two touching, its EPA depth, as
   sim/contact/gjk_epa.py `gjk_distance` and `epa_depth` compute them for a cylinder core against a triangle's points
   core, pair by pair.

   gjk_epa.py rounds every operation to float32 (numpy float32 scalars, each operation rounded once: a Python float
   met in an operation is rounded to float32 first, NEP 50); here the same operations in the same order on floats
   (SSE, -ffp-contract=off: no fused multiply-add), so the two agree to the bit. A sum of three products is added
   left to right; 1 / x, x / |x| and unit vectors go through the reciprocal as PxVec3 does. The witnesses and the
   axis come back as float64, the distance as the float32 value in a double. Where the Python code would fail (a
   NaN that leaves GJK without a nearest point, EPA without a best face), the call answers -1 and the Python code
   runs (and raises as it did). */
#include <math.h>
#include <stdint.h>
#include <string.h>

static const float F_EPS = 1.1920929e-07f;  /* geometry.py FLT_EPSILON, as float32 rounds it */
static const float F_MAX = 3.4028235e38f;   /* FLT_MAX */

#define MAX_POINTS 32 /* a shape's welded support points */
#define MAX_FACES 60  /* EPA's faces */
#define MAX_EDGES 192 /* a horizon's edges: three a removed face at most */

typedef struct {
    float x, y, z;
} V;

static inline V vec(float x, float y, float z) { V v = {x, y, z}; return v; }
static inline V add(V a, V b) { return vec(a.x + b.x, a.y + b.y, a.z + b.z); }
static inline V sub(V a, V b) { return vec(a.x - b.x, a.y - b.y, a.z - b.z); }
static inline V neg(V a) { return vec(-a.x, -a.y, -a.z); }
static inline V mul(V a, float k) { return vec(a.x * k, a.y * k, a.z * k); }
static inline V divide(V a, float k) { return mul(a, 1.0f / k); } /* PxVec3's: by the reciprocal */
static inline float dot(V a, V b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
static inline V cross(V a, V b) { return vec(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x); }
static inline float norm(V a) { return sqrtf(dot(a, a)); }
static inline V unit(V a) { /* getNormalized: zero stays zero */
    const float m = dot(a, a);
    return m > 0.0f ? mul(a, 1.0f / sqrtf(m)) : vec(0.0f, 0.0f, 0.0f);
}

static const V ZERO = {0.0f, 0.0f, 0.0f};

/* a float32 unit quaternion (x, y, z, w) */
typedef struct {
    float x, y, z, w;
} Turn;

/* PxQuat::rotate (rotateInv where inverse) */
static V rotate(const Turn *q, V v, int inverse) {
    const float vx = 2.0f * v.x, vy = 2.0f * v.y, vz = 2.0f * v.z;
    const float w2 = q->w * q->w - 0.5f;
    const float dot2 = q->x * vx + q->y * vy + q->z * vz;
    const float s = inverse ? -q->w : q->w;
    return vec(vx * w2 + (q->y * vz - q->z * vy) * s + q->x * dot2,
               vy * w2 + (q->z * vx - q->x * vz) * s + q->y * dot2,
               vz * w2 + (q->x * vy - q->y * vx) * s + q->z * dot2);
}

/* the world's axes in the turned frame (getInvBasisVector0-2) */
static void world_axes(const Turn *q, V axes[3]) {
    const float x = q->x, y = q->y, z = q->z, w = q->w;
    const float x2 = x * 2.0f, y2 = y * 2.0f, z2 = z * 2.0f, w2 = w * 2.0f;
    axes[0] = vec((w * w2) - 1.0f + x * x2, (-z * w2) + y * x2, (y * w2) + z * x2);
    axes[1] = vec((z * w2) + x * y2, (w * w2) - 1.0f + y * y2, (-x * w2) + z * y2);
    axes[2] = vec((-y * w2) + x * z2, (x * w2) + y * z2, (w * w2) - 1.0f + z * z2);
}

/* One shape as the reference GJK holds it (gjk_epa.py _Shape): a cylinder core (its half height and radius) or a
   triangle's points core (its corners), its pose, its welded support points, accuracy and world box centre. */
typedef struct {
    int cylinder;
    float h, r;  /* the cylinder's */
    V corners[3]; /* the triangle's */
    V position;
    Turn turn;
    V points[MAX_POINTS];
    int count;
    float accuracy;
    V centre;
    int failed; /* a support point with no nearest among 32 held (NaN): the Python code fails there */
} Shape;

/* the support map in the shape's own frame (_cylinder_local, _points_local) */
static V local_support(const Shape *s, V direction) {
    if (s->cylinder) {
        const V d = unit(direction);
        const float x = d.x >= 0.0f ? s->h : -s->h;
        if (fabsf(d.y) < 1e-5f && fabsf(d.z) < 1e-5f) /* along the axis: a point of the cap's rim */
            return vec(x, s->r, 0.0f);
        return add(vec(x, 0.0f, 0.0f), mul(unit(vec(0.0f, d.y, d.z)), s->r));
    }
    if (norm(direction) < F_EPS)
        return ZERO;
    float best = -F_MAX;
    V at = s->corners[0];
    for (int k = 0; k < 3; ++k) /* the first of equals */
        if (dot(s->corners[k], direction) > best)
            best = dot(s->corners[k], direction), at = s->corners[k];
    return at;
}

static inline V place(const Shape *s, V v) { return add(rotate(&s->turn, v, 0), s->position); }

static void shape_init(Shape *s) {
    const V X = {1.0f, 0.0f, 0.0f}, Y = {0.0f, 1.0f, 0.0f}, Z = {0.0f, 0.0f, 1.0f};
    s->count = 0, s->failed = 0;
    const V size = vec(local_support(s, X).x - local_support(s, neg(X)).x,
                       local_support(s, Y).y - local_support(s, neg(Y)).y,
                       local_support(s, Z).z - local_support(s, neg(Z)).z);
    float largest = size.x; /* Python's max: the first of equals */
    if (size.y > largest)
        largest = size.y;
    if (size.z > largest)
        largest = size.z;
    const float scaled = largest * 0.01f;
    s->accuracy = F_EPS > scaled ? F_EPS : scaled;
    V axes[3];
    world_axes(&s->turn, axes);
    const V lo = vec(place(s, local_support(s, neg(axes[0]))).x, place(s, local_support(s, neg(axes[1]))).y,
                     place(s, local_support(s, neg(axes[2]))).z);
    const V hi = vec(place(s, local_support(s, axes[0])).x, place(s, local_support(s, axes[1])).y,
                     place(s, local_support(s, axes[2])).z);
    s->centre = mul(add(lo, hi), 0.5f);
}

/* _Shape.index: the support point along `direction` (world), welded to one already found within the accuracy */
static int shape_index(Shape *s, V direction) {
    const V v = place(s, local_support(s, rotate(&s->turn, direction, 1)));
    int nearest = -1;
    float near = F_MAX;
    for (int i = s->count - 1; i >= 0; --i) {
        V e = sub(s->points[i], v);
        const float ee = dot(e, e);
        if (ee < s->accuracy * s->accuracy)
            return i;
        if (near > ee)
            nearest = i, near = ee;
    }
    if (s->count == MAX_POINTS) {
        if (nearest < 0)
            s->failed = 1, nearest = 0;
        return nearest;
    }
    s->points[s->count] = v;
    return s->count++;
}

/* the cylinder (A) and the triangle (B) as fresh shapes (gjk_epa.py _shapes of a triangle), and the unit direction
   from A's box centre to B's; their tolerance */
static float pair_shapes(const double *centre, double half, double radius, const float *turn, const double *triangle,
                         Shape *A, Shape *B, V *direction) {
    A->cylinder = 1;
    A->h = (float)(2.0 * half) * 0.5f;
    A->r = (float)radius;
    A->position = vec((float)centre[0], (float)centre[1], (float)centre[2]);
    A->turn = (Turn){turn[0], turn[1], turn[2], turn[3]};
    shape_init(A);
    B->cylinder = 0;
    for (int k = 0; k < 3; ++k)
        B->corners[k] = vec((float)triangle[3 * k], (float)triangle[3 * k + 1], (float)triangle[3 * k + 2]);
    B->position = ZERO;
    B->turn = (Turn){0.0f, 0.0f, 0.0f, 1.0f};
    shape_init(B);
    const float least = B->accuracy < A->accuracy ? B->accuracy : A->accuracy; /* Python's min */
    const float tolerance = 0.01f * least;
    const V d = sub(B->centre, A->centre);
    const float length = norm(d);
    *direction = length >= F_EPS ? divide(d, length) : vec(1.0f, 0.0f, 0.0f);
    return tolerance;
}

/* a simplex vertex: its Minkowski point, weight and the two shapes' support indices */
typedef struct {
    V p;
    float w;
    int a, b;
} Vertex;

static inline Vertex weighted(const Vertex *v, float w) { Vertex out = *v; out.w = w; return out; }

/* _simplex_closest: the sub-simplex of `in` (n vertices, the newest last) nearest the origin, with its weights, into
   `out` (its count returned), and that nearest point */
static int simplex_closest(const Vertex *in, int n, Vertex *out, V *closest) {
    Vertex v[5];
    for (int i = 0; i < n; ++i)
        v[i] = weighted(&in[i], 0.0f);
    int m = n;
    for (int i = 0; i < n; ++i)
        out[i] = v[i];
#define PAIR(i, j, si) (out[0] = weighted(&v[i], (si)), out[1] = weighted(&v[j], 1.0f - out[0].w), m = 2)
#define TRIPLE(i, j, k, si, sj)                                                                                       \
    (out[0] = weighted(&v[i], (si)), out[1] = weighted(&v[j], (sj)), out[2] = weighted(&v[k], 1.0f - out[0].w - out[1].w), \
     m = 3)
    if (n == 1) {
        out[0] = weighted(&v[0], 1.0f), m = 1;
    } else if (n == 2) {
        const V a = v[0].p, b = v[1].p;
        const V ba = sub(a, b);
        const float sba = dot(ba, neg(b));
        if (sba <= 0.0f)
            out[0] = weighted(&v[1], 1.0f), m = 1;
        else
            PAIR(0, 1, sba / dot(ba, ba));
    } else if (n == 3) {
        const V a = v[0].p, b = v[1].p, c = v[2].p;
        const V ca = sub(a, c), cb = sub(b, c);
        const float sca = dot(ca, neg(c)), scb = dot(cb, neg(c));
        if (sca <= 0.0f && scb <= 0.0f) {
            out[0] = weighted(&v[2], 1.0f), m = 1;
        } else {
            const V abc = cross(sub(b, a), sub(c, a));
            const float iabc = 1.0f / dot(abc, abc);
            const V pabc = mul(mul(abc, dot(abc, a)), iabc);
            const float tca = dot(abc, cross(sub(c, pabc), sub(a, pabc)));
            const float tbc = dot(abc, cross(sub(b, pabc), sub(c, pabc)));
            if (sca > 0.0f && tca <= 0.0f) {
                PAIR(0, 2, sca / dot(ca, ca));
            } else if (scb > 0.0f && tbc <= 0.0f) {
                PAIR(1, 2, scb / dot(cb, cb));
            } else {
                TRIPLE(0, 1, 2, tbc * iabc, tca * iabc);
                if (dot(abc, a) > 0.0f) {
                    const Vertex t = out[0];
                    out[0] = out[1], out[1] = t;
                }
            }
        }
    } else if (n == 4) {
        const V a = v[0].p, b = v[1].p, c = v[2].p, d = v[3].p;
        const V da = sub(a, d), db = sub(b, d), dc = sub(c, d);
        const float sda = dot(da, neg(d)), sdb = dot(db, neg(d)), sdc = dot(dc, neg(d));
        if (sda <= 0.0f && sdb <= 0.0f && sdc <= 0.0f) {
            out[0] = weighted(&v[3], 1.0f), m = 1;
        } else {
            V plane_m[3], plane_p[3];
            float plane_i[3];
            const V us[3] = {a, b, c}, ws[3] = {b, c, a};
            for (int k = 0; k < 3; ++k) { /* dab, dbc, dca */
                plane_m[k] = cross(sub(us[k], d), sub(ws[k], d));
                plane_i[k] = 1.0f / dot(plane_m[k], plane_m[k]);
                plane_p[k] = mul(mul(plane_m[k], dot(plane_m[k], d)), plane_i[k]);
            }
            const V dab = plane_m[0], dbc = plane_m[1], dca = plane_m[2];
            const V pdab = plane_p[0], pdbc = plane_p[1], pdca = plane_p[2];
            const float idab = plane_i[0], idbc = plane_i[1], idca = plane_i[2];
            const float tda = dot(dab, cross(sub(d, pdab), sub(a, pdab)));
            const float tad = dot(dca, cross(sub(a, pdca), sub(d, pdca)));
            const float tdb = dot(dbc, cross(sub(d, pdbc), sub(b, pdbc)));
            const float tbd = dot(dab, cross(sub(b, pdab), sub(d, pdab)));
            const float tcd = dot(dbc, cross(sub(c, pdbc), sub(d, pdbc)));
            const float tdc = dot(dca, cross(sub(d, pdca), sub(c, pdca)));
            const V abc = cross(sub(b, a), sub(c, a));
            if (sda > 0.0f && tda <= 0.0f && tad <= 0.0f) {
                PAIR(0, 3, sda / dot(da, da));
            } else if (sdb > 0.0f && tdb <= 0.0f && tbd <= 0.0f) {
                PAIR(1, 3, sdb / dot(db, db));
            } else if (sdc > 0.0f && tdc <= 0.0f && tcd <= 0.0f) {
                PAIR(2, 3, sdc / dot(dc, dc));
            } else if (tda > 0.0f && tbd > 0.0f && dot(dab, d) < 0.0f && dot(abc, dab) > 0.0f) {
                TRIPLE(0, 1, 3, tbd * idab, tda * idab);
            } else if (tdb > 0.0f && tcd > 0.0f && dot(dbc, d) < 0.0f && dot(abc, dbc) > 0.0f) {
                TRIPLE(1, 2, 3, tcd * idbc, tdb * idbc);
            } else if (tdc > 0.0f && tad > 0.0f && dot(dca, d) < 0.0f && dot(abc, dca) > 0.0f) {
                const float sa = tdc * idca, sc = tad * idca; /* a, d, c */
                out[0] = weighted(&v[0], sa);
                out[1] = weighted(&v[3], 1.0f - sa - sc);
                out[2] = weighted(&v[2], sc);
                m = 3;
            } /* else: the origin inside, every weight 0 */
        }
    }
#undef PAIR
#undef TRIPLE
    V sum = ZERO;
    for (int i = 0; i < m; ++i)
        sum = add(sum, mul(out[i].p, out[i].w));
    *closest = sum;
    return m;
}

/* The answer of one pair: distance (the float32 value), witnesses on the cylinder and the triangle, and the axis from
   the triangle towards the cylinder, float64. */
typedef struct {
    double distance;
    double w0[3], w1[3], n[3];
} Found;

enum { FAR = 0, FOUND = 1, TOUCHING = 2, FAILED = -1 };

static void widen(V v, double *out) { /* .array() */
    out[0] = (double)v.x, out[1] = (double)v.y, out[2] = (double)v.z;
}

static void shifted(V v, double *out) { /* a witness's .array() + the shift (zeros: a triangle's frame is the world's) */
    out[0] = (double)v.x + 0.0, out[1] = (double)v.y + 0.0, out[2] = (double)v.z + 0.0;
}

/* gjk_distance of the cylinder and the triangle: FOUND (with the answer), FAR (farther than `limit`), TOUCHING
   (nearer than its tolerance: EPA's case) or FAILED */
static int gjk(const double *centre, double half, double radius, const float *turn, const double *triangle,
               double limit, Found *found) {
    Shape A, B;
    V direction;
    const float tolerance = pair_shapes(centre, half, radius, turn, triangle, &A, &B, &direction);
    Vertex simplex[5], reduced[5];
    int n = 0, iteration = 0;
    float best = INFINITY;
    V nearest = ZERO;
    int have_nearest = 0;
    /* add: the support pair along the direction; its projection, or infinity (too many steps, a pair held) */
#define ADD(dir, proj_out)                                                                                            \
    do {                                                                                                              \
        iteration += 1;                                                                                               \
        if (iteration > 100) {                                                                                        \
            proj_out = INFINITY;                                                                                      \
            break;                                                                                                    \
        }                                                                                                             \
        const int ia = shape_index(&A, dir), ib = shape_index(&B, neg(dir));                                          \
        int held = 0;                                                                                                 \
        for (int k = 0; k < n; ++k)                                                                                   \
            held |= simplex[k].a == ia && simplex[k].b == ib;                                                         \
        if (held) {                                                                                                   \
            proj_out = INFINITY;                                                                                      \
            break;                                                                                                    \
        }                                                                                                             \
        const V p = sub(A.points[ia], B.points[ib]);                                                                  \
        simplex[n++] = (Vertex){p, 0.0f, ia, ib};                                                                     \
        proj_out = dot(p, neg(dir));                                                                                  \
    } while (0)
    float proj;
    ADD(direction, proj);
    if (A.failed || B.failed)
        return FAILED;
    for (;;) {
        V closest;
        const int m = simplex_closest(simplex, n, reduced, &closest);
        if (norm(closest) < best - F_EPS) {
            best = norm(closest), nearest = closest, have_nearest = 1;
            memcpy(simplex, reduced, m * sizeof *simplex);
            n = m;
        } else {
            n -= 1;
        }
        if (best < tolerance)
            return TOUCHING;
        if (!have_nearest)
            return FAILED;
        direction = divide(neg(nearest), best);
        ADD(direction, proj);
        if (A.failed || B.failed)
            return FAILED;
        if (proj >= best - tolerance) { /* (a point just added weighs nothing) */
            V wa = ZERO, wb = ZERO;
            for (int k = 0; k < n; ++k)
                wa = add(wa, mul(A.points[simplex[k].a], simplex[k].w));
            for (int k = 0; k < n; ++k)
                wb = add(wb, mul(B.points[simplex[k].b], simplex[k].w));
            found->distance = best;
            shifted(wa, found->w0);
            shifted(wb, found->w1);
            widen(neg(direction), found->n);
            return FOUND;
        }
        if ((double)proj > limit)
            return FAR;
    }
#undef ADD
}

/* an EPA face: its unit normal, offset (n . -a) and vertices */
typedef struct {
    V n;
    float d;
    int v[3];
} Face;

typedef struct {
    Shape A, B;
    int verts[MAX_POINTS][2];
    int nverts;
    Face faces[MAX_FACES + MAX_EDGES];
    int nfaces;
    float tolerance, proj;
    Face closest, best;
    int have_closest, have_best;
} Polytope;

static inline V point_of(const Polytope *e, int i) {
    return sub(e->A.points[e->verts[i][0]], e->B.points[e->verts[i][1]]);
}

/* the face (i0, i1, i2); 0 where it has no normal */
static int plane(const Polytope *e, int i0, int i1, int i2, Face *f) {
    const V a = point_of(e, i0), b = point_of(e, i1), c = point_of(e, i2);
    const V abc = add(add(cross(sub(b, a), sub(c, a)), cross(sub(c, b), sub(a, b))), cross(sub(a, c), sub(b, c)));
    const float length = norm(abc);
    if (length < F_EPS)
        return 0;
    f->n = divide(abc, length);
    f->d = dot(f->n, neg(a));
    f->v[0] = i0, f->v[1] = i1, f->v[2] = i2;
    return 1;
}

/* epa_depth's add: the support pair along d grows the polytope; its projection, 0 (fewer than four points) or
   infinity (full, a pair held, no face) */
static float epa_add(Polytope *e, V d) {
    if (e->nverts > 31)
        return INFINITY;
    const int ia = shape_index(&e->A, d), ib = shape_index(&e->B, neg(d));
    const V p = sub(e->A.points[ia], e->B.points[ib]);
    const float proj = dot(p, neg(d));
    if (proj > e->proj) {
        e->proj = proj;
        e->best = e->closest, e->have_best = e->have_closest;
    }
    for (int k = 0; k < e->nverts; ++k)
        if (e->verts[k][0] == ia && e->verts[k][1] == ib)
            return INFINITY;
    e->verts[e->nverts][0] = ia, e->verts[e->nverts][1] = ib;
    e->nverts += 1;
    if (e->nverts < 3)
        return 0.0f;
    if (e->nverts == 3) {
        Face f0, f1;
        if (!plane(e, 0, 1, 2, &f0) || !plane(e, 1, 0, 2, &f1))
            return INFINITY;
        e->faces[e->nfaces++] = f0;
        e->faces[e->nfaces++] = f1;
        return 0.0f;
    }
    int edges[MAX_EDGES][2], nedges = 0;
    for (int i = e->nfaces - 1; i >= 0; --i) {
        const Face *f = &e->faces[i];
        if (dot(f->n, p) + f->d > e->tolerance) {
            for (int j = 0; j < 3; ++j) {
                const int e0 = f->v[j], e1 = f->v[(j + 1) % 3];
                int k = nedges - 1;
                for (; k >= 0; --k)
                    if (edges[k][0] == e1 && edges[k][1] == e0)
                        break;
                if (k >= 0) {
                    edges[k][0] = edges[nedges - 1][0], edges[k][1] = edges[nedges - 1][1];
                    nedges -= 1;
                } else {
                    if (nedges == MAX_EDGES)
                        return NAN; /* (cannot be: three a face) */
                    edges[nedges][0] = e0, edges[nedges][1] = e1;
                    nedges += 1;
                }
            }
            e->faces[i] = e->faces[e->nfaces - 1];
            e->nfaces -= 1;
        }
    }
    if (!nedges || e->nfaces > MAX_FACES - nedges)
        return INFINITY;
    for (int k = 0; k < nedges; ++k) {
        Face f;
        if (!plane(e, edges[k][0], edges[k][1], e->nverts - 1, &f))
            return INFINITY;
        e->faces[e->nfaces++] = f;
    }
    return proj;
}

static void basis32(V d, V *right, V *up) {
    if (fabsf(d.y) <= 0.9999f) {
        V r = vec(d.z, 0.0f, -d.x);
        r = divide(r, norm(r));
        *right = r;
        *up = vec(d.y * r.z, d.z * r.x - d.x * r.z, -d.y * r.x);
    } else {
        const V u = vec(0.0f, d.z, -d.y);
        *right = vec(1.0f, 0.0f, 0.0f);
        *up = divide(u, norm(u));
    }
}

/* epa_depth of the cylinder and the triangle: FOUND (with the answer), FAR (no polytope: None) or FAILED */
static int epa(const double *centre, double half, double radius, const float *turn, const double *triangle,
               Polytope *e, Found *found) {
    V direction;
    e->tolerance = pair_shapes(centre, half, radius, turn, triangle, &e->A, &e->B, &direction);
    e->nverts = e->nfaces = 0;
    e->proj = -INFINITY;
    e->have_closest = e->have_best = 0;
    V right, up;
    basis32(direction, &right, &up);
    epa_add(e, direction);
    epa_add(e, neg(direction));
    epa_add(e, right);
    const V more[3] = {neg(right), up, neg(up)};
    for (int k = 0; k < 3; ++k)
        if (e->nverts < 3)
            epa_add(e, more[k]);
    e->proj = -INFINITY;
    if (e->A.failed || e->B.failed)
        return FAILED;
    if (!e->nfaces)
        return FAR;
    for (;;) {
        int k = 0; /* the first of the largest offsets */
        for (int i = 0; i < e->nfaces; ++i) {
            if (isnan(e->faces[i].d))
                return FAILED;
            if (e->faces[i].d > e->faces[k].d)
                k = i;
        }
        e->closest = e->faces[k], e->have_closest = 1;
        if (e->nfaces == 2)
            e->best = e->faces[k], e->have_best = 1;
        const Face f = e->faces[k];
        const float grown = epa_add(e, f.n);
        if (isnan(grown) || e->A.failed || e->B.failed)
            return FAILED;
        if (grown >= f.d - e->tolerance)
            break;
    }
    if (!e->have_best)
        return FAILED;
    const Face *f = &e->best;
    const V a = point_of(e, f->v[0]), b = point_of(e, f->v[1]), c = point_of(e, f->v[2]);
    const V abc = cross(sub(b, a), sub(c, a));
    const float iabc = 1.0f / dot(abc, abc);
    const V pabc = mul(mul(abc, dot(abc, a)), iabc);
    const float w[3] = {dot(abc, cross(sub(b, pabc), sub(c, pabc))) * iabc,
                        dot(abc, cross(sub(c, pabc), sub(a, pabc))) * iabc,
                        dot(abc, cross(sub(a, pabc), sub(b, pabc))) * iabc};
    V wa = ZERO, wb = ZERO;
    for (int k = 0; k < 3; ++k)
        wa = add(wa, mul(e->A.points[e->verts[f->v[k]][0]], w[k]));
    for (int k = 0; k < 3; ++k)
        wb = add(wb, mul(e->B.points[e->verts[f->v[k]][1]], w[k]));
    found->distance = f->d;
    shifted(wa, found->w0);
    shifted(wb, found->w1);
    widen(neg(f->n), found->n);
    return FOUND;
}

/* The closest features of the pairs `rows` (R of them) of cylinders (centres (P, 3), half heights, radii (P,), their
   cores' float32 quaternions (P, 4)) and triangles (P, 3, 3), GJK's search bounded by `limit` (P,): for each, GJK's
   answer, EPA's where GJK finds them touching, written into distance (P,), w0, w1 and normal (P, 3) at its row where
   found (a pair farther than its limit, or that EPA cannot build a polytope for, stays as it is). 0, or -1 where a
   pair cannot be answered as the Python code would (nothing is written then). */
int pvu_cylinder_triangles_closest(int64_t R, const int64_t *rows, const double *centre, const double *half,
                                   const double *radius, const float *turn, const double *triangles,
                                   const double *limit, double *distance, double *w0, double *w1, double *normal,
                                   double *scratch_distance, double *scratch_vectors, int8_t *scratch_state) {
    Polytope polytope; /* EPA's, reused pair after pair */
    for (int64_t r = 0; r < R; ++r) {
        const int64_t p = rows[r];
        Found found;
        int state = gjk(centre + 3 * p, half[p], radius[p], turn + 4 * p, triangles + 9 * p, limit[p], &found);
        if (state == TOUCHING || (state == FOUND && (float)found.distance < F_EPS)) /* (as float32: NEP 50) */
            state = epa(centre + 3 * p, half[p], radius[p], turn + 4 * p, triangles + 9 * p, &polytope, &found);
        if (state == FAILED)
            return -1;
        scratch_state[r] = (int8_t)state;
        if (state == FOUND) {
            scratch_distance[r] = found.distance;
            memcpy(scratch_vectors + 9 * r, found.w0, sizeof found.w0);
            memcpy(scratch_vectors + 9 * r + 3, found.w1, sizeof found.w1);
            memcpy(scratch_vectors + 9 * r + 6, found.n, sizeof found.n);
        }
    }
    for (int64_t r = 0; r < R; ++r) {
        if (scratch_state[r] != FOUND)
            continue;
        const int64_t p = rows[r];
        distance[p] = scratch_distance[r];
        memcpy(w0 + 3 * p, scratch_vectors + 9 * r, 3 * sizeof(double));
        memcpy(w1 + 3 * p, scratch_vectors + 9 * r + 3, 3 * sizeof(double));
        memcpy(normal + 3 * p, scratch_vectors + 9 * r + 6, 3 * sizeof(double));
    }
    return 0;
}
