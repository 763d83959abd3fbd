/* seeds.c -- which winners of the sizes tuned before start a size's
 * search: those of the nearest sizes, by the sizes' values, not by the
 * order they were tuned in. A named size tuned first (matmul's 4096^3) is
 * the nearest neighbour of ladder points tuned much later (4100^3, and
 * a ladder's top, 8196^3): on an H100 (2026-11-24) the search at 8196^3
 * seeded with the four ladder points before it (all 64 x 128 tiles)
 * never tried the 128 x 128 tiles of 4096^3's winner, which were 6% faster
 * there. */
#include "lib/profile_internal.h"
#include "search/strategy.h"

int atune__seeds_nearest(const char *key, const char *const *keys,
                         const int64_t *winners, int n, int64_t *seeds)
{
    double d[ATUNE__MAX_SIZES];
    unsigned char taken[ATUNE__MAX_SIZES] = {0};
    int nseeds = 0;

    if (n > ATUNE__MAX_SIZES)
        n = ATUNE__MAX_SIZES;
    for (int i = 0; i < n; i++)
        d[i] = atune__size_key_distance(key, keys[i]);
    while (nseeds < ATUNE__MAX_SEEDS) {
        int pick = -1, dup = 0;

        /* The nearest not taken; of equals, the latest tuned (first). */
        for (int i = 0; i < n; i++)
            if (!taken[i] && (pick < 0 || d[i] < d[pick]))
                pick = i;
        if (pick < 0)
            break;
        taken[pick] = 1;
        /* Two sizes with one winner: one seed, the slot to the next. */
        for (int i = 0; i < nseeds; i++)
            dup |= seeds[i] == winners[pick];
        if (!dup)
            seeds[nseeds++] = winners[pick];
    }
    return nseeds;
}
