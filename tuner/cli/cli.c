/* cli.c -- what every command shares: error messages and the module cache
 * of a run. Kept apart from main.c so that the commands never call back
 * into the dispatcher. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <cuda.h>

#include "base/json.h"
#include "base/term.h"
#include "cli/cli.h"
#include "jit/cache.h"
#include "jit/jit.h"
#include "template/templates.h"

int atune__cli_error(int code, const char *fmt, ...)
{
    char msg[4096];
    va_list ap;
    int n;

    va_start(ap, fmt);
    n = vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    if (n < 0)
        n = 0;
    fputs("autotune: error: ", stderr);
    /* Escaped here too: a GPU worker's stderr is not guarded (main.c),
     * and its messages quote profiles and manifests. */
    atune__term_escape(stderr, msg,
                       (size_t)n < sizeof(msg) ? (size_t)n : sizeof(msg) - 1, 0);
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

/* What became of damaged entries and of the size limit, for the cache
 * line: "" when there is nothing to say. */
static void cache_notes(const atune__cache_stats *s, char *buf, size_t len)
{
    size_t n = 0;

    buf[0] = '\0';
    if (s->rebuilt)
        n += (size_t)snprintf(buf + n, len - n, ", %ld damaged %s rebuilt",
                              s->rebuilt, s->rebuilt == 1 ? "entry" : "entries");
    if (s->unreplaced && n < len)
        n += (size_t)snprintf(buf + n, len - n,
                              ", %ld damaged %s could not be replaced",
                              s->unreplaced,
                              s->unreplaced == 1 ? "entry" : "entries");
    if (s->evicted && n < len)
        snprintf(buf + n, len - n, ", %ld evicted (size limit)", s->evicted);
}

void atune__cli_cache_report(const atune__cli *o, atune__cache *c,
                             atune__json *j)
{
    atune__cache_stats s = {0};
    char notes[256];

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
        atune__json_int(j, "rebuilt", s.rebuilt);
        atune__json_int(j, "not_rebuilt", s.unreplaced);
        atune__json_int(j, "evicted", s.evicted);
        atune__json_end(j);
    } else if (!o->quiet && c && s.hits + s.misses > 0) {
        cache_notes(&s, notes, sizeof(notes));
        fprintf(stderr, "module cache %s: %ld hits, %ld misses%s\n",
                atune__cache_dir(c), s.hits, s.misses, notes);
    }
}

int atune__cli_templates(const atune__cli *o, const char *only,
                         atune__templates *t, atune__err *err)
{
    return atune__templates_load_dirs(o->template_dirs, o->ntemplate_dirs,
                                      only, t, err);
}

int atune__cli_size_known(const struct atune__templates *t, const char *name)
{
    for (int i = 0; i < t->n; i++)
        for (int k = 0; k < t->m[i]->nsizes; k++)
            if (strcmp(t->m[i]->sizes[k].name, name) == 0)
                return 1;
    return 0;
}

void atune__cli_json_begin(atune__json *j, const char *journal)
{
    atune__json_init(j, stdout);
    atune__json_object(j, NULL);
    atune__json_int(j, "schema", 1);
    atune__json_str(j, "tuner", ATUNE_VERSION_STRING);
    if (journal)
        atune__json_str(j, "journal", journal);
    atune__json_array(j, "results");
}

/* main.c's and header's --version: here, as commands never call into
 * main.c. */
void atune__cli_version(void)
{
    int nv = atune__jit_version();

    printf("autotune %s (built with CUDA %d.%d, NVRTC %d.%d)\n",
           ATUNE_VERSION_STRING, CUDA_VERSION / 1000,
           CUDA_VERSION % 1000 / 10, nv / 1000, nv % 1000 / 10);
}
