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

#include "template/space.h"

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

/* templates/copy with extra constraint lines (may be "") in its
 * [constraints] section. */
static atune__manifest *load_copy(const char *extra)
{
    char *ini = read_text("copy.ini");
    char *cu = read_text("copy.cu");
    char *text = malloc(strlen(ini) + strlen(extra) + 1);
    char *sec = strstr(ini, "\n[constraints]\n");
    atune__manifest *m = NULL;
    atune__err err = {0};
    size_t head;

    assert_non_null(text);
    assert_non_null(sec);
    head = (size_t)(sec - ini) + strlen("\n[constraints]\n");
    memcpy(text, ini, head);
    strcpy(text + head, extra);
    strcat(text, ini + head);
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
    assert_int_equal(atune__space_size(m), 630);

    atune__space_config(m, 0, &c);
    atune__config_str(m, &c, text, sizeof(text));
    assert_string_equal(text, "BLOCK_SIZE=128,VW=1,UNROLL=1,GRID=0,EVICT=0");
    /* The last parameter varies fastest. */
    atune__space_config(m, 1, &c);
    atune__config_str(m, &c, text, sizeof(text));
    assert_string_equal(text, "BLOCK_SIZE=128,VW=1,UNROLL=1,GRID=0,EVICT=1");
    atune__space_config(m, 2, &c);
    atune__config_str(m, &c, text, sizeof(text));
    assert_string_equal(text, "BLOCK_SIZE=128,VW=1,UNROLL=1,GRID=1,EVICT=0");
    atune__space_config(m, 14, &c);
    atune__config_str(m, &c, text, sizeof(text));
    assert_string_equal(text, "BLOCK_SIZE=128,VW=1,UNROLL=2,GRID=0,EVICT=0");
    atune__space_config(m, 126, &c);
    atune__config_str(m, &c, text, sizeof(text));
    assert_string_equal(text, "BLOCK_SIZE=64,VW=1,UNROLL=1,GRID=0,EVICT=0");
    atune__space_config(m, 629, &c);
    atune__config_str(m, &c, text, sizeof(text));
    assert_string_equal(text, "BLOCK_SIZE=1024,VW=4,UNROLL=4,GRID=32,EVICT=1");
    atune__config_str(m, &c, text, 20); /* whole items only */
    assert_string_equal(text, "BLOCK_SIZE=1024");

    /* Every point round-trips through its index and its text, and no two
     * points are the same configuration. */
    for (int64_t i = 0; i < 630; i++) {
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
    config_of(m, " GRID = 4 ,EVICT=1,UNROLL=2,VW=4,BLOCK_SIZE=1024", &c);
    atune__config_str(m, &c, text, sizeof(text));
    assert_string_equal(text, "BLOCK_SIZE=1024,VW=4,UNROLL=2,GRID=4,EVICT=1");

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
    for (int64_t i = 0; i < 630; i++) {
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

    config_of(m, "BLOCK_SIZE=256,VW=4,UNROLL=2,GRID=4,EVICT=0", &c);
    assert_int_equal(atune__space_check(m, &c, &vs, &dev, &l, NULL, 0, NULL),
                     1);
    assert_int_equal(l.grid[0], 4 * 132);
    config_of(m, "BLOCK_SIZE=64,VW=2,UNROLL=4,GRID=0,EVICT=1", &c);
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
        load_copy("fits = BLOCK_SIZE * VW <= 256\n");
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
     * (64, 2), (64, 4), (256, 1); times 3 UNROLL, 7 GRID and 2 EVICT. */
    assert_int_equal(valid, 6 * 3 * 7 * 2);
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

/* ---- validation: what check and tune evaluate before any GPU work ---- */

static const char valid_cu[] = "k r table";

/* A manifest whose lines the cases below replace; messages refer to these
 * line numbers. */
static const char *const valid_lines[] = {
    /*  1 */ "[template]",
    /*  2 */ "kernel = k",
    /*  3 */ "reference = r",
    /*  4 */ "reference_block = 256",
    /*  5 */ "reference_grid = cdiv(n, 256)",
    /*  6 */ "metric = GB/s",
    /*  7 */ "work = 8 * n",
    /*  8 */ "[sizes]",
    /*  9 */ "big = n=1048576",
    /* 10 */ "one = n=1",
    /* 11 */ "[params]",
    /* 12 */ "B = 128, 256",
    /* 13 */ "V = 1, 2",
    /* 14 */ "[constraints]",
    /* 15 */ "fits = B * V < 512",
    /* 16 */ "[launch]",
    /* 17 */ "block = B",
    /* 18 */ "grid = cdiv(n, V * B)",
    /* 19 */ "shared = 0",
    /* 20 */ "[args]",
    /* 21 */ "in = int[n] input",
    /* 22 */ "out = int[n] output",
    /* 23 */ "n = long n",
    /* 24 */ "[constants]",
    /* 25 */ "table = char[16] input",
};

/* The manifest above with lines a and b replaced by their texts (line 0:
 * none). */
static atune__manifest *edited_manifest(int a, const char *a_text, int b,
                                        const char *b_text)
{
    char ini[2048] = "";
    atune__manifest *m = NULL;
    atune__err err = {0};
    int n = (int)(sizeof(valid_lines) / sizeof(valid_lines[0]));

    for (int i = 1; i <= n; i++) {
        strcat(ini, i == a ? a_text : i == b ? b_text : valid_lines[i - 1]);
        strcat(ini, "\n");
    }
    if (atune__manifest_parse("v", "v.ini", ini, "v.cu", valid_cu, &m, &err) !=
        ATUNE__OK)
        fail_msg("lines %d, %d: %s", a, b, err.msg);
    return m;
}

static atune__manifest *valid_manifest(int line, const char *text)
{
    return edited_manifest(line, text, 0, NULL);
}

static void test_validate_clean(void **state)
{
    atune__manifest *m = valid_manifest(0, NULL);
    atune__devattr dev;
    atune__err err = {0};
    unsigned char valid[4] = {0};
    int64_t counts[2] = {-1, -1}, bytes = 0;

    (void)state;
    atune__devattr_default(&dev);
    if (atune__space_validate(m, &dev, valid, counts, &err) != ATUNE__OK)
        fail_msg("%s", err.msg);
    /* B=256,V=2 breaks 'fits'; the other three are valid at both sizes. */
    assert_int_equal(counts[0], 3);
    assert_int_equal(counts[1], 3);
    assert_int_equal(valid[0] + valid[1] + valid[2] + valid[3], 3);
    assert_int_equal(valid[3], 0);
    assert_int_equal(atune__space_validate(m, &dev, NULL, NULL, &err),
                     ATUNE__OK);
    /* in once, out twice (with the reference's result), table once. */
    assert_int_equal(atune__size_memory(m, &m->sizes[0], &dev, &bytes, &err),
                     ATUNE__OK);
    assert_int_equal(bytes, 3 * 4 * 1048576 + 16);
    atune__manifest_free(m);

    /* inout: working copy, initial contents, reference result; accum:
     * working copy and reference result. */
    m = valid_manifest(21, "in = double[n] inout");
    assert_int_equal(atune__size_memory(m, &m->sizes[1], &dev, &bytes, &err),
                     ATUNE__OK);
    assert_int_equal(bytes, 3 * 8 + 2 * 4 + 16);
    atune__manifest_free(m);
    m = valid_manifest(22, "out = ulong[n] accum");
    assert_int_equal(atune__size_memory(m, &m->sizes[1], &dev, &bytes, &err),
                     ATUNE__OK);
    assert_int_equal(bytes, 4 + 2 * 8 + 16);
    atune__manifest_free(m);
}

/* Each defect found by evaluation, with the exact message: file:line, the
 * culprit, and the size and configuration that show it. */
static void test_validate_errors(void **state)
{
    static const struct {
        int line;
        const char *text;
        const char *msg;
    } cases[] = {
        {18, "grid = cdiv(n, (V - 1) * B)",
         "v.ini:18: division by zero in 'cdiv(n, (V - 1) * B)' at size 'big' "
         "(n=1048576) with B=128,V=1"},
        {15, "fits = n / (V - 2) < 0",
         "v.ini:15: division by zero in 'n / (V - 2)' at size 'big' "
         "(n=1048576) with B=128,V=2"},
        {19, "shared = B << 62",
         "v.ini:19: overflow in 'B << 62' at size 'big' (n=1048576) with "
         "B=128,V=1"},
        {7, "work = 8 * n / (n - 1)",
         "v.ini:7: division by zero in '8 * n / (n - 1)' at size 'one' (n=1)"},
        {7, "work = n - 1",
         "v.ini:7: work is 0, not positive at size 'one' (n=1)"},
        /* block_cost: at the default configuration, every size */
        {7, "work = 8 * n\nblock_cost = n / (V - 1)",
         "v.ini:8: division by zero in 'n / (V - 1)' at size 'big' "
         "(n=1048576)"},
        {7, "work = 8 * n\nblock_cost = 1 - B",
         "v.ini:8: block_cost is -127 at the default configuration, not "
         "positive at size 'big' (n=1048576)"},
        {5, "reference_grid = cdiv(n, n - 1)",
         "v.ini:5: division by zero in 'cdiv(n, n - 1)' at size 'one' (n=1)"},
        {4, "reference_block = 2048",
         "v.ini:4: reference launch: block of 2048 threads exceeds 1024 at "
         "size 'big' (n=1048576)"},
        /* the reference's launch reads parameters at their defaults */
        {4, "reference_block = B * 16",
         "v.ini:4: reference launch: block of 2048 threads exceeds 1024 at "
         "size 'big' (n=1048576)"},
        {5, "reference_grid = cdiv(n, 256)\nreference_shared = B * 2000",
         "v.ini:6: reference launch: shared memory of 256000 bytes exceeds "
         "232448 at size 'big' (n=1048576)"},
        {5, "reference_grid = cdiv(n, 256)\nreference_shared = B / (V - 1)",
         "v.ini:6: division by zero in 'B / (V - 1)' at size 'big' "
         "(n=1048576)"},
        {5, "reference_grid = n - 1",
         "v.ini:5: reference launch: grid x of 0 is below 1 at size 'one' "
         "(n=1)"},
        {21, "in = int[n - 1] input",
         "v.ini:21: buffer 'in' has 0 elements at size 'one' (n=1)"},
        {21, "in = int[n * (1 << 50)] input",
         "v.ini:21: overflow in 'n * (1 << 50)' at size 'big' (n=1048576)"},
        {21, "in = long[n << 40] input",
         "v.ini:21: buffer 'in' of 1152921504606846976 long elements is more "
         "than 2^63 bytes at size 'big' (n=1048576)"},
        {22, "out = int[n << 40] output",
         "v.ini:22: with buffer 'out' the device memory the runner needs is "
         "more than 2^63 bytes at size 'big' (n=1048576)"},
        {25, "table = char[sm_count - 132] input",
         "v.ini:25: buffer 'table' has 0 elements at size 'big' (n=1048576)"},
        {23, "n = long n / (2 - V)",
         "v.ini:23: division by zero in 'n / (2 - V)' at size 'big' "
         "(n=1048576) with B=128,V=2"},
        {23, "n = int n << 11",
         "v.ini:23: value 2147483648 of scalar 'n' does not fit in int at "
         "size 'big' (n=1048576) with B=128,V=1"},
        {23, "n = char 128",
         "v.ini:23: value 128 of scalar 'n' does not fit in char at size "
         "'big' (n=1048576) with B=128,V=1"},
        {23, "n = uint -n",
         "v.ini:23: value -1048576 of scalar 'n' does not fit in uint at size "
         "'big' (n=1048576) with B=128,V=1"},
        {23, "n = ulong -1",
         "v.ini:23: value -1 of scalar 'n' does not fit in ulong at size "
         "'big' (n=1048576) with B=128,V=1"},
        /* Nothing valid: the line of what rules out the default. */
        {15, "fits = B * V > 512",
         "v.ini:15: no valid configuration at size 'big' (n=1048576) among 4; "
         "the default B=128,V=1 is invalid: constraint 'fits' is false"},
        {17, "block = B * 16",
         "v.ini:17: no valid configuration at size 'big' (n=1048576) among 4; "
         "the default B=128,V=1 is invalid: block of 2048 threads exceeds "
         "1024"},
        {18, "grid = n - 1",
         "v.ini:18: no valid configuration at size 'one' (n=1) among 4; the "
         "default B=128,V=1 is invalid: grid x of 0 is below 1"},
        {19, "shared = max_shared_per_block + 1",
         "v.ini:19: no valid configuration at size 'big' (n=1048576) among 4; "
         "the default B=128,V=1 is invalid: shared memory of 232449 bytes "
         "exceeds 232448"},
    };
    atune__devattr dev;

    (void)state;
    atune__devattr_default(&dev);
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        atune__manifest *m = valid_manifest(cases[i].line, cases[i].text);
        atune__err err = {0};
        int rc = atune__space_validate(m, &dev, NULL, NULL, &err);
        if (rc != ATUNE__EDATA || strcmp(err.msg, cases[i].msg) != 0)
            fail_msg("'%s': rc %d, got\n  %s\nwant\n  %s", cases[i].text, rc,
                     err.msg, cases[i].msg);
        atune__manifest_free(m);
    }
}

/* A scalar's range is checked only where the configuration is valid: a
 * constraint may guard it, as it may guard a division. */
static void test_validate_guarded(void **state)
{
    atune__manifest *m = valid_manifest(23, "n = char 300 - B");
    atune__devattr dev;
    atune__err err = {0};
    int64_t counts[2];

    (void)state;
    atune__devattr_default(&dev);
    assert_int_equal(atune__space_validate(m, &dev, NULL, counts, &err),
                     ATUNE__EDATA);
    assert_string_equal(err.msg, "v.ini:23: value 172 of scalar 'n' does not "
                                 "fit in char at size 'big' (n=1048576) with "
                                 "B=128,V=1");
    atune__manifest_free(m);

    /* The same with B=128 ruled out. */
    m = edited_manifest(23, "n = char 300 - B", 15, "fits = B > 128");
    if (atune__space_validate(m, &dev, NULL, counts, &err) != ATUNE__OK)
        fail_msg("%s", err.msg);
    assert_int_equal(counts[0], 2);
    assert_int_equal(counts[1], 2);
    atune__manifest_free(m);
}

/* The built-in templates pass. */
static void test_validate_copy(void **state)
{
    atune__manifest *m = load_copy("");
    atune__devattr dev;
    atune__err err = {0};
    int64_t counts[ATUNE__MAX_SIZES], bytes;

    (void)state;
    atune__devattr_default(&dev);
    if (atune__space_validate(m, &dev, NULL, counts, &err) != ATUNE__OK)
        fail_msg("%s", err.msg);
    /* large, small, 4 powers of two and the ladder's 25 other points, all
     * of it valid */
    assert_int_equal(m->nsizes, 31);
    for (int s = 0; s < m->nsizes; s++)
        assert_int_equal(counts[s], 630);
    assert_int_equal(atune__size_memory(m, &m->sizes[0], &dev, &bytes, &err),
                     ATUNE__OK);
    assert_int_equal(bytes, INT64_C(3) << 30); /* 3 x 2^28 ints */
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
        cmocka_unit_test(test_validate_clean),
        cmocka_unit_test(test_validate_errors),
        cmocka_unit_test(test_validate_guarded),
        cmocka_unit_test(test_validate_copy),
    };

    return cmocka_run_group_tests_name("space", tests, NULL, NULL);
}
