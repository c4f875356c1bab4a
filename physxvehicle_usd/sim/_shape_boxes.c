/* Where the contact model's shapes stand at a step's body poses (sim/contact/placement.py `shape_boxes` and
   `turned_half`, and the broad phases' boxes of sim/contact/broad.py), compiled: each shape's body rotation, the
   centre of its box in the world, its rounding slack and its world box grown by a distance, shape by shape, in the
   numpy code's arithmetic and order (float64; the poses float32 or float64, converted exactly; built with
   -ffp-contract=off: no fused multiply-add).

   The rotation is vecmath.quat_to_mat's: 2x, 2y, 2z as v + v, the products p_ab = v_a (2 v_b) and 2 w v, then
   m_ii = 1 - (p_jj + p_kk), m_ij = p_ij - 2 w v_k, m_ji = p_ij + 2 w v_k for (i, j, k) = (0, 1, 2), (1, 2, 0),
   (2, 0, 1). */
#include <math.h>
#include <stddef.h>
#include <stdint.h>

static inline double pose_value(const void *a, int single, int64_t at) {
    return single ? (double)((const float *)a)[at] : ((const double *)a)[at];
}

/* rows (n,) (NULL: every shape, n = N): the shapes placed; vehicle (N,): each shape's body among the V poses
   position (3, V), orientation (4, V) (float32 where *_single); body_centre, body_half (3, N): the shapes' boxes in
   their bodies. Out, per placed shape k: R (3, 3, n), centre (3, n), slack (n,) and, where grow is given ((N,) the
   distance each shape's box grows by, to which the slack adds), lo, hi (n, 3) the world box. Returns -1 (nothing
   written that matters) where a shape's vehicle or row is out of range: numpy's indexing would say so. */
int pvu_shape_boxes(int64_t V, int64_t N, int64_t n, const int64_t *rows, const int64_t *vehicle,
                    const void *position, int position_single, const void *orientation, int orientation_single,
                    const double *body_centre, const double *body_half, const double *grow, double *R,
                    double *centre, double *slack, double *lo, double *hi) {
    for (int64_t k = 0; k < n; ++k) {
        int64_t s = rows ? rows[k] : k;
        if (s < 0 || s >= N) return -1;
        int64_t v = vehicle[s];
        if (v < 0 || v >= V) return -1;
        double w = pose_value(orientation, orientation_single, v);
        double x = pose_value(orientation, orientation_single, V + v);
        double y = pose_value(orientation, orientation_single, 2 * V + v);
        double z = pose_value(orientation, orientation_single, 3 * V + v);
        double x2 = x + x, y2 = y + y, z2 = z + z;
        double p00 = x * x2, p11 = y * y2, p22 = z * z2, p01 = x * y2, p12 = y * z2, p20 = z * x2;
        double wx = w * x2, wy = w * y2, wz = w * z2;
        double m[3][3] = {{1.0 - (p11 + p22), p01 - wz, p20 + wy},
                          {p01 + wz, 1.0 - (p22 + p00), p12 - wx},
                          {p20 - wy, p12 + wx, 1.0 - (p00 + p11)}};
        for (int i = 0; i < 3; ++i)
            for (int j = 0; j < 3; ++j) R[(i * 3 + j) * n + k] = m[i][j];
        const double c0 = body_centre[s], c1 = body_centre[N + s], c2 = body_centre[2 * N + s];
        const double h0 = body_half[s], h1 = body_half[N + s], h2 = body_half[2 * N + s];
        double world[3];
        for (int i = 0; i < 3; ++i) {
            world[i] = m[i][0] * c0 + m[i][1] * c1 + m[i][2] * c2 + pose_value(position, position_single, i * V + v);
            centre[i * n + k] = world[i];
        }
        double sl = 1e-6 * (1.0 + fabs(world[0]) + fabs(world[1]) + fabs(world[2]) + h0 + h1 + h2);
        slack[k] = sl;
        if (!grow) continue;
        double g = grow[s] + sl;
        for (int i = 0; i < 3; ++i) {
            double half = fabs(m[i][0]) * h0 + fabs(m[i][1]) * h1 + fabs(m[i][2]) * h2 + g;
            lo[k * 3 + i] = world[i] - half;
            hi[k * 3 + i] = world[i] + half;
        }
    }
    return 0;
}

/* pvu_shape_boxes with its arguments as 64-bit words (sim/compiled_placement.py `shape_boxes`: the model's words
   written once while its arrays are the same, a call's sizes and addresses into them): w[0 .. 4] V, N, n,
   position_single, orientation_single; w[5 .. 8] position, orientation, the outputs' block (R (3, 3, n), centre
   (3, n), slack (n,), then where grow is given lo and hi (n, 3)), rows (0: all); w[9 .. 12] vehicle, body_centre,
   body_half, grow (0: none). */
int pvu_shape_boxes_words(const int64_t *w) {
#define P(type, k) ((type)(intptr_t)w[k])
    const int64_t n = w[2];
    double *out = P(double *, 7);
    const double *grow = P(const double *, 12);
    return pvu_shape_boxes(w[0], w[1], n, P(const int64_t *, 8), P(const int64_t *, 9), P(const void *, 5),
                           (int)w[3], P(const void *, 6), (int)w[4], P(const double *, 10), P(const double *, 11), grow,
                           out, out + 9 * n, out + 12 * n, grow ? out + 13 * n : NULL, grow ? out + 16 * n : NULL);
#undef P
}
