/* manifest_names.c -- the names of a manifest: C identifiers, entry points
 * and symbols looked up in the .cu file, and the variables expressions
 * may use (parameters, size variables, device attributes). */
#include <stdio.h>
#include <string.h>

#include "template/manifest_internal.h"

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

int atune__ident_char(char ch)
{
    return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
           (ch >= '0' && ch <= '9') || ch == '_';
}

int atune__manifest_param_n(const atune__manifest *m, const char *s,
                            size_t len)
{
    for (int i = 0; i < m->nparams; i++)
        if (strlen(m->params[i].name) == len &&
            memcmp(m->params[i].name, s, len) == 0)
            return i;
    return -1;
}

int atune__manifest_size_var_n(const atune__manifest *m, const char *s,
                               size_t len)
{
    for (int i = 0; m->nsizes > 0 && i < m->sizes[0].nvars; i++)
        if (strlen(m->sizes[0].var[i]) == len &&
            memcmp(m->sizes[0].var[i], s, len) == 0)
            return i;
    return -1;
}

int atune__mf_is_ident(const char *s)
{
    if (!atune__ident_char(*s) || (*s >= '0' && *s <= '9'))
        return 0;
    while (atune__ident_char(*s))
        s++;
    return *s == '\0';
}

/* Copies the identifier s into dst, or fails naming it as what. */
int atune__mf_copy_ident(struct loader *ld, int line, const char *what,
                         const char *s, char dst[ATUNE__NAME_MAX])
{
    if (!atune__mf_is_ident(s))
        return atune__mf_bad(ld, line, "%s '%s' is not a C identifier", what,
                             s);
    if (atune__strlcpy(dst, s, ATUNE__NAME_MAX) != 0)
        return atune__mf_bad(ld, line, "%s '%s' is longer than %d bytes", what,
                             s, ATUNE__NAME_MAX - 1);
    return 0;
}

/* Whether word occurs in text as a whole identifier. */
int atune__mf_has_word(const char *text, const char *word)
{
    size_t len = strlen(word);

    for (const char *p = strstr(text, word); p; p = strstr(p + 1, word)) {
        if ((p == text || !atune__ident_char(p[-1])) &&
            !atune__ident_char(p[len]))
            return 1;
    }
    return 0;
}

int atune__mf_code_has(const struct loader *ld, const char *word)
{
    return atune__mf_has_word(ld->code, word) ||
           (ld->hdr_code && atune__mf_has_word(ld->hdr_code, word));
}

const char *atune__mf_code_where(const struct loader *ld, char *buf,
                                 size_t size)
{
    int n = ld->m->nheaders;

    if (n == 0)
        return ld->cu_name;
    snprintf(buf, size, "%s or the %d header%s of its own it includes",
             ld->cu_name, n, n == 1 ? "" : "s");
    return buf;
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
char *atune__mf_blank_comments(const char *src)
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

int atune__mf_find_name(const char *const *names, size_t n, const char *s,
                        size_t len)
{
    for (size_t i = 0; i < n; i++) {
        if (strlen(names[i]) == len && memcmp(names[i], s, len) == 0)
            return (int)i;
    }
    return -1;
}

int atune__mf_is_devattr(const char *name)
{
    return atune__mf_find_name(devattr_names, ARRAY_LEN(devattr_names), name,
                               strlen(name)) >= 0;
}

/* C and C++ keywords, alternative operator spellings and CUDA's built-in
 * variables: as -D macros they would rewrite the kernel's source. */
static const char *const cxx_words[] = {
    "alignas",     "alignof",      "and",          "and_eq",
    "asm",         "auto",         "bitand",       "bitor",
    "bool",        "break",        "case",         "catch",
    "char",        "char8_t",      "char16_t",     "char32_t",
    "class",       "compl",        "concept",      "const",
    "consteval",   "constexpr",    "constinit",    "const_cast",
    "continue",    "co_await",     "co_return",    "co_yield",
    "decltype",    "default",      "defined",      "delete",
    "do",          "double",       "dynamic_cast", "else",
    "enum",        "explicit",     "export",       "extern",
    "false",       "float",        "for",          "friend",
    "goto",        "if",           "inline",       "int",
    "long",        "mutable",      "namespace",    "new",
    "noexcept",    "not",          "not_eq",       "nullptr",
    "operator",    "or",           "or_eq",        "private",
    "protected",   "public",       "register",     "reinterpret_cast",
    "requires",    "restrict",     "return",       "short",
    "signed",      "sizeof",       "static",       "static_assert",
    "static_cast", "struct",       "switch",       "template",
    "this",        "thread_local", "throw",        "true",
    "try",         "typedef",      "typeid",       "typename",
    "union",       "unsigned",     "using",        "virtual",
    "void",        "volatile",     "wchar_t",      "while",
    "xor",         "xor_eq",       "threadIdx",    "blockIdx",
    "blockDim",    "gridDim",      "warpSize"};

/* The expression language's functions (expr.c). */
static const char *const expr_functions[] = {"cdiv", "min", "max"};

const char *atune__mf_reserved_word(const char *name)
{
    size_t len = strlen(name);

    if (atune__mf_find_name(cxx_words, ARRAY_LEN(cxx_words), name, len) >= 0)
        return "a reserved word of C++ or CUDA";
    if (atune__mf_find_name(expr_functions, ARRAY_LEN(expr_functions), name,
                            len) >= 0)
        return "a function of manifest expressions";
    /* C reserves _X and __x for the implementation (and NVRTC uses them). */
    if (name[0] == '_' &&
        ((name[1] >= 'A' && name[1] <= 'Z') || name[1] == '_'))
        return "reserved (it starts with '_' and a capital or '__')";
    return NULL;
}

int atune__mf_is_size_var(const atune__manifest *m, const char *name)
{
    /* Every size has the same variables: the first one's suffice. */
    for (int i = 0; m->nsizes > 0 && i < m->sizes[0].nvars; i++) {
        if (strcmp(m->sizes[0].var[i], name) == 0)
            return 1;
    }
    return 0;
}

const atune__param *atune__mf_find_param(const atune__manifest *m,
                                         const char *name)
{
    for (int i = 0; i < m->nparams; i++) {
        if (strcmp(m->params[i].name, name) == 0)
            return &m->params[i];
    }
    return NULL;
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

    if (atune__mf_is_size_var(nc->m, name) || atune__mf_is_devattr(name))
        return 0;
    nc->is_param = atune__mf_find_param(nc->m, name) != NULL;
    if (nc->is_param && nc->params_ok)
        return 0;
    atune__strlcpy(nc->name, name, sizeof(nc->name));
    return 1;
}

/* Checks that e uses only known names. shared_by, when non-NULL, says
 * why e may not use parameters: what it computes is shared by all
 * configurations. */
int atune__mf_check_expr(struct loader *ld, const atune__expr *e, int line,
                         const char *what, const char *shared_by)
{
    struct name_check nc = {.m = ld->m, .params_ok = shared_by == NULL};

    if (!e || !atune__expr_names(e, check_name, &nc))
        return 0;
    if (nc.is_param)
        return atune__mf_bad(ld, line, "%s '%s' uses parameter '%s': %s", what,
                             atune__expr_text(e), nc.name,
                             shared_by ? shared_by : "");
    return atune__mf_bad(ld, line, "unknown variable '%s' in %s '%s'", nc.name,
                         what, atune__expr_text(e));
}

static int check_dim3(struct loader *ld, const atune__dim3 *d, const char *what,
                      const char *shared_by)
{
    int rc = 0;

    for (int i = 0; rc == 0 && i < d->n; i++)
        rc = atune__mf_check_expr(ld, d->e[i], d->line, what, shared_by);
    return rc;
}

static int check_args(struct loader *ld, const atune__arg *args, int n)
{
    int rc = 0;

    for (int i = 0; rc == 0 && i < n; i++) {
        rc = atune__mf_check_expr(ld, args[i].count, args[i].line, "buffer count",
                        "buffers are shared by all configurations");
        if (rc == 0)
            rc = atune__mf_check_expr(ld, args[i].value, args[i].line, "value", NULL);
    }
    return rc;
}

int atune__mf_check_names(struct loader *ld)
{
    const atune__manifest *m = ld->m;
    int rc;

    /* The reference's and the init kernel's launches may read parameters:
     * they run once per size, at the default configuration's values.
     * [reference.NAME] sections are checked as such (manifest_sequence.c). */
    if ((!m->nref_steps &&
         ((rc = check_dim3(ld, &m->ref_block, "reference_block", NULL)) ||
          (rc = check_dim3(ld, &m->ref_grid, "reference_grid", NULL)))) ||
        (rc = check_dim3(ld, &m->init_block, "init_block", NULL)) ||
        (rc = check_dim3(ld, &m->init_grid, "init_grid", NULL)) ||
        (rc = atune__mf_check_expr(ld, m->ref_shared, m->ref_shared_line,
                                   "reference_shared", NULL)) ||
        (rc = atune__mf_check_expr(ld, m->work, m->work_line, "work",
                         "the runner computes it once per size, and every "
                         "configuration's metric divides the same work")) ||
        (rc = atune__mf_check_expr(ld, m->block_cost, m->block_cost_line,
                                   "block_cost", NULL)))
        return rc;
    for (int i = 0; i < m->nconstraints; i++) {
        const atune__named_expr *c = &m->constraints[i];
        if ((rc = atune__mf_check_expr(ld, c->expr, c->line, "constraint", NULL)))
            return rc;
    }
    if ((rc = check_dim3(ld, &m->block, "block", NULL)) ||
        (rc = check_dim3(ld, &m->grid, "grid", NULL)) ||
        (rc = atune__mf_check_expr(ld, m->shared, m->shared_line, "shared", NULL)) ||
        (rc = check_args(ld, m->args, m->nargs)))
        return rc;
    return check_args(ld, m->constants, m->nconstants);
}
