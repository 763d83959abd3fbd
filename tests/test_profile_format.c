/* test_profile_format.c -- libatune: format 2 and its end line (a file
 * cut off anywhere is refused with file:line, format 1 is read as it is),
 * and duplicate keys and sections found in large profiles. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "atune/atune.h"

#define HEAD(fmt)                                                              \
    "[device]\nformat = " fmt "\nname = NVIDIA H100\ncc = 90\n"                \
    "sm_count = 132\n\n[copy n=1024]\nBLOCK_SIZE = 1024\ntime_ns = 5\n"

static const char v2[] = HEAD("2") "\n; end of profile\n";

static int open_text(const char *text, size_t len, atune_profile **p)
{
    return atune_profile_open_string("t.ini", text, len, p);
}

static void expect_fail(const char *text, size_t len, int status,
                        const char *where, const char *what)
{
    atune_profile *p;

    assert_int_equal(open_text(text, len, &p), status);
    if (!strstr(atune_profile_errmsg(p), where) ||
        !strstr(atune_profile_errmsg(p), what))
        fail_msg("'%s' lacks '%s' or '%s'", atune_profile_errmsg(p), where,
                 what);
    atune_profile_close(p);
}

static void expect_ok(const char *text, size_t len, int64_t block)
{
    atune_profile *p;
    const atune_config *c;

    if (open_text(text, len, &p) != ATUNE_OK)
        fail_msg("%s", atune_profile_errmsg(p));
    assert_int_equal(atune_profile_lookup(p, "copy", "n=1024", &c), ATUNE_OK);
    assert_int_equal(atune_config_get(c, "BLOCK_SIZE", -1), block);
    atune_profile_close(p);
}

/* Every cut of a format 2 file short of its end line is refused as one,
 * even where the cut line does not parse, and the message names the last
 * line that is there. */
static void test_every_cut_refused(void **state)
{
    size_t end = strlen(v2) - strlen("; end of profile\n");

    (void)state;
    expect_ok(v2, strlen(v2), 1024);
    expect_ok(v2, strlen(v2) - 1, 1024); /* only the final newline lost */
    for (size_t len = strlen("[device]\nformat = 2\n"); len < end; len++) {
        atune_profile *p;
        int rc = open_text(v2, len, &p);
        if (rc != ATUNE_EPARSE ||
            !strstr(atune_profile_errmsg(p), "truncated profile"))
            fail_msg("cut at %zu: %d %s", len, rc, atune_profile_errmsg(p));
        atune_profile_close(p);
    }
    /* The case of issue 20: BLOCK_SIZE = 1024 cut to BLOCK_SIZE = 10. */
    expect_fail(v2, strstr(v2, "1024\ntime") + 2 - v2, ATUNE_EPARSE,
                "t.ini:8: ", "truncated profile");
    /* A cut inside the end line itself. */
    expect_fail(v2, strlen(v2) - 5, ATUNE_EPARSE, "t.ini:11: ",
                "truncated profile");
}

/* Blank lines and CRLF after the end line are accepted; a section after
 * it is not (it would hide a cut). */
static void test_end_line_placement(void **state)
{
    char buf[1024];

    (void)state;
    snprintf(buf, sizeof(buf), "%s\n\n  \n", v2);
    expect_ok(buf, strlen(buf), 1024);
    snprintf(buf, sizeof(buf), "%s; end of profile\r\n", HEAD("2"));
    expect_ok(buf, strlen(buf), 1024);
    snprintf(buf, sizeof(buf), "%s[more n=1]\nA = 1\n", v2);
    expect_fail(buf, strlen(buf), ATUNE_EPARSE, "t.ini:13: ",
                "truncated profile");
    snprintf(buf, sizeof(buf), "%s", HEAD("2"));
    expect_fail(buf, strlen(buf), ATUNE_EPARSE, "t.ini:9: ",
                "ends with the line '; end of profile'");
}

/* Format 1 has no end line: a cut copy cannot be told and is read as it
 * is; an end line in it is only a comment. Formats 0 and 3 are refused. */
static void test_format_1_still_read(void **state)
{
    static const char v1[] = HEAD("1");
    char buf[1024];

    (void)state;
    expect_ok(v1, strlen(v1), 1024);
    expect_ok(v1, strstr(v1, "1024\ntime") + 2 - v1, 10);
    snprintf(buf, sizeof(buf), "%s; end of profile\n", v1);
    expect_ok(buf, strlen(buf), 1024);
    expect_fail(HEAD("3"), strlen(HEAD("3")), ATUNE_EFORMAT, "t.ini:2: ",
                "profile format 3 is not supported");
    expect_fail(HEAD("0"), strlen(HEAD("0")), ATUNE_EFORMAT, "t.ini:2: ",
                "profile format 0 is not supported");
}

/* A growing text buffer for the large profiles. */
typedef struct buf {
    char *s;
    size_t len, cap;
} buf;

static void add(buf *b, const char *fmt, ...)
{
    va_list ap;
    int n;

    if (b->cap - b->len < 256) {
        b->cap = b->cap ? 2 * b->cap : 1 << 20;
        b->s = realloc(b->s, b->cap);
        assert_non_null(b->s);
    }
    va_start(ap, fmt);
    n = vsnprintf(b->s + b->len, b->cap - b->len, fmt, ap);
    va_end(ap);
    assert_true(n > 0 && (size_t)n < b->cap - b->len);
    b->len += (size_t)n;
}

/* 100k sections with one duplicate (in another spelling of its size) and
 * 200k keys with one duplicate: both found, with both lines, quickly. */
static void test_duplicates_in_large_profiles(void **state)
{
    buf b = {0};
    const int n = 100000;

    (void)state;
    add(&b, "[device]\nformat = 1\nname = X\ncc = 90\nsm_count = 1\n");
    for (int i = 0; i < n; i++)
        add(&b, "[mm m=%d,n=%d]\nBLOCK_SIZE = %d\n", i, i % 7, i);
    /* line 6 + 2 * n: [mm m=5,n=5] again, its variables swapped. */
    add(&b, "[mm n=5,m=5]\nBLOCK_SIZE = 1\n");
    expect_fail(b.s, b.len, ATUNE_EPARSE, "t.ini:200006: ",
                "duplicate section [mm n=5,m=5] (first on line 16)");

    b.len = 0;
    add(&b, "[device]\nformat = 1\nname = X\ncc = 90\nsm_count = 1\n"
            "[copy n=1]\n");
    for (int i = 0; i < 2 * n; i++)
        add(&b, "K%d = %d\n", i, i);
    add(&b, "K123456 = 0\nK7 = 0\n"); /* lines 200007 and 200008 */
    expect_fail(b.s, b.len, ATUNE_EPARSE, "t.ini:200007: ",
                "duplicate key 'K123456' (first on line 123463)");
    free(b.s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_cut_refused),
        cmocka_unit_test(test_end_line_placement),
        cmocka_unit_test(test_format_1_still_read),
        cmocka_unit_test(test_duplicates_in_large_profiles),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
