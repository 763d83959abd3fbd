/* evaluate.c -- another GPU's best configurations, measured here (see
 * evaluate.h). */
#include "engine/evaluate.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <atune/atune.h>

#include "measure/profile_write.h"
#include "engine/retime.h"

/* One (kernel, size) to evaluate. */
typedef struct pair {
    const atune__manifest *m;
    const atune__size *size;
    char size_key[96];
    atune__config own, other;
    double own_ns, other_ns;
    char status[640]; /* "ok", or why the other configuration failed */
    const atune_profile *own_profile; /* which of the two is this GPU's */
} pair;

/* Why a profile has no usable configuration for (m, size_key). */
enum { FOUND = 0, ABSENT, INCOMPLETE, OTHER_VERSION };

static int exact_config(atune_profile *p, const atune__manifest *m,
                        const char *size_key, atune__config *out,
                        const char **missing)
{
    const atune_config *c = NULL;
    char hash[17];

    if (atune_profile_lookup(p, m->name, size_key, &c) != ATUNE_OK ||
        atune_config_size_match(c) != ATUNE_SIZE_EXACT)
        return ABSENT;
    snprintf(hash, sizeof(hash), "%016llx", (unsigned long long)m->hash);
    if (*atune_config_template_hash(c) &&
        strcmp(atune_config_template_hash(c), hash) != 0)
        return OTHER_VERSION;
    for (int i = 0; i < m->nparams; i++) {
        int k = 0;
        while (k < atune_config_count(c) &&
               strcmp(atune_config_name(c, k), m->params[i].name) != 0)
            k++;
        if (k == atune_config_count(c)) {
            *missing = m->params[i].name;
            return INCOMPLETE;
        }
        out->v[i] = atune_config_get(c, m->params[i].name, 0);
    }
    return FOUND;
}

/* Both configurations, side by side (retime.h). */
static int measure_pair(atune__device *d, const atune__tune_opts *o, pair *pr,
                        atune__err *err)
{
    atune__config c[2] = {pr->own, pr->other};
    double t[2];
    atune__result res[2];
    int rc = atune__retime(d, pr->m, pr->size, c, 2, &o->timing, o->seed,
                           o->cache, t, res, err);

    if (rc)
        return rc;
    pr->own_ns = t[0];
    pr->other_ns = t[1];
    snprintf(pr->status, sizeof(pr->status), "%s%s%s",
             atune__status_name(res[1].status), res[1].detail[0] ? ": " : "",
             res[1].detail);
    return 0;
}

/* port.<slug>.<field> = value among e's extra keys; nonzero when it does
 * not fit. */
static int put(atune__pw_entry *e, const char *slug, const char *field,
               const char *value)
{
    char key[64];
    int n = snprintf(key, sizeof(key), "port.%s.%s", slug, field);

    return n < 0 || (size_t)n >= sizeof(key) || atune__pw_extra(e, key, value);
}

/* The extra keys of one evaluated pair. */
static int entry_of(const pair *pr, const char *slug, atune__pw_entry *e,
                    atune__err *err)
{
    char cfg[128], t[32], pct[32], own[32];
    int bad;

    memset(e, 0, sizeof(*e));
    e->extras_only = 1;
    atune__strlcpy(e->kernel, pr->m->name, sizeof(e->kernel));
    atune__strlcpy(e->size_key, pr->size_key, sizeof(e->size_key));
    atune__config_str(pr->m, &pr->other, cfg, sizeof(cfg));
    snprintf(own, sizeof(own), "%.0f", pr->own_ns);
    if (isfinite(pr->other_ns)) {
        snprintf(t, sizeof(t), "%.0f", pr->other_ns);
        snprintf(pct, sizeof(pct), "%.1f", pr->own_ns / pr->other_ns * 100);
    } else { /* it failed here: worth nothing */
        snprintf(t, sizeof(t), "0");
        snprintf(pct, sizeof(pct), "0");
    }
    bad = put(e, slug, "config", cfg) || put(e, slug, "time_ns", t) ||
          put(e, slug, "own_ns", own) || put(e, slug, "percent", pct);
    return bad ? atune__fail(err, ATUNE__EDATA,
                             "slug '%s' too long for a profile key", slug)
               : 0;
}

/* A time in ms for the table; "-" for one not measured (the
 * configuration failed). */
static const char *ms(double ns, char *buf, size_t len)
{
    if (isfinite(ns))
        snprintf(buf, len, "%.3f ms", ns / 1e6);
    else
        snprintf(buf, len, "-");
    return buf;
}

static void report(const pair *pr, int n, const char *other, atune__json *j)
{
    if (!j)
        printf("%-10s %-22s %-40s %12s %12s %8s  %s\n", "kernel", "size",
               other, "its time", "own best", "percent", "status");
    for (int i = 0; i < n; i++) {
        char cfg[512], t_other[32], t_own[32];
        double pct = isfinite(pr[i].other_ns)
                         ? pr[i].own_ns / pr[i].other_ns * 100
                         : 0;
        atune__config_str(pr[i].m, &pr[i].other, cfg, sizeof(cfg));
        if (!j) {
            printf("%-10s %-22s %-40s %12s %12s %7.1f%%  %s\n",
                   pr[i].m->name, pr[i].size_key, cfg,
                   ms(pr[i].other_ns, t_other, sizeof(t_other)),
                   ms(pr[i].own_ns, t_own, sizeof(t_own)), pct,
                   pr[i].status);
            continue;
        }
        atune__json_object(j, NULL);
        atune__json_str(j, "kernel", pr[i].m->name);
        atune__json_str(j, "size", pr[i].size_key);
        atune__json_str(j, "config", cfg);
        atune__json_num(j, "time_ns", isfinite(pr[i].other_ns)
                                          ? pr[i].other_ns
                                          : 0);
        atune__json_num(j, "own_ns", isfinite(pr[i].own_ns) ? pr[i].own_ns
                                                            : 0);
        atune__json_num(j, "percent", pct);
        atune__json_str(j, "status", pr[i].status);
        atune__json_end(j);
    }
}

/* Whether p holds a configuration of x's kernel and size for this
 * template version; says why not. */
static int usable(atune_profile *p, pair *x, const atune__tune_opts *o)
{
    const char *missing = "";
    atune__config *c = p == x->own_profile ? &x->own : &x->other;
    int why = exact_config(p, x->m, x->size_key, c, &missing);

    if (why == FOUND)
        return 1;
    if (o->quiet)
        return 0;
    if (why == ABSENT)
        fprintf(stderr, "%s %s: not in %s, skipped\n", x->m->name,
                x->size_key, atune_profile_path(p));
    else if (why == INCOMPLETE)
        fprintf(stderr, "%s %s: %s: the section has no %s (incomplete), "
                        "skipped\n",
                x->m->name, x->size_key, atune_profile_path(p), missing);
    else
        fprintf(stderr, "%s %s: %s was tuned with another version of "
                        "template '%s' (template_hash), skipped\n",
                x->m->name, x->size_key, atune_profile_path(p), x->m->name);
    return 0;
}

/* Every (kernel, size) of t that both profiles hold exactly. */
static int collect(const atune__templates *t, const atune__tune_opts *o,
                   atune_profile *own, atune_profile *oth, pair *pr, int *n)
{
    *n = 0;
    for (int i = 0; i < t->n; i++)
        for (int s = 0; s < t->m[i]->nsizes; s++) {
            pair *x = &pr[*n];
            memset(x, 0, sizeof(*x));
            x->m = t->m[i];
            x->size = &x->m->sizes[s];
            x->own_profile = own;
            if (o->size && strcmp(o->size, x->size->name) != 0)
                continue;
            atune__size_key(x->size, x->size_key, sizeof(x->size_key));
            if (usable(own, x, o) && usable(oth, x, o))
                (*n)++;
            continue;
        }
    return 0;
}

static int open_profile(const char *path, atune_profile **p, atune__err *err)
{
    int rc = atune_profile_open(path, p);

    if (rc == ATUNE_OK)
        return 0;
    rc = atune__fail(err, rc == ATUNE_ENOTFOUND || rc == ATUNE_EIO
                              ? ATUNE__ENOINPUT
                              : ATUNE__EDATA,
                     "%s", atune_profile_errmsg(*p));
    atune_profile_close(*p);
    *p = NULL;
    return rc;
}

int atune__evaluate(atune__device *d, const atune__templates *t,
                    const atune__tune_opts *o, const char *other,
                    atune__json *j, atune__err *err)
{
    atune_profile *own = NULL, *oth = NULL;
    atune__pw_entry *e = NULL;
    atune__pw_device pd;
    char path[4096], slug[128];
    pair *pr = atune__calloc((size_t)t->n * ATUNE__MAX_SIZES + 1, sizeof(*pr));
    int n = 0, rc;

    if (!pr)
        return atune__fail(err, ATUNE__EOSERR, "out of memory");
    atune__device_pw_entry(d, &pd);
    snprintf(path, sizeof(path), "%s/%s.ini", o->profile_dir, pd.slug);
    rc = open_profile(other, &oth, err);
    if (!rc && (rc = open_profile(path, &own, err)) == ATUNE__ENOINPUT)
        atune__err_prefix(err, "tune this GPU first: ");
    /* This GPU's own profile against itself measures nothing. */
    if (!rc && strcmp(atune_profile_device(oth)->name, pd.name) == 0)
        rc = atune__fail(err, ATUNE__EUSAGE,
                         "--evaluate '%s' is a profile of this GPU model "
                         "(%s): give the profile of another GPU",
                         other, pd.name);
    if (!rc) {
        atune__slugify(atune_profile_device(oth)->name, slug, sizeof(slug));
        rc = collect(t, o, own, oth, pr, &n);
    }
    for (int i = 0; !rc && i < n; i++)
        rc = measure_pair(d, o, &pr[i], err);
    if (!rc && n > 0 && !(e = atune__calloc((size_t)n, sizeof(*e))))
        rc = atune__fail(err, ATUNE__EOSERR, "out of memory");
    for (int i = 0; !rc && i < n; i++)
        rc = entry_of(&pr[i], slug, &e[i], err);
    /* Both profiles are closed before the write takes the lock. */
    atune_profile_close(own);
    atune_profile_close(oth);
    if (!rc && n > 0)
        rc = atune__profile_update(path, &pd, e, n, err);
    if (!rc)
        report(pr, n, slug, j);
    free(e);
    free(pr);
    return rc;
}
