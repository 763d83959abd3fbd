/* manifest.c -- loads a template manifest (NAME.ini) and checks it.
 *
 * The loader's job is to make every later stage safe: whatever reaches
 * the space, the compiler or the runner has been validated here, and every
 * defect is reported with the file and line that holds it.
 */
#include "template/manifest.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/inidoc.h"

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

#define TYPE_LIST "char, int, uint, long, ulong, float, double"
static const char *const type_names[] = {"char",  "int",   "uint",  "long",
                                         "ulong", "float", "double"};
static const size_t type_sizes[] = {1, 4, 4, 8, 8, 4, 8};
static const char *const role_names[] = {"scalar", "input", "output", "inout",
                                         "accum"};

/* The device attributes expressions may use; space.c gives their values
 * (atune__devattr_vars) and must name the same six. */
static const char *const devattr_names[] = {
    "sm_count",
    "max_threads_per_block",
    "max_shared_per_block",
    "warp_size",
    "cc",
    "l2_bytes",
};

static const struct {
    const char *name;
    int required;
} section_specs[] = {
    {"template", 1}, {"sizes", 1}, {"params", 1},    {"constraints", 0},
    {"launch", 1},   {"args", 1},  {"constants", 0},
};

static const char *const template_keys[] = {
    "kernel", "reference", "reference_block", "reference_grid",
    "metric", "work",      "tolerance"};
static const char *const launch_keys[] = {"block", "grid", "shared"};

struct loader {
    atune__manifest *m;
    const atune__ini *ini;
    const char *cu_name; /* the .cu file's base name, for messages */
    char *code; /* the .cu with comments and literals blanked: names are
                   looked up here, so that one only in a comment is missing */
    atune__err *err;
};

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

/* ---- helpers ---------------------------------------------------------- */

/* Fails with "ini_path:line: message". */
static int bad(struct loader *ld, int line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int bad(struct loader *ld, int line, const char *fmt, ...)
{
    char what[1024];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(what, sizeof(what), fmt, ap);
    va_end(ap);
    return atune__fail(ld->err, ATUNE__EDATA, "%s:%d: %s", ld->m->ini_path,
                       line, what);
}

static int oom(struct loader *ld)
{
    return atune__fail(ld->err, ATUNE__EOSERR, "out of memory");
}

static int is_ident_char(char ch)
{
    return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
           (ch >= '0' && ch <= '9') || ch == '_';
}

static int is_ident(const char *s)
{
    if (!is_ident_char(*s) || (*s >= '0' && *s <= '9'))
        return 0;
    while (is_ident_char(*s))
        s++;
    return *s == '\0';
}

/* [A-Z][A-Z0-9_]*: profiles tell parameters from their own lower-case
 * keys by case. */
static int is_upper_ident(const char *s)
{
    if (!(*s >= 'A' && *s <= 'Z'))
        return 0;
    for (; *s; s++) {
        if (!((*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') ||
              *s == '_'))
            return 0;
    }
    return 1;
}

/* Copies the identifier s into dst, or fails naming it as what. */
static int copy_ident(struct loader *ld, int line, const char *what,
                      const char *s, char dst[ATUNE__NAME_MAX])
{
    if (!is_ident(s))
        return bad(ld, line, "%s '%s' is not a C identifier", what, s);
    if (atune__strlcpy(dst, s, ATUNE__NAME_MAX) != 0)
        return bad(ld, line, "%s '%s' is longer than %d bytes", what, s,
                   ATUNE__NAME_MAX - 1);
    return 0;
}

/* Whether word occurs in text as a whole identifier. */
static int has_word(const char *text, const char *word)
{
    size_t len = strlen(word);

    for (const char *p = strstr(text, word); p; p = strstr(p + 1, word)) {
        if ((p == text || !is_ident_char(p[-1])) && !is_ident_char(p[len]))
            return 1;
    }
    return 0;
}

/* The end of the comment or literal that starts at p, or p when none
 * does. Literals end at their unescaped quote or at the line's end. */
static const char *skip_comment(const char *p)
{
    if (p[0] == '/' && p[1] == '/')
        return p + strcspn(p, "\n");
    if (p[0] == '/' && p[1] == '*') {
        const char *end = strstr(p + 2, "*/");
        return end ? end + 2 : p + strlen(p);
    }
    if (*p == '"' || *p == '\'') {
        const char *q = p + 1;
        while (*q && *q != *p && *q != '\n')
            q += q[0] == '\\' && q[1] ? 2 : 1;
        return *q == *p ? q + 1 : q;
    }
    return p;
}

/* A copy of CUDA source with comments and string and character literals
 * turned into spaces (line breaks kept), or NULL when out of memory. */
static char *blank_comments(const char *src)
{
    char *out = atune__strdup(src);

    for (char *p = out; p && *p;) {
        const char *end = skip_comment(src + (p - out));
        char *stop = out + (end - src);
        if (stop == p) {
            p++;
            continue;
        }
        for (; p < stop; p++)
            if (*p != '\n')
                *p = ' ';
    }
    return out;
}

static int find_name(const char *const *names, size_t n, const char *s,
                     size_t len)
{
    for (size_t i = 0; i < n; i++) {
        if (strlen(names[i]) == len && memcmp(names[i], s, len) == 0)
            return (int)i;
    }
    return -1;
}

static int is_devattr(const char *name)
{
    return find_name(devattr_names, ARRAY_LEN(devattr_names), name,
                     strlen(name)) >= 0;
}

static int is_size_var(const atune__manifest *m, const char *name)
{
    /* Every size has the same variables: the first one's suffice. */
    for (int i = 0; m->nsizes > 0 && i < m->sizes[0].nvars; i++) {
        if (strcmp(m->sizes[0].var[i], name) == 0)
            return 1;
    }
    return 0;
}

static const atune__param *find_param(const atune__manifest *m,
                                      const char *name)
{
    for (int i = 0; i < m->nparams; i++) {
        if (strcmp(m->params[i].name, name) == 0)
            return &m->params[i];
    }
    return NULL;
}

static int parse_expr(struct loader *ld, int line, const char *text,
                      atune__expr **out)
{
    int rc = atune__expr_parse(text, out, ld->err);

    if (rc)
        atune__err_prefix(ld->err, "%s:%d: ", ld->m->ini_path, line);
    return rc;
}

static int first_name(void *ctx, const char *name)
{
    atune__strlcpy(ctx, name, ATUNE__NAME_MAX);
    return 1;
}

/* Evaluates text, which may not use variables ("-1", "0x10", "1 << 20");
 * what names the value in messages ("parameter 'VW'"). */
static int const_value(struct loader *ld, int line, const char *what,
                       const char *text, int64_t *out)
{
    char name[ATUNE__NAME_MAX];
    atune__expr *e = NULL;
    int rc = atune__expr_parse(text, &e, ld->err);

    if (rc == ATUNE__EDATA)
        return bad(ld, line, "%s: '%s' is not an integer expression: %s", what,
                   text, ld->err->msg);
    if (rc)
        return rc;
    if (atune__expr_names(e, first_name, name))
        rc = bad(ld, line, "%s: '%s' must be constant, not use '%s'", what,
                 text, name);
    else if ((rc = atune__expr_eval(e, NULL, out, ld->err)) != 0)
        atune__err_prefix(ld->err, "%s:%d: %s: ", ld->m->ini_path, line, what);
    atune__expr_free(e);
    return rc;
}

/* "x", "x, y" or "x, y, z". */
static int parse_dim3(struct loader *ld, const atune__ini_entry *en,
                      atune__dim3 *d)
{
    char *piece[3];
    int n = atune__split_top(en->value, piece, 3), rc = 0;

    if (n < 0)
        return bad(ld, en->line,
                   "'%s' must be 1 to 3 comma-separated expressions", en->key);
    d->line = en->line;
    for (int i = 0; i < n; i++) {
        if (rc == 0)
            rc = parse_expr(ld, en->line, piece[i], &d->e[i]);
        free(piece[i]);
    }
    d->n = rc ? 0 : n;
    return rc;
}

/* The entry key of section s, or a "missing key" failure. */
static int need(struct loader *ld, const atune__ini_section *s, const char *key,
                const atune__ini_entry **out)
{
    *out = atune__ini_get(s, key);
    if (!*out)
        return bad(ld, s->line, "missing key '%s' in [%s]", key, s->name);
    return 0;
}

static int check_keys(struct loader *ld, const atune__ini_section *s,
                      const char *const *keys, size_t nkeys)
{
    for (int i = 0; i < s->nentries; i++) {
        const atune__ini_entry *en = &s->entries[i];
        if (find_name(keys, nkeys, en->key, strlen(en->key)) < 0)
            return bad(ld, en->line, "unknown key '%s' in [%s]", en->key,
                       s->name);
    }
    return 0;
}

/* ---- sections --------------------------------------------------------- */

static int check_section(struct loader *ld, int index)
{
    const atune__ini_section *s = &ld->ini->sections[index];

    if (s->name[0] == '\0') {
        if (s->nentries > 0)
            return bad(ld, s->entries[0].line, "entry '%s' before any section",
                       s->entries[0].key);
        return 0;
    }
    for (size_t i = 0;; i++) {
        if (i == ARRAY_LEN(section_specs))
            return bad(ld, s->line, "unknown section [%s]", s->name);
        if (strcmp(section_specs[i].name, s->name) == 0)
            break;
    }
    for (int i = 0; i < index; i++) {
        if (strcmp(ld->ini->sections[i].name, s->name) == 0)
            return bad(ld, s->line, "duplicate section [%s] (first at line %d)",
                       s->name, ld->ini->sections[i].line);
    }
    for (int i = 0; i < s->nentries; i++) {
        for (int j = 0; j < i; j++) {
            if (strcmp(s->entries[i].key, s->entries[j].key) == 0)
                return bad(ld, s->entries[i].line,
                           "duplicate key '%s' in [%s] (first at line %d)",
                           s->entries[i].key, s->name, s->entries[j].line);
        }
    }
    return 0;
}

static int check_sections(struct loader *ld)
{
    const atune__ini_section *t = atune__ini_find(ld->ini, "template");
    int rc;

    for (int i = 0; i < ld->ini->nsections; i++) {
        if ((rc = check_section(ld, i)) != 0)
            return rc;
    }
    for (size_t i = 0; i < ARRAY_LEN(section_specs); i++) {
        if (section_specs[i].required &&
            !atune__ini_find(ld->ini, section_specs[i].name))
            return bad(ld, t ? t->line : 1, "missing section [%s]",
                       section_specs[i].name);
    }
    return 0;
}

/* kernel = NAME or reference = NAME: an entry point of the .cu file. */
static int parse_entry_point(struct loader *ld, const atune__ini_section *s,
                             const char *key, char dst[ATUNE__NAME_MAX])
{
    const atune__ini_entry *en;
    int rc;

    if ((rc = need(ld, s, key, &en)) != 0 ||
        (rc = copy_ident(ld, en->line, key, en->value, dst)) != 0)
        return rc;
    if (!has_word(ld->code, dst))
        return bad(
            ld, en->line, "%s '%s' not found in %s%s", key, dst, ld->cu_name,
            has_word(ld->m->source, dst) ? " (only in a comment or string)"
                                         : "");
    return 0;
}

static int parse_tolerance(struct loader *ld, const atune__ini_entry *en)
{
    char *end;
    double t;

    /* strtod reads the locale's decimal point; the tuner never calls
     * setlocale, so that is '.'. */
    errno = 0;
    t = strtod(en->value, &end);
    if (end == en->value || *end != '\0' || errno == ERANGE || !isfinite(t))
        return bad(ld, en->line, "tolerance '%s' is not a number", en->value);
    if (t < 0)
        return bad(ld, en->line, "tolerance '%s' is negative", en->value);
    ld->m->tolerance = t;
    return 0;
}

static int parse_template(struct loader *ld)
{
    const atune__ini_section *s = atune__ini_find(ld->ini, "template");
    const atune__ini_entry *en;
    atune__manifest *m = ld->m;
    int rc;

    if ((rc = check_keys(ld, s, template_keys, ARRAY_LEN(template_keys))) ||
        (rc = parse_entry_point(ld, s, "kernel", m->kernel)) ||
        (rc = parse_entry_point(ld, s, "reference", m->reference)) ||
        (rc = need(ld, s, "reference_block", &en)) ||
        (rc = parse_dim3(ld, en, &m->ref_block)) ||
        (rc = need(ld, s, "reference_grid", &en)) ||
        (rc = parse_dim3(ld, en, &m->ref_grid)) ||
        (rc = need(ld, s, "metric", &en)))
        return rc;
    if (strcmp(en->value, "GB/s") == 0)
        m->metric = ATUNE__GBS;
    else if (strcmp(en->value, "GFLOP/s") == 0)
        m->metric = ATUNE__GFLOPS;
    else
        return bad(ld, en->line, "metric '%s' is neither GB/s nor GFLOP/s",
                   en->value);
    if ((rc = need(ld, s, "work", &en)) ||
        (rc = parse_expr(ld, en->line, en->value, &m->work)))
        return rc;
    m->work_line = en->line;
    en = atune__ini_get(s, "tolerance");
    return en ? parse_tolerance(ld, en) : 0;
}

/* One VAR=EXPR of a size. */
static int parse_size_var(struct loader *ld, int line, char *text,
                          atune__size *sz)
{
    char *eq = strchr(text, '=');
    char *var = text;
    char what[ATUNE__NAME_MAX + 20];
    int64_t v;
    int rc;

    if (!eq)
        return bad(ld, line, "'%s' is not VAR=EXPR", text);
    *eq = '\0';
    var = atune__trim(var);
    rc = copy_ident(ld, line, "size variable", var, sz->var[sz->nvars]);
    if (rc)
        return rc;
    if (is_devattr(var))
        return bad(ld, line, "size variable '%s' is a device attribute", var);
    for (int i = 0; i < sz->nvars; i++) {
        if (strcmp(sz->var[i], var) == 0)
            return bad(ld, line, "size variable '%s' given twice", var);
    }
    snprintf(what, sizeof(what), "size variable '%s'", var);
    if ((rc = const_value(ld, line, what, atune__trim(eq + 1), &v)) != 0)
        return rc;
    if (v < 1)
        return bad(ld, line, "size variable '%s' must be >= 1, not %" PRId64,
                   var, v);
    sz->value[sz->nvars++] = v;
    return 0;
}

static int parse_size(struct loader *ld, const atune__ini_entry *en,
                      atune__size *sz)
{
    char *piece[ATUNE__MAX_SIZE_VARS];
    int n, rc = 0;

    if ((rc = copy_ident(ld, en->line, "size name", en->key, sz->name)))
        return rc;
    sz->line = en->line;
    n = atune__split_top(en->value, piece, ATUNE__MAX_SIZE_VARS);
    if (n < 0)
        return bad(ld, en->line,
                   "size '%s' must be 1 to %d comma-separated VAR=EXPR",
                   en->key, ATUNE__MAX_SIZE_VARS);
    for (int i = 0; i < n; i++) {
        if (rc == 0)
            rc = parse_size_var(ld, en->line, piece[i], sz);
        free(piece[i]);
    }
    return rc;
}

/* Whether b defines exactly the variables of a, in any order. */
static int same_vars(const atune__size *a, const atune__size *b)
{
    if (a->nvars != b->nvars)
        return 0;
    for (int i = 0; i < b->nvars; i++) {
        int found = 0;
        for (int j = 0; j < a->nvars; j++)
            found |= strcmp(a->var[j], b->var[i]) == 0;
        if (!found)
            return 0;
    }
    return 1;
}

static int parse_sizes(struct loader *ld)
{
    const atune__ini_section *s = atune__ini_find(ld->ini, "sizes");
    atune__manifest *m = ld->m;
    int rc;

    if (s->nentries == 0)
        return bad(ld, s->line, "[sizes] has no entries");
    for (int i = 0; i < s->nentries; i++) {
        const atune__ini_entry *en = &s->entries[i];
        if (i == ATUNE__MAX_SIZES)
            return bad(ld, en->line, "more than %d sizes", ATUNE__MAX_SIZES);
        if ((rc = parse_size(ld, en, &m->sizes[i])) != 0)
            return rc;
        m->nsizes++;
        if (!same_vars(&m->sizes[0], &m->sizes[i]))
            return bad(ld, en->line,
                       "size '%s' does not have the same variables as '%s'",
                       en->key, m->sizes[0].name);
    }
    return 0;
}

/* The candidate values of one parameter: constant expressions. */
static int parse_values(struct loader *ld, const atune__ini_entry *en,
                        atune__param *p)
{
    char *piece[ATUNE__MAX_VALUES];
    char what[ATUNE__NAME_MAX + 16];
    int n, rc = 0;

    snprintf(what, sizeof(what), "parameter '%s'", p->name);
    if (en->value[0] == '\0')
        return bad(ld, en->line, "parameter '%s' has no values", p->name);
    n = atune__split_top(en->value, piece, ATUNE__MAX_VALUES);
    if (n < 0)
        return bad(ld, en->line,
                   "parameter '%s' needs 1 to %d values, none empty", p->name,
                   ATUNE__MAX_VALUES);
    for (int i = 0; i < n; i++) {
        int64_t v = 0;
        if (rc == 0)
            rc = const_value(ld, en->line, what, piece[i], &v);
        for (int j = 0; rc == 0 && j < p->nvalues; j++) {
            if (p->values[j] == v)
                rc = bad(ld, en->line,
                         "duplicate value %" PRId64 " of parameter '%s'", v,
                         p->name);
        }
        if (rc == 0)
            p->values[p->nvalues++] = v;
        free(piece[i]);
    }
    return rc;
}

static int parse_params(struct loader *ld)
{
    const atune__ini_section *s = atune__ini_find(ld->ini, "params");
    atune__manifest *m = ld->m;
    int64_t points = 1;
    int rc;

    if (s->nentries == 0)
        return bad(ld, s->line, "[params] has no entries");
    for (int i = 0; i < s->nentries; i++) {
        const atune__ini_entry *en = &s->entries[i];
        atune__param *p = &m->params[i];
        if (i == ATUNE__MAX_PARAMS)
            return bad(ld, en->line, "more than %d parameters",
                       ATUNE__MAX_PARAMS);
        if (!is_ident(en->key))
            return bad(ld, en->line, "parameter '%s' is not a C identifier",
                       en->key);
        if (!is_upper_ident(en->key))
            return bad(ld, en->line,
                       "parameter '%s' is not upper case ([A-Z][A-Z0-9_]*)",
                       en->key);
        if ((rc = copy_ident(ld, en->line, "parameter", en->key, p->name)))
            return rc;
        /* Device attributes are lower case: only sizes can collide. */
        if (is_size_var(m, p->name))
            return bad(ld, en->line,
                       "parameter '%s' has the name of a size variable",
                       p->name);
        p->line = en->line;
        m->nparams++;
        if ((rc = parse_values(ld, en, p)) != 0)
            return rc;
        if (points > INT64_MAX / p->nvalues)
            return bad(ld, en->line,
                       "the parameter space has more than 2^63 points");
        points *= p->nvalues;
    }
    return 0;
}

static int parse_constraints(struct loader *ld)
{
    const atune__ini_section *s = atune__ini_find(ld->ini, "constraints");
    atune__manifest *m = ld->m;
    int rc;

    for (int i = 0; s && i < s->nentries; i++) {
        const atune__ini_entry *en = &s->entries[i];
        atune__named_expr *c = &m->constraints[i];
        if (i == ATUNE__MAX_CONSTRAINTS)
            return bad(ld, en->line, "more than %d constraints",
                       ATUNE__MAX_CONSTRAINTS);
        if ((rc = copy_ident(ld, en->line, "constraint", en->key, c->name)))
            return rc;
        c->line = en->line;
        m->nconstraints++;
        if ((rc = parse_expr(ld, en->line, en->value, &c->expr)) != 0)
            return rc;
    }
    return 0;
}

static int parse_launch(struct loader *ld)
{
    const atune__ini_section *s = atune__ini_find(ld->ini, "launch");
    const atune__ini_entry *en;
    atune__manifest *m = ld->m;
    int rc;

    if ((rc = check_keys(ld, s, launch_keys, ARRAY_LEN(launch_keys))) ||
        (rc = need(ld, s, "block", &en)) ||
        (rc = parse_dim3(ld, en, &m->block)) ||
        (rc = need(ld, s, "grid", &en)) || (rc = parse_dim3(ld, en, &m->grid)))
        return rc;
    /* An absent shared is a parsed "0", so that users never see NULL. */
    en = atune__ini_get(s, "shared");
    m->shared_line = en ? en->line : s->line;
    return parse_expr(ld, m->shared_line, en ? en->value : "0", &m->shared);
}

/* A float or double scalar written as a decimal literal ("2.5", "1e-3"),
 * which the integer expression language cannot express. */
static int float_literal(const char *text, double *out)
{
    char *end;
    double v;

    if (!strpbrk(text, ".eE") || strpbrk(text, "xX"))
        return 0;
    errno = 0;
    v = strtod(text, &end);
    if (end == text || *end != '\0' || errno == ERANGE || !isfinite(v))
        return 0;
    *out = v;
    return 1;
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
        return bad(ld, en->line, "missing ']' in '%s'", en->value);
    count = atune__strndup(s + 1, (size_t)(close - s - 1));
    if (!count)
        return oom(ld);
    rc = parse_expr(ld, en->line, count, &a->count);
    free(count);
    if (rc)
        return rc;
    for (role = close + 1; *role == ' ' || *role == '\t'; role++)
        continue;
    r = find_name(role_names, ARRAY_LEN(role_names), role, strlen(role));
    if (*role == '\0')
        return bad(ld, en->line,
                   "buffer '%s' has no role (input, output, inout, accum)",
                   en->key);
    if (r <= ATUNE__SCALAR)
        return bad(ld, en->line,
                   "unknown role '%s' of '%s' (input, output, inout, accum)",
                   role, en->key);
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

    while (word > value && is_ident_char(word[-1]))
        word--;
    r = find_name(role_names, ARRAY_LEN(role_names), word,
                  (size_t)(end - word));
    if (r <= ATUNE__SCALAR)
        return 0;
    if (word == value) {
        if (is_size_var(ld->m, word))
            return 0;
        return bad(ld, en->line,
                   "scalar '%s' has role '%s' but no value: a buffer is "
                   "TYPE[COUNT] ROLE",
                   en->key, word);
    }
    for (before = word;
         before > value && (before[-1] == ' ' || before[-1] == '\t');)
        before--;
    if (before == word || before == value ||
        !(is_ident_char(before[-1]) || before[-1] == ')'))
        return 0;
    return bad(ld, en->line,
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

    if ((rc = copy_ident(ld, en->line, what, en->key, a->name)))
        return rc;
    a->line = en->line;
    while (is_ident_char(s[len]))
        len++;
    t = find_name(type_names, ARRAY_LEN(type_names), s, len);
    if (t < 0)
        return bad(ld, en->line, "unknown type '%.*s' of '%s' (%s)", (int)len,
                   s, en->key, TYPE_LIST);
    a->type = (atune__type)t;
    for (s += len; *s == ' ' || *s == '\t'; s++)
        continue;
    if (*s == '[')
        return parse_buffer(ld, en, s, a);
    a->role = ATUNE__SCALAR;
    if (*s == '\0')
        return bad(ld, en->line, "scalar '%s' has no value", en->key);
    if ((rc = scalar_role(ld, en, s)) != 0)
        return rc;
    if ((a->type == ATUNE__FLOAT || a->type == ATUNE__DOUBLE) &&
        float_literal(s, &a->fvalue)) {
        a->has_fvalue = 1;
        return 0;
    }
    return parse_expr(ld, en->line, s, &a->value);
}

static int parse_args(struct loader *ld)
{
    const atune__ini_section *s = atune__ini_find(ld->ini, "args");
    atune__manifest *m = ld->m;
    int checked = 0, rc;

    for (int i = 0; i < s->nentries; i++) {
        const atune__ini_entry *en = &s->entries[i];
        if (i == ATUNE__MAX_ARGS)
            return bad(ld, en->line, "more than %d arguments", ATUNE__MAX_ARGS);
        m->nargs++;
        if ((rc = parse_arg(ld, en, "argument", &m->args[i])) != 0)
            return rc;
        checked |= m->args[i].role >= ATUNE__OUTPUT;
    }
    if (!checked)
        return bad(ld, s->line,
                   "[args] has no output, inout or accum buffer to verify");
    return 0;
}

static int parse_constants(struct loader *ld)
{
    const atune__ini_section *s = atune__ini_find(ld->ini, "constants");
    atune__manifest *m = ld->m;
    int rc;

    for (int i = 0; s && i < s->nentries; i++) {
        const atune__ini_entry *en = &s->entries[i];
        atune__arg *c = &m->constants[i];
        if (i == ATUNE__MAX_CONSTANTS)
            return bad(ld, en->line, "more than %d constants",
                       ATUNE__MAX_CONSTANTS);
        m->nconstants++;
        if ((rc = parse_arg(ld, en, "constant", c)) != 0)
            return rc;
        if (c->role != ATUNE__INPUT)
            return bad(ld, en->line, "constant '%s' must be TYPE[COUNT] input",
                       c->name);
        if (!has_word(ld->code, c->name))
            return bad(ld, en->line, "constant '%s' not found in %s", c->name,
                       ld->cu_name);
    }
    return 0;
}

/* ---- names used by expressions ---------------------------------------- */

struct name_check {
    const atune__manifest *m;
    int params_ok;
    int is_param; /* the offending name is a parameter */
    char name[ATUNE__NAME_MAX];
};

static int check_name(void *ctx, const char *name)
{
    struct name_check *nc = ctx;

    if (is_size_var(nc->m, name) || is_devattr(name))
        return 0;
    nc->is_param = find_param(nc->m, name) != NULL;
    if (nc->is_param && nc->params_ok)
        return 0;
    atune__strlcpy(nc->name, name, sizeof(nc->name));
    return 1;
}

/* Checks that e uses only known names. shared_by, when non-NULL, says
 * why e may not use parameters: what it computes is shared by all
 * configurations. */
static int check_expr(struct loader *ld, const atune__expr *e, int line,
                      const char *what, const char *shared_by)
{
    struct name_check nc = {.m = ld->m, .params_ok = shared_by == NULL};

    if (!e || !atune__expr_names(e, check_name, &nc))
        return 0;
    if (nc.is_param)
        return bad(ld, line, "%s '%s' uses parameter '%s': %s", what,
                   atune__expr_text(e), nc.name, shared_by);
    return bad(ld, line, "unknown variable '%s' in %s '%s'", nc.name, what,
               atune__expr_text(e));
}

static int check_dim3(struct loader *ld, const atune__dim3 *d, const char *what,
                      const char *shared_by)
{
    int rc = 0;

    for (int i = 0; rc == 0 && i < d->n; i++)
        rc = check_expr(ld, d->e[i], d->line, what, shared_by);
    return rc;
}

static int check_args(struct loader *ld, const atune__arg *args, int n)
{
    int rc = 0;

    for (int i = 0; rc == 0 && i < n; i++) {
        rc = check_expr(ld, args[i].count, args[i].line, "buffer count",
                        "buffers are shared by all configurations");
        if (rc == 0)
            rc = check_expr(ld, args[i].value, args[i].line, "value", NULL);
    }
    return rc;
}

static int check_names(struct loader *ld)
{
    static const char ref[] = "the reference runs once for all configurations";
    const atune__manifest *m = ld->m;
    int rc;

    if ((rc = check_dim3(ld, &m->ref_block, "reference_block", ref)) ||
        (rc = check_dim3(ld, &m->ref_grid, "reference_grid", ref)) ||
        (rc = check_expr(ld, m->work, m->work_line, "work",
                         "the runner computes it once per size, and every "
                         "configuration's metric divides the same work")))
        return rc;
    for (int i = 0; i < m->nconstraints; i++) {
        const atune__named_expr *c = &m->constraints[i];
        if ((rc = check_expr(ld, c->expr, c->line, "constraint", NULL)))
            return rc;
    }
    if ((rc = check_dim3(ld, &m->block, "block", NULL)) ||
        (rc = check_dim3(ld, &m->grid, "grid", NULL)) ||
        (rc = check_expr(ld, m->shared, m->shared_line, "shared", NULL)) ||
        (rc = check_args(ld, m->args, m->nargs)))
        return rc;
    return check_args(ld, m->constants, m->nconstants);
}

/* ---- entry points ----------------------------------------------------- */

/* Template names become profile section names and --kernel list items:
 * no spaces, commas or brackets. */
static int is_template_name(const char *s)
{
    if (*s == '\0' || *s == '-' || strlen(s) >= ATUNE__NAME_MAX)
        return 0;
    for (; *s; s++) {
        if (!is_ident_char(*s) && *s != '-')
            return 0;
    }
    return 1;
}

static int init_manifest(atune__manifest *m, const char *name,
                         const char *ini_path, const char *ini_text,
                         const char *cu_path, const char *cu_text)
{
    size_t ini_len = strlen(ini_text);

    strcpy(m->name, name);
    m->ini_path = atune__strdup(ini_path);
    m->cu_path = atune__strdup(cu_path);
    m->source_len = strlen(cu_text);
    m->source = atune__strndup(cu_text, m->source_len);
    if (!m->ini_path || !m->cu_path || !m->source)
        return -1;
    m->hash = atune__fnv1a(cu_text, m->source_len, ATUNE__FNV_SEED);
    m->hash = atune__fnv1a(ini_text, ini_len, m->hash);
    return 0;
}

static int load_sections(struct loader *ld)
{
    int rc;

    if ((rc = check_sections(ld)) || (rc = parse_template(ld)) ||
        (rc = parse_sizes(ld)) || (rc = parse_params(ld)) ||
        (rc = parse_constraints(ld)) || (rc = parse_launch(ld)) ||
        (rc = parse_args(ld)) || (rc = parse_constants(ld)))
        return rc;
    return check_names(ld);
}

int atune__manifest_parse(const char *name, const char *ini_path,
                          const char *ini_text, const char *cu_path,
                          const char *cu_text, atune__manifest **out,
                          atune__err *err)
{
    struct loader ld = {.err = err};
    atune__ini *ini = NULL;
    const char *slash = strrchr(cu_path, '/');
    char msg[1024];
    int rc;

    *out = NULL;
    if (!is_template_name(name))
        return atune__fail(err, ATUNE__EDATA,
                           "%s: bad template name '%s' (want [A-Za-z0-9_-])",
                           ini_path, name);
    ld.cu_name = slash ? slash + 1 : cu_path;
    ld.m = atune__calloc(1, sizeof(*ld.m));
    if (!ld.m ||
        init_manifest(ld.m, name, ini_path, ini_text, cu_path, cu_text) != 0) {
        rc = atune__fail(err, ATUNE__EOSERR, "out of memory");
        goto fail;
    }
    if (atune__ini_parse(ini_path, ini_text, &ini, msg, sizeof(msg)) != 0) {
        rc = atune__fail(err, ATUNE__EDATA, "%s", msg);
        goto fail;
    }
    ld.ini = ini;
    ld.code = blank_comments(cu_text);
    if (!ld.code) {
        rc = atune__fail(err, ATUNE__EOSERR, "out of memory");
        goto fail;
    }
    if ((rc = load_sections(&ld)) != 0)
        goto fail;
    atune__ini_free(ini);
    free(ld.code);
    *out = ld.m;
    return ATUNE__OK;
fail:
    atune__ini_free(ini);
    free(ld.code);
    atune__manifest_free(ld.m);
    return rc;
}

/* Returns "dir/stem.ext" on the heap, or NULL. */
static char *join_path(const char *dir, const char *stem, const char *ext)
{
    size_t len = strlen(dir) + strlen(stem) + strlen(ext) + 2;
    char *path = malloc(len);

    if (path)
        snprintf(path, len, "%s/%s%s", dir, stem, ext);
    return path;
}

int atune__manifest_load(const char *dir, const char *name,
                         atune__manifest **out, atune__err *err)
{
    char *ini_path = join_path(dir, name, ".ini");
    char *cu_path = join_path(dir, name, ".cu");
    char *ini_text = NULL, *cu_text = NULL;
    int rc;

    *out = NULL;
    if (!ini_path || !cu_path) {
        rc = atune__fail(err, ATUNE__EOSERR, "out of memory");
        goto out;
    }
    if ((rc = atune__read_file(ini_path, &ini_text, NULL, err)) ||
        (rc = atune__read_file(cu_path, &cu_text, NULL, err)))
        goto out;
    rc = atune__manifest_parse(name, ini_path, ini_text, cu_path, cu_text, out,
                               err);
out:
    free(ini_path);
    free(cu_path);
    free(ini_text);
    free(cu_text);
    return rc;
}

static void free_dim3(atune__dim3 *d)
{
    for (int i = 0; i < 3; i++)
        atune__expr_free(d->e[i]);
}

static void free_args(atune__arg *args, int n)
{
    for (int i = 0; i < n; i++) {
        atune__expr_free(args[i].count);
        atune__expr_free(args[i].value);
    }
}

void atune__manifest_free(atune__manifest *m)
{
    if (!m)
        return;
    free(m->ini_path);
    free(m->cu_path);
    free(m->source);
    free_dim3(&m->ref_block);
    free_dim3(&m->ref_grid);
    atune__expr_free(m->work);
    for (int i = 0; i < m->nconstraints; i++)
        atune__expr_free(m->constraints[i].expr);
    free_dim3(&m->block);
    free_dim3(&m->grid);
    atune__expr_free(m->shared);
    free_args(m->args, m->nargs);
    free_args(m->constants, m->nconstants);
    free(m);
}

const atune__size *atune__manifest_size(const atune__manifest *m,
                                        const char *name)
{
    for (int i = 0; i < m->nsizes; i++) {
        if (strcmp(m->sizes[i].name, name) == 0)
            return &m->sizes[i];
    }
    return NULL;
}

void atune__size_key(const atune__size *s, char *buf, size_t len)
{
    size_t used = 0;

    if (len == 0)
        return;
    buf[0] = '\0';
    for (int i = 0; i < s->nvars; i++) {
        int n = snprintf(buf + used, len - used, "%s%s=%" PRId64, i ? "," : "",
                         s->var[i], s->value[i]);
        if (n < 0 || (size_t)n >= len - used) {
            buf[used] = '\0'; /* too small: keep whole items only */
            return;
        }
        used += (size_t)n;
    }
}

int atune__size_vars(const atune__size *s, atune__vars *vs)
{
    for (int i = 0; i < s->nvars; i++) {
        if (atune__vars_set(vs, s->var[i], s->value[i]) != 0)
            return -1;
    }
    return 0;
}

int atune__manifest_eval(const atune__manifest *m, const atune__expr *e,
                         int line, const atune__vars *vs, int64_t *out,
                         atune__err *err)
{
    int rc = atune__expr_eval(e, vs, out, err);

    if (rc)
        atune__err_prefix(err, "%s:%d: ", m->ini_path, line);
    return rc;
}
