/* What the compiled contact bookkeeping's files share (_friction_patches.c, _contact_bookkeeping.c): numpy's
   arithmetic on three-vectors in numpy's order, and a sort key.

   numpy's sums of three products (einsum) come in two orders, as found by test: where the summed label is the last
   of both operands' subscripts ("pij,pj", "qj,qj", "ijn,nj") its loop puts each product (plus +0) in a lane and adds
   the lanes (x0 + x2) + x1 (AVX2's and AVX-512's horizontal sums, the x86 machines we run on); where it is not
   ("pji,pj": a matrix's column) it adds them to +0 left to right. A squared length (a sum over the last axis) adds left
   to right from the first. A minimum or maximum carries a NaN as numpy's does. Compiled with -ffp-contract=off: no
   fused multiply-add. */
#ifndef PVU_CONTACT_BOOKKEEPING_H
#define PVU_CONTACT_BOOKKEEPING_H

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define SAME_NORMAL 0.999 /* sim/contact/geometry.py SAME_NORMAL (checked by the loader) */

/* einsum's sum over a contiguous axis of three (its SIMD dot): a . b */
static inline double dot3(const double *a, const double *b) {
    const double x0 = a[0] * b[0] + 0.0, x1 = a[1] * b[1] + 0.0, x2 = a[2] * b[2] + 0.0;
    return ((x0 + x2) + x1) + 0.0;
}

/* out = R v (einsum "pij,pj->pi": R's rows contiguous) */
static inline void rotate(const double *R, const double *v, double *out) {
    for (int i = 0; i < 3; ++i)
        out[i] = dot3(R + 3 * i, v);
}

/* out = R^T v (einsum "pji,pj->pi": R's columns strided, summed from +0 in order) */
static inline void unrotate(const double *R, const double *v, double *out) {
    for (int i = 0; i < 3; ++i)
        out[i] = ((0.0 + R[i] * v[0]) + R[3 + i] * v[1]) + R[6 + i] * v[2];
}

static inline double squared_distance(const double *a, const double *b) {
    const double x = a[0] - b[0], y = a[1] - b[1], z = a[2] - b[2];
    return x * x + y * y + z * z;
}

/* numpy's minimum and maximum: a NaN on either side is the result */
static inline double np_min(double a, double b) { return (a <= b || isnan(a)) ? a : b; }
static inline double np_max(double a, double b) { return (a >= b || isnan(a)) ? a : b; }

typedef struct {
    int64_t key[4];
    int64_t index;
} Sortable;

static inline int by_keys(const void *a, const void *b) {
    const Sortable *x = a, *y = b;
    for (int k = 0; k < 4; ++k)
        if (x->key[k] != y->key[k])
            return x->key[k] < y->key[k] ? -1 : 1;
    return 0;
}


/* sort by by_keys (a merge sort, the comparison inlined), skipping the sort where the entries are in order already
   (most steps' are); returns -1 where memory ran out */
static inline int sort_keys(Sortable *entries, int64_t n) {
    int64_t i = 1;
    while (i < n && by_keys(entries + i - 1, entries + i) <= 0)
        ++i;
    if (i >= n)
        return 0;
    Sortable *buffer = malloc(sizeof(Sortable) * (size_t)n), *from = entries, *to = buffer;
    if (!buffer)
        return -1;
    for (int64_t width = 1; width < n; width *= 2) {
        for (int64_t lo = 0; lo < n; lo += 2 * width) {
            const int64_t mid = lo + width < n ? lo + width : n, hi = lo + 2 * width < n ? lo + 2 * width : n;
            int64_t a = lo, b = mid, k = lo;
            while (a < mid && b < hi)
                to[k++] = by_keys(from + b, from + a) < 0 ? from[b++] : from[a++];
            while (a < mid)
                to[k++] = from[a++];
            while (b < hi)
                to[k++] = from[b++];
        }
        Sortable *swap = from;
        from = to, to = swap;
    }
    if (from != entries)
        memcpy(entries, from, sizeof(Sortable) * (size_t)n);
    free(buffer);
    return 0;
}

#endif
