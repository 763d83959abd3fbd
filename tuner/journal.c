/* journal.c -- the append-only results journal (see journal.h). */
#include "journal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct atune__journal {
    FILE *f;
    char *path;
};

static const char format_line[] =
    "# autotune journal, format 1: kernel size config status time_ns "
    "spread_ns metric samples template_hash detail\n";

int atune__journal_open(const char *path, const char *run,
                        atune__journal **out, atune__err *err)
{
    atune__journal *j = atune__calloc(1, sizeof(*j));
    long size;

    *out = NULL;
    if (!j || !(j->path = atune__strdup(path))) {
        free(j);
        return atune__fail(err, ATUNE__EOSERR, "out of memory");
    }
    j->f = fopen(path, "a");
    if (!j->f) {
        int rc = atune__fail(err, ATUNE__ECANTCREAT,
                             "cannot open journal '%s': %s", path,
                             strerror(errno));
        atune__journal_close(j);
        return rc;
    }
    fseek(j->f, 0, SEEK_END);
    size = ftell(j->f);
    if ((size == 0 && fputs(format_line, j->f) == EOF) ||
        fprintf(j->f, "# run: %s\n", run) < 0 || fflush(j->f) != 0) {
        int rc = atune__fail(err, ATUNE__EIO, "cannot write journal '%s': %s",
                             path, strerror(errno));
        atune__journal_close(j);
        return rc;
    }
    *out = j;
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
    return errno != 0 || end == s || *end != '\0';
}

static int parse_line(char *line, atune__record *r)
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
        return -1;
    if (field_copy(r->kernel, sizeof(r->kernel), f[0]) ||
        field_copy(r->size_key, sizeof(r->size_key), f[1]) ||
        field_copy(r->config, sizeof(r->config), f[2]) ||
        field_copy(r->hash, sizeof(r->hash), f[8]))
        return -1;
    field_copy(r->detail, sizeof(r->detail), n > 9 ? f[9] : "");
    st = atune__status_parse(f[3]);
    if (st < 0)
        return -1;
    r->status = (atune__status)st;
    if (parse_double(f[4], &r->time_ns) || parse_double(f[5], &r->spread_ns) ||
        parse_double(f[6], &r->metric))
        return -1;
    samples = strtol(f[7], &end, 10);
    if (*f[7] == '\0' || *end != '\0' || samples < 0 || samples > 1000000)
        return -1;
    r->samples = (int)samples;
    return 0;
}

int atune__journal_read(const char *path, atune__record **recs, int *n,
                        atune__err *err)
{
    char *text = NULL, *line, *next;
    atune__record *r = NULL;
    int cap = 0, count = 0, lineno = 0, rc;

    *recs = NULL;
    *n = 0;
    if ((rc = atune__read_file(path, &text, NULL, err)))
        return rc;
    for (line = text; line && *line; line = next) {
        next = strchr(line, '\n');
        if (next)
            *next++ = '\0';
        lineno++;
        if (line[0] == '#' || line[0] == '\0')
            continue;
        if (count == cap) {
            int ncap = cap ? cap * 2 : 256;
            atune__record *nr = realloc(r, sizeof(*r) * (size_t)ncap);
            if (!nr) {
                rc = atune__fail(err, ATUNE__EOSERR, "out of memory");
                goto fail;
            }
            r = nr;
            cap = ncap;
        }
        memset(&r[count], 0, sizeof(r[count]));
        if (parse_line(line, &r[count])) {
            rc = atune__fail(err, ATUNE__EDATA, "%s:%d: malformed record",
                             path, lineno);
            goto fail;
        }
        r[count++].line = lineno;
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
