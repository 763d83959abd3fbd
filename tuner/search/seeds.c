/* seeds.c -- which winners of the sizes tuned before start a size's
 * search: those of the nearest sizes, by the sizes' values, not by the
 * order they were tuned in. A named size tuned first (matmul's 4096^3) is
 * the nearest neighbour of ladder points tuned much later (4100^3, and
 * a ladder's top, 8196^3): on an H100 (2026-11-24) the search at 8196^3
 * seeded with the four ladder points before it (all 64 x 128 tiles)
 * never tried the 128 x 128 tiles of 4096^3's winner, which were 6% faster
 * there. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "search/strategy.h"

/* The value of variable name (len bytes) in key, or -1. */
static double key_value(const char *key, const char *name, size_t len)
{
    const char *p = key;

    while (p && *p) {
        const char *eq = strchr(p, '=');
        if (!eq)
            return -1;
        if ((size_t)(eq - p) == len && strncmp(p, name, len) == 0)
            return strtod(eq + 1, NULL);
        p = strchr(eq, ',');
        if (p)
            p++;
    }
    return -1;
}

static int nvars(const char *key)
{
    int n = 0;

    for (; *key; key++)
        n += *key == '=';
    return n;
}

double atune__size_key_distance(const char *a, const char *b)
{
    double d = 0;
    const char *p = a;

    if (nvars(a) != nvars(b))
        return INFINITY;
    while (p && *p) {
        const char *eq = strchr(p, '=');
        double x, y;
        if (!eq)
            return INFINITY;
        x = strtod(eq + 1, NULL);
        y = key_value(b, p, (size_t)(eq - p));
        if (!(x >= 1 && y >= 1))
            return INFINITY;
        d += fabs(log(x) - log(y));
        p = strchr(eq, ',');
        if (p)
            p++;
    }
    return d;
}

int atune__seeds_nearest(const char *key, const char *const *keys,
                         const int64_t *winners, int n, int64_t *seeds)
{
    int nseeds = 0;
    unsigned char taken[ATUNE__MAX_SIZES] = {0};

    if (n > ATUNE__MAX_SIZES)
        n = ATUNE__MAX_SIZES;
    while (nseeds < ATUNE__MAX_SEEDS) {
        int pick = -1, dup = 0;
        double best = INFINITY;

        /* The nearest not taken; of equals, the latest tuned (first). */
        for (int i = 0; i < n; i++) {
            double d = taken[i] ? INFINITY
                                : atune__size_key_distance(key, keys[i]);
            if (!taken[i] && (pick < 0 || d < best)) {
                pick = i;
                best = d;
            }
        }
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
