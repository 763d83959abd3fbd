/* gpu_copy.c -- on a GPU: every configuration of the copy template is
 * verified at an odd size and at 2^20, and a planted wrong configuration is
 * caught as wrong_output and never chosen. Exits 77 (skip) without a GPU. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "testutil.h"

#include <atune/atune.h>

#include "measure/runner.h"
#include "template/templates.h"
#include "engine/tune.h"

static atune__device *dev;
static char tdir[4096];

static void fast_timing(atune__timing *t)
{
    atune__timing_default(t);
    t->warmup = 0;
    t->min_samples = 1;
    t->max_samples = 1;
}

static void size_n(atune__size *s, const char *name, int64_t n)
{
    memset(s, 0, sizeof(*s));
    snprintf(s->name, sizeof(s->name), "%s", name);
    s->nvars = 1;
    snprintf(s->var[0], sizeof(s->var[0]), "n");
    s->value[0] = n;
}

/* Every configuration of copy at size n: compiles, runs, matches. */
static void verify_all_at(int64_t n)
{
    atune__templates t = {0};
    atune__problem *p = NULL;
    atune__size size;
    atune__timing timing;
    atune__err err;
    const char *names[] = {"copy_tuned"};
    int64_t total, ok = 0;

    assert_int_equal(atune__templates_load(tdir, "copy", &t, &err), 0);
    size_n(&size, "test", n);
    fast_timing(&timing);
    if (atune__problem_open(dev, t.m[0], &size, 42, &p, &err))
        fail_msg("%s", err.msg);
    total = atune__space_size(t.m[0]);
    assert_int_equal(total, 630);
    for (int64_t i = 0; i < total; i++) {
        atune__config c;
        atune__cubin cubin;
        atune__kernel *k = NULL;
        atune__result res;
        char cfg[256];

        atune__space_config(t.m[0], i, &c);
        atune__config_str(t.m[0], &c, cfg, sizeof(cfg));
        if (atune__jit_compile(t.m[0], &c, atune__device_info(dev)->arch,
                               names, 1, &cubin, &err))
            fail_msg("%s", err.msg);
        memset(&res, 0, sizeof(res));
        if (atune__kernel_load(dev, t.m[0], &cubin, &k, &res, &err) || !k)
            fail_msg("%s: load: %s", cfg, res.detail);
        if (atune__problem_eval(p, k, &c, &timing, &res, &err))
            fail_msg("%s: %s", cfg, err.msg);
        if (res.status != ATUNE__ST_OK)
            fail_msg("n=%lld %s: %s: %s", (long long)n, cfg,
                     atune__status_name(res.status), res.detail);
        ok++;
        atune__kernel_unload(k);
        atune__cubin_free(&cubin);
    }
    assert_int_equal(ok, 630);
    atune__problem_close(p);
    atune__templates_free(&t);
}

static void copy_all_configs_odd_size(void **state)
{
    (void)state;
    verify_all_at(1000003);
}

static void copy_all_configs_2_20(void **state)
{
    (void)state;
    verify_all_at(1 << 20);
}

/* The planted defect of tests/data/templates/badcopy: the two
 * configurations that skip the tail with VW > 1 are wrong_output; the
 * profile's choice is one of the four correct ones. */
static void planted_wrong_config_is_caught(void **state)
{
    atune__templates t = {0};
    atune__tune_opts o;
    atune__tune_run run;
    atune__err err;
    char dir[] = "/tmp/atune-gpu-XXXXXX", path[4200];
    const char *src = getenv("ATUNE_SOURCE_DIR");
    atune_profile *prof = NULL;
    const atune_config *c;
    int skip, vw;

    (void)state;
    snprintf(path, sizeof(path), "%s/tests/data/templates", src);
    assert_int_equal(atune__templates_load(path, NULL, &t, &err), 0);
    assert_non_null(mkdtemp(dir));
    atune__tune_opts_default(&o);
    o.profile_dir = dir;
    o.quiet = 1;
    fast_timing(&o.timing);
    if (atune__tune(dev, &t, &o, &run, &err))
        fail_msg("%s", err.msg);
    assert_int_equal(run.n, 1);
    assert_int_equal(run.o[0].count[ATUNE__ST_WRONG_OUTPUT], 2);
    assert_int_equal(run.o[0].count[ATUNE__ST_OK], 4);
    assert_true(run.o[0].have_best);
    skip = (int)run.o[0].best.v[0];
    vw = (int)run.o[0].best.v[1];
    assert_false(skip == 1 && vw > 1);

    /* The profile holds the same verified choice. */
    assert_int_equal(atune_profile_open(run.profile, &prof), ATUNE_OK);
    assert_int_equal(atune_profile_lookup(prof, "badcopy", "n=1000003", &c),
                     ATUNE_OK);
    assert_int_equal(atune_config_get(c, "SKIP_TAIL", -1), skip);
    assert_int_equal(atune_config_get(c, "VW", -1), vw);
    atune_profile_close(prof);
    atune__tune_run_free(&run);
    atune__templates_free(&t);
    rm_rf(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(copy_all_configs_odd_size),
        cmocka_unit_test(copy_all_configs_2_20),
        cmocka_unit_test(planted_wrong_config_is_caught),
    };
    const char *src = getenv("ATUNE_SOURCE_DIR");
    atune__err err;
    int rc;

    if (!src) {
        fprintf(stderr, "ATUNE_SOURCE_DIR is not set (run through ctest)\n");
        return 1;
    }
    snprintf(tdir, sizeof(tdir), "%s/templates", src);
    rc = atune__device_open(0, NULL, &dev, &err);
    if (rc == ATUNE__EUNAVAIL) {
        printf("skipped: %s\n", err.msg);
        return 77;
    }
    if (rc) {
        fprintf(stderr, "%s\n", err.msg);
        return 1;
    }
    rc = cmocka_run_group_tests_name("gpu_copy", tests, NULL, NULL);
    atune__device_close(dev);
    return rc;
}
