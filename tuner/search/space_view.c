/* space_view.c -- the space as the techniques see it: valid
 * configurations as rank vectors, their neighbourhoods, and the helpers
 * that turn what a technique makes up into a configuration worth
 * evaluating (see technique.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "search/technique.h"
#include "template/space.h"

/* The valid positions: spec->index when given, else the set entries of
 * spec->valid, in ascending space index order either way. */
static int valid_index(atune__space_view *sp, const atune__search_spec *spec,
                       atune__err *err)
{
    int64_t total = atune__space_size(spec->m), k = 0;

    if (spec->index)
        sp->nvalid = spec->nvalid;
    else if (spec->valid)
        for (int64_t i = 0; i < total; i++)
            sp->nvalid += spec->valid[i] != 0;
    sp->index = atune__calloc((size_t)sp->nvalid, sizeof(*sp->index));
    if (!sp->index)
        return atune__fail(err, ATUNE__EOSERR, "out of memory");
    if (spec->index)
        memcpy(sp->index, spec->index, (size_t)sp->nvalid * sizeof(int64_t));
    else if (spec->valid)
        for (int64_t i = 0; i < total; i++)
            if (spec->valid[i])
                sp->index[k++] = i;
    return 0;
}

int atune__space_view_init(atune__space_view *sp,
                           const atune__search_spec *spec, atune__err *err)
{
    const atune__manifest *m = spec->m;
    int rc;

    memset(sp, 0, sizeof(*sp));
    sp->np = m->nparams;
    for (int p = sp->np - 1; p >= 0; p--) {
        const atune__param *pa = &m->params[p];
        sp->nv[p] = pa->nvalues;
        sp->stride[p] = p == sp->np - 1 ? 1 : sp->stride[p + 1] * sp->nv[p + 1];
        /* Rank of each value: how many values are smaller. */
        for (int i = 0; i < pa->nvalues; i++) {
            int r = 0;
            for (int j = 0; j < pa->nvalues; j++)
                r += pa->values[j] < pa->values[i];
            sp->list_pos[p][r] = i;
        }
    }
    if ((rc = valid_index(sp, spec, err)))
        return rc;
    sp->coord = atune__calloc((size_t)sp->nvalid, (size_t)sp->np);
    if (!sp->coord)
        return atune__fail(err, ATUNE__EOSERR, "out of memory");
    for (int64_t k = 0; k < sp->nvalid; k++) {
        int64_t i = sp->index[k];
        for (int p = 0; p < sp->np; p++) {
            int lp = (int)(i / sp->stride[p] % sp->nv[p]);
            for (int r = 0; r < sp->nv[p]; r++)
                if (sp->list_pos[p][r] == lp)
                    sp->coord[k * sp->np + p] = (atune__rank)r;
        }
    }
    return 0;
}

void atune__space_view_free(atune__space_view *sp)
{
    free(sp->index);
    free(sp->coord);
}

int64_t atune__lookup(const atune__space_view *sp, const atune__rank *c)
{
    int64_t idx = 0;

    for (int p = 0; p < sp->np; p++)
        idx += sp->list_pos[p][c[p]] * sp->stride[p];
    return atune__index_find(sp->index, sp->nvalid, idx);
}

/* The neighbour of pos one step along parameter p in direction dir (+1 or
 * -1). Constraints punch holes into the space, so a step skips invalid
 * values until it reaches a valid configuration or the end of the list. */
static int64_t step(const atune__search_state *s, int64_t pos, int p, int dir)
{
    atune__rank c[ATUNE__MAX_PARAMS];

    memcpy(c, atune__coord(s, pos), (size_t)s->sp.np);
    for (int r = c[p] + dir; r >= 0 && r < s->sp.nv[p]; r += dir) {
        int64_t q;
        c[p] = (atune__rank)r;
        if ((q = atune__lookup(&s->sp, c)) >= 0)
            return q;
    }
    return -1;
}

int atune__adjacent(const atune__search_state *s, int64_t pos, int64_t *out)
{
    int n = 0;

    for (int p = 0; p < s->sp.np; p++)
        for (int dir = -1; dir <= 1; dir += 2) {
            int64_t q = step(s, pos, p, dir);
            if (q >= 0)
                out[n++] = q;
        }
    return n;
}

/* In the order of a variable neighbourhood descent: the one-step
 * neighbours first (in random order), then those that change one
 * parameter to any other value (in random order). One-step moves follow
 * the smooth trends of ordered parameters; the others cross what rank
 * order hides, such as GRID = 0 ("cover the data once") sitting next to
 * GRID = 1 while behaving like the largest grids. */
int atune__neighbourhood(atune__search_state *s, int64_t pos, int64_t *out)
{
    return atune__neighbourhood_r(s, &s->r, pos, out);
}

int atune__neighbourhood_r(const atune__search_state *s, atune__rng *r,
                           int64_t pos, int64_t *out)
{
    atune__rank c[ATUNE__MAX_PARAMS];
    const atune__rank *at = atune__coord(s, pos);
    int n = atune__adjacent(s, pos, out), near = n;

    atune__rng_shuffle(r, out, near);
    memcpy(c, at, (size_t)s->sp.np);
    for (int p = 0; p < s->sp.np; p++) {
        for (int v = 0; v < s->sp.nv[p]; v++) {
            int64_t q;
            int dup = 0;
            c[p] = (atune__rank)v;
            if (v == at[p] || (q = atune__lookup(&s->sp, c)) < 0)
                continue;
            for (int i = 0; i < near && !dup; i++)
                dup = out[i] == q;
            if (!dup)
                out[n++] = q;
        }
        c[p] = at[p];
    }
    atune__rng_shuffle(r, out + near, n - near);
    return n;
}

int atune__diagonal(atune__search_state *s, int64_t pos, int64_t *out)
{
    atune__rank c[ATUNE__MAX_PARAMS];
    const atune__rank *at = atune__coord(s, pos);
    int n = 0, np = s->sp.np;

    memcpy(c, at, (size_t)np);
    for (int p = 0; p < np; p++)
        for (int q = p + 1; q < np; q++)
            for (int dp = -1; dp <= 1; dp += 2)
                for (int dq = -1; dq <= 1; dq += 2) {
                    int rp = at[p] + dp, rq = at[q] + dq;
                    int64_t k;
                    if (rp < 0 || rp >= s->sp.nv[p] || rq < 0 ||
                        rq >= s->sp.nv[q])
                        continue;
                    c[p] = (atune__rank)rp;
                    c[q] = (atune__rank)rq;
                    if ((k = atune__lookup(&s->sp, c)) >= 0)
                        out[n++] = k;
                    c[p] = at[p];
                    c[q] = at[q];
                }
    atune__rng_shuffle(&s->r, out, n);
    return n;
}

/* Rejection while most are new, else a scan for the k-th new one. */
int64_t atune__random_new(atune__search_state *s)
{
    int64_t left = s->sp.nvalid - s->n, k;

    if (left <= 0)
        return -1;
    if (left * 4 >= s->sp.nvalid) {
        for (;;) {
            int64_t pos = atune__rng_below(&s->r, s->sp.nvalid);
            if (!s->done[pos])
                return pos;
        }
    }
    k = atune__rng_below(&s->r, left);
    for (int64_t pos = 0; pos < s->sp.nvalid; pos++)
        if (!s->done[pos] && k-- == 0)
            return pos;
    return -1;
}

/* The configuration not evaluated yet whose ranks are closest to c (sum of
 * rank differences), ties broken at random; -1 when none is left. This
 * repairs what crossover and mutation produce: invalid or known points. */
static int64_t nearest_new(atune__search_state *s, const atune__rank *c)
{
    int64_t best = -1, ties = 0;
    int bestd = 1 << 30;

    for (int64_t pos = 0; pos < s->sp.nvalid; pos++) {
        const atune__rank *q = atune__coord(s, pos);
        int d = 0;
        if (s->done[pos])
            continue;
        for (int p = 0; p < s->sp.np && d <= bestd; p++)
            d += abs((int)q[p] - (int)c[p]);
        if (d < bestd) {
            bestd = d;
            best = pos;
            ties = 1;
        } else if (d == bestd && atune__rng_below(&s->r, ++ties) == 0) {
            best = pos;
        }
    }
    return best;
}

int64_t atune__repair(atune__search_state *s, const atune__rank *c)
{
    int64_t pos = atune__lookup(&s->sp, c);

    return pos >= 0 && !s->done[pos] ? pos : nearest_new(s, c);
}

double atune__worse(double a, double b)
{
    if (isinf(b))
        return isinf(a) ? 0 : INFINITY;
    if (isinf(a))
        return -INFINITY;
    return (b - a) / a;
}

double atune__progress(const atune__search_state *s)
{
    double f = (double)s->n / (double)s->horizon;

    return f < 1 ? f : 1;
}

void atune__told_nothing(void *st, atune__search_state *s, int64_t pos,
                         double t, int how)
{
    (void)st, (void)s, (void)pos, (void)t, (void)how;
}
