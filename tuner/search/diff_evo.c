/* diff_evo.c -- differential evolution, DE/best/1/bin.
 *
 * Vectors live in [0, 1] per parameter (rank / (nv - 1)); the trial of
 * target i is best + F (a - b) crossed with the target at rate CR, rounded
 * to ranks and repaired like the genetic algorithm's children. It replaces
 * the target when not slower. F = 0.8 as Storn and Price recommend; CR =
 * 0.5 rather than their 0.9 did better in our evaluation (parameters of
 * launch configurations interact less than those of continuous problems).
 */
#include <math.h>

#include "search/technique.h"

#define DE_F 0.8
#define DE_CR 0.5

typedef struct diffevo {
    atune__population g; /* population (positions and times) */
    int target;
} diffevo;

static double unit_rank(const atune__search_state *s, int64_t pos, int p)
{
    int nv = s->sp.nv[p];

    return nv > 1 ? (double)atune__coord(s, pos)[p] / (nv - 1) : 0;
}

static int64_t diffevo_ask(void *st, atune__search_state *s)
{
    diffevo *d = st;
    atune__population *g = &d->g;
    atune__rank c[ATUNE__MAX_PARAMS];
    int best = 0, a, b, jr;

    if (g->n < g->size)
        return -1;
    for (int i = 1; i < g->n; i++)
        if (g->pop[i].t < g->pop[best].t)
            best = i;
    a = (int)atune__rng_below(&s->r, g->n);
    do
        b = (int)atune__rng_below(&s->r, g->n);
    while (b == a);
    jr = (int)atune__rng_below(&s->r, s->sp.np);
    for (int p = 0; p < s->sp.np; p++) {
        double v = unit_rank(s, g->pop[d->target].pos, p);
        int nv = s->sp.nv[p];
        if (p == jr || atune__rng_unit(&s->r) < DE_CR)
            v = unit_rank(s, g->pop[best].pos, p) +
                DE_F * (unit_rank(s, g->pop[a].pos, p) -
                        unit_rank(s, g->pop[b].pos, p));
        v = v < 0 ? 0 : v > 1 ? 1 : v;
        c[p] = (atune__rank)lround(v * (nv - 1));
    }
    return atune__repair(s, c);
}

static void diffevo_tell(void *st, atune__search_state *s, int64_t pos,
                         double t, int how)
{
    diffevo *d = st;
    atune__population *g = &d->g;

    if (g->n < g->size) {
        atune__population_tell(g, s, pos, t, how);
        return;
    }
    if (t <= g->pop[d->target].t)
        g->pop[d->target] = (atune__member){pos, t};
    d->target = (d->target + 1) % g->n;
}

/* The population comes first in diffevo, so the population's init fits. */
const atune__technique atune__diff_evo = {
    .name = "diff_evo",
    .state_size = sizeof(diffevo),
    .init = atune__population_init,
    .ask = diffevo_ask,
    .tell = diffevo_tell};
