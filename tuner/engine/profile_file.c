/* profile_file.c -- the file side of writing a profile, shared by every
 * writer (profile_write.c for tune and --evaluate, profile_merge.c for
 * merge): the lock on <path>.lock and the atomic replacement of the file
 * by a text that the library has read back. One lock protocol for all, so
 * that a merge and a tuner of the same profile never lose each other's
 * sections. */
#include "engine/profile_write.h"

#include "lib/profile_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

/* The text to write. */
typedef struct text {
    const char *buf;
    size_t len;
} text;

int atune__profile_lock(const char *path, int *fd, atune__err *err)
{
    size_t len = strlen(path) + sizeof(".lock");
    char *lock = malloc(len);
    int rc = ATUNE__OK;

    *fd = -1;
    if (!lock)
        return atune__fail(err, ATUNE__EOSERR, "out of memory");
    snprintf(lock, len, "%s.lock", path);
    /* The lock file is kept: deleting it would let two writers lock
     * different files. */
    *fd = open(lock, O_RDWR | O_CREAT | O_CLOEXEC, 0666);
    if (*fd < 0) {
        rc = atune__fail(err, ATUNE__ECANTCREAT,
                         "cannot create lock file '%s': %s", lock,
                         strerror(errno));
        goto out;
    }
    while (flock(*fd, LOCK_EX) != 0) {
        if (errno == EINTR)
            continue;
        rc = atune__fail(err, ATUNE__EIO, "cannot lock '%s': %s", lock,
                         strerror(errno));
        close(*fd);
        *fd = -1;
        break;
    }
out:
    free(lock);
    return rc;
}

/* Parses the new text as applications will. */
static int verify(const char *path, const text *t, atune__err *err)
{
    atune_profile *p;
    int rc = atune__profile_open_mem(path, t->buf, t->len, &p);

    if (rc != ATUNE_OK)
        rc = atune__fail(err, ATUNE__EDATA,
                         "cannot write a profile that would not read back: %s",
                         p ? atune_profile_errmsg(p) : "out of memory");
    atune_profile_close(p);
    return rc;
}

static int sync_dir(const char *path, atune__err *err)
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

static int fill_text(FILE *f, void *ctx)
{
    const text *t = ctx;

    return fwrite(t->buf, 1, t->len, f) != t->len;
}

int atune__profile_replace(const char *path, const char *buf, size_t len,
                           atune__err *err)
{
    text t = {buf, len};
    int rc = verify(path, &t, err);

    if (rc == ATUNE__OK)
        rc = atune__replace_file(path, fill_text, &t, err);
    return rc ? rc : sync_dir(path, err);
}
