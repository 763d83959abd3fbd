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
 * steps, 2-8 perturbations all within noise).
 *
 * ils_restart (issue 34, an option, not the default) is the same search
 * with three changes against stagnation: before a climb calls a
 * configuration a local optimum it also tries the moves of one step in two
 * parameters at once (atune__diagonal: a ridge that no single change
 * follows, such as a larger block with fewer items per thread); a restart
 * starts from the one of RESTART_DRAWS random new configurations that is
 * farthest from every local optimum found so far, not from any random one;
 * and it tells the driver's stopping rule when a climb from a restart has
 * ended (s->restarts), which waits for ATUNE__RESTART_WAIT of them after
 * the last gain in a large space (driver.c has the rule and the numbers). */
#include <math.h>

#include "search/technique.h"

enum { ILS_PERTURB = 3, ILS_RESTART = 4, RESTART_DRAWS = 16, MAX_OPTIMA = 64 };

typedef struct ils {
    int64_t cur;
    double cur_t;
    int64_t nb[ATUNE__MAX_NEIGHBOURS];
    int nnb, inb;
    int64_t home; /* best local optimum */
    double home_t;
    int stale;    /* perturbations since home improved */
    int starting; /* the next tell starts a climb */
    /* ils_restart only */
    int restarting; /* the variant's rules apply */
    int diagonal;   /* the two-parameter moves are being tried */
    int fresh;      /* the climb started from a restart */
    int64_t optima[MAX_OPTIMA]; /* local optima found (a sample of them) */
    int noptima;
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

static int ils_restart_init(void *st, atune__search_state *s)
{
    ils *g = st;

    ils_init(st, s);
    g->restarting = 1;
    s->wait_restarts = 1;
    return 0;
}

static void ils_move(ils *g, atune__search_state *s, int64_t pos, double t)
{
    g->cur = pos;
    g->cur_t = t;
    g->nnb = atune__neighbourhood(s, pos, g->nb);
    g->inb = 0;
    g->diagonal = 0;
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

/* Rank distance of two configurations, each parameter's scaled to 0..1. */
static double distance(const atune__search_state *s, int64_t a, int64_t b)
{
    const atune__rank *x = atune__coord(s, a), *y = atune__coord(s, b);
    double d = 0;

    for (int p = 0; p < s->sp.np; p++)
        if (s->sp.nv[p] > 1)
            d += fabs((double)x[p] - (double)y[p]) / (s->sp.nv[p] - 1);
    return d;
}

/* Of RESTART_DRAWS random new configurations, the farthest from the
 * nearest local optimum found so far: a restart that lands in a basin
 * already climbed is wasted. -1 (the driver's random one) when none is
 * left. */
static int64_t far_restart(const ils *g, atune__search_state *s)
{
    int64_t best = -1;
    double bestd = -1;

    for (int i = 0; i < RESTART_DRAWS; i++) {
        int64_t c = atune__random_new(s);
        double near = INFINITY;
        if (c < 0)
            break;
        for (int k = 0; k < g->noptima; k++) {
            double d = distance(s, c, g->optima[k]);
            near = d < near ? d : near;
        }
        if (near > bestd) {
            bestd = near;
            best = c;
        }
    }
    return best;
}

static int64_t ils_ask(void *st, atune__search_state *s)
{
    ils *g = st;

    if (g->cur < 0)
        return -1;
    if (g->inb < g->nnb)
        return g->nb[g->inb++];
    if (g->restarting && !g->diagonal) {
        g->diagonal = 1;
        g->nnb = atune__diagonal(s, g->cur, g->nb);
        g->inb = 0;
        if (g->nnb > 0)
            return g->nb[g->inb++];
    }
    /* A local optimum. */
    g->starting = 1;
    if (g->restarting) {
        if (g->noptima < MAX_OPTIMA)
            g->optima[g->noptima++] = g->cur;
        else
            g->optima[atune__rng_below(&s->r, MAX_OPTIMA)] = g->cur;
        if (g->fresh)
            s->restarts++;
        g->fresh = 0;
    }
    if (g->home < 0 || g->cur_t < g->home_t) {
        g->home = g->cur;
        g->home_t = g->cur_t;
        g->stale = 0;
    } else if (++g->stale >= ILS_RESTART) {
        g->home = -1;
        g->home_t = INFINITY;
        if (!g->restarting)
            return -1;
        g->fresh = 1;
        return far_restart(g, s);
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

/* The rest of the neighbourhood being climbed, in the order it is asked,
 * then the one-step neighbours of its next NEXT_CENTRES candidates: where
 * the climb goes first when one of those wins. Without them a move made
 * every next ask a compile the workers had not started: with NVRTC's own
 * cache cold, the default run of copy at 2^28 waited 3.6 of its 4.2 s for
 * NVRTC and took longer than brute force, whose workers compile ahead in
 * index order (H100, 2026-11-27). */
enum { NEXT_CENTRES = 4 };

static int ils_upcoming(void *st, const atune__search_state *s, int64_t *out,
                        int max)
{
    const ils *g = st;
    int n = 0;

    for (int i = g->inb; i < g->nnb && n < max; i++)
        out[n++] = g->nb[i];
    for (int i = g->inb; i < g->nnb && i < g->inb + NEXT_CENTRES; i++) {
        int64_t adj[2 * ATUNE__MAX_PARAMS];
        int na = atune__adjacent(s, g->nb[i], adj);
        for (int k = 0; k < na && n < max; k++)
            out[n++] = adj[k];
    }
    return n;
}

const atune__technique atune__greedy_ils = {
    .name = "greedy_ils",
    .state_size = sizeof(ils),
    .init = ils_init,
    .ask = ils_ask,
    .tell = ils_tell,
    .upcoming = ils_upcoming};

const atune__technique atune__ils_restart = {
    .name = "ils_restart",
    .state_size = sizeof(ils),
    .init = ils_restart_init,
    .ask = ils_ask,
    .tell = ils_tell,
    .upcoming = ils_upcoming};
