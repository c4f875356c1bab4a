/* The TGS iterations over the vehicles' constraint and contact rows (sim/row_solver.py `_solve_rows_tgs` with
   `StaticContactRows.sweep`), compiled: one call per solve group, each vehicle on its own (the rows of one vehicle act
   on it alone), so vehicles run in parallel, many of them side by side in vector lanes, and a vehicle's result
   does not depend on the thread count or on the vehicles beside it. The set-up of a group's constraint rows
   (`pvu_constraint_rows`: row_solver's Jacobians, responses and gains) is here too; its contact rows' set-up is
   sim/_contact_rows.c.

   The numpy code's arithmetic in its order and precision: the constraint rows in float32 (their Jacobians, gains
   and the body velocity x are float32 there), the contact rows in float64 (their arrays are float64, so numpy
   promotes x to float64 on the first contact row and the sweep's result is rounded back to float32). Sums over
   the six components of a Jacobian are taken one after another, as numpy reduces the outer axis. Built with
   -ffp-contract=off: no fused multiply-adds. The pose's rotation (sin, cos) is left to the caller (numpy's sin
   and cos are not libm's): each position iteration's angular velocity and half angle are written out, and
   `pvu_rows_orientation` chains the rotations once numpy has taken their sines and cosines.

   Layout: what numpy holds, C order. Per vehicle (V,), rows (V, R), velocities (6, V) component-first, contact
   rows (6, V, Pm, N) and (V, Pm, N) (N points a patch), friction rows (2, 6, V, Pm, M) and (2, V, Pm, M) (the two
   friction axes first), flags uint8. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "_row_solver.h"

/* numpy's maximum and minimum: a NaN in either operand is the result */
static inline double max_d(double a, double b) { return ((a >= b) | (a != a)) ? a : b; }
static inline double min_d(double a, double b) { return ((a <= b) | (a != a)) ? a : b; }
static inline float max_f(float a, float b) { return ((a >= b) | (a != a)) ? a : b; }
static inline float min_f(float a, float b) { return ((a <= b) | (a != a)) ? a : b; }

int64_t pvu_row_solve_size(void) { return (int64_t)sizeof(RowSolve); }

int64_t pvu_constraint_rows_size(void) { return (int64_t)sizeof(ConstraintRows); }

/* vecmath.matvec and matTvec (einsum: from +0, the three products added in order) */
static inline void matvec_f(const float m[3][3], const float v[3], float out[3]) {
    for (int i = 0; i < 3; ++i) out[i] = ((0.0f + m[i][0] * v[0]) + m[i][1] * v[1]) + m[i][2] * v[2];
}

static inline void matTvec_f(const float m[3][3], const float v[3], float out[3]) {
    for (int i = 0; i < 3; ++i) out[i] = ((0.0f + m[0][i] * v[0]) + m[1][i] * v[1]) + m[2][i] * v[2];
}

/* vehicle v's rows: row_solver._row_jacobians (float32), which rows act (active, a non-zero response), their
   reciprocal responses and `_spring_gains` (the gain formed in double from the float64 damping, rounded once); TGS:
   the limit rows' separations in float32; PGS: impulse_kept (a / (1 + a)) and limit_bias (-separation / dt) */
static void vehicle_constraint_rows(const ConstraintRows *in, const RowSolve *b, int64_t v) {
    const int64_t V = in->V, R = in->R, rs = V * R, vehicle = in->vehicles[v];
    const int64_t batch = in->batch;
    const float q[4] = {in->orientation[vehicle], in->orientation[batch + vehicle],
                        in->orientation[2 * batch + vehicle], in->orientation[3 * batch + vehicle]};
    float Rm[3][3];
    pvu_rotation_matrix(q, Rm);
    const float inv_mass = 1.0f / in->mass[vehicle];
    const float inv_moi[3] = {1.0f / in->moi[vehicle], 1.0f / in->moi[batch + vehicle],
                              1.0f / in->moi[2 * batch + vehicle]};
    float *J = (float *)b->J, *WJ = (float *)b->WJ, *recip = (float *)b->recip, *gain = (float *)b->spring_gain;
    for (int64_t r = 0; r < R; ++r) {
        const int64_t k = v * R + r;
        const float lin[3] = {in->linear[k], in->linear[rs + k], in->linear[2 * rs + k]};
        const float arm[3] = {in->arm[k], in->arm[rs + k], in->arm[2 * rs + k]};
        const float ang[3] = {arm[1] * lin[2] - arm[2] * lin[1], arm[2] * lin[0] - arm[0] * lin[2],
                              arm[0] * lin[1] - arm[1] * lin[0]};
        float local[3], w_ang[3];
        matTvec_f(Rm, ang, local);
        for (int a = 0; a < 3; ++a) local[a] = local[a] * inv_moi[a];
        matvec_f(Rm, local, w_ang);
        const float w_lin[3] = {lin[0] * inv_mass, lin[1] * inv_mass, lin[2] * inv_mass};
        const float u = (lin[0] * w_lin[0] + lin[1] * w_lin[1] + lin[2] * w_lin[2])
                        + (ang[0] * w_ang[0] + ang[1] * w_ang[1] + ang[2] * w_ang[2]);
        for (int a = 0; a < 3; ++a) {
            J[k + a * rs] = lin[a];
            J[k + (3 + a) * rs] = ang[a];
            WJ[k + a * rs] = w_lin[a];
            WJ[k + (3 + a) * rs] = w_ang[a];
        }
        const int act = in->active[k] && u > 0.0f; /* a zero Jacobian: PhysX's zero reciprocal response */
        recip[k] = act ? 1.0f / u : 0.0f;
        const int sticky = act && !in->hard[k];
        const double spring = sticky ? in->damping[k] * in->spring_time : 0.0;
        gain[k] = (float)(spring / (1.0 + spring) / (sticky ? (double)u : 1.0));
        ((uint8_t *)b->act)[k] = (uint8_t)act;
        if (in->pgs) {
            ((float *)b->impulse_kept)[k] = gain[k] * (act ? u : 0.0f);
            ((float *)b->limit_bias)[k] = (float)(-in->separation[k] / in->dt);
        } else {
            ((float *)b->separation)[k] = (float)in->separation[k];
        }
    }
}

/* row_solver's set-up of a group's constraint rows (`_solve_rows_tgs`, `_solve_rows_pgs`) into `b`'s fields (its V
   and R as `in`'s; hard: the rows' own flags; act written for TGS too); listed: the rows that act in some vehicle,
   hard_listed (TGS): those of them hard in some vehicle; the vehicles split over b->threads threads. 0: done. */
int pvu_constraint_rows(const ConstraintRows *in, const RowSolve *b) {
    const int64_t V = in->V, R = in->R;
#ifdef _OPENMP
    const int threads = b->threads > 1 ? (int)b->threads : 1; /* (each vehicle's rows its own: any split, the same) */
    if (threads > 1 && V > 1) {
#pragma omp parallel for schedule(static) num_threads(threads)
        for (int64_t v = 0; v < V; ++v) vehicle_constraint_rows(in, b, v);
    } else /* (one thread: outside OpenMP, whose region, even one an if clause keeps to this thread, costs a
              microsecond: a car's whole set-up) */
#endif
    for (int64_t v = 0; v < V; ++v) vehicle_constraint_rows(in, b, v);
    uint8_t *listed = (uint8_t *)b->listed, *hard_listed = (uint8_t *)b->hard_listed;
    for (int64_t r = 0; r < R; ++r) {
        uint8_t acts = 0, hard = 0;
        for (int64_t v = 0; v < V; ++v) {
            acts = acts | b->act[v * R + r];
            hard = hard | (in->hard[v * R + r] != 0);
        }
        listed[r] = acts;
        if (!in->pgs) hard_listed[r] = acts && hard;
    }
    return 0;
}

/* a contact row's Jacobian (stride between components `cs`) times a velocity (float32, as numpy promotes it) */
static inline double dot6_df(const double *j, int64_t cs, const float *y) {
    double total = j[0] * (double)y[0];
    for (int a = 1; a < 6; ++a) total = total + j[a * cs] * (double)y[a];
    return total;
}

static inline double dot6_dd(const double *j, int64_t cs, const double *y) {
    double total = j[0] * y[0];
    for (int a = 1; a < 6; ++a) total = total + j[a * cs] * y[a];
    return total;
}

static inline float dot6_ff(const float *j, int64_t cs, const float *y) {
    float total = j[0] * y[0];
    for (int a = 1; a < 6; ++a) total = total + j[a * cs] * y[a];
    return total;
}

/* TGS blocks: the vehicles a TGS solve steps side by side, each lane one vehicle's scalar arithmetic in its order (so
   the same bits as one at a time), every operation a loop over the lanes (one vector instruction, where a lone
   vehicle's sweep would wait on each row's result before the next row). Lanes from `lanes` on repeat a vehicle:
   computed, never stored. _row_solver_lanes.inl is the block's solve for TGS_LANES lanes, included once per width:
   16 lanes for a group of many vehicles, 1 for a few (a lone car would otherwise pay for 15 padded lanes). */
/* a block's rows, copied lane-major once (each number's lanes side by side: whole vectors for every sweep), and
   what the sweeps change, written back after the solve; flags as wide as the numbers they select */
typedef struct {
    float *J, *WJ;                                          /* (R, 6, L) */
    float *recip, *gain, *separation, *impulse;             /* (R, L) */
    int32_t *hard;                                          /* (R, L) */
    double *cJ, *cWJ;                                       /* (Pm, N, 6, L) */
    double *c_error, *c_target, *c_coefficient, *c_recip;   /* (Pm, N, L) */
    double *c_impulse;                                      /* (Pm, N, L) */
    int64_t *c_active;                                      /* (Pm, N, L) */
    double *fJ, *fWJ;                                       /* (Pm, M, 2, 6, L) */
    double *f_error, *f_gain, *friction;                    /* (Pm, M, 2, L) */
    int64_t *anchored;                                      /* (Pm, M, L) */
    double *limit_scale, *slide_scale;                      /* (Pm, L): scale times static, dynamic friction */
    int64_t *broken;                                        /* (Pm, L) */
    double *max_bias;                                       /* (L) */
} Lanes;

/* the bytes of a block's `Lanes` of L lanes (each array 64-byte aligned) */
static size_t lanes_bytes(const RowSolve *b, size_t L) {
    const size_t R = (size_t)b->R, P = (size_t)b->Pm, N = (size_t)b->N, M = (size_t)b->M;
    const size_t counts[] = {R * 6 * L * 4, R * 6 * L * 4, 5 * R * L * 4, P * N * 6 * L * 8 * 2, 6 * P * N * L * 8,
                             P * M * 2 * 6 * L * 8 * 2, 3 * P * M * 2 * L * 8, P * M * L * 8, 3 * P * L * 8, L * 8};
    size_t total = 0;
    for (size_t i = 0; i < sizeof counts / sizeof counts[0]; ++i) total += counts[i] + 64 * 6;
    return total + 64;
}

static void *carve(char **at, size_t bytes) {
    char *p = (char *)(((uintptr_t)*at + 63) & ~(uintptr_t)63);
    *at = p + bytes;
    return p;
}

#define LANE_NAME(name) name##_16
#define TGS_LANES 16
#include "_row_solver_lanes.inl"
#undef TGS_LANES
#undef LANE_NAME
#define LANE_NAME(name) name##_1
#define TGS_LANES 1
#include "_row_solver_lanes.inl"
#undef TGS_LANES
#undef LANE_NAME

/* a group this small is solved a vehicle at a time (blocks of 1) */
#define FEW_VEHICLES 8

/* `StaticContactRows.sweep_pgs` for vehicle v: x (float32) -> x, through float64 */
static void contact_sweep_pgs(const RowSolve *b, int64_t v, float *x, int biased, int friction) {
    const int64_t V = b->V, Pm = b->Pm, N = b->N, M = b->M;
    const int64_t cs = V * Pm * N, fs = V * Pm * M;
    double xd[6];
    for (int a = 0; a < 6; ++a) xd[a] = (double)x[a];
    for (int64_t q = 0; q < Pm; ++q) {
        double total = 0.0;
        for (int64_t j = 0; j < N; ++j) {
            if (!b->c_listed[q * N + j]) continue;
            const int64_t k = (v * Pm + q) * N + j;
            const double bias = biased ? b->c_pgs_bias[k] : min_d(b->c_pgs_bias[k], 0.0);
            const double lam = b->c_recip[k] * (bias - (dot6_dd(b->cJ + k, cs, xd) - b->c_target[k]));
            const double old = b->c_impulse[k];
            const double new = b->c_active[k] ? max_d(old + lam, 0.0) : 0.0;
            const double change = new - old;
            for (int a = 0; a < 6; ++a) xd[a] = xd[a] + b->cWJ[k + a * cs] * change;
            b->c_impulse[k] = new;
            total = total + new;
        }
        if (!friction) continue;
        int broken = 0;
        const int64_t p = v * Pm + q;
        const double limit = b->scale[p] * b->static_friction[p] * total;
        const double slide = b->scale[p] * b->dynamic_friction[p] * total;
        for (int64_t m = 0; m < M; ++m) {
            if (!b->a_listed[q * M + m]) continue;
            const int64_t k = p * M + m;
            const int anchored = b->anchored[k] != 0;
            for (int t = 0; t < 2; ++t) {
                const double *J = b->fJ + t * 6 * fs + k;
                const double bias = biased ? b->f_pgs_bias[t * fs + k] : 0.0;
                const double old = b->friction[k * 2 + t];
                const double wanted = old - b->f_gain[t * fs + k] * (dot6_dd(J, fs, xd) + bias);
                const int clamp = fabs(wanted) > limit;
                const double clipped = min_d(max_d(wanted, -slide), slide); /* np.clip */
                const double new = anchored ? (clamp ? clipped : wanted) : 0.0;
                broken = broken | (anchored && clamp);
                const double change = new - old;
                const double *WJ = b->fWJ + t * 6 * fs + k;
                for (int a = 0; a < 6; ++a) xd[a] = xd[a] + WJ[a * fs] * change;
                b->friction[k * 2 + t] = new;
            }
        }
        b->broken[p] = (uint8_t)broken;
    }
    for (int a = 0; a < 6; ++a) x[a] = (float)xd[a];
}

/* one PGS sweep of `_solve_rows_pgs` over vehicle v's rows */
static void pgs_sweep(const RowSolve *b, int64_t v, float *x, float *impulse, int biased, int friction) {
    const int64_t V = b->V, R = b->R, rs = V * R;
    for (int64_t r = 0; r < R; ++r) {
        if (!b->listed[r]) continue;
        const int64_t k = v * R + r;
        const float jv = dot6_ff(b->J + k, rs, x);
        float new;
        if (b->hard[k]) {
            const float bias = biased ? b->limit_bias[k] : 0.0f;
            new = max_f(impulse[r] + (bias - jv) * b->recip[k], 0.0f);
        } else if (b->act[k]) {
            new = b->impulse_kept[k] * impulse[r] - b->spring_gain[k] * jv;
        } else {
            new = impulse[r];
        }
        const float change = new - impulse[r];
        for (int a = 0; a < 6; ++a) x[a] = x[a] + b->WJ[k + a * rs] * change;
        impulse[r] = new;
    }
    if (b->Pm > 0) contact_sweep_pgs(b, v, x, biased, friction);
}

/* `_solve_rows_pgs` (without pairs) for vehicle v: the velocity after the position iterations (the pose's motion,
   which the caller integrates) and after the velocity iterations */
static void solve_vehicle_pgs(const RowSolve *b, int64_t v) {
    const int64_t V = b->V, n = b->iterations;
    float x[6];
    for (int a = 0; a < 6; ++a) x[a] = b->x[a * V + v];
    float *impulse = b->impulse + v * b->R;
    for (int64_t r = 0; r < b->R; ++r) impulse[r] = 0.0f;
    for (int64_t iteration = 0; iteration < n; ++iteration)
        pgs_sweep(b, v, x, impulse, 1, n - iteration <= b->friction_iterations);
    for (int a = 0; a < 6; ++a) b->motion[a * V + v] = x[a];
    const int64_t velocity_iterations = b->velocity_iterations > 1 ? b->velocity_iterations : 1;
    for (int64_t i = 0; i < velocity_iterations; ++i) pgs_sweep(b, v, x, impulse, 0, 1);
    for (int a = 0; a < 6; ++a) b->x[a * V + v] = x[a];
}

int pvu_rows_pgs(const RowSolve *b) {
    if (b->V <= 0) return 0;
#ifdef _OPENMP
    const int threads = b->threads > 1 ? (int)b->threads : 1;
#pragma omp parallel for schedule(static) num_threads(threads) if (threads > 1 && b->V > 1)
#endif
    for (int64_t v = 0; v < b->V; ++v) solve_vehicle_pgs(b, v);
    return 0;
}

/* pvu_rows_tgs' block `block` of `width` vehicles (its last maybe fewer), in `memory` (lanes_bytes of the width) */
static void solve_block(const RowSolve *b, int64_t width, int64_t block, char *memory) {
    const int64_t v0 = block * width, lanes = b->V - v0 < width ? b->V - v0 : width;
    if (width == 1)
        solve_vehicles_1(b, v0, lanes, memory);
    else
        solve_vehicles_16(b, v0, lanes, memory);
}

/* 0: done; -1: out of memory (nothing solved) */
int pvu_rows_tgs(const RowSolve *b) {
    if (b->V <= 0) return 0;
    const int64_t width = b->V < FEW_VEHICLES ? 1 : 16;
    const int64_t blocks = (b->V + width - 1) / width;
    const size_t bytes = lanes_bytes(b, (size_t)width);
#ifdef _OPENMP
    const int threads = b->threads > 1 ? (int)b->threads : 1;
    if (threads > 1 && blocks > 1) {
        int failed = 0;
#pragma omp parallel num_threads(threads) reduction(| : failed)
        {
            char *memory = malloc(bytes);
            failed = memory == NULL;
#pragma omp for schedule(static)
            for (int64_t block = 0; block < blocks; ++block)
                if (memory != NULL) solve_block(b, width, block, memory);
            free(memory);
        }
        return failed ? -1 : 0;
    }
#endif
    /* (one thread: outside OpenMP, as pvu_constraint_rows) */
    char *memory = malloc(bytes);
    if (memory == NULL) return -1;
    for (int64_t block = 0; block < blocks; ++block) solve_block(b, width, block, memory);
    free(memory);
    return 0;
}

/* vecmath.quat_integrate_exact applied n times: q <- normalize(dq q), dq = (cos, w sin / |w|) of each position
   iteration's half angle (their sines and cosines from numpy); q (4, V) in/out, angular (n, 3, V), sine and
   cosine (n, V); speed (n, V): each |w| (the square root of its squares' sum, as here; read for the rotations taken
   alone), or NULL: taken here; rotations (V): how many of the n each vehicle takes (NULL: all n). */
static inline __attribute__((always_inline)) void orientation(int64_t n, int64_t V, float *q, const float *angular,
                                                              int given, const float *speeds, const float *sine,
                                                              const float *cosine, const int64_t *rotations) {
    float *qw = q, *qx = q + V, *qy = q + 2 * V, *qz = q + 3 * V;
    for (int64_t i = 0; i < n; ++i) { /* rotation i of every vehicle, the vehicles side by side (vectorised) */
        const float *wx = angular + i * 3 * V, *wy = wx + V, *wz = wy + V;
        const float *si = sine + i * V, *co = cosine + i * V, *speed_i = speeds + (given ? i * V : 0);
#pragma omp simd
        for (int64_t v = 0; v < V; ++v) {
            const int turn = rotations == NULL || i < rotations[v];
            /* (a given speed read only for the rotations taken: the others' need not be written) */
            const float speed = given ? (turn ? speed_i[v] : 0.0f)
                                      : sqrtf(wx[v] * wx[v] + wy[v] * wy[v] + wz[v] * wz[v]);
            const float s = speed > 0.0f ? si[v] / speed : 0.0f;
            const float aw = co[v], ax = wx[v] * s, ay = wy[v] * s, az = wz[v] * s;
            const float w = aw * qw[v] - ax * qx[v] - ay * qy[v] - az * qz[v];
            const float x = aw * qx[v] + ax * qw[v] + ay * qz[v] - az * qy[v];
            const float y = aw * qy[v] - ax * qz[v] + ay * qw[v] + az * qx[v];
            const float z = aw * qz[v] + ax * qy[v] - ay * qx[v] + az * qw[v];
            const float length = sqrtf(w * w + x * x + y * y + z * z);
            qw[v] = turn ? w / length : qw[v];
            qx[v] = turn ? x / length : qx[v];
            qy[v] = turn ? y / length : qy[v];
            qz[v] = turn ? z / length : qz[v];
        }
    }
}

int pvu_rows_orientation(int64_t n, int64_t V, float *q, const float *angular, const float *sine,
                         const float *cosine, const int64_t *rotations) {
    orientation(n, V, q, angular, 0, NULL, sine, cosine, rotations);
    return 0;
}

/* pvu_rows_orientation with each rotation's angular speed given (speed (n, V), as the solve that wrote the half
   angles took it): a square root less per rotation */
int pvu_rows_orientation_speeds(int64_t n, int64_t V, float *q, const float *angular, const float *speed,
                                const float *sine, const float *cosine, const int64_t *rotations) {
    orientation(n, V, q, angular, 1, speed, sine, cosine, rotations);
    return 0;
}

enum { SOFT_L = PVU_SOFT_LANES };

/* the sweep matrix's step for one listed row of a block: G <- (I - g (W j) j^T) G, j^T G summed over a in order (a row
   not active in a lane has g = 0 there and leaves G as it is, as in numpy) */
static inline __attribute__((always_inline)) void soft_matrix_row(float G[6][6][SOFT_L], const float j[6][SOFT_L],
                                                                   const float wj[6][SOFT_L], const float g[SOFT_L]) {
    enum { L = SOFT_L };
    float gw[6][L];
    for (int i = 0; i < 6; ++i)
        for (int l = 0; l < L; ++l) gw[i][l] = g[l] * wj[i][l];
    /* column by column: column c of j^T G takes column c of G alone, and changes it alone (G's column loaded once) */
    for (int c = 0; c < 6; ++c) {
        float jG[L];
        for (int l = 0; l < L; ++l) jG[l] = j[0][l] * G[0][c][l];
        for (int a = 1; a < 6; ++a)
            for (int l = 0; l < L; ++l) jG[l] = jG[l] + j[a][l] * G[a][c][l];
        for (int i = 0; i < 6; ++i)
            for (int l = 0; l < L; ++l) G[i][c][l] = G[i][c][l] - gw[i][l] * jG[l];
    }
}

static inline __attribute__((always_inline)) void soft_identity(float G[6][6][SOFT_L]) {
    for (int i = 0; i < 6; ++i)
        for (int c = 0; c < 6; ++c)
            for (int l = 0; l < SOFT_L; ++l) G[i][c][l] = i == c ? 1.0f : 0.0f;
}

/* a block's n position iterations x <- G x from x_all and position_all (lanes v0 .. v0 + lanes - 1; lanes past them
   zeros, never stored), the position moved by x h each; each iteration's angular velocity and half angle written out,
   the velocity and position back (a whole block's as vectors) */
static inline __attribute__((always_inline)) void soft_iterations(const float G[6][6][SOFT_L], int64_t n, float h_f,
                                                                  int64_t V, int64_t v0, int64_t lanes, float *x_all,
                                                                  float *position_all, float *angular, float *half,
                                                                  float *speed_out) {
    enum { L = SOFT_L };
    float x[6][L], position[3][L];
    if (lanes == L) {
        for (int a = 0; a < 6; ++a)
            for (int l = 0; l < L; ++l) x[a][l] = x_all[a * V + v0 + l];
        for (int a = 0; a < 3; ++a)
            for (int l = 0; l < L; ++l) position[a][l] = position_all[a * V + v0 + l];
    } else
        for (int l = 0; l < L; ++l) {
            const int64_t v = v0 + (l < lanes ? l : 0);
            for (int a = 0; a < 6; ++a) x[a][l] = l < lanes ? x_all[a * V + v] : 0.0f;
            for (int a = 0; a < 3; ++a) position[a][l] = l < lanes ? position_all[a * V + v] : 0.0f;
        }
    for (int64_t it = 0; it < n; ++it) {
        float next[6][L], speed[L], half_angle[L];
        for (int i = 0; i < 6; ++i) {
            for (int l = 0; l < L; ++l) next[i][l] = G[i][0][l] * x[0][l];
            for (int c = 1; c < 6; ++c)
                for (int l = 0; l < L; ++l) next[i][l] = next[i][l] + G[i][c][l] * x[c][l];
        }
        /* the position moved by the new velocity (read from `next`: from x after the copy, GCC loaded its rows'
           halves across two of them, each load waiting on two stores) */
        for (int a = 0; a < 3; ++a)
            for (int l = 0; l < L; ++l) position[a][l] = position[a][l] + next[a][l] * h_f;
        memcpy(x, next, sizeof x);
        for (int l = 0; l < L; ++l) speed[l] = sqrtf(x[3][l] * x[3][l] + x[4][l] * x[4][l] + x[5][l] * x[5][l]);
        for (int l = 0; l < L; ++l) half_angle[l] = 0.5f * speed[l] * h_f;
        float *angular_it = angular + it * 3 * V + v0, *half_it = half + it * V + v0;
        float *speed_it = speed_out ? speed_out + it * V + v0 : NULL;
        if (lanes == L) {
            for (int a = 0; a < 3; ++a)
                for (int l = 0; l < L; ++l) angular_it[a * V + l] = x[3 + a][l];
            for (int l = 0; l < L; ++l) half_it[l] = half_angle[l];
            if (speed_out)
                for (int l = 0; l < L; ++l) speed_it[l] = speed[l];
        } else
            for (int64_t l = 0; l < lanes; ++l) {
                for (int a = 0; a < 3; ++a) angular_it[a * V + l] = x[3 + a][l];
                half_it[l] = half_angle[l];
                if (speed_out) speed_it[l] = speed[l];
            }
    }
    if (lanes == L) {
        for (int a = 0; a < 6; ++a)
            for (int l = 0; l < L; ++l) x_all[a * V + v0 + l] = x[a][l];
        for (int a = 0; a < 3; ++a)
            for (int l = 0; l < L; ++l) position_all[a * V + v0 + l] = position[a][l];
    } else
        for (int64_t l = 0; l < lanes; ++l) {
            for (int a = 0; a < 6; ++a) x_all[a * V + v0 + l] = x[a][l];
            for (int a = 0; a < 3; ++a) position_all[a * V + v0 + l] = position[a][l];
        }
}

/* row_solver._solve_soft_rows for every vehicle of a group of sticky rows only: per vehicle the sweep's matrix
   G = prod_r (I - g_r (W j_r) j_r^T) over the listed rows (in order; a row listed for the group but not active in
   this vehicle has g_r = 0 and leaves G as it is, as in numpy), then n position iterations x <- G x, the position
   moved by x h, each iteration's angular velocity and half angle written out for pvu_rows_orientation. float32
   throughout, sums in numpy's order. PVU_SOFT_LANES vehicles at a time, lane by lane the same operations (so the same
   bits as one at a time). J, WJ and gain anywhere, by their strides (element (a, v, r) of J at a * component +
   v * vehicle + r * row; of gain (v, r) at v * gain_vehicle + r * gain_row); listed (R), x (6, V) and
   position (3, V) in/out, angular (n, 3, V) and half (n, V) out. */
int pvu_rows_soft_strided(int64_t V, int64_t R, int64_t n, int64_t threads, const float *J, const float *WJ,
                          const float *gain, int64_t component, int64_t vehicle, int64_t row, int64_t gain_vehicle,
                          int64_t gain_row, const uint8_t *listed, float h_f, float *x_all, float *position_all,
                          float *angular, float *half) {
    enum { L = SOFT_L };
    const int64_t blocks = (V + L - 1) / L;
    const int contiguous = vehicle == 1 && gain_vehicle == 1; /* a row's lanes side by side */
#pragma omp parallel for schedule(static) num_threads(threads) if (threads > 1 && blocks > 1)
    for (int64_t block = 0; block < blocks; ++block) {
        const int64_t v0 = block * L, lanes = V - v0 < L ? V - v0 : L; /* lanes past V: zeros, never stored */
        float G[6][6][L];
        soft_identity(G);
        for (int64_t r = 0; r < R; ++r) {
            if (!listed[r]) continue;
            float j[6][L], wj[6][L], g[L];
            if (contiguous && lanes == L) { /* the same values, loaded as vectors */
                const float *gain_r = gain + v0 + r * gain_row;
                for (int l = 0; l < L; ++l) g[l] = gain_r[l];
                for (int a = 0; a < 6; ++a) {
                    const int64_t k = a * component + v0 + r * row;
                    for (int l = 0; l < L; ++l) j[a][l] = J[k + l];
                    for (int l = 0; l < L; ++l) wj[a][l] = WJ[k + l];
                }
            } else
                for (int l = 0; l < L; ++l) {
                    const int64_t v = v0 + (l < lanes ? l : 0);
                    g[l] = l < lanes ? gain[v * gain_vehicle + r * gain_row] : 0.0f;
                    for (int a = 0; a < 6; ++a) {
                        const int64_t k = a * component + v * vehicle + r * row;
                        j[a][l] = l < lanes ? J[k] : 0.0f;
                        wj[a][l] = l < lanes ? WJ[k] : 0.0f;
                    }
                }
            soft_matrix_row(G, j, wj, g);
        }
        if (lanes == L) /* (a whole block's copy: its lanes stored as vectors, none spilled one by one) */
            soft_iterations(G, n, h_f, V, v0, L, x_all, position_all, angular, half, NULL);
        else
            soft_iterations(G, n, h_f, V, v0, lanes, x_all, position_all, angular, half, NULL);
    }
    return 0;
}

/* pvu_rows_soft_strided for one block of vehicles v0 .. v0 + lanes - 1 (lanes <= PVU_SOFT_LANES) whose R rows are
   laid out lane-major already (`rows`, lanes past the vehicles anything finite or not: never stored); listed (R) the
   rows the sweep takes; speed (n, V) out: each iteration's angular speed, the half angle's |w| (for
   pvu_rows_orientation_speeds) */
void pvu_rows_soft_block(int64_t R, int64_t n, const SoftRow *rows, const uint8_t *listed, float h_f, int64_t V,
                         int64_t v0, int64_t lanes, float *x_all, float *position_all, float *angular, float *half,
                         float *speed) {
    float G[6][6][SOFT_L];
    soft_identity(G);
    for (int64_t r = 0; r < R; ++r)
        if (listed[r]) soft_matrix_row(G, rows[r].J, rows[r].WJ, rows[r].gain);
    if (lanes == SOFT_L) /* a whole block (every one of a fleet but its last): its own copy of the iterations, whose
                            lanes are stored as vectors (one copy for both: GCC spilled every lane for the partial
                            block's stores, each iteration, in front of the test) */
        soft_iterations(G, n, h_f, V, v0, SOFT_L, x_all, position_all, angular, half, speed);
    else
        soft_iterations(G, n, h_f, V, v0, lanes, x_all, position_all, angular, half, speed);
}

/* pvu_rows_soft_strided over numpy's arrays: J, WJ (6, V, R), gain (V, R) */
int pvu_rows_soft(int64_t V, int64_t R, int64_t n, int64_t threads, const float *J, const float *WJ,
                  const float *gain, const uint8_t *listed, float h_f, float *x_all, float *position_all,
                  float *angular, float *half) {
    return pvu_rows_soft_strided(V, R, n, threads, J, WJ, gain, V * R, R, 1, R, 1, listed, h_f, x_all, position_all,
                                 angular, half);
}

/* pipeline.constraint_rows from the wheels' arrays: the vehicles with a row that acts (a sticky flag, or a negative
   separation, of a wheel the mask keeps) or flagged in `also`, ascending; per vehicle, constraint by constraint
   (4 wheels each), the sticky longitudinal rows, the sticky lateral rows, then the suspension-limit rows of its
   wheels (PhysX's order): the direction, the arm, whether the row acts and the separation widened to double (0 for
   the sticky rows), the sticky rows' damping widened to double (0 for the limit rows) and which rows are limit rows
   (hard). Copies and comparisons alone: the same bits as numpy's stacking. The rows are written for the listed
   vehicles alone (Vr of them: (3, Vr, 3 W) from the start of linear_out, ...). */
typedef struct WheelRows {
    int64_t V, W;                                  /* vehicles of the batch, wheels */
    const float *lng_dir, *lat_dir, *normal, *arm; /* (3, V, W) */
    const float *separation;                       /* (V, W) */
    const float *lng_damping, *lat_damping;        /* (V, W): the sticky rows' (the parameters') */
    const uint8_t *sticky_lng, *sticky_lat, *mask; /* (V, W) */
    const uint8_t *also;                           /* (V) or NULL: vehicles listed whatever their rows */
    int64_t *vehicles_out;                         /* (V) out: the listed vehicles, the first Vr */
    double *separation_out;                        /* (Vr, 3 W) out */
    float *linear_out, *arm_out;                   /* (3, Vr, 3 W) out */
    double *damping_out;                           /* (Vr, 3 W) out */
    uint8_t *active_out, *hard_out;                /* (Vr, 3 W) out */
} WheelRows;

int64_t pvu_wheel_rows_size(void) { return (int64_t)sizeof(WheelRows); }

static inline int row_acts(const WheelRows *in, int kind, int64_t k) {
    const int acts = kind == 0 ? in->sticky_lng[k] != 0 : kind == 1 ? in->sticky_lat[k] != 0 : in->separation[k] < 0.0f;
    return acts && in->mask[k] != 0;
}

/* the number of listed vehicles (Vr) */
int64_t pvu_wheel_rows(const WheelRows *in) {
    const int64_t V = in->V, W = in->W, R = 3 * W, ws = V * W;
    int64_t Vr = 0;
    for (int64_t v = 0; v < V; ++v) {
        int listed = in->also != NULL && in->also[v] != 0;
        for (int64_t k = v * W; k < v * W + W && !listed; ++k)
            listed = row_acts(in, 0, k) | row_acts(in, 1, k) | row_acts(in, 2, k);
        if (listed) in->vehicles_out[Vr++] = v;
    }
    const int64_t rs = Vr * R;
    for (int64_t i = 0; i < Vr; ++i) {
        const int64_t vehicle = in->vehicles_out[i];
        int64_t r = i * R;
        for (int64_t first = 0; first < W; first += 4) {
            const int64_t last = first + 4 < W ? first + 4 : W;
            for (int kind = 0; kind < 3; ++kind) {
                const float *direction = kind == 0 ? in->lng_dir : kind == 1 ? in->lat_dir : in->normal;
                for (int64_t w = first; w < last; ++w, ++r) {
                    const int64_t k = vehicle * W + w;
                    for (int c = 0; c < 3; ++c) {
                        in->linear_out[c * rs + r] = direction[c * ws + k];
                        in->arm_out[c * rs + r] = in->arm[c * ws + k];
                    }
                    in->active_out[r] = (uint8_t)row_acts(in, kind, k);
                    in->separation_out[r] = kind == 2 ? (double)in->separation[k] : 0.0;
                    in->damping_out[r] = kind == 0 ? (double)in->lng_damping[k]
                                         : kind == 1 ? (double)in->lat_damping[k] : 0.0;
                    in->hard_out[r] = kind == 2;
                }
            }
        }
    }
    return Vr;
}

/* pvu_wheel_rows with its outputs in one block, its address in vehicles_out (sim/compiled_wheel_rows.py's layout):
   the vehicles (V int64), then separation (V 3 W double), linear and arm (3 V 3 W float each), damping (V 3 W
   double), active and hard (V 3 W bytes each), each sized for every vehicle of the batch, the first Vr written */
int64_t pvu_wheel_rows_block(const WheelRows *in) {
    WheelRows w = *in;
    const int64_t V = in->V, R = 3 * in->W;
    char *block = (char *)in->vehicles_out;
    w.separation_out = (double *)(block + 8 * V);
    w.linear_out = (float *)(block + 8 * V + 8 * V * R);
    w.arm_out = (float *)(block + 8 * V + 20 * V * R);
    w.damping_out = (double *)(block + 8 * V + 32 * V * R);
    w.active_out = (uint8_t *)(block + 8 * V + 40 * V * R);
    w.hard_out = w.active_out + V * R;
    return pvu_wheel_rows(&w);
}
