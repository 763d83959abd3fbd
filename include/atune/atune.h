/* atune.h -- load the tuned launch configurations that `autotune` saved for
 * a GPU, and ask for the configuration of a kernel at a problem size.
 *
 * Pure C and inih: opening and querying profiles needs no CUDA driver and
 * no GPU. Every fallible call returns an atune status (ATUNE_OK is 0);
 * atune_strerror() names a status and atune_profile_errmsg() gives the
 * detailed message, with file and line, of the last failure on a handle.
 * No function calls exit() or abort().
 *
 * Threads: an open handle may be shared. Lookups and every read-only
 * call may run at the same time on one handle; what a lookup returns is
 * never changed by a later one; a failed lookup's message is kept per
 * thread. Opening and closing are not concurrent with anything on that
 * handle. A configuration made with atune_config_new() belongs to its
 * maker: share it only once it is no longer changed.
 *
 *     atune_device dev = { "NVIDIA H100 80GB HBM3", 90, 132, "" };
 *     atune_profile *p;
 *     int rc = atune_profile_open_for(NULL, &dev, &p); // the search path
 *     const atune_config *c;
 *     if (rc == ATUNE_OK &&
 *         atune_profile_lookup(p, "copy", "n=1000000", &c) == ATUNE_OK)
 *         block = atune_config_get(c, "BLOCK_SIZE", 128);
 *     atune_profile_close(p);
 */
#ifndef ATUNE_ATUNE_H
#define ATUNE_ATUNE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__) && __GNUC__ >= 4
#define ATUNE_API __attribute__((visibility("default")))
#else
#define ATUNE_API
#endif

/* Versions and the ABI: before 1.0 a minor release may change the ABI,
 * so the shared library's SONAME is libatune.so.MAJOR.MINOR (0.1) and
 * find_package(autotune 0.1) accepts 0.1.x only; from 1.0 on the SONAME
 * is libatune.so.MAJOR and any 1.x is accepted. */
#define ATUNE_VERSION_MAJOR 0
#define ATUNE_VERSION_MINOR 1
#define ATUNE_VERSION_PATCH 0
#define ATUNE_VERSION_NUMBER                                                   \
    (ATUNE_VERSION_MAJOR * 10000 + ATUNE_VERSION_MINOR * 100 +                 \
     ATUNE_VERSION_PATCH)
/* The profile format this library writes; it reads formats 1 to this.
 * Format 2 ends with the line ATUNE_PROFILE_END, so that a file cut off
 * (a full disk, a copy interrupted) is an error and not a smaller result;
 * format 1 has no end line and is read as it is. */
#define ATUNE_PROFILE_FORMAT 2
#define ATUNE_PROFILE_END "; end of profile"

/* Run-time version, to check that header and library agree. */
ATUNE_API int atune_version_number(void);

/* Status codes: one list generates the enum and atune_strerror(). */
#define ATUNE_STATUS_MAP(XX)                                                   \
    XX(OK, "not an error")                                                     \
    XX(EINVAL, "invalid argument")                                             \
    XX(ENOMEM, "out of memory")                                                \
    XX(EIO, "cannot open or read file")                                        \
    XX(EPARSE, "malformed profile")                                            \
    XX(EFORMAT, "unsupported profile format version")                          \
    XX(ENOTFOUND, "no matching profile or entry")

typedef enum atune_status {
#define ATUNE_XX(code, msg) ATUNE_##code,
    ATUNE_STATUS_MAP(ATUNE_XX)
#undef ATUNE_XX
} atune_status;

/* A short English description of a status; never NULL. */
ATUNE_API const char *atune_strerror(int status);

/* The identity of a GPU, as the tuner recorded it in [device]. Fill it by
 * hand, or from a CUdevice with atune_device_from_cu() in atune_cuda.h. */
typedef struct atune_device {
    char name[256]; /* "NVIDIA H100 80GB HBM3" */
    int cc;         /* compute capability as 10 * major + minor: 90 */
    int sm_count;   /* multiprocessors */
    char uuid[64];  /* "GPU-..." or "" when unknown */
} atune_device;

/* How a profile was chosen for a device (atune_profile_open_for). */
typedef enum atune_device_match {
    ATUNE_DEVICE_EXACT = 0, /* same name, compute capability and SMs */
    ATUNE_DEVICE_NAME,      /* same name, other SM count */
    ATUNE_DEVICE_CC,        /* another GPU of the same compute capability */
    ATUNE_DEVICE_FILE       /* opened by path: no device was matched */
} atune_device_match;

/* How a configuration was chosen for a size (atune_profile_lookup). */
typedef enum atune_size_match {
    ATUNE_SIZE_EXACT = 0, /* the size was tuned */
    ATUNE_SIZE_NEAREST,   /* nearest tuned size on a log scale */
    ATUNE_SIZE_OVERRIDE   /* made by the application: atune_config_new() */
} atune_size_match;

typedef struct atune_profile atune_profile;
typedef struct atune_config atune_config; /* owned by its profile */

/* Opens one profile file. *out is set even on failure (except when memory
 * runs out, then it is NULL), so that atune_profile_errmsg() can tell what
 * went wrong; always pair with atune_profile_close(). Returns ATUNE_OK;
 * ATUNE_EINVAL (NULL argument); ATUNE_EIO (cannot open or read);
 * ATUNE_EPARSE (malformed: the message has "file:line" where a line
 * applies; a format 2 file without its end line is cut off: "truncated");
 * ATUNE_EFORMAT (a format version above ATUNE_PROFILE_FORMAT);
 * ATUNE_ENOMEM. Files over 16 MiB are ATUNE_EPARSE. */
ATUNE_API int atune_profile_open(const char *path, atune_profile **out);

/* atune_profile_open() on len bytes of profile text in memory (need not
 * be NUL-terminated; a NUL byte inside is an error), e.g. a profile built
 * into the application. name is used in messages and returned by
 * atune_profile_path(). Same statuses. */
ATUNE_API int atune_profile_open_string(const char *name, const char *text,
                                        size_t len, atune_profile **out);

/* Opens the profile in dir (regular files *.ini) that best fits dev: same
 * name, compute capability and SM count; else same name; else the same
 * compute capability (the closest SM count wins, then the file autotune
 * writes for that GPU, <slug>.ini of its [device] slug, then the file
 * name). Each file's [device] is read first, from the start of the file:
 * only files that may fit are read whole.
 * dir NULL searches the profile search path (atune_profile_search_path):
 * every directory of it that exists, the best fit over all of them, an
 * earlier directory winning a tie. Returns ATUNE_ENOTFOUND when no profile
 * fits: the caller then uses the template's defaults. A malformed file is
 * never skipped silently: when a good file is chosen over a malformed one
 * that would have fitted better, atune_profile_warning() says so (and
 * atune_config_describe repeats it); when no good file fits, the malformed
 * one's error (status and message) is returned if it may fit (its
 * [device] fits, or cannot be read). ATUNE_EIO when dir cannot be read (a
 * missing directory of the search path is skipped). *out is set as by
 * atune_profile_open(). */
ATUNE_API int atune_profile_open_for(const char *dir, const atune_device *dev,
                                     atune_profile **out);

/* The profile search path, the directories separated by ':', in order:
 * each directory of $ATUNE_PROFILE_PATH (':'-separated); the user's,
 * $XDG_DATA_HOME/autotune/profiles, or ~/.local/share/autotune/profiles
 * when XDG_DATA_HOME is unset or relative; the system's: DATADIR/autotune/
 * profiles of the prefix the shared library is installed in, then of the
 * prefix it was configured for. Truncated to len bytes like snprintf.
 * ATUNE_EINVAL for a NULL buf or len 0; ATUNE_ENOMEM. */
ATUNE_API int atune_profile_search_path(char *buf, size_t len);

/* Frees p and every configuration it returned. NULL-tolerant. */
ATUNE_API void atune_profile_close(atune_profile *p);

/* The message of the last failure on p ("h100.ini:12: bad integer 'x' for
 * 'time_ns'"), or "" when the last call succeeded; "out of memory" for a
 * NULL p. Never NULL. */
ATUNE_API const char *atune_profile_errmsg(const atune_profile *p);

/* Problems found while choosing p that did not stop it from opening,
 * joined by "; ": "skipped a malformed profile for this exact GPU:
 * h100.ini:12: ...", "1 other file describes this exact GPU as well
 * (dir/h100-old.ini); chose ..." (files of one directory), or "" (also
 * for NULL). Never NULL. */
ATUNE_API const char *atune_profile_warning(const atune_profile *p);

/* The file the profile was read from ("" for NULL); when no file could be
 * chosen, the directories searched. */
ATUNE_API const char *atune_profile_path(const atune_profile *p);

/* The [device] the profile was tuned on (NULL for NULL). */
ATUNE_API const atune_device *atune_profile_device(const atune_profile *p);

/* How the profile was chosen for the device: ATUNE_DEVICE_FILE when it was
 * opened by path (or p is NULL). */
ATUNE_API atune_device_match atune_profile_device_match(const atune_profile *p);

/* The device atune_profile_open_for() chose p for (another GPU model than
 * p's [device] when it was chosen by compute capability); NULL for a
 * profile opened by path, or NULL. */
ATUNE_API const atune_device *atune_profile_wanted(const atune_profile *p);

/* Finds the configuration of kernel at size, a problem size written as in
 * the profile's section names: "n=1048576" or "m=4096,n=4096,k=4096"
 * (variables in any order, optional spaces). The exact size wins; else the
 * tuned size of that kernel with the same variables and the smallest sum
 * of |log2(tuned) - log2(wanted)| over the variables; a tie goes to the
 * larger tuned size (product of its variables), then to the first in the
 * file. A value 0 is looked up as 1 (an empty problem gets the
 * configuration of the smallest; it is the application's to skip the
 * launch: atune_jit_shape refuses a grid of 0 blocks). ATUNE_ENOTFOUND
 * when the kernel has no entry with those variables, ATUNE_EINVAL for a
 * malformed size or a profile that did not open, ATUNE_ENOMEM. The
 * configuration stays valid, unchanged, until the profile is closed; the
 * same size returns the same pointer. Safe to call from several threads
 * on one handle. Allocates only the first time a size that was not tuned
 * is asked for (under 150 bytes, kept until close). */
ATUNE_API int atune_profile_lookup(atune_profile *p, const char *kernel,
                                   const char *size, const atune_config **out);

/* The number of configurations of the profile (0 for NULL or a profile
 * that did not open). */
ATUNE_API int atune_profile_count(const atune_profile *p);
/* Configuration i (0 <= i < count) in file order, as an exact match;
 * NULL out of range. */
ATUNE_API const atune_config *atune_profile_entry(const atune_profile *p,
                                                  int i);

/* The number of parameters of a configuration (0 for NULL). */
ATUNE_API int atune_config_count(const atune_config *c);
/* Parameter i's name, in the order the profile lists them (keys
 * [A-Z][A-Z0-9_]*); NULL out of range. */
ATUNE_API const char *atune_config_name(const atune_config *c, int i);
/* Parameter i's value; 0 out of range. */
ATUNE_API int64_t atune_config_value(const atune_config *c, int i);

/* The value of param, or dflt when the configuration has none. */
ATUNE_API int64_t atune_config_get(const atune_config *c, const char *param,
                                   int64_t dflt);

/* The kernel the configuration is for ("" for NULL, or an override made
 * without one). */
ATUNE_API const char *atune_config_kernel(const atune_config *c);
/* The tuned size the configuration belongs to: "n=268435456" ("" for an
 * override). */
ATUNE_API const char *atune_config_size(const atune_config *c);
/* How the configuration was found (ATUNE_SIZE_EXACT for NULL). */
ATUNE_API atune_size_match atune_config_size_match(const atune_config *c);
/* Median time of one launch at the tuned size; 0 when not recorded. */
ATUNE_API int64_t atune_config_time_ns(const atune_config *c);
/* Median time of the template's default configuration at the tuned size;
 * 0 when not recorded. */
ATUNE_API int64_t atune_config_default_time_ns(const atune_config *c);
/* Hash of the template (.cu and .ini) the configuration was tuned with, as
 * 16 hex digits; compare with the application's copy to detect a stale
 * profile. "" when not recorded. */
ATUNE_API const char *atune_config_template_hash(const atune_config *c);

/* The raw text of any key of the configuration's section ("metric",
 * "strategy", "evaluated", ...), or NULL when absent. For display only. */
ATUNE_API const char *atune_config_meta(const atune_config *c, const char *key);

/* One line describing the match, for logs: "copy n=1000000: using tuned
 * size n=1048576 (nearest) between n=741455 and n=1048576 from profile
 * 'NVIDIA H100 80GB HBM3' (same compute capability as 'NVIDIA H800') in
 * 'profiles/h100.ini'", followed by "; warning: " and
 * atune_profile_warning() when there is one. A nearest match names the
 * tuned sizes around the wanted one (the nearest with every variable at
 * most, and at least, the wanted value), or says "below every tuned size"
 * / "above every tuned size" beyond the ends of what was tuned. An entry
 * that libatune_jit measured at first use (ATUNE_EFFORT=measure) adds
 * "; measured at first use: measure: 5 configurations compiled ...".
 * The wanted size is the one the lookup that returned c was asked. The
 * profile named is the one c belongs to, also when p is another (or
 * NULL): atune_jit_config_for() may serve an entry of the user's profile
 * that it wrote and read back at first use. For an override (p may be
 * NULL): "copy: using the application's configuration BLOCK_SIZE=128,VW=4".
 * Truncated to len bytes like snprintf; ATUNE_EINVAL for a NULL c or buf,
 * or len 0. */
ATUNE_API int atune_config_describe(const atune_profile *p,
                                    const atune_config *c, char *buf,
                                    size_t len);

/* ---- configurations made by the application (overrides) ----
 * Usable wherever a looked-up configuration is (atune_config_get,
 * atune_jit_build, ...); libatune_jit checks them against the template:
 * atune_jit_stale() reports unknown or missing parameters and another
 * kernel's name, atune_jit_shape() the template's constraints and the
 * device's limits. Free with atune_config_free(). */

/* Makes a configuration for kernel (NULL: base's kernel, else none) with a
 * copy of base's parameters (base NULL: none), to change with
 * atune_config_set(). ATUNE_EINVAL (out NULL, or kernel not made of
 * letters, digits, '_', '-' and '.'); ATUNE_ENOMEM. */
ATUNE_API int atune_config_new(const char *kernel, const atune_config *base,
                               atune_config **out);

/* Sets param ([A-Z][A-Z0-9_]*) to value in a configuration made by
 * atune_config_new(), adding it when new. ATUNE_EINVAL for any other
 * configuration or a bad name; ATUNE_ENOMEM. */
ATUNE_API int atune_config_set(atune_config *c, const char *param,
                               int64_t value);

/* Makes a configuration from "BLOCK_SIZE=128,VW=4" (blanks allowed around
 * every token; "" gives an empty configuration: the template's
 * defaults). ATUNE_EINVAL with the reason and column in msg (msglen bytes;
 * msg may be NULL) for malformed text or a parameter given twice;
 * ATUNE_ENOMEM. *out is NULL on failure. */
ATUNE_API int atune_config_from_string(const char *kernel, const char *text,
                                       atune_config **out, char *msg,
                                       size_t msglen);

/* Frees a configuration made by atune_config_new() or
 * atune_config_from_string(); does nothing for NULL or a configuration
 * that belongs to a profile. */
ATUNE_API void atune_config_free(atune_config *c);

#ifdef __cplusplus
}
#endif

#endif
