/* profile_impl.h -- what the pieces of libatune's profile reader share:
 * the layout of a handle and of its entries, the character classes, the
 * failure helpers and the problem-size parser. Private to tuner/lib (the
 * engine and the tools use profile_internal.h). */
#ifndef ATUNE_PROFILE_IMPL_H
#define ATUNE_PROFILE_IMPL_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "atune/atune.h"
#include "lib/inidoc.h"

#define MAX_VARS 8  /* variables of one problem size */
#define HASH_LEN 16 /* hex digits of template_hash */

/* One variable of a problem size. The name points into the text the size
 * was parsed from and is not NUL-terminated. */
typedef struct size_var {
    const char *name;
    size_t len;
    int64_t val;
    int pos; /* in the text: 0 for the first variable */
} size_var;

/* A problem size, its variables sorted by name so that two sizes compare
 * in one pass. */
typedef struct size_vars {
    int n;
    size_var v[MAX_VARS];
} size_vars;

typedef struct entry entry;

/* A configuration as a lookup returns it, immutable once returned, so that
 * threads may share a handle: an entry's exact view is part of it; every
 * distinct size that found it as the nearest one gets its own view (a
 * list the lookups extend without a lock). A configuration made by the
 * application (profile_override.c) owns its entry: match
 * ATUNE_SIZE_OVERRIDE. */
struct atune_config {
    const entry *e;
    atune_size_match match;
    int64_t wanted[MAX_VARS];  /* a nearest match: the size asked for */
    struct atune_config *next; /* the entry's other nearest views */
};

/* One [KERNEL SIZE] section. */
struct entry {
    struct atune_config exact;
    _Atomic(struct atune_config *) nearest;
    char *name; /* "copy\0n=268435456" */
    const char *kernel;
    const char *size;
    size_vars vars;
    double lg[MAX_VARS]; /* log2 of vars.val, at least 0 */
    double lgsum;
    int nparams;
    const char **pname; /* into the document */
    int64_t *pval;
    int64_t time_ns;
    int64_t default_time_ns;
    const char *hash;
    const atune__ini_section *sec; /* every key, for atune_config_meta */
    int line;
    /* Describing names this, not the profile the caller passes: a caller
     * may hold one profile and be served another's entry (libatune_jit
     * reads back the user's profile after measuring). NULL: an override. */
    const struct atune_profile *owner;
};

/* The tuned sizes of one kernel with one set of variables (a kernel
 * usually has one) are sorted[first .. first + count - 1]. */
typedef struct shape {
    int first;
    int count;
} shape;

/* The shapes of a kernel are shapes[first .. first + count - 1]. */
typedef struct kernel {
    const char *name;
    int first;
    int count;
} kernel;

struct atune_profile {
    char *path;
    int status; /* of the open */
    int dev_ok; /* dev was read, even if a later section is malformed */
    int format; /* [device] format: 1, or 2 with an end line */
    atune_device dev;
    atune_device_match match;
    atune_device wanted; /* the device of atune_profile_open_for */
    char *warning;       /* a better fit that was skipped, or NULL */
    unsigned long id;    /* tells handles apart in per-thread messages */
    atune__ini *doc;
    int nentries;
    entry *entries; /* file order */
    entry **sorted; /* by kernel, variables, then file order */
    int nshapes;
    shape *shapes;
    int nkernels;
    kernel *kernels;     /* by name */
    const char **pnames; /* parameter storage of all entries */
    int64_t *pvals;
    char errmsg[1024];
};

/* Locale-independent character classes: the host application may have
 * called setlocale(). */
static inline int is_digit(char c)
{
    return c >= '0' && c <= '9';
}

static inline int is_upper(char c)
{
    return c >= 'A' && c <= 'Z';
}

static inline int is_alpha(char c)
{
    return is_upper(c) || (c >= 'a' && c <= 'z');
}

static inline int is_ident(char c)
{
    return is_alpha(c) || is_digit(c) || c == '_';
}

static inline int is_blank(char c)
{
    return c == ' ' || c == '\t';
}

static inline int is_kernel_char(char c)
{
    return is_ident(c) || c == '-' || c == '.';
}

/* Stores the message of a failure on the handle and returns status. */
int atune__profile_fail(atune_profile *p, int status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Clears the handle's message and returns ATUNE_OK. */
int atune__profile_ok(atune_profile *p);

/* atune__profile_fail() for a lookup: the message goes to the calling
 * thread's record (atune_profile_errmsg reads it), not to the shared
 * handle. */
int atune__lookup_fail(const atune_profile *p, int status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Clears the calling thread's lookup message for p. */
void atune__lookup_ok(const atune_profile *p);

/* A handle for path with nothing read yet; NULL when memory runs out. */
atune_profile *atune__profile_new(const char *path);

/* The [device] section of the profile at path, read from the start of the
 * file only (a stray 16 MiB file is not read whole): ATUNE_OK with the
 * handle's dev and doc (that section only) set; otherwise the file must
 * be opened whole to tell (its [device] does not come first, or it is
 * malformed), or ATUNE_ENOMEM. *out as by atune_profile_open(). */
int atune__profile_peek(const char *path, atune_profile **out);

/* ---- numbers (number.c) ---- */

/* A whole decimal integer in [min, max]: NULL and *out set, or why not
 * (base/number.h's atune__parse_i64, which libatune may not use). */
/* profile_path.c: a file opened for reading without waiting on a FIFO;
 * NULL with errno set (EINVAL: a FIFO or socket). */
FILE *atune__lib_open_regular(const char *path);

const char *atune__lib_parse_i64(const char *s, int64_t min, int64_t max,
                                 int64_t *out);

/* ---- problem sizes (profile_size.c) ---- */

/* Parses "m=4096,n=4096,k=4096" into v. loose allows blanks around every
 * token (queries); profiles are written without. Returns NULL, or why the
 * text is not a size. Allocates nothing: lookups call it. */
const char *atune__size_parse(const char *s, int loose, size_vars *v);

/* Orders sets of variable names (not their values). */
int atune__size_vars_cmp(const size_vars *a, const size_vars *b);

/* The values of two sizes of the same variables are equal. */
int atune__size_same_values(const size_vars *a, const size_vars *b);

/* log2 of a size value, 0 for 0 and 1. */
double atune__size_log2(int64_t v);

/* Splits a "KERNEL SIZE" section name into buf ("KERNEL\0SIZE") and v,
 * whose names point into buf. Returns NULL or why it is not one. */
const char *atune__section_split(const char *name, char *buf, size_t len,
                                 size_vars *v);

/* ---- the profile search path (profile_path.c) ---- */

/* The directories searched when no directory is given, in order: each of
 * $ATUNE_PROFILE_PATH, the user's, the system's. *dirs (n strings, one
 * allocation: free(*dirs)) or ATUNE_ENOMEM. */
int atune__profile_dirs(char ***dirs, int *n);

/* ---- choosing a profile (profile_select.c) ---- */

/* atune_profile_open_for() over the n directories dirs; missing ones are
 * skipped when skip_missing. */
int atune__profile_open_dirs(char *const *dirs, int n, int skip_missing,
                             const atune_device *dev, atune_profile **out);

#endif
