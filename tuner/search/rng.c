/* rng.c -- the search's random numbers: xoshiro256** (Blackman and
 * Vigna), seeded with splitmix64, so that a search is reproducible from
 * its seed on every platform (see technique.h). */
#include "search/technique.h"

static uint64_t splitmix64(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);

    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

void atune__rng_seed(atune__rng *r, uint64_t seed)
{
    for (int i = 0; i < 4; i++)
        r->s[i] = splitmix64(&seed);
}

static uint64_t rotl(uint64_t x, int k)
{
    return (x << k) | (x >> (64 - k));
}

uint64_t atune__rng_next(atune__rng *r)
{
    uint64_t *s = r->s;
    uint64_t out = rotl(s[1] * 5, 7) * 9, t = s[1] << 17;

    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return out;
}

double atune__rng_unit(atune__rng *r)
{
    return (double)(atune__rng_next(r) >> 11) * 0x1.0p-53;
}

int64_t atune__rng_below(atune__rng *r, int64_t n)
{
    uint64_t un = (uint64_t)n, lim = UINT64_MAX - UINT64_MAX % un, x;

    do
        x = atune__rng_next(r);
    while (x >= lim);
    return (int64_t)(x % un);
}

void atune__rng_shuffle(atune__rng *r, int64_t *a, int n)
{
    for (int i = n - 1; i > 0; i--) {
        int j = (int)atune__rng_below(r, i + 1);
        int64_t t = a[i];
        a[i] = a[j];
        a[j] = t;
    }
}
