/* profile_write.h -- writing profiles/<slug>.ini: merge new results into the
 * existing file and replace it atomically (temp file, fsync, rename), under
 * an exclusive lock on <path>.lock so that concurrent tuners never lose each
 * other's sections. */
#ifndef ATUNE_PROFILE_WRITE_H
#define ATUNE_PROFILE_WRITE_H

#include <stdint.h>

#include "base/util.h"

#define ATUNE__PW_MAX_PARAMS 16
#define ATUNE__PW_MAX_EXTRA 8

/* The [device] section. */
typedef struct atune__pw_device {
    char name[256];
    char slug[128];
    int cc;
    int sm_count;
    int64_t mem_bandwidth_gbs; /* theoretical, from clock and bus width */
    int64_t l2_bytes;
    int driver;     /* cuDriverGetVersion: 13000 */
    int nvrtc;      /* 1000 * major + 10 * minor: 13000 */
    char uuid[64];  /* "GPU-xxxxxxxx-..." */
    char date[32];  /* "2026-11-22" (UTC) */
    char tuner[32]; /* autotune version */
} atune__pw_device;

/* One [kernel size] section. */
typedef struct atune__pw_entry {
    char kernel[48];
    char size_key[96]; /* "n=268435456" or "m=4096,n=4096,k=4096" */
    char size_name[48];
    int nparams;
    char param[ATUNE__PW_MAX_PARAMS][48];
    int64_t value[ATUNE__PW_MAX_PARAMS];
    int64_t time_ns;
    int64_t spread_ns;
    double metric;           /* written with 1 decimal, for people */
    char metric_unit[16];    /* "GB/s" or "GFLOP/s" */
    int64_t default_time_ns; /* 0 when the default was not valid */
    int64_t evaluated;
    int64_t space;
    char strategy[32];
    char template_hash[17];
    /* Keys beyond the tuner's own (lower case, e.g. port.<slug>.time_ns,
     * vendor_time_ns). A rewritten section keeps the extra keys it had
     * unless the entry sets them: they are other runs' measurements. */
    int nextra;
    char extra_key[ATUNE__PW_MAX_EXTRA][64];
    char extra_value[ATUNE__PW_MAX_EXTRA][128];
    /* Only set the extra keys of the existing section; every other field
     * is ignored. The section must exist. */
    int extras_only;
} atune__pw_entry;

/* Writes entries into the profile at path: the [device] section is
 * replaced by dev, a section of the same kernel and size (variables in any
 * order) is replaced in place, new ones are appended in the order given,
 * and every other section is kept with its entries, in its order (comments
 * are not kept: sections are re-emitted from the parsed entries).
 *
 * Returns ATUNE__OK or:
 *   ATUNE__EDATA      an entry or dev would break the format's limits (lines
 *                     over 199 bytes, names over 48, bad names or values), or
 *                     the existing file does not parse (the message has
 *                     file:line) or belongs to another device name; the file
 *                     is not touched;
 *   ATUNE__ENOINPUT   the existing file cannot be read;
 *   ATUNE__ECANTCREAT the lock or temp file cannot be created, or the
 *                     rename fails;
 *   ATUNE__EIO        writing or syncing failed (after the rename only the
 *                     directory sync can fail: the new file is in place);
 *   ATUNE__EOSERR     out of memory.
 * On any failure before the rename the old file is intact and no temp file
 * (<path>.tmp.RANDOM) is left. <path>.lock is created and kept.
 *
 * A path that is a symbolic link of this user's (or root's) is written
 * through: the file it names is replaced atomically (its lock and temp
 * file beside it), the link stays. A link of another user's, a FIFO, a
 * device, a directory, or a link or special file at <path>.lock is
 * refused (ATUNE__ECANTCREAT): base/outfile.h. */
int atune__profile_update(const char *path, const atune__pw_device *dev,
                          const atune__pw_entry *entries, int n,
                          atune__err *err);

/* What a writer saw of one section when it decided what to write: whether
 * the section was there and its run key ("" when it has none). */
typedef struct atune__pw_seen {
    int present;
    char run[64];
} atune__pw_seen;

/* atune__profile_update of one entry, made only if its section is still
 * as seen (compare and swap, under the profile's lock): a tuner of another
 * GPU of the same model (--device all, a second job) may have written it
 * after this one read it. Then *changed is set, nothing is written and 0
 * is returned: read the section again, decide again, retry. */
int atune__profile_update_if(const char *path, const atune__pw_device *dev,
                             const atune__pw_entry *entry,
                             const atune__pw_seen *seen, int *changed,
                             atune__err *err);

/* atune__profile_update_if, where a profile that does not exist yet at
 * path starts as the profile at base (NULL: empty) with entry merged in:
 * the first entry that first use writes into the user's directory keeps
 * the profile it was served from, which the new file shadows. */
int atune__profile_update_based(const char *path, const char *base,
                                const atune__pw_device *dev,
                                const atune__pw_entry *entry,
                                const atune__pw_seen *seen, int *changed,
                                atune__err *err);

/* What atune__profile_update would find wrong before tuning starts: the
 * lock file, the existing profile (parse, device name) and a temp file
 * beside it. Same codes; nothing is changed (but the lock file). */
int atune__profile_check(const char *path, const atune__pw_device *dev,
                         atune__err *err);

/* Sets key = value among e's extra keys (replacing an earlier value);
 * -1 when they are full or key or value too long. */
int atune__pw_extra(atune__pw_entry *e, const char *key, const char *value);

/* Section name of an entry: "copy n=268435456" (truncated to len). */
void atune__pw_section(const char *kernel, const char *size_key, char *buf,
                       size_t len);

/* Lower-case [a-z0-9-] slug of a device name: "nvidia-h100-80gb-hbm3".
 * ASCII letters and digits are kept (lower-cased), every run of other
 * bytes becomes one '-', and there is no '-' at either end, even when the
 * slug is truncated to fit len. */
void atune__slugify(const char *name, char *buf, size_t len);

/* ---- the file (profile_file.c), shared by every writer ---- */

/* Where the profile at path is written: path, or the file that the
 * user's own (or root's) symbolic link names (docs/safety.md, "A profile
 * that is a symbolic link"); *real is a heap string. Lock, read and
 * replace *real, so that its lock and temp file lie beside it. A link of
 * another user, a FIFO, device or directory: ATUNE__ECANTCREAT. */
int atune__profile_resolve(const char *path, char **real, atune__err *err);

/* An exclusive flock on <path>.lock (created and kept), held until *fd is
 * closed; *fd is -1 on failure. A link or special file at the lock's name
 * is refused. ATUNE__ECANTCREAT, ATUNE__EIO, ATUNE__EOSERR. */
int atune__profile_lock(const char *path, int *fd, atune__err *err);

/* Replaces the profile at path by len bytes of buf: parsed first as
 * applications will (ATUNE__EDATA when it would not read back), written to
 * <path>.tmp.RANDOM, synced and renamed over path, then the directory is
 * synced. On failure before the rename path is as it was and no temp file
 * is left. Call it holding the lock. */
int atune__profile_replace(const char *path, const char *buf, size_t len,
                           atune__err *err);

#endif
