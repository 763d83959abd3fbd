/* test_outfile.c -- base/outfile.c: outputs in directories others may
 * write. Each test plants what a hostile user could (links, FIFOs, names
 * taken) and checks that nothing is followed, waited for or replaced that
 * the rules do not allow. */
#define _XOPEN_SOURCE 700 /* realpath */
#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>
#include "testutil.h"
#include "base/outfile.h"

typedef struct fixture {
    char dir[64];
    char path[256]; /* dir/out */
} fixture;

static int setup(void **state)
{
    fixture *f = calloc(1, sizeof(*f));

    if (!f)
        return -1;
    strcpy(f->dir, "/tmp/atune-outfile-XXXXXX");
    if (!mkdtemp(f->dir))
        return -1;
    snprintf(f->path, sizeof(f->path), "%s/out", f->dir);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fixture *f = *state;

    rm_rf(f->dir);
    free(f);
    return 0;
}

static char *in(const fixture *f, const char *name)
{
    static char buf[4][256];
    static int next;
    char *b = buf[next++ % 4];

    snprintf(b, sizeof(buf[0]), "%s/%s", f->dir, name);
    return b;
}

static void put(const char *path, const char *text)
{
    FILE *fp = fopen(path, "w");

    assert_non_null(fp);
    fputs(text, fp);
    fclose(fp);
}

static int same(const char *path, const char *text)
{
    char buf[256] = "";
    FILE *fp = fopen(path, "r");
    size_t n;

    if (!fp)
        return 0;
    n = fread(buf, 1, sizeof(buf) - 1, fp);
    fclose(fp);
    buf[n] = '\0';
    return strcmp(buf, text) == 0;
}

/* Entries of dir whose name contains part. */
static int count(const char *dir, const char *part)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    int n = 0;

    assert_non_null(d);
    while ((e = readdir(d)))
        n += strstr(e->d_name, part) != NULL;
    closedir(d);
    return n;
}

static int fill_new(FILE *fp, void *ctx)
{
    (void)ctx;
    return fputs("MINE new\n", fp) == EOF;
}

static int fill_fails(FILE *fp, void *ctx)
{
    (void)fp;
    (void)ctx;
    return 1;
}

static int ours(int fd)
{
    char head[4];

    return read(fd, head, 4) == 4 && memcmp(head, "MINE", 4) == 0;
}

static atune__out_rules rules(int links, int special)
{
    atune__out_rules r = {.what = "-o",
                          .kind = "a file of the test",
                          .ours = ours,
                          .links = links,
                          .special = special};
    return r;
}

static void write_fails(const char *path, const atune__out_rules *r, int code,
                        const char *text)
{
    atune__err err = {0, ""};
    int rc = atune__out_write(path, r, fill_new, NULL, &err);

    if (rc != code || !strstr(err.msg, text))
        fail_msg("got %d '%s', expected %d '%s'", rc, err.msg, code, text);
}

static void write_ok(const char *path, const atune__out_rules *r)
{
    atune__err err = {0, ""};
    int rc = atune__out_write(path, r, fill_new, NULL, &err);

    if (rc != 0)
        fail_msg("write failed (%d): %s", rc, err.msg);
}

/* A new file, an empty one, and one of ours are written; a file that is
 * not ours is kept; no temporary file is left either way. */
static void test_new_empty_ours_others(void **state)
{
    fixture *f = *state;
    atune__out_rules r = rules(ATUNE__LINK_REFUSE, ATUNE__SPECIAL_REFUSE);

    write_ok(f->path, &r);
    assert_true(same(f->path, "MINE new\n"));
    put(f->path, "MINE old\n");
    write_ok(f->path, &r);
    assert_true(same(f->path, "MINE new\n"));
    put(f->path, "");
    write_ok(f->path, &r);
    put(f->path, "precious\n");
    write_fails(f->path, &r, ATUNE__ECANTCREAT,
                "exists and is not a file of the test");
    assert_true(same(f->path, "precious\n"));
    assert_int_equal(count(f->dir, ".tmp."), 0);
}

/* A failing fill leaves the old file and no temporary file. */
static void test_failed_fill_keeps_old(void **state)
{
    fixture *f = *state;
    atune__err err = {0, ""};

    put(f->path, "MINE old\n");
    assert_int_equal(atune__replace_file(f->path, fill_fails, NULL, 0, &err),
                     ATUNE__EIO);
    assert_true(same(f->path, "MINE old\n"));
    assert_int_equal(count(f->dir, ".tmp."), 0);
}

/* The inputs, by name or by another name of the same file. */
static void test_inputs(void **state)
{
    fixture *f = *state;
    char *inputs[1];
    atune__out_rules r = rules(ATUNE__LINK_REFUSE, ATUNE__SPECIAL_REFUSE);

    inputs[0] = in(f, "t.ini");
    put(inputs[0], "MINE input\n"); /* ours() would even accept it */
    r.inputs = inputs;
    r.ninputs = 1;
    write_fails(inputs[0], &r, ATUNE__EUSAGE, "is one of the inputs");
    assert_int_equal(link(inputs[0], in(f, "other")), 0);
    write_fails(in(f, "other"), &r, ATUNE__EUSAGE, "is one of the inputs");
    assert_true(same(inputs[0], "MINE input\n"));
}

/* Links: refused, or followed (the target replaced, the link kept), also
 * when dangling; a link to a directory is refused either way. */
static void test_links(void **state)
{
    fixture *f = *state;
    atune__out_rules no = rules(ATUNE__LINK_REFUSE, ATUNE__SPECIAL_REFUSE);
    atune__out_rules yes = rules(ATUNE__LINK_TRUSTED, ATUNE__SPECIAL_REFUSE);
    struct stat st;

    put(in(f, "target"), "MINE old\n");
    assert_int_equal(symlink("target", f->path), 0);
    write_fails(f->path, &no, ATUNE__ECANTCREAT, "is a symbolic link");
    assert_true(same(in(f, "target"), "MINE old\n"));
    write_ok(f->path, &yes);
    assert_int_equal(lstat(f->path, &st), 0);
    assert_true(S_ISLNK(st.st_mode));
    assert_true(same(in(f, "target"), "MINE new\n"));

    /* A chain of links, the last one dangling: the target is created. */
    assert_int_equal(symlink("l2", in(f, "l1")), 0);
    assert_int_equal(symlink("made", in(f, "l2")), 0);
    write_ok(in(f, "l1"), &yes);
    assert_true(same(in(f, "made"), "MINE new\n"));
    assert_int_equal(lstat(in(f, "l2"), &st), 0);
    assert_true(S_ISLNK(st.st_mode));

    /* The target must pass the rules too. */
    put(in(f, "precious"), "keep\n");
    assert_int_equal(symlink("precious", in(f, "lp")), 0);
    write_fails(in(f, "lp"), &yes, ATUNE__ECANTCREAT, "a link to");
    assert_true(same(in(f, "precious"), "keep\n"));
    assert_int_equal(mkdir(in(f, "d"), 0700), 0);
    assert_int_equal(symlink("d", in(f, "ld")), 0);
    write_fails(in(f, "ld"), &yes, ATUNE__ECANTCREAT, "is a directory");

    /* A link of another user is not followed; only root can make one
     * here (lchown), elsewhere this part is skipped. */
    assert_int_equal(symlink("target", in(f, "theirs")), 0);
    if (lchown(in(f, "theirs"), 12345, 12345) == 0) {
        write_fails(in(f, "theirs"), &yes, ATUNE__ECANTCREAT,
                    "is a symbolic link of another user (uid 12345)");
        assert_true(same(in(f, "target"), "MINE new\n"));
    }

    /* A loop ends. */
    assert_int_equal(symlink("loop2", in(f, "loop1")), 0);
    assert_int_equal(symlink("loop1", in(f, "loop2")), 0);
    write_fails(in(f, "loop1"), &yes, ATUNE__ECANTCREAT, "loop");
}

/* A FIFO is refused without waiting for a reader, or written through when
 * the rules say so (then it stays a FIFO). */
static void test_fifo(void **state)
{
    fixture *f = *state;
    atune__out_rules r = rules(ATUNE__LINK_REFUSE, ATUNE__SPECIAL_REFUSE);
    atune__out_rules t = rules(ATUNE__LINK_REFUSE, ATUNE__SPECIAL_THROUGH);
    char *real = NULL;
    int through = 0;
    atune__err err = {0, ""};
    struct stat st;

    assert_int_equal(mkfifo(f->path, 0600), 0);
    write_fails(f->path, &r, ATUNE__ECANTCREAT, "is a FIFO");
    assert_int_equal(atune__out_resolve(f->path, &t, &real, &through, &err),
                     0);
    assert_int_equal(through, 1);
    free(real);
    assert_int_equal(lstat(f->path, &st), 0);
    assert_true(S_ISFIFO(st.st_mode));
}

/* atune__open_regular: no link, no FIFO (and no wait), a regular file
 * opened in blocking mode. */
static void test_open_regular(void **state)
{
    fixture *f = *state;
    atune__err err = {0, ""};
    int fd;

    assert_int_equal(atune__open_regular(f->path, O_RDONLY, 0, "lock file",
                                         &fd, &err),
                     ATUNE__ENOINPUT);
    assert_int_equal(atune__open_regular(f->path, O_RDWR | O_CREAT, 0666,
                                         "lock file", &fd, &err),
                     0);
    assert_int_equal(fcntl(fd, F_GETFL) & O_NONBLOCK, 0);
    close(fd);
    assert_int_equal(symlink(f->path, in(f, "link")), 0);
    assert_int_equal(atune__open_regular(in(f, "link"), O_RDWR | O_CREAT,
                                         0666, "lock file", &fd, &err),
                     ATUNE__ECANTCREAT);
    assert_non_null(strstr(err.msg, "is a symbolic link"));
    assert_int_equal(mkfifo(in(f, "fifo"), 0600), 0);
    assert_int_equal(atune__open_regular(in(f, "fifo"), O_RDWR | O_CREAT,
                                         0666, "lock file", &fd, &err),
                     ATUNE__ECANTCREAT);
    assert_non_null(strstr(err.msg, "is a FIFO"));
    assert_int_equal(atune__open_regular(in(f, "fifo"), O_WRONLY, 0,
                                         "journal", &fd, &err),
                     ATUNE__ECANTCREAT);
    assert_non_null(strstr(err.msg, "is a FIFO"));
}

/* Temporary names: fresh each time, of the documented shape, created
 * exclusively, never through a planted link. */
static void test_create_temp(void **state)
{
    fixture *f = *state;
    char prefix[300], *a = NULL, *b = NULL;
    atune__err err = {0, ""};
    struct stat st;
    int fa, fb;

    snprintf(prefix, sizeof(prefix), "%s/x.", f->dir);
    assert_int_equal(atune__create_temp(prefix, ".t", &a, &fa, &err), 0);
    assert_int_equal(atune__create_temp(prefix, ".t", &b, &fb, &err), 0);
    assert_string_not_equal(a, b);
    assert_int_equal(strlen(a), strlen(prefix) + ATUNE__TMP_RANDOM + 2);
    for (size_t i = strlen(prefix); i < strlen(prefix) + ATUNE__TMP_RANDOM;
         i++)
        assert_true(atune__tmp_random_char(a[i]));
    assert_int_equal(fstat(fa, &st), 0);
    assert_true(S_ISREG(st.st_mode));
    assert_int_equal(st.st_size, 0);
    close(fa);
    close(fb);
    free(a);
    free(b);
}

/* Replacing keeps the old file's permission bits. */
static void test_mode_kept(void **state)
{
    fixture *f = *state;
    atune__out_rules r = rules(ATUNE__LINK_REFUSE, ATUNE__SPECIAL_REFUSE);
    struct stat st;

    put(f->path, "MINE old\n");
    assert_int_equal(chmod(f->path, 0600), 0);
    write_ok(f->path, &r);
    assert_int_equal(stat(f->path, &st), 0);
    assert_int_equal(st.st_mode & 0777, 0600);
}

/* A private directory: made 0700, its real path given; a link, a mode
 * that lets others in, or a parent others may write (not sticky) is
 * refused with the reason. */
static void test_private_dir(void **state)
{
    fixture *f = *state;
    char real[4096], want[4096];
    atune__err err = {0};
    struct stat st;

    assert_int_equal(atune__private_dir(in(f, "p"), real, sizeof(real), &err),
                     0);
    assert_int_equal(stat(in(f, "p"), &st), 0);
    assert_int_equal(st.st_mode & 0777, 0700);
    assert_non_null(realpath(in(f, "p"), want));
    assert_string_equal(real, want);
    /* again: it exists, still fine */
    assert_int_equal(atune__private_dir(in(f, "p"), real, sizeof(real), &err),
                     0);
    assert_int_equal(symlink(in(f, "p"), in(f, "l")), 0);
    assert_int_equal(atune__private_dir(in(f, "l"), real, sizeof(real), &err),
                     ATUNE__ECANTCREAT);
    assert_non_null(strstr(err.msg, "is a symbolic link, not a directory"));
    assert_int_equal(chmod(in(f, "p"), 0750), 0);
    assert_int_equal(atune__private_dir(in(f, "p"), real, sizeof(real), &err),
                     ATUNE__ECANTCREAT);
    assert_non_null(strstr(err.msg, "has mode 0750"));
    assert_int_equal(chmod(in(f, "p"), 0700), 0);
    assert_int_equal(chmod(f->dir, 0777), 0);
    assert_int_equal(atune__private_dir(in(f, "p"), real, sizeof(real), &err),
                     ATUNE__ECANTCREAT);
    assert_non_null(strstr(err.msg, "which another user may write"));
    assert_int_equal(chmod(f->dir, 01777), 0); /* sticky, as /tmp */
    assert_int_equal(atune__private_dir(in(f, "p"), real, sizeof(real), &err),
                     0);
    assert_int_equal(chmod(f->dir, 0700), 0);
    put(in(f, "file"), "x");
    assert_int_equal(
        atune__private_dir(in(f, "file"), real, sizeof(real), &err),
        ATUNE__ECANTCREAT);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_new_empty_ours_others, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_failed_fill_keeps_old, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_inputs, setup, teardown),
        cmocka_unit_test_setup_teardown(test_links, setup, teardown),
        cmocka_unit_test_setup_teardown(test_fifo, setup, teardown),
        cmocka_unit_test_setup_teardown(test_open_regular, setup, teardown),
        cmocka_unit_test_setup_teardown(test_create_temp, setup, teardown),
        cmocka_unit_test_setup_teardown(test_mode_kept, setup, teardown),
        cmocka_unit_test_setup_teardown(test_private_dir, setup, teardown),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
