/* outfile.h -- writing files in directories that others may write: the
 * one place where the tools open, create and replace their outputs
 * (profiles and their locks and temporaries, journals, --html reports,
 * `autotune header -o` files, module cache entries).
 *
 * A name in such a directory may have been planted: a symbolic link to
 * another user's file, a FIFO that blocks whoever opens it, a device. So
 * nothing here follows a symbolic link it cannot trust, opens a special
 * file unless told to, or writes into a file it did not create: new
 * contents go to a temporary file with an unpredictable name, created
 * exclusively, which is renamed over the output. docs/safety.md says what
 * users see. */
#ifndef ATUNE_OUTFILE_H
#define ATUNE_OUTFILE_H

#include <stdio.h>
#include <sys/types.h>

#include "base/util.h"

/* Opens path with flags (O_RDONLY, O_RDWR, O_WRONLY, O_CREAT, O_APPEND;
 * O_NOFOLLOW, O_NONBLOCK and O_CLOEXEC are added) and mode, and returns
 * the descriptor in *fd, in blocking mode. A symbolic link at path is
 * refused (ATUNE__ECANTCREAT), as is anything but a regular file (a FIFO
 * is not waited for): what names the file in messages ("journal").
 * ENOENT without O_CREAT is ATUNE__ENOINPUT. */
int atune__open_regular(const char *path, int flags, mode_t mode,
                        const char *what, int *fd, atune__err *err);

/* The number of random characters in a temporary file's name. */
#define ATUNE__TMP_RANDOM 12

/* Whether c is one of the characters of a temporary name's random part. */
int atune__tmp_random_char(char c);

/* Creates a new regular file named prefix, ATUNE__TMP_RANDOM random
 * characters, then suffix, with O_CREAT | O_EXCL | O_NOFOLLOW (a name
 * taken, by a planted link too, is tried again with other characters) and
 * mode 0666 less the umask. *tmp: the name (heap); *fd: open for
 * writing. ATUNE__ECANTCREAT or ATUNE__EOSERR. */
int atune__create_temp(const char *prefix, const char *suffix, char **tmp,
                       int *fd, atune__err *err);

/* How an output path is treated when something is already there. */
enum {
    ATUNE__LINK_REFUSE = 0, /* a symbolic link is refused */
    ATUNE__LINK_TRUSTED = 1 /* followed when owned by this user or root,
                               so the target is replaced, the link kept */
};
enum {
    ATUNE__SPECIAL_REFUSE = 0, /* a FIFO, device or socket is refused */
    ATUNE__SPECIAL_THROUGH = 1 /* it is opened and written to as it is */
};

typedef struct atune__out_rules {
    const char *what;   /* the output in messages: "--html", "-o" */
    const char *kind;   /* what ours() accepts: "an HTML report of ..." */
    char *const *inputs; /* files the output may never be (NULL: none) */
    int ninputs;
    /* Whether the existing regular file (open for reading at offset 0) is
     * one this output may replace; NULL: any. An empty file always is. */
    int (*ours)(int fd);
    int links;   /* ATUNE__LINK_* */
    int special; /* ATUNE__SPECIAL_* */
    int sync_dir; /* sync the directory after the rename */
} atune__out_rules;

/* Where writing path under r goes: *real (heap) is path, or the file its
 * trusted links name; *through is set when it is a special file to be
 * written through (then *real is path). Fails, with r->what and the path
 * in the message, when path is one of r->inputs (ATUNE__EUSAGE), a
 * directory, a link not to be followed, a special file to be refused, or
 * an existing non-empty regular file that r->ours rejects
 * (ATUNE__ECANTCREAT). A missing file, or a trusted link to one, is fine:
 * it will be created. */
int atune__out_resolve(const char *path, const atune__out_rules *r,
                       char **real, int *through, atune__err *err);

/* Replaces exactly path (no link is followed: rename replaces the name):
 * fill writes the new contents (returns nonzero on failure) to a
 * temporary file beside it (atune__create_temp: <path>.tmp.RANDOM) that
 * is synced and renamed over path; an existing file's permission bits are
 * kept. On failure the temporary file is removed and path is as it was:
 * ATUNE__ECANTCREAT (cannot create, cannot rename), ATUNE__EIO (write or
 * sync failed) or ATUNE__EOSERR. sync_dir: sync the directory too. */
int atune__replace_file(const char *path, int (*fill)(FILE *f, void *ctx),
                        void *ctx, int sync_dir, atune__err *err);

/* atune__out_resolve, then atune__replace_file on the real file, or, for a
 * special file written through, fill straight into it (ATUNE__EIO when
 * that fails). */
int atune__out_write(const char *path, const atune__out_rules *r,
                     int (*fill)(FILE *f, void *ctx), void *ctx,
                     atune__err *err);

/* Makes dir (one level, mode 0700) unless it exists, and checks that only
 * this user can use it: a directory, not a link, owned by this user,
 * mode 0700 (nothing for group or others), and every directory above it
 * owned by this user or root and writable by no one else unless sticky
 * (/tmp), so that no other user can rename it away and put another in its
 * place. Its real path goes into real (len bytes). For files that a tool
 * reads and writes by names it derives itself (NVRTC's precompiled
 * headers), where a planted link or file could not be told apart.
 * ATUNE__ECANTCREAT with the reason. */
int atune__private_dir(const char *dir, char *real, size_t len,
                       atune__err *err);

#endif
