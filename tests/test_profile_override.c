/* test_profile_override.c -- configurations made by the application
 * (atune_config_new, _set, _from_string): their reading, their errors,
 * their use where a looked-up one goes, and libatune_jit's checks of them
 * against a template (atune_jit_stale, atune_jit_shape), the kernel name
 * included. Needs no GPU. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "atune/atune.h"
#include "atune/atune_jit.h"

static atune_config *parse_ok(const char *kernel, const char *text)
{
    atune_config *c = NULL;
    char msg[256];
    int rc = atune_config_from_string(kernel, text, &c, msg, sizeof(msg));

    if (rc != ATUNE_OK)
        fail_msg("'%s': %s: %s", text, atune_strerror(rc), msg);
    assert_string_equal(msg, "");
    return c;
}

static void parse_bad(const char *text, const char *why, int column)
{
    atune_config *c = (atune_config *)1;
    char msg[256], col[32];

    assert_int_equal(atune_config_from_string(NULL, text, &c, msg, sizeof(msg)),
                     ATUNE_EINVAL);
    assert_null(c);
    if (!strstr(msg, why))
        fail_msg("'%s': message '%s' lacks '%s'", text, msg, why);
    snprintf(col, sizeof(col), "column %d:", column);
    if (!strstr(msg, col))
        fail_msg("'%s': message '%s' lacks '%s'", text, msg, col);
}

static void test_from_string(void **state)
{
    atune_config *c = parse_ok("copy", " BLOCK_SIZE = 128 ,VW=4,OFFSET=-3");
    char line[256];

    (void)state;
    assert_int_equal(atune_config_count(c), 3);
    assert_string_equal(atune_config_name(c, 0), "BLOCK_SIZE");
    assert_int_equal(atune_config_value(c, 1), 4);
    assert_int_equal(atune_config_get(c, "OFFSET", 0), -3);
    assert_int_equal(atune_config_get(c, "UNROLL", 9), 9);
    assert_string_equal(atune_config_kernel(c), "copy");
    assert_string_equal(atune_config_size(c), "");
    assert_int_equal(atune_config_size_match(c), ATUNE_SIZE_OVERRIDE);
    assert_string_equal(atune_config_template_hash(c), "");
    assert_null(atune_config_meta(c, "metric"));
    assert_int_equal(atune_config_time_ns(c), 0);
    assert_int_equal(atune_config_describe(NULL, c, line, sizeof(line)),
                     ATUNE_OK);
    assert_string_equal(line, "copy: using the application's configuration "
                              "BLOCK_SIZE=128,VW=4,OFFSET=-3");
    atune_config_free(c);

    c = parse_ok(NULL, "");
    assert_int_equal(atune_config_count(c), 0);
    assert_string_equal(atune_config_kernel(c), "");
    atune_config_free(c);

    parse_bad("BLOCK_SIZE", "expected '='", 1);
    parse_bad("A=1,2b=2", "expected a parameter name", 5);
    parse_bad("A=0x10", "expected an integer", 1);
    parse_bad("A=+5", "expected an integer", 1);
    parse_bad("A=5e3", "expected an integer", 1);
    parse_bad("A=", "expected an integer", 1);
    parse_bad("A=-", "expected an integer", 1);
    parse_bad("A=1,A=2", "parameter given twice", 5);
    parse_bad("A=x", "expected an integer", 1);
    parse_bad("A=1;B=2", "expected ','", 1);
    parse_bad("A=99999999999999999999", "out of range", 1);
    assert_int_equal(atune_config_from_string("no/kernel", "A=1", &c, NULL, 0),
                     ATUNE_EINVAL);
    assert_int_equal(atune_config_from_string(NULL, NULL, &c, NULL, 0),
                     ATUNE_EINVAL);
}

/* Lower-case parameters, which manifests accept and profiles hold as
 * param.NAME, are parameters of an override too (issue 30). */
static void test_lower_case_names(void **state)
{
    atune_config *c = parse_ok("stencil", "tile_x=8, Tile_Y=-4,_u=1");

    (void)state;
    assert_int_equal(atune_config_count(c), 3);
    assert_int_equal(atune_config_get(c, "tile_x", 0), 8);
    assert_int_equal(atune_config_get(c, "Tile_Y", 0), -4);
    assert_int_equal(atune_config_get(c, "_u", 0), 1);
    assert_int_equal(atune_config_set(c, "tile_x", 16), ATUNE_OK);
    assert_int_equal(atune_config_set(c, "unroll", 2), ATUNE_OK);
    assert_int_equal(atune_config_get(c, "tile_x", 0), 16);
    assert_int_equal(atune_config_count(c), 4);
    atune_config_free(c);
    parse_bad("tile_x=1,tile_x=2", "parameter given twice", 10);
}

static double now_s(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Building a configuration of n parameters, by text and by
 * atune_config_set: seconds taken. */
static double build_time(int n)
{
    size_t len = (size_t)n * 24 + 1, used = 0;
    char *text = malloc(len);
    atune_config *c = NULL, *d = NULL;
    char name[32];
    double t0 = now_s();

    assert_non_null(text);
    for (int i = 0; i < n; i++)
        used += (size_t)snprintf(text + used, len - used, "%sP%d=%d",
                                 i ? "," : "", i, i);
    assert_int_equal(atune_config_from_string("k", text, &c, NULL, 0),
                     ATUNE_OK);
    assert_int_equal(atune_config_new("k", NULL, &d), ATUNE_OK);
    for (int i = 0; i < n; i++) {
        snprintf(name, sizeof(name), "Q%d", i);
        assert_int_equal(atune_config_set(d, name, i), ATUNE_OK);
    }
    assert_int_equal(atune_config_count(c), n);
    assert_int_equal(atune_config_count(d), n);
    assert_int_equal(atune_config_get(c, "P7", -1), 7);
    atune_config_free(c);
    atune_config_free(d);
    free(text);
    return now_s() - t0;
}

/* Linear in parameters: doubling them at most about doubles the time (a
 * quadratic build quadruples it: 100,000 took minutes before issue 30).
 * CPU time, the best of three runs, so that a loaded machine does not
 * decide; the bound leaves room for the sanitizer build (about 0.4 s). */
static void test_linear_in_parameters(void **state)
{
    const int n = 50000;
    double t1 = 1e9, t2 = 1e9;

    (void)state;
    for (int r = 0; r < 3; r++) {
        double a = build_time(n), b = build_time(2 * n);
        t1 = a < t1 ? a : t1;
        t2 = b < t2 ? b : t2;
    }
    printf("config of %d parameters: %.3f s, of %d: %.3f s (ratio %.2f)\n", n,
           t1, 2 * n, t2, t2 / t1);
    assert_true(t2 / t1 < 3.5);
    assert_true(t2 < 5.0);
}

/* A profile's entry copied and patched (CLBlast's OverrideParameters). */
static void test_new_from_profile_entry(void **state)
{
    char path[4096];
    const char *src = getenv("ATUNE_SOURCE_DIR");
    atune_profile *p = NULL;
    const atune_config *tuned;
    atune_config *c = NULL;

    (void)state;
    snprintf(path, sizeof(path), "%s/tests/data/profiles_good/h100.ini",
             src ? src : ".");
    assert_int_equal(atune_profile_open(path, &p), ATUNE_OK);
    assert_int_equal(atune_profile_lookup(p, "copy", "n=1048576", &tuned),
                     ATUNE_OK);
    assert_int_equal(atune_config_new(NULL, tuned, &c), ATUNE_OK);
    assert_string_equal(atune_config_kernel(c), "copy");
    assert_int_equal(atune_config_count(c), atune_config_count(tuned));
    assert_int_equal(atune_config_set(c, "BLOCK_SIZE", 512), ATUNE_OK);
    assert_int_equal(atune_config_set(c, "NEW_ONE", 7), ATUNE_OK);
    assert_int_equal(atune_config_get(c, "BLOCK_SIZE", 0), 512);
    assert_int_equal(atune_config_get(c, "NEW_ONE", 0), 7);
    assert_int_equal(atune_config_count(c), atune_config_count(tuned) + 1);
    /* The profile's own entry is untouched, and is not an override. */
    assert_int_not_equal(atune_config_get(tuned, "BLOCK_SIZE", 0), 512);
    assert_int_equal(
        atune_config_set((atune_config *)(uintptr_t)tuned, "BLOCK_SIZE", 1),
        ATUNE_EINVAL);
    atune_config_free((atune_config *)(uintptr_t)tuned); /* does nothing */
    assert_int_equal(atune_config_set(c, "not-a-name", 1), ATUNE_EINVAL);
    assert_int_equal(atune_config_set(c, "9lives", 1), ATUNE_EINVAL);
    assert_int_equal(atune_config_set(c, NULL, 1), ATUNE_EINVAL);
    atune_config_free(c);
    atune_profile_close(p);
    atune_config_free(NULL);
    assert_int_equal(atune_config_new("copy", NULL, NULL), ATUNE_EINVAL);
}

/* libatune_jit checks an override against the template it knows. */
static void test_checked_by_the_template(void **state)
{
    atune_jit *j = NULL;
    atune_jit_dims d;
    atune_config *c;

    (void)state;
    assert_int_equal(atune_jit_open(NULL, "copy", &j), ATUNE_OK);
    c = parse_ok("copy", "BLOCK_SIZE=256,VW=2,UNROLL=1,GRID=0,EVICT=0");
    assert_int_equal(atune_jit_stale(j, c), 0);
    assert_int_equal(atune_jit_shape(j, c, NULL, "n=1048576", &d), ATUNE_OK);
    assert_int_equal(d.block[0], 256);
    assert_int_equal(d.grid[0], 1048576 / (256 * 2));
    atune_config_free(c);

    /* A partial override: the template's defaults fill the rest. */
    c = parse_ok(NULL, "BLOCK_SIZE=64");
    assert_int_equal(atune_jit_stale(j, c), ATUNE_JIT_STALE_PARAMS);
    assert_int_equal(atune_jit_shape(j, c, NULL, "n=1048576", &d), ATUNE_OK);
    assert_int_equal(d.block[0], 64);
    atune_config_free(c);

    /* A parameter the template lacks, another kernel's name, a block size
     * that is not one of the template's values (nor within the device's
     * limit): refused before the launch is computed. */
    c = parse_ok("saxpy", "BLOCK_SIZE=2048,VW=1,UNROLL=1,GRID=0,TILE=4");
    assert_int_equal(atune_jit_stale(j, c), ATUNE_JIT_STALE_PARAMS |
                                                ATUNE_JIT_STALE_KERNEL |
                                                ATUNE_JIT_STALE_VALUE);
    assert_int_equal(atune_jit_shape(j, c, NULL, "n=1048576", &d),
                     ATUNE_EINVAL);
    atune_config_free(c);
    atune_jit_close(j);
}

/* A configuration of another profile than the one passed (libatune_jit
 * serves the user's profile it read back after measuring at first use,
 * while the application holds the shipped profile it opened): describe
 * names the profile and file the entry is in, not p's. */
static void test_describe_names_the_entrys_profile(void **state)
{
    static const char shipped[] =
        "[device]\nformat = 2\nname = NVIDIA H100 80GB HBM3\ncc = 90\n"
        "sm_count = 132\n[copy n=1024]\nBLOCK_SIZE = 64\n"
        "; end of profile\n";
    static const char user[] =
        "[device]\nformat = 2\nname = NVIDIA Stub H100\ncc = 90\n"
        "sm_count = 132\n[copy n=5000]\nBLOCK_SIZE = 256\n"
        "first_use = measure: 3 configurations\n; end of profile\n";
    atune_profile *a = NULL, *b = NULL;
    const atune_config *c = NULL;
    char line[512];

    (void)state;
    assert_int_equal(
        atune_profile_open_string("shipped.ini", shipped, strlen(shipped), &a),
        ATUNE_OK);
    assert_int_equal(atune_profile_open_string("user.ini", user, strlen(user),
                                               &b),
                     ATUNE_OK);
    assert_int_equal(atune_profile_lookup(b, "copy", "n=6000", &c), ATUNE_OK);
    assert_int_equal(atune_config_describe(a, c, line, sizeof(line)),
                     ATUNE_OK);
    if (!strstr(line, "from profile 'NVIDIA Stub H100' in 'user.ini'") ||
        !strstr(line, "above every tuned size") ||
        !strstr(line, "measured at first use") || strstr(line, "shipped") ||
        strstr(line, "H100 80GB"))
        fail_msg("%s", line);
    /* p may be NULL for such a configuration, as for an override. */
    assert_int_equal(atune_config_describe(NULL, c, line, sizeof(line)),
                     ATUNE_OK);
    if (!strstr(line, "in 'user.ini'"))
        fail_msg("%s", line);
    atune_profile_close(a);
    atune_profile_close(b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_from_string),
        cmocka_unit_test(test_new_from_profile_entry),
        cmocka_unit_test(test_lower_case_names),
        cmocka_unit_test(test_linear_in_parameters),
        cmocka_unit_test(test_checked_by_the_template),
        cmocka_unit_test(test_describe_names_the_entrys_profile),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
