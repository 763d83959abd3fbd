/* record.h -- the record file (ATUNE_RECORD): which (GPU model, kernel,
 * size) an application was served without an exact tuned entry of its
 * GPU, how, and how often. libatune_jit merges into it (appjit_record.c);
 * `autotune tune --sizes-from` and `autotune show --record` read it.
 *
 * The file is text, one line per key, fields separated by tabs:
 *
 *     # autotune record 1
 *     NVIDIA H100 80GB HBM3<TAB>copy<TAB>n=1000000<TAB>nearest<TAB>12
 *
 * Lines starting with '#' after the first are comments, except
 * "# dropped: N", the servings of keys that did not fit the bound. Anyone
 * who can write the file can put anything in it: every reader validates
 * every line and names file:line. */
#ifndef ATUNE_RECORD_H
#define ATUNE_RECORD_H

#include <stdint.h>

#include "base/util.h"

#define ATUNE__RECORD_HEADER "# autotune record 1"
#define ATUNE__RECORD_MAX_KEYS 4096     /* lines a record holds */
#define ATUNE__RECORD_MAX_BYTES 4194304 /* a larger file is refused */
#define ATUNE__RECORD_GPU_MAX 256       /* bytes of a GPU name, NUL included */
#define ATUNE__RECORD_KERNEL_MAX 64
#define ATUNE__RECORD_SIZE_MAX 160

/* How a key was served. */
typedef enum atune__served {
    ATUNE__SERVED_NO_PROFILE, /* no profile: the template's defaults */
    ATUNE__SERVED_DEFAULTS,   /* a profile, but no usable entry: defaults */
    ATUNE__SERVED_NEAREST,    /* the tuned entry of the nearest size */
    ATUNE__SERVED_FALLBACK,   /* another tuned entry: the nearest cannot
                                 run here, or its grid pads much more */
    ATUNE__SERVED_OTHER_GPU,  /* the exact size, from another GPU model's
                                 profile */
    ATUNE__SERVED_COUNT
} atune__served;

/* "no-profile", "defaults", "nearest", "fallback", "other-gpu". */
const char *atune__served_name(atune__served s);

typedef struct atune__rec_entry {
    char gpu[ATUNE__RECORD_GPU_MAX];
    char kernel[ATUNE__RECORD_KERNEL_MAX];
    char size[ATUNE__RECORD_SIZE_MAX]; /* "m=4096,n=4096,k=4094" */
    atune__served served;
    int64_t count;   /* servings; saturates at INT64_MAX */
    int64_t flushed; /* of count, already merged into the file (the
                        process's own table only) */
    int line;        /* where it was read, 0 when not read */
} atune__rec_entry;

typedef struct atune__record {
    int n, cap;
    atune__rec_entry *e;
    int64_t dropped; /* servings of keys beyond ATUNE__RECORD_MAX_KEYS */
} atune__record;

void atune__record_free(atune__record *r);

/* Adds count servings of (gpu, kernel, size) served so: to its entry,
 * whose served becomes this one, or to a new entry. Returns the entry, or
 * NULL when the record holds ATUNE__RECORD_MAX_KEYS keys (the servings
 * go to dropped) or memory runs out. *added is set when the entry is new. */
atune__rec_entry *atune__record_add(atune__record *r, const char *gpu,
                                    const char *kernel, const char *size,
                                    atune__served served, int64_t count,
                                    int *added);

/* Checks what a record may hold: ATUNE__EUSAGE with the reason in err
 * for a GPU name with control characters or tabs, a kernel name not of
 * [A-Za-z0-9_.-], a size not "VAR=DECIMAL[,VAR=DECIMAL]" (at most 4
 * variables), or any of them too long or empty. */
int atune__record_check_key(const char *gpu, const char *kernel,
                            const char *size, atune__err *err);

/* Parses len bytes of record text read from path (for messages) into r
 * (empty first); no bytes at all are an empty record. ATUNE__EDATA "path:LINE: ..." for anything that is not
 * a record line as written, a key given twice, or more keys than the
 * bound. */
int atune__record_parse(const char *path, const char *text, size_t len,
                        atune__record *r, atune__err *err);

/* Reads the record at path, never through a symbolic link and only a
 * regular file: ATUNE__ENOINPUT when it does not exist (missing_ok: an
 * empty record instead), ATUNE__EDATA when it is malformed or over
 * ATUNE__RECORD_MAX_BYTES, ATUNE__EIO. */
int atune__record_read(const char *path, int missing_ok, atune__record *r,
                       atune__err *err);

/* Merges what entries of mine were counted since they were last merged
 * (count - flushed), and mine's dropped, into the file at path: under an
 * exclusive flock of <path>.lock, the file is read, the counts added,
 * and the result written to a temporary file renamed over path (mode
 * 0644 less the umask). On success every entry's flushed is its count and
 * mine->dropped is 0. The file is left as it was on any error (a
 * malformed file is never merged into: ATUNE__EDATA). */
int atune__record_merge(const char *path, atune__record *mine, atune__err *err);

#endif
