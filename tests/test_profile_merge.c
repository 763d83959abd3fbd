/* test_profile_merge.c -- the merge of profiles (engine/profile_merge.c)
 * with a planted retime hook: what the hook is asked to time (one record
 * per configuration, the fastest recorded), that its times decide, that a
 * hook that cannot time or whose configurations all fail leaves the choice
 * to the recorded times, that a hook's error leaves OUT as it was, and that
 * three disagreeing inputs give the fastest. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "atune/atune.h"
#include "base/util.h"
#include "engine/profile_merge.h"
#include "testutil.h"

static char dir[4096];

/* A profile of copy at n=1024 with BLOCK_SIZE b and time t. */
static void write_profile(const char *name, const char *device, int b,
                          int t, const char *run)
{
    char path[4200];
    FILE *f;

    snprintf(path, sizeof(path), "%s/%s", dir, name);
    f = fopen(path, "w");
    assert_non_null(f);
    fprintf(f,
            "[device]\nformat = 2\nname = %s\ncc = 90\nsm_count = 132\n"
            "date = 2026-11-2%d\n\n[copy n=1024]\nBLOCK_SIZE = %d\n"
            "time_ns = %d\ntemplate_hash = 00000000000000aa\nrun = %s\n\n"
            "; end of profile\n",
            device, b % 10, b, t, run);
    fclose(f);
}

static atune_profile *open_in(const char *name)
{
    char path[4200];
    atune_profile *p = NULL;

    snprintf(path, sizeof(path), "%s/%s", dir, name);
    assert_int_equal(atune_profile_open(path, &p), ATUNE_OK);
    return p;
}

/* The planted hook: BLOCK_SIZE b takes fake[b % 8] ns; it records what
 * it was asked (BLOCK_SIZE of each configuration). */
typedef struct hook {
    double fake[8];
    int calls, n, asked[8];
    int cannot, fail;
} hook;

static int retime(void *ctx, const char *kernel, const char *size_key,
                  const atune_config *const *c, int n, double *time_ns,
                  int *timed, char *why, size_t whylen, atune__err *err)
{
    hook *h = ctx;

    assert_string_equal(kernel, "copy");
    assert_string_equal(size_key, "n=1024");
    h->calls++;
    h->n = n;
    if (h->fail)
        return atune__fail(err, ATUNE__ESOFTWARE, "planted failure");
    if (h->cannot) {
        snprintf(why, whylen, "planted");
        *timed = 0;
        return 0;
    }
    for (int i = 0; i < n && i < 8; i++) {
        int b = (int)atune_config_get(c[i], "BLOCK_SIZE", -1);
        h->asked[i] = b;
        time_ns[i] = h->fake[b % 8];
    }
    *timed = 1;
    return 0;
}

static char *slurp(const char *name)
{
    char path[4200], *text = NULL;
    atune__err err;

    snprintf(path, sizeof(path), "%s/%s", dir, name);
    if (atune__read_file(path, &text, NULL, &err))
        return NULL;
    return text;
}

/* Merges the named inputs into out.ini; returns the status. */
static int merge(hook *h, const char *const *names, int n,
                 atune__merge_stats *st)
{
    atune__merge_in in[8];
    atune__merge_opts o = {0};
    char out[4200];
    atune__err err;
    int rc;

    for (int i = 0; i < n; i++) {
        in[i].path = names[i];
        in[i].p = open_in(names[i]);
    }
    o.retime = h ? retime : NULL;
    o.retime_ctx = h;
    snprintf(out, sizeof(out), "%s/out.ini", dir);
    atune__err_clear(&err);
    rc = atune__profile_merge(out, in, n, &o, st, &err);
    for (int i = 0; i < n; i++)
        atune_profile_close(in[i].p);
    return rc;
}

static int has(const char *text, const char *line)
{
    return strstr(text, line) != NULL;
}

static int setup(void **state)
{
    const char *tmp = getenv("TMPDIR");

    (void)state;
    snprintf(dir, sizeof(dir), "%s/atune-pm-XXXXXX", tmp ? tmp : "/tmp");
    if (!mkdtemp(dir))
        return -1;
    /* Two records of BLOCK_SIZE 128 (the faster recorded is the one to
     * time), one of 256 and one of 64. */
    write_profile("a.ini", "GPU X", 128, 900, "ra");
    write_profile("b.ini", "GPU X", 128, 800, "rb");
    write_profile("c.ini", "GPU X", 256, 700, "rc");
    write_profile("d.ini", "GPU X", 64, 1000, "rd");
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    rm_rf(dir);
    return 0;
}

static void clear_out(void)
{
    char p[4200];

    snprintf(p, sizeof(p), "%s/out.ini", dir);
    unlink(p);
}

/* The hook is asked once, for the three configurations (BLOCK_SIZE 128
 * twice counts once); with a tie the first given is kept. */
static void test_hook_decides(void **state)
{
    const char *names[] = {"a.ini", "b.ini", "c.ini", "d.ini"};
    hook h = {.fake = {1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000},
              .calls = 0};
    atune__merge_stats st;
    char *text;

    (void)state;
    clear_out();
    assert_int_equal(merge(&h, names, 4, &st), 0);
    assert_int_equal(h.calls, 1);
    assert_int_equal(h.n, 3);
    assert_int_equal(h.asked[0], 128);
    assert_int_equal(h.asked[1], 256);
    assert_int_equal(h.asked[2], 64);
    assert_int_equal(st.decided, 1);
    assert_int_equal(st.retimed, 1);
    text = slurp("out.ini");
    assert_non_null(text);
    assert_true(has(text, "BLOCK_SIZE = 128\ntime_ns = 800\n"));
    assert_true(has(text, "merged_by = retimed\n"));
    assert_true(has(text, "merged_set = 3:"));
    free(text);
}

/* Times by configuration: 128 is the fastest when timed, though 256
 * records less; of 128's two records b's (800 ns) is kept. */
static int retime_by_block(void *ctx, const char *kernel,
                           const char *size_key, const atune_config *const *c,
                           int n, double *time_ns, int *timed, char *why,
                           size_t whylen, atune__err *err)
{
    int *calls = ctx;

    (void)kernel;
    (void)size_key;
    (void)why;
    (void)whylen;
    (void)err;
    ++*calls;
    for (int i = 0; i < n; i++) {
        int64_t b = atune_config_get(c[i], "BLOCK_SIZE", -1);
        time_ns[i] = b == 128 ? 500 : b == 256 ? 2000 : b == 64 ? 3000 : NAN;
    }
    *timed = 1;
    return 0;
}

static void test_timed_winner(void **state)
{
    const char *names[] = {"a.ini", "b.ini", "c.ini", "d.ini"};
    atune__merge_in in[4];
    atune__merge_opts o = {0};
    atune__merge_stats st;
    char out[4200], *text, *again;
    atune__err err;
    int calls = 0;

    (void)state;
    clear_out();
    for (int i = 0; i < 4; i++)
        in[i] = (atune__merge_in){names[i], open_in(names[i])};
    o.retime = retime_by_block;
    o.retime_ctx = &calls;
    snprintf(out, sizeof(out), "%s/out.ini", dir);
    assert_int_equal(atune__profile_merge(out, in, 4, &o, &st, &err), 0);
    text = slurp("out.ini");
    assert_non_null(text);
    assert_true(has(text, "BLOCK_SIZE = 128\ntime_ns = 800\n"));
    assert_true(has(text, "run = rb\n"));
    assert_true(has(text, "merged_from = b.ini\n"));
    assert_true(has(text, "merged_time_ns = 500\n"));
    assert_true(has(text, "merged_other_ns = 2000\nmerged_other_from = c.ini\n"));
    /* Again, with the output among the inputs: not timed again, and the
     * same bytes. */
    assert_int_equal(atune__profile_merge(out, in, 4, &o, &st, &err), 0);
    assert_int_equal(calls, 1);
    assert_int_equal(st.unchanged, 1);
    again = slurp("out.ini");
    assert_string_equal(text, again);
    /* Without a GPU the recorded times would pick 256, but a re-timed
     * decision between the same configurations stands. */
    o.retime = NULL;
    assert_int_equal(atune__profile_merge(out, in, 4, &o, &st, &err), 0);
    free(again);
    again = slurp("out.ini");
    assert_string_equal(text, again);
    for (int i = 0; i < 4; i++)
        atune_profile_close(in[i].p);
    free(text);
    free(again);
}

/* By recorded time: 256 (700 ns) wins; a hook that cannot time, or whose
 * configurations all fail, gives the same. */
static void test_recorded_time(void **state)
{
    const char *names[] = {"a.ini", "b.ini", "c.ini", "d.ini"};
    hook cannot = {.cannot = 1},
         failing = {.fake = {INFINITY, INFINITY, INFINITY, INFINITY, INFINITY,
                             INFINITY, INFINITY, INFINITY}};
    hook *hooks[] = {NULL, &cannot, &failing};
    atune__merge_stats st;

    (void)state;
    for (int i = 0; i < 3; i++) {
        char *text;
        clear_out();
        assert_int_equal(merge(hooks[i], names, 4, &st), 0);
        assert_int_equal(st.retimed, 0);
        text = slurp("out.ini");
        assert_non_null(text);
        assert_true(has(text, "BLOCK_SIZE = 256\ntime_ns = 700\n"));
        assert_true(has(text, "merged_by = recorded_time\n"));
        assert_true(has(text, "merged_other_ns = 800\nmerged_other_from = b.ini\n"));
        free(text);
    }
}

/* The same configuration twice: the lower recorded time is kept, nothing
 * is timed. */
static void test_same_config(void **state)
{
    const char *names[] = {"a.ini", "b.ini"};
    hook h = {0};
    atune__merge_stats st;
    char *text;

    (void)state;
    clear_out();
    assert_int_equal(merge(&h, names, 2, &st), 0);
    assert_int_equal(h.calls, 0);
    text = slurp("out.ini");
    assert_non_null(text);
    assert_true(has(text, "time_ns = 800\n"));
    assert_true(has(text, "merged_by = same_config\n"));
    free(text);
}

/* The hook's error stops the merge and OUT stays as it was; another
 * model is refused. */
static void test_errors_leave_out(void **state)
{
    const char *names[] = {"a.ini", "c.ini"}, *two[] = {"a.ini", "y.ini"};
    hook ok = {0}, bad = {.fail = 1};
    atune__merge_stats st;
    char *before, *after;

    (void)state;
    clear_out();
    assert_int_equal(merge(&ok, names, 1, &st), 0);
    before = slurp("out.ini");
    assert_non_null(before);
    assert_int_equal(merge(&bad, names, 2, &st), ATUNE__ESOFTWARE);
    after = slurp("out.ini");
    assert_string_equal(before, after);
    free(after);
    write_profile("y.ini", "GPU Y", 64, 100, "ry");
    assert_int_equal(merge(NULL, two, 2, &st), ATUNE__EDATA);
    after = slurp("out.ini");
    assert_string_equal(before, after);
    free(after);
    free(before);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hook_decides),
        cmocka_unit_test(test_timed_winner),
        cmocka_unit_test(test_recorded_time),
        cmocka_unit_test(test_same_config),
        cmocka_unit_test(test_errors_leave_out),
    };

    return cmocka_run_group_tests(tests, setup, teardown);
}
