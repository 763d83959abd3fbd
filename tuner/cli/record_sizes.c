/* record_sizes.c -- `autotune tune --sizes-from RECORD`: the sizes that
 * applications recorded on this GPU model (ATUNE_RECORD) become the sizes
 * its templates are tuned at, so that the next run of the application
 * gets exact hits. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/record_sizes.h"
#include "base/number.h"
#include "jit/record.h"

/* The template called name, or NULL. */
static atune__manifest *template_of(const atune__templates *t, const char *name)
{
    for (int i = 0; i < t->n; i++)
        if (strcmp(t->m[i]->name, name) == 0)
            return t->m[i];
    return NULL;
}

/* Parses e's size ("m=4096,n=4096,k=4094", checked by the reader) into
 * s, its variables in m's order; ATUNE__EDATA with path:line when its
 * variables are not exactly m's. */
static int size_of(const char *path, const atune__rec_entry *e,
                   const atune__manifest *m, atune__size *s, atune__err *err)
{
    const atune__size *model = &m->sizes[0];
    int found[ATUNE__MAX_SIZE_VARS] = {0}, nitems = 0;
    const char *p = e->size;

    memset(s, 0, sizeof(*s));
    s->nvars = model->nvars;
    for (int i = 0; i < model->nvars; i++)
        atune__strlcpy(s->var[i], model->var[i], sizeof(s->var[i]));
    while (*p) {
        const char *eq = strchr(p, '=');
        const char *end;
        int k = -1;
        for (int i = 0; i < model->nvars; i++)
            if (strlen(model->var[i]) == (size_t)(eq - p) &&
                strncmp(model->var[i], p, (size_t)(eq - p)) == 0)
                k = i;
        if (k < 0 || found[k])
            return atune__fail(err, ATUNE__EDATA,
                               "%s:%d: size '%s' of %s: its variables are "
                               "not those of the template (%s)",
                               path, e->line, e->size, m->name, m->ini_path);
        found[k] = 1;
        nitems++;
        {
            char num[32];
            size_t len = strcspn(eq + 1, ",");
            int64_t v = 0;
            if (len >= sizeof(num))
                len = sizeof(num) - 1;
            memcpy(num, eq + 1, len);
            num[len] = '\0';
            if (atune__parse_i64(num, INT64_MIN, INT64_MAX, &v))
                return atune__fail(err, ATUNE__EDATA,
                                   "%s:%d: size '%s' of %s: '%s' is not a "
                                   "decimal integer",
                                   path, e->line, e->size, m->name, num);
            s->value[k] = v;
            end = eq + 1 + strcspn(eq + 1, ",");
        }
        p = *end == ',' ? end + 1 : end;
    }
    if (nitems != model->nvars)
        return atune__fail(err, ATUNE__EDATA,
                           "%s:%d: size '%s' of %s: its variables are not "
                           "those of the template (%s)",
                           path, e->line, e->size, m->name, m->ini_path);
    s->line = e->line;
    return 0;
}

/* Most served first: what the bound of sizes per template keeps. */
static int by_count(const void *a, const void *b)
{
    const atune__rec_entry *x = *(const atune__rec_entry *const *)a;
    const atune__rec_entry *y = *(const atune__rec_entry *const *)b;

    if (x->count != y->count)
        return x->count > y->count ? -1 : 1;
    return x->line - y->line;
}

int atune__cli_sizes_from(const char *path, const char *gpu,
                          const atune__templates *t, atune__templates *sel,
                          int quiet, atune__err *err)
{
    atune__record r = {0};
    const atune__rec_entry **mine = NULL;
    int n = 0, other_gpu = 0, unknown = 0, rc;

    if (sel)
        memset(sel, 0, sizeof(*sel));
    if ((rc = atune__record_read(path, 0, &r, err)) != 0)
        return rc;
    mine = calloc((size_t)r.n + 1, sizeof(*mine));
    if (!mine) {
        atune__record_free(&r);
        return atune__fail(err, ATUNE__EOSERR, "out of memory");
    }
    /* Every line of a template here must fit it, whatever its GPU. */
    for (int i = 0; i < r.n; i++) {
        const atune__rec_entry *e = &r.e[i];
        const atune__manifest *m = template_of(t, e->kernel);
        atune__size s;
        if (!m) {
            unknown++;
            continue;
        }
        if ((rc = size_of(path, e, m, &s, err)) != 0)
            goto out;
        if (!gpu || strcmp(e->gpu, gpu) != 0)
            other_gpu += gpu != NULL;
        else
            mine[n++] = e;
    }
    if (!gpu)
        goto out;
    if (n == 0) {
        rc = atune__fail(err, ATUNE__EUSAGE,
                         "record '%s' has no size of %s recorded on '%s' "
                         "(autotune show --record lists what it has)",
                         path, t->n == 1 ? t->m[0]->name : "these templates",
                         gpu);
        goto out;
    }
    qsort(mine, (size_t)n, sizeof(*mine), by_count);
    if (!(sel->m = calloc((size_t)t->n, sizeof(*sel->m)))) {
        rc = atune__fail(err, ATUNE__EOSERR, "out of memory");
        goto out;
    }
    /* The manifests keep their addresses: the compile children know
     * them by pointer, and sizes are no part of a compilation. */
    for (int i = 0; i < t->n; i++) {
        atune__manifest *m = t->m[i];
        int kept = 0, left = 0;
        atune__size sizes[ATUNE__MAX_SIZES];
        for (int k = 0; k < n; k++) {
            if (strcmp(mine[k]->kernel, m->name) != 0)
                continue;
            if (kept == ATUNE__MAX_SIZES) {
                left++;
                continue;
            }
            size_of(path, mine[k], m, &sizes[kept], err);
            snprintf(sizes[kept].name, sizeof(sizes[kept].name), "recorded_%d",
                     kept + 1);
            kept++;
        }
        if (kept == 0)
            continue;
        memcpy(m->sizes, sizes, sizeof(sizes[0]) * (size_t)kept);
        m->nsizes = kept;
        sel->m[sel->n++] = m;
        if (!quiet)
            fprintf(stderr,
                    "%s: %d size%s recorded on this GPU model in '%s'\n",
                    m->name, kept, kept == 1 ? "" : "s", path);
        if (left && !quiet)
            fprintf(stderr,
                    "%s: %d less served recorded size%s left out (at most "
                    "%d per template a run; tune again after this one)\n",
                    m->name, left, left == 1 ? "" : "s", ATUNE__MAX_SIZES);
    }
    if (!quiet && other_gpu)
        fprintf(stderr,
                "record: %d line%s of other GPU models not tuned "
                "here\n",
                other_gpu, other_gpu == 1 ? "" : "s");
    if (!quiet && unknown)
        fprintf(stderr,
                "record: %d line%s of kernels that are no template "
                "here (--templates, --kernel) not tuned\n",
                unknown, unknown == 1 ? "" : "s");
out:
    free(mine);
    atune__record_free(&r);
    if (rc && sel) {
        free(sel->m);
        memset(sel, 0, sizeof(*sel));
    }
    return rc;
}
