/* gpu_stability.c -- on a GPU: is the measurement stable enough to rank
 * configurations? Every configuration of the copy space at n = 2^28 is
 * measured twice in one run (two passes over the space, with the tuner's
 * default timing), and the median over the space of |t2 - t1| / t1 must
 * be under 1%. Prints the median, the 90th percentile and the worst.
 * Exits 77 (skip) without a driver or a GPU. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "engine/compile.h"
#include "measure/runner.h"
#include "template/templates.h"

static atune__device *dev;

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return x < y ? -1 : x > y;
}

static void test_twice(void **state)
{
    const atune__devinfo *in = atune__device_info(dev);
    atune__templates t = {0};
    atune__problem *p = NULL;
    atune__pool *pool = NULL;
    atune__timing timing;
    atune__err err;
    const atune__manifest *m;
    const atune__size *size = NULL;
    const char *names[1];
    int64_t total, n = 0, *index;
    double *t1, *diff;
    unsigned char *valid;
    int64_t nd = 0;

    (void)state;
    if (atune__templates_load(NULL, "copy", &t, &err))
        fail_msg("%s", err.msg);
    m = t.m[0];
    for (int s = 0; s < m->nsizes; s++)
        if (strcmp(m->sizes[s].name, "large") == 0)
            size = &m->sizes[s];
    assert_non_null(size);
    total = atune__space_size(m);
    index = calloc((size_t)total, sizeof(*index));
    valid = calloc((size_t)total, 1);
    t1 = calloc((size_t)total, sizeof(*t1));
    diff = calloc((size_t)total, sizeof(*diff));
    assert_true(index && valid && t1 && diff);
    if (atune__space_mark_valid(m, size, &in->attr, valid, NULL, &err))
        fail_msg("%s", err.msg);
    for (int64_t i = 0; i < total; i++)
        if (valid[i])
            index[n++] = i;
    names[0] = m->kernel;
    atune__timing_default(&timing);
    if (atune__problem_open(dev, m, size, 42, &p, &err) ||
        atune__pool_start(m, NULL, in->arch, names, 1, index, n, 0, NULL, NULL,
                          &pool, &err))
        fail_msg("%s", err.msg);
    for (int pass = 0; pass < 2; pass++)
        for (int64_t i = 0; i < n; i++) {
            const atune__cubin *cubin;
            const char *cerr;
            atune__kernel *k = NULL;
            atune__result res;
            atune__config c;

            atune__space_config(m, index[i], &c);
            if (atune__pool_get(pool, index[i], &cubin, &cerr, &err) ||
                !cubin)
                fail_msg("%s", cerr ? cerr : err.msg);
            if (atune__kernel_load(dev, m, cubin, &k, &res, &err) || !k ||
                atune__problem_eval(p, k, &c, &timing, &res, &err))
                fail_msg("%s", err.msg);
            atune__kernel_unload(k);
            assert_int_equal(res.status, ATUNE__ST_OK);
            if (pass == 0)
                t1[i] = res.time_ns;
            else
                diff[nd++] = fabs(res.time_ns - t1[i]) / t1[i];
        }
    qsort(diff, (size_t)nd, sizeof(*diff), cmp_double);
    printf("copy n=2^28 on %s: %lld configurations measured twice; "
           "|t2 - t1| / t1: median %.3f%%, 90th percentile %.3f%%, worst "
           "%.3f%%\n",
           in->name, (long long)nd, 100 * diff[nd / 2],
           100 * diff[nd * 9 / 10], 100 * diff[nd - 1]);
    assert_true(diff[nd / 2] < 0.01);
    atune__pool_free(pool);
    atune__problem_close(p);
    free(index);
    free(valid);
    free(t1);
    free(diff);
    atune__templates_free(&t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_twice),
    };
    atune__err err;
    int rc = atune__device_open(0, NULL, &dev, &err);

    if (rc == ATUNE__EUNAVAIL) {
        printf("skipped: %s\n", err.msg);
        return 77;
    }
    if (rc) {
        fprintf(stderr, "%s\n", err.msg);
        return 1;
    }
    rc = cmocka_run_group_tests_name("gpu_stability", tests, NULL, NULL);
    atune__device_close(dev);
    return rc;
}
