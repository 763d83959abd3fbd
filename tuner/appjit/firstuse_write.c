/* firstuse_write.c -- what first use (firstuse.c) writes: the section
 * of the size it measured, in the user's profile directory, through the
 * tool's profile writer (measure/profile_write.h: locked, atomic, only if
 * the section is still as it was seen). */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "appjit/firstuse_internal.h"

static void say(char *msg, size_t len, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void say(char *msg, size_t len, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(msg, len, fmt, ap);
    va_end(ap);
}

/* The user's profile directory, as the search path names it
 * (lib/profile_path.c, which a shared libatune hides):
 * $XDG_DATA_HOME/autotune/profiles, else ~/.local/share/autotune/profiles. */
int atune__fu_user_dir(char *buf, size_t len)
{
    const char *xdg = getenv("XDG_DATA_HOME");
    const char *home = getenv("HOME");
    int n;

    if (xdg && xdg[0] == '/')
        n = snprintf(buf, len, "%s/autotune/profiles", xdg);
    else if (home && home[0] == '/')
        n = snprintf(buf, len, "%s/.local/share/autotune/profiles", home);
    else
        return -1;
    return n > 0 && (size_t)n < len ? 0 : -1;
}

/* mkdir -p, mode 0755 less the umask. */
int atune__fu_make_dirs(const char *path, char *why, size_t len)
{
    char p[4096];
    struct stat st;

    if (snprintf(p, sizeof(p), "%s", path) >= (int)sizeof(p)) {
        say(why, len, "directory name too long");
        return -1;
    }
    for (char *s = p + 1;; s++) {
        char c = *s;
        if (c != '/' && c != '\0')
            continue;
        *s = '\0';
        if (mkdir(p, 0755) != 0 && errno != EEXIST) {
            say(why, len, "cannot create '%s': %s", p, strerror(errno));
            return -1;
        }
        *s = c;
        if (c == '\0')
            break;
    }
    if (stat(path, &st) != 0 || !S_ISDIR(st.st_mode)) {
        say(why, len, "'%s' is not a directory", path);
        return -1;
    }
    return 0;
}

static void fill_entry(const fu_run *r, const cand *c, const char *key,
                       const char *strategy, const char *what,
                       atune__pw_entry *e)
{
    const atune__manifest *m = r->j->m;
    char v[64], note[sizeof(e->extra_value[0])];

    memset(e, 0, sizeof(*e));
    atune__strlcpy(e->kernel, m->name, sizeof(e->kernel));
    atune__strlcpy(e->size_key, key, sizeof(e->size_key));
    e->nparams = m->nparams;
    for (int i = 0; i < m->nparams; i++) {
        atune__strlcpy(e->param[i], m->params[i].name, sizeof(e->param[i]));
        e->value[i] = c->cfg.v[i];
    }
    e->time_ns = (int64_t)(c->res.time_ns + 0.5);
    e->spread_ns = (int64_t)(c->res.spread_ns + 0.5);
    e->metric = c->res.metric;
    atune__strlcpy(e->metric_unit, m->metric == ATUNE__GBS ? "GB/s" : "GFLOP/s",
                   sizeof(e->metric_unit));
    for (int i = 0; i < r->n; i++)
        if (atune__space_index(m, &r->c[i].cfg) == 0 && r->c[i].evaluated &&
            r->c[i].res.status == ATUNE__ST_OK)
            e->default_time_ns = (int64_t)(r->c[i].res.time_ns + 0.5);
    e->evaluated = r->evaluated;
    e->space = atune__space_size(m);
    atune__strlcpy(e->strategy, strategy, sizeof(e->strategy));
    snprintf(e->template_hash, sizeof(e->template_hash), "%s", r->j->hash);
    snprintf(v, sizeof(v), "first-use-%ld-%.0f", (long)getpid(),
             atune__now() * 1e6);
    atune__pw_extra(e, "run", v);
    /* A profile value fits a line of the writer's: a longer note (patient
     * says how its search stopped) is cut, not dropped. */
    snprintf(note, sizeof(note), "%s", what);
    if (strlen(what) >= sizeof(note))
        memcpy(note + sizeof(note) - 4, "...", 4);
    atune__pw_extra(e, "first_use", note);
}

/* The configuration of c's section in the profile at path (exact, this
 * template), or -1; *seen what the section was. */
int atune__fu_section(atune_jit *j, const char *path, const char *key,
                      atune__config *cfg, atune__pw_seen *seen)
{
    atune_profile *p = NULL;
    const atune_config *pc;
    const char *run;
    int rc = -1;

    memset(seen, 0, sizeof(*seen));
    if (atune_profile_open(path, &p) == ATUNE_OK &&
        atune_profile_lookup(p, j->m->name, key, &pc) == ATUNE_OK &&
        atune_config_size_match(pc) == ATUNE_SIZE_EXACT) {
        seen->present = 1;
        run = atune_config_meta(pc, "run");
        atune__strlcpy(seen->run, run ? run : "", sizeof(seen->run));
        atune__jit_config_from(j->m, pc, cfg);
        rc = strcmp(atune_config_template_hash(pc), j->hash) == 0 ? 0 : -1;
    }
    atune_profile_close(p);
    return rc;
}

int atune__fu_write(const fu_run *r, int i, const char *path, const char *base,
                    const char *key, const char *strategy, const char *what,
                    const atune__pw_seen *seen, int *changed, atune__err *err)
{
    atune__pw_device pd;
    atune__pw_entry *e = atune__calloc(1, sizeof(*e));
    int rc;

    *changed = 0;
    if (!e)
        return atune__fail(err, ATUNE__EOSERR, "out of memory");
    atune__device_pw_entry(r->d, &pd);
    fill_entry(r, &r->c[i], key, strategy, what, e);
    rc = atune__profile_update_based(path, base, &pd, e, seen, changed, err);
    free(e);
    return rc;
}
