/* genetic.c -- steady-state genetic algorithm, and the population that
 * diff_evo.c shares.
 *
 * A child of two tournament-selected parents (uniform crossover, then
 * mutate()) replaces the worst member when it is faster. Children that
 * are invalid or known are repaired to the nearest new configuration, so
 * every proposal costs one evaluation. Population size follows the
 * budget: small budgets cannot afford a wide population. */
#include "search/technique.h"

enum { GA_MINPOP = 4 };

static int pop_size(const atune__search_state *s)
{
    int64_t n = s->horizon / 8;

    return n < GA_MINPOP          ? GA_MINPOP
           : n > ATUNE__GA_MAXPOP ? ATUNE__GA_MAXPOP
                                  : (int)n;
}

int atune__population_init(void *st, atune__search_state *s)
{
    ((atune__population *)st)->size = pop_size(s);
    return 0;
}

void atune__population_tell(void *st, atune__search_state *s, int64_t pos,
                            double t, int how)
{
    atune__population *g = st;
    int worst = 0;

    (void)s, (void)how;
    for (int i = 0; i < g->n; i++)
        if (g->pop[i].pos == pos)
            return;
    if (g->n < g->size) {
        g->pop[g->n++] = (atune__member){pos, t};
        return;
    }
    for (int i = 1; i < g->n; i++)
        if (g->pop[i].t > g->pop[worst].t)
            worst = i;
    if (t < g->pop[worst].t)
        g->pop[worst] = (atune__member){pos, t};
}

static int tournament(atune__population *g, atune__search_state *s)
{
    int a = (int)atune__rng_below(&s->r, g->n);
    int b = (int)atune__rng_below(&s->r, g->n);

    return g->pop[a].t <= g->pop[b].t ? a : b;
}

/* Each parameter, with probability 1/np, takes another value at random:
 * in our evaluation that beat one-step mutation (which a population that
 * has converged cannot escape with). */
static void mutate(atune__search_state *s, atune__rank *c)
{
    for (int p = 0; p < s->sp.np; p++) {
        int nv = s->sp.nv[p], r;
        if (nv < 2 || atune__rng_below(&s->r, s->sp.np) != 0)
            continue;
        r = (int)atune__rng_below(&s->r, nv - 1);
        c[p] = (atune__rank)(r >= c[p] ? r + 1 : r);
    }
}

static int64_t genetic_ask(void *st, atune__search_state *s)
{
    atune__population *g = st;
    atune__rank c[ATUNE__MAX_PARAMS];
    const atune__rank *x, *y;

    if (g->n < g->size)
        return -1;
    x = atune__coord(s, g->pop[tournament(g, s)].pos);
    y = atune__coord(s, g->pop[tournament(g, s)].pos);
    for (int p = 0; p < s->sp.np; p++)
        c[p] = atune__rng_below(&s->r, 2) ? x[p] : y[p];
    mutate(s, c);
    return atune__repair(s, c);
}

const atune__technique atune__genetic_algorithm = {
    .name = "genetic_algorithm",
    .state_size = sizeof(atune__population),
    .init = atune__population_init,
    .ask = genetic_ask,
    .tell = atune__population_tell};
