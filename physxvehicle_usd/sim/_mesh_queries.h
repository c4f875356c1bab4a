/* The records of the mesh queries (_mesh_queries.c), which compiled_mesh.py lays out once per grid and mirrors
   (`MeshGrid`, `MeshRays`), and the calls the other C files of the ground queries make into them: the contact
   broad phase's static pairs (_static_pairs.c) and the suspension raycasts (_plane_rays.c). */
#ifndef PVU_MESH_QUERIES_H
#define PVU_MESH_QUERIES_H

#include <stdint.h>
#ifdef _OPENMP
#include <omp.h>
#endif

typedef struct {
    double low, high;   /* the lowest and the highest of the cell's triangles along the third axis (+inf, -inf: none) */
    int64_t start, end; /* its entries */
} GridCell;

typedef struct {
    float lo[3], hi[3]; /* the triangle's box, rounded outwards to float32 */
    int32_t triangle;   /* its index */
    int32_t first;      /* bit 0: the cell is in the first row of the triangle's range, bit 1: in its first column */
} CellEntry;

typedef struct {
    double lo[3], hi[3];        /* the triangle's box (`triangle_boxes`) */
    double v0[3], e1[3], e2[3]; /* `triangle_columns` */
    double pad;
} Triangle;

typedef struct {
    double low, high; /* over a block's cells */
} Block;

typedef struct {
    float high;   /* a cell's high rounded upwards to float32 (-inf: a padding slot or no triangles) */
    int32_t cell; /* the cell */
} TallCell;       /* a block's cells, the highest first (`TALL`: BLOCK x BLOCK a block) */

#define TALL 64
/* A query walks a block's cells from its tall list where that list ends (below the query) before as many entries as
   the query has cells in the block, and collects at most FOUND_MAX cells so; otherwise it walks its cells. */
#define FOUND_MAX 64

typedef struct {
    float low, high; /* a cell's `GridCell` low and high rounded outwards to float32: a query they miss, the cell's
                        triangles miss; four cells a line, read for every cell a query covers */
} CellReach;

#define BLOCK_SHIFT 3 /* blocks of 8 x 8 cells */

typedef struct {
    int64_t axis0, axis1, up;   /* the two world axes the cells span, and the third */
    int64_t size0, size1;       /* cells along each axis */
    int64_t triangle_count;     /* T */
    int64_t blocks1;            /* blocks along the second axis */
    double origin0, origin1;    /* the low corner of cell (0, 0) */
    double cell;                /* cell edge length */
    const CellReach *reach;     /* (cells,) */
    const GridCell *cells;      /* (cells,) */
    const CellEntry *entries;   /* every cell's, cell after cell */
    const Triangle *triangles;  /* (T,) */
    const Block *blocks;        /* (blocks0 * blocks1,) */
    const TallCell *tall;       /* (blocks0 * blocks1, TALL) */
} MeshGrid;

typedef struct {
    int64_t R;                 /* rays */
    const double *lo, *hi;     /* (R, 3) each ray's segment's box */
    const double *origin;      /* (3, R) */
    const double *direction;   /* (3, R) */
    const double *length;      /* (R,) */
    const double *epsilon;     /* (T,) each triangle's enlargement; NULL: 0 */
    const double *normals;     /* (T, 3) */
    const int64_t *tri_shape;  /* (T,) the triangle's mesh */
    int64_t plane_count;       /* the shape index of the first mesh */
    const uint8_t *allowed;    /* (keys, shapes) which shapes a ray's key may hit; NULL: all */
    const int64_t *key;        /* (R,) each ray's row of `allowed` */
    int64_t shape_count;       /* `allowed`'s columns */
    double culling_epsilon;    /* a smaller determinant misses */
    int64_t single;            /* best_t, best_n float32 (1) or float64 (0) */
    void *best_t;              /* (R,) in/out */
    void *best_n;              /* (3, R) in/out */
    int64_t *best_shape;       /* (R,) in/out */
    int64_t threads;           /* `pvu_ground_rays`' OpenMP threads over the rays (the same results for any count) */
} MeshRays;

/* The pairs of query q (`pvu_mesh_pairs` of one query) appended at *n (the first `room` of them written); -1: a
   query or triangle numpy must take. */
int pvu_mesh_query_pairs(const MeshGrid *g, int64_t q, const double *lo, const double *hi, int overlap,
                         const int64_t *tri_shape, int64_t mesh_count, const uint8_t *mesh_boxed,
                         const double *mesh_box, int64_t room, int64_t *query, int64_t *tri, int64_t *n);
int64_t pvu_mesh_raycast(const MeshGrid *g, const MeshRays *m, int64_t *first_cell);
/* `pvu_mesh_raycast`'s two stages for a run of rays r0 .. r1 - 1: the cells (returns whether numpy must take a ray;
   nothing written but first_cell), then the walks and the hits written */
int pvu_mesh_rays_cells(const MeshGrid *g, const MeshRays *m, int64_t *first_cell, int64_t r0, int64_t r1);
void pvu_mesh_rays_walk(const MeshGrid *g, const MeshRays *m, int64_t *first_cell, int64_t r0, int64_t r1);

/* Inside an OpenMP parallel region: the run of R rays (r0 .. r1 - 1) of this thread, contiguous, in thread order */
static inline void pvu_ray_run(int64_t R, int64_t *r0, int64_t *r1) {
#ifdef _OPENMP
    int64_t t = omp_get_thread_num(), T = omp_get_num_threads();
#else
    int64_t t = 0, T = 1;
#endif
    *r0 = R * t / T;
    *r1 = R * (t + 1) / T;
}

#endif
