/* bench.c -- the benchmark against the vendor libraries, in one process on
 * one GPU: for every template and size, the tuned configuration from the
 * profile, the article's default configuration, the block size the CUDA
 * occupancy API suggests, and the vendor baseline (cudaMemcpy D2D, cuBLAS
 * SAXPY, CUB DeviceReduce::Sum, cuBLAS SGEMM FP32). Every configuration is
 * verified before it is timed; all are timed the same way, the tuned one
 * and the vendor's in alternating rounds.
 *
 *   bench [--device N] [--profile-dir DIR] [--kernel a,b] [--size NAME]
 *   BENCH_ROUNDS=N  alternating rounds of tuned and vendor (default 21)
 *   BENCH_LADDER=1  every point of a ladder too (default: named sizes)
 *   BENCH_CONFIGS="K=V,K=V;K=V,..."  instead of the profile's choice, each
 *                   of these configurations and the vendor in alternating
 *                   rounds: a configuration study, one line per
 *                   configuration (the profile is not read)
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <atune/atune.h>

#include "measure/profile_write.h"
#include "measure/runner.h"
#include "measure/stats.h"
#include "template/templates.h"
#include "vendor.h"

#define REPS 50
/* Samples of one alternating round, tuned and vendor alike (bench.c's
 * rounds: tuned_vs_vendor). */
#define ROUND_REPS 20
#define MAX_ROUNDS 64 /* tuned and vendor, alternating */
#define MAX_STUDY 32  /* configurations of BENCH_CONFIGS */

typedef struct row {
    double tuned, dflt, occ, vendor; /* metric; 0 when not measured */
    double lo, hi; /* range of tuned / vendor over the rounds */
    double paired; /* their median: the ratio printed */
    char occ_cfg[64];
    const char *vendor_name;
} row;

static const atune__timing *timing(void)
{
    static atune__timing t;

    atune__timing_default(&t);
    t.warmup = 3;
    t.min_samples = 20;
    t.max_samples = 200;
    t.target_s = 0.2;
    return &t;
}

/* One alternating round: ROUND_REPS samples, as many as the vendor's. */
static const atune__timing *round_timing(void)
{
    static atune__timing t;

    t = *timing();
    t.warmup = 1;
    t.min_samples = ROUND_REPS;
    t.max_samples = ROUND_REPS;
    return &t;
}

/* Compiles and loads configuration c; NULL with a message on failure. */
static atune__kernel *load(atune__device *d, const atune__manifest *m,
                           const atune__config *c)
{
    const char *names[] = {m->kernel};
    atune__cubin cubin;
    atune__kernel *k = NULL;
    atune__result res;
    atune__err err;
    char cfg[512];

    memset(&res, 0, sizeof(res));
    atune__config_str(m, c, cfg, sizeof(cfg));
    if (atune__jit_compile(m, c, atune__device_info(d)->arch, names, 1, &cubin,
                           &err)) {
        fprintf(stderr, "bench: %s\n", err.msg);
        return NULL;
    }
    if (atune__kernel_load(d, m, &cubin, &k, &res, &err) || !k) {
        fprintf(stderr, "bench: %s %s: %s %s\n", m->name, cfg,
                atune__status_name(res.status),
                res.detail[0] ? res.detail : err.msg);
        atune__kernel_unload(k);
        k = NULL;
    }
    atune__cubin_free(&cubin);
    return k;
}

/* Verifies and times loaded configuration c; returns its metric, or 0
 * with a message when it is not ok. */
static double time_loaded(atune__problem *p, const atune__manifest *m,
                          atune__kernel *k, const atune__config *c,
                          const atune__timing *t)
{
    atune__result res;
    atune__err err;
    char cfg[512];

    memset(&res, 0, sizeof(res));
    if (atune__problem_eval(p, k, c, t, &res, &err) == 0 &&
        res.status == ATUNE__ST_OK)
        return res.metric;
    atune__config_str(m, c, cfg, sizeof(cfg));
    fprintf(stderr, "bench: %s %s: %s %s\n", m->name, cfg,
            atune__status_name(res.status), res.detail[0] ? res.detail : err.msg);
    return 0;
}

/* Compiles, verifies and times configuration c; returns its metric, or 0
 * with a message when it is not ok. */
static double measure(atune__device *d, atune__problem *p,
                      const atune__manifest *m, const atune__config *c)
{
    atune__kernel *k = load(d, m, c);
    double metric = k ? time_loaded(p, m, k, c, timing()) : 0;

    atune__kernel_unload(k);
    return metric;
}

static int param_index(const atune__manifest *m, const char *name)
{
    for (int i = 0; i < m->nparams; i++)
        if (strcmp(m->params[i].name, name) == 0)
            return i;
    return -1;
}

/* The default configuration with BLOCK_SIZE set to what
 * cuOccupancyMaxPotentialBlockSize suggests for the kernel compiled with
 * the largest BLOCK_SIZE (so __launch_bounds__ does not cap the answer),
 * rounded down to a value the template offers. */
static double occupancy(atune__device *d, atune__problem *p,
                        const atune__manifest *m, row *r)
{
    const char *names[] = {m->kernel};
    int bi = param_index(m, "BLOCK_SIZE"), block = 0, min_grid = 0;
    int64_t best = -1, largest = 0;
    atune__config c;
    atune__cubin cubin;
    atune__kernel *k = NULL;
    atune__result res;
    atune__err err;

    if (bi < 0)
        return 0;
    atune__space_config(m, 0, &c);
    for (int v = 0; v < m->params[bi].nvalues; v++)
        if (m->params[bi].values[v] > largest)
            largest = m->params[bi].values[v];
    c.v[bi] = largest;
    if (atune__jit_compile(m, &c, atune__device_info(d)->arch, names, 1, &cubin,
                           &err) ||
        atune__kernel_load(d, m, &cubin, &k, &res, &err) || !k ||
        atune__kernel_occupancy_block(k, 0, &block, &min_grid, &err)) {
        atune__kernel_unload(k);
        atune__cubin_free(&cubin);
        return 0;
    }
    atune__kernel_unload(k);
    atune__cubin_free(&cubin);
    for (int v = 0; v < m->params[bi].nvalues; v++) {
        int64_t x = m->params[bi].values[v];
        if (x <= block && x > best)
            best = x;
    }
    if (best < 0)
        return 0;
    c.v[bi] = best;
    snprintf(r->occ_cfg, sizeof(r->occ_cfg), "BLOCK_SIZE=%" PRId64, best);
    return measure(d, p, m, &c);
}

static int64_t size_var(const atune__size *s, const char *name, int64_t dflt)
{
    for (int i = 0; i < s->nvars; i++)
        if (strcmp(s->var[i], name) == 0)
            return s->value[i];
    return dflt;
}

/* The i-th buffer argument with one of the roles given. */
static uint64_t buffer(const atune__problem *p, const atune__manifest *m,
                       atune__role role, int nth, size_t *count)
{
    uint64_t ptr = 0;

    for (int i = 0; i < m->nargs; i++)
        if (m->args[i].role == role && nth-- == 0 &&
            atune__problem_buffer(p, m->args[i].name, &ptr, count) == 0)
            return ptr;
    return 0;
}

static float scalar_float(const atune__manifest *m)
{
    for (int i = 0; i < m->nargs; i++)
        if (m->args[i].role == ATUNE__SCALAR && m->args[i].has_fvalue)
            return (float)m->args[i].fvalue;
    return 1.0f;
}

/* The vendor library's time for the same work, as a metric. */
static double vendor(atune__problem *p, const atune__manifest *m,
                     const atune__size *s, int reps, row *r)
{
    size_t count = 0;
    int flush = atune__problem_flushes(p, timing());
    vb_time t = {0};
    int rc = -1;
    int64_t n = size_var(s, "n", 0);

    if (strcmp(m->name, "copy") == 0) {
        uint64_t in = buffer(p, m, ATUNE__INPUT, 0, &count);
        uint64_t out = buffer(p, m, ATUNE__OUTPUT, 0, &count);
        r->vendor_name = "cudaMemcpy D2D";
        rc = vb_copy(out, in, count * sizeof(int), reps, flush, &t);
    } else if (strcmp(m->name, "saxpy") == 0) {
        uint64_t x = buffer(p, m, ATUNE__INPUT, 0, &count);
        uint64_t y = buffer(p, m, ATUNE__INOUT, 0, &count);
        r->vendor_name = "cuBLAS SAXPY";
        rc = vb_saxpy((long)count, scalar_float(m), x, y, reps, flush, &t);
    } else if (strcmp(m->name, "reduce") == 0) {
        uint64_t in = buffer(p, m, ATUNE__INPUT, 0, &count);
        size_t one;
        uint64_t out = buffer(p, m, ATUNE__ACCUM, 0, &one);
        int expect = 0;
        r->vendor_name = "CUB DeviceReduce::Sum";
        /* After the verified tuned launches, out holds the true sum. */
        if (vb_read_int(out, &expect) == 0)
            rc = vb_reduce(in, out, (long)count, expect, reps, flush, &t);
    } else if (strncmp(m->name, "matmul", 6) == 0) { /* and candidates */
        uint64_t a = buffer(p, m, ATUNE__INPUT, 0, &count);
        uint64_t b = buffer(p, m, ATUNE__INPUT, 1, &count);
        uint64_t c = buffer(p, m, ATUNE__OUTPUT, 0, &count);
        int64_t mm = size_var(s, "m", n), nn = size_var(s, "n", n),
                kk = size_var(s, "k", n);
        r->vendor_name = "cuBLAS SGEMM FP32";
        rc = vb_sgemm((int)mm, (int)nn, (int)kk, a, b, c, reps, flush, &t);
    } else {
        r->vendor_name = "-";
        return 0;
    }
    return rc == 0 ? atune__problem_work(p) / t.median_ns : 0;
}

/* Rounds of tuned_vs_vendor: BENCH_ROUNDS, default 21. */
static int rounds(void)
{
    const char *e = getenv("BENCH_ROUNDS");
    int n = e ? atoi(e) : 21;

    return n < 1 ? 1 : n > MAX_ROUNDS ? MAX_ROUNDS : n;
}

/* nrounds alternating rounds of ROUND_REPS launches: each of the n loaded
 * configurations k[j], then the vendor (v[i] 0: it has none), so that a
 * drift of the GPU's clock weighs on all: at 2^20 elements a kernel takes
 * ~7.5 us, and the same configuration's median over 200 samples (9 ms
 * with the L2 flushes) moves by 3-5% from one measurement to the next (an
 * H100, 2026-11-24: in one process, configurations measured in turn
 * alternated between 0.96x and 1.01x of cudaMemcpy), a drift slower than
 * a round of 2 ms. t[j][i], v[i]: metrics. Returns 0, or -1 when a
 * configuration failed. */
static int alternate(atune__problem *p, const atune__manifest *m,
                     const atune__size *size, atune__kernel *const *k,
                     const atune__config *c, int n, int nrounds,
                     double t[][MAX_ROUNDS], double *v, row *r)
{
    for (int i = 0; i < nrounds; i++) {
        for (int j = 0; j < n; j++) {
            t[j][i] = time_loaded(p, m, k[j], &c[j], round_timing());
            if (!(t[j][i] > 0))
                return -1;
        }
        v[i] = vendor(p, m, size, ROUND_REPS, r);
    }
    return 0;
}

/* The median of t over the rounds, and against the vendor's v (when it
 * has one in every round) the median, *lo and *hi of the rounds' ratios;
 * 0 for what is not measured. */
static double summarize_rounds(const double *t, const double *v,
                               int nrounds, double *vendor_median,
                               double *ratio_median, double *lo, double *hi)
{
    double tt[MAX_ROUNDS], vv[MAX_ROUNDS], q[MAX_ROUNDS];
    atune__summary st, sv, sq;

    *vendor_median = *ratio_median = 0;
    *lo = INFINITY;
    *hi = 0;
    for (int i = 0; i < nrounds; i++) {
        tt[i] = t[i];
        vv[i] = v[i];
        q[i] = v[i] > 0 ? t[i] / v[i] : 0;
        if (v[i] > 0) {
            *lo = fmin(*lo, q[i]);
            *hi = fmax(*hi, q[i]);
        }
    }
    atune__summarize(tt, nrounds, &st);
    atune__summarize(vv, nrounds, &sv);
    atune__summarize(q, nrounds, &sq);
    if (sv.min > 0) {
        *vendor_median = sv.median;
        *ratio_median = sq.median;
    }
    return st.median;
}

/* The tuned configuration and the vendor library in alternating rounds:
 * the ratio is the median of the rounds' ratios; the metrics, the medians
 * of the rounds. */
static void tuned_vs_vendor(atune__device *d, atune__problem *p,
                            const atune__manifest *m, const atune__config *c,
                            const atune__size *size, row *r)
{
    double t[1][MAX_ROUNDS], v[MAX_ROUNDS];
    const int nrounds = rounds();
    atune__kernel *k = load(d, m, c);

    if (k && alternate(p, m, size, &k, c, 1, nrounds, t, v, r) == 0)
        r->tuned = summarize_rounds(t[0], v, nrounds, &r->vendor, &r->paired,
                                    &r->lo, &r->hi);
    atune__kernel_unload(k);
}

/* BENCH_CONFIGS: every configuration given and the vendor, timed in
 * alternating rounds in one process (a configuration's median against
 * the vendor's is only fair within one run: between processes the same
 * kernel at 2^20 elements moves by 3-5%). One line each, with the median
 * of its rounds and the range of its ratio to the vendor. */
static int study(atune__device *d, atune__problem *p, const atune__manifest *m,
                 const atune__size *size, const char *list)
{
    atune__config c[MAX_STUDY];
    double t[MAX_STUDY][MAX_ROUNDS], v[MAX_ROUNDS];
    char buf[4096], key[96], *save = NULL;
    atune__kernel *k[MAX_STUDY] = {NULL};
    const int nrounds = rounds();
    int n = 0, rc = 1;
    row r;

    snprintf(buf, sizeof(buf), "%s", list);
    for (char *tok = strtok_r(buf, ";", &save); tok && n < MAX_STUDY;
         tok = strtok_r(NULL, ";", &save)) {
        atune__err err;
        if (atune__config_parse(m, tok, &c[n++], &err)) {
            fprintf(stderr, "bench: BENCH_CONFIGS: %s\n", err.msg);
            return 1;
        }
    }
    memset(&r, 0, sizeof(r));
    for (int j = 0; j < n; j++)
        if (!(k[j] = load(d, m, &c[j])))
            goto done;
    if (alternate(p, m, size, k, c, n, nrounds, t, v, &r))
        goto done;
    atune__size_key(size, key, sizeof(key));
    for (int j = 0; j < n; j++) {
        double tuned, vend, ratio_median, lo, hi;
        char cfg[512];

        tuned = summarize_rounds(t[j], v, nrounds, &vend, &ratio_median, &lo,
                                 &hi);
        if (!(vend > 0)) /* a study compares with the vendor */
            goto done;
        atune__config_str(m, &c[j], cfg, sizeof(cfg));
        printf("%-9s %-24s %10.1f %10.1f %-22s %8.3f  %.3f-%.3f  %s\n",
               m->name, key, tuned, vend, r.vendor_name, ratio_median, lo, hi,
               cfg);
    }
    rc = 0;
done:
    for (int j = 0; j < n; j++)
        atune__kernel_unload(k[j]);
    return rc;
}

static void ratio(double a, double b)
{
    if (a > 0 && b > 0)
        printf(" %8.3f", a / b);
    else
        printf(" %8s", "-");
}

static int bench_template(atune__device *d, const atune__manifest *m,
                          atune_profile *prof, const char *only_size)
{
    for (int s = 0; s < m->nsizes; s++) {
        const atune__size *size = &m->sizes[s];
        const atune_config *pc = NULL;
        atune__problem *p = NULL;
        atune__config c;
        atune__err err;
        char key[96];
        row r;

        /* A ladder's points (35 per 1-D template) are for the library
         * between sizes, not a table: tests/bench/regret.sh measures them. */
        if (only_size ? strcmp(only_size, size->name) != 0
                      : size->ladder && !getenv("BENCH_LADDER"))
            continue;
        memset(&r, 0, sizeof(r));
        atune__size_key(size, key, sizeof(key));
        if (atune__problem_open(d, m, size, 0x5eed5eed12345678ULL, &p, &err)) {
            fprintf(stderr, "bench: %s\n", err.msg);
            return 1;
        }
        if (getenv("BENCH_CONFIGS")) {
            int rc = study(d, p, m, size, getenv("BENCH_CONFIGS"));
            atune__problem_close(p);
            if (rc)
                return rc;
            continue;
        }
        atune__space_config(m, 0, &c);
        r.dflt = measure(d, p, m, &c);
        r.occ = occupancy(d, p, m, &r);
        if (prof && atune_profile_lookup(prof, m->name, key, &pc) == ATUNE_OK &&
            atune_config_size_match(pc) == ATUNE_SIZE_EXACT) {
            for (int i = 0; i < m->nparams; i++)
                c.v[i] = atune_config_get(pc, m->params[i].name, c.v[i]);
            tuned_vs_vendor(d, p, m, &c, size, &r);
        } else {
            r.vendor = vendor(p, m, size, REPS, &r);
        }
        printf("%-9s %-24s %10.1f %10.1f %10.1f %10.1f %-22s", m->name, key,
               r.tuned, r.dflt, r.occ, r.vendor, r.vendor_name);
        if (r.paired > 0)
            printf(" %8.3f", r.paired);
        else
            ratio(r.tuned, r.vendor);
        ratio(r.tuned, r.dflt);
        ratio(r.tuned, r.occ);
        if (r.hi > 0)
            printf("  %.3f-%.3f", r.lo, r.hi);
        printf("\n");
        fflush(stdout);
        atune__problem_close(p);
    }
    return 0;
}

int main(int argc, char **argv)
{
    const char *dir = "profiles", *kernels = NULL, *size = NULL;
    const char *templates = NULL;
    int ordinal = 0, rc = 0;
    atune__device *d = NULL;
    atune__templates t = {0};
    atune_profile *prof = NULL;
    atune_device id;
    atune__err err;

    for (int i = 1; i + 1 < argc; i += 2) {
        if (strcmp(argv[i], "--device") == 0)
            ordinal = atoi(argv[i + 1]);
        else if (strcmp(argv[i], "--profile-dir") == 0)
            dir = argv[i + 1];
        else if (strcmp(argv[i], "--kernel") == 0)
            kernels = argv[i + 1];
        else if (strcmp(argv[i], "--size") == 0)
            size = argv[i + 1];
        else if (strcmp(argv[i], "--templates") == 0)
            templates = argv[i + 1];
        else {
            fprintf(stderr, "bench: unknown option '%s'\n", argv[i]);
            return 64;
        }
    }
    setenv("NVIDIA_TF32_OVERRIDE", "0", 1);
    if ((rc = atune__device_open(ordinal, NULL, &d, &err))) {
        fprintf(stderr, "bench: %s\n", err.msg);
        return rc == ATUNE__EUNAVAIL ? 77 : 1;
    }
    if ((rc = atune__templates_load(templates, kernels, &t, &err))) {
        fprintf(stderr, "bench: %s\n", err.msg);
        atune__device_close(d);
        return 1;
    }
    memset(&id, 0, sizeof(id));
    snprintf(id.name, sizeof(id.name), "%s", atune__device_info(d)->name);
    id.cc = (int)atune__device_info(d)->attr.cc;
    id.sm_count = (int)atune__device_info(d)->attr.sm_count;
    if (atune_profile_open_for(dir, &id, &prof) != ATUNE_OK) {
        fprintf(stderr, "bench: no profile for %s in %s: tuned column empty\n",
                id.name, dir);
        atune_profile_close(prof);
        prof = NULL;
    }
    printf("GPU %d: %s (%s, %lld SMs), theoretical %lld GB/s\n", ordinal,
           id.name, atune__device_info(d)->arch,
           (long long)atune__device_info(d)->attr.sm_count,
           (long long)atune__device_info(d)->mem_bandwidth_gbs);
    printf("metric: GB/s or GFLOP/s (the template's); ratios are tuned over "
           "the column named\n");
    printf("tuned and vendor: %d alternating rounds of %d samples; /vendor "
           "is the median of the rounds' ratios, last column their "
           "range\n", rounds(), ROUND_REPS);
    printf("%-9s %-24s %10s %10s %10s %10s %-22s %8s %8s %8s  %s\n", "kernel",
           "size", "tuned", "default", "occupancy", "vendor", "vendor is",
           "/vendor", "/default", "/occup.", "/vendor range");
    for (int i = 0; i < t.n && !rc; i++)
        rc = bench_template(d, t.m[i], prof, size);
    atune_profile_close(prof);
    atune__templates_free(&t);
    atune__device_close(d);
    return rc;
}
