/* journal.c -- the append-only results journal (see journal.h). */
#include "engine/journal.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct atune__journal {
    FILE *f;
    char *path;
};

static const char format_line[] =
    "# autotune journal, format 1: kernel size config status time_ns "
    "spread_ns metric samples template_hash detail\n";

/* A writer killed mid-record leaves a line without its newline; the next
 * record would be glued to it. Cut the file back to its last newline. */
static int drop_partial_line(const char *path, atune__err *err)
{
    int fd = open(path, O_RDWR | O_CLOEXEC);
    struct stat st;
    off_t end;
    char c = '\n';
    int rc = 0;

    if (fd < 0)
        return errno == ENOENT ? 0
                               : atune__fail(err, ATUNE__ECANTCREAT,
                                             "cannot open journal '%s': %s",
                                             path, strerror(errno));
    if (fstat(fd, &st) != 0)
        rc = atune__fail(err, ATUNE__EIO, "cannot read journal '%s': %s",
                         path, strerror(errno));
    for (end = st.st_size; !rc && end > 0; end--) {
        if (pread(fd, &c, 1, end - 1) != 1) {
            rc = atune__fail(err, ATUNE__EIO, "cannot read journal '%s': %s",
                             path, strerror(errno));
            break;
        }
        if (c == '\n')
            break;
    }
    if (!rc && end != st.st_size && ftruncate(fd, end) != 0)
        rc = atune__fail(err, ATUNE__EIO, "cannot repair journal '%s': %s",
                         path, strerror(errno));
    close(fd);
    return rc;
}

/* A journal is appended to and read back whole: a device, FIFO or
 * directory can be neither (reading /dev/full never ends). */
static int regular_or_missing(const char *path, atune__err *err)
{
    struct stat st;

    if (stat(path, &st) != 0 || S_ISREG(st.st_mode))
        return 0;
    return atune__fail(err, S_ISDIR(st.st_mode) ? ATUNE__ENOINPUT
                                                : ATUNE__ECANTCREAT,
                       "journal '%s' is not a regular file", path);
}

int atune__journal_open(const char *path, const char *run,
                        atune__journal **out, atune__err *err)
{
    atune__journal *j;
    long size;
    int rc;

    *out = NULL;
    if ((rc = regular_or_missing(path, err)))
        return rc;
    j = atune__calloc(1, sizeof(*j));
    if (!j || !(j->path = atune__strdup(path))) {
        free(j);
        return atune__fail(err, ATUNE__EOSERR, "out of memory");
    }
    if ((rc = drop_partial_line(path, err))) {
        atune__journal_close(j);
        return rc;
    }
    j->f = fopen(path, "a");
    if (!j->f) {
        rc = atune__fail(err, ATUNE__ECANTCREAT, "cannot open journal '%s': %s",
                         path, strerror(errno));
        atune__journal_close(j);
        return rc;
    }
    fseek(j->f, 0, SEEK_END);
    size = ftell(j->f);
    if ((size == 0 && fputs(format_line, j->f) == EOF) ||
        (run && fprintf(j->f, "# run: %s\n", run) < 0) ||
        fflush(j->f) != 0) {
        rc = atune__fail(err, ATUNE__EIO, "cannot write journal '%s': %s",
                         path, strerror(errno));
        atune__journal_close(j);
        return rc;
    }
    *out = j;
    return 0;
}

int atune__journal_done(atune__journal *j, atune__err *err)
{
    char when[32];

    atune__utc_date(when, sizeof(when), 1);
    if (fprintf(j->f, "# done: %s\n", when) < 0 || fflush(j->f) != 0)
        return atune__fail(err, ATUNE__EIO, "cannot write journal '%s': %s",
                           j->path, strerror(errno));
    return 0;
}

/* Tabs and newlines would break the record: detail becomes one line. */
static void one_line(const char *in, char *out, size_t len)
{
    size_t i = 0;

    for (; *in && i + 1 < len; in++) {
        if (*in == '\n' && in[1] == '\0')
            break;
        out[i++] = (*in == '\t' || *in == '\n' || *in == '\r') ? ' ' : *in;
    }
    out[i] = '\0';
}

int atune__journal_append(atune__journal *j, const char *kernel,
                          const char *size_key, const char *config,
                          const atune__result *r, uint64_t hash,
                          atune__err *err)
{
    char detail[512];

    one_line(r->detail, detail, sizeof(detail));
    if (fprintf(j->f, "%s\t%s\t%s\t%s\t%.0f\t%.0f\t%.3f\t%d\t%016llx\t%s\n",
                kernel, size_key, config, atune__status_name(r->status),
                r->time_ns, r->spread_ns, r->metric, r->samples,
                (unsigned long long)hash, detail) < 0 ||
        fflush(j->f) != 0)
        return atune__fail(err, ATUNE__EIO, "cannot write journal '%s': %s",
                           j->path, strerror(errno));
    return 0;
}

void atune__journal_close(atune__journal *j)
{
    if (!j)
        return;
    if (j->f)
        fclose(j->f);
    free(j->path);
    free(j);
}

static int field_copy(char *dst, size_t len, const char *src)
{
    return atune__strlcpy(dst, src, len);
}

static int parse_double(const char *s, double *out)
{
    char *end;

    errno = 0;
    *out = strtod(s, &end);
    return errno != 0 || end == s || *end != '\0' || !isfinite(*out);
}

static int hex16(const char *s)
{
    return strlen(s) == 16 && strspn(s, "0123456789abcdef") == 16;
}

/* Splits and checks one record; returns NULL, or the name of the first
 * field that is wrong. A measured time must be one a launch can take: an
 * ok record of 0, a negative, NaN or 10^23 ns would win every search. */
static const char *parse_line(char *line, atune__record *r)
{
    char *f[10];
    int n = 0, st;
    char *p = line, *end;
    long samples;

    while (n < 10) {
        f[n++] = p;
        p = strchr(p, '\t');
        if (!p)
            break;
        *p++ = '\0';
    }
    if (n < 9)
        return "record (fewer than 9 tab-separated fields)";
    if (!*f[0] || field_copy(r->kernel, sizeof(r->kernel), f[0]))
        return "kernel";
    if (!*f[1] || field_copy(r->size_key, sizeof(r->size_key), f[1]))
        return "size";
    if (!*f[2] || field_copy(r->config, sizeof(r->config), f[2]))
        return "config";
    if (!hex16(f[8]) || field_copy(r->hash, sizeof(r->hash), f[8]))
        return "template_hash";
    field_copy(r->detail, sizeof(r->detail), n > 9 ? f[9] : "");
    r->final = strcmp(r->detail, ATUNE__JOURNAL_FINAL) == 0;
    st = atune__status_parse(f[3]);
    if (st < 0)
        return "status";
    r->status = (atune__status)st;
    if (parse_double(f[4], &r->time_ns) || r->time_ns < 0 ||
        r->time_ns > ATUNE__JOURNAL_MAX_NS ||
        (r->status == ATUNE__ST_OK && !(r->time_ns > 0)))
        return "time_ns";
    if (parse_double(f[5], &r->spread_ns) || r->spread_ns < 0 ||
        r->spread_ns > ATUNE__JOURNAL_MAX_NS)
        return "spread_ns";
    if (parse_double(f[6], &r->metric) || r->metric < 0)
        return "metric";
    samples = strtol(f[7], &end, 10);
    if (*f[7] < '0' || *f[7] > '9' || *end != '\0' || samples > 1000000 ||
        (r->status == ATUNE__ST_OK && samples < 1))
        return "samples";
    r->samples = (int)samples;
    return NULL;
}

/* The device="NAME" of a "# run:" line, or "" when it names none. */
static void run_device(const char *line, char *out, size_t len)
{
    const char *s = strstr(line, "device=\"");
    const char *e;

    out[0] = '\0';
    if (!s)
        return;
    s += strlen("device=\"");
    e = strchr(s, '"');
    if (e && (size_t)(e - s) < len) {
        memcpy(out, s, (size_t)(e - s));
        out[e - s] = '\0';
    }
}

static int push(atune__record **r, int *count, int *cap, atune__err *err)
{
    if (*count == *cap) {
        int ncap = *cap ? *cap * 2 : 256;
        atune__record *nr = realloc(*r, sizeof(**r) * (size_t)ncap);
        if (!nr)
            return atune__fail(err, ATUNE__EOSERR, "out of memory");
        *r = nr;
        *cap = ncap;
    }
    memset(&(*r)[*count], 0, sizeof(**r));
    return 0;
}

/* pending: only what follows the last "# done:" line, final records
 * included, every run line checked against device. */
static int read_records(const char *path, const char *device, int pending,
                        atune__record **recs, int *n, int *cut_line,
                        atune__err *err)
{
    const char *bad;
    char *text = NULL, *line, *next, who[256], other[256] = "";
    atune__record *r = NULL;
    int cap = 0, count = 0, lineno = 0, other_line = 0, rc;

    *recs = NULL;
    *n = 0;
    if (cut_line)
        *cut_line = 0;
    if ((rc = atune__read_file(path, &text, NULL, err)))
        return rc;
    for (line = text; line && *line; line = next) {
        next = strchr(line, '\n');
        if (next)
            *next++ = '\0';
        lineno++;
        if (pending && strncmp(line, "# done:", 7) == 0) {
            count = 0; /* a finished run is not resumed */
            other_line = 0;
            continue;
        }
        if (pending && device && !other_line &&
            strncmp(line, "# run:", 6) == 0) {
            run_device(line, who, sizeof(who));
            if (*who && strcmp(who, device) != 0) {
                other_line = lineno;
                memcpy(other, who, sizeof(other));
            }
        }
        if (line[0] == '#' || line[0] == '\0')
            continue;
        /* Every record is written with its newline: a last line without
         * one was cut short by a kill or a full disk, even where what is
         * left still parses ("1234" of "123456"). */
        if (!next) {
            if (cut_line)
                *cut_line = lineno;
            break;
        }
        if ((rc = push(&r, &count, &cap, err)))
            goto fail;
        if ((bad = parse_line(line, &r[count]))) {
            rc = atune__fail(err, ATUNE__EDATA,
                             "%s:%d: malformed record: bad %s", path, lineno,
                             bad);
            goto fail;
        }
        r[count].line = lineno;
        if (pending || !r[count].final)
            count++;
    }
    if (other_line && count > 0) {
        rc = atune__fail(err, ATUNE__EDATA,
                         "%s:%d: an unfinished run of GPU '%s', not '%s': "
                         "finish it there, or give this GPU another "
                         "--journal",
                         path, other_line, other, device);
        goto fail;
    }
    free(text);
    *recs = r;
    *n = count;
    return 0;
fail:
    free(text);
    free(r);
    return rc;
}

int atune__journal_read(const char *path, atune__record **recs, int *n,
                        atune__err *err)
{
    return read_records(path, NULL, 0, recs, n, NULL, err);
}

int atune__journal_read_cut(const char *path, atune__record **recs, int *n,
                            int *cut_line, atune__err *err)
{
    return read_records(path, NULL, 0, recs, n, cut_line, err);
}

int atune__journal_read_pending(const char *path, const char *device,
                                atune__record **recs, int *n,
                                atune__err *err)
{
    int rc;

    *recs = NULL;
    *n = 0;
    if (access(path, F_OK) != 0 && errno == ENOENT)
        return 0;
    if ((rc = regular_or_missing(path, err)))
        return rc;
    return read_records(path, device, 1, recs, n, NULL, err);
}
