/* record.c -- the record file: parsing and checking it (it is untrusted
 * input: anyone who can write it may), and merging a process's counts
 * into it under a lock, replacing it atomically so that a reader never
 * sees half a file and no two writers lose each other's counts. */
#include "jit/record.h"

#include "base/outfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define LINE_MAX_BYTES 1024

static const char *const served_names[ATUNE__SERVED_COUNT] = {
    "no-profile", "defaults", "nearest", "fallback", "other-gpu"};

const char *atune__served_name(atune__served s)
{
    return s >= 0 && s < ATUNE__SERVED_COUNT ? served_names[s] : "?";
}

static int served_parse(const char *s, atune__served *out)
{
    for (int i = 0; i < ATUNE__SERVED_COUNT; i++)
        if (strcmp(s, served_names[i]) == 0) {
            *out = (atune__served)i;
            return 0;
        }
    return -1;
}

void atune__record_free(atune__record *r)
{
    free(r->e);
    memset(r, 0, sizeof(*r));
}

static atune__rec_entry *find(atune__record *r, const char *gpu,
                              const char *kernel, const char *size)
{
    for (int i = 0; i < r->n; i++) {
        atune__rec_entry *e = &r->e[i];
        if (strcmp(e->size, size) == 0 && strcmp(e->kernel, kernel) == 0 &&
            strcmp(e->gpu, gpu) == 0)
            return e;
    }
    return NULL;
}

static int64_t sat_add(int64_t a, int64_t b)
{
    return a > INT64_MAX - b ? INT64_MAX : a + b;
}

atune__rec_entry *atune__record_add(atune__record *r, const char *gpu,
                                    const char *kernel, const char *size,
                                    atune__served served, int64_t count,
                                    int *added)
{
    atune__rec_entry *e = find(r, gpu, kernel, size);

    if (added)
        *added = 0;
    if (e) {
        e->count = sat_add(e->count, count);
        e->served = served;
        return e;
    }
    if (r->n >= ATUNE__RECORD_MAX_KEYS) {
        r->dropped = sat_add(r->dropped, count);
        return NULL;
    }
    if (r->n == r->cap) {
        int cap = r->cap ? 2 * r->cap : 16;
        atune__rec_entry *ne = realloc(r->e, (size_t)cap * sizeof(*ne));
        if (!ne)
            return NULL;
        r->e = ne;
        r->cap = cap;
    }
    e = &r->e[r->n++];
    memset(e, 0, sizeof(*e));
    atune__strlcpy(e->gpu, gpu, sizeof(e->gpu));
    atune__strlcpy(e->kernel, kernel, sizeof(e->kernel));
    atune__strlcpy(e->size, size, sizeof(e->size));
    e->served = served;
    e->count = count;
    if (added)
        *added = 1;
    return e;
}

/* --- checking ------------------------------------------------------------ */

static int is_ident_start(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static int is_digit(char c)
{
    return c >= '0' && c <= '9';
}

/* "VAR=DECIMAL[,VAR=DECIMAL]...", at most 4 variables, each value
 * 0..INT64_MAX; NULL when it is, else why not. */
static const char *size_problem(const char *s)
{
    int vars = 0;

    if (!*s)
        return "empty size";
    for (;;) {
        int64_t v = 0;
        if (!is_ident_start(*s))
            return "a size variable must start with a letter or '_'";
        while (is_ident_start(*s) || is_digit(*s))
            s++;
        if (*s++ != '=')
            return "expected VAR=VALUE";
        if (!is_digit(*s))
            return "a size value must be decimal digits";
        for (; is_digit(*s); s++) {
            int d = *s - '0';
            if (v > (INT64_MAX - d) / 10)
                return "size value out of range";
            v = 10 * v + d;
        }
        if (++vars > 4)
            return "more than 4 size variables";
        if (!*s)
            return NULL;
        if (*s++ != ',')
            return "expected ',' between size variables";
    }
}

int atune__record_check_key(const char *gpu, const char *kernel,
                            const char *size, atune__err *err)
{
    const char *why;

    if (!*gpu || strlen(gpu) >= ATUNE__RECORD_GPU_MAX)
        return atune__fail(err, ATUNE__EUSAGE,
                           "GPU name empty or over %d "
                           "bytes",
                           ATUNE__RECORD_GPU_MAX - 1);
    for (const char *c = gpu; *c; c++)
        if ((unsigned char)*c < 0x20 || *c == 0x7f)
            return atune__fail(err, ATUNE__EUSAGE,
                               "GPU name with a control character");
    if (!*kernel || strlen(kernel) >= ATUNE__RECORD_KERNEL_MAX)
        return atune__fail(err, ATUNE__EUSAGE,
                           "kernel name empty or over %d bytes",
                           ATUNE__RECORD_KERNEL_MAX - 1);
    for (const char *c = kernel; *c; c++)
        if (!(is_ident_start(*c) || is_digit(*c) || *c == '-' || *c == '.'))
            return atune__fail(err, ATUNE__EUSAGE,
                               "kernel name '%s' not made of letters, "
                               "digits, '_', '-' and '.'",
                               kernel);
    if (strlen(size) >= ATUNE__RECORD_SIZE_MAX)
        return atune__fail(err, ATUNE__EUSAGE, "size over %d bytes",
                           ATUNE__RECORD_SIZE_MAX - 1);
    if ((why = size_problem(size)) != NULL)
        return atune__fail(err, ATUNE__EUSAGE, "bad size '%s': %s", size, why);
    return 0;
}

/* --- parsing ------------------------------------------------------------- */

/* A count: decimal digits, 1 to INT64_MAX. */
static int parse_count(const char *s, int64_t *out)
{
    int64_t v = 0;

    if (!*s)
        return -1;
    for (; *s; s++) {
        int d = *s - '0';
        if (!is_digit(*s) || v > (INT64_MAX - d) / 10)
            return -1;
        v = 10 * v + d;
    }
    *out = v;
    return 0;
}

/* One line of the record (NUL-terminated, no newline). */
static int parse_line(const char *path, int ln, char *line, atune__record *r,
                      atune__err *err)
{
    char *f[6];
    int nf = 0;
    atune__served served;
    atune__rec_entry *e;
    int64_t count;
    atune__err why = {0};
    int added;

    if (line[0] == '#') {
        if (strncmp(line, "# dropped: ", 11) == 0 &&
            parse_count(line + 11, &count) != 0)
            return atune__fail(err, ATUNE__EDATA,
                               "%s:%d: bad count in '# dropped: N'", path, ln);
        if (strncmp(line, "# dropped: ", 11) == 0)
            r->dropped = sat_add(r->dropped, count);
        return 0;
    }
    for (char *s = line;; s++) {
        if (nf == 6)
            break;
        f[nf++] = s;
        s = strchr(s, '\t');
        if (!s)
            break;
        *s = '\0';
    }
    if (nf != 5)
        return atune__fail(err, ATUNE__EDATA,
                           "%s:%d: expected 5 tab-separated fields (gpu, "
                           "kernel, size, served, count), found %d",
                           path, ln, nf);
    if (atune__record_check_key(f[0], f[1], f[2], &why))
        return atune__fail(err, ATUNE__EDATA, "%s:%d: %s", path, ln, why.msg);
    if (served_parse(f[3], &served))
        return atune__fail(err, ATUNE__EDATA,
                           "%s:%d: unknown way served '%s' (no-profile, "
                           "defaults, nearest, fallback, other-gpu)",
                           path, ln, f[3]);
    if (parse_count(f[4], &count) || count == 0)
        return atune__fail(err, ATUNE__EDATA,
                           "%s:%d: bad count '%s' (1 to %lld)", path, ln, f[4],
                           (long long)INT64_MAX);
    if ((e = find(r, f[0], f[1], f[2])) != NULL)
        return atune__fail(err, ATUNE__EDATA,
                           "%s:%d: the key of line %d again (%s %s on '%s')",
                           path, ln, e->line, f[1], f[2], f[0]);
    if (r->n >= ATUNE__RECORD_MAX_KEYS)
        return atune__fail(err, ATUNE__EDATA, "%s:%d: more than %d keys", path,
                           ln, ATUNE__RECORD_MAX_KEYS);
    e = atune__record_add(r, f[0], f[1], f[2], served, count, &added);
    if (!e)
        return atune__fail(err, ATUNE__EOSERR, "out of memory");
    e->line = ln;
    return 0;
}

int atune__record_parse(const char *path, const char *text, size_t len,
                        atune__record *r, atune__err *err)
{
    char line[LINE_MAX_BYTES + 1];
    size_t at = 0;
    int ln = 0, rc;

    memset(r, 0, sizeof(*r));
    while (at < len) {
        const char *nl = memchr(text + at, '\n', len - at);
        size_t n;
        ln++;
        if (!nl)
            return atune__fail(err, ATUNE__EDATA,
                               "%s:%d: last line has no newline (a record "
                               "cut off?)",
                               path, ln);
        n = (size_t)(nl - (text + at));
        if (n > LINE_MAX_BYTES)
            return atune__fail(err, ATUNE__EDATA, "%s:%d: line over %d bytes",
                               path, ln, LINE_MAX_BYTES);
        memcpy(line, text + at, n);
        line[n] = '\0';
        at += n + 1;
        if (memchr(line, '\0', n))
            return atune__fail(err, ATUNE__EDATA, "%s:%d: NUL byte", path, ln);
        if (ln == 1) {
            if (strcmp(line, ATUNE__RECORD_HEADER) != 0)
                return atune__fail(err, ATUNE__EDATA,
                                   "%s:1: not a record (the first line is "
                                   "not '%s')",
                                   path, ATUNE__RECORD_HEADER);
            continue;
        }
        if ((rc = parse_line(path, ln, line, r, err)) != 0)
            return rc;
    }
    return 0; /* an empty file is an empty record: `: >FILE` resets it */
}

/* --- reading ------------------------------------------------------------- */

int atune__record_read(const char *path, int missing_ok, atune__record *r,
                       atune__err *err)
{
    struct stat st;
    char *text = NULL;
    int fd, rc;

    memset(r, 0, sizeof(*r));
    /* O_NONBLOCK: a FIFO put in its place must not hang the reader. */
    fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0 && errno == ENOENT && missing_ok)
        return 0;
    if (fd < 0 && errno == ELOOP)
        return atune__fail(err, ATUNE__EIO,
                           "%s: a symbolic link: refused (the record is "
                           "never read or written through one)",
                           path);
    if (fd < 0)
        return atune__fail(err, errno == ENOENT ? ATUNE__ENOINPUT : ATUNE__EIO,
                           "cannot open record '%s': %s", path,
                           strerror(errno));
    /* A directory is a missing input (66), as everywhere in the CLI
     * (docs/cli.md); a FIFO or device in its place is bad data. */
    if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
        close(fd);
        return atune__fail(err, ATUNE__ENOINPUT,
                           "cannot read record '%s': a directory, not a file",
                           path);
    }
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        return atune__fail(err, ATUNE__EDATA, "%s: not a regular file", path);
    }
    if (st.st_size > ATUNE__RECORD_MAX_BYTES) {
        close(fd);
        return atune__fail(
            err, ATUNE__EDATA, "%s: %lld bytes, over the %d a record may hold",
            path, (long long)st.st_size, ATUNE__RECORD_MAX_BYTES);
    }
    text = malloc((size_t)st.st_size + 1);
    if (!text) {
        close(fd);
        return atune__fail(err, ATUNE__EOSERR, "out of memory");
    }
    if (atune__read_full(fd, text, (size_t)st.st_size) != 0) {
        rc = atune__fail(err, ATUNE__EIO, "cannot read record '%s': %s", path,
                         strerror(errno ? errno : EIO));
        close(fd);
        free(text);
        return rc;
    }
    close(fd);
    rc = atune__record_parse(path, text, (size_t)st.st_size, r, err);
    free(text);
    if (rc)
        atune__record_free(r);
    return rc;
}

/* --- merging ------------------------------------------------------------- */

static void write_record(FILE *f, const atune__record *r)
{
    fprintf(f, "%s\n", ATUNE__RECORD_HEADER);
    fprintf(f,
            "# gpu, kernel, size, served, count (tab-separated); "
            "at most %d keys\n",
            ATUNE__RECORD_MAX_KEYS);
    if (r->dropped > 0)
        fprintf(f, "# dropped: %lld\n", (long long)r->dropped);
    for (int i = 0; i < r->n; i++) {
        const atune__rec_entry *e = &r->e[i];
        fprintf(f, "%s\t%s\t%s\t%s\t%lld\n", e->gpu, e->kernel, e->size,
                atune__served_name(e->served), (long long)e->count);
    }
}

static int fill_record(FILE *f, void *ctx)
{
    write_record(f, ctx);
    return 0; /* a failed write shows in ferror() */
}

/* Writes r to a fresh temporary file beside path (base/outfile.c: an
 * unpredictable name, created exclusively, never through a link) and
 * renames it over path: a reader sees the old file or the new one, never
 * a part. */
static int replace(const char *path, const atune__record *r, atune__err *err)
{
    return atune__replace_file(path, fill_record, (void *)r, 0, err);
}

/* How long a merge waits for the lock. A merge holds it for milliseconds;
 * a lock held longer is another user's (a record in a shared folder, its
 * lock file open) or a stopped process, and waiting for it would hang the
 * application, at exit too (the library's destructor merges). */
#define LOCK_WAIT_S 2.0

/* An exclusive flock on <path>.lock, which stays (deleting it would let
 * two writers lock different files). A link, FIFO or device planted at its
 * name is refused, never followed or waited for; a lock not taken within
 * LOCK_WAIT_S is ATUNE__EIO, the counts kept for the next merge. */
static int take_lock(const char *path, int *fd, atune__err *err)
{
    char lock[4200];
    double start = atune__now();
    int rc;

    if (snprintf(lock, sizeof(lock), "%s.lock", path) >= (int)sizeof(lock))
        return atune__fail(err, ATUNE__EUSAGE, "record path too long");
    rc = atune__open_regular(lock, O_RDWR | O_CREAT, 0644, "lock file", fd,
                             err);
    if (rc)
        return rc == ATUNE__ENOINPUT ? ATUNE__ECANTCREAT : rc;
    while (flock(*fd, LOCK_EX | LOCK_NB) != 0) {
        const struct timespec pause = {0, 10 * 1000 * 1000};
        int e = errno;
        if (e == EINTR)
            continue;
        if (e == EWOULDBLOCK && atune__now() - start < LOCK_WAIT_S) {
            nanosleep(&pause, NULL);
            continue;
        }
        close(*fd);
        *fd = -1;
        return e == EWOULDBLOCK
                   ? atune__fail(err, ATUNE__EIO,
                                 "'%s' stayed locked for %.0f s (another "
                                 "process holds it): counts kept for the "
                                 "next merge",
                                 lock, LOCK_WAIT_S)
                   : atune__fail(err, ATUNE__EIO, "cannot lock '%s': %s",
                                 lock, strerror(e));
    }
    return 0;
}

int atune__record_merge(const char *path, atune__record *mine, atune__err *err)
{
    atune__record file = {0};
    int lock = -1, rc, pending = mine->dropped > 0;

    for (int i = 0; i < mine->n && !pending; i++)
        pending = mine->e[i].count > mine->e[i].flushed;
    if (!pending)
        return 0;
    if ((rc = take_lock(path, &lock, err)) != 0)
        return rc;
    rc = atune__record_read(path, 1, &file, err);
    for (int i = 0; !rc && i < mine->n; i++) {
        atune__rec_entry *e = &mine->e[i];
        if (e->count > e->flushed &&
            !atune__record_add(&file, e->gpu, e->kernel, e->size, e->served,
                               e->count - e->flushed, NULL) &&
            file.n < ATUNE__RECORD_MAX_KEYS)
            rc = atune__fail(err, ATUNE__EOSERR, "out of memory");
    }
    if (!rc) {
        file.dropped = sat_add(file.dropped, mine->dropped);
        rc = replace(path, &file, err);
    }
    if (!rc) {
        for (int i = 0; i < mine->n; i++)
            mine->e[i].flushed = mine->e[i].count;
        mine->dropped = 0;
    }
    atune__record_free(&file);
    close(lock);
    return rc;
}
