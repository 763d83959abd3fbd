/* outfile.c -- writing files in directories that others may write (see
 * outfile.h). */
#define _GNU_SOURCE /* getrandom's header, O_NOFOLLOW with older libcs */
#include "base/outfile.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* Symbolic links followed one after the other, as the kernel's limit. */
#define MAX_LINKS 40

static const char alphabet[] = "0123456789abcdefghijklmnopqrstuvwxyz";

static const char *type_name(mode_t m)
{
    return S_ISFIFO(m)  ? "a FIFO"
           : S_ISCHR(m) ? "a character device"
           : S_ISBLK(m) ? "a block device"
           : S_ISSOCK(m) ? "a socket"
           : S_ISDIR(m) ? "a directory"
           : S_ISLNK(m) ? "a symbolic link"
                        : "not a regular file";
}

int atune__open_regular(const char *path, int flags, mode_t mode,
                        const char *what, int *fd, atune__err *err)
{
    struct stat st = {0};
    int f;

    *fd = -1;
    f = open(path, flags | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, mode);
    if (f < 0) {
        int e = errno;
        if (e == ELOOP || (e == ENXIO && lstat(path, &st) == 0))
            return atune__fail(err, ATUNE__ECANTCREAT,
                               "%s '%s' is %s: not opening it (remove it)",
                               what, path,
                               lstat(path, &st) == 0 ? type_name(st.st_mode)
                                                     : "a symbolic link");
        return atune__fail(err,
                           e == ENOENT && !(flags & O_CREAT)
                               ? ATUNE__ENOINPUT
                               : ATUNE__ECANTCREAT,
                           "cannot open %s '%s': %s", what, path,
                           strerror(e));
    }
    if (fstat(f, &st) != 0 || !S_ISREG(st.st_mode)) {
        int rc = atune__fail(err, ATUNE__ECANTCREAT,
                             "%s '%s' is %s: not using it (remove it)", what,
                             path, type_name(st.st_mode));
        close(f);
        return rc;
    }
    /* Blocking again: a regular file never waits, but later writers
     * expect plain semantics. */
    fcntl(f, F_SETFL, fcntl(f, F_GETFL) & ~O_NONBLOCK);
    *fd = f;
    return 0;
}

int atune__tmp_random_char(char c)
{
    return c != '\0' && strchr(alphabet, c) != NULL;
}

/* n random characters of the alphabet into buf. getrandom, or, where it is
 * unavailable, the clock and the pid stirred: O_EXCL keeps even a guessed
 * name safe, the randomness only makes a planted name useless. */
static void random_name(char *buf, size_t n)
{
    unsigned char r[64];
    static unsigned long counter;

    if (n > sizeof(r))
        n = sizeof(r);
    if (getrandom(r, n, GRND_NONBLOCK) != (ssize_t)n) {
        struct timespec ts;
        uint64_t x;
        clock_gettime(CLOCK_REALTIME, &ts);
        x = (uint64_t)ts.tv_nsec ^ ((uint64_t)ts.tv_sec << 20) ^
            ((uint64_t)getpid() << 40) ^ ++counter;
        for (size_t i = 0; i < n; i++) {
            x = x * 6364136223846793005ULL + 1442695040888963407ULL;
            r[i] = (unsigned char)(x >> 56);
        }
    }
    for (size_t i = 0; i < n; i++)
        buf[i] = alphabet[r[i] % (sizeof(alphabet) - 1)];
}

int atune__create_temp(const char *prefix, const char *suffix, char **tmp,
                       int *fd, atune__err *err)
{
    size_t plen = strlen(prefix), slen = strlen(suffix);
    char *name = malloc(plen + ATUNE__TMP_RANDOM + slen + 1);
    int f = -1;

    *tmp = NULL;
    *fd = -1;
    if (!name)
        return atune__fail(err, ATUNE__EOSERR, "out of memory");
    memcpy(name, prefix, plen);
    memcpy(name + plen + ATUNE__TMP_RANDOM, suffix, slen + 1);
    for (int tries = 0; tries < 100; tries++) {
        random_name(name + plen, ATUNE__TMP_RANDOM);
        f = open(name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
                 0666);
        if (f >= 0 || errno != EEXIST)
            break;
    }
    if (f < 0) {
        int rc = atune__fail(err, ATUNE__ECANTCREAT, "cannot create '%s': %s",
                             name, strerror(errno));
        free(name);
        return rc;
    }
    *tmp = name;
    *fd = f;
    return 0;
}

/* The file a symbolic link names, relative to the link's folder; NULL
 * when readlink fails or out of memory. Heap string. */
static char *link_target(const char *path)
{
    char target[4096], *out;
    const char *slash = strrchr(path, '/');
    ssize_t n = readlink(path, target, sizeof(target) - 1);
    size_t dir;

    if (n < 0)
        return NULL;
    target[n] = '\0';
    dir = slash && target[0] != '/' ? (size_t)(slash - path) + 1 : 0;
    out = malloc(dir + (size_t)n + 1);
    if (out) {
        memcpy(out, path, dir);
        memcpy(out + dir, target, (size_t)n + 1);
    }
    return out;
}

static int is_input(const char *path, const struct stat *st,
                    const atune__out_rules *r)
{
    struct stat in;

    for (int i = 0; i < r->ninputs; i++)
        if (strcmp(r->inputs[i], path) == 0 ||
            (st && stat(r->inputs[i], &in) == 0 && in.st_dev == st->st_dev &&
             in.st_ino == st->st_ino))
            return 1;
    return 0;
}

/* Whether the regular file at path may be replaced: empty, or ours. */
static int replaceable(const char *path, const struct stat *st,
                       const atune__out_rules *r)
{
    int fd, ok;

    if (!r->ours || st->st_size == 0)
        return 1;
    fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return 0;
    ok = r->ours(fd);
    close(fd);
    return ok;
}

static int refuse(const atune__out_rules *r, const char *path,
                  const char *shown, atune__err *err, const char *why)
{
    if (strcmp(path, shown) == 0)
        return atune__fail(err, ATUNE__ECANTCREAT, "%s '%s' %s", r->what,
                           path, why);
    return atune__fail(err, ATUNE__ECANTCREAT, "%s '%s' (a link to '%s') %s",
                       r->what, shown, path, why);
}

/* Checks the existing file cur (reached from path) against r. */
static int check_existing(const char *path, const char *cur,
                          const struct stat *st, const atune__out_rules *r,
                          int *through, atune__err *err)
{
    if (is_input(cur, st, r) || is_input(path, st, r))
        return atune__fail(err, ATUNE__EUSAGE,
                           "%s '%s' is one of the inputs: not replacing it",
                           r->what, path);
    if (S_ISDIR(st->st_mode))
        return refuse(r, cur, path, err, "is a directory");
    if (!S_ISREG(st->st_mode)) {
        if (r->special == ATUNE__SPECIAL_THROUGH) {
            *through = 1;
            return 0;
        }
        return refuse(r, cur, path, err,
                      S_ISFIFO(st->st_mode)
                          ? "is a FIFO: not writing to it"
                          : "is not a regular file (a device or socket): not "
                            "writing to it");
    }
    if (!replaceable(cur, st, r)) {
        char why[512];
        snprintf(why, sizeof(why),
                 "exists and is not %s: not replacing it (remove it or "
                 "choose another name)",
                 r->kind ? r->kind : "a file of ours");
        return refuse(r, cur, path, err, why);
    }
    return 0;
}

int atune__out_resolve(const char *path, const atune__out_rules *r,
                       char **real, int *through, atune__err *err)
{
    char *cur = atune__strdup(path), *next;
    struct stat st;
    uid_t me = geteuid();
    int rc = 0;

    *real = NULL;
    *through = 0;
    if (!cur)
        return atune__fail(err, ATUNE__EOSERR, "out of memory");
    for (int depth = 0;; depth++) {
        /* Missing (or in a folder that is not one): a new file, whose
         * creation says what is wrong. */
        if (lstat(cur, &st) != 0)
            break;
        if (!S_ISLNK(st.st_mode)) {
            if ((rc = check_existing(path, cur, &st, r, through, err)))
                goto fail;
            break;
        }
        if (r->links != ATUNE__LINK_TRUSTED) {
            rc = refuse(r, cur, path, err,
                        "is a symbolic link: not following it (write to the "
                        "file it names instead)");
            goto fail;
        }
        if (st.st_uid != me && st.st_uid != 0) {
            char why[256];
            snprintf(why, sizeof(why),
                     "is a symbolic link of another user (uid %ld): not "
                     "following it",
                     (long)st.st_uid);
            rc = refuse(r, cur, path, err, why);
            goto fail;
        }
        if (depth == MAX_LINKS) {
            rc = refuse(r, cur, path, err, "is a loop of symbolic links");
            goto fail;
        }
        /* A link to a special file (/dev/stdout, whose target may be a
         * pipe without a name) is judged by what it reaches. */
        if (stat(cur, &st) == 0 && !S_ISREG(st.st_mode) &&
            !S_ISDIR(st.st_mode)) {
            if ((rc = check_existing(path, cur, &st, r, through, err)))
                goto fail;
            free(cur);
            cur = atune__strdup(path);
            if (!cur)
                return atune__fail(err, ATUNE__EOSERR, "out of memory");
            break;
        }
        if (!(next = link_target(cur))) {
            rc = atune__fail(err, ATUNE__ECANTCREAT,
                             "%s: cannot follow '%s': %s", r->what, cur,
                             strerror(errno));
            goto fail;
        }
        free(cur);
        cur = next;
    }
    *real = cur;
    return 0;
fail:
    free(cur);
    return rc;
}

static int sync_dir_of(const char *path, atune__err *err)
{
    const char *slash = strrchr(path, '/');
    char *dir;
    int fd, rc = ATUNE__OK;

    if (!slash)
        dir = atune__strdup(".");
    else if (slash == path)
        dir = atune__strdup("/");
    else
        dir = atune__strndup(path, (size_t)(slash - path));
    if (!dir)
        return atune__fail(err, ATUNE__EOSERR, "out of memory");
    fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    /* Some file systems cannot sync a directory (EINVAL): nothing to do. */
    if (fd < 0 || (fsync(fd) != 0 && errno != EINVAL))
        rc = atune__fail(err, ATUNE__EIO,
                         "wrote '%s' but cannot sync directory '%s': %s", path,
                         dir, strerror(errno));
    if (fd >= 0)
        close(fd);
    free(dir);
    return rc;
}

int atune__replace_file(const char *path, int (*fill)(FILE *f, void *ctx),
                        void *ctx, int sync_dir, atune__err *err)
{
    size_t len = strlen(path) + 8;
    char *prefix = malloc(len), *tmp = NULL;
    struct stat old;
    FILE *f = NULL;
    int fd, rc;

    if (!prefix)
        return atune__fail(err, ATUNE__EOSERR, "out of memory");
    snprintf(prefix, len, "%s.tmp.", path);
    rc = atune__create_temp(prefix, "", &tmp, &fd, err);
    free(prefix);
    if (rc)
        return rc;
    /* A profile kept private stays private. */
    if (lstat(path, &old) == 0 && S_ISREG(old.st_mode))
        (void)fchmod(fd, old.st_mode & 07777);
    if (!(f = fdopen(fd, "w"))) {
        close(fd);
        rc = atune__fail(err, ATUNE__EOSERR, "cannot write '%s': %s", tmp,
                         strerror(errno));
        goto out;
    }
    if (fill(f, ctx) != 0 || ferror(f) || fflush(f) != 0 ||
        fsync(fileno(f)) != 0) {
        rc = atune__fail(err, ATUNE__EIO, "cannot write '%s': %s", tmp,
                         strerror(errno));
        goto out;
    }
    if (fclose(f) != 0) {
        f = NULL;
        rc = atune__fail(err, ATUNE__EIO, "cannot write '%s': %s", tmp,
                         strerror(errno));
        goto out;
    }
    f = NULL;
    if (rename(tmp, path) != 0)
        rc = atune__fail(err, ATUNE__ECANTCREAT, "cannot replace '%s': %s",
                         path, strerror(errno));
    else if (sync_dir)
        rc = sync_dir_of(path, err);
out:
    if (f)
        fclose(f);
    if (rc && tmp)
        unlink(tmp);
    free(tmp);
    return rc;
}

/* A FIFO or device named on purpose: opened as it is (a FIFO waits for
 * its reader, as any program writing to one does). */
static int write_through(const char *path, int (*fill)(FILE *f, void *ctx),
                         void *ctx, atune__err *err)
{
    int fd = open(path, O_WRONLY | O_NOCTTY | O_CLOEXEC);
    FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
    int rc = 0;

    if (!f) {
        rc = atune__fail(err, ATUNE__ECANTCREAT, "cannot open '%s': %s", path,
                         strerror(errno));
        if (fd >= 0)
            close(fd);
        return rc;
    }
    if (fill(f, ctx) != 0 || ferror(f) || fflush(f) != 0)
        rc = atune__fail(err, ATUNE__EIO, "cannot write '%s': %s", path,
                         strerror(errno));
    if (fclose(f) != 0 && !rc)
        rc = atune__fail(err, ATUNE__EIO, "cannot write '%s': %s", path,
                         strerror(errno));
    return rc;
}

int atune__out_write(const char *path, const atune__out_rules *r,
                     int (*fill)(FILE *f, void *ctx), void *ctx,
                     atune__err *err)
{
    char *real;
    int through, rc = atune__out_resolve(path, r, &real, &through, err);

    if (rc)
        return rc;
    rc = through ? write_through(path, fill, ctx, err)
                 : atune__replace_file(real, fill, ctx, r->sync_dir, err);
    free(real);
    return rc;
}

/* Whether a directory above a private one is safe: another user who can
 * write it could replace what it holds (unless sticky: then only its own
 * entries). */
static int safe_parent(const struct stat *st)
{
    return (st->st_uid == geteuid() || st->st_uid == 0) &&
           (!(st->st_mode & (S_IWGRP | S_IWOTH)) || (st->st_mode & S_ISVTX));
}

int atune__private_dir(const char *dir, char *real, size_t len,
                       atune__err *err)
{
    struct stat st;
    char path[PATH_MAX];

    if (mkdir(dir, 0700) != 0 && errno != EEXIST)
        return atune__fail(err, ATUNE__ECANTCREAT, "cannot create '%s': %s",
                           dir, strerror(errno));
    if (lstat(dir, &st) != 0)
        return atune__fail(err, ATUNE__ECANTCREAT, "'%s': %s", dir,
                           strerror(errno));
    if (S_ISLNK(st.st_mode) || !S_ISDIR(st.st_mode))
        return atune__fail(err, ATUNE__ECANTCREAT, "'%s' is %s, not a directory",
                           dir, type_name(st.st_mode));
    if (st.st_uid != geteuid())
        return atune__fail(err, ATUNE__ECANTCREAT,
                           "'%s' belongs to another user (uid %ld)", dir,
                           (long)st.st_uid);
    if (st.st_mode & 077)
        return atune__fail(err, ATUNE__ECANTCREAT,
                           "'%s' has mode %04o: others may use it (chmod 700 "
                           "it if nothing there is someone else's)",
                           dir, (unsigned)(st.st_mode & 07777));
    if (!realpath(dir, path) || strlen(path) >= len)
        return atune__fail(err, ATUNE__ECANTCREAT, "'%s': cannot resolve it",
                           dir);
    strcpy(real, path);
    for (char *slash = strrchr(path, '/'); slash; slash = strrchr(path, '/')) {
        slash[slash == path] = '\0'; /* "/a/b" -> "/a", "/a" -> "/" */
        if (stat(path, &st) != 0 || !safe_parent(&st))
            return atune__fail(err, ATUNE__ECANTCREAT,
                               "'%s' lies in '%s', which another user may "
                               "write",
                               real, path);
        if (slash == path)
            break;
    }
    return 0;
}
