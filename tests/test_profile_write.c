/* test_profile_write.c -- the profile writer: exact output, round trip
 * through the library, merging, refusing what the reader could not read,
 * atomic replacement, the lock between concurrent writers and the
 * compare-and-swap write of one section. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "atune/atune.h"
#include "measure/profile_write.h"
#include "base/util.h"

static const char *source_dir;

/* ---- fixtures ----------------------------------------------------------- */

typedef struct fixture {
    char dir[4096];
    char path[4200]; /* dir/nvidia-h100-80gb-hbm3.ini */
} fixture;

static int setup(void **state)
{
    const char *tmp = getenv("TMPDIR");
    fixture *f = calloc(1, sizeof(*f));

    if (!f)
        return -1;
    snprintf(f->dir, sizeof(f->dir), "%s/atune-pw-XXXXXX",
             tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(f->dir)) {
        free(f);
        return -1;
    }
    snprintf(f->path, sizeof(f->path), "%s/nvidia-h100-80gb-hbm3.ini", f->dir);
    *state = f;
    return 0;
}

/* Removes the directory and the files the tests left in it. */
static int teardown(void **state)
{
    fixture *f = *state;
    DIR *d;
    struct dirent *de;
    char path[8192];

    chmod(f->dir, 0700);
    d = opendir(f->dir);
    while (d && (de = readdir(d)) != NULL) {
        if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
            continue;
        snprintf(path, sizeof(path), "%s/%s", f->dir, de->d_name);
        if (unlink(path) != 0)
            rmdir(path);
    }
    if (d)
        closedir(d);
    rmdir(f->dir);
    free(f);
    return 0;
}

static atune__pw_device device(void)
{
    atune__pw_device d;

    memset(&d, 0, sizeof(d));
    strcpy(d.name, "NVIDIA H100 80GB HBM3");
    strcpy(d.slug, "nvidia-h100-80gb-hbm3");
    d.cc = 90;
    d.sm_count = 132;
    d.mem_bandwidth_gbs = 3352;
    d.l2_bytes = 52428800;
    d.driver = 13000;
    d.nvrtc = 13000;
    strcpy(d.uuid, "GPU-5f1c0e2a-1b3c-4d5e-8f90-a1b2c3d4e5f6");
    strcpy(d.date, "2026-11-22");
    strcpy(d.tuner, "0.1.0");
    return d;
}

static atune__pw_entry copy_entry(int64_t block)
{
    atune__pw_entry e;
    static const char *const names[] = {"BLOCK_SIZE", "VW", "UNROLL", "GRID"};
    const int64_t values[] = {block, 4, 2, 0};

    memset(&e, 0, sizeof(e));
    strcpy(e.kernel, "copy");
    strcpy(e.size_key, "n=268435456");
    strcpy(e.size_name, "large");
    e.nparams = 4;
    for (int i = 0; i < 4; i++) {
        strcpy(e.param[i], names[i]);
        e.value[i] = values[i];
    }
    e.time_ns = 712345;
    e.spread_ns = 1234;
    e.metric = 3015.23;
    strcpy(e.metric_unit, "GB/s");
    e.default_time_ns = 900000;
    e.evaluated = 315;
    e.space = 315;
    strcpy(e.strategy, "brute_force");
    strcpy(e.template_hash, "0123456789abcdef");
    return e;
}

static atune__pw_entry matmul_entry(const char *size_key, int64_t tile)
{
    atune__pw_entry e;

    memset(&e, 0, sizeof(e));
    strcpy(e.kernel, "matmul");
    snprintf(e.size_key, sizeof(e.size_key), "%s", size_key);
    e.nparams = 2;
    strcpy(e.param[0], "TILE");
    e.value[0] = tile;
    strcpy(e.param[1], "NEG");
    e.value[1] = -tile;
    e.time_ns = 4200000 + tile;
    e.metric = 32720.06;
    strcpy(e.metric_unit, "GFLOP/s");
    e.evaluated = 12;
    e.space = 40;
    strcpy(e.strategy, "random");
    return e;
}

static void update_ok(const char *path, const atune__pw_entry *e, int n)
{
    atune__pw_device d = device();
    atune__err err = {0, ""};
    int rc = atune__profile_update(path, &d, e, n, &err);

    if (rc != ATUNE__OK)
        fail_msg("update failed (%d): %s", rc, err.msg);
}

static void update_fails(const char *path, const atune__pw_device *d,
                         const atune__pw_entry *e, int n, int code,
                         const char *text)
{
    atune__err err = {0, ""};
    int rc = atune__profile_update(path, d, e, n, &err);

    if (rc != code || !strstr(err.msg, text))
        fail_msg("got %d '%s', expected %d '%s'", rc, err.msg, code, text);
}

static char *slurp(const char *path)
{
    char *text = NULL;

    if (atune__read_file(path, &text, NULL, NULL) != ATUNE__OK)
        return NULL;
    return text;
}

static void spit(const char *path, const char *text)
{
    FILE *f = fopen(path, "wb");

    assert_non_null(f);
    assert_int_equal(fputs(text, f) >= 0, 1);
    assert_int_equal(fclose(f), 0);
}

/* Files in dir whose name contains part. */
static int count_files(const char *dir, const char *part)
{
    DIR *d = opendir(dir);
    struct dirent *de;
    int n = 0;

    assert_non_null(d);
    while ((de = readdir(d)) != NULL)
        n += strstr(de->d_name, part) != NULL;
    closedir(d);
    return n;
}

static atune_profile *open_ok(const char *path)
{
    atune_profile *p = NULL;

    if (atune_profile_open(path, &p) != ATUNE_OK)
        fail_msg("%s", atune_profile_errmsg(p));
    return p;
}

static const atune_config *lookup_ok(atune_profile *p, const char *kernel,
                                     const char *size)
{
    const atune_config *c = NULL;

    if (atune_profile_lookup(p, kernel, size, &c) != ATUNE_OK)
        fail_msg("%s %s: %s", kernel, size, atune_profile_errmsg(p));
    assert_int_equal(atune_config_size_match(c), ATUNE_SIZE_EXACT);
    return c;
}

/* ---- names -------------------------------------------------------------- */

static void expect_slug(const char *name, size_t len, const char *slug)
{
    char buf[128];

    memset(buf, 'X', sizeof(buf));
    atune__slugify(name, buf, len);
    assert_string_equal(buf, slug);
}

static void test_slugify(void **state)
{
    (void)state;
    expect_slug("NVIDIA H100 80GB HBM3", 128, "nvidia-h100-80gb-hbm3");
    expect_slug("NVIDIA A100-SXM4-80GB", 128, "nvidia-a100-sxm4-80gb");
    expect_slug("  --NVIDIA  GeForce RTX 4090!! ", 128,
                "nvidia-geforce-rtx-4090");
    expect_slug("Tesla V100-PCIE-16GB (MIG 1g.5gb)", 128,
                "tesla-v100-pcie-16gb-mig-1g-5gb");
    expect_slug("\xC3\x84rger GPU", 128, "rger-gpu"); /* non-ASCII */
    expect_slug("", 128, "");
    expect_slug("!!!", 128, "");
    /* Truncated, but never ending in '-'. */
    expect_slug("ab cd ef", 6, "ab-cd");
    expect_slug("ab cd ef", 5, "ab-c");
    expect_slug("ab cd", 4, "ab");
    expect_slug("abc", 1, "");
}

static void test_section_name(void **state)
{
    char buf[64];

    (void)state;
    atune__pw_section("matmul", "m=4096,n=4096,k=4096", buf, sizeof(buf));
    assert_string_equal(buf, "matmul m=4096,n=4096,k=4096");
    atune__pw_section("copy", "n=1", buf, 5);
    assert_string_equal(buf, "copy");
}

/* ---- writing ------------------------------------------------------------- */

/* The exact text of a fresh profile: the format pinned byte for byte. */
static void test_exact_output(void **state)
{
    fixture *f = *state;
    atune__pw_entry e[2] = {copy_entry(256),
                            matmul_entry("m=4096,n=4096,k=4096", 32)};
    char *text;

    update_ok(f->path, e, 2);
    text = slurp(f->path);
    assert_non_null(text);
    assert_string_equal(
        text, "; autotune profile: one GPU model. Written by autotune 0.1.0.\n"
              "[device]\n"
              "format = 2\n"
              "name = NVIDIA H100 80GB HBM3\n"
              "slug = nvidia-h100-80gb-hbm3\n"
              "cc = 90\n"
              "sm_count = 132\n"
              "mem_bandwidth_gbs = 3352\n"
              "l2_bytes = 52428800\n"
              "driver = 13000\n"
              "nvrtc = 13000\n"
              "uuid = GPU-5f1c0e2a-1b3c-4d5e-8f90-a1b2c3d4e5f6\n"
              "date = 2026-11-22\n"
              "tuner = 0.1.0\n"
              "\n"
              "[copy n=268435456]\n"
              "size = large\n"
              "BLOCK_SIZE = 256\n"
              "VW = 4\n"
              "UNROLL = 2\n"
              "GRID = 0\n"
              "time_ns = 712345\n"
              "spread_ns = 1234\n"
              "metric = 3015.2 GB/s\n"
              "default_time_ns = 900000\n"
              "evaluated = 315\n"
              "space = 315\n"
              "strategy = brute_force\n"
              "template_hash = 0123456789abcdef\n"
              "\n"
              "[matmul m=4096,n=4096,k=4096]\n"
              "TILE = 32\n"
              "NEG = -32\n"
              "time_ns = 4200032\n"
              "spread_ns = 0\n"
              "metric = 32720.1 GFLOP/s\n"
              "default_time_ns = 0\n"
              "evaluated = 12\n"
              "space = 40\n"
              "strategy = random\n"
              "\n"
              "; end of profile\n");
    free(text);
    /* The lock file is kept; no temp file is left. */
    assert_int_equal(count_files(f->dir, ".lock"), 1);
    assert_int_equal(count_files(f->dir, ".tmp."), 0);
}

static void test_round_trip(void **state)
{
    fixture *f = *state;
    atune__pw_entry e[3] = {copy_entry(512),
                            matmul_entry("m=4096,n=4096,k=4096", 32),
                            matmul_entry("m=1024,n=1024,k=1024", 16)};
    atune__pw_device d = device();
    atune_profile *p;

    e[0].value[3] = INT64_MAX;
    e[1].value[1] = INT64_MIN;
    update_ok(f->path, e, 3);
    p = open_ok(f->path);
    assert_string_equal(atune_profile_device(p)->name, d.name);
    assert_int_equal(atune_profile_device(p)->cc, d.cc);
    assert_int_equal(atune_profile_device(p)->sm_count, d.sm_count);
    assert_string_equal(atune_profile_device(p)->uuid, d.uuid);
    for (int i = 0; i < 3; i++) {
        const atune_config *c = lookup_ok(p, e[i].kernel, e[i].size_key);

        assert_int_equal(atune_config_count(c), e[i].nparams);
        for (int j = 0; j < e[i].nparams; j++) {
            assert_string_equal(atune_config_name(c, j), e[i].param[j]);
            assert_true(atune_config_value(c, j) == e[i].value[j]);
        }
        assert_int_equal(atune_config_time_ns(c), e[i].time_ns);
        assert_int_equal(atune_config_default_time_ns(c), e[i].default_time_ns);
        assert_string_equal(atune_config_template_hash(c), e[i].template_hash);
        assert_string_equal(atune_config_size(c), e[i].size_key);
    }
    atune_profile_close(p);
}

/* Parameters with lower-case letters (a user's block_size_x) are written
 * as "param.NAME" and read back under their own name; re-tuning replaces
 * them instead of keeping the old ones as foreign keys. */
static void test_lower_case_params(void **state)
{
    fixture *f = *state;
    atune__pw_entry e = copy_entry(256);
    atune_profile *p;
    const atune_config *c;
    char *text;

    strcpy(e.param[0], "block_size_x");
    strcpy(e.param[1], "tileY");
    update_ok(f->path, &e, 1);
    e.value[0] = 128;
    update_ok(f->path, &e, 1);
    text = slurp(f->path);
    assert_non_null(text);
    assert_non_null(strstr(text, "\nparam.block_size_x = 128\n"));
    assert_null(strstr(text, "param.block_size_x = 256"));
    assert_non_null(strstr(text, "\nparam.tileY = 4\n"));
    assert_non_null(strstr(text, "\nUNROLL = 2\n"));
    free(text);
    p = open_ok(f->path);
    c = lookup_ok(p, "copy", "n=268435456");
    assert_int_equal(atune_config_count(c), 4);
    assert_string_equal(atune_config_name(c, 0), "block_size_x");
    assert_int_equal(atune_config_get(c, "block_size_x", 0), 128);
    assert_int_equal(atune_config_get(c, "tileY", 0), 4);
    assert_int_equal(atune_config_get(c, "UNROLL", 0), 2);
    assert_string_equal(atune_config_meta(c, "block_size_x"), "128");
    atune_profile_close(p);

    /* An upper-case name is never written as param.NAME: such a key is
     * not read as a parameter (UNROLL would be there twice). */
    {
        FILE *out = fopen(f->path, "w");
        assert_non_null(out);
        fputs("[device]\nformat = 1\nname = X\ncc = 90\nsm_count = 1\n"
              "[copy n=1]\nUNROLL = 2\nparam.UNROLL = 7\n", out);
        assert_int_equal(fclose(out), 0);
    }
    p = open_ok(f->path);
    c = lookup_ok(p, "copy", "n=1");
    assert_int_equal(atune_config_count(c), 1);
    assert_int_equal(atune_config_get(c, "UNROLL", 0), 2);
    atune_profile_close(p);
}

/* Section names of the profile at path, in file order, joined by '|'. */
static void section_order(const char *path, char *buf, size_t len)
{
    char *text = slurp(path);
    size_t n = 0;

    assert_non_null(text);
    buf[0] = '\0';
    for (char *l = strtok(text, "\n"); l; l = strtok(NULL, "\n"))
        if (l[0] == '[')
            n += (size_t)snprintf(buf + n, len - n, "%s%s", n ? "|" : "", l);
    free(text);
}

static void test_merge(void **state)
{
    fixture *f = *state;
    atune__pw_entry copy = copy_entry(256);
    atune__pw_entry mm = matmul_entry("m=4096,n=4096,k=4096", 32);
    atune__pw_entry mm2 = matmul_entry("m=64,n=64,k=64", 8);
    atune_profile *p;
    char order[512];

    /* Two kernels written by two calls: both present. */
    update_ok(f->path, &copy, 1);
    update_ok(f->path, &mm, 1);
    section_order(f->path, order, sizeof(order));
    assert_string_equal(
        order, "[device]|[copy n=268435456]|[matmul m=4096,n=4096,k=4096]");

    /* Re-tuning copy replaces it in place and keeps matmul. The new size
     * of matmul is appended; one written with its variables in another
     * order is the same section. */
    copy = copy_entry(1024);
    mm = matmul_entry("k=4096,m=4096,n=4096", 64);
    {
        atune__pw_entry both[3] = {mm2, copy, mm};
        update_ok(f->path, both, 3);
    }
    section_order(f->path, order, sizeof(order));
    assert_string_equal(order, "[device]|"
                               "[copy n=268435456]|"
                               "[matmul k=4096,m=4096,n=4096]|"
                               "[matmul m=64,n=64,k=64]");
    p = open_ok(f->path);
    assert_int_equal(
        atune_config_get(lookup_ok(p, "copy", "n=268435456"), "BLOCK_SIZE", 0),
        1024);
    assert_int_equal(
        atune_config_get(lookup_ok(p, "matmul", "m=4096,n=4096,k=4096"), "TILE",
                         0),
        64);
    assert_int_equal(
        atune_config_get(lookup_ok(p, "matmul", "m=64,n=64,k=64"), "TILE", 0),
        8);
    atune_profile_close(p);
}

static void test_merge_keeps_foreign_entries(void **state)
{
    fixture *f = *state;
    atune__pw_entry copy = copy_entry(256);
    char *text;

    /* A hand-edited profile: its unknown keys survive an update (its
     * comments do not), and its [device] is rewritten. */
    spit(f->path, "; my notes\n"
                  "[device]\n"
                  "format = 1\n"
                  "name = NVIDIA H100 80GB HBM3\n"
                  "cc = 90\n"
                  "sm_count = 132\n"
                  "old_key = 1\n"
                  "\n"
                  "[saxpy n=1024]\n"
                  "BLOCK_SIZE = 64\n"
                  "note=by hand ; why\n"
                  "weird=;starts with a semicolon\n");
    update_ok(f->path, &copy, 1);
    text = slurp(f->path);
    assert_non_null(text);
    assert_null(strstr(text, "my notes"));
    assert_null(strstr(text, "old_key"));
    assert_non_null(strstr(text, "[saxpy n=1024]\n"
                                 "BLOCK_SIZE = 64\n"
                                 "note = by hand\n"
                                 "weird=;starts with a semicolon\n"
                                 "\n"
                                 "[copy n=268435456]\n"));
    free(text);
}

/* Updating the example profile of the test data (LF and CRLF): copy is
 * replaced in place, every matmul section is kept, and the result is
 * written with LF. */
static void test_merge_into_example(void **state)
{
    fixture *f = *state;
    static const char *const files[] = {"h100.ini", "crlf.ini", "bom.ini"};
    atune__pw_entry copy = copy_entry(2048);

    for (int i = 0; i < 3; i++) {
        char src[4200], order[512];
        char *text;
        atune_profile *p;

        snprintf(src, sizeof(src), "%s/tests/data/profiles_good/%s", source_dir,
                 files[i]);
        text = slurp(src);
        assert_non_null(text);
        spit(f->path, text);
        free(text);
        update_ok(f->path, &copy, 1);
        section_order(f->path, order, sizeof(order));
        assert_string_equal(order, "[device]|"
                                   "[copy n=268435456]|"
                                   "[copy n=1048576]|"
                                   "[matmul m=4096,n=4096,k=4096]|"
                                   "[matmul m=1024,n=1024,k=1024]|"
                                   "[matmul m=4096,n=4096,k=64]");
        text = slurp(f->path);
        assert_null(strchr(text, '\r'));
        assert_int_equal((unsigned char)text[0], ';');
        free(text);
        p = open_ok(f->path);
        assert_int_equal(atune_config_get(lookup_ok(p, "copy", "n=268435456"),
                                          "BLOCK_SIZE", 0),
                         2048);
        assert_int_equal(
            atune_config_get(lookup_ok(p, "copy", "n=1048576"), "GRID", 0),
            32);
        assert_int_equal(
            atune_config_get(lookup_ok(p, "matmul", "m=4096,n=4096,k=64"),
                             "TILE", 0),
            8);
        atune_profile_close(p);
    }
}

/* ---- refusals ------------------------------------------------------------ */

static void test_refuses_malformed_existing(void **state)
{
    fixture *f = *state;
    atune__pw_entry copy = copy_entry(256);
    atune__pw_device d = device();
    static const struct {
        const char *text;
        const char *where;
    } bad[] = {
        {"[device]\n"
         "format = 1\n"
         "name = NVIDIA H100 80GB HBM3\n"
         "cc = 90\n"
         "sm_count = 132\n"
         "\n"
         "[copy n=1]\n"
         "BLOCK_SIZE = x\n",
         ":8: bad integer"},
        {"[device]\n"
         "format = 3\n",
         ":2: profile format 3"},
        {"garbage\n", ":1: expected"},
        /* A copy cut off: never taken for a smaller result and rewritten. */
        {"[device]\n"
         "format = 2\n"
         "name = NVIDIA H100 80GB HBM3\n"
         "cc = 90\n"
         "sm_count = 132\n"
         "\n"
         "[copy n=1]\n"
         "BLOCK_SIZE = 10",
         ":8: truncated profile"},
    };

    for (int i = 0; i < 4; i++) {
        char *text;
        spit(f->path, bad[i].text);
        update_fails(f->path, &d, &copy, 1, ATUNE__EDATA, bad[i].where);
        text = slurp(f->path);
        assert_string_equal(text, bad[i].text); /* untouched */
        free(text);
    }
    /* A profile of another GPU model is not relabelled. */
    spit(f->path, "[device]\n"
                  "format = 1\n"
                  "name = NVIDIA H200\n"
                  "cc = 90\n"
                  "sm_count = 132\n");
    update_fails(f->path, &d, &copy, 1, ATUNE__EDATA,
                 "profile of 'NVIDIA H200', not of 'NVIDIA H100 80GB HBM3'");
    assert_int_equal(count_files(f->dir, ".tmp."), 0);
}

static void test_refuses_what_the_reader_cannot_read(void **state)
{
    fixture *f = *state;
    atune__pw_device d = device();
    const atune__pw_device device_ok = device();
    atune__pw_entry good = copy_entry(256), e;
    char *before;

    update_ok(f->path, &good, 1);
    before = slurp(f->path);
    assert_non_null(before);

    /* The longest kernel name and size fit a section name. */
    e = good;
    memset(e.kernel, 'g', sizeof(e.kernel) - 1);
    e.kernel[sizeof(e.kernel) - 1] = '\0';
    strcpy(e.size_key, "m=4096,n=4096,k=4096,batch=128");
    update_ok(f->path, &e, 1);
    free(before);
    before = slurp(f->path);
    assert_non_null(before);
    assert_non_null(strstr(before, "gggg m=4096,n=4096,k=4096,batch=128]"));
    e = good; /* not a size */
    strcpy(e.size_key, "n=big");
    update_fails(f->path, &d, &e, 1, ATUNE__EDATA, "bad section name");
    e = good;
    strcpy(e.kernel, "my kernel");
    update_fails(f->path, &d, &e, 1, ATUNE__EDATA, "bad section name");
    e = good;
    strcpy(e.param[1], "v-w");
    update_fails(f->path, &d, &e, 1, ATUNE__EDATA, "bad parameter name 'v-w'");
    /* No parameter name is too long for a key ("param." + 47 bytes fits
     * ATUNE__INI_MAX_NAME, 160) since section names were lifted. */
    e = good;
    strcpy(e.param[1], "BLOCK_SIZE");
    update_fails(f->path, &d, &e, 1, ATUNE__EDATA, "given twice");
    e = good;
    e.nparams = ATUNE__PW_MAX_PARAMS + 1;
    update_fails(f->path, &d, &e, 1, ATUNE__EDATA, "17 parameters");
    e = good;
    e.time_ns = -1;
    update_fails(f->path, &d, &e, 1, ATUNE__EDATA, "negative");
    e = good;
    strcpy(e.template_hash, "0123");
    update_fails(f->path, &d, &e, 1, ATUNE__EDATA, "bad template hash");
    e = good;
    strcpy(e.strategy, "a ;b");
    update_fails(f->path, &d, &e, 1, ATUNE__EDATA, "start a comment");
    e = good;
    strcpy(e.strategy, "two\n"
                       "lines");
    update_fails(f->path, &d, &e, 1, ATUNE__EDATA, "control character");
    e = good;
    strcpy(e.size_name, " padded");
    update_fails(f->path, &d, &e, 1, ATUNE__EDATA, "white space");
    {
        atune__pw_entry twice[2] = {good, good};
        strcpy(twice[1].size_key, "n=0268435456"); /* same size */
        update_fails(f->path, &d, twice, 2, ATUNE__EDATA, "given twice");
    }

    /* A device name whose line would pass 199 bytes. */
    d = device();
    memset(d.name, 'G', 200);
    d.name[200] = '\0';
    update_fails(f->path, &d, &good, 1, ATUNE__EDATA,
                 "device name too long (200 bytes, at most 192)");
    /* Any line: a metric of 1e250 takes 250 digits with "%.1f". */
    e = good;
    e.metric = 1e250;
    update_fails(f->path, &device_ok, &e, 1, ATUNE__EDATA,
                 "cannot write a line over 199 bytes: 'metric = ");
    d = device();
    d.name[0] = '\0';
    update_fails(f->path, &d, &good, 1, ATUNE__EDATA, "without a name");
    d = device();
    d.sm_count = -1;
    update_fails(f->path, &d, &good, 1, ATUNE__EDATA, "negative");

    {
        char *after = slurp(f->path);
        assert_string_equal(after, before);
        free(after);
    }
    assert_int_equal(count_files(f->dir, ".tmp."), 0);
    free(before);
}

/* ---- atomic replacement ------------------------------------------------- */

static void test_failure_leaves_old_file(void **state)
{
    fixture *f = *state;
    atune__pw_device d = device();
    atune__pw_entry e = copy_entry(256), e2 = copy_entry(128);
    char tmp[8300], missing[8300];
    char *before, *after;

    update_ok(f->path, &e, 1);
    before = slurp(f->path);
    assert_non_null(before);

    /* The temp file's name is not predictable: a name taken where the
     * old writer put its temp file (<path>.tmp.<pid>) does not stop it. */
    snprintf(tmp, sizeof(tmp), "%s.tmp.%ld", f->path, (long)getpid());
    assert_int_equal(mkdir(tmp, 0700), 0);
    update_ok(f->path, &e2, 1);
    assert_int_equal(rmdir(tmp), 0);
    assert_int_equal(count_files(f->dir, ".tmp."), 0);
    after = slurp(f->path);
    assert_string_not_equal(after, before);
    free(after);

    /* The profile is a directory: not replaced. */
    snprintf(missing, sizeof(missing), "%s/sub.ini", f->dir);
    assert_int_equal(mkdir(missing, 0700), 0);
    update_fails(missing, &d, &e2, 1, ATUNE__ECANTCREAT,
                 "sub.ini' is a directory");
    assert_int_equal(rmdir(missing), 0);

    /* A directory that does not exist: nothing is created. */
    snprintf(missing, sizeof(missing), "%s/no/such/dir/x.ini", f->dir);
    update_fails(missing, &d, &e2, 1, ATUNE__ECANTCREAT, "lock file");
    assert_int_equal(count_files(f->dir, ".tmp."), 0);
    free(before);
}

static void test_read_only_directory(void **state)
{
    fixture *f = *state;
    atune__pw_device d = device();
    atune__pw_entry e = copy_entry(256), e2 = copy_entry(128);
    char *before, *after;

    update_ok(f->path, &e, 1);
    before = slurp(f->path);
    assert_int_equal(chmod(f->dir, 0500), 0);
    if (access(f->dir, W_OK) == 0) { /* root ignores the mode */
        chmod(f->dir, 0700);
        free(before);
        skip();
    }
    update_fails(f->path, &d, &e2, 1, ATUNE__ECANTCREAT, ".tmp.");
    assert_int_equal(chmod(f->dir, 0700), 0);
    after = slurp(f->path);
    assert_string_equal(after, before);
    assert_int_equal(count_files(f->dir, ".tmp."), 0);
    free(after);
    free(before);
}

/* Two processes update the same profile with different kernels at the
 * same time; the lock must keep every update. */
/* Extra keys (the portability of another GPU's configurations): written
 * with an entry, added to an existing section alone, kept when the
 * section is re-tuned, refused for a section that does not exist. */
static void test_extra_keys(void **state)
{
    fixture *f = *state;
    atune__pw_entry copy = copy_entry(256), port, missing;
    char *text;

    memset(&port, 0, sizeof(port));
    port.extras_only = 1;
    strcpy(port.kernel, "copy");
    strcpy(port.size_key, "n=268435456");
    assert_int_equal(atune__pw_extra(&port, "port.nvidia-h200.time_ns", "5"),
                     0);
    assert_int_equal(
        atune__pw_extra(&port, "port.nvidia-h200.percent", "95.5"), 0);
    assert_int_equal(
        atune__pw_extra(&port, "port.nvidia-h200.percent", "96.5"), 0);
    assert_int_equal(port.nextra, 2);
    missing = port;
    strcpy(missing.kernel, "saxpy");
    update_ok(f->path, &copy, 1);
    {
        atune__pw_device d = device();
        atune__err err = {0, ""};
        assert_int_equal(atune__profile_update(f->path, &d, &missing, 1, &err),
                         ATUNE__EDATA);
        assert_non_null(strstr(err.msg, "no section [saxpy"));
    }
    update_ok(f->path, &port, 1);
    text = slurp(f->path);
    assert_non_null(strstr(text, "BLOCK_SIZE = 256\n"));
    assert_non_null(strstr(text, "port.nvidia-h200.percent = 96.5\n"));
    free(text);
    /* Re-tuned: the new configuration, the old extra keys. */
    copy = copy_entry(512);
    update_ok(f->path, &copy, 1);
    text = slurp(f->path);
    assert_non_null(strstr(text, "BLOCK_SIZE = 512\n"));
    assert_null(strstr(text, "BLOCK_SIZE = 256"));
    assert_non_null(strstr(text, "port.nvidia-h200.time_ns = 5\n"));
    assert_non_null(strstr(text, "port.nvidia-h200.percent = 96.5\n"));
    free(text);
    /* The library still reads the section; extra keys are no
     * parameters. */
    {
        atune_profile *p = open_ok(f->path);
        const atune_config *c = lookup_ok(p, "copy", "n=268435456");
        assert_int_equal(atune_config_count(c), 4);
        atune_profile_close(p);
    }
}

/* Compare and swap: a section is written only while it is as the writer
 * saw it (absent, or with the same run key); else nothing changes and the
 * writer is told. */
static void test_update_if(void **state)
{
    fixture *f = *state;
    atune__pw_device d = device();
    atune__pw_entry a = copy_entry(256), b = copy_entry(512);
    atune__pw_seen absent = {0}, seen_a = {1, "run-a"}, seen_b = {1, "run-b"};
    atune__err err = {0, ""};
    int changed = -1;
    char *text;

    assert_int_equal(atune__pw_extra(&a, "run", "run-a"), 0);
    assert_int_equal(atune__pw_extra(&b, "run", "run-b"), 0);
    /* No file: the section is absent as seen. */
    assert_int_equal(
        atune__profile_update_if(f->path, &d, &a, &absent, &changed, &err), 0);
    assert_int_equal(changed, 0);
    /* Another writer saw it absent too: too late, nothing written. */
    assert_int_equal(
        atune__profile_update_if(f->path, &d, &b, &absent, &changed, &err), 0);
    assert_int_equal(changed, 1);
    text = slurp(f->path);
    assert_non_null(strstr(text, "BLOCK_SIZE = 256\n"));
    assert_null(strstr(text, "BLOCK_SIZE = 512"));
    free(text);
    /* It read again and saw run-a: now it may. */
    assert_int_equal(
        atune__profile_update_if(f->path, &d, &b, &seen_a, &changed, &err), 0);
    assert_int_equal(changed, 0);
    text = slurp(f->path);
    assert_non_null(strstr(text, "BLOCK_SIZE = 512\n"));
    assert_non_null(strstr(text, "run = run-b\n"));
    free(text);
    /* What a writer saw is stale once the run key changed. */
    assert_int_equal(
        atune__profile_update_if(f->path, &d, &a, &seen_a, &changed, &err), 0);
    assert_int_equal(changed, 1);
    assert_int_equal(
        atune__profile_update_if(f->path, &d, &a, &seen_b, &changed, &err), 0);
    assert_int_equal(changed, 0);
    text = slurp(f->path);
    assert_non_null(strstr(text, "BLOCK_SIZE = 256\n"));
    free(text);
}

/* First use's write: a new file starts as the profile it was served
 * from (base), and its first_use note is dropped when the section is
 * written again by a tuning run (it described the old record). */
static void test_update_based_first_use(void **state)
{
    fixture *f = *state;
    atune__pw_device d = device();
    atune__pw_entry a = copy_entry(256), fu = copy_entry(512);
    atune__pw_seen absent = {0};
    atune__err err = {0, ""};
    char base[4300];
    int changed = -1;
    char *text;

    snprintf(base, sizeof(base), "%s.base", f->path);
    update_ok(base, &a, 1);
    strcpy(fu.size_key, "n=1000003");
    assert_int_equal(atune__pw_extra(&fu, "first_use", "measure: 3 configurations"), 0);
    assert_int_equal(atune__profile_update_based(f->path, base, &d, &fu,
                                                 &absent, &changed, &err),
                     0);
    assert_int_equal(changed, 0);
    text = slurp(f->path);
    assert_non_null(strstr(text, "[copy n=268435456]\n"));
    assert_non_null(strstr(text, "[copy n=1000003]\n"));
    assert_non_null(strstr(text, "first_use = measure: 3 configurations\n"));
    free(text);
    /* The file exists now: base is not read again. */
    unlink(base);
    fu = copy_entry(1024);
    strcpy(fu.size_key, "n=1000003");
    update_ok(f->path, &fu, 1);
    text = slurp(f->path);
    assert_non_null(strstr(text, "BLOCK_SIZE = 1024\n"));
    assert_null(strstr(text, "first_use"));
    free(text);
}

static void test_concurrent_writers(void **state)
{
    fixture *f = *state;
    enum { ROUNDS = 100 };
    pid_t pid[2];
    atune_profile *p;

    for (int w = 0; w < 2; w++) {
        pid[w] = fork();
        assert_true(pid[w] >= 0);
        if (pid[w] == 0) {
            atune__pw_device d = device();
            atune__err err;
            for (int r = 0; r < ROUNDS; r++) {
                atune__pw_entry e = matmul_entry("m=1,n=1,k=1", r);
                snprintf(e.kernel, sizeof(e.kernel), "k%d_%d", w, r);
                if (atune__profile_update(f->path, &d, &e, 1, &err) != 0) {
                    fprintf(stderr, "writer %d: %s\n", w, err.msg);
                    _exit(1);
                }
            }
            _exit(0);
        }
    }
    for (int w = 0; w < 2; w++) {
        int status;
        assert_int_equal(waitpid(pid[w], &status, 0), pid[w]);
        assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    }
    p = open_ok(f->path);
    for (int w = 0; w < 2; w++) {
        for (int r = 0; r < ROUNDS; r++) {
            char k[32];
            snprintf(k, sizeof(k), "k%d_%d", w, r);
            assert_int_equal(
                atune_config_get(lookup_ok(p, k, "m=1,n=1,k=1"), "TILE", -1),
                r);
        }
    }
    atune_profile_close(p);
    assert_int_equal(count_files(f->dir, ".tmp."), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_slugify),
        cmocka_unit_test(test_section_name),
        cmocka_unit_test_setup_teardown(test_exact_output, setup, teardown),
        cmocka_unit_test_setup_teardown(test_round_trip, setup, teardown),
        cmocka_unit_test_setup_teardown(test_lower_case_params, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_merge, setup, teardown),
        cmocka_unit_test_setup_teardown(test_merge_keeps_foreign_entries, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_merge_into_example, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_refuses_malformed_existing, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(
            test_refuses_what_the_reader_cannot_read, setup, teardown),
        cmocka_unit_test_setup_teardown(test_failure_leaves_old_file, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_read_only_directory, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_extra_keys, setup, teardown),
        cmocka_unit_test_setup_teardown(test_update_if, setup, teardown),
        cmocka_unit_test_setup_teardown(test_update_based_first_use, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_concurrent_writers, setup,
                                        teardown),
    };

    source_dir = getenv("ATUNE_SOURCE_DIR");
    if (!source_dir || !*source_dir) {
        fprintf(
            stderr,
            "test_profile_write: ATUNE_SOURCE_DIR is not set (CTest sets it; "
            "by hand: ATUNE_SOURCE_DIR=/path/to/repo ./test_profile_write)\n");
        return 1;
    }
    return cmocka_run_group_tests_name("profile_write", tests, NULL, NULL);
}
