/* test_space_build.c -- building a space with pruning (atune__space_build)
 * against the one-by-one reference (atune__space_check on every point of
 * the cartesian product, then the scalar arguments): the same valid
 * configurations in the same order, the same first error; BAT's hotspot
 * space; a space of 10^8 combinations within its time and memory bounds;
 * the limit on valid configurations; expression ranges. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include <cmocka.h>

#include "search/strategy.h"
#include "template/space.h"
#include "template/templates.h"

#if defined(__SANITIZE_ADDRESS__)
#define SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SANITIZED 1
#endif
#endif
#ifndef SANITIZED
#define SANITIZED 0
#endif

static const char *source_dir(void)
{
    const char *dir = getenv("ATUNE_SOURCE_DIR");

    if (!dir || !*dir)
        fail_msg("ATUNE_SOURCE_DIR is not set: run this test through ctest "
                 "or set it to the repository root");
    return dir;
}

/* The reference's outcome: valid indices, or the first error. */
struct outcome {
    int64_t n;
    int64_t *index;
    int rc;
    char msg[4096];
    int64_t error_at; /* index of the configuration an error is about */
};

static void outcome_free(struct outcome *o)
{
    free(o->index);
}

/* What atune__space_mark_valid did before pruning: every configuration,
 * in index order, checked on its own. */
static void reference(const atune__manifest *m, const atune__size *size,
                      const atune__devattr *dev, struct outcome *o)
{
    int64_t total = atune__space_size(m);
    atune__vars base = {0};
    atune__err err = {0};

    memset(o, 0, sizeof(*o));
    o->error_at = -1;
    o->index = malloc((size_t)(total > 0 ? total : 1) * sizeof(int64_t));
    assert_non_null(o->index);
    assert_int_equal(atune__size_vars(size, &base), 0);
    assert_int_equal(atune__devattr_vars(dev, &base), 0);
    for (int64_t i = 0; i < total; i++) {
        atune__config c;
        atune__vars vs = base;
        int rc;

        atune__space_config(m, i, &c);
        rc = atune__space_check(m, &c, &base, dev, NULL, NULL, 0, &err);
        assert_int_equal(atune__config_vars(m, &c, &vs), 0);
        for (int a = 0; rc == 1 && a < m->nargs; a++) {
            const atune__arg *arg = &m->args[a];
            int64_t v;
            if (arg->role != ATUNE__SCALAR || arg->has_fvalue)
                continue;
            rc = atune__manifest_eval(m, arg->value, arg->line, &vs, &v, &err);
            if (rc == 0 && !atune__scalar_fits(arg->type, v))
                rc = atune__fail(&err, ATUNE__EDATA,
                                 "%s:%d: value %lld of scalar '%s' does not "
                                 "fit in %s",
                                 m->ini_path, arg->line, (long long)v,
                                 arg->name, atune__type_name(arg->type));
            if (rc == 0)
                rc = 1;
        }
        if (rc == 1)
            o->index[o->n++] = i;
        else if (rc != 0) {
            o->rc = rc;
            o->error_at = i;
            snprintf(o->msg, sizeof(o->msg), "%s", err.msg);
            return;
        }
    }
}

/* FNV-1a over the indices: one number for the whole set and its order. */
static uint64_t checksum(const int64_t *index, int64_t n)
{
    uint64_t h = 1469598103934665603ULL;

    for (int64_t i = 0; i < n; i++) {
        h ^= (uint64_t)index[i];
        h *= 1099511628211ULL;
    }
    return h;
}

/* atune__space_build against the reference at one size; returns the
 * number of valid configurations. */
static int64_t compare(const atune__manifest *m, const atune__size *size,
                       const atune__devattr *dev)
{
    struct outcome ref;
    atune__valid_set set = {0};
    atune__err err = {0};
    int64_t count = -1;
    int rc;

    reference(m, size, dev, &ref);
    rc = atune__space_build(m, size, dev, NULL, &set, &count, &err);
    if (ref.rc) {
        atune__config c;
        char cfg[512], with[600];
        atune__space_config(m, ref.error_at, &c);
        atune__config_str(m, &c, cfg, sizeof(cfg));
        snprintf(with, sizeof(with), " with %s", cfg);
        if (rc != ref.rc || strncmp(err.msg, ref.msg, strlen(ref.msg)) != 0 ||
            strcmp(err.msg + strlen(err.msg) - strlen(with), with) != 0)
            fail_msg("%s: reference fails with '%s' at %s, build with %d "
                     "'%s'",
                     m->ini_path, ref.msg, cfg, rc, rc ? err.msg : "");
    } else {
        if (rc != 0)
            fail_msg("%s: build fails: %s", m->ini_path, err.msg);
        assert_int_equal(count, ref.n);
        assert_int_equal(set.n, ref.n);
        assert_true(checksum(set.index, set.n) ==
                    checksum(ref.index, ref.n));
        assert_memory_equal(set.index, ref.index,
                            (size_t)ref.n * sizeof(int64_t));
    }
    count = ref.rc ? -1 : ref.n;
    atune__valid_set_free(&set);
    outcome_free(&ref);
    return count;
}

/* A device with low limits, so that launch limits rule configurations
 * out too. */
static void small_device(atune__devattr *d)
{
    atune__devattr_default(d);
    d->max_threads_per_block = 256;
    d->max_block[0] = 256;
    d->max_block[1] = 64;
    d->max_block[2] = 4;
    d->max_grid[0] = 2147483647;
    d->max_grid[1] = 1024; /* matmul's reference at m = 16384 */
    d->max_grid[2] = 8;
    d->max_shared_per_block = 16384;
}

static void test_builtin_templates(void **state)
{
    atune__templates t = {0};
    atune__devattr devs[2];
    atune__err err = {0};

    (void)state;
    atune__devattr_default(&devs[0]);
    small_device(&devs[1]);
    if (atune__templates_load(NULL, NULL, &t, &err) != ATUNE__OK)
        fail_msg("%s", err.msg);
    assert_true(t.n >= 5);
    /* The reference walks every combination: matmul's 2,239,488 took
     * 8 s a size, so in spaces of more than a million the default device
     * sees every seventh size and the last, the small device every 28th
     * and the last; elsewhere every size and every fourth. Over four
     * million (matmul's 6,718,464 since RED, 2026-11-28: the sanitizer
     * build passed the test's 600 s with every seventh) the default
     * device sees the first size and the last (matmul: 4096^3, 8196^3),
     * the small device the last. */
    for (int i = 0; i < t.n; i++) {
        const int64_t combos = atune__space_size(t.m[i]);
        const int big = combos > 1000000, huge = combos > 4000000;
        const int last = t.m[i]->nsizes - 1;
        for (int s = 0; s < t.m[i]->nsizes; s++)
            for (int d = 0; d < 2; d++)
                if (huge ? s == last || (d == 0 && s == 0)
                         : s % ((d ? 4 : 1) * (big ? 7 : 1)) == 0 || s == last)
                    compare(t.m[i], &t.m[i]->sizes[s], &devs[d]);
    }
    atune__templates_free(&t);
}

/* ---- random manifests -------------------------------------------------- */

static uint64_t rng_state = 0x9e3779b97f4a7c15ULL;

static unsigned rnd(unsigned n)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (unsigned)(rng_state % n);
}

static void put(char **p, const char *end, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void put(char **p, const char *end, const char *fmt, ...)
{
    va_list ap;
    int n;

    va_start(ap, fmt);
    n = vsnprintf(*p, (size_t)(end - *p), fmt, ap);
    va_end(ap);
    assert_true(n >= 0 && n < end - *p);
    *p += n;
}

/* A random expression over np parameters P0.., the size variable n and
 * small constants: every operator, including those that can fail. */
static void expr(char **p, const char *end, int np, int depth)
{
    static const char *const bin[] = {"+", "-", "*", "/", "%", "<<", ">>",
                                      "<", "<=", "==", "!=", "&", "|", "^",
                                      "&&", "||", ">", ">="};
    static const char *const fn[] = {"cdiv", "min", "max"};
    static const int consts[] = {0, 1, 2, 3, 4, 8, 16, 64, 1000};
    unsigned k = depth >= 3 ? rnd(3) : rnd(9);

    if (k == 0)
        put(p, end, "P%u", rnd((unsigned)np));
    else if (k == 1)
        put(p, end, "%d", consts[rnd(9)]);
    else if (k == 2)
        put(p, end, rnd(4) ? "P%u" : "n", rnd((unsigned)np));
    else if (k <= 5) {
        put(p, end, "(");
        expr(p, end, np, depth + 1);
        put(p, end, " %s ", bin[rnd(18)]);
        expr(p, end, np, depth + 1);
        put(p, end, ")");
    } else if (k == 6) {
        put(p, end, "%s(", fn[rnd(3)]);
        expr(p, end, np, depth + 1);
        put(p, end, ", ");
        expr(p, end, np, depth + 1);
        put(p, end, ")");
    } else if (k == 7) {
        put(p, end, "(");
        expr(p, end, np, depth + 1);
        put(p, end, " ? ");
        expr(p, end, np, depth + 1);
        put(p, end, " : ");
        expr(p, end, np, depth + 1);
        put(p, end, ")");
    } else {
        put(p, end, "%s", rnd(2) ? "-" : "!");
        expr(p, end, np, depth + 1);
    }
}

/* A positive-ish launch expression: mostly parameters, sometimes an
 * arbitrary expression. */
static void launch_expr(char **p, const char *end, int np)
{
    if (rnd(3))
        put(p, end, "P%u * %u", rnd((unsigned)np), 1 + rnd(4));
    else
        expr(p, end, np, 1);
}

static atune__manifest *random_manifest(char *text, size_t len)
{
    static const int pool[] = {-2, -1, 0, 1, 2, 3, 4, 5, 8, 16, 32, 64, 1000};
    char *p = text, *end = text + len;
    int np = 2 + (int)rnd(4), nc = (int)rnd(5);
    atune__manifest *m = NULL;
    atune__err err = {0};

    put(&p, end, "[template]\nkernel = k\nreference = r\nreference_block = 1"
                 "\nreference_grid = 1\nmetric = GB/s\nwork = 1\n"
                 "[sizes]\ns = n=%u\n[params]\n",
        1 + rnd(40));
    for (int i = 0; i < np; i++) {
        int nv = 1 + (int)rnd(6), first = (int)rnd(13);
        put(&p, end, "P%d = ", i);
        for (int v = 0; v < nv; v++)
            put(&p, end, "%s%d", v ? ", " : "", pool[(first + v * 3) % 13]);
        put(&p, end, "\n");
    }
    put(&p, end, "[constraints]\n");
    for (int i = 0; i < nc; i++) {
        put(&p, end, "c%d = ", i);
        expr(&p, end, np, 0);
        put(&p, end, "\n");
    }
    put(&p, end, "[launch]\nblock = ");
    launch_expr(&p, end, np);
    if (rnd(2)) {
        put(&p, end, ", ");
        launch_expr(&p, end, np);
    }
    put(&p, end, "\ngrid = ");
    launch_expr(&p, end, np);
    put(&p, end, "\nshared = ");
    if (rnd(2))
        put(&p, end, "0");
    else
        launch_expr(&p, end, np);
    put(&p, end, "\n[args]\nout = float[4] output\n");
    if (rnd(2)) {
        put(&p, end, "x = %s ", rnd(2) ? "char" : "int");
        expr(&p, end, np, 1);
        put(&p, end, "\n");
    }
    if (atune__manifest_parse("rand", "rand.ini", text, "rand.cu",
                              "extern \"C\" __global__ void k(float *out) {}\n"
                              "extern \"C\" __global__ void r(float *out) {}\n",
                              &m, &err) != ATUNE__OK)
        return NULL;
    return m;
}

static void test_random_manifests(void **state)
{
    static char text[8192];
    atune__devattr dev;
    int parsed = 0, failing = 0, valid = 0;

    (void)state;
    small_device(&dev);
    dev.max_block[0] = 16;
    dev.max_shared_per_block = 100;
    for (int i = 0; i < 3000; i++) {
        atune__manifest *m = random_manifest(text, sizeof(text));
        int64_t n;
        if (!m)
            continue;
        parsed++;
        n = compare(m, &m->sizes[0], &dev);
        failing += n < 0;
        valid += n > 0;
        atune__manifest_free(m);
    }
    print_message("random manifests: %d parsed, %d fail, %d have valid "
                  "configurations\n",
                  parsed, failing, valid);
    /* The generator must exercise all three outcomes. */
    assert_true(parsed > 1000);
    assert_true(failing > 50);
    assert_true(valid > 50);
}

static int slot_of(void *ctx, const char *name)
{
    (void)ctx;
    if (name[0] == 'P')
        return name[1] - '0';
    return strcmp(name, "n") == 0 ? 4 : -1;
}

/* atune__bound_range is sound: where it says an expression cannot fail,
 * no evaluation in the box fails, and every value lies in its range. And
 * bound evaluation agrees with evaluation by name. */
static void test_ranges(void **state)
{
    static const int64_t pool[] = {-3, -1, 0, 1, 2, 5, 7, 16, 100, 4096};
    char text[4096];
    int proved = 0;

    (void)state;
    for (int t = 0; t < 20000; t++) {
        char *p = text;
        atune__expr *e = NULL;
        atune__bound b;
        int64_t vals[5][3], lo[5], hi[5], rlo, rhi;
        int nv[5], may_fail;

        expr(&p, text + sizeof(text), 4, 0);
        assert_int_equal(atune__expr_parse(text, &e, NULL), 0);
        assert_int_equal(atune__expr_bind(e, slot_of, NULL, &b, NULL), 0);
        for (int i = 0; i < 5; i++) {
            int first = (int)rnd(10);
            nv[i] = 1 + (int)rnd(3);
            for (int v = 0; v < nv[i]; v++)
                vals[i][v] = pool[(first + v) % 10];
            lo[i] = hi[i] = vals[i][0];
            for (int v = 1; v < nv[i]; v++) {
                lo[i] = vals[i][v] < lo[i] ? vals[i][v] : lo[i];
                hi[i] = vals[i][v] > hi[i] ? vals[i][v] : hi[i];
            }
        }
        may_fail = atune__bound_range(&b, lo, hi, &rlo, &rhi);
        proved += !may_fail;
        for (int c = 0; c < 243; c++) {
            int64_t x[5], v1 = 0, v2 = 0;
            atune__vars vs = {0};
            atune__err e1 = {0}, e2 = {0};
            int r1, r2, k = c;
            for (int i = 0; i < 5; i++, k /= 3)
                x[i] = vals[i][k % 3 % nv[i]];
            for (int i = 0; i < 4; i++) {
                char name[3] = {'P', (char)('0' + i), 0};
                atune__vars_set(&vs, name, x[i]);
            }
            atune__vars_set(&vs, "n", x[4]);
            r1 = atune__bound_eval(&b, x, &v1, &e1);
            r2 = atune__expr_eval(e, &vs, &v2, &e2);
            assert_int_equal(r1, r2);
            if (r1)
                assert_string_equal(e1.msg, e2.msg);
            else
                assert_true(v1 == v2);
            if (!may_fail) {
                if (r1)
                    fail_msg("'%s' cannot fail, says the range, but: %s",
                             text, e1.msg);
                if (v1 < rlo || v1 > rhi)
                    fail_msg("'%s' = %lld outside [%lld, %lld]", text,
                             (long long)v1, (long long)rlo, (long long)rhi);
            }
        }
        atune__bound_free(&b);
        atune__expr_free(e);
    }
    print_message("ranges: %d of 20000 expressions proved not to fail\n",
                  proved);
    assert_true(proved > 2000);
}

/* ---- BAT's hotspot ----------------------------------------------------- */

static atune__manifest *load_dir(const char *dir, const char *name)
{
    char path[1024];
    atune__manifest *m = NULL;
    atune__err err = {0};

    snprintf(path, sizeof(path), "%s/%s", source_dir(), dir);
    if (atune__manifest_load(path, name, &m, &err) != ATUNE__OK)
        fail_msg("%s", err.msg);
    return m;
}

/* Kernel Tuner 1.4 counts 349,853 valid configurations of the 22,200,000
 * (and so does the issue that brought hotspot here). */
static void test_hotspot(void **state)
{
    atune__manifest *m = load_dir("tests/data/hotspot", "hotspot");
    atune__valid_set set = {0};
    atune__devattr dev;
    atune__err err = {0};
    int64_t count = 0;

    (void)state;
    atune__devattr_default(&dev);
    assert_int_equal(atune__space_size(m), 22200000);
    if (atune__space_build(m, &m->sizes[0], &dev, NULL, &set, &count, &err))
        fail_msg("%s", err.msg);
    assert_int_equal(count, 349853);
    assert_int_equal(set.n, 349853);
    for (int64_t i = 1; i < set.n; i++)
        assert_true(set.index[i - 1] < set.index[i]);
    atune__valid_set_free(&set);
    atune__manifest_free(m);
}

/* text with the line that starts with prefix replaced by line; text is
 * freed, the result is malloc'ed. */
static char *replace_line(char *text, const char *prefix, const char *line)
{
    char *p = strstr(text, prefix), *out;
    const char *rest;

    assert_non_null(p);
    rest = strchr(p, '\n') + 1;
    out = malloc(strlen(text) + strlen(line) + 2);
    assert_non_null(out);
    memcpy(out, text, (size_t)(p - text));
    sprintf(out + (p - text), "%s\n%s", line, rest);
    free(text);
    return out;
}

static char *read_source(const char *file)
{
    char path[1024], *text = NULL;
    atune__err err = {0};

    snprintf(path, sizeof(path), "%s/%s", source_dir(), file);
    if (atune__read_file(path, &text, NULL, &err) != ATUNE__OK)
        fail_msg("%s", err.msg);
    return text;
}

/* The hotspot manifest with shorter value lists (1.2 million points),
 * against the one-by-one reference. */
static void test_hotspot_small(void **state)
{
    char *ini = read_source("tests/data/hotspot/hotspot.ini");
    char *cu = read_source("tests/data/hotspot/hotspot.cu");
    atune__manifest *m = NULL;
    atune__devattr dev;
    atune__err err = {0};

    (void)state;
    ini = replace_line(ini, "BLOCK_SIZE_X = ",
                       "BLOCK_SIZE_X = 1, 4, 16, 32, 96, 256, 512, 1024");
    ini = replace_line(ini, "TILE_SIZE_X = ", "TILE_SIZE_X = 1, 2, 3, 5, 8");
    ini = replace_line(ini, "TILE_SIZE_Y = ", "TILE_SIZE_Y = 1, 4, 6, 10");
    if (atune__manifest_parse("hotspot", "hotspot.ini", ini, "hotspot.cu", cu,
                              &m, &err) != ATUNE__OK)
        fail_msg("%s", err.msg);
    assert_int_equal(atune__space_size(m), 8 * 6 * 5 * 4 * 10 * 10 * 2 * 5);
    atune__devattr_default(&dev);
    print_message("hotspot, smaller: %lld combinations, %lld valid\n",
                  (long long)atune__space_size(m),
                  (long long)compare(m, &m->sizes[0], &dev));
    small_device(&dev);
    compare(m, &m->sizes[0], &dev);
    atune__manifest_free(m);
    free(ini);
    free(cu);
}

/* ---- a space of 10^8 combinations ------------------------------------- */

/* tests/data/gemm_space: CLBlast's GEMM parameters with wider lists. */
static const int mwg[] = {8, 16, 32, 48, 64, 96, 128, 256};
static const int kwg[] = {8, 16, 32, 64, 128};
static const int dim[] = {4, 8, 16, 32, 64};
static const int kwi[] = {1, 2, 4, 8, 16};

/* The manifest's checks written out in C, in index order (MWG NWG KWG
 * MDIMC NDIMC MDIMA NDIMB KWI VWM VWN SA SB): the count and checksum the
 * build must give, computed without the expression engine. */
static void gemm_expected(int64_t *count, uint64_t *sum)
{
    const atune__devattr *dev = NULL;
    atune__devattr d;
    int64_t index = 0, n = 0;
    uint64_t h = 1469598103934665603ULL;

    atune__devattr_default(&d);
    dev = &d;
    for (int a = 0; a < 8; a++)
    for (int b = 0; b < 8; b++)
    for (int c = 0; c < 5; c++)
    for (int e = 0; e < 5; e++)
    for (int f = 0; f < 5; f++)
    for (int g = 0; g < 5; g++)
    for (int i = 0; i < 5; i++)
    for (int j = 0; j < 5; j++)
    for (int k = 0; k < 5; k++)
    for (int l = 0; l < 5; l++)
    for (int sa = 0; sa < 2; sa++)
    for (int sb = 0; sb < 2; sb++, index++) {
        int M = mwg[a], N = mwg[b], K = kwg[c], MC = dim[e], NC = dim[f];
        int MA = dim[g], NB = dim[i], KI = kwi[j], VM = kwi[k], VN = kwi[l];
        int64_t shared = 4 * ((int64_t)sa * K * M + (int64_t)sb * K * N);
        if (K % KI || M % (MC * VM) || N % (NC * VN) || M % (MA * VM) ||
            N % (NB * VN) || MC * NC > dev->max_threads_per_block ||
            shared > dev->max_shared_per_block)
            continue;
        n++;
        h ^= (uint64_t)index;
        h *= 1099511628211ULL;
    }
    *count = n;
    *sum = h;
}

/* Issue 21: 10^8 combinations, about 10^7 valid, in under 10 s and
 * 500 MB (peak resident memory of this whole test process). */
static void test_gemm_space(void **state)
{
    atune__manifest *m = load_dir("tests/data/gemm_space", "gemm");
    atune__valid_set set = {0};
    atune__devattr dev;
    atune__err err = {0};
    struct rusage ru;
    int64_t count = 0, want = 0;
    uint64_t sum = 0;
    double t0, t;
    int rc;

    (void)state;
    atune__devattr_default(&dev);
    assert_int_equal(atune__space_size(m), 100000000);
    t0 = atune__now();
    rc = atune__space_build(m, &m->sizes[0], &dev, NULL, &set, &count, &err);
    t = atune__now() - t0;
    if (rc)
        fail_msg("%s", err.msg);
    assert_int_equal(getrusage(RUSAGE_SELF, &ru), 0);
    print_message("10^8 combinations: %lld valid in %.2f s, peak RSS %ld MB\n",
                  (long long)count, t, ru.ru_maxrss / 1024);
    gemm_expected(&want, &sum);
    assert_int_equal(count, want);
    assert_int_equal(set.n, want);
    assert_true(checksum(set.index, set.n) == sum);
    assert_true(want > 5000000);
    if (!SANITIZED) {
        assert_true(t < 10.0);
        assert_true(ru.ru_maxrss < 500 * 1024);
    }
    atune__valid_set_free(&set);
    atune__manifest_free(m);
}

/* ---- the limit on valid configurations -------------------------------- */

static int64_t max_valid(void)
{
    int64_t v = -1;

    assert_int_equal(atune__space_max_valid(&v, NULL), 0);
    return v;
}

static int64_t max_visits(void)
{
    int64_t v = -1;

    assert_int_equal(atune__space_max_visits(&v, NULL), 0);
    return v;
}

static void test_limit(void **state)
{
    atune__manifest *m = load_dir("tests/data/hotspot", "hotspot");
    atune__valid_set set = {0};
    atune__devattr dev;
    atune__err err = {0};
    int64_t count = 0;

    (void)state;
    atune__devattr_default(&dev);
    assert_int_equal(setenv("ATUNE_MAX_VALID", "349852", 1), 0);
    assert_int_equal(max_valid(), 349852);
    assert_int_equal(
        atune__space_build(m, &m->sizes[0], &dev, NULL, &set, &count, &err),
        ATUNE__EDATA);
    assert_non_null(strstr(err.msg, "over the limit of 349852 valid "
                                    "configurations (ATUNE_MAX_VALID=N"));
    assert_non_null(strstr(err.msg, "hotspot.ini: too large a space"));
    assert_non_null(strstr(err.msg, " at size '"));
    /* Counting has the same limit: list and check refuse what tune would. */
    count = -1;
    assert_int_equal(
        atune__space_build(m, &m->sizes[0], &dev, NULL, NULL, &count, &err),
        ATUNE__EDATA);
    assert_int_equal(count, -1);
    assert_non_null(strstr(err.msg, "over the limit of 349852 valid"));
    assert_int_equal(setenv("ATUNE_MAX_VALID", "349853", 1), 0);
    assert_int_equal(
        atune__space_build(m, &m->sizes[0], &dev, NULL, NULL, &count, &err),
        0);
    assert_int_equal(count, 349853);
    assert_int_equal(
        atune__space_build(m, &m->sizes[0], &dev, NULL, &set, &count, &err),
        0);
    assert_int_equal(unsetenv("ATUNE_MAX_VALID"), 0);
    assert_int_equal(max_valid(), ATUNE__MAX_VALID_DEFAULT);
    atune__valid_set_free(&set);
    atune__manifest_free(m);
}

/* The bound on the partial configurations one build examines: exact, in
 * both modes, and the environment cannot make it zero or garbage. */
static void test_visit_limit(void **state)
{
    atune__manifest *m = load_dir("tests/data/hotspot", "hotspot");
    atune__valid_set set = {0};
    atune__devattr dev;
    atune__err err = {0};
    int64_t count = 0, lo = 1, hi = 1000;
    char text[32];

    (void)state;
    atune__devattr_default(&dev);
    assert_int_equal(max_visits(), ATUNE__MAX_VISITS_DEFAULT);
    assert_int_equal(setenv("ATUNE_MAX_VISITS", "1000", 1), 0);
    assert_int_equal(max_visits(), 1000);
    assert_int_equal(
        atune__space_build(m, &m->sizes[0], &dev, NULL, &set, &count, &err),
        ATUNE__EDATA);
    assert_non_null(strstr(err.msg, "hotspot.ini: too large a space to "
                                    "build: examined more than the limit of "
                                    "1000 partial configurations "
                                    "(ATUNE_MAX_VISITS=N raises it"));
    assert_non_null(strstr(err.msg, " at size '"));
    assert_int_equal(
        atune__space_build(m, &m->sizes[0], &dev, NULL, NULL, &count, &err),
        ATUNE__EDATA);
    atune__manifest_free(m);
    /* The smallest limit that lets a small build finish: one less fails. */
    m = load_dir("tests/data/templates_bad/control", "control");
    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        snprintf(text, sizeof(text), "%lld", (long long)mid);
        assert_int_equal(setenv("ATUNE_MAX_VISITS", text, 1), 0);
        if (atune__space_build(m, &m->sizes[0], &dev, NULL, NULL, &count,
                               &err) == 0)
            hi = mid;
        else
            lo = mid + 1;
    }
    assert_true(lo > 1 && lo < 1000);
    snprintf(text, sizeof(text), "%lld", (long long)lo);
    assert_int_equal(setenv("ATUNE_MAX_VISITS", text, 1), 0);
    assert_int_equal(
        atune__space_build(m, &m->sizes[0], &dev, NULL, &set, &count, &err),
        0);
    assert_int_equal(count, 4);
    assert_int_equal(set.n, 4);
    for (size_t i = 0; i < 4; i++) {
        static const char *const bad[] = {"0", "-5", "12x", " 7"};
        int64_t v = -1;
        assert_int_equal(setenv("ATUNE_MAX_VISITS", bad[i], 1), 0);
        assert_int_equal(atune__space_max_visits(&v, &err), ATUNE__EUSAGE);
        assert_non_null(strstr(err.msg, "ATUNE_MAX_VISITS: invalid value '"));
        assert_non_null(strstr(err.msg, bad[i]));
        assert_int_equal(
            atune__space_build(m, &m->sizes[0], &dev, NULL, NULL, &count, &err),
            ATUNE__EUSAGE);
    }
    assert_int_equal(unsetenv("ATUNE_MAX_VISITS"), 0);
    atune__valid_set_free(&set);
    atune__manifest_free(m);
}

static void test_set_union(void **state)
{
    int64_t a_idx[] = {1, 4, 9}, b_idx[] = {0, 4, 5, 12}, want[] = {0, 1, 4,
                                                                   5, 9, 12};
    atune__valid_set a = {0}, b = {.n = 4, .index = b_idx};

    (void)state;
    a.index = malloc(sizeof(a_idx));
    assert_non_null(a.index);
    memcpy(a.index, a_idx, sizeof(a_idx));
    a.n = 3;
    assert_int_equal(atune__valid_set_union(&a, &b, NULL), 0);
    assert_int_equal(a.n, 6);
    assert_memory_equal(a.index, want, sizeof(want));
    assert_int_equal(atune__valid_set_find(&a, 9), 4);
    assert_int_equal(atune__valid_set_find(&a, 3), -1);
    atune__valid_set_free(&a);
}

/* ---- the search on a valid set ---------------------------------------- */

struct trace {
    int64_t n;
    int64_t idx[400];
};

/* A deterministic landscape; every 17th configuration fails. */
static int fake_eval(void *ctx, int64_t idx, double *time_ns,
                     double *spread_ns, atune__err *err)
{
    struct trace *t = ctx;
    uint64_t h = (uint64_t)idx * 0x9e3779b97f4a7c15ULL;

    (void)err;
    (void)spread_ns;
    if (t->n < 400)
        t->idx[t->n++] = idx;
    *time_ns = idx % 17 == 0 ? INFINITY : (double)(h >> 40) + 1.0;
    return 0;
}

/* Every strategy proposes the same configurations, in the same order,
 * whether it is given the valid set or a mark per combination. */
static void test_search_on_set(void **state)
{
    atune__templates t = {0};
    atune__valid_set set = {0};
    atune__devattr dev;
    atune__err err = {0};
    const atune__manifest *m;
    unsigned char *mark;

    (void)state;
    atune__devattr_default(&dev);
    if (atune__templates_load(NULL, "matmul", &t, &err) != ATUNE__OK)
        fail_msg("%s", err.msg);
    m = t.m[0];
    assert_int_equal(atune__space_build(m, &m->sizes[0], &dev, NULL, &set,
                                        NULL, &err),
                     0);
    mark = calloc((size_t)atune__space_size(m), 1);
    assert_non_null(mark);
    for (int64_t i = 0; i < set.n; i++)
        mark[set.index[i]] = 1;
    for (const char *const *name = atune__strategy_names(); *name; name++) {
        atune__search_spec a = {.m = m, .valid = mark, .strategy = *name,
                                .budget = 300, .seed = 11};
        atune__search_spec b = a;
        atune__search_result ra, rb;
        static struct trace ta, tb;
        b.valid = NULL;
        b.index = set.index;
        b.nvalid = set.n;
        ta.n = tb.n = 0;
        assert_int_equal(atune__search(&a, fake_eval, NULL, &ta, &ra, &err), 0);
        assert_int_equal(atune__search(&b, fake_eval, NULL, &tb, &rb, &err), 0);
        assert_int_equal(ta.n, tb.n);
        assert_true(ta.n > 100);
        assert_memory_equal(ta.idx, tb.idx, (size_t)ta.n * sizeof(int64_t));
        assert_int_equal(ra.best, rb.best);
        assert_int_equal(ra.evaluations, rb.evaluations);
        assert_string_equal(ra.stop, rb.stop);
    }
    free(mark);
    atune__valid_set_free(&set);
    atune__templates_free(&t);
}

static int64_t size_value(const atune__size *z, const char *var)
{
    for (int v = 0; v < z->nvars; v++)
        if (strcmp(z->var[v], var) == 0)
            return z->value[v];
    fail_msg("size %s has no %s", z->name, var);
    return 0;
}

static int param_index(const atune__manifest *m, const char *name)
{
    for (int i = 0; i < m->nparams; i++)
        if (strcmp(m->params[i].name, name) == 0)
            return i;
    fail_msg("matmul has no parameter %s", name);
    return -1;
}

/* matmul's spaces by shape (issue 36): split-K only where the blocks
 * leave SMs idle (never at 4096^3, whose 197 configurations stay), launch
 * only (one module for every SPLITK),
 * but at 1024^3; stream-K only where more tiles than SMs leave the last
 * wave under 85% full (1037^3, never 4096^3), launch only too, its two
 * partial tiles per block within ws; float4 kernels at every size,
 * VEC=2 exactly where rows are not 16-byte aligned, scalar warp-tiled
 * kernels nowhere; tiles of aspect 4 only where m or n is at most 256. */
static void test_matmul_shapes(void **state)
{
    atune__templates t = {0};
    atune__devattr dev;
    atune__err err = {0};
    const atune__manifest *m;
    int wt, bm, bn, vec, splitk, skb;

    (void)state;
    atune__devattr_default(&dev);
    if (atune__templates_load(NULL, "matmul", &t, &err) != ATUNE__OK)
        fail_msg("%s", err.msg);
    m = t.m[0];
    wt = param_index(m, "WT");
    bm = param_index(m, "BM");
    bn = param_index(m, "BN");
    vec = param_index(m, "VEC");
    splitk = param_index(m, "SPLITK");
    skb = param_index(m, "SKB");
    assert_false(m->params[splitk].macro);
    assert_false(m->params[skb].macro);
    /* the switch that compiles their code in follows from them */
    assert_int_equal(m->nmacros, 1);
    assert_string_equal(m->macros[0].name, "SPLIT");
    for (int s = 0; s < m->nsizes; s++) {
        const atune__size *z = &m->sizes[s];
        const int64_t mm = size_value(z, "m"), nn = size_value(z, "n"),
                      kk = size_value(z, "k");
        const int aligned = kk % 4 == 0 && nn % 4 == 0;
        atune__valid_set set = {0};
        int64_t split = 0, stream = 0, vec_kernels = 0, seeds = 0;

        assert_int_equal(atune__space_build(m, z, &dev, NULL, &set, NULL, &err),
                         0);
        for (int64_t i = 0; i < set.n; i++) {
            atune__config c;
            atune__space_config(m, set.index[i], &c);
            if (c.v[wt] == 0) {
                seeds++;
                assert_int_equal(c.v[splitk], 1);
                assert_int_equal(c.v[skb], 0);
                continue;
            }
            assert_int_equal(c.v[vec], aligned ? 1 : 2);
            vec_kernels++;
            int64_t split_code = -1;
            assert_int_equal(atune__macro_values(m, c.v, &split_code, &err), 0);
            assert_int_equal(split_code,
                             c.v[splitk] > 1 ? 1 : c.v[skb] > 0 ? 2 : 0);
            assert_false(c.v[splitk] > 1 && c.v[skb] > 0);
            if (c.v[skb] > 0) {
                const int64_t tiles = ((mm + c.v[bm] - 1) / c.v[bm]) *
                                      ((nn + c.v[bn] - 1) / c.v[bn]);
                const int64_t waves = (tiles + dev.sm_count - 1) / dev.sm_count;
                const int64_t ws = 32 * (mm + 255) * (nn + 255);
                assert_true(tiles > dev.sm_count);
                assert_true(tiles * 100 < waves * dev.sm_count * 85);
                assert_true(2 * c.v[skb] * dev.sm_count * c.v[bm] * c.v[bn] <=
                            (ws < (1 << 24) ? ws : (1 << 24)));
                stream++;
            }
            if (c.v[splitk] > 1) {
                const int64_t tiles = ((mm + c.v[bm] - 1) / c.v[bm]) *
                                      ((nn + c.v[bn] - 1) / c.v[bn]);
                assert_true(tiles * c.v[splitk] < 2 * dev.sm_count);
                assert_true(kk >= 256 * c.v[splitk]);
                split++;
            }
            if (c.v[bm] > 2 * c.v[bn] || c.v[bn] > 2 * c.v[bm])
                assert_true(mm <= 256 || nn <= 256);
        }
        assert_int_equal(seeds, 1);
        assert_true(vec_kernels > 0);
        if (strcmp(z->name, "large") == 0) {
            assert_int_equal(split, 0);
            assert_int_equal(stream, 0);
            assert_int_equal(set.n, 197);
        }
        /* 1037^3: 153 tiles of 128 x 64 on 132 SMs, where stream-K won on
         * the H100 (95 us, the best without it 110 us) */
        if (strcmp(z->name, "odd") == 0 && stream == 0)
            fail_msg("matmul %s: no stream-K configuration", z->name);
        /* 1024^3: 64 tiles of 128 x 128, where split-K won on the H100 */
        if (strcmp(z->name, "mid") == 0 && split == 0)
            fail_msg("matmul %s: no split-K configuration", z->name);
        atune__valid_set_free(&set);
    }
    atune__templates_free(&t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_builtin_templates),
        cmocka_unit_test(test_random_manifests),
        cmocka_unit_test(test_ranges),
        cmocka_unit_test(test_hotspot),
        cmocka_unit_test(test_hotspot_small),
        cmocka_unit_test(test_gemm_space),
        cmocka_unit_test(test_limit),
        cmocka_unit_test(test_visit_limit),
        cmocka_unit_test(test_set_union),
        cmocka_unit_test(test_search_on_set),
        cmocka_unit_test(test_matmul_shapes),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
