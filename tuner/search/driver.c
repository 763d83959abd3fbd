/* driver.c -- the search driver (see strategy.h): the table of
 * strategies, the loop that asks a technique for configurations and
 * evaluates them, and the final pick. What the techniques see of the
 * search, and how they answer, is in technique.h; each technique has a
 * file of its own. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "search/technique.h"
#include "template/space.h"

/* ---- the table of strategies ---------------------------------------------
 * The default is greedy_ils, chosen by tests/eval_strategies.c (50 seeds,
 * budgets of 5, 10, 20 and 50% of each space, score against the exact
 * expectation of random search): it had the best mean score at every
 * budget and the best worst case, the only one positive on every space at
 * 10% and 20%. Simulated annealing was a close second; the population
 * methods (genetic_algorithm, diff_evo) need more evaluations than 10% of
 * a 315-configuration space to get going, and the bandit spends its first
 * evaluations finding out which of its techniques works. The numbers and
 * the date are in docs/results.md, "Search strategies"; rerun the harness when
 * new journals are recorded. */

/* The default first. */
static const atune__technique *const techniques[] = {
    &atune__greedy_ils,        &atune__brute_force,
    &atune__random,            &atune__simulated_annealing,
    &atune__genetic_algorithm, &atune__diff_evo,
    &atune__auc_bandit,        &atune__ils_restart,
    &atune__bayes,
};

enum { NTECH = sizeof(techniques) / sizeof(techniques[0]) };

/* The same names. */
static const char *const names[] = {
    "greedy_ils",        "brute_force", "random",     "simulated_annealing",
    "genetic_algorithm", "diff_evo",    "auc_bandit", "ils_restart",
    "bayes",             NULL};

const char *const *atune__strategy_names(void)
{
    return names;
}

const char *atune__strategy_default(void)
{
    return names[0];
}

const atune__technique *atune__technique_find(const char *name)
{
    for (int i = 0; i < NTECH; i++)
        if (strcmp(techniques[i]->name, name) == 0)
            return techniques[i];
    return NULL;
}

int atune__strategy_hints(const char *name)
{
    const atune__technique *tq =
        atune__technique_find(name ? name : atune__strategy_default());

    return tq && tq->upcoming;
}

int atune__strategy_known(const char *name)
{
    return name && atune__technique_find(name) != NULL;
}

/* ---- the driver ---------------------------------------------------------- */

/* ---- the default stopping rule --------------------------------------------
 * With no strategy and no budget, the search stops when further evaluation
 * is unlikely to pay: when atune__search_patience(N) evaluations in a row
 * (N: the valid configurations) have not beaten the reference by more than
 * the reference's own noise (its interquartile range). The reference is the
 * first ok configuration, then each one that beats it by more than that;
 * gains within the noise still become the best, but do not reset the
 * count, so a plateau of look-alikes ends the search instead of prolonging
 * it.
 *
 * Chosen with tests/eval_strategies.c --defaults (50 seeds) on the
 * recorded brute-force journals: ours (tests/data/journals, H200 and H100,
 * 21 spaces of 315 to 3112) and the third-party evaluation set
 * (tests/data/kerneltuner/train: convolution and GEMM, Kernel Tuner caches
 * of 6768 and 17956). Mean fraction of the optimum / mean fraction of each
 * space evaluated, over the 25 spaces and 50 seeds:
 *   patience max(30, 3/4 N^0.7)   99.65% / 14.2%  (chosen)
 *   max(30, N / 10)               99.64% / 13.4%
 *   max(30, 3 sqrt(N))            99.63% / 15.8%
 *   max(30, 2 sqrt(N))            99.44% / 11.2%
 * Counting gains within the noise as gains cost about a point more of
 * each space for the same fraction (2.5 sqrt(N): 99.56% / 13.5% with the
 * margin, 2 sqrt(N) without it: 99.55% / 14.4%). Growth between sqrt(N) and N
 * did equally well on these spaces; N^0.7 keeps the patience of large spaces
 * affordable on a GPU (713 of 17956) without cutting the small ones short (42
 * of 315). Waiting in proportion to the evaluations before the last gain
 * changed nothing (gains come early). The held-out set
 * (tests/data/kerneltuner/heldout) played no part in the choice. */

#define STOP_MIN 30
#define STOP_SCALE 0.75
#define STOP_EXP 0.7

/* Spaces this small are measured whole. matmul's at 1024^3 (99 valid, on
 * an H200, 2026-11-23) stopped after 57 of 99 evaluations at 95.5% of the
 * optimum in one run and found it in another: its best few are within
 * 1-5% of each other, a few times the noise, and a patience of 30 is a
 * third of the space. With stream-K five of matmul's default sizes have
 * 131 (1037^3 among them), where the search, replayed on an H100's brute
 * force, stopped at 80-100% of the optimum over ten seeds. No space of
 * the evaluation sets above is this small, so the figures there do not
 * change. */
#define SMALL_SPACE 160

/* A seeded search (a ladder's next size, started from the winners of the
 * sizes before it) waits two thirds as long, but never less than
 * SEEDED_MIN, and a small space is still measured whole. Only reduce's
 * spaces (1890 valid: 146 -> 98) have a patience over SEEDED_MIN here;
 * the default run's ladders spend most of their time there. Replayed on
 * the recorded brute-force journals, each size seeded by those before
 * (tune --simulate): the 1-D ladder regret sets (tests/data/heldout_ladder,
 * copy, saxpy and reduce at 20 sizes each) took 19% fewer evaluations
 * (4845 to 3915 on the H100's) at 99.86% -> 99.84% of the optimum (H100)
 * and 99.66% -> 99.64% (H200), worst unchanged; test_seeded_sizes (sizes
 * 256x apart) 99.34% against 99.47% unseeded. Half as long dropped that
 * to 99.26%; cutting copy and saxpy's patience (315 valid: 42) to 30
 * dropped the H100 set of 40 untuned sizes (tests/data/heldout_h100) from
 * 99.25% to 98.58%. */
#define SEEDED_MIN 45

static int64_t seeded_patience(int64_t nvalid, int64_t patience)
{
    int64_t p = (2 * patience + 2) / 3;

    if (nvalid <= SMALL_SPACE || patience <= SEEDED_MIN)
        return patience;
    return p > SEEDED_MIN ? p : SEEDED_MIN;
}

int64_t atune__search_patience(int64_t nvalid)
{
    double p = ceil(STOP_SCALE * pow((double)nvalid, STOP_EXP));

    if (nvalid <= SMALL_SPACE)
        return nvalid;
    return p > STOP_MIN ? (int64_t)p : STOP_MIN;
}

/* ---- ils_restart's stopping rule (issue 34; an option) --------------------
 * In an unseeded space of RESTART_SPACE valid configurations or more, a
 * spent patience stops ils_restart only once RESTART_WAIT climbs from a
 * restart (greedy_ils.c) have ended since the last gain, and the search
 * stops at a tenth of the space at the latest (issue 34's cap; on the
 * third-party design spaces it cost nothing: 99.86% as the worst space's
 * mean with and without it). A seeded search keeps the rule above.
 *
 * Chosen with tests/eval_strategies.c --defaults on the design set only
 * (tests/data/journals and tests/data/kerneltuner/train, 27 spaces with
 * the GEMM caches of the RTX 3090 and TITAN RTX), 200 seeds: mean / worst
 * run / mean evaluated over all spaces, then the worst mean of the 13
 * spaces of 1000 or more and the largest fraction of one evaluated:
 *   greedy_ils (the default)                 99.69 / 95.32 / 13.4% | 98.52 / 17.9%
 *   two-parameter moves only                 99.76 / 95.85 / 13.5% | 98.77 / 16.8%
 *   far restarts, wait 2, cap (no diagonal)  99.69 / 95.32 / 13.3% | 98.56 / 10.0%
 *   two-parameter moves, wait 2, cap 10%      99.77 / 96.07 / 13.4% | 98.78 / 10.0%
 *   all three (ils_restart)                  99.77 / 96.28 / 13.4% | 98.77 / 10.0%
 *   the same without the cap                 99.86 / 96.28 / 15.5% | 99.15 / 33.9%
 * Restarting after 2 stale perturbations, or waiting for 3 restarts, did
 * no better; random restarts instead of far ones ended a convolution space
 * at 77.0% of the optimum where far ones kept 98.5% (50 seeds, patience
 * 0.5 N^0.7 and wait 2). Under a patience cut to half for every space the
 * worst run is 77.0% with or without the rule: a trap of the convolution
 * (blocks 2 x 32 with 8 x 1 outputs a thread, the optimum 128 x 2 with 1 x
 * 7) that only longer searches leave. */
#define RESTART_SPACE 1000
#define RESTART_WAIT 2

static int large_unseeded(const atune__search_state *s)
{
    return s->sp.nvalid >= RESTART_SPACE && s->spec->nseeds == 0;
}

static int restart_rule(const atune__search_state *s)
{
    return s->wait_restarts && large_unseeded(s);
}

/* ils_restart's cap, which bayes.c asks for too (s->cap_tenth). */
static int tenth_rule(const atune__search_state *s)
{
    return (s->wait_restarts || s->cap_tenth) && large_unseeded(s);
}

/* Moves the reference when t beats it by more than its noise. */
static void account_gain(atune__search_state *s, double t, double spread)
{
    if (!isfinite(t))
        return;
    if (isinf(s->ref_t) || s->ref_t - t > s->ref_noise) {
        s->ref_t = t;
        s->ref_noise = spread;
        s->gain_n = s->n;
        s->gain_restarts = s->restarts;
    }
}

/* 0 when the search must stop (and why in s->stop). */
static int more(atune__search_state *s)
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
    else if (s->converge && s->n - s->gain_n >= s->patience &&
             (!restart_rule(s) ||
              s->restarts >= s->gain_restarts + RESTART_WAIT))
        s->stop = "converged";
    else if (s->converge && tenth_rule(s) && s->n >= s->sp.nvalid / 10)
        s->stop = "converged";
    else
        return 1;
    return 0;
}

static int evaluate(atune__search_state *s, int64_t pos)
{
    double t = INFINITY, spread = 0;
    int rc = s->eval(s->ctx, s->sp.index[pos], &t, &spread, s->err);

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
    if (!(spread >= 0 && isfinite(spread)))
        spread = 0;
    account_gain(s, t, spread);
    if (t < s->best_t || s->best < 0) {
        s->best = pos;
        s->best_t = t;
    }
    return 0;
}

enum { PREFETCH_MAX = 64 };

/* Hands what the technique will ask next to the prefetch callback. */
static void hint(atune__search_state *s, const atune__technique *tq,
                 void *st)
{
    int64_t pos[PREFETCH_MAX], idx[PREFETCH_MAX];
    int n, k = 0;

    if (!s->spec->prefetch || !tq->upcoming)
        return;
    n = tq->upcoming(st, s, pos, PREFETCH_MAX);
    for (int i = 0; i < n; i++)
        if (pos[i] >= 0 && pos[i] < s->sp.nvalid && !s->done[pos[i]])
            idx[k++] = s->sp.index[pos[i]];
    s->spec->prefetch(s->ctx, idx, k);
}

/* Proposals of known configurations cost nothing, but a technique stuck
 * among them would never end: after this many in a row, the driver
 * substitutes a random new configuration. */
enum { MAX_KNOWN_RUN = 256 };

/* The seeds (the winners of the sizes tuned before): evaluated after the
 * default, and the technique told the best of them as a jump when it
 * beats the default, so that its first climb starts there. Neighbouring
 * sizes of a ladder share most of their good configurations. */
static void seed(atune__search_state *s, const atune__technique *tq, void *st)
{
    const atune__search_spec *sp = s->spec;
    int64_t from = -1;

    for (int i = 0; i < sp->nseeds && more(s); i++) {
        int64_t pos =
            atune__index_find(s->sp.index, s->sp.nvalid, sp->seeds[i]);
        if (pos < 0 || s->done[pos])
            continue;
        if (evaluate(s, pos))
            return;
        if (from < 0 || s->t[pos] < s->t[from])
            from = pos;
    }
    if (from >= 0 && isfinite(s->t[from]) && s->best == from) {
        tq->tell(st, s, from, s->t[from], ATUNE__TOLD_JUMP);
        hint(s, tq, st);
    }
}

static void drive(atune__search_state *s, const atune__technique *tq, void *st)
{
    int known = 0;

    if (s->sp.nvalid > 0 && s->sp.index[0] == 0 && more(s) &&
        !evaluate(s, 0)) {
        tq->tell(st, s, 0, s->t[0], ATUNE__TOLD_JUMP);
        hint(s, tq, st);
    }
    seed(s, tq, st);
    while (more(s)) {
        int64_t pos = tq->ask(st, s);
        int how = ATUNE__TOLD_NEW;
        if (pos >= 0 && s->done[pos] && ++known <= MAX_KNOWN_RUN) {
            tq->tell(st, s, pos, s->t[pos], ATUNE__TOLD_CACHED);
            continue;
        }
        if (pos < 0 || s->done[pos]) {
            pos = atune__random_new(s);
            how = ATUNE__TOLD_JUMP;
        }
        known = 0;
        if (evaluate(s, pos))
            break;
        tq->tell(st, s, pos, s->t[pos], how);
        hint(s, tq, st);
    }
}

static int by_time(const void *a, const void *b)
{
    const atune__member *x = a, *y = b;

    if (x->t != y->t)
        return x->t < y->t ? -1 : 1;
    return (x->pos > y->pos) - (x->pos < y->pos);
}

/* The default joins the final pick only when the search measured it
 * within this much of the best: a default several times slower (the
 * article's matmul at 8196^3: 147 ms a launch, 6 times the best) cannot
 * win side by side, and re-timing it cost seconds. The sections it was
 * added for were within 2% (final_pick). */
#define DEFAULT_WINDOW 0.25

/* Whether the default configuration (index 0) was evaluated ok, is not
 * among the k candidates idx, and could win beside them. */
static int default_joins(const atune__search_state *s, const int64_t *idx,
                         int k)
{
    for (int i = 0; i < k; i++)
        if (idx[i] == 0)
            return 0;
    /* The index is ascending: a valid default is at position 0. */
    return s->sp.nvalid > 0 && s->sp.index[0] == 0 && s->done[0] &&
           isfinite(s->t[0]) && s->t[0] <= (1 + DEFAULT_WINDOW) * s->best_t;
}

/* The winner among the k re-measured candidates (-1 when none has a
 * finite time), and into out the largest ratio of a new time to its
 * search time: the i-th best's (m[i]) for the first nbest, the default's
 * after them. */
static int judge(const atune__search_state *s, const atune__member *m,
                 int nbest, const int64_t *idx, const double *t, int k,
                 atune__search_result *out)
{
    int win = -1;

    out->final_shift = 0;
    out->final_shift_idx = -1;
    for (int i = 0; i < k; i++) {
        double searched = i < nbest ? m[i].t : s->t[0];
        if (isfinite(t[i]) && t[i] >= 0 && (win < 0 || t[i] < t[win]))
            win = i;
        if (isfinite(t[i]) && searched > 0 &&
            t[i] / searched > out->final_shift) {
            out->final_shift = t[i] / searched;
            out->final_shift_idx = idx[i];
        }
    }
    return win;
}

/* Re-measures the k candidates idx into t (each NAN before the call, as
 * the callback's contract says); on an error, says why the search
 * stopped. */
static int remeasure_all(atune__search_state *s, atune__remeasure_fn remeasure,
                         const int64_t *idx, int k, double *t)
{
    int rc;

    for (int i = 0; i < k; i++)
        t[i] = NAN;
    if ((rc = remeasure(s->ctx, idx, k, t, s->err)))
        s->stop = rc == ATUNE__EINTR ? "interrupted" : "error";
    return rc;
}

/* The final pick: the k best re-measured, and the default configuration
 * beside them when it is not one of them; the winner is the fastest by the
 * new numbers. The default is there so that a pick is never slower than
 * the default side by side: at launch-bound sizes (a 4-5 us kernel, an
 * interquartile range of 8-20%) the search's best measured 1-2% slower
 * than the default in 6 of the 212 sections of the H100 and H200
 * profiles of 2026-11-23. When a candidate's new time disagrees with its
 * search time by more than ATUNE__FINAL_SHIFT_LIMIT, all are re-measured
 * once more and the second numbers decide: a state of the GPU that lasted
 * one set of rounds should not pick the configuration. Candidates left
 * without a finite new time (failed, or not re-measured) cannot win; when
 * none has one, the search's own numbers decide. */
static int final_pick(atune__search_state *s, atune__remeasure_fn remeasure,
                      atune__search_result *out)
{
    int64_t nok = 0, *idx = NULL;
    atune__member *m = NULL;
    double *t = NULL;
    int k = s->spec->final_k, nbest, win = -1, rc = 0;

    for (int64_t pos = 0; pos < s->sp.nvalid; pos++)
        nok += s->done[pos] && isfinite(s->t[pos]);
    if (k > nok)
        k = (int)nok;
    if (k <= 0)
        return 0;
    m = atune__calloc((size_t)nok, sizeof(*m));
    idx = atune__calloc((size_t)k + 1, sizeof(*idx));
    t = atune__calloc((size_t)k + 1, sizeof(*t));
    if (!m || !idx || !t) {
        rc = atune__fail(s->err, ATUNE__EOSERR, "out of memory");
        goto done;
    }
    nok = 0;
    for (int64_t pos = 0; pos < s->sp.nvalid; pos++)
        if (s->done[pos] && isfinite(s->t[pos]))
            m[nok++] = (atune__member){pos, s->t[pos]};
    qsort(m, (size_t)nok, sizeof(*m), by_time);
    for (int i = 0; i < k; i++)
        idx[i] = s->sp.index[m[i].pos];
    nbest = k;
    if (default_joins(s, idx, k))
        idx[k++] = 0;
    if ((rc = remeasure_all(s, remeasure, idx, k, t)))
        goto done;
    win = judge(s, m, nbest, idx, t, k, out);
    if (out->final_shift > ATUNE__FINAL_SHIFT_LIMIT) {
        out->final_retried = 1;
        if ((rc = remeasure_all(s, remeasure, idx, k, t)))
            goto done;
        win = judge(s, m, nbest, idx, t, k, out);
    }
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

/* ---- the default's technique in a sparse space ------------------------
 * The default search is greedy_ils, but bayes in a searched space (over
 * SMALL_SPACE valid) where fewer than one in SPARSE of the parameters'
 * combinations is valid. There almost every one-parameter move is invalid,
 * so the climb has few ways out of a local optimum; bayes draws from the
 * valid configurations themselves. matmul (197 valid of 3359232 at
 * 4096^3) is the only such built-in space; the design set's others are
 * 0.16-1 dense, so its figures do not change. Replayed on the brute force
 * of matmul's 22 default sizes (tune --simulate, 20 seeds, 2026-11-27,
 * the committed profiles' runs): H100 99.79% mean, worst run 81.9%
 * (4096^3) with greedy_ils, 99.95% and 97.3% with bayes; H200 99.80% /
 * 82.0% and 99.95% / 97.1%; the same evaluations (2136 against 2148 a
 * run), and about 0.1 s of CPU a searched size. */
#define SPARSE 1000

static const char *default_technique(const atune__search_spec *spec,
                                     int64_t nvalid)
{
    if (nvalid > SMALL_SPACE &&
        (double)nvalid * SPARSE < (double)atune__space_size(spec->m))
        return "bayes";
    return atune__strategy_default();
}

int atune__search(const atune__search_spec *spec, atune__eval_fn eval,
                  atune__remeasure_fn remeasure, void *ctx,
                  atune__search_result *out, atune__err *err)
{
    const char *name =
        spec->strategy ? spec->strategy : atune__strategy_default();
    const atune__technique *tq = atune__technique_find(name);
    atune__search_state s = {.spec = spec,
                             .eval = eval,
                             .ctx = ctx,
                             .err = err,
                             .best = -1,
                             .best_t = INFINITY,
                             .stop = "exhausted",
                             .ref_t = INFINITY};
    void *st = NULL;
    int rc;

    out->best = -1;
    out->best_time_ns = INFINITY;
    out->evaluations = 0;
    out->stop = "exhausted";
    out->strategy = name;
    out->final_shift = 0;
    out->final_shift_idx = -1;
    out->final_retried = 0;
    if (!tq)
        return unknown(name, err);
    if ((rc = atune__space_view_init(&s.sp, spec, err)))
        goto done;
    if (!spec->strategy)
        tq = atune__technique_find(default_technique(spec, s.sp.nvalid));
    out->strategy = tq->name;
    s.done = atune__calloc((size_t)s.sp.nvalid, 1);
    s.t = atune__calloc((size_t)s.sp.nvalid, sizeof(*s.t));
    st = atune__calloc(1, tq->state_size);
    if (!s.done || !s.t || !st) {
        rc = atune__fail(err, ATUNE__EOSERR, "out of memory");
        goto done;
    }
    atune__rng_seed(&s.r, spec->seed);
    s.horizon = spec->budget > 0 && spec->budget < s.sp.nvalid ? spec->budget
                                                               : s.sp.nvalid;
    if (s.horizon < 1)
        s.horizon = 1;
    s.patience = atune__search_patience(s.sp.nvalid);
    if (spec->nseeds > 0)
        s.patience = seeded_patience(s.sp.nvalid, s.patience);
    s.t0 = atune__now();
    if (tq->init && (rc = tq->init(st, &s)))
        goto done;
    /* ils_restart is the default search with other rules: it stops by
     * itself too. */
    s.converge = (!spec->strategy || s.wait_restarts || s.cap_tenth) &&
                 spec->budget <= 0;
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
    atune__space_view_free(&s.sp);
    return rc;
}
