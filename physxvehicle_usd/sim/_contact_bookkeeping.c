/* The contact bookkeeping after the narrow phase, compiled (sim/contact/patches.py `patch_rows` against the static
   world; sim/compiled_bookkeeping.py calls it): a step's friction patches made from its reduced contacts and the last
   step's patches (PhysX's getFrictionPatches, correlatePatches, growPatches), then written as the solver's rows.

   The numpy form stays the reference; this is its arithmetic in its order, patch by patch. numpy's sums of three
   products (einsum) come in two orders, as found by test: where the summed label is the last of both operands'
   subscripts ("pij,pj", "qj,qj", "ijn,nj") its loop puts each product (plus +0) in a lane and adds the lanes
   (x0 + x2) + x1 (AVX2's and AVX-512's horizontal sums, the x86 machines we run on); where it is not ("pji,pj": a
   matrix's column) it adds them to +0 left to right. A squared length (a sum over the last axis) adds left to right
   from the first. A minimum or maximum carries a NaN as numpy's does. Compiled with -ffp-contract=off: no fused
   multiply-add. Orders are the numpy form's: every key sorted on is unique, so any sort gives the stable sort's
   order.

   Besides: reduction.py reduce_contacts (`pvu_reduce_contacts`), persistence.py's refresh of the kept manifolds
   (`pvu_refresh_manifolds`) and telemetry.py's slots (`pvu_contact_telemetry`), each the same bits as its numpy twin.

   Two calls: `pvu_friction_patches` makes the patches (F, their slots and the largest slot and point count, so that
   the caller can size the rows), `pvu_patch_rows` writes them into the zeroed rows. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define SAME_NORMAL 0.999          /* sim/contact/geometry.py SAME_NORMAL (checked by the loader) */
#define CORRELATION_DISTANCE 0.025 /* patches.py FRICTION_CORRELATION_DISTANCE_M */
#define EMPTY_ANCHOR_SQ 1e-8       /* patches.py _EMPTY_ANCHOR_SQ */

/* einsum's sum over a contiguous axis of three (its SIMD dot): a . b */
static double dot3(const double *a, const double *b) {
    const double x0 = a[0] * b[0] + 0.0, x1 = a[1] * b[1] + 0.0, x2 = a[2] * b[2] + 0.0;
    return ((x0 + x2) + x1) + 0.0;
}

/* out = R v (einsum "pij,pj->pi": R's rows contiguous) */
static void rotate(const double *R, const double *v, double *out) {
    for (int i = 0; i < 3; ++i)
        out[i] = dot3(R + 3 * i, v);
}

/* out = R^T v (einsum "pji,pj->pi": R's columns strided, summed from +0 in order) */
static void unrotate(const double *R, const double *v, double *out) {
    for (int i = 0; i < 3; ++i)
        out[i] = ((0.0 + R[i] * v[0]) + R[3 + i] * v[1]) + R[6 + i] * v[2];
}

static double squared_distance(const double *a, const double *b) {
    const double x = a[0] - b[0], y = a[1] - b[1], z = a[2] - b[2];
    return x * x + y * y + z * z;
}

/* numpy's minimum and maximum: a NaN on either side is the result */
static double np_min(double a, double b) { return (a <= b || isnan(a)) ? a : b; }
static double np_max(double a, double b) { return (a >= b || isnan(a)) ? a : b; }

typedef struct {
    int64_t key[4];
    int64_t index;
} Sortable;

static int by_keys(const void *a, const void *b) {
    const Sortable *x = a, *y = b;
    for (int k = 0; k < 4; ++k)
        if (x->key[k] != y->key[k])
            return x->key[k] < y->key[k] ? -1 : 1;
    return 0;
}

int64_t pvu_contact_bookkeeping_same_normal_bits(void) {
    double same = SAME_NORMAL;
    int64_t bits;
    memcpy(&bits, &same, sizeof bits);
    return bits;
}

/* The step's friction patches (patches.py friction_patches, body 1 the static world, no two plane pairs of different
   shapes to order) and each patch's vehicle row and slot (patch_rows).
   sizes: C contacts, V vehicles, N shape rows, G static shapes, P previous patches, W entries of `where`.
   Contacts: shape, static, patch (C,), point, normal (C, 3), separation (C,). Model: vehicle (N,), first (V,) each
   vehicle's first row, rest (N, G: element strides rest_row, rest_column), offset_threshold (V,). Poses: rotation (V, 3, 3) (zero where a vehicle has no
   contact), position (V, 3), length_scale (V,). Previous: its nine fields (broken as bytes). where (W,): each
   vehicle's row in the solve (-1: none).
   Out, sized for F <= C patches: ints (11 F + C + 3): row, static, first, count, vehicle, shape (the record's),
   anchor_count, vehicle row, slot, then scratch (2 F), then each contact's patch (C,), then F, Pm, K. floats (38 F + 4 C):
   normal, p (F, 3), body_normal, other_normal (F, 3), body_anchor, other_anchor, anchor_arm, anchor_error (F, 2, 3),
   then point (C, 3), separation (C,). Returns 0, or -1 where memory ran out. */
int pvu_friction_patches(int64_t C, int64_t V, int64_t N, int64_t G, int64_t P, int64_t W, int64_t rest_row,
                         int64_t rest_column,
                         const int64_t *shape, const int64_t *cstatic, const int64_t *patch, const double *point,
                         const double *normal, const double *separation,
                         const int64_t *vehicle, const int64_t *first, const double *rest,
                         const double *offset_threshold, const double *rotation, const double *position,
                         const double *length_scale,
                         const int64_t *pv, const int64_t *pshape, const int64_t *pstatic, const double *pbody_normal,
                         const double *pother_normal, const int64_t *panchor_count, const double *pbody_anchor,
                         const double *pother_anchor, const uint8_t *pbroken, const int64_t *where,
                         int64_t *ints, double *floats) {
    (void)N, (void)V, (void)W, (void)G;
    const int64_t Fm = C; /* at most a patch per contact */
    int64_t *fp_row = ints, *fp_static = ints + Fm, *fp_first = ints + 2 * Fm, *fp_count = ints + 3 * Fm;
    int64_t *fp_vehicle = ints + 4 * Fm, *rec_shape = ints + 5 * Fm, *anchor_count = ints + 6 * Fm;
    int64_t *fp_r = ints + 7 * Fm, *slot = ints + 8 * Fm, *source = ints + 9 * Fm, *cp_fp = ints + 10 * Fm;
    int64_t *fp_of_contact = ints + 11 * Fm, *info = ints + 11 * Fm + C;
    double *fp_normal = floats, *p = floats + 3 * Fm, *body_normal = floats + 6 * Fm;
    double *other_normal = floats + 9 * Fm, *body_anchor = floats + 12 * Fm, *other_anchor = floats + 18 * Fm;
    double *anchor_arm = floats + 24 * Fm, *anchor_error = floats + 30 * Fm;
    double *out_point = floats + 36 * Fm, *out_separation = floats + 36 * Fm + 3 * C;
    int status = 0;
    /* contact patches: runs of `patch` */
    int64_t *cp_first = malloc(sizeof(int64_t) * (size_t)(C + 1));
    int64_t *match = malloc(sizeof(int64_t) * (size_t)(C + 1));
    int64_t *kept = malloc(sizeof(int64_t) * (size_t)(P + 1));  /* the kept patches: their index in previous */
    int64_t *kept_row = malloc(sizeof(int64_t) * (size_t)(P + 1));
    int64_t *used_fp = malloc(sizeof(int64_t) * (size_t)(P + 1));  /* per kept patch: its patch before sorting */
    double *kept_normal = malloc(sizeof(double) * 3 * (size_t)(P + 1));
    Sortable *sorted = malloc(sizeof(Sortable) * (size_t)(P + C + 1));
    int64_t *bucket = malloc(sizeof(int64_t) * (size_t)(2 * C + 2));
    if (!cp_first || !match || !kept || !kept_row || !used_fp || !kept_normal || !sorted || !bucket) {
        status = -1;
        goto done;
    }
    int64_t n_cp = 0;
    for (int64_t c = 0; c < C; ++c)
        if (c == 0 || patch[c] != patch[c - 1])
            cp_first[n_cp++] = c;
    cp_first[n_cp] = C;
    /* getFrictionPatches: the last step's patches that may be kept */
    int64_t K_kept = 0;
    for (int64_t k = 0; k < P; ++k) {
        const double *R = rotation + 9 * pv[k], *pos = position + 3 * pv[k];
        double turned[3];
        rotate(R, pbody_normal + 3 * k, turned);
        int keep = !pbroken[k] && panchor_count[k] > 0;
        keep = keep && dot3(turned, pother_normal + 3 * k) > SAME_NORMAL;
        const double limit = CORRELATION_DISTANCE * length_scale[pv[k]];
        for (int64_t a = 0; a < 2 && keep; ++a) {
            const double *oa = pother_anchor + 6 * k + 3 * a, *ba = pbody_anchor + 6 * k + 3 * a;
            const double rel[3] = {oa[0] - pos[0], oa[1] - pos[1], oa[2] - pos[2]};
            double in_body[3];
            unrotate(R, rel, in_body);
            const double gap[3] = {ba[0] - in_body[0], ba[1] - in_body[1], ba[2] - in_body[2]};
            const double along = fabs(dot3(gap, pbody_normal + 3 * k));
            keep = (along < limit) || (a >= panchor_count[k]);
        }
        if (keep) {
            kept[K_kept] = k;
            kept_row[K_kept] = first[pv[k]] + pshape[k];
            memcpy(kept_normal + 3 * K_kept, turned, sizeof turned);
            ++K_kept;
        }
    }
    /* correlatePatches: a contact patch joins the first kept patch of its pair (in their order) whose normal agrees */
    for (int64_t k = 0; k < K_kept; ++k) {
        sorted[k].key[0] = kept_row[k] * G + pstatic[kept[k]];
        sorted[k].key[1] = k, sorted[k].key[2] = sorted[k].key[3] = 0;
        sorted[k].index = k;
    }
    qsort(sorted, (size_t)K_kept, sizeof(Sortable), by_keys);
    for (int64_t q = 0; q < n_cp; ++q) {
        const int64_t c = cp_first[q], key = shape[c] * G + cstatic[c];
        int64_t lo = 0, hi = K_kept;
        while (lo < hi) {
            const int64_t mid = (lo + hi) / 2;
            if (sorted[mid].key[0] < key) lo = mid + 1; else hi = mid;
        }
        match[q] = -1;
        for (int64_t s = lo; s < K_kept && sorted[s].key[0] == key; ++s)
            if (dot3(normal + 3 * c, kept_normal + 3 * sorted[s].index) >= SAME_NORMAL) {
                match[q] = sorted[s].index;
                break;
            }
    }
    /* the patches: the kept ones with contacts (in their order), then the contact patches that match none */
    for (int64_t k = 0; k < K_kept; ++k)
        used_fp[k] = -1;
    for (int64_t q = 0; q < n_cp; ++q)
        if (match[q] >= 0)
            used_fp[match[q]] = 0;
    int64_t F = 0;
    for (int64_t k = 0; k < K_kept; ++k)
        if (used_fp[k] >= 0) {
            used_fp[k] = F;
            sorted[F].key[0] = kept_row[k], sorted[F].key[1] = pstatic[kept[k]];
            sorted[F].key[2] = 0, sorted[F].key[3] = k, sorted[F].index = F;
            source[F++] = k;
        }
    const int64_t n_used = F;
    for (int64_t q = 0; q < n_cp; ++q)
        if (match[q] < 0) {
            const int64_t c = cp_first[q];
            sorted[F].key[0] = shape[c], sorted[F].key[1] = cstatic[c];
            sorted[F].key[2] = 1, sorted[F].key[3] = q, sorted[F].index = F;
            source[F++] = -1;
        }
    /* the solver's order: by shape row and other shape, a pair's kept patches (in their order) before its new ones */
    qsort(sorted, (size_t)F, sizeof(Sortable), by_keys);
    int64_t *rank = bucket;  /* (F,) each patch's place in that order */
    for (int64_t f = 0; f < F; ++f)
        rank[sorted[f].index] = f;
    for (int64_t q = 0, fresh = n_used; q < n_cp; ++q)
        cp_fp[q] = rank[match[q] >= 0 ? used_fp[match[q]] : fresh++];
    for (int64_t f = 0; f < F; ++f) {
        fp_row[f] = sorted[f].key[0], fp_static[f] = sorted[f].key[1];
        source[f] = sorted[f].key[2] == 0 ? sorted[f].key[3] : -1;  /* the kept patch it continues, else -1 */
    }
    /* a patch's normal rows: its contact patches, the last taken first, each in order (counting sort by patch) */
    int64_t *start = bucket, *fill = bucket + F + 1;  /* (rank no longer needed) */
    memset(start, 0, sizeof(int64_t) * (size_t)(F + 1));
    for (int64_t q = 0; q < n_cp; ++q)
        start[cp_fp[q] + 1] += cp_first[q + 1] - cp_first[q];
    for (int64_t f = 0; f < F; ++f)
        start[f + 1] += start[f];
    for (int64_t f = 0; f < F; ++f)
        fill[f] = start[f], fp_first[f] = start[f], fp_count[f] = start[f + 1] - start[f];
    for (int64_t q = n_cp - 1; q >= 0; --q) {
        const int64_t f = cp_fp[q];
        if (fill[f] == start[f])  /* the patch's normal: the first contact of the last contact patch taken */
            memcpy(fp_normal + 3 * f, normal + 3 * cp_first[q], 3 * sizeof(double));
        for (int64_t c = cp_first[q]; c < cp_first[q + 1]; ++c, ++fill[f]) {
            const int64_t at = fill[f];
            fp_of_contact[at] = f;
            memcpy(out_point + 3 * at, point + 3 * c, 3 * sizeof(double));
            out_separation[at] = separation[c];
        }
    }
    int64_t Pm = 0, Kmax = 0;
    for (int64_t f = 0; f < F; ++f) {
        const int64_t v = vehicle[fp_row[f]];
        const double *R = rotation + 9 * v, *pos = position + 3 * v;
        fp_vehicle[f] = v, rec_shape[f] = fp_row[f] - first[v];
        memcpy(p + 3 * f, pos, 3 * sizeof(double));
        double *ba = body_anchor + 6 * f, *oa = other_anchor + 6 * f;
        int64_t count = 0;
        const int64_t k = source[f];
        if (k >= 0) {  /* a kept patch: its anchors and normals */
            const int64_t prev = kept[k];
            count = panchor_count[prev];
            memcpy(ba, pbody_anchor + 6 * prev, 6 * sizeof(double));
            memcpy(oa, pother_anchor + 6 * prev, 6 * sizeof(double));
            memcpy(body_normal + 3 * f, pbody_normal + 3 * prev, 3 * sizeof(double));
            memcpy(other_normal + 3 * f, pother_normal + 3 * prev, 3 * sizeof(double));
            if (count == 2) {  /* its anchors crowd a corner: nearer each other than half its contacts' extent */
                double lo[3], hi[3];
                const double *x = out_point + 3 * fp_first[f];
                memcpy(lo, x, sizeof lo), memcpy(hi, x, sizeof hi);
                for (int64_t c = fp_first[f] + 1; c < fp_first[f] + fp_count[f]; ++c)
                    for (int j = 0; j < 3; ++j)
                        lo[j] = np_min(lo[j], out_point[3 * c + j]), hi[j] = np_max(hi[j], out_point[3 * c + j]);
                const double diagonal_sq = squared_distance(hi, lo), apart_sq = squared_distance(ba, ba + 3);
                if (apart_sq * 4.0 < diagonal_sq)
                    count = 0;
            }
        } else {
            memset(ba, 0, 6 * sizeof(double)), memset(oa, 0, 6 * sizeof(double));
            unrotate(R, fp_normal + 3 * f, body_normal + 3 * f);
            memcpy(other_normal + 3 * f, fp_normal + 3 * f, 3 * sizeof(double));
        }
        if (count < 2) {  /* growPatches */
            const double threshold = offset_threshold[v] + rest[fp_row[f] * rest_row + fp_static[f] * rest_column];
            double w0[3] = {0.0, 0.0, 0.0}, w1[3] = {0.0, 0.0, 0.0}, far = 0.0;
            if (count == 1) {
                rotate(R, ba, w0);
                for (int j = 0; j < 3; ++j)
                    w0[j] += pos[j];
            }
            int64_t made = count;
            for (int64_t c = fp_first[f]; c < fp_first[f] + fp_count[f]; ++c) {
                if (!(out_separation[c] < threshold))
                    continue;
                const double *x = out_point + 3 * c;
                const double d0 = squared_distance(x, w0), d1 = squared_distance(x, w1);
                if (made == 0) {
                    memcpy(w0, x, sizeof w0);
                    made = 1;
                } else if (made == 1) {
                    if (d0 > EMPTY_ANCHOR_SQ) {
                        memcpy(w1, x, sizeof w1);
                        made = 2;
                    }
                    far = d0;
                } else if (d0 > d1) {
                    if (d0 > far)
                        memcpy(w1, x, sizeof w1), far = d0;
                } else if (d1 > far) {
                    memcpy(w0, x, sizeof w0), far = d1;
                }
            }
            for (int64_t m = count; m < 2 && m < made; ++m) {  /* only the anchors added: a kept one stays */
                const double *g = m == 0 ? w0 : w1;
                const double rel[3] = {g[0] - pos[0], g[1] - pos[1], g[2] - pos[2]};
                unrotate(R, rel, ba + 3 * m);
                memcpy(oa + 3 * m, g, 3 * sizeof(double));
            }
            count = made;
        }
        anchor_count[f] = count;
        for (int64_t m = 0; m < 2; ++m) {
            double arm[3];
            rotate(R, ba + 3 * m, arm);
            for (int j = 0; j < 3; ++j) {
                const double error = arm[j] + pos[j] - oa[3 * m + j];
                anchor_arm[6 * f + 3 * m + j] = m < count ? arm[j] : 0.0;
                anchor_error[6 * f + 3 * m + j] = m < count ? error : 0.0;
            }
        }
        /* patch_rows: a vehicle's patches are consecutive, slots 0, 1, .. */
        fp_r[f] = where[v];
        slot[f] = (f > 0 && fp_r[f] == fp_r[f - 1]) ? slot[f - 1] + 1 : 0;
        if (slot[f] + 1 > Pm) Pm = slot[f] + 1;
        if (fp_count[f] > Kmax) Kmax = fp_count[f];
    }
    info[0] = F, info[1] = Pm, info[2] = Kmax;
done:
    free(cp_first), free(match), free(kept), free(kept_row), free(used_fp), free(kept_normal), free(sorted);
    free(bucket);
    return status;
}

/* The patches `pvu_friction_patches` made (its ints and floats) written into the zeroed rows of Vr vehicles, Pm
   slots, K points: point_active (Vr, Pm, K) bytes, arm (3, Vr, Pm, K), separation (Vr, Pm, K), normal (3, Vr, Pm),
   the pair's parameters (n_params of (Vr, Pm), each from an (N, G) table, its element strides in table_strides), anchor_active (Vr, Pm, 2) bytes, anchor_arm,
   anchor_error (3, Vr, Pm, 2). A vehicle row of -1 is numpy's: the last. */
int pvu_patch_rows(int64_t C, int64_t Vr, int64_t Pm, int64_t K, int64_t n_params, const int64_t *ints,
                   const double *floats, const double *const *tables, const int64_t *table_strides,
                   uint8_t *point_active, double *arm, double *separation, double *normal, double *const *params,
                   uint8_t *anchor_active, double *anchor_arm, double *anchor_error) {
    const int64_t Fm = C, F = ints[11 * Fm + C];
    const int64_t *fp_row = ints, *fp_static = ints + Fm, *fp_first = ints + 2 * Fm, *fp_count = ints + 3 * Fm;
    const int64_t *anchor_count = ints + 6 * Fm, *fp_r = ints + 7 * Fm, *slot = ints + 8 * Fm;
    const double *fp_normal = floats, *p = floats + 3 * Fm, *fp_anchor_arm = floats + 24 * Fm;
    const double *fp_anchor_error = floats + 30 * Fm, *point = floats + 36 * Fm, *sep = floats + 36 * Fm + 3 * C;
    const int64_t S = Vr * Pm;  /* (Vr, Pm) entries */
    for (int64_t f = 0; f < F; ++f) {
        const int64_t v = fp_r[f] < 0 ? fp_r[f] + Vr : fp_r[f], at = v * Pm + slot[f];
        for (int64_t c = fp_first[f], j = 0; j < fp_count[f]; ++c, ++j) {
            const int64_t e = at * K + j;
            point_active[e] = 1;
            for (int i = 0; i < 3; ++i)
                arm[i * S * K + e] = point[3 * c + i] - p[3 * f + i];
            separation[e] = sep[c];
        }
        for (int i = 0; i < 3; ++i)
            normal[i * S + at] = fp_normal[3 * f + i];
        for (int64_t k = 0; k < n_params; ++k)
            params[k][at] = tables[k][fp_row[f] * table_strides[2 * k] + fp_static[f] * table_strides[2 * k + 1]];
        for (int64_t m = 0; m < anchor_count[f] && m < 2; ++m) {
            anchor_active[at * 2 + m] = 1;
            for (int i = 0; i < 3; ++i) {
                anchor_arm[i * S * 2 + at * 2 + m] = fp_anchor_arm[6 * f + 3 * m + i];
                anchor_error[i * S * 2 + at * 2 + m] = fp_anchor_error[6 * f + 3 * m + i];
            }
        }
    }
    return 0;
}

/* ---- reduction.py reduce_contacts: a pair's points reduced to PhysX's manifold, patch by patch ---- */

static void cross3(const double *a, const double *b, double *out) {
    out[0] = a[1] * b[2] - a[2] * b[1];
    out[1] = a[2] * b[0] - a[0] * b[2];
    out[2] = a[0] * b[1] - a[1] * b[0];
}

/* np.linalg.norm of a 3-vector: the squares added left to right from the first, the square root */
static double norm3(const double *a) { return sqrt((a[0] * a[0] + a[1] * a[1]) + a[2] * a[2]); }

/* reduction.py _four on one patch of n > whole points (at `at`: indices into point, separation): marks the deepest,
   the one farthest from it, the one making the largest triangle with them and the one farthest outside that
   triangle (the first of equals each time): sets mark[i] (0..n) for those four */
static void four_of(int64_t n, const int64_t *at, const double *point, const double *separation, uint8_t *mark) {
    int64_t c0 = 0, c1 = 0, c2 = 0, c3 = 0;
    for (int64_t i = 1; i < n; ++i)
        if (-separation[at[i]] > -separation[at[c0]]) c0 = i;
    const double *p0 = point + 3 * at[c0];
    double best = -INFINITY;
    for (int64_t i = 0; i < n; ++i) {
        const double *x = point + 3 * at[i];
        const double d[3] = {x[0] - p0[0], x[1] - p0[1], x[2] - p0[2]};
        const double value = (d[0] * d[0] + d[1] * d[1]) + d[2] * d[2];
        if (i == 0 || value > best) best = value, c1 = i;
    }
    const double *p1 = point + 3 * at[c1];
    for (int64_t i = 0; i < n; ++i) {
        const double *x = point + 3 * at[i];
        const double u[3] = {x[0] - p0[0], x[1] - p0[1], x[2] - p0[2]}, w[3] = {x[0] - p1[0], x[1] - p1[1], x[2] - p1[2]};
        double area[3];
        cross3(u, w, area);
        const double value = norm3(area);
        if (i == 0 || value > best) best = value, c2 = i;
    }
    const double *a = p0, *b = p1, *c = point + 3 * at[c2];
    const double ba[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]}, ca[3] = {c[0] - a[0], c[1] - a[1], c[2] - a[2]};
    double normal[3], outward[3][3];
    cross3(ba, ca, normal);
    const double *edge[3][2] = {{a, b}, {b, c}, {c, a}};
    for (int e = 0; e < 3; ++e) {
        const double *e0 = edge[e][0], *e1 = edge[e][1];
        const double along[3] = {e1[0] - e0[0], e1[1] - e0[1], e1[2] - e0[2]};
        cross3(along, normal, outward[e]);
        const double length = np_max(norm3(outward[e]), 1e-30);
        for (int j = 0; j < 3; ++j)
            outward[e][j] /= length;
    }
    for (int64_t i = 0; i < n; ++i) {
        double outside = 0.0;
        if (i == c0 || i == c1 || i == c2) {
            outside = -INFINITY;
        } else {
            const double *x = point + 3 * at[i];
            for (int e = 0; e < 3; ++e) {
                const double *e0 = edge[e][0];
                const double d[3] = {x[0] - e0[0], x[1] - e0[1], x[2] - e0[2]};
                outside = np_max(outside, dot3(d, outward[e]));
            }
        }
        if (i == 0 || outside > best) best = outside, c3 = i;
    }
    mark[c0] = mark[c1] = mark[c2] = mark[c3] = 1;
}

/* reduction.py reduce_contacts on C contacts (shape, static (C,), point, normal (C, 3), separation (C,), whole (C,):
   how many points each contact's patch keeps whole): writes the kept contacts' indices (into the input, in output
   order) to `index` and their patches (numbered from 0) to `patch`; returns how many, or -1 where memory ran out. */
int64_t pvu_reduce_contacts(int64_t C, const int64_t *shape, const int64_t *cstatic, const double *point,
                            const double *normal, const double *separation, const int64_t *whole, int64_t *index,
                            int64_t *patch) {
    int64_t n_out = -1;
    Sortable *sorted = malloc(sizeof(Sortable) * (size_t)(C + 1));
    int64_t *order = malloc(sizeof(int64_t) * (size_t)(C + 1)), *leader = malloc(sizeof(int64_t) * (size_t)(C + 1));
    int64_t *kept = malloc(sizeof(int64_t) * (size_t)(C + 1)), *kept_patch = malloc(sizeof(int64_t) * (size_t)(C + 1));
    double *key = malloc(sizeof(double) * 3 * (size_t)(C + 1));
    uint8_t *keep = calloc((size_t)(C + 1), 1);
    if (!sorted || !order || !leader || !kept || !kept_patch || !key || !keep)
        goto done;
    /* in pair order (a stable sort by shape, static) */
    for (int64_t c = 0; c < C; ++c) {
        sorted[c].key[0] = shape[c], sorted[c].key[1] = cstatic[c], sorted[c].key[2] = c, sorted[c].key[3] = 0;
        sorted[c].index = c;
    }
    qsort(sorted, (size_t)C, sizeof(Sortable), by_keys);
    for (int64_t c = 0; c < C; ++c)
        order[c] = sorted[c].index;
    /* patches: the first contact of a pair not yet in one takes every such contact whose normal agrees with its own */
    for (int64_t a = 0, b; a < C; a = b) {
        for (b = a + 1; b < C && shape[order[b]] == shape[order[a]] && cstatic[order[b]] == cstatic[order[a]]; ++b) {}
        for (int64_t c = a; c < b; ++c)
            leader[c] = -1;
        for (int64_t f = a; f < b; ++f) {
            if (leader[f] >= 0)
                continue;
            const double *n = normal + 3 * order[f];
            for (int64_t c = f; c < b; ++c)
                if (leader[c] < 0 && dot3(normal + 3 * order[c], n) >= SAME_NORMAL)
                    leader[c] = f;
            leader[f] = f;  /* (a normal that disagrees with itself, a NaN: numpy's loop would not end) */
        }
    }
    /* patch by patch (by leader), generation order within one */
    for (int64_t c = 0; c < C; ++c) {
        sorted[c].key[0] = leader[c], sorted[c].key[1] = c, sorted[c].key[2] = sorted[c].key[3] = 0;
        sorted[c].index = order[c];
    }
    qsort(sorted, (size_t)C, sizeof(Sortable), by_keys);
    /* a point made twice in a patch counts once: keys on a grid of 1e-7 of the largest coordinate (at least 1) */
    double largest = 0.0;
    for (int64_t k = 0; k < 3 * C; ++k)
        largest = np_max(largest, fabs(point[k]));
    const double grid = 1e-7 * (largest > 1.0 ? largest : 1.0);
    int64_t n = 0;
    for (int64_t c = 0, patch_no = -1; c < C; ++c) {
        const int64_t i = sorted[c].index;
        if (c == 0 || sorted[c].key[0] != sorted[c - 1].key[0])
            ++patch_no;
        double *k = key + 3 * n;
        for (int j = 0; j < 3; ++j)
            k[j] = nearbyint(point[3 * i + j] / grid);
        int repeated = 0;
        for (int64_t e = n - 1; e >= 0 && kept_patch[e] == patch_no && !repeated; --e)
            repeated = key[3 * e] == k[0] && key[3 * e + 1] == k[1] && key[3 * e + 2] == k[2];
        if (!repeated)
            kept[n] = i, kept_patch[n++] = patch_no;
    }
    /* at most `whole` points per patch kept whole; of a larger one, four (`order` and `leader` no longer needed) */
    uint8_t *mark = (uint8_t *)leader;
    for (int64_t a = 0, b; a < n; a = b) {
        for (b = a + 1; b < n && kept_patch[b] == kept_patch[a]; ++b) {}
        if (b - a <= whole[kept[a]]) {
            memset(keep + a, 1, (size_t)(b - a));
        } else {
            memset(mark, 0, (size_t)(b - a));
            four_of(b - a, kept + a, point, separation, mark);
            memcpy(keep + a, mark, (size_t)(b - a));
        }
    }
    n_out = 0;
    for (int64_t c = 0, last = -1; c < n; ++c)
        if (keep[c]) {
            patch[n_out] = n_out == 0 ? 0 : patch[n_out - 1] + (kept_patch[c] != last);
            last = kept_patch[c];
            index[n_out++] = kept[c];
        }
done:
    free(sorted), free(order), free(leader), free(kept), free(kept_patch), free(key), free(keep);
    return n_out;
}

/* ---- telemetry.py telemetry: one solve group's points into the vehicles' slots ---- */

/* The solved points of one group of Vr vehicles (`vehicles`, their index in the batch of V), E = Pm K entries each
   (active (Vr, E) bytes, arm (3, Vr, E), normal (3, Vr, Pm), impulse (Vr, E)) written after the points already
   reported (count (V,)) into the S slots of points, normals (V, S, 3) and impulses (V, S): in the solver's order,
   each point the vehicle's begin position (3, V) plus its arm, its patch's normal. */
int pvu_contact_telemetry(int64_t Vr, int64_t E, int64_t K, int64_t S, int64_t V, const int64_t *vehicles,
                          const uint8_t *active, const double *arm, const double *normal, const double *impulse,
                          const double *begin, int64_t *count, double *points, double *normals, double *impulses) {
    const int64_t Pm = K ? E / K : 0;
    for (int64_t r = 0; r < Vr; ++r) {
        const int64_t v = vehicles[r], before = count[v];
        int64_t seen = 0;
        for (int64_t e = 0; e < E; ++e) {
            if (!active[r * E + e])
                continue;
            const int64_t slot = before + seen++;
            if (slot >= S)
                continue;
            for (int i = 0; i < 3; ++i) {
                points[(v * S + slot) * 3 + i] = begin[i * V + v] + arm[(i * Vr + r) * E + e];
                normals[(v * S + slot) * 3 + i] = normal[(i * Vr + r) * Pm + e / K];
            }
            impulses[v * S + slot] = impulse[r * E + e];
        }
        count[v] = before + seen;
    }
    return 0;
}

/* ---- persistence.py Persistence: the kept manifolds' points re-measured (refreshContactPoints) and the pairs
   that keep them (invalidate_*), for pairs against planes, meshes and static polytopes ---- */

/* row i of a row's body rotation (3, 3, N) times v: einsum's "qij,qj->qi" (and "ijn,nj->ni") of the rotations taken
   by row, which numpy sums as over a contiguous axis (dot3) */
static double rotation_row_dot(const double *rotation, int64_t N, int64_t r, int i, const double *v) {
    const double row_i[3] = {rotation[(3 * i) * N + r], rotation[(3 * i + 1) * N + r], rotation[(3 * i + 2) * N + r]};
    return dot3(row_i, v);
}

/* K candidate pairs that keep manifolds (key, row, static, kind (persistence.py PLANE, MESH, POLYTOPE), found: the
   last step recorded it, at `at` of its M pairs (origin (M, 3))), Q points it kept (pair: each one's candidate pair,
   their body_point, world_point, normal (Q, 3)). The model: vehicle (N,), box (N,) bytes, inner (N,) (the PCM inner
   extents), radius (N,), origin (N, 3) (NULL: at 0), static_box and static_inner of the static polytopes (from
   polytope_first), contact_distance (N, G; element strides cd_row, cd_column); length (V,) the length scales,
   rotation (3, 3, N) each row's body rotation, position (3, V) the bodies' (float64); per pair static_radius, turn (the
   quaternion dot) and travel (numpy's arccos of it times the shape's reach, or 0). Writes keep_pair (K,), keep_point
   (Q,) and the reported kept contacts (row, static, point, normal, separation; count returned). */
int64_t pvu_refresh_manifolds(int64_t K, int64_t Q, int64_t N, int64_t V, int64_t cd_row, int64_t cd_column,
                              int64_t polytope_first,
                              const int64_t *row, const int64_t *cstatic, const int64_t *kind, const uint8_t *found,
                              const int64_t *at, const double *prev_origin, const int64_t *pair,
                              const double *body_point, const double *world_point, const double *pnormal,
                              const int64_t *vehicle, const uint8_t *box, const double *inner, const double *radius,
                              const double *origin, const uint8_t *static_box, const double *static_inner,
                              const double *contact_distance, const double *length, const double *rotation,
                              const double *position, const double *static_radius, const double *turn,
                              const double *travel, uint8_t *keep_pair, uint8_t *keep_point, int64_t *out_row,
                              int64_t *out_static, double *out_point, double *out_normal, double *out_separation) {
    static const double polytope_moved[5] = {0.5, 0.125, 0.25, 0.375, 0.375};
    static const double polytope_turned[5] = {0.9998, 0.9999, 0.9999, 0.9999, 0.9999};
    double *margin = malloc(sizeof(double) * (size_t)(K + 1)), *drift_limit = malloc(sizeof(double) * (size_t)(K + 1));
    int64_t *held = calloc((size_t)(K + 1), sizeof(int64_t));
    uint8_t *lost = calloc((size_t)(K + 1), 1), *dropped = calloc((size_t)(Q + 1), 1);
    double *refreshed = malloc(sizeof(double) * 7 * (size_t)(Q + 1));  /* per point: on_body, normal, separation */
    int64_t n = -1;
    if (!margin || !drift_limit || !held || !lost || !dropped || !refreshed)
        goto done;
    (void)V;
    /* _rules: the margins (PCM's, the lesser of the two shapes' against a static polytope), the drift limits */
    for (int64_t k = 0; k < K; ++k) {
        const int64_t r = row[k];
        const double len = length[vehicle[r]];
        const double ratio = box[r] ? 0.15 : 0.25, tolerance = kind[k] == 1 ? 0.05 : (box[r] ? 0.15 : 0.05);
        double m = np_min(ratio * inner[r], tolerance * len);
        if (kind[k] == 2) {
            const int64_t h = cstatic[k] - polytope_first;
            const double static_ratio = static_box[h] ? 0.15 : 0.25, static_tolerance = static_box[h] ? 0.15 : 0.05;
            m = np_min(m, np_min(static_ratio * static_inner[h], static_tolerance * len));
        }
        margin[k] = m;
        drift_limit[k] = (kind[k] == 0 ? 0.2 : 0.8) * m;
    }
    /* refreshContactPoints: the kept points' separations from the current poses, the drifted ones dropped */
    for (int64_t q = 0; q < Q; ++q) {
        const int64_t k = pair[q], r = row[k], v = vehicle[r];
        double *on_body = refreshed + 7 * q, *normal = on_body + 3;
        for (int i = 0; i < 3; ++i)
            on_body[i] = rotation_row_dot(rotation, N, r, i, body_point + 3 * q) + position[i * V + v];
        static const double eye[3][3] = {{1.0, 0.0, 0.0}, {0.0, 1.0, 0.0}, {0.0, 0.0, 1.0}};
        for (int i = 0; i < 3; ++i)
            normal[i] = dot3(eye[i], pnormal + 3 * q);
        const double *wp = world_point + 3 * q;
        const double gap[3] = {on_body[0] - wp[0], on_body[1] - wp[1], on_body[2] - wp[2]};
        const double core = dot3(gap, normal);
        double drift[3];
        for (int i = 0; i < 3; ++i)
            drift[i] = (on_body[i] - core * normal[i]) - wp[i];
        on_body[6] = (core - radius[r]) - static_radius[k];
        const double limit = drift_limit[k];
        dropped[q] = !(((drift[0] * drift[0] + drift[1] * drift[1]) + drift[2] * drift[2]) <= limit * limit);
        if (dropped[q]) lost[k] = 1; else ++held[k];
    }
    /* invalidate_*: moved or turned too far since the points were made (against a polytope, by how many are left) */
    for (int64_t k = 0; k < K; ++k) {
        const int64_t r = row[k], v = vehicle[r];
        const int64_t h = held[k] < 4 ? held[k] : 4;
        const int polytope = kind[k] == 2;
        const double moved_limit = polytope ? polytope_moved[h] * margin[k] : 0.2 * margin[k];
        const double turned_limit = polytope ? polytope_turned[h] : (kind[k] == 0 ? 0.99996 : 0.9998);
        double moved = -INFINITY;
        for (int i = 0; i < 3; ++i) {
            static const double at_zero[3] = {0.0, 0.0, 0.0};
            const double o = rotation_row_dot(rotation, N, r, i, origin ? origin + 3 * r : at_zero);
            const double now = o + position[i * V + v];
            moved = i == 0 ? fabs(now - prev_origin[3 * at[k] + i]) : np_max(moved, fabs(now - prev_origin[3 * at[k] + i]));
        }
        const int invalid = !((moved <= moved_limit) && (turn[k] >= turned_limit) && (travel[k] <= moved_limit));
        keep_pair[k] = found[k] && !invalid && !(lost[k] && kind[k] != 1);
    }
    n = 0;
    for (int64_t q = 0; q < Q; ++q) {
        const int64_t k = pair[q], r = row[k];
        keep_point[q] = keep_pair[k] && !dropped[q];
        if (!keep_point[q])
            continue;
        const double *on_body = refreshed + 7 * q, *normal = on_body + 3, separation = on_body[6];
        /* reported: against a mesh every kept point, else those within the contact distance */
        if (kind[k] != 1 && !(separation <= contact_distance[r * cd_row + cstatic[k] * cd_column]))
            continue;
        out_row[n] = r, out_static[n] = cstatic[k];
        for (int i = 0; i < 3; ++i) {
            out_point[3 * n + i] = radius[r] > 0.0 ? on_body[i] - radius[r] * normal[i]
                                                   : world_point[3 * q + i] + static_radius[k] * normal[i];
            out_normal[3 * n + i] = normal[i];
        }
        out_separation[n++] = separation;
    }
done:
    free(margin), free(drift_limit), free(held), free(lost), free(dropped), free(refreshed);
    return n;
}
