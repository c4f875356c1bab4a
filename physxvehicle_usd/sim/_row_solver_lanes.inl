/* One width of the TGS solve's blocks (included by _row_solver.c with TGS_LANES and LANE_NAME defined): a block's
   rows loaded lane-major, its position and velocity iterations, what they changed stored back. See _row_solver.c's
   "TGS blocks". */

#define LANES _Pragma("omp simd") for (int l = 0; l < TGS_LANES; ++l)

/* the block's rows into `w` (laid out in `memory`, lanes_bytes(b, TGS_LANES) long) */
static void LANE_NAME(lanes_load)(const RowSolve *b, const int64_t *v, Lanes *w, char *memory) {
    enum { L = TGS_LANES };
    const int64_t V = b->V, R = b->R, Pm = b->Pm, N = b->N, M = b->M;
    const int64_t rs = V * R, cs = V * Pm * N, fs = V * Pm * M;
    char *at = memory;
    w->J = carve(&at, R * 6 * L * 4), w->WJ = carve(&at, R * 6 * L * 4);
    w->recip = carve(&at, R * L * 4), w->gain = carve(&at, R * L * 4), w->separation = carve(&at, R * L * 4);
    w->impulse = carve(&at, R * L * 4), w->hard = carve(&at, R * L * 4);
    for (int64_t r = 0; r < R; ++r) {
        for (int a = 0; a < 6; ++a)
            for (int l = 0; l < L; ++l) {
                w->J[(r * 6 + a) * L + l] = b->J[a * rs + v[l] * R + r];
                w->WJ[(r * 6 + a) * L + l] = b->WJ[a * rs + v[l] * R + r];
            }
        for (int l = 0; l < L; ++l) {
            const int64_t k = v[l] * R + r;
            w->recip[r * L + l] = b->recip[k], w->gain[r * L + l] = b->spring_gain[k];
            w->separation[r * L + l] = b->separation[k], w->hard[r * L + l] = b->hard[k];
            w->impulse[r * L + l] = 0.0f;
        }
    }
    if (Pm <= 0) return;
    w->cJ = carve(&at, Pm * N * 6 * L * 8), w->cWJ = carve(&at, Pm * N * 6 * L * 8);
    w->c_error = carve(&at, Pm * N * L * 8), w->c_target = carve(&at, Pm * N * L * 8);
    w->c_coefficient = carve(&at, Pm * N * L * 8), w->c_recip = carve(&at, Pm * N * L * 8);
    w->c_impulse = carve(&at, Pm * N * L * 8), w->c_active = carve(&at, Pm * N * L * 8);
    w->fJ = carve(&at, Pm * M * 2 * 6 * L * 8), w->fWJ = carve(&at, Pm * M * 2 * 6 * L * 8);
    w->f_error = carve(&at, Pm * M * 2 * L * 8), w->f_gain = carve(&at, Pm * M * 2 * L * 8);
    w->friction = carve(&at, Pm * M * 2 * L * 8), w->anchored = carve(&at, Pm * M * L * 8);
    w->limit_scale = carve(&at, Pm * L * 8), w->slide_scale = carve(&at, Pm * L * 8);
    w->broken = carve(&at, Pm * L * 8), w->max_bias = carve(&at, L * 8);
    for (int l = 0; l < L; ++l) w->max_bias[l] = b->c_max_bias[v[l]];
    for (int64_t q = 0; q < Pm; ++q) {
        for (int l = 0; l < L; ++l) {
            const int64_t p = v[l] * Pm + q;
            w->limit_scale[q * L + l] = b->scale[p] * b->static_friction[p];
            w->slide_scale[q * L + l] = b->scale[p] * b->dynamic_friction[p];
            w->broken[q * L + l] = 0;
        }
        for (int64_t j = 0; j < N; ++j) {
            const int64_t e = q * N + j;
            for (int l = 0; l < L; ++l) {
                const int64_t k = (v[l] * Pm + q) * N + j;
                for (int a = 0; a < 6; ++a) {
                    w->cJ[(e * 6 + a) * L + l] = b->cJ[a * cs + k];
                    w->cWJ[(e * 6 + a) * L + l] = b->cWJ[a * cs + k];
                }
                w->c_error[e * L + l] = b->c_error[k], w->c_target[e * L + l] = b->c_target[k];
                w->c_coefficient[e * L + l] = b->c_bias_coefficient[k], w->c_recip[e * L + l] = b->c_recip[k];
                w->c_impulse[e * L + l] = b->c_impulse[k], w->c_active[e * L + l] = b->c_active[k] != 0;
            }
        }
        for (int64_t m = 0; m < M; ++m) {
            const int64_t e = q * M + m;
            for (int l = 0; l < L; ++l) {
                const int64_t k = (v[l] * Pm + q) * M + m;
                w->anchored[e * L + l] = b->anchored[k] != 0;
                for (int t = 0; t < 2; ++t) {
                    for (int a = 0; a < 6; ++a) {
                        w->fJ[((e * 2 + t) * 6 + a) * L + l] = b->fJ[(t * 6 + a) * fs + k];
                        w->fWJ[((e * 2 + t) * 6 + a) * L + l] = b->fWJ[(t * 6 + a) * fs + k];
                    }
                    w->f_error[(e * 2 + t) * L + l] = b->f_error[t * fs + k];
                    w->f_gain[(e * 2 + t) * L + l] = b->f_gain[t * fs + k];
                    w->friction[(e * 2 + t) * L + l] = b->friction[k * 2 + t];
                }
            }
        }
    }
}

/* what the solve changed, back to the vehicles' arrays (the lanes below `lanes`) */
static void LANE_NAME(lanes_store)(const RowSolve *b, const int64_t *v, int64_t lanes, const Lanes *w) {
    enum { L = TGS_LANES };
    const int64_t R = b->R, Pm = b->Pm, N = b->N, M = b->M;
    for (int64_t l = 0; l < lanes; ++l) {
        for (int64_t r = 0; r < R; ++r) b->impulse[v[l] * R + r] = w->impulse[r * L + l];
        for (int64_t q = 0; q < Pm; ++q) {
            b->broken[v[l] * Pm + q] = (uint8_t)w->broken[q * L + l];
            for (int64_t j = 0; j < N; ++j) b->c_impulse[(v[l] * Pm + q) * N + j] = w->c_impulse[(q * N + j) * L + l];
            for (int64_t m = 0; m < M; ++m)
                for (int t = 0; t < 2; ++t)
                    b->friction[((v[l] * Pm + q) * M + m) * 2 + t] = w->friction[((q * M + m) * 2 + t) * L + l];
        }
    }
}

/* `StaticContactRows.sweep` for the block's lanes: x (float32) -> x, through float64 */
static void LANE_NAME(contact_sweep)(const RowSolve *b, Lanes *w, float x[6][TGS_LANES], float moved[6][TGS_LANES],
                          double elapsed, double min_separation) {
    enum { L = TGS_LANES };
    const int64_t Pm = b->Pm, N = b->N, M = b->M;
    double xd[6][L], md[6][L];
    for (int a = 0; a < 6; ++a) LANES xd[a][l] = (double)x[a][l], md[a][l] = (double)moved[a][l];
    for (int64_t q = 0; q < Pm; ++q) {
        /* the normal rows: their biases from the motion before the sweep */
        double total[L];
        LANES total[l] = 0.0;
        for (int64_t j = 0; j < N; ++j) {
            if (!b->c_listed[q * N + j]) continue;
            const int64_t e = q * N + j;
            const double *J = w->cJ + e * 6 * L, *W = w->cWJ + e * 6 * L;
            const double *error = w->c_error + e * L, *target = w->c_target + e * L;
            const double *coefficient = w->c_coefficient + e * L, *recip = w->c_recip + e * L;
            const int64_t *active = w->c_active + e * L;
            double *impulse = w->c_impulse + e * L;
            double dm[L], jx[L], change[L];
            LANES dm[l] = J[l] * md[0][l], jx[l] = J[l] * xd[0][l];
            for (int a = 1; a < 6; ++a)
                LANES dm[l] = dm[l] + J[a * L + l] * md[a][l], jx[l] = jx[l] + J[a * L + l] * xd[a][l];
            LANES {
                const double separation = max_d(min_separation, error[l] + dm[l] - target[l] * elapsed);
                const double bias = min_d(w->max_bias[l], coefficient[l] * separation);
                const double lam = recip[l] * (bias - (jx[l] - target[l]));
                const double old = impulse[l];
                const double new = active[l] ? max_d(old + lam, 0.0) : 0.0;
                change[l] = new - old;
                impulse[l] = new;
                total[l] = total[l] + new;
            }
            for (int a = 0; a < 6; ++a) LANES xd[a][l] = xd[a][l] + W[a * L + l] * change[l];
        }
        /* the friction rows of each anchor, clamped together against the patch's normal impulse */
        int64_t *broken = w->broken + q * L;
        LANES broken[l] = 0;
        for (int64_t m = 0; m < M; ++m) {
            if (!b->a_listed[q * M + m]) continue;
            const int64_t e = q * M + m;
            const int64_t *anchored = w->anchored + e * L;
            double limit[L], slide[L], wanted[2][L], ratio[L];
            LANES limit[l] = w->limit_scale[q * L + l] * total[l], slide[l] = w->slide_scale[q * L + l] * total[l];
            for (int t = 0; t < 2; ++t) {
                const double *J = w->fJ + (e * 2 + t) * 6 * L;
                const double *error = w->f_error + (e * 2 + t) * L, *gain = w->f_gain + (e * 2 + t) * L;
                const double *old = w->friction + (e * 2 + t) * L;
                double dm[L], jx[L];
                LANES dm[l] = J[l] * md[0][l], jx[l] = J[l] * xd[0][l];
                for (int a = 1; a < 6; ++a)
                    LANES dm[l] = dm[l] + J[a * L + l] * md[a][l], jx[l] = jx[l] + J[a * L + l] * xd[a][l];
                LANES wanted[t][l] = old[l] - gain[l] * (jx[l] + (error[l] + dm[l]) * b->friction_bias);
            }
            LANES {
                const double magnitude = sqrt(wanted[0][l] * wanted[0][l] + wanted[1][l] * wanted[1][l]);
                const double clamped = magnitude > limit[l] ? min_d(slide[l], magnitude) : magnitude;
                const int64_t slid = (magnitude > limit[l]) | (limit[l] <= 0.0);
                broken[l] = broken[l] | (anchored[l] & slid);
                ratio[l] = magnitude > 0.0 ? clamped / magnitude : 0.0;
            }
            for (int t = 0; t < 2; ++t) {
                const double *W = w->fWJ + (e * 2 + t) * 6 * L;
                double *friction = w->friction + (e * 2 + t) * L;
                double change[L];
                LANES {
                    const double new = anchored[l] ? wanted[t][l] * ratio[l] : 0.0;
                    change[l] = new - friction[l];
                    friction[l] = new;
                }
                for (int a = 0; a < 6; ++a) LANES xd[a][l] = xd[a][l] + W[a * L + l] * change[l];
            }
        }
    }
    for (int a = 0; a < 6; ++a) LANES x[a][l] = (float)xd[a][l];
}

/* one sweep of the constraint rows listed in `listed` for the block's lanes: a position iteration's (`biased`: a
   limit row's bias from the motion so far, a sticky row's spring) or a velocity iteration's (a limit row drives J v
   to 0, the other rows are inert) */
static void LANE_NAME(constraint_sweep)(const RowSolve *b, Lanes *w, float x[6][TGS_LANES], float moved[6][TGS_LANES],
                             const uint8_t *listed, int biased) {
    enum { L = TGS_LANES };
    for (int64_t r = 0; r < b->R; ++r) {
        if (!listed[r]) continue;
        const float *J = w->J + r * 6 * L, *W = w->WJ + r * 6 * L;
        const float *recip = w->recip + r * L, *gain = w->gain + r * L, *separation = w->separation + r * L;
        const int32_t *hard = w->hard + r * L;
        float *impulse = w->impulse + r * L;
        float jv[L], jm[L], step[L];
        LANES jv[l] = J[l] * x[0][l], jm[l] = J[l] * moved[0][l];
        for (int a = 1; a < 6; ++a)
            LANES jv[l] = jv[l] + J[a * L + l] * x[a][l], jm[l] = jm[l] + J[a * L + l] * moved[a][l];
        if (biased) {
            LANES {
                const float bias = min_f(-b->bias_scale * (separation[l] + jm[l]), b->max_bias);
                const float total = max_f(impulse[l] + (bias - jv[l]) * recip[l], 0.0f);
                step[l] = hard[l] ? total - impulse[l] : -gain[l] * jv[l];
                impulse[l] = hard[l] ? total : impulse[l];
            }
        } else {
            LANES {
                const float total = max_f(impulse[l] - jv[l] * recip[l], 0.0f);
                step[l] = hard[l] ? total - impulse[l] : 0.0f;
                impulse[l] = hard[l] ? total : impulse[l];
            }
        }
        for (int a = 0; a < 6; ++a) LANES x[a][l] = x[a][l] + W[a * L + l] * step[l];
    }
}

/* `_solve_rows_tgs` (without pairs) for the vehicles v0 .. v0 + lanes - 1; memory: lanes_bytes(b, TGS_LANES) of
   scratch */
static void LANE_NAME(solve_vehicles)(const RowSolve *b, int64_t v0, int64_t lanes, char *memory) {
    enum { L = TGS_LANES };
    const int64_t V = b->V, n = b->iterations;
    int64_t v[L];
    for (int l = 0; l < L; ++l) v[l] = v0 + (l < lanes ? l : 0);
    Lanes w = {0};
    LANE_NAME(lanes_load)(b, v, &w, memory);
    float x[6][L], moved[6][L], position[3][L];
    for (int a = 0; a < 6; ++a)
        for (int l = 0; l < L; ++l) x[a][l] = b->x[a * V + v[l]], moved[a][l] = 0.0f;
    for (int a = 0; a < 3; ++a)
        for (int l = 0; l < L; ++l) position[a][l] = b->position[a * V + v[l]];
    for (int64_t iteration = 0; iteration < n; ++iteration) {
        LANE_NAME(constraint_sweep)(b, &w, x, moved, b->listed, 1);
        if (b->Pm > 0) LANE_NAME(contact_sweep)(b, &w, x, moved, (double)iteration * b->h, -INFINITY);
        for (int a = 0; a < 6; ++a) LANES moved[a][l] = moved[a][l] + x[a][l] * b->h_f;
        for (int a = 0; a < 3; ++a) LANES position[a][l] = position[a][l] + x[a][l] * b->h_f;
        /* vecmath.quat_integrate_exact's speed and half angle: 0.5 |w| h */
        float half[L];
        LANES half[l] = 0.5f * sqrtf(x[3][l] * x[3][l] + x[4][l] * x[4][l] + x[5][l] * x[5][l]) * b->h_f;
        for (int l = 0; l < lanes; ++l) {
            for (int a = 0; a < 3; ++a) b->angular[(iteration * 3 + a) * V + v[l]] = x[3 + a][l];
            b->half[iteration * V + v[l]] = half[l];
        }
    }
    for (int64_t i = 0; i < b->velocity_iterations; ++i) {
        LANE_NAME(constraint_sweep)(b, &w, x, moved, b->hard_listed, 0);
        if (b->Pm > 0) LANE_NAME(contact_sweep)(b, &w, x, moved, b->dt, 0.0);
    }
    LANE_NAME(lanes_store)(b, v, lanes, &w);
    for (int l = 0; l < lanes; ++l) {
        for (int a = 0; a < 6; ++a) b->x[a * V + v[l]] = x[a][l];
        for (int a = 0; a < 3; ++a) b->position[a * V + v[l]] = position[a][l];
    }
}

#undef LANES
