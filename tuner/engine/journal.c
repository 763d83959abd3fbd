/* journal.c -- the append-only results journal (see journal.h). */
#include "engine/journal.h"

#include "base/outfile.h"

#include <errno.h>
#include <fcntl.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/number.h"

struct atune__journal {
    FILE *f;
    char *path;
    char run[ATUNE__RUN_ID_MAX]; /* "" for records of no run id */
};

/* Format 2 adds the run id as an 11th field: concurrent tuners append to
 * one journal, and a run's records must be told from another's. Format 1
 * journals (10 fields) are read as before. */
static const char format_line[] =
    "# autotune journal, format 2: kernel size config status time_ns "
    "spread_ns metric samples template_hash detail run\n";

/* A writer killed mid-record leaves a line without its newline; the next
 * record would be glued to it. Cut the file back to its last newline. */
static int drop_partial_line(int fd, const char *path, atune__err *err)
{
    struct stat st;
    off_t end;
    char c = '\n';
    int rc = 0;

    if (fstat(fd, &st) != 0)
        return atune__fail(err, ATUNE__EIO, "cannot read journal '%s': %s",
                           path, strerror(errno));
    for (end = st.st_size; end > 0; end--) {
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
    return rc;
}

/* The journal's descriptor, for appending. It lies beside the profiles,
 * where others may write: a link is followed only when it is the user's
 * own, and a planted FIFO or device is refused (base/outfile.h). */
static int open_journal(const char *path, int *fd, atune__err *err)
{
    static const atune__out_rules r = {.what = "journal",
                                       .links = ATUNE__LINK_TRUSTED,
                                       .special = ATUNE__SPECIAL_REFUSE};
    char *real;
    int through, rc = atune__out_resolve(path, &r, &real, &through, err);

    if (rc)
        return rc;
    rc = atune__open_regular(real, O_RDWR | O_CREAT | O_APPEND, 0666,
                             "journal", fd, err);
    free(real);
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

static int valid_run_id(const char *id)
{
    size_t n = strlen(id);

    return n > 0 && n < ATUNE__RUN_ID_MAX &&
           strspn(id, "0123456789abcdefghijklmnopqrstuvwxyz-") == n;
}

void atune__journal_new_run_id(char *buf, size_t len)
{
    struct timespec ts;

    clock_gettime(CLOCK_REALTIME, &ts);
    snprintf(buf, len, "%llx-%lx-%lx", (unsigned long long)ts.tv_sec,
             (unsigned long)(ts.tv_nsec / 1000) & 0xfffff,
             (unsigned long)getpid());
}

int atune__journal_open(const char *path, const char *run,
                        const char *run_id, atune__journal **out,
                        atune__err *err)
{
    atune__journal *j;
    long size;
    int fd, rc;

    *out = NULL;
    if (run_id && !valid_run_id(run_id))
        return atune__fail(err, ATUNE__ESOFTWARE, "bad run id '%s'", run_id);
    if ((rc = regular_or_missing(path, err)))
        return rc;
    j = atune__calloc(1, sizeof(*j));
    if (!j || !(j->path = atune__strdup(path))) {
        free(j);
        return atune__fail(err, ATUNE__EOSERR, "out of memory");
    }
    if (run_id)
        snprintf(j->run, sizeof(j->run), "%s", run_id);
    if ((rc = open_journal(path, &fd, err)) != 0) {
        atune__journal_close(j);
        return rc;
    }
    if ((rc = drop_partial_line(fd, path, err)) != 0 ||
        !(j->f = fdopen(fd, "a"))) {
        if (!rc)
            rc = atune__fail(err, ATUNE__EOSERR, "cannot open journal '%s': %s",
                             path, strerror(errno));
        close(fd);
        atune__journal_close(j);
        return rc;
    }
    fseek(j->f, 0, SEEK_END);
    size = ftell(j->f);
    if ((size == 0 && fputs(format_line, j->f) == EOF) ||
        (run && fprintf(j->f, "# run: %s%s%s\n", run, *j->run ? " run=" : "",
                        j->run) < 0) ||
        fflush(j->f) != 0) {
        rc = atune__fail(err, ATUNE__EIO, "cannot write journal '%s': %s",
                         path, strerror(errno));
        atune__journal_close(j);
        return rc;
    }
    *out = j;
    return 0;
}

int atune__journal_done(atune__journal *j, const char *resumed,
                        atune__err *err)
{
    char when[32];

    atune__utc_date(when, sizeof(when), 1);
    if (!*j->run)
        resumed = NULL;
    if (fprintf(j->f, "# done: %s%s%s%s%s\n", when, *j->run ? " run=" : "",
                j->run, resumed && *resumed ? " resumed=" : "",
                resumed && *resumed ? resumed : "") < 0 ||
        fflush(j->f) != 0)
        return atune__fail(err, ATUNE__EIO, "cannot write journal '%s': %s",
                           j->path, strerror(errno));
    return 0;
}

int atune__journal_note(atune__journal *j, const char *note, atune__err *err)
{
    if (fprintf(j->f, "# %s\n", note) < 0 || fflush(j->f) != 0)
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
    if (fprintf(j->f,
                "%s\t%s\t%s\t%s\t%.0f\t%.0f\t%.3f\t%d\t%016llx\t%s%s%s\n",
                kernel, size_key, config, atune__status_name(r->status),
                r->time_ns, r->spread_ns, r->metric, r->samples,
                (unsigned long long)hash, detail, *j->run ? "\t" : "",
                j->run) < 0 ||
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
    return atune__parse_real(s, -DBL_MAX, DBL_MAX, out) != NULL;
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
    char *f[11] = {0}; /* gcc -O3 cannot see that n bounds the reads */
    int n = 0, st;
    char *p = line;
    int64_t samples;

    while (n < 11) {
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
    if (n > 10 && (!valid_run_id(f[10]) ||
                   field_copy(r->run, sizeof(r->run), f[10])))
        return "run";
    r->final = strcmp(r->detail, ATUNE__JOURNAL_FINAL) == 0;
    r->unverified = strcmp(r->detail, ATUNE__JOURNAL_UNVERIFIED) == 0;
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
    if (atune__parse_i64(f[7], 0, 1000000, &samples) ||
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

/* What the comment lines say about one run: its id ("" for records
 * without one: journals of format 1), the device of its latest "# run:"
 * line, and the line of its latest "# done:" (records before it are
 * finished). */
typedef struct run_info {
    char id[ATUNE__RUN_ID_MAX];
    char other[256]; /* a device not ours named since done_line */
    int other_line, done_line;
} run_info;

typedef struct runs {
    run_info *v;
    int n, cap;
} runs;

static run_info *run_get(runs *rs, const char *id)
{
    run_info *nv;

    for (int i = 0; i < rs->n; i++)
        if (strcmp(rs->v[i].id, id) == 0)
            return &rs->v[i];
    if (rs->n == rs->cap) {
        int ncap = rs->cap ? 2 * rs->cap : 8;
        if (!(nv = realloc(rs->v, sizeof(*nv) * (size_t)ncap)))
            return NULL;
        rs->v = nv;
        rs->cap = ncap;
    }
    memset(&rs->v[rs->n], 0, sizeof(rs->v[0]));
    snprintf(rs->v[rs->n].id, sizeof(rs->v[0].id), "%s", id);
    return &rs->v[rs->n++];
}

/* The value of " key=" on a comment line (up to the next space), or "". */
static void attr(const char *line, const char *key, char *out, size_t len)
{
    const char *s = strstr(line, key);
    size_t n;

    out[0] = '\0';
    if (!s || (s > line && s[-1] != ' '))
        return;
    s += strlen(key);
    n = strcspn(s, " ");
    if (n < len) {
        memcpy(out, s, n);
        out[n] = '\0';
    }
}

/* A "# done:" line: its run, and the runs it resumed, are finished up to
 * here. Without a run id (format 1) it finishes every run before it. */
static int mark_done(runs *rs, const char *line, int lineno)
{
    char id[ATUNE__RUN_ID_MAX], list[1024], *tok, *save = NULL;
    run_info *ri;

    attr(line, "run=", id, sizeof(id));
    if (!*id) {
        if (!run_get(rs, ""))
            return -1;
        for (int i = 0; i < rs->n; i++) {
            rs->v[i].done_line = lineno;
            rs->v[i].other_line = 0;
        }
        return 0;
    }
    if (!(ri = run_get(rs, id)))
        return -1;
    ri->done_line = lineno;
    ri->other_line = 0;
    attr(line, "resumed=", list, sizeof(list));
    for (tok = strtok_r(list, ",", &save); tok;
         tok = strtok_r(NULL, ",", &save)) {
        if (!(ri = run_get(rs, tok)))
            return -1;
        ri->done_line = lineno;
        ri->other_line = 0;
    }
    return 0;
}

/* A "# run:" line: notes the first one naming another device than ours
 * since the run's last "# done:". */
static int mark_run(runs *rs, const char *line, int lineno,
                    const char *device)
{
    char id[ATUNE__RUN_ID_MAX], dev[256];
    run_info *ri;

    attr(line, "run=", id, sizeof(id));
    if (!(ri = run_get(rs, id)))
        return -1;
    run_device(line, dev, sizeof(dev));
    if (device && *dev && strcmp(dev, device) != 0 && !ri->other_line) {
        ri->other_line = lineno;
        memcpy(ri->other, dev, sizeof(ri->other));
    }
    return 0;
}

/* Keeps the records of unfinished runs (none of their "# done:" lines
 * after them); checks that they were measured on device; lists their run
 * ids in ids. */
static int keep_pending(const char *path, const char *device, runs *rs,
                        atune__record *r, int *count, char *ids,
                        size_t idlen, atune__err *err)
{
    int kept = 0;

    for (int i = 0; i < *count; i++) {
        run_info *ri = run_get(rs, r[i].run);
        if (!ri)
            return atune__fail(err, ATUNE__EOSERR, "out of memory");
        if (r[i].line < ri->done_line)
            continue;
        if (ri->other_line)
            return atune__fail(err, ATUNE__EDATA,
                               "%s:%d: an unfinished run of GPU '%s', not "
                               "'%s': finish it there, or give this GPU "
                               "another --journal",
                               path, ri->other_line, ri->other, device);
        if (ids && *r[i].run && !strstr(ids, r[i].run) &&
            strlen(ids) + strlen(r[i].run) + 2 < idlen) {
            if (*ids)
                strcat(ids, ",");
            strcat(ids, r[i].run);
        }
        r[kept++] = r[i];
    }
    *count = kept;
    return 0;
}

/* pending: only the records of unfinished runs (keep_pending), final
 * records included; else every search record. */
static int read_records(const char *path, const char *device, int pending,
                        atune__record **recs, int *n, int *cut_line,
                        char *ids, size_t idlen, atune__err *err)
{
    const char *bad;
    char *text = NULL, *line, *next;
    atune__record *r = NULL;
    runs rs = {0};
    int cap = 0, count = 0, lineno = 0, rc = 0;

    *recs = NULL;
    *n = 0;
    if (cut_line)
        *cut_line = 0;
    if (ids && idlen)
        ids[0] = '\0';
    if ((rc = atune__read_file(path, &text, NULL, err)))
        return rc;
    for (line = text; line && *line; line = next) {
        next = strchr(line, '\n');
        if (next) {
            /* a journal carried through Windows ends its lines in CRLF */
            if (next > line && next[-1] == '\r')
                next[-1] = '\0';
            *next++ = '\0';
        }
        lineno++;
        if ((strncmp(line, "# done:", 7) == 0 &&
             mark_done(&rs, line, lineno)) ||
            (strncmp(line, "# run:", 6) == 0 &&
             mark_run(&rs, line, lineno, device))) {
            rc = atune__fail(err, ATUNE__EOSERR, "out of memory");
            goto fail;
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
    if (pending &&
        (rc = keep_pending(path, device, &rs, r, &count, ids, idlen, err)))
        goto fail;
    free(rs.v);
    free(text);
    *recs = r;
    *n = count;
    return 0;
fail:
    free(rs.v);
    free(text);
    free(r);
    return rc;
}

int atune__journal_read(const char *path, atune__record **recs, int *n,
                        atune__err *err)
{
    return read_records(path, NULL, 0, recs, n, NULL, NULL, 0, err);
}

int atune__journal_read_cut(const char *path, atune__record **recs, int *n,
                            int *cut_line, atune__err *err)
{
    return read_records(path, NULL, 0, recs, n, cut_line, NULL, 0, err);
}

int atune__journal_read_pending(const char *path, const char *device,
                                atune__record **recs, int *n, char *ids,
                                size_t idlen, atune__err *err)
{
    int rc;

    *recs = NULL;
    *n = 0;
    if (ids && idlen)
        ids[0] = '\0';
    if (access(path, F_OK) != 0 && errno == ENOENT)
        return 0;
    if ((rc = regular_or_missing(path, err)))
        return rc;
    return read_records(path, device, 1, recs, n, NULL, ids, idlen, err);
}
