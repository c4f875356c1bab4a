/* The suspension raycasts against the ground planes (sim/ground.py `raycast` on a ground of planes alone, float32
   rays, no query filter), compiled: the numpy loop's arithmetic in its order and precision, ray by ray.

   Per plane k, in float32: the normal rounded to float32 (numpy's astype), n . d and n . o + offset summed left to
   right (the offset rounded to float32 first, as numpy casts a Python float to the array's type), t = -(n . o) /
   (n . d) where the ray faces the plane, kept where 0 < t <= length and nearer than the planes before it (the first
   of equally near planes wins). Then the hit point o + d t (o + d 0 where nothing was hit) and its plane's offset
   -(n . point), as the numpy code forms them. Compiled with -ffp-contract=off: no fused multiply-add. */
#include <math.h>
#include <stdint.h>

int pvu_plane_rays(int64_t R, int64_t P, const double *normals, const double *offsets, const float *o,
                   const float *d, const float *length, uint8_t *hit, float *normal, float *offset, int64_t *shape) {
    for (int64_t r = 0; r < R; ++r) {
        const float ox = o[r], oy = o[R + r], oz = o[2 * R + r];
        const float dx = d[r], dy = d[R + r], dz = d[2 * R + r];
        float best_t = INFINITY, bx = 0.0f, by = 0.0f, bz = 0.0f;
        int64_t best_shape = -1;
        for (int64_t k = 0; k < P; ++k) {
            const float n0 = (float)normals[3 * k], n1 = (float)normals[3 * k + 1], n2 = (float)normals[3 * k + 2];
            const float nd = n0 * dx + n1 * dy + n2 * dz;
            const float no = n0 * ox + n1 * oy + n2 * oz + (float)offsets[k];
            if (!(nd < 0.0f))
                continue;  /* (t infinite: not better) */
            const float t = -no / nd;
            if (t > 0.0f && t <= length[r] && t < best_t) {
                best_t = t;
                bx = n0, by = n1, bz = n2;
                best_shape = k;
            }
        }
        const int found = isfinite(best_t);
        const float along = found ? best_t : 0.0f;
        const float px = ox + dx * along, py = oy + dy * along, pz = oz + dz * along;
        hit[r] = (uint8_t)found;
        normal[r] = bx, normal[R + r] = by, normal[2 * R + r] = bz;
        offset[r] = -(bx * px + by * py + bz * pz);
        shape[r] = best_shape;
    }
    return 0;
}
