/* test_profile_search.c -- libatune: the profile search path (its order,
 * skipped and empty entries, the XDG rules), the best fit over all its
 * directories, malformed better fits reported, profiles from memory, sizes
 * of 0 and long section names; among files of one GPU the one named for
 * its slug, never a truncated one, and [device] read first. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "atune/atune.h"
#include "lib/profile_internal.h"
#include "testutil.h"

static char root[4096];

/* root/sub, created with its parents. */
static const char *dir_at(const char *sub)
{
    static char path[4][4200];
    static int next;
    char *p = path[next++ % 4];

    snprintf(p, sizeof(path[0]), "%s/%s", root, sub);
    for (char *s = p + strlen(root) + 1; *s; s++) {
        if (*s == '/') {
            *s = '\0';
            mkdir(p, 0700);
            *s = '/';
        }
    }
    mkdir(p, 0700);
    return p;
}

/* A profile of one device whose copy entry's BLOCK_SIZE marks the file. */
static void write_profile(const char *dir, const char *file, const char *name,
                          int cc, int sms, const char *block)
{
    char path[4400];
    FILE *f;

    snprintf(path, sizeof(path), "%s/%s", dir, file);
    f = fopen(path, "wb");
    assert_non_null(f);
    fprintf(f,
            "[device]\nformat = 1\nname = %s\ncc = %d\nsm_count = %d\n\n"
            "[copy n=1024]\nBLOCK_SIZE = %s\n",
            name, cc, sms, block);
    assert_int_equal(fclose(f), 0);
}

static int setup(void **state)
{
    const char *tmp = getenv("TMPDIR");

    (void)state;
    snprintf(root, sizeof(root), "%s/atune-search-XXXXXX",
             tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(root))
        return -1;
    unsetenv("ATUNE_PROFILE_PATH");
    unsetenv("XDG_DATA_HOME");
    setenv("HOME", dir_at("home"), 1);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    rm_rf(root);
    return 0;
}

static const atune_device h100 = {"NVIDIA H100 80GB HBM3", 90, 132, ""};

/* Opens for dev through the search path; the BLOCK_SIZE of its copy. */
static int64_t found_block(const atune_device *dev, atune_profile **out)
{
    const atune_config *c;
    int rc = atune_profile_open_for(NULL, dev, out);

    if (rc != ATUNE_OK)
        fail_msg("open_for: %s: %s", atune_strerror(rc),
                 atune_profile_errmsg(*out));
    assert_int_equal(atune_profile_lookup(*out, "copy", "n=1024", &c),
                     ATUNE_OK);
    return atune_config_get(c, "BLOCK_SIZE", -1);
}

static void test_search_path_order(void **state)
{
    char path[8192], want[8192];
    const char *d1 = dir_at("d1"), *d2 = dir_at("d2");

    (void)state;
    /* Empty entries are dropped; the user's directory follows. */
    snprintf(path, sizeof(path), "::%s:%s:", d1, d2);
    setenv("ATUNE_PROFILE_PATH", path, 1);
    assert_int_equal(atune_profile_search_path(path, sizeof(path)), ATUNE_OK);
    snprintf(want, sizeof(want),
             "%s:%s:%s/home/.local/share/autotune/profiles:", d1, d2, root);
    assert_memory_equal(path, want, strlen(want));
    /* The system's directory comes last. */
    assert_non_null(strstr(path + strlen(want), "/autotune/profiles"));

    setenv("XDG_DATA_HOME", dir_at("xdg"), 1);
    assert_int_equal(atune_profile_search_path(path, sizeof(path)), ATUNE_OK);
    snprintf(want, sizeof(want), "%s:%s:%s/xdg/autotune/profiles:", d1, d2,
             root);
    assert_memory_equal(path, want, strlen(want));
    /* A relative XDG_DATA_HOME is ignored, as the XDG rules say. */
    setenv("XDG_DATA_HOME", "relative/dir", 1);
    assert_int_equal(atune_profile_search_path(path, sizeof(path)), ATUNE_OK);
    assert_null(strstr(path, "relative/dir"));
    assert_non_null(strstr(path, "/home/.local/share/autotune/profiles"));
    /* Truncated like snprintf. */
    assert_int_equal(atune_profile_search_path(path, 4), ATUNE_OK);
    assert_int_equal(strlen(path), 3);
    assert_int_equal(atune_profile_search_path(NULL, 4), ATUNE_EINVAL);
}

static void test_search_finds_by_order_and_fit(void **state)
{
    const char *d1 = dir_at("p1"), *d2 = dir_at("p2");
    const char *user = dir_at("xdg2/autotune/profiles");
    atune_profile *p = NULL;
    char path[8192], line[8192];

    (void)state;
    snprintf(path, sizeof(path), "%s/missing:%s:%s", root, d1, d2);
    setenv("ATUNE_PROFILE_PATH", path, 1);
    setenv("XDG_DATA_HOME", dir_at("xdg2"), 1);

    /* Nothing anywhere: ENOTFOUND, naming the directories searched. */
    assert_int_equal(atune_profile_open_for(NULL, &h100, &p), ATUNE_ENOTFOUND);
    assert_non_null(strstr(atune_profile_errmsg(p), d1));
    assert_non_null(strstr(atune_profile_errmsg(p), user));
    atune_profile_close(p);

    /* The same fit in three directories: the earliest one wins (a missing
     * directory of the path is skipped). */
    write_profile(user, "h100.ini", h100.name, 90, 132, "3");
    assert_int_equal(found_block(&h100, &p), 3);
    atune_profile_close(p);
    write_profile(d2, "h100.ini", h100.name, 90, 132, "2");
    assert_int_equal(found_block(&h100, &p), 2);
    atune_profile_close(p);
    write_profile(d1, "h100.ini", h100.name, 90, 132, "1");
    assert_int_equal(found_block(&h100, &p), 1);
    assert_int_equal(atune_profile_device_match(p), ATUNE_DEVICE_EXACT);
    /* describe says which file was used. */
    assert_int_equal(
        atune_config_describe(p, atune_profile_entry(p, 0), line, sizeof(line)),
        ATUNE_OK);
    snprintf(path, sizeof(path), "in '%s/h100.ini'", d1);
    assert_non_null(strstr(line, path));
    atune_profile_close(p);

    /* A better fit in a later directory beats an earlier, worse one. */
    snprintf(path, sizeof(path), "%s/h100.ini", d1);
    assert_int_equal(unlink(path), 0);
    write_profile(d1, "h800.ini", "NVIDIA H800", 90, 132, "9");
    assert_int_equal(found_block(&h100, &p), 2);
    atune_profile_close(p);
    snprintf(path, sizeof(path), "%s/h100.ini", d2);
    assert_int_equal(unlink(path), 0);
    assert_int_equal(found_block(&h100, &p), 3);
    atune_profile_close(p);

    /* A directory named by the application is the only one searched. */
    assert_int_equal(atune_profile_open_for(d1, &h100, &p), ATUNE_OK);
    assert_int_equal(atune_profile_device_match(p), ATUNE_DEVICE_CC);
    atune_profile_close(p);
}

static void test_malformed_better_fit_reported(void **state)
{
    const char *d = dir_at("broken");
    atune_profile *p = NULL;
    const atune_config *c;
    char line[8192];

    (void)state;
    write_profile(d, "h100.ini", h100.name, 90, 132, "x");
    write_profile(d, "h800.ini", "NVIDIA H800", 90, 132, "7");
    assert_int_equal(atune_profile_open_for(d, &h100, &p), ATUNE_OK);
    assert_int_equal(atune_profile_device_match(p), ATUNE_DEVICE_CC);
    assert_non_null(strstr(atune_profile_warning(p),
                           "skipped a malformed profile for this exact GPU"));
    assert_non_null(
        strstr(atune_profile_warning(p), "h100.ini:8: bad integer"));
    assert_int_equal(atune_profile_lookup(p, "copy", "n=1024", &c), ATUNE_OK);
    assert_int_equal(atune_config_describe(p, c, line, sizeof(line)), ATUNE_OK);
    assert_non_null(strstr(line, "h800.ini'; warning: skipped a malformed"));
    atune_profile_close(p);

    /* A malformed file that fits worse than the good one: no warning. */
    write_profile(d, "h100.ini", h100.name, 90, 132, "5");
    write_profile(d, "h800.ini", "NVIDIA H800", 90, 132, "x");
    assert_int_equal(atune_profile_open_for(d, &h100, &p), ATUNE_OK);
    assert_int_equal(atune_profile_device_match(p), ATUNE_DEVICE_EXACT);
    assert_string_equal(atune_profile_warning(p), "");
    atune_profile_close(p);
    assert_string_equal(atune_profile_warning(NULL), "");
}

static void test_open_string(void **state)
{
    static const char text[] = "[device]\nformat = 1\nname = G\ncc = 90\n"
                               "sm_count = 1\n\n[copy n=1024]\nBLOCK_SIZE = "
                               "64\n";
    atune_profile *p = NULL;
    const atune_config *c;

    (void)state;
    /* Not NUL-terminated: only len bytes are read. */
    assert_int_equal(
        atune_profile_open_string("built-in", text, sizeof(text) - 1, &p),
        ATUNE_OK);
    assert_string_equal(atune_profile_path(p), "built-in");
    assert_int_equal(atune_profile_lookup(p, "copy", "n=1", &c), ATUNE_OK);
    assert_int_equal(atune_config_get(c, "BLOCK_SIZE", 0), 64);
    atune_profile_close(p);
    assert_int_equal(atune_profile_open_string("cut", text, 20, &p),
                     ATUNE_EPARSE);
    assert_non_null(strstr(atune_profile_errmsg(p), "cut"));
    atune_profile_close(p);
    assert_int_equal(atune_profile_open_string("null", NULL, 0, &p),
                     ATUNE_EINVAL);
    atune_profile_close(p);
}

/* Size 0 has one outcome: looked up as 1, the wanted size kept as 0. */
static void test_size_zero(void **state)
{
    static const char text[] = "[device]\nformat = 1\nname = G\ncc = 90\n"
                               "sm_count = 1\n\n[copy n=1024]\nBLOCK_SIZE = "
                               "64\n[copy n=4096]\nBLOCK_SIZE = 128\n";
    atune_profile *p = NULL;
    const atune_config *zero, *one;
    char line[512];

    (void)state;
    assert_int_equal(
        atune_profile_open_string("g.ini", text, sizeof(text) - 1, &p),
        ATUNE_OK);
    assert_int_equal(atune_profile_lookup(p, "copy", "n=0", &zero), ATUNE_OK);
    assert_int_equal(atune_profile_lookup(p, "copy", "n=1", &one), ATUNE_OK);
    assert_int_equal(atune_config_get(zero, "BLOCK_SIZE", 0), 64);
    assert_int_equal(atune_config_get(one, "BLOCK_SIZE", 0), 64);
    assert_int_equal(atune_config_size_match(zero), ATUNE_SIZE_NEAREST);
    atune_config_describe(p, zero, line, sizeof(line));
    assert_non_null(
        strstr(line, "copy n=0: using tuned size n=1024 (nearest)"));
    atune_profile_close(p);
}

/* libatune has no limit of its own on section names (inidoc has one). */
static void test_long_section_name(void **state)
{
    static const char name[] =
        "batched_gemm_f16_tensorcore batch=128,n=4096,m=4096,k=4096";
    char canon[128];

    (void)state;
    assert_int_equal(atune__section_canon(name, canon, sizeof(canon), NULL, 0),
                     0);
    assert_string_equal(
        canon, "batched_gemm_f16_tensorcore batch=128,k=4096,m=4096,n=4096");
    assert_int_equal(atune__section_canon(name, canon, 20, NULL, 0), -1);
}

/* A profile as the tuner writes it (format 2, slug, end line) whose copy
 * entry's BLOCK_SIZE marks the file; cut: that many bytes are left off. */
static void write_v2(const char *dir, const char *file, const char *slug,
                     const char *block, size_t cut)
{
    char text[1024], path[4400];
    FILE *f;
    int n = snprintf(text, sizeof(text),
                     "[device]\nformat = 2\nname = NVIDIA H200\nslug = %s\n"
                     "cc = 90\nsm_count = 132\n\n[copy n=1024]\n"
                     "BLOCK_SIZE = %s\ntime_ns = 5\n\n; end of profile\n",
                     slug, block);

    snprintf(path, sizeof(path), "%s/%s", dir, file);
    f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(text, 1, (size_t)n - cut, f), (size_t)n - cut);
    assert_int_equal(fclose(f), 0);
}

static const atune_device h200 = {"NVIDIA H200", 90, 132, ""};

static int64_t block_in(const char *dir, atune_profile **p)
{
    const atune_config *c;
    int rc = atune_profile_open_for(dir, &h200, p);

    if (rc != ATUNE_OK)
        fail_msg("open_for: %s", atune_profile_errmsg(*p));
    assert_int_equal(atune_profile_lookup(*p, "copy", "n=1024", &c), ATUNE_OK);
    return atune_config_get(c, "BLOCK_SIZE", -1);
}

static void expect_warning(const atune_profile *p, const char *a,
                           const char *b)
{
    const char *w = atune_profile_warning(p);

    if (!strstr(w, a) || (b && !strstr(w, b)))
        fail_msg("warning '%s' lacks '%s' or '%s'", w, a, b ? b : "");
}

/* Among files that describe the same GPU, the one the tuner writes for
 * it (named for its slug) wins over a backup that sorts first, and the
 * other file is named; a truncated file is never chosen. */
static void test_open_for_prefers_own_file(void **state)
{
    const char *d = dir_at("own");
    char path[4400];
    atune_profile *p;

    (void)state;
    write_v2(d, "nvidia-h200.ini", "nvidia-h200", "256", 0);
    write_v2(d, "nvidia-h200-old.ini", "nvidia-h200", "128", 0);
    assert_int_equal(block_in(d, &p), 256);
    assert_int_equal(atune_profile_device_match(p), ATUNE_DEVICE_EXACT);
    expect_warning(p, "1 other file describes this exact GPU as well",
                   "nvidia-h200-old.ini); chose");
    expect_warning(p, "the file autotune writes for it", NULL);
    atune_profile_close(p);

    /* The own file cut off (BLOCK_SIZE = 256 left as 25): the intact
     * backup is used and the cut file reported. */
    write_v2(d, "nvidia-h200.ini", "nvidia-h200", "256", 32);
    assert_int_equal(block_in(d, &p), 128);
    expect_warning(p, "skipped a malformed profile for this exact GPU",
                   "nvidia-h200.ini:9: truncated profile");
    atune_profile_close(p);

    /* A truncated copy that sorts first never wins over the intact file. */
    write_v2(d, "nvidia-h200.ini", "nvidia-h200", "256", 0);
    snprintf(path, sizeof(path), "%s/nvidia-h200-old.ini", d);
    assert_int_equal(unlink(path), 0);
    write_v2(d, "a-copy.ini", "nvidia-h200", "512", 32);
    assert_int_equal(block_in(d, &p), 256);
    expect_warning(p, "a-copy.ini", NULL);
    atune_profile_close(p);

    /* Two files, neither named for its slug: the first by name, said. */
    snprintf(path, sizeof(path), "%s/nvidia-h200.ini", d);
    assert_int_equal(unlink(path), 0);
    write_v2(d, "a-copy.ini", "nvidia-h200", "512", 0);
    write_v2(d, "b-copy.ini", "nvidia-h200", "64", 0);
    assert_int_equal(block_in(d, &p), 512);
    expect_warning(p, "b-copy.ini", "the first by file name");
    atune_profile_close(p);
}

/* A file whose [device] names another GPU is not read past its [device]:
 * what follows may be anything, even a NUL byte or a 200-byte line. A
 * file whose [device] is not first is still read whole. */
static void test_open_for_reads_device_first(void **state)
{
    const char *d = dir_at("stray");
    char path[4400], big[512];
    atune_profile *p;
    FILE *f;

    (void)state;
    memset(big, 'x', sizeof(big) - 1);
    big[sizeof(big) - 1] = '\0';
    snprintf(path, sizeof(path), "%s/stray.ini", d);
    f = fopen(path, "wb");
    assert_non_null(f);
    fprintf(f, "; another GPU's\n[device]\nformat = 1\nname = NVIDIA B200\n"
               "cc = 100\nsm_count = 148\n[%s]\n", big);
    fputc('\0', f);
    assert_int_equal(fclose(f), 0);
    assert_int_equal(atune_profile_open_for(d, &h200, &p), ATUNE_ENOTFOUND);
    atune_profile_close(p);

    snprintf(path, sizeof(path), "%s/late.ini", d);
    f = fopen(path, "wb");
    assert_non_null(f);
    fputs("[copy n=1024]\nBLOCK_SIZE = 32\n[device]\nformat = 1\n"
          "name = NVIDIA H200\ncc = 90\nsm_count = 132\n", f);
    assert_int_equal(fclose(f), 0);
    assert_int_equal(block_in(d, &p), 32);
    assert_string_equal(atune_profile_warning(p), "");
    atune_profile_close(p);
}

/* The search path keeps every entry (it kept 64), and one entry that
 * cannot be opened (a name over PATH_MAX) is skipped with a warning, the
 * others still searched (it failed whole) (issue 30). */
static void test_search_path_long(void **state)
{
    const char *d = dir_at("far");
    size_t len = 100 * 64 + 5000 + 4200;
    char *path = malloc(len), *out = malloc(len), *longdir = malloc(5000);
    atune_profile *p = NULL;
    size_t used = 0;

    (void)state;
    assert_non_null(path);
    assert_non_null(out);
    assert_non_null(longdir);
    memset(longdir, 'x', 4500);
    longdir[0] = '/';
    longdir[4500] = '\0';
    used += (size_t)snprintf(path + used, len - used, "%s:", longdir);
    for (int i = 0; i < 80; i++)
        used += (size_t)snprintf(path + used, len - used, "%s/none%d:", root, i);
    snprintf(path + used, len - used, "%s", d);
    write_profile(d, "h100.ini", "NVIDIA H100 80GB HBM3", 90, 132, "77");
    setenv("ATUNE_PROFILE_PATH", path, 1);
    assert_int_equal(atune_profile_search_path(out, len), ATUNE_OK);
    assert_non_null(strstr(out, d));
    assert_int_equal(found_block(&h100, &p), 77);
    expect_warning(p, "skipped 1 entry of the profile search path",
                   "File name too long");
    atune_profile_close(p);
    unsetenv("ATUNE_PROFILE_PATH");
    free(path);
    free(out);
    free(longdir);
}

/* A GPU whose own profile has a damaged [device] is handed another
 * model's of its compute capability only with a warning naming the file
 * it could not read (issue 30: it was silent). */
static void test_open_for_damaged_own_profile(void **state)
{
    const char *d = dir_at("damaged");
    char path[4400];
    atune_profile *p = NULL;
    const atune_config *c;
    FILE *f;

    (void)state;
    write_profile(d, "nvidia-h200.ini", "NVIDIA H200", 90, 132, "64");
    snprintf(path, sizeof(path), "%s/nvidia-h100-80gb-hbm3.ini", d);
    f = fopen(path, "wb");
    assert_non_null(f);
    fputs("[device]\nformat = 1\nname = NVIDIA H100 80GB HBM3\ncc = nine\n"
          "sm_count = 132\n\n[copy n=1024]\nBLOCK_SIZE = 128\n", f);
    assert_int_equal(fclose(f), 0);
    assert_int_equal(atune_profile_open_for(d, &h100, &p), ATUNE_OK);
    assert_int_equal(atune_profile_lookup(p, "copy", "n=1024", &c), ATUNE_OK);
    assert_int_equal(atune_config_get(c, "BLOCK_SIZE", -1), 64);
    expect_warning(p, "nvidia-h100-80gb-hbm3.ini' cannot be read and may be "
                      "this GPU's own profile",
                   "a profile for this compute capability");
    atune_profile_close(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_search_path_order),
        cmocka_unit_test(test_search_finds_by_order_and_fit),
        cmocka_unit_test(test_malformed_better_fit_reported),
        cmocka_unit_test(test_open_for_prefers_own_file),
        cmocka_unit_test(test_open_for_reads_device_first),
        cmocka_unit_test(test_open_string),
        cmocka_unit_test(test_size_zero),
        cmocka_unit_test(test_long_section_name),
        cmocka_unit_test(test_search_path_long),
        cmocka_unit_test(test_open_for_damaged_own_profile),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
