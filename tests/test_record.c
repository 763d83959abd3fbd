/* test_record.c -- the record of what libatune_jit served without an exact
 * tuned entry (ATUNE_RECORD, atune_jit_set_record; jit/record.c,
 * appjit/appjit_record.c) and the effort levels (ATUNE_EFFORT,
 * atune_jit_set_effort). Needs no GPU: without a current CUDA context the
 * GPU model is the profile's. */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "testutil.h"

#include <atune/atune.h>
#include <atune/atune_jit.h>

#include "jit/cudrv.h"
#include "jit/record.h"

static char tmp[] = "/tmp/atune-test-record-XXXXXX";

/* A profile of "Test GPU" with copy tuned at n=1048576 only. */
static const char profile_text[] =
    "[device]\nformat = 1\nname = Test GPU\ncc = 90\nsm_count = 132\n"
    "[copy n=1048576]\nBLOCK_SIZE = 256\nVW = 4\nUNROLL = 1\nGRID = 0\n"
    "EVICT = 0\n";

static void path_in(char *buf, size_t len, const char *name)
{
    snprintf(buf, len, "%s/%s", tmp, name);
}

static char *slurp(const char *path)
{
    static char buf[1 << 20];
    FILE *f = fopen(path, "r");
    size_t n;

    if (!f)
        return NULL;
    n = fread(buf, 1, sizeof(buf) - 1, f);
    buf[n] = '\0';
    fclose(f);
    return buf;
}

static int setup(void **state)
{
    (void)state;
    if (!mkdtemp(tmp))
        return -1;
    unsetenv("ATUNE_EFFORT");
    unsetenv("ATUNE_RECORD");
    /* First use writes into the user's profile directory: the test's. */
    {
        char xdg[4200];
        path_in(xdg, sizeof(xdg), "xdg");
        setenv("XDG_DATA_HOME", xdg, 1);
    }
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    atune_jit_set_record(NULL);
    rm_rf(tmp);
    return 0;
}

static atune_profile *open_profile(const char *name)
{
    char path[4200];
    atune_profile *p = NULL;

    path_in(path, sizeof(path), name);
    write_text(path, profile_text);
    assert_int_equal(atune_profile_open(path, &p), ATUNE_OK);
    return p;
}

static atune_jit *open_copy(void)
{
    atune_jit *j = NULL;

    assert_int_equal(atune_jit_open(NULL, "copy", &j), ATUNE_OK);
    return j;
}

/* The count of (gpu, kernel, size) in the record at path; -1 when absent. */
static int64_t count_of(const atune__record *r, const char *gpu,
                        const char *kernel, const char *size,
                        const char *served)
{
    for (int i = 0; i < r->n; i++) {
        const atune__rec_entry *e = &r->e[i];
        if (!strcmp(e->gpu, gpu) && !strcmp(e->kernel, kernel) &&
            !strcmp(e->size, size)) {
            if (served)
                assert_string_equal(atune__served_name(e->served), served);
            return e->count;
        }
    }
    return -1;
}

/* --- the format ------------------------------------------------------------
 */

static void expect_bad(const char *text, const char *want)
{
    atune__record r = {0};
    atune__err err = {0};

    assert_int_equal(atune__record_parse("rec", text, strlen(text), &r, &err),
                     ATUNE__EDATA);
    if (!strstr(err.msg, want))
        fail_msg("'%s' does not say '%s'", err.msg, want);
    atune__record_free(&r);
}

static void test_format(void **state)
{
    static const char good[] =
        ATUNE__RECORD_HEADER "\n"
                             "# a comment\n"
                             "# dropped: 5\n"
                             "NVIDIA H100 80GB HBM3\tcopy\tn=1000000\t"
                             "nearest\t12\n"
                             "NVIDIA H100 80GB HBM3\tmatmul\t"
                             "m=4096,n=4096,k=4094\tfallback\t3\n";
    atune__record r = {0};
    atune__err err = {0};
    char big[1200];

    (void)state;
    assert_int_equal(atune__record_parse("rec", good, strlen(good), &r, &err),
                     0);
    assert_int_equal(r.n, 2);
    assert_int_equal(r.dropped, 5);
    assert_int_equal(count_of(&r, "NVIDIA H100 80GB HBM3", "matmul",
                              "m=4096,n=4096,k=4094", "fallback"),
                     3);
    assert_int_equal(r.e[1].line, 5);
    atune__record_free(&r);

    /* Empty: an empty record (how a user resets one). */
    assert_int_equal(atune__record_parse("rec", "", 0, &r, &err), 0);
    assert_int_equal(r.n, 0);
    expect_bad("copy\tn=1\n", "rec:1: not a record");
    expect_bad(ATUNE__RECORD_HEADER "\nG\tcopy\tn=1\tnearest\n",
               "rec:2: expected 5 tab-separated fields");
    expect_bad(ATUNE__RECORD_HEADER "\nG\tcopy\tn=1\tnearest\t1\tx\n",
               "rec:2: expected 5");
    expect_bad(ATUNE__RECORD_HEADER "\nG\tcopy\tn=1\tguessed\t1\n",
               "rec:2: unknown way served 'guessed'");
    expect_bad(ATUNE__RECORD_HEADER "\nG\tcopy\tn=1\tnearest\t0\n",
               "rec:2: bad count '0'");
    expect_bad(ATUNE__RECORD_HEADER "\nG\tcopy\tn=1\tnearest\t-3\n",
               "rec:2: bad count");
    expect_bad(ATUNE__RECORD_HEADER "\nG\tcopy\tn=1\tnearest\t"
                                    "99999999999999999999\n",
               "rec:2: bad count");
    expect_bad(ATUNE__RECORD_HEADER "\nG\tcopy\tn=x\tnearest\t1\n",
               "rec:2: bad size 'n=x'");
    expect_bad(ATUNE__RECORD_HEADER "\nG\tcopy\ta=1,b=2,c=3,d=4,e=5\t"
                                    "nearest\t1\n",
               "more than 4 size variables");
    expect_bad(ATUNE__RECORD_HEADER "\nG\tco/py\tn=1\tnearest\t1\n",
               "rec:2: kernel name 'co/py'");
    expect_bad(ATUNE__RECORD_HEADER "\nG\x01\tcopy\tn=1\tnearest\t1\n",
               "rec:2: GPU name with a control character");
    expect_bad(ATUNE__RECORD_HEADER "\nG\tcopy\tn=1\tnearest\t1\n"
                                    "G\tcopy\tn=1\tdefaults\t2\n",
               "rec:3: the key of line 2 again");
    expect_bad(ATUNE__RECORD_HEADER "\nG\tcopy\tn=1\tnearest\t1",
               "rec:2: last line has no newline");
    expect_bad(ATUNE__RECORD_HEADER "\n# dropped: many\n",
               "rec:2: bad count in '# dropped");
    memset(big, 'x', sizeof(big));
    memcpy(big, ATUNE__RECORD_HEADER "\n", sizeof(ATUNE__RECORD_HEADER));
    big[sizeof(big) - 2] = '\n';
    big[sizeof(big) - 1] = '\0';
    expect_bad(big, "rec:2: line over 1024 bytes");
    {
        char nul[] = ATUNE__RECORD_HEADER "\nG\0\tcopy\n";
        atune__record rn = {0};
        assert_int_equal(
            atune__record_parse("rec", nul, sizeof(nul) - 1, &rn, &err),
            ATUNE__EDATA);
        assert_non_null(strstr(err.msg, "rec:2: NUL byte"));
    }
}

/* Files that are not records are refused, never followed or waited on. */
static void test_read_refuses(void **state)
{
    char path[4200], link[4200], fifo[4200];
    atune__record r = {0};
    atune__err err = {0};
    int fd;

    (void)state;
    path_in(path, sizeof(path), "big.rec");
    fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    assert_true(fd >= 0);
    assert_int_equal(ftruncate(fd, ATUNE__RECORD_MAX_BYTES + 1), 0);
    close(fd);
    assert_int_equal(atune__record_read(path, 1, &r, &err), ATUNE__EDATA);
    assert_non_null(strstr(err.msg, "over the 4194304 a record may hold"));

    path_in(link, sizeof(link), "link.rec");
    assert_int_equal(symlink(path, link), 0);
    assert_int_equal(atune__record_read(link, 1, &r, &err), ATUNE__EIO);
    assert_non_null(strstr(err.msg, "a symbolic link: refused"));
    /* Nor written through one: the merge refuses before writing. */
    assert_int_equal(atune_jit_set_record(link), ATUNE_EIO);
    assert_non_null(strstr(atune_jit_record_errmsg(), "symbolic link"));
    assert_int_equal(atune_jit_set_record(NULL), ATUNE_OK);

    path_in(fifo, sizeof(fifo), "fifo.rec");
    assert_int_equal(mkfifo(fifo, 0644), 0);
    assert_int_equal(atune__record_read(fifo, 1, &r, &err), ATUNE__EDATA);
    assert_non_null(strstr(err.msg, "not a regular file"));

    path_in(path, sizeof(path), "missing.rec");
    assert_int_equal(atune__record_read(path, 0, &r, &err), ATUNE__ENOINPUT);
    assert_int_equal(atune__record_read(path, 1, &r, &err), 0);
    assert_int_equal(r.n, 0);
}

/* One line per key, counts added, the latest way served kept; the bound
 * holds and what did not fit is counted. */
static void test_merge_and_bounds(void **state)
{
    char path[4200], size[64];
    atune__record a = {0}, b = {0}, r = {0};
    atune__err err = {0};
    struct stat st;
    mode_t old;

    (void)state;
    path_in(path, sizeof(path), "merge.rec");
    assert_non_null(atune__record_add(&a, "G", "copy", "n=1",
                                      ATUNE__SERVED_NEAREST, 2, NULL));
    assert_non_null(atune__record_add(&a, "G", "copy", "n=2",
                                      ATUNE__SERVED_DEFAULTS, 1, NULL));
    old = umask(022);
    assert_int_equal(atune__record_merge(path, &a, &err), 0);
    umask(old);
    assert_int_equal(stat(path, &st), 0);
    assert_int_equal(st.st_mode & 0777, 0644);
    assert_int_equal(a.e[0].flushed, 2);
    /* Nothing new: nothing written. */
    assert_int_equal(atune__record_merge(path, &a, &err), 0);
    atune__record_add(&a, "G", "copy", "n=1", ATUNE__SERVED_NEAREST, 3, NULL);
    assert_non_null(atune__record_add(&b, "G", "copy", "n=1",
                                      ATUNE__SERVED_FALLBACK, 10, NULL));
    assert_non_null(atune__record_add(&b, "H", "copy", "n=1",
                                      ATUNE__SERVED_OTHER_GPU, 1, NULL));
    assert_int_equal(atune__record_merge(path, &a, &err), 0);
    assert_int_equal(atune__record_merge(path, &b, &err), 0);
    assert_int_equal(atune__record_read(path, 0, &r, &err), 0);
    assert_int_equal(r.n, 3);
    assert_int_equal(count_of(&r, "G", "copy", "n=1", "fallback"), 15);
    assert_int_equal(count_of(&r, "G", "copy", "n=2", "defaults"), 1);
    assert_int_equal(count_of(&r, "H", "copy", "n=1", "other-gpu"), 1);
    atune__record_free(&r);
    atune__record_free(&a);
    atune__record_free(&b);

    /* The bound: the keys beyond it are dropped and counted. */
    for (int i = 0; i < ATUNE__RECORD_MAX_KEYS + 10; i++) {
        snprintf(size, sizeof(size), "n=%d", 100 + i);
        atune__rec_entry *e = atune__record_add(&a, "G", "copy", size,
                                                ATUNE__SERVED_NEAREST, 1, NULL);
        if (i < ATUNE__RECORD_MAX_KEYS - 3)
            assert_non_null(e);
    }
    assert_int_equal(a.n, ATUNE__RECORD_MAX_KEYS);
    assert_int_equal(a.dropped, 10);
    assert_int_equal(atune__record_merge(path, &a, &err), 0);
    assert_int_equal(atune__record_read(path, 0, &r, &err), 0);
    /* The file had 3 keys: 4093 of the new ones fit, 3 more are dropped. */
    assert_int_equal(r.n, ATUNE__RECORD_MAX_KEYS);
    assert_int_equal(r.dropped, 13);
    assert_non_null(strstr(slurp(path), "# dropped: 13\n"));
    assert_true(strlen(slurp(path)) < 200 * ATUNE__RECORD_MAX_KEYS);
    atune__record_free(&r);
    atune__record_free(&a);
}

/* A lock another process holds (a record in a shared folder, its lock
 * file kept open) is waited for a while, not forever: the merge fails, the
 * counts stay pending, and the next merge after it is released writes
 * them. It waited for ever, and at exit the application with it. */
static void test_lock_held_elsewhere(void **state)
{
    char path[4200], lock[4300];
    atune__record a = {0}, r = {0};
    atune__err err = {0};
    double t0;
    int fd, status;
    pid_t holder;

    (void)state;
    path_in(path, sizeof(path), "locked.rec");
    snprintf(lock, sizeof(lock), "%s.lock", path);
    fd = open(lock, O_RDWR | O_CREAT, 0644);
    assert_true(fd >= 0);
    holder = fork();
    assert_true(holder >= 0);
    if (holder == 0) { /* holds the lock for 30 s, or until killed */
        if (flock(fd, LOCK_EX) == 0)
            sleep(30);
        _exit(0);
    }
    close(fd);
    for (int i = 0; i < 200; i++) { /* until the child has it */
        int probe = open(lock, O_RDWR);
        int busy = probe >= 0 && flock(probe, LOCK_EX | LOCK_NB) != 0;
        if (probe >= 0)
            close(probe);
        if (busy)
            break;
        nanosleep(&(struct timespec){0, 10 * 1000 * 1000}, NULL);
    }
    assert_non_null(atune__record_add(&a, "G", "copy", "n=1",
                                      ATUNE__SERVED_NEAREST, 2, NULL));
    t0 = atune__now();
    assert_int_equal(atune__record_merge(path, &a, &err), ATUNE__EIO);
    assert_true(atune__now() - t0 < 10);
    assert_non_null(strstr(err.msg, "stayed locked"));
    assert_int_equal(a.e[0].flushed, 0);
    kill(holder, SIGKILL);
    assert_int_equal(waitpid(holder, &status, 0), holder);
    assert_int_equal(atune__record_merge(path, &a, &err), 0);
    assert_int_equal(atune__record_read(path, 0, &r, &err), 0);
    assert_int_equal(count_of(&r, "G", "copy", "n=1", "nearest"), 2);
    atune__record_free(&r);
    atune__record_free(&a);
}

/* A malformed record is never merged into: it stays as it was, the
 * counts wait, and the message says file:line. */
static void test_malformed_not_merged(void **state)
{
    static const char bad[] = ATUNE__RECORD_HEADER "\nG\tcopy\tn=1\n";
    atune_profile *p = open_profile("bad.ini");
    atune_jit *j = open_copy();
    const atune_config *c;
    char path[4200], msg[2048];

    (void)state;
    path_in(path, sizeof(path), "bad.rec");
    write_text(path, bad);
    assert_int_equal(atune_jit_set_record(path), ATUNE_EPARSE);
    assert_non_null(strstr(atune_jit_record_errmsg(), "bad.rec:2: expected 5"));
    assert_int_equal(
        atune_jit_config_for(j, p, "n=1000", NULL, &c, msg, sizeof(msg)),
        ATUNE_OK);
    assert_null(strstr(msg, "recorded")); /* refused: not recording */
    /* A good file that someone spoils later. */
    write_text(path, ATUNE__RECORD_HEADER "\n");
    assert_int_equal(atune_jit_set_record(path), ATUNE_OK);
    assert_string_equal(atune_jit_record_errmsg(), "");
    write_text(path, bad);
    assert_int_equal(
        atune_jit_config_for(j, p, "n=1000", NULL, &c, msg, sizeof(msg)),
        ATUNE_OK);
    assert_non_null(c);
    assert_non_null(strstr(msg, "not yet merged"));
    assert_non_null(strstr(msg, "bad.rec:2"));
    assert_int_equal(atune_jit_record_flush(), ATUNE_EPARSE);
    assert_string_equal(slurp(path), bad);
    /* Fixed by hand: the waiting count arrives. */
    write_text(path, ATUNE__RECORD_HEADER "\n");
    assert_int_equal(atune_jit_record_flush(), ATUNE_OK);
    assert_non_null(
        strstr(slurp(path), "Test GPU\tcopy\tn=1000\tnearest\t1\n"));
    assert_int_equal(atune_jit_set_record(NULL), ATUNE_OK);
    atune_jit_close(j);
    atune_profile_close(p);
}

/* --- what is recorded ----------------------------------------------------- */

static void test_served_ways(void **state)
{
    atune_profile *p = open_profile("ways.ini"), *other = NULL;
    atune_jit *j = open_copy();
    atune_device dev = {"Other GPU", 90, 132, ""};
    const atune_config *c;
    atune__record r = {0};
    atune__err err = {0};
    char path[4200], msg[2048];

    (void)state;
    path_in(path, sizeof(path), "ways.rec");
    assert_int_equal(atune_jit_set_record(path), ATUNE_OK);
    /* An exact entry of this GPU: not recorded. */
    assert_int_equal(
        atune_jit_config_for(j, p, "n=1048576", NULL, &c, msg, sizeof(msg)),
        ATUNE_OK);
    assert_null(strstr(msg, "recorded"));
    assert_non_null(strstr(msg, "; effort profile"));
    /* A nearest size, twice; spaces and another spelling are one key. */
    assert_int_equal(
        atune_jit_config_for(j, p, "n=1000000", NULL, &c, msg, sizeof(msg)),
        ATUNE_OK);
    assert_non_null(strstr(msg, "recorded in '"));
    assert_int_equal(
        atune_jit_config_for(j, p, " n = 1000000", NULL, &c, msg, sizeof(msg)),
        ATUNE_OK);
    /* No profile. */
    assert_int_equal(
        atune_jit_config_for(j, NULL, "n=77", NULL, &c, msg, sizeof(msg)),
        ATUNE_OK);
    /* The same profile chosen for another GPU model by its compute
     * capability: its exact entry is another GPU's. */
    assert_int_equal(atune_profile_open_for(tmp, &dev, &other), ATUNE_OK);
    assert_int_equal(atune_profile_device_match(other), ATUNE_DEVICE_CC);
    assert_string_equal(atune_profile_wanted(other)->name, "Other GPU");
    assert_null(atune_profile_wanted(p)); /* opened by path */
    assert_null(atune_profile_wanted(NULL));
    assert_int_equal(
        atune_jit_config_for(j, other, "n=1048576", NULL, &c, msg, sizeof(msg)),
        ATUNE_OK);
    assert_non_null(c);
    assert_int_equal(atune_jit_record_flush(), ATUNE_OK);
    assert_int_equal(atune__record_read(path, 0, &r, &err), 0);
    assert_int_equal(r.n, 3);
    assert_int_equal(count_of(&r, "Test GPU", "copy", "n=1048576", NULL), -1);
    assert_int_equal(count_of(&r, "Test GPU", "copy", "n=1000000", "nearest"),
                     2);
    assert_int_equal(count_of(&r, "unknown", "copy", "n=77", "no-profile"), 1);
    assert_int_equal(
        count_of(&r, "Other GPU", "copy", "n=1048576", "other-gpu"), 1);
    atune__record_free(&r);
    assert_int_equal(atune_jit_set_record(NULL), ATUNE_OK);
    atune_profile_close(other);
    atune_profile_close(p);
    atune_jit_close(j);
}

/* A fallback and the defaults (matmul's float4 entry cannot run where
 * rows are not 16-byte aligned). */
static void test_served_fallback(void **state)
{
    static const char text[] =
        "[device]\nformat = 1\nname = Test GPU\ncc = 90\nsm_count = 132\n"
        "[matmul m=4096,n=4096,k=4096]\nWT = 1\nBM = 128\nBN = 64\nBK = 16\n"
        "WM = 32\nWN = 32\nTM = 8\nTN = 4\nWNITER = 1\nVEC = 1\nSTAGES = 3\n"
        "GROUP_M = 1\n";
    static const char mid[] =
        "[matmul m=1024,n=1024,k=1024]\nWT = 0\nBM = 16\nBN = 16\nBK = 16\n"
        "WM = 16\nWN = 16\nTM = 1\nTN = 1\nWNITER = 1\nVEC = 0\nSTAGES = 1\n"
        "GROUP_M = 1\n";
    char file[4200], path[4200], both[2048], msg[2048];
    atune_profile *p = NULL, *q = NULL;
    atune_jit *j = NULL;
    const atune__rec_entry *e;
    const atune_config *c;
    atune__record r = {0};
    atune__err err = {0};

    (void)state;
    assert_int_equal(atune_jit_open(NULL, "matmul", &j), ATUNE_OK);
    path_in(file, sizeof(file), "one.ini");
    write_text(file, text);
    assert_int_equal(atune_profile_open(file, &p), ATUNE_OK);
    path_in(file, sizeof(file), "two.ini");
    snprintf(both, sizeof(both), "%s%s", text, mid);
    write_text(file, both);
    assert_int_equal(atune_profile_open(file, &q), ATUNE_OK);
    path_in(path, sizeof(path), "fallback.rec");
    assert_int_equal(atune_jit_set_record(path), ATUNE_OK);
    assert_int_equal(atune_jit_config_for(j, q, "m=4096,n=4096,k=4094", NULL,
                                          &c, msg, sizeof(msg)),
                     ATUNE_OK);
    assert_string_equal(atune_config_size(c), "m=1024,n=1024,k=1024");
    assert_int_equal(atune_jit_config_for(j, p, "k=4094,m=4096,n=4096", NULL,
                                          &c, msg, sizeof(msg)),
                     ATUNE_OK);
    assert_null(c);
    atune_jit_close(j); /* merges */
    assert_int_equal(atune__record_read(path, 0, &r, &err), 0);
    assert_int_equal(r.n, 1);
    e = &r.e[0];
    /* The template's variable order; the latest way served wins. */
    assert_string_equal(e->size, "m=4096,n=4096,k=4094");
    assert_string_equal(atune__served_name(e->served), "defaults");
    assert_int_equal(e->count, 2);
    atune__record_free(&r);
    assert_int_equal(atune_jit_set_record(NULL), ATUNE_OK);
    atune_profile_close(p);
    atune_profile_close(q);
}

/* Eight processes record at once into one file: distinct keys of their
 * own and keys they share, counts known; no line lost, none doubled, the
 * parent's own count not counted again by its children. */
#define NPROC 8
#define OWN 40    /* distinct keys per child, each served twice */
#define SHARED 25 /* keys every child serves ROUNDS times */
#define ROUNDS 7

static void child(atune_profile *p, int id)
{
    atune_jit *j = open_copy();
    const atune_config *c;
    char size[64];
    int bad = 0;

    for (int r = 0; r < ROUNDS; r++)
        for (int k = 0; k < SHARED; k++) {
            snprintf(size, sizeof(size), "n=%d", 5000000 + k);
            bad |= atune_jit_config_for(j, p, size, NULL, &c, NULL, 0);
            if (k < OWN / 2 && r < 2) {
                snprintf(size, sizeof(size), "n=%d", 1000 * (id + 1) + k);
                bad |= atune_jit_config_for(j, p, size, NULL, &c, NULL, 0);
                snprintf(size, sizeof(size), "n=%d",
                         1000 * (id + 1) + OWN / 2 + k);
                bad |= atune_jit_config_for(j, p, size, NULL, &c, NULL, 0);
            }
        }
    /* Half leave the merge to atune_jit_close, half to exit. */
    if (id % 2)
        atune_jit_close(j);
    exit(bad ? 1 : 0);
}

static void test_eight_processes(void **state)
{
    atune_profile *p = open_profile("procs.ini");
    atune_jit *j = open_copy();
    const atune_config *c;
    atune__record r = {0};
    atune__err err = {0};
    char path[4200], size[64];
    pid_t pids[NPROC];

    (void)state;
    path_in(path, sizeof(path), "procs.rec");
    assert_int_equal(atune_jit_set_record(path), ATUNE_OK);
    /* The parent's own serving, pending at the fork. */
    assert_int_equal(atune_jit_config_for(j, p, "n=5000000", NULL, &c, NULL, 0),
                     ATUNE_OK);
    assert_int_equal(atune_jit_config_for(j, p, "n=5000000", NULL, &c, NULL, 0),
                     ATUNE_OK);
    for (int i = 0; i < NPROC; i++) {
        pids[i] = fork();
        assert_true(pids[i] >= 0);
        if (pids[i] == 0)
            child(p, i);
    }
    for (int i = 0; i < NPROC; i++) {
        int st = 0;
        assert_int_equal(waitpid(pids[i], &st, 0), pids[i]);
        assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    }
    assert_int_equal(atune_jit_record_flush(), ATUNE_OK);
    assert_int_equal(atune__record_read(path, 0, &r, &err), 0);
    assert_int_equal(r.n, NPROC * OWN + SHARED);
    assert_int_equal(r.dropped, 0);
    for (int k = 0; k < SHARED; k++) {
        snprintf(size, sizeof(size), "n=%d", 5000000 + k);
        assert_int_equal(count_of(&r, "Test GPU", "copy", size, "nearest"),
                         NPROC * ROUNDS + (k == 0 ? 2 : 0));
    }
    for (int i = 0; i < NPROC; i++)
        for (int k = 0; k < OWN; k++) {
            snprintf(size, sizeof(size), "n=%d", 1000 * (i + 1) + k);
            assert_int_equal(count_of(&r, "Test GPU", "copy", size, NULL), 2);
        }
    atune__record_free(&r);
    assert_int_equal(atune_jit_set_record(NULL), ATUNE_OK);
    atune_jit_close(j);
    atune_profile_close(p);
}

/* ATUNE_RECORD in a fresh process (this test run again). */
static void test_env(void **state)
{
    char path[4200], cmd[9000];
    atune__record r = {0};
    atune__err err = {0};

    (void)state;
    path_in(path, sizeof(path), "env.rec");
    snprintf(cmd, sizeof(cmd),
             "ATUNE_RECORD='%s' /proc/%ld/exe env-child '%s/ways.ini'", path,
             (long)getpid(), tmp);
    atune_profile_close(open_profile("ways.ini"));
    assert_int_equal(system(cmd), 0);
    assert_int_equal(atune__record_read(path, 0, &r, &err), 0);
    assert_int_equal(r.n, 1);
    assert_int_equal(count_of(&r, "Test GPU", "copy", "n=999", "nearest"), 3);
    atune__record_free(&r);
}

/* Left open for the exit's merge (static: reachable, not leaked). */
static atune_profile *env_p;
static atune_jit *env_j;

static int env_child(const char *profile)
{
    atune_profile *p = NULL;
    atune_jit *j = NULL;
    const atune_config *c;
    char msg[2048];
    int rc = 0;

    if (atune_profile_open(profile, &env_p) != ATUNE_OK ||
        atune_jit_open(NULL, "copy", &env_j) != ATUNE_OK)
        return 2;
    p = env_p;
    j = env_j;
    for (int i = 0; i < 3 && !rc; i++)
        rc = atune_jit_config_for(j, p, "n=999", NULL, &c, msg, sizeof(msg));
    if (rc || !strstr(msg, "recorded in '")) {
        fprintf(stderr, "env child: %d %s\n", rc, msg);
        return 3;
    }
    return 0; /* the pending counts are merged at exit */
}

/* Record, tune, serve, on the stub driver (and on a GPU: tests/gpu_record.sh
 * runs this binary as "serve-child"): a process with a CUDA context and no
 * profile records its sizes under its GPU's name; `autotune tune
 * --sizes-from` tunes them; the next process gets exact hits and records
 * nothing.
 *
 *   test_record serve-child DIR SIZE...   copy at each SIZE, on GPU 0 with
 *     its primary context current, with the profile of DIR for that GPU
 *     (DIR '': none); with a profile every size must be an exact hit and
 *     nothing recorded. Prints each atune_jit_config_for() message. */
static int serve_child(int argc, char **argv)
{
    const char *dir = argv[2];
    const atune__cudrv *cu = atune__cudrv_load(NULL);
    atune_device dev = {"", 0, 0, ""};
    atune_profile *p = NULL;
    atune_jit *j = NULL;
    const atune_config *c;
    CUcontext ctx;
    CUdevice d = 0;
    int major = 0, minor = 0, sms = 0;
    char msg[2048];

    if (!cu || cu->cuDeviceGet(&d, 0) != CUDA_SUCCESS ||
        cu->cuDevicePrimaryCtxRetain(&ctx, d) != CUDA_SUCCESS ||
        cu->cuCtxSetCurrent(ctx) != CUDA_SUCCESS ||
        cu->cuDeviceGetName(dev.name, (int)sizeof(dev.name), d) !=
            CUDA_SUCCESS ||
        cu->cuDeviceGetAttribute(
            &major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, d) ||
        cu->cuDeviceGetAttribute(
            &minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, d) ||
        cu->cuDeviceGetAttribute(&sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT,
                                 d) ||
        atune_jit_open(NULL, "copy", &j) != ATUNE_OK)
        return 2;
    dev.cc = 10 * major + minor;
    dev.sm_count = sms;
    if (*dir && atune_profile_open_for(dir, &dev, &p) != ATUNE_OK)
        return 3;
    for (int i = 3; i < argc; i++) {
        /* Twice: the count of a size is the number of servings. */
        if (atune_jit_config_for(j, p, argv[i], NULL, &c, msg, sizeof(msg)) ||
            atune_jit_config_for(j, p, argv[i], NULL, &c, msg, sizeof(msg)))
            return 4;
        printf("%s\n", msg);
        if (p && (!c || !strstr(msg, "(exact)") || strstr(msg, "recorded")))
            return 5;
    }
    atune_jit_close(j);
    atune_profile_close(p);
    return 0;
}

static void test_record_tune_serve(void **state)
{
    const char *stub = getenv("ATUNE_STUB_DRIVER_DIR");
    const char *bin = getenv("ATUNE_BINARY");
    char rec[4200], dir[4200], cmd[20000];
    atune__record r = {0};
    atune__err err = {0};

    (void)state;
    if (!stub || !bin)
        skip();
    path_in(rec, sizeof(rec), "loop.rec");
    path_in(dir, sizeof(dir), "loop-profiles");
    snprintf(cmd, sizeof(cmd),
             "LD_LIBRARY_PATH='%s' ATUNE_RECORD='%s' /proc/%ld/exe "
             "serve-child '' n=1000000 n=3000017",
             stub, rec, (long)getpid());
    assert_int_equal(system(cmd), 0);
    assert_int_equal(atune__record_read(rec, 0, &r, &err), 0);
    assert_int_equal(r.n, 2);
    assert_int_equal(
        count_of(&r, "NVIDIA Stub H100", "copy", "n=1000000", "no-profile"), 2);
    atune__record_free(&r);
    snprintf(cmd, sizeof(cmd),
             "LD_LIBRARY_PATH='%s' '%s' tune --kernel copy --sizes-from '%s' "
             "--budget 2 -p '%s' --quiet >/dev/null",
             stub, bin, rec, dir);
    assert_int_equal(system(cmd), 0);
    snprintf(cmd, sizeof(cmd),
             "LD_LIBRARY_PATH='%s' ATUNE_RECORD='%s' /proc/%ld/exe "
             "serve-child '%s' n=1000000 n=3000017",
             stub, rec, (long)getpid(), dir);
    assert_int_equal(system(cmd), 0);
    assert_int_equal(atune__record_read(rec, 0, &r, &err), 0);
    assert_int_equal(r.n, 2);
    assert_int_equal(
        count_of(&r, "NVIDIA Stub H100", "copy", "n=1000000", NULL), 2);
    atune__record_free(&r);
}

/* --- effort --------------------------------------------------------------- */

static void test_effort(void **state)
{
    atune_profile *p = open_profile("effort.ini");
    atune_jit *j = open_copy();
    const atune_config *c, *c2;
    char msg[2048];

    (void)state;
    assert_int_equal(
        atune_jit_config_for(j, p, "n=1000000", NULL, &c, msg, sizeof(msg)),
        ATUNE_OK);
    assert_non_null(strstr(msg, "; effort profile"));
    setenv("ATUNE_EFFORT", "estimate", 1);
    assert_int_equal(
        atune_jit_config_for(j, p, "n=1000000", NULL, &c2, msg, sizeof(msg)),
        ATUNE_OK);
    assert_ptr_equal(c, c2);
    assert_non_null(strstr(msg, "; effort estimate"));
    /* measure and patient are built (tests/test_firstuse.c measures on
     * the stub driver): here, with whatever driver this process has, they
     * answer, measured or falling back to estimate, and say which. The
     * user's profile directory is the test's (setup). */
    setenv("ATUNE_EFFORT", "measure", 1);
    assert_int_equal(
        atune_jit_config_for(j, p, "n=1000000", NULL, &c2, msg, sizeof(msg)),
        ATUNE_OK);
    assert_non_null(c2);
    assert_non_null(strstr(msg, "; effort measure"));
    setenv("ATUNE_EFFORT", "fast", 1);
    assert_int_equal(
        atune_jit_config_for(j, p, "n=1000000", NULL, &c2, msg, sizeof(msg)),
        ATUNE_EINVAL);
    assert_non_null(strstr(atune_jit_errmsg(j),
                           "ATUNE_EFFORT='fast' is not an effort level "
                           "(profile, estimate, measure, patient)"));
    /* The call wins over the environment. */
    assert_int_equal(atune_jit_set_effort(j, ATUNE_JIT_EFFORT_ESTIMATE),
                     ATUNE_OK);
    assert_int_equal(
        atune_jit_config_for(j, p, "n=1000000", NULL, &c2, msg, sizeof(msg)),
        ATUNE_OK);
    assert_non_null(strstr(msg, "; effort estimate"));
    assert_int_equal(atune_jit_set_effort(j, (atune_jit_effort)9),
                     ATUNE_EINVAL);
    assert_int_equal(atune_jit_set_effort(NULL, ATUNE_JIT_EFFORT_PROFILE),
                     ATUNE_EINVAL);
    /* Still estimate after the refusals. */
    assert_int_equal(
        atune_jit_config_for(j, p, "n=1000000", NULL, &c2, msg, sizeof(msg)),
        ATUNE_OK);
    assert_non_null(strstr(msg, "; effort estimate"));
    assert_int_equal(atune_jit_set_effort(j, ATUNE_JIT_EFFORT_PROFILE),
                     ATUNE_OK);
    assert_int_equal(
        atune_jit_config_for(j, p, "n=1000000", NULL, &c2, msg, sizeof(msg)),
        ATUNE_OK);
    assert_non_null(strstr(msg, "; effort profile"));
    unsetenv("ATUNE_EFFORT");
    atune_jit_close(j);
    atune_profile_close(p);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_format),
        cmocka_unit_test(test_read_refuses),
        cmocka_unit_test(test_merge_and_bounds),
        cmocka_unit_test(test_lock_held_elsewhere),
        cmocka_unit_test(test_malformed_not_merged),
        cmocka_unit_test(test_served_ways),
        cmocka_unit_test(test_served_fallback),
        cmocka_unit_test(test_eight_processes),
        cmocka_unit_test(test_env),
        cmocka_unit_test(test_record_tune_serve),
        cmocka_unit_test(test_effort),
    };

    if (argc == 3 && strcmp(argv[1], "env-child") == 0)
        return env_child(argv[2]);
    if (argc >= 3 && strcmp(argv[1], "serve-child") == 0)
        return serve_child(argc, argv);
    return cmocka_run_group_tests(tests, setup, teardown);
}
