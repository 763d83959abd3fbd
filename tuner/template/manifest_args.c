/* manifest_args.c -- [args] and [constants] of a manifest: the kernel's
 * parameters (buffers with roles, scalars) and its __constant__ symbols. */
#include <errno.h>
#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "template/manifest_internal.h"

#define TYPE_LIST "char, int, uint, long, ulong, float, double"
static const char *const type_names[] = {"char",  "int",   "uint",  "long",
                                         "ulong", "float", "double"};
static const size_t type_sizes[] = {1, 4, 4, 8, 8, 4, 8};
static const char *const role_names[] = {"scalar", "input", "output", "inout",
                                         "accum"};

size_t atune__type_size(atune__type t)
{
    return type_sizes[t];
}

const char *atune__type_name(atune__type t)
{
    return type_names[t];
}

const char *atune__role_name(atune__role r)
{
    return role_names[r];
}

/* A float or double scalar written as a decimal literal ("2.5", "1e-3"),
 * which the integer expression language cannot express. */
static int float_literal(const char *text, double *out)
{
    if (!strpbrk(text, ".eE") || strpbrk(text, "xX"))
        return 0;
    return atune__parse_real(text, -DBL_MAX, DBL_MAX, out) == NULL;
}

/* TYPE[COUNT] ROLE, with s just past TYPE and at '['. */
static int parse_buffer(struct loader *ld, const atune__ini_entry *en,
                        const char *s, atune__arg *a)
{
    const char *close = strchr(s, ']');
    const char *role;
    char *count;
    int rc, r;

    if (!close)
        return atune__mf_bad(ld, en->line, "missing ']' in '%s'", en->value);
    count = atune__strndup(s + 1, (size_t)(close - s - 1));
    if (!count)
        return atune__mf_oom(ld);
    rc = atune__mf_parse_expr(ld, en->line, count, &a->count);
    free(count);
    if (rc)
        return rc;
    for (role = close + 1; *role == ' ' || *role == '\t'; role++)
        continue;
    r = atune__mf_find_name(role_names, ARRAY_LEN(role_names), role,
                            strlen(role));
    if (*role == '\0')
        return atune__mf_bad(
            ld, en->line,
            "buffer '%s' has no role (input, output, inout, accum)", en->key);
    if (r <= ATUNE__SCALAR)
        return atune__mf_bad(
            ld, en->line,
            "unknown role '%s' of '%s' (input, output, inout, accum)", role,
            en->key);
    a->role = (atune__role)r;
    return 0;
}

/* Whether the last word of a scalar's value is a buffer role: "long n
 * input" would otherwise be reported as a syntax error at column 3, and a
 * bare "long input" as an unknown name. Two operands side by side are
 * never valid syntax, so this cannot reject a good value. */
static int scalar_role(struct loader *ld, const atune__ini_entry *en,
                       const char *value)
{
    const char *end = value + strlen(value), *word = end, *before;
    int r;

    while (word > value && atune__mf_is_ident_char(word[-1]))
        word--;
    r = atune__mf_find_name(role_names, ARRAY_LEN(role_names), word,
                            (size_t)(end - word));
    if (r <= ATUNE__SCALAR)
        return 0;
    if (word == value) {
        if (atune__mf_is_size_var(ld->m, word))
            return 0;
        return atune__mf_bad(
            ld, en->line,
            "scalar '%s' has role '%s' but no value: a buffer is "
            "TYPE[COUNT] ROLE",
            en->key, word);
    }
    for (before = word;
         before > value && (before[-1] == ' ' || before[-1] == '\t');)
        before--;
    if (before == word || before == value ||
        !(atune__mf_is_ident_char(before[-1]) || before[-1] == ')'))
        return 0;
    return atune__mf_bad(ld, en->line,
                         "scalar '%s' cannot have role '%s': only buffers "
                         "(TYPE[COUNT] ROLE) have roles",
                         en->key, word);
}

/* NAME = TYPE[COUNT] ROLE or NAME = TYPE VALUE; what is "argument" or
 * "constant". */
static int parse_arg(struct loader *ld, const atune__ini_entry *en,
                     const char *what, atune__arg *a)
{
    const char *s = en->value;
    size_t len = 0;
    int t, rc;

    if ((rc = atune__mf_copy_ident(ld, en->line, what, en->key, a->name)))
        return rc;
    a->line = en->line;
    while (atune__mf_is_ident_char(s[len]))
        len++;
    t = atune__mf_find_name(type_names, ARRAY_LEN(type_names), s, len);
    if (t < 0)
        return atune__mf_bad(ld, en->line, "unknown type '%.*s' of '%s' (%s)",
                             (int)len, s, en->key, TYPE_LIST);
    a->type = (atune__type)t;
    for (s += len; *s == ' ' || *s == '\t'; s++)
        continue;
    if (*s == '[')
        return parse_buffer(ld, en, s, a);
    a->role = ATUNE__SCALAR;
    if (*s == '\0')
        return atune__mf_bad(ld, en->line, "scalar '%s' has no value", en->key);
    if ((rc = scalar_role(ld, en, s)) != 0)
        return rc;
    if ((a->type == ATUNE__FLOAT || a->type == ATUNE__DOUBLE) &&
        float_literal(s, &a->fvalue)) {
        a->has_fvalue = 1;
        return 0;
    }
    return atune__mf_parse_expr(ld, en->line, s, &a->value);
}

int atune__mf_parse_args(struct loader *ld)
{
    const atune__ini_section *s = atune__ini_find(ld->ini, "args");
    atune__manifest *m = ld->m;
    int checked = 0, rc;

    for (int i = 0; i < s->nentries; i++) {
        const atune__ini_entry *en = &s->entries[i];
        if (i == ATUNE__MAX_ARGS)
            return atune__mf_bad(ld, en->line, "more than %d arguments",
                                 ATUNE__MAX_ARGS);
        m->nargs++;
        if ((rc = parse_arg(ld, en, "argument", &m->args[i])) != 0)
            return rc;
        checked |= m->args[i].role >= ATUNE__OUTPUT;
    }
    if (!checked)
        return atune__mf_bad(
            ld, s->line,
            "[args] has no output, inout or accum buffer to verify");
    return 0;
}

int atune__mf_parse_constants(struct loader *ld)
{
    const atune__ini_section *s = atune__ini_find(ld->ini, "constants");
    atune__manifest *m = ld->m;
    int rc;

    for (int i = 0; s && i < s->nentries; i++) {
        const atune__ini_entry *en = &s->entries[i];
        atune__arg *c = &m->constants[i];
        if (i == ATUNE__MAX_CONSTANTS)
            return atune__mf_bad(ld, en->line, "more than %d constants",
                                 ATUNE__MAX_CONSTANTS);
        m->nconstants++;
        if ((rc = parse_arg(ld, en, "constant", c)) != 0)
            return rc;
        if (c->role != ATUNE__INPUT)
            return atune__mf_bad(ld, en->line,
                                 "constant '%s' must be TYPE[COUNT] input",
                                 c->name);
        if (!atune__mf_has_word(ld->code, c->name))
            return atune__mf_bad(ld, en->line, "constant '%s' not found in %s",
                                 c->name, ld->cu_name);
    }
    return 0;
}

/* Whether v fits the C type of a scalar argument. */
int atune__scalar_fits(atune__type t, int64_t v)
{
    switch (t) {
    case ATUNE__CHAR:
        return v >= INT8_MIN && v <= INT8_MAX;
    case ATUNE__INT:
        return v >= INT32_MIN && v <= INT32_MAX;
    case ATUNE__UINT:
        return v >= 0 && v <= (int64_t)UINT32_MAX;
    case ATUNE__ULONG:
        return v >= 0;
    default:
        return 1; /* long, and reals, take any int64 */
    }
}
