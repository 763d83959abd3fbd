/* strategy.h -- search strategies over a template's space at one size.
 *
 * The search is a loop of "propose a configuration, evaluate it, learn from
 * its time". Evaluation is a callback, so the same strategies drive a GPU
 * (tune.c) and a replay of recorded measurements (simulate.c). */
#ifndef ATUNE_STRATEGY_H
#define ATUNE_STRATEGY_H

#include <stdint.h>

#include "base/util.h"
#include "template/manifest.h"

typedef struct atune__search_spec {
    const atune__manifest *m;
    /* The configurations that passed constraints and device limits at
     * this size, the only ones a strategy may propose: index[0..nvalid-1],
     * ascending space indices (atune__space_build's set) when index is
     * non-NULL; else valid[i] != 0 for every such space index i
     * (0 <= i < atune__space_size(m)). */
    const int64_t *index;
    int64_t nvalid;
    const unsigned char *valid;
    /* NULL: atune__strategy_default(), and with no budget the search
     * stops when it has converged (see atune__search) */
    const char *strategy;
    int64_t budget;    /* evaluations; 0: no limit */
    double time_limit; /* seconds of wall time; 0: no limit */
    uint64_t seed;
    int final_k; /* best candidates re-measured at the end; 0: none */
    /* Space indices evaluated right after the default, in this order (ones
     * not valid here are passed over): the winners of the sizes tuned
     * before. The technique then starts from the best of the default and
     * them. NULL/0: none. */
    const int64_t *seeds;
    int nseeds;
    /* Optional: told, after each evaluation, the space indices the
     * strategy expects to propose next, most likely first (with the ctx
     * of atune__search), so that their compilation can start while the
     * current one is measured. A hint only: nothing depends on it, and
     * only strategies that know their next steps give one (greedy_ils). */
    void (*prefetch)(void *ctx, const int64_t *idx, int n);
} atune__search_spec;

/* Seeds a size gets: the winners of the nearest sizes tuned before it;
 * each costs an evaluation, and the winners of far sizes are worth little
 * (see profile_lookup.c). */
#define ATUNE__MAX_SEEDS 4

/* The seeds of the size key from the n sizes tuned before it (keys[i]
 * and their winners[i], the latest first, at most ATUNE__MAX_SIZES
 * looked at): the winners of the nearest (atune__size_key_distance,
 * lib/profile_internal.h), nearest first (of equally near sizes the
 * later tuned first), each winner once, at most ATUNE__MAX_SEEDS.
 * Returns how many. */
int atune__seeds_nearest(const char *key, const char *const *keys,
                         const int64_t *winners, int n, int64_t *seeds);

/* Evaluates configuration idx (a valid space index never proposed before)
 * and sets *time_ns to its median time, or to INFINITY when it is not ok
 * (compile error, wrong output, launch error...), and *spread_ns to the
 * noise of that time (the interquartile range of its samples; the search
 * sets it to 0 before the call, for callbacks that do not know it).
 * Returns 0, or an error code that ends the search (ATUNE__EINTR when
 * interrupted). */
typedef int (*atune__eval_fn)(void *ctx, int64_t idx, double *time_ns,
                              double *spread_ns, atune__err *err);

/* Re-measures k ok candidates with more repetitions, interleaved, and
 * writes their new times into time_ns[] (INFINITY for one that failed).
 * The search sets every time_ns[i] to NAN before the call: an entry left
 * NAN (a callback that re-measures fewer than k) cannot win. */
typedef int (*atune__remeasure_fn)(void *ctx, const int64_t *idx, int k,
                                   double *time_ns, atune__err *err);

typedef struct atune__search_result {
    int64_t best;        /* space index of the winner; -1 when none was ok */
    double best_time_ns; /* its time (re-measured when final_k > 0) */
    int64_t evaluations; /* distinct configurations evaluated */
    const char *stop;    /* "exhausted", "budget", "converged", ... */
    const char *strategy; /* the technique that searched (the default's
                           * depends on the space: driver.c) */
    /* The final pick's largest disagreement with the search: the highest
     * ratio of a candidate's re-measured time to its search time (0 when
     * there was no final pick), and that candidate's space index. */
    double final_shift;
    int64_t final_shift_idx;
    /* 1 when a shift over ATUNE__FINAL_SHIFT_LIMIT had the candidates
     * re-measured a second time (final_shift is then the second's). */
    int final_retried;
} atune__search_result;

/* A finalist whose rounds of the final pick took this much longer than
 * its search measurement: the pick rests on numbers that disagree with
 * themselves. On an H100 (2026-11-25) the three finalists of copy at
 * n=524288 took 7648-8896 ns in their rounds against 5664-5696 ns in the
 * search, the default 6304 ns in both, and the default won; at the other
 * 30 sizes of that run no finalist moved by more than 4%, and tuned again
 * on another H100 that size's finalists moved by 0.9%. The final pick is
 * then re-measured once, and tune warns when the second still
 * disagrees. */
#define ATUNE__FINAL_SHIFT_LIMIT 1.2

/* Runs the search. With no strategy and no budget (spec->strategy NULL,
 * spec->budget 0), the default strategy stops when further evaluation is
 * unlikely to pay ("converged"): after atune__search_patience() evaluations
 * in a row that did not beat the reference time by more than the
 * reference's own noise (driver.c has the rule and how it was chosen),
 * two thirds as many (at least 45) when the search is seeded; a space of
 * at most 128 valid configurations is measured whole. A named strategy,
 * or a budget, searches until the budget, the time limit
 * or the end of the space (ils_restart without a budget: its own stopping
 * rule, driver.c). Every strategy evaluates the default
 * configuration (index 0) first when it is valid, so the speedup over the
 * default is always known; it counts towards the budget. No configuration is
 * evaluated twice. With remeasure non-NULL and final_k > 0, the final_k
 * best are re-measured and the winner chosen from those numbers.
 * When none was ok, out->best is -1. When no candidate has a finite
 * re-measured time, the search's own times decide.
 * Unknown strategy: ATUNE__EUSAGE (the message lists the known ones). An
 * error from eval or remeasure ends the search and is returned, with *out
 * describing what was found so far. */
int atune__search(const atune__search_spec *spec, atune__eval_fn eval,
                  atune__remeasure_fn remeasure, void *ctx,
                  atune__search_result *out, atune__err *err);

/* Strategies (each file of search/ says how it works; driver.c why the
 * default):
 *   greedy_ils           iterated first-improvement local search (default)
 *   brute_force          every valid configuration in index order
 *   random               uniform sampling without replacement
 *   simulated_annealing  Metropolis walk over one-step neighbours
 *   genetic_algorithm    steady-state GA, uniform crossover
 *   diff_evo             differential evolution, DE/best/1/bin
 *   auc_bandit           ATF-style AUC bandit over the four above
 *   ils_restart          greedy_ils with issue 34's stagnation rules; like
 *                        the default, it stops by itself without a budget
 *   bayes                Bayesian optimisation, a Gaussian process of the
 *                        log times, in batches; without a budget it stops
 *                        by the default's rule, and in an unseeded space
 *                        of 1000 or more at a tenth of it at the latest
 * Each is deterministic for a given seed and the times it is given.
 * stop in atune__search_result is "exhausted" (every valid configuration
 * was evaluated), "budget", "time", "converged" (the default search's
 * stopping rule), "interrupted" or "error". */

/* The default search's patience in a space of nvalid configurations:
 * evaluations in a row without a gain beyond the noise that stop it. */
int64_t atune__search_patience(int64_t nvalid);

/* Whether strategy name (NULL: the default) tells what it will propose
 * next (spec->prefetch): a compile pool can then follow it instead of the
 * space's index order. */
int atune__strategy_hints(const char *name);

/* NULL-terminated list of strategy names, the default first. */
const char *const *atune__strategy_names(void);
const char *atune__strategy_default(void);
int atune__strategy_known(const char *name);

#endif
