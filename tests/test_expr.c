/* test_expr.c -- the manifest expression language: syntax, C semantics,
 * every error path, and robustness against garbage. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "template/expr.h"

struct value_case {
    const char *text;
    int64_t want;
};

struct error_case {
    const char *text;
    const char *msg; /* the exact message */
};

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

/* Variables shared by the tests. */
static void fill_vars(atune__vars *vs)
{
    memset(vs, 0, sizeof(*vs));
    assert_int_equal(atune__vars_set(vs, "n", 1000), 0);
    assert_int_equal(atune__vars_set(vs, "VW", 4), 0);
    assert_int_equal(atune__vars_set(vs, "zero", 0), 0);
    assert_int_equal(atune__vars_set(vs, "big", INT64_MAX), 0);
    assert_int_equal(atune__vars_set(vs, "small", INT64_MIN), 0);
}

/* Parses and evaluates text; fails the test on any error. */
static int64_t value_of(const char *text, const atune__vars *vs)
{
    atune__expr *e = NULL;
    atune__err err = {0};
    int64_t v = -12345;

    if (atune__expr_parse(text, &e, &err) != ATUNE__OK)
        fail_msg("parse '%s': %s", text, err.msg);
    if (atune__expr_eval(e, vs, &v, &err) != ATUNE__OK)
        fail_msg("eval '%s': %s", text, err.msg);
    assert_string_equal(atune__expr_text(e), text);
    atune__expr_free(e);
    return v;
}

static void check_values(const struct value_case *c, size_t n)
{
    atune__vars vs;

    fill_vars(&vs);
    for (size_t i = 0; i < n; i++) {
        int64_t v = value_of(c[i].text, &vs);
        if (v != c[i].want)
            fail_msg("'%s' = %lld, want %lld", c[i].text, (long long)v,
                     (long long)c[i].want);
    }
}

/* Expects a parse error with exactly the message msg. */
static void check_parse_errors(const struct error_case *c, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        atune__expr *e = (atune__expr *)&e; /* must be reset to NULL */
        atune__err err = {0};
        int rc = atune__expr_parse(c[i].text, &e, &err);
        if (rc != ATUNE__EDATA)
            fail_msg("'%s' parsed (rc %d)", c[i].text, rc);
        assert_null(e);
        if (strcmp(err.msg, c[i].msg) != 0)
            fail_msg("'%s': got \"%s\", want \"%s\"", c[i].text, err.msg,
                     c[i].msg);
    }
}

/* Expects a clean parse and an evaluation error with message msg. */
static void check_eval_errors(const struct error_case *c, size_t n)
{
    atune__vars vs;

    fill_vars(&vs);
    for (size_t i = 0; i < n; i++) {
        atune__expr *e = NULL;
        atune__err err = {0};
        int64_t v = 77;
        if (atune__expr_parse(c[i].text, &e, &err) != ATUNE__OK)
            fail_msg("parse '%s': %s", c[i].text, err.msg);
        if (atune__expr_eval(e, &vs, &v, &err) != ATUNE__EDATA)
            fail_msg("'%s' evaluated to %lld", c[i].text, (long long)v);
        assert_int_equal(v, 77); /* untouched on error */
        if (strcmp(err.msg, c[i].msg) != 0)
            fail_msg("'%s': got \"%s\", want \"%s\"", c[i].text, err.msg,
                     c[i].msg);
        atune__expr_free(e);
    }
}

/* Each pair tells the grouping: the other reading gives another value. */
static void test_precedence(void **state)
{
    (void)state;
    static const struct value_case c[] = {
        {"1 + 2 * 3", 7},
        {"(1 + 2) * 3", 9},
        {"2 * 3 % 4", 2}, /* not 2 * (3 % 4) = 6 */
        {"7 - 2 * 3", 1},
        {"1 << 2 + 1", 8}, /* shift below add */
        {"1 + 2 << 1", 6},
        {"1 < 2 == 1", 1}, /* relational above equality */
        {"2 == 2 < 1", 0},
        {"3 & 6 == 6", 1},     /* == above &: 3 & 1 */
        {"6 ^ 3 & 5", 7},      /* & above ^: 6 ^ 1 */
        {"1 | 2 ^ 3", 1},      /* ^ above |: 1 | 1 */
        {"0 && 0 | 1", 0},     /* | above && */
        {"1 || 0 && 0", 1},    /* && above || */
        {"1 || 1 ? 5 : 6", 5}, /* || above ?: */
        {"-2 * -3", 6},
        {"-2 * 3 + 1", -5},
        {"!0 + 1", 2}, /* unary above binary */
        {"~0 * 2", -2},
        {"1 << 3 < 9", 1}, /* shift above relational */
        {"min(2, 3) * 2", 4},
        {"cdiv(1 + 2, (3))", 1},
    };
    check_values(c, ARRAY_LEN(c));
}

static void test_associativity(void **state)
{
    (void)state;
    static const struct value_case c[] = {
        {"10 - 4 - 3", 3},
        {"100 / 10 / 5", 2},
        {"100 % 7 % 3", 2},
        {"1 - 2 - 3", -4},
        {"3 > 2 > 1", 0}, /* (3 > 2) > 1, as in C */
        {"1 == 2 != 0", 0},
        {"1 << 2 << 3", 32},
        {"256 >> 2 >> 1", 32},
        {"1 ? 2 : 0 ? 3 : 4", 2}, /* right-associative */
        {"0 ? 1 : 1 ? 2 : 3", 2},
        {"0 ? 1 : 0 ? 2 : 3", 3},
        {"1 ? 0 ? 5 : 6 : 7", 6}, /* nested in the middle */
        {"0 ? 5 : (1 ? 8 : 9)", 8},
        {"- - 3", 3},
        {"-(-3)", 3},
        {"!!7", 1},
        {"~~5", 5},
        {"+-+3", -3},
    };
    check_values(c, ARRAY_LEN(c));
}

static void test_c_semantics(void **state)
{
    (void)state;
    static const struct value_case c[] = {
        {"7 / 2", 3},
        {"-7 / 2", -3}, /* truncation toward zero */
        {"7 / -2", -3},
        {"-7 / -2", 3},
        {"7 % 3", 1},
        {"-7 % 3", -1}, /* sign of the dividend */
        {"7 % -3", 1},
        {"-7 % -3", -1},
        {"-8 >> 1", -4},
        {"-7 >> 1", -4}, /* arithmetic shift rounds down */
        {"-1 >> 62", -1},
        {"7 >> 1", 3},
        {"1 << 62", INT64_C(4611686018427387904)},
        {"-1 << 62", -INT64_C(4611686018427387904)},
        {"5 & 3", 1},
        {"5 | 3", 7},
        {"5 ^ 3", 6},
        {"~5", -6},
        {"!5", 0},
        {"!0", 1},
        {"5 >= 5", 1},
        {"5 <= 4", 0},
        {"5 != 4", 1},
        {"4 > 5", 0},
        {"2 && 3", 1}, /* logical results are 0 or 1 */
        {"0 || 7", 1},
        {"0 || 0", 0},
        {"n / VW", 250},
        {"n % 7 + VW", 10},
        {"big", INT64_MAX},
        {"small", INT64_MIN},
        {"big + small", -1},
        {"small + 1 - 1", INT64_MIN},
        {"-big - 1", INT64_MIN},
        {"3037000499 * 3037000499", INT64_C(9223372030926249001)},
        {"small / 2 * 2", INT64_MIN},
        {"small % 1", 0},
        {"-1 * big", -INT64_MAX},
        {"\t1\n+ 2 ", 3},
    };
    check_values(c, ARRAY_LEN(c));
}

static void test_literals(void **state)
{
    (void)state;
    static const struct value_case c[] = {
        {"0", 0},
        {"0x10", 16},
        {"0xff", 255},
        {"0XFF", 255},
        {"0x0", 0},
        {"0xDeadBeef", INT64_C(0xdeadbeef)},
        {"9223372036854775807", INT64_MAX},
        {"0x7fffffffffffffff", INT64_MAX},
        {"-9223372036854775807 - 1", INT64_MIN},
        /* Unary minus on 2^63 is INT64_MIN, as in C (issue 20). */
        {"-9223372036854775808", INT64_MIN},
        {"- 9223372036854775808", INT64_MIN},
        {"-0x8000000000000000", INT64_MIN},
        {"-9223372036854775808 + 1", INT64_MIN + 1},
        {"1 + -9223372036854775808 + big", 0},
        {"-9223372036854775808 == small", 1},
        {"(-9223372036854775808) / 2", INT64_MIN / 2},
        {"~-9223372036854775808", INT64_MAX},
        {"268435456", 268435456},
    };
    check_values(c, ARRAY_LEN(c));
}

static void test_functions(void **state)
{
    (void)state;
    static const struct value_case c[] = {
        {"cdiv(7, 2)", 4},
        {"cdiv(8, 2)", 4},
        {"cdiv(1, 256)", 1},
        {"cdiv(0, 5)", 0},
        {"cdiv(-7, 2)", -3}, /* ceiling, not away from zero */
        {"cdiv(7, -2)", -3},
        {"cdiv(-7, -2)", 4},
        {"cdiv(-8, -2)", 4},
        {"cdiv(big, 1)", INT64_MAX},
        {"cdiv(small, 2)", INT64_MIN / 2},
        {"cdiv(n, VW * 128)", 2},
        {"min(3, -4)", -4},
        {"max(3, -4)", 3},
        {"max(min(1, 2), 3)", 3},
        {"min(small, big)", INT64_MIN},
        {"max(small, big)", INT64_MAX},
        {"cdiv(cdiv(1000, 3), min(4, max(5, 6)))", 84},
    };
    check_values(c, ARRAY_LEN(c));
}

/* The branch not taken may be undefined, or name an unknown variable. */
static void test_lazy(void **state)
{
    (void)state;
    static const struct value_case c[] = {
        {"0 && 1 / 0", 0},
        {"1 || 1 / 0", 1},
        {"1 ? 5 : 1 / 0", 5},
        {"0 ? 1 / 0 : 6", 6},
        {"0 && nosuchname", 0},
        {"zero != 0 && n / zero > 1", 0},
        {"zero == 0 || n % zero", 1},
        {"1 ? 2 : big + 1", 2},
    };
    check_values(c, ARRAY_LEN(c));
}

static void test_parse_errors(void **state)
{
    (void)state;
    static const struct error_case c[] = {
        {"cdiv(n, 4", "column 10: expected ')' in 'cdiv(n, 4'"},
        {"", "column 1: expected an operand in ''"},
        {"   ", "column 4: expected an operand in '   '"},
        {"1 +", "column 4: expected an operand in '1 +'"},
        {"1 + )", "column 5: expected an operand in '1 + )'"},
        {"* 2", "column 1: expected an operand in '* 2'"},
        {"1 2", "column 3: unexpected '2' in '1 2'"},
        {"(1))", "column 4: unexpected ')' in '(1))'"},
        {"n VW", "column 3: unexpected 'VW' in 'n VW'"},
        {"(1 + 2", "column 7: expected ')' in '(1 + 2'"},
        {"((1 + 2) * 3", "column 13: expected ')' in '((1 + 2) * 3'"},
        {"1 ? 2", "column 6: expected ':' in '1 ? 2'"},
        {"1 ? 2 , 3", "column 7: expected ':' in '1 ? 2 , 3'"},
        {"a # b", "column 3: unexpected character '#' in 'a # b'"},
        {"n = 4", "column 3: unexpected character '=' in 'n = 4'"},
        {"2.5", "column 2: unexpected character '.' in '2.5'"},
        {"a\x01", "column 2: unexpected byte 0x01 in 'a\x01'"},
        {"a\xff", "column 2: unexpected byte 0xff in 'a\xff'"},
        {"foo(1)", "column 1: unknown function 'foo' in 'foo(1)'"},
        {"1 + min(1)",
         "column 5: 'min' takes 2 arguments, got 1 in '1 + min(1)'"},
        {"cdiv(1, 2, 3)",
         "column 1: 'cdiv' takes 2 arguments, got 3 in 'cdiv(1, 2, 3)'"},
        {"max()", "column 1: 'max' takes 2 arguments, got 0 in 'max()'"},
        {"min(1 2)", "column 7: expected ')' in 'min(1 2)'"},
        {"min(1,)", "column 7: expected an operand in 'min(1,)'"},
        {"12abc", "column 1: bad literal '12abc' in '12abc'"},
        {"1 + 0x", "column 5: bad literal '0x' in '1 + 0x'"},
        {"0x1g", "column 1: bad literal '0x1g' in '0x1g'"},
        {"010", "column 1: bad literal '010': octal is not supported in "
                "'010'"},
        {"9223372036854775808",
         "column 1: literal '9223372036854775808' out of range in "
         "'9223372036854775808'"},
        {"0x8000000000000000",
         "column 1: literal '0x8000000000000000' out of range in "
         "'0x8000000000000000'"},
        {"99999999999999999999999",
         "column 1: literal '99999999999999999999999' out of range in "
         "'99999999999999999999999'"},
        /* 2^63 only after unary minus: not after binary minus, '+' or
         * '!', and not when the minus negates a parenthesised 2^63. */
        {"1 - 9223372036854775808",
         "column 5: literal '9223372036854775808' out of range in "
         "'1 - 9223372036854775808'"},
        {"+9223372036854775808",
         "column 2: literal '9223372036854775808' out of range in "
         "'+9223372036854775808'"},
        {"-(9223372036854775808)",
         "column 3: literal '9223372036854775808' out of range in "
         "'-(9223372036854775808)'"},
        {"-9223372036854775809",
         "column 2: literal '9223372036854775809' out of range in "
         "'-9223372036854775809'"},
        {"-18446744073709551616",
         "column 2: literal '18446744073709551616' out of range in "
         "'-18446744073709551616'"},
    };
    check_parse_errors(c, ARRAY_LEN(c));
}

static void test_long_name(void **state)
{
    (void)state;
    char text[80];
    atune__expr *e = NULL;
    atune__err err = {0};

    /* 47 bytes fit, 48 do not. */
    memset(text, 'a', 47);
    text[47] = '\0';
    assert_int_equal(atune__expr_parse(text, &e, &err), ATUNE__OK);
    atune__expr_free(e);
    memcpy(text, "1 + ", 4);
    memset(text + 4, 'b', 48);
    text[52] = '\0';
    assert_int_equal(atune__expr_parse(text, &e, &err), ATUNE__EDATA);
    assert_null(e);
    assert_non_null(strstr(err.msg, "column 5: name 'bbbb"));
    assert_non_null(strstr(err.msg, "longer than 47 bytes"));
}

static void test_eval_errors(void **state)
{
    (void)state;
    static const struct error_case c[] = {
        {"BLOCK * 2", "unknown name 'BLOCK'"},
        {"n + (VW * nn)", "unknown name 'nn'"},
        {"n / zero", "division by zero in 'n / zero'"},
        {"n / (VW - 4)", "division by zero in 'n / (VW - 4)'"},
        {"1 + n % zero", "division by zero in 'n % zero'"},
        {"cdiv(n, 0)", "division by zero in 'cdiv(n, 0)'"},
        {"1 && 1 / 0", "division by zero in '1 / 0'"},
        {"big + 1", "overflow in 'big + 1'"},
        {"small + -1", "overflow in 'small + -1'"},
        {"small - 1", "overflow in 'small - 1'"},
        {"0 - small", "overflow in '0 - small'"},
        {"big - -1", "overflow in 'big - -1'"},
        {"4611686018427387904 * 2", "overflow in '4611686018427387904 * 2'"},
        {"3037000500 * 3037000500", "overflow in '3037000500 * 3037000500'"},
        {"-3037000500 * 3037000500", "overflow in '-3037000500 * 3037000500'"},
        {"small * -1", "overflow in 'small * -1'"},
        {"-1 * small", "overflow in '-1 * small'"},
        {"small * 2", "overflow in 'small * 2'"},
        {"(n + 1) * big", "overflow in '(n + 1) * big'"},
        {"-small", "overflow in '-small'"},
        {"--9223372036854775808", "overflow in '--9223372036854775808'"},
        {"-9223372036854775808 - 1", "overflow in '-9223372036854775808 - 1'"},
        {"1 - -small", "overflow in '-small'"},
        {"small / -1", "overflow in 'small / -1'"},
        {"small % -1", "overflow in 'small % -1'"},
        {"cdiv(small, -1)", "overflow in 'cdiv(small, -1)'"},
        {"1 << 63", "bad shift count 63 in '1 << 63'"},
        {"1 >> 64", "bad shift count 64 in '1 >> 64'"},
        {"1 << -1", "bad shift count -1 in '1 << -1'"},
        {"2 << 62", "overflow in '2 << 62'"},
        {"-5 << 61", "overflow in '-5 << 61'"},
        {"min(1, n / zero)", "division by zero in 'n / zero'"},
        {"0 ? 1 : 2 / 0", "division by zero in '2 / 0'"},
    };
    check_eval_errors(c, ARRAY_LEN(c));
}

/* Parses text made of count copies of head, then mid, then count copies
 * of tail; returns the code. */
static int parse_repeated(const char *head, const char *mid, const char *tail,
                          int count, atune__err *err)
{
    size_t len = (strlen(head) + strlen(tail)) * (size_t)count + 64;
    char *text = malloc(len);
    atune__expr *e = NULL;
    int rc;

    assert_non_null(text);
    text[0] = '\0';
    for (int i = 0; i < count; i++)
        strcat(text, head);
    strcat(text, mid);
    for (int i = 0; i < count; i++)
        strcat(text, tail);
    rc = atune__expr_parse(text, &e, err);
    if (rc == ATUNE__OK) {
        int64_t v;
        assert_int_equal(atune__expr_eval(e, NULL, &v, err), ATUNE__OK);
    }
    atune__expr_free(e);
    free(text);
    return rc;
}

static void test_depth_limit(void **state)
{
    (void)state;
    atune__err err = {0};

    assert_int_equal(parse_repeated("(", "1", ")", 100, &err), ATUNE__OK);
    assert_int_equal(parse_repeated("-", "1", "", 100, &err), ATUNE__OK);
    assert_int_equal(parse_repeated("", "1", "+1", 150, &err), ATUNE__OK);
    assert_int_equal(parse_repeated("1?", "1", ":1", 60, &err), ATUNE__OK);
    assert_int_equal(parse_repeated("min(1,", "1", ")", 60, &err), ATUNE__OK);

    assert_int_equal(parse_repeated("(", "1", ")", 10000, &err), ATUNE__EDATA);
    assert_non_null(strstr(err.msg, "nested deeper than 200 levels"));
    assert_int_equal(parse_repeated("-", "1", "", 10000, &err), ATUNE__EDATA);
    assert_non_null(strstr(err.msg, "nested deeper than 200 levels"));
    assert_int_equal(parse_repeated("!~", "1", "", 300, &err), ATUNE__EDATA);
    assert_non_null(strstr(err.msg, "nested deeper than 200 levels"));
    /* A left-deep tree needs no parser recursion, but its evaluation
     * would recurse as deep. */
    assert_int_equal(parse_repeated("", "1", "+1", 5000, &err), ATUNE__EDATA);
    assert_non_null(strstr(err.msg, "nested deeper than 200 levels"));
    assert_int_equal(parse_repeated("1?", "1", ":1", 1000, &err), ATUNE__EDATA);
    assert_int_equal(parse_repeated("min(1,", "1", ")", 1000, &err),
                     ATUNE__EDATA);
    /* Unclosed parentheses stop at the limit, not at the end. */
    assert_int_equal(parse_repeated("(", "", "", 10000, &err), ATUNE__EDATA);
    assert_non_null(strstr(err.msg, "column 201: expression nested"));
}

/* Random byte soup from the expression alphabet: every outcome must be a
 * clean success or ATUNE__EDATA, never a crash (the sanitizers watch). */
static void test_garbage(void **state)
{
    (void)state;
    static const char alphabet[] = "0123456789xXabnVW_ ()+-*/%<>=!&|^~?:,."
                                   "\x01\x80";
    atune__vars vs;
    uint64_t seed = 88172645463325252ULL;
    char text[40];
    int parsed = 0;

    fill_vars(&vs);
    for (int i = 0; i < 200000; i++) {
        int len = (int)(i % (int)sizeof(text));
        atune__expr *e = NULL;
        atune__err err = {0};
        int64_t v;
        int rc;
        for (int j = 0; j < len; j++) {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            text[j] = alphabet[seed % (sizeof(alphabet) - 1)];
        }
        text[len] = '\0';
        rc = atune__expr_parse(text, &e, &err);
        if (rc != ATUNE__OK) {
            assert_int_equal(rc, ATUNE__EDATA);
            assert_null(e);
            assert_true(strncmp(err.msg, "column ", 7) == 0);
            continue;
        }
        parsed++;
        rc = atune__expr_eval(e, &vs, &v, &err);
        assert_true(rc == ATUNE__OK || rc == ATUNE__EDATA);
        atune__expr_free(e);
    }
    /* The soup must reach the evaluator, or this tests only the lexer. */
    assert_true(parsed > 1000);
}

static void test_split_top(void **state)
{
    (void)state;
    char *p[4];

    assert_int_equal(atune__split_top(" a , cdiv(b, c),d ", p, 4), 3);
    assert_string_equal(p[0], "a");
    assert_string_equal(p[1], "cdiv(b, c)");
    assert_string_equal(p[2], "d");
    for (int i = 0; i < 3; i++)
        free(p[i]);

    assert_int_equal(atune__split_top("min(a, max(b, c)), (1, 2)", p, 4), 2);
    assert_string_equal(p[0], "min(a, max(b, c))");
    assert_string_equal(p[1], "(1, 2)");
    free(p[0]);
    free(p[1]);

    assert_int_equal(atune__split_top("\tx\t", p, 1), 1);
    assert_string_equal(p[0], "x");
    free(p[0]);

    assert_int_equal(atune__split_top("a,b,c,d", p, 4), 4);
    for (int i = 0; i < 4; i++)
        free(p[i]);
    assert_int_equal(atune__split_top("a,b,c,d,e", p, 4), -1);
    assert_int_equal(atune__split_top("a,,b", p, 4), -1);
    assert_int_equal(atune__split_top("a,b,", p, 4), -1);
    assert_int_equal(atune__split_top(",a", p, 4), -1);
    assert_int_equal(atune__split_top("", p, 4), -1);
    assert_int_equal(atune__split_top("  ", p, 4), -1);
}

struct names {
    int n;
    int stop_at; /* 1-based call that returns 7; 0: never */
    char seen[8][ATUNE__NAME_MAX];
};

static int collect(void *ctx, const char *name)
{
    struct names *ns = ctx;

    assert_true(ns->n < 8);
    strcpy(ns->seen[ns->n++], name);
    return ns->n == ns->stop_at ? 7 : 0;
}

static void test_names(void **state)
{
    (void)state;
    static const char *const want[] = {"BLOCK", "n", "n", "VW", "x_1", "BLOCK"};
    struct names ns = {0};
    atune__expr *e = NULL;
    atune__err err = {0};

    assert_int_equal(atune__expr_parse("(BLOCK * n) + cdiv(n, VW) - "
                                       "max(x_1, 0x1f) ? BLOCK : 3",
                                       &e, &err),
                     ATUNE__OK);
    assert_int_equal(atune__expr_names(e, collect, &ns), 0);
    assert_int_equal(ns.n, 6);
    for (int i = 0; i < 6; i++)
        assert_string_equal(ns.seen[i], want[i]);

    memset(&ns, 0, sizeof(ns));
    ns.stop_at = 2;
    assert_int_equal(atune__expr_names(e, collect, &ns), 7);
    assert_int_equal(ns.n, 2);
    atune__expr_free(e);

    memset(&ns, 0, sizeof(ns));
    assert_int_equal(atune__expr_parse("cdiv(4, 2) + 0x10", &e, &err),
                     ATUNE__OK);
    assert_int_equal(atune__expr_names(e, collect, &ns), 0);
    assert_int_equal(ns.n, 0);
    atune__expr_free(e);
}

static void test_vars(void **state)
{
    (void)state;
    atune__vars vs = {0};
    char name[ATUNE__NAME_MAX + 1];

    assert_int_equal(atune__vars_set(&vs, "n", 5), 0);
    assert_int_equal(atune__vars_set(&vs, "nn", 6), 0);
    assert_int_equal(atune__vars_set(&vs, "n", 7), 0); /* replaces */
    assert_int_equal(vs.n, 2);
    assert_int_equal(*atune__vars_get(&vs, "n", 1), 7);
    assert_int_equal(*atune__vars_get(&vs, "nn+1", 2), 6);
    assert_null(atune__vars_get(&vs, "nnn", 3));
    assert_null(atune__vars_get(&vs, "x", 1));

    memset(name, 'a', ATUNE__NAME_MAX);
    name[ATUNE__NAME_MAX] = '\0';
    assert_int_equal(atune__vars_set(&vs, name, 1), -1);
    name[ATUNE__NAME_MAX - 1] = '\0';
    assert_int_equal(atune__vars_set(&vs, name, 1), 0);

    while (vs.n < ATUNE__VARS_MAX) {
        snprintf(name, sizeof(name), "v%d", vs.n);
        assert_int_equal(atune__vars_set(&vs, name, vs.n), 0);
    }
    assert_int_equal(atune__vars_set(&vs, "one_more", 1), -1);
    assert_int_equal(atune__vars_set(&vs, "n", 8), 0); /* still replaces */
    assert_int_equal(*atune__vars_get(&vs, "n", 1), 8);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_precedence),
        cmocka_unit_test(test_associativity),
        cmocka_unit_test(test_c_semantics),
        cmocka_unit_test(test_literals),
        cmocka_unit_test(test_functions),
        cmocka_unit_test(test_lazy),
        cmocka_unit_test(test_parse_errors),
        cmocka_unit_test(test_long_name),
        cmocka_unit_test(test_eval_errors),
        cmocka_unit_test(test_depth_limit),
        cmocka_unit_test(test_garbage),
        cmocka_unit_test(test_split_top),
        cmocka_unit_test(test_names),
        cmocka_unit_test(test_vars),
    };

    return cmocka_run_group_tests_name("expr", tests, NULL, NULL);
}
