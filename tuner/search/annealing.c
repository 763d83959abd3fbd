/* annealing.c -- simulated annealing.
 *
 * A random walk over one-step neighbours that always accepts a faster
 * configuration and a slower one with probability exp(-worsening / T),
 * the worsening relative (10% slower is 0.1) so that one schedule fits
 * every kernel; T falls geometrically from SA_T0 to SA_T1 over the
 * expected number of evaluations. Walking through known configurations is
 * free. The schedule hardly mattered in our evaluation (T0 0.03-0.3, T1
 * 0.0005-0.01 all within noise). */
#include <math.h>

#include "search/technique.h"

#define SA_T0 0.10
#define SA_T1 0.002

typedef struct anneal {
    int64_t cur;
    double cur_t;
} anneal;

static int anneal_init(void *st, atune__search_state *s)
{
    anneal *a = st;

    (void)s;
    a->cur = -1;
    a->cur_t = INFINITY;
    return 0;
}

static int64_t anneal_ask(void *st, atune__search_state *s)
{
    anneal *a = st;
    int64_t nb[2 * ATUNE__MAX_PARAMS];
    int n;

    if (a->cur < 0)
        return -1;
    n = atune__adjacent(s, a->cur, nb);
    return n ? nb[atune__rng_below(&s->r, n)] : -1;
}

static void anneal_tell(void *st, atune__search_state *s, int64_t pos, double t,
                        int how)
{
    anneal *a = st;
    double T = SA_T0 * pow(SA_T1 / SA_T0, atune__progress(s));
    double w = atune__worse(a->cur_t, t);

    if (how == ATUNE__TOLD_JUMP || a->cur < 0 || w <= 0 ||
        atune__rng_unit(&s->r) < exp(-w / T)) {
        a->cur = pos;
        a->cur_t = t;
    }
}

const atune__technique atune__simulated_annealing = {
    .name = "simulated_annealing",
    .state_size = sizeof(anneal),
    .init = anneal_init,
    .ask = anneal_ask,
    .tell = anneal_tell};
