/* test_profile_threads.c -- libatune: 8 threads look up on one shared
 * handle. Every result must equal the one-thread answer, and what a lookup
 * returned must not change after later lookups (its describe text
 * included); a failed lookup's message belongs to its thread.
 * tests/ci.d/tsan.sh also builds this test with ThreadSanitizer. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "atune/atune.h"

#define THREADS 8
#define ROUNDS 2000
#define QUERIES 6

static const char *const queries[QUERIES][2] = {
    {"copy", "n=1048576"}, /* exact */
    {"copy", "n=1000000"}, /* nearest */
    {"copy", "n=5000000"}, /* nearest, another size */
    {"matmul", "m=2048,n=2048,k=2048"},
    {"matmul", "k=64, m=4096, n=4096"},
    {"matmul", "m=100,n=100,k=100"},
};

/* The one-thread answer to each query. */
static struct answer {
    const atune_config *c;
    int64_t block;
    char text[1024];
} expected[QUERIES];

typedef struct worker {
    atune_profile *p;
    int id;
    int errors;
    char why[2200];
} worker;

static void describe(atune_profile *p, const atune_config *c, char *buf,
                     size_t len)
{
    if (atune_config_describe(p, c, buf, len) != ATUNE_OK)
        snprintf(buf, len, "describe failed");
}

static void bad(worker *w, const char *fmt, const char *a, const char *b)
{
    if (w->errors++ == 0)
        snprintf(w->why, sizeof(w->why), fmt, a, b);
}

static void *work(void *arg)
{
    worker *w = arg;
    const atune_config *first[QUERIES];
    char own[64], text[1024];

    /* A size of this thread only: its view is made while others look up. */
    snprintf(own, sizeof(own), "n=%d", 3000000 + 1000 * w->id);
    for (int r = 0; r < ROUNDS; r++) {
        for (int q = 0; q < QUERIES; q++) {
            const atune_config *c;
            int i = (q + w->id + r) % QUERIES;
            if (atune_profile_lookup(w->p, queries[i][0], queries[i][1], &c) !=
                ATUNE_OK) {
                bad(w, "lookup %s failed: %s", queries[i][1],
                    atune_profile_errmsg(w->p));
                continue;
            }
            if (r == 0)
                first[i] = c;
            if (c != expected[i].c ||
                atune_config_get(c, "BLOCK_SIZE", -1) != expected[i].block)
                bad(w, "lookup %s %s: another configuration", queries[i][0],
                    queries[i][1]);
        }
        if (r % 100 == 0) {
            const atune_config *c;
            char name[32];
            /* A failure's message is this thread's, whatever the others do. */
            snprintf(name, sizeof(name), "nokernel%d", w->id);
            if (atune_profile_lookup(w->p, name, "n=1", &c) !=
                    ATUNE_ENOTFOUND ||
                !strstr(atune_profile_errmsg(w->p), name))
                bad(w, "message of a failed lookup: '%s' (wanted %s)",
                    atune_profile_errmsg(w->p), name);
            if (atune_profile_lookup(w->p, "copy", own, &c) != ATUNE_OK)
                bad(w, "lookup %s: %s", own, atune_profile_errmsg(w->p));
            else if (describe(w->p, c, text, sizeof(text)), !strstr(text, own))
                bad(w, "describe of %s: '%s'", own, text);
            if (strcmp(atune_profile_errmsg(w->p), "") != 0)
                bad(w, "message after a good lookup: '%s'%s",
                    atune_profile_errmsg(w->p), "");
        }
    }
    /* What the first round returned has not changed since. */
    for (int i = 0; i < QUERIES; i++) {
        describe(w->p, first[i], text, sizeof(text));
        if (strcmp(text, expected[i].text) != 0)
            bad(w, "'%s' became '%s'", expected[i].text, text);
    }
    return NULL;
}

static void test_shared_handle(void **state)
{
    char path[4096];
    const char *src = getenv("ATUNE_SOURCE_DIR");
    atune_profile *p = NULL;
    pthread_t t[THREADS];
    worker w[THREADS];

    (void)state;
    snprintf(path, sizeof(path), "%s/tests/data/profiles_good/h100.ini",
             src ? src : ".");
    assert_int_equal(atune_profile_open(path, &p), ATUNE_OK);
    for (int i = 0; i < QUERIES; i++) {
        assert_int_equal(atune_profile_lookup(p, queries[i][0], queries[i][1],
                                              &expected[i].c),
                         ATUNE_OK);
        expected[i].block = atune_config_get(expected[i].c, "BLOCK_SIZE", -1);
        describe(p, expected[i].c, expected[i].text, sizeof(expected[i].text));
    }
    /* The nearest views of one entry at two sizes are two results. */
    assert_ptr_not_equal(expected[1].c, expected[2].c);
    assert_non_null(strstr(expected[1].text, "copy n=1000000: "));
    assert_non_null(strstr(expected[2].text, "copy n=5000000: "));
    for (int i = 0; i < THREADS; i++) {
        w[i] = (worker){.p = p, .id = i};
        assert_int_equal(pthread_create(&t[i], NULL, work, &w[i]), 0);
    }
    for (int i = 0; i < THREADS; i++)
        assert_int_equal(pthread_join(t[i], NULL), 0);
    for (int i = 0; i < THREADS; i++)
        if (w[i].errors)
            fail_msg("thread %d: %d errors, first: %s", i, w[i].errors,
                     w[i].why);
    /* The main thread's results and message are untouched by the others. */
    for (int i = 0; i < QUERIES; i++) {
        char text[1024];
        describe(p, expected[i].c, text, sizeof(text));
        assert_string_equal(text, expected[i].text);
    }
    assert_string_equal(atune_profile_errmsg(p), "");
    atune_profile_close(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_shared_handle),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
