/* test_record_threads.c -- several threads, each with its own handle,
 * served the same new size at once with ATUNE_RECORD on: every serving
 * counted once, one line in the file. tests/ci.d/tsan_jit.sh runs it
 * under ThreadSanitizer as well. */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "testutil.h"

#include <atune/atune.h>
#include <atune/atune_jit.h>

#include "jit/record.h"

#define NTHREADS 8
#define ROUNDS 50

static char tmp[] = "/tmp/atune-test-record-threads-XXXXXX";
static atune_profile *profile;
static pthread_barrier_t start;

static void *serve(void *arg)
{
    atune_jit *j = NULL;
    const atune_config *c;
    char size[64], msg[1024];
    long id = (long)arg, bad = 0;

    if (atune_jit_open(NULL, "copy", &j) != ATUNE_OK)
        return (void *)1;
    pthread_barrier_wait(&start);
    for (int r = 0; r < ROUNDS; r++) {
        /* The same new size in every thread, and one of its own. */
        bad |= atune_jit_config_for(j, profile, "n=777777", NULL, &c, msg,
                                    sizeof(msg)) != ATUNE_OK;
        snprintf(size, sizeof(size), "n=%ld", 1000 + id);
        bad |= atune_jit_config_for(j, profile, size, NULL, &c, NULL, 0) !=
               ATUNE_OK;
        if (r % 10 == 0)
            bad |= atune_jit_record_flush() != ATUNE_OK;
        bad |= *atune_jit_record_errmsg() != '\0';
    }
    atune_jit_close(j);
    return (void *)bad;
}

static void test_threads_same_new_size(void **state)
{
    static const char text[] =
        "[device]\nformat = 1\nname = Test GPU\ncc = 90\nsm_count = 132\n"
        "[copy n=1048576]\nBLOCK_SIZE = 256\nVW = 4\nUNROLL = 1\nGRID = 0\n"
        "EVICT = 0\n";
    pthread_t th[NTHREADS];
    char path[4200], rec[4200];
    atune__record r = {0};
    atune__err err = {0};
    FILE *f;

    (void)state;
    snprintf(path, sizeof(path), "%s/p.ini", tmp);
    snprintf(rec, sizeof(rec), "%s/threads.rec", tmp);
    assert_non_null(f = fopen(path, "w"));
    fputs(text, f);
    fclose(f);
    assert_int_equal(atune_profile_open(path, &profile), ATUNE_OK);
    assert_int_equal(atune_jit_set_record(rec), ATUNE_OK);
    pthread_barrier_init(&start, NULL, NTHREADS);
    for (long i = 0; i < NTHREADS; i++)
        assert_int_equal(pthread_create(&th[i], NULL, serve, (void *)i), 0);
    for (int i = 0; i < NTHREADS; i++) {
        void *bad = (void *)1;
        pthread_join(th[i], &bad);
        assert_null(bad);
    }
    pthread_barrier_destroy(&start);
    assert_int_equal(atune_jit_record_flush(), ATUNE_OK);
    assert_int_equal(atune__record_read(rec, 0, &r, &err), 0);
    assert_int_equal(r.n, NTHREADS + 1);
    for (int i = 0; i < r.n; i++) {
        assert_string_equal(r.e[i].gpu, "Test GPU");
        assert_int_equal(r.e[i].count, strcmp(r.e[i].size, "n=777777") == 0
                                           ? NTHREADS * ROUNDS
                                           : ROUNDS);
    }
    atune__record_free(&r);
    assert_int_equal(atune_jit_set_record(NULL), ATUNE_OK);
    atune_profile_close(profile);
}

static int setup(void **state)
{
    (void)state;
    unsetenv("ATUNE_EFFORT");
    return mkdtemp(tmp) ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    rm_rf(tmp);
    return 0;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_threads_same_new_size),
    };

    return cmocka_run_group_tests(tests, setup, teardown);
}
