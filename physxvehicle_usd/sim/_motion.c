/* The quiet broad phases' motion bounds (sim/motion.py `Motion.bounds`), compiled: over every body, the largest and
   the smallest change of position along each axis since a reference pose, and the smallest |q . q_ref| of its
   orientation with the reference's, in one pass instead of a dozen numpy calls over the fleet.

   numpy's arithmetic: the pose (float32 or float64) promoted to float64 (exact), the change position - reference in
   float64, the quaternions' product summed over the four components in order ((p0 + p1) + p2) + p3, as numpy
   reduces the outer axis; maxima and minima are exact. The reference is float64, or float32 where each of its values
   is one (sim/motion.py keeps a float32 copy of a reference taken from a float32 pose: promoted, the same float64
   values, from half the memory, which a step reads cold). Layout: component-first, C order: positions (3, V),
   orientations (4, V). */
#include <math.h>
#include <stdint.h>

/* The reductions of one precision of the pose (POSE: float or double) and of the reference (REF), written out for
   each so that they vectorise */
#define MOTION_REDUCTIONS(NAME, POSE, REF)                                                                             \
    static int NAME(int64_t V, const POSE *position, const REF *reference, const POSE *orientation,                    \
                    const REF *reference_orientation, double *out) {                                                   \
        int nan = 0;                                                                                                   \
        for (int k = 0; k < 3; ++k) {                                                                                  \
            const POSE *p = position + k * V;                                                                          \
            const REF *r = reference + k * V;                                                                          \
            double hi = -INFINITY, lo = INFINITY;                                                                      \
            _Pragma("omp simd reduction(max : hi) reduction(min : lo) reduction(| : nan)")                            \
            for (int64_t v = 0; v < V; ++v) {                                                                          \
                double change = (double)p[v] - (double)r[v];                                                           \
                nan |= change != change;                                                                               \
                hi = change > hi ? change : hi;                                                                        \
                lo = change < lo ? change : lo;                                                                        \
            }                                                                                                          \
            out[k] = hi;                                                                                               \
            out[3 + k] = lo;                                                                                           \
        }                                                                                                              \
        double least = INFINITY;                                                                                       \
        _Pragma("omp simd reduction(min : least) reduction(| : nan)")                                                  \
        for (int64_t v = 0; v < V; ++v) {                                                                              \
            double cosine = (double)orientation[v] * (double)reference_orientation[v];                                 \
            cosine = cosine + (double)orientation[V + v] * (double)reference_orientation[V + v];                       \
            cosine = cosine + (double)orientation[2 * V + v] * (double)reference_orientation[2 * V + v];               \
            cosine = cosine + (double)orientation[3 * V + v] * (double)reference_orientation[3 * V + v];               \
            nan |= cosine != cosine;                                                                                   \
            double magnitude = fabs(cosine);                                                                           \
            least = magnitude < least ? magnitude : least;                                                             \
        }                                                                                                              \
        out[6] = least;                                                                                                \
        return nan ? -1 : 0;                                                                                           \
    }

MOTION_REDUCTIONS(reductions_single, float, double)
MOTION_REDUCTIONS(reductions_double, double, double)
MOTION_REDUCTIONS(reductions_single_both, float, float)
MOTION_REDUCTIONS(reductions_double_single_reference, double, float)

/* out: the largest change along x, y, z, the smallest along x, y, z, the smallest |cosine| (a zero's sign may differ
   from numpy's). position_single, orientation_single: whether the pose's arrays are float32 (else float64);
   reference_single: whether the reference's two are. Returns -1 (out unspecified) where a change or a cosine is NaN
   (numpy's reductions then propagate it: the caller runs numpy), where there is no body, and where the pose's two
   arrays differ in precision. */
int pvu_motion_reductions(int64_t V, const void *position, int position_single, const void *reference,
                      const void *orientation, int orientation_single, const void *reference_orientation,
                      int reference_single, double *out) {
    if (V < 1 || position_single != orientation_single) return -1;
    if (reference_single)
        return position_single
                   ? reductions_single_both(V, position, reference, orientation, reference_orientation, out)
                   : reductions_double_single_reference(V, position, reference, orientation, reference_orientation,
                                                        out);
    return position_single ? reductions_single(V, position, reference, orientation, reference_orientation, out)
                           : reductions_double(V, position, reference, orientation, reference_orientation, out);
}
