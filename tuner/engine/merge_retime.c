/* merge_retime.c -- merge --device: the configurations that profiles of
 * one GPU model disagree on, timed side by side on a GPU of that model
 * (see profile_merge.h). */
#include "engine/profile_merge.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/retime.h"
#include "lib/profile_internal.h"
#include "template/space.h"
#include "template/templates.h"

/* The configuration c as one of m; 0 with why when it is not one. */
static int as_config(const atune__manifest *m, const atune_config *c,
                     atune__config *out, char *why, size_t whylen)
{
    char hash[17];

    snprintf(hash, sizeof(hash), "%016llx", (unsigned long long)m->hash);
    if (strcmp(atune_config_template_hash(c), hash) != 0) {
        snprintf(why, whylen,
                 "a section was tuned with another version of template "
                 "'%s' (template_hash %s, the templates' %s)",
                 m->name, atune_config_template_hash(c), hash);
        return 0;
    }
    memset(out, 0, sizeof(*out));
    for (int i = 0; i < m->nparams; i++) {
        out->v[i] = atune_config_get(c, m->params[i].name, INT64_MIN);
        if (out->v[i] == INT64_MIN) {
            snprintf(why, whylen, "a section has no %s", m->params[i].name);
            return 0;
        }
    }
    if (atune__space_index(m, out) < 0) {
        snprintf(why, whylen, "a configuration is not in the space of '%s'",
                 m->name);
        return 0;
    }
    return 1;
}

int atune__merge_retime_gpu(void *ctx, const char *kernel,
                            const char *size_key, const atune_config *const *c,
                            int n, double *time_ns, int *timed, char *why,
                            size_t whylen, atune__err *err)
{
    const atune__merge_gpu *g = ctx;
    const atune__manifest *m = atune__templates_find(g->t, 1, kernel);
    const atune__size *size = NULL;
    atune__config *cfg;
    atune__result *res;
    atune__timing tm;
    int rc;

    *timed = 0;
    if (!m) {
        snprintf(why, whylen, "no template '%s'", kernel);
        return 0;
    }
    for (int s = 0; s < m->nsizes && !size; s++) {
        char key[128];
        atune__size_key(&m->sizes[s], key, sizeof(key));
        if (atune__size_key_distance(key, size_key) == 0)
            size = &m->sizes[s];
    }
    if (!size) {
        snprintf(why, whylen, "template '%s' has no size %s", kernel,
                 size_key);
        return 0;
    }
    cfg = atune__calloc((size_t)n, sizeof(*cfg));
    res = atune__calloc((size_t)n, sizeof(*res));
    if (!cfg || !res) {
        free(cfg);
        free(res);
        return atune__fail(err, ATUNE__EOSERR, "out of memory");
    }
    for (int i = 0; i < n; i++)
        if (!as_config(m, c[i], &cfg[i], why, whylen))
            goto out;
    atune__timing_default(&tm);
    rc = atune__retime(g->d, m, size, cfg, n, &tm, g->seed, g->cache, time_ns,
                       res, err);
    if (rc) {
        free(cfg);
        free(res);
        return rc;
    }
    *timed = 1;
out:
    free(cfg);
    free(res);
    return 0;
}
