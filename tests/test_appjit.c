/* test_appjit.c -- the JIT helper for applications, without a GPU:
 * opening templates, errors with file:line, launch shapes computed from
 * the manifest for a configuration of a profile, staleness, and the
 * answers of build without a driver or without a context. */
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "testutil.h"

#include <atune/atune.h>
#include <atune/atune_jit.h>

#include "jit/cudrv.h"
#include "template/manifest.h"

static char tmp[] = "/tmp/atune-test-appjit-XXXXXX";

static const char *source_dir(void)
{
    const char *dir = getenv("ATUNE_SOURCE_DIR");

    if (!dir || !*dir)
        fail_msg("ATUNE_SOURCE_DIR is not set: run this test through ctest "
                 "or set it to the repository root");
    return dir;
}

static void path_in(char *buf, size_t len, const char *base, const char *rel)
{
    snprintf(buf, len, "%s/%s", base, rel);
}

static char *read_text(const char *path)
{
    char *text = NULL, *copy;
    atune__err err = {0};

    if (atune__read_file(path, &text, NULL, &err) != 0)
        fail_msg("%s", err.msg);
    /* A copy: gcc -O3 inlines this function and, having seen &text leave,
     * takes pointers into the text for pointers to the dead local
     * (-Wdangling-pointer). */
    copy = strdup(text);
    free(text);
    assert_non_null(copy);
    return copy;
}

static atune_jit *open_ok(const char *dir, const char *name)
{
    atune_jit *j = NULL;
    int rc = atune_jit_open(dir, name, &j);

    if (rc != ATUNE_OK)
        fail_msg("%s: %s", atune_jit_strerror(rc), atune_jit_errmsg(j));
    assert_string_equal(atune_jit_errmsg(j), "");
    return j;
}

static atune_jit *open_repo_copy(void)
{
    char dir[4096];

    path_in(dir, sizeof(dir), source_dir(), "templates");
    return open_ok(dir, "copy");
}

/* The configuration of kernel at size in a profile file. */
static const atune_config *lookup(atune_profile **p, const char *file,
                                  const char *kernel, const char *size)
{
    const atune_config *c = NULL;
    int rc = atune_profile_open(file, p);

    if (rc != ATUNE_OK)
        fail_msg("%s: %s", file, atune_profile_errmsg(*p));
    rc = atune_profile_lookup(*p, kernel, size, &c);
    if (rc != ATUNE_OK)
        fail_msg("%s %s: %s", kernel, size, atune_profile_errmsg(*p));
    return c;
}

static void assert_dims(const atune_jit_dims *d, unsigned gx, unsigned bx,
                        unsigned shared)
{
    assert_int_equal(d->grid[0], gx);
    assert_int_equal(d->grid[1], 1);
    assert_int_equal(d->grid[2], 1);
    assert_int_equal(d->block[0], bx);
    assert_int_equal(d->block[1], 1);
    assert_int_equal(d->block[2], 1);
    assert_int_equal(d->shared, shared);
}

/* --- opening -------------------------------------------------------------- */

static void test_open_builtin_and_dir(void **state)
{
    static const char *const names[] = {"copy", "saxpy", "reduce", "matmul"};
    atune_jit *a = open_ok(NULL, "copy");
    atune_jit *b = open_repo_copy();
    atune__manifest *m = NULL;
    atune__err err = {0};
    char dir[4096], hash[17];

    (void)state;
    /* The built-in copy is the repository's, byte for byte. */
    assert_int_equal(strlen(atune_jit_template_hash(a)), 16);
    assert_string_equal(atune_jit_template_hash(a), atune_jit_template_hash(b));
    path_in(dir, sizeof(dir), source_dir(), "templates");
    if (atune__manifest_load(dir, "copy", &m, &err) != 0)
        fail_msg("%s", err.msg);
    snprintf(hash, sizeof(hash), "%016llx", (unsigned long long)m->hash);
    assert_string_equal(atune_jit_template_hash(b), hash);
    atune__manifest_free(m);
    atune_jit_close(a);
    atune_jit_close(b);

    /* Every built-in template opens. */
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        char file[4200];
        snprintf(file, sizeof(file), "%s/templates/%s.ini", source_dir(),
                 names[i]);
        if (access(file, F_OK) != 0)
            continue;
        atune_jit_close(open_ok(NULL, names[i]));
    }
}

static void test_open_errors(void **state)
{
    atune_jit *j = NULL;
    char dir[4200], file[4300];
    int rc;

    (void)state;
    assert_int_equal(atune_jit_open(NULL, "copy", NULL), ATUNE_EINVAL);

    rc = atune_jit_open(NULL, "no_such_kernel", &j);
    assert_int_equal(rc, ATUNE_ENOTFOUND);
    assert_non_null(strstr(atune_jit_errmsg(j), "'no_such_kernel'"));
    assert_non_null(strstr(atune_jit_errmsg(j), "copy"));
    assert_string_equal(atune_jit_template_hash(j), "");
    atune_jit_close(j);

    rc = atune_jit_open(NULL, "../copy", &j);
    assert_int_equal(rc, ATUNE_EINVAL);
    assert_non_null(strstr(atune_jit_errmsg(j), "'../copy'"));
    atune_jit_close(j);
    assert_int_equal(atune_jit_open(NULL, "a,b", &j), ATUNE_EINVAL);
    atune_jit_close(j);
    assert_int_equal(atune_jit_open(NULL, "", &j), ATUNE_EINVAL);
    atune_jit_close(j);
    assert_int_equal(atune_jit_open(NULL, NULL, &j), ATUNE_EINVAL);
    atune_jit_close(j);

    path_in(dir, sizeof(dir), tmp, "missing-dir");
    assert_int_equal(atune_jit_open(dir, "copy", &j), ATUNE_EIO);
    assert_non_null(strstr(atune_jit_errmsg(j), dir));
    atune_jit_close(j);

    /* NAME.ini without NAME.cu. */
    path_in(dir, sizeof(dir), tmp, "no-cu");
    assert_int_equal(mkdir(dir, 0755), 0);
    path_in(file, sizeof(file), dir, "k.ini");
    write_text(file, "[template]\nkernel = k\n");
    assert_int_equal(atune_jit_open(dir, "k", &j), ATUNE_EIO);
    assert_non_null(strstr(atune_jit_errmsg(j), "k.cu"));
    atune_jit_close(j);

    /* Functions on a handle that did not open answer, never crash. */
    assert_int_equal(atune_jit_open(NULL, "no_such_kernel", &j),
                     ATUNE_ENOTFOUND);
    {
        atune_jit_dims d;
        atune_jit_kernel *k = NULL;
        assert_int_equal(atune_jit_shape(j, NULL, NULL, "n=1", &d),
                         ATUNE_EINVAL);
        assert_int_equal(atune_jit_build(j, NULL, &k), ATUNE_EINVAL);
        assert_null(k);
        assert_int_equal(atune_jit_stale(j, NULL), 0);
    }
    atune_jit_close(j);
}

/* text with its first "block = BLOCK_SIZE" made "block = (BLOCK_SIZE"
 * (malloc'd), and in *line that line's number. */
static char *unbalance_block(const char *text, int *line)
{
    static const char good[] = "block = BLOCK_SIZE";
    const char *at = strstr(text, good);
    size_t off;
    char *bad;

    assert_non_null(at);
    off = (size_t)(at - text);
    bad = malloc(strlen(text) + 2);
    assert_non_null(bad);
    memcpy(bad, text, off);
    strcpy(bad + off, "block = (BLOCK_SIZE");
    strcat(bad, at + strlen(good));
    *line = 1;
    for (size_t i = 0; i < off; i++)
        *line += text[i] == '\n';
    return bad;
}

/* A malformed manifest: status EPARSE and "file:line" in the message. */
static void test_malformed_manifest(void **state)
{
    char dir[4200], ini[4300], cu[4300], want[4400];
    char *text, *bad;
    atune_jit *j = NULL;
    int line;

    (void)state;
    path_in(dir, sizeof(dir), tmp, "bad");
    assert_int_equal(mkdir(dir, 0755), 0);
    /* copy.ini with the block expression broken. */
    snprintf(ini, sizeof(ini), "%s/templates/copy.ini", source_dir());
    text = read_text(ini);
    bad = unbalance_block(text, &line);
    path_in(ini, sizeof(ini), dir, "copy.ini");
    write_text(ini, bad);
    snprintf(cu, sizeof(cu), "%s/templates/copy.cu", source_dir());
    free(text);
    text = read_text(cu);
    path_in(cu, sizeof(cu), dir, "copy.cu");
    write_text(cu, text);
    free(text);
    free(bad);

    assert_int_equal(atune_jit_open(dir, "copy", &j), ATUNE_EPARSE);
    snprintf(want, sizeof(want), "%s:%d:", ini, line);
    if (!strstr(atune_jit_errmsg(j), want))
        fail_msg("expected '%s' in '%s'", want, atune_jit_errmsg(j));
    atune_jit_close(j);
}

/* A template whose manifest asks NVRTC to write a file (issue 30): the
 * library refuses it when it opens the template, with file:line, before
 * anything is compiled, and no file appears. A --pre-include header is
 * part of the template hash that profiles are checked against. */
static void write_copy_with(const char *dir, const char *options)
{
    char src[4300], dst[4300], *text, *with;
    const char *at;

    snprintf(src, sizeof(src), "%s/templates/copy.ini", source_dir());
    text = read_text(src);
    at = strstr(text, "\n[sizes]");
    assert_non_null(at);
    with = malloc(strlen(text) + strlen(options) + 32);
    assert_non_null(with);
    sprintf(with, "%.*s\nnvrtc_options = %s%s", (int)(at - text), text,
            options, at);
    path_in(dst, sizeof(dst), dir, "copy.ini");
    write_text(dst, with);
    free(with);
    free(text);
    snprintf(src, sizeof(src), "%s/templates/copy.cu", source_dir());
    text = read_text(src);
    path_in(dst, sizeof(dst), dir, "copy.cu");
    write_text(dst, text);
    free(text);
}

static void test_nvrtc_options_refused(void **state)
{
    char dir[4200], opt[4400], victim[4300], ini[4300], pre[4300];
    char hash[32];
    atune_jit *j = NULL;
    struct stat st;

    (void)state;
    path_in(dir, sizeof(dir), tmp, "opts");
    assert_int_equal(mkdir(dir, 0755), 0);
    path_in(victim, sizeof(victim), tmp, "created-by-nvrtc");
    snprintf(opt, sizeof(opt), "--time=%s", victim);
    write_copy_with(dir, opt);
    path_in(ini, sizeof(ini), dir, "copy.ini");
    assert_int_equal(atune_jit_open(dir, "copy", &j), ATUNE_EPARSE);
    if (!strstr(atune_jit_errmsg(j), ini) ||
        !strstr(atune_jit_errmsg(j), "it writes timing to a file"))
        fail_msg("unexpected message '%s'", atune_jit_errmsg(j));
    atune_jit_close(j);
    assert_int_equal(stat(victim, &st), -1);

    /* A pre-included header is covered by the template hash. */
    path_in(pre, sizeof(pre), dir, "pre.h");
    write_text(pre, "#define ATUNE_TEST_PRE 1\n");
    write_copy_with(dir, "--pre-include=pre.h");
    j = open_ok(dir, "copy");
    snprintf(hash, sizeof(hash), "%s", atune_jit_template_hash(j));
    atune_jit_close(j);
    write_text(pre, "#define ATUNE_TEST_PRE 2\n");
    j = open_ok(dir, "copy");
    assert_string_not_equal(atune_jit_template_hash(j), hash);
    atune_jit_close(j);
}

/* --- launch shapes ------------------------------------------------------- */

static void test_shape_defaults(void **state)
{
    atune_jit *j = open_ok(NULL, "copy");
    atune_jit_dims d;

    (void)state;
    /* BLOCK_SIZE=128, VW=1, UNROLL=1, GRID=0: cover n once. */
    assert_int_equal(atune_jit_shape(j, NULL, NULL, "n=1000000", &d), ATUNE_OK);
    assert_dims(&d, 7813, 128, 0);
    assert_int_equal(atune_jit_shape(j, NULL, NULL, " n = 128 ", &d), ATUNE_OK);
    assert_dims(&d, 1, 128, 0);
    atune_jit_close(j);
}

/* copy at a size that was not tuned: the nearest tuned size's
 * configuration, with the device's SM count in the grid expression. */
static void test_shape_from_profile(void **state)
{
    char file[4200];
    atune_profile *p = NULL;
    const atune_config *c;
    atune_jit *j = open_ok(NULL, "copy");
    atune_jit_attr attr;
    atune_jit_dims d;

    (void)state;
    path_in(file, sizeof(file), source_dir(),
            "tests/data/profiles_good/h100.ini");
    c = lookup(&p, file, "copy", "n=1000000");
    assert_string_equal(atune_config_size(c), "n=1048576");
    assert_int_equal(atune_config_size_match(c), ATUNE_SIZE_NEAREST);
    /* BLOCK_SIZE=128, VW=2, UNROLL=1, GRID=32 blocks per SM. */
    assert_int_equal(atune_jit_shape(j, c, NULL, "n=1000000", &d), ATUNE_OK);
    assert_dims(&d, 32 * 132, 128, 0);
    memset(&attr, 0, sizeof(attr));
    attr.sm_count = 108;
    attr.max_threads_per_block = 1024;
    attr.max_block[0] = attr.max_block[1] = 1024;
    attr.max_block[2] = 64;
    attr.max_grid[0] = 2147483647;
    attr.max_grid[1] = attr.max_grid[2] = 65535;
    attr.max_shared_per_block = 166912;
    attr.warp_size = 32;
    attr.cc = 80;
    attr.l2_bytes = 41943040;
    assert_int_equal(atune_jit_shape(j, c, &attr, "n=1000000", &d), ATUNE_OK);
    assert_dims(&d, 32 * 108, 128, 0);

    /* The large size: BLOCK_SIZE=256, VW=4, UNROLL=2, GRID=0. */
    assert_int_equal(atune_profile_lookup(p, "copy", "n=268435456", &c),
                     ATUNE_OK);
    assert_int_equal(atune_jit_shape(j, c, NULL, "n=268435456", &d), ATUNE_OK);
    assert_dims(&d, 268435456 / (4 * 2 * 256), 256, 0);
    assert_int_equal(atune_jit_shape(j, c, NULL, "n=1000001", &d), ATUNE_OK);
    assert_dims(&d, (1000001 + 2047) / 2048, 256, 0);

    /* Limits of the device: a block too large, a grid too large. */
    attr.max_threads_per_block = 128;
    assert_int_equal(atune_jit_shape(j, c, &attr, "n=1000", &d), ATUNE_ELAUNCH);
    assert_non_null(
        strstr(atune_jit_errmsg(j), "block of 256 threads exceeds 128"));
    assert_non_null(strstr(atune_jit_errmsg(j), "copy.ini"));
    assert_non_null(strstr(atune_jit_errmsg(j), "BLOCK_SIZE=256,VW=4"));
    attr.max_threads_per_block = 1024;
    attr.max_grid[0] = 100;
    assert_int_equal(atune_jit_shape(j, c, &attr, "n=1000000", &d),
                     ATUNE_ELAUNCH);
    assert_non_null(strstr(atune_jit_errmsg(j), "grid x of 489 exceeds 100"));
    /* n = 0 covers nothing: no grid. */
    assert_int_equal(atune_jit_shape(j, c, NULL, "n=0", &d), ATUNE_ELAUNCH);
    assert_non_null(strstr(atune_jit_errmsg(j), "below 1"));
    /* A success clears the message. */
    assert_int_equal(atune_jit_shape(j, c, NULL, "n=5", &d), ATUNE_OK);
    assert_string_equal(atune_jit_errmsg(j), "");
    atune_profile_close(p);
    atune_jit_close(j);
}

static void test_shape_bad_sizes(void **state)
{
    static const struct {
        const char *size, *msg;
    } bad[] = {
        {"", "expected NAME=VALUE"},
        {"n", "expected NAME=VALUE"},
        {"n=", "bad value"},
        {"n=abc", "bad value 'abc'"},
        {"n=12x", "bad value '12x'"},
        {"n=-1", "bad value '-1'"},
        {"n=99999999999999999999", "bad value"},
        {"=5", "bad value"},
        {"m=5", "no size variable 'm'"},
        {"n=5,m=5", "no size variable 'm'"},
        {"n=5,n=6", "'n' given twice"},
        {"n=5,", "expected NAME=VALUE"},
    };
    atune_jit *j = open_ok(NULL, "copy");
    atune_jit_dims d;

    (void)state;
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        int rc = atune_jit_shape(j, NULL, NULL, bad[i].size, &d);
        if (rc != ATUNE_EINVAL || !strstr(atune_jit_errmsg(j), bad[i].msg))
            fail_msg("size '%s': %s: '%s'", bad[i].size, atune_jit_strerror(rc),
                     atune_jit_errmsg(j));
    }
    assert_int_equal(atune_jit_shape(j, NULL, NULL, NULL, &d), ATUNE_EINVAL);
    assert_int_equal(atune_jit_shape(j, NULL, NULL, "n=5", NULL), ATUNE_EINVAL);
    assert_int_equal(atune_jit_shape(NULL, NULL, NULL, "n=5", &d),
                     ATUNE_EINVAL);
    atune_jit_close(j);
}

/* A constraint of the manifest, and an expression that cannot be
 * evaluated: ELAUNCH, naming the constraint or the file and line. */
static void test_shape_constraints(void **state)
{
    static const char ini[] =
        "[template]\nkernel = k\nreference = k\nreference_block = 32\n"
        "reference_grid = 1\nmetric = GB/s\nwork = n\n"
        "[sizes]\ns = n=32\n[params]\nP = 1, 0, 64\n"
        "[constraints]\nsmall = P < 64\n"
        "[launch]\nblock = 32\ngrid = n / P\n[args]\nout = int[n] output\n"
        "n = long n\n";
    char dir[4200], file[4300], profile[4300];
    atune_profile *p = NULL;
    const atune_config *c;
    atune_jit *j;
    atune_jit_dims d;

    (void)state;
    path_in(dir, sizeof(dir), tmp, "constraints");
    assert_int_equal(mkdir(dir, 0755), 0);
    path_in(file, sizeof(file), dir, "k.ini");
    write_text(file, ini);
    path_in(file, sizeof(file), dir, "k.cu");
    write_text(file, "extern \"C\" __global__ void k(int *o, long n) {}\n");
    path_in(profile, sizeof(profile), dir, "p.ini");
    write_text(profile, "[device]\nformat = 1\nname = X\ncc = 90\n"
                        "sm_count = 132\n"
                        "[k n=1]\nP = 0\n[k n=2]\nP = 64\n");
    j = open_ok(dir, "k");
    assert_int_equal(atune_jit_shape(j, NULL, NULL, "n=64", &d), ATUNE_OK);
    assert_dims(&d, 64, 32, 0);
    c = lookup(&p, profile, "k", "n=1");
    assert_int_equal(atune_jit_shape(j, c, NULL, "n=64", &d), ATUNE_ELAUNCH);
    if (!strstr(atune_jit_errmsg(j), "k.ini:16:") ||
        !strstr(atune_jit_errmsg(j), "division by zero"))
        fail_msg("%s", atune_jit_errmsg(j));
    assert_int_equal(atune_profile_lookup(p, "k", "n=2", &c), ATUNE_OK);
    assert_int_equal(atune_jit_shape(j, c, NULL, "n=64", &d), ATUNE_ELAUNCH);
    assert_non_null(strstr(atune_jit_errmsg(j), "constraint 'small'"));
    atune_profile_close(p);
    atune_jit_close(j);
}

/* --- staleness ------------------------------------------------------------ */

static void test_staleness(void **state)
{
    atune_jit *j = open_ok(NULL, "copy");
    char file[4200], text[2048];
    atune_profile *p = NULL;
    const atune_config *c;

    (void)state;
    /* The test profile records a hash of some other copy, one without
     * the EVICT parameter. */
    path_in(file, sizeof(file), source_dir(),
            "tests/data/profiles_good/h100.ini");
    c = lookup(&p, file, "copy", "n=1000000");
    assert_string_equal(atune_config_template_hash(c), "0123456789abcdef");
    assert_int_equal(atune_jit_stale(j, c),
                     ATUNE_JIT_STALE_HASH | ATUNE_JIT_STALE_PARAMS);
    atune_profile_close(p);
    assert_int_equal(atune_jit_stale(j, NULL), 0);
    assert_int_equal(atune_jit_stale(NULL, NULL), 0);

    /* This copy's hash: fresh; a missing or extra parameter: stale. */
    path_in(file, sizeof(file), tmp, "stale.ini");
    snprintf(text, sizeof(text),
             "[device]\nformat = 1\nname = X\ncc = 90\nsm_count = 132\n"
             "[copy n=1]\nBLOCK_SIZE = 256\nVW = 4\nUNROLL = 2\nGRID = 0\n"
             "EVICT = 0\ntemplate_hash = %s\n"
             "[copy n=2]\nBLOCK_SIZE = 256\nVW = 4\nGRID = 0\nEVICT = 0\n"
             "template_hash = %s\n"
             "[copy n=3]\nBLOCK_SIZE = 256\nVW = 4\nUNROLL = 2\nGRID = 0\n"
             "EVICT = 0\nEXTRA = 1\n"
             "[copy n=4]\nBLOCK_SIZE = 64\nVW = 1\nUNROLL = 1\nGRID = 0\n"
             "EVICT = 0\n",
             atune_jit_template_hash(j), atune_jit_template_hash(j));
    write_text(file, text);
    c = lookup(&p, file, "copy", "n=1");
    assert_int_equal(atune_jit_stale(j, c), 0);
    assert_int_equal(atune_profile_lookup(p, "copy", "n=2", &c), ATUNE_OK);
    assert_int_equal(atune_jit_stale(j, c), ATUNE_JIT_STALE_PARAMS);
    {
        /* The missing UNROLL takes its default, 1. */
        atune_jit_dims d;
        assert_int_equal(atune_jit_shape(j, c, NULL, "n=4096", &d), ATUNE_OK);
        assert_dims(&d, 4, 256, 0);
    }
    assert_int_equal(atune_profile_lookup(p, "copy", "n=3", &c), ATUNE_OK);
    assert_int_equal(atune_jit_stale(j, c), ATUNE_JIT_STALE_PARAMS);
    /* No hash recorded: nothing to compare, not stale. */
    assert_int_equal(atune_profile_lookup(p, "copy", "n=4", &c), ATUNE_OK);
    assert_int_equal(atune_jit_stale(j, c), 0);
    atune_profile_close(p);
    atune_jit_close(j);
}

/* A value the template does not list was never compiled or checked by
 * the tuner: reported as stale and refused by shape and build. */
static void test_value_not_in_list(void **state)
{
    atune_jit *j = open_ok(NULL, "copy");
    atune_config *c = NULL;
    atune_jit_kernel *k = NULL;
    atune_jit_dims d;

    (void)state;
    assert_int_equal(
        atune_config_from_string("copy",
                                 "BLOCK_SIZE=96,VW=1,UNROLL=1,GRID=0,EVICT=0",
                                 &c, NULL, 0),
        ATUNE_OK);
    assert_int_equal(atune_jit_stale(j, c), ATUNE_JIT_STALE_VALUE);
    assert_int_equal(atune_jit_shape(j, c, NULL, "n=4096", &d), ATUNE_EINVAL);
    assert_non_null(strstr(atune_jit_errmsg(j), "copy.ini:"));
    assert_non_null(strstr(atune_jit_errmsg(j),
                           "BLOCK_SIZE=96 is not one of the template's "
                           "values of BLOCK_SIZE (128, 64, 256, 512, 1024)"));
    /* Refused before any driver or context is needed. */
    assert_int_equal(atune_jit_build(j, c, &k), ATUNE_EINVAL);
    assert_non_null(strstr(atune_jit_errmsg(j), "BLOCK_SIZE=96 is not one"));
    assert_null(k);
    atune_config_set(c, "BLOCK_SIZE", 512);
    assert_int_equal(atune_jit_stale(j, c), 0);
    assert_int_equal(atune_jit_shape(j, c, NULL, "n=4096", &d), ATUNE_OK);
    assert_dims(&d, 8, 512, 0);
    atune_config_free(c);
    atune_jit_close(j);
}

/* --- the launch API: size from the arguments, declared types ------------- */

static void test_declare_args(void **state)
{
    atune_jit *j = open_ok(NULL, "copy");
    atune_jit *mm = open_ok(NULL, "matmul");
    int *in = NULL;
    CUdeviceptr out = 0;
    long n = 3000017;
    int n32 = 3000017, m = 64, *tickets = NULL;
    float *f = NULL;
    atune_jit_type good[] = {ATUNE_JIT_TYPE_OF(in), ATUNE_JIT_TYPE_OF(out),
                             ATUNE_JIT_TYPE_OF(n)};
    atune_jit_type narrow[] = {ATUNE_JIT_TYPE_OF(in), ATUNE_JIT_TYPE_OF(out),
                               ATUNE_JIT_TYPE_OF(n32)};
    atune_jit_type floats[] = {ATUNE_JIT_TYPE_OF(f), ATUNE_JIT_TYPE_OF(out),
                               ATUNE_JIT_TYPE_OF(n)};
    atune_jit_type mmt[] = {ATUNE_JIT_TYPE_OF(f), ATUNE_JIT_TYPE_OF(f),
                            ATUNE_JIT_TYPE_OF(f), ATUNE_JIT_TYPE_OF(m),
                            ATUNE_JIT_TYPE_OF(m), ATUNE_JIT_TYPE_OF(m),
                            ATUNE_JIT_TYPE_OF(f), ATUNE_JIT_TYPE_OF(tickets),
                            ATUNE_JIT_TYPE_OF(f)};

    (void)state;
    assert_int_equal(good[0], ATUNE_JIT_PTR_INT);
    assert_int_equal(good[1], ATUNE_JIT_PTR);
    assert_int_equal(good[2], ATUNE_JIT_LONG);
    assert_int_equal(atune_jit_declare_args(j, good, 3), ATUNE_OK);
    assert_string_equal(atune_jit_errmsg(j), "");
    /* n is a 64-bit long in the kernel: an int would be read past its end. */
    assert_int_equal(atune_jit_declare_args(j, narrow, 3), ATUNE_EINVAL);
    assert_non_null(strstr(atune_jit_errmsg(j), "copy.ini:"));
    assert_non_null(strstr(atune_jit_errmsg(j),
                           "argument 3 'n' is long (64-bit) in the kernel, "
                           "the application passes int"));
    assert_int_equal(atune_jit_declare_args(j, floats, 3), ATUNE_EINVAL);
    assert_non_null(strstr(atune_jit_errmsg(j),
                           "argument 1 'in' is a pointer to int in the "
                           "kernel, the application passes float *"));
    assert_int_equal(atune_jit_declare_args(j, good, 2), ATUNE_EINVAL);
    assert_non_null(strstr(atune_jit_errmsg(j), "2 argument types for the 3"));
    assert_int_equal(atune_jit_declare_args(j, NULL, 3), ATUNE_EINVAL);
    assert_int_equal(atune_jit_declare_args(NULL, good, 3), ATUNE_EINVAL);
    /* matmul's split-K workspace, tickets and sums follow m, n, k. */
    assert_int_equal(atune_jit_declare_args(mm, mmt, 8), ATUNE_EINVAL);
    assert_int_equal(atune_jit_declare_args(mm, mmt, 9), ATUNE_OK);
    assert_int_equal(atune_jit_run(NULL, NULL, NULL), ATUNE_EINVAL);
    atune_jit_close(mm);
    atune_jit_close(j);
}

/* Element types the type tags do not name (tests/data/verify/types):
 * buffers of half, bf16 and vectors are ATUNE_JIT_PTR, a struct passed by
 * value ATUNE_JIT_UNKNOWN. */
static void test_declare_other_types(void **state)
{
    char dir[4096];
    atune_jit *j;
    atune_jit_type t[] = {ATUNE_JIT_PTR, ATUNE_JIT_PTR,     ATUNE_JIT_PTR,
                          ATUNE_JIT_PTR, ATUNE_JIT_UNKNOWN, ATUNE_JIT_PTR,
                          ATUNE_JIT_PTR, ATUNE_JIT_PTR_INT, ATUNE_JIT_LONG};

    (void)state;
    path_in(dir, sizeof(dir), source_dir(), "tests/data/verify");
    j = open_ok(dir, "types");
    assert_int_equal(atune_jit_declare_args(j, t, 9), ATUNE_OK);
    t[2] = ATUNE_JIT_PTR_FLOAT;
    assert_int_equal(atune_jit_declare_args(j, t, 9), ATUNE_EINVAL);
    assert_non_null(strstr(atune_jit_errmsg(j),
                           "argument 3 'v' is a pointer to float4 in the "
                           "kernel: declare it ATUNE_JIT_PTR"));
    t[2] = ATUNE_JIT_PTR;
    t[0] = ATUNE_JIT_PTR_INT;
    assert_int_equal(atune_jit_declare_args(j, t, 9), ATUNE_EINVAL);
    assert_non_null(strstr(atune_jit_errmsg(j),
                           "argument 1 'h' is a pointer to half in the"));
    t[0] = ATUNE_JIT_PTR;
    t[4] = ATUNE_JIT_LONG;
    assert_int_equal(atune_jit_declare_args(j, t, 9), ATUNE_EINVAL);
    assert_non_null(strstr(atune_jit_errmsg(j),
                           "argument 5 'p' is a struct of 16 bytes passed "
                           "by value: declare it ATUNE_JIT_UNKNOWN"));
    atune_jit_close(j);
}

/* The size of a launch is the one in the kernel's arguments. */
static void test_shape_from_args(void **state)
{
    atune_jit *j = open_ok(NULL, "copy");
    atune_jit *mm = open_ok(NULL, "matmul");
    CUdeviceptr in = 0, out = 0;
    long n = 3000017, neg = -1;
    int m = 1000, nn = 2000, k = 3000;
    void *args[] = {&in, &out, &n};
    void *bad[] = {&in, &out, &neg};
    void *mmargs[] = {&in, &in, &out, &m, &nn, &k, &out, &out};
    atune_jit_dims a, b;

    (void)state;
    assert_int_equal(atune_jit_shape_args(j, NULL, NULL, args, &a), ATUNE_OK);
    assert_int_equal(atune_jit_shape(j, NULL, NULL, "n=3000017", &b), ATUNE_OK);
    assert_memory_equal(&a, &b, sizeof(a));
    assert_dims(&a, (3000017 + 127) / 128, 128, 0);
    assert_int_equal(atune_jit_shape_args(j, NULL, NULL, bad, &a),
                     ATUNE_EINVAL);
    assert_non_null(strstr(atune_jit_errmsg(j), "argument 3 'n' is -1"));
    assert_int_equal(atune_jit_shape_args(j, NULL, NULL, NULL, &a),
                     ATUNE_EINVAL);
    /* matmul: int m, n, k; grid = cdiv(n, BN), cdiv(m, BM). */
    assert_int_equal(atune_jit_shape_args(mm, NULL, NULL, mmargs, &a),
                     ATUNE_OK);
    assert_int_equal(a.grid[0], (2000 + 15) / 16);
    assert_int_equal(a.grid[1], (1000 + 15) / 16);
    assert_int_equal(a.block[0], 16);
    assert_int_equal(a.block[1], 16);
    atune_jit_close(mm);
    atune_jit_close(j);
}

/* A profile entry forbidden at the wanted size is never handed out. */
static void test_config_for_falls_back(void **state)
{
    static const char dev[] =
        "[device]\nformat = 1\nname = X\ncc = 90\nsm_count = 132\n";
    static const char big[] =
        "[matmul m=4096,n=4096,k=4096]\nWT = 1\nBM = 128\nBN = 64\nBK = 16\n"
        "WM = 32\nWN = 32\nTM = 8\nTN = 4\nWNITER = 1\nVEC = 1\nSTAGES = 3\n"
        "GROUP_M = 1\n";
    static const char mid[] =
        "[matmul m=1024,n=1024,k=1024]\nWT = 0\nBM = 16\nBN = 16\nBK = 16\n"
        "WM = 16\nWN = 16\nTM = 1\nTN = 1\nWNITER = 1\nVEC = 0\nSTAGES = 1\n"
        "GROUP_M = 1\n";
    atune_jit *j = open_ok(NULL, "matmul");
    char file[4200], text[1024], msg[512];
    atune_profile *p = NULL;
    const atune_config *c = NULL;
    atune_jit_dims d;

    (void)state;
    path_in(file, sizeof(file), tmp, "fallback.ini");
    snprintf(text, sizeof(text), "%s%s%s", dev, big, mid);
    write_text(file, text);
    assert_int_equal(atune_profile_open(file, &p), ATUNE_OK);
    /* The nearest entry, VEC=1, is valid at k=4096 ... */
    assert_int_equal(atune_jit_config_for(j, p, "m=4096,n=4096,k=4096", NULL,
                                          &c, msg, sizeof(msg)),
                     ATUNE_OK);
    assert_non_null(c);
    assert_int_equal(atune_config_get(c, "VEC", -1), 1);
    assert_non_null(strstr(msg, "using tuned size m=4096,n=4096,k=4096"));
    /* ... but not at k=4094: the next valid tuned entry, and why. */
    assert_int_equal(atune_jit_config_for(j, p, "m=4096,n=4096,k=4094", NULL,
                                          &c, msg, sizeof(msg)),
                     ATUNE_OK);
    assert_non_null(c);
    assert_string_equal(atune_config_size(c), "m=1024,n=1024,k=1024");
    assert_int_equal(atune_config_get(c, "WT", -1), 0);
    assert_non_null(strstr(msg, "constraint 'vec_aligned' is false"));
    assert_non_null(strstr(msg, "using the tuned entry of m=1024,n=1024"));
    assert_int_equal(atune_jit_shape(j, c, NULL, "m=4096,n=4096,k=4094", &d),
                     ATUNE_OK);
    atune_profile_close(p);

    /* No other entry: the defaults. */
    snprintf(text, sizeof(text), "%s%s", dev, big);
    write_text(file, text);
    assert_int_equal(atune_profile_open(file, &p), ATUNE_OK);
    c = (const atune_config *)&c;
    assert_int_equal(atune_jit_config_for(j, p, "m=4096,n=4096,k=4094", NULL,
                                          &c, msg, sizeof(msg)),
                     ATUNE_OK);
    assert_null(c);
    assert_non_null(strstr(msg, "using the template's defaults"));
    assert_int_equal(atune_jit_config_for(j, NULL, "m=1,n=1,k=1", NULL, &c, msg,
                                          sizeof(msg)),
                     ATUNE_OK);
    assert_null(c);
    assert_non_null(strstr(msg, "no profile"));
    assert_int_equal(
        atune_jit_config_for(j, p, "n=4", NULL, &c, msg, sizeof(msg)),
        ATUNE_EINVAL);
    atune_profile_close(p);
    atune_jit_close(j);
}

/* An entry that cannot run at a size only because of its launch-only
 * parameters is served with those at their defaults (matmul's stream-K,
 * allowed only where the last wave of tiles is short): its tiles, not
 * another size's. */
static void test_config_for_relaunch(void **state)
{
    static const char text[] =
        "[device]\nformat = 1\nname = X\ncc = 90\nsm_count = 132\n"
        "[matmul m=1037,n=1037,k=1037]\nWT = 1\nBM = 128\nBN = 64\nBK = 16\n"
        "WM = 32\nWN = 32\nTM = 8\nTN = 4\nWNITER = 1\nVEC = 2\nSTAGES = 2\n"
        "GROUP_M = 1\nSPLITK = 1\nSKB = 2\n"
        "[matmul m=513,n=513,k=513]\nWT = 1\nBM = 64\nBN = 64\nBK = 16\n"
        "WM = 32\nWN = 32\nTM = 8\nTN = 4\nWNITER = 1\nVEC = 2\nSTAGES = 1\n"
        "GROUP_M = 1\nSPLITK = 1\nSKB = 0\n"
        "[matmul m=4096,n=4096,k=4096]\nWT = 1\nBM = 128\nBN = 64\nBK = 16\n"
        "WM = 32\nWN = 32\nTM = 8\nTN = 4\nWNITER = 1\nVEC = 1\nSTAGES = 3\n"
        "GROUP_M = 1\nSPLITK = 1\nSKB = 0\n";
    atune_jit *j = open_ok(NULL, "matmul");
    char file[4200], msg[512];
    atune_profile *p = NULL;
    const atune_config *c = NULL, *again = NULL;
    atune_jit_dims d;

    (void)state;
    path_in(file, sizeof(file), tmp, "relaunch.ini");
    write_text(file, text);
    assert_int_equal(atune_profile_open(file, &p), ATUNE_OK);
    /* At its own size: the entry as tuned. */
    assert_int_equal(atune_jit_config_for(j, p, "m=1037,n=1037,k=1037", NULL,
                                          &c, msg, sizeof(msg)),
                     ATUNE_OK);
    assert_int_equal(atune_config_get(c, "SKB", -1), 2);
    /* 1001^3: 128 tiles of 128 x 64 on 132 SMs, no short last wave, so no
     * stream-K; 1037^3's tiles with one block per tile, not 513^3's. */
    assert_int_equal(atune_jit_config_for(j, p, "m=1001,n=1001,k=1001", NULL,
                                          &c, msg, sizeof(msg)),
                     ATUNE_OK);
    assert_non_null(c);
    assert_int_equal(atune_config_get(c, "SKB", -1), 0);
    assert_int_equal(atune_config_get(c, "BM", -1), 128);
    assert_int_equal(atune_config_get(c, "STAGES", -1), 2);
    if (!strstr(msg, "cannot run here") ||
        !strstr(msg, "launch at the defaults (SKB=0)"))
        fail_msg("%s", msg);
    assert_int_equal(atune_jit_shape(j, c, NULL, "m=1001,n=1001,k=1001", &d),
                     ATUNE_OK);
    /* The same values again: the same configuration, not a new one. */
    assert_int_equal(atune_jit_config_for(j, p, "m=1001,n=1001,k=1003", NULL,
                                          &again, msg, sizeof(msg)),
                     ATUNE_OK);
    assert_ptr_equal(again, c);
    /* 3001^3: the nearest entry (4096^3, VEC=1) cannot run with unaligned
     * rows; of the others the nearest that can, with its launch at the
     * defaults, is 1037^3's, before 513^3's as tuned. */
    assert_int_equal(atune_jit_config_for(j, p, "m=3001,n=3001,k=3001", NULL,
                                          &again, msg, sizeof(msg)),
                     ATUNE_OK);
    assert_ptr_equal(again, c);
    if (!strstr(msg, "using the tuned entry of m=1037,n=1037,k=1037 with its "
                     "launch at the defaults (SKB=0)"))
        fail_msg("%s", msg);
    atune_profile_close(p);
    atune_jit_close(j);
}

/* Far from every tuned size (more than a factor 4 away), the look-up
 * serves the entry and launch-only values whose time, predicted from its
 * tuned time and its grid's waves, is shortest (appjit_lookup.c): at 339
 * x 122 x 15142 six 128 x 64 tiles split in 32 slices of k summed with
 * atomics, not 363^3's 64 x 64 kernel without split-K (times: an H200's,
 * 2026-11-27; brute force on an H100, 2026-11-28: that kernel's fastest
 * launch there, 65.0 us, against 72.0 us in 16 slices summed in order). */
static void test_config_for_far_shape(void **state)
{
    static const char text[] =
        "[device]\nformat = 1\nname = X\ncc = 90\nsm_count = 132\n"
        "[matmul m=1449,n=1449,k=1449]\nWT = 1\nBM = 128\nBN = 64\nBK = 16\n"
        "WM = 32\nWN = 32\nTM = 8\nTN = 4\nWNITER = 1\nVEC = 2\nSTAGES = 2\n"
        "GROUP_M = 1\nSPLITK = 1\nSKB = 2\ntime_ns = 207392\n"
        "[matmul m=363,n=363,k=363]\nWT = 1\nBM = 64\nBN = 64\nBK = 16\n"
        "WM = 32\nWN = 32\nTM = 8\nTN = 4\nWNITER = 1\nVEC = 2\nSTAGES = 1\n"
        "GROUP_M = 1\nSPLITK = 1\nSKB = 0\ntime_ns = 21088\n";
    atune_jit *j = open_ok(NULL, "matmul");
    char file[4200], msg[768];
    atune_profile *p = NULL;
    const atune_config *c = NULL, *again = NULL;
    atune_jit_dims d;

    (void)state;
    path_in(file, sizeof(file), tmp, "far.ini");
    write_text(file, text);
    assert_int_equal(atune_profile_open(file, &p), ATUNE_OK);
    assert_int_equal(atune_jit_config_for(j, p, "m=339,n=122,k=15142", NULL,
                                          &c, msg, sizeof(msg)),
                     ATUNE_OK);
    assert_non_null(c);
    assert_int_equal(atune_config_get(c, "BM", -1), 128);
    assert_int_equal(atune_config_get(c, "SPLITK", -1), 32);
    assert_int_equal(atune_config_get(c, "SKB", -1), 0);
    assert_int_equal(atune_config_get(c, "RED", -1), 1);
    if (!strstr(msg, "using the tuned entry of m=1449,n=1449,k=1449 with "
                     "SPLITK=32,SKB=0,RED=1, the fastest predicted"))
        fail_msg("%s", msg);
    assert_int_equal(atune_jit_shape(j, c, NULL, "m=339,n=122,k=15142", &d),
                     ATUNE_OK);
    assert_int_equal(d.grid[2], 32);
    /* The same values again: the same configuration. */
    assert_int_equal(atune_jit_config_for(j, p, "m=341,n=122,k=15142", NULL,
                                          &again, msg, sizeof(msg)),
                     ATUNE_OK);
    assert_ptr_equal(again, c);
    /* Within a factor 4 of a tuned size: a template with block_cost is
     * served by the model there too; here it picks the nearest entry. */
    assert_int_equal(atune_jit_config_for(j, p, "m=401,n=401,k=401", NULL,
                                          &c, msg, sizeof(msg)),
                     ATUNE_OK);
    assert_string_equal(atune_config_size(c), "m=363,n=363,k=363");
    if (!strstr(msg, "not tuned (the nearest, m=363,n=363,k=363, is within "
                     "a factor 4); using the tuned entry of "
                     "m=363,n=363,k=363, the fastest predicted"))
        fail_msg("%s", msg);
    /* 1001^3: 1449^3's stream-K cannot run (128 tiles on 132 SMs), nor
     * the copy split 16 ways made above (k = 1001); its tiles in two
     * slices can, and the model predicts them fastest. */
    assert_int_equal(atune_jit_config_for(j, p, "m=1001,n=1001,k=1001", NULL,
                                          &c, msg, sizeof(msg)),
                     ATUNE_OK);
    assert_int_equal(atune_config_get(c, "BM", -1), 128);
    assert_int_equal(atune_config_get(c, "SPLITK", -1), 2);
    assert_int_equal(atune_config_get(c, "SKB", -1), 0);
    assert_int_equal(atune_jit_shape(j, c, NULL, "m=1001,n=1001,k=1001", &d),
                     ATUNE_OK);
    if (!strstr(msg, "using the tuned entry of m=1449,n=1449,k=1449 with "
                     "SPLITK=2,SKB=0"))
        fail_msg("%s", msg);
    atune_profile_close(p);
    atune_jit_close(j);
}

/* Between ladder points the nearest entry is vetoed when its grid would
 * pad much more at the wanted size than at its own (appjit_lookup.c):
 * constmem's blocks span BLOCK_X * PPT columns. */
static void test_config_for_padding(void **state)
{
    static const char text[] =
        "[device]\nformat = 1\nname = X\ncc = 90\nsm_count = 132\n"
        /* 1024 columns a block: 3 at 2897, 4 at 3157 (+23%). */
        "[constmem w=2897,h=2897]\nMEM = 1\nBLOCK_X = 64\nBLOCK_Y = 2\n"
        "PPT = 16\n"
        /* 256 columns a block: 13 at 3157, 17 at 4097. */
        "[constmem w=4097,h=4097]\nMEM = 1\nBLOCK_X = 16\nBLOCK_Y = 4\n"
        "PPT = 16\n"
        /* More than a doubling away from 3157: never a neighbour. */
        "[constmem w=1025,h=1025]\nMEM = 1\nBLOCK_X = 16\nBLOCK_Y = 8\n"
        "PPT = 1\n";
    atune_jit *j = open_ok(NULL, "constmem");
    char file[4200], msg[512];
    atune_profile *p = NULL;
    const atune_config *c = NULL;

    (void)state;
    path_in(file, sizeof(file), tmp, "padding.ini");
    write_text(file, text);
    assert_int_equal(atune_profile_open(file, &p), ATUNE_OK);
    /* 3157 is nearest to 2897, whose grid pads 23% more there. */
    assert_int_equal(atune_jit_config_for(j, p, "w=3157,h=3157", NULL, &c, msg,
                                          sizeof(msg)),
                     ATUNE_OK);
    assert_non_null(c);
    assert_string_equal(atune_config_size(c), "w=4097,h=4097");
    assert_non_null(strstr(msg, "the tuned entry of w=2897,h=2897 (nearest) "
                                "would launch 23% more padded blocks"));
    assert_non_null(strstr(msg, "using the tuned entry of w=4097,h=4097"));
    /* 2846 fits 2897's three block columns as well: the nearest stays. */
    assert_int_equal(atune_jit_config_for(j, p, "w=2846,h=2846", NULL, &c, msg,
                                          sizeof(msg)),
                     ATUNE_OK);
    assert_string_equal(atune_config_size(c), "w=2897,h=2897");
    assert_non_null(strstr(msg, "using tuned size w=2897,h=2897"));
    /* At a tuned size, its own entry. */
    assert_int_equal(atune_jit_config_for(j, p, "w=2897,h=2897", NULL, &c, msg,
                                          sizeof(msg)),
                     ATUNE_OK);
    assert_string_equal(atune_config_size(c), "w=2897,h=2897");
    /* 1025's blocks span 16 columns and pad little anywhere; 2897 is over
     * a doubling away. */
    assert_int_equal(atune_jit_config_for(j, p, "w=1100,h=1100", NULL, &c, msg,
                                          sizeof(msg)),
                     ATUNE_OK);
    assert_string_equal(atune_config_size(c), "w=1025,h=1025");
    atune_profile_close(p);
    atune_jit_close(j);
}

/* --- build and launch without a GPU -------------------------------------- */

static void test_build_without_gpu(void **state)
{
    atune_jit *j = open_ok(NULL, "copy");
    atune_jit_kernel *k = (atune_jit_kernel *)&k;
    atune_jit_attr attr;
    atune__err err = {0};
    int rc;

    (void)state;
    rc = atune_jit_build(j, NULL, &k);
    assert_null(k);
    if (!atune__cudrv_load(&err)) {
        /* No driver: the reason, as the tuner words it. */
        assert_int_equal(rc, ATUNE_ENODEV);
        assert_string_equal(atune_jit_errmsg(j), err.msg);
        assert_int_equal(atune_jit_attr_query(j, 0, &attr), ATUNE_ENODEV);
    } else {
        /* A driver, but this process never made a context current. */
        assert_int_equal(rc, ATUNE_EINVAL);
        assert_non_null(strstr(atune_jit_errmsg(j), "no current CUDA context"));
    }
    assert_int_equal(atune_jit_build(j, NULL, NULL), ATUNE_EINVAL);
    assert_int_equal(atune_jit_build(NULL, NULL, &k), ATUNE_EINVAL);
    assert_int_equal(atune_jit_launch(NULL, "n=1", NULL, NULL), ATUNE_EINVAL);
    assert_null(atune_jit_kernel_function(NULL));
    assert_null(atune_jit_kernel_module(NULL));
    assert_int_equal(atune_jit_kernel_cached(NULL), 0);
    assert_int_equal(atune_jit_kernel_config(NULL, NULL, 0), ATUNE_EINVAL);
    atune_jit_close(j);
}

static void test_cache_settings(void **state)
{
    atune_jit *j = open_ok(NULL, "copy");
    char dir[4400], file[4300];
    long hits = -1, misses = -1;

    (void)state;
    atune_jit_cache_stats(j, &hits, &misses);
    assert_int_equal(hits, 0);
    assert_int_equal(misses, 0);
    assert_int_equal(atune_jit_set_cache_dir(j, NULL), ATUNE_OK);
    path_in(dir, sizeof(dir), tmp, "jitcache/a/b");
    assert_int_equal(atune_jit_set_cache_dir(j, dir), ATUNE_OK);
    assert_int_equal(access(dir, W_OK), 0);
    path_in(file, sizeof(file), tmp, "plainfile");
    write_text(file, "x");
    path_in(dir, sizeof(dir), file, "sub");
    assert_int_equal(atune_jit_set_cache_dir(j, dir), ATUNE_EIO);
    assert_non_null(strstr(atune_jit_errmsg(j), "cannot create"));
    assert_int_equal(atune_jit_set_cache_dir(NULL, dir), ATUNE_EINVAL);
    atune_jit_cache_stats(NULL, &hits, &misses);
    assert_int_equal(hits + misses, 0);
    atune_jit_close(j);
}

static void test_strings(void **state)
{
    (void)state;
    assert_string_equal(atune_jit_strerror(ATUNE_ECOMPILE),
                        "template does not compile");
    assert_string_equal(atune_jit_strerror(ATUNE_ENODEV),
                        "no usable CUDA driver or GPU");
    assert_string_equal(atune_jit_strerror(ATUNE_ECUDA),
                        "CUDA driver call failed");
    assert_string_equal(atune_jit_strerror(ATUNE_ELAUNCH),
                        "configuration cannot launch at this size");
    assert_string_equal(atune_jit_strerror(ATUNE_OK), atune_strerror(ATUNE_OK));
    assert_string_equal(atune_jit_strerror(ATUNE_EPARSE),
                        atune_strerror(ATUNE_EPARSE));
    assert_string_equal(atune_jit_strerror(12345), "unknown status");
    /* The new statuses do not collide with atune.h's. */
    assert_string_equal(atune_strerror(ATUNE_ECOMPILE), "unknown status");
    assert_string_equal(atune_jit_errmsg(NULL), "out of memory");
    assert_string_equal(atune_jit_template_hash(NULL), "");
    atune_jit_close(NULL);
}

/* --- fixture -------------------------------------------------------------- */

static int setup(void **state)
{
    char dir[4200];

    (void)state;
    if (!mkdtemp(tmp))
        return -1;
    /* Nothing here may write to the user's cache. */
    snprintf(dir, sizeof(dir), "%s/cache", tmp);
    setenv("ATUNE_CACHE_DIR", dir, 1);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    rm_rf(tmp);
    return 0;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_open_builtin_and_dir),
        cmocka_unit_test(test_open_errors),
        cmocka_unit_test(test_malformed_manifest),
        cmocka_unit_test(test_nvrtc_options_refused),
        cmocka_unit_test(test_shape_defaults),
        cmocka_unit_test(test_shape_from_profile),
        cmocka_unit_test(test_shape_bad_sizes),
        cmocka_unit_test(test_shape_constraints),
        cmocka_unit_test(test_staleness),
        cmocka_unit_test(test_value_not_in_list),
        cmocka_unit_test(test_declare_args),
        cmocka_unit_test(test_declare_other_types),
        cmocka_unit_test(test_shape_from_args),
        cmocka_unit_test(test_config_for_falls_back),
        cmocka_unit_test(test_config_for_relaunch),
        cmocka_unit_test(test_config_for_far_shape),
        cmocka_unit_test(test_config_for_padding),
        cmocka_unit_test(test_build_without_gpu),
        cmocka_unit_test(test_cache_settings),
        cmocka_unit_test(test_strings),
    };

    return cmocka_run_group_tests_name("appjit", tests, setup, teardown);
}
