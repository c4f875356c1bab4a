/* The row solver's call (sim/_row_solver.c): the struct compiled_row_structs.py mirrors, the solves other C files of
   the extension call (sim/_end_step.c), and the rotation the set-ups of its rows share (_row_solver.c,
   _contact_rows.c). */
#ifndef PVU_ROW_SOLVER_H
#define PVU_ROW_SOLVER_H

#include <stdint.h>

typedef struct {
    int64_t V, R, Pm, N, M, iterations, velocity_iterations, threads;
    double h, dt, friction_bias;
    float h_f, bias_scale, max_bias; /* h, sqrt(n) / dt and 0.75 / dt rounded to float32 */
    /* constraint rows (sticky, limit), written by pvu_constraint_rows (_row_solver.c) or sim/_end_step.c */
    const float *J, *WJ;                           /* (6, V, R) */
    const float *recip, *spring_gain, *separation; /* (V, R) */
    const uint8_t *hard;                           /* (V, R) */
    const uint8_t *listed, *hard_listed;           /* (R): active in some vehicle of the group; and hard in some */
    float *impulse;                                /* (V, R) out */
    /* contact rows (Pm == 0: none), written by pvu_contact_rows (sim/_contact_rows.c) */
    const double *cJ, *cWJ;                                        /* (6, V, Pm, N) */
    const double *c_recip, *c_target, *c_error, *c_bias_coefficient; /* (V, Pm, N) */
    const double *c_max_bias;                                      /* (V) */
    const uint8_t *c_active;                                       /* (V, Pm, N) */
    const uint8_t *c_listed;                                       /* (Pm, N) */
    const double *fJ, *fWJ;                                        /* (2, 6, V, Pm, M) */
    const double *f_gain, *f_error;                                /* (2, V, Pm, M) */
    const uint8_t *anchored;                                       /* (V, Pm, M) */
    const uint8_t *a_listed;                                       /* (Pm, M) */
    const double *scale, *static_friction, *dynamic_friction;      /* (V, Pm) */
    double *c_impulse;                                             /* (V, Pm, N) out */
    double *friction;                                              /* (V, Pm, M, 2) out */
    uint8_t *broken;                                               /* (V, Pm) out */
    /* the body */
    float *x;        /* (6, V) in/out: velocity (linear, angular) */
    float *position; /* (3, V) in/out */
    float *angular;  /* (n, 3, V) out: the angular velocity after each position iteration */
    float *half;     /* (n, V) out: its half angle over h */
    /* PGS (`pvu_rows_pgs`) */
    int64_t friction_iterations;                 /* the last position iterations that solve friction rows */
    const uint8_t *act;                          /* (V, R): the row acts (active, non-zero response) */
    const float *impulse_kept, *limit_bias;      /* (V, R) */
    const double *c_pgs_bias;                    /* (V, Pm, N) */
    const double *f_pgs_bias;                    /* (2, V, Pm, M) */
    float *motion;                               /* (6, V) out: the velocity after the position iterations */
} RowSolve;

/* a group's own constraint rows (sim/solver_rows.py ConstraintRows) and its bodies at the begin pose */
typedef struct {
    int64_t V, R, batch, pgs;           /* pgs: PGS's constants (act, impulse_kept, limit_bias) instead of TGS's */
    double spring_time, dt;             /* the sticky rows' spring acts over spring_time: h (TGS) or dt (PGS) */
    const int64_t *vehicles;            /* (V): each one's index in the batch */
    const float *linear, *arm;          /* (3, V, R) */
    const double *damping, *separation; /* (V, R) */
    const uint8_t *active, *hard;       /* (V, R) */
    const float *mass, *moi;            /* (batch), (3, batch) */
    const float *orientation;           /* (4, batch): the begin pose */
} ConstraintRows;

/* sim/_end_step.c's velocities before the rows (its struct there), which a solve with contacts forms first
   (_contact_rows.c `pvu_kept_tgs_step`) */
struct EndStep;
int pvu_end_velocity(const struct EndStep *b);
/* _row_solver.c's constraint rows from the wheels' outputs, into one block (the number of vehicles listed), which a
   solve with contacts may make first (_contact_rows.c `pvu_kept_tgs_step`) */
struct WheelRows;
int64_t pvu_wheel_rows_block(const struct WheelRows *in);
int pvu_rows_orientation(int64_t n, int64_t V, float *q, const float *angular, const float *sine,
                         const float *cosine, const int64_t *rotations);

/* vecmath.quat_to_mat of q = (w, x, y, z), float32 as numpy takes it (m_ii = 1 - (p_jj + p_kk), m_ij = p_ij - 2 w v_k,
   m_ji = p_ij + 2 w v_k, p_ab = v_a 2 v_b) */
static inline __attribute__((always_inline)) void pvu_rotation_matrix(const float q[4], float m[3][3]) {
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

/* the soft solve's vehicles side by side: each array op over them one vector instruction (AVX-512) */
#define PVU_SOFT_LANES 16

/* one sticky row of a block of PVU_SOFT_LANES vehicles, lane-major (sim/_end_step.c sets them up so) */
typedef struct {
    float J[6][PVU_SOFT_LANES], WJ[6][PVU_SOFT_LANES], gain[PVU_SOFT_LANES];
} SoftRow;

int pvu_rows_tgs(const RowSolve *b);
int pvu_constraint_rows(const ConstraintRows *in, const RowSolve *b);
int pvu_rows_soft_strided(int64_t V, int64_t R, int64_t n, int64_t threads, const float *J, const float *WJ,
                          const float *gain, int64_t component, int64_t vehicle, int64_t row, int64_t gain_vehicle,
                          int64_t gain_row, const uint8_t *listed, float h_f, float *x_all, float *position_all,
                          float *angular, float *half);
void pvu_rows_soft_block(int64_t R, int64_t n, const SoftRow *rows, const uint8_t *listed, float h_f, int64_t V,
                         int64_t v0, int64_t lanes, float *x_all, float *position_all, float *angular, float *half,
                         float *speed);
int pvu_rows_orientation(int64_t n, int64_t V, float *q, const float *angular, const float *sine,
                         const float *cosine, const int64_t *rotations);
int pvu_rows_orientation_speeds(int64_t n, int64_t V, float *q, const float *angular, const float *speed,
                                const float *sine, const float *cosine, const int64_t *rotations);

#endif
