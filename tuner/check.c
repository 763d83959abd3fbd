/* check.c -- `autotune check`: compile every valid configuration of every
 * template with NVRTC, on all cores. Needs no GPU and no driver. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "compile.h"
#include "json.h"
#include "space.h"
#include "templates.h"

/* Indices of the configurations valid at any size of the template. */
static int valid_configs(const atune__manifest *m, int64_t *index,
                         int64_t *n, atune__err *err)
{
    int64_t total = atune__space_size(m);
    unsigned char *valid = atune__calloc((size_t)total, 1);
    atune__devattr dev;
    int rc = 0;

    if (!valid)
        return atune__fail(err, ATUNE__EOSERR, "out of memory");
    atune__devattr_default(&dev);
    for (int s = 0; !rc && s < m->nsizes; s++)
        rc = atune__space_mark_valid(m, &m->sizes[s], &dev, valid, NULL, err);
    *n = 0;
    for (int64_t i = 0; !rc && i < total; i++)
        if (valid[i])
            index[(*n)++] = i;
    free(valid);
    return rc;
}

/* Compiles one template; reports; returns the number of failures, or a
 * negative error code. */
static void report_failure(atune__json *j, const char *cfg, const char *msg)
{
    if (j) {
        atune__json_object(j, NULL);
        atune__json_str(j, "config", cfg);
        atune__json_str(j, "error", msg);
        atune__json_end(j);
    } else {
        fprintf(stderr, "autotune: error: %s\n", msg);
    }
}

/* Compiles one template on every core; reports each failure; adds the
 * number of failures to *failed. */
static int check_one(const atune__manifest *m, const atune__cli *o,
                     atune__cache *cache, atune__json *j, int64_t *failed)
{
    const char *names[] = {m->kernel, m->reference};
    int64_t *index = atune__calloc((size_t)atune__space_size(m),
                                   sizeof(int64_t));
    int64_t n = 0, nfailed = 0;
    atune__pool *pool = NULL;
    atune__err err;
    double t0 = atune__now();
    int rc;

    if (!index)
        return atune__cli_error(ATUNE__EOSERR, "out of memory");
    rc = valid_configs(m, index, &n, &err);
    if (!rc)
        rc = atune__pool_start(m, o->arch, names, 2, index, n, 0, cache,
                               &pool, &err);
    if (!rc && j) {
        atune__json_object(j, NULL);
        atune__json_str(j, "name", m->name);
        atune__json_int(j, "configurations", n);
        atune__json_array(j, "failures");
    }
    for (int64_t i = 0; !rc && i < n; i++) {
        const atune__cubin *cubin;
        const char *msg;
        atune__config c;
        char cfg[512];

        rc = atune__pool_get(pool, index[i], &cubin, &msg, &err);
        if (rc || !msg)
            continue;
        nfailed++;
        atune__space_config(m, index[i], &c);
        atune__config_str(m, &c, cfg, sizeof(cfg));
        report_failure(j, cfg, msg);
    }
    if (j && pool) {
        atune__json_end(j);
        atune__json_int(j, "failed", nfailed);
        atune__json_num(j, "seconds", atune__now() - t0);
        atune__json_end(j);
    } else if (!rc && !o->quiet) {
        printf("%-10s %6lld configurations compiled for %s, %lld failed, "
               "%.1f s\n",
               m->name, (long long)n, o->arch, (long long)nfailed,
               atune__now() - t0);
    }
    if (rc)
        atune__cli_error(rc, "%s", err.msg);
    atune__pool_free(pool);
    free(index);
    *failed += nfailed;
    return rc;
}

int atune__cmd_check(const atune__cli *o)
{
    atune__templates t = {0};
    atune__json json, *j = NULL;
    atune__cache *cache;
    atune__err err;
    int64_t failed = 0;
    int rc;

    atune__err_clear(&err);
    rc = atune__templates_load(o->templates, o->kernels, &t, &err);
    if (rc)
        return atune__cli_error(rc, "%s", err.msg);
    cache = atune__cli_cache(o);
    if (o->json) {
        j = &json;
        atune__json_init(j, stdout);
        atune__json_object(j, NULL);
        atune__json_int(j, "schema", 1);
        atune__json_str(j, "arch", o->arch);
        atune__json_array(j, "templates");
    }
    for (int i = 0; !rc && i < t.n; i++)
        rc = check_one(t.m[i], o, cache, j, &failed);
    if (j) {
        atune__json_end(j);
        atune__json_int(j, "failed", failed);
        atune__cli_cache_report(o, cache, j);
        atune__json_end(j);
    } else {
        atune__cli_cache_report(o, cache, NULL);
    }
    atune__cache_close(cache);
    atune__templates_free(&t);
    if (!rc && failed)
        rc = ATUNE__EDATA;
    return rc;
}
