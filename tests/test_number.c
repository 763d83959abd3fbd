/* test_number.c -- the one number parser (base/number.h) and libatune's
 * copy of it (lib/number.c): one table through both, so that a profile's
 * numbers read as the tool's do; real numbers; the environment's limits
 * refused with the variable's name and value, never silently ignored.
 * Also base/util.h's error messages: a hint appended after a compiler's
 * long log is kept whole, the log cut before it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "base/number.h"
#include "base/util.h"
#include "lib/profile_impl.h"

static const struct {
    const char *text;
    int ok;
    int64_t v;
} ints[] = {
    {"0", 1, 0},
    {"7", 1, 7},
    {"-7", 1, -7},
    {"010", 1, 10}, /* decimal, never octal */
    {"9223372036854775807", 1, INT64_MAX},
    {"-9223372036854775808", 1, INT64_MIN},
    {"9223372036854775808", 0, 0},
    {"-9223372036854775809", 0, 0},
    {"99999999999999999999999", 0, 0},
    {"", 0, 0},
    {"-", 0, 0},
    {"+5", 0, 0},
    {" 5", 0, 0},
    {"5 ", 0, 0},
    {"5x", 0, 0},
    {"0x10", 0, 0},
    {"1e3", 0, 0},
    {"1.0", 0, 0},
    {"--5", 0, 0},
    {"5\r", 0, 0},
};

static void test_integers_both_copies(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof(ints) / sizeof(*ints); i++) {
        int64_t a = 42, b = 42;
        const char *wa = atune__parse_i64(ints[i].text, INT64_MIN, INT64_MAX,
                                          &a);
        const char *wb = atune__lib_parse_i64(ints[i].text, INT64_MIN,
                                              INT64_MAX, &b);
        if ((wa == NULL) != ints[i].ok || (wb == NULL) != ints[i].ok)
            fail_msg("'%s': base says %s, lib says %s", ints[i].text,
                     wa ? wa : "ok", wb ? wb : "ok");
        assert_int_equal(a, ints[i].ok ? ints[i].v : 42);
        assert_int_equal(b, ints[i].ok ? ints[i].v : 42);
        if (wa)
            assert_string_equal(wa, wb);
    }
    /* bounds */
    int64_t v = 0;
    assert_string_equal(atune__parse_i64("11", 0, 10, &v), "out of range");
    assert_string_equal(atune__lib_parse_i64("-1", 0, 10, &v), "out of range");
    assert_null(atune__parse_i64("10", 0, 10, &v));
    assert_int_equal(v, 10);
    uint64_t u = 0;
    assert_null(atune__parse_u64("18446744073709551615", UINT64_MAX, &u));
    assert_true(u == UINT64_MAX);
    assert_non_null(atune__parse_u64("18446744073709551616", UINT64_MAX, &u));
    assert_non_null(atune__parse_u64("-1", UINT64_MAX, &u));
}

static void test_reals(void **state)
{
    static const char *const good[] = {"1", "1.5", ".5", "5.", "-2.25",
                                       "1e3", "1E-3", "2.5e+2"};
    static const double val[] = {1, 1.5, .5, 5., -2.25, 1e3, 1e-3, 2.5e2};
    static const char *const bad[] = {"", ".", "-", "0x10", "0x1p4", "inf",
                                      "nan", "1e", "1e+", " 1", "1 ", "1,5",
                                      "+1", "1e999", "1.5.2"};
    double d;

    (void)state;
    for (size_t i = 0; i < sizeof(good) / sizeof(*good); i++) {
        if (atune__parse_real(good[i], -1e9, 1e9, &d))
            fail_msg("'%s' refused", good[i]);
        assert_true(d == val[i]);
    }
    for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
        d = 42;
        if (!atune__parse_real(bad[i], -1e300, 1e300, &d))
            fail_msg("'%s' accepted", bad[i]);
        assert_true(d == 42);
    }
    assert_non_null(atune__parse_real("11", 0, 10, &d));
}

static void test_env(void **state)
{
    atune__err err = {0};
    int64_t v = 0;
    size_t bytes = 0;

    (void)state;
    unsetenv("ATUNE_TEST_NUMBER");
    assert_int_equal(atune__env_i64("ATUNE_TEST_NUMBER", 1, 100, 7, "things",
                                    &v, &err),
                     0);
    assert_int_equal(v, 7);
    setenv("ATUNE_TEST_NUMBER", "", 1);
    assert_int_equal(atune__env_i64("ATUNE_TEST_NUMBER", 1, 100, 7, "things",
                                    &v, &err),
                     0);
    assert_int_equal(v, 7);
    setenv("ATUNE_TEST_NUMBER", "0x10", 1);
    assert_int_equal(atune__env_i64("ATUNE_TEST_NUMBER", 1, 100, 7, "things",
                                    &v, &err),
                     ATUNE__EUSAGE);
    assert_string_equal(err.msg, "ATUNE_TEST_NUMBER: invalid value '0x10': "
                                 "not a decimal integer (things, 1 to 100)");
    setenv("ATUNE_MAX_INPUT_MB", "0", 1);
    assert_int_equal(atune__input_limit(&bytes, &err), ATUNE__EUSAGE);
    assert_non_null(strstr(err.msg, "ATUNE_MAX_INPUT_MB: invalid value '0'"));
    setenv("ATUNE_MAX_INPUT_MB", "3", 1);
    assert_int_equal(atune__input_limit(&bytes, &err), 0);
    assert_int_equal(bytes, 3 << 20);
    unsetenv("ATUNE_MAX_INPUT_MB");
    assert_int_equal(atune__input_limit(&bytes, &err), 0);
    assert_int_equal(bytes, (size_t)ATUNE__INPUT_LIMIT_MB << 20);
}

static void test_err_suffix(void **state)
{
    atune__err err;
    char log[6000];
    size_t len;

    (void)state;
    atune__fail(&err, ATUNE__EDATA, "short");
    atune__err_suffix(&err, " (hint %d)", 1);
    assert_string_equal(err.msg, "short (hint 1)");
    memset(log, 'x', sizeof(log) - 1);
    log[sizeof(log) - 1] = '\0';
    atune__fail(&err, ATUNE__EDATA, "%s", log);
    assert_int_equal(strlen(err.msg), sizeof(err.msg) - 1); /* cut */
    atune__err_suffix(&err, "(what to do)");
    len = strlen(err.msg);
    assert_int_equal(len, sizeof(err.msg) - 1);
    assert_string_equal(err.msg + len - 12, "(what to do)");
    assert_memory_equal(err.msg + len - 12 - 7, "\n[...]\n", 7);
    assert_int_equal(err.code, ATUNE__EDATA);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_integers_both_copies),
        cmocka_unit_test(test_reals),
        cmocka_unit_test(test_env),
        cmocka_unit_test(test_err_suffix),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
