/* measure.c -- one configuration on one problem: checks it against the
 * device's limits, verifies its output against the reference result, then
 * times it with the adaptive stopping rule. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "measure/runner_internal.h"
#include "measure/stats.h"

void atune__timing_default(atune__timing *t)
{
    /* The verification launch just before is the warm-up; 7 samples as
     * Kernel Tuner takes, more while the spread is over 1%. */
    t->warmup = 0;
    t->min_samples = 7;
    /* Kernels under ~200 us whose spread behind the L2 flush stays over
     * rel_spread (2-4%) and that neither lose nor win the race ran to the
     * cap: at 100, 1458 evaluations took 9 of the 23 s of timing in the
     * H100's default run of 2026-11-26, 62 us a launch with the flush.
     * At 50 their median is within ~0.5% (0.93 IQR / sqrt(n)), and the
     * best few are timed again in the final pick. */
    t->max_samples = 50;
    t->target_s = 0.05;
    t->rel_spread = 0.01;
    t->early_samples = 3;
    t->cutoff_ns = 0;
    t->cutoff_margin = 0.03;
    /* Measured on an H100 (profiles/, 2026-11-23): half of the default
     * run's evaluations at kernels under ~100 us ran to max_samples, most
     * of them several percent slower than the incumbent, because their
     * spread (4-8% of the median behind an L2 flush) never fell under
     * rel_spread and their fastest sample was not over a margin of twice
     * the incumbent's spread. For a configuration as fast as the
     * incumbent the sign test stops it after 7 samples with a probability
     * of at most 6%, and then it was no faster. */
    t->race_q1_margin = 0.01;
    t->verify_lazily = 0;
    t->flush_l2 = 1;
    t->long_min_samples = 3;
    t->verified = 0;
    t->watch = NULL;
    t->watch_ctx = NULL;
}

/* A round of the final pick: at most FINAL_ROUND_SAMPLES launches, and
 * half a measurement's GPU time over all its rounds. Long kernels (0.1-0.4%
 * spread) filled rounds of 10 ms, and short ones whose spread behind the
 * flush stays over 1% ran to 25 launches a round: 4 candidates x 5 rounds
 * x 26 launches x 62 us, 30 ms a size, most of the final pick's 6-7 s in
 * the H100's default run of 2026-11-26. Thirteen a round still make 65 a
 * candidate, and the rounds' medians of long kernels agree to a fraction
 * of the 3% that tells candidates apart. */
#define FINAL_ROUND_SAMPLES 13

atune__timing atune__timing_final_round(const atune__timing *base,
                                        int rounds)
{
    atune__timing t = *base;
    int cap = FINAL_ROUND_SAMPLES;

    t.target_s = base->target_s / (2 * rounds);
    t.early_samples = 1;
    t.long_min_samples = 1;
    if (cap < t.min_samples)
        cap = t.min_samples;
    if (t.max_samples > cap)
        t.max_samples = cap;
    return t;
}

void atune__timing_watch(const atune__timing *t, int launches)
{
    if (t && t->watch)
        t->watch(t->watch_ctx, launches);
}

/* --- evaluation --------------------------------------------------------- */

/* Classifies a failed launch or synchronisation. Sticky errors end the
 * run (the context is lost); others are the configuration's fault. */
static int launch_failed(atune__problem *p, CUresult rc, const char *when,
                         atune__result *res, atune__err *err)
{
    char buf[256];

    atune__cudrv_errstr(rc, buf, sizeof(buf));
    snprintf(res->detail, sizeof(res->detail), "%s: %s", when, buf);
    if (atune__cudrv_sticky(rc)) {
        res->status = ATUNE__ST_FAULT;
        return atune__fail(err, ATUNE__ERESTART, "%s %s: %s: %s", p->m->name,
                           p->size_key, when, buf);
    }
    res->status = ATUNE__ST_LAUNCH_ERROR;
    return 0;
}

/* Queues one evaluation: every step of the unit, in order, on one
 * stream (each launch sees what the one before wrote). */
static CUresult launch(atune__problem *p, atune__kernel *k,
                       const struct unit *u)
{
    for (int i = 0; i < u->n; i++) {
        const atune__launch *l = &u->l[i];
        CUresult r = p->d->cu->cuLaunchKernel(
            k->fn[i], (unsigned)l->grid[0], (unsigned)l->grid[1],
            (unsigned)l->grid[2], (unsigned)l->block[0], (unsigned)l->block[1],
            (unsigned)l->block[2], (unsigned)l->shared, p->d->stream,
            (void **)u->args[i], NULL);
        if (r != CUDA_SUCCESS)
            return r;
    }
    return CUDA_SUCCESS;
}

/* The compare kernel of element type t over out[0..n) against ref, on
 * grid blocks, its result read back into *r (what = the wait's name). */
static int run_compare(atune__problem *p, int t, CUdeviceptr out,
                       CUdeviceptr ref, long n, int grid, const char *what,
                       struct cmp_result *r, atune__err *err)
{
    atune__device *d = p->d;
    CUdeviceptr resp = d->cmpres;
    void *args[] = {&out, &ref, &n, &resp};

    memset(r, 0, sizeof(*r));
    r->first = ~0ULL;
    CU(cuMemcpyHtoD(d->cmpres, r, sizeof(*r)), "cuMemcpyHtoD");
    CU(cuLaunchKernel(d->cmp[t], (unsigned)grid, 1, 1, CMP_BLOCK, 1, 1, 0,
                      d->stream, args, NULL),
       "launching the compare kernel");
    CU(cuStreamSynchronize(d->stream), what);
    CU(cuMemcpyDtoH(r, d->cmpres, sizeof(*r)), "cuMemcpyDtoH");
    return 0;
}

/* Compares one buffer's compared elements with the reference result;
 * sets *ok. */
static int compare(atune__problem *p, const struct buffer *b, int *ok,
                   atune__result *res, atune__err *err)
{
    atune__device *d = p->d;
    struct cmp_result r;
    /* Vectors are compared by component: each is an element of the
     * compare kernel, mismatches and tolerance count components. */
    size_t lanes = atune__arg_lanes(b->arg);
    size_t off = b->cmp_first * atune__arg_elem_size(b->arg);
    long n = (long)(b->cmp_count * lanes);
    int rc;

    if (p->verify_fn[b - p->buf])
        return atune__refrun_verify(p, b, ok, res, err);
    if ((rc = run_compare(p, b->arg->type, b->ptr + off, b->expect + off, n,
                          d->info.attr.sm_count * 8, "comparing outputs", &r,
                          err)))
        return rc;
    if (r.first != ~0ULL)
        r.first = r.first / lanes + b->cmp_first;
    *ok = atune__verdict(b->arg, b->cmp_count * lanes, p->m->tolerance, &r,
                         res->detail, sizeof(res->detail));
    return 0;
}

/* Whether the kernel left the guard after b as it was (runner_internal.h:
 * GUARD_BYTES); sets *ok, and the detail when not. Compared as b's
 * element type, whose helpers every guarded buffer has loaded: the
 * pattern's bytes are a finite value of every type. */
static int guard_intact(atune__problem *p, const struct buffer *b, int *ok,
                        atune__result *res, atune__err *err)
{
    struct cmp_result r;
    size_t comp = atune__arg_elem_size(b->arg) / atune__arg_lanes(b->arg);
    double diff;
    int rc = run_compare(p, b->arg->type, b->ptr + b->bytes, p->guard,
                         (long)(GUARD_BYTES / comp), p->d->info.attr.sm_count * 2,
                         "checking the guard after a buffer", &r, err);

    if (rc)
        return rc;
    memcpy(&diff, &r.max_diff, sizeof(diff));
    *ok = !r.mismatches && !r.nonfinite && diff == 0;
    if (!*ok)
        snprintf(res->detail, sizeof(res->detail),
                 "%s: written past its end (within the %d bytes after its "
                 "%zu elements)",
                 b->arg->name, GUARD_BYTES, b->count);
    return 0;
}

/* Waits for the launches queued so far; a failure is the kernel's. */
static int wait_for(atune__problem *p, const atune__timing *t, int launches,
                    atune__result *res, atune__err *err)
{
    CUresult crc;

    atune__timing_watch(t, launches);
    crc = p->d->cu->cuStreamSynchronize(p->d->stream);
    atune__timing_watch(t, 0);
    return crc == CUDA_SUCCESS ? 0 : launch_failed(p, crc, "kernel", res, err);
}

static int verify(atune__problem *p, atune__kernel *k,
                  const struct unit *u, const atune__timing *t,
                  atune__result *res, atune__err *err)
{
    CUresult crc;
    int rc, ok = 1;

    if ((rc = atune__problem_prepare(p, 1, err)))
        return rc;
    crc = launch(p, k, u);
    if (crc != CUDA_SUCCESS)
        return launch_failed(p, crc, "launch", res, err);
    if ((rc = wait_for(p, t, 1, res, err)) || res->status != ATUNE__ST_OK)
        return rc;
    for (int i = 0; ok && i < p->m->nargs; i++) {
        const struct buffer *b = &p->buf[i];
        if ((atune__role_compared(b->arg->role) &&
             (rc = compare(p, b, &ok, res, err))) ||
            (ok && atune__guarded(b->arg->role) &&
             (rc = guard_intact(p, b, &ok, res, err))))
            return rc;
    }
    res->status = ok ? ATUNE__ST_OK : ATUNE__ST_WRONG_OUTPUT;
    return 0;
}

/* Launches n times between event pairs; restores buffers (and flushes L2)
 * before each launch, outside the timed region. A flushed sample is waited
 * for before the next is queued, as NVBench's cold measurements are: the
 * GPU is idle before each flush, the flush hides the launch's host cost,
 * and the kernel runs right after it. Queued back to back instead, each
 * flush behind the previous sample, short kernels took 5-10% longer and
 * spread more (H100, 2026-11-25, tests/bench/flush_study.cu: a 362^2
 * constmem-like kernel 5376 ns with an interquartile range of 7.1% per
 * evaluation, against 4832 ns and 0.2% waited for; copy n=2^20 5.9% and
 * 2.8%), so that at up to ~10 us they never met rel_spread. */
static int timed_batch(atune__problem *p, atune__kernel *k,
                       const struct unit *u, int n, int flush,
                       const atune__timing *t, double *ns,
                       atune__result *res, atune__err *err)
{
    atune__device *d = p->d;
    CUresult crc;
    int rc;

    for (int i = 0; i < n; i++) {
        if ((rc = atune__problem_prepare(p, 0, err)))
            return rc;
        if (flush)
            CU(cuMemsetD8Async(d->flush, (unsigned char)i, d->flush_bytes,
                               d->stream),
               "flushing L2");
        CU(cuEventRecord(d->ev[2 * i], d->stream), "cuEventRecord");
        crc = launch(p, k, u);
        if (crc != CUDA_SUCCESS)
            return launch_failed(p, crc, "launch", res, err);
        CU(cuEventRecord(d->ev[2 * i + 1], d->stream), "cuEventRecord");
        if ((flush || i == n - 1) &&
            ((rc = wait_for(p, t, flush ? 1 : n, res, err)) ||
             res->status != ATUNE__ST_OK))
            return rc;
    }
    for (int i = 0; i < n; i++) {
        float ms = 0;
        CU(cuEventElapsedTime(&ms, d->ev[2 * i], d->ev[2 * i + 1]),
           "cuEventElapsedTime");
        ns[i] = (double)ms * 1e6;
    }
    return 0;
}

/* Whether the race is decided against the incumbent: the fastest sample
 * is slower than the incumbent's median plus its noise, or, with enough
 * samples, three in four are slower than it (runner.h). */
static int race_lost(const atune__timing *t, const atune__summary *s,
                     int minn)
{
    if (t->cutoff_ns <= 0)
        return 0;
    if (s->min > t->cutoff_ns * (1 + t->cutoff_margin))
        return 1;
    return t->race_q1_margin > 0 && s->n >= minn &&
           s->q1 > t->cutoff_ns * (1 + t->race_q1_margin);
}

/* Whether the median is within the incumbent's noise: the ranking of the
 * two is what the search acts on, so it deserves more samples. */
static int close_call(const atune__timing *t, const atune__summary *s)
{
    return t->cutoff_ns > 0 &&
           fabs(s->median - t->cutoff_ns) <= t->cutoff_margin * t->cutoff_ns;
}

/* The first batch against an incumbent of at least LONG_RACE_NS is one
 * launch: at such lengths a sample spreads by 0.1-0.4% (interquartile
 * range), a tenth of the race's margin of at least 3%, so one sample
 * over the margin is a loss that two more would only confirm. Losers of
 * 0.5 ms and more took 4 launches each, 8 of the 33 s of timing in the
 * H100's default run of 2026-11-26 (matmul at 5796^3 and 8196^3, copy
 * and saxpy at 2^28 and more). */
#define LONG_RACE_NS 5e5

/* A warm-up launch against an incumbent of at least WARM_RACE_NS decides
 * a loss by itself when even it is over the race's margin: a first launch
 * can only be slower than the next (its extra cost, loading the function,
 * is tens of microseconds, a fiftieth of the 3% margin at 2 ms), so a
 * warm-up that loses is a loss the next launch would only confirm.
 * Matmul's losers at 5796^3 and 8196^3 (9 and 24 ms) each took a warm-up
 * and a timed launch, about 1.2 s of the H100's default run of 2026-11-26
 * evening. */
#define WARM_RACE_NS 2e6

static int warmup_lost(const atune__timing *t, double ns)
{
    return t->cutoff_ns >= WARM_RACE_NS &&
           ns > t->cutoff_ns * (1 + t->cutoff_margin);
}

static int first_batch(const atune__timing *t, int minn)
{
    if (t->cutoff_ns >= LONG_RACE_NS)
        return 1;
    return t->early_samples > 0 ? t->early_samples : minn;
}

/* The samples a measurement needs before it may stop: min_samples,
 * twice that for a close call; but no more than fill the GPU time target
 * (at least long_min_samples), so that a kernel of tens of milliseconds,
 * whose spread is a fraction of a percent, stops on time: matmul at
 * 8196^3 (24 ms a launch, interquartile range 0.1-2%) spent 7.5 s of the
 * H100's default run of 2026-11-24 on 7 samples an evaluation. */
static int samples_needed(const atune__timing *t, const atune__summary *s,
                          int minn)
{
    /* A close call is doubled only while the spread could swap the two:
     * within rel_spread, 7 samples put the median within ~0.4% (0.93 IQR
     * / sqrt(n)), and the final pick times the best few again. Close calls
     * of 0.2-2 ms (interquartile range 0.35%) were 5 of the 33 s of
     * timing in the H100's default run of 2026-11-26. */
    int need = close_call(t, s) && s->q3 - s->q1 > t->rel_spread * s->median
                   ? 2 * minn
                   : minn;
    int floor = t->long_min_samples > 0 ? t->long_min_samples : 1;
    int lowest = minn < floor ? minn : floor;
    double fits = s->median > 0 ? ceil(t->target_s * 1e9 / s->median) : need;

    if (fits < need)
        need = fits > lowest ? (int)fits : lowest;
    return need;
}

/* Adaptive measurement, after NVBench's stopping rule: batches of timed
 * launches until the relative interquartile range is under rel_spread (with
 * at least min_samples), or target_s of GPU time or max_samples is reached.
 * Against an incumbent (cutoff_ns) it races: a configuration that is
 * clearly slower stops after the batch that shows it (the first is
 * early_samples long), since its ranking among losers does not matter; a
 * close call takes twice the minimum. Batches grow geometrically, so a
 * loser costs few synchronisations and a winner few batches. */
static int measure(atune__problem *p, atune__kernel *k,
                   const struct unit *u,
                   const atune__timing *t, atune__result *res, int *lost,
                   atune__err *err)
{
    double ns[MAX_SAMPLES], sorted[MAX_SAMPLES], spent = 0;
    atune__summary s;
    int maxn = t->max_samples > MAX_SAMPLES ? MAX_SAMPLES : t->max_samples;
    int minn = t->min_samples < 1 ? 1 : t->min_samples;
    int flush = atune__problem_flushes(p, t), n = 0, rc;
    int batch = first_batch(t, minn);

    if (maxn < 1)
        maxn = 1;
    if (minn > maxn)
        minn = maxn;
    for (int i = 0; i < t->warmup; i++) {
        if ((rc = timed_batch(p, k, u, 1, flush, t, ns, res, err)))
            return rc;
        if (res->status != ATUNE__ST_OK)
            return 0;
        if (warmup_lost(t, ns[0])) {
            *lost = n = 1;
            sorted[0] = ns[0];
            atune__summarize(sorted, 1, &s);
            break;
        }
    }
    while (!*lost) {
        int need;

        if (batch > maxn - n)
            batch = maxn - n;
        if ((rc = timed_batch(p, k, u, batch, flush, t, ns + n, res,
                              err)))
            return rc;
        if (res->status != ATUNE__ST_OK)
            return 0;
        for (int i = n; i < n + batch; i++)
            spent += ns[i];
        n += batch;
        memcpy(sorted, ns, sizeof(double) * (size_t)n);
        atune__summarize(sorted, n, &s);
        if (race_lost(t, &s, minn)) {
            *lost = 1;
            break;
        }
        need = samples_needed(t, &s, minn);
        if (need > maxn)
            need = maxn;
        if (n >= maxn || (n >= need && (spent >= t->target_s * 1e9 ||
                                        s.q3 - s.q1 <= t->rel_spread *
                                                           s.median)))
            break;
        batch = n < need ? need - n : n;
        /* Not far past the time target: long kernels stop on time. */
        if (n >= need && s.median > 0) {
            double left = t->target_s * 1e9 - spent;
            int fits = left > 0 ? (int)(left / s.median) + 1 : 1;
            if (batch > fits)
                batch = fits;
        }
    }
    res->time_ns = s.median;
    res->spread_ns = s.q3 - s.q1;
    res->min_ns = s.min;
    res->samples = n;
    res->metric = p->work / s.median;
    return 0;
}

/* Lazy verification: timed first (one launch before the samples warms up,
 * as the verification launch otherwise does), then verified only when it
 * did not lose the race: a loser can never become the best, so its output
 * does not matter, and checking it would cost a launch, a restore of the
 * buffers and a compare. A wrong output found now is still wrong_output,
 * its times dropped. A module verified already at this problem
 * (t->verified, the final pick's later rounds) is only timed. */
static int eval_lazily(atune__problem *p, atune__kernel *k,
                       const struct unit *u,
                       const atune__timing *t, atune__result *res,
                       atune__err *err)
{
    atune__timing tw = *t;
    double t0 = atune__now(), t1;
    int rc, lost = 0;

    if (tw.warmup < 1)
        tw.warmup = 1;
    rc = measure(p, k, u, &tw, res, &lost, err);
    t1 = atune__now();
    res->measure_s = t1 - t0;
    if (rc || res->status != ATUNE__ST_OK)
        return rc;
    if (lost && !t->verified)
        res->unverified = 1;
    if (lost || t->verified)
        return 0;
    rc = verify(p, k, u, t, res, err);
    res->verify_s = atune__now() - t1;
    if (!rc && res->status != ATUNE__ST_OK) {
        res->time_ns = res->spread_ns = res->min_ns = res->metric = 0;
        res->samples = 0;
    }
    return rc;
}

/* Whether each step's launch fits its compiled function: the threads its
 * registers allow, its static shared memory beside the dynamic; opts in
 * above 48 KB of dynamic shared memory. Sets res to INVALID when not. */
static int fits_functions(atune__problem *p, atune__kernel *k,
                          const struct unit *u, atune__result *res,
                          atune__err *err)
{
    atune__device *d = p->d;
    const atune__manifest *m = p->m;

    for (int i = 0; i < u->n; i++) {
        const atune__launch *l = &u->l[i];
        int64_t threads = l->block[0] * l->block[1] * l->block[2];
        char step[ATUNE__NAME_MAX + 16] = "";
        if (m->sequence)
            snprintf(step, sizeof(step), "launch '%s': ", m->steps[i].name);
        if (threads > k->max_threads[i]) {
            res->status = ATUNE__ST_INVALID;
            snprintf(res->detail, sizeof(res->detail),
                     "%s%d threads per block allowed by the compiled "
                     "kernel (its registers or __launch_bounds__), not %lld",
                     step, k->max_threads[i], (long long)threads);
            return 0;
        }
        if (l->shared + k->static_shared[i] > d->info.attr.max_shared_per_block) {
            res->status = ATUNE__ST_INVALID;
            snprintf(res->detail, sizeof(res->detail),
                     "%s%lld bytes of shared memory exceed %lld", step,
                     (long long)(l->shared + k->static_shared[i]),
                     (long long)d->info.attr.max_shared_per_block);
            return 0;
        }
        /* Above 48 KB of dynamic shared memory a kernel must opt in. */
        if (l->shared > 48 * 1024)
            CU(cuFuncSetAttribute(
                   k->fn[i], CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                   (int)l->shared),
               "cuFuncSetAttribute");
    }
    return 0;
}

int atune__problem_eval(atune__problem *p, atune__kernel *k,
                        const atune__config *c, const atune__timing *t,
                        atune__result *res, atune__err *err)
{
    atune__device *d = p->d;
    atune__vars vs = p->vars;
    struct unit u;
    union scalar sc[ATUNE__MAX_ARGS];
    void *args[ATUNE__MAX_ARGS];
    double t0, t1;
    int rc, lost = 0;

    memset(res, 0, sizeof(*res));
    res->regs = k->regs;
    if ((rc = atune__cucheck(d->cu->cuCtxSetCurrent(d->ctx), "cuCtxSetCurrent", err)))
        return rc;
    rc = atune__space_launches(p->m, c, &p->vars, &d->info.attr, u.l,
                               res->detail, sizeof(res->detail), err);
    if (rc > 1)
        return rc;
    if (rc == 0) {
        res->status = ATUNE__ST_INVALID;
        return 0;
    }
    u.n = p->m->nsteps;
    if ((rc = fits_functions(p, k, &u, res, err)) ||
        res->status != ATUNE__ST_OK)
        return rc;
    if ((rc = atune__config_vars(p->m, c, &vs)))
        return rc;
    if ((rc = atune__problem_set_constants(p, k->mod, p->m->cu_path, err)))
        return rc;
    if ((rc = atune__problem_make_args(p, &vs, sc, args, err)))
        return rc;
    atune__unit_args(p->m, args, &u);
    if ((t->verify_lazily && t->cutoff_ns > 0) || t->verified)
        return eval_lazily(p, k, &u, t, res, err);
    t0 = atune__now();
    rc = verify(p, k, &u, t, res, err);
    t1 = atune__now();
    res->verify_s = t1 - t0;
    if (rc || res->status != ATUNE__ST_OK)
        return rc;
    rc = measure(p, k, &u, t, res, &lost, err);
    res->measure_s = atune__now() - t1;
    return rc;
}
