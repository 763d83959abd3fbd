/* util.c -- error values, strings, files and hashing for the tuner. */
#include "base/util.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/number.h"

int atune__fail(atune__err *err, int code, const char *fmt, ...)
{
    va_list ap;

    if (!err)
        return code;
    err->code = code;
    va_start(ap, fmt);
    vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
    va_end(ap);
    return code;
}

void atune__err_prefix(atune__err *err, const char *fmt, ...)
{
    char head[1024];
    char tail[sizeof(err->msg)];
    va_list ap;

    if (!err)
        return;
    va_start(ap, fmt);
    vsnprintf(head, sizeof(head), fmt, ap);
    va_end(ap);
    memcpy(tail, err->msg, sizeof(tail));
    /* A message cut at the end is still the message: no snprintf, whose
     * truncation gcc warns about. */
    size_t hl = strlen(head), tl = strlen(tail);
    if (hl >= sizeof(err->msg))
        hl = sizeof(err->msg) - 1;
    if (hl + tl >= sizeof(err->msg))
        tl = sizeof(err->msg) - 1 - hl;
    memcpy(err->msg, head, hl);
    memcpy(err->msg + hl, tail, tl);
    err->msg[hl + tl] = '\0';
}

void atune__err_suffix(atune__err *err, const char *fmt, ...)
{
    static const char cut[] = "\n[...]\n";
    char tail[1024];
    size_t ml, tl;
    va_list ap;

    if (!err)
        return;
    va_start(ap, fmt);
    vsnprintf(tail, sizeof(tail), fmt, ap);
    va_end(ap);
    ml = strlen(err->msg);
    tl = strlen(tail);
    if (ml + tl >= sizeof(err->msg)) {
        ml = sizeof(err->msg) - 1 - tl - (sizeof(cut) - 1);
        memcpy(err->msg + ml, cut, sizeof(cut) - 1);
        ml += sizeof(cut) - 1;
    }
    memcpy(err->msg + ml, tail, tl + 1);
}

void atune__err_clear(atune__err *err)
{
    if (!err)
        return;
    err->code = 0;
    err->msg[0] = '\0';
}

void *atune__calloc(size_t n, size_t size)
{
    return calloc(n ? n : 1, size ? size : 1);
}

char *atune__strdup(const char *s)
{
    return atune__strndup(s, strlen(s));
}

char *atune__strndup(const char *s, size_t n)
{
    char *p = malloc(n + 1);

    if (!p)
        return NULL;
    memcpy(p, s, n);
    p[n] = '\0';
    return p;
}

int atune__strlcpy(char *dst, const char *src, size_t size)
{
    size_t len = strlen(src);

    if (size == 0)
        return -1;
    if (len >= size) {
        memcpy(dst, src, size - 1);
        dst[size - 1] = '\0';
        return -1;
    }
    memcpy(dst, src, len + 1);
    return 0;
}

int atune__env_i64(const char *name, int64_t min, int64_t max, int64_t def,
                   const char *what, int64_t *out, atune__err *err)
{
    const char *v = getenv(name);
    const char *why;

    *out = def;
    if (!v || !*v)
        return 0;
    if ((why = atune__parse_i64(v, min, max, out)) != NULL)
        return atune__fail(err, ATUNE__EUSAGE,
                           "%s: invalid value '%s': %s (%s, %" PRId64
                           " to %" PRId64 ")",
                           name, v, why, what, min, max);
    return 0;
}

int atune__input_limit(size_t *bytes, atune__err *err)
{
    int64_t mb;
    int rc = atune__env_i64("ATUNE_MAX_INPUT_MB", 1, (int64_t)(SIZE_MAX >> 21),
                            ATUNE__INPUT_LIMIT_MB, "whole MiB", &mb, err);

    *bytes = (size_t)mb << 20;
    return rc;
}

/* A NUL byte would silently end the text for every parser after it. */
static int no_nul(const char *path, const char *buf, size_t n,
                  atune__err *err)
{
    const char *nul = memchr(buf, '\0', n);
    int line = 1;

    if (!nul)
        return 0;
    for (const char *p = buf; p < nul; p++)
        line += *p == '\n';
    return atune__fail(err, ATUNE__EDATA,
                       "%s:%d: NUL byte (not a text file, or damaged)", path,
                       line);
}

int atune__read_file(const char *path, char **out, size_t *len,
                     atune__err *err)
{
    int fd;
    FILE *f = NULL;
    char *buf = NULL;
    size_t cap = 0, n = 0, limit;
    struct stat st;
    int rc = ATUNE__OK;

    *out = NULL;
    if ((rc = atune__input_limit(&limit, err)) != 0)
        return rc;
    /* Not blocking on open: a FIFO planted in a template or profile
     * directory would wait for a writer forever. */
    if ((fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)) < 0)
        return atune__fail(err, ATUNE__ENOINPUT, "cannot open '%s': %s",
                           path, strerror(errno));
    /* A device is read (up to the input limit). */
    if (fstat(fd, &st) == 0 && (S_ISDIR(st.st_mode) || S_ISFIFO(st.st_mode) ||
                                S_ISSOCK(st.st_mode))) {
        close(fd);
        return atune__fail(err, ATUNE__ENOINPUT,
                           S_ISDIR(st.st_mode)
                               ? "cannot read '%s': a directory, not a file"
                               : "cannot read '%s': a FIFO or socket, not a "
                                 "regular file",
                           path);
    }
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
    if (!(f = fdopen(fd, "rb"))) {
        close(fd);
        return atune__fail(err, ATUNE__EOSERR, "cannot read '%s': %s", path,
                           strerror(errno));
    }
    for (;;) {
        if (n + 4096 + 1 > cap) {
            size_t ncap = cap ? cap * 2 : 16384;
            char *nbuf = realloc(buf, ncap);
            if (!nbuf) {
                rc = atune__fail(err, ATUNE__EOSERR, "out of memory");
                goto out;
            }
            buf = nbuf;
            cap = ncap;
        }
        size_t got = fread(buf + n, 1, cap - n - 1, f);
        n += got;
        if (got == 0)
            break;
        if (n > limit) {
            rc = atune__fail(err, ATUNE__EDATA,
                             "'%s' is larger than %zu MiB (the limit of "
                             "inputs; ATUNE_MAX_INPUT_MB raises it)",
                             path, limit >> 20);
            goto out;
        }
    }
    if (ferror(f)) {
        rc = atune__fail(err, ATUNE__EIO, "cannot read '%s': %s", path,
                         strerror(errno));
        goto out;
    }
    if ((rc = no_nul(path, buf, n, err)))
        goto out;
    buf[n] = '\0';
    *out = buf;
    buf = NULL;
    if (len)
        *len = n;
out:
    free(buf);
    fclose(f);
    return rc;
}

uint64_t atune__fnv1a(const void *data, size_t len, uint64_t seed)
{
    const unsigned char *p = data;
    uint64_t h = seed;

    for (size_t i = 0; i < len; i++) {
        h ^= p[i];
        h *= 0x100000001b3ULL;
    }
    return h;
}

double atune__now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

char *atune__trim(char *s)
{
    char *end;

    while (*s == ' ' || *s == '\t' || *s == '\r' || *s == '\n')
        s++;
    end = s + strlen(s);
    while (end > s && (end[-1] == ' ' || end[-1] == '\t' ||
                       end[-1] == '\r' || end[-1] == '\n'))
        *--end = '\0';
    return s;
}

int atune__read_full(int fd, void *buf, size_t len)
{
    char *p = buf;

    while (len > 0) {
        ssize_t got = read(fd, p, len);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0)
            return -1;
        p += got;
        len -= (size_t)got;
    }
    return 0;
}

int atune__write_full(int fd, const void *buf, size_t len)
{
    const char *p = buf;

    while (len > 0) {
        ssize_t put = write(fd, p, len);
        if (put < 0 && errno == EINTR)
            continue;
        if (put <= 0)
            return -1;
        p += put;
        len -= (size_t)put;
    }
    return 0;
}

void atune__utc_date(char *buf, size_t len, int with_time)
{
    time_t now = time(NULL);
    struct tm tm;

    gmtime_r(&now, &tm);
    strftime(buf, len, with_time ? "%Y-%m-%dT%H:%M:%SZ" : "%Y-%m-%d", &tm);
}
