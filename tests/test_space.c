/* test_space.c -- the parameter space: enumeration order, indexing, the
 * textual form of configurations, constraints and device limits. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "space.h"

static const char *source_dir(void)
{
    const char *dir = getenv("ATUNE_SOURCE_DIR");

    if (!dir || !*dir)
        fail_msg("ATUNE_SOURCE_DIR is not set: run this test through ctest "
                 "or set it to the repository root");
    return dir;
}

static char *read_text(const char *file)
{
    char path[1024];
    atune__err err = {0};
    char *text = NULL;

    snprintf(path, sizeof(path), "%s/templates/%s", source_dir(), file);
    if (atune__read_file(path, &text, NULL, &err) != ATUNE__OK)
        fail_msg("%s", err.msg);
    return text;
}

/* templates/copy with extra manifest text appended (may be ""). */
static atune__manifest *load_copy(const char *extra)
{
    char *ini = read_text("copy.ini");
    char *cu = read_text("copy.cu");
    char *text = malloc(strlen(ini) + strlen(extra) + 1);
    atune__manifest *m = NULL;
    atune__err err = {0};

    assert_non_null(text);
    strcpy(text, ini);
    strcat(text, extra);
    if (atune__manifest_parse("copy", "copy.ini", text, "copy.cu", cu, &m,
                              &err) != ATUNE__OK)
        fail_msg("%s", err.msg);
    free(text);
    free(ini);
    free(cu);
    return m;
}

/* The variables of size index s plus the default device's attributes. */
static void base_vars(const atune__manifest *m, int s,
                      const atune__devattr *dev, atune__vars *vs)
{
    memset(vs, 0, sizeof(*vs));
    assert_int_equal(atune__size_vars(&m->sizes[s], vs), 0);
    assert_int_equal(atune__devattr_vars(dev, vs), 0);
}

static void config_of(const atune__manifest *m, const char *text,
                      atune__config *c)
{
    atune__err err = {0};

    if (atune__config_parse(m, text, c, &err) != ATUNE__OK)
        fail_msg("'%s': %s", text, err.msg);
}

static void test_devattr(void **state)
{
    atune__devattr d;
    atune__vars vs = {0};

    (void)state;
    atune__devattr_default(&d);
    assert_int_equal(d.sm_count, 132);
    assert_int_equal(d.max_threads_per_block, 1024);
    assert_int_equal(d.max_block[2], 64);
    assert_int_equal(d.max_grid[0], 2147483647);
    assert_int_equal(d.max_grid[1], 65535);
    assert_int_equal(d.max_shared_per_block, 232448);
    assert_int_equal(d.warp_size, 32);
    assert_int_equal(d.cc, 90);
    assert_int_equal(d.l2_bytes, 52428800);
    assert_int_equal(atune__devattr_vars(&d, &vs), 0);
    assert_int_equal(vs.n, 6);
    assert_int_equal(*atune__vars_get(&vs, "sm_count", 8), 132);
    assert_int_equal(*atune__vars_get(&vs, "max_threads_per_block", 21), 1024);
    assert_int_equal(*atune__vars_get(&vs, "max_shared_per_block", 20), 232448);
    assert_int_equal(*atune__vars_get(&vs, "warp_size", 9), 32);
    assert_int_equal(*atune__vars_get(&vs, "cc", 2), 90);
    assert_int_equal(*atune__vars_get(&vs, "l2_bytes", 8), 52428800);
}

static void test_enumeration(void **state)
{
    atune__manifest *m = load_copy("");
    atune__config c, d;
    char text[128];

    (void)state;
    assert_int_equal(atune__space_size(m), 315);

    atune__space_config(m, 0, &c);
    atune__config_str(m, &c, text, sizeof(text));
    assert_string_equal(text, "BLOCK_SIZE=128,VW=1,UNROLL=1,GRID=0");
    /* The last parameter varies fastest. */
    atune__space_config(m, 1, &c);
    atune__config_str(m, &c, text, sizeof(text));
    assert_string_equal(text, "BLOCK_SIZE=128,VW=1,UNROLL=1,GRID=1");
    atune__space_config(m, 7, &c);
    atune__config_str(m, &c, text, sizeof(text));
    assert_string_equal(text, "BLOCK_SIZE=128,VW=1,UNROLL=2,GRID=0");
    atune__space_config(m, 63, &c);
    atune__config_str(m, &c, text, sizeof(text));
    assert_string_equal(text, "BLOCK_SIZE=64,VW=1,UNROLL=1,GRID=0");
    atune__space_config(m, 314, &c);
    atune__config_str(m, &c, text, sizeof(text));
    assert_string_equal(text, "BLOCK_SIZE=1024,VW=4,UNROLL=4,GRID=32");
    atune__config_str(m, &c, text, 20); /* whole items only */
    assert_string_equal(text, "BLOCK_SIZE=1024");

    /* Every point round-trips through its index and its text, and no two
     * points are the same configuration. */
    for (int64_t i = 0; i < 315; i++) {
        atune__err err = {0};
        atune__space_config(m, i, &c);
        assert_int_equal(atune__space_index(m, &c), i);
        atune__config_str(m, &c, text, sizeof(text));
        if (atune__config_parse(m, text, &d, &err) != ATUNE__OK)
            fail_msg("'%s': %s", text, err.msg);
        assert_memory_equal(&c, &d, sizeof(c));
        for (int64_t j = 0; j < i; j++) {
            atune__space_config(m, j, &d);
            assert_memory_not_equal(&c, &d, sizeof(c));
        }
    }
    c.v[1] = 3; /* not a value of VW */
    assert_int_equal(atune__space_index(m, &c), -1);
    atune__manifest_free(m);
}

static void test_config_parse(void **state)
{
    static const struct {
        const char *text;
        const char *msg;
    } bad[] = {
        {"BLOCK_SIZE=128,VW=1,UNROLL=1", "missing parameter 'GRID'"},
        {"BLOCK_SIZE=128,VW=1,UNROLL=1,GRID=0,X=1", "unknown parameter 'X'"},
        {"BLOCK_SIZE=128,VW=3,UNROLL=1,GRID=0",
         "VW=3 is not among the values of 'VW'"},
        {"BLOCK_SIZE=128,VW=1,VW=1,GRID=0", "parameter 'VW' given twice"},
        {"BLOCK_SIZE=128,VW=x,UNROLL=1,GRID=0",
         "bad value 'x' of parameter 'VW'"},
        {"BLOCK_SIZE=128,VW=1.0,UNROLL=1,GRID=0",
         "bad value '1.0' of parameter 'VW'"},
        {"BLOCK_SIZE=128,VW=99999999999999999999,UNROLL=1,GRID=0",
         "bad value '99999999999999999999'"},
        {"BLOCK_SIZE=128,VW,UNROLL=1,GRID=0", "expected NAME=VALUE, not 'VW'"},
        {"BLOCK_SIZE=128,,VW=1,UNROLL=1,GRID=0", "expected NAME=VALUE"},
        {"", "expected NAME=VALUE"},
    };
    atune__manifest *m = load_copy("");
    atune__config c;
    char text[128];

    (void)state;
    /* Any order, white space around items. */
    config_of(m, " GRID = 4 ,UNROLL=2,VW=4,BLOCK_SIZE=1024", &c);
    atune__config_str(m, &c, text, sizeof(text));
    assert_string_equal(text, "BLOCK_SIZE=1024,VW=4,UNROLL=2,GRID=4");

    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        atune__err err = {0};
        if (atune__config_parse(m, bad[i].text, &c, &err) != ATUNE__EDATA)
            fail_msg("'%s' parsed", bad[i].text);
        if (!strstr(err.msg, bad[i].msg))
            fail_msg("'%s': got \"%s\", want \"%s\"", bad[i].text, err.msg,
                     bad[i].msg);
        /* The whole text is quoted, for context. */
        assert_non_null(strstr(err.msg, bad[i].text));
    }
    atune__manifest_free(m);
}

/* copy at n = 2^28 on the default device: every point is valid, and the
 * default covers n once with 128-thread blocks. */
static void test_copy_valid(void **state)
{
    atune__manifest *m = load_copy("");
    atune__devattr dev;
    atune__vars vs;
    atune__launch l;
    atune__config c;
    char reason[128];

    (void)state;
    atune__devattr_default(&dev);
    assert_string_equal(m->sizes[0].var[0], "n");
    assert_int_equal(m->sizes[0].value[0], INT64_C(1) << 28);
    base_vars(m, 0, &dev, &vs);
    for (int64_t i = 0; i < 315; i++) {
        atune__err err = {0};
        int rc;
        atune__space_config(m, i, &c);
        rc = atune__space_check(m, &c, &vs, &dev, &l, reason, sizeof(reason),
                                &err);
        if (rc != 1)
            fail_msg("point %lld: rc %d: %s %s", (long long)i, rc, reason,
                     err.msg);
    }

    atune__space_config(m, 0, &c);
    memset(&l, 0, sizeof(l));
    assert_int_equal(atune__space_check(m, &c, &vs, &dev, &l, NULL, 0, NULL),
                     1);
    assert_int_equal(l.block[0], 128);
    assert_int_equal(l.block[1], 1);
    assert_int_equal(l.block[2], 1);
    assert_int_equal(l.grid[0], 2097152);
    assert_int_equal(l.grid[1], 1);
    assert_int_equal(l.grid[2], 1);
    assert_int_equal(l.shared, 0);

    config_of(m, "BLOCK_SIZE=256,VW=4,UNROLL=2,GRID=4", &c);
    assert_int_equal(atune__space_check(m, &c, &vs, &dev, &l, NULL, 0, NULL),
                     1);
    assert_int_equal(l.grid[0], 4 * 132);
    config_of(m, "BLOCK_SIZE=64,VW=2,UNROLL=4,GRID=0", &c);
    assert_int_equal(atune__space_check(m, &c, &vs, &dev, &l, NULL, 0, NULL),
                     1);
    assert_int_equal(l.grid[0], (INT64_C(1) << 28) / 512);

    /* The small size: n = 2^20 in cdiv(n, 1 * 1 * 128). */
    base_vars(m, 1, &dev, &vs);
    atune__space_config(m, 0, &c);
    assert_int_equal(atune__space_check(m, &c, &vs, &dev, &l, NULL, 0, NULL),
                     1);
    assert_int_equal(l.grid[0], 8192);
    atune__manifest_free(m);
}

static void test_constraint(void **state)
{
    atune__manifest *m =
        load_copy("\n[constraints]\nfits = BLOCK_SIZE * VW <= 256\n");
    atune__devattr dev;
    atune__vars vs;
    atune__config c;
    char reason[128];
    int valid = 0;

    (void)state;
    atune__devattr_default(&dev);
    base_vars(m, 0, &dev, &vs);
    for (int64_t i = 0; i < atune__space_size(m); i++) {
        atune__err err = {0};
        int rc;
        reason[0] = '\0';
        atune__space_config(m, i, &c);
        rc = atune__space_check(m, &c, &vs, &dev, NULL, reason, sizeof(reason),
                                &err);
        assert_true(rc == 0 || rc == 1);
        if (rc == 1) {
            assert_true(c.v[0] * c.v[1] <= 256);
            valid++;
        } else {
            assert_true(c.v[0] * c.v[1] > 256);
            assert_string_equal(reason, "constraint 'fits' is false");
        }
    }
    /* (BLOCK_SIZE, VW) pairs within 256: (128, 1), (128, 2), (64, 1),
     * (64, 2), (64, 4), (256, 1); times 3 UNROLL times 7 GRID. */
    assert_int_equal(valid, 6 * 3 * 7);
    atune__manifest_free(m);
}

static const char limits_cu[] = "k r";

/* A space made to hit each device limit; constraint is its one
 * [constraints] line. */
static atune__manifest *limits_manifest(const char *constraint)
{
    char ini[1024];
    atune__manifest *m = NULL;
    atune__err err = {0};

    snprintf(ini, sizeof(ini),
             "[template]\nkernel = k\nreference = r\nreference_block = 1\n"
             "reference_grid = 1\nmetric = GB/s\nwork = n\n"
             "[sizes]\ns = n=1000000\n"
             "[params]\nBLOCK = 1024, 2048, 0\nY = 1, 2\nGY = 1, 0, 65536\n"
             "SMEM = 0, 300000, -1\n"
             "[constraints]\n%s\n"
             "[launch]\nblock = BLOCK, Y\ngrid = cdiv(n, max(BLOCK, 1)), GY\n"
             "shared = SMEM\n"
             "[args]\nout = int[n] output\n",
             constraint);
    if (atune__manifest_parse("limits", "limits.ini", ini, "limits.cu",
                              limits_cu, &m, &err) != ATUNE__OK)
        fail_msg("%s", err.msg);
    return m;
}

static void test_device_limits(void **state)
{
    static const struct {
        const char *config;
        const char *reason; /* NULL: valid */
    } cases[] = {
        {"BLOCK=1024,Y=1,GY=1,SMEM=0", NULL},
        {"BLOCK=2048,Y=1,GY=1,SMEM=0", "block of 2048 threads exceeds 1024"},
        {"BLOCK=1024,Y=2,GY=1,SMEM=0", "block of 2048 threads exceeds 1024"},
        {"BLOCK=0,Y=1,GY=1,SMEM=0", "block x of 0 is below 1"},
        {"BLOCK=1024,Y=1,GY=0,SMEM=0", "grid y of 0 is below 1"},
        {"BLOCK=1024,Y=1,GY=65536,SMEM=0", "grid y of 65536 exceeds 65535"},
        {"BLOCK=1024,Y=1,GY=1,SMEM=300000",
         "shared memory of 300000 bytes exceeds 232448"},
        {"BLOCK=1024,Y=1,GY=1,SMEM=-1", "shared memory of -1 bytes is "
                                        "negative"},
    };
    atune__manifest *m = limits_manifest("even = n % 2 == 0");
    atune__devattr dev;
    atune__vars vs;
    atune__config c;
    atune__launch l;
    char reason[128];
    int valid = 0;

    (void)state;
    atune__devattr_default(&dev);
    base_vars(m, 0, &dev, &vs);
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        atune__err err = {0};
        int rc;
        config_of(m, cases[i].config, &c);
        strcpy(reason, "untouched");
        rc = atune__space_check(m, &c, &vs, &dev, &l, reason, sizeof(reason),
                                &err);
        if (rc != (cases[i].reason ? 0 : 1))
            fail_msg("%s: rc %d (%s)", cases[i].config, rc, reason);
        if (cases[i].reason)
            assert_string_equal(reason, cases[i].reason);
        else
            assert_int_equal(l.grid[0], 977); /* cdiv(10^6, 1024) */
    }
    for (int64_t i = 0; i < atune__space_size(m); i++) {
        atune__space_config(m, i, &c);
        valid += atune__space_check(m, &c, &vs, &dev, NULL, NULL, 0, NULL);
    }
    assert_int_equal(valid, 1);

    /* Per-dimension limits apply below the thread limit. */
    dev.max_threads_per_block = 4096;
    config_of(m, "BLOCK=2048,Y=1,GY=1,SMEM=0", &c);
    assert_int_equal(atune__space_check(m, &c, &vs, &dev, NULL, reason,
                                        sizeof(reason), NULL),
                     0);
    assert_string_equal(reason, "block x of 2048 exceeds 1024");
    atune__manifest_free(m);
}

/* An expression that cannot be evaluated is an error, not an invalid
 * configuration. */
static void test_check_errors(void **state)
{
    atune__manifest *m = limits_manifest("odd = n / (BLOCK - 1024) != 0");
    atune__devattr dev;
    atune__vars vs;
    atune__config c;
    atune__err err = {0};
    int64_t out[3];

    (void)state;
    atune__devattr_default(&dev);
    base_vars(m, 0, &dev, &vs);
    config_of(m, "BLOCK=2048,Y=1,GY=1,SMEM=0", &c);
    assert_int_equal(atune__space_check(m, &c, &vs, &dev, NULL, NULL, 0, &err),
                     0); /* 1000000 / 1024 is 976: true, then too big */
    config_of(m, "BLOCK=1024,Y=1,GY=1,SMEM=0", &c);
    assert_int_equal(atune__space_check(m, &c, &vs, &dev, NULL, NULL, 0, &err),
                     ATUNE__EDATA);
    assert_string_equal(err.msg, "limits.ini:16: division by zero in "
                                 "'n / (BLOCK - 1024)'");

    /* dim3_eval without the parameters: the error names block's line. */
    memset(&vs, 0, sizeof(vs));
    assert_int_equal(atune__dim3_eval(m, &m->block, &vs, out, &err),
                     ATUNE__EDATA);
    assert_string_equal(err.msg, "limits.ini:18: unknown name 'BLOCK'");
    assert_int_equal(atune__dim3_eval(m, &m->ref_grid, &vs, out, &err),
                     ATUNE__OK);
    assert_int_equal(out[0], 1);
    assert_int_equal(out[1], 1);
    assert_int_equal(out[2], 1);
    atune__manifest_free(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_devattr),
        cmocka_unit_test(test_enumeration),
        cmocka_unit_test(test_config_parse),
        cmocka_unit_test(test_copy_valid),
        cmocka_unit_test(test_constraint),
        cmocka_unit_test(test_device_limits),
        cmocka_unit_test(test_check_errors),
    };

    return cmocka_run_group_tests_name("space", tests, NULL, NULL);
}
