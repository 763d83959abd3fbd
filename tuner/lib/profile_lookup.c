/* profile_lookup.c -- finding the configuration of a kernel at a problem
 * size in an open profile, and reading a configuration. */
#include "lib/profile_impl.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TIE_EPS 1e-9 /* log2 distances closer than this tie */
/* Tuned sizes nearer each other than this (log2, per variable: 0.7%)
 * are equally near a size between others. */
#define SAME_SIZE 0.01

static const char empty[] = "";

static const kernel *find_kernel(const atune_profile *p, const char *name)
{
    int lo = 0, hi = p->nkernels;

    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        int c = strcmp(p->kernels[mid].name, name);
        if (c == 0)
            return &p->kernels[mid];
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

/* The sizes of k with the variables of q, or NULL. */
static const shape *find_shape(const atune_profile *p, const kernel *k,
                               const size_vars *q)
{
    for (int i = k->first; i < k->first + k->count; i++) {
        const shape *s = &p->shapes[i];
        if (atune__size_vars_cmp(&p->sorted[s->first]->vars, q) == 0)
            return s;
    }
    return NULL;
}

/* How many times 2 divides v (up to 16): how much a tuned size is a
 * multiple of. */
static int twos(int64_t v)
{
    int a = 0;

    while (v > 0 && v % 2 == 0 && a < 16) {
        v /= 2;
        a++;
    }
    return a;
}

static int alignment(const entry *e)
{
    int a = 0;

    for (int i = 0; i < e->vars.n; i++)
        a += twos(e->vars.v[i].val);
    return a;
}

static double distance(const entry *e, const double *lq, int n)
{
    double d = 0;

    for (int i = 0; i < n; i++)
        d += fabs(e->lg[i] - lq[i]);
    return d;
}

/* The entry of s at exactly size q, else the nearest on a log scale (ties:
 * the larger tuned size, then the first in the file), or, of the tuned
 * sizes within SAME_SIZE of that one, the one that is a multiple of fewer
 * powers of two (4097 rather than 4096, for anything but 4096 itself). A
 * winner at a power of two often relies on it (tiles or waves of blocks
 * that fit exactly: constmem's at 4096^2 on the H200 reaches 90% of the
 * optimum at 3473^2, 4097^2's 100%; matmul's at 4096^3 91% at 4132^3), so
 * ladders of odd sizes sit beside the powers of two an application names,
 * and answer everything between.
 * Why the nearest, between the points of a ladder: the library has no
 * time of any configuration at the size asked for, so "the faster of both
 * neighbours' configurations" cannot be decided here, and on the recorded
 * journals (tests/data/journals, H100 and H200) it would rarely differ:
 * at the tuned sizes that lie between two others (reduce n=1048576,
 * constmem 1024x1024), the nearest neighbour's winner reached 94.9-100% of
 * the size's optimum, the better of both neighbours' winners 94.9-100%
 * (+0.4 point once in four). What decides is the distance: a winner's
 * share of another size's optimum falls with it (reduce on the H200:
 * 95% at 1.05x, 46-70% at 256x), so ladders are dense (a step of sqrt 2:
 * every size within 2^0.25 of a tuned one) and the rule stays simple. */
static entry *nearest(const atune_profile *p, const shape *s,
                      const size_vars *q, int *exact)
{
    entry **first = p->sorted + s->first;
    double lq[MAX_VARS], best_d = HUGE_VAL;
    entry *best = NULL, *answer;

    for (int j = 0; j < s->count; j++) {
        if (atune__size_same_values(&first[j]->vars, q)) {
            *exact = 1;
            return first[j];
        }
    }
    for (int i = 0; i < q->n; i++)
        lq[i] = atune__size_log2(q->v[i].val);
    for (int j = 0; j < s->count; j++) {
        entry *e = first[j];
        double d = distance(e, lq, q->n);

        if (!best || d < best_d - TIE_EPS ||
            (d <= best_d + TIE_EPS && e->lgsum > best->lgsum + TIE_EPS)) {
            best = e;
            best_d = d;
        }
    }
    answer = best;
    for (int j = 0; best && j < s->count; j++) {
        entry *e = first[j];
        if (distance(e, best->lg, q->n) <= SAME_SIZE * q->n &&
            alignment(e) < alignment(answer))
            answer = e;
    }
    *exact = 0;
    return answer;
}

/* The view of e for a nearest match at q: the one an earlier lookup at q
 * made, else a new one. Views are never changed once published, so that a
 * configuration an application holds keeps its text while other threads
 * look up; a race may publish two views of one size, which is harmless. */
static const struct atune_config *nearest_view(entry *e, const size_vars *q)
{
    struct atune_config *head =
        atomic_load_explicit(&e->nearest, memory_order_acquire);
    struct atune_config *v;

    for (v = head; v; v = v->next) {
        int same = 1;
        for (int i = 0; i < q->n && same; i++)
            same = v->wanted[i] == q->v[i].val;
        if (same)
            return v;
    }
    if (!(v = calloc(1, sizeof(*v))))
        return NULL;
    v->e = e;
    v->match = ATUNE_SIZE_NEAREST;
    for (int i = 0; i < q->n; i++)
        v->wanted[i] = q->v[i].val;
    do
        v->next = head;
    while (!atomic_compare_exchange_weak_explicit(
        &e->nearest, &head, v, memory_order_release, memory_order_acquire));
    return v;
}

int atune_profile_lookup(atune_profile *p, const char *kernel_name,
                         const char *size, const atune_config **out)
{
    const kernel *k;
    const shape *s;
    size_vars q;
    const char *why;
    entry *e;
    int exact;

    if (!p)
        return ATUNE_EINVAL;
    if (out)
        *out = NULL;
    if (!kernel_name || !size || !out)
        return atune__lookup_fail(p, ATUNE_EINVAL,
                                  "lookup with a NULL argument");
    if (p->status != ATUNE_OK)
        return atune__lookup_fail(p, ATUNE_EINVAL,
                                  "lookup on a profile that did not open");
    if ((why = atune__size_parse(size, 1, &q)) != NULL)
        return atune__lookup_fail(p, ATUNE_EINVAL, "bad size '%s': %s", size,
                                  why);
    k = find_kernel(p, kernel_name);
    if (!k)
        return atune__lookup_fail(p, ATUNE_ENOTFOUND,
                                  "%s: no entry for kernel '%s'", p->path,
                                  kernel_name);
    if ((s = find_shape(p, k, &q)) == NULL)
        return atune__lookup_fail(
            p, ATUNE_ENOTFOUND,
            "%s: kernel '%s' has no tuned size with the variables of '%s'",
            p->path, kernel_name, size);
    e = nearest(p, s, &q, &exact);
    *out = exact ? &e->exact : nearest_view(e, &q);
    if (!*out)
        return atune__lookup_fail(p, ATUNE_ENOMEM, "out of memory");
    atune__lookup_ok(p);
    return ATUNE_OK;
}

int atune_profile_count(const atune_profile *p)
{
    return p && p->status == ATUNE_OK ? p->nentries : 0;
}

const atune_config *atune_profile_entry(const atune_profile *p, int i)
{
    if (i < 0 || i >= atune_profile_count(p))
        return NULL;
    return &p->entries[i].exact;
}

/* ---- configurations ----------------------------------------------------- */

int atune_config_count(const atune_config *c)
{
    return c ? c->e->nparams : 0;
}

const char *atune_config_name(const atune_config *c, int i)
{
    return c && i >= 0 && i < c->e->nparams ? c->e->pname[i] : NULL;
}

int64_t atune_config_value(const atune_config *c, int i)
{
    return c && i >= 0 && i < c->e->nparams ? c->e->pval[i] : 0;
}

int64_t atune_config_get(const atune_config *c, const char *param, int64_t dflt)
{
    if (!c || !param)
        return dflt;
    for (int i = 0; i < c->e->nparams; i++)
        if (strcmp(c->e->pname[i], param) == 0)
            return c->e->pval[i];
    return dflt;
}

const char *atune_config_kernel(const atune_config *c)
{
    return c ? c->e->kernel : empty;
}

const char *atune_config_size(const atune_config *c)
{
    return c ? c->e->size : empty;
}

atune_size_match atune_config_size_match(const atune_config *c)
{
    return c ? c->match : ATUNE_SIZE_EXACT;
}

int64_t atune_config_time_ns(const atune_config *c)
{
    return c ? c->e->time_ns : 0;
}

int64_t atune_config_default_time_ns(const atune_config *c)
{
    return c ? c->e->default_time_ns : 0;
}

const char *atune_config_template_hash(const atune_config *c)
{
    return c ? c->e->hash : empty;
}

const char *atune_config_meta(const atune_config *c, const char *key)
{
    const atune__ini_entry *e;
    char pkey[ATUNE__INI_MAX_NAME + 8];

    if (!c || !key || !c->e->sec)
        return NULL;
    e = atune__ini_get(c->e->sec, key);
    /* A parameter with lower-case letters is stored as param.NAME. */
    if (!e && strlen(key) <= ATUNE__INI_MAX_NAME) {
        snprintf(pkey, sizeof(pkey), "param.%s", key);
        e = atune__ini_get(c->e->sec, pkey);
    }
    return e ? e->value : NULL;
}

/* The size a nearest match was asked for, variables in the tuned size's
 * order: "n=1000000". */
static void format_wanted(const atune_config *c, char *buf, size_t len)
{
    const entry *e = c->e;
    size_t n = 0;

    buf[0] = '\0';
    for (int pos = 0; pos < e->vars.n; pos++) {
        for (int i = 0; i < e->vars.n && n < len; i++) {
            const size_var *v = &e->vars.v[i];
            if (v->pos != pos)
                continue;
            n += (size_t)snprintf(buf + n, len - n, "%s%.*s=%lld",
                                  pos ? "," : "", (int)v->len, v->name,
                                  (long long)c->wanted[i]);
        }
    }
}

static const char *device_note(const atune_profile *p, char *buf, size_t len)
{
    switch (p->match) {
    case ATUNE_DEVICE_EXACT:
        return " (same GPU model)";
    case ATUNE_DEVICE_NAME:
        snprintf(buf, len,
                 " (same GPU model, tuned with %d SMs, this one has %d)",
                 p->dev.sm_count, p->wanted.sm_count);
        return buf;
    case ATUNE_DEVICE_CC:
        snprintf(buf, len, " (same compute capability as '%s')",
                 p->wanted.name);
        return buf;
    case ATUNE_DEVICE_FILE:
        break;
    }
    return "";
}

/* "copy: using the application's configuration BLOCK_SIZE=128,VW=4". */
static void describe_override(const atune_config *c, char *buf, size_t len)
{
    const entry *e = c->e;
    size_t n = (size_t)snprintf(buf, len,
                                "%s%susing the application's "
                                "configuration",
                                e->kernel, *e->kernel ? ": " : "");

    for (int i = 0; i < e->nparams && n < len; i++)
        n += (size_t)snprintf(buf + n, len - n, "%c%s=%lld", i ? ',' : ' ',
                              e->pname[i], (long long)e->pval[i]);
    if (e->nparams == 0 && n < len)
        snprintf(buf + n, len - n, " (empty: the template's defaults)");
}

/* Where a nearest match's size lies among the tuned sizes of its kernel
 * with its variables: " between n=741455 and n=1048576" (the nearest tuned
 * size on the log scale with every variable at most, and the one with
 * every variable at least, the size asked for), " below every tuned size",
 * " above every tuned size", or "" (neither: another shape, e.g. a skinny
 * size among square ones). */
static void describe_around(const atune_profile *p, const atune_config *c,
                            char *buf, size_t len)
{
    const entry *e = c->e, *lo = NULL, *hi = NULL;
    const kernel *k = find_kernel(p, e->kernel);
    const shape *s = k ? find_shape(p, k, &e->vars) : NULL;
    double dlo = HUGE_VAL, dhi = HUGE_VAL;
    int nlo = 0, nhi = 0;

    buf[0] = '\0';
    for (int j = 0; s && j < s->count; j++) {
        const entry *t = p->sorted[s->first + j];
        int le = 1, ge = 1;
        double d = 0;
        for (int i = 0; i < e->vars.n; i++) {
            le &= t->vars.v[i].val <= c->wanted[i];
            ge &= t->vars.v[i].val >= c->wanted[i];
            d += fabs(t->lg[i] - atune__size_log2(c->wanted[i]));
        }
        nlo += le;
        nhi += ge;
        if (le && d < dlo) {
            lo = t;
            dlo = d;
        }
        if (ge && d < dhi) {
            hi = t;
            dhi = d;
        }
    }
    if (lo && hi)
        snprintf(buf, len, " between %s and %s", lo->size, hi->size);
    else if (s && nhi == s->count)
        snprintf(buf, len, " below every tuned size");
    else if (s && nlo == s->count)
        snprintf(buf, len, " above every tuned size");
}

int atune_config_describe(const atune_profile *p, const atune_config *c,
                          char *buf, size_t len)
{
    char wanted[256], note[400], around[300] = "";
    const entry *e;
    int exact;

    if (!buf || len == 0)
        return ATUNE_EINVAL;
    buf[0] = '\0';
    if (c && c->match == ATUNE_SIZE_OVERRIDE) {
        describe_override(c, buf, len);
        return ATUNE_OK;
    }
    if (!c || (!p && !c->e->owner))
        return ATUNE_EINVAL;
    e = c->e;
    if (e->owner)
        p = e->owner;
    exact = c->match == ATUNE_SIZE_EXACT;
    if (exact)
        snprintf(wanted, sizeof(wanted), "%s", e->size);
    else
        format_wanted(c, wanted, sizeof(wanted));
    if (!exact)
        describe_around(p, c, around, sizeof(around));
    {
        /* An entry that libatune_jit measured at first use says so. */
        const atune__ini_entry *fu =
            e->sec ? atune__ini_get(e->sec, "first_use") : NULL;
        snprintf(buf, len,
                 "%s %s: using tuned size %s (%s)%s from profile '%s'%s in "
                 "'%s'%s%s%s%s",
                 e->kernel, wanted, e->size, exact ? "exact" : "nearest",
                 around, p->dev.name, device_note(p, note, sizeof(note)),
                 p->path, fu ? "; measured at first use: " : "",
                 fu ? fu->value : "", p->warning ? "; warning: " : "",
                 p->warning ? p->warning : "");
    }
    return ATUNE_OK;
}
