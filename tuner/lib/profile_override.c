/* profile_override.c -- configurations the application makes itself from
 * name/value pairs (CLBlast's OverrideParameters), usable wherever a
 * looked-up one is: to try a configuration by hand, to pin one in a
 * deployment, or to patch one entry of a profile. */
#include "lib/profile_impl.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The configuration owns its entry; c comes first, so that the pointer the
 * application holds is the override's. */
typedef struct override {
    struct atune_config c;
    entry e;
    int cap;
    char **names;
    int64_t *vals;
    char *kernel;
} override;

static override *override_of(atune_config *c)
{
    return c && c->match == ATUNE_SIZE_OVERRIDE ? (override *)c : NULL;
}

static int is_param_name(const char *s, size_t len)
{
    if (len == 0 || !is_upper(s[0]))
        return 0;
    for (size_t i = 1; i < len; i++)
        if (!is_upper(s[i]) && !is_digit(s[i]) && s[i] != '_')
            return 0;
    return 1;
}

static int is_kernel_name(const char *s)
{
    for (; *s; s++)
        if (!is_kernel_char(*s))
            return 0;
    return 1;
}

void atune_config_free(atune_config *c)
{
    override *o = override_of(c);

    if (!o)
        return;
    for (int i = 0; i < o->e.nparams; i++)
        free(o->names[i]);
    free(o->names);
    free(o->vals);
    free(o->kernel);
    free(o);
}

/* Sets name (len bytes) to value, adding it when new. */
static int set_param(override *o, const char *name, size_t len, int64_t value)
{
    char *copy;

    for (int i = 0; i < o->e.nparams; i++) {
        if (strlen(o->names[i]) == len && memcmp(o->names[i], name, len) == 0) {
            o->vals[i] = value;
            return ATUNE_OK;
        }
    }
    if (o->e.nparams == o->cap) {
        int cap = o->cap ? 2 * o->cap : 8;
        char **names = realloc(o->names, (size_t)cap * sizeof(*names));
        int64_t *vals;
        if (!names)
            return ATUNE_ENOMEM;
        o->names = names;
        if (!(vals = realloc(o->vals, (size_t)cap * sizeof(*vals))))
            return ATUNE_ENOMEM;
        o->vals = vals;
        o->cap = cap;
    }
    if (!(copy = malloc(len + 1)))
        return ATUNE_ENOMEM;
    memcpy(copy, name, len);
    copy[len] = '\0';
    o->names[o->e.nparams] = copy;
    o->vals[o->e.nparams++] = value;
    o->e.pname = (const char **)o->names;
    o->e.pval = o->vals;
    return ATUNE_OK;
}

int atune_config_new(const char *kernel_name, const atune_config *base,
                     atune_config **out)
{
    override *o;
    int rc = ATUNE_OK;

    if (!out)
        return ATUNE_EINVAL;
    *out = NULL;
    if (!kernel_name)
        kernel_name = base ? base->e->kernel : "";
    if (!is_kernel_name(kernel_name))
        return ATUNE_EINVAL;
    if (!(o = calloc(1, sizeof(*o))) || !(o->kernel = strdup(kernel_name))) {
        free(o);
        return ATUNE_ENOMEM;
    }
    o->c.e = &o->e;
    o->c.match = ATUNE_SIZE_OVERRIDE;
    o->e.kernel = o->kernel;
    o->e.size = "";
    o->e.hash = "";
    o->e.exact = o->c;
    for (int i = 0; base && i < base->e->nparams && rc == ATUNE_OK; i++)
        rc = set_param(o, base->e->pname[i], strlen(base->e->pname[i]),
                       base->e->pval[i]);
    if (rc != ATUNE_OK) {
        atune_config_free(&o->c);
        return rc;
    }
    *out = &o->c;
    return ATUNE_OK;
}

int atune_config_set(atune_config *c, const char *param, int64_t value)
{
    override *o = override_of(c);

    if (!o || !param || !is_param_name(param, strlen(param)))
        return ATUNE_EINVAL;
    return set_param(o, param, strlen(param), value);
}

static const char *skip_blanks(const char *s)
{
    while (is_blank(*s))
        s++;
    return s;
}

/* One "NAME=VALUE" at *s, then past the ',' after it. NULL, or why not. */
static const char *parse_pair(override *o, const char **s, int *rc)
{
    const char *p = skip_blanks(*s), *name = p;
    size_t len;
    long long v;
    char *end;

    while (is_ident(*p))
        p++;
    len = (size_t)(p - name);
    if (!is_param_name(name, len))
        return "expected a parameter name (A-Z, 0-9, '_')";
    for (int i = 0; i < o->e.nparams; i++)
        if (strlen(o->names[i]) == len && memcmp(o->names[i], name, len) == 0)
            return "parameter given twice";
    p = skip_blanks(p);
    if (*p != '=')
        return "expected '=' after a parameter name";
    p = skip_blanks(p + 1);
    errno = 0;
    v = strtoll(p, &end, 10);
    if (end == p || (*p != '-' && !is_digit(*p)))
        return "expected an integer value";
    if (errno == ERANGE)
        return "value out of range";
    p = skip_blanks(end);
    if (*p != ',' && *p != '\0')
        return "expected ',' between parameters";
    if ((*rc = set_param(o, name, len, v)) != ATUNE_OK)
        return "out of memory";
    *s = *p == ',' ? p + 1 : p;
    return NULL;
}

int atune_config_from_string(const char *kernel_name, const char *text,
                             atune_config **out, char *msg, size_t msglen)
{
    const char *s = text, *why = NULL;
    atune_config *c = NULL;
    int rc;

    if (msg && msglen > 0)
        msg[0] = '\0';
    if (out)
        *out = NULL;
    if (!text || !out)
        return ATUNE_EINVAL;
    if ((rc = atune_config_new(kernel_name, NULL, &c)) != ATUNE_OK) {
        if (msg && msglen > 0)
            snprintf(msg, msglen, "%s",
                     rc == ATUNE_ENOMEM ? "out of memory" : "bad kernel name");
        return rc;
    }
    rc = ATUNE_OK;
    while (*skip_blanks(s) && !why)
        why = parse_pair((override *)c, &s, &rc);
    if (why) {
        if (msg && msglen > 0)
            snprintf(msg, msglen, "bad configuration '%s' at column %d: %s",
                     text, (int)(s - text) + 1, why);
        atune_config_free(c);
        return rc != ATUNE_OK ? rc : ATUNE_EINVAL;
    }
    *out = c;
    return ATUNE_OK;
}
