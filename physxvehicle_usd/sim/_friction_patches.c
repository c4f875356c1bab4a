/* The friction patches against the static world, compiled (sim/contact/patches.py `patch_rows`;
   sim/compiled_patches.py calls it): a step's friction patches made from its reduced contacts and the last
   step's patches (PhysX's getFrictionPatches, correlatePatches, growPatches), then written as the solver's rows.

   The numpy form stays the reference; this is its arithmetic in its order (_contact_bookkeeping.h), patch by patch.
   Orders are the numpy form's: every key sorted on is unique, so any sort gives the stable sort's order.

   Two calls: `pvu_friction_patches` makes the patches (F, their slots and the largest slot and point count, so that
   the caller can size the rows), `pvu_patch_rows` writes them into the zeroed rows. */
#include "_contact_bookkeeping.h"

#define CORRELATION_DISTANCE 0.025 /* patches.py FRICTION_CORRELATION_DISTANCE_M */
#define EMPTY_ANCHOR_SQ 1e-8       /* patches.py _EMPTY_ANCHOR_SQ */

int64_t pvu_contact_bookkeeping_same_normal_bits(void) {
    double same = SAME_NORMAL;
    int64_t bits;
    memcpy(&bits, &same, sizeof bits);
    return bits;
}

/* The rotation (V, 3, 3) of each vehicle with a contact (zero for the others, as patches.py hands them over) from
   its orientation (4, V), vecmath.quat_to_mat's arithmetic: m_ii = 1 - (p_jj + p_kk), m_ij = p_ij - 2 w v_k,
   m_ji = p_ij + 2 w v_k, p_ab = v_a (v_b + v_b), for (i, j, k) = (0, 1, 2), (1, 2, 0), (2, 0, 1). */
static void body_rotations(int64_t C, int64_t V, const int64_t *shape, const int64_t *vehicle,
                           const double *orientation, double *rotation) {
    for (int64_t c = 0; c < C; ++c) {
        const int64_t v = vehicle[shape[c]];
        double *m = rotation + 9 * v;
        const double w = orientation[v], q[3] = {orientation[V + v], orientation[2 * V + v], orientation[3 * V + v]};
        const double q2[3] = {q[0] + q[0], q[1] + q[1], q[2] + q[2]};
        static const int turn[3][3] = {{0, 1, 2}, {1, 2, 0}, {2, 0, 1}};
        for (int t = 0; t < 3; ++t) {
            const int i = turn[t][0], j = turn[t][1], k = turn[t][2];
            const double pij = q[i] * q2[j], w2k = w * q2[k];
            m[3 * i + i] = 1.0 - (q[j] * q2[j] + q[k] * q2[k]);
            m[3 * i + j] = pij - w2k;
            m[3 * j + i] = pij + w2k;
        }
    }
}

/* The step's friction patches (patches.py friction_patches, body 1 the static world, no two plane pairs of different
   shapes to order) and each patch's vehicle row and slot (patch_rows).
   sizes: C contacts, V vehicles, N shape rows, G static shapes, P previous patches, W entries of `where`.
   Contacts: shape, static, patch (C,), point, normal (C, 3), separation (C,). Model: vehicle (N,), first (V,) each
   vehicle's first row, rest (N, G: element strides rest_row, rest_column), offset_threshold (V,). Poses:
   orientation (4, V) (w first; each vehicle with a contact turned into its rotation as vecmath.quat_to_mat does,
   `body_rotations`), position (V, 3), length_scale (V,). Previous: its nine fields
   (broken as bytes). where (W,): each vehicle's row in the solve (-1: none).
   Out, sized for F <= C patches: ints (11 C + C + 3): row, static, first, count, vehicle, shape (the record's),
   anchor_count, vehicle row, slot, then scratch (2 C), then each contact's patch (C,), then F, Pm, K. floats
   (36 C + 4 C): normal, p (F, 3), body_normal, other_normal (F, 3), body_anchor, other_anchor, anchor_arm,
   anchor_error (F, 2, 3), each in a block of C rows, then point (C, 3), separation (C,). Returns 0, or -1 where
   memory ran out. */
int pvu_friction_patches(int64_t C, int64_t V, int64_t N, int64_t G, int64_t P, int64_t W, int64_t rest_row,
                         int64_t rest_column,
                         const int64_t *shape, const int64_t *cstatic, const int64_t *patch, const double *point,
                         const double *normal, const double *separation,
                         const int64_t *vehicle, const int64_t *first, const double *rest,
                         const double *offset_threshold, const double *orientation, const double *position,
                         const double *length_scale,
                         const int64_t *pv, const int64_t *pshape, const int64_t *pstatic, const double *pbody_normal,
                         const double *pother_normal, const int64_t *panchor_count, const double *pbody_anchor,
                         const double *pother_anchor, const uint8_t *pbroken, const int64_t *where,
                         int64_t *ints, double *floats) {
    (void)N, (void)W, (void)G;
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
    double *rotation = calloc((size_t)(9 * V + 1), sizeof(double));
    if (!rotation)
        return -1;
    body_rotations(C, V, shape, vehicle, orientation, rotation);
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
    if (sort_keys(sorted, K_kept)) {
        status = -1;
        goto done;
    }
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
    if (sort_keys(sorted, F)) {
        status = -1;
        goto done;
    }
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
    free(bucket), free(rotation);
    return status;
}

/* The patches `pvu_friction_patches` made (its ints and floats) written into the zeroed rows of Vr vehicles, Pm
   slots, K points: point_active (Vr, Pm, K) bytes, arm (3, Vr, Pm, K), separation (Vr, Pm, K), normal (3, Vr, Pm),
   the pair's parameters (n_params of (Vr, Pm), each from an (N, G) table, its element strides in table_strides),
   anchor_active (Vr, Pm, 2) bytes, anchor_arm, anchor_error (3, Vr, Pm, 2). A vehicle row of -1 is numpy's: the
   last. */
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

/* pvu_friction_patches with its arguments as 64-bit words (sim/compiled_patches.py `friction_patches`: the model's
   words written once while they are the same, a step's arrays' addresses written into the words by one call): w[0 ..
   7] C, V, N, G, P, W, rest_row, rest_column; w[8 .. 11] vehicle, first, rest, offset_threshold; w[12 .. 32] shape,
   cstatic, patch, point, normal, separation, orientation, position, length_scale, the last step's nine arrays (pv ..
   pbroken; 0 where P is 0), where, ints, floats. */
int pvu_friction_patches_words(const int64_t *w) {
#define P(type, k) ((type)(intptr_t)w[k])
    return pvu_friction_patches(w[0], w[1], w[2], w[3], w[4], w[5], w[6], w[7], P(const int64_t *, 12),
                                P(const int64_t *, 13), P(const int64_t *, 14), P(const double *, 15),
                                P(const double *, 16), P(const double *, 17), P(const int64_t *, 8),
                                P(const int64_t *, 9), P(const double *, 10), P(const double *, 11),
                                P(const double *, 18), P(const double *, 19), P(const double *, 20),
                                P(const int64_t *, 21), P(const int64_t *, 22), P(const int64_t *, 23),
                                P(const double *, 24), P(const double *, 25), P(const int64_t *, 26),
                                P(const double *, 27), P(const double *, 28), P(const uint8_t *, 29),
                                P(const int64_t *, 30), P(int64_t *, 31), P(double *, 32));
#undef P
}

/* pvu_patch_rows with its arguments as 64-bit words (sim/compiled_patches.py `write_rows`): w[0 .. 6] C, Vr, Pm,
   K, n_params, tables, table_strides; w[7 .. 10] the made patches' ints and floats, the rows' floats and flags
   (`patch_row_arrays`' block: arm, separation, normal, the n_params parameters, anchor_arm, anchor_error; then
   point_active, anchor_active), each array's place in its part worked out here as patch_row_arrays works it out.
   Returns -1 (nothing written) for more than 16 parameters. */
int pvu_patch_rows_words(const int64_t *w) {
    const int64_t Vr = w[1], Pm = w[2], K = w[3], n = w[4], E = Vr * Pm;
    if (n > 16) return -1;
    double *arm = (double *)(intptr_t)w[9];
    uint8_t *flags = (uint8_t *)(intptr_t)w[10];
    double *separation = arm + 3 * E * K, *normal = arm + 4 * E * K, *params[16];
    for (int64_t k = 0; k < n; ++k) params[k] = normal + (3 + k) * E;
    double *anchor_arm = normal + (3 + n) * E;
    return pvu_patch_rows(w[0], Vr, Pm, K, n, (const int64_t *)(intptr_t)w[7], (const double *)(intptr_t)w[8],
                          (const double *const *)(intptr_t)w[5], (const int64_t *)(intptr_t)w[6], flags, arm,
                          separation, normal, params, flags + E * K, anchor_arm, anchor_arm + 6 * E);
}

/* pvu_friction_patches_words (w), then pvu_patch_rows_words of its patches (rows: its words, Vr and n_params in)
   into the zeroed block at rows[9] where they fit its rows[11] bytes: the sizes and the made patches' ints and
   floats written into rows as sim/compiled_patches.py `write_rows` writes them (the flags after the floats, laid
   out as `patch_row_arrays`). 0: both done; 1: the patches made, the rows not (rows[11] then says the bytes they
   need); else the first failure (-1: out of memory, -2: more than 16 parameters). */
int pvu_friction_patch_rows_words(const int64_t *w, int64_t *rows) {
    if (pvu_friction_patches_words(w) != 0) return -1;
    const int64_t C = w[0], *ints = (const int64_t *)(intptr_t)w[31];
    const int64_t Vr = rows[1], Pm = ints[12 * C + 1], K = ints[12 * C + 2], n = rows[4], E = Vr * Pm;
    const int64_t floats = 8 * (4 * E * K + (3 + n) * E + 12 * E), bytes = floats + E * K + 2 * E;
    if (bytes > rows[11]) {
        rows[11] = bytes;
        return 1;
    }
    char *block = (char *)(intptr_t)rows[9];
    memset(block, 0, (size_t)bytes);
    rows[0] = C, rows[2] = Pm, rows[3] = K;
    rows[7] = w[31], rows[8] = w[32], rows[10] = rows[9] + floats;
    return pvu_patch_rows_words(rows) == 0 ? 0 : -2;
}
