/* The suspension raycasts against the ground planes (sim/ground.py `raycast` on a ground of planes alone, float32
   rays, no query filter), compiled: the numpy loop's arithmetic in its order and precision, ray by ray; and the whole
   of `raycast` on a ground of planes and meshes (no sphere or capsule) for float32 rays, with or without a query
   filter: the planes here, the meshes' closest hits in _mesh_queries.c, then the hit points' offsets here; and the
   suspension's whole road query on such a ground (`pvu_road_ground`: the rays, their hits, the friction of each).

   Per plane k, in float32: the normal rounded to float32 (numpy's astype), n . d and n . o + offset summed left to
   right (the offset rounded to float32 first, as numpy casts a Python float to the array's type), t = -(n . o) /
   (n . d) where the ray faces the plane, kept where 0 < t <= length and nearer than the planes before it (the first
   of equally near planes wins). Then the hit point o + d t (o + d 0 where nothing was hit) and its plane's offset
   -(n . point), as the numpy code forms them. Compiled with -ffp-contract=off: no fused multiply-add. */
#include <math.h>
#include <stdint.h>

#include "_mesh_queries.h"

/* The closest of the P planes ray (o, d, length) hits and may hit (may: its row of the filter, the planes' columns
   first; NULL: all), lowering *best_t and setting n, *shape where one is nearer */
static inline void closest_plane(int64_t P, const double *normals, const double *offsets, const float o[3],
                                 const float d[3], float length, const uint8_t *may, float *best_t, float n[3],
                                 int64_t *shape) {
    for (int64_t k = 0; k < P; ++k) {
        const float n0 = (float)normals[3 * k], n1 = (float)normals[3 * k + 1], n2 = (float)normals[3 * k + 2];
        const float nd = n0 * d[0] + n1 * d[1] + n2 * d[2];
        const float no = n0 * o[0] + n1 * o[1] + n2 * o[2] + (float)offsets[k];
        if (!(nd < 0.0f))
            continue;  /* (t infinite: not better) */
        const float t = -no / nd;
        if (t > 0.0f && t <= length && t < *best_t && (!may || may[k])) {
            *best_t = t;
            n[0] = n0, n[1] = n1, n[2] = n2;
            *shape = k;
        }
    }
}

/* The hit's plane offset -(n . (o + d t)) (t 0 where nothing was hit), and whether there is a hit */
static inline uint8_t hit_offset(const float o[3], const float d[3], float best_t, const float n[3], float *offset) {
    const int found = isfinite(best_t);
    const float along = found ? best_t : 0.0f;
    const float px = o[0] + d[0] * along, py = o[1] + d[1] * along, pz = o[2] + d[2] * along;
    *offset = -(n[0] * px + n[1] * py + n[2] * pz);
    return (uint8_t)found;
}

int pvu_plane_rays(int64_t R, int64_t P, const double *normals, const double *offsets, const float *o,
                   const float *d, const float *length, uint8_t *hit, float *normal, float *offset, int64_t *shape) {
    for (int64_t r = 0; r < R; ++r) {
        const float ray_o[3] = {o[r], o[R + r], o[2 * R + r]}, ray_d[3] = {d[r], d[R + r], d[2 * R + r]};
        float best_t = INFINITY, n[3] = {0.0f, 0.0f, 0.0f};
        int64_t best_shape = -1;
        closest_plane(P, normals, offsets, ray_o, ray_d, length[r], 0, &best_t, n, &best_shape);
        hit[r] = hit_offset(ray_o, ray_d, best_t, n, &offset[r]);
        normal[r] = n[0], normal[R + r] = n[1], normal[2 * R + r] = n[2];
        shape[r] = best_shape;
    }
    return 0;
}

/* min and max as numpy's np.minimum and np.maximum take them: NaN where either is */
static inline float low_of(float a, float b) { return a != a || b != b ? NAN : (a < b ? a : b); }
static inline float high_of(float a, float b) { return a != a || b != b ? NAN : (a > b ? a : b); }

/* The rays r0 .. r1 - 1 of `pvu_ground_rays`: their planes' hits and boxes, their cells (*numpy_takes set where numpy
   must take one of them), then, unless numpy takes the call (this run or another), their meshes' hits and offsets.
   sync: the call runs on threads, which all wait here between the rays' cells and their walks. */
static void ground_rays_run(const MeshGrid *g, MeshRays *m, int64_t P, const double *normals, const double *offsets,
                            const float *o, const float *d, const float *length, uint8_t *hit, float *offset,
                            int64_t *scratch, int64_t r0, int64_t r1, int *numpy_takes, int sync) {
    const int64_t R = m->R;
    float *best_t = (float *)m->best_t, *best_n = (float *)m->best_n;
    /* (the rays' boxes and float64 copies: this run's rows of the scratch m points into) */
    double *low = (double *)m->lo, *high = (double *)m->hi, *origin = (double *)m->origin;
    double *direction = (double *)m->direction, *along = (double *)m->length;
    for (int64_t r = r0; r < r1; ++r) {
        const float ray_o[3] = {o[r], o[R + r], o[2 * R + r]}, ray_d[3] = {d[r], d[R + r], d[2 * R + r]};
        float t = INFINITY, n[3] = {0.0f, 0.0f, 0.0f};
        int64_t shape = -1;
        closest_plane(P, normals, offsets, ray_o, ray_d, length[r],
                      m->allowed ? m->allowed + m->key[r] * m->shape_count : 0, &t, n, &shape);
        best_t[r] = t;
        best_n[r] = n[0], best_n[R + r] = n[1], best_n[2 * R + r] = n[2];
        m->best_shape[r] = shape;
        for (int k = 0; k < 3; ++k) {
            const float end = ray_o[k] + ray_d[k] * length[r];
            low[3 * r + k] = low_of(ray_o[k], end);
            high[3 * r + k] = high_of(ray_o[k], end);
            origin[k * R + r] = ray_o[k];
            direction[k * R + r] = ray_d[k];
        }
        along[r] = length[r];
    }
    if (pvu_mesh_rays_cells(g, m, scratch, r0, r1)) {
#pragma omp atomic write
        *numpy_takes = 1;
    }
    if (sync) {
#pragma omp barrier
    }
    int takes;
#pragma omp atomic read
    takes = *numpy_takes;
    if (takes) return;
    pvu_mesh_rays_walk(g, m, scratch, r0, r1);
    for (int64_t r = r0; r < r1; ++r) {
        const float ray_o[3] = {o[r], o[R + r], o[2 * R + r]}, ray_d[3] = {d[r], d[R + r], d[2 * R + r]};
        const float n[3] = {best_n[r], best_n[R + r], best_n[2 * R + r]};
        hit[r] = hit_offset(ray_o, ray_d, best_t[r], n, &offset[r]);
    }
}

/* `raycast` of float32 rays o, d (3, R), lengths (R,) on a ground of P planes and the meshes of grid g (no sphere or
   capsule): the planes' closest hits (m's filter, where given, reading the planes' columns), then the meshes'
   (`pvu_mesh_raycast`'s stages, whose rays' boxes, ground.py `mesh_hits`'s min and max of o and o + d length, are
   formed here in float32), then hit (R,) and offset (R,). m: the mesh rays but for the rays and their boxes, which
   are set here (into scratch, 19 R eight-byte words), best_t (R,) float32 (room), best_n (3, R) float32, best_shape
   (R,); m's threads share the rays in runs, in one parallel region (a ray's result is its own: the same bits for
   any count). Returns -1 where numpy must take a ray (what was written is to be dropped). */
int64_t pvu_ground_rays(const MeshGrid *g, MeshRays *m, int64_t P, const double *normals, const double *offsets,
                        const float *o, const float *d, const float *length, uint8_t *hit, float *offset,
                        int64_t *scratch) {
    const int64_t R = m->R;
    double *lo = (double *)(scratch + 6 * R), *hi = lo + 3 * R, *origin = hi + 3 * R, *direction = origin + 3 * R;
    m->lo = lo, m->hi = hi, m->origin = origin, m->direction = direction, m->length = direction + 3 * R;
    const int threads = m->threads > 1 && R > 1 ? (int)(m->threads < R ? m->threads : R) : 1;
    int numpy_takes = 0;
    if (threads == 1) {
        ground_rays_run(g, m, P, normals, offsets, o, d, length, hit, offset, scratch, 0, R, &numpy_takes, 0);
    } else {
#pragma omp parallel num_threads(threads)
        {
            int64_t r0, r1;
            pvu_ray_run(R, &r0, &r1);
            ground_rays_run(g, m, P, normals, offsets, o, d, length, hit, offset, scratch, r0, r1, &numpy_takes, 1);
        }
    }
    return numpy_takes ? -1 : 0;
}

/* suspension.py `query_road_geometry` of a batch whose wheels all cast rays, on a ground of planes and meshes (no
   sphere or capsule), with or without a query filter: the rays from the wheel tops at maximum compression, hub -
   direction radius, along the suspension directions for travel + 2 radius (float32, as numpy rounds each product and
   sum), their closest hits (`pvu_plane_rays`' on planes alone, `pvu_ground_rays`' where there are meshes), then the
   road of each wheel: hit where a shape is hit and the wheel is present (mask), the hit shape's normal and offset,
   and the friction of the wheel's table and the hit shape (float64, rounded to float32), 0 where nothing is hit. */
typedef struct {
    int64_t R, P, S;  /* rays (V W), planes, friction columns (ground shapes) */
    const double *normals, *offsets;  /* (P, 3), (P,) */
    const double *friction;  /* (tables, S) */
    const float *radius, *travel;  /* (R,) */
    const uint8_t *mask;  /* (R,) */
    const int64_t *table;  /* (R,) each wheel's friction table */
    const float *hub, *direction;  /* (3, R) */
    char *block;  /* the outputs' block: hit (R,), normal (3, R), offset (R,), friction (R,), shape (R,) (the hit
                     shape, -1: none), each at its byte offset `at` */
    int64_t at[5];
    const uint8_t *allowed;  /* (keys, shape_count) which shapes a wheel's key may hit; NULL: all */
    const int64_t *key;  /* (R,) each wheel's row of `allowed` */
    int64_t shape_count;
    const MeshGrid *grid;  /* the meshes' grid; NULL: planes alone (and the fields below unused) */
    MeshRays *rays;  /* `pvu_ground_rays`' rays: the meshes' arrays, the filter, the threads and the culling epsilon
                        set once; the outputs pointed into the block here */
    float *origin, *length;  /* (3, R), (R,): room for the rays */
    int64_t *scratch;  /* (19 R,) `pvu_ground_rays`' room */
} RoadGround;

int64_t pvu_road_ground_size(void) { return (int64_t)sizeof(RoadGround); }

/* Returns -1 where numpy must take a ray (what was written is to be dropped) */
int pvu_road_ground(const RoadGround *c) {
    const int64_t R = c->R;
    uint8_t *hit_out = (uint8_t *)(c->block + c->at[0]);
    float *normal = (float *)(c->block + c->at[1]), *offset = (float *)(c->block + c->at[2]);
    float *road_friction = (float *)(c->block + c->at[3]);
    int64_t *shape = (int64_t *)(c->block + c->at[4]);
    if (c->grid) {
        for (int64_t r = 0; r < R; ++r) {
            const float radius = c->radius[r];
            for (int k = 0; k < 3; ++k) c->origin[k * R + r] = c->hub[k * R + r] - c->direction[k * R + r] * radius;
            c->length[r] = c->travel[r] + 2.0f * radius;
        }
        MeshRays *m = c->rays;
        m->best_n = normal, m->best_shape = shape;
        if (pvu_ground_rays(c->grid, m, c->P, c->normals, c->offsets, c->origin, c->direction, c->length, hit_out,
                            offset, c->scratch) < 0)
            return -1;
        for (int64_t r = 0; r < R; ++r) {
            const uint8_t hit = hit_out[r] & (c->mask[r] != 0);
            hit_out[r] = hit;
            road_friction[r] = hit ? (float)c->friction[c->table[r] * c->S + shape[r]] : 0.0f;
        }
        return 0;
    }
    for (int64_t r = 0; r < R; ++r) {
        const float ray_d[3] = {c->direction[r], c->direction[R + r], c->direction[2 * R + r]};
        const float radius = c->radius[r];
        const float ray_o[3] = {c->hub[r] - ray_d[0] * radius, c->hub[R + r] - ray_d[1] * radius,
                                c->hub[2 * R + r] - ray_d[2] * radius};
        const float length = c->travel[r] + 2.0f * radius;
        float best_t = INFINITY, n[3] = {0.0f, 0.0f, 0.0f};
        int64_t best_shape = -1;
        closest_plane(c->P, c->normals, c->offsets, ray_o, ray_d, length,
                      c->allowed ? c->allowed + c->key[r] * c->shape_count : 0, &best_t, n, &best_shape);
        const uint8_t hit = hit_offset(ray_o, ray_d, best_t, n, &offset[r]) & (c->mask[r] != 0);
        hit_out[r] = hit;
        normal[r] = n[0], normal[R + r] = n[1], normal[2 * R + r] = n[2];
        shape[r] = best_shape;
        road_friction[r] = hit ? (float)c->friction[c->table[r] * c->S + best_shape] : 0.0f;
    }
    return 0;
}
