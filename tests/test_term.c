/* test_term.c -- base/term.c: what reaches a terminal holds no control
 * sequence but the progress lines' own, whatever a profile or manifest
 * holds, also when a sequence is cut between two writes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "base/term.h"

/* s escaped in one call, or cut after every byte when cut is set. */
static char *escaped(const char *s, int cut)
{
    char *buf = NULL, held[16];
    size_t len = 0, nheld = 0, n = strlen(s);
    FILE *f = open_memstream(&buf, &len);

    assert_non_null(f);
    if (!cut) {
        assert_int_equal(atune__term_escape(f, s, n, 0), n);
    } else {
        for (size_t i = 0; i < n; i++) {
            size_t used;
            held[nheld++] = s[i];
            used = atune__term_escape(f, held, nheld, 1);
            memmove(held, held + used, nheld - used);
            nheld -= used;
            assert_true(nheld < 8);
        }
        atune__term_escape(f, held, nheld, 0);
    }
    fclose(f);
    return buf;
}

static void same_both_ways(const char *in, const char *want)
{
    for (int cut = 0; cut < 2; cut++) {
        char *got = escaped(in, cut);
        if (strcmp(got, want) != 0)
            fail_msg("'%s' (cut %d): got '%s', want '%s'", in, cut, got, want);
        free(got);
    }
}

static void test_escapes(void **state)
{
    (void)state;
    same_both_ways("plain text\twith tab\n", "plain text\twith tab\n");
    same_both_ways("A\x1b]0;title\x07", "A\\x1b]0;title\\x07");
    same_both_ways("\x1b[2J\x7f", "\\x1b[2J\\x7f");
    same_both_ways("bell\a nul-free \x01\x1f", "bell\\x07 nul-free \\x01\\x1f");
    /* C1 in UTF-8, and as a raw byte (no UTF-8) */
    same_both_ways("x\xc2\x9b" "31m", "x\\u009b31m");
    same_both_ways("x\x9b" "31m", "x\\x9b31m");
    /* UTF-8 text is kept, invalid forms are not */
    same_both_ways("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80",
                   "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80");
    same_both_ways("\xc0\xaf", "\\xc0\\xaf");         /* overlong '/' */
    same_both_ways("\xed\xa0\x80", "\\xed\\xa0\\x80"); /* a surrogate */
    same_both_ways("\xe2\x82", "\\xe2\\x82");         /* cut at the end */
    /* the progress lines' redraw, and nothing like it */
    same_both_ways("\r\x1b[K7/9", "\r\x1b[K7/9");
    same_both_ways("\r\x1b[2J", "\\x0d\\x1b[2J");
    same_both_ways("a\rb", "a\\x0db");
}

static void test_utf8_len(void **state)
{
    (void)state;
    assert_int_equal(atune__utf8_len((const unsigned char *)"a", 1), 1);
    assert_int_equal(atune__utf8_len((const unsigned char *)"\xc3\xa9", 2), 2);
    assert_int_equal(atune__utf8_len((const unsigned char *)"\xc3", 1), -1);
    assert_int_equal(atune__utf8_len((const unsigned char *)"\xc3x", 2), 0);
    assert_int_equal(atune__utf8_len((const unsigned char *)"\x80", 1), 0);
    assert_int_equal(
        atune__utf8_len((const unsigned char *)"\xf4\x90\x80\x80", 4), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_escapes),
        cmocka_unit_test(test_utf8_len),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
