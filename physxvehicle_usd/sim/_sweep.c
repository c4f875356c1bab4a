/* The broad phases' sort and sweep in strips (sim/contact/broad.py `sweep_overlaps`, its numpy twin
   `sweep_overlaps_numpy`), compiled: the same entries (every box in its first strip, then the boxes in two strips in
   their second, in box order), the same float64 keys (strip times the strip's stretch plus the low end's distance from
   the lowest), the same stable order (ties in entry order, as numpy's stable argsort), the same binary searches and so
   the same pairs in the same order: entry by entry, each with the entries after it in its strip whose low end lies at
   or below its high end; where some box lies in two strips, each pair once, sorted by (a, b), a < b, as np.unique
   gives them. One call in place of two dozen numpy calls, which cost most of the sweep of a thousand cars' boxes.

   Layout: lo, hi (N, 3) float64, C order. A value that is not finite is left to numpy (NaN orders differently). */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

typedef struct {
    double key;
    int64_t entry; /* ties in entry order: a stable sort */
} sweep_keyed;

/* Merge sorts into `scratch` and back. By key, stable: a natural merge sort (the runs already in order merged
   pairwise, as numpy's timsort finds them: a fleet's boxes come in rows, their keys in long runs, and few merges
   remain); `runs` holds n + 1 run bounds. */
static void sweep_sort_keyed(sweep_keyed *x, sweep_keyed *scratch, int64_t *runs, int64_t n) {
    int64_t R = 0;
    runs[R++] = 0;
    for (int64_t k = 1; k < n; ++k)
        if (x[k].key < x[k - 1].key)
            runs[R++] = k;
    runs[R] = n;
    sweep_keyed *from = x, *to = scratch;
    while (R > 1) {
        int64_t merged = 0;
        for (int64_t r = 0; r < R; r += 2) {
            int64_t start = runs[r], mid = runs[r + 1], end = r + 2 <= R ? runs[r + 2] : runs[r + 1];
            int64_t i = start, j = mid, k = start;
            while (i < mid && j < end)
                to[k++] = from[j].key < from[i].key ? from[j++] : from[i++]; /* equal keys: the left run's first */
            while (i < mid)
                to[k++] = from[i++];
            while (j < end)
                to[k++] = from[j++];
            runs[merged++] = start;
        }
        runs[merged] = n;
        R = merged;
        sweep_keyed *t = from;
        from = to;
        to = t;
    }
    if (from != x)
        for (int64_t k = 0; k < n; ++k)
            x[k] = from[k];
}

static void sweep_sort_values(int64_t *x, int64_t *scratch, int64_t n) {
    int64_t *from = x, *to = scratch;
    for (int64_t width = 1; width < n; width *= 2) {
        for (int64_t start = 0; start < n; start += 2 * width) {
            int64_t mid = start + width < n ? start + width : n, end = start + 2 * width < n ? start + 2 * width : n;
            int64_t i = start, j = mid, k = start;
            while (i < mid && j < end)
                to[k++] = from[j] < from[i] ? from[j++] : from[i++];
            while (i < mid)
                to[k++] = from[i++];
            while (j < end)
                to[k++] = from[j++];
        }
        int64_t *t = from;
        from = to;
        to = t;
    }
    if (from != x)
        for (int64_t k = 0; k < n; ++k)
            x[k] = from[k];
}

/* The pairs (a, b) of boxes lo, hi (N, 3) that overlap along axis `sweep` and share a strip across axis `across`.
   Returns how many were written to out_a, out_b (at most `capacity`); -1: a value is not finite or N is 0 (numpy
   decides), -2: out of memory, -3: more than `capacity` candidates (*needed: how many to make room for). */
int64_t pvu_sweep_overlaps(int64_t N, const double *lo, const double *hi, int64_t sweep, int64_t across,
                           int64_t capacity, int64_t *out_a, int64_t *out_b, int64_t *needed) {
    if (N <= 0)
        return -1;
    for (int64_t k = 0; k < 3 * N; ++k)
        if (!isfinite(lo[k]) || !isfinite(hi[k]))
            return -1;
    double width = -INFINITY, base = INFINITY, low = INFINITY, high = -INFINITY;
    for (int64_t i = 0; i < N; ++i) {
        double extent = hi[3 * i + across] - lo[3 * i + across];
        width = extent > width ? extent : width;
        base = lo[3 * i + across] < base ? lo[3 * i + across] : base;
        low = lo[3 * i + sweep] < low ? lo[3 * i + sweep] : low;
        high = hi[3 * i + sweep] > high ? hi[3 * i + sweep] : high;
    }
    int64_t *first = malloc(sizeof(int64_t) * 2 * (size_t)N);
    int64_t *box = malloc(sizeof(int64_t) * 2 * (size_t)N);
    int64_t *strip = malloc(sizeof(int64_t) * 2 * (size_t)N);
    sweep_keyed *keyed = malloc(sizeof(sweep_keyed) * 2 * (size_t)N);
    double *key = malloc(sizeof(double) * 2 * (size_t)N);
    int64_t *count = malloc(sizeof(int64_t) * (2 * (size_t)N + 1));
    sweep_keyed *scratch = malloc(sizeof(sweep_keyed) * 2 * (size_t)N);
    int64_t result = -2;
    if (!first || !box || !strip || !keyed || !key || !count || !scratch)
        goto done;
    int64_t E = N, two = 0;
    for (int64_t i = 0; i < N; ++i) {
        first[i] = width > 0.0 ? (int64_t)floor((lo[3 * i + across] - base) / width) : 0;
        box[i] = i;
        strip[i] = first[i];
    }
    if (width > 0.0)
        for (int64_t i = 0; i < N; ++i) {
            int64_t last = (int64_t)floor((hi[3 * i + across] - base) / width);
            if (last > first[i]) {
                box[E] = i;
                strip[E] = last;
                ++E;
                ++two;
            }
        }
    double span = (high - low) + 1.0; /* one strip's stretch of the composite key */
    for (int64_t e = 0; e < E; ++e) {
        keyed[e].key = (double)strip[e] * span + (lo[3 * box[e] + sweep] - low);
        keyed[e].entry = e;
    }
    sweep_sort_keyed(keyed, scratch, count, E); /* (count as the run bounds: set below) */
    /* in sorted order: the entries' boxes and strips (first[] reused for the sorted boxes) */
    for (int64_t e = 0; e < E; ++e) {
        key[e] = keyed[e].key;
        first[e] = box[keyed[e].entry];
        count[e] = strip[keyed[e].entry];
    }
    int64_t total = 0;
    for (int64_t e = 0; e < E; ++e) {
        double end = (double)count[e] * span + (hi[3 * first[e] + sweep] - low);
        /* the first key above end (numpy's searchsorted, side="right"): galloping from the entry's own (no key up to
           it lies above end: its own is at most end, and a count is at least 0 however it is found), then halving:
           an entry meets a few others, and a search over every key mispredicts at each of its steps */
        int64_t a = e + 1, b = e + 1, step = 1;
        while (b < E && key[b] <= end) {
            a = b + 1;
            b = a + step;
            step *= 2;
        }
        b = b < E ? b : E;
        while (a < b) {
            int64_t m = a + (b - a) / 2;
            if (key[m] <= end)
                a = m + 1;
            else
                b = m;
        }
        count[e] = a - e - 1;
        total += count[e];
    }
    *needed = total;
    if (total > capacity) {
        result = -3;
        goto done;
    }
    int64_t n = 0;
    for (int64_t e = 0; e < E; ++e)
        for (int64_t j = e + 1; j <= e + count[e]; ++j) {
            out_a[n] = first[e];
            out_b[n] = first[j];
            ++n;
        }
    if (two && n) { /* two boxes both in two strips meet twice: each pair once, sorted */
        for (int64_t k = 0; k < n; ++k) {
            int64_t a = out_a[k] < out_b[k] ? out_a[k] : out_b[k], b = out_a[k] < out_b[k] ? out_b[k] : out_a[k];
            out_a[k] = a * N + b;
        }
        sweep_sort_values(out_a, out_b, n); /* (out_b as its scratch: rewritten below) */
        int64_t u = 0;
        for (int64_t k = 0; k < n; ++k)
            if (k == 0 || out_a[k] != out_a[k - 1])
                out_a[u++] = out_a[k];
        for (int64_t k = 0; k < u; ++k) {
            out_b[k] = out_a[k] % N;
            out_a[k] = out_a[k] / N;
        }
        n = u;
    }
    result = n;
done:
    free(first);
    free(box);
    free(strip);
    free(keyed);
    free(key);
    free(count);
    free(scratch);
    return result;
}
