/* profile_values.c -- what the tool knows about a profile beyond its
 * syntax (see cli.h): every value it holds must be one the tuner could have
 * written. The library cannot tell -256 from 256 without the template;
 * the tool has the templates. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/number.h"
#include "cli/cli.h"
#include "lib/profile_internal.h"
#include "template/templates.h"

/* Keys whose value is a time or a count that is never negative, and those
 * of a best configuration that are never zero either. */
static const char *const non_negative[] = {"spread_ns", "default_time_ns",
                                           "evaluated", "space",
                                           "previous_time_ns"};

static const atune__manifest *find(const atune__templates *t,
                                   const char *section)
{
    size_t n = strcspn(section, " ");

    for (int i = 0; i < t->n; i++)
        if (strlen(t->m[i]->name) == n &&
            strncmp(t->m[i]->name, section, n) == 0)
            return t->m[i];
    return NULL;
}

static int in_values(const atune__param *p, long long v)
{
    for (int i = 0; i < p->nvalues; i++)
        if (p->values[i] == v)
            return 1;
    return 0;
}

/* One entry of a kernel section; prints and returns 1 when it is wrong. */
static int check_entry(const char *path, const atune__ini_entry *e,
                       const atune__manifest *m, int same_version)
{
    int64_t v = 0;
    int numeric = !atune__parse_i64(e->value, INT64_MIN, INT64_MAX, &v);
    const char *key = e->key;

    if (strcmp(e->key, "time_ns") == 0 && (!numeric || v <= 0)) {
        atune__cli_error(ATUNE__EDATA, "%s:%d: time_ns = %s: a measured "
                         "time is positive", path, e->line, e->value);
        return 1;
    }
    for (size_t i = 0; i < sizeof(non_negative) / sizeof(*non_negative); i++)
        if (strcmp(e->key, non_negative[i]) == 0 && numeric && v < 0) {
            atune__cli_error(ATUNE__EDATA, "%s:%d: %s = %s: never negative",
                             path, e->line, e->key, e->value);
            return 1;
        }
    /* A parameter's key: NAME, or param.NAME for one with lower-case
     * letters (the tuner writes those so). */
    if (strncmp(key, "param.", 6) == 0)
        key += 6;
    else if (key[0] < 'A' || key[0] > 'Z')
        return 0;
    /* same_version < 0: the section names no template_hash, so nothing
     * says another version wrote it: the values of the parameters this
     * version has are checked (BLOCK_SIZE = -256 is no entry of copy). */
    if (!m || !same_version)
        return 0;
    for (int i = 0; i < m->nparams; i++)
        if (strcmp(m->params[i].name, key) == 0) {
            if (numeric && in_values(&m->params[i], v))
                return 0;
            atune__cli_error(ATUNE__EDATA, "%s:%d: %s = %s is not a value of "
                             "template '%s' (%s:%d), %s",
                             path, e->line, key, e->value, m->name,
                             m->ini_path, m->params[i].line,
                             same_version > 0
                                 ? "which wrote this section"
                                 : "and the section names no template_hash");
            return 1;
        }
    /* Without a template_hash another version may have had it. */
    if (same_version < 0)
        return 0;
    atune__cli_error(ATUNE__EDATA, "%s:%d: template '%s' has no parameter "
                     "'%s'", path, e->line, m->name, key);
    return 1;
}

int atune__cli_profile_values(const atune_profile *p,
                              const atune__templates *t)
{
    const atune__ini *doc = atune__profile_doc(p);
    const char *path = atune_profile_path(p);
    int bad = 0;

    for (int s = 0; doc && s < doc->nsections; s++) {
        const atune__ini_section *sec = &doc->sections[s];
        const atune__manifest *m;
        const atune__ini_entry *h;
        char hash[17] = "";
        int same;

        if (!*sec->name || strcmp(sec->name, "device") == 0)
            continue;
        m = t ? find(t, sec->name) : NULL;
        if (m)
            snprintf(hash, sizeof(hash), "%016llx",
                     (unsigned long long)m->hash);
        h = atune__ini_get(sec, "template_hash");
        same = !m ? 0 : !h ? -1 : strcmp(h->value, hash) == 0;
        for (int i = 0; i < sec->nentries; i++)
            bad += check_entry(path, &sec->entries[i], m, same);
    }
    return bad ? ATUNE__EDATA : 0;
}
