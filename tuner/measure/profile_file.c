/* profile_file.c -- the file side of writing a profile, shared by every
 * writer (profile_write.c for tune and --evaluate, profile_merge.c for
 * merge): the lock on <path>.lock and the atomic replacement of the file
 * by a text that the library has read back. One lock protocol for all, so
 * that a merge and a tuner of the same profile never lose each other's
 * sections. */
#include "measure/profile_write.h"

#include "base/outfile.h"

#include <atune/atune.h>


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

int atune__profile_resolve(const char *path, char **real, atune__err *err)
{
    static const atune__out_rules r = {.what = "profile",
                                       .links = ATUNE__LINK_TRUSTED,
                                       .special = ATUNE__SPECIAL_REFUSE,
                                       .sync_dir = 1};
    int through;

    return atune__out_resolve(path, &r, real, &through, err);
}

int atune__profile_lock(const char *path, int *fd, atune__err *err)
{
    size_t len = strlen(path) + sizeof(".lock");
    char *lock = malloc(len);
    int rc;

    *fd = -1;
    if (!lock)
        return atune__fail(err, ATUNE__EOSERR, "out of memory");
    snprintf(lock, len, "%s.lock", path);
    /* The lock file is kept: deleting it would let two writers lock
     * different files. A link or FIFO planted at its name is refused,
     * never followed or waited for. */
    rc = atune__open_regular(lock, O_RDWR | O_CREAT, 0666, "lock file", fd,
                             err);
    if (rc) {
        if (rc == ATUNE__ENOINPUT)
            rc = ATUNE__ECANTCREAT;
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
    int rc = atune_profile_open_string(path, t->buf, t->len, &p);

    if (rc != ATUNE_OK)
        rc = atune__fail(err, ATUNE__EDATA,
                         "cannot write a profile that would not read back: %s",
                         p ? atune_profile_errmsg(p) : "out of memory");
    atune_profile_close(p);
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
        rc = atune__replace_file(path, fill_text, &t, 1, err);
    return rc;
}
