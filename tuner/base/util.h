/* util.h -- error values, strings and hashing shared by the tuner's
 * subsystems. Everything here is internal (prefix atune__).
 */
#ifndef ATUNE_UTIL_H
#define ATUNE_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Error codes double as the CLI's exit codes (sysexits.h), so an error can
 * travel from the deepest subsystem to main() without translation. */
enum {
    ATUNE__OK = 0,
    ATUNE__EUSAGE = 64,     /* bad command line */
    ATUNE__EDATA = 65,      /* bad template, profile or journal content */
    ATUNE__ENOINPUT = 66,   /* input file missing or unreadable */
    ATUNE__EUNAVAIL = 69,   /* no driver, no device */
    ATUNE__ESOFTWARE = 70,  /* internal error, sticky CUDA error */
    ATUNE__EOSERR = 71,     /* out of memory, other OS failure */
    ATUNE__ECANTCREAT = 73, /* cannot write an output file */
    ATUNE__EIO = 74,        /* read or write failed */
    ATUNE__ERESTART = 75,   /* sticky CUDA error: this process's context is
                               lost; a new worker process goes on */
    ATUNE__EINTR = 130      /* interrupted by SIGINT */
};

/* The error value threaded through every fallible internal call. The
 * callee fills msg with a complete, human message ("copy.ini:12: ...")
 * and returns the code; callers add context with atune__err_prefix. */
typedef struct atune__err {
    int code;
    char msg[4096];
} atune__err;

/* Formats msg, stores code and returns it, so callers write
 * `return atune__fail(err, ATUNE__EDATA, "%s:%d: ...", file, line);`.
 * err may be NULL. */
int atune__fail(atune__err *err, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Prepends formatted context to an existing message ("kernel copy: "). */
void atune__err_prefix(atune__err *err, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Appends formatted text (a hint: what to do) to the message. The text is
 * kept whole (up to 1 KiB): a message too long for both is cut before it,
 * where a compiler's log would otherwise have pushed the hint out. */
void atune__err_suffix(atune__err *err, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

void atune__err_clear(atune__err *err);

/* Allocation that cannot silently fail: returns NULL only when the
 * system is out of memory; callers still check. */
void *atune__calloc(size_t n, size_t size);
char *atune__strdup(const char *s);
char *atune__strndup(const char *s, size_t n);

/* snprintf into a fixed buffer; returns 0 when it fit, -1 if truncated. */
int atune__strlcpy(char *dst, const char *src, size_t size);

/* The largest template or journal read (atune__read_file): 256 MiB, or
 * $ATUNE_MAX_INPUT_MB. Profiles have their own (lib/profile.c). */
#define ATUNE__INPUT_LIMIT_MB 256
int atune__input_limit(size_t *bytes, atune__err *err);

/* The environment variable name as a whole number in [min, max]: unset
 * or empty gives def; anything else that is not such a number is
 * ATUNE__EUSAGE with a message naming the variable, its value and what
 * it takes (what: "whole MiB, 0 for no limit"). */
int atune__env_i64(const char *name, int64_t min, int64_t max, int64_t def,
                   const char *what, int64_t *out, atune__err *err);


/* Reads a whole text file into a NUL-terminated heap buffer. A directory
 * is ATUNE__ENOINPUT; a file over atune__input_limit() or holding a NUL
 * byte is ATUNE__EDATA (the NUL with its path:line). */
int atune__read_file(const char *path, char **out, size_t *len,
                     atune__err *err);

/* Reads or writes exactly len bytes, going on after EINTR and short
 * transfers; -1 on an error or an early end of file. */
int atune__read_full(int fd, void *buf, size_t len);
int atune__write_full(int fd, const void *buf, size_t len);

/* Today in UTC: "2026-11-22", or with_time "2026-11-22T03:00:00Z". */
void atune__utc_date(char *buf, size_t len, int with_time);

/* 64-bit FNV-1a, used for template source hashes and cache keys. */
uint64_t atune__fnv1a(const void *data, size_t len, uint64_t seed);
#define ATUNE__FNV_SEED 0xcbf29ce484222325ULL

/* Monotonic clock in seconds. */
double atune__now(void);

/* Trims leading and trailing white space in place; returns s. */
char *atune__trim(char *s);

#endif
