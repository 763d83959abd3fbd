/* profile_write.c -- write profiles/<slug>.ini: merge new results into the
 * existing profile and replace it atomically, under a lock.
 *
 * The existing profile is read with the library's own parser, so a file
 * that applications could not read is never merged into, and the new text
 * is parsed again before it is written, so that the writer can never
 * produce a file the reader refuses (inih's line and name limits). */
#include "measure/profile_write.h"

#include "base/outfile.h"

#include "lib/inidoc.h"
#include "lib/profile_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define HASH_LEN 16

/* The text of the new profile. */
typedef struct text {
    char *buf;
    size_t len;
    size_t cap;
} text;

/* ---- names -------------------------------------------------------------- */

void atune__pw_section(const char *kernel, const char *size_key, char *buf,
                       size_t len)
{
    /* Cut at len, as documented; a checked call keeps gcc from warning
     * about it wherever this is inlined. */
    if (snprintf(buf, len, "%s %s", kernel, size_key) < 0 && len)
        buf[0] = '\0';
}

void atune__slugify(const char *name, char *buf, size_t len)
{
    size_t n = 0;
    int gap = 0;

    if (len == 0)
        return;
    for (; *name; name++) {
        char c = *name;

        if (c >= 'A' && c <= 'Z')
            c = (char)(c - 'A' + 'a');
        if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'))) {
            gap = 1;
            continue;
        }
        /* A '-' only between two kept characters, so none at either end
         * even when buf is too short. */
        if (gap && n > 0) {
            if (n + 2 >= len)
                break;
            buf[n++] = '-';
        }
        gap = 0;
        if (n + 1 >= len)
            break;
        buf[n++] = c;
    }
    buf[n] = '\0';
}

/* ---- checking what will be written -------------------------------------- */

/* A parameter is a C identifier. One with a lower-case letter is written
 * as "param.NAME": the library reads upper-case keys and "param." keys as
 * parameters, and other lower-case keys as its own. */
#define PARAM_PREFIX "param."

static int has_lower(const char *s)
{
    for (; *s; s++)
        if (*s >= 'a' && *s <= 'z')
            return 1;
    return 0;
}

static int is_param_name(const char *s)
{
    if (!((*s >= 'A' && *s <= 'Z') || (*s >= 'a' && *s <= 'z') || *s == '_'))
        return 0;
    for (s++; *s; s++)
        if (!((*s >= 'A' && *s <= 'Z') || (*s >= 'a' && *s <= 'z') ||
              (*s >= '0' && *s <= '9') || *s == '_'))
            return 0;
    return 1;
}

/* The profile key of parameter name, in buf (ATUNE__INI_MAX_NAME + 1). */
static const char *param_key(const char *name, char *buf, size_t len)
{
    if (!has_lower(name))
        return name;
    snprintf(buf, len, PARAM_PREFIX "%s", name);
    return buf;
}

static int is_hash(const char *s)
{
    size_t n = 0;

    for (; s[n]; n++)
        if (!((s[n] >= '0' && s[n] <= '9') || (s[n] >= 'a' && s[n] <= 'f')))
            return 0;
    return n == HASH_LEN;
}

static int is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' ||
           c == '\f';
}

/* A value must come back from inih as written: one line, nothing for it
 * to trim, no inline comment. */
static int check_text(atune__err *err, const char *what, const char *v)
{
    size_t n = strlen(v);

    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)v[i];
        if (c < 0x20 || c == 0x7f)
            return atune__fail(err, ATUNE__EDATA,
                               "cannot write %s '%s': control character", what,
                               v);
        if (c == ';' && i > 0 && is_space(v[i - 1]))
            return atune__fail(
                err, ATUNE__EDATA,
                "cannot write %s '%s': ' ;' would start a comment", what, v);
    }
    if (n > 0 && (is_space(v[0]) || is_space(v[n - 1])))
        return atune__fail(
            err, ATUNE__EDATA,
            "cannot write %s '%s': leading or trailing white space", what, v);
    return ATUNE__OK;
}

static int check_device(const atune__pw_device *dev, atune__err *err)
{
    int rc;

    if (dev->name[0] == '\0')
        return atune__fail(
            err, ATUNE__EDATA,
            "cannot write a profile for a device without a name");
    if (strlen("name = ") + strlen(dev->name) > ATUNE__INI_MAX_LINE)
        return atune__fail(
            err, ATUNE__EDATA, "device name too long (%zu bytes, at most %zu)",
            strlen(dev->name), ATUNE__INI_MAX_LINE - strlen("name = "));
    if (dev->cc < 0 || dev->sm_count < 0 || dev->mem_bandwidth_gbs < 0 ||
        dev->l2_bytes < 0 || dev->driver < 0 || dev->nvrtc < 0)
        return atune__fail(
            err, ATUNE__EDATA,
            "cannot write a profile for '%s': negative device attribute",
            dev->name);
    if ((rc = check_text(err, "device name", dev->name)) ||
        (rc = check_text(err, "slug", dev->slug)) ||
        (rc = check_text(err, "uuid", dev->uuid)) ||
        (rc = check_text(err, "date", dev->date)) ||
        (rc = check_text(err, "tuner version", dev->tuner)))
        return rc;
    return ATUNE__OK;
}

int atune__pw_extra(atune__pw_entry *e, const char *key, const char *value)
{
    int i = 0;

    while (i < e->nextra && strcmp(e->extra_key[i], key) != 0)
        i++;
    if (i == ATUNE__PW_MAX_EXTRA ||
        atune__strlcpy(e->extra_key[i], key, sizeof(e->extra_key[i])) ||
        atune__strlcpy(e->extra_value[i], value, sizeof(e->extra_value[i])))
        return -1;
    if (i == e->nextra)
        e->nextra++;
    return 0;
}

/* Extra keys: lower-case names the library does not read as parameters,
 * and values that fit a line. */
static int check_extras(const atune__pw_entry *e, const char *section,
                        atune__err *err)
{
    if (e->nextra < 0 || e->nextra > ATUNE__PW_MAX_EXTRA)
        return atune__fail(err, ATUNE__EDATA, "[%s]: %d extra keys", section,
                           e->nextra);
    for (int i = 0; i < e->nextra; i++) {
        const char *k = e->extra_key[i];
        int rc;
        if (!(*k >= 'a' && *k <= 'z') || strspn(k, "abcdefghijklmnopqrstuvwxyz"
                                                   "0123456789_.-") !=
                                             strlen(k))
            return atune__fail(err, ATUNE__EDATA, "[%s]: bad extra key '%s'",
                               section, k);
        if ((rc = check_text(err, k, e->extra_value[i])))
            return rc;
    }
    return ATUNE__OK;
}

static int check_params(const atune__pw_entry *e, const char *section,
                        atune__err *err)
{
    if (e->nparams < 0 || e->nparams > ATUNE__PW_MAX_PARAMS)
        return atune__fail(err, ATUNE__EDATA,
                           "[%s]: %d parameters (at most %d)", section,
                           e->nparams, ATUNE__PW_MAX_PARAMS);
    for (int i = 0; i < e->nparams; i++) {
        char key[ATUNE__INI_MAX_NAME + 16];
        if (!is_param_name(e->param[i]) ||
            strlen(param_key(e->param[i], key, sizeof(key))) >
                ATUNE__INI_MAX_NAME)
            return atune__fail(err, ATUNE__EDATA,
                               "[%s]: bad parameter name '%s' (expected a C "
                               "identifier, its key at most %d bytes)",
                               section, e->param[i], ATUNE__INI_MAX_NAME);
        for (int j = 0; j < i; j++)
            if (strcmp(e->param[i], e->param[j]) == 0)
                return atune__fail(err, ATUNE__EDATA,
                                   "[%s]: parameter '%s' given twice", section,
                                   e->param[i]);
    }
    return ATUNE__OK;
}

/* Checks one new entry and puts the canonical form of its section name
 * into canon (len bytes), for matching against existing sections. */
static int check_entry(const atune__pw_entry *e, char *canon, size_t len,
                       atune__err *err)
{
    char section[sizeof(e->kernel) + sizeof(e->size_key) + 1];
    char why[256];
    size_t n = strlen(e->kernel) + 1 + strlen(e->size_key);
    int rc;

    if (n > ATUNE__INI_MAX_NAME)
        return atune__fail(
            err, ATUNE__EDATA,
            "section name '[%s %s]' too long (%zu bytes, at most %d)",
            e->kernel, e->size_key, n, ATUNE__INI_MAX_NAME);
    atune__pw_section(e->kernel, e->size_key, section, sizeof(section));
    if (atune__section_canon(section, canon, len, why, sizeof(why)) != 0)
        return atune__fail(err, ATUNE__EDATA, "cannot write %s", why);
    if ((rc = check_extras(e, section, err)) != ATUNE__OK || e->extras_only)
        return rc;
    if ((rc = check_params(e, section, err)) != ATUNE__OK)
        return rc;
    if (e->time_ns < 0 || e->spread_ns < 0 || e->default_time_ns < 0 ||
        e->evaluated < 0 || e->space < 0)
        return atune__fail(err, ATUNE__EDATA, "[%s]: negative time or count",
                           section);
    if (e->template_hash[0] != '\0' && !is_hash(e->template_hash))
        return atune__fail(
            err, ATUNE__EDATA,
            "[%s]: bad template hash '%s' (expected %d lower-case hex digits)",
            section, e->template_hash, HASH_LEN);
    if ((rc = check_text(err, "size name", e->size_name)) ||
        (rc = check_text(err, "metric unit", e->metric_unit)) ||
        (rc = check_text(err, "strategy", e->strategy)))
        return rc;
    return ATUNE__OK;
}

/* canon[i] gets the canonical section name of entries[i]. */
static int check_entries(const atune__pw_entry *entries, int n,
                         char (*canon)[ATUNE__INI_MAX_NAME + 1],
                         atune__err *err)
{
    int rc;

    for (int i = 0; i < n; i++) {
        rc = check_entry(&entries[i], canon[i], sizeof(canon[i]), err);
        if (rc != ATUNE__OK)
            return rc;
        for (int j = 0; j < i; j++)
            if (strcmp(canon[i], canon[j]) == 0)
                return atune__fail(err, ATUNE__EDATA, "[%s %s] given twice",
                                   entries[i].kernel, entries[i].size_key);
    }
    return ATUNE__OK;
}

/* ---- building the text -------------------------------------------------- */

static int emit(text *t, atune__err *err, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Appends one line, refusing one that the reader would refuse. */
static int emit(text *t, atune__err *err, const char *fmt, ...)
{
    char line[ATUNE__INI_MAX_LINE + 2];
    va_list ap;
    int n;

    va_start(ap, fmt);
    n = vsnprintf(line, sizeof(line), fmt, ap);
    va_end(ap);
    if (n < 0 || n > ATUNE__INI_MAX_LINE)
        return atune__fail(err, ATUNE__EDATA,
                           "cannot write a line over %d bytes: '%.60s...'",
                           ATUNE__INI_MAX_LINE, line);
    if (t->len + (size_t)n + 2 > t->cap) {
        size_t cap = t->cap ? 2 * t->cap : 4096;
        char *buf;
        while (cap < t->len + (size_t)n + 2)
            cap *= 2;
        buf = realloc(t->buf, cap);
        if (!buf)
            return atune__fail(err, ATUNE__EOSERR, "out of memory");
        t->buf = buf;
        t->cap = cap;
    }
    memcpy(t->buf + t->len, line, (size_t)n);
    t->len += (size_t)n;
    t->buf[t->len++] = '\n';
    t->buf[t->len] = '\0';
    return ATUNE__OK;
}

/* "key = value"; "key=value" when that is what it takes to fit the line or
 * to keep a leading ';' from reading as a comment. */
static int emit_kv(text *t, atune__err *err, const char *key, const char *value)
{
    size_t n = strlen(key) + 3 + strlen(value);

    if (n > ATUNE__INI_MAX_LINE || value[0] == ';')
        return emit(t, err, "%s=%s", key, value);
    return emit(t, err, "%s = %s", key, value);
}

/* Optional text: an empty value is not written. */
static int emit_opt(text *t, atune__err *err, const char *key,
                    const char *value)
{
    return value[0] ? emit_kv(t, err, key, value) : ATUNE__OK;
}

static int emit_int(text *t, atune__err *err, const char *key, int64_t v)
{
    return emit(t, err, "%s = %lld", key, (long long)v);
}

static int emit_device(text *t, const atune__pw_device *dev, atune__err *err)
{
    int rc;

    if ((rc =
             emit(t, err,
                  "; autotune profile: one GPU model. Written by autotune%s%s.",
                  dev->tuner[0] ? " " : "", dev->tuner)) ||
        (rc = emit(t, err, "[device]")) ||
        (rc = emit_int(t, err, "format", ATUNE_PROFILE_FORMAT)) ||
        (rc = emit_kv(t, err, "name", dev->name)) ||
        (rc = emit_opt(t, err, "slug", dev->slug)) ||
        (rc = emit_int(t, err, "cc", dev->cc)) ||
        (rc = emit_int(t, err, "sm_count", dev->sm_count)) ||
        (rc = emit_int(t, err, "mem_bandwidth_gbs", dev->mem_bandwidth_gbs)) ||
        (rc = emit_int(t, err, "l2_bytes", dev->l2_bytes)) ||
        (rc = emit_int(t, err, "driver", dev->driver)) ||
        (rc = emit_int(t, err, "nvrtc", dev->nvrtc)) ||
        (rc = emit_opt(t, err, "uuid", dev->uuid)) ||
        (rc = emit_opt(t, err, "date", dev->date)) ||
        (rc = emit_opt(t, err, "tuner", dev->tuner)))
        return rc;
    return ATUNE__OK;
}

static int sets_extra(const atune__pw_entry *e, const char *key)
{
    for (int i = 0; i < e->nextra; i++)
        if (strcmp(e->extra_key[i], key) == 0)
            return 1;
    return 0;
}

/* An old key that is not the tuner's own: lower case and none of the
 * fields emit_entry writes. A merge's keys (merged_*, profile_merge.h)
 * and first use's note (first_use, appjit/firstuse_write.c) describe the
 * record they were written with: a new record drops them. */
static int is_extra_key(const char *key)
{
    static const char *const own[] = {
        "size",      "time_ns", "spread_ns", "metric",
        "default_time_ns", "evaluated", "space", "strategy",
        "template_hash", "first_use"};

    if (!(*key >= 'a' && *key <= 'z') ||
        strncmp(key, PARAM_PREFIX, strlen(PARAM_PREFIX)) == 0 ||
        strncmp(key, "merged_", strlen("merged_")) == 0)
        return 0;
    for (size_t i = 0; i < sizeof(own) / sizeof(own[0]); i++)
        if (strcmp(key, own[i]) == 0)
            return 0;
    return 1;
}

/* The entry's extra keys, then the old section's that it does not set. */
static int emit_extras(text *t, const atune__pw_entry *e,
                       const atune__ini_section *old, atune__err *err)
{
    int rc;

    for (int i = 0; i < e->nextra; i++)
        if ((rc = emit_kv(t, err, e->extra_key[i], e->extra_value[i])))
            return rc;
    for (int i = 0; old && i < old->nentries; i++) {
        const atune__ini_entry *o = &old->entries[i];
        if (is_extra_key(o->key) && !sets_extra(e, o->key) &&
            (rc = emit_kv(t, err, o->key, o->value)))
            return rc;
    }
    return ATUNE__OK;
}

/* extras_only: the old section with e's extra keys set. */
static int emit_merged(text *t, const atune__pw_entry *e,
                       const atune__ini_section *s, atune__err *err)
{
    int rc;

    if ((rc = emit(t, err, "%s", "")) || (rc = emit(t, err, "[%s]", s->name)))
        return rc;
    for (int i = 0; i < s->nentries; i++)
        if (!is_extra_key(s->entries[i].key) &&
            (rc = emit_kv(t, err, s->entries[i].key, s->entries[i].value)))
            return rc;
    return emit_extras(t, e, s, err);
}

static int emit_entry(text *t, const atune__pw_entry *e,
                      const atune__ini_section *old, atune__err *err)
{
    int rc;

    if (e->extras_only)
        return old ? emit_merged(t, e, old, err)
                   : atune__fail(err, ATUNE__EDATA,
                                 "no section [%s %s] to add to", e->kernel,
                                 e->size_key);
    if ((rc = emit(t, err, "%s", "")) ||
        (rc = emit(t, err, "[%s %s]", e->kernel, e->size_key)) ||
        (rc = emit_opt(t, err, "size", e->size_name)))
        return rc;
    for (int i = 0; i < e->nparams; i++) {
        char key[ATUNE__INI_MAX_NAME + 16];
        if ((rc = emit_int(t, err, param_key(e->param[i], key, sizeof(key)),
                           e->value[i])))
            return rc;
    }
    if ((rc = emit_int(t, err, "time_ns", e->time_ns)) ||
        (rc = emit_int(t, err, "spread_ns", e->spread_ns)) ||
        (rc = emit(t, err, "metric = %.1f%s%s", e->metric,
                   e->metric_unit[0] ? " " : "", e->metric_unit)) ||
        (rc = emit_int(t, err, "default_time_ns", e->default_time_ns)) ||
        (rc = emit_int(t, err, "evaluated", e->evaluated)) ||
        (rc = emit_int(t, err, "space", e->space)) ||
        (rc = emit_opt(t, err, "strategy", e->strategy)) ||
        (rc = emit_opt(t, err, "template_hash", e->template_hash)))
        return rc;
    return emit_extras(t, e, old, err);
}

/* An existing section, from its parsed entries (comments are not kept). */
static int emit_old(text *t, const atune__ini_section *s, atune__err *err)
{
    int rc;

    if ((rc = emit(t, err, "%s", "")) || (rc = emit(t, err, "[%s]", s->name)))
        return rc;
    for (int i = 0; i < s->nentries; i++)
        if ((rc = emit_kv(t, err, s->entries[i].key, s->entries[i].value)))
            return rc;
    return ATUNE__OK;
}

/* Existing sections in their order, each replaced in place by the new
 * entry of the same kernel and size; then the other new entries. */
static int build(text *t, const atune__pw_device *dev, const atune__ini *old,
                 const atune__pw_entry *entries, int n,
                 char (*canon)[ATUNE__INI_MAX_NAME + 1], atune__err *err)
{
    char *used = calloc((size_t)n + 1, 1);
    char c[ATUNE__INI_MAX_NAME + 1];
    int rc;

    if (!used)
        return atune__fail(err, ATUNE__EOSERR, "out of memory");
    if ((rc = emit_device(t, dev, err)) != ATUNE__OK)
        goto out;
    for (int i = 0; old && i < old->nsections; i++) {
        const atune__ini_section *s = &old->sections[i];
        int j = n;

        if (strcmp(s->name, "device") == 0)
            continue;
        /* The library accepted the file, so every other name parses. */
        if (atune__section_canon(s->name, c, sizeof(c), NULL, 0) == 0)
            for (j = 0; j < n && strcmp(c, canon[j]) != 0; j++)
                ;
        if (j < n) {
            used[j] = 1;
            rc = emit_entry(t, &entries[j], s, err);
        } else {
            rc = emit_old(t, s, err);
        }
        if (rc != ATUNE__OK)
            goto out;
    }
    for (int j = 0; j < n; j++)
        if (!used[j] &&
            (rc = emit_entry(t, &entries[j], NULL, err)) != ATUNE__OK)
            goto out;
    /* Readers take a file without it for one cut off. */
    if ((rc = emit(t, err, "%s", "")) == ATUNE__OK)
        rc = emit(t, err, "%s", ATUNE_PROFILE_END);
out:
    free(used);
    return rc;
}

/* ---- files -------------------------------------------------------------- */

static char *path_with(const char *path, const char *suffix)
{
    size_t len = strlen(path) + strlen(suffix) + 1;
    char *s = malloc(len);

    if (s)
        snprintf(s, len, "%s%s", path, suffix);
    return s;
}

/* The existing profile at path, or NULL when there is none. */
static int read_old(const char *path, const atune__pw_device *dev,
                    atune_profile **out, atune__err *err)
{
    atune_profile *p;
    struct stat st;
    int rc;

    *out = NULL;
    if (stat(path, &st) != 0 && errno == ENOENT)
        return ATUNE__OK;
    rc = atune_profile_open(path, &p);
    switch (rc) {
    case ATUNE_OK:
        break;
    case ATUNE_ENOMEM:
        rc = atune__fail(err, ATUNE__EOSERR, "out of memory");
        goto fail;
    case ATUNE_EIO:
        rc = atune__fail(err, ATUNE__ENOINPUT, "%s", atune_profile_errmsg(p));
        goto fail;
    default:
        rc = atune__fail(err, ATUNE__EDATA, "%s (not overwriting it)",
                         atune_profile_errmsg(p));
        goto fail;
    }
    /* Sections tuned on another GPU model must not be relabelled. */
    if (strcmp(atune_profile_device(p)->name, dev->name) != 0) {
        rc =
            atune__fail(err, ATUNE__EDATA,
                        "%s: profile of '%s', not of '%s' (not overwriting it)",
                        path, atune_profile_device(p)->name, dev->name);
        goto fail;
    }
    *out = p;
    return ATUNE__OK;
fail:
    atune_profile_close(p);
    return rc;
}

/* Whether the section of e in doc is as seen. */
static int still_seen(const atune__ini *doc, const char *canon,
                      const atune__pw_seen *seen)
{
    char c[ATUNE__INI_MAX_NAME + 1];

    for (int i = 0; doc && i < doc->nsections; i++) {
        const atune__ini_section *s = &doc->sections[i];
        const atune__ini_entry *run;
        if (strcmp(s->name, "device") == 0 ||
            atune__section_canon(s->name, c, sizeof(c), NULL, 0) != 0 ||
            strcmp(c, canon) != 0)
            continue;
        run = atune__ini_get(s, "run");
        return seen->present &&
               strcmp(run ? run->value : "", seen->run) == 0;
    }
    return !seen->present;
}

/* atune__profile_update, and with seen (one entry) only if its section is
 * still as seen. */
static int update(const char *path, const char *base,
                  const atune__pw_device *dev, const atune__pw_entry *entries,
                  int n, const atune__pw_seen *seen, int *changed,
                  atune__err *err)
{
    char(*canon)[ATUNE__INI_MAX_NAME + 1] = NULL;
    atune_profile *old = NULL;
    text t = {NULL, 0, 0};
    char *real = NULL;
    int lock = -1;
    int rc;

    if (!path || !dev || n < 0 || (n > 0 && !entries) || (seen && n != 1))
        return atune__fail(err, ATUNE__ESOFTWARE,
                           "atune__profile_update: bad arguments");
    canon = calloc((size_t)n + 1, sizeof(*canon));
    if (!canon)
        return atune__fail(err, ATUNE__EOSERR, "out of memory");
    rc = check_device(dev, err);
    if (rc == ATUNE__OK)
        rc = check_entries(entries, n, canon, err);
    if (rc != ATUNE__OK)
        goto out;
    if ((rc = atune__profile_resolve(path, &real, err)) != ATUNE__OK ||
        (rc = atune__profile_lock(real, &lock, err)) != ATUNE__OK ||
        (rc = read_old(real, dev, &old, err)) != ATUNE__OK)
        goto out;
    /* A new file starts as base, read as any old file is. */
    if (!old && base && (rc = read_old(base, dev, &old, err)) != ATUNE__OK)
        goto out;
    if (seen && !still_seen(atune__profile_doc(old), canon[0], seen)) {
        *changed = 1;
        goto out;
    }
    rc = build(&t, dev, atune__profile_doc(old), entries, n, canon, err);
    if (rc != ATUNE__OK)
        goto out;
    rc = atune__profile_replace(real, t.buf, t.len, err);
out:
    atune_profile_close(old);
    free(t.buf);
    free(canon);
    free(real);
    if (lock >= 0)
        close(lock);
    return rc;
}

/* See documentation in header file. */
int atune__profile_update(const char *path, const atune__pw_device *dev,
                          const atune__pw_entry *entries, int n,
                          atune__err *err)
{
    return update(path, NULL, dev, entries, n, NULL, NULL, err);
}

int atune__profile_update_if(const char *path, const atune__pw_device *dev,
                             const atune__pw_entry *entry,
                             const atune__pw_seen *seen, int *changed,
                             atune__err *err)
{
    *changed = 0;
    return update(path, NULL, dev, entry, 1, seen, changed, err);
}

int atune__profile_update_based(const char *path, const char *base,
                                const atune__pw_device *dev,
                                const atune__pw_entry *entry,
                                const atune__pw_seen *seen, int *changed,
                                atune__err *err)
{
    *changed = 0;
    return update(path, base, dev, entry, 1, seen, changed, err);
}

int atune__profile_check(const char *path, const atune__pw_device *dev,
                         atune__err *err)
{
    atune_profile *old = NULL;
    char *real = NULL, *prefix = NULL, *tmp = NULL;
    int lock = -1, fd, rc;

    if ((rc = check_device(dev, err)) != ATUNE__OK)
        return rc;
    if ((rc = atune__profile_resolve(path, &real, err)) != ATUNE__OK ||
        (rc = atune__profile_lock(real, &lock, err)) != ATUNE__OK ||
        (rc = read_old(real, dev, &old, err)) != ATUNE__OK)
        goto out;
    /* A temp file as the update will create beside it: a fresh name,
     * never one that is there already. */
    if (!(prefix = path_with(real, ".tmp."))) {
        rc = atune__fail(err, ATUNE__EOSERR, "out of memory");
        goto out;
    }
    if ((rc = atune__create_temp(prefix, "", &tmp, &fd, err)) != ATUNE__OK) {
        atune__err_prefix(err, "cannot write the profile '%s': ", path);
        goto out;
    }
    close(fd);
    unlink(tmp);
out:
    free(tmp);
    free(prefix);
    free(real);
    atune_profile_close(old);
    if (lock >= 0)
        close(lock);
    return rc;
}
