/* test_compile_procs.c -- the compile pool with NVRTC in child processes:
 * every CUBIN equals the one compiled in this process, a compile error
 * comes back as the configuration's error, out-of-order requests are
 * served, the children's cache counters reach the parent, a pool following
 * a search compiles only what it hints at, idle workers compile a later
 * template's configurations into the module cache, a retired pool's
 * workers and the next pool's share the children, and the children end
 * with the pool. NVRTC runs (no GPU). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "testutil.h"

#include "engine/compile.h"
#include "engine/compile_procs.h"
#include "template/space.h"
#include "template/templates.h"

#define N 24

static atune__templates t;

static void load(const char *dir, const char *only)
{
    atune__err err;

    atune__templates_free(&t);
    memset(&t, 0, sizeof(t));
    if (atune__templates_load(dir, only, &t, &err))
        fail_msg("%s", err.msg);
}

/* Every configuration from a child is byte for byte the in-process one,
 * asked for in reverse order. */
static void test_same_cubins(void **state)
{
    const atune__manifest *m;
    const char *names[1];
    int64_t index[N];
    atune__procs *ps = NULL;
    atune__pool *pool = NULL;
    atune__err err;

    (void)state;
    load(NULL, "copy");
    m = t.m[0];
    names[0] = m->kernel;
    for (int i = 0; i < N; i++)
        index[i] = i * 7 % atune__space_size(m);
    for (int i = 1; i < N; i++) /* sorted, as the tuner submits */
        for (int k = i; k > 0 && index[k] < index[k - 1]; k--) {
            int64_t x = index[k];
            index[k] = index[k - 1];
            index[k - 1] = x;
        }
    assert_int_equal(atune__procs_start(&t, NULL, 3, &ps, &err), 0);
    assert_int_equal(atune__procs_count(ps), 3);
    assert_int_equal(atune__pool_start(m, NULL, "sm_90", names, 1, index, N, 0,
                                       NULL, ps, &pool, &err),
                     0);
    for (int i = N - 1; i >= 0; i--) {
        const atune__cubin *got;
        const char *cerr;
        atune__cubin want = {0};
        atune__config c;

        assert_int_equal(atune__pool_get(pool, index[i], &got, &cerr, &err),
                         0);
        assert_null(cerr);
        assert_non_null(got);
        atune__space_config(m, index[i], &c);
        if (atune__jit_compile(m, &c, "sm_90", names, 1, &want, &err))
            fail_msg("%s", err.msg);
        assert_int_equal(got->len, want.len);
        assert_memory_equal(got->data, want.data, want.len);
        atune__cubin_free(&want);
    }
    {
        /* Not submitted (a resumed run re-times such a winner): compiled
         * on the spot. */
        const atune__cubin *got;
        const char *cerr;
        assert_int_equal(atune__pool_get(pool, 1, &got, &cerr, &err), 0);
        assert_non_null(got);
        assert_true(got->len > 0);
    }
    atune__pool_free(pool);
    atune__procs_stop(ps);
}

/* badcopy's configurations compile; a template whose source does not
 * compile reports NVRTC's message through the child. */
static void test_compile_error(void **state)
{
    const char *dir = getenv("ATUNE_SOURCE_DIR");
    char path[4096];
    atune__procs *ps = NULL;
    atune__cubin out = {0};
    atune__err err;
    const char *names[1];
    FILE *f;
    char tmp[] = "/tmp/atune-procs-XXXXXX";

    (void)state;
    assert_non_null(dir);
    assert_non_null(mkdtemp(tmp));
    /* copy's manifest with a source that is not C. */
    snprintf(path, sizeof(path), "%s/templates/copy.ini", dir);
    {
        char *text = NULL;
        assert_int_equal(atune__read_file(path, &text, NULL, &err), 0);
        snprintf(path, sizeof(path), "%s/copy.ini", tmp);
        f = fopen(path, "w");
        assert_non_null(f);
        fputs(text, f);
        fclose(f);
        free(text);
    }
    snprintf(path, sizeof(path), "%s/copy.cu", tmp);
    f = fopen(path, "w");
    assert_non_null(f);
    fputs("extern \"C\" __global__ void copy_tuned() { this is not C; }\n"
          "extern \"C\" __global__ void copy_ref() {}\n",
          f);
    fclose(f);
    load(tmp, NULL);
    names[0] = t.m[0]->kernel;
    assert_int_equal(atune__procs_start(&t, NULL, 1, &ps, &err), 0);
    assert_int_equal(atune__procs_compile(ps, 0, t.m[0], NULL, "sm_90", names,
                                          1, &out, NULL, &err),
                     ATUNE__EDATA);
    assert_non_null(strstr(err.msg, "error"));
    assert_non_null(strstr(err.msg, "copy.cu"));
    assert_null(out.data);
    atune__procs_stop(ps);
    unlink(path);
    snprintf(path, sizeof(path), "%s/copy.ini", tmp);
    unlink(path);
    rmdir(tmp);
}

/* The children's cache hits and misses are counted in the parent's
 * cache. */
static void test_cache_counts(void **state)
{
    char tmp[] = "/tmp/atune-procs-cache-XXXXXX";
    atune__cache *cache = NULL;
    atune__cache_stats s;
    atune__procs *ps = NULL;
    atune__cubin out = {0};
    atune__err err;
    const char *names[1];
    int hit = -1;

    (void)state;
    load(NULL, "copy");
    names[0] = t.m[0]->kernel;
    assert_non_null(mkdtemp(tmp));
    assert_int_equal(atune__cache_open(tmp, &cache, &err), 0);
    assert_int_equal(atune__procs_start(&t, cache, 2, &ps, &err), 0);
    for (int round = 0; round < 2; round++) {
        assert_int_equal(atune__procs_compile(ps, round, t.m[0], NULL,
                                              "sm_90", names, 1, &out, &hit,
                                              &err),
                         0);
        assert_int_equal(hit, round); /* miss, then a hit in the other */
        assert_true(out.len > 0);
        atune__cubin_free(&out);
    }
    atune__cache_stats_get(cache, &s);
    assert_int_equal(s.misses, 1);
    assert_int_equal(s.hits, 1);
    atune__procs_stop(ps);
    atune__cache_close(cache);
    rm_rf(tmp);
}

/* A compilation past the time limit is killed with its child and reported
 * as the configuration's compile error; the replaced child serves the next
 * request (which times out again: tests/data/compile_slow is a bomb). */
static void test_time_limit(void **state)
{
    const char *src = getenv("ATUNE_SOURCE_DIR");
    char dir[4096];
    atune__procs *ps = NULL;
    atune__cubin out = {0};
    atune__err err;
    const char *names[1];

    (void)state;
    assert_non_null(src);
    snprintf(dir, sizeof(dir), "%s/tests/data/compile_slow", src);
    load(dir, NULL);
    names[0] = t.m[0]->kernel;
    assert_int_equal(atune__procs_start(&t, NULL, 1, &ps, &err), 0);
    atune__procs_set_time_limit(ps, 1);
    for (int round = 0; round < 2; round++) {
        double t0 = atune__now();
        assert_int_equal(atune__procs_compile(ps, 0, t.m[0], NULL, "sm_90",
                                              names, 1, &out, NULL, &err),
                         ATUNE__EDATA);
        assert_non_null(strstr(err.msg, "compile time limit exceeded"));
        assert_non_null(strstr(err.msg, "bomb.cu: BLOCK_SIZE=128,VW=1:"));
        assert_null(out.data);
        /* The limit, plus the replaced child's warm-up in round 1. */
        assert_true(atune__now() - t0 < 15);
    }
    atune__procs_stop(ps);
    assert_int_equal(waitpid(-1, NULL, WNOHANG), -1);
}

/* A compile time limit that is not whole seconds is refused. */
static void test_time_limit_env(void **state)
{
    atune__procs *ps = NULL;
    atune__err err;

    (void)state;
    load(NULL, "copy");
    setenv("ATUNE_COMPILE_TIMEOUT", "1.5", 1);
    assert_int_equal(atune__procs_start(&t, NULL, 1, &ps, &err),
                     ATUNE__EUSAGE);
    assert_null(ps);
    assert_non_null(strstr(err.msg, "ATUNE_COMPILE_TIMEOUT"));
    unsetenv("ATUNE_COMPILE_TIMEOUT");
}

/* Stopping reaps every child: none is left to wait for. */
static void nap(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};

    nanosleep(&ts, NULL);
}

/* copy's first n configurations (index[i] = i) in a pool on two compile
 * children, for the tests of a pool following a search. */
static void copy_pool(int64_t *index, int n, atune__procs **ps,
                      atune__pool **pool)
{
    const char *names[1];
    atune__err err;

    load(NULL, "copy");
    names[0] = t.m[0]->kernel;
    for (int i = 0; i < n; i++)
        index[i] = i;
    assert_int_equal(atune__procs_start(&t, NULL, 2, ps, &err), 0);
    assert_int_equal(atune__pool_start(t.m[0], NULL, "sm_90", names, 1, index,
                                       n, 0, NULL, *ps, pool, &err),
                     0);
}

/* A pool following a search (atune__pool_follow) compiles what is asked
 * for and the first `window` hinted configurations, not the rest of the
 * index order, and nothing more once the hints are dropped. */
static void test_follow(void **state)
{
    int64_t index[N], hint[4], compiled = 0, cached = 0;
    atune__procs *ps = NULL;
    atune__pool *pool = NULL;
    const atune__cubin *got;
    const char *cerr;
    atune__err err;

    (void)state;
    copy_pool(index, N, &ps, &pool);
    /* Before this, each of the 2 workers may have taken one job in index
     * order. */
    atune__pool_follow(pool, 2, -1);
    for (int i = 0; i < 4; i++)
        hint[i] = index[10 + i];
    atune__pool_prefetch(pool, hint, 4);
    assert_int_equal(atune__pool_get(pool, index[10], &got, &cerr, &err), 0);
    assert_non_null(got);
    /* The window's second (index 11) is compiled in the background. */
    for (int i = 0; i < 600 && compiled < 2; i++) {
        nap(50);
        atune__pool_counts(pool, &compiled, &cached);
    }
    assert_true(compiled >= 2);
    nap(500);
    atune__pool_counts(pool, &compiled, &cached);
    assert_true(compiled <= 4); /* 10, 11 and at most 2 taken in order */
    /* Hints dropped (the search stopped): nothing more is compiled. */
    atune__pool_prefetch(pool, NULL, 0);
    {
        int64_t before = compiled;
        nap(500);
        atune__pool_counts(pool, &compiled, &cached);
        assert_int_equal(compiled, before);
    }
    /* What is asked for is still compiled at once. */
    assert_int_equal(atune__pool_get(pool, index[20], &got, &cerr, &err), 0);
    assert_non_null(got);
    atune__pool_counts(pool, &compiled, &cached);
    assert_true(compiled <= 5);
    atune__pool_free(pool);
    atune__procs_stop(ps);
}

/* Following with a budget (the default run's pool): past the hints, idle
 * workers go on in index order until `floor` compiles have started, then
 * at most twice the configurations asked for, and stop with the search. */
static void test_follow_budget(void **state)
{
    int64_t index[N], hint[1], compiled = 0, cached = 0;
    atune__procs *ps = NULL;
    atune__pool *pool = NULL;
    const atune__cubin *got;
    const char *cerr;
    atune__err err;

    (void)state;
    copy_pool(index, N, &ps, &pool);
    atune__pool_follow(pool, 0, 6);
    hint[0] = index[2];
    atune__pool_prefetch(pool, hint, 1);
    assert_int_equal(atune__pool_get(pool, index[2], &got, &cerr, &err), 0);
    /* The floor is reached, and then the budget holds (one request: 2). */
    for (int i = 0; i < 600 && compiled < 6; i++) {
        nap(50);
        atune__pool_counts(pool, &compiled, &cached);
    }
    assert_true(compiled >= 6);
    nap(500);
    atune__pool_counts(pool, &compiled, &cached);
    assert_true(compiled <= 6 + 2); /* 2 workers may have been mid-job */
    /* Five more requests: the budget grows to 12. */
    for (int i = 0; i < 5; i++)
        assert_int_equal(atune__pool_get(pool, index[3 + i], &got, &cerr, &err),
                         0);
    for (int i = 0; i < 600 && compiled < 12; i++) {
        nap(50);
        atune__pool_counts(pool, &compiled, &cached);
    }
    assert_true(compiled >= 12);
    /* The search stopped: no more in index order. */
    atune__pool_prefetch(pool, NULL, 0);
    nap(300);
    atune__pool_counts(pool, &compiled, &cached);
    {
        int64_t before = compiled;
        nap(500);
        atune__pool_counts(pool, &compiled, &cached);
        assert_int_equal(compiled, before);
        assert_true(compiled <= 12 + 2);
    }
    atune__pool_free(pool);
    atune__procs_stop(ps);
}

/* A follower of a long list (more than ATUNE__POOL_FOLLOW_WHOLE /
 * ATUNE__POOL_FOLLOW_FLOOR times its floor) spends its floor only
 * ATUNE__POOL_FOLLOW_AHEAD compiles ahead of the configurations asked
 * for, on the hints, never in index order; a configuration asked for
 * again does not grow the budget. */
static void test_follow_paced(void **state)
{
    enum { ALL = 630, FLOOR = 64, HINTS = 20 };
    int64_t index[ALL], hint[HINTS], compiled = 0, cached = 0;
    atune__procs *ps = NULL;
    atune__pool *pool = NULL;
    const atune__cubin *got;
    const char *cerr;
    atune__err err;
    const int64_t ahead = 1 + ATUNE__POOL_FOLLOW_AHEAD;

    (void)state;
    assert_true(ALL > ATUNE__POOL_FOLLOW_WHOLE / ATUNE__POOL_FOLLOW_FLOOR * FLOOR);
    /* Two workers may take a job in index order before the follow. */
    copy_pool(index, ALL, &ps, &pool);
    assert_int_equal(atune__space_size(t.m[0]), ALL);
    atune__pool_follow(pool, 0, FLOOR);
    for (int i = 0; i < HINTS; i++)
        hint[i] = index[100 + i];
    atune__pool_prefetch(pool, hint, HINTS);
    assert_int_equal(atune__pool_get(pool, index[100], &got, &cerr, &err), 0);
    assert_non_null(got);
    for (int i = 0; i < 600 && compiled < ahead; i++) {
        nap(50);
        atune__pool_counts(pool, &compiled, &cached);
    }
    assert_true(compiled >= ahead);
    nap(500);
    atune__pool_counts(pool, &compiled, &cached);
    assert_true(compiled <= ahead + 2);
    /* The same configuration again: the budget stays. */
    {
        int64_t before = compiled;
        assert_int_equal(atune__pool_get(pool, index[100], &got, &cerr, &err),
                         0);
        nap(500);
        atune__pool_counts(pool, &compiled, &cached);
        assert_int_equal(compiled, before);
    }
    atune__pool_free(pool);
    atune__procs_stop(ps);
}

/* Workers left idle by a follower compile the next template's
 * configurations into the module cache: that template's pool then gets
 * every module from the cache. Without a cache nothing is warmed. */
static void test_warm(void **state)
{
    char tmp[] = "/tmp/atune-procs-warm-XXXXXX";
    const atune__cubin *got;
    const char *cerr, *names[1];
    atune__cache *cache = NULL;
    atune__procs *ps = NULL;
    atune__pool *pool = NULL, *next = NULL;
    int64_t index[N], hint[1], warmed = 0, compiled = -1, cached = -1;
    atune__err err;

    (void)state;
    load(NULL, "copy,saxpy");
    assert_int_equal(t.n, 2);
    for (int i = 0; i < N; i++)
        index[i] = i;
    assert_non_null(mkdtemp(tmp));
    assert_int_equal(atune__cache_open(tmp, &cache, &err), 0);
    assert_int_equal(atune__procs_start(&t, cache, 2, &ps, &err), 0);
    names[0] = t.m[0]->kernel;
    assert_int_equal(atune__pool_start(t.m[0], NULL, "sm_90", names, 1, index, N,
                                       0, cache, ps, &pool, &err),
                     0);
    atune__pool_follow(pool, 0, 2);
    hint[0] = index[0];
    atune__pool_prefetch(pool, hint, 1);
    assert_int_equal(atune__pool_warm(pool, t.m[1], NULL, index, 6, &err), 0);
    assert_int_equal(atune__pool_get(pool, index[0], &got, &cerr, &err), 0);
    /* Until some are warmed and the count stays for a while. */
    for (int i = 0, still = 0; i < 1200 && still < 20; i++) {
        int64_t w;
        nap(50);
        w = atune__pool_warmed(pool);
        still = w > 0 && w == warmed ? still + 1 : 0;
        warmed = w;
    }
    assert_true(warmed > 0 && warmed <= 6);
    atune__pool_free(pool);
    names[0] = t.m[1]->kernel;
    assert_int_equal(atune__pool_start(t.m[1], NULL, "sm_90", names, 1, index, 6,
                                       0, cache, ps, &next, &err),
                     0);
    for (int i = 0; i < 6; i++) {
        assert_int_equal(atune__pool_get(next, index[i], &got, &cerr, &err),
                         0);
        assert_non_null(got);
    }
    /* A warm compile still running at pool_free finished after `warmed`
     * was read. */
    atune__pool_counts(next, &compiled, &cached);
    assert_true(cached >= warmed);
    atune__pool_free(next);
    /* No module cache: nothing to warm into. */
    assert_int_equal(atune__pool_start(t.m[0], NULL, "sm_90", names, 1, index, 1,
                                       0, NULL, ps, &pool, &err),
                     0);
    assert_int_equal(atune__pool_warm(pool, t.m[1], NULL, index + 6, 6, &err), 0);
    nap(500);
    assert_int_equal(atune__pool_warmed(pool), 0);
    atune__pool_free(pool);
    atune__procs_stop(ps);
    atune__cache_close(cache);
    rm_rf(tmp);
}

/* A retired pool's workers finish their compiles while the next pool's
 * workers use the same children: they take turns, and every module of
 * the next pool is byte for byte the in-process one. */
static void test_retire(void **state)
{
    const atune__cubin *got;
    const char *cerr, *names[1];
    atune__procs *ps = NULL;
    atune__pool *old = NULL, *next = NULL;
    int64_t index[N];
    atune__err err;

    (void)state;
    load(NULL, "copy,saxpy");
    for (int i = 0; i < N; i++)
        index[i] = i;
    assert_int_equal(atune__procs_start(&t, NULL, 2, &ps, &err), 0);
    names[0] = t.m[0]->kernel;
    /* in index order: both workers busy at once */
    assert_int_equal(atune__pool_start(t.m[0], NULL, "sm_90", names, 1, index,
                                       N, 0, NULL, ps, &old, &err),
                     0);
    assert_int_equal(atune__pool_get(old, index[0], &got, &cerr, &err), 0);
    atune__pool_retire(old);
    names[0] = t.m[1]->kernel;
    assert_int_equal(atune__pool_start(t.m[1], NULL, "sm_90", names, 1, index,
                                       8, 0, NULL, ps, &next, &err),
                     0);
    for (int i = 7; i >= 0; i--) {
        atune__cubin want = {0};
        atune__config c;
        assert_int_equal(atune__pool_get(next, index[i], &got, &cerr, &err),
                         0);
        assert_null(cerr);
        assert_non_null(got);
        atune__space_config(t.m[1], index[i], &c);
        if (atune__jit_compile(t.m[1], &c, "sm_90", names, 1, &want, &err))
            fail_msg("%s", err.msg);
        assert_int_equal(got->len, want.len);
        assert_memory_equal(got->data, want.data, want.len);
        atune__cubin_free(&want);
    }
    atune__pool_free(old);
    atune__pool_free(next);
    atune__procs_stop(ps);
}

static void test_children_reaped(void **state)
{
    atune__procs *ps = NULL;
    atune__err err;

    (void)state;
    load(NULL, "copy");
    assert_int_equal(atune__procs_start(&t, NULL, 4, &ps, &err), 0);
    atune__procs_stop(ps);
    assert_int_equal(waitpid(-1, NULL, WNOHANG), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_same_cubins),
        cmocka_unit_test(test_compile_error),
        cmocka_unit_test(test_cache_counts),
        cmocka_unit_test(test_follow),
        cmocka_unit_test(test_follow_budget),
        cmocka_unit_test(test_follow_paced),
        cmocka_unit_test(test_warm),
        cmocka_unit_test(test_retire),
        cmocka_unit_test(test_children_reaped),
        cmocka_unit_test(test_time_limit),
        cmocka_unit_test(test_time_limit_env),
    };
    int rc = cmocka_run_group_tests_name("compile_procs", tests, NULL, NULL);

    atune__templates_free(&t);
    return rc;
}
