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

#define TYPE_LIST                                                              \
    "char, int, uint, long, ulong, float, double, half, bf16, their vectors " \
    "(float4, int2, half2, ...), bytes"
static const char *const type_names[] = {
    "char", "int", "uint", "long", "ulong", "float", "double", "half", "bf16",
    "bytes"};
static const size_t type_sizes[] = {1, 4, 4, 8, 8, 4, 8, 2, 2, 1};
/* CUDA's own names of the same types. */
static const struct {
    const char *name;
    atune__type type;
} type_aliases[] = {
    {"__half", ATUNE__HALF},  {"__nv_bfloat16", ATUNE__BF16},
    {"struct", ATUNE__BYTES}, {"__half2", ATUNE__HALF},
    {"__nv_bfloat162", ATUNE__BF16},
};
static const char *const role_names[] = {"scalar", "input",  "output",
                                         "inout",  "accum",  "scratch"};
#define ROLE_LIST "input, output, inout, accum, scratch"
#define MAX_OPTIONS 4 /* ", OPTION = VALUE" after a buffer's role */

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

int atune__type_is_real(atune__type t)
{
    return t == ATUNE__FLOAT || t == ATUNE__DOUBLE || t == ATUNE__HALF ||
           t == ATUNE__BF16;
}

size_t atune__arg_elem_size(const atune__arg *a)
{
    return type_sizes[a->type] * (size_t)(a->lanes > 1 ? a->lanes : 1);
}

/* The type named s[0..len): a name of type_names or type_aliases, or a
 * numeric one followed by 2, 3 or 4 (a CUDA vector type: float4, int2,
 * half2); *lanes its components. -1 when it is none. */
static int find_type(const char *s, size_t len, int *lanes)
{
    int t = atune__mf_find_name(type_names, ARRAY_LEN(type_names), s, len);

    *lanes = 1;
    for (size_t i = 0; t < 0 && i < ARRAY_LEN(type_aliases); i++)
        if (strlen(type_aliases[i].name) == len &&
            memcmp(type_aliases[i].name, s, len) == 0) {
            t = (int)type_aliases[i].type;
            if (s[len - 1] == '2')
                *lanes = 2;
        }
    if (t < 0 && len > 1 && s[len - 1] >= '2' && s[len - 1] <= '4') {
        t = find_type(s, len - 1, lanes);
        if (t == ATUNE__BYTES || *lanes != 1)
            t = -1;
        *lanes = s[len - 1] - '0';
    }
    return t;
}

int atune__role_compared(atune__role r)
{
    return r == ATUNE__OUTPUT || r == ATUNE__INOUT || r == ATUNE__ACCUM;
}

/* A float or double scalar written as a decimal literal ("2.5", "1e-3"),
 * which the integer expression language cannot express. */
static int float_literal(const char *text, double *out)
{
    if (!strpbrk(text, ".eE") || strpbrk(text, "xX"))
        return 0;
    return atune__parse_real(text, -DBL_MAX, DBL_MAX, out) == NULL;
}

struct slice_names {
    const atune__manifest *m;
    const char *bad;
    int is_param;
};

static int slice_name(void *ctx, const char *name)
{
    struct slice_names *sn = ctx;

    if (atune__mf_is_size_var(sn->m, name) || atune__mf_is_devattr(name))
        return 0;
    sn->bad = name;
    for (int i = 0; i < sn->m->nparams; i++)
        if (strcmp(sn->m->params[i].name, name) == 0)
            sn->is_param = 1;
    return 1;
}

/* An expression of size variables and device attributes, the same for
 * every configuration: one end of "compare = LO..HI" or a fill's value. */
static int parse_size_expr(struct loader *ld, const atune__ini_entry *en,
                           const char *what, const char *text,
                           atune__expr **out)
{
    struct slice_names sn = {.m = ld->m};
    int rc = atune__mf_parse_expr(ld, en->line, text, out);

    if (rc || !atune__expr_names(*out, slice_name, &sn))
        return rc;
    if (sn.is_param)
        return atune__mf_bad(ld, en->line,
                             "%s '%s' of '%s' uses parameter '%s': buffers "
                             "are the same for every configuration",
                             what, text, en->key, sn.bad);
    return atune__mf_bad(ld, en->line,
                         "unknown variable '%s' in %s '%s' of '%s'", sn.bad,
                         what, text, en->key);
}

/* compare = EXPR (one element) or LO..HI (inclusive, as ranges are in
 * [params] and [sizes]). */
static int parse_compare(struct loader *ld, const atune__ini_entry *en,
                         const char *v, atune__arg *a)
{
    const char *dots = strstr(v, "..");
    char *lo;
    int rc;

    if (!atune__role_compared(a->role))
        return atune__mf_bad(ld, en->line,
                             "'compare' of %s buffer '%s': only output, inout "
                             "and accum buffers are compared",
                             atune__role_name(a->role), en->key);
    if (!dots)
        return (rc = parse_size_expr(ld, en, "compare", v, &a->cmp_lo))
                   ? rc
                   : parse_size_expr(ld, en, "compare", v, &a->cmp_hi);
    lo = atune__strndup(v, (size_t)(dots - v));
    if (!lo)
        return atune__mf_oom(ld);
    rc = parse_size_expr(ld, en, "compare", lo, &a->cmp_lo);
    free(lo);
    return rc ? rc : parse_size_expr(ld, en, "compare", dots + 2, &a->cmp_hi);
}

/* mismatches = N (elements) or P% (of the compared elements). */
static int parse_mismatches(struct loader *ld, const atune__ini_entry *en,
                            const char *v, atune__arg *a)
{
    size_t len = strlen(v);
    char *end;

    if (!atune__role_compared(a->role))
        return atune__mf_bad(ld, en->line,
                             "'mismatches' of %s buffer '%s': only output, "
                             "inout and accum buffers are compared",
                             atune__role_name(a->role), en->key);
    if (atune__type_is_real(a->type))
        return atune__mf_bad(ld, en->line,
                             "'mismatches' of %s buffer '%s': real buffers "
                             "are compared with the template's tolerance",
                             atune__type_name(a->type), en->key);
    errno = 0;
    if (len > 1 && v[len - 1] == '%' && v[0] >= '0' && v[0] <= '9') {
        double pct = strtod(v, &end);
        if (end == v + len - 1 && errno == 0 && pct >= 0 && pct <= 100) {
            a->mismatch_pct = pct;
            return 0;
        }
    } else if (len > 0 && len <= 19 && strspn(v, "0123456789") == len) {
        a->mismatch_count = strtoull(v, &end, 10);
        return 0;
    }
    return atune__mf_bad(ld, en->line,
                         "mismatches '%s' of '%s' is not a count of elements "
                         "or a percentage from 0%% to 100%% (5, 0.1%%)",
                         v, en->key);
}

static int is_real(atune__type t)
{
    return atune__type_is_real(t);
}

/* "NAME(ARGS)" when v is a call of name: ARGS split at top-level commas
 * into want pieces (heap strings); 0 when v is no call of name; -1 when it
 * is, with another number of arguments. */
static int call_args(const char *v, const char *name, char **args, int want)
{
    size_t len = strlen(name), vlen = strlen(v);
    char *inner;
    int n;

    if (strncmp(v, name, len) != 0)
        return 0;
    for (v += len; *v == ' ' || *v == '\t'; v++)
        continue;
    vlen = strlen(v);
    if (*v != '(' || vlen < 2 || v[vlen - 1] != ')')
        return 0;
    inner = atune__strndup(v + 1, vlen - 2);
    if (!inner)
        return -1;
    n = atune__split_top(inner, args, want);
    free(inner);
    if (n != want) {
        for (int i = 0; i < n; i++) {
            free(args[i]);
            args[i] = NULL;
        }
        return -1;
    }
    return 1;
}

/* A real literal: the whole of text is a finite number. */
static int real_value(const char *text, double *out)
{
    char *end;
    double v;

    errno = 0;
    v = strtod(text, &end);
    if (end == text || *end != '\0' || errno == ERANGE || !isfinite(v))
        return 0;
    *out = v;
    return 1;
}

/* fill = range(LO, HI) | uniform(LO, HI) | bits(B) | iota | const(X) | X */
static int parse_fill(struct loader *ld, const atune__ini_entry *en,
                      const char *v, atune__arg *a)
{
    atune__fill *f = &a->fill;
    const char *tn = atune__type_name(a->type);
    char *args[2] = {0}, *end;
    int rc = 0, k;

    if (a->role != ATUNE__INPUT && a->role != ATUNE__INOUT)
        return atune__mf_bad(ld, en->line,
                             "'fill' of %s buffer '%s': only input and inout "
                             "buffers are filled",
                             atune__role_name(a->role), en->key);
    if (strcmp(v, "iota") == 0) {
        f->kind = ATUNE__FILL_IOTA;
        return 0;
    }
    if ((k = call_args(v, "file", args, 1)) != 0) {
        f->kind = ATUNE__FILL_FILE;
        if (k < 0)
            return atune__mf_bad(ld, en->line,
                                 "fill '%s' of '%s': file(PATH) takes one path",
                                 v, en->key);
        f->path = args[0];
        return 0;
    }
    if ((k = call_args(v, "range", args, 2)) != 0) {
        if (k < 0)
            return atune__mf_bad(ld, en->line,
                                 "fill '%s' of '%s': range(LO, HI) takes two "
                                 "integers",
                                 v, en->key);
        f->kind = ATUNE__FILL_RANGE;
        if (is_real(a->type))
            rc = atune__mf_bad(ld, en->line,
                               "fill '%s' of %s buffer '%s': range() fills "
                               "integers; reals use uniform(LO, HI)",
                               v, tn, en->key);
        if (!rc)
            rc = parse_size_expr(ld, en, "fill", args[0], &f->lo);
        if (!rc)
            rc = parse_size_expr(ld, en, "fill", args[1], &f->hi);
    } else if ((k = call_args(v, "uniform", args, 2)) != 0) {
        f->kind = ATUNE__FILL_UNIFORM;
        if (k < 0 || !is_real(a->type) || !real_value(args[0], &f->rlo) ||
            !real_value(args[1], &f->rhi) || !(f->rlo < f->rhi))
            rc = atune__mf_bad(ld, en->line,
                               "fill '%s' of %s buffer '%s': uniform(LO, HI) "
                               "fills reals, LO < HI numbers",
                               v, tn, en->key);
    } else if ((k = call_args(v, "bits", args, 1)) != 0) {
        long b = 0;
        f->kind = ATUNE__FILL_BITS;
        if (k > 0 && strspn(args[0], "0123456789") == strlen(args[0]) &&
            strlen(args[0]) <= 2)
            b = strtol(args[0], &end, 10);
        if (is_real(a->type) || b < 1 ||
            (size_t)b > 8 * atune__type_size(a->type))
            rc = atune__mf_bad(ld, en->line,
                               "fill '%s' of %s buffer '%s': bits(B) fills "
                               "integers, B from 1 to %zu",
                               v, tn, en->key, 8 * atune__type_size(a->type));
        f->bits = (int)b;
    } else {
        f->kind = ATUNE__FILL_CONST;
        if ((k = call_args(v, "const", args, 1)) < 0)
            return atune__mf_bad(ld, en->line,
                                 "fill '%s' of '%s': const(X) takes one value",
                                 v, en->key);
        if (k > 0)
            v = args[0];
        if (is_real(a->type) && strpbrk(v, ".eE") && !strpbrk(v, "xX")) {
            f->has_real = real_value(v, &f->rlo);
            if (!f->has_real)
                rc = atune__mf_bad(ld, en->line,
                                   "fill '%s' of '%s' is not a number", v,
                                   en->key);
        } else {
            rc = parse_size_expr(ld, en, "fill", v, &f->lo);
        }
    }
    free(args[0]);
    free(args[1]);
    return rc;
}

/* verify = NAME: a kernel of the reference's source that counts the
 * buffer's wrong elements (docs/manifest.md). */
static int parse_verify(struct loader *ld, const atune__ini_entry *en,
                        const char *v, atune__arg *a)
{
    if (!atune__role_compared(a->role))
        return atune__mf_bad(ld, en->line,
                             "'verify' of %s buffer '%s': only output, inout "
                             "and accum buffers are compared",
                             atune__role_name(a->role), en->key);
    return atune__mf_entry_point(ld, en->line, "verify", v, a->verify);
}

/* ", OPTION = VALUE" after a buffer's role. */
static int parse_option(struct loader *ld, const atune__ini_entry *en,
                        const char *opt, atune__arg *a, unsigned *seen)
{
    static const char *const names[] = {"compare", "mismatches", "fill",
                                        "verify"};
    size_t len = 0;
    const char *v;
    int k;

    while (atune__ident_char(opt[len]))
        len++;
    k = atune__mf_find_name(names, ARRAY_LEN(names), opt, len);
    if (k < 0) {
        /* the option's name: what stands before '=' */
        const char *eq = strchr(opt, '=');
        size_t key = eq ? (size_t)(eq - opt) : strlen(opt);
        while (key > 0 && (opt[key - 1] == ' ' || opt[key - 1] == '\t'))
            key--;
        return atune__mf_bad(ld, en->line,
                             "unknown option '%.*s' of buffer '%s' (compare, "
                             "mismatches, fill, verify)",
                             (int)key, opt, en->key);
    }
    for (v = opt + len; *v == ' ' || *v == '\t'; v++)
        continue;
    if (*v != '=')
        return atune__mf_bad(ld, en->line,
                             "option '%s' of buffer '%s' has no value: %s = "
                             "VALUE",
                             names[k], en->key, names[k]);
    for (v++; *v == ' ' || *v == '\t'; v++)
        continue;
    if (*seen & (1u << k))
        return atune__mf_bad(ld, en->line, "buffer '%s' has two '%s' options",
                             en->key, names[k]);
    *seen |= 1u << k;
    if (k == 0)
        return parse_compare(ld, en, v, a);
    if (k == 3)
        return parse_verify(ld, en, v, a);
    return k == 1 ? parse_mismatches(ld, en, v, a) : parse_fill(ld, en, v, a);
}

/* TYPE[COUNT] ROLE[, OPTION = VALUE ...], with s just past TYPE and at
 * '['. */
static int parse_buffer(struct loader *ld, const atune__ini_entry *en,
                        const char *s, atune__arg *a)
{
    const char *close = strchr(s, ']');
    char *count, *piece[1 + MAX_OPTIONS] = {0};
    const char *role;
    unsigned seen = 0;
    int rc, r, n;

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
    if (*role == '\0' || *role == ',')
        return atune__mf_bad(ld, en->line, "buffer '%s' has no role (%s)",
                             en->key, ROLE_LIST);
    n = atune__split_top(role, piece, 1 + MAX_OPTIONS);
    if (n < 0)
        return atune__mf_bad(ld, en->line,
                             "buffer '%s': an empty option, or more than %d, "
                             "after its role",
                             en->key, MAX_OPTIONS);
    r = atune__mf_find_name(role_names, ARRAY_LEN(role_names), piece[0],
                            strlen(piece[0]));
    if (r <= ATUNE__SCALAR)
        rc = atune__mf_bad(ld, en->line, "unknown role '%s' of '%s' (%s)",
                           piece[0], en->key, ROLE_LIST);
    else
        a->role = (atune__role)r;
    for (int i = 1; rc == 0 && i < n; i++)
        rc = parse_option(ld, en, piece[i], a, &seen);
    for (int i = 0; i < n; i++)
        free(piece[i]);
    return rc;
}

static int hex_digit(char c)
{
    return c >= '0' && c <= '9'   ? c - '0'
           : c >= 'a' && c <= 'f' ? c - 'a' + 10
           : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                  : -1;
}

/* bytes[N] hex:HEX or bytes[N] file:PATH, with s at '[': N raw bytes
 * passed by value, for a struct argument. */
static int parse_raw(struct loader *ld, const atune__ini_entry *en,
                     const char *s, atune__arg *a)
{
    size_t n = 0, len = 0;
    const char *v;
    char *path = NULL, *text = NULL;
    int rc;

    a->role = ATUNE__SCALAR;
    if (*s == '[')
        for (s++; *s >= '0' && *s <= '9' && n <= ATUNE__MAX_RAW; s++)
            n = n * 10 + (size_t)(*s - '0');
    if (s[-1] == '[' || *s != ']' || n < 1 || n > ATUNE__MAX_RAW)
        return atune__mf_bad(ld, en->line,
                             "'%s' = bytes[N] hex:HEX or bytes[N] file:PATH, "
                             "N a number of bytes from 1 to %d",
                             en->key, ATUNE__MAX_RAW);
    for (v = s + 1; *v == ' ' || *v == '\t'; v++)
        continue;
    if (!(a->raw = calloc(1, n)))
        return atune__mf_oom(ld);
    a->raw_len = n;
    if (strncmp(v, "hex:", 4) == 0) {
        for (v += 4; *v == ' ' || *v == '\t'; v++)
            continue;
        for (size_t i = 0; i < 2 * n; i++)
            if (hex_digit(v[i]) < 0)
                return atune__mf_bad(ld, en->line,
                                     "bytes '%s' of '%s': want %zu hex "
                                     "digits (2 a byte, in memory order)",
                                     v, en->key, 2 * n);
        if (v[2 * n] != '\0')
            return atune__mf_bad(ld, en->line,
                                 "bytes '%s' of '%s': more than %zu hex "
                                 "digits",
                                 v, en->key, 2 * n);
        for (size_t i = 0; i < n; i++)
            a->raw[i] = (unsigned char)(hex_digit(v[2 * i]) << 4 |
                                        hex_digit(v[2 * i + 1]));
        return 0;
    }
    if (strncmp(v, "file:", 5) != 0)
        return atune__mf_bad(ld, en->line,
                             "bytes of '%s': the value is hex:HEX or "
                             "file:PATH",
                             en->key);
    for (v += 5; *v == ' ' || *v == '\t'; v++)
        continue;
    rc = atune__mf_read_local(ld, en->line, "bytes file", v, &path, &text,
                              &len);
    if (!rc && len != n)
        rc = atune__mf_bad(ld, en->line,
                           "bytes file '%s' of '%s' has %zu bytes, not %zu",
                           v, en->key, len, n);
    if (!rc) {
        memcpy(a->raw, text, n);
        /* The value is part of the template, as a hex value in the .ini. */
        ld->m->hash = atune__fnv1a(a->raw, n, ld->m->hash);
    }
    free(path);
    free(text);
    return rc;
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

    while (word > value && atune__ident_char(word[-1]))
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
        !(atune__ident_char(before[-1]) || before[-1] == ')'))
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
    while (atune__ident_char(s[len]))
        len++;
    t = find_type(s, len, &a->lanes);
    if (t < 0)
        return atune__mf_bad(ld, en->line, "unknown type '%.*s' of '%s' (%s)",
                             (int)len, s, en->key, TYPE_LIST);
    a->type = (atune__type)t;
    for (s += len; *s == ' ' || *s == '\t'; s++)
        continue;
    if (a->type == ATUNE__BYTES)
        return parse_raw(ld, en, s, a);
    if (*s == '[')
        return parse_buffer(ld, en, s, a);
    a->role = ATUNE__SCALAR;
    if (*s == '\0')
        return atune__mf_bad(ld, en->line, "scalar '%s' has no value", en->key);
    if (a->lanes > 1 || a->type == ATUNE__HALF || a->type == ATUNE__BF16)
        return atune__mf_bad(ld, en->line,
                             "scalar '%s' of type %.*s: pass it as raw bytes "
                             "(bytes[N] hex:...)",
                             en->key, (int)len, en->value);
    if ((rc = scalar_role(ld, en, s)) != 0)
        return rc;
    if (is_real(a->type) && float_literal(s, &a->fvalue)) {
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
        checked |= atune__role_compared(m->args[i].role);
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
        if (!atune__mf_code_has(ld, c->name)) {
            char where[ATUNE__NAME_MAX + 64];
            return atune__mf_bad(ld, en->line, "constant '%s' not found in %s",
                                 c->name,
                                 atune__mf_code_where(ld, where,
                                                      sizeof(where)));
        }
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

uint64_t atune__mismatches_allowed(const atune__arg *a, uint64_t compared)
{
    if (a->mismatch_pct > 0)
        return (uint64_t)floor(a->mismatch_pct / 100 * (double)compared);
    return a->mismatch_count;
}
