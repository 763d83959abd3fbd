/* simulate.c -- replay of a results journal (see simulate.h). */
#include "engine/simulate.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "template/space.h"

static size_t pair_hash(const atune__record *r)
{
    uint64_t h = atune__fnv1a(r->kernel, strlen(r->kernel) + 1,
                              ATUNE__FNV_SEED);

    return (size_t)atune__fnv1a(r->size_key, strlen(r->size_key), h);
}

int atune__sim_pairs(const atune__record *recs, int n, atune__sim_pair **out,
                     int *npairs, atune__err *err)
{
    atune__sim_pair *p = NULL;
    int np = 0, *pair_of, *slot, *order, *fill;
    size_t nslots = 4, mask;

    *out = NULL;
    *npairs = 0;
    if (n <= 0)
        return 0;
    while (nslots < 2 * (size_t)n)
        nslots *= 2;
    mask = nslots - 1;
    /* the pairs, then the records' indices grouped by pair */
    p = atune__calloc(1, (size_t)n * (sizeof(*p) + sizeof(int)));
    pair_of = atune__calloc((size_t)n, sizeof(*pair_of));
    slot = atune__calloc(nslots, sizeof(*slot));
    fill = atune__calloc((size_t)n, sizeof(*fill));
    if (!p || !pair_of || !slot || !fill) {
        free(p);
        free(pair_of);
        free(slot);
        free(fill);
        return atune__fail(err, ATUNE__EOSERR, "out of memory");
    }
    order = (int *)(p + n);
    for (int i = 0; i < n; i++) {
        size_t h = pair_hash(&recs[i]) & mask;
        int j;
        for (;; h = (h + 1) & mask) {
            j = slot[h] - 1;
            if (j < 0 || (strcmp(p[j].kernel, recs[i].kernel) == 0 &&
                          strcmp(p[j].size_key, recs[i].size_key) == 0))
                break;
        }
        if (j < 0) {
            j = np++;
            slot[h] = j + 1;
            p[j] = (atune__sim_pair){recs[i].kernel, recs[i].size_key,
                                     recs[i].line, NULL, 0};
        }
        pair_of[i] = j;
        p[j].nrec++;
    }
    for (int j = 0, at = 0; j < np; j++) {
        p[j].rec = order + at;
        fill[j] = at;
        at += p[j].nrec;
    }
    for (int i = 0; i < n; i++)
        order[fill[pair_of[i]]++] = i;
    free(pair_of);
    free(slot);
    free(fill);
    *out = p;
    *npairs = np;
    return 0;
}

void atune__sim_close(atune__sim *s)
{
    free(s->valid);
    free(s->time_ns);
    free(s->spread_ns);
    free(s->seen);
    memset(s, 0, sizeof(*s));
    s->optimum = -1;
}

void atune__sim_reset(atune__sim *s)
{
    memset(s->seen, 0, (size_t)s->total);
    s->evaluations = 0;
}

/* Applies one record of the pair (the last one of a configuration wins
 * because records are applied in file order). */
static int apply(atune__sim *s, const atune__record *r, const char *hash,
                 const char *path, atune__err *err)
{
    atune__config c;
    int64_t idx;
    int rc;

    if (strcmp(r->hash, hash) != 0)
        return atune__fail(err, ATUNE__EDATA,
                           "%s:%d: journal was recorded with a different "
                           "version of template '%s'",
                           path, r->line, s->m->name);
    if ((rc = atune__config_parse(s->m, r->config, &c, err))) {
        atune__err_prefix(err, "%s:%d: ", path, r->line);
        return rc;
    }
    idx = atune__space_index(s->m, &c);
    if (idx < 0 || idx >= s->total)
        return atune__fail(err, ATUNE__EDATA,
                           "%s:%d: configuration '%s' is not in the space "
                           "of template '%s'",
                           path, r->line, r->config, s->m->name);
    s->valid[idx] = r->status != ATUNE__ST_INVALID;
    s->time_ns[idx] =
        r->status == ATUNE__ST_OK && r->time_ns > 0 ? r->time_ns : INFINITY;
    s->spread_ns[idx] = r->spread_ns;
    return 0;
}

/* Counts the space and finds the optimum once every record is applied. */
static void summarize(atune__sim *s)
{
    for (int64_t i = 0; i < s->total; i++) {
        if (!s->valid[i])
            continue;
        s->space++;
        if (!isfinite(s->time_ns[i]))
            continue;
        s->ok++;
        if (s->optimum < 0 || s->time_ns[i] < s->optimum_ns) {
            s->optimum = i;
            s->optimum_ns = s->time_ns[i];
            s->optimum_spread_ns = s->spread_ns[i];
        }
    }
}

/* The replay from recs[idx[0..n-1]] (idx NULL: recs[0..n-1]). */
static int open_recs(atune__sim *s, const atune__manifest *m,
                     const char *size_key, const atune__record *recs,
                     const int *idx, int n, const char *path,
                     atune__err *err)
{
    char hash[17];
    int rc = 0;

    memset(s, 0, sizeof(*s));
    s->m = m;
    s->optimum = -1;
    s->optimum_ns = INFINITY;
    s->total = atune__space_size(m);
    if (atune__strlcpy(s->size_key, size_key, sizeof(s->size_key)))
        return atune__fail(err, ATUNE__EDATA, "%s: size '%s' is too long", path,
                           size_key);
    s->valid = atune__calloc((size_t)s->total, 1);
    s->time_ns = atune__calloc((size_t)s->total, sizeof(*s->time_ns));
    s->spread_ns = atune__calloc((size_t)s->total, sizeof(*s->spread_ns));
    s->seen = atune__calloc((size_t)s->total, 1);
    if (!s->valid || !s->time_ns || !s->spread_ns || !s->seen) {
        rc = atune__fail(err, ATUNE__EOSERR, "out of memory");
        goto fail;
    }
    for (int64_t i = 0; i < s->total; i++)
        s->time_ns[i] = NAN;
    snprintf(hash, sizeof(hash), "%016llx", (unsigned long long)m->hash);
    for (int i = 0; i < n; i++) {
        const atune__record *r = &recs[idx ? idx[i] : i];
        if (strcmp(r->kernel, m->name) != 0 ||
            strcmp(r->size_key, size_key) != 0)
            continue;
        if ((rc = apply(s, r, hash, path, err)))
            goto fail;
    }
    summarize(s);
    return 0;
fail:
    atune__sim_close(s);
    return rc;
}

int atune__sim_open(atune__sim *s, const atune__manifest *m,
                    const char *size_key, const atune__record *recs, int n,
                    const char *path, atune__err *err)
{
    return open_recs(s, m, size_key, recs, NULL, n, path, err);
}

int atune__sim_open_pair(atune__sim *s, const atune__manifest *m,
                         const atune__sim_pair *p, const atune__record *recs,
                         const char *path, atune__err *err)
{
    return open_recs(s, m, p->size_key, recs, p->rec, p->nrec, path, err);
}

int atune__sim_eval(void *ctx, int64_t idx, double *time_ns, double *spread_ns,
                    atune__err *err)
{
    atune__sim *s = ctx;

    *time_ns = INFINITY;
    *spread_ns = 0;
    if (idx < 0 || idx >= s->total || !s->valid[idx])
        return atune__fail(err, ATUNE__ESOFTWARE,
                           "%s %s: the search proposed configuration %lld, "
                           "which is not valid",
                           s->m->name, s->size_key, (long long)idx);
    if (s->seen[idx])
        return atune__fail(err, ATUNE__ESOFTWARE,
                           "%s %s: the search evaluated configuration %lld "
                           "twice",
                           s->m->name, s->size_key, (long long)idx);
    s->seen[idx] = 1;
    s->evaluations++;
    *time_ns = s->time_ns[idx];
    if (isfinite(*time_ns))
        *spread_ns = s->spread_ns[idx];
    return 0;
}

int atune__sim_remeasure(void *ctx, const int64_t *idx, int k, double *time_ns,
                         atune__err *err)
{
    atune__sim *s = ctx;

    for (int i = 0; i < k; i++) {
        if (idx[i] < 0 || idx[i] >= s->total || !s->seen[idx[i]])
            return atune__fail(err, ATUNE__ESOFTWARE,
                               "%s %s: re-measure of configuration %lld, "
                               "which was not evaluated",
                               s->m->name, s->size_key, (long long)idx[i]);
        time_ns[i] = s->time_ns[idx[i]];
    }
    return 0;
}
