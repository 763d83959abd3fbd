/* strategy.c -- search strategies over a template's space (see strategy.h).
 *
 * Every strategy is a "technique" in ask/tell form: ask proposes a valid
 * configuration, tell hands back its time. One driver loop owns what the
 * contract promises for all of them: the default configuration first, no
 * configuration evaluated twice (a proposal that was evaluated already is
 * answered from the record, at no cost), the budget, the time limit, the
 * end of the space and the final pick. Because techniques never call eval
 * themselves, a bandit can interleave them step by step.
 *
 * Techniques see a configuration as a vector of ranks: the position of each
 * parameter's value in its values sorted ascending, not in the manifest's
 * order (which starts with the default), so that "one step" means "the next
 * larger or smaller value". All randomness comes from one xoshiro256**
 * generator seeded from spec->seed: a search is a pure function of the
 * seed and the times it is told, which makes simulations reproducible. */
#include "search/strategy.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "template/space.h"

/* ---- random numbers: xoshiro256**, seeded with splitmix64 ------------- */

typedef struct rng {
    uint64_t s[4];
} rng;

static uint64_t splitmix64(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);

    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static void rng_seed(rng *r, uint64_t seed)
{
    for (int i = 0; i < 4; i++)
        r->s[i] = splitmix64(&seed);
}

static uint64_t rotl(uint64_t x, int k)
{
    return (x << k) | (x >> (64 - k));
}

static uint64_t rng_next(rng *r)
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

/* Uniform in [0, 1). */
static double rng_unit(rng *r)
{
    return (double)(rng_next(r) >> 11) * 0x1.0p-53;
}

/* Uniform in [0, n), n >= 1, without modulo bias. */
static int64_t rng_below(rng *r, int64_t n)
{
    uint64_t un = (uint64_t)n, lim = UINT64_MAX - UINT64_MAX % un, x;

    do
        x = rng_next(r);
    while (x >= lim);
    return (int64_t)(x % un);
}

/* ---- the space as the techniques see it ------------------------------- */

typedef unsigned char rank_t;

typedef struct space {
    int np;
    int nv[ATUNE__MAX_PARAMS];
    int64_t stride[ATUNE__MAX_PARAMS];
    int list_pos[ATUNE__MAX_PARAMS][ATUNE__MAX_VALUES]; /* rank -> list */
    int64_t nvalid;
    int64_t *index; /* valid position -> space index, ascending */
    rank_t *coord;  /* nvalid * np ranks */
} space;

typedef struct search search;

/* How a configuration came to be told. */
enum { TOLD_NEW, TOLD_CACHED, TOLD_JUMP };

typedef struct technique {
    const char *name;
    size_t state_size;
    int (*init)(void *st, search *s);
    /* A valid position (evaluated or not), or -1 for "anything new". */
    int64_t (*ask)(void *st, search *s);
    /* The time of pos. how is TOLD_NEW after an evaluation of the
     * technique's proposal, TOLD_CACHED when the proposal had been
     * evaluated before, TOLD_JUMP when pos was not its proposal: the
     * default configuration at the start, or a fresh configuration the
     * driver substituted after too many proposals of known ones. */
    void (*tell)(void *st, search *s, int64_t pos, double t, int how);
    void (*fini)(void *st);
} technique;

struct search {
    space sp;
    const atune__search_spec *spec;
    atune__eval_fn eval;
    void *ctx;
    atune__err *err;
    rng r;
    unsigned char *done; /* per valid position: evaluated */
    double *t;           /* its time */
    int64_t n;           /* evaluations */
    int64_t horizon;     /* evaluations the search expects to make */
    double t0;
    int64_t best; /* valid position of the best time, -1 */
    double best_t;
    int rc;
    const char *stop;
};

/* The valid positions: spec->index when given, else the set entries of
 * spec->valid, in ascending space index order either way. */
static int valid_index(space *sp, const atune__search_spec *spec,
                       atune__err *err)
{
    int64_t total = atune__space_size(spec->m), k = 0;

    if (spec->index)
        sp->nvalid = spec->nvalid;
    else if (spec->valid)
        for (int64_t i = 0; i < total; i++)
            sp->nvalid += spec->valid[i] != 0;
    sp->index = atune__calloc((size_t)sp->nvalid, sizeof(*sp->index));
    if (!sp->index)
        return atune__fail(err, ATUNE__EOSERR, "out of memory");
    if (spec->index)
        memcpy(sp->index, spec->index, (size_t)sp->nvalid * sizeof(int64_t));
    else if (spec->valid)
        for (int64_t i = 0; i < total; i++)
            if (spec->valid[i])
                sp->index[k++] = i;
    return 0;
}

static int space_init(space *sp, const atune__search_spec *spec,
                      atune__err *err)
{
    const atune__manifest *m = spec->m;
    int rc;

    memset(sp, 0, sizeof(*sp));
    sp->np = m->nparams;
    for (int p = sp->np - 1; p >= 0; p--) {
        const atune__param *pa = &m->params[p];
        sp->nv[p] = pa->nvalues;
        sp->stride[p] = p == sp->np - 1 ? 1 : sp->stride[p + 1] * sp->nv[p + 1];
        /* Rank of each value: how many values are smaller. */
        for (int i = 0; i < pa->nvalues; i++) {
            int r = 0;
            for (int j = 0; j < pa->nvalues; j++)
                r += pa->values[j] < pa->values[i];
            sp->list_pos[p][r] = i;
        }
    }
    if ((rc = valid_index(sp, spec, err)))
        return rc;
    sp->coord = atune__calloc((size_t)sp->nvalid, (size_t)sp->np);
    if (!sp->coord)
        return atune__fail(err, ATUNE__EOSERR, "out of memory");
    for (int64_t k = 0; k < sp->nvalid; k++) {
        int64_t i = sp->index[k];
        for (int p = 0; p < sp->np; p++) {
            int lp = (int)(i / sp->stride[p] % sp->nv[p]);
            for (int r = 0; r < sp->nv[p]; r++)
                if (sp->list_pos[p][r] == lp)
                    sp->coord[k * sp->np + p] = (rank_t)r;
        }
    }
    return 0;
}

static void space_free(space *sp)
{
    free(sp->index);
    free(sp->coord);
}

static const rank_t *coord(const search *s, int64_t pos)
{
    return s->sp.coord + pos * s->sp.np;
}

/* Valid position of a rank vector, or -1 when it is not valid. */
static int64_t lookup(const space *sp, const rank_t *c)
{
    int64_t idx = 0, lo = 0, hi = sp->nvalid - 1;

    for (int p = 0; p < sp->np; p++)
        idx += sp->list_pos[p][c[p]] * sp->stride[p];
    while (lo <= hi) {
        int64_t mid = lo + (hi - lo) / 2;
        if (sp->index[mid] == idx)
            return mid;
        if (sp->index[mid] < idx)
            lo = mid + 1;
        else
            hi = mid - 1;
    }
    return -1;
}

/* The neighbour of pos one step along parameter p in direction dir (+1 or
 * -1). Constraints punch holes into the space, so a step skips invalid
 * values until it reaches a valid configuration or the end of the list. */
static int64_t step(const search *s, int64_t pos, int p, int dir)
{
    rank_t c[ATUNE__MAX_PARAMS];

    memcpy(c, coord(s, pos), (size_t)s->sp.np);
    for (int r = c[p] + dir; r >= 0 && r < s->sp.nv[p]; r += dir) {
        int64_t q;
        c[p] = (rank_t)r;
        if ((q = lookup(&s->sp, c)) >= 0)
            return q;
    }
    return -1;
}

static void shuffle(rng *r, int64_t *a, int n)
{
    for (int i = n - 1; i > 0; i--) {
        int j = (int)rng_below(r, i + 1);
        int64_t t = a[i];
        a[i] = a[j];
        a[j] = t;
    }
}

/* The one-step neighbours of pos (each parameter one value up or down,
 * see step()). Returns the count; out has room for 2 * np. */
static int adjacent(const search *s, int64_t pos, int64_t *out)
{
    int n = 0;

    for (int p = 0; p < s->sp.np; p++)
        for (int dir = -1; dir <= 1; dir += 2) {
            int64_t q = step(s, pos, p, dir);
            if (q >= 0)
                out[n++] = q;
        }
    return n;
}

enum { MAX_NEIGHBOURS = ATUNE__MAX_PARAMS * ATUNE__MAX_VALUES };

/* Every configuration that differs from pos in one parameter, in the order
 * of a variable neighbourhood descent: the one-step neighbours first (in
 * random order), then those that change one parameter to any other value
 * (in random order). One-step moves follow the smooth trends of ordered
 * parameters; the others cross what rank order hides, such as GRID = 0
 * ("cover the data once") sitting next to GRID = 1 while behaving like
 * the largest grids. Returns the count; out has room for MAX_NEIGHBOURS. */
static int neighbourhood(search *s, int64_t pos, int64_t *out)
{
    rank_t c[ATUNE__MAX_PARAMS];
    const rank_t *at = coord(s, pos);
    int n = adjacent(s, pos, out), near = n;

    shuffle(&s->r, out, near);
    memcpy(c, at, (size_t)s->sp.np);
    for (int p = 0; p < s->sp.np; p++) {
        for (int r = 0; r < s->sp.nv[p]; r++) {
            int64_t q;
            int dup = 0;
            c[p] = (rank_t)r;
            if (r == at[p] || (q = lookup(&s->sp, c)) < 0)
                continue;
            for (int i = 0; i < near && !dup; i++)
                dup = out[i] == q;
            if (!dup)
                out[n++] = q;
        }
        c[p] = at[p];
    }
    shuffle(&s->r, out + near, n - near);
    return n;
}

/* A uniformly random configuration not evaluated yet; -1 when none is
 * left. Rejection while most are new, else a scan for the k-th new one. */
static int64_t random_new(search *s)
{
    int64_t left = s->sp.nvalid - s->n, k;

    if (left <= 0)
        return -1;
    if (left * 4 >= s->sp.nvalid) {
        for (;;) {
            int64_t pos = rng_below(&s->r, s->sp.nvalid);
            if (!s->done[pos])
                return pos;
        }
    }
    k = rng_below(&s->r, left);
    for (int64_t pos = 0; pos < s->sp.nvalid; pos++)
        if (!s->done[pos] && k-- == 0)
            return pos;
    return -1;
}

/* The configuration not evaluated yet whose ranks are closest to c (sum of
 * rank differences), ties broken at random; -1 when none is left. This
 * repairs what crossover and mutation produce: invalid or known points. */
static int64_t nearest_new(search *s, const rank_t *c)
{
    int64_t best = -1, ties = 0;
    int bestd = 1 << 30;

    for (int64_t pos = 0; pos < s->sp.nvalid; pos++) {
        const rank_t *q = coord(s, pos);
        int d = 0;
        if (s->done[pos])
            continue;
        for (int p = 0; p < s->sp.np && d <= bestd; p++)
            d += abs((int)q[p] - (int)c[p]);
        if (d < bestd) {
            bestd = d;
            best = pos;
            ties = 1;
        } else if (d == bestd && rng_below(&s->r, ++ties) == 0) {
            best = pos;
        }
    }
    return best;
}

/* Like lookup, but for a point that is invalid or known: nearest_new. */
static int64_t repair(search *s, const rank_t *c)
{
    int64_t pos = lookup(&s->sp, c);

    return pos >= 0 && !s->done[pos] ? pos : nearest_new(s, c);
}

/* Relative worsening of b over a, for acceptance tests; failed
 * configurations (INFINITY) are infinitely worse than anything. */
static double worse(double a, double b)
{
    if (isinf(b))
        return isinf(a) ? 0 : INFINITY;
    if (isinf(a))
        return -INFINITY;
    return (b - a) / a;
}

/* Fraction of the search done, for schedules such as annealing's. */
static double progress(const search *s)
{
    double f = (double)s->n / (double)s->horizon;

    return f < 1 ? f : 1;
}

/* ---- brute_force: index order ----------------------------------------- */

typedef struct brute {
    int64_t next;
} brute;

static int64_t brute_ask(void *st, search *s)
{
    brute *b = st;

    while (b->next < s->sp.nvalid && s->done[b->next])
        b->next++;
    return b->next < s->sp.nvalid ? b->next : -1;
}

/* ---- random: uniform sampling without replacement ---------------------- */

static int64_t random_ask(void *st, search *s)
{
    (void)st;
    return random_new(s);
}

static void nothing_told(void *st, search *s, int64_t pos, double t, int how)
{
    (void)st, (void)s, (void)pos, (void)t, (void)how;
}

/* ---- greedy_ils: greedy iterated local search --------------------------
 * First-improvement hill climbing in neighbourhood() (one-step moves
 * first, then any other value of one parameter); at a local optimum, a
 * perturbation (a random walk of ILS_PERTURB one-step moves from the best
 * local optimum so far) starts the next climb; after ILS_RESTART
 * perturbations without a better local optimum, the next climb starts
 * from a random configuration. The first climb starts from the default
 * configuration, which is evaluated first anyway. Greedy ILS is among the
 * strongest techniques on GPU tuning spaces in Schoonhoven et al. (IEEE
 * TEVC 2022) and Willemsen et al. (FGCS 2024); the perturbation size and
 * restart threshold hardly mattered in our evaluation (1-3 steps, 2-8
 * perturbations all within noise). */

enum { ILS_PERTURB = 3, ILS_RESTART = 4 };

typedef struct ils {
    int64_t cur;
    double cur_t;
    int64_t nb[MAX_NEIGHBOURS];
    int nnb, inb;
    int64_t home; /* best local optimum */
    double home_t;
    int stale;    /* perturbations since home improved */
    int starting; /* the next tell starts a climb */
} ils;

static int ils_init(void *st, search *s)
{
    ils *g = st;

    (void)s;
    g->cur = g->home = -1;
    g->cur_t = g->home_t = INFINITY;
    g->starting = 1;
    return 0;
}

static void ils_move(ils *g, search *s, int64_t pos, double t)
{
    g->cur = pos;
    g->cur_t = t;
    g->nnb = neighbourhood(s, pos, g->nb);
    g->inb = 0;
}

static int64_t ils_perturb(ils *g, search *s)
{
    int64_t pos = g->home;

    for (int i = 0; i < ILS_PERTURB; i++) {
        int64_t nb[2 * ATUNE__MAX_PARAMS];
        int n = adjacent(s, pos, nb);
        if (n == 0)
            break;
        pos = nb[rng_below(&s->r, n)];
    }
    return pos;
}

static int64_t ils_ask(void *st, search *s)
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

static void ils_tell(void *st, search *s, int64_t pos, double t, int how)
{
    ils *g = st;

    if (g->starting || how == TOLD_JUMP || g->cur < 0 || t < g->cur_t) {
        g->starting = 0;
        ils_move(g, s, pos, t);
    }
}

/* ---- simulated_annealing -------------------------------------------------
 * A random walk over one-step neighbours that always accepts a faster
 * configuration and a slower one with probability exp(-worsening / T),
 * the worsening relative (10% slower is 0.1) so that one schedule fits
 * every kernel; T falls geometrically from SA_T0 to SA_T1 over the
 * expected number of evaluations. Walking through known configurations is
 * free. The schedule hardly mattered in our evaluation (T0 0.03-0.3, T1
 * 0.0005-0.01 all within noise). */

#define SA_T0 0.10
#define SA_T1 0.002

typedef struct anneal {
    int64_t cur;
    double cur_t;
} anneal;

static int anneal_init(void *st, search *s)
{
    anneal *a = st;

    (void)s;
    a->cur = -1;
    a->cur_t = INFINITY;
    return 0;
}

static int64_t anneal_ask(void *st, search *s)
{
    anneal *a = st;
    int64_t nb[2 * ATUNE__MAX_PARAMS];
    int n;

    if (a->cur < 0)
        return -1;
    n = adjacent(s, a->cur, nb);
    return n ? nb[rng_below(&s->r, n)] : -1;
}

static void anneal_tell(void *st, search *s, int64_t pos, double t, int how)
{
    anneal *a = st;
    double T = SA_T0 * pow(SA_T1 / SA_T0, progress(s));
    double w = worse(a->cur_t, t);

    if (how == TOLD_JUMP || a->cur < 0 || w <= 0 ||
        rng_unit(&s->r) < exp(-w / T)) {
        a->cur = pos;
        a->cur_t = t;
    }
}

/* ---- genetic_algorithm ---------------------------------------------------
 * Steady state: a child of two tournament-selected parents (uniform
 * crossover, then mutate()) replaces the worst member when it is faster.
 * Children that are invalid or known are repaired to the nearest new
 * configuration, so every proposal costs one evaluation. Population size
 * follows the budget: small budgets cannot afford a wide population. */

enum { GA_MAXPOP = 20, GA_MINPOP = 4 };

typedef struct member {
    int64_t pos;
    double t;
} member;

typedef struct genetic {
    member pop[GA_MAXPOP];
    int size, n;
} genetic;

static int pop_size(const search *s)
{
    int64_t n = s->horizon / 8;

    return n < GA_MINPOP ? GA_MINPOP : n > GA_MAXPOP ? GA_MAXPOP : (int)n;
}

static int genetic_init(void *st, search *s)
{
    ((genetic *)st)->size = pop_size(s);
    return 0;
}

static int tournament(genetic *g, search *s)
{
    int a = (int)rng_below(&s->r, g->n), b = (int)rng_below(&s->r, g->n);

    return g->pop[a].t <= g->pop[b].t ? a : b;
}

/* Each parameter, with probability 1/np, takes another value at random:
 * in our evaluation that beat one-step mutation (which a population that
 * has converged cannot escape with). */
static void mutate(search *s, rank_t *c)
{
    for (int p = 0; p < s->sp.np; p++) {
        int nv = s->sp.nv[p], r;
        if (nv < 2 || rng_below(&s->r, s->sp.np) != 0)
            continue;
        r = (int)rng_below(&s->r, nv - 1);
        c[p] = (rank_t)(r >= c[p] ? r + 1 : r);
    }
}

static int64_t genetic_ask(void *st, search *s)
{
    genetic *g = st;
    rank_t c[ATUNE__MAX_PARAMS];
    const rank_t *x, *y;

    if (g->n < g->size)
        return -1;
    x = coord(s, g->pop[tournament(g, s)].pos);
    y = coord(s, g->pop[tournament(g, s)].pos);
    for (int p = 0; p < s->sp.np; p++)
        c[p] = rng_below(&s->r, 2) ? x[p] : y[p];
    mutate(s, c);
    return repair(s, c);
}

static void genetic_tell(void *st, search *s, int64_t pos, double t, int how)
{
    genetic *g = st;
    int worst = 0;

    (void)s, (void)how;
    for (int i = 0; i < g->n; i++)
        if (g->pop[i].pos == pos)
            return;
    if (g->n < g->size) {
        g->pop[g->n++] = (member){pos, t};
        return;
    }
    for (int i = 1; i < g->n; i++)
        if (g->pop[i].t > g->pop[worst].t)
            worst = i;
    if (t < g->pop[worst].t)
        g->pop[worst] = (member){pos, t};
}

/* ---- diff_evo: differential evolution, DE/best/1/bin ---------------------
 * Vectors live in [0, 1] per parameter (rank / (nv - 1)); the trial of
 * target i is best + F (a - b) crossed with the target at rate CR, rounded
 * to ranks and repaired like the genetic algorithm's children. It replaces
 * the target when not slower. F = 0.8 as Storn and Price recommend; CR =
 * 0.5 rather than their 0.9 did better in our evaluation (parameters of
 * launch configurations interact less than those of continuous problems).
 */

#define DE_F 0.8
#define DE_CR 0.5

typedef struct diffevo {
    genetic g; /* population (positions and times) */
    int target;
} diffevo;

static double unit_rank(const search *s, int64_t pos, int p)
{
    int nv = s->sp.nv[p];

    return nv > 1 ? (double)coord(s, pos)[p] / (nv - 1) : 0;
}

static int64_t diffevo_ask(void *st, search *s)
{
    diffevo *d = st;
    genetic *g = &d->g;
    rank_t c[ATUNE__MAX_PARAMS];
    int best = 0, a, b, jr;

    if (g->n < g->size)
        return -1;
    for (int i = 1; i < g->n; i++)
        if (g->pop[i].t < g->pop[best].t)
            best = i;
    a = (int)rng_below(&s->r, g->n);
    do
        b = (int)rng_below(&s->r, g->n);
    while (b == a);
    jr = (int)rng_below(&s->r, s->sp.np);
    for (int p = 0; p < s->sp.np; p++) {
        double v = unit_rank(s, g->pop[d->target].pos, p);
        int nv = s->sp.nv[p];
        if (p == jr || rng_unit(&s->r) < DE_CR)
            v = unit_rank(s, g->pop[best].pos, p) +
                DE_F * (unit_rank(s, g->pop[a].pos, p) -
                        unit_rank(s, g->pop[b].pos, p));
        v = v < 0 ? 0 : v > 1 ? 1 : v;
        c[p] = (rank_t)lround(v * (nv - 1));
    }
    return repair(s, c);
}

static void diffevo_tell(void *st, search *s, int64_t pos, double t, int how)
{
    diffevo *d = st;
    genetic *g = &d->g;

    (void)s, (void)how;
    if (g->n < g->size) {
        genetic_tell(g, s, pos, t, how);
        return;
    }
    if (t <= g->pop[d->target].t)
        g->pop[d->target] = (member){pos, t};
    d->target = (d->target + 1) % g->n;
}

/* ---- auc_bandit: an ensemble of the techniques above ---------------------
 * As ATF's AUC bandit (after OpenTuner): each step asks the technique with
 * the best area under its recent curve of "improved the best time"
 * (exploitation) plus C sqrt(2 ln N / n_i) (exploration). */

#define AUC_C 0.05
enum { AUC_ARMS = 4, AUC_WINDOW = 64 };

typedef struct arm {
    const technique *t;
    void *st;
    unsigned char hist[AUC_WINDOW]; /* 1: improved the best time */
    int uses;
} arm;

typedef struct bandit {
    arm arm[AUC_ARMS];
    int narms, last, uses, asked;
} bandit;

static const technique *find_technique(const char *name);

static int bandit_init(void *st, search *s)
{
    static const char *const arms[AUC_ARMS] = {
        "greedy_ils", "simulated_annealing", "genetic_algorithm", "diff_evo"};
    bandit *b = st;

    for (int i = 0; i < AUC_ARMS; i++) {
        arm *a = &b->arm[i];
        int rc;
        if (!(a->t = find_technique(arms[i])))
            return atune__fail(s->err, ATUNE__ESOFTWARE,
                               "auc_bandit: no technique '%s'", arms[i]);
        a->st = atune__calloc(1, a->t->state_size);
        if (!a->st)
            return atune__fail(s->err, ATUNE__EOSERR, "out of memory");
        b->narms++;
        if (a->t->init && (rc = a->t->init(a->st, s)))
            return rc;
    }
    return 0;
}

static double auc(const arm *a)
{
    int n = a->uses < AUC_WINDOW ? a->uses : AUC_WINDOW;
    double sum = 0;

    /* Recent uses weigh more: the i-th oldest of the window weighs i. */
    for (int i = 0; i < n; i++)
        sum += (i + 1) * a->hist[(a->uses - n + i) % AUC_WINDOW];
    return n ? 2 * sum / ((double)n * (n + 1)) : 0;
}

static int64_t bandit_ask(void *st, search *s)
{
    bandit *b = st;
    double best = -INFINITY;
    int pick = 0;

    for (int i = 0; i < b->narms; i++) {
        const arm *a = &b->arm[i];
        double v;
        if (a->uses == 0) {
            pick = i;
            break;
        }
        v = auc(a) + AUC_C * sqrt(2 * log((double)b->uses) / a->uses);
        if (v > best) {
            best = v;
            pick = i;
        }
    }
    b->last = pick;
    b->asked = 1;
    return b->arm[pick].t->ask(b->arm[pick].st, s);
}

static void bandit_tell(void *st, search *s, int64_t pos, double t, int how)
{
    bandit *b = st;

    if (!b->asked) {
        /* The default configuration: every technique may start there. */
        for (int i = 0; i < b->narms; i++)
            b->arm[i].t->tell(b->arm[i].st, s, pos, t, how);
        return;
    }
    b->arm[b->last].t->tell(b->arm[b->last].st, s, pos, t, how);
    if (how != TOLD_CACHED) {
        arm *a = &b->arm[b->last];
        /* The driver updated best before telling: an improvement is a
         * new configuration that is the best. */
        a->hist[a->uses % AUC_WINDOW] = s->best == pos && isfinite(t);
        a->uses++;
        b->uses++;
    }
}

static void bandit_fini(void *st)
{
    bandit *b = st;

    for (int i = 0; i < b->narms; i++) {
        if (b->arm[i].t->fini)
            b->arm[i].t->fini(b->arm[i].st);
        free(b->arm[i].st);
    }
}

/* ---- the table of strategies ---------------------------------------------
 * The default is greedy_ils, chosen by tests/eval_strategies.c (50 seeds,
 * budgets of 5, 10, 20 and 50% of each space, score against the exact
 * expectation of random search): it had the best mean score at every
 * budget and the best worst case, the only one positive on every space at
 * 10% and 20%. Simulated annealing was a close second; the population
 * methods (genetic_algorithm, diff_evo) need more evaluations than 10% of
 * a 315-configuration space to get going, and the bandit spends its first
 * evaluations finding out which of its techniques works. The numbers and
 * the date are in README.md, "Search strategies"; rerun the harness when
 * new journals are recorded. */

static const technique techniques[] = {
    {"greedy_ils", sizeof(ils), ils_init, ils_ask, ils_tell, NULL},
    {"brute_force", sizeof(brute), NULL, brute_ask, nothing_told, NULL},
    {"random", 1, NULL, random_ask, nothing_told, NULL},
    {"simulated_annealing", sizeof(anneal), anneal_init, anneal_ask,
     anneal_tell, NULL},
    {"genetic_algorithm", sizeof(genetic), genetic_init, genetic_ask,
     genetic_tell, NULL},
    {"diff_evo", sizeof(diffevo), genetic_init, diffevo_ask, diffevo_tell,
     NULL},
    {"auc_bandit", sizeof(bandit), bandit_init, bandit_ask, bandit_tell,
     bandit_fini},
};

enum { NTECH = sizeof(techniques) / sizeof(techniques[0]) };

/* The same names; the default first. */
static const char *const names[] = {
    "greedy_ils",        "brute_force", "random",     "simulated_annealing",
    "genetic_algorithm", "diff_evo",    "auc_bandit", NULL};

const char *const *atune__strategy_names(void)
{
    return names;
}

const char *atune__strategy_default(void)
{
    return names[0];
}

static const technique *find_technique(const char *name)
{
    for (int i = 0; i < NTECH; i++)
        if (strcmp(techniques[i].name, name) == 0)
            return &techniques[i];
    return NULL;
}

int atune__strategy_known(const char *name)
{
    return name && find_technique(name) != NULL;
}

/* ---- the driver ---------------------------------------------------------- */

/* 0 when the search must stop (and why in s->stop). */
static int more(search *s)
{
    const atune__search_spec *sp = s->spec;

    if (s->rc)
        return 0;
    if (s->n >= s->sp.nvalid)
        s->stop = "exhausted";
    else if (sp->budget > 0 && s->n >= sp->budget)
        s->stop = "budget";
    else if (sp->time_limit > 0 && atune__now() - s->t0 >= sp->time_limit)
        s->stop = "time";
    else
        return 1;
    return 0;
}

static int evaluate(search *s, int64_t pos)
{
    double t = INFINITY;
    int rc = s->eval(s->ctx, s->sp.index[pos], &t, s->err);

    if (rc) {
        s->rc = rc;
        s->stop = rc == ATUNE__EINTR ? "interrupted" : "error";
        return rc;
    }
    if (isnan(t) || t < 0)
        t = INFINITY;
    s->done[pos] = 1;
    s->t[pos] = t;
    s->n++;
    if (t < s->best_t || s->best < 0) {
        s->best = pos;
        s->best_t = t;
    }
    return 0;
}

/* Proposals of known configurations cost nothing, but a technique stuck
 * among them would never end: after this many in a row, the driver
 * substitutes a random new configuration. */
enum { MAX_KNOWN_RUN = 256 };

static void drive(search *s, const technique *tq, void *st)
{
    int known = 0;

    if (s->sp.nvalid > 0 && s->sp.index[0] == 0 && more(s) && !evaluate(s, 0))
        tq->tell(st, s, 0, s->t[0], TOLD_JUMP);
    while (more(s)) {
        int64_t pos = tq->ask(st, s);
        int how = TOLD_NEW;
        if (pos >= 0 && s->done[pos] && ++known <= MAX_KNOWN_RUN) {
            tq->tell(st, s, pos, s->t[pos], TOLD_CACHED);
            continue;
        }
        if (pos < 0 || s->done[pos]) {
            pos = random_new(s);
            how = TOLD_JUMP;
        }
        known = 0;
        if (evaluate(s, pos))
            break;
        tq->tell(st, s, pos, s->t[pos], how);
    }
}

static int by_time(const void *a, const void *b)
{
    const member *x = a, *y = b;

    if (x->t != y->t)
        return x->t < y->t ? -1 : 1;
    return (x->pos > y->pos) - (x->pos < y->pos);
}

/* The final pick: the k best re-measured; the winner is the fastest by the
 * new numbers. Candidates left without a finite new time (failed, or not
 * re-measured) cannot win; when none has one, the search's own numbers
 * decide. */
static int final_pick(search *s, atune__remeasure_fn remeasure,
                      atune__search_result *out)
{
    int64_t nok = 0, *idx = NULL;
    member *m = NULL;
    double *t = NULL;
    int k = s->spec->final_k, win = -1, rc = 0;

    for (int64_t pos = 0; pos < s->sp.nvalid; pos++)
        nok += s->done[pos] && isfinite(s->t[pos]);
    if (k > nok)
        k = (int)nok;
    if (k <= 0)
        return 0;
    m = atune__calloc((size_t)nok, sizeof(*m));
    idx = atune__calloc((size_t)k, sizeof(*idx));
    t = atune__calloc((size_t)k, sizeof(*t));
    if (!m || !idx || !t) {
        rc = atune__fail(s->err, ATUNE__EOSERR, "out of memory");
        goto done;
    }
    nok = 0;
    for (int64_t pos = 0; pos < s->sp.nvalid; pos++)
        if (s->done[pos] && isfinite(s->t[pos]))
            m[nok++] = (member){pos, s->t[pos]};
    qsort(m, (size_t)nok, sizeof(*m), by_time);
    for (int i = 0; i < k; i++) {
        idx[i] = s->sp.index[m[i].pos];
        t[i] = NAN;
    }
    if ((rc = remeasure(s->ctx, idx, k, t, s->err))) {
        s->stop = rc == ATUNE__EINTR ? "interrupted" : "error";
        goto done;
    }
    for (int i = 0; i < k; i++)
        if (isfinite(t[i]) && t[i] >= 0 && (win < 0 || t[i] < t[win]))
            win = i;
    if (win >= 0) {
        out->best = idx[win];
        out->best_time_ns = t[win];
    }
done:
    free(m);
    free(idx);
    free(t);
    return rc;
}

/* "unknown strategy 'x' (known: greedy_ils, ...)". */
static int unknown(const char *name, atune__err *err)
{
    char list[512] = "";
    size_t len = 0;

    for (int i = 0; names[i] && len < sizeof(list); i++)
        len += (size_t)snprintf(list + len, sizeof(list) - len, "%s%s",
                                i ? ", " : "", names[i]);
    return atune__fail(err, ATUNE__EUSAGE, "unknown strategy '%s' (known: %s)",
                       name, list);
}

int atune__search(const atune__search_spec *spec, atune__eval_fn eval,
                  atune__remeasure_fn remeasure, void *ctx,
                  atune__search_result *out, atune__err *err)
{
    const char *name =
        spec->strategy ? spec->strategy : atune__strategy_default();
    const technique *tq = find_technique(name);
    search s = {.spec = spec,
                .eval = eval,
                .ctx = ctx,
                .err = err,
                .best = -1,
                .best_t = INFINITY,
                .stop = "exhausted"};
    void *st = NULL;
    int rc;

    out->best = -1;
    out->best_time_ns = INFINITY;
    out->evaluations = 0;
    out->stop = "exhausted";
    if (!tq)
        return unknown(name, err);
    if ((rc = space_init(&s.sp, spec, err)))
        goto done;
    s.done = atune__calloc((size_t)s.sp.nvalid, 1);
    s.t = atune__calloc((size_t)s.sp.nvalid, sizeof(*s.t));
    st = atune__calloc(1, tq->state_size);
    if (!s.done || !s.t || !st) {
        rc = atune__fail(err, ATUNE__EOSERR, "out of memory");
        goto done;
    }
    rng_seed(&s.r, spec->seed);
    s.horizon = spec->budget > 0 && spec->budget < s.sp.nvalid ? spec->budget
                                                               : s.sp.nvalid;
    if (s.horizon < 1)
        s.horizon = 1;
    s.t0 = atune__now();
    if (tq->init && (rc = tq->init(st, &s)))
        goto done;
    drive(&s, tq, st);
    rc = s.rc;
    out->evaluations = s.n;
    out->stop = s.stop;
    if (s.best >= 0 && isfinite(s.best_t)) {
        out->best = s.sp.index[s.best];
        out->best_time_ns = s.best_t;
    }
    if (!rc && remeasure && spec->final_k > 0) {
        rc = final_pick(&s, remeasure, out);
        out->stop = s.stop;
    }
done:
    if (st && tq->fini)
        tq->fini(st);
    free(st);
    free(s.done);
    free(s.t);
    space_free(&s.sp);
    return rc;
}
