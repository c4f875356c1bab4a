/* The contact broad phase's pairs with the static ground's triangles (sim/contact/broad.py `static_candidates` on a
   ground with a triangle grid: `static_mesh_pairs_numpy` and the split of its triples into the mesh triangles' pairs
   and the static polytopes' pairs), compiled: one call in place of the numpy calls that filter, split and sort a
   handful of pairs, and the same pairs in the same order.

   Shape by shape (numpy's order: its boxes inside the triangles' box, then the grid's pairs of each, `pvu_mesh_pairs`
   with overlap, a polytope's face by the polytope's box): a pair the collision filter keeps goes to the triangles'
   pairs where its mesh is not a static polytope, else its polytope joins the shape's polytopes, sorted, each once
   (numpy's np.unique of shape H + polytope: by shape, then polytope). */
#include <string.h>

#include "_mesh_queries.h"

typedef struct {
    const MeshGrid *g;
    const double *lo, *hi;  /* (N, 3) the shapes' boxes */
    const double *bounds;   /* (6,) the low and high corner of every triangle's box */
    const int64_t *tri_shape;
    int64_t mesh_count;
    const uint8_t *mesh_boxed;
    const double *mesh_box;
    const uint8_t *collides; /* (N, S) bool */
    int64_t S, plane_count, polytope_first, H;
} StaticQuery;

/* The pairs of shapes q0 .. q1 - 1 (`pvu_static_pairs` of them) */
static int64_t range_pairs(const StaticQuery *s, int64_t q0, int64_t q1, int64_t room, int64_t *shape, int64_t *tri,
                           int64_t *hull_shape, int64_t *hull, int64_t *hull_count) {
    const double *lo = s->lo, *hi = s->hi, *bounds = s->bounds;
    const int64_t S = s->S;
    int64_t n = 0, h = 0, raw = 0;
    int short_of_room = 0;
    for (int64_t q = q0; q < q1; ++q) {
        int inside = 1; /* (`_inside_ground`) */
        for (int k = 0; k < 3; ++k) inside &= (lo[q * 3 + k] <= bounds[3 + k]) & (hi[q * 3 + k] >= bounds[k]);
        if (!inside) continue;
        int64_t at = n, end = n;
        if (pvu_mesh_query_pairs(s->g, q, lo, hi, 1, s->tri_shape, s->mesh_count, s->mesh_boxed, s->mesh_box, room,
                                 shape, tri, &end) < 0)
            return -1;
        raw += end - at;
        if (short_of_room || end > room || h + (end - at) > room) {
            short_of_room = 1; /* (counting on: the second call's room) */
            continue;
        }
        const int64_t h_first = h;
        for (int64_t k = at; k < end; ++k) {
            int64_t t = tri[k], column = s->plane_count + s->tri_shape[t];
            if (column < 0 || column >= S) return -1;
            if (!s->collides[q * S + column]) continue;
            if (column < s->polytope_first) { /* (n <= k: the kept pairs move down over the ones read) */
                shape[n] = q;
                tri[n++] = t;
                continue;
            }
            int64_t polytope = column - s->polytope_first, m = h;
            if (polytope >= s->H) return -1;
            while (m > h_first && hull[m - 1] > polytope) --m;
            if (m > h_first && hull[m - 1] == polytope) continue;
            for (int64_t r = h; r > m; --r) hull[r] = hull[r - 1];
            hull[m] = polytope;
            hull_shape[h++] = q;
        }
    }
    if (short_of_room) {
        *hull_count = -1;
        return raw > 0 ? raw : 1;
    }
    *hull_count = h;
    return n;
}

#define MAX_THREADS 64

/* shape and tri (room,) each: the mesh triangles' pairs; hull_shape and hull (room,): the polytopes'; returns how
   many triangles' pairs, with *hull_count the polytopes' (-1 returned: numpy must take the call, a mesh or a column
   of `collides` numpy would not index as given). Where `room` is short, *hull_count is -1 and the return is room
   enough for a second call. bounds (6,): the low and high corner of every triangle's box; collides (N, S) bool.
   threads: OpenMP threads, each taking a run of shapes into its share of the room, the runs then joined in order
   (the same pairs for any count). */
int64_t pvu_static_pairs(const MeshGrid *g, int64_t N, const double *lo, const double *hi, const double *bounds,
                         const int64_t *tri_shape, int64_t mesh_count, const uint8_t *mesh_boxed,
                         const double *mesh_box, const uint8_t *collides, int64_t S, int64_t plane_count,
                         int64_t polytope_first, int64_t H, int64_t room, int64_t *shape, int64_t *tri,
                         int64_t *hull_shape, int64_t *hull, int64_t *hull_count, int64_t threads) {
    const StaticQuery s = {g, lo, hi, bounds, tri_shape, mesh_count, mesh_boxed, mesh_box, collides, S, plane_count,
                           polytope_first, H};
    int64_t T = threads < N ? threads : N;
    T = T > MAX_THREADS ? MAX_THREADS : T;
    if (T <= 1 || room < T) return range_pairs(&s, 0, N, room, shape, tri, hull_shape, hull, hull_count);
    const int64_t share = room / T;
    int64_t kept[MAX_THREADS], hulls[MAX_THREADS];
#pragma omp parallel for schedule(static, 1) num_threads((int)T)
    for (int64_t t = 0; t < T; ++t) {
        const int64_t at = t * share;
        kept[t] = range_pairs(&s, N * t / T, N * (t + 1) / T, share, shape + at, tri + at, hull_shape + at, hull + at,
                              hulls + t);
    }
    int64_t n = 0, h = 0, needed = 0;
    for (int64_t t = 0; t < T; ++t) {
        if (kept[t] < 0) return -1;
        if (hulls[t] < 0 && kept[t] > needed) needed = kept[t];
    }
    if (needed) { /* a run short of its share: every share as large as that run needs */
        *hull_count = -1;
        return needed * T;
    }
    for (int64_t t = 0; t < T; ++t) { /* the runs joined, in order (each moves down: n <= t share) */
        const int64_t at = t * share;
        memmove(shape + n, shape + at, (size_t)kept[t] * sizeof(int64_t));
        memmove(tri + n, tri + at, (size_t)kept[t] * sizeof(int64_t));
        memmove(hull_shape + h, hull_shape + at, (size_t)hulls[t] * sizeof(int64_t));
        memmove(hull + h, hull + at, (size_t)hulls[t] * sizeof(int64_t));
        n += kept[t];
        h += hulls[t];
    }
    *hull_count = h;
    return n;
}

/* pvu_static_pairs with its arguments as 64-bit words (sim/compiled_mesh.py `static_pairs`: the model's words written
   once while its arrays are the same, a call's sizes and addresses into them): w[0] the grid, w[1] N, w[2 .. 4] lo,
   hi and the outputs (four runs of `room`: shape, tri, hull_shape, hull), w[5 .. 9] room, plane_count,
   polytope_first, H, threads; w[10 .. 17] bounds, tri_shape, mesh_count, mesh_boxed, mesh_box, collides, S,
   hull_count. */
int64_t pvu_static_pairs_words(const int64_t *w) {
#define P(type, k) ((type)(intptr_t)w[k])
    int64_t *out = P(int64_t *, 4);
    const int64_t room = w[5];
    return pvu_static_pairs(P(const MeshGrid *, 0), w[1], P(const double *, 2), P(const double *, 3),
                            P(const double *, 10), P(const int64_t *, 11), w[12], P(const uint8_t *, 13),
                            P(const double *, 14), P(const uint8_t *, 15), w[16], w[6], w[7], w[8], room, out,
                            out + room, out + 2 * room, out + 3 * room, P(int64_t *, 17), w[9]);
#undef P
}
