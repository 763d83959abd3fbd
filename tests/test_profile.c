/* test_profile.c -- libatune: opening profiles (good, malformed, CRLF,
 * BOM), choosing one for a device, nearest-size lookups and their speed.
 * Data: $ATUNE_SOURCE_DIR/tests/data/profiles_{good,bad}. */
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
#include <time.h>
#include <unistd.h>

#include "atune/atune.h"
#include "lib/profile_internal.h"

static const char *source_dir;

static const char *data(const char *sub, const char *name)
{
    static char path[4096];

    snprintf(path, sizeof(path), "%s/tests/data/%s/%s", source_dir, sub, name);
    return path;
}

static atune_profile *open_ok(const char *path)
{
    atune_profile *p = NULL;
    int rc = atune_profile_open(path, &p);

    if (rc != ATUNE_OK)
        fail_msg("%s: %s: %s", path, atune_strerror(rc),
                 atune_profile_errmsg(p));
    return p;
}

static const atune_config *lookup_ok(atune_profile *p, const char *kernel,
                                     const char *size)
{
    const atune_config *c = NULL;
    int rc = atune_profile_lookup(p, kernel, size, &c);

    if (rc != ATUNE_OK)
        fail_msg("%s %s: %s: %s", kernel, size, atune_strerror(rc),
                 atune_profile_errmsg(p));
    assert_non_null(c);
    return c;
}

/* ---- temporary directories ---------------------------------------------- */

static char *make_dir(void)
{
    const char *tmp = getenv("TMPDIR");
    char *dir = malloc(4096);

    assert_non_null(dir);
    snprintf(dir, 4096, "%s/atune-test-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    assert_non_null(mkdtemp(dir));
    return dir;
}

static void write_file(const char *dir, const char *name, const char *text)
{
    char path[4096];
    FILE *f;

    snprintf(path, sizeof(path), "%s/%s", dir, name);
    f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(text, 1, strlen(text), f), strlen(text));
    assert_int_equal(fclose(f), 0);
}

/* Removes dir and what the tests put in it (files, one level of dirs). */
static void remove_dir(char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *de;
    char path[4096];

    assert_non_null(d);
    while ((de = readdir(d)) != NULL) {
        if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
            continue;
        snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
        if (unlink(path) != 0)
            assert_int_equal(rmdir(path), 0);
    }
    closedir(d);
    assert_int_equal(rmdir(dir), 0);
    free(dir);
}

/* A minimal profile of one device with one copy entry whose BLOCK_SIZE
 * tells the files apart. */
static void write_profile(const char *dir, const char *file, const char *name,
                          int cc, int sms, int block)
{
    char text[1024];

    snprintf(text, sizeof(text),
             "[device]\n"
             "format = 1\n"
             "name = %s\n"
             "cc = %d\n"
             "sm_count = %d\n"
             "\n"
             "[copy n=1024]\n"
             "BLOCK_SIZE = %d\n",
             name, cc, sms, block);
    write_file(dir, file, text);
}

/* ---- opening --------------------------------------------------------------
 */

static void test_open_good(void **state)
{
    atune_profile *p = open_ok(data("profiles_good", "h100.ini"));
    const atune_device *d = atune_profile_device(p);

    (void)state;
    assert_string_equal(d->name, "NVIDIA H100 80GB HBM3");
    assert_int_equal(d->cc, 90);
    assert_int_equal(d->sm_count, 132);
    assert_string_equal(d->uuid, "GPU-5f1c0e2a-1b3c-4d5e-8f90-a1b2c3d4e5f6");
    assert_int_equal(atune_profile_device_match(p), ATUNE_DEVICE_FILE);
    assert_string_equal(atune_profile_path(p),
                        data("profiles_good", "h100.ini"));
    assert_string_equal(atune_profile_errmsg(p), "");
    atune_profile_close(p);
}

/* Every value of every entry of a and b is equal. */
static void assert_same_profile(atune_profile *a, atune_profile *b)
{
    static const char *const q[][2] = {
        {"copy", "n=268435456"},
        {"copy", "n=1048576"},
        {"matmul", "m=4096,n=4096,k=4096"},
        {"matmul", "m=1024,n=1024,k=1024"},
        {"matmul", "m=4096,n=4096,k=64"},
    };

    assert_string_equal(atune_profile_device(a)->name,
                        atune_profile_device(b)->name);
    assert_string_equal(atune_profile_device(a)->uuid,
                        atune_profile_device(b)->uuid);
    for (size_t i = 0; i < sizeof(q) / sizeof(q[0]); i++) {
        const atune_config *x = lookup_ok(a, q[i][0], q[i][1]);
        const atune_config *y = lookup_ok(b, q[i][0], q[i][1]);

        assert_int_equal(atune_config_size_match(y), ATUNE_SIZE_EXACT);
        assert_int_equal(atune_config_count(x), atune_config_count(y));
        for (int j = 0; j < atune_config_count(x); j++) {
            assert_string_equal(atune_config_name(x, j),
                                atune_config_name(y, j));
            assert_int_equal(atune_config_value(x, j),
                             atune_config_value(y, j));
        }
        assert_int_equal(atune_config_time_ns(x), atune_config_time_ns(y));
        assert_string_equal(atune_config_template_hash(x),
                            atune_config_template_hash(y));
    }
}

static void test_crlf_and_bom_accepted(void **state)
{
    atune_profile *lf = open_ok(data("profiles_good", "h100.ini"));
    atune_profile *crlf = open_ok(data("profiles_good", "crlf.ini"));
    atune_profile *bom = open_ok(data("profiles_good", "bom.ini"));

    (void)state;
    assert_same_profile(lf, crlf);
    assert_same_profile(lf, bom);
    atune_profile_close(lf);
    atune_profile_close(crlf);
    atune_profile_close(bom);
}

static void test_comments_and_unknown_keys(void **state)
{
    atune_profile *p = open_ok(data("profiles_good", "misc.ini"));
    const atune_config *c = lookup_ok(p, "saxpy", "n=1024");

    (void)state;
    /* Only [A-Z][A-Z0-9_]* keys are parameters; full int64 range. */
    assert_int_equal(atune_config_count(c), 3);
    assert_int_equal(atune_config_get(c, "NEGATIVE_OK", 0), -7);
    assert_true(atune_config_get(c, "BIG", 0) == INT64_MAX);
    assert_true(atune_config_get(c, "SMALL", 0) == INT64_MIN);
    assert_int_equal(atune_config_get(c, "note", 42), 42);
    assert_int_equal(atune_config_time_ns(c), 0);
    assert_string_equal(atune_config_template_hash(c), "");
    /* The last section has no entries and no final newline. */
    c = lookup_ok(p, "empty", "n=1");
    assert_int_equal(atune_config_count(c), 0);
    atune_profile_close(p);
}

/* One file of the malformed corpus: the status, and text the message must
 * contain ("file:line: reason" where a line applies). */
static const struct bad_case {
    const char *file;
    int status;
    const char *where;
    const char *reason;
} bad_cases[] = {
    {"empty.ini", ATUNE_EPARSE, "empty.ini: ", "no [device] section"},
    {"truncated.ini", ATUNE_EPARSE, "truncated.ini:9: ", "expected 'key"},
    {"binary.ini", ATUNE_EPARSE, "binary.ini:1: ", "NUL byte"},
    {"no_device.ini", ATUNE_EPARSE, "no_device.ini: ", "no [device]"},
    {"non_numeric.ini", ATUNE_EPARSE,
     "non_numeric.ini:8: ", "bad integer '2x6' for 'BLOCK_SIZE'"},
    {"negative.ini", ATUNE_EPARSE,
     "negative.ini:9: ", "'time_ns' = -712345 is out of range"},
    {"negative_cc.ini", ATUNE_EPARSE, "negative_cc.ini:4: ", "'cc' = -90"},
    {"overflow.ini", ATUNE_EPARSE,
     "overflow.ini:9: ", "bad integer '99999999999999999999' for 'time_ns'"},
    {"overflow_sm.ini", ATUNE_EPARSE,
     "overflow_sm.ini:5: ", "'sm_count' = 4294967296 is out of range"},
    {"long_line.ini", ATUNE_EPARSE, "long_line.ini:9: ", "line too long"},
    {"long_section.ini", ATUNE_EPARSE,
     "long_section.ini:7: ", "section name too long"},
    {"long_key.ini", ATUNE_EPARSE, "long_key.ini:8: ", "key name too long"},
    {"unclosed_section.ini", ATUNE_EPARSE,
     "unclosed_section.ini:7: ", "unterminated section header"},
    {"no_equals.ini", ATUNE_EPARSE,
     "no_equals.ini:8: ", "expected 'key = value'"},
    {"format3.ini", ATUNE_EFORMAT,
     "format3.ini:2: ", "profile format 3 is not supported"},
    {"format_text.ini", ATUNE_EPARSE,
     "format_text.ini:2: ", "bad integer 'one' for 'format'"},
    {"dup_section.ini", ATUNE_EPARSE, "dup_section.ini:10: ",
     "duplicate section [copy n=1024] (first on line 7)"},
    {"dup_size_reordered.ini", ATUNE_EPARSE, "dup_size_reordered.ini:10: ",
     "duplicate section [mm n=2,m=1] (first on line 7)"},
    {"dup_device.ini", ATUNE_EPARSE,
     "dup_device.ini:7: ", "duplicate section [device]"},
    {"dup_key.ini", ATUNE_EPARSE,
     "dup_key.ini:10: ", "duplicate key 'BLOCK_SIZE' (first on line 8)"},
    {"no_format.ini", ATUNE_EPARSE, "no_format.ini:1: ", "no 'format'"},
    {"no_name.ini", ATUNE_EPARSE, "no_name.ini:1: ", "no 'name'"},
    {"no_cc.ini", ATUNE_EPARSE, "no_cc.ini:1: ", "no 'cc'"},
    {"no_sm_count.ini", ATUNE_EPARSE, "no_sm_count.ini:1: ", "no 'sm_count'"},
    /* The indented line continues the value, which is then no integer. */
    {"continuation.ini", ATUNE_EPARSE,
     "continuation.ini:8: ", "bad integer '256 128' for 'BLOCK_SIZE'"},
    {"bad_section_name.ini", ATUNE_EPARSE,
     "bad_section_name.ini:7: ", "bad section name '[copy]'"},
    {"bad_size.ini", ATUNE_EPARSE,
     "bad_size.ini:7: ", "bad section name '[copy n=1k]'"},
    {"outside_section.ini", ATUNE_EPARSE,
     "outside_section.ini:1: ", "entry outside any section"},
    {"bad_hash.ini", ATUNE_EPARSE, "bad_hash.ini:8: ", "bad template_hash"},
    {"empty_section_name.ini", ATUNE_EPARSE,
     "empty_section_name.ini:1: ", "empty section name"},
};

static const struct bad_case *find_bad_case(const char *file)
{
    for (size_t i = 0; i < sizeof(bad_cases) / sizeof(bad_cases[0]); i++)
        if (strcmp(bad_cases[i].file, file) == 0)
            return &bad_cases[i];
    return NULL;
}

static void test_malformed_corpus(void **state)
{
    DIR *d = opendir(data("profiles_bad", ""));
    struct dirent *de;
    int n = 0;

    (void)state;
    assert_non_null(d);
    /* Driven by the directory, so that a new file without an expectation
     * fails rather than goes untested. */
    while ((de = readdir(d)) != NULL) {
        const struct bad_case *bc;
        atune_profile *p = NULL;
        const char *msg;
        int rc;

        if (de->d_name[0] == '.')
            continue;
        bc = find_bad_case(de->d_name);
        if (!bc)
            fail_msg("%s: no expectation in bad_cases[]", de->d_name);
        rc = atune_profile_open(data("profiles_bad", bc->file), &p);
        assert_non_null(p);
        msg = atune_profile_errmsg(p);
        if (rc != bc->status || !strstr(msg, bc->where) ||
            !strstr(msg, bc->reason))
            fail_msg("%s: got %s '%s', expected %s '%s...%s'", bc->file,
                     atune_strerror(rc), msg, atune_strerror(bc->status),
                     bc->where, bc->reason);
        /* A failed handle answers, but finds nothing. */
        assert_int_equal(atune_profile_lookup(p, "copy", "n=1",
                                              &(const atune_config *){NULL}),
                         ATUNE_EINVAL);
        atune_profile_close(p);
        n++;
    }
    closedir(d);
    assert_int_equal(n, (int)(sizeof(bad_cases) / sizeof(bad_cases[0])));
}

static void test_open_errors(void **state)
{
    atune_profile *p = NULL;
    static const char text[] = "[device]\nformat = 1\n\0name = x\n";

    (void)state;
    assert_int_equal(atune_profile_open("/nonexistent/x.ini", &p), ATUNE_EIO);
    assert_non_null(strstr(atune_profile_errmsg(p), "/nonexistent/x.ini"));
    atune_profile_close(p);

    /* A directory is not a profile. */
    assert_int_not_equal(atune_profile_open(data("profiles_good", ""), &p),
                         ATUNE_OK);
    atune_profile_close(p);

    assert_int_equal(atune_profile_open(NULL, &p), ATUNE_EINVAL);
    assert_string_equal(atune_profile_errmsg(p), "profile path is NULL");
    atune_profile_close(p);
    assert_int_equal(atune_profile_open("x.ini", NULL), ATUNE_EINVAL);

    /* From memory: a NUL inside the text is found, with its line. */
    assert_int_equal(
        atune__profile_open_mem("mem.ini", text, sizeof(text) - 1, &p),
        ATUNE_EPARSE);
    assert_string_equal(atune_profile_errmsg(p),
                        "mem.ini:3: NUL byte (not a text file)");
    atune_profile_close(p);
}

static void test_null_tolerance(void **state)
{
    char buf[64];
    const atune_config *c = NULL;

    (void)state;
    atune_profile_close(NULL);
    assert_string_equal(atune_profile_errmsg(NULL), "out of memory");
    assert_string_equal(atune_profile_path(NULL), "");
    assert_null(atune_profile_device(NULL));
    assert_int_equal(atune_profile_lookup(NULL, "copy", "n=1", &c),
                     ATUNE_EINVAL);
    assert_int_equal(atune_config_count(NULL), 0);
    assert_null(atune_config_name(NULL, 0));
    assert_int_equal(atune_config_get(NULL, "X", 7), 7);
    assert_string_equal(atune_config_size(NULL), "");
    assert_int_equal(atune_config_describe(NULL, NULL, buf, sizeof(buf)),
                     ATUNE_EINVAL);
    assert_string_equal(buf, "");
    assert_string_equal(atune_strerror(ATUNE_EPARSE), "malformed profile");
    assert_string_equal(atune_strerror(12345), "unknown status");
    assert_int_equal(atune_version_number(), ATUNE_VERSION_NUMBER);
}

/* ---- lookups ------------------------------------------------------------ */

/* The tuned size a lookup lands on, and how. */
static void expect(atune_profile *p, const char *kernel, const char *size,
                   const char *tuned, atune_size_match match)
{
    const atune_config *c = lookup_ok(p, kernel, size);

    if (strcmp(atune_config_size(c), tuned) != 0 ||
        atune_config_size_match(c) != match)
        fail_msg("%s %s: got %s (%d), expected %s (%d)", kernel, size,
                 atune_config_size(c), atune_config_size_match(c), tuned,
                 match);
    assert_string_equal(atune_config_kernel(c), kernel);
}

static void test_lookup_one_variable(void **state)
{
    atune_profile *p = open_ok(data("profiles_good", "h100.ini"));

    (void)state;
    expect(p, "copy", "n=268435456", "n=268435456", ATUNE_SIZE_EXACT);
    expect(p, "copy", " n = 1048576 ", "n=1048576", ATUNE_SIZE_EXACT);
    /* Log scale: 2^24 is 4 octaves from both 2^20 and 2^28; the tie goes
     * to the larger size. Just below, the smaller is nearer. */
    expect(p, "copy", "n=16777216", "n=268435456", ATUNE_SIZE_NEAREST);
    expect(p, "copy", "n=16777215", "n=1048576", ATUNE_SIZE_NEAREST);
    /* A linear distance would pick 2^28 here; the log scale does not. */
    expect(p, "copy", "n=100000000", "n=268435456", ATUNE_SIZE_NEAREST);
    expect(p, "copy", "n=10000000", "n=1048576", ATUNE_SIZE_NEAREST);
    expect(p, "copy", "n=1000000", "n=1048576", ATUNE_SIZE_NEAREST);
    expect(p, "copy", "n=1", "n=1048576", ATUNE_SIZE_NEAREST);
    expect(p, "copy", "n=0", "n=1048576", ATUNE_SIZE_NEAREST);
    expect(p, "copy", "n=9223372036854775807", "n=268435456",
           ATUNE_SIZE_NEAREST);
    atune_profile_close(p);
}

static void test_lookup_several_variables(void **state)
{
    atune_profile *p = open_ok(data("profiles_good", "h100.ini"));

    (void)state;
    /* Variables in any order, blanks allowed. */
    expect(p, "matmul", "k=4096, n=4096, m=4096", "m=4096,n=4096,k=4096",
           ATUNE_SIZE_EXACT);
    expect(p, "matmul", "m=4096,n=4096,k=64", "m=4096,n=4096,k=64",
           ATUNE_SIZE_EXACT);
    /* Sum over variables: k=128 is 1 octave from the thin size and 5 from
     * the cube; 2048^3 is 3 octaves from both cubes (tie: the larger) and
     * 1+1+5 from the thin one. */
    expect(p, "matmul", "m=4096,n=4096,k=128", "m=4096,n=4096,k=64",
           ATUNE_SIZE_NEAREST);
    expect(p, "matmul", "m=2048,n=2048,k=2048", "m=4096,n=4096,k=4096",
           ATUNE_SIZE_NEAREST);
    expect(p, "matmul", "m=1024,n=1024,k=2000", "m=1024,n=1024,k=1024",
           ATUNE_SIZE_NEAREST);
    expect(p, "matmul", "m=8192,n=4096,k=32", "m=4096,n=4096,k=64",
           ATUNE_SIZE_NEAREST);
    atune_profile_close(p);
}

static void expect_error(atune_profile *p, const char *kernel, const char *size,
                         int status, const char *text)
{
    const atune_config *c = (const atune_config *)p;
    int rc = atune_profile_lookup(p, kernel, size, &c);

    if (rc != status || !strstr(atune_profile_errmsg(p), text))
        fail_msg("%s '%s': got %s '%s', expected %s '%s'", kernel, size,
                 atune_strerror(rc), atune_profile_errmsg(p),
                 atune_strerror(status), text);
    assert_null(c);
}

static void test_lookup_errors(void **state)
{
    atune_profile *p = open_ok(data("profiles_good", "h100.ini"));

    (void)state;
    expect_error(p, "nope", "n=1", ATUNE_ENOTFOUND,
                 "no entry for kernel 'nope'");
    expect_error(p, "copy", "m=1", ATUNE_ENOTFOUND,
                 "kernel 'copy' has no tuned size with the variables");
    expect_error(p, "matmul", "m=1,n=1", ATUNE_ENOTFOUND, "no tuned size");
    expect_error(p, "matmul", "m=1,n=1,k=1,x=1", ATUNE_ENOTFOUND, "");
    expect_error(p, "copy", "", ATUNE_EINVAL, "bad size '': expected a var");
    expect_error(p, "copy", "n=", ATUNE_EINVAL, "non-negative integer");
    expect_error(p, "copy", "n=-1", ATUNE_EINVAL, "non-negative integer");
    expect_error(p, "copy", "n=1k", ATUNE_EINVAL, "expected ','");
    expect_error(p, "copy", "n=1,", ATUNE_EINVAL, "expected a variable");
    expect_error(p, "copy", "n 1", ATUNE_EINVAL, "expected '='");
    expect_error(p, "copy", "n=1,n=2", ATUNE_EINVAL, "variable given twice");
    expect_error(p, "copy", "n=9223372036854775808", ATUNE_EINVAL,
                 "out of range");
    expect_error(p, "copy", "a=1,b=1,c=1,d=1,e=1,f=1,g=1,h=1,i=1", ATUNE_EINVAL,
                 "too many variables");
    expect_error(p, NULL, "n=1", ATUNE_EINVAL, "NULL");
    expect_error(p, "copy", NULL, ATUNE_EINVAL, "NULL");
    assert_int_equal(atune_profile_lookup(p, "copy", "n=1", NULL),
                     ATUNE_EINVAL);
    /* Success clears the message. */
    lookup_ok(p, "copy", "n=1");
    assert_string_equal(atune_profile_errmsg(p), "");
    atune_profile_close(p);
}

static void test_config_values(void **state)
{
    atune_profile *p = open_ok(data("profiles_good", "h100.ini"));
    const atune_config *c = lookup_ok(p, "copy", "n=268435456");
    static const char *const names[] = {"BLOCK_SIZE", "VW", "UNROLL", "GRID"};
    static const int64_t values[] = {256, 4, 2, 0};

    (void)state;
    assert_int_equal(atune_config_count(c), 4);
    for (int i = 0; i < 4; i++) {
        assert_string_equal(atune_config_name(c, i), names[i]);
        assert_int_equal(atune_config_value(c, i), values[i]);
        assert_int_equal(atune_config_get(c, names[i], -1), values[i]);
    }
    assert_null(atune_config_name(c, 4));
    assert_null(atune_config_name(c, -1));
    assert_int_equal(atune_config_value(c, 4), 0);
    assert_int_equal(atune_config_get(c, "TILE", 16), 16);
    assert_int_equal(atune_config_time_ns(c), 712345);
    assert_int_equal(atune_config_default_time_ns(c), 900000);
    assert_string_equal(atune_config_template_hash(c), "0123456789abcdef");

    /* Any key as text, for display. */
    assert_string_equal(atune_config_meta(c, "metric"), "3015.2 GB/s");
    assert_string_equal(atune_config_meta(c, "BLOCK_SIZE"), "256");
    assert_null(atune_config_meta(c, "nope"));
    assert_null(atune_config_meta(NULL, "metric"));

    c = lookup_ok(p, "matmul", "m=4096,n=4096,k=64");
    assert_int_equal(atune_config_get(c, "TILE", 0), 8);
    assert_int_equal(atune_config_default_time_ns(c), 0); /* not recorded */
    atune_profile_close(p);
}

static void test_every_entry_in_file_order(void **state)
{
    static const char *const sections[] = {
        "copy n=268435456",
        "copy n=1048576",
        "matmul m=4096,n=4096,k=4096",
        "matmul m=1024,n=1024,k=1024",
        "matmul m=4096,n=4096,k=64",
    };
    atune_profile *p = open_ok(data("profiles_good", "h100.ini"));
    atune_profile *bad = NULL;

    (void)state;
    assert_int_equal(atune_profile_count(p), 5);
    for (int i = 0; i < 5; i++) {
        const atune_config *c = atune_profile_entry(p, i);
        char name[128];

        snprintf(name, sizeof(name), "%s %s", atune_config_kernel(c),
                 atune_config_size(c));
        assert_string_equal(name, sections[i]);
        assert_int_equal(atune_config_size_match(c), ATUNE_SIZE_EXACT);
        /* The same configuration a lookup returns. */
        assert_ptr_equal(
            c, lookup_ok(p, atune_config_kernel(c), atune_config_size(c)));
    }
    assert_null(atune_profile_entry(p, 5));
    assert_null(atune_profile_entry(p, -1));
    atune_profile_close(p);

    assert_int_equal(
        atune_profile_open(data("profiles_bad", "dup_key.ini"), &bad),
        ATUNE_EPARSE);
    assert_int_equal(atune_profile_count(bad), 0);
    assert_null(atune_profile_entry(bad, 0));
    atune_profile_close(bad);
    assert_int_equal(atune_profile_count(NULL), 0);
}

static void test_describe(void **state)
{
    atune_profile *p = open_ok(data("profiles_good", "h100.ini"));
    const atune_config *near = lookup_ok(p, "copy", "n=1000000");
    const atune_config *exact = lookup_ok(p, "copy", "n=1048576");
    const atune_config *mm = lookup_ok(p, "matmul", "k=2048,m=2048,n=2048");
    char buf[512], want[4300];

    (void)state;
    /* Both views of one entry stay valid and keep their own match. */
    assert_ptr_not_equal(near, exact);
    assert_int_equal(atune_config_size_match(near), ATUNE_SIZE_NEAREST);
    assert_int_equal(atune_config_describe(p, near, buf, sizeof(buf)),
                     ATUNE_OK);
    snprintf(want, sizeof(want),
             "copy n=1000000: using tuned size n=1048576 (nearest) below "
             "every tuned size from profile 'NVIDIA H100 80GB HBM3' in '%s'",
             data("profiles_good", "h100.ini"));
    assert_string_equal(buf, want);
    assert_int_equal(atune_config_describe(p, exact, buf, sizeof(buf)),
                     ATUNE_OK);
    snprintf(want, sizeof(want),
             "copy n=1048576: using tuned size n=1048576 (exact) from "
             "profile 'NVIDIA H100 80GB HBM3' in '%s'",
             data("profiles_good", "h100.ini"));
    assert_string_equal(buf, want);
    /* The wanted size is written in the tuned size's variable order. */
    assert_int_equal(atune_config_describe(p, mm, buf, sizeof(buf)), ATUNE_OK);
    assert_non_null(strstr(buf, "matmul m=2048,n=2048,k=2048: using tuned size "
                                "m=4096,n=4096,k=4096 (nearest)"));
    /* Truncated like snprintf. */
    assert_int_equal(atune_config_describe(p, near, buf, 10), ATUNE_OK);
    assert_string_equal(buf, "copy n=10");
    assert_int_equal(atune_config_describe(p, near, buf, 0), ATUNE_EINVAL);
    atune_profile_close(p);
}

/* ---- choosing a profile for a device ------------------------------------ */

static atune_profile *open_for(const char *dir, const char *name, int cc,
                               int sms, int want_rc)
{
    atune_device dev = {"", cc, sms, ""};
    atune_profile *p = NULL;
    int rc;

    snprintf(dev.name, sizeof(dev.name), "%s", name);
    rc = atune_profile_open_for(dir, &dev, &p);
    if (rc != want_rc)
        fail_msg("%s (cc %d, %d SMs): got %s '%s', expected %s", name, cc, sms,
                 atune_strerror(rc), atune_profile_errmsg(p),
                 atune_strerror(want_rc));
    assert_non_null(p);
    return p;
}

/* The file p was read from, and the BLOCK_SIZE that marks it. */
static void expect_file(atune_profile *p, const char *file,
                        atune_device_match match, int block)
{
    const char *path = atune_profile_path(p);
    const char *slash = strrchr(path, '/');

    assert_string_equal(slash ? slash + 1 : path, file);
    assert_int_equal(atune_profile_device_match(p), match);
    assert_int_equal(
        atune_config_get(lookup_ok(p, "copy", "n=1024"), "BLOCK_SIZE", 0),
        block);
}

static void test_device_ladder(void **state)
{
    char *dir = make_dir();
    atune_profile *p;
    char buf[512];

    (void)state;
    write_profile(dir, "a100.ini", "NVIDIA A100-SXM4-80GB", 80, 108, 1);
    write_profile(dir, "h100.ini", "NVIDIA H100 80GB HBM3", 90, 132, 2);
    write_profile(dir, "h100-pcie.ini", "NVIDIA H100 PCIe", 90, 114, 3);
    write_profile(dir, "h200.ini", "NVIDIA H200", 90, 132, 4);
    /* Not profiles: ignored even though they would not parse. */
    write_file(dir, "notes.txt", "not an ini file\n");
    write_file(dir, "h100.ini.lock", "");
    write_file(dir, "h100.ini.tmp.123", "[garbage\n");

    p = open_for(dir, "NVIDIA H100 80GB HBM3", 90, 132, ATUNE_OK);
    expect_file(p, "h100.ini", ATUNE_DEVICE_EXACT, 2);
    atune_profile_close(p);

    /* Same name, other SM count (a cut-down part): the name wins over an
     * exact SM count of another model. */
    p = open_for(dir, "NVIDIA H100 PCIe", 90, 132, ATUNE_OK);
    expect_file(p, "h100-pcie.ini", ATUNE_DEVICE_NAME, 3);
    atune_profile_close(p);

    /* Same cc: the nearest SM count (114 is 6 from 120, 132 is 12). */
    p = open_for(dir, "NVIDIA H800", 90, 120, ATUNE_OK);
    expect_file(p, "h100-pcie.ini", ATUNE_DEVICE_CC, 3);
    assert_int_equal(atune_config_describe(p, lookup_ok(p, "copy", "n=1024"),
                                           buf, sizeof(buf)),
                     ATUNE_OK);
    assert_non_null(strstr(
        buf, "copy n=1024: using tuned size n=1024 (exact) from profile "
             "'NVIDIA H100 PCIe' (same compute capability as 'NVIDIA H800') "
             "in '"));
    assert_non_null(strstr(buf, "/h100-pcie.ini'"));
    atune_profile_close(p);

    /* Same cc and SM distance: the file name decides. */
    p = open_for(dir, "NVIDIA H20", 90, 132, ATUNE_OK);
    expect_file(p, "h100.ini", ATUNE_DEVICE_CC, 2);
    atune_profile_close(p);

    p = open_for(dir, "NVIDIA B200", 100, 148, ATUNE_ENOTFOUND);
    assert_non_null(strstr(atune_profile_errmsg(p), "no profile in"));
    assert_non_null(strstr(atune_profile_errmsg(p), "NVIDIA B200"));
    atune_profile_close(p);
    remove_dir(dir);
}

static void test_device_ladder_with_broken_files(void **state)
{
    char *dir = make_dir();
    char sub[4096];
    atune_profile *p;

    (void)state;
    /* Only a broken file, whose device cannot be read: its error. */
    write_file(dir, "aaa-broken.ini", "[device\n");
    p = open_for(dir, "NVIDIA H100 80GB HBM3", 90, 132, ATUNE_EPARSE);
    assert_non_null(strstr(atune_profile_errmsg(p), "aaa-broken.ini:1: "));
    atune_profile_close(p);

    /* A good file beside it is used. */
    write_profile(dir, "h100.ini", "NVIDIA H100 80GB HBM3", 90, 132, 2);
    p = open_for(dir, "NVIDIA H100 80GB HBM3", 90, 132, ATUNE_OK);
    expect_file(p, "h100.ini", ATUNE_DEVICE_EXACT, 2);
    assert_string_equal(atune_profile_errmsg(p), "");
    atune_profile_close(p);

    /* A broken file whose [device] reads is a candidate by its device:
     * reported when nothing good fits, ignored for another cc. */
    write_file(dir, "aaa-broken.ini",
               "[device]\n"
               "format = 1\n"
               "name = NVIDIA B200\n"
               "cc = 100\n"
               "sm_count = 148\n"
               "\n"
               "[copy n=1024]\n"
               "BLOCK_SIZE = x\n");
    p = open_for(dir, "NVIDIA B200", 100, 148, ATUNE_EPARSE);
    assert_non_null(
        strstr(atune_profile_errmsg(p), "aaa-broken.ini:8: bad integer 'x'"));
    atune_profile_close(p);
    p = open_for(dir, "NVIDIA A100-SXM4-80GB", 80, 108, ATUNE_ENOTFOUND);
    atune_profile_close(p);

    /* Sub-directories are not profiles, whatever their name. */
    snprintf(sub, sizeof(sub), "%s/sub.ini", dir);
    assert_int_equal(mkdir(sub, 0700), 0);
    p = open_for(dir, "NVIDIA H100 80GB HBM3", 90, 132, ATUNE_OK);
    expect_file(p, "h100.ini", ATUNE_DEVICE_EXACT, 2);
    atune_profile_close(p);

    p = open_for("/nonexistent-atune-dir", "x", 90, 1, ATUNE_EIO);
    atune_profile_close(p);
    assert_int_equal(atune_profile_open_for(dir, NULL, &p), ATUNE_EINVAL);
    atune_profile_close(p);
    remove_dir(dir);
}

/* ---- speed -------------------------------------------------------------- */

/* The limit is for the library as applications build it; AddressSanitizer
 * makes every lookup several times slower, so it gets more room. */
#if defined(__SANITIZE_ADDRESS__)
#define SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SANITIZED 1
#endif
#endif
#ifdef SANITIZED
#define LOOKUP_LIMIT_S 10.0
#else
#define LOOKUP_LIMIT_S 1.0
#endif

static double now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void test_lookup_speed(void **state)
{
    static const char *const q[][2] = {
        {"copy", "n=268435456"},
        {"copy", "n=1000000"},
        {"matmul", "m=2048,n=2048,k=2048"},
        {"matmul", "k=64, m=4096, n=4096"},
    };
    atune_profile *p = open_ok(data("profiles_good", "h100.ini"));
    int64_t sum = 0;
    double t0, dt;

    (void)state;
    t0 = now();
    for (int i = 0; i < 1000000; i++) {
        const atune_config *c;
        if (atune_profile_lookup(p, q[i & 3][0], q[i & 3][1], &c) != ATUNE_OK)
            fail_msg("lookup failed: %s", atune_profile_errmsg(p));
        sum += atune_config_get(c, "BLOCK_SIZE", 0);
    }
    dt = now() - t0;
    printf("1,000,000 lookups: %.3f s (%.0f ns each; limit %.0f s)\n", dt,
           dt * 1e3, LOOKUP_LIMIT_S);
    assert_int_equal(sum, 250000 * (256 + 128 + 256 + 64));
    assert_true(dt < LOOKUP_LIMIT_S);
    atune_profile_close(p);
}

/* A profile of a ladder (copy at 2^12, 2^13, ..., 2^20 and 2^16 + 1;
 * matmul square and skinny), as tune writes one: BLOCK_SIZE is the size's
 * log2 (99 for 2^16 + 1), so that the test sees which point answered. */
static char *ladder_profile(void)
{
    size_t cap = 8192, n;
    char *text = malloc(cap);

    assert_non_null(text);
    n = (size_t)snprintf(text, cap,
                         "[device]\nformat = 1\nname = G\ncc = 90\n"
                         "sm_count = 1\n");
    for (int e = 12; e <= 20; e++)
        n += (size_t)snprintf(text + n, cap - n,
                              "[copy n=%d]\nsize = ladder_%d\nBLOCK_SIZE = "
                              "%d\n",
                              1 << e, 1 << e, e);
    /* an odd point beside 2^16, as ladders of odd sizes are tuned */
    n += (size_t)snprintf(text + n, cap - n,
                          "[copy n=65537]\nsize = odd\nBLOCK_SIZE = 99\n");
    for (int e = 8; e <= 10; e++) {
        n += (size_t)snprintf(text + n, cap - n,
                              "[matmul m=%d,n=%d,k=%d]\nBM = %d\n", 1 << e,
                              1 << e, 1 << e, e);
        n += (size_t)snprintf(text + n, cap - n,
                              "[matmul m=64,n=%d,k=%d]\nBM = %d\n", 1 << e,
                              1 << e, 100 + e);
    }
    return text;
}

/* Between ladder points the nearest on the log scale answers (the larger
 * on a tie); of two tuned sizes within 0.7% of each other, the one that is
 * a multiple of fewer powers of two, unless the other is asked for
 * exactly; beyond the ends the nearest end; describe names the tuned
 * sizes around the size asked for. */
static void test_ladder_lookup(void **state)
{
    static const struct {
        const char *kernel, *size, *param;
        int64_t value;
        const char *says;
    } cases[] = {
        {"copy", "n=4096", "BLOCK_SIZE", 12, "n=4096 (exact) from"},
        {"copy", "n=5000", "BLOCK_SIZE", 12,
         "n=4096 (nearest) between n=4096 and n=8192 from"},
        {"copy", "n=5792", "BLOCK_SIZE", 12, "(nearest) between n=4096 and"},
        {"copy", "n=5793", "BLOCK_SIZE", 13, "n=8192 (nearest) between"},
        {"copy", "n=1000000", "BLOCK_SIZE", 20,
         "n=1048576 (nearest) between n=524288 and n=1048576 from"},
        {"copy", "n=1048576", "BLOCK_SIZE", 20, "(exact)"},
        {"copy", "n=65536", "BLOCK_SIZE", 16, "n=65536 (exact)"},
        {"copy", "n=65537", "BLOCK_SIZE", 99, "n=65537 (exact)"},
        {"copy", "n=60000", "BLOCK_SIZE", 99,
         "n=65537 (nearest) between n=32768 and n=65536 from"},
        {"copy", "n=50000", "BLOCK_SIZE", 99, "n=65537 (nearest)"},
        {"copy", "n=70000", "BLOCK_SIZE", 99, "n=65537 (nearest)"},
        {"copy", "n=46000", "BLOCK_SIZE", 15, "n=32768 (nearest)"},
        {"copy", "n=1048577", "BLOCK_SIZE", 20,
         "n=1048576 (nearest) above every tuned size from"},
        {"copy", "n=1099511627776", "BLOCK_SIZE", 20, "above every"},
        {"copy", "n=4095", "BLOCK_SIZE", 12,
         "n=4096 (nearest) below every tuned size from"},
        {"copy", "n=0", "BLOCK_SIZE", 12, "below every tuned size"},
        {"matmul", "m=300,n=300,k=300", "BM", 8,
         "m=256,n=256,k=256 (nearest) between m=256,n=256,k=256 and "
         "m=512,n=512,k=512 from"},
        {"matmul", "m=64,n=700,k=700", "BM", 109,
         "m=64,n=512,k=512 (nearest) between m=64,n=512,k=512 and "
         "m=64,n=1024,k=1024 from"},
        {"matmul", "m=64,n=100,k=100", "BM", 108,
         "m=64,n=256,k=256 (nearest) below every tuned size from"},
        {"matmul", "m=128,n=200,k=200", "BM", 8,
         "m=256,n=256,k=256 (nearest) from"},
        {"matmul", "m=2048,n=2048,k=2048", "BM", 10, "above every tuned size"},
        {"matmul", "m=32,n=128,k=128", "BM", 108, "below every tuned size"},
    };
    char *text = ladder_profile();
    atune_profile *p = NULL;
    char buf[512];

    (void)state;
    assert_int_equal(atune_profile_open_string("ladder.ini", text,
                                               strlen(text), &p),
                     ATUNE_OK);
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        const atune_config *c = NULL;
        if (atune_profile_lookup(p, cases[i].kernel, cases[i].size, &c))
            fail_msg("%s %s: %s", cases[i].kernel, cases[i].size,
                     atune_profile_errmsg(p));
        if (atune_config_get(c, cases[i].param, -1) != cases[i].value)
            fail_msg("%s %s: %s = %lld, want %lld", cases[i].kernel,
                     cases[i].size, cases[i].param,
                     (long long)atune_config_get(c, cases[i].param, -1),
                     (long long)cases[i].value);
        assert_int_equal(atune_config_describe(p, c, buf, sizeof(buf)),
                         ATUNE_OK);
        if (!strstr(buf, cases[i].says))
            fail_msg("%s %s: \"%s\" does not say \"%s\"", cases[i].kernel,
                     cases[i].size, buf, cases[i].says);
    }
    atune_profile_close(p);
    free(text);
}

/* The sizes templates/matmul.ini tunes (its named sizes and both square
 * ladders) and rectangular shapes of six classes (tall, wide, thin, flat,
 * long k, short k: tuned with --size or --sizes-from), in a profile as
 * tune writes one. */
static char *shape_profile(void)
{
    static const int sq[] = {260,  364,  516,  724,  1028, 1452, 2052, 2900,
                             4100, 5796, 8196, 257,  363,  513,  725,  1025,
                             1449, 2049, 4096, 1024, 1000, 1037};
    static const int cls[][3] = {
        {4096, 256, 256},  {8192, 512, 512},   {16384, 1024, 1024}, /* tall */
        {256, 4096, 256},  {512, 8192, 512},   {1024, 16384, 1024}, /* wide */
        {64, 2048, 2048},  {64, 4096, 4096},   {64, 8192, 8192},    /* thin */
        {2048, 64, 2048},  {4096, 64, 4096},   {8192, 64, 8192},    /* flat */
        {256, 256, 16384}, {512, 512, 16384},  {1024, 1024, 16384}, /* long k */
        {2048, 2048, 128}, {4096, 4096, 128},  {8192, 8192, 128}};  /* short k */
    size_t cap = 16384, n;
    char *text = malloc(cap);

    assert_non_null(text);
    n = (size_t)snprintf(text, cap,
                         "[device]\nformat = 1\nname = G\ncc = 90\n"
                         "sm_count = 132\n");
    for (size_t i = 0; i < sizeof(sq) / sizeof(sq[0]); i++)
        n += (size_t)snprintf(text + n, cap - n,
                              "[matmul m=%d,n=%d,k=%d]\nBM = %zu\n", sq[i],
                              sq[i], sq[i], i);
    for (size_t i = 0; i < sizeof(cls) / sizeof(cls[0]); i++)
        n += (size_t)snprintf(text + n, cap - n,
                              "[matmul m=%d,n=%d,k=%d]\nBM = %zu\n",
                              cls[i][0], cls[i][1], cls[i][2], 100 + i);
    assert_true(n < cap);
    return text;
}

/* Rectangular GEMMs get the entry of their shape class, not a square's:
 * the nearest (m, n, k) on a log scale over all three variables. The
 * shapes of issue 36's suite and their neighbours. */
static void test_shape_class_lookup(void **state)
{
    static const char *const cases[][2] = {
        /* tall and wide: 16384 x 1024 x 1024 and its transpose */
        {"m=16384,n=1024,k=1024", "m=16384,n=1024,k=1024"},
        {"m=15000,n=1000,k=1000", "m=16384,n=1024,k=1024"},
        {"m=1000,n=15000,k=1000", "m=1024,n=16384,k=1024"},
        {"m=6000,n=300,k=300", "m=4096,n=256,k=256"},
        /* thin and flat: 64 or 128 rows (columns) under large squares */
        {"m=60,n=7000,k=7000", "m=64,n=8192,k=8192"},
        {"m=128,n=4096,k=4096", "m=64,n=4096,k=4096"},
        {"m=4096,n=128,k=4096", "m=4096,n=64,k=4096"},
        {"m=8192,n=64,k=8192", "m=8192,n=64,k=8192"},
        /* long k */
        {"m=300,n=300,k=12000", "m=256,n=256,k=16384"},
        {"m=512,n=512,k=8192", "m=512,n=512,k=16384"},
        {"m=1000,n=1000,k=20000", "m=1024,n=1024,k=16384"},
        /* short k */
        {"m=6000,n=6000,k=100", "m=8192,n=8192,k=128"},
        {"m=4096,n=4096,k=200", "m=4096,n=4096,k=128"},
        /* squares stay on the square ladders (4100 rather than 4096:
         * fewer powers of two, within 0.7%) */
        {"m=4095,n=4095,k=4095", "m=4100,n=4100,k=4100"},
        {"m=2048,n=2048,k=2048", "m=2049,n=2049,k=2049"},
        {"m=3000,n=3000,k=3000", "m=2900,n=2900,k=2900"},
        /* between classes: 2048 x 8192 x 2048 is one octave from 2049^3
         * and 2052^3 in n (the odd one answers: fewer powers of two),
         * three from the wide and short-k points */
        {"m=2048,n=8192,k=2048", "m=2049,n=2049,k=2049"},
    };
    char *text = shape_profile();
    atune_profile *p = NULL;

    (void)state;
    assert_int_equal(
        atune_profile_open_string("shapes.ini", text, strlen(text), &p),
        ATUNE_OK);
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
        expect(p, "matmul", cases[i][0], cases[i][1],
               strcmp(cases[i][0], cases[i][1]) == 0 ? ATUNE_SIZE_EXACT
                                                     : ATUNE_SIZE_NEAREST);
    atune_profile_close(p);
    free(text);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_open_good),
        cmocka_unit_test(test_crlf_and_bom_accepted),
        cmocka_unit_test(test_comments_and_unknown_keys),
        cmocka_unit_test(test_malformed_corpus),
        cmocka_unit_test(test_open_errors),
        cmocka_unit_test(test_null_tolerance),
        cmocka_unit_test(test_lookup_one_variable),
        cmocka_unit_test(test_lookup_several_variables),
        cmocka_unit_test(test_lookup_errors),
        cmocka_unit_test(test_config_values),
        cmocka_unit_test(test_every_entry_in_file_order),
        cmocka_unit_test(test_describe),
        cmocka_unit_test(test_ladder_lookup),
        cmocka_unit_test(test_shape_class_lookup),
        cmocka_unit_test(test_device_ladder),
        cmocka_unit_test(test_device_ladder_with_broken_files),
        cmocka_unit_test(test_lookup_speed),
    };

    source_dir = getenv("ATUNE_SOURCE_DIR");
    if (!source_dir || !*source_dir) {
        fprintf(stderr,
                "test_profile: ATUNE_SOURCE_DIR is not set (CTest sets it; by "
                "hand: ATUNE_SOURCE_DIR=/path/to/repo ./test_profile)\n");
        return 1;
    }
    return cmocka_run_group_tests_name("profile", tests, NULL, NULL);
}
