/* test_resume.c -- resuming from the journal: only the unfinished run's
 * records count (what follows the last "# done:"), a record cut short by
 * a kill is dropped (and cut from the file before the next append),
 * lookups go by kernel, size, configuration and template hash with the
 * newest record winning and final re-measurements kept apart, and an
 * unfinished run of another GPU is an error naming its line. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "engine/journal.h"
#include "engine/resume.h"

static char path[] = "/tmp/atune-test-resume-XXXXXX";

static void spit(const char *text)
{
    FILE *f = fopen(path, "w");

    assert_non_null(f);
    fputs(text, f);
    assert_int_equal(fclose(f), 0);
}

#define HEAD "# autotune journal, format 1: ...\n"
#define RUN(dev) "# run: 2026-11-22T00:00:00Z device=\"" dev "\" uuid=GPU-1 tuner=0.1.0\n"
#define REC(cfg, st, t, detail)                                                \
    "copy\tn=1024\t" cfg "\t" st "\t" t "\t1\t2.5\t7\t00000000000000aa\t" detail "\n"

static void test_only_the_unfinished_run(void **state)
{
    atune__resume *r = NULL;
    atune__err err;
    const atune__record *rec;

    (void)state;
    spit(HEAD RUN("GPU A") REC("B=1", "ok", "100", "") "# done: x\n" RUN(
        "GPU A") REC("B=2", "ok", "200", "") REC("B=2", "ok", "150", "")
             REC("B=3", "fault", "0", "CUDA_ERROR_ILLEGAL_ADDRESS")
                 REC("B=2", "ok", "140", "final") "copy\tn=1024\tB=4\to");
    assert_int_equal(atune__resume_load(path, "GPU A", &r, &err), 0);
    /* B=1 finished with its run; the cut record B=4 is not there. */
    assert_int_equal(atune__resume_count(r), 4);
    assert_null(atune__resume_find(r, "copy", "n=1024", "B=1", 0xaa, 0));
    assert_null(atune__resume_find(r, "copy", "n=1024", "B=4", 0xaa, 0));
    /* The newest of two records of B=2; the final one apart. */
    rec = atune__resume_find(r, "copy", "n=1024", "B=2", 0xaa, 0);
    assert_non_null(rec);
    assert_true(rec->time_ns == 150);
    rec = atune__resume_find(r, "copy", "n=1024", "B=2", 0xaa, 1);
    assert_non_null(rec);
    assert_true(rec->time_ns == 140);
    rec = atune__resume_find(r, "copy", "n=1024", "B=3", 0xaa, 0);
    assert_non_null(rec);
    assert_int_equal(rec->status, ATUNE__ST_FAULT);
    /* Another template version, size or kernel: not found. */
    assert_null(atune__resume_find(r, "copy", "n=1024", "B=2", 0xab, 0));
    assert_null(atune__resume_find(r, "copy", "n=2048", "B=2", 0xaa, 0));
    assert_null(atune__resume_find(r, "saxpy", "n=1024", "B=2", 0xaa, 0));
    atune__resume_free(r);
}

static void test_finished_journal_resumes_nothing(void **state)
{
    atune__resume *r = NULL;
    atune__err err;

    (void)state;
    spit(HEAD RUN("GPU A") REC("B=1", "ok", "100", "") "# done: x\n");
    assert_int_equal(atune__resume_load(path, "GPU A", &r, &err), 0);
    assert_int_equal(atune__resume_count(r), 0);
    atune__resume_free(r);
    unlink(path);
    assert_int_equal(atune__resume_load(path, "GPU A", &r, &err), 0);
    assert_int_equal(atune__resume_count(r), 0);
    atune__resume_free(r);
}

#define RUNID(dev, id) "# run: 2026-11-22T00:00:00Z device=\"" dev "\" uuid=GPU-1 tuner=0.1.0 run=" id "\n"
#define RECID(cfg, t, id)                                                      \
    "copy\tn=1024\t" cfg "\tok\t" t "\t1\t2.5\t7\t00000000000000aa\t\t" id "\n"

/* Two tuners append to one journal: the "# done:" of one finishes its own
 * records, not the other's; a run that resumed others finishes them too,
 * but only their records before its "# done:". */
static void test_concurrent_runs(void **state)
{
    atune__resume *r = NULL;
    atune__err err;
    char ids[256];

    (void)state;
    spit(HEAD RUNID("GPU A", "a") RECID("B=1", "100", "a")
             RUNID("GPU A", "b") RECID("B=9", "900", "b")
                 RECID("B=2", "200", "a") "# done: x run=b\n");
    assert_int_equal(atune__resume_load(path, "GPU A", &r, &err), 0);
    assert_int_equal(atune__resume_count(r), 2);
    /* Nothing looked up yet: nothing to finish. */
    atune__resume_runs(r, ids, sizeof(ids));
    assert_string_equal(ids, "");
    assert_non_null(atune__resume_find(r, "copy", "n=1024", "B=1", 0xaa, 0));
    assert_non_null(atune__resume_find(r, "copy", "n=1024", "B=2", 0xaa, 0));
    assert_null(atune__resume_find(r, "copy", "n=1024", "B=9", 0xaa, 0));
    atune__resume_runs(r, ids, sizeof(ids));
    assert_string_equal(ids, "a");
    atune__resume_free(r);
    /* c resumed a and finished: nothing of a or c is resumed again, but a
     * record of a written after c's "# done:" is. */
    spit(HEAD RUNID("GPU A", "a") RECID("B=1", "100", "a")
             RUNID("GPU A", "c") RECID("B=3", "300", "c")
                 "# done: x run=c resumed=a\n" RECID("B=4", "400", "a"));
    assert_int_equal(atune__resume_load(path, "GPU A", &r, &err), 0);
    assert_int_equal(atune__resume_count(r), 1);
    assert_non_null(atune__resume_find(r, "copy", "n=1024", "B=4", 0xaa, 0));
    atune__resume_free(r);
    /* An unfinished run of another GPU among them is still an error. */
    spit(HEAD RUNID("GPU A", "a") RECID("B=1", "100", "a")
             RUNID("GPU B", "b") RECID("B=9", "900", "b"));
    assert_int_equal(atune__resume_load(path, "GPU A", &r, &err),
                     ATUNE__EDATA);
    assert_non_null(strstr(err.msg, ":4: an unfinished run of GPU 'GPU B'"));
}

/* What the writer appends reads back with its run id. */
static void test_run_id_written(void **state)
{
    atune__journal *j = NULL;
    atune__result res;
    atune__err err;
    atune__record *recs = NULL;
    char id[ATUNE__RUN_ID_MAX], ids[256];
    int n = 0;

    (void)state;
    unlink(path);
    atune__journal_new_run_id(id, sizeof(id));
    assert_int_equal(atune__journal_open(path, "x device=\"GPU A\"", id, &j,
                                         &err),
                     0);
    memset(&res, 0, sizeof(res));
    res.status = ATUNE__ST_OK;
    res.time_ns = 123;
    res.samples = 3;
    assert_int_equal(
        atune__journal_append(j, "copy", "n=1024", "B=2", &res, 0xaa, &err), 0);
    atune__journal_close(j);
    assert_int_equal(atune__journal_read_pending(path, "GPU A", &recs, &n, ids,
                                                 sizeof(ids), &err),
                     0);
    assert_int_equal(n, 1);
    assert_string_equal(recs[0].run, id);
    assert_string_equal(ids, id);
    free(recs);
    assert_int_equal(atune__journal_open(path, NULL, id, &j, &err), 0);
    assert_int_equal(atune__journal_done(j, NULL, &err), 0);
    atune__journal_close(j);
    assert_int_equal(atune__journal_read_pending(path, "GPU A", &recs, &n, ids,
                                                 sizeof(ids), &err),
                     0);
    assert_int_equal(n, 0);
    free(recs);
}

static void test_other_gpu_is_an_error(void **state)
{
    atune__resume *r = NULL;
    atune__err err;

    (void)state;
    /* A finished run of another GPU is history; an unfinished one is not
     * mixed in. */
    spit(HEAD RUN("GPU B") REC("B=1", "ok", "100", "") "# done: x\n" RUN(
        "GPU A") REC("B=2", "ok", "200", ""));
    assert_int_equal(atune__resume_load(path, "GPU A", &r, &err), 0);
    assert_int_equal(atune__resume_count(r), 1);
    atune__resume_free(r);
    spit(HEAD RUN("GPU B") REC("B=1", "ok", "100", ""));
    assert_int_equal(atune__resume_load(path, "GPU A", &r, &err),
                     ATUNE__EDATA);
    assert_non_null(strstr(err.msg, ":2: an unfinished run of GPU 'GPU B'"));
}

/* The next run's records start on a line of their own. */
static void test_append_after_a_cut_record(void **state)
{
    atune__journal *j = NULL;
    atune__result res;
    atune__err err;
    atune__record *recs = NULL;
    int n = 0;

    (void)state;
    spit(HEAD RUN("GPU A") REC("B=1", "ok", "100", "") "copy\tn=10");
    assert_int_equal(atune__journal_open(path, NULL, NULL, &j, &err), 0);
    memset(&res, 0, sizeof(res));
    res.status = ATUNE__ST_TIMEOUT;
    strcpy(res.detail, "killed by the watchdog");
    assert_int_equal(
        atune__journal_append(j, "copy", "n=1024", "B=2", &res, 0xaa, &err), 0);
    atune__journal_close(j);
    assert_int_equal(atune__journal_read(path, &recs, &n, &err), 0);
    assert_int_equal(n, 2);
    assert_string_equal(recs[1].config, "B=2");
    assert_int_equal(recs[1].status, ATUNE__ST_TIMEOUT);
    free(recs);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_only_the_unfinished_run),
        cmocka_unit_test(test_finished_journal_resumes_nothing),
        cmocka_unit_test(test_other_gpu_is_an_error),
        cmocka_unit_test(test_append_after_a_cut_record),
        cmocka_unit_test(test_concurrent_runs),
        cmocka_unit_test(test_run_id_written),
    };
    int fd = mkstemp(path), rc;

    if (fd < 0)
        return 1;
    close(fd);
    rc = cmocka_run_group_tests_name("resume", tests, NULL, NULL);
    unlink(path);
    return rc;
}
