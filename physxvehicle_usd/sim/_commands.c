/* The command responses of a batch of standard drives (sim/commands.py `update_commands`' autobox, gear command and
   actuation flags), compiled: vehicle by vehicle, what commands._autobox_each does in numpy scalars (the same float32
   sums and quotients, the same stores in the same order), the start of a gear command (gear_command_update's test)
   and the engine's drive flags of the gear the step then has. The numpy code stays the reference
   (tests/test_sim_compiled_commands.py holds the two to each other, to the bit).

   float32 as numpy's: a Python float dt is added to a float32 timer as float32(dt) (numpy's weak scalars), the engine
   speed ratio is one float32 division; compiled with -ffp-contract=off. */
#include <float.h>
#include <stdint.h>

typedef struct {
    int64_t V, W, G;  /* vehicles, wheels, autobox gear columns (>= 1) */
    int64_t neutral, automatic;  /* NEUTRAL_GEAR, AUTOMATIC_GEAR */
    double dt;  /* the step's, a Python float */
    /* parameters (V,) but up and down (V, G) */
    const uint8_t *autobox_on, *has_autobox, *is_standard;
    const int64_t *nb_gears;
    const float *latency, *up, *down, *max_omega, *clutch;
    /* state (V,): read */
    const int64_t *target_gear_command, *current_gear, *target_gear;
    const float *accelerator, *engine_omega;
    /* state (V,): written in place (the autobox's) */
    uint8_t *active;
    float *since;
    const uint8_t *unbraked;  /* (V, W): not braked and on the differential */
    /* out: throttle (V,), the gear command (V,), the drive flags (V, W), the drive torques (V, W: zeros, a standard
       drive's: update_commands' np.zeros) */
    float *throttle;
    int64_t *command;
    uint8_t *drive_applied;
    float *drive_torque;
} Commands;

int64_t pvu_commands_size(void) { return (int64_t)sizeof(Commands); }

/* Returns how many vehicles start a gear change (commands.gear_command_update's `start`): the caller's to make. */
int64_t pvu_standard_commands(const Commands *c) {
    const int64_t N = c->neutral, W = c->W, G = c->G;
    const float dt = (float)c->dt;
    int64_t starts = 0;
    for (int64_t v = 0; v < c->V; ++v) {
        int64_t command = c->target_gear_command[v];
        float throttle = c->accelerator[v];
        const int64_t cur = c->current_gear[v], target = c->target_gear[v];
        if (c->autobox_on[v]) {
            if (command != c->automatic) {  /* a manual gear */
                c->active[v] = 0;
                c->since[v] = FLT_MAX;
            } else {
                command = target;
                if (cur != target) {  /* a shift under way: waiting */
                    if (c->active[v]) throttle = 0.0f;
                    c->since[v] = c->since[v] + dt;
                } else {
                    c->active[v] = 0;  /* the shift is done */
                    int shift = 0;
                    if (cur <= N && N + 1 < c->nb_gears[v]) {  /* first gear from neutral or reverse */
                        command = N + 1;
                        shift = 1;
                    } else if (!(c->since[v] > c->latency[v])) {
                        c->since[v] = c->since[v] + dt;  /* waiting */
                    } else {
                        const int64_t g = (cur > 0 ? cur : 0) < G - 1 ? (cur > 0 ? cur : 0) : G - 1;
                        const float w = c->engine_omega[v] / c->max_omega[v];
                        const int down = w < c->down[v * G + g] && cur > N + 1;
                        const int up = w > c->up[v * G + g] && cur + 1 < c->nb_gears[v];
                        if (up || down) {
                            command = down ? cur - 1 : cur + 1;  /* (down checked second: wins) */
                            shift = 1;
                        }
                    }
                    if (shift) {
                        throttle = 0.0f;
                        c->since[v] = 0.0f;
                        c->active[v] = 1;
                    }
                }
            }
        } else if (c->is_standard[v] && !c->has_autobox[v] && command == c->automatic) {
            command = target;  /* without an autobox, "automatic" keeps the gearbox target */
        }
        const int start = c->is_standard[v] && cur == target && command != cur && command < c->nb_gears[v];
        starts += start;
        const int engaged = (start ? N : cur) != N && c->clutch[v] != 0.0f && throttle != 0.0f;
        for (int64_t w = 0; w < W; ++w) {
            c->drive_applied[v * W + w] = (uint8_t)(engaged && c->unbraked[v * W + w]);
            c->drive_torque[v * W + w] = 0.0f;
        }
        c->throttle[v] = throttle;
        c->command[v] = command;
    }
    return starts;
}
