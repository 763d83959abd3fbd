/* cli.c -- what every command shares: error messages and the module cache
 * of a run. Kept apart from main.c so that the commands never call back
 * into the dispatcher. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "base/json.h"
#include "cli/cli.h"
#include "jit/cache.h"
#include "template/templates.h"

int atune__cli_error(int code, const char *fmt, ...)
{
    va_list ap;

    fputs("autotune: error: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    return code;
}

atune__cache *atune__cli_cache(const atune__cli *o)
{
    atune__cache *c = NULL;
    atune__err err;

    if (o->no_cache)
        return NULL;
    if (atune__cache_open(NULL, &c, &err)) {
        if (!o->quiet)
            fprintf(stderr, "autotune: warning: module cache off: %s\n",
                    err.msg);
        return NULL;
    }
    return c;
}

void atune__cli_cache_report(const atune__cli *o, atune__cache *c,
                             atune__json *j)
{
    atune__cache_stats s = {0};

    if (c)
        atune__cache_stats_get(c, &s);
    if (j) {
        atune__json_object(j, "cache");
        if (c)
            atune__json_str(j, "dir", atune__cache_dir(c));
        else
            atune__json_null(j, "dir");
        atune__json_int(j, "hits", s.hits);
        atune__json_int(j, "misses", s.misses);
        atune__json_int(j, "corrupt", s.corrupt);
        atune__json_end(j);
    } else if (!o->quiet && c && s.hits + s.misses > 0) {
        fprintf(stderr, "module cache %s: %ld hits, %ld misses%s\n",
                atune__cache_dir(c), s.hits, s.misses,
                s.corrupt ? " (damaged entries rebuilt)" : "");
    }
}

int atune__cli_size_known(const struct atune__templates *t, const char *name)
{
    for (int i = 0; i < t->n; i++)
        for (int k = 0; k < t->m[i]->nsizes; k++)
            if (strcmp(t->m[i]->sizes[k].name, name) == 0)
                return 1;
    return 0;
}
