/* The arithmetic the compiled narrow phases (_narrow_phase.c: box-box; _polytope_contacts.c: polytopes against
   mesh triangles) share with their numpy twins, in numpy's order (see _narrow_phase.c). */
#ifndef PVU_NARROW_PHASE_H
#define PVU_NARROW_PHASE_H

#include <math.h>
#include <stdint.h>
#include <string.h>

static const double FLOAT_EPS = 1.1920928955078125e-07; /* float32's epsilon: PhysX's FEps() */

/* np.minimum / np.maximum of two (NaN first, else the first of equals) */
static inline double np_min(double a, double b) { return (a <= b || isnan(a)) ? a : b; }
static inline double np_max(double a, double b) { return (a >= b || isnan(a)) ? a : b; }

/* An einsum's sum of three products over an axis the operands do not hold contiguously (numpy's scalar
   sum-of-products loop): from +0, left to right. */
static inline double sum3(double a0, double b0, double a1, double b1, double a2, double b2) {
    double s = 0.0;
    s += a0 * b0;
    s += a1 * b1;
    s += a2 * b2;
    return s;
}

/* The same over an axis both operands hold contiguously: numpy's vector loop (two doubles a register, numpy's
   baseline SIMD on x86-64 and Arm) multiplies and adds the pairs (0, 1), then (2, zero padding), and adds the two
   lanes: (p0 + p2) + p1, from +0. */
static inline double sum3_lanes(double a0, double b0, double a1, double b1, double a2, double b2) {
    double lane0 = 0.0, lane1 = 0.0;
    lane0 = a0 * b0 + lane0;
    lane1 = a1 * b1 + lane1;
    lane0 = a2 * b2 + lane0;
    lane1 = 0.0 * 0.0 + lane1;
    return (lane0 + lane1) + 0.0;
}

static inline double dot3(const double *a, const double *b) { return sum3_lanes(a[0], b[0], a[1], b[1], a[2], b[2]); }

/* numpy's a @ b of two 3-vectors (its BLAS's ddot): OpenBLAS's kernels on x86-64 with FMA add each product fused,
   left to right; without FMA the products are rounded first. Which one numpy's BLAS does is probed at load
   (compiled_narrow_phase.py) and passed in. */
static inline double blas_dot3(const double *a, const double *b, int fused) {
    if (fused)
        return fma(a[2], b[2], fma(a[1], b[1], a[0] * b[0]));
    return (a[0] * b[0] + a[1] * b[1]) + a[2] * b[2];
}

/* np.cross of two 3-vectors */
static inline void cross3(const double *a, const double *b, double *out) {
    out[0] = a[1] * b[2] - a[2] * b[1];
    out[1] = a[2] * b[0] - a[0] * b[2];
    out[2] = a[0] * b[1] - a[1] * b[0];
}

/* argmin / argmax of n values: the first of equals, the first NaN where there is one */
static inline int arg_min(const double *v, int n) {
    int at = 0;
    for (int i = 0; i < n; ++i) {
        if (isnan(v[i]))
            return i;
        if (v[i] < v[at])
            at = i;
    }
    return at;
}

static inline int arg_max(const double *v, int n) {
    int at = 0;
    for (int i = 0; i < n; ++i) {
        if (isnan(v[i]))
            return i;
        if (v[i] > v[at])
            at = i;
    }
    return at;
}

#endif
