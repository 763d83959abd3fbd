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
#include <stdlib.h>

#include "search/technique.h"

enum { ILS_PERTURB = 3, ILS_RESTART = 4, RESTART_DRAWS = 16, MAX_OPTIMA = 64 };
/* ils_upcoming: the branches it follows, the asks it looks ahead. */
enum { NEXT_CENTRES = 8, BRANCH_ASKS = 8, PREFETCH_DEPTH = 32, WIN_SPAN = 16 };
#define WIN_START 0.25

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
    double win_rate; /* of a neighbour told (ils_tell) */
    /* ils_upcoming's neighbourhoods: the loss path's and its branches' */
    int64_t walk_nb[2][ATUNE__MAX_NEIGHBOURS];
} ils;

static int ils_init(void *st, atune__search_state *s)
{
    ils *g = st;

    (void)s;
    g->win_rate = WIN_START;
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

/* The perturbation: a random walk of ILS_PERTURB one-step moves from
 * pos, drawn from r (the search's generator, or ils_upcoming's copy). */
static int64_t perturb(const atune__search_state *s, atune__rng *r,
                       int64_t pos)
{
    for (int i = 0; i < ILS_PERTURB; i++) {
        int64_t nb[2 * ATUNE__MAX_PARAMS];
        int n = atune__adjacent(s, pos, nb);
        if (n == 0)
            break;
        pos = nb[atune__rng_below(r, n)];
    }
    return pos;
}

/* A climb ended at cur: cur becomes home when it beats it; else one more
 * stale perturbation. 1 when ILS_RESTART of them call for a restart. */
static int settle(int64_t *home, double *home_t, int *stale, int64_t cur,
                  double cur_t)
{
    if (*home < 0 || cur_t < *home_t) {
        *home = cur;
        *home_t = cur_t;
        *stale = 0;
        return 0;
    }
    return ++*stale >= ILS_RESTART;
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
    if (settle(&g->home, &g->home_t, &g->stale, g->cur, g->cur_t)) {
        g->home = -1;
        g->home_t = INFINITY;
        if (!g->restarting)
            return -1;
        g->fresh = 1;
        return far_restart(g, s);
    }
    return perturb(s, &s->r, g->home);
}

static void ils_tell(void *st, atune__search_state *s, int64_t pos, double t,
                     int how)
{
    ils *g = st;

    /* How often a neighbour wins, for ils_upcoming: a moving average over
     * about WIN_SPAN evaluations of the climbs. */
    if (!g->starting && how == ATUNE__TOLD_NEW && g->cur >= 0)
        g->win_rate += ((t < g->cur_t) - g->win_rate) / WIN_SPAN;
    if (g->starting || how == ATUNE__TOLD_JUMP || g->cur < 0 || t < g->cur_t) {
        g->starting = 0;
        ils_move(g, s, pos, t);
    }
}

/* ---- what the search will ask next (the compile pool's hints) ----------
 *
 * With NVRTC's own cache cold, the default run of copy at 2^28 waited 3.6
 * of its 4.2 s for NVRTC when only the rest of the neighbourhood was
 * hinted: every move made the next ask a compile nobody had begun (H100,
 * 2026-11-27). The pool may start at most twice as many compiles as the
 * search evaluates, so the hints must name what is needed first. The
 * search is a pure function of its generator and the times it is told,
 * and a tell that loses changes nothing: the asks that follow if nothing
 * wins (the loss path: the rest of the neighbourhood, then the
 * perturbation and its neighbourhood) and those after one win (a branch:
 * the winner's neighbourhood, in the order a copy of the generator
 * shuffles it) are known exactly. The hints are those asks, most likely
 * first: the loss path's d-th with chance (1 - w)^d, a branch's, w times
 * the chance of its winner, with w how often a neighbour has won lately.
 * Replayed on the design spaces with the pool's rules
 * (tests/eval_strategies --pipeline 0.1,0.1,16: compiles as long as
 * evaluations), the search waited 23.1% of its time with the earlier
 * hints and 21.0% with these, at 2 modules per evaluation. */

/* A copy of a climb's state, walked without measuring. */
typedef struct walk {
    atune__rng r;
    const int64_t *nb;
    int nnb, inb;
    int64_t *own; /* a neighbourhood after a move */
    int64_t cur, home;
    double cur_t, home_t;
    int stale, restarting;
} walk;

static void walk_from(walk *w, const ils *g, const atune__search_state *s,
                      int64_t *own)
{
    w->r = s->r;
    w->nb = g->nb;
    w->nnb = g->nnb;
    w->inb = g->inb;
    w->own = own;
    w->cur = g->cur;
    w->cur_t = g->cur_t;
    w->home = g->home;
    w->home_t = g->home_t;
    w->stale = g->stale;
    w->restarting = g->restarting;
}

/* The climb moves to pos (told t). */
static void walk_move(walk *w, const atune__search_state *s, int64_t pos,
                      double t)
{
    w->cur = pos;
    w->cur_t = t;
    w->nnb = atune__neighbourhood_r(s, &w->r, pos, w->own);
    w->nb = w->own;
    w->inb = 0;
}

/* A branch: the one-step neighbours of pos in the order its climb asks
 * them (the shuffle that atune__neighbourhood_r draws first), and nothing
 * after them: the rest are asked too late to matter. */
static void walk_branch(walk *w, const atune__search_state *s, int64_t pos)
{
    w->cur = pos;
    w->cur_t = -INFINITY;
    w->nnb = atune__adjacent(s, pos, w->own);
    atune__rng_shuffle(&w->r, w->own, w->nnb);
    w->nb = w->own;
    w->inb = 0;
    w->home = -2; /* the walk ends with the neighbours (walk_next) */
}

/* The next ask when nothing told since wins: ils_ask without the
 * ils_restart rules (its two-parameter moves and restarts end the walk),
 * and the perturbation's target moved to, as its tell will. -1 where it
 * cannot be known (a restart draws from what has been evaluated by then).
 * *branch: a configuration whose win would change the path. */
static int64_t walk_next(walk *w, const atune__search_state *s, int *branch)
{
    int64_t pos;

    *branch = 0;
    if (w->inb < w->nnb) {
        *branch = 1;
        return w->nb[w->inb++];
    }
    if (w->restarting || w->home == -2)
        return -1;
    if (settle(&w->home, &w->home_t, &w->stale, w->cur, w->cur_t))
        return -1;
    pos = perturb(s, &w->r, w->home);
    walk_move(w, s, pos, INFINITY);
    return pos;
}

/* The next configuration of the walk that costs an evaluation: not
 * evaluated, and not one of the loss path's first `upto` (evaluated by the
 * time a branch from there is taken). */
static int64_t walk_new(walk *w, const atune__search_state *s,
                        const int64_t *path, int upto, int *branch)
{
    for (int guard = 0; guard < ATUNE__MAX_NEIGHBOURS; guard++) {
        int64_t pos = walk_next(w, s, branch);
        int seen = 0;
        if (pos < 0)
            return -1;
        for (int i = 0; i < upto && !seen; i++)
            seen = path[i] == pos;
        if (!s->done[pos] && !seen)
            return pos;
    }
    return -1;
}

typedef struct hint {
    int64_t pos;
    double p;  /* the chance that the search asks for it */
    int depth; /* evaluations before it is asked, when it is */
} hint;

static int by_chance(const void *a, const void *b)
{
    const hint *x = a, *y = b;

    if (x->p != y->p)
        return x->p > y->p ? -1 : 1;
    return (x->depth > y->depth) - (x->depth < y->depth);
}

static int ils_upcoming(void *st, const atune__search_state *s, int64_t *out,
                        int max)
{
    ils *g = st;
    walk loss, br;
    int64_t path[PREFETCH_DEPTH];
    hint h[PREFETCH_DEPTH + NEXT_CENTRES * BRANCH_ASKS];
    int npath = 0, nbr = 0, nh = 0, n = 0;
    double w = g->win_rate, stay = 1;

    if (g->cur < 0)
        return 0;
    walk_from(&loss, g, s, g->walk_nb[0]);
    /* The loss path: at depth d with chance (1 - w)^d. A win at a
     * neighbour of depth d starts a branch: its k-th ask at depth d + 1 +
     * k, with chance (1 - w)^d w (1 - w)^k. */
    while (npath < PREFETCH_DEPTH) {
        int branch;
        int64_t pos = walk_new(&loss, s, path, npath, &branch);
        if (pos < 0)
            break;
        path[npath] = pos;
        h[nh++] = (hint){pos, stay, npath};
        if (branch && nbr < NEXT_CENTRES) {
            double q = stay * w;
            br = loss;
            br.own = g->walk_nb[1];
            walk_branch(&br, s, pos);
            for (int k = 0; k < BRANCH_ASKS; k++, q *= 1 - w) {
                int64_t b = walk_new(&br, s, path, npath + 1, &branch);
                if (b < 0)
                    break;
                h[nh++] = (hint){b, q, npath + 1 + k};
            }
            nbr++;
        }
        stay *= 1 - w;
        npath++;
    }
    qsort(h, (size_t)nh, sizeof(*h), by_chance);
    for (int i = 0; i < nh && n < max; i++) {
        int dup = 0;
        for (int k = 0; k < n && !dup; k++)
            dup = out[k] == h[i].pos;
        if (!dup)
            out[n++] = h[i].pos;
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
