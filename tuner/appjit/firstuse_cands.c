/* firstuse_cands.c -- which configurations race at first use
 * (firstuse.c): the defaults, what the profile serves, and the tuned
 * entries nearest to the size in the profile given, the user's and the
 * other profiles of the search path, each configuration once. */
#include <dirent.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "appjit/firstuse_internal.h"

int atune__fu_add(fu_run *r, const atune__config *cfg, const char *fmt, ...)
{
    const atune__manifest *m = r->j->m;
    va_list ap;

    if (r->n >= r->cap || atune__space_index(m, cfg) < 0)
        return -1;
    for (int i = 0; i < r->n; i++)
        if (memcmp(r->c[i].cfg.v, cfg->v, sizeof(cfg->v[0]) * m->nparams) ==
            0)
            return i;
    memset(&r->c[r->n], 0, sizeof(r->c[r->n]));
    r->c[r->n].cfg = *cfg;
    /* compiled at the size measured (a name that reads it: one module per
     * size) */
    atune__config_at_values(m, &r->c[r->n].cfg, r->size);
    va_start(ap, fmt);
    vsnprintf(r->c[r->n].from, sizeof(r->c[r->n].from), fmt, ap);
    va_end(ap);
    return r->n++;
}

/* The entries of j's kernel in p with the template's size variables,
 * nearest to v first (log2 distance, as the profile look-up measures
 * it), at most n of them, as candidates. */
typedef struct near {
    double d;
    int i;
} near;

static int near_cmp(const void *x, const void *y)
{
    const near *a = x, *b = y;

    return a->d < b->d ? -1 : a->d > b->d ? 1 : a->i - b->i;
}

void atune__fu_neighbours(fu_run *r, atune_profile *p, const int64_t *v, int n,
                           const char *where)
{
    atune_jit *j = r->j;
    int count = atune_profile_count(p), nn = 0;
    near *e = count > 0 ? malloc(sizeof(*e) * (size_t)count) : NULL;

    for (int i = 0; e && i < count; i++) {
        const atune_config *c = atune_profile_entry(p, i);
        int64_t w[ATUNE__MAX_SIZE_VARS];
        double dd = 0;
        if (strcmp(atune_config_kernel(c), j->m->name) != 0)
            continue;
        if (atune__jit_size_values(j, atune_config_size(c), w) != ATUNE_OK) {
            j->msg[0] = '\0';
            continue;
        }
        for (int k = 0; k < j->nsize; k++)
            dd += fabs(log2((double)(w[k] > 0 ? w[k] : 1)) -
                       log2((double)(v[k] > 0 ? v[k] : 1)));
        e[nn].d = dd;
        e[nn++].i = i;
    }
    if (nn > 1)
        qsort(e, (size_t)nn, sizeof(*e), near_cmp);
    for (int k = 0, added = 0; k < nn && added < n; k++) {
        const atune_config *c = atune_profile_entry(p, e[k].i);
        atune__config cfg;
        int before = r->n;
        atune__jit_config_from(j->m, c, &cfg);
        atune__fu_add(r, &cfg, "the tuned entry of %s in %s '%s'",
                 atune_config_size(c), where, atune_profile_device(p)->name);
        added += r->n > before;
    }
    free(e);
}

/* The nearest entries of the other profiles on the search path
 * (atune_profile_search_path): other GPU models' winners near the size
 * are often good here too, and a GPU with no profile has nothing else. */
void atune__fu_search_path(fu_run *r, const char *skip1, const char *skip2,
                            const int64_t *v)
{
    char dirs[8192], path[4096];
    int files = 0;

    if (atune_profile_search_path(dirs, sizeof(dirs)) != ATUNE_OK)
        return;
    for (char *dir = strtok(dirs, ":"); dir && files < PATH_FILES;
         dir = strtok(NULL, ":")) {
        DIR *d = opendir(dir);
        struct dirent *de;
        while (d && (de = readdir(d)) != NULL && files < PATH_FILES &&
               r->n < r->cap) {
            size_t n = strlen(de->d_name);
            atune_profile *q = NULL;
            if (n < 5 || strcmp(de->d_name + n - 4, ".ini") != 0 ||
                de->d_name[0] == '.' ||
                snprintf(path, sizeof(path), "%s/%s", dir, de->d_name) >=
                    (int)sizeof(path) ||
                (skip1 && strcmp(path, skip1) == 0) ||
                (skip2 && strcmp(path, skip2) == 0))
                continue;
            files++;
            if (atune_profile_open(path, &q) == ATUNE_OK)
                atune__fu_neighbours(r, q, v, NEIGHBOURS, "the profile of");
            atune_profile_close(q);
        }
        if (d)
            closedir(d);
    }
}

