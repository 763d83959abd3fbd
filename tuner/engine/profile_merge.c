/* profile_merge.c -- profiles of one GPU model combined section by section,
 * the better configuration of each kept by evidence (see profile_merge.h).
 *
 * Sections are re-emitted from the library's parse of each file, so a file
 * applications could not read is never merged, and the result is read
 * back before it replaces OUT (profile_file.c). */
#include "engine/profile_merge.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "measure/profile_write.h"
#include "lib/inidoc.h"
#include "lib/profile_internal.h"

#define MERGED "merged_"
#define ID_LEN 1024

/* A profile taking part: OUT's old self or an input. */
typedef struct source {
    const char *path;
    atune_profile *p;
    const atune__ini *doc;
} source;

/* One section of one source. */
typedef struct cand {
    const source *src;
    const atune__ini_section *s;
    const atune_config *c;
    int group;       /* index of its section name in the result */
    double time_ns;  /* recorded; INFINITY when it has none */
    char id[ID_LEN]; /* its configuration: template_hash|NAME=V,... */
} cand;

typedef struct text {
    char *buf;
    size_t len, cap;
} text;

static int emit(text *t, atune__err *err, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int emit(text *t, atune__err *err, const char *fmt, ...)
{
    va_list ap;
    int n;

    for (;;) {
        size_t room = t->cap - t->len;
        va_start(ap, fmt);
        n = vsnprintf(t->buf ? t->buf + t->len : NULL, room, fmt, ap);
        va_end(ap);
        if (n < 0)
            return atune__fail(err, ATUNE__ESOFTWARE, "cannot format a line");
        if ((size_t)n + 2 <= room)
            break;
        size_t cap = t->cap ? t->cap * 2 : 4096;
        while (cap < t->len + (size_t)n + 2)
            cap *= 2;
        char *b = realloc(t->buf, cap);
        if (!b)
            return atune__fail(err, ATUNE__EOSERR, "out of memory");
        t->buf = b;
        t->cap = cap;
    }
    t->len += (size_t)n;
    t->buf[t->len++] = '\n';
    t->buf[t->len] = '\0';
    return 0;
}

static int is_merge_key(const char *key)
{
    return strncmp(key, MERGED, strlen(MERGED)) == 0;
}

/* ---- reading the candidates ------------------------------------------- */

static void push_id(char *id, size_t len, const char *s)
{
    size_t n = strlen(id);

    if (n + 1 < len)
        snprintf(id + n, len - n, "%s", s);
}

/* The identity of c's configuration: its template version and parameters
 * by name, so that two files that list them in other orders agree. */
static void config_id(const atune_config *c, char *id, size_t len)
{
    int n = atune_config_count(c), order[64];

    snprintf(id, len, "%s|", atune_config_template_hash(c));
    if (n > 64)
        n = 64;
    for (int i = 0; i < n; i++) {
        int j = i;
        for (; j > 0 && strcmp(atune_config_name(c, order[j - 1]),
                               atune_config_name(c, i)) > 0;
             j--)
            order[j] = order[j - 1];
        order[j] = i;
    }
    for (int i = 0; i < n; i++) {
        char kv[128];
        snprintf(kv, sizeof(kv), "%s%s=%lld", i ? "," : "",
                 atune_config_name(c, order[i]),
                 (long long)atune_config_value(c, order[i]));
        push_id(id, len, kv);
    }
}

/* "BLOCK_SIZE=256,VW=4": c's parameters in the file's order, for people. */
static void config_str(const atune_config *c, char *buf, size_t len)
{
    buf[0] = '\0';
    for (int i = 0; i < atune_config_count(c); i++) {
        char kv[128];
        snprintf(kv, sizeof(kv), "%s%s=%lld", i ? "," : "",
                 atune_config_name(c, i), (long long)atune_config_value(c, i));
        push_id(buf, len, kv);
    }
}

/* The sections of src, each a candidate of its canonical name's group
 * (names: the groups so far, in order of first appearance). */
static int collect(const source *src, cand *cands, int *ncand,
                   char (*names)[ATUNE__INI_MAX_NAME + 1], int *nnames,
                   atune__err *err)
{
    for (int i = 0; i < src->doc->nsections; i++) {
        const atune__ini_section *s = &src->doc->sections[i];
        char canon[ATUNE__INI_MAX_NAME + 1], kernel[ATUNE__INI_MAX_NAME + 1];
        const char *sp;
        cand *c = &cands[*ncand];
        int g = 0;

        if (strcmp(s->name, "device") == 0 || s->name[0] == '\0')
            continue;
        /* The library accepted the file: every other name parses. */
        if (atune__section_canon(s->name, canon, sizeof(canon), NULL, 0) != 0)
            return atune__fail(err, ATUNE__EDATA, "%s:%d: bad section [%s]",
                               src->path, s->line, s->name);
        sp = strchr(canon, ' ');
        snprintf(kernel, sizeof(kernel), "%.*s",
                 (int)(sp ? sp - canon : 0), canon);
        memset(c, 0, sizeof(*c));
        c->src = src;
        c->s = s;
        if (!sp ||
            atune_profile_lookup(src->p, kernel, sp + 1, &c->c) != ATUNE_OK ||
            atune_config_size_match(c->c) != ATUNE_SIZE_EXACT)
            return atune__fail(err, ATUNE__EDATA,
                               "%s:%d: section [%s] cannot be looked up",
                               src->path, s->line, s->name);
        c->time_ns = atune_config_time_ns(c->c) > 0
                         ? (double)atune_config_time_ns(c->c)
                         : INFINITY;
        config_id(c->c, c->id, sizeof(c->id));
        while (g < *nnames && strcmp(names[g], canon) != 0)
            g++;
        if (g == *nnames)
            snprintf(names[(*nnames)++], sizeof(names[0]), "%s", canon);
        c->group = g;
        (*ncand)++;
    }
    return 0;
}

/* Whether a and b hold the same entries, the merge's own keys aside. */
static int same_content(const atune__ini_section *a,
                        const atune__ini_section *b)
{
    int i = 0, j = 0;

    for (;;) {
        while (i < a->nentries && is_merge_key(a->entries[i].key))
            i++;
        while (j < b->nentries && is_merge_key(b->entries[j].key))
            j++;
        if (i == a->nentries || j == b->nentries)
            return i == a->nentries && j == b->nentries;
        if (strcmp(a->entries[i].key, b->entries[j].key) != 0 ||
            strcmp(a->entries[i].value, b->entries[j].value) != 0)
            return 0;
        i++;
        j++;
    }
}

static const char *value_of(const atune__ini_section *s, const char *key)
{
    const atune__ini_entry *e = atune__ini_get(s, key);

    return e ? e->value : NULL;
}

/* ---- writing ------------------------------------------------------------ */

/* A file name as a profile value: one line, nothing inih would trim or
 * take for a comment, short enough for the line limit. */
static void path_value(const char *path, char *buf, size_t len)
{
    enum { MAX = 150 };
    size_t n = strlen(path), i = 0;
    const char *s = n > MAX ? path + n - MAX : path;

    if (n > MAX)
        i = (size_t)snprintf(buf, len, "...");
    for (; *s && i + 1 < len; s++) {
        unsigned char c = (unsigned char)*s;
        buf[i++] = (c < 0x20 || c == 0x7f || c == ';') ? '?' : (char)c;
    }
    buf[i] = '\0';
    while (i > 0 && (buf[i - 1] == ' ' || buf[i - 1] == '\t'))
        buf[--i] = '\0';
    if (buf[0] == ' ' || buf[0] == '\t')
        buf[0] = '?';
    if (!buf[0])
        snprintf(buf, len, "?");
}

/* The section of c: its entries, without the merge's keys when keys
 * follows (then the keys), else as it is with merged_from added when it
 * has none. */
static int emit_section(text *t, const cand *c, const char *keys,
                        atune__err *err)
{
    const atune__ini_section *s = c->s;
    int rc;

    if ((rc = emit(t, err, "%s", "")) || (rc = emit(t, err, "[%s]", s->name)))
        return rc;
    for (int i = 0; i < s->nentries; i++)
        if ((!keys || !is_merge_key(s->entries[i].key)) &&
            (rc = emit(t, err, "%s = %s", s->entries[i].key,
                       s->entries[i].value)))
            return rc;
    if (keys) /* emit ends the last line */
        return emit(t, err, "%.*s", (int)strlen(keys) - 1, keys);
    if (!value_of(s, MERGED "from")) {
        char from[256];
        path_value(c->src->path, from, sizeof(from));
        return emit(t, err, MERGED "from = %s", from);
    }
    return 0;
}

/* [device]: the first source's, format of this writer, dated with the
 * latest date of all, its uuid dropped unless all that have one agree. */
static int emit_device(text *t, const source *src, int nsrc, atune__err *err)
{
    const atune__ini_section *d = atune__ini_find(src[0].doc, "device");
    const char *date = NULL, *uuid = NULL;
    int uuid_agrees = 1, rc;

    for (int i = 0; i < nsrc; i++) {
        const atune__ini_section *s = atune__ini_find(src[i].doc, "device");
        const char *v = s ? value_of(s, "date") : NULL;
        if (v && (!date || strcmp(v, date) > 0))
            date = v;
        v = s ? value_of(s, "uuid") : NULL;
        if (v && uuid && strcmp(v, uuid) != 0)
            uuid_agrees = 0;
        if (v && !uuid)
            uuid = v;
    }
    if ((rc = emit(t, err,
                   "; autotune profile: one GPU model. Merged by autotune "
                   "%s.",
                   ATUNE_VERSION_STRING)) ||
        (rc = emit(t, err, "[device]")))
        return rc;
    for (int i = 0; d && i < d->nentries; i++) {
        const char *k = d->entries[i].key, *v = d->entries[i].value;
        if (strcmp(k, "format") == 0)
            rc = emit(t, err, "format = %d", ATUNE_PROFILE_FORMAT);
        else if (strcmp(k, "date") == 0)
            rc = emit(t, err, "date = %s", date);
        else if (strcmp(k, "uuid") == 0 && !uuid_agrees)
            continue;
        else
            rc = emit(t, err, "%s = %s", k, v);
        if (rc)
            return rc;
    }
    if (date && (!d || !value_of(d, "date")))
        return emit(t, err, "date = %s", date);
    return 0;
}

/* ---- deciding ----------------------------------------------------------- */

/* What merging one section decided. */
typedef struct decision {
    const cand *keep;
    char keys[1024]; /* the merge's keys, one "key = value\n" each; ""
                        keeps the section as it is */
} decision;

static uint64_t set_hash(const cand *const *rep, int n)
{
    const cand *sorted[256];
    uint64_t h = ATUNE__FNV_SEED;

    for (int i = 0; i < n; i++) {
        int j = i;
        for (; j > 0 && strcmp(sorted[j - 1]->id, rep[i]->id) > 0; j--)
            sorted[j] = sorted[j - 1];
        sorted[j] = rep[i];
    }
    for (int i = 0; i < n; i++)
        h = atune__fnv1a(sorted[i]->id, strlen(sorted[i]->id) + 1, h);
    return h;
}

static void add_key(decision *d, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void add_key(decision *d, const char *fmt, ...)
{
    size_t n = strlen(d->keys);
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(d->keys + n, sizeof(d->keys) - n, fmt, ap);
    va_end(ap);
    n = strlen(d->keys);
    if (n + 1 < sizeof(d->keys))
        snprintf(d->keys + n, sizeof(d->keys) - n, "\n");
}

static void log_ns(char *buf, size_t len, double ns)
{
    if (isfinite(ns))
        snprintf(buf, len, "%.0f ns", ns);
    else
        snprintf(buf, len, "no time");
}

/* Chooses among the candidates of one section (dist: those that differ,
 * n of them, in order). */
static int decide(const cand *const *dist, int n, const atune__merge_opts *o,
                  atune__merge_stats *st, decision *d, atune__err *err)
{
    const cand *rep[256];
    double t[256];
    const atune_config *cfg[256];
    char set[40], why[512] = "", from[256], a[32], b[32], what[512];
    const char *by = "recorded_time";
    int nrep = 0, keep = 0, other = -1, rc;

    memset(d, 0, sizeof(*d));
    if (n == 1) {
        d->keep = dist[0];
        return 0;
    }
    /* One record per configuration: the fastest recorded. */
    for (int i = 0; i < n; i++) {
        int r = 0;
        while (r < nrep && strcmp(rep[r]->id, dist[i]->id) != 0)
            r++;
        if (r == nrep && nrep < 256)
            rep[nrep++] = dist[i];
        else if (r < nrep && dist[i]->time_ns < rep[r]->time_ns)
            rep[r] = dist[i];
    }
    snprintf(set, sizeof(set), "%d:%016llx", nrep,
             (unsigned long long)set_hash(rep, nrep));
    /* Decided before between exactly these: kept as it is. */
    for (int i = 0; nrep > 1 && i < n; i++) {
        const char *s = value_of(dist[i]->s, MERGED "set");
        const char *b2 = value_of(dist[i]->s, MERGED "by");
        if (s && strcmp(s, set) == 0 && b2 &&
            (strcmp(b2, "retimed") == 0 ||
             (!o->retime && strcmp(b2, "recorded_time") == 0))) {
            d->keep = dist[i];
            return 0;
        }
    }
    for (int i = 0; i < nrep; i++) {
        t[i] = rep[i]->time_ns;
        cfg[i] = rep[i]->c;
    }
    if (nrep == 1) {
        by = "same_config";
    } else if (o->retime) {
        int timed = 0;
        double rt[256];
        if ((rc = o->retime(o->retime_ctx, atune_config_kernel(cfg[0]),
                            atune_config_size(cfg[0]), cfg, nrep, rt, &timed,
                            why, sizeof(why), err)))
            return rc;
        int ran = 0;
        for (int i = 0; timed && i < nrep; i++)
            ran |= isfinite(rt[i]) != 0;
        if (timed && !ran) {
            timed = 0;
            snprintf(why, sizeof(why), "no configuration ran correctly here");
        }
        if (timed) {
            by = "retimed";
            memcpy(t, rt, sizeof(double) * (size_t)nrep);
            st->retimed++;
        } else if (o->log) {
            fprintf(o->log, "%s: cannot re-time: %s; by recorded time\n",
                    rep[0]->s->name, why);
        }
    }
    for (int i = 1; i < nrep; i++)
        if (t[i] < t[keep])
            keep = i;
    for (int i = 0; i < nrep; i++)
        if (i != keep && (other < 0 || t[i] < t[other]))
            other = i;
    d->keep = rep[keep];
    st->decided++;
    {
        const char *f = value_of(rep[keep]->s, MERGED "from");
        if (f)
            snprintf(from, sizeof(from), "%s", f);
        else
            path_value(rep[keep]->src->path, from, sizeof(from));
    }
    add_key(d, MERGED "from = %s", from);
    add_key(d, MERGED "by = %s", by);
    add_key(d, MERGED "set = %s", set);
    add_key(d, MERGED "time_ns = %.0f", isfinite(t[keep]) ? t[keep] : 0.0);
    if (other >= 0) {
        const char *f = value_of(rep[other]->s, MERGED "from");
        char of[256];
        if (f)
            snprintf(of, sizeof(of), "%s", f);
        else
            path_value(rep[other]->src->path, of, sizeof(of));
        add_key(d, MERGED "other_ns = %.0f",
                isfinite(t[other]) ? t[other] : 0.0);
        add_key(d, MERGED "other_from = %s", of);
    }
    if (o->log) {
        config_str(rep[keep]->c, what, sizeof(what));
        log_ns(a, sizeof(a), t[keep]);
        fprintf(o->log, "[%s]: kept %s (%s, %s)", rep[keep]->s->name, what,
                rep[keep]->src->path, a);
        if (other >= 0) {
            config_str(rep[other]->c, what, sizeof(what));
            log_ns(b, sizeof(b), t[other]);
            fprintf(o->log, " over %s (%s, %s)", what,
                    rep[other]->src->path, b);
        }
        fprintf(o->log, ": %s\n", by);
    }
    return 0;
}

/* ---- the merge ---------------------------------------------------------- */

static int open_out(const char *path, atune_profile **p, atune__err *err)
{
    struct stat st;
    int rc;

    *p = NULL;
    if (stat(path, &st) != 0 && errno == ENOENT)
        return 0;
    rc = atune_profile_open(path, p);
    if (rc == ATUNE_OK)
        return 0;
    rc = atune__fail(err,
                     rc == ATUNE_ENOMEM ? ATUNE__EOSERR
                     : rc == ATUNE_EIO  ? ATUNE__ENOINPUT
                                        : ATUNE__EDATA,
                     "%s (not overwriting it)", atune_profile_errmsg(*p));
    atune_profile_close(*p);
    *p = NULL;
    return rc;
}

static int check_models(const source *src, int n, const atune__merge_opts *o,
                        atune__err *err)
{
    const char *name = atune_profile_device(src[0].p)->name;

    for (int i = 1; i < n && !o->force_models; i++)
        if (strcmp(atune_profile_device(src[i].p)->name, name) != 0)
            return atune__fail(err, ATUNE__EDATA,
                               "%s: a profile of '%s', not of '%s' as %s: "
                               "profiles of one GPU model are merged "
                               "(--force-models merges them anyway)",
                               src[i].path,
                               atune_profile_device(src[i].p)->name, name,
                               src[0].path);
    return 0;
}

/* The text of the merged profile. */
static int build(const source *src, int nsrc, const atune__merge_opts *o,
                 atune__merge_stats *st, text *t, atune__err *err)
{
    int total = 0, ncand = 0, nnames = 0, rc;
    cand *cands = NULL;
    const cand **dist = NULL;
    char(*names)[ATUNE__INI_MAX_NAME + 1] = NULL;

    for (int i = 0; i < nsrc; i++)
        total += src[i].doc->nsections;
    cands = atune__calloc((size_t)total + 1, sizeof(*cands));
    dist = atune__calloc((size_t)total + 1, sizeof(*dist));
    names = atune__calloc((size_t)total + 1, sizeof(*names));
    if (!cands || !dist || !names) {
        rc = atune__fail(err, ATUNE__EOSERR, "out of memory");
        goto out;
    }
    for (int i = 0; i < nsrc; i++)
        if ((rc = collect(&src[i], cands, &ncand, names, &nnames, err)))
            goto out;
    if ((rc = emit_device(t, src, nsrc, err)))
        goto out;
    for (int g = 0; g < nnames; g++) {
        decision d;
        int n = 0;
        for (int i = 0; i < ncand; i++) {
            int j = 0;
            if (cands[i].group != g)
                continue;
            while (j < n && !same_content(dist[j]->s, cands[i].s))
                j++;
            if (j == n && n < 256)
                dist[n++] = &cands[i];
        }
        if ((rc = decide(dist, n, o, st, &d, err)) ||
            (rc = emit_section(t, d.keep, d.keys[0] ? d.keys : NULL, err)))
            goto out;
        st->sections++;
    }
    if (!(rc = emit(t, err, "%s", "")))
        rc = emit(t, err, "%s", ATUNE_PROFILE_END);
out:
    free(cands);
    free(dist);
    free(names);
    return rc;
}

/* Whether the file at path holds exactly t. */
static int same_bytes(const char *path, const text *t)
{
    char *old = NULL;
    size_t len = 0;
    atune__err e;
    int same = atune__read_file(path, &old, &len, &e) == 0 &&
               len == t->len && memcmp(old, t->buf, len) == 0;

    free(old);
    return same;
}

int atune__profile_merge(const char *out, const atune__merge_in *in, int n,
                         const atune__merge_opts *o, atune__merge_stats *st,
                         atune__err *err)
{
    source *src = atune__calloc((size_t)n + 1, sizeof(*src));
    atune_profile *old = NULL;
    text t = {NULL, 0, 0};
    char *real = NULL;
    int lock = -1, nsrc = 0, rc;

    memset(st, 0, sizeof(*st));
    if (!src)
        return atune__fail(err, ATUNE__EOSERR, "out of memory");
    if ((rc = atune__profile_resolve(out, &real, err)) ||
        (rc = atune__profile_lock(real, &lock, err)) ||
        (rc = open_out(real, &old, err)))
        goto out;
    if (old)
        src[nsrc++] = (source){out, old, atune__profile_doc(old)};
    for (int i = 0; i < n; i++)
        src[nsrc++] = (source){in[i].path, in[i].p,
                               atune__profile_doc(in[i].p)};
    if (nsrc == 0) {
        rc = atune__fail(err, ATUNE__EUSAGE, "nothing to merge");
        goto out;
    }
    if ((rc = check_models(src, nsrc, o, err)) ||
        (rc = build(src, nsrc, o, st, &t, err)))
        goto out;
    if (old && same_bytes(real, &t))
        st->unchanged = 1;
    else
        rc = atune__profile_replace(real, t.buf, t.len, err);
out:
    atune_profile_close(old);
    free(t.buf);
    free(src);
    free(real);
    if (lock >= 0)
        close(lock);
    return rc;
}
