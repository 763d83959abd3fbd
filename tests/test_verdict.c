/* test_verdict.c -- the comparison rule of measure/verdict.c on host
 * values, as the compare kernel reads them back: reals by the largest
 * |out - ref| over the largest |ref| against the tolerance, integers by the
 * count of differing elements against "mismatches". */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "measure/runner_internal.h"

static struct cmp_result real_result(double max_diff, double max_ref)
{
    struct cmp_result r = {.first = ~0ULL};
    memcpy(&r.max_diff, &max_diff, sizeof(max_diff));
    memcpy(&r.max_ref, &max_ref, sizeof(max_ref));
    return r;
}

static void test_reals(void **state)
{
    atune__arg a = {.name = "out", .type = ATUNE__FLOAT};
    struct cmp_result r = real_result(0.5, 100);
    char detail[128] = "";

    (void)state;
    /* 0.5 / 100 = 0.005 */
    assert_true(atune__verdict(&a, 10, 0.005, &r, detail, sizeof(detail)));
    assert_false(atune__verdict(&a, 10, 0.004, &r, detail, sizeof(detail)));
    assert_string_equal(detail,
                        "out: relative error 0.005 exceeds tolerance 0.004");
    /* every reference element 0: the error is absolute */
    r = real_result(0.5, 0);
    assert_false(atune__verdict(&a, 10, 0.4, &r, detail, sizeof(detail)));
    assert_true(atune__verdict(&a, 10, 0.5, &r, detail, sizeof(detail)));
    /* exact: tolerance 0 passes only equal outputs */
    r = real_result(0, 3);
    assert_true(atune__verdict(&a, 10, 0, &r, detail, sizeof(detail)));
    /* a non-finite element fails whatever the tolerance */
    r = real_result(0, 3);
    r.nonfinite = 2;
    r.first = 7;
    a.type = ATUNE__DOUBLE;
    assert_false(atune__verdict(&a, 10, 1e9, &r, detail, sizeof(detail)));
    assert_string_equal(detail, "out: 2 non-finite elements, first at 7");
    /* half and bf16 (converted to float by the compare kernel) are reals:
     * the tolerance decides, not a count of differing elements */
    for (int t = ATUNE__HALF; t <= ATUNE__BF16; t++) {
        a.type = (atune__type)t;
        r = real_result(0.01, 2);
        assert_true(atune__verdict(&a, 10, 0.005, &r, detail, sizeof(detail)));
        assert_false(atune__verdict(&a, 10, 0.004, &r, detail, sizeof(detail)));
    }
}

static void test_integers(void **state)
{
    atune__arg a = {.name = "keys", .type = ATUNE__UINT};
    struct cmp_result r = {.mismatches = 3, .first = 40};
    char detail[128] = "";

    (void)state;
    /* by default every element must match, whatever the tolerance */
    assert_false(atune__verdict(&a, 1000, 1.0, &r, detail, sizeof(detail)));
    assert_string_equal(detail, "keys: 3 of 1000 elements differ, first at 40");
    a.mismatch_count = 3;
    assert_true(atune__verdict(&a, 1000, 0, &r, detail, sizeof(detail)));
    a.mismatch_count = 2;
    assert_false(atune__verdict(&a, 1000, 0, &r, detail, sizeof(detail)));
    /* 0.3% of 1000 is 3; of 999, 2.997 rounds down to 2 */
    a.mismatch_count = 0;
    a.mismatch_pct = 0.3;
    assert_true(atune__verdict(&a, 1000, 0, &r, detail, sizeof(detail)));
    assert_false(atune__verdict(&a, 999, 0, &r, detail, sizeof(detail)));
    r.mismatches = 0;
    assert_true(atune__verdict(&a, 1, 0, &r, detail, sizeof(detail)));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reals),
        cmocka_unit_test(test_integers),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
