/* The substeps of one vehicle2 step (suspension -> tire -> drivetrain -> rigid body), fused and compiled.

   The same numerics as the numpy kernels of suspension.py, tire.py, drivetrain.py, wheel.py and
   rigid_body.integrate_substep, in the same order; pipeline.step chooses this path for float32 batches
   it covers (compiled.py says which) and the numpy kernels for the rest. The per-wheel functions carry
   the names of their numpy twins; tests/test_sim_kernel_pairs.py holds each pair to each other (through the
   pvu_test_ wrappers at the end), tests/test_sim_compiled.py whole trajectories.

   Why compiled: a numpy substep over 40,000 wheels is about 1,000 whole-array operations, each a pass
   over memory. Here each wheel's values stay in registers, and the per-wheel loop is vectorised. Vehicles
   are processed in blocks small enough for the L1/L2 caches, every substep of a block before the next
   block: no vehicle reads another's values, so the order is free. IEEE arithmetic in the written order
   (no -ffast-math, no FMA contraction), so a vehicle's result does not depend on its lane or its block.

   Layout: what numpy holds. Per vehicle (V,), per wheel (V, W) row-major, vectors component-first
   (3, V) or (3, V, W), quaternions (4, V) as w, x, y, z; flags as int32 (0 or 1), the width of a float lane. */
#include <math.h>
#include <stdint.h>
#if defined(__x86_64__) || defined(_M_X64)
#include <xmmintrin.h>
#define FLUSH_DENORMALS 1 /* as PhysX's PxSIMDGuard does around a simulation step: FTZ and DAZ */
#endif
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#define BLOCK 64 /* vehicles per block */

#include "_substeps_batch.h" /* Batch: generated from compiled.py's _FIELDS by tools/generate_kernel_header.py */

static inline float min_f(float a, float b) { return a < b ? a : b; }
static inline float max_f(float a, float b) { return a > b ? a : b; }
static inline float smoothing1(float k) { return min_f(1.0f, k - 0.33333f * k * k + 0.037037f * k * k * k); }

/* atan, tan, cos and asin in float, with Cephes' range reductions and minimax polynomials (relative error
   about 2e-7, as libm's within a couple of ulp). Written out here rather than taken from libm so that a
   wheel's arithmetic is the same in every lane of the vectorised loop and in its scalar remainder: a vehicle's
   result does not depend on where it sits in the batch. Every branch is a select (both sides computed). */
#define PI_2 1.5707963267948966f
#define PI_4 0.7853981633974483f
#define FOUR_OVER_PI 1.2732395447351628f
#define DP1 0.78515625f /* pi / 4 in three parts, for an exact reduction */
#define DP2 2.4187564849853515625e-4f
#define DP3 3.77489497744594108e-8f

static inline float atan_f(float x) {
    const float a = fabsf(x);
    const int big = a > 2.414213562373095f, mid = a > 0.4142135623730950f;
    const float t = big ? -1.0f / a : (mid ? (a - 1.0f) / (a + 1.0f) : a);
    const float z = t * t;
    const float y = (big ? PI_2 : (mid ? PI_4 : 0.0f))
                  + ((((8.05374449538e-2f * z - 1.38776856032e-1f) * z + 1.99777106478e-1f) * z - 3.33329491539e-1f) * z * t + t);
    return x < 0.0f ? -y : y;
}

/* |x| reduced to z in [-pi/4, pi/4] with octant j (even): x = j pi/4 + z. |x| is kept below 2^20. */
static inline float reduce_octant(float a, int *octant) {
    a = min_f(a, 1048576.0f);
    int j = (int)(FOUR_OVER_PI * a);
    j += j & 1;
    const float y = (float)j;
    *octant = j;
    return ((a - y * DP1) - y * DP2) - y * DP3;
}

static inline float tan_f(float x) {
    int j;
    const float z = reduce_octant(fabsf(x), &j);
    const float zz = z * z;
    const float p = (((((9.38540185543e-3f * zz + 3.11992232697e-3f) * zz + 2.44301354525e-2f) * zz + 5.34112807005e-2f) * zz
                      + 1.33387994085e-1f) * zz + 3.33331568548e-1f) * zz * z + z;
    const float y = (j & 2) ? -1.0f / p : p;
    return x < 0.0f ? -y : y;
}

static inline float cos_f(float x) {
    int j;
    const float z = reduce_octant(fabsf(x), &j);
    const float zz = z * z;
    const float s = ((-1.9515295891e-4f * zz + 8.3321608736e-3f) * zz - 1.6666654611e-1f) * zz * z + z;
    const float c = ((2.443315711809948e-5f * zz - 1.388731625493765e-3f) * zz + 4.166664568298827e-2f) * zz * zz - 0.5f * zz + 1.0f;
    j &= 7;
    const int negative = (j > 3) ^ ((j & 3) > 1);
    const int sine = (j & 3) == 1 || (j & 3) == 2;
    const float y = sine ? s : c;
    return negative ? -y : y;
}

static inline float asin_f(float x) {
    const float a = fabsf(x);
    const int wide = a > 0.5f;
    const float z = wide ? 0.5f * (1.0f - a) : a * a;
    const float t = wide ? sqrtf(z) : a;
    const float p = ((((4.2163199048e-2f * z + 2.4181311049e-2f) * z + 4.5470025998e-2f) * z + 7.4953002686e-2f) * z
                     + 1.6666752422e-1f) * z * t + t;
    const float y = wide ? PI_2 - (p + p) : p;
    return x < 0.0f ? -y : y;
}

static inline float sign0(float x) { return x > 0.0f ? 1.0f : (x < 0.0f ? -1.0f : 0.0f); }

/* PxVehicleFixedSizeLookupTable: 0 points -> 0, 1 point -> y0, clamped at both ends, linear inside. */
static float lookup(const float *points, int64_t count, float x) {
    for (int64_t k = count - 2; k >= 0; --k) {  /* the last segment starting at or below x decides */
        const float x0 = points[2 * k], y0 = points[2 * k + 1], x1 = points[2 * k + 2], y1 = points[2 * k + 3];
        if (x >= x0) {
            const float dx = x1 - x0;
            const float t = dx > 0.0f ? min_f(max_f((x - x0) / dx, 0.0f), 1.0f) : (x >= x1 ? 1.0f : 0.0f);
            return y0 + t * (y1 - y0);
        }
    }
    return count > 0 ? points[1] : 0.0f;
}

/* Per-vehicle values repeated over the block's wheels, so the wheel loop reads contiguous arrays only.
   The rows lie in one buffer, one block of wheels apart (padded: rows 4 KiB apart would share cache sets). */
typedef struct {
    float *R[9], *x[3], *v[3], *w[3], *g[3], *dt, *force[3], *torque[3], *tire_torque;
    int32_t *active, *sweep, *limit, *vactive;  /* active: per wheel; vactive: per vehicle */
    int32_t *accel_intent, *brake_intent;  /* 4.7: a wheel of the vehicle driven (braked); constant over a step */
    float *d_w, *diag;  /* the drivetrain's dt / I_w and 1 + c_w dt / I_w: constant over a step */
    float *vK, *vG, *vT, *vc;  /* per vehicle: clutch strength, gear ratio, engine torque, engine damping */
    float *vR[9], *vx[3], *vv[3], *vw[3];  /* per vehicle of the block, before they are repeated over wheels */
    struct DriveFactors *factors;  /* the block's drivetrain systems, factored (drivetrain_with) */
} Scratch;

#define SCRATCH_ROWS 60

static float *scratch_alloc(Scratch *sc, int64_t wheels_per_block) {
    const int64_t stride = (wheels_per_block + 15) / 16 * 16 + 16;
    float *buffer = aligned_alloc(64, (size_t)(SCRATCH_ROWS * stride) * sizeof(float));
    if (!buffer) return NULL;
    float *row = buffer;
#define NEXT (row += stride, row - stride)
    for (int c = 0; c < 9; ++c) sc->R[c] = NEXT;
    for (int c = 0; c < 3; ++c) { sc->x[c] = NEXT; sc->v[c] = NEXT; sc->w[c] = NEXT; sc->g[c] = NEXT; }
    for (int c = 0; c < 3; ++c) { sc->force[c] = NEXT; sc->torque[c] = NEXT; }
    sc->dt = NEXT;
    sc->tire_torque = NEXT;
    sc->active = (int32_t *)NEXT;
    sc->sweep = (int32_t *)NEXT;
    sc->limit = (int32_t *)NEXT;
    sc->vactive = (int32_t *)NEXT;
    sc->accel_intent = (int32_t *)NEXT;
    sc->brake_intent = (int32_t *)NEXT;
    sc->d_w = NEXT;
    sc->diag = NEXT;
    sc->vK = NEXT; sc->vG = NEXT; sc->vT = NEXT; sc->vc = NEXT;
    for (int c = 0; c < 9; ++c) sc->vR[c] = NEXT;
    for (int c = 0; c < 3; ++c) { sc->vx[c] = NEXT; sc->vv[c] = NEXT; sc->vw[c] = NEXT; }
#undef NEXT
    return buffer;
}

/* The per-wheel functions of one substep, named after their numpy twins in suspension.py and tire.py: a wheel's
   values in, its new values out, nothing read from the batch. `wheel` below is the glue that loads a wheel's
   values, calls them in the pipeline's order and stores the results. Inlined into the vectorised wheel loop;
   the optional parts (sweep, expansion limit, camber stiffness) are constant flags there. The pvu_test_ wrappers
   at the end of this file run each over arrays, for tests/test_sim_kernel_pairs.py. */
#define INLINE static inline __attribute__((always_inline))

typedef struct { float x, y, z; } Vec3;

INLINE Vec3 load3(const float *a, int64_t stride, int64_t i) { return (Vec3){a[i], a[stride + i], a[2 * stride + i]}; }
INLINE Vec3 row3(float *const rows[3], int64_t l) { return (Vec3){rows[0][l], rows[1][l], rows[2][l]}; }
INLINE void store3(float *a, int64_t stride, int64_t i, Vec3 v) {
    a[i] = v.x; a[stride + i] = v.y; a[2 * stride + i] = v.z;
}
INLINE Vec3 add3(Vec3 a, Vec3 b) { return (Vec3){a.x + b.x, a.y + b.y, a.z + b.z}; }
INLINE Vec3 sub3(Vec3 a, Vec3 b) { return (Vec3){a.x - b.x, a.y - b.y, a.z - b.z}; }
INLINE Vec3 scale3(Vec3 a, float s) { return (Vec3){a.x * s, a.y * s, a.z * s}; }
INLINE float dot3(Vec3 a, Vec3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
INLINE Vec3 cross3(Vec3 a, Vec3 b) {
    return (Vec3){a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x};
}
/* R v, R row-major */
INLINE Vec3 matvec(const float R[9], Vec3 v) {
    return (Vec3){R[0] * v.x + R[1] * v.y + R[2] * v.z, R[3] * v.x + R[4] * v.y + R[5] * v.z,
                  R[6] * v.x + R[7] * v.y + R[8] * v.z};
}

/* 3.3 the jounce rule: jounce and separation from the depth of the wheel bottom below the ground along the
   suspension (rho: suspension direction . ground normal; 0 when the wheel plane is parallel to the suspension). */
typedef struct { float jounce, separation; } Jounce;

INLINE Jounce jounce_from_depth(float depth, float rho, float travel, float prev, int32_t prev_specified,
                                float flt_min) {
    const int nonpar = rho != 0.0f;
    const float s_ = depth / (nonpar ? rho : 1.0f);
    const int pen = nonpar & (depth <= 0.0f), beyond = pen & (s_ > travel), within = pen & (s_ > 0.0f);
    float j = beyond ? travel : (within ? s_ : 0.0f);
    float sep = beyond ? depth * (s_ - travel) / (s_ != 0.0f ? s_ : 1.0f) : (within ? 0.0f : (pen ? depth : flt_min));
    if (!nonpar) {
        const int par_pen = depth < 0.0f;
        j = par_pen ? (prev_specified ? prev : travel) : j;
        sep = par_pen ? depth : flt_min;
    }
    return (Jounce){j, sep};
}

/* 3.4 the wheel cannot drop faster than spring, damper and gravity could push it (k, c: spring stiffness and
   damping, m: wheel mass; g_along: gravity along the suspension; apply: where the limit is checked). */
typedef struct { float jounce, jounce_speed, separation; int32_t clamped; } ExpansionLimit;

INLINE ExpansionLimit limit_expansion_velocity(float k, float c, float m, float j, float jdot, float sep, float prev,
                                               float prev_speed, float g_along, int32_t has_hit, float dt,
                                               int32_t apply) {
    float vel = prev * k / m * dt - prev_speed;
    const float tmp = vel + prev_speed * c / m * dt;
    vel = vel >= 0.0f ? max_f(0.0f, tmp) : min_f(0.0f, tmp);
    const float threshold = (has_hit & (g_along > 0.0f)) ? vel + g_along * dt : vel;
    const int clamp = apply & (jdot < -threshold);
    const float clamped = prev - vel * dt;
    sep = (clamp & (sep >= 0.0f)) ? clamped - j : sep;
    j = clamp ? clamped : j;
    jdot = clamp ? -vel : jdot;
    return (ExpansionLimit){j, jdot, sep, clamp};
}

/* 3.3 jounce, separation and jounce speed of one substep (3.4 with any_limit). d: suspension direction, hub: wheel
   centre at maximum compression (world); R, axle: body rotation and the wheel's lateral axis in the body frame,
   read for a sweep only (any_sweep and sweep); prev, prev_speed, prev_specified: the jounce state before. */
typedef struct { float jounce, jounce_speed, separation; int32_t on_ground; } SuspensionState;

INLINE SuspensionState update_suspension_state(
        const int any_sweep, const int any_limit,
        float travel, float radius, float half_width, float k, float c, float m, int32_t mask, int32_t sweep,
        int32_t limit, float prev, float prev_speed, int32_t prev_specified, int32_t hit, Vec3 normal, float road_offset,
        const float R[9], Vec3 d, Vec3 hub, Vec3 axle, Vec3 gravity, float dt, float flt_min) {
    /* depth of the wheel bottom below the ground */
    const float rho = dot3(d, normal);
    const float base = dot3(normal, add3(hub, scale3(d, travel))) + road_offset;
    float depth = base - radius * fabsf(rho);
    if (any_sweep) {
        const Vec3 a = matvec(R, axle);
        const float nl = dot3(normal, a);
        const Vec3 in_plane = sub3(normal, scale3(a, nl));
        const float swept = base - radius * sqrtf(dot3(in_plane, in_plane)) - half_width * fabsf(nl);
        depth = sweep ? swept : depth;
    }
    const Jounce js = jounce_from_depth(depth, rho, travel, prev, prev_specified, flt_min);
    float j = js.jounce, sep = js.separation;
    float jdot = prev_specified ? (j - prev) / dt : 0.0f;
    j = hit ? j : 0.0f;
    jdot = hit ? jdot : 0.0f;
    sep = hit ? sep : flt_min;
    if (any_limit) {
        const float g_along = dot3(gravity, d);
        const int enabled = limit & mask;
        /* no hit and a compressed wheel: expanding from prev to 0 within this substep */
        const int air = enabled & !hit & prev_specified & (prev > 0.0f);
        jdot = air ? -prev / dt : jdot;
        const int apply = (enabled & hit & (jdot < 0.0f)) | air;
        const ExpansionLimit e = limit_expansion_velocity(k, c, m, j, jdot, sep, prev, prev_speed, g_along, hit, dt,
                                                          apply);
        j = e.jounce;
        sep = e.separation;
        jdot = (air & !e.clamped) ? 0.0f : e.jounce_speed;  /* in the air the jounce speed stays 0 unless clamped */
    }
    return (SuspensionState){j, jdot, sep, (sep <= 0.0f) & mask};
}

/* 3.6 suspension force along the ground normal, with the wheel's share of gravity (f_es); its torque about the
   centre of mass through the arm R arm_body. normal_force: its magnitude, the tire's raw load. */
typedef struct { Vec3 force, torque; float normal_force; } SuspensionForce;

INLINE SuspensionForce suspension_force(float k, float c, Vec3 f_es, Vec3 arm_body, float jounce, float jounce_speed,
                                        int32_t on_ground, Vec3 normal, const float R[9], Vec3 d) {
    const float on = on_ground ? 1.0f : 0.0f;  /* a factor: GCC cannot vectorise some selects on the flag */
    float f = -dot3(d, normal) * (k * jounce + c * jounce_speed);
    const float n_fes = dot3(normal, f_es);
    const float n_col = dot3(normal, sub3(f_es, scale3(d, dot3(d, f_es))));
    f = f + (n_fes < 0.0f ? -n_col : 0.0f);
    f = f * on;
    const Vec3 force = scale3(normal, f);
    return (SuspensionForce){force, cross3(matvec(R, arm_body), force), f};
}

/* 4.1 longitudinal and lateral directions in the ground plane (zero off the ground). */
typedef struct { Vec3 lng, lat; } TireDirections;

INLINE TireDirections tire_directions(Vec3 lat_axis, Vec3 normal, int32_t on_ground) {
    const float on = on_ground ? 1.0f : 0.0f;
    const Vec3 t = cross3(lat_axis, normal);
    const float norm = sqrtf(dot3(t, t));
    const Vec3 lng = scale3(t, on * (norm > 0.0f ? 1.0f / norm : 0.0f));
    return (TireDirections){lng, cross3(normal, lng)};
}

/* 4.2 speed of the wheel bottom on the suspension line (centre_offset: wheel centre - body position) along the
   tire directions. */
typedef struct { float lng, lat; } TireSpeeds;

INLINE TireSpeeds contact_speeds(float radius, Vec3 linear_velocity, Vec3 angular_velocity, Vec3 centre_offset, Vec3 d,
                                 Vec3 t_lng, Vec3 t_lat) {
    const Vec3 u = add3(linear_velocity, cross3(angular_velocity, add3(centre_offset, scale3(d, radius))));
    return (TireSpeeds){dot3(u, t_lng), dot3(u, t_lat)};
}

/* 4.3 longitudinal and lateral slip; applied: the wheel is driven or braked (the active denominator). */
typedef struct { float lng, lat; } TireSlips;

INLINE TireSlips tire_slips(float radius, float min_lat_den, float min_active_den, float min_passive_den, float vx,
                            float vy, float omega, int32_t applied) {
    const float lat = atan_f(vy / (fabsf(vx) + min_lat_den));
    const float denom = fabsf(vx) + (applied ? min_active_den : min_passive_den);
    const float lng = ((vx == 0.0f) & (omega == 0.0f)) ? 0.0f : (omega * radius - vx) / denom;
    return (TireSlips){lng, lat};
}

/* 4.4 camber relative to the ground (0 off the ground). */
INLINE float tire_camber(Vec3 normal, Vec3 lng_axis, Vec3 lat_axis, int32_t on_ground) {
    const float on = on_ground ? 1.0f : 0.0f;
    const Vec3 t = sub3(normal, scale3(lng_axis, dot3(normal, lng_axis)));
    const float norm = sqrtf(dot3(t, t));
    const float sine = dot3(t, lat_axis) * (norm > 0.0f ? 1.0f / norm : 0.0f);
    return asin_f(min_f(max_f(sine, -1.0f), 1.0f)) * on;
}

/* 4.5 the suspension force through the load filter (x0, y0, x1, y1: its corners, slope between; 0 off the ground). */
INLINE float tire_load(float rest, float x0, float y0, float x1, float y1, float slope, float normal_force,
                       int32_t on_ground) {
    const float xn = normal_force / rest;
    const float inside = y0 + (xn - x0) * slope;
    const float y = xn <= x0 ? y0 : (xn >= x1 ? y1 : inside);
    /* a select, not a product with 0: a zero rest load (zero gravity) makes xn 0 / 0 off the ground */
    return on_ground ? rest * y : 0.0f;
}

/* 4.6 road friction times the friction-vs-slip graph (points x, y; slopes s0, s1) at |longitudinal slip|. */
INLINE float tire_friction(float x0, float x1, float x2, float y0, float y1, float y2, float s0, float s1,
                           float lng_slip, float road_friction, int32_t on_ground) {
    const float on = on_ground ? 1.0f : 0.0f;
    const float ak = fabsf(lng_slip);
    const float g0 = y0 + (ak - x0) * s0, g1 = y1 + (ak - x1) * s1;
    const float g = ak < x1 ? g0 : (ak < x2 ? g1 : y2);
    return road_friction * g * on;
}

/* 4.7 low-speed timers and sticky flags from the timers before this substep and the vehicle's intents
   (v_*, t_*: the sticky speed and time thresholds). */
typedef struct { float lng_time, lat_time; int32_t lng, lat; } StickyTireState;

INLINE StickyTireState sticky_tire_state(float radius, float v_lng, float t_lng, float v_lat, float t_lat, float vx,
                                         float vy, float omega, float load, float friction, int32_t accel_intent,
                                         int32_t brake_intent, float lng_time, float lat_time, float dt) {
    const int gripping = load * friction != 0.0f;
    const int slow_lng = (fabsf(vx) < v_lng) & (fabsf(omega * radius) < v_lng) & !accel_intent;
    const float lng = (gripping & slow_lng) ? lng_time + dt : 0.0f;
    const int sticky_lng = gripping & (((fabsf(vx) < v_lng) & (omega == 0.0f) & brake_intent) | (lng > t_lng));
    const int slow_lat = (fabsf(vy) < v_lat) & !accel_intent;
    const float lat = (gripping & slow_lat) ? lat_time + dt : 0.0f;
    const int sticky_lat = gripping & (lng > 0.0f) & (lat > t_lat);
    return (StickyTireState){lng, lat, sticky_lng, sticky_lat};
}

/* 4.8 combined-slip force model: longitudinal and lateral force (camber only with any_camber). */
typedef struct { float lng, lat; } TireForce;

INLINE TireForce tire_force_model(const int any_camber, float rest, float lat_stiff_x, float lat_stiff_y,
                                  float lat_saturation, float long_stiff, float camber_stiff, float lng_slip,
                                  float lat_slip, float camber, float load, float friction) {
    const float lat_s = fabsf(lat_slip) >= 1e-5f ? lat_slip : 0.0f;
    const float lng_s = fabsf(lng_slip) >= 1e-5f ? lng_slip : 0.0f;
    const float saturating = lat_stiff_y * smoothing1(load / rest * lat_saturation);
    const float lat_stiff = lat_stiff_x == 0.0f ? lat_stiff_y : saturating;
    const float grip = friction * load;
    int no_slip = (lat_s * lat_stiff == 0.0f) & (lng_s * long_stiff == 0.0f);
    float t_eff;
    if (any_camber) {
        const float cam = fabsf(camber) >= 1e-5f ? camber : 0.0f;
        no_slip = no_slip & (cam * camber_stiff == 0.0f);
        t_eff = tan_f(lat_s + cam * camber_stiff / (lat_stiff != 0.0f ? lat_stiff : 1.0f));
    } else {
        t_eff = tan_f(lat_s);
    }
    const int active = (grip != 0.0f) & !no_slip;
    const float ka = lat_stiff * t_eff, kb = long_stiff * lng_s;
    const float k = sqrtf(ka * ka + kb * kb) / (grip != 0.0f ? grip : 1.0f);
    const float f_bar = smoothing1(k);
    const float ratio = lat_stiff / long_stiff;
    const float cosine = cos_f(min_f(0.5f * k, 4.0f));  /* used for k <= 2 pi only */
    const float nu = k <= 6.2831855f ? 0.5f * (1.0f + ratio - (1.0f - ratio) * cosine) : 1.0f;
    const float nt = nu * t_eff;
    const float dn = sqrtf(lng_s * lng_s + nt * nt);
    const float f0 = grip / (dn > 0.0f ? dn : 1.0f);
    return (TireForce){active ? lng_s * f_bar * f0 : 0.0f, active ? -nt * f_bar * f0 : 0.0f};
}

/* One substep of the block wheel l (batch wheel i): 3.3-3.6 suspension, 4.1-4.9 tire, as pipeline's numpy substep
   and tire.update_tire call them. */
INLINE void wheel(const Batch *b, Scratch *sc, int64_t l, int64_t i, const int any_sweep, const int any_limit,
                  const int any_camber, const int outputs) {
    /* Values are read where they are used, and read again rather than kept (a wheel's values outnumber the
       registers, and the flags of setup.py turn off the pass that would move reads down to their uses). */
    const int64_t VW = b->V * b->W;
    float R[9];
    for (int c = 0; c < 9; ++c) R[c] = sc->R[c][l];
    const Vec3 d = matvec(R, load3(b->travel_direction, VW, i));
    const Vec3 hub = add3(matvec(R, load3(b->offset, VW, i)), row3(sc->x, l));
    const Vec3 n = load3(b->road_normal, VW, i);
    const float D = b->travel_distance[i], r = b->radius[i], dt = sc->dt[l];
    /* 3.3-3.4 */
    const SuspensionState susp = update_suspension_state(
        any_sweep, any_limit, D, r, b->half_width[i], b->spring_stiffness[i], b->spring_damping[i], b->wheel_mass[i],
        b->mask[i], sc->sweep[l], sc->limit[l], b->jounce[i], b->jounce_speed[i], b->jounce_specified[i],
        b->road_hit[i], n, b->road_offset[i], R, d, hub, any_sweep ? load3(b->axle, VW, i) : (Vec3){0.0f, 0.0f, 0.0f},
        row3(sc->g, l), dt, b->flt_min);
    const float j = susp.jounce;
    const int32_t og = susp.on_ground;
    b->jounce[i] = j;
    b->jounce_speed[i] = susp.jounce_speed;
    b->separation[i] = susp.separation;
    b->jounce_specified[i] = 1;
    /* 3.6 */
    const SuspensionForce sforce = suspension_force(b->spring_stiffness[i], b->spring_damping[i], load3(b->f_es, VW, i),
                                                    load3(b->susp_arm, VW, i), j, susp.jounce_speed, og, n, R, d);
    /* 4.1-4.4 directions, contact speeds, slips, camber */
    const Vec3 lat_axis = matvec(R, load3(b->axis_lat, VW, i));
    const TireDirections dirs = tire_directions(lat_axis, n, og);
    const Vec3 centre_offset = sub3(add3(hub, scale3(d, D - j)), row3(sc->x, l));
    /* the wheel's velocity against what it stands on (PxVehicleTireSlipSpeedsUpdate takes the road's off) */
    const Vec3 v_rel = sub3(row3(sc->v, l), load3(b->road_velocity, VW, i));
    const TireSpeeds speeds = contact_speeds(r, v_rel, row3(sc->w, l), centre_offset, d, dirs.lng, dirs.lat);
    const float vx = speeds.lng, omega = b->rotation_speed[i];
    const TireSlips slips = tire_slips(r, b->min_lat_slip_denominator_w[i], b->min_active_long_slip_denominator_w[i], b->min_passive_long_slip_denominator_w[i], vx,
                                       speeds.lat, omega, b->brake_applied[i] | b->drive_applied[i]);
    const float camber = any_camber ? tire_camber(n, matvec(R, load3(b->axis_lng, VW, i)), lat_axis, og) : 0.0f;
    /* 4.5 filtered load, 4.6 friction */
    const float rest = b->rest_load[i];
    const float load = tire_load(rest, b->load_x0[i], b->load_y0[i], b->load_x1[i], b->load_y1[i], b->load_slope[i],
                                 sforce.normal_force, og);
    const float friction = tire_friction(b->fvs_x0[i], b->fvs_x1[i], b->fvs_x2[i], b->fvs_y0[i], b->fvs_y1[i],
                                         b->fvs_y2[i], b->fvs_slope0[i], b->fvs_slope1[i], slips.lng,
                                         b->road_friction[i], og);
    /* 4.8's parameters, read here: read after 4.7, GCC duplicates the reads into the paths of a sticky and a free
       tire, keeps them in the loop and vectorises them as gathers */
    const float lat_stiff_x = b->lat_stiff_x[i], lat_stiff_y = b->lat_stiff_y[i], saturation = b->lat_saturation[i];
    const float long_stiff = b->long_stiff[i], camber_stiff = any_camber ? b->camber_stiff[i] : 0.0f;
    /* 4.7 sticky tire */
    const StickyTireState sticky = sticky_tire_state(
        r, b->sticky_lng_speed_w[i], b->sticky_lng_time_w[i], b->sticky_lat_speed_w[i], b->sticky_lat_time_w[i], vx, speeds.lat,
        omega, load, friction, sc->accel_intent[l], sc->brake_intent[l], b->lng_low_speed_time[i],
        b->lat_low_speed_time[i], dt);
    b->lng_low_speed_time[i] = sticky.lng_time;
    b->lat_low_speed_time[i] = sticky.lat_time;
    b->sticky_lng[i] = sticky.lng;
    b->sticky_lat[i] = sticky.lat;
    const float lng_slip = sticky.lng ? 0.0f : slips.lng;
    const float lat_slip = sticky.lat ? 0.0f : slips.lat;
    /* 4.8 force model */
    const TireForce tf = tire_force_model(any_camber, rest, lat_stiff_x, lat_stiff_y, saturation, long_stiff,
                                          camber_stiff, lng_slip, lat_slip, camber, load, friction);
    /* 4.9 force and torque on the chassis */
    const Vec3 tire_force = add3(scale3(dirs.lng, tf.lng), scale3(dirs.lat, tf.lat));
    const Vec3 tire_arm = matvec(R, load3(b->tire_arm, VW, i));
    const Vec3 force = add3(sforce.force, tire_force);
    const Vec3 torque = add3(sforce.torque, cross3(tire_arm, tire_force));
    sc->force[0][l] = force.x; sc->force[1][l] = force.y; sc->force[2][l] = force.z;
    sc->torque[0][l] = torque.x; sc->torque[1][l] = torque.y; sc->torque[2][l] = torque.z;
    sc->tire_torque[l] = -tf.lng * r;
    if (!outputs) return;
    /* telemetry of the last substep */
    b->out_suspensionJounce[i] = j;
    b->out_isOnGround[i] = og;
    b->out_tireFriction[i] = friction;
    b->out_tireLongitudinalSlip[i] = lng_slip;
    b->out_tireLateralSlip[i] = lat_slip;
    b->out_tireLoad[i] = load;
    b->out__lng_speed[i] = vx;
    store3(b->out_suspensionForce, VW, i, sforce.force);
    store3(b->out_tireForce, VW, i, tire_force);
    store3(b->out__centre_offset, VW, i, centre_offset);
    store3(b->out__lng_dir, VW, i, dirs.lng);
    store3(b->out__lat_dir, VW, i, dirs.lat);
    store3(b->out__app_arm, VW, i, tire_arm);
}

/* Which of a block's wheels a substep runs: every wheel, where no vehicle has its last substep (the telemetry is not
   written: a later substep writes it) or where some may; or only the wheels of the vehicles still active. */
enum { EVERY_WHEEL_NOT_LAST, EVERY_WHEEL, ACTIVE_WHEELS };

/* The optional parts as constants: each combination is its own branch-free loop for the vectoriser. */
static inline __attribute__((always_inline)) void wheels_with(const Batch *b, Scratch *sc, int64_t v0, int64_t nv,
                                                              int which, const int sweep, const int limit, const int camber) {
    const int64_t n = nv * b->W, i0 = v0 * b->W;
    if (which == EVERY_WHEEL_NOT_LAST) {
#pragma omp simd
        for (int64_t l = 0; l < n; ++l) wheel(b, sc, l, i0 + l, sweep, limit, camber, 0);
    } else if (which == EVERY_WHEEL) {
#pragma omp simd
        for (int64_t l = 0; l < n; ++l) wheel(b, sc, l, i0 + l, sweep, limit, camber, 1);
    } else {
        for (int64_t l = 0; l < n; ++l)
            if (sc->active[l]) wheel(b, sc, l, i0 + l, sweep, limit, camber, 1);
    }
}

static void wheels(const Batch *b, Scratch *sc, int64_t v0, int64_t nv, int which) {
    switch ((b->any_sweep != 0) | (b->any_limit_expansion != 0) << 1 | (b->any_camber_stiffness != 0) << 2) {
    case 0: wheels_with(b, sc, v0, nv, which, 0, 0, 0); break;
    case 1: wheels_with(b, sc, v0, nv, which, 1, 0, 0); break;
    case 2: wheels_with(b, sc, v0, nv, which, 0, 1, 0); break;
    case 3: wheels_with(b, sc, v0, nv, which, 1, 1, 0); break;
    case 4: wheels_with(b, sc, v0, nv, which, 0, 0, 1); break;
    case 5: wheels_with(b, sc, v0, nv, which, 1, 0, 1); break;
    case 6: wheels_with(b, sc, v0, nv, which, 0, 1, 1); break;
    default: wheels_with(b, sc, v0, nv, which, 1, 1, 1); break;
    }
}

/* 6.2 engine torque and the gear the drivetrain solve uses, per vehicle of the block (the torque curve is a loop
   of its own length: kept out of the vectorised wheel solve). */
static void engine_rows(const Batch *b, Scratch *sc, int64_t v0, int64_t nv) {
    for (int64_t bv = 0; bv < nv; ++bv) {
        const int64_t v = v0 + bv;
        if (!sc->vactive[bv] || !b->is_standard[v]) continue;
        /* 6.3 gearbox: a shift completes after the switch time */
        int32_t gear = b->current_gear[v];
        if (b->target_gear[v] != gear) {
            const float t = b->gear_switch_time[v] == -2.0f ? 0.0f : b->gear_switch_time[v] + b->dt_sub[v];
            const int done = t > b->switch_time[v];
            gear = done ? b->target_gear[v] : gear;
            b->current_gear[v] = gear;
            b->gear_switch_time[v] = done ? -1.0f : t;
        }
        const int in_gear = gear != b->neutral_gear;
        const float throttle = b->throttle[v];
        const int64_t column = gear < 0 ? 0 : (gear >= b->gear_columns ? b->gear_columns - 1 : gear);
        sc->vK[bv] = in_gear ? b->clutch_strength[v] : 0.0f;
        sc->vG[bv] = b->gear_ratios[v * b->gear_columns + column] * b->final_ratio[v];
        sc->vT[bv] = throttle * b->engine_peak_torque[v] * lookup(&b->torque_curve[v * b->curve_points * 2],
                                                                   b->torque_curve_count[v], b->engine_omega[v] / b->engine_max_omega[v]);
        const float c0 = in_gear ? b->engine_damping_engaged[v] : b->engine_damping_disengaged[v];
        sc->vc[bv] = c0 + (b->engine_damping_full[v] - c0) * throttle;
    }
}

/* 5.1 direct drive (wheel.direct_drive_update before its lock and mask): implicit in the wheel's damping, explicit in
   tire, drive and brake torque; d_w = dt / I_w, diag = 1 + damping rate d_w (step_rows has them for the step). */
INLINE float direct_drive_update(float omega, float tire_torque, float drive_torque, float brake_torque, float d_w,
                                 float diag) {
    return (omega + d_w * (tire_torque + drive_torque - sign0(omega) * brake_torque)) / diag;
}

/* A braked wheel whose new speed stops or reverses it stays locked; a masked wheel stays 0 (5.1 and 6.4). */
INLINE float locked_wheel_speed(float omega, float new_omega, int32_t brake_applied, int32_t mask) {
    const float x = (brake_applied & (omega * new_omega <= 0.0f)) ? 0.0f : new_omega;
    return mask ? x : 0.0f;
}

/* lu.solve_full_pivot for DRIVE_LANES systems at once, each of N unknowns of which its leading size[l] are its own (the
   rest padding that never pivots and solves to b / diagonal); element (i, j) of system l is m[(i * N + j) * DRIVE_LANES + l].
   The operations are numpy's, one lane each: the pivot is the first strictly largest |element| of the remaining block,
   column by column; its row and column are swapped into place (here as selects, so that every lane runs the same
   instructions and the loops over lanes vectorise). singular[l]: the determinant is exactly zero, and the system's
   own unknowns are zeros (the caller's to apply). In two halves, factor_full_pivot and solve_factored: a drivetrain's
   matrix mostly holds over a step's substeps, and is factored once for them (struct DriveFactors). */
#define DRIVE_LANES 16
_Static_assert(BLOCK % DRIVE_LANES == 0, "a block's vehicles fill whole groups of drivetrain lanes");
/* c ? a : b through the bits: a select gcc does not turn into a conditional (masked) store where b is the
   destination's own value */
typedef union { float f; int32_t i; } FloatBits;
INLINE float select_f(int32_t c, float a, float b) {
    const int32_t mask = -(c != 0);
    const FloatBits out = {.i = ((FloatBits){.f = a}.i & mask) | ((FloatBits){.f = b}.i & ~mask)};
    return out.f;
}
#define DRIVE_MAX 17 /* 16 wheels and the engine */
/* The factorisation: m becomes its LU factors, row_swap[k] and col_swap[k] the rows and columns swapped at step k. */
static inline __attribute__((always_inline)) void factor_full_pivot(float *restrict m, const int32_t *restrict size,
                                                                    int32_t (*restrict row_swap)[DRIVE_LANES],
                                                                    int32_t (*restrict col_swap)[DRIVE_LANES],
                                                                    int32_t *restrict singular, const int32_t N) {
    float det[DRIVE_LANES], divisor[DRIVE_LANES];
    int32_t largest[DRIVE_LANES], pr[DRIVE_LANES], pc[DRIVE_LANES];
#define LANE _Pragma("omp simd") for (int32_t l = 0; l < DRIVE_LANES; ++l)
#define M(i, j) m[((i) * N + (j)) * DRIVE_LANES + l]
    LANE det[l] = 1.0f;
    for (int32_t k = 0; k < N - 1; ++k) {
        /* (Every update below is arithmetic or a select of two loaded values, never a conditional store: those
           compile to masked stores and gathers. Where a lane's system is done, k >= size - 1, its block holds at
           most the last pivot, so the search leaves pr = pc = k.) */
        LANE largest[l] = 0, pr[l] = k, pc[l] = k;
        for (int32_t c = k; c < N; ++c)
            for (int32_t r = k; r < N; ++r)
                LANE {
                    /* |element| compared as its bits, which order non-negative floats as integers do (an integer
                       max vectorises); a NaN or an element outside the system never compares larger */
                    const float e = fabsf(M(r, c));
                    const int32_t inside = (r < size[l]) & (c < size[l]) & (e == e);
                    const int32_t a = (((FloatBits){.f = e}.i + 1) & -inside) - 1; /* its bits, or -1 */
                    const int32_t larger = a > largest[l];
                    largest[l] = a > largest[l] ? a : largest[l];
                    pr[l] += larger * (r - pr[l]);
                    pc[l] += larger * (c - pc[l]);
                }
        LANE {
            row_swap[k][l] = pr[l];
            col_swap[k][l] = pc[l];
            det[l] *= select_f((pr[l] != k) != (pc[l] != k), -1.0f, 1.0f);
        }
        for (int32_t r = k + 1; r < N; ++r)
            for (int32_t c = 0; c < N; ++c)
                LANE {
                    const float here = M(k, c), there = M(r, c);
                    M(k, c) = pr[l] == r ? there : here;
                    M(r, c) = pr[l] == r ? here : there;
                }
        for (int32_t c = k + 1; c < N; ++c)
            for (int32_t r = 0; r < N; ++r)
                LANE {
                    const float here = M(r, k), there = M(r, c);
                    M(r, k) = pc[l] == c ? there : here;
                    M(r, c) = pc[l] == c ? here : there;
                }
        /* lu.py's elimination, unconditional: a lane whose system is done eliminates padding (zeros), and a zero pivot
           divides by 1 (its system is singular: its own unknowns become zeros) */
        LANE {
            const float pivot = M(k, k);
            const int32_t live = k < size[l] - 1;
            det[l] *= select_f(live, pivot, 1.0f);
            divisor[l] = select_f(live & (pivot != 0.0f), pivot, 1.0f);
        }
        for (int32_t r = k + 1; r < N; ++r) {
            LANE M(r, k) = M(r, k) / divisor[l];
            for (int32_t c = k + 1; c < N; ++c)
                LANE M(r, c) = M(r, c) - M(r, k) * M(k, c);
        }
    }
    for (int32_t i = 0; i < N; ++i)
        LANE det[l] *= select_f(i == size[l] - 1, M(i, i), 1.0f);
    LANE singular[l] = det[l] == 0.0f;
#undef LANE
#undef M
}

/* The solution x of the systems factor_full_pivot factored, in place of their right-hand sides x (element i of system l
   at x[i * DRIVE_LANES + l]). */
static inline __attribute__((always_inline)) void solve_factored(const float *restrict m, float *restrict x,
                                                                 const int32_t (*restrict row_swap)[DRIVE_LANES],
                                                                 const int32_t (*restrict col_swap)[DRIVE_LANES],
                                                                 const int32_t N) {
#define LANE _Pragma("omp simd") for (int32_t l = 0; l < DRIVE_LANES; ++l)
#define M(i, j) m[((i) * N + (j)) * DRIVE_LANES + l]
#define X(i) x[(i) * DRIVE_LANES + l]
    for (int32_t k = 0; k < N - 1; ++k)
        for (int32_t r = k + 1; r < N; ++r)
            LANE {
                const float here = X(k), there = X(r);
                X(k) = row_swap[k][l] == r ? there : here;
                X(r) = row_swap[k][l] == r ? here : there;
            }
    for (int32_t r = 1; r < N; ++r)
        for (int32_t i = 0; i < r; ++i) LANE X(r) = X(r) - M(r, i) * X(i);
    for (int32_t r = N - 1; r >= 0; --r) {
        for (int32_t i = r + 1; i < N; ++i) LANE X(r) = X(r) - M(r, i) * X(i);
        LANE X(r) = X(r) / M(r, r);
    }
    for (int32_t k = N - 2; k >= 0; --k)
        for (int32_t c = k + 1; c < N; ++c)
            LANE {
                const float here = X(k), there = X(c);
                X(k) = col_swap[k][l] == c ? there : here;
                X(c) = col_swap[k][l] == c ? here : there;
            }
#undef LANE
#undef M
#undef X
}

/* One group of DRIVE_LANES vehicles' drivetrain systems, ordered and factored (factor_full_pivot), kept over a block's
   substeps. A system's matrix changes from substep to substep only through the clutch strength, gear ratio and engine
   damping engine_rows gives it (the gear and the throttle; the rest holds for the step: step_rows); a substep that
   gives every lane of the group the same three, to the bit, solves with the factors made from them (the same factors
   and so the same solution as factoring again), and builds its right-hand sides only. */
struct DriveFactors {
    int32_t valid;  /* 0: factored again at the next substep (step_rows clears it as a block's step begins) */
    float K[DRIVE_LANES], G[DRIVE_LANES], c[DRIVE_LANES];  /* what the factors were made from */
    int32_t size[DRIVE_LANES], singular[DRIVE_LANES];
    int32_t row_swap[DRIVE_MAX][DRIVE_LANES], col_swap[DRIVE_MAX][DRIVE_LANES];
    int64_t slot[DRIVE_LANES][DRIVE_MAX];  /* where each unknown (wheels in order, the engine last) lies in the system */
    float m[DRIVE_MAX * DRIVE_MAX * DRIVE_LANES];  /* the factors (element (i, j) of lane l as in factor_full_pivot) */
};

/* 6.4/6.6 engine drive as drivetrain._drivetrain_system builds it (each element rounded as there) and
   drivetrain._solve_connected orders it: the wheels on the differential in wheel order, the engine, then the other
   wheels, whose rows solve to their direct drive's division; 5.1 direct drive for the vehicles of other drives. */
static inline __attribute__((always_inline)) void drivetrain_with(const Batch *b, const Scratch *sc, int64_t v0,
                                                                  int64_t nv, const int64_t W) {
    const int64_t N = W + 1;
    float x[DRIVE_MAX * DRIVE_LANES], reordered[DRIVE_MAX * DRIVE_MAX];
    float couple[16][DRIVE_LANES], gamma[16][DRIVE_LANES], sign[16][DRIVE_LANES], ave[16][DRIVE_LANES];
    float d_w[16][DRIVE_LANES], damping[16][DRIVE_LANES];
    float K[DRIVE_LANES], G[DRIVE_LANES], c[DRIVE_LANES], d_e[DRIVE_LANES];
    int64_t vehicle[DRIVE_LANES];
#define LANE _Pragma("omp simd") for (int64_t l = 0; l < DRIVE_LANES; ++l)
#define M(i, j) m[((i) * N + (j)) * DRIVE_LANES + l]
    for (int64_t first = 0; first < nv; first += DRIVE_LANES) {
        const int64_t lanes = nv - first < DRIVE_LANES ? nv - first : DRIVE_LANES;
        struct DriveFactors *const f = &sc->factors[first / DRIVE_LANES];
        float *const m = f->m;
        /* the system of every lane in wheel order, engine last (lanes past the block repeat its first vehicle, lanes
           of other drives hold what they hold: their solutions are not read) */
        LANE {
            const int64_t bv = first + (l < lanes ? l : 0);
            vehicle[l] = bv;
            K[l] = sc->vK[bv], G[l] = sc->vG[bv], c[l] = sc->vc[bv], d_e[l] = b->dt_sub[v0 + bv] / b->engine_moi[v0 + bv];
        }
        /* the right-hand sides */
        for (int64_t w = 0; w < W; ++w)
            LANE {
                const int64_t bv = vehicle[l], i = (v0 + bv) * W + w;
                const float om = b->rotation_speed[i];
                const float rhs = om + sc->d_w[bv * W + w] * (-sign0(om) * b->brake_torque[i] + sc->tire_torque[bv * W + w]);
                x[w * DRIVE_LANES + l] = b->mask[i] ? rhs : 0.0f;
            }
        LANE x[W * DRIVE_LANES + l] = b->engine_omega[v0 + vehicle[l]] + d_e[l] * sc->vT[vehicle[l]];
        if (!f->valid || memcmp(K, f->K, sizeof K) || memcmp(G, f->G, sizeof G) || memcmp(c, f->c, sizeof c)) {
            f->valid = 1;
            memcpy(f->K, K, sizeof K), memcpy(f->G, G, sizeof G), memcpy(f->c, c, sizeof c);
            for (int64_t w = 0; w < W; ++w)
                LANE {
                    const int64_t bv = vehicle[l], i = (v0 + bv) * W + w;
                    const float ratio = b->diff_ratio[i];
                    d_w[w][l] = sc->d_w[bv * W + w];
                    gamma[w][l] = fabsf(ratio);
                    sign[w][l] = sign0(ratio);
                    ave[w][l] = b->diff_ave[i];
                    damping[w][l] = b->wheel_damping_rate[i];
                    couple[w][l] = ((d_w[w][l] * ((K[l] * G[l]) * G[l])) * gamma[w][l]) * sign[w][l];
                }
            for (int64_t w = 0; w < W; ++w) {
                for (int64_t u = 0; u < W; ++u) LANE M(w, u) = (couple[w][l] * ave[u][l]) * sign[u][l];
                LANE {
                    M(w, w) = (1.0f + (couple[w][l] * ave[w][l]) * sign[w][l]) + d_w[w][l] * damping[w][l];
                    M(w, W) = ((-d_w[w][l] * (K[l] * G[l])) * gamma[w][l]) * sign[w][l];
                    M(W, w) = ((-((d_e[l] * K[l]) * G[l])) * ave[w][l]) * sign[w][l];
                }
            }
            LANE M(W, W) = 1.0f + d_e[l] * (K[l] + c[l]);
            /* drivetrain._solve_connected's order, per lane: the wheels on the differential, the engine, the rest */
            for (int64_t l = 0; l < DRIVE_LANES; ++l) {
                const int64_t i0 = (v0 + vehicle[l]) * W;
                int64_t n = 0;
                for (int64_t w = 0; w < W; ++w) n += b->diff_connected[i0 + w] != 0;
                f->size[l] = (int32_t)n + 1;
                if (n == W) {
                    for (int64_t i = 0; i < N; ++i) f->slot[l][i] = i;
                    continue;
                }
                for (int64_t w = 0, on = 0, rest = n + 1; w < W; ++w) f->slot[l][w] = b->diff_connected[i0 + w] ? on++ : rest++;
                f->slot[l][W] = n;
                for (int64_t i = 0; i < N; ++i)
                    for (int64_t j = 0; j < N; ++j) reordered[f->slot[l][i] * N + f->slot[l][j]] = M(i, j);
                for (int64_t i = 0; i < N * N; ++i) m[i * DRIVE_LANES + l] = reordered[i];
            }
            factor_full_pivot(m, f->size, f->row_swap, f->col_swap, f->singular, (int32_t)N);
        }
        for (int64_t l = 0; l < DRIVE_LANES; ++l) {
            if (f->size[l] == N) continue;  /* (every wheel on the differential: the order is the wheels') */
            float rhs[DRIVE_MAX];
            for (int64_t i = 0; i < N; ++i) rhs[f->slot[l][i]] = x[i * DRIVE_LANES + l];
            for (int64_t i = 0; i < N; ++i) x[i * DRIVE_LANES + l] = rhs[i];
        }
        solve_factored(m, x, f->row_swap, f->col_swap, (int32_t)N);
        for (int64_t l = 0; l < lanes; ++l) {
            const int64_t bv = first + l, v = v0 + bv, l0 = bv * W, i0 = v * W;
            if (!sc->vactive[bv]) continue;
            const int standard = b->is_standard[v];
            for (int64_t w = 0; w < W; ++w) {
                const float om = b->rotation_speed[i0 + w];
                const int64_t i = f->slot[l][w];
                const float own = f->singular[l] & (i < f->size[l]) ? 0.0f : x[i * DRIVE_LANES + l];
                const float speed = standard ? own
                    : direct_drive_update(om, sc->tire_torque[l0 + w], b->drive_torque[i0 + w], b->brake_torque[i0 + w],
                                          sc->d_w[l0 + w], sc->diag[l0 + w]);
                b->rotation_speed[i0 + w] = locked_wheel_speed(om, speed, b->brake_applied[i0 + w], b->mask[i0 + w]);
            }
            if (standard)
                b->engine_omega[v] = min_f(max_f(f->singular[l] ? 0.0f : x[(f->size[l] - 1) * DRIVE_LANES + l],
                                                 b->engine_idle_omega[v]), b->engine_max_omega[v]);
        }
    }
#undef LANE
#undef M
}

static void drivetrain(const Batch *b, Scratch *sc, int64_t v0, int64_t nv) {
    engine_rows(b, sc, v0, nv);
    if (b->W == 4) drivetrain_with(b, sc, v0, nv, 4);
    else drivetrain_with(b, sc, v0, nv, b->W);
}

/* A vehicle's wheels summed left to right, as numpy's sum_wheels; written out for four wheels, so that the loop
   over vehicles around it has no inner loop and vectorises. */
static inline __attribute__((always_inline)) float wheel_sum(const float *row, int64_t l0, const int64_t W) {
    if (W == 4) return ((row[l0] + row[l0 + 1]) + row[l0 + 2]) + row[l0 + 3];
    float sum = row[l0];
    for (int64_t w = 1; w < W; ++w) sum += row[l0 + w];
    return sum;
}

/* 7: semi-implicit Euler of the chassis with the summed suspension and tire forces and torques, for the block's
   active vehicles (vectorised across vehicles; W is a constant where the caller can make it one). */
static inline __attribute__((always_inline)) void integrate_with(const Batch *b, const Scratch *sc, int64_t v0,
                                                                 int64_t nv, const int64_t W) {
    const int64_t V = b->V;
    float *lv = b->linear_velocity, *av = b->angular_velocity, *x = b->body_position, *q = b->body_orientation;
#pragma omp simd
    for (int64_t bv = 0; bv < nv; ++bv) {
        const int64_t v = v0 + bv, l0 = bv * W;
        const int act = sc->vactive[bv];
        const float F0 = wheel_sum(sc->force[0], l0, W), F1 = wheel_sum(sc->force[1], l0, W), F2 = wheel_sum(sc->force[2], l0, W);
        const float T0 = wheel_sum(sc->torque[0], l0, W), T1 = wheel_sum(sc->torque[1], l0, W), T2 = wheel_sum(sc->torque[2], l0, W);
        const float R0 = sc->vR[0][bv], R1 = sc->vR[1][bv], R2 = sc->vR[2][bv], R3 = sc->vR[3][bv], R4 = sc->vR[4][bv];
        const float R5 = sc->vR[5][bv], R6 = sc->vR[6][bv], R7 = sc->vR[7][bv], R8 = sc->vR[8][bv];
        const float m = b->mass[v], dt = b->dt_sub[v];
        /* angular velocity change: R I^-1 R^T tau dt, I diagonal in the body frame */
        const float a0 = (R0 * T0 + R3 * T1 + R6 * T2) / b->moi[v];
        const float a1 = (R1 * T0 + R4 * T1 + R7 * T2) / b->moi[V + v];
        const float a2 = (R2 * T0 + R5 * T1 + R8 * T2) / b->moi[2 * V + v];
        const float v0_ = lv[v] + (F0 + b->gravity[v] * m) / m * dt;
        const float v1_ = lv[V + v] + (F1 + b->gravity[V + v] * m) / m * dt;
        const float v2_ = lv[2 * V + v] + (F2 + b->gravity[2 * V + v] * m) / m * dt;
        const float wx = av[v] + (R0 * a0 + R1 * a1 + R2 * a2) * dt;
        const float wy = av[V + v] + (R3 * a0 + R4 * a1 + R5 * a2) * dt;
        const float wz = av[2 * V + v] + (R6 * a0 + R7 * a1 + R8 * a2) * dt;
        const float qw = q[v], qx = q[V + v], qy = q[2 * V + v], qz = q[3 * V + v];
        const float h = 0.5f * dt;
        const float nw = qw + h * (-wx * qx - wy * qy - wz * qz);
        const float nx = qx + h * (wx * qw + wy * qz - wz * qy);
        const float ny = qy + h * (-wx * qz + wy * qw + wz * qx);
        const float nz = qz + h * (wx * qy - wy * qx + wz * qw);
        const float len = sqrtf(nw * nw + nx * nx + ny * ny + nz * nz);
        const float x0 = x[v] + v0_ * dt, x1 = x[V + v] + v1_ * dt, x2 = x[2 * V + v] + v2_ * dt;
        x[v] = act ? x0 : x[v]; x[V + v] = act ? x1 : x[V + v]; x[2 * V + v] = act ? x2 : x[2 * V + v];
        lv[v] = act ? v0_ : lv[v]; lv[V + v] = act ? v1_ : lv[V + v]; lv[2 * V + v] = act ? v2_ : lv[2 * V + v];
        av[v] = act ? wx : av[v]; av[V + v] = act ? wy : av[V + v]; av[2 * V + v] = act ? wz : av[2 * V + v];
        q[v] = act ? nw / len : qw;
        q[V + v] = act ? nx / len : qx;
        q[2 * V + v] = act ? ny / len : qy;
        q[3 * V + v] = act ? nz / len : qz;
    }
}

static void integrate(const Batch *b, const Scratch *sc, int64_t v0, int64_t nv) {
    if (b->W == 4) integrate_with(b, sc, v0, nv, 4);
    else integrate_with(b, sc, v0, nv, b->W);
}

/* Per-vehicle rows of the block: rotation, position and velocities, then repeated over the wheels. */
static inline __attribute__((always_inline)) void expand_with(float *restrict dst, const float *restrict src,
                                                              int64_t nv, const int64_t W) {
    for (int64_t bv = 0; bv < nv; ++bv) {
        const float value = src[bv];
        for (int64_t w = 0; w < W; ++w) dst[bv * W + w] = value;
    }
}

static void vehicle_rows(const Batch *b, Scratch *sc, int64_t v0, int64_t nv) {
    const int64_t V = b->V;
#pragma omp simd
    for (int64_t bv = 0; bv < nv; ++bv) {
        const int64_t v = v0 + bv;
        const float *q = b->body_orientation;
        const float w = q[v], x = q[V + v], y = q[2 * V + v], z = q[3 * V + v];
        const float xx = x * x, yy = y * y, zz = z * z, xy = x * y, xz = x * z, yz = y * z;
        const float wx = w * x, wy = w * y, wz = w * z;
        sc->vR[0][bv] = 1 - 2 * (yy + zz); sc->vR[1][bv] = 2 * (xy - wz); sc->vR[2][bv] = 2 * (xz + wy);
        sc->vR[3][bv] = 2 * (xy + wz); sc->vR[4][bv] = 1 - 2 * (xx + zz); sc->vR[5][bv] = 2 * (yz - wx);
        sc->vR[6][bv] = 2 * (xz - wy); sc->vR[7][bv] = 2 * (yz + wx); sc->vR[8][bv] = 1 - 2 * (xx + yy);
        for (int c = 0; c < 3; ++c) {
            sc->vx[c][bv] = b->body_position[c * V + v];
            sc->vv[c][bv] = b->linear_velocity[c * V + v];
            sc->vw[c][bv] = b->angular_velocity[c * V + v];
        }
    }
    float *const dst[18] = {sc->R[0], sc->R[1], sc->R[2], sc->R[3], sc->R[4], sc->R[5], sc->R[6], sc->R[7], sc->R[8],
                            sc->x[0], sc->x[1], sc->x[2], sc->v[0], sc->v[1], sc->v[2], sc->w[0], sc->w[1], sc->w[2]};
    const float *const src[18] = {sc->vR[0], sc->vR[1], sc->vR[2], sc->vR[3], sc->vR[4], sc->vR[5], sc->vR[6], sc->vR[7],
                                  sc->vR[8], sc->vx[0], sc->vx[1], sc->vx[2], sc->vv[0], sc->vv[1], sc->vv[2], sc->vw[0],
                                  sc->vw[1], sc->vw[2]};
    for (int r = 0; r < 18; ++r) {
        if (b->W == 4) expand_with(dst[r], src[r], nv, 4);
        else expand_with(dst[r], src[r], nv, b->W);
    }
}

/* What holds for the whole step: time step, query type, expansion limit, gravity, the vehicle's intents (4.7),
   drivetrain factors. */
static void step_rows(const Batch *b, Scratch *sc, int64_t v0, int64_t nv) {
    const int64_t V = b->V, W = b->W;
    for (int64_t bv = 0; bv < nv; ++bv) {
        const int64_t v = v0 + bv;
        const float dt = b->dt_sub[v];
        sc->vactive[bv] = 1;
        if (bv % DRIVE_LANES == 0) sc->factors[bv / DRIVE_LANES].valid = 0;
        int32_t accel = 0, brake = 0;  /* tire.vehicle_intent: any of the vehicle's wheels driven (braked) */
        for (int64_t w = 0; w < W; ++w) accel |= b->drive_applied[v * W + w] != 0, brake |= b->brake_applied[v * W + w] != 0;
        for (int64_t w = 0; w < W; ++w) {
            const int64_t l = bv * W + w, i = v * W + w;
            sc->active[l] = 1;
            sc->dt[l] = dt;
            sc->sweep[l] = b->query_type[v] == 1;
            sc->limit[l] = b->limit_expansion_velocity[v];
            for (int c = 0; c < 3; ++c) sc->g[c][l] = b->gravity[c * V + v];
            sc->accel_intent[l] = accel;
            sc->brake_intent[l] = brake;
            sc->d_w[l] = dt / b->wheel_moi[i];
            sc->diag[l] = 1.0f + sc->d_w[l] * b->wheel_damping_rate[i];
        }
    }
}

/* Batch's fields (names, offsets and sizes from the generated header), for the loader to check its mirror of the
   struct against field by field. Returns the count. */
int64_t pvu_batch_fields(const char *const **names, const int64_t **offsets, const int64_t **sizes) {
    *names = pvu_batch_field_names;
    *offsets = pvu_batch_field_offsets;
    *sizes = pvu_batch_field_sizes;
    return PVU_BATCH_FIELDS;
}

/* 5.2 after the last substep (wheel.update_rotation_angle): the speed reported, blended with the rolling speed
   below the threshold speed when the wheel is neither driven nor braked, and the rotation angle advanced by the
   whole step dt and wrapped to (-2 pi, 2 pi); 0 for masked wheels. */
typedef struct { float angle, corrected_speed; } RotationAngle;

INLINE RotationAngle update_rotation_angle(float radius, float threshold_speed, int32_t mask, float angle, float omega,
                                           float jounce, float lng_speed, int32_t brake_applied, int32_t drive_applied,
                                           float dt) {
    const float two_pi = 6.2831855f;
    const float a = fabsf(lng_speed) / threshold_speed;
    const int blend = (jounce > 0.0f) & !brake_applied & !drive_applied & (fabsf(lng_speed) < threshold_speed);
    const float rolling = lng_speed / radius * (1.0f - a) + omega * a;
    const float corrected = blend ? rolling : omega;
    const float advanced = angle + corrected * dt;
    const float on = mask ? 1.0f : 0.0f;
    return (RotationAngle){(advanced - truncf(advanced / two_pi) * two_pi) * on, corrected * on};
}

static void rotation_angles(const Batch *b, int64_t v0, int64_t nv) {
    const int64_t W = b->W;
#pragma omp simd
    for (int64_t i = v0 * W; i < (v0 + nv) * W; ++i) {
        const RotationAngle ra = update_rotation_angle(b->radius[i], b->wheel_angle_threshold_speed[i / W], b->mask[i],
                                                       b->rotation_angle[i], b->rotation_speed[i], b->jounce[i],
                                                       b->out__lng_speed[i], b->brake_applied[i], b->drive_applied[i],
                                                       b->dt);
        b->rotation_angle[i] = ra.angle;
        b->corrected_rotation_speed[i] = ra.corrected_speed;
    }
}

/* The substeps of the vehicles [v0, v0 + nv), block by block, with this thread's scratch rows. */
static void block_range(const Batch *b, Scratch *sc, int64_t first, int64_t last) {
    const int64_t W = b->W;
    for (int64_t v0 = first; v0 < last; v0 += BLOCK) {
        const int64_t nv = last - v0 < BLOCK ? last - v0 : BLOCK;
        int64_t most = 0, least = INT64_MAX;
        for (int64_t v = v0; v < v0 + nv; ++v) {
            most = b->n_sub[v] > most ? b->n_sub[v] : most;
            least = b->n_sub[v] < least ? b->n_sub[v] : least;
        }
        step_rows(b, sc, v0, nv);
        for (int64_t k = 0; k < most; ++k) {
            if (k >= least)  /* some vehicles of the block have had all their substeps */
                for (int64_t bv = 0; bv < nv; ++bv) {
                    sc->vactive[bv] = k < b->n_sub[v0 + bv];
                    for (int64_t w = 0; w < W; ++w) sc->active[bv * W + w] = sc->vactive[bv];
                }
            vehicle_rows(b, sc, v0, nv);
            wheels(b, sc, v0, nv, k + 1 < least ? EVERY_WHEEL_NOT_LAST : (k < least ? EVERY_WHEEL : ACTIVE_WHEELS));
            drivetrain(b, sc, v0, nv);
            integrate(b, sc, v0, nv);
        }
        rotation_angles(b, v0, nv);
    }
}

/* Denormal inputs and results read as 0 (FTZ and DAZ) on this thread until restored; returns the state to restore. */
static unsigned int flush_denormals(void) {
#ifdef FLUSH_DENORMALS
    const unsigned int csr = _mm_getcsr();
    _mm_setcsr(csr | 0x8040);
    return csr;
#else
    return 0;
#endif
}

static void restore_denormals(unsigned int csr) {
#ifdef FLUSH_DENORMALS
    _mm_setcsr(csr);
#else
    (void)csr;
#endif
}

/* Every substep of every vehicle: n_sub[v] substeps of dt_sub[v] each, on b->threads threads (each a contiguous
   range of whole blocks, so the result does not depend on the count). Returns 0, -1 when W is too large, -2
   when out of memory. */
int pvu_substeps(const Batch *b) {
    if (b->W > 16) return -1;
    const int64_t blocks = (b->V + BLOCK - 1) / BLOCK;
    const int threads = (int)(b->threads < 1 ? 1 : (b->threads > blocks ? (blocks > 0 ? blocks : 1) : b->threads));
    int failed = 0;
#pragma omp parallel num_threads(threads) reduction(| : failed)
    {
        int rank = 0, size = 1;
#ifdef _OPENMP
        rank = omp_get_thread_num();
        size = omp_get_num_threads();
#endif
        Scratch scratch;
        float *buffer = scratch_alloc(&scratch, BLOCK * b->W);
        scratch.factors = malloc(sizeof(struct DriveFactors) * (BLOCK / DRIVE_LANES));
        if (!buffer || !scratch.factors) {
            failed = 1;
            free(buffer);
        } else {
            const unsigned int csr = flush_denormals();
            const int64_t first = blocks * rank / size * BLOCK, last = blocks * (rank + 1) / size * BLOCK;
            block_range(b, &scratch, first, last < b->V ? last : b->V);
            restore_denormals(csr);
            free(buffer);
        }
        free(scratch.factors);
    }
    return failed ? -2 : 0;
}

/* Test wrappers: each runs one of the per-wheel functions above over n lanes of arrays (vectors as (3, n) and
   rotations as (9, n) row-major, component-first like the batch), under the kernel's denormal flushing, for
   tests/test_sim_kernel_pairs.py to hold against the numpy twin of the same name. The kernel does not call them. */
#include <float.h>

#define LANES(body)                                  \
    do {                                             \
        const unsigned int csr = flush_denormals();  \
        for (int64_t i = 0; i < n; ++i) { body; }    \
        restore_denormals(csr);                      \
    } while (0)

static void load9(const float *a, int64_t n, int64_t i, float R[9]) {
    for (int c = 0; c < 9; ++c) R[c] = a[c * n + i];
}

void pvu_test_jounce_from_depth(int64_t n, const float *depth, const float *rho, const float *travel, const float *prev,
                                const int32_t *prev_specified, float *jounce, float *separation) {
    LANES(const Jounce out = jounce_from_depth(depth[i], rho[i], travel[i], prev[i], prev_specified[i], FLT_MIN);
          jounce[i] = out.jounce; separation[i] = out.separation);
}

void pvu_test_limit_expansion_velocity(int64_t n, const float *k, const float *c, const float *m, const float *j,
                                       const float *jdot, const float *sep, const float *prev, const float *prev_speed,
                                       const float *g_along, const int32_t *has_hit, const float *dt,
                                       const int32_t *apply, float *jounce, float *jounce_speed, float *separation,
                                       int32_t *clamped) {
    LANES(const ExpansionLimit out = limit_expansion_velocity(k[i], c[i], m[i], j[i], jdot[i], sep[i], prev[i],
                                                              prev_speed[i], g_along[i], has_hit[i], dt[i], apply[i]);
          jounce[i] = out.jounce; jounce_speed[i] = out.jounce_speed; separation[i] = out.separation;
          clamped[i] = out.clamped);
}

void pvu_test_update_suspension_state(int64_t n, int any_sweep, int any_limit, const float *travel, const float *radius,
                                      const float *half_width, const float *k, const float *c, const float *m,
                                      const int32_t *mask, const int32_t *sweep, const int32_t *limit,
                                      const float *prev, const float *prev_speed, const int32_t *prev_specified,
                                      const int32_t *hit, const float *normal, const float *road_offset, const float *R,
                                      const float *d, const float *hub, const float *axle, const float *gravity,
                                      const float *dt, float *jounce, float *jounce_speed, float *separation,
                                      int32_t *on_ground) {
    LANES(float Ri[9]; load9(R, n, i, Ri);
          const SuspensionState out = update_suspension_state(
              any_sweep, any_limit, travel[i], radius[i], half_width[i], k[i], c[i], m[i], mask[i], sweep[i], limit[i],
              prev[i], prev_speed[i], prev_specified[i], hit[i], load3(normal, n, i), road_offset[i], Ri,
              load3(d, n, i), load3(hub, n, i), load3(axle, n, i), load3(gravity, n, i), dt[i], FLT_MIN);
          jounce[i] = out.jounce; jounce_speed[i] = out.jounce_speed; separation[i] = out.separation;
          on_ground[i] = out.on_ground);
}

void pvu_test_suspension_force(int64_t n, const float *k, const float *c, const float *f_es, const float *arm_body,
                               const float *jounce, const float *jounce_speed, const int32_t *on_ground,
                               const float *normal, const float *R, const float *d, float *force, float *torque,
                               float *normal_force) {
    LANES(float Ri[9]; load9(R, n, i, Ri);
          const SuspensionForce out = suspension_force(k[i], c[i], load3(f_es, n, i), load3(arm_body, n, i), jounce[i],
                                                       jounce_speed[i], on_ground[i], load3(normal, n, i), Ri,
                                                       load3(d, n, i));
          store3(force, n, i, out.force); store3(torque, n, i, out.torque); normal_force[i] = out.normal_force);
}

void pvu_test_tire_directions(int64_t n, const float *lat_axis, const float *normal, const int32_t *on_ground,
                              float *t_lng, float *t_lat) {
    LANES(const TireDirections out = tire_directions(load3(lat_axis, n, i), load3(normal, n, i), on_ground[i]);
          store3(t_lng, n, i, out.lng); store3(t_lat, n, i, out.lat));
}

void pvu_test_contact_speeds(int64_t n, const float *radius, const float *linear_velocity,
                             const float *angular_velocity, const float *centre_offset, const float *d, const float *t_lng, const float *t_lat,
                             float *lng_speed, float *lat_speed) {
    LANES(const TireSpeeds out = contact_speeds(radius[i], load3(linear_velocity, n, i), load3(angular_velocity, n, i),
                                                load3(centre_offset, n, i), load3(d, n, i), load3(t_lng, n, i),
                                                load3(t_lat, n, i));
          lng_speed[i] = out.lng; lat_speed[i] = out.lat);
}

void pvu_test_tire_slips(int64_t n, const float *radius, const float *min_lat_den, const float *min_active_den,
                         const float *min_passive_den, const float *vx, const float *vy, const float *omega,
                         const int32_t *applied, float *lng_slip, float *lat_slip) {
    LANES(const TireSlips out = tire_slips(radius[i], min_lat_den[i], min_active_den[i], min_passive_den[i], vx[i],
                                           vy[i], omega[i], applied[i]);
          lng_slip[i] = out.lng; lat_slip[i] = out.lat);
}

void pvu_test_tire_camber(int64_t n, const float *normal, const float *lng_axis, const float *lat_axis,
                          const int32_t *on_ground, float *camber) {
    LANES(camber[i] = tire_camber(load3(normal, n, i), load3(lng_axis, n, i), load3(lat_axis, n, i), on_ground[i]));
}

void pvu_test_tire_load(int64_t n, const float *rest, const float *x0, const float *y0, const float *x1,
                        const float *y1, const float *slope, const float *normal_force, const int32_t *on_ground, float *load) {
    LANES(load[i] = tire_load(rest[i], x0[i], y0[i], x1[i], y1[i], slope[i], normal_force[i], on_ground[i]));
}

void pvu_test_tire_friction(int64_t n, const float *x0, const float *x1, const float *x2, const float *y0,
                            const float *y1, const float *y2, const float *s0, const float *s1, const float *lng_slip,
                            const float *road_friction, const int32_t *on_ground, float *friction) {
    LANES(friction[i] = tire_friction(x0[i], x1[i], x2[i], y0[i], y1[i], y2[i], s0[i], s1[i], lng_slip[i],
                                      road_friction[i], on_ground[i]));
}

void pvu_test_sticky_tire_state(int64_t n, const float *radius, const float *v_lng, const float *t_lng,
                                const float *v_lat, const float *t_lat, const float *vx, const float *vy,
                                const float *omega, const float *load, const float *friction,
                                const int32_t *accel_intent, const int32_t *brake_intent, const float *lng_time,
                                const float *lat_time, const float *dt, float *lng_time_out, float *lat_time_out,
                                int32_t *sticky_lng, int32_t *sticky_lat) {
    LANES(const StickyTireState out = sticky_tire_state(radius[i], v_lng[i], t_lng[i], v_lat[i], t_lat[i], vx[i], vy[i],
                                                        omega[i], load[i], friction[i], accel_intent[i],
                                                        brake_intent[i], lng_time[i], lat_time[i], dt[i]);
          lng_time_out[i] = out.lng_time; lat_time_out[i] = out.lat_time; sticky_lng[i] = out.lng;
          sticky_lat[i] = out.lat);
}

void pvu_test_tire_force_model(int64_t n, int any_camber, const float *rest, const float *lat_stiff_x,
                               const float *lat_stiff_y, const float *lat_saturation, const float *long_stiff,
                               const float *camber_stiff, const float *lng_slip, const float *lat_slip,
                               const float *camber, const float *load, const float *friction, float *lng_force,
                               float *lat_force) {
    LANES(const TireForce out = tire_force_model(any_camber, rest[i], lat_stiff_x[i], lat_stiff_y[i], lat_saturation[i],
                                                 long_stiff[i], camber_stiff[i], lng_slip[i], lat_slip[i], camber[i],
                                                 load[i], friction[i]);
          lng_force[i] = out.lng; lat_force[i] = out.lat);
}

/* direct_drive_update with its step factors as step_rows computes them, then the lock and mask, as
   wheel.direct_drive_update */
void pvu_test_direct_drive_update(int64_t n, const float *wheel_moi, const float *damping_rate, const int32_t *mask,
                                  const float *omega, const float *tire_torque, const float *drive_torque,
                                  const float *brake_torque, const int32_t *brake_applied, const float *dt,
                                  float *omega_out) {
    LANES(const float d_w = dt[i] / wheel_moi[i];
          const float x = direct_drive_update(omega[i], tire_torque[i], drive_torque[i], brake_torque[i], d_w,
                                              1.0f + d_w * damping_rate[i]);
          omega_out[i] = locked_wheel_speed(omega[i], x, brake_applied[i], mask[i]));
}

void pvu_test_update_rotation_angle(int64_t n, const float *radius, const float *threshold_speed, const int32_t *mask,
                                    const float *angle, const float *omega, const float *jounce, const float *lng_speed,
                                    const int32_t *brake_applied, const int32_t *drive_applied, const float *dt,
                                    float *angle_out, float *corrected_speed) {
    LANES(const RotationAngle out = update_rotation_angle(radius[i], threshold_speed[i], mask[i], angle[i], omega[i],
                                                          jounce[i], lng_speed[i], brake_applied[i], drive_applied[i],
                                                          dt[i]);
          angle_out[i] = out.angle; corrected_speed[i] = out.corrected_speed);
}

/* the kernel's own atan, tan, cos and asin */
void pvu_test_atan_f(int64_t n, const float *x, float *y) { LANES(y[i] = atan_f(x[i])); }
void pvu_test_tan_f(int64_t n, const float *x, float *y) { LANES(y[i] = tan_f(x[i])); }
void pvu_test_cos_f(int64_t n, const float *x, float *y) { LANES(y[i] = cos_f(x[i])); }
void pvu_test_asin_f(int64_t n, const float *x, float *y) { LANES(y[i] = asin_f(x[i])); }
