/* The PhysX end of a step for vehicles whose only rows are sticky tire rows (sim/rigid_body.py `end_step_physx`
   after pipeline.constraint_rows, with row_solver's `_solve_soft_rows`), compiled: one call from the wheels' substep
   outputs to the solved velocities and position, no array per row in between.

   Per vehicle, the numpy code's arithmetic in its order and precision (float32 state; the damping factors and the
   sticky rows' gains formed in double, as numpy promotes them): damping, the velocity limits, the gyroscopic term,
   then either the sticky rows (their Jacobians at the begin pose, the unit responses, the spring gains, and
   `pvu_rows_soft_strided`'s sweep matrix and position iterations) or, for a vehicle without rows, the position integrated
   as `integrate_position` does. einsum's sums (vecmath.matvec, matTvec) start from +0 and add the three products
   in order, so a sum of -0 products is +0 here as there. The pose's rotation is left to the caller, as in
   _row_solver.c: each rotation's angular velocity and half angle are written out, numpy takes their sines and
   cosines, and `pvu_rows_orientation` chains them from the begin orientation.

   Layout: what numpy holds, C order: per vehicle (V,), vectors (3, V) component-first, per wheel (V, W) and
   (3, V, W), flags uint8. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

typedef struct {
    int64_t V, W, iterations, threads; /* iterations: the vehicles' position iterations (one count for all) */
    double dt;
    /* the body after the substeps */
    const float *linear_velocity, *angular_velocity; /* (3, V) */
    const float *orientation;                        /* (4, V): the gyroscopic term's frame */
    const float *begin_position, *begin_orientation; /* (3, V), (4, V): the pose the step began with */
    const float *mass, *moi;                         /* (V), (3, V) */
    const double *linear_damping, *angular_damping;  /* (V) */
    const float *max_linear_velocity, *max_angular_velocity; /* (V) */
    const uint8_t *gyroscopic;                               /* (V) */
    /* the wheels after the last substep */
    const float *lng_dir, *lat_dir, *arm;          /* (3, V, W): the sticky rows' directions, where they act */
    const float *separation;                       /* (V, W) */
    const uint8_t *sticky_lng, *sticky_lat, *mask; /* (V, W) */
    const float *lng_damping, *lat_damping;        /* (V, W) */
    /* out */
    float *linear_out, *angular_out, *position_out; /* (3, V) */
    float *angular_steps;                           /* (iterations, 3, V): each rotation's angular velocity */
    float *half;                                    /* (iterations, V): its half angle (0 where unused) */
    int64_t *rotations;                             /* (V): the rotations of each vehicle (1 without rows) */
} EndStep;

int64_t pvu_end_step_size(void) { return (int64_t)sizeof(EndStep); }

int pvu_rows_soft_strided(int64_t V, int64_t R, int64_t n, int64_t threads, const float *J, const float *WJ,
                          const float *gain, int64_t component, int64_t vehicle, int64_t row, int64_t gain_vehicle,
                          int64_t gain_row, const uint8_t *listed, float h_f, float *x_all, float *position_all,
                          float *angular, float *half);

/* numpy's maximum: a NaN in either operand is the result */
static inline double max_d(double a, double b) { return (a >= b || a != a) ? a : b; }

/* vecmath.quat_to_mat of q = (w, x, y, z) */
static void quat_to_mat(const float q[4], float m[3][3]) {
    const float v[3] = {q[1], q[2], q[3]}, v2[3] = {q[1] + q[1], q[2] + q[2], q[3] + q[3]};
    float p[3][3], w2[3];
    for (int a = 0; a < 3; ++a) {
        for (int b = 0; b < 3; ++b) p[a][b] = v[a] * v2[b];
        w2[a] = q[0] * v2[a];
    }
    static const int cycle[3][3] = {{0, 1, 2}, {1, 2, 0}, {2, 0, 1}};
    for (int c = 0; c < 3; ++c) {
        const int i = cycle[c][0], j = cycle[c][1], k = cycle[c][2];
        m[i][i] = 1.0f - (p[j][j] + p[k][k]);
        m[i][j] = p[i][j] - w2[k];
        m[j][i] = p[i][j] + w2[k];
    }
}

/* vecmath.matvec and matTvec (einsum: from +0, the three products added in order) */
static void matvec(const float m[3][3], const float v[3], float out[3]) {
    for (int i = 0; i < 3; ++i) out[i] = ((0.0f + m[i][0] * v[0]) + m[i][1] * v[1]) + m[i][2] * v[2];
}

static void matTvec(const float m[3][3], const float v[3], float out[3]) {
    for (int i = 0; i < 3; ++i) out[i] = ((0.0f + m[0][i] * v[0]) + m[1][i] * v[1]) + m[2][i] * v[2];
}

static inline float dot3(const float a[3], const float b[3]) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }

static void cross(const float a[3], const float b[3], float out[3]) {
    out[0] = a[1] * b[2] - a[2] * b[1];
    out[1] = a[2] * b[0] - a[0] * b[2];
    out[2] = a[0] * b[1] - a[1] * b[0];
}

/* rigid_body._damping_factor: max(0, 1 - damping dt) in double, rounded once */
static inline float damping_factor(double damping, double dt) { return (float)max_d(0.0, 1.0 - damping * dt); }

/* rigid_body._clamp_magnitude of one vector */
static void clamp_magnitude(float v[3], float limit) {
    const float squared = dot3(v, v), limit2 = limit * limit;
    if (squared > limit2) {
        const float scale = sqrtf(limit2 / squared);
        for (int a = 0; a < 3; ++a) v[a] = v[a] * scale;
    }
}

/* rigid_body.gyroscopic_update of vehicle v's angular velocity w, in its frame R */
static void gyroscopic(const float R[3][3], const float moi[3], float dt_f, float w[3]) {
    float local[3], momentum[3], turned[3], crossed[3], change[3], world[3];
    matTvec(R, w, local);
    for (int a = 0; a < 3; ++a) momentum[a] = moi[a] * local[a];
    cross(local, momentum, crossed);
    for (int a = 0; a < 3; ++a) turned[a] = momentum[a] - crossed[a] * dt_f;
    const float old = sqrtf(dot3(momentum, momentum)), new = sqrtf(dot3(turned, turned));
    const float scale = new > 0.0f ? old / new : 0.0f;
    for (int a = 0; a < 3; ++a) change[a] = turned[a] * scale / moi[a] - local[a];
    matvec(R, change, world);
    for (int a = 0; a < 3; ++a) w[a] = w[a] + world[a];
}

/* the damped, limited and turned velocity of vehicle v (end_step_physx before the pose and the rows) */
static void velocity(const EndStep *b, int64_t v, float lin[3], float ang[3]) {
    const int64_t V = b->V;
    const float lin_factor = damping_factor(b->linear_damping[v], b->dt);
    const float ang_factor = damping_factor(b->angular_damping[v], b->dt);
    for (int a = 0; a < 3; ++a) {
        lin[a] = b->linear_velocity[a * V + v] * lin_factor;
        ang[a] = b->angular_velocity[a * V + v] * ang_factor;
    }
    clamp_magnitude(lin, b->max_linear_velocity[v]);
    clamp_magnitude(ang, b->max_angular_velocity[v]);
    if (b->gyroscopic[v]) {
        const float q[4] = {b->orientation[v], b->orientation[V + v], b->orientation[2 * V + v],
                            b->orientation[3 * V + v]};
        const float moi[3] = {b->moi[v], b->moi[V + v], b->moi[2 * V + v]};
        float R[3][3];
        quat_to_mat(q, R);
        gyroscopic(R, moi, (float)b->dt, ang);
    }
}

/* pipeline.constraint_rows' row index of wheel w's row of a kind (0 longitudinal, 1 lateral, 2 limit): constraint
   by constraint of 4 wheels, each kind's wheels together */
static inline int64_t row_index(int64_t W, int64_t w, int kind) {
    const int64_t first = w - w % 4, size = W - first < 4 ? W - first : 4;
    return 3 * first + kind * size + (w - first);
}

/* vehicle v's sticky rows (row_solver._row_jacobians, _spring_gains) into slot k of the group's arrays: J, WJ
   (R, 6, Vr), gain (R, Vr) (the vehicles side by side, as the soft solve takes them); the limit rows (inactive:
   a vehicle with one is left to numpy) keep gain 0 */
static void sticky_rows(const EndStep *b, int64_t v, int64_t k, int64_t Vr, float *J, float *WJ, float *gain) {
    const int64_t V = b->V, W = b->W;
    const double h = b->dt / (double)b->iterations;
    const float q[4] = {b->begin_orientation[v], b->begin_orientation[V + v], b->begin_orientation[2 * V + v],
                        b->begin_orientation[3 * V + v]};
    float Rm[3][3];
    quat_to_mat(q, Rm);
    const float inv_mass = 1.0f / b->mass[v];
    const float inv_moi[3] = {1.0f / b->moi[v], 1.0f / b->moi[V + v], 1.0f / b->moi[2 * V + v]};
    for (int64_t w = 0; w < W; ++w) {
        const int64_t e = v * W + w;
        const float arm[3] = {b->arm[e], b->arm[V * W + e], b->arm[2 * V * W + e]};
        for (int kind = 0; kind < 3; ++kind) {
            const int64_t r = row_index(W, w, kind), at = r * 6 * Vr + k; /* J[r, a, k] at at + a * Vr */
            if (kind == 2) { /* a limit row: in no vehicle's sweep (its gain is 0) */
                gain[r * Vr + k] = 0.0f;
                for (int a = 0; a < 6; ++a) J[at + a * Vr] = WJ[at + a * Vr] = 0.0f;
                continue;
            }
            const float *dir = kind == 0 ? b->lng_dir : b->lat_dir;
            const float lin[3] = {dir[e], dir[V * W + e], dir[2 * V * W + e]};
            float ang[3], local[3], wj_ang[3];
            cross(arm, lin, ang);
            matTvec(Rm, ang, local);
            for (int a = 0; a < 3; ++a) local[a] = local[a] * inv_moi[a];
            matvec(Rm, local, wj_ang);
            const float wj_lin[3] = {lin[0] * inv_mass, lin[1] * inv_mass, lin[2] * inv_mass};
            const float u = dot3(lin, wj_lin) + dot3(ang, wj_ang);
            for (int a = 0; a < 3; ++a) {
                J[at + a * Vr] = lin[a];
                J[at + (3 + a) * Vr] = ang[a];
                WJ[at + a * Vr] = wj_lin[a];
                WJ[at + (3 + a) * Vr] = wj_ang[a];
            }
            const uint8_t sticky = (kind == 0 ? b->sticky_lng : b->sticky_lat)[e] && b->mask[e];
            const int act = sticky && u > 0.0f;
            const double damping = (double)(kind == 0 ? b->lng_damping : b->lat_damping)[e];
            const double spring = act ? damping * h : 0.0;
            gain[r * Vr + k] = (float)(spring / (1.0 + spring) / (act ? (double)u : 1.0));
        }
    }
}

/* 0: done; 1: a suspension-limit row is active (the caller solves the step in numpy; nothing written); -1: out of
   memory */
int pvu_end_step_soft(const EndStep *b) {
    const int64_t V = b->V, W = b->W, R = 3 * W, n = b->iterations;
    const int threads = b->threads > 1 ? (int)b->threads : 1;
    (void)threads;
    /* which vehicles have rows (pipeline.constraint_rows), in order: slot[v] their index among them, -1 none */
    int64_t *slot = malloc((size_t)(V > 0 ? V : 1) * sizeof(int64_t));
    if (!slot) return -1;
    int64_t Vr = 0;
    for (int64_t v = 0; v < V; ++v) {
        int rows = 0;
        for (int64_t w = 0; w < W; ++w) {
            const int64_t e = v * W + w;
            if (b->mask[e] && b->separation[e] < 0.0f) {
                free(slot);
                return 1;
            }
            rows = rows | (b->mask[e] && (b->sticky_lng[e] || b->sticky_lat[e]));
        }
        slot[v] = rows ? Vr++ : -1;
    }
    const int64_t Vc = Vr > 0 ? Vr : 1;
    float *J = malloc((size_t)(6 * Vc * R) * sizeof(float)), *WJ = malloc((size_t)(6 * Vc * R) * sizeof(float));
    float *gain = malloc((size_t)(Vc * R) * sizeof(float)), *x = malloc((size_t)(6 * Vc) * sizeof(float));
    float *position = malloc((size_t)(3 * Vc) * sizeof(float));
    float *angular = malloc((size_t)(n * 3 * Vc) * sizeof(float)), *half = malloc((size_t)(n * Vc) * sizeof(float));
    uint8_t *listed = calloc((size_t)R, 1);
    int status = 0;
    if (!J || !WJ || !gain || !x || !position || !angular || !half || !listed) {
        status = -1;
        goto done;
    }
    const float dt_f = (float)b->dt;
#pragma omp parallel for schedule(static) num_threads(threads) if (threads > 1 && V > 1)
    for (int64_t v = 0; v < V; ++v) {
        float lin[3], ang[3];
        velocity(b, v, lin, ang);
        const int64_t k = slot[v];
        if (k >= 0) { /* the solve's start: this velocity, the begin position */
            sticky_rows(b, v, k, Vr, J, WJ, gain);
            for (int a = 0; a < 3; ++a) {
                x[a * Vr + k] = lin[a];
                x[(3 + a) * Vr + k] = ang[a];
                position[a * Vr + k] = b->begin_position[a * V + v];
            }
            continue;
        }
        /* no rows: the velocity stays; integrate_position's n moves of v dt / n (TGS), the rotation over dt */
        const float move_scale = (float)(b->dt / (double)(n > 1 ? n : 1));
        for (int a = 0; a < 3; ++a) {
            const float move = lin[a] * move_scale;
            float at = b->begin_position[a * V + v] + move;
            for (int64_t i = 1; i < n; ++i) at = at + move;
            b->position_out[a * V + v] = at;
            b->linear_out[a * V + v] = lin[a];
            b->angular_out[a * V + v] = ang[a];
            b->angular_steps[a * V + v] = ang[a];
        }
        b->half[v] = 0.5f * sqrtf(dot3(ang, ang)) * dt_f;
        for (int64_t i = 1; i < n; ++i) {
            b->half[i * V + v] = 0.0f;
            for (int a = 0; a < 3; ++a) b->angular_steps[(i * 3 + a) * V + v] = 0.0f;
        }
        b->rotations[v] = 1;
    }
    if (Vr > 0) {
        /* the rows some vehicle's sweep takes (row_solver: a row with a non-zero gain in some vehicle) */
        for (int64_t r = 0; r < R; ++r)
            for (int64_t k = 0; k < Vr; ++k) listed[r] = listed[r] | (gain[r * Vr + k] != 0.0f);
        pvu_rows_soft_strided(Vr, R, n, threads, J, WJ, gain, Vr, 1, 6 * Vr, 1, Vr, listed,
                              (float)(b->dt / (double)n), x, position, angular, half);
#pragma omp parallel for schedule(static) num_threads(threads) if (threads > 1 && V > 1)
        for (int64_t v = 0; v < V; ++v) {
            const int64_t k = slot[v];
            if (k < 0) continue;
            for (int a = 0; a < 3; ++a) {
                b->linear_out[a * V + v] = x[a * Vr + k];
                b->angular_out[a * V + v] = x[(3 + a) * Vr + k];
                b->position_out[a * V + v] = position[a * Vr + k];
            }
            for (int64_t i = 0; i < n; ++i) {
                b->half[i * V + v] = half[i * Vr + k];
                for (int a = 0; a < 3; ++a) b->angular_steps[(i * 3 + a) * V + v] = angular[(i * 3 + a) * Vr + k];
            }
            b->rotations[v] = n;
        }
    }
done:
    free(slot);
    free(J);
    free(WJ);
    free(gain);
    free(x);
    free(position);
    free(angular);
    free(half);
    free(listed);
    return status;
}
