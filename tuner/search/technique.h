/* technique.h -- the interface between the search driver (driver.c) and
 * the techniques (one file each), inside the search layer only.
 *
 * Every strategy is a "technique" in ask/tell form: ask proposes a valid
 * configuration, tell hands back its time. The driver owns what the
 * contract of strategy.h promises for all of them: the default
 * configuration first, no configuration evaluated twice (a proposal that
 * was evaluated already is answered from the record, at no cost), the
 * budget, the time limit, the end of the space and the final pick.
 * Because techniques never call eval themselves, a bandit can interleave
 * them step by step.
 *
 * Techniques see a configuration as a vector of ranks: the position of
 * each parameter's value in its values sorted ascending, not in the
 * manifest's order (which starts with the default), so that "one step"
 * means "the next larger or smaller value". All randomness comes from one
 * generator seeded from spec->seed: a search is a pure function of the
 * seed and the times it is told, which makes simulations reproducible. */
#ifndef ATUNE_SEARCH_TECHNIQUE_H
#define ATUNE_SEARCH_TECHNIQUE_H

#include <stddef.h>
#include <stdint.h>

#include "search/strategy.h"

/* ---- random numbers (rng.c): xoshiro256**, seeded with splitmix64 ---- */

typedef struct atune__rng {
    uint64_t s[4];
} atune__rng;

void atune__rng_seed(atune__rng *r, uint64_t seed);
uint64_t atune__rng_next(atune__rng *r);
/* Uniform in [0, 1). */
double atune__rng_unit(atune__rng *r);
/* Uniform in [0, n), n >= 1, without modulo bias. */
int64_t atune__rng_below(atune__rng *r, int64_t n);
/* Fisher-Yates shuffle of a[0..n). */
void atune__rng_shuffle(atune__rng *r, int64_t *a, int n);

/* ---- the space as the techniques see it (space_view.c) ---------------- */

typedef unsigned char atune__rank;

typedef struct atune__space_view {
    int np;
    int nv[ATUNE__MAX_PARAMS];
    int64_t stride[ATUNE__MAX_PARAMS];
    int list_pos[ATUNE__MAX_PARAMS][ATUNE__MAX_VALUES]; /* rank -> list */
    int64_t nvalid;
    int64_t *index;     /* valid position -> space index, ascending */
    atune__rank *coord; /* nvalid * np ranks */
} atune__space_view;

/* The search as a technique sees it; the driver owns it. */
typedef struct atune__search_state {
    atune__space_view sp;
    const atune__search_spec *spec;
    atune__eval_fn eval;
    void *ctx;
    atune__err *err;
    atune__rng r;
    unsigned char *done; /* per valid position: evaluated */
    double *t;           /* its time */
    int64_t n;           /* evaluations */
    int64_t horizon;     /* evaluations the search expects to make */
    double t0;
    int64_t best; /* valid position of the best time, -1 */
    double best_t;
    int rc;
    const char *stop;
    /* The default search's stopping rule (driver.c). */
    int converge;     /* the rule applies */
    int64_t patience; /* evaluations without a gain that stop the search */
    int64_t gain_n;   /* evaluations when the reference was last set */
    double ref_t;     /* the reference: its time and noise */
    double ref_noise;
    /* ils_restart's stopping rule (driver.c): the technique sets
     * wait_restarts in its init and counts in restarts the climbs from a
     * restart that reached their local optimum. */
    int wait_restarts;
    int64_t restarts;
    int64_t gain_restarts; /* restarts when the reference was last set */
    /* bayes.c's stopping rule (driver.c): set by the technique's init, it
     * stops an unseeded search of a large space at a tenth of it. */
    int cap_tenth;
} atune__search_state;

/* How a configuration came to be told. */
enum { ATUNE__TOLD_NEW, ATUNE__TOLD_CACHED, ATUNE__TOLD_JUMP };

typedef struct atune__technique {
    const char *name;
    size_t state_size;
    int (*init)(void *st, atune__search_state *s);
    /* A valid position (evaluated or not), or -1 for "anything new". */
    int64_t (*ask)(void *st, atune__search_state *s);
    /* The time of pos. how is TOLD_NEW after an evaluation of the
     * technique's proposal, TOLD_CACHED when the proposal had been
     * evaluated before, TOLD_JUMP when pos was not its proposal: the
     * default configuration at the start, or a fresh configuration the
     * driver substituted after too many proposals of known ones. */
    void (*tell)(void *st, atune__search_state *s, int64_t pos, double t,
                 int how);
    void (*fini)(void *st);
    /* Optional: the positions it will ask next, most likely first, at
     * most max of them (a hint: it may ask others). The driver passes
     * them to the search's prefetch callback, so that their compilation
     * starts while the current configuration is measured. */
    int (*upcoming)(void *st, const atune__search_state *s, int64_t *out,
                    int max);
} atune__technique;

/* The techniques (one file each) and the driver's lookup by name. */
extern const atune__technique atune__greedy_ils;
extern const atune__technique atune__ils_restart;
extern const atune__technique atune__bayes;
extern const atune__technique atune__brute_force;
extern const atune__technique atune__random;
extern const atune__technique atune__simulated_annealing;
extern const atune__technique atune__genetic_algorithm;
extern const atune__technique atune__diff_evo;
extern const atune__technique atune__auc_bandit;
const atune__technique *atune__technique_find(const char *name);

/* A configuration and its time: populations, the final pick. */
typedef struct atune__member {
    int64_t pos;
    double t;
} atune__member;

int atune__space_view_init(atune__space_view *sp,
                           const atune__search_spec *spec, atune__err *err);
void atune__space_view_free(atune__space_view *sp);

static inline const atune__rank *atune__coord(const atune__search_state *s,
                                              int64_t pos)
{
    return s->sp.coord + pos * s->sp.np;
}

/* Valid position of a rank vector, or -1 when it is not valid. */
int64_t atune__lookup(const atune__space_view *sp, const atune__rank *c);

/* The one-step neighbours of pos (each parameter one value up or down;
 * a step skips the holes constraints punch into the space). Returns the
 * count; out has room for 2 * np. */
int atune__adjacent(const atune__search_state *s, int64_t pos, int64_t *out);

enum { ATUNE__MAX_NEIGHBOURS = ATUNE__MAX_PARAMS * ATUNE__MAX_VALUES };

/* Every configuration that differs from pos in one parameter, one-step
 * neighbours first (see space_view.c). Returns the count; out has room
 * for ATUNE__MAX_NEIGHBOURS. */
int atune__neighbourhood(atune__search_state *s, int64_t pos, int64_t *out);
/* The same, its random order drawn from r instead of s->r: what the
 * search would see from a copy of its generator. */
int atune__neighbourhood_r(const atune__search_state *s, atune__rng *r,
                           int64_t pos, int64_t *out);

/* The configurations one step away from pos in two parameters at once
 * (4 per pair of parameters, those that are valid), in random order: the
 * moves along a ridge that a change of one parameter cannot make, such as
 * a larger block with fewer items per thread. Returns the count; out has
 * room for ATUNE__MAX_NEIGHBOURS. */
int atune__diagonal(atune__search_state *s, int64_t pos, int64_t *out);

/* A uniformly random configuration not evaluated yet; -1 when none is
 * left. */
int64_t atune__random_new(atune__search_state *s);

/* The valid position of c when it is new, else the configuration not
 * evaluated yet whose ranks are closest to c; -1 when none is left. */
int64_t atune__repair(atune__search_state *s, const atune__rank *c);

/* Relative worsening of b over a, for acceptance tests; failed
 * configurations (INFINITY) are infinitely worse than anything. */
double atune__worse(double a, double b);

/* Fraction of the search done, for schedules such as annealing's. */
double atune__progress(const atune__search_state *s);

/* A tell that learns nothing (brute_force, random). */
void atune__told_nothing(void *st, atune__search_state *s, int64_t pos,
                         double t, int how);

/* The population of genetic.c, which diff_evo.c shares. */
enum { ATUNE__GA_MAXPOP = 20 };

typedef struct atune__population {
    atune__member pop[ATUNE__GA_MAXPOP];
    int size, n;
} atune__population;

int atune__population_init(void *st, atune__search_state *s);
/* Adds pos while the population is not full; then pos replaces the worst
 * member when it is faster. A member already present is ignored. */
void atune__population_tell(void *st, atune__search_state *s, int64_t pos,
                            double t, int how);

#endif
