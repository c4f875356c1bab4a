/* The static contact rows of one solve group (sim/contact_rows.py `StaticContactRows.__init__`, and
   `prepare_pgs_constants` for PGS), compiled: from the patches (sim/solver_rows.py `PatchRows`, float64, C order)
   straight into the arrays the row solve sweeps (`RowSolve`'s contact fields, sim/_row_solver.h), one call a step.

   Per vehicle, the numpy code's arithmetic in its order and precision: float64 throughout (the patches are float64;
   the body's float32 mass, inertia, rotation and velocity are widened exactly, as `.astype(float)` does), the
   rotation made from the begin orientation as vecmath.quat_to_mat makes it (float32). Sums of
   three products (vecmath.dot) are taken left to right; einsum's sums (vecmath.matvec, matTvec, the rows' relative
   velocity) start from +0 and add their products in order, so a sum of -0 products is +0 here as there. Built with
   -ffp-contract=off: no fused multiply-adds. Divisions stay divisions (numpy divides by the mass and inertia).

   Layout of the outputs: `RowSolve`'s, which the caller points into its buffers (the fields are const for the
   solve; this call is the one that writes them). c_active and anchored are the patches' own flags, static and
   dynamic friction the patches' own arrays: not written here. */
#include <math.h>
#include <stdint.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "_row_solver.h"

/* the patches of the vehicles of one solve group and their bodies at the begin pose */
typedef struct {
    int64_t V, Pm, N, M, threads; /* N points a patch, M anchors a patch */
    int64_t pgs;                  /* also PGS's constants (c_pgs_bias, f_pgs_bias) */
    int64_t batch;                /* the vehicles of the batch: the stride of moi and orientation */
    double h, dt, p8;             /* the sub-step, the step, min(0.8, 2 sqrt(1 / iterations)) */
    /* sim/solver_rows.py PatchRows */
    const uint8_t *point_active;             /* (V, Pm, N) */
    const double *arm;                       /* (3, V, Pm, N) */
    const double *separation;                /* (V, Pm, N) */
    const double *normal;                    /* (3, V, Pm) */
    const double *rest_distance;             /* (V, Pm) */
    const double *restitution;               /* (V, Pm) */
    const uint8_t *anchor_active;            /* (V, Pm, M) */
    const double *anchor_arm, *anchor_error; /* (3, V, Pm, M) */
    const double *bounce_threshold;          /* (V) */
    /* the bodies */
    const int64_t *vehicles;                     /* (V): each one's index in the batch */
    const float *mass, *moi, *max_depenetration; /* (batch), (3, batch), (batch) */
    const float *orientation;                    /* (4, batch): the begin pose */
    const float *x;                              /* (6, V): the velocity the solve starts from */
} ContactPatches;

/* pvu_kept_tgs_step: the group is not one it solves (nothing done) */
enum { PVU_KEPT_NOT_COVERED = -1 };

int64_t pvu_contact_patches_size(void) { return (int64_t)sizeof(ContactPatches); }

/* numpy's maximum and minimum: a NaN in either operand is the result */
static inline double max_d(double a, double b) { return (a >= b || a != a) ? a : b; }
static inline double min_d(double a, double b) { return (a <= b || a != a) ? a : b; }

static inline double dot3(const double a[3], const double b[3]) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }

/* vecmath.cross */
static inline void cross(const double a[3], const double b[3], double out[3]) {
    out[0] = a[1] * b[2] - a[2] * b[1];
    out[1] = a[2] * b[0] - a[0] * b[2];
    out[2] = a[0] * b[1] - a[1] * b[0];
}

/* a body's response to rows: its rotation, inverse mass and inertia as StaticContactRows' `jacobian` takes them */
typedef struct {
    double R[3][3], mass, moi[3];
} Body;

/* StaticContactRows' `jacobian` of one row: its direction `linear` acting at `arm` -> J and W J (written at `at`,
   component stride `cs`), and the unit response J W J */
static double row_jacobian(const Body *body, const double linear[3], const double arm[3], double *J, double *WJ,
                           int64_t at, int64_t cs) {
    double ang[3], local[3], w_ang[3], w_lin[3];
    cross(arm, linear, ang);
    for (int i = 0; i < 3; ++i) { /* matTvec, then over the inertia */
        double total = 0.0;
        for (int j = 0; j < 3; ++j) total = total + body->R[j][i] * ang[j];
        local[i] = total / body->moi[i];
    }
    for (int i = 0; i < 3; ++i) { /* matvec */
        double total = 0.0;
        for (int j = 0; j < 3; ++j) total = total + body->R[i][j] * local[j];
        w_ang[i] = total;
    }
    for (int a = 0; a < 3; ++a) w_lin[a] = linear[a] / body->mass;
    for (int a = 0; a < 3; ++a) {
        J[at + a * cs] = linear[a];
        J[at + (3 + a) * cs] = ang[a];
        WJ[at + a * cs] = w_lin[a];
        WJ[at + (3 + a) * cs] = w_ang[a];
    }
    return dot3(linear, w_lin) + dot3(ang, w_ang);
}

/* contact_rows._friction_axes: t0 along the tangential part of v (else a fixed axis square to n), t1 = n x t0 */
static void friction_axes(const double n[3], const double v[3], double t0[3], double t1[3]) {
    const double nv = dot3(n, v);
    double t[3];
    for (int a = 0; a < 3; ++a) t[a] = v[a] - n[a] * nv;
    if (!(dot3(t, t) > 1e-4)) { /* contact_rows._FRICTION_AXIS_MIN_SPEED_SQ */
        if (fabs(n[0]) < 0.70710678) {
            t[0] = 0.0, t[1] = -n[2], t[2] = n[1];
        } else {
            t[0] = -n[1], t[1] = n[0], t[2] = 0.0;
        }
    }
    const double length = max_d(sqrt(dot3(t, t)), 1e-30);
    for (int a = 0; a < 3; ++a) t0[a] = t[a] / length;
    cross(n, t0, t);
    const double length1 = max_d(sqrt(dot3(t, t)), 1e-30);
    for (int a = 0; a < 3; ++a) t1[a] = t[a] / length1;
}

/* vehicle v's rows */
static void vehicle_rows(const ContactPatches *in, const RowSolve *b, int64_t v) {
    const int64_t V = in->V, Pm = in->Pm, N = in->N, M = in->M;
    const int64_t cs = V * Pm * N, fs = V * Pm * M, ps = V * Pm; /* component strides */
    double *cJ = (double *)b->cJ, *cWJ = (double *)b->cWJ, *fJ = (double *)b->fJ, *fWJ = (double *)b->fWJ;
    double *recip = (double *)b->c_recip, *target = (double *)b->c_target, *error = (double *)b->c_error;
    double *bias_coefficient = (double *)b->c_bias_coefficient, *gain = (double *)b->f_gain;
    double *f_error = (double *)b->f_error, *scale = (double *)b->scale;
    const int64_t vehicle = in->vehicles[v];
    const int64_t batch = in->batch;
    const float q[4] = {in->orientation[vehicle], in->orientation[batch + vehicle],
                        in->orientation[2 * batch + vehicle], in->orientation[3 * batch + vehicle]};
    float R[3][3]; /* vecmath.quat_to_mat, then widened (the numpy rows take it `.astype(float)`) */
    pvu_rotation_matrix(q, R);
    Body body;
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) body.R[i][j] = (double)R[i][j];
    body.mass = (double)in->mass[vehicle];
    for (int a = 0; a < 3; ++a) body.moi[a] = (double)in->moi[a * in->batch + vehicle];
    double x[6];
    for (int a = 0; a < 6; ++a) x[a] = (double)in->x[a * V + v];
    const double max_bias = (double)in->max_depenetration[vehicle];
    ((double *)b->c_max_bias)[v] = max_bias;
    const double above = -(1.0 / in->h), below = -(in->p8 / in->h); /* _normal_row_targets' bias coefficients */
    for (int64_t q = 0; q < Pm; ++q) {
        const int64_t p = v * Pm + q;
        const double n[3] = {in->normal[p], in->normal[ps + p], in->normal[2 * ps + p]};
        const double rest = in->rest_distance[p], e = in->restitution[p];
        for (int64_t j = 0; j < N; ++j) { /* the normal rows */
            const int64_t k = p * N + j;
            const double arm[3] = {in->arm[k], in->arm[cs + k], in->arm[2 * cs + k]};
            const double u = row_jacobian(&body, n, arm, cJ, cWJ, k, cs);
            const int ok = in->point_active[k] && u > 0.0;
            recip[k] = ok ? 1.0 / u : 0.0;
            double vrel = 0.0; /* einsum of J and x */
            for (int a = 0; a < 6; ++a) vrel = vrel + cJ[k + a * cs] * x[a];
            /* _normal_row_targets */
            const double penetration = in->separation[k] - rest;
            bias_coefficient[k] = penetration > 0.0 ? above : below;
            const int bouncing = e > 0.0 && -vrel > in->bounce_threshold[v] && -vrel > penetration / in->dt;
            const double goal = bouncing ? -vrel * e : 0.0;
            target[k] = goal;
            error[k] = penetration + (bouncing ? goal * (in->dt + penetration / vrel) : 0.0);
            if (in->pgs) /* prepare_pgs_constants: with h = dt the geometric error is the penetration */
                ((double *)b->c_pgs_bias)[k] = goal != 0.0 ? 0.0 : min_d(max_bias, bias_coefficient[k] * error[k]);
            ((double *)b->c_impulse)[k] = 0.0;
        }
        double t[2][3];
        const double v_lin[3] = {x[0], x[1], x[2]};
        friction_axes(n, v_lin, t[0], t[1]);
        int anchors = 0;
        for (int64_t m = 0; m < M; ++m) { /* the friction rows: per anchor, both axes */
            const int64_t k = p * M + m;
            const double arm[3] = {in->anchor_arm[k], in->anchor_arm[fs + k], in->anchor_arm[2 * fs + k]};
            const double drift[3] = {in->anchor_error[k], in->anchor_error[fs + k], in->anchor_error[2 * fs + k]};
            anchors += in->anchor_active[k] != 0;
            for (int axis = 0; axis < 2; ++axis) {
                const int64_t at = axis * 6 * fs + k, each = axis * fs + k;
                const double u = row_jacobian(&body, t[axis], arm, fJ, fWJ, at, fs);
                const int ok = in->anchor_active[k] && u > 0.0;
                gain[each] = ok ? in->p8 / u : 0.0;
                f_error[each] = dot3(drift, t[axis]);
                if (in->pgs) ((double *)b->f_pgs_bias)[each] = f_error[each] / in->dt;
                ((double *)b->friction)[k * 2 + axis] = 0.0;
            }
        }
        scale[p] = anchors == 2 ? 0.5 : 1.0;
        ((uint8_t *)b->broken)[p] = 0;
    }
}

/* Vehicles side by side: CONTACT_LANES vehicles' rows at a time, each lane one vehicle's arithmetic of
   `vehicle_rows` in its order (the same bits), every operation a loop over the lanes (one vector instruction: a lone
   vehicle's rows wait on each division's result, a row's response and its reciprocal one after the other). The
   branches of `friction_axes` and of the targets are selects (both sides computed, one kept). The vehicles past the
   last whole block of lanes take `vehicle_rows`. */
#define CONTACT_LANES 8
#define LANES _Pragma("omp simd") for (int l = 0; l < CONTACT_LANES; ++l)

typedef struct {
    double R[3][3][CONTACT_LANES], mass[CONTACT_LANES], moi[3][CONTACT_LANES];
} BodyLanes;

/* `row_jacobian` of one row in each lane (its J and W J written at at[l], component stride cs): its unit response u
   and angular Jacobian ang */
static inline void row_jacobian_lanes(const BodyLanes *body, const double linear[3][CONTACT_LANES],
                                      const double arm[3][CONTACT_LANES], double *J, double *WJ,
                                      const int64_t at[CONTACT_LANES], int64_t cs, double u[CONTACT_LANES],
                                      double ang[3][CONTACT_LANES]) {
    enum { L = CONTACT_LANES };
    double local[3][L], w_ang[3][L], w_lin[3][L];
    LANES {
        ang[0][l] = arm[1][l] * linear[2][l] - arm[2][l] * linear[1][l];
        ang[1][l] = arm[2][l] * linear[0][l] - arm[0][l] * linear[2][l];
        ang[2][l] = arm[0][l] * linear[1][l] - arm[1][l] * linear[0][l];
    }
    for (int i = 0; i < 3; ++i) /* matTvec, then over the inertia */
        LANES {
            double total = 0.0;
            for (int j = 0; j < 3; ++j) total = total + body->R[j][i][l] * ang[j][l];
            local[i][l] = total / body->moi[i][l];
        }
    for (int i = 0; i < 3; ++i) /* matvec */
        LANES {
            double total = 0.0;
            for (int j = 0; j < 3; ++j) total = total + body->R[i][j][l] * local[j][l];
            w_ang[i][l] = total;
        }
    for (int a = 0; a < 3; ++a) LANES w_lin[a][l] = linear[a][l] / body->mass[l];
    for (int l = 0; l < L; ++l)
        for (int a = 0; a < 3; ++a) {
            J[at[l] + a * cs] = linear[a][l];
            J[at[l] + (3 + a) * cs] = ang[a][l];
            WJ[at[l] + a * cs] = w_lin[a][l];
            WJ[at[l] + (3 + a) * cs] = w_ang[a][l];
        }
    LANES u[l] = (linear[0][l] * w_lin[0][l] + linear[1][l] * w_lin[1][l] + linear[2][l] * w_lin[2][l])
                 + (ang[0][l] * w_ang[0][l] + ang[1][l] * w_ang[1][l] + ang[2][l] * w_ang[2][l]);
}

/* `friction_axes` in each lane */
static inline void friction_axes_lanes(const double n[3][CONTACT_LANES], const double v[3][CONTACT_LANES],
                                       double t0[3][CONTACT_LANES], double t1[3][CONTACT_LANES]) {
    LANES {
        const double nv = n[0][l] * v[0][l] + n[1][l] * v[1][l] + n[2][l] * v[2][l];
        double t[3];
        for (int a = 0; a < 3; ++a) t[a] = v[a][l] - n[a][l] * nv;
        const int fallback = !(t[0] * t[0] + t[1] * t[1] + t[2] * t[2] > 1e-4); /* _FRICTION_AXIS_MIN_SPEED_SQ */
        const int across_x = fabs(n[0][l]) < 0.70710678;
        t[0] = fallback ? (across_x ? 0.0 : -n[1][l]) : t[0];
        t[1] = fallback ? (across_x ? -n[2][l] : n[0][l]) : t[1];
        t[2] = fallback ? (across_x ? n[1][l] : 0.0) : t[2];
        const double length = max_d(sqrt(t[0] * t[0] + t[1] * t[1] + t[2] * t[2]), 1e-30);
        for (int a = 0; a < 3; ++a) t0[a][l] = t[a] / length;
        t[0] = n[1][l] * t0[2][l] - n[2][l] * t0[1][l];
        t[1] = n[2][l] * t0[0][l] - n[0][l] * t0[2][l];
        t[2] = n[0][l] * t0[1][l] - n[1][l] * t0[0][l];
        const double length1 = max_d(sqrt(t[0] * t[0] + t[1] * t[1] + t[2] * t[2]), 1e-30);
        for (int a = 0; a < 3; ++a) t1[a][l] = t[a] / length1;
    }
}

/* `vehicle_rows` for the vehicles v0 .. v0 + CONTACT_LANES - 1 */
static void vehicle_rows_lanes(const ContactPatches *in, const RowSolve *b, int64_t v0) {
    enum { L = CONTACT_LANES };
    const int64_t V = in->V, Pm = in->Pm, N = in->N, M = in->M, batch = in->batch;
    const int64_t cs = V * Pm * N, fs = V * Pm * M, ps = V * Pm; /* component strides */
    double *cJ = (double *)b->cJ, *cWJ = (double *)b->cWJ, *fJ = (double *)b->fJ, *fWJ = (double *)b->fWJ;
    double *recip = (double *)b->c_recip, *target = (double *)b->c_target, *error = (double *)b->c_error;
    double *bias_coefficient = (double *)b->c_bias_coefficient, *gain = (double *)b->f_gain;
    double *f_error = (double *)b->f_error, *scale = (double *)b->scale;
    BodyLanes body;
    double x[6][L], max_bias[L];
    for (int l = 0; l < L; ++l) {
        const int64_t v = v0 + l, vehicle = in->vehicles[v];
        const float q[4] = {in->orientation[vehicle], in->orientation[batch + vehicle],
                            in->orientation[2 * batch + vehicle], in->orientation[3 * batch + vehicle]};
        float R[3][3]; /* vecmath.quat_to_mat, then widened (the numpy rows take it `.astype(float)`) */
        pvu_rotation_matrix(q, R);
        for (int i = 0; i < 3; ++i)
            for (int j = 0; j < 3; ++j) body.R[i][j][l] = (double)R[i][j];
        body.mass[l] = (double)in->mass[vehicle];
        for (int a = 0; a < 3; ++a) body.moi[a][l] = (double)in->moi[a * batch + vehicle];
        for (int a = 0; a < 6; ++a) x[a][l] = (double)in->x[a * V + v];
        max_bias[l] = (double)in->max_depenetration[vehicle];
        ((double *)b->c_max_bias)[v] = max_bias[l];
    }
    const double above = -(1.0 / in->h), below = -(in->p8 / in->h); /* _normal_row_targets' bias coefficients */
    for (int64_t q = 0; q < Pm; ++q) {
        int64_t p[L], k[L], at[L];
        double n[3][L], arm[3][L], u[L], ang[3][L];
        LANES p[l] = (v0 + l) * Pm + q;
        for (int i = 0; i < 3; ++i) LANES n[i][l] = in->normal[i * ps + p[l]];
        for (int64_t j = 0; j < N; ++j) { /* the normal rows */
            LANES k[l] = p[l] * N + j;
            for (int i = 0; i < 3; ++i) LANES arm[i][l] = in->arm[i * cs + k[l]];
            row_jacobian_lanes(&body, n, arm, cJ, cWJ, k, cs, u, ang);
            LANES {
                const int ok = in->point_active[k[l]] && u[l] > 0.0;
                recip[k[l]] = ok ? 1.0 / u[l] : 0.0;
                /* einsum of J and x: from +0, the six products in order */
                const double vrel = (((((0.0 + n[0][l] * x[0][l]) + n[1][l] * x[1][l]) + n[2][l] * x[2][l])
                                      + ang[0][l] * x[3][l]) + ang[1][l] * x[4][l]) + ang[2][l] * x[5][l];
                /* _normal_row_targets */
                const double rest = in->rest_distance[p[l]], e = in->restitution[p[l]];
                const double penetration = in->separation[k[l]] - rest;
                const double coefficient = penetration > 0.0 ? above : below;
                bias_coefficient[k[l]] = coefficient;
                const int bouncing = e > 0.0 && -vrel > in->bounce_threshold[v0 + l] && -vrel > penetration / in->dt;
                const double goal = bouncing ? -vrel * e : 0.0;
                target[k[l]] = goal;
                const double err = penetration + (bouncing ? goal * (in->dt + penetration / vrel) : 0.0);
                error[k[l]] = err;
                if (in->pgs) /* prepare_pgs_constants: with h = dt the geometric error is the penetration */
                    ((double *)b->c_pgs_bias)[k[l]] = goal != 0.0 ? 0.0 : min_d(max_bias[l], coefficient * err);
                ((double *)b->c_impulse)[k[l]] = 0.0;
            }
        }
        double t[2][3][L];
        friction_axes_lanes(n, x, t[0], t[1]);
        int64_t anchors[L];
        LANES anchors[l] = 0;
        for (int64_t m = 0; m < M; ++m) { /* the friction rows: per anchor, both axes */
            double drift[3][L];
            LANES k[l] = p[l] * M + m;
            for (int i = 0; i < 3; ++i)
                LANES arm[i][l] = in->anchor_arm[i * fs + k[l]], drift[i][l] = in->anchor_error[i * fs + k[l]];
            LANES anchors[l] += in->anchor_active[k[l]] != 0;
            for (int axis = 0; axis < 2; ++axis) {
                LANES at[l] = axis * 6 * fs + k[l];
                row_jacobian_lanes(&body, t[axis], arm, fJ, fWJ, at, fs, u, ang);
                LANES {
                    const int64_t each = axis * fs + k[l];
                    const int ok = in->anchor_active[k[l]] && u[l] > 0.0;
                    gain[each] = ok ? in->p8 / u[l] : 0.0;
                    const double drifted = drift[0][l] * t[axis][0][l] + drift[1][l] * t[axis][1][l]
                                           + drift[2][l] * t[axis][2][l];
                    f_error[each] = drifted;
                    if (in->pgs) ((double *)b->f_pgs_bias)[each] = drifted / in->dt;
                    ((double *)b->friction)[k[l] * 2 + axis] = 0.0;
                }
            }
        }
        LANES {
            scale[p[l]] = anchors[l] == 2 ? 0.5 : 1.0;
            ((uint8_t *)b->broken)[p[l]] = 0;
        }
    }
}

#undef LANES

/* StaticContactRows.__init__ (and prepare_pgs_constants where `pgs`) for every vehicle of `in`, into the contact
   fields of `b` (its Pm, N, M as `in`'s); c_listed and a_listed: the rows active in some vehicle. 0: done. */
int pvu_contact_rows(const ContactPatches *in, const RowSolve *b) {
    const int64_t V = in->V, Pm = in->Pm, N = in->N, M = in->M;
    if (V <= 0 || Pm <= 0) return 0;
    /* whole blocks of lanes, then the vehicles past them one at a time */
    const int64_t blocks = V / CONTACT_LANES, units = blocks + V % CONTACT_LANES;
#ifdef _OPENMP
    const int threads = in->threads > 1 ? (int)in->threads : 1;
    if (threads > 1 && units > 1) {
#pragma omp parallel for schedule(static) num_threads(threads)
        for (int64_t unit = 0; unit < units; ++unit) {
            if (unit < blocks)
                vehicle_rows_lanes(in, b, unit * CONTACT_LANES);
            else
                vehicle_rows(in, b, blocks * CONTACT_LANES + unit - blocks);
        }
    } else /* (one thread: the same loop outside OpenMP, whose region costs as much as a car's rows) */
#endif
    for (int64_t unit = 0; unit < units; ++unit) {
        if (unit < blocks)
            vehicle_rows_lanes(in, b, unit * CONTACT_LANES);
        else
            vehicle_rows(in, b, blocks * CONTACT_LANES + unit - blocks);
    }
    uint8_t *c_listed = (uint8_t *)b->c_listed, *a_listed = (uint8_t *)b->a_listed;
    memset(c_listed, 0, (size_t)(Pm * N));
    memset(a_listed, 0, (size_t)(Pm * M));
    for (int64_t v = 0; v < V; ++v) {
        for (int64_t k = 0; k < Pm * N; ++k) c_listed[k] = c_listed[k] | (in->point_active[v * Pm * N + k] != 0);
        for (int64_t k = 0; k < Pm * M; ++k) a_listed[k] = a_listed[k] | (in->anchor_active[v * Pm * M + k] != 0);
    }
    return 0;
}

/* compiled_kept_solve._KeptTGS's step, in one call: the group's contact rows (`pvu_contact_rows`), its constraint
   rows (`pvu_constraint_rows`, _row_solver.c) and the TGS iterations (`pvu_rows_tgs`). 0: done; else the first
   failure's status (nothing solved). */
int pvu_rows_tgs_contacts(const ContactPatches *patches, const ConstraintRows *rows, const RowSolve *b) {
    int status = pvu_contact_rows(patches, b);
    if (status == 0) status = pvu_constraint_rows(rows, b);
    if (status == 0) status = pvu_rows_tgs(b);
    return status;
}

/* compiled_kept_solve._KeptTGS's step of a group of every vehicle of the batch (`solve_every`), the arguments kept
   from step to step with its structs: the step's addresses (`step`, in compiled_kept_solve's order) spread into the
   structs' words, the end velocities' and the wheel rows' (`spread`: per row the target, 0 the solve's structs, 1 the
   velocities', 2 the wheel rows', its word, the step's word), then `pvu_kept_tgs_step` and, once numpy has taken the
   sines and cosines of the half angles, `pvu_kept_tgs_finish`. */
typedef struct {
    int64_t spread_count;
    const int64_t *spread;          /* (spread_count, 3) */
    int64_t *solve_words;           /* the solve's structs (RowSolve, ContactPatches, ConstraintRows) as words */
    int64_t *velocity_words;        /* sim/_end_step.c's struct of the velocities before the rows, as words */
    int64_t *wheel_words;           /* or NULL: _row_solver.c's WheelRows, which the constraint rows read */
    const int64_t *step;            /* the step's words */
    int64_t begin_position_word, begin_orientation_word, out_word; /* which of them: (3, V), (4, V), the outputs */
    const ContactPatches *patches;
    const ConstraintRows *rows;
    const RowSolve *solve;
    const float *sine, *cosine;     /* (iterations, V): numpy's, of the solve's half angles */
    /* where the outputs lie in the step's block (bytes): velocity (6, V), position (3, V), orientation (4, V) float32;
       the contacts' impulse (V, Pm, N), friction (V, Pm, M, 2) float64, which slid (V, Pm) */
    int64_t out_velocity, out_position, out_orientation, out_impulse, out_friction, out_broken;
} KeptStep;

int64_t pvu_kept_step_size(void) { return (int64_t)sizeof(KeptStep); }

/* the step up to the rotations: its addresses spread; every vehicle checked to have a contact point or an active
   limit row (row_solver.solve_every_vehicle_with_contacts' group: else PVU_KEPT_NOT_COVERED and nothing else done, a
   vehicle with sticky rows alone being the soft solve's), with `wheel_words` after the constraint rows are made from
   the wheels (every vehicle listed: else PVU_KEPT_NOT_COVERED); the velocities formed into the solve's x; the position
   started from the begin pose; the rows set up and iterated (`pvu_rows_tgs_contacts`). 0: done. */
int pvu_kept_tgs_step(const KeptStep *k) {
    int64_t *targets[3] = {k->solve_words, k->velocity_words, k->wheel_words};
    for (int64_t i = 0; i < k->spread_count; ++i) {
        const int64_t *row = k->spread + 3 * i;
        targets[row[0]][row[1]] = k->step[row[2]];
    }
    const RowSolve *b = k->solve;
    const int64_t V = b->V, points = b->Pm * b->N, R = b->R;
    if (k->wheel_words != NULL && pvu_wheel_rows_block((const struct WheelRows *)k->wheel_words) != V)
        return PVU_KEPT_NOT_COVERED;
    for (int64_t v = 0; v < V; ++v) {
        int held = 0;
        for (int64_t j = 0; j < points && !held; ++j) held = k->patches->point_active[v * points + j] != 0;
        for (int64_t r = 0; r < R && !held; ++r)
            held = k->rows->active[v * R + r] != 0 && k->rows->hard[v * R + r] != 0;
        if (!held) return PVU_KEPT_NOT_COVERED;
    }
    const int status = pvu_end_velocity((const struct EndStep *)k->velocity_words);
    if (status != 0) return status;
    memcpy(b->position, (const float *)k->step[k->begin_position_word], (size_t)(3 * V) * sizeof(float));
    return pvu_rows_tgs_contacts(k->patches, k->rows, b);
}

/* the step's end: the orientation from the begin pose rotated (`pvu_rows_orientation`), and what leaves the solve
   copied out of the kept buffers into the step's block. 0: done. */
int pvu_kept_tgs_finish(const KeptStep *k) {
    const RowSolve *b = k->solve;
    const int64_t V = b->V, E = b->V * b->Pm;
    char *out = (char *)k->step[k->out_word];
    float *orientation = (float *)(out + k->out_orientation);
    memcpy(orientation, (const float *)k->step[k->begin_orientation_word], (size_t)(4 * V) * sizeof(float));
    pvu_rows_orientation(b->iterations, V, orientation, b->angular, k->sine, k->cosine, NULL);
    memcpy(out + k->out_velocity, b->x, (size_t)(6 * V) * sizeof(float));
    memcpy(out + k->out_position, b->position, (size_t)(3 * V) * sizeof(float));
    memcpy(out + k->out_impulse, b->c_impulse, (size_t)(E * b->N) * sizeof(double));
    memcpy(out + k->out_friction, b->friction, (size_t)(E * b->M * 2) * sizeof(double));
    memcpy(out + k->out_broken, b->broken, (size_t)E);
    return 0;
}
