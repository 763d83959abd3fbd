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
    /* names by hash: slot[h] is 1 + an index into names, 0 when free; a
     * configuration of many parameters is built in linear time */
    int *slot;
    size_t nslots; /* a power of two, over twice cap */
} override;

static override *override_of(atune_config *c)
{
    return c && c->match == ATUNE_SIZE_OVERRIDE ? (override *)c : NULL;
}

/* A C identifier, as a manifest's parameter is (lower-case letters
 * included: a profile holds those as param.NAME). */
static int is_param_name(const char *s, size_t len)
{
    if (len == 0 || is_digit(s[0]))
        return 0;
    for (size_t i = 0; i < len; i++)
        if (!is_ident(s[i]))
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
    free(o->slot);
    free(o);
}

static size_t name_hash(const char *name, size_t len)
{
    uint64_t h = 0xcbf29ce484222325ULL;

    for (size_t i = 0; i < len; i++)
        h = (h ^ (unsigned char)name[i]) * 0x100000001b3ULL;
    return (size_t)h;
}

/* The slot of name (len bytes): the one holding it, or the free one where
 * it goes. */
static int *find_slot(const override *o, const char *name, size_t len)
{
    size_t mask = o->nslots - 1, h = name_hash(name, len) & mask;

    for (;; h = (h + 1) & mask) {
        int *sl = &o->slot[h];
        const char *n = *sl ? o->names[*sl - 1] : NULL;
        if (!n || (strncmp(n, name, len) == 0 && n[len] == '\0'))
            return sl;
    }
}

/* Room for one more parameter: the arrays and the hash grown together. */
static int grow(override *o)
{
    int cap = o->cap ? 2 * o->cap : 8;
    size_t nslots = 4 * (size_t)cap;
    char **names = realloc(o->names, (size_t)cap * sizeof(*names));
    int64_t *vals;
    int *slot;

    if (!names)
        return ATUNE_ENOMEM;
    o->names = names;
    if (!(vals = realloc(o->vals, (size_t)cap * sizeof(*vals))))
        return ATUNE_ENOMEM;
    o->vals = vals;
    if (!(slot = calloc(nslots, sizeof(*slot))))
        return ATUNE_ENOMEM;
    free(o->slot);
    o->slot = slot;
    o->nslots = nslots;
    o->cap = cap;
    for (int i = 0; i < o->e.nparams; i++)
        *find_slot(o, o->names[i], strlen(o->names[i])) = i + 1;
    return ATUNE_OK;
}

/* The index of name (len bytes) among o's parameters, or -1. */
static int param_index(const override *o, const char *name, size_t len)
{
    const int *sl = o->nslots ? find_slot(o, name, len) : NULL;

    return sl && *sl ? *sl - 1 : -1;
}

/* Sets name (len bytes) to value, adding it when new. */
static int set_param(override *o, const char *name, size_t len, int64_t value)
{
    char *copy;
    int i = param_index(o, name, len);

    if (i >= 0) {
        o->vals[i] = value;
        return ATUNE_OK;
    }
    if (o->e.nparams == o->cap && grow(o) != ATUNE_OK)
        return ATUNE_ENOMEM;
    if (!(copy = malloc(len + 1)))
        return ATUNE_ENOMEM;
    memcpy(copy, name, len);
    copy[len] = '\0';
    o->names[o->e.nparams] = copy;
    *find_slot(o, name, len) = o->e.nparams + 1;
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
    const char *p = skip_blanks(*s), *name = p, *why;
    char num[32];
    size_t len, nlen;
    int64_t v;

    while (is_ident(*p))
        p++;
    len = (size_t)(p - name);
    if (!is_param_name(name, len))
        return "expected a parameter name (a C identifier)";
    if (param_index(o, name, len) >= 0)
        return "parameter given twice";
    p = skip_blanks(p);
    if (*p != '=')
        return "expected '=' after a parameter name";
    p = skip_blanks(p + 1);
    /* the value's text: what could be part of a number, so that "1;" is
     * a missing ',' and "0x10" or "1e3" not an integer */
    nlen = *p == '-';
    while (is_ident(p[nlen]) || p[nlen] == '.' || p[nlen] == '+')
        nlen++;
    if (nlen >= sizeof(num))
        return "value out of range";
    memcpy(num, p, nlen);
    num[nlen] = '\0';
    if ((why = atune__lib_parse_i64(num, INT64_MIN, INT64_MAX, &v)) != NULL)
        return strcmp(why, "out of range") == 0 ? "value out of range"
                                                : "expected an integer value";
    p = skip_blanks(p + nlen);
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
