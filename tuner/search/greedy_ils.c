/* greedy_ils.c -- greedy iterated local search, the default strategy.
 *
 * First-improvement hill climbing in atune__neighbourhood() (one-step
 * moves first, then any other value of one parameter); at a local
 * optimum, a perturbation (a random walk of ILS_PERTURB one-step moves
 * from the best local optimum so far) starts the next climb; after
 * ILS_RESTART perturbations without a better local optimum, the next
 * climb starts from a random configuration. The first climb starts from
 * the default configuration, which is evaluated first anyway. Greedy ILS
 * is among the strongest techniques on GPU tuning spaces in Schoonhoven et
 * al. (IEEE TEVC 2022) and Willemsen et al. (FGCS 2024); the perturbation
 * size and restart threshold hardly mattered in our evaluation (1-3
 * steps, 2-8 perturbations all within noise). */
#include <math.h>

#include "search/technique.h"

enum { ILS_PERTURB = 3, ILS_RESTART = 4 };

typedef struct ils {
    int64_t cur;
    double cur_t;
    int64_t nb[ATUNE__MAX_NEIGHBOURS];
    int nnb, inb;
    int64_t home; /* best local optimum */
    double home_t;
    int stale;    /* perturbations since home improved */
    int starting; /* the next tell starts a climb */
} ils;

static int ils_init(void *st, atune__search_state *s)
{
    ils *g = st;

    (void)s;
    g->cur = g->home = -1;
    g->cur_t = g->home_t = INFINITY;
    g->starting = 1;
    return 0;
}

static void ils_move(ils *g, atune__search_state *s, int64_t pos, double t)
{
    g->cur = pos;
    g->cur_t = t;
    g->nnb = atune__neighbourhood(s, pos, g->nb);
    g->inb = 0;
}

static int64_t ils_perturb(ils *g, atune__search_state *s)
{
    int64_t pos = g->home;

    for (int i = 0; i < ILS_PERTURB; i++) {
        int64_t nb[2 * ATUNE__MAX_PARAMS];
        int n = atune__adjacent(s, pos, nb);
        if (n == 0)
            break;
        pos = nb[atune__rng_below(&s->r, n)];
    }
    return pos;
}

static int64_t ils_ask(void *st, atune__search_state *s)
{
    ils *g = st;

    if (g->cur < 0)
        return -1;
    if (g->inb < g->nnb)
        return g->nb[g->inb++];
    /* A local optimum. */
    g->starting = 1;
    if (g->home < 0 || g->cur_t < g->home_t) {
        g->home = g->cur;
        g->home_t = g->cur_t;
        g->stale = 0;
    } else if (++g->stale >= ILS_RESTART) {
        g->home = -1;
        g->home_t = INFINITY;
        return -1;
    }
    return ils_perturb(g, s);
}

static void ils_tell(void *st, atune__search_state *s, int64_t pos, double t,
                     int how)
{
    ils *g = st;

    if (g->starting || how == ATUNE__TOLD_JUMP || g->cur < 0 || t < g->cur_t) {
        g->starting = 0;
        ils_move(g, s, pos, t);
    }
}

/* The rest of the neighbourhood being climbed, in the order it is asked. */
static int ils_upcoming(void *st, const atune__search_state *s, int64_t *out,
                        int max)
{
    const ils *g = st;
    int n = 0;

    (void)s;
    for (int i = g->inb; i < g->nnb && n < max; i++)
        out[n++] = g->nb[i];
    return n;
}

const atune__technique atune__greedy_ils = {
    .name = "greedy_ils",
    .state_size = sizeof(ils),
    .init = ils_init,
    .ask = ils_ask,
    .tell = ils_tell,
    .upcoming = ils_upcoming};
