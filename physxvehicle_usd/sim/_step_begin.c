/* The begin of a step for the compiled path (sim/pipeline.py `step`'s first lines and `wheel_frame`), compiled: the
   numpy code's float32 arithmetic in its order, vehicle by vehicle, in two calls around the commands.

   pvu_step_begin: the begin pose copied (begin_position, begin_orientation), vecmath.quat_to_mat of the body
   orientation, the signed forward speed vecmath.dot(v, vecmath.matvec(R, lng_axis)), context.substep_counts and the
   substep length (dt / n) rounded to float32 once, as numpy's float64 division and astype.
   pvu_wheel_frame: pipeline.wheel_frame of that rotation, the body position and the wheels' steered offsets (the
   rotation repeated over the wheels, the suspension directions, the hubs and the positions repeated).

   With the planes' quiet reference (`PlanesQuiet`, sim/contact/broad.py `begin_check`), pvu_step_begin also takes the
   fleet's motion since it (sim/_motion.c's reductions of the begin pose, the same as Motion.bounds') and decides
   broad.quiet_above_planes' question in the same call: the step's pose is read here anyway, and for one car the
   Python floats of that question cost as much as a tenth of the step.

   quat_to_mat is _row_solver.h's pvu_rotation_matrix. einsum's sums (vecmath.matvec) start from +0 and add the three
   products in order; vecmath.dot adds its three left to right. Compiled with -ffp-contract=off, no fast-math and no change of the denormal mode: IEEE float32 as
   numpy's. Layout: what numpy holds, C order, vectors component-first (3, V) and (3, V, W), rotations (3, 3, V) and
   (3, 3, V, W), quaternions (4, V) as w, x, y, z. */
#include <math.h>
#include <stddef.h>
#include <stdint.h>

#include "_row_solver.h"

/* The planes' quiet reference (broad.py `_plane_candidates` keeps it; `begin_check` hands it over while it is kept):
   the reference pose ((3, V), (4, V): float64, or float32 where `reference_single`, copies each of whose values is
   the float64 one's), the planes' weights (|n| + 1e-6, (planes, 3) float64), the largest reach, the smallest
   clearance and vecmath.turn_from_cosine's slack (its turn of a cosine of 1); out: what the last begin handed it
   measured (`pvu_step_begin`) */
typedef struct {
    const void *position, *orientation;
    const double *weights;
    int64_t planes, reference_single;
    double reach_max, clearance_min, turn_slack;
    double out[8];
} PlanesQuiet;

int64_t pvu_planes_quiet_size(void) { return (int64_t)sizeof(PlanesQuiet); }

int pvu_motion_reductions(int64_t V, const void *position, int position_single, const void *reference,
                          const void *orientation, int orientation_single, const void *reference_orientation,
                          int reference_single, double *out);  /* (sim/_motion.c) */

/* The two calls' arguments (sim/compiled_begin.py `_Layout` sets up the batch's once; a step sets the state's, the
   offsets' and its block's addresses): the step's block holds every output, each field at its byte offset `at` */
enum { AT_N_SUB, AT_POSITION, AT_ORIENTATION, AT_SPEED, AT_DT_SUB, AT_R, AT_RW, AT_DIRECTION, AT_HUB, AT_POSITION_W,
       AT_FIELDS };
typedef struct {
    int64_t V, W;
    double dt;
    const float *position, *orientation, *linear_velocity;  /* the body state: (3, V), (4, V), (3, V) */
    const float *lng_axis, *threshold;  /* (3, V), (V,) */
    const int64_t *low, *high;  /* (V,) */
    const float *travel_direction;  /* (3, V, W) */
    const float *offset;  /* the steered offsets (3, V, W): `pvu_wheel_frame`'s */
    PlanesQuiet *quiet;  /* the planes' quiet reference, or NULL: no question asked */
    char *block;
    int64_t at[AT_FIELDS];
} StepBegin;

int64_t pvu_step_begin_size(void) { return (int64_t)sizeof(StepBegin); }

/* pipeline.step's begin: body (position (3, V), orientation (4, V), linear velocity (3, V)), the batch's lng_axis
   (3, V), substep_threshold_speed (V), low and high substep counts (V) and the step's dt; out: the begin pose's
   copies, R (3, 3, V), forward speed (V), n_sub (V) and dt_sub (V). */
static void step_begin(int64_t V, const float *position, const float *orientation, const float *linear_velocity,
                       const float *lng_axis, const float *threshold, const int64_t *low, const int64_t *high,
                       double dt, float *begin_position, float *begin_orientation, float *R, float *forward_speed,
                       int64_t *n_sub, float *dt_sub) {
    for (int64_t v = 0; v < V; ++v) {
        const float q[4] = {orientation[v], orientation[V + v], orientation[2 * V + v], orientation[3 * V + v]};
        float m[3][3];
        pvu_rotation_matrix(q, m);
        float axis[3];
        for (int i = 0; i < 3; ++i) {
            axis[i] = ((0.0f + m[i][0] * lng_axis[v]) + m[i][1] * lng_axis[V + v]) + m[i][2] * lng_axis[2 * V + v];
            for (int j = 0; j < 3; ++j) R[(i * 3 + j) * V + v] = m[i][j];
            begin_position[i * V + v] = position[i * V + v];
        }
        for (int a = 0; a < 4; ++a) begin_orientation[a * V + v] = orientation[a * V + v];
        const float speed = (linear_velocity[v] * axis[0] + linear_velocity[V + v] * axis[1])
                          + linear_velocity[2 * V + v] * axis[2];
        forward_speed[v] = speed;
        const int64_t n = fabsf(speed) < threshold[v] ? low[v] : high[v];
        n_sub[v] = n;
        dt_sub[v] = (float)(dt / (double)n);
    }
}

/* broad.quiet_above_planes' answer from the motion's reductions `out` (pvu_motion_reductions': largest and smallest
   change along x, y, z, smallest |cosine|): _fleet_clear's float64 arithmetic in its order, the largest change along
   each axis max(hi, -lo) (a lone body's |dx| but for a zero's sign, which no sum below keeps), the move towards each
   plane wx ax + wy ay + wz az, the turn 2 acos(min(|c|, 1)) + slack (libm's acos, as Python's math.acos). Never quiet
   where a value is not finite (a lone body's `_fleet_clear` says so; a fleet's numpy answer then decides). */
static int planes_quiet(const PlanesQuiet *q, const double *out) {
    const double ax = -out[3] > out[0] ? -out[3] : out[0];
    const double ay = -out[4] > out[1] ? -out[4] : out[1];
    const double az = -out[5] > out[2] ? -out[5] : out[2];
    if (!isfinite(ax + ay + az + out[6])) return 0;
    double towards = -INFINITY;
    for (int64_t k = 0; k < q->planes; ++k) {
        const double *w = q->weights + 3 * k;
        const double move = w[0] * ax + w[1] * ay + w[2] * az;
        towards = move > towards ? move : towards;
    }
    const double turn = 2.0 * acos(out[6] < 1.0 ? out[6] : 1.0) + q->turn_slack;
    return towards + turn * q->reach_max < q->clearance_min;
}

/* The begin; with b->quiet, also the motion's reductions since the planes' reference into its `out` (7 float64, then
   1.0 where they were taken, 0.0 where a value is NaN). Returns 1 where the planes are quiet. */
int pvu_step_begin(const StepBegin *b) {
    char *block = b->block;
    step_begin(b->V, b->position, b->orientation, b->linear_velocity, b->lng_axis, b->threshold, b->low, b->high, b->dt,
               (float *)(block + b->at[AT_POSITION]), (float *)(block + b->at[AT_ORIENTATION]),
               (float *)(block + b->at[AT_R]), (float *)(block + b->at[AT_SPEED]), (int64_t *)(block + b->at[AT_N_SUB]),
               (float *)(block + b->at[AT_DT_SUB]));
    PlanesQuiet *q = b->quiet;
    if (q == NULL || q->planes < 1) return 0;
    const int taken = pvu_motion_reductions(b->V, b->position, 1, q->position, b->orientation, 1, q->orientation,
                                            (int)q->reference_single, q->out) == 0;
    q->out[7] = taken ? 1.0 : 0.0;
    return taken && planes_quiet(q, q->out);
}

/* pipeline.wheel_frame: R (3, 3, V), position (3, V), the batch's travel_direction and the steered offsets (3, V, W);
   out: R repeated over the wheels (3, 3, V, W), the suspension directions R t, the hubs position + R offset and the
   positions repeated (3, V, W each). */
static void wheel_frame(int64_t V, int64_t W, const float *R, const float *position, const float *travel_direction,
                        const float *offset, float *Rw, float *direction, float *hub, float *position_w) {
    const int64_t VW = V * W;
    for (int64_t v = 0; v < V; ++v) {
        float m[3][3];
        for (int i = 0; i < 3; ++i)
            for (int j = 0; j < 3; ++j) m[i][j] = R[(i * 3 + j) * V + v];
        for (int64_t e = v * W; e < (v + 1) * W; ++e) {
            for (int c = 0; c < 9; ++c) Rw[c * VW + e] = m[c / 3][c % 3];
            for (int i = 0; i < 3; ++i) {
                const float d = ((0.0f + m[i][0] * travel_direction[e]) + m[i][1] * travel_direction[VW + e])
                              + m[i][2] * travel_direction[2 * VW + e];
                const float o = ((0.0f + m[i][0] * offset[e]) + m[i][1] * offset[VW + e]) + m[i][2] * offset[2 * VW + e];
                const float x = position[i * V + v];
                direction[i * VW + e] = d;
                hub[i * VW + e] = x + o;
                position_w[i * VW + e] = x;
            }
        }
    }
}

/* `wheel_frame` of the begin's rotation and position in the block and the offsets, into the block */
int pvu_wheel_frame(const StepBegin *b) {
    char *block = b->block;
    wheel_frame(b->V, b->W, (const float *)(block + b->at[AT_R]), (const float *)(block + b->at[AT_POSITION]),
                b->travel_direction, b->offset, (float *)(block + b->at[AT_RW]),
                (float *)(block + b->at[AT_DIRECTION]), (float *)(block + b->at[AT_HUB]),
                (float *)(block + b->at[AT_POSITION_W]));
    return 0;
}
