/* sim/contact/world.py's steady step in one call (sim/compiled_manifolds.py `SteadyContacts`): where the last
   step's candidate pairs all kept their points, this step's broad phase (the shapes' world boxes, _shape_boxes.c;
   their static pairs, _static_pairs.c), the check that it found the same candidates, and the refresh of their kept
   points with the reduction of the kept contacts (_contact_bookkeeping.c pvu_refresh_reduce_words), each with the
   words its own caller keeps, written here with the step's arrays. The same calls as world.py's path makes one by
   one: the same bits. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int pvu_shape_boxes_words(const int64_t *w);
int64_t pvu_static_pairs_words(const int64_t *w);
int64_t pvu_refresh_reduce_words(const int64_t *w);

enum { BOX_WORDS = 13, PAIR_WORDS = 18, REFRESH_WORDS = 44 };

/* Words: w[0 .. 2] the kept words of the shape boxes (compiled_placement.py), the static pairs (compiled_mesh.py
   StaticPairs: the room of its last call) and the refresh (compiled_manifolds.py refresh_and_reduce; NULL: none,
   the step is quiet, no candidate to find and none refreshed); w[3] V, w[4] N; the step's w[5] position (3, V),
   w[6] orientation (4, V), w[7] the length scales (V,), and the outputs w[8] ints (refresh_and_reduce's, 3 Q + 3,
   then the flags: keep_pair, keep_point as bytes) and w[9] floats (refresh_and_reduce's); w[10], w[11], w[12] the
   position, orientation and length scales float32; w[13] threads; the candidates to find, w[14] T and w[15] their
   (shape, triangle) runs (2 T), w[16] H and w[17] their (shape, polytope) runs (2 H). Returns the contacts
   (reduced) written, or: -1 memory ran out, -2 a travel too near its limit, -3 the broad phase not covered or
   short of room, -4 other candidates, -5 not every pair kept its points (the caller's path, one call at a time,
   makes the step). */
int64_t pvu_steady_contacts_words(const int64_t *w) {
#define P(type, k) ((type)(intptr_t)w[k])
    const int64_t *kept_boxes = P(const int64_t *, 0), *kept_pairs = P(const int64_t *, 1);
    const int64_t V = w[3], N = w[4], room = kept_pairs[5], T = w[14], H = w[16];
    const int64_t *kept_refresh = P(const int64_t *, 2);
    double *block = malloc(sizeof(double) * (19 * (size_t)N + 4 * (size_t)V + 1));
    int64_t *pairs = malloc(sizeof(int64_t) * (4 * (size_t)room + 1));
    int64_t status = -1;
    if (!block || !pairs)
        goto done;
    /* the world boxes: rotation (3, 3, N), centre, slack, lo, hi (placement.py world_boxes) */
    int64_t boxes[BOX_WORDS];
    memcpy(boxes, kept_boxes, sizeof boxes);
    boxes[0] = V, boxes[1] = N, boxes[2] = N, boxes[3] = w[10], boxes[4] = w[11];
    boxes[5] = w[5], boxes[6] = w[6], boxes[7] = (int64_t)(intptr_t)block, boxes[8] = 0;
    status = -3;
    if (N && pvu_shape_boxes_words(boxes) < 0)
        goto done;
    /* their static pairs (broad.py _compiled_static_pairs), the same as the candidates to find */
    int64_t found[PAIR_WORDS];
    memcpy(found, kept_pairs, sizeof found);
    found[1] = N, found[2] = (int64_t)(intptr_t)(block + 13 * N), found[3] = (int64_t)(intptr_t)(block + 16 * N);
    found[4] = (int64_t)(intptr_t)pairs, found[5] = room, found[9] = w[13];
    const int64_t n = pvu_static_pairs_words(found);
    const int64_t h = *(const int64_t *)(intptr_t)found[17];
    if (n < 0 || h < 0)
        goto done;
    const int64_t *tri = P(const int64_t *, 15), *hull = P(const int64_t *, 17);
    status = -4;
    if (n != T || h != H || memcmp(pairs, tri, sizeof(int64_t) * (size_t)T)
        || memcmp(pairs + room, tri + T, sizeof(int64_t) * (size_t)T)
        || memcmp(pairs + 2 * room, hull, sizeof(int64_t) * (size_t)H)
        || memcmp(pairs + 3 * room, hull + H, sizeof(int64_t) * (size_t)H))
        goto done;
    status = 0;
    if (!kept_refresh)  /* (quiet: no candidate, as the last step found) */
        goto done;
    /* the kept points refreshed at the poses (float64: the position and length scales converted, exactly) */
    double *position = block + 19 * N, *length = position + 3 * V;
    for (int64_t i = 0; i < 3 * V; ++i)
        position[i] = w[10] ? (double)P(const float *, 5)[i] : P(const double *, 5)[i];
    for (int64_t v = 0; v < V; ++v)
        length[v] = w[12] ? (double)P(const float *, 7)[v] : P(const double *, 7)[v];
    int64_t refresh[REFRESH_WORDS];
    memcpy(refresh, kept_refresh, sizeof refresh);
    const int64_t Q = refresh[1];
    refresh[26] = (int64_t)(intptr_t)length, refresh[27] = (int64_t)(intptr_t)block;
    refresh[28] = (int64_t)(intptr_t)position, refresh[29] = w[8] + 8 * (3 * Q + 3), refresh[30] = w[8];
    refresh[31] = w[9], refresh[32] = w[6], refresh[33] = w[11], refresh[36] = refresh[37] = 0;
    refresh[42] = w[8] + 24 * Q;
    status = pvu_refresh_reduce_words(refresh);
    if (status >= 0 && P(const int64_t *, 8)[3 * Q + 2] < 0)
        status = -5;
done:
    free(block), free(pairs);
    return status;
#undef P
}
