/* The PhysX end of a step for vehicles without contacts in a TGS scene (sim/rigid_body.py `end_step_physx` after
   pipeline.constraint_rows, with row_solver's `_solve_soft_rows` and `_solve_rows_tgs`), compiled: one call from the
   wheels' substep outputs to the solved velocities and position, no array per row in between.

   Per vehicle, the numpy code's arithmetic in its order and precision (float32 state; the damping factors and the
   sticky rows' gains formed in double, as numpy promotes them): damping, the velocity limits, the gyroscopic term,
   then the vehicle's rows (their Jacobians at the begin pose, unit responses, spring gains, reciprocal responses)
   and its group's solve: sticky rows only, `pvu_rows_soft_block`'s sweep matrix and position iterations (a block of
   vehicles' rows set up and solved at once); with an active suspension-limit row, `pvu_rows_tgs`'s iterations. A vehicle without rows has its position integrated as
   `integrate_position` does. einsum's sums (vecmath.matvec, matTvec) start from +0 and add the three products in
   order, so a sum of -0 products is +0 here as there. The pose's rotation is left to the caller, as in
   _row_solver.c: each rotation's angular velocity, speed and half angle are written out, numpy takes their sines
   and cosines, and `pvu_rows_orientation_speeds` chains them from the begin orientation.

   Layout: what numpy holds, C order: per vehicle (V,), vectors (3, V) component-first, per wheel (V, W) and
   (3, V, W), flags uint8. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "_row_solver.h"

typedef struct EndStep {
    int64_t V, W, iterations, velocity_iterations, threads; /* the vehicles' iteration counts (one for all) */
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
    const float *lng_dir, *lat_dir, *normal, *arm; /* (3, V, W): the rows' directions, where they act */
    const float *separation;                       /* (V, W) */
    const uint8_t *sticky_lng, *sticky_lat, *mask; /* (V, W) */
    /* (V, W): each wheel's sticky rows' c h / (1 + c h), their damping c over the substep h = dt / iterations, in
       double (row_solver._spring_gains' a / (1 + a), which a gain divides by the row's response): the parameters'
       alone, so set up once per dt by the caller, not each step */
    const double *lng_ratio, *lat_ratio;
    /* out */
    float *linear_out, *angular_out, *position_out; /* (3, V); the velocities may be one (6, V) array */
    float *angular_steps;                           /* (iterations, 3, V): each rotation's angular velocity */
    float *half;                                    /* (iterations, V): its half angle (0 where unused) */
    float *speed; /* (iterations, V): its angular speed |w| (unset where unused), for pvu_rows_orientation_speeds */
    int64_t *rotations;                             /* (V): the rotations of each vehicle (1 without rows) */
} EndStep;

int64_t pvu_end_step_size(void) { return (int64_t)sizeof(EndStep); }

/* numpy's maximum: a NaN in either operand is the result */
static inline double max_d(double a, double b) { return (a >= b || a != a) ? a : b; }

/* vecmath.matvec and matTvec (einsum: from +0, the three products added in order) */
static inline __attribute__((always_inline)) void matvec(const float m[3][3], const float v[3], float out[3]) {
    for (int i = 0; i < 3; ++i) out[i] = ((0.0f + m[i][0] * v[0]) + m[i][1] * v[1]) + m[i][2] * v[2];
}

static inline __attribute__((always_inline)) void matTvec(const float m[3][3], const float v[3], float out[3]) {
    for (int i = 0; i < 3; ++i) out[i] = ((0.0f + m[0][i] * v[0]) + m[1][i] * v[1]) + m[2][i] * v[2];
}

static inline __attribute__((always_inline)) float dot3(const float a[3], const float b[3]) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }

static inline __attribute__((always_inline)) void cross(const float a[3], const float b[3], float out[3]) {
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
        pvu_rotation_matrix(q, R);
        gyroscopic(R, moi, (float)b->dt, ang);
    }
}

/* rigid_body.end_step_physx's velocities before its rows, for a step with contacts (which the solve here does not
   cover): `velocity` of every vehicle, written to linear_out and angular_out (3, V). Reads V, dt, the velocities,
   orientation, moi, damping, velocity limits and gyroscopic flags of the struct alone. 0: done. */
int pvu_end_velocity(const EndStep *b) {
    const int64_t V = b->V;
    for (int64_t v = 0; v < V; ++v) {
        float lin[3], ang[3];
        velocity(b, v, lin, ang);
        for (int a = 0; a < 3; ++a) {
            b->linear_out[a * V + v] = lin[a];
            b->angular_out[a * V + v] = ang[a];
        }
    }
    return 0;
}

/* pipeline.constraint_rows' row index of wheel w's row of a kind (0 longitudinal, 1 lateral, 2 limit): constraint
   by constraint of 4 wheels, each kind's wheels together */
static inline int64_t row_index(int64_t W, int64_t w, int kind) {
    const int64_t first = w - w % 4, size = W - first < 4 ? W - first : 4;
    return 3 * first + kind * size + (w - first);
}

/* A solve group's row arrays: J, WJ (6, Vg, R) and the per-row values (Vg, R), at the strides that solve takes
   (element (a, k, r) of J at a * component + k * vehicle + r * row, (k, r) of the others at k * each + r * row_each);
   recip, separation and act only for a TGS group (NULL in a soft one). */
typedef struct {
    int64_t component, vehicle, row, each, row_each;
    float *J, *WJ, *gain, *recip, *separation;
    uint8_t *act;
} Group;

/* vehicle v's rows (pipeline.constraint_rows, row_solver._row_jacobians, _spring_gains, and `_solve_rows_tgs`'s
   reciprocal responses and separations) into slot k of group g */
static void vehicle_rows(const EndStep *b, int64_t v, int64_t k, const Group *g) {
    const int64_t V = b->V, W = b->W;
    const float q[4] = {b->begin_orientation[v], b->begin_orientation[V + v], b->begin_orientation[2 * V + v],
                        b->begin_orientation[3 * V + v]};
    float Rm[3][3];
    pvu_rotation_matrix(q, Rm);
    const float inv_mass = 1.0f / b->mass[v];
    const float inv_moi[3] = {1.0f / b->moi[v], 1.0f / b->moi[V + v], 1.0f / b->moi[2 * V + v]};
    for (int64_t w = 0; w < W; ++w) {
        const int64_t e = v * W + w;
        const float arm[3] = {b->arm[e], b->arm[V * W + e], b->arm[2 * V * W + e]};
        for (int kind = 0; kind < 3; ++kind) { /* longitudinal, lateral (sticky), suspension limit */
            const int64_t r = row_index(W, w, kind);
            const int64_t at = k * g->vehicle + r * g->row, each = k * g->each + r * g->row_each;
            if (kind == 2 && !g->recip) { /* a soft group's limit row: in no sweep (inactive, its gain 0) */
                for (int a = 0; a < 6; ++a) g->J[at + a * g->component] = g->WJ[at + a * g->component] = 0.0f;
                g->gain[each] = 0.0f;
                continue;
            }
            const float *dir = kind == 0 ? b->lng_dir : kind == 1 ? b->lat_dir : b->normal;
            const float lin[3] = {dir[e], dir[V * W + e], dir[2 * V * W + e]};
            float ang[3], local[3], wj_ang[3];
            cross(arm, lin, ang);
            matTvec(Rm, ang, local);
            for (int a = 0; a < 3; ++a) local[a] = local[a] * inv_moi[a];
            matvec(Rm, local, wj_ang);
            const float wj_lin[3] = {lin[0] * inv_mass, lin[1] * inv_mass, lin[2] * inv_mass};
            const float u = dot3(lin, wj_lin) + dot3(ang, wj_ang);
            for (int a = 0; a < 3; ++a) {
                g->J[at + a * g->component] = lin[a];
                g->J[at + (3 + a) * g->component] = ang[a];
                g->WJ[at + a * g->component] = wj_lin[a];
                g->WJ[at + (3 + a) * g->component] = wj_ang[a];
            }
            const int active = kind == 2 ? b->mask[e] && b->separation[e] < 0.0f
                                         : (kind == 0 ? b->sticky_lng : b->sticky_lat)[e] && b->mask[e];
            const int sticky = kind != 2 && active && u > 0.0f;
            /* (a row not sticky: 0 / (1 + 0) / 1 = +0 in numpy) */
            g->gain[each] = sticky ? (float)((kind == 0 ? b->lng_ratio : b->lat_ratio)[e] / (double)u) : 0.0f;
            if (g->recip) {
                const int acts = active && u > 0.0f; /* a zero Jacobian: PhysX's zero reciprocal response */
                g->act[each] = (uint8_t)acts;
                g->recip[each] = acts ? 1.0f / u : 0.0f;
                g->separation[each] = kind == 2 ? b->separation[e] : 0.0f;
            }
        }
    }
}

/* `vehicle_rows` of the soft group's vehicles soft[k], k in [k0, k0 + lanes), lanes <= PVU_SOFT_LANES, side by side:
   the same operations lane by lane (so the same bits), each lane's inputs gathered into rows of their own first
   (lanes past the vehicles repeat the first one's), into the block's lane-major `rows` (a braked fleet at rest: every
   vehicle's sticky rows, each step). The limit rows are left out: in a soft group they act in no vehicle (gain 0), so
   no sweep takes them. listed (R) out: the rows with a non-zero gain in one of the block's vehicles. */
#define ROW_LANES PVU_SOFT_LANES

/* the four wheels' values of ROW_LANES consecutive vehicles (src: the first one's first wheel, vehicle by vehicle),
   lane-major: out[w][stride * w + l], one loop over the lanes (de-interleaved as vectors, not gathered) */
static inline void four_wheels(const float *src, float *out, int64_t stride) {
#pragma omp simd
    for (int l = 0; l < ROW_LANES; ++l) {
        out[l] = src[4 * l];
        out[stride + l] = src[4 * l + 1];
        out[2 * stride + l] = src[4 * l + 2];
        out[3 * stride + l] = src[4 * l + 3];
    }
}

/* four_wheels of double values */
static inline void four_wheels_double(const double *src, double *out, int64_t stride) {
#pragma omp simd
    for (int l = 0; l < ROW_LANES; ++l) {
        out[l] = src[4 * l];
        out[stride + l] = src[4 * l + 1];
        out[2 * stride + l] = src[4 * l + 2];
        out[3 * stride + l] = src[4 * l + 3];
    }
}

static void soft_rows(const EndStep *b, const int64_t *soft, int64_t k0, int64_t lanes, SoftRow *rows,
                      uint8_t *listed) {
    enum { L = ROW_LANES };
    const int64_t V = b->V, W = b->W, VW = V * W;
    float q[4][L], mass[L], moi[3][L], Rm[9][L], inv_mass[L], inv_moi[3][L];
    /* each lane's vehicle's first wheel from the block's first vehicle's (int32: the gathers below as vector gathers;
       the soft vehicles ascend, and a fleet's wheels number below 2^31), and the block's first wheel */
    const int64_t block_wheel = soft[k0] * W;
    int32_t first_wheel[L];
    for (int l = 0; l < L; ++l) first_wheel[l] = (int32_t)(soft[k0 + (l < lanes ? l : 0)] * W - block_wheel);
    /* a whole block of consecutive vehicles (each block of a fleet but its last): their values loaded as vectors */
    const int consecutive = lanes == L && soft[k0 + L - 1] - soft[k0] == L - 1;
    if (consecutive) {
        const int64_t v0 = soft[k0];
        for (int a = 0; a < 4; ++a)
            for (int l = 0; l < L; ++l) q[a][l] = b->begin_orientation[a * V + v0 + l];
        for (int l = 0; l < L; ++l) mass[l] = b->mass[v0 + l];
        for (int a = 0; a < 3; ++a)
            for (int l = 0; l < L; ++l) moi[a][l] = b->moi[a * V + v0 + l];
    } else
        for (int l = 0; l < L; ++l) {
            const int64_t v = soft[k0 + (l < lanes ? l : 0)];
            for (int a = 0; a < 4; ++a) q[a][l] = b->begin_orientation[a * V + v];
            mass[l] = b->mass[v];
            for (int a = 0; a < 3; ++a) moi[a][l] = b->moi[a * V + v];
        }
    for (int l = 0; l < L; ++l) {
        const float ql[4] = {q[0][l], q[1][l], q[2][l], q[3][l]};
        float m[3][3];
        pvu_rotation_matrix(ql, m);
        for (int e = 0; e < 9; ++e) Rm[e][l] = m[e / 3][e % 3];
        inv_mass[l] = 1.0f / mass[l];
        for (int a = 0; a < 3; ++a) inv_moi[a][l] = 1.0f / moi[a][l];
    }
    /* four wheels and a whole block of consecutive vehicles: the wheels' inputs loaded as vectors and de-interleaved,
       not gathered lane by lane. by_wheel[w]: the arm (3), the longitudinal and the lateral direction (3 each) and
       whether their rows act (flag and mask, 0 or 1, in floats); ratio_by_wheel[w]: their rows' c h / (1 + c h) */
    enum { ARM = 0, DIRECTION = 3, ACTS = 9, INPUTS = 11 };
    const int four = W == 4 && consecutive;
    float by_wheel[4][INPUTS][L];
    double ratio_by_wheel[4][2][L];
    if (four) {
        const float *const sources[ACTS] = {b->arm,     b->arm + VW,     b->arm + 2 * VW,     b->lng_dir,
                                            b->lng_dir + VW, b->lng_dir + 2 * VW, b->lat_dir, b->lat_dir + VW,
                                            b->lat_dir + 2 * VW};
        for (int i = 0; i < ACTS; ++i) four_wheels(sources[i] + block_wheel, by_wheel[0][i], INPUTS * L);
        four_wheels_double(b->lng_ratio + block_wheel, ratio_by_wheel[0][0], 2 * L);
        four_wheels_double(b->lat_ratio + block_wheel, ratio_by_wheel[0][1], 2 * L);
        const uint8_t *lng = b->sticky_lng + block_wheel, *lat = b->sticky_lat + block_wheel,
                      *mask = b->mask + block_wheel;
        uint32_t lng_words[L], lat_words[L], mask_words[L]; /* a vehicle's four flags in one word each */
        memcpy(lng_words, lng, sizeof lng_words);
        memcpy(lat_words, lat, sizeof lat_words);
        memcpy(mask_words, mask, sizeof mask_words);
        for (int w = 0; w < 4; ++w) {
            /* wheel w's byte of a word: the w-th in memory (little-endian: the w-th from the low end) */
            const int shift = __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ ? 8 * w : 24 - 8 * w;
            for (int l = 0; l < L; ++l) {
                const uint32_t kept = (mask_words[l] >> shift) & 0xffu;
                by_wheel[w][ACTS][l] = (float)((((lng_words[l] >> shift) & 0xffu) != 0) & (kept != 0));
                by_wheel[w][ACTS + 1][l] = (float)((((lat_words[l] >> shift) & 0xffu) != 0) & (kept != 0));
            }
        }
    }
    for (int64_t w = 0; w < W; ++w) {
        listed[row_index(W, w, 2)] = 0;
        float gathered[3][L];
        if (!four)
            for (int a = 0; a < 3; ++a)
#pragma omp simd
                for (int l = 0; l < L; ++l) gathered[a][l] = (b->arm + a * VW + block_wheel + w)[first_wheel[l]];
        const float(*arm)[L] = four ? (const float(*)[L])by_wheel[w][ARM] : (const float(*)[L])gathered;
        for (int kind = 0; kind < 2; ++kind) { /* longitudinal, lateral (sticky) */
            const int64_t r = row_index(W, w, kind);
            const float *dir = kind == 0 ? b->lng_dir : b->lat_dir;
            const uint8_t *flag = kind == 0 ? b->sticky_lng : b->sticky_lat;
            const double *row_ratio = kind == 0 ? b->lng_ratio : b->lat_ratio;
            float(*J)[L] = rows[r].J, (*WJ)[L] = rows[r].WJ, *gain = rows[r].gain;
            float lanes_in[4][L]; /* direction (3), acts: gathered */
            double ratio_in[L];
            if (!four) {
                for (int a = 0; a < 3; ++a)
#pragma omp simd
                    for (int l = 0; l < L; ++l) lanes_in[a][l] = (dir + a * VW + block_wheel + w)[first_wheel[l]];
#pragma omp simd
                for (int l = 0; l < L; ++l) {
                    const int64_t e = block_wheel + w + first_wheel[l];
                    ratio_in[l] = row_ratio[e];
                    lanes_in[3][l] = (float)((flag[e] != 0) & (b->mask[e] != 0));
                }
            }
            const float(*lin)[L] = four ? (const float(*)[L])by_wheel[w][DIRECTION + 3 * kind]
                                        : (const float(*)[L])lanes_in;
            const double *ratio = four ? ratio_by_wheel[w][kind] : ratio_in;
            const float *active = four ? by_wheel[w][ACTS + kind] : lanes_in[3];
            /* whether a gain is not +-0 (a NaN among them) in a lane of a vehicle: its bits but the sign's, or-ed over
               the lanes as integers in the lanes' loop (a vector reduction, not the gains read back lane by lane) */
            uint32_t any = 0;
            for (int l = 0; l < L; ++l) {
                const float m[3][3] = {{Rm[0][l], Rm[1][l], Rm[2][l]}, {Rm[3][l], Rm[4][l], Rm[5][l]},
                                       {Rm[6][l], Rm[7][l], Rm[8][l]}};
                const float arm_l[3] = {arm[0][l], arm[1][l], arm[2][l]}, lin_l[3] = {lin[0][l], lin[1][l], lin[2][l]};
                float ang[3], local[3], wj_ang[3];
                cross(arm_l, lin_l, ang);
                matTvec(m, ang, local);
                for (int a = 0; a < 3; ++a) local[a] = local[a] * inv_moi[a][l];
                matvec(m, local, wj_ang);
                const float wj_lin[3] = {lin_l[0] * inv_mass[l], lin_l[1] * inv_mass[l], lin_l[2] * inv_mass[l]};
                const float u = dot3(lin_l, wj_lin) + dot3(ang, wj_ang);
                for (int a = 0; a < 3; ++a) {
                    J[a][l] = lin_l[a];
                    J[3 + a][l] = ang[a];
                    WJ[a][l] = wj_lin[a];
                    WJ[3 + a][l] = wj_ang[a];
                }
                const int sticky = (active[l] != 0.0f) & (u > 0.0f);
                const float gain_l = sticky ? (float)(ratio[l] / (double)u) : 0.0f; /* (not sticky: 0 / (1 + 0) / 1) */
                uint32_t bits;
                memcpy(&bits, &gain_l, sizeof bits);
                any = any | (l < lanes ? bits & 0x7fffffffu : 0u);
                gain[l] = gain_l;
            }
            listed[r] = any != 0;
        }
    }
}

/* a vehicle's solve (row_solver.solve_vehicle_constraints' groups, TGS, no contacts) */
enum { NO_ROWS = 0, SOFT = 1, WITH_LIMIT = 2 };

/* 0: done; -1: out of memory (nothing written) */
int pvu_end_step(const EndStep *b) {
    const int64_t V = b->V, W = b->W, R = 3 * W, n = b->iterations;
    const int threads = b->threads > 1 ? (int)b->threads : 1;
    /* which vehicles have rows (pipeline.constraint_rows) and whether a limit row acts, in order: slot[v] their
       index in their group */
    int64_t *slot = malloc((size_t)(V > 0 ? V : 1) * sizeof(int64_t));
    int64_t *soft_vehicles = malloc((size_t)(V > 0 ? V : 1) * sizeof(int64_t)); /* the soft group's, in order */
    uint8_t *kind = malloc((size_t)(V > 0 ? V : 1));
    if (!slot || !kind || !soft_vehicles) {
        free(slot);
        free(kind);
        free(soft_vehicles);
        return -1;
    }
    int64_t Vs = 0, Vt = 0;
    for (int64_t v = 0; v < V; ++v) {
        int rows = 0, limit = 0;
        for (int64_t w = 0; w < W; ++w) {
            const int64_t e = v * W + w;
            limit = limit | (b->mask[e] && b->separation[e] < 0.0f);
            rows = rows | (b->mask[e] && (b->sticky_lng[e] || b->sticky_lat[e]));
        }
        kind[v] = limit ? WITH_LIMIT : rows ? SOFT : NO_ROWS;
        if (kind[v] == SOFT) soft_vehicles[Vs] = v;
        slot[v] = limit ? Vt++ : rows ? Vs++ : -1;
    }
    const int64_t Sc = Vs > 0 ? Vs : 1, Tc = Vt > 0 ? Vt : 1, Rc = R > 0 ? R : 1; /* no malloc(0) */
    /* the soft group's rows: set up block by block (`soft_rows`), each block's solved at once; the TGS group's as
       numpy's (6, Vt, R), as pvu_rows_tgs takes it */
    const int64_t soft_blocks = (Vs + ROW_LANES - 1) / ROW_LANES;
    uint8_t *block_listed = malloc((size_t)((soft_blocks > 0 ? soft_blocks : 1) * Rc)); /* each block's rows */
    const Group tgs = {Vt * R, R, 1, R, 1, malloc((size_t)(6 * Tc * Rc) * sizeof(float)),
                       malloc((size_t)(6 * Tc * Rc) * sizeof(float)), malloc((size_t)(Tc * Rc) * sizeof(float)),
                       malloc((size_t)(Tc * Rc) * sizeof(float)), malloc((size_t)(Tc * Rc) * sizeof(float)),
                       malloc((size_t)(Tc * Rc))};
    /* each group's velocity, position, rotations (its own, or the outputs: `direct`) */
    float *const scratch[9] = {malloc((size_t)(6 * Sc) * sizeof(float)), malloc((size_t)(3 * Sc) * sizeof(float)),
                               malloc((size_t)(n * 3 * Sc) * sizeof(float)), malloc((size_t)(n * Sc) * sizeof(float)),
                               malloc((size_t)(6 * Tc) * sizeof(float)), malloc((size_t)(3 * Tc) * sizeof(float)),
                               malloc((size_t)(n * 3 * Tc) * sizeof(float)), malloc((size_t)(n * Tc) * sizeof(float)),
                               malloc((size_t)(n * Sc) * sizeof(float))};
    float *xs = scratch[0], *ps = scratch[1], *as = scratch[2], *hs = scratch[3], *ss = scratch[8];
    float *xt = scratch[4], *pt = scratch[5], *at = scratch[6], *ht = scratch[7];
    float *impulse = malloc((size_t)(Tc * Rc) * sizeof(float));
    uint8_t *hard = malloc((size_t)(Tc * Rc)); /* the TGS group's limit rows, by kind */
    uint8_t *listed = calloc((size_t)(3 * Rc), 1); /* the soft group's rows; the TGS group's; its limit rows */
    int status = 0;
    /* one group of every vehicle, in order, and the velocities out one (6, V) array: the group's solve writes the
       outputs (no copy back) */
    const int direct = b->angular_out == b->linear_out + 3 * V && (Vs == V || Vt == V);
    if (direct && Vs == V) {
        xs = b->linear_out, ps = b->position_out, as = b->angular_steps, hs = b->half, ss = b->speed;
    } else if (direct) {
        xt = b->linear_out, pt = b->position_out, at = b->angular_steps, ht = b->half;
    }
    if (!block_listed || !tgs.J || !tgs.WJ || !tgs.gain || !tgs.recip || !tgs.separation ||
        !tgs.act || !scratch[0] || !scratch[1] || !scratch[2] || !scratch[3] || !scratch[4] || !scratch[5] ||
        !scratch[6] || !scratch[7] || !scratch[8] || !impulse || !hard || !listed) {
        status = -1;
        goto done;
    }
    const float dt_f = (float)b->dt;
#pragma omp parallel for schedule(static) num_threads(threads) if (threads > 1 && V > 1)
    for (int64_t v = 0; v < V; ++v) {
        float lin[3], ang[3];
        velocity(b, v, lin, ang);
        const int64_t k = slot[v];
        if (kind[v] != NO_ROWS) { /* the solve's start: this velocity, the begin position */
            const int with_limit = kind[v] == WITH_LIMIT;
            const int64_t Vg = with_limit ? Vt : Vs;
            float *x = with_limit ? xt : xs, *position = with_limit ? pt : ps;
            if (with_limit) vehicle_rows(b, v, k, &tgs); /* (the soft group's: `soft_rows` below) */
            for (int a = 0; a < 3; ++a) {
                x[a * Vg + k] = lin[a];
                x[(3 + a) * Vg + k] = ang[a];
                position[a * Vg + k] = b->begin_position[a * V + v];
            }
            b->rotations[v] = n;
            continue;
        }
        /* no rows: the velocity stays; integrate_position's n moves of v dt / n (TGS), the rotation over dt */
        const float move_scale = (float)(b->dt / (double)(n > 1 ? n : 1));
        for (int a = 0; a < 3; ++a) {
            const float move = lin[a] * move_scale;
            float position = b->begin_position[a * V + v] + move;
            for (int64_t i = 1; i < n; ++i) position = position + move;
            b->position_out[a * V + v] = position;
            b->linear_out[a * V + v] = lin[a];
            b->angular_out[a * V + v] = ang[a];
            b->angular_steps[a * V + v] = ang[a];
        }
        const float speed = sqrtf(dot3(ang, ang));
        b->speed[v] = speed;
        b->half[v] = 0.5f * speed * dt_f;
        for (int64_t i = 1; i < n; ++i) {
            b->half[i * V + v] = 0.0f; /* (its speed unread: pvu_rows_orientation_speeds takes one rotation) */
            for (int a = 0; a < 3; ++a) b->angular_steps[(i * 3 + a) * V + v] = 0.0f;
        }
        b->rotations[v] = 1;
    }
    const float h_f = (float)(b->dt / (double)n);
    /* `_solve_soft_rows`, block by block: the rows of a block's vehicles, its sweep matrix over the rows some vehicle of
       the block takes (a non-zero gain), its position iterations. The sweep takes the rows with a non-zero gain in
       some vehicle of the whole group: a block without one of them is solved again below with them all (its rows
       with a gain of 0 in every lane: G - 0 * ... is G for finite numbers, not where a NaN or an infinity comes in) */
    int failed = 0;
    if (soft_blocks > 0) { /* (no parallel region where nothing is soft: a rolling fleet) */
#pragma omp parallel num_threads(threads) if (threads > 1 && soft_blocks > 1) reduction(| : failed)
        {
            SoftRow *rows = malloc((size_t)Rc * sizeof(SoftRow));
            failed = rows == NULL;
#pragma omp for schedule(static)
            for (int64_t block = 0; block < soft_blocks; ++block) {
                if (rows == NULL) continue;
                const int64_t k0 = block * ROW_LANES, lanes = Vs - k0 < ROW_LANES ? Vs - k0 : ROW_LANES;
                soft_rows(b, soft_vehicles, k0, lanes, rows, block_listed + block * R);
                pvu_rows_soft_block(R, n, rows, block_listed + block * R, h_f, Vs, k0, lanes, xs, ps, as, hs, ss);
            }
            free(rows);
        }
    }
    if (failed) { /* out of memory: the caller raises */
        status = -1;
        goto done;
    }
    uint8_t *listed_soft = listed; /* the rows some vehicle's sweep takes */
    for (int64_t block = 0; block < soft_blocks; ++block)
        for (int64_t r = 0; r < R; ++r) listed_soft[r] = listed_soft[r] | block_listed[block * R + r];
    int64_t again = 0; /* the blocks to solve again */
    for (int64_t block = 0; block < soft_blocks; ++block)
        again += memcmp(block_listed + block * R, listed_soft, (size_t)R) != 0;
    if (again > 0) {
#pragma omp parallel num_threads(threads) if (threads > 1 && again > 1) reduction(| : failed)
        {
            SoftRow *rows = malloc((size_t)Rc * sizeof(SoftRow));
            uint8_t *own = malloc((size_t)Rc); /* the block's own rows again (not read) */
            failed = rows == NULL || own == NULL;
#pragma omp for schedule(static)
            for (int64_t block = 0; block < soft_blocks; ++block) {
                if (failed || memcmp(block_listed + block * R, listed_soft, (size_t)R) == 0) continue;
                const int64_t k0 = block * ROW_LANES, lanes = Vs - k0 < ROW_LANES ? Vs - k0 : ROW_LANES;
                for (int64_t k = k0; k < k0 + lanes; ++k) { /* the solve's start again: the velocity, begin position */
                    const int64_t v = soft_vehicles[k];
                    float lin[3], ang[3];
                    velocity(b, v, lin, ang);
                    for (int a = 0; a < 3; ++a) {
                        xs[a * Vs + k] = lin[a];
                        xs[(3 + a) * Vs + k] = ang[a];
                        ps[a * Vs + k] = b->begin_position[a * V + v];
                    }
                }
                soft_rows(b, soft_vehicles, k0, lanes, rows, own);
                pvu_rows_soft_block(R, n, rows, listed_soft, h_f, Vs, k0, lanes, xs, ps, as, hs, ss);
            }
            free(rows);
            free(own);
        }
        if (failed) {
            status = -1;
            goto done;
        }
    }
    if (Vt > 0) { /* `_solve_rows_tgs`: the rows that act in some vehicle, the limit rows among them */
        uint8_t *t_listed = listed + R, *t_hard = listed + 2 * R;
        for (int64_t k = 0; k < Vt; ++k)
            for (int64_t r = 0; r < R; ++r) t_listed[r] = t_listed[r] | tgs.act[k * R + r];
        for (int64_t k = 0; k < Vt; ++k)
            for (int64_t w = 0; w < W; ++w)
                for (int kind_ = 0; kind_ < 3; ++kind_) hard[k * R + row_index(W, w, kind_)] = kind_ == 2;
        for (int64_t w = 0; w < W; ++w) {
            const int64_t r = row_index(W, w, 2);
            t_hard[r] = t_listed[r];
        }
        RowSolve solve;
        memset(&solve, 0, sizeof solve);
        solve.V = Vt;
        solve.R = R;
        solve.iterations = n;
        solve.velocity_iterations = b->velocity_iterations;
        solve.threads = threads;
        solve.h = b->dt / (double)n;
        solve.dt = b->dt;
        solve.h_f = h_f;
        solve.bias_scale = (float)(sqrt((double)n) / b->dt);
        solve.max_bias = (float)(0.75 / b->dt);
        solve.J = tgs.J;
        solve.WJ = tgs.WJ;
        solve.recip = tgs.recip;
        solve.spring_gain = tgs.gain;
        solve.separation = tgs.separation;
        solve.hard = hard;
        solve.listed = t_listed;
        solve.hard_listed = t_hard;
        solve.impulse = impulse;
        solve.x = xt;
        solve.position = pt;
        solve.angular = at;
        solve.half = ht;
        if (pvu_rows_tgs(&solve) != 0) { /* out of memory: nothing solved, the caller raises */
            status = -1;
            goto done;
        }
    }
#pragma omp parallel for schedule(static) num_threads(threads) if (threads > 1 && V > 1 && !direct)
    for (int64_t v = 0; v < V; ++v) { /* the solved vehicles' velocity, position and rotations */
        const int64_t k = slot[v];
        if (direct || kind[v] == NO_ROWS) continue;
        const int with_limit = kind[v] == WITH_LIMIT;
        const int64_t Vg = with_limit ? Vt : Vs;
        const float *x = with_limit ? xt : xs, *position = with_limit ? pt : ps;
        const float *angular = with_limit ? at : as, *half = with_limit ? ht : hs;
        for (int a = 0; a < 3; ++a) {
            b->linear_out[a * V + v] = x[a * Vg + k];
            b->angular_out[a * V + v] = x[(3 + a) * Vg + k];
            b->position_out[a * V + v] = position[a * Vg + k];
        }
        for (int64_t i = 0; i < n; ++i) {
            b->half[i * V + v] = half[i * Vg + k];
            for (int a = 0; a < 3; ++a) b->angular_steps[(i * 3 + a) * V + v] = angular[(i * 3 + a) * Vg + k];
            if (!with_limit) b->speed[i * V + v] = ss[i * Vg + k];
        }
    }
    if (Vt > 0) /* the TGS group's speeds (pvu_rows_tgs writes its half angles alone): |w| of each rotation, taken
                   as the orientation took it */
        for (int64_t i = 0; i < n; ++i) {
            const float *wx = b->angular_steps + i * 3 * V, *wy = wx + V, *wz = wy + V;
            float *speed = b->speed + i * V;
            for (int64_t v = 0; v < V; ++v)
                if (kind[v] == WITH_LIMIT) speed[v] = sqrtf(wx[v] * wx[v] + wy[v] * wy[v] + wz[v] * wz[v]);
        }
done:
    free(slot);
    free(soft_vehicles);
    free(kind);
    free(block_listed);
    free(tgs.J);
    free(tgs.WJ);
    free(tgs.gain);
    free(tgs.recip);
    free(tgs.separation);
    free(tgs.act);
    for (int i = 0; i < 9; ++i) free(scratch[i]);
    free(impulse);
    free(hard);
    free(listed);
    return status;
}
