/* The mesh queries of the static ground (sim/triangle_grid.py `TriangleGrid.pairs`, sim/ground.py `box_pairs` and
   `mesh_hits_numpy`, sim/contact/broad.py `static_mesh_pairs`), compiled: the grid's (query, triangle) candidate
   pairs, and the closest single-sided hit of each ray among its pairs, without the intermediate arrays of every
   (query, cell) and (query, triangle) the numpy code makes.

   The numpy code's arithmetic in its order and precision: the grid, its triangles and their boxes are float64, and
   the queries' boxes and rays (float32 or float64) meet them in float64 (numpy promotes them; the caller converts
   them, exactly); Moller-Trumbore's products and sums in numpy's order; built with -ffp-contract=off (no fused
   multiply-adds). The pairs come in numpy's order: query after query, its cells row after row (i, then j), a cell's
   triangles in the grid's order; a pair whose cell ranges share several cells is listed in the first shared one.

   Layout: what numpy holds, C order: query boxes (Q, 3); rays component-first (3, R); the triangles' normals (T, 3).
   The grid itself is read here in records laid out once per grid by compiled_mesh.py, so that a query fetches a few
   cache lines where it met a line per array: a cell's record (`GridCell`: the reach of its triangles along the third
   axis and where its entries lie); its entries in a run (`CellEntry`: the triangle, its box rounded outwards to
   float32, and whether the cell is the first row and column of the triangle's range, which is all the listing of a
   pair once asks for); the triangle (`Triangle`: its box and v0, e1, e2, two lines side by side) only for an entry
   whose float32 box meets the query's (a box it misses, the exact box misses too); and blocks of BLOCK x BLOCK cells
   (`Block`: the reach of their triangles along the third axis), so that a chassis over a road skips the cells of a
   block whose triangles all lie below it. Skipping cells or entries whose pairs are none changes no pair's order. */
#include <math.h>
#include "_mesh_queries.h"

int64_t pvu_mesh_grid_size(void) { return (int64_t)sizeof(MeshGrid); }

/* `_cell_range` of one axis: floor((x - origin) / cell) clipped to 0 .. top (x finite or infinite, not NaN) */
static inline int64_t cell_index(double x, double origin, double cell, int64_t top) {
    double f = floor((x - origin) / cell);
    if (f < 0.0) f = 0.0;
    if (f > (double)top) f = (double)top;
    return (int64_t)f;
}

/* The cell range of query q: 0 where it is outside the grid (no cells), 1 where it has one (first, last set),
   -1 where numpy's result is not the nested loops' (a NaN coordinate, an inverted box): the caller runs numpy. */
static int query_cells(const MeshGrid *g, const double *lo, const double *hi, int64_t q, int64_t first[2],
                       int64_t last[2]) {
    const int64_t axes[2] = {g->axis0, g->axis1}, size[2] = {g->size0, g->size1};
    const double origin[2] = {g->origin0, g->origin1};
    int outside = 0;
    for (int a = 0; a < 2; ++a) {
        double l = lo[q * 3 + axes[a]], h = hi[q * 3 + axes[a]];
        if (l != l || h != h) return -1;
        if (h < origin[a] || l > origin[a] + g->cell * (double)size[a]) outside = 1;
        first[a] = cell_index(l, origin[a], g->cell, size[a] - 1);
        last[a] = cell_index(h, origin[a], g->cell, size[a] - 1);
    }
    if (outside) return 0;
    if (last[0] < first[0] - 1 || last[1] < first[1] - 1) return -1; /* numpy repeats a negative count */
    return 1;
}

/* Whether triangles reaching from low to high along the third axis may reach query q's box (`pairs`' `near`) */
static inline int reaches(double low, double high, const MeshGrid *g, const double *lo, const double *hi, int64_t q) {
    return low <= hi[q * 3 + g->up] && high >= lo[q * 3 + g->up];
}

/* Whether some block over query q's cells has triangles that reach its box: where none has, no cell has */
static int any_block_reaches(const MeshGrid *g, const double *lo, const double *hi, int64_t q, const int64_t first[2],
                             const int64_t last[2]) {
    for (int64_t bi = first[0] >> BLOCK_SHIFT; bi <= last[0] >> BLOCK_SHIFT; ++bi)
        for (int64_t bj = first[1] >> BLOCK_SHIFT; bj <= last[1] >> BLOCK_SHIFT; ++bj) {
            const Block *b = g->blocks + bi * g->blocks1 + bj;
            if (reaches(b->low, b->high, g, lo, hi, q)) return 1;
        }
    return 0;
}

/* Whether cell (i, j) may give query q pairs: its block's triangles and its own reach the query's box. In a block
   whose triangles do not, *j moves to the block's last cell (the walk then goes on past it). */
static inline int cell_reaches(const MeshGrid *g, const double *lo, const double *hi, int64_t q, int64_t i,
                               int64_t *j) {
    const Block *b = g->blocks + (i >> BLOCK_SHIFT) * g->blocks1 + (*j >> BLOCK_SHIFT);
    if (!reaches(b->low, b->high, g, lo, hi, q)) {
        *j |= (1 << BLOCK_SHIFT) - 1;
        return 0;
    }
    const CellReach *r = g->reach + i * g->size1 + *j;
    if (!reaches((double)r->low, (double)r->high, g, lo, hi, q)) return 0;
    const GridCell *c = g->cells + i * g->size1 + *j;
    return reaches(c->low, c->high, g, lo, hi, q);
}

/* Whether the pair (q, the entry's triangle) met in cell (i, j) is listed there: its first shared cell, the corner
   (max of the two first cells) where the two ranges' overlap starts; the triangle's range holds (i, j), the
   query's first cell is at most (i, j): max(first, query first) is i where either is */
static inline int pair_once(const CellEntry *e, const int64_t first[2], int64_t i, int64_t j) {
    return ((e->first & 1) || i == first[0]) && ((e->first & 2) || j == first[1]);
}

/* Whether query q's box may overlap the entry's triangle's: its float32 box, which holds the exact one, does */
static inline int entry_box_overlaps(const CellEntry *e, const double *lo, const double *hi, int64_t q) {
    int ok = 1;
    for (int k = 0; k < 3; ++k) ok &= ((double)e->lo[k] <= hi[q * 3 + k]) & ((double)e->hi[k] >= lo[q * 3 + k]);
    return ok;
}

/* Whether query q's box overlaps triangle t's box (`box_pairs`) */
static inline int triangle_box_overlaps(const Triangle *t, const double *lo, const double *hi, int64_t q) {
    int ok = 1;
    for (int k = 0; k < 3; ++k) ok &= (t->lo[k] <= hi[q * 3 + k]) & (t->hi[k] >= lo[q * 3 + k]);
    return ok;
}

/* Whether query q's box overlaps box (6,): low corner, high corner */
static inline int box_overlaps(const double *box, const double *lo, const double *hi, int64_t q) {
    int ok = 1;
    for (int k = 0; k < 3; ++k) ok &= (box[k] <= hi[q * 3 + k]) & (box[3 + k] >= lo[q * 3 + k]);
    return ok;
}

/* A chassis's query walks a few dozen cells, a few rows of them: while query q walks, the rows of the query a few
   after it are fetched. */
#define PREFETCH_QUERIES 4

static inline void prefetch_query(const MeshGrid *g, const double *lo, const double *hi, int64_t q) {
    int64_t first[2], last[2];
    if (query_cells(g, lo, hi, q, first, last) <= 0) return;
    for (int64_t i = first[0]; i <= last[0]; ++i) {
        const char *at = (const char *)(g->reach + i * g->size1 + first[1]);
        const char *end = (const char *)(g->reach + i * g->size1 + last[1] + 1);
        for (; at < end; at += 64) __builtin_prefetch(at);
    }
}

/* The entries of every cell, cell after cell (`CellEntry`): each triangle's float32 box and index from box32 (T, 8
   words: the entry but for its first-cell bits), and whether the cell is in the first row and column of the
   triangle's range (first_cell (T, 2)). One pass in the grid's order: numpy's gathers of a million entries took a
   tenth of a second. */
void pvu_mesh_entries(int64_t size0, int64_t size1, const int64_t *starts, const int64_t *triangles,
                      const CellEntry *box32, const int64_t *first_cell, CellEntry *entries) {
    for (int64_t i = 0; i < size0; ++i)
        for (int64_t j = 0; j < size1; ++j) {
            int64_t c = i * size1 + j;
            for (int64_t p = starts[c]; p < starts[c + 1]; ++p) {
                int64_t t = triangles[p];
                entries[p] = box32[t];
                entries[p].first = (first_cell[2 * t] == i) | ((first_cell[2 * t + 1] == j) << 1);
            }
        }
}

/* The pairs query q meets in cell (i, j) (one `cell_reaches` lets through), appended; -1: a triangle numpy must take */
static int cell_pairs(const MeshGrid *g, int64_t q, int64_t i, int64_t j, const int64_t first[2], const double *lo,
                      const double *hi, int overlap, const int64_t *tri_shape, int64_t mesh_count,
                      const uint8_t *mesh_boxed, const double *mesh_box, int64_t *boxed_shape, int *boxed_ok,
                      int64_t room, int64_t *query, int64_t *tri, int64_t *n) {
    const GridCell *c = g->cells + i * g->size1 + j;
    for (const CellEntry *e = g->entries + c->start; e < g->entries + c->end; ++e) {
        if (!pair_once(e, first, i, j)) continue;
        int64_t t = e->triangle;
        int64_t s = mesh_boxed ? tri_shape[t] : 0;
        if (s < 0 || (mesh_boxed && s >= mesh_count)) return -1;
        int ok = 1;
        if (overlap && mesh_boxed && mesh_boxed[s]) { /* a polytope's faces, met in turn: one test */
            if (s != *boxed_shape) {
                *boxed_shape = s;
                *boxed_ok = box_overlaps(mesh_box + s * 6, lo, hi, q);
            }
            ok = *boxed_ok;
        } else if (overlap) {
            ok = entry_box_overlaps(e, lo, hi, q) && triangle_box_overlaps(g->triangles + t, lo, hi, q);
        }
        if (ok) {
            if (*n < room) {
                query[*n] = q;
                tri[*n] = t;
            }
            ++*n;
        }
    }
    return 0;
}

/* The cells of query q's range that `cell_reaches` lets through, in the walk's order, into found (FOUND_MAX): from
   the blocks' tall lists, which a chassis above a road ends after the few cells that reach up to it (an obstacle's),
   or, block by block where the list is no shorter, from the cells. Returns how many, or -1 where there are more than
   FOUND_MAX (the caller walks every cell). */
static int reaching_cells(const MeshGrid *g, const double *lo, const double *hi, int64_t q, const int64_t first[2],
                          const int64_t last[2], int64_t *found) {
    const int64_t B = (int64_t)1 << BLOCK_SHIFT;
    const double low_q = lo[q * 3 + g->up];
    int count = 0;
    for (int64_t bi = first[0] >> BLOCK_SHIFT; bi <= last[0] >> BLOCK_SHIFT; ++bi)
        for (int64_t bj = first[1] >> BLOCK_SHIFT; bj <= last[1] >> BLOCK_SHIFT; ++bj) {
            const Block *b = g->blocks + bi * g->blocks1 + bj;
            if (!reaches(b->low, b->high, g, lo, hi, q)) continue;
            int64_t i0 = bi * B > first[0] ? bi * B : first[0], j0 = bj * B > first[1] ? bj * B : first[1];
            int64_t i1 = bi * B + B - 1 < last[0] ? bi * B + B - 1 : last[0];
            int64_t j1 = bj * B + B - 1 < last[1] ? bj * B + B - 1 : last[1];
            int64_t in_block = (i1 - i0 + 1) * (j1 - j0 + 1);
            const TallCell *t = g->tall + (bi * g->blocks1 + bj) * TALL;
            int at = count, listed = 1;
            /* (a cell without triangles, high -inf, and the padding after a grid's edge: no pairs, ends the list) */
            for (int k = 0; k < TALL && (double)t[k].high >= low_q && t[k].high > -INFINITY; ++k) {
                if (k >= in_block) {
                    listed = 0;
                    break;
                }
                int64_t c = t[k].cell, i = c / g->size1, j = c % g->size1;
                if (i < i0 || i > i1 || j < j0 || j > j1) continue;
                int64_t walked = j;
                if (!cell_reaches(g, lo, hi, q, i, &walked)) continue;
                if (count == FOUND_MAX) return -1;
                found[count++] = c;
            }
            if (listed) continue;
            count = at;
            for (int64_t i = i0; i <= i1; ++i)
                for (int64_t j = j0; j <= j1; ++j) {
                    int64_t walked = j;
                    if (!cell_reaches(g, lo, hi, q, i, &walked)) continue;
                    if (count == FOUND_MAX) return -1;
                    found[count++] = i * g->size1 + j;
                }
        }
    for (int k = 1; k < count; ++k) /* the walk's order: row after row */
        for (int m = k; m > 0 && found[m - 1] > found[m]; --m) {
            int64_t swap = found[m];
            found[m] = found[m - 1];
            found[m - 1] = swap;
        }
    return count;
}

/* The (query, triangle) pairs of `TriangleGrid.pairs` (overlap 0) or of `box_pairs` (overlap 1), in their order,
   the first `room` of them written to query and tri; returns how many there are (-1: a query numpy must take): the
   caller calls again with room for them where there was not.
   mesh_boxed (M,) (NULL: none): the meshes (by `tri_shape`, (T,)) whose triangles overlap by the mesh's box,
   mesh_box (M, 6) (low corner, high corner), not their own (broad.py's static polytopes' faces); a triangle of no
   mesh among them is one numpy must take. */
int pvu_mesh_query_pairs(const MeshGrid *g, int64_t q, const double *lo, const double *hi, int overlap,
                         const int64_t *tri_shape, int64_t mesh_count, const uint8_t *mesh_boxed,
                         const double *mesh_box, int64_t room, int64_t *query, int64_t *tri, int64_t *n) {
    int64_t first[2], last[2], found[FOUND_MAX];
    int cells = query_cells(g, lo, hi, q, first, last);
    if (cells < 0) return -1;
    if (!cells || !any_block_reaches(g, lo, hi, q, first, last)) return 0;
    int64_t boxed_shape = -1; /* the mesh whose box query q was last tested against, and the test's result */
    int boxed_ok = 0;
    int count = reaching_cells(g, lo, hi, q, first, last, found);
    if (count >= 0) {
        for (int k = 0; k < count; ++k)
            if (cell_pairs(g, q, found[k] / g->size1, found[k] % g->size1, first, lo, hi, overlap, tri_shape,
                           mesh_count, mesh_boxed, mesh_box, &boxed_shape, &boxed_ok, room, query, tri, n) < 0)
                return -1;
        return 0;
    }
    for (int64_t i = first[0]; i <= last[0]; ++i)
        for (int64_t j = first[1]; j <= last[1]; ++j) {
            if (!cell_reaches(g, lo, hi, q, i, &j)) continue;
            if (cell_pairs(g, q, i, j, first, lo, hi, overlap, tri_shape, mesh_count, mesh_boxed, mesh_box,
                           &boxed_shape, &boxed_ok, room, query, tri, n) < 0)
                return -1;
        }
    return 0;
}

int64_t pvu_mesh_pairs(const MeshGrid *g, int64_t Q, const double *lo, const double *hi, int overlap,
                       const int64_t *tri_shape, int64_t mesh_count, const uint8_t *mesh_boxed,
                       const double *mesh_box, int64_t room, int64_t *query, int64_t *tri) {
    int64_t n = 0;
    for (int64_t q = 0; q < Q; ++q) {
        if (q + PREFETCH_QUERIES < Q) prefetch_query(g, lo, hi, q + PREFETCH_QUERIES);
        if (pvu_mesh_query_pairs(g, q, lo, hi, overlap, tri_shape, mesh_count, mesh_boxed, mesh_box, room, query,
                                 tri, &n) < 0)
            return -1;
    }
    return n;
}

int64_t pvu_mesh_rays_size(void) { return (int64_t)sizeof(MeshRays); }

/* Moller-Trumbore of ray r against triangle t (record f) as `mesh_hits_numpy` takes it: 1 with *t_hit where the ray
   meets the triangle's front, enlarged by its epsilon, at 0 < t <= length */
static inline int ray_hit(const MeshRays *m, const Triangle *f, int64_t r, int64_t t, double *t_hit) {
    const int64_t R = m->R;
    double ox = m->origin[r], oy = m->origin[R + r], oz = m->origin[2 * R + r];
    double dx = m->direction[r], dy = m->direction[R + r], dz = m->direction[2 * R + r];
    double v0x = f->v0[0], v0y = f->v0[1], v0z = f->v0[2];
    double e1x = f->e1[0], e1y = f->e1[1], e1z = f->e1[2];
    double e2x = f->e2[0], e2y = f->e2[1], e2z = f->e2[2];
    double px = dy * e2z - dz * e2y, py = dz * e2x - dx * e2z, pz = dx * e2y - dy * e2x; /* d x e2 */
    double det = e1x * px + e1y * py + e1z * pz;
    if (!(det >= m->culling_epsilon)) return 0; /* single-sided */
    double inv = 1.0 / det;
    double tx = ox - v0x, ty = oy - v0y, tz = oz - v0z;
    double u = (tx * px + ty * py + tz * pz) * inv;
    double qx = ty * e1z - tz * e1y, qy = tz * e1x - tx * e1z, qz = tx * e1y - ty * e1x; /* (o - v0) x e1 */
    double v = (dx * qx + dy * qy + dz * qz) * inv;
    double at = (e2x * qx + e2y * qy + e2z * qz) * inv;
    double eps = m->epsilon ? m->epsilon[t] : 0.0;
    if (u >= -eps && v >= -eps && u + v <= 1.0 + eps && at > 0.0 && at <= m->length[r]) {
        *t_hit = at;
        return 1;
    }
    return 0;
}

/* A ray's query is a chain of fetches (its cell, the cell's entries, their triangles), each waiting on the one
   before: while ray r is tested, the fetches of the rays after it are started, a stage a few rays apart (the first
   cell of each: a wheel's ray covers one or two), so that the memory works on several rays at once. */
#define PREFETCH_RAYS 8

static inline void prefetch_ray(const MeshGrid *g, const MeshRays *m, const int64_t *first_cell, int64_t r,
                                int64_t R) {
    if (r + 3 * PREFETCH_RAYS < R && first_cell[r + 3 * PREFETCH_RAYS] >= 0) {
        int64_t c = first_cell[r + 3 * PREFETCH_RAYS];
        __builtin_prefetch(g->reach + c);
        __builtin_prefetch(g->cells + c);
    }
    if (r + 2 * PREFETCH_RAYS < R && first_cell[r + 2 * PREFETCH_RAYS] >= 0) {
        const GridCell *c = g->cells + first_cell[r + 2 * PREFETCH_RAYS];
        const char *at = (const char *)(g->entries + c->start), *end = (const char *)(g->entries + c->end);
        for (int k = 0; k < 4 && at < end; ++k, at += 64) __builtin_prefetch(at);
    }
    if (r + PREFETCH_RAYS < R && first_cell[r + PREFETCH_RAYS] >= 0) {
        int64_t q = r + PREFETCH_RAYS;
        const GridCell *c = g->cells + first_cell[q];
        for (const CellEntry *e = g->entries + c->start; e < g->entries + c->end; ++e)
            if (entry_box_overlaps(e, m->lo, m->hi, q)) {
                const char *t = (const char *)(g->triangles + e->triangle);
                __builtin_prefetch(t);
                __builtin_prefetch(t + 64);
            }
    }
}

/* Stage 1 of `pvu_mesh_raycast` for rays r0 .. r1 - 1: each ray's cell range and first cell (first_cell, as there);
   returns whether numpy must take one of them. */
int pvu_mesh_rays_cells(const MeshGrid *g, const MeshRays *m, int64_t *first_cell, int64_t r0, int64_t r1) {
    int64_t *range = first_cell + m->R; /* (R, 4): each ray's first and last cell; then its closest triangle */
    int numpy_takes = 0;
    for (int64_t r = r0; r < r1; ++r) {
        int cells = query_cells(g, m->lo, m->hi, r, range + 4 * r, range + 4 * r + 2);
        numpy_takes |= cells < 0;
        first_cell[r] = cells > 0 ? range[4 * r] * g->size1 + range[4 * r + 1] : -1;
    }
    return numpy_takes;
}

/* Stage 2 of `pvu_mesh_raycast` for rays r0 .. r1 - 1 (their first stage done): each ray's closest hit, written */
void pvu_mesh_rays_walk(const MeshGrid *g, const MeshRays *m, int64_t *first_cell, int64_t r0, int64_t r1) {
    int64_t *range = first_cell + m->R;
    double *best_at = (double *)(first_cell + 5 * m->R); /* (R,): each ray's closest hit */
    for (int64_t r = r0; r < r1; ++r) {
        prefetch_ray(g, m, first_cell, r, r1);
        if (first_cell[r] < 0) { /* no cell: no hit */
            range[4 * r] = -1;
            continue;
        }
        const int64_t first[2] = {range[4 * r], range[4 * r + 1]}, *last = range + 4 * r + 2;
        const uint8_t *may = m->allowed ? m->allowed + m->key[r] * m->shape_count : 0;
        double best = INFINITY;
        int64_t best_tri = -1;
        for (int64_t i = first[0]; i <= last[0]; ++i)
            for (int64_t j = first[1]; j <= last[1]; ++j) {
                if (!cell_reaches(g, m->lo, m->hi, r, i, &j)) continue;
                const GridCell *c = g->cells + i * g->size1 + j;
                for (const CellEntry *e = g->entries + c->start; e < g->entries + c->end; ++e) {
                    if (!pair_once(e, first, i, j) || !entry_box_overlaps(e, m->lo, m->hi, r)) continue;
                    int64_t t = e->triangle;
                    const Triangle *f = g->triangles + t;
                    if (!triangle_box_overlaps(f, m->lo, m->hi, r)) continue;
                    if (may && !may[m->plane_count + m->tri_shape[t]]) continue;
                    double at;
                    if (ray_hit(m, f, r, t, &at) && (at < best || (at == best && t < best_tri))) {
                        best = at;
                        best_tri = t;
                    }
                }
            }
        range[4 * r] = best_tri; /* (the range is no longer needed: the hit, written below) */
        best_at[r] = best;
    }
    /* the hits, written in a pass of their own: each reads its triangle's normal, a fetch from anywhere in the
       normals, and the rays' fetches then overlap rather than each ending its ray's test */
    for (int64_t r = r0; r < r1; ++r) {
        int64_t best_tri = range[4 * r];
        if (best_tri < 0) continue;
        double best = best_at[r];
        const double *n = m->normals + best_tri * 3;
        if (m->single) {
            float *bt = (float *)m->best_t, *bn = (float *)m->best_n;
            if (!(best < (double)bt[r])) continue;
            bt[r] = (float)best;
            for (int k = 0; k < 3; ++k) bn[k * m->R + r] = (float)n[k];
        } else {
            double *bt = (double *)m->best_t, *bn = (double *)m->best_n;
            if (!(best < bt[r])) continue;
            bt[r] = best;
            for (int k = 0; k < 3; ++k) bn[k * m->R + r] = n[k];
        }
        m->best_shape[r] = m->plane_count + m->tri_shape[best_tri];
    }
}

/* `mesh_hits_numpy`: each ray's closest hit among its `box_pairs` triangles that its filter lets it hit (of equally
   close ones the lowest index), where closer than best_t: best_t, best_n (the triangle's normal) and best_shape set,
   rounded to best_t's precision as numpy's assignment rounds. Returns -1 (nothing written) where numpy must take a
   ray. first_cell (6 R,): room for each ray's first cell (flat index, -1: none), its cell range (R, 4; then its
   closest triangle) and its closest hit's distance (R, as double). (One thread: `pvu_ground_rays` shares the rays
   of its calls among threads, stage by stage.) */
int64_t pvu_mesh_raycast(const MeshGrid *g, const MeshRays *m, int64_t *first_cell) {
    if (pvu_mesh_rays_cells(g, m, first_cell, 0, m->R)) return -1;
    pvu_mesh_rays_walk(g, m, first_cell, 0, m->R);
    return 0;
}
