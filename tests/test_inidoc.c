/* test_inidoc.c -- the INI reader under inih: line numbers, limits, and
 * everything it must refuse rather than let inih truncate or guess. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/inidoc.h"

/* Parses text that must be accepted. */
static atune__ini *parse_ok(const char *text)
{
    char msg[256];
    atune__ini *ini = NULL;

    if (atune__ini_parse("t.ini", text, &ini, msg, sizeof(msg)) != 0)
        fail_msg("unexpected error: %s", msg);
    assert_non_null(ini);
    return ini;
}

/* Parses text that must be refused with a message starting with prefix
 * ("t.ini:3: ") and containing reason. */
static void parse_bad(const char *text, const char *prefix, const char *reason)
{
    char msg[256] = "untouched";
    atune__ini *ini = (atune__ini *)&msg; /* must become NULL */

    if (atune__ini_parse("t.ini", text, &ini, msg, sizeof(msg)) != -1)
        fail_msg("accepted: '%.60s'", text);
    assert_null(ini);
    if (strncmp(msg, prefix, strlen(prefix)) != 0 || !strstr(msg, reason))
        fail_msg("expected '%s...%s', got '%s'", prefix, reason, msg);
}

static char *repeat(char c, size_t n)
{
    char *s = malloc(n + 1);

    assert_non_null(s);
    memset(s, c, n);
    s[n] = '\0';
    return s;
}

static void test_sections_entries_and_lines(void **state)
{
    atune__ini *ini = parse_ok("; comment\n"
                               "# another\n"
                               "[a]\n"
                               "x = 1\n"
                               "\n"
                               "y=two words ; inline comment\n"
                               "[b]\n"
                               "[a]\n"
                               "x: 3\n"
                               "empty =\n"
                               "semi = a;b\n");
    const atune__ini_section *a, *b;

    (void)state;
    assert_int_equal(ini->nsections, 3);
    a = &ini->sections[0];
    assert_string_equal(a->name, "a");
    assert_int_equal(a->line, 3);
    assert_int_equal(a->nentries, 2);
    assert_string_equal(a->entries[0].key, "x");
    assert_string_equal(a->entries[0].value, "1");
    assert_int_equal(a->entries[0].line, 4);
    assert_string_equal(a->entries[1].key, "y");
    assert_string_equal(a->entries[1].value, "two words");
    assert_int_equal(a->entries[1].line, 6);

    b = &ini->sections[1];
    assert_string_equal(b->name, "b");
    assert_int_equal(b->line, 7);
    assert_int_equal(b->nentries, 0); /* empty sections are kept */

    /* Duplicates are kept, in file order; find gives the first. */
    assert_string_equal(ini->sections[2].name, "a");
    assert_int_equal(ini->sections[2].line, 8);
    assert_ptr_equal(atune__ini_find(ini, "a"), a);
    assert_null(atune__ini_find(ini, "c"));
    assert_string_equal(atune__ini_get(&ini->sections[2], "x")->value, "3");
    assert_int_equal(atune__ini_get(&ini->sections[2], "x")->line, 9);
    assert_string_equal(atune__ini_get(&ini->sections[2], "empty")->value, "");
    assert_string_equal(atune__ini_get(&ini->sections[2], "semi")->value,
                        "a;b");
    assert_null(atune__ini_get(a, "nope"));
    atune__ini_free(ini);
}

static void test_entries_before_any_section(void **state)
{
    atune__ini *ini = parse_ok("\n"
                               "top = 1\n"
                               "[s]\n"
                               "k = v");

    (void)state;
    assert_int_equal(ini->nsections, 2);
    assert_string_equal(ini->sections[0].name, "");
    assert_int_equal(ini->sections[0].entries[0].line, 2);
    /* The last line needs no newline. */
    assert_string_equal(ini->sections[1].entries[0].value, "v");
    assert_int_equal(ini->sections[1].entries[0].line, 4);
    atune__ini_free(ini);
}

static void test_empty_text(void **state)
{
    atune__ini *ini = parse_ok("");

    (void)state;
    assert_int_equal(ini->nsections, 0);
    atune__ini_free(ini);
    ini = parse_ok("\n"
                   "\n"
                   "; only a comment\n");
    assert_int_equal(ini->nsections, 0);
    atune__ini_free(ini);
}

static void test_crlf_and_bom(void **state)
{
    atune__ini *ini = parse_ok("\xEF\xBB\xBF[s]\r\n"
                               "k = v\r\n"
                               "\r\n"
                               "z=1");

    (void)state;
    assert_string_equal(ini->sections[0].name, "s");
    assert_int_equal(ini->sections[0].line, 1);
    assert_string_equal(ini->sections[0].entries[0].value, "v");
    assert_int_equal(ini->sections[0].entries[1].line, 4);
    atune__ini_free(ini);

    /* A BOM is only a BOM at the very start: later it is part of a key. */
    ini = parse_ok("[s]\n"
                   "\xEF\xBB\xBFk = v\n");
    assert_string_equal(ini->sections[0].entries[0].key, "\xEF\xBB\xBFk");
    atune__ini_free(ini);
}

static void test_line_length_limit(void **state)
{
    /* "k=" + value: exactly ATUNE__INI_MAX_LINE bytes is fine, also with
     * CRLF; one more byte is refused with its line. */
    char *v = repeat('x', ATUNE__INI_MAX_LINE - 2);
    char *long_v = repeat('x', ATUNE__INI_MAX_LINE - 1);
    char buf[1024];
    atune__ini *ini;

    (void)state;
    snprintf(buf, sizeof(buf),
             "[s]\n"
             "k=%s\r\n",
             v);
    ini = parse_ok(buf);
    assert_string_equal(ini->sections[0].entries[0].value, v);
    atune__ini_free(ini);

    snprintf(buf, sizeof(buf),
             "[s]\n"
             "k=%s\n"
             "[t]\n",
             long_v);
    parse_bad(buf, "t.ini:2: ", "line too long (200 bytes, at most 199)");
    /* Also on the last line, without a newline. */
    snprintf(buf, sizeof(buf),
             "[s]\n"
             "\n"
             "k=%s",
             long_v);
    parse_bad(buf, "t.ini:3: ", "line too long");
    /* A long comment is a long line too: inih would split it. */
    snprintf(buf, sizeof(buf), ";x%s\n", long_v);
    parse_bad(buf, "t.ini:1: ", "line too long");
    free(v);
    free(long_v);
}

/* inih cuts section names at 50 bytes: the reader must keep them whole,
 * and entries must land in the right one of two long sections that agree
 * in their first 50 bytes. */
static void test_long_section_names(void **state)
{
    static const char text[] =
        "[batched_gemm_f16_tensorcore m=4096,n=4096,k=4096,batch=128]\n"
        "BM = 128\n"
        "[batched_gemm_f16_tensorcore m=4096,n=4096,k=4096,batch=256]\n"
        "BM = 64\n";
    const atune__ini_section *s;
    atune__ini *ini = parse_ok(text);

    (void)state;
    assert_int_equal(ini->nsections, 2);
    s = atune__ini_find(
        ini, "batched_gemm_f16_tensorcore m=4096,n=4096,k=4096,batch=256");
    assert_non_null(s);
    assert_int_equal(s->line, 3);
    assert_string_equal(atune__ini_get(s, "BM")->value, "64");
    assert_string_equal(ini->sections[0].entries[0].value, "128");
    atune__ini_free(ini);
}

static void test_name_length_limits(void **state)
{
    char *name = repeat('n', ATUNE__INI_MAX_NAME);
    char *long_name = repeat('n', ATUNE__INI_MAX_NAME + 1);
    char buf[1024];
    atune__ini *ini;

    (void)state;
    snprintf(buf, sizeof(buf),
             "[%s]\n"
             "%s = 1\n",
             name, name);
    ini = parse_ok(buf);
    assert_string_equal(ini->sections[0].name, name);
    assert_string_equal(ini->sections[0].entries[0].key, name);
    atune__ini_free(ini);

    snprintf(buf, sizeof(buf),
             "[s]\n"
             "[%s]\n",
             long_name);
    parse_bad(buf, "t.ini:2: ", "section name too long (161 bytes");
    snprintf(buf, sizeof(buf),
             "[s]\n"
             "a = 1\n"
             "%s = 1\n",
             long_name);
    parse_bad(buf, "t.ini:3: ", "key name too long (161 bytes");
    free(name);
    free(long_name);
}

static void test_refused_lines(void **state)
{
    (void)state;
    parse_bad("[s]\n"
              "[abc\n",
              "t.ini:2: ", "unterminated section header");
    /* inih ends the search for ']' at an inline comment. */
    parse_bad("[abc ; x]\n", "t.ini:1: ", "unterminated section header");
    parse_bad("[abc] junk\n", "t.ini:1: ", "text after section header");
    parse_bad("[s]\n"
              "[]\n",
              "t.ini:2: ", "empty section name");
    parse_bad("[s]\n"
              "k = 1\n"
              "no separator\n",
              "t.ini:3: ", "expected 'key = value'");
    /* A separator after an inline comment does not count. */
    parse_bad("[s]\n"
              "k ; = 1\n",
              "t.ini:2: ", "expected 'key = value'");
    parse_bad("[s]\n"
              " = 1\n",
              "t.ini:2: ", "continues no entry");
    parse_bad("[s]\n"
              "= 1\n",
              "t.ini:2: ", "missing key name");
    /* A continuation line needs an entry right above it. */
    parse_bad("  more\n", "t.ini:1: ", "continues no entry");
    parse_bad("[s]\n"
              "k = 1\n"
              "\n"
              "  more\n",
              "t.ini:4: ", "continues no entry");
    parse_bad("[s]\n"
              "k = 1\n"
              "[t]\n"
              "\tmore\n",
              "t.ini:4: ", "continues no entry");
    /* Each physical line is still limited. */
    {
        char *v = repeat('x', ATUNE__INI_MAX_LINE);
        char *text = malloc(2 * ATUNE__INI_MAX_LINE + 32);
        assert_non_null(text);
        sprintf(text, "[s]\nk = 1\n %s\n", v);
        parse_bad(text, "t.ini:3: ", "line too long");
        free(text);
        free(v);
    }
}

static void test_continuation_lines(void **state)
{
    /* Indented lines continue the value above them, one space between,
     * inline comments removed; comment lines may sit between; the entry
     * keeps its first line; the next entry's line is counted right. */
    atune__ini *ini = parse_ok("[s]\n"
                               "k = 1, 2,   ; first\n"
                               "    3, 4\n"
                               "    ; a comment line\n"
                               "\t5 ; last\n"
                               "e =\n"
                               "  a\n"
                               "z = 9\n");
    const atune__ini_section *s;

    (void)state;
    s = &ini->sections[0];
    assert_int_equal(s->nentries, 3);
    assert_string_equal(s->entries[0].value, "1, 2, 3, 4 5");
    assert_int_equal(s->entries[0].line, 2);
    assert_string_equal(s->entries[1].value, "a");
    assert_int_equal(s->entries[2].line, 8);
    atune__ini_free(ini);
}

static void test_long_value(void **state)
{
    /* 1000 continuation lines make one value of 10 KB. */
    size_t cap = 16 + 1000 * 12;
    char *text = malloc(cap);
    atune__ini *ini;

    (void)state;
    assert_non_null(text);
    strcpy(text, "[s]\nk =");
    for (int i = 0; i < 1000; i++)
        sprintf(text + strlen(text), "\n  %d,", i);
    strcat(text, "\nj = 2\n");
    ini = parse_ok(text);
    assert_int_equal(ini->sections[0].nentries, 2);
    assert_int_equal(strlen(ini->sections[0].entries[0].value),
                     1000 + 999 + (10 + 90 * 2 + 900 * 3));
    assert_int_equal(ini->sections[0].entries[1].line, 1003);
    atune__ini_free(ini);
    free(text);
}

static void test_accepted_oddities(void **state)
{
    /* What inih accepts and this reader keeps: a comment after ']', an
     * indented comment, ':' as separator, an '=' inside a value. */
    atune__ini *ini = parse_ok("[s] ; note\n"
                               "   ; indented comment\n"
                               "a:b = c\n"
                               "url = x=y\n");

    (void)state;
    assert_string_equal(ini->sections[0].name, "s");
    assert_string_equal(ini->sections[0].entries[0].key, "a");
    assert_string_equal(ini->sections[0].entries[0].value, "b = c");
    assert_string_equal(ini->sections[0].entries[1].value, "x=y");
    atune__ini_free(ini);
}

static void test_nul_ends_the_text(void **state)
{
    /* The text is a C string: what follows a NUL is never seen. Callers
     * reading files detect embedded NULs themselves (see inidoc.c). */
    static const char text[] = "[s]\nk = 1\n\0garbage without separator\n";
    atune__ini *ini = parse_ok(text);

    (void)state;
    assert_int_equal(ini->nsections, 1);
    assert_int_equal(ini->sections[0].nentries, 1);
    atune__ini_free(ini);
}

static void test_message_buffer(void **state)
{
    atune__ini *ini;
    char tiny[8];

    (void)state;
    /* No message buffer, or a tiny one: no overflow, still an error. */
    assert_int_equal(atune__ini_parse("t.ini", "[x", &ini, NULL, 0), -1);
    assert_null(ini);
    assert_int_equal(
        atune__ini_parse("a/long/path.ini", "[x", &ini, tiny, sizeof(tiny)),
        -1);
    assert_int_equal(strlen(tiny), sizeof(tiny) - 1);
    /* Success clears the message. */
    assert_int_equal(atune__ini_parse("t.ini", "", &ini, tiny, sizeof(tiny)),
                     0);
    assert_string_equal(tiny, "");
    atune__ini_free(ini);
    atune__ini_free(NULL);
}

static void test_many_sections(void **state)
{
    /* Enough sections and entries to grow every array several times. */
    size_t cap = 500 * 41 * 16, len = 0;
    char *text = malloc(cap);
    atune__ini *ini;

    (void)state;
    assert_non_null(text);
    for (int s = 0; s < 500; s++) {
        len += (size_t)snprintf(text + len, cap - len, "[s%d]\n", s);
        for (int k = 0; k < 40; k++)
            len +=
                (size_t)snprintf(text + len, cap - len, "k%d=%d\n", k, s * k);
    }
    assert_true(len < cap);
    ini = parse_ok(text);
    assert_int_equal(ini->nsections, 500);
    assert_string_equal(ini->sections[499].name, "s499");
    assert_int_equal(ini->sections[499].nentries, 40);
    assert_string_equal(ini->sections[499].entries[39].value, "19461");
    assert_int_equal(ini->sections[499].entries[39].line, 499 * 41 + 41);
    atune__ini_free(ini);
    free(text);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sections_entries_and_lines),
        cmocka_unit_test(test_entries_before_any_section),
        cmocka_unit_test(test_empty_text),
        cmocka_unit_test(test_crlf_and_bom),
        cmocka_unit_test(test_line_length_limit),
        cmocka_unit_test(test_name_length_limits),
        cmocka_unit_test(test_long_section_names),
        cmocka_unit_test(test_refused_lines),
        cmocka_unit_test(test_accepted_oddities),
        cmocka_unit_test(test_continuation_lines),
        cmocka_unit_test(test_long_value),
        cmocka_unit_test(test_nul_ends_the_text),
        cmocka_unit_test(test_message_buffer),
        cmocka_unit_test(test_many_sections),
    };

    return cmocka_run_group_tests_name("inidoc", tests, NULL, NULL);
}
