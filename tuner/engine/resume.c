/* resume.c -- the unfinished run's records, sorted for lookup (see
 * resume.h). */
#include "engine/resume.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct atune__resume {
    atune__record *recs;
    int n;
    unsigned char *used; /* per record: found by a look-up */
};

/* Orders by key, then by line, so the last record of a key is the last of
 * its run of equal keys. */
static int key_cmp(const atune__record *a, const atune__record *b)
{
    int c;

    if ((c = strcmp(a->kernel, b->kernel)) ||
        (c = strcmp(a->size_key, b->size_key)) ||
        (c = strcmp(a->config, b->config)) || (c = strcmp(a->hash, b->hash)))
        return c;
    return a->final - b->final;
}

static int rec_cmp(const void *pa, const void *pb)
{
    const atune__record *a = pa, *b = pb;
    int c = key_cmp(a, b);

    return c ? c : a->line - b->line;
}

int atune__resume_load(const char *path, const char *device,
                       atune__resume **out, atune__err *err)
{
    atune__resume *r = atune__calloc(1, sizeof(*r));
    int rc;

    *out = NULL;
    if (!r)
        return atune__fail(err, ATUNE__EOSERR, "out of memory");
    rc = atune__journal_read_pending(path, device, &r->recs, &r->n, NULL, 0,
                                     err);
    if (!rc && !(r->used = atune__calloc((size_t)r->n + 1, 1)))
        rc = atune__fail(err, ATUNE__EOSERR, "out of memory");
    if (rc) {
        free(r->recs);
        free(r);
        return rc;
    }
    if (r->n > 1)
        qsort(r->recs, (size_t)r->n, sizeof(*r->recs), rec_cmp);
    *out = r;
    return 0;
}

void atune__resume_runs(const atune__resume *r, char *buf, size_t len)
{
    size_t at = 0;

    if (len)
        buf[0] = '\0';
    for (int i = 0; r && i < r->n; i++) {
        const char *id = r->recs[i].run;
        size_t n = strlen(id);
        const char *p = buf;
        int seen = 0;
        if (!r->used[i] || !n)
            continue;
        for (; (p = strstr(p, id)); p += n)
            seen |= (p == buf || p[-1] == ',') && (p[n] == ',' || !p[n]);
        if (seen || at + n + 2 > len)
            continue;
        at += (size_t)snprintf(buf + at, len - at, "%s%s", at ? "," : "", id);
    }
}

int atune__resume_count(const atune__resume *r)
{
    return r ? r->n : 0;
}

const atune__record *atune__resume_find(const atune__resume *r,
                                        const char *kernel,
                                        const char *size_key,
                                        const char *config, uint64_t hash,
                                        int final)
{
    atune__record key;
    int lo = 0, hi, found = -1;

    if (!r || r->n == 0)
        return NULL;
    if (atune__strlcpy(key.kernel, kernel, sizeof(key.kernel)) ||
        atune__strlcpy(key.size_key, size_key, sizeof(key.size_key)) ||
        atune__strlcpy(key.config, config, sizeof(key.config)))
        return NULL;
    snprintf(key.hash, sizeof(key.hash), "%016llx", (unsigned long long)hash);
    key.final = final;
    hi = r->n - 1;
    /* The last of the equal keys: the newest measurement. */
    while (lo <= hi) {
        int mid = lo + (hi - lo) / 2;
        int c = key_cmp(&r->recs[mid], &key);
        if (c <= 0) {
            if (c == 0)
                found = mid;
            lo = mid + 1;
        } else {
            hi = mid - 1;
        }
    }
    if (found < 0)
        return NULL;
    r->used[found] = 1; /* its run is finished when this one is */
    return &r->recs[found];
}

void atune__resume_free(atune__resume *r)
{
    if (!r)
        return;
    free(r->used);
    free(r->recs);
    free(r);
}

void atune__resume_result(const atune__record *r, atune__result *res)
{
    memset(res, 0, sizeof(*res));
    res->status = r->status;
    res->time_ns = r->time_ns;
    res->spread_ns = r->spread_ns;
    res->metric = r->metric;
    res->samples = r->samples;
    res->unverified = r->unverified;
    atune__strlcpy(res->detail, r->detail, sizeof(res->detail));
}
