/* check_changes.c -- `check` reports a parameter that changes nothing:
 * a macro in the compiled code, or one that nothing reads at all (see
 * check_changes.h). */
#include "cli/check_changes.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Compiles configuration c (through the owner's child when there are
 * children); the FNV-1a of its CUBIN in *h, or -1 when it does not
 * compile. */
static int cubin_hash(const atune__manifest *m, const atune__config *c,
                      const char *arch, const char *const *names, int nnames,
                      atune__cache *cache, atune__procs *procs, uint64_t *h,
                      atune__err *err)
{
    atune__cubin cb;
    atune__config at = *c;
    int rc, hit;

    /* Names that read the size: compared at the first size. */
    atune__config_at_size(m, &at, &m->sizes[0]);
    rc = procs ? atune__procs_compile_own(procs, m, &at, arch, names, nnames,
                                          &cb, &hit, err)
               : atune__jit_compile_cached(cache, m, &at, arch, names, nnames,
                                           &cb, &hit, err);
    if (rc == ATUNE__EDATA)
        return -1;
    if (rc)
        return rc;
    *h = atune__fnv1a(cb.data, cb.len, ATUNE__FNV_SEED);
    atune__cubin_free(&cb);
    return 0;
}

/* A macro parameter whose values all compile to the same CUBIN changes
 * nothing in the code: the source ignores it (or overrides it in a way
 * the loader cannot see). Tried from two configurations, the first and
 * the last checked, each with the parameter set to every value; a
 * parameter that changes the code in either is fine. *bad: set when one
 * changes nothing and no manifest expression reads it either (tuning it
 * only multiplies the space); one that [launch] reads gets a note. */
static int by_rest(const void *a, const void *b)
{
    const struct hashrec *x = a, *y = b;

    return x->rest < y->rest ? -1 : x->rest > y->rest;
}

/* Whether two compiled configurations that differ only in parameter p
 * compiled to different CUBINs. */
static int changes_among(const atune__manifest *m, int p, struct hashrec *hr,
                         int64_t n)
{
    for (int64_t i = 0; i < n; i++) {
        atune__config c;
        atune__space_config(m, hr[i].idx, &c);
        c.v[p] = 0;
        hr[i].rest = atune__fnv1a(c.v, sizeof(c.v[0]) * (size_t)m->nparams,
                                  ATUNE__FNV_SEED);
    }
    qsort(hr, (size_t)n, sizeof(*hr), by_rest);
    for (int64_t i = 1; i < n; i++)
        if (hr[i].rest == hr[i - 1].rest && hr[i].h != hr[i - 1].h)
            return 1;
    return 0;
}

/* A template's defect: into j's open failures array, else on stderr. */
static void report(atune__json *j, const char *msg)
{
    if (j) {
        atune__json_object(j, NULL);
        atune__json_str(j, "config", "");
        atune__json_str(j, "error", msg);
        atune__json_end(j);
    } else {
        fprintf(stderr, "autotune: error: %s\n", msg);
    }
}

/* A macro parameter whose values all compile to the same CUBIN changes
 * nothing in the code: the source ignores it (or overrides it in a way
 * the loader cannot see). First the configurations checked are compared
 * (those differing only in the parameter); then, from up to 8 of them
 * spread over the space, the parameter is set to every value that keeps
 * the configuration valid and compiled, as code that uses it only under
 * another parameter's value (one kernel variant of several) shows a
 * change only from some. */
int atune__check_changes(const atune__manifest *m, const char *arch,
                         const atune__valid_set *valid,
                         const int64_t *index, int64_t k,
                         struct hashrec *hr, int64_t nhr,
                         const char *const *names, int nnames,
                         atune__cache *cache, atune__procs *procs,
                         atune__json *j, int *bad, atune__err *err)
{
    for (int p = 0; p < m->nparams; p++) {
        const atune__param *pa = &m->params[p];
        int changes = 0, tried = 0, rc;
        if (!pa->macro || pa->nvalues < 2 || k == 0)
            continue;
        changes = hr && changes_among(m, p, hr, nhr);
        for (int b = 0; b < 8 && b < k && !changes; b++) {
            atune__config c;
            uint64_t first = 0, h;
            int ok = 0;
            atune__space_config(m, index[(int64_t)((double)b * k / 8)], &c);
            int nbad = 0;
            for (int v = 0; v < pa->nvalues && !changes; v++) {
                c.v[p] = pa->values[v];
                /* Only values the constraints allow here: one they rule
                 * out may compile to the same CUBIN for a reason of its
                 * own (tile_stride_x with a tile of one, in the FAIR
                 * benchmark hub's dedispersion). */
                if (atune__valid_set_find(valid,
                                          atune__space_index(m, &c)) < 0)
                    continue;
                rc = cubin_hash(m, &c, arch, names, nnames, cache, procs,
                                &h, err);
                if (rc > 0)
                    return rc;
                /* One value compiles, another does not (an #error, a
                 * static_assert): the code reads it. */
                if (rc < 0) {
                    changes = ok > 0;
                    nbad++;
                    continue;
                }
                if (nbad)
                    changes = 1;
                if (ok++ == 0)
                    first = h;
                else if (h != first)
                    changes = 1;
            }
            tried += ok >= 2;
        }
        if (changes || !tried)
            continue;
        if (atune__manifest_expr_reads(m, pa->name)) {
            fprintf(stderr,
                    "autotune: note: %s:%d: parameter '%s' changes nothing "
                    "in the code (every value compiles to the same CUBIN); "
                    "only [launch] sees it: declare it not a macro "
                    "(not_macros = %s) so that its values share one "
                    "module\n",
                    m->ini_path, pa->line, pa->name, pa->name);
            continue;
        }
        *bad = 1;
        {
            char msg[1024];
            snprintf(msg, sizeof(msg),
                     "%s:%d: parameter '%s' changes nothing: every value "
                     "(%d) compiles to the same CUBIN and no [launch], "
                     "[constraints] or [args] expression reads it. Fix: use "
                     "it in %s (as a macro), or remove it from [params]",
                     m->ini_path, pa->line, pa->name, pa->nvalues,
                     m->cu_path);
            report(j, msg);
        }
    }
    return 0;
}

void atune__check_unread(const atune__manifest *m, atune__json *j, int *bad)
{
    for (int p = 0; p < m->nparams; p++) {
        const atune__param *pa = &m->params[p];
        char why[1024], hint[ATUNE__NAME_MAX + 1100] = "", msg[4096];
        const char *fix = "name the knob the source reads";
        if (!pa->unread)
            continue;
        *bad = 1;
        if (!pa->named)
            snprintf(why, sizeof(why), "%s %s it, so it is not passed as -D%s",
                     m->cu_path,
                     m->nheaders ? "and its headers never name"
                                 : "never names",
                     pa->name);
        else {
            snprintf(why, sizeof(why), "%s, so it is not passed as -D%s",
                     m->param_macros ? "not_macros lists it"
                                     : "param_macros = no",
                     pa->name);
            fix = m->param_macros ? "remove it from not_macros (the source "
                                    "names it)"
                                  : "pass it in the kernel's name "
                                    "expression";
        }
        if (pa->near[0] && pa->near_line)
            snprintf(hint, sizeof(hint), " Did you mean '%s' (%s:%d)?",
                     pa->near, m->cu_path, pa->near_line);
        else if (pa->near[0])
            snprintf(hint, sizeof(hint),
                     " Did you mean '%s' (in a header of %s)?", pa->near,
                     m->cu_path);
        snprintf(msg, sizeof(msg),
                 "%s:%d: parameter '%s' changes nothing: %s, and no "
                 "[launch], [constraints], [args] or [macros] expression "
                 "and no name expression reads it: its %d values would "
                 "only multiply the space.%s Fix: %s, use it in "
                 "[launch], or remove it from [params]",
                 m->ini_path, pa->line, pa->name, why, pa->nvalues, hint,
                 fix);
        report(j, msg);
    }
}
