/* manifest_macros.c -- which parameters become -DNAME=VALUE, and whether
 * that is safe.
 *
 * A parameter is passed as a macro when param_macros is yes, it is not
 * listed in not_macros, and the .cu or one of its own headers names it: a
 * parameter no source names can only matter to [launch], and passing it
 * would make one module per value for the same code. A macro parameter is
 * refused (at load, so by check and tune alike) where the source would
 * silently override it or be broken by it:
 *  - `#define NAME` or `#undef NAME` outside an `#ifndef NAME` guard: the
 *    file's value wins (NVRTC only warns, "incompatible redefinition of
 *    macro"), so every configuration compiles the same kernel;
 *  - NAME declared as something (a variable, a function parameter, a
 *    template parameter, a member): the macro turns the declaration into
 *    a number, and NVRTC's error points into the code, not at the knob.
 * The scan is lexical: comments and literals are blanked, a name right
 * after another identifier that is not an expression keyword (`return`,
 * `case`, ...) is a declaration, one after `.`, `->` or `::` a member.
 * Once every section is parsed, a parameter that is no macro and that no
 * expression reads either is noted (with a name of the source one edit
 * away, a misspelt knob's), for `check` to refuse. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "template/manifest_internal.h"

/* Identifiers after which a name is an expression, not a declaration. */
static const char *const expr_words[] = {
    "return", "case",   "sizeof",    "alignof", "else",     "do",
    "throw",  "new",    "delete",    "goto",    "co_return", "co_yield",
    "co_await", "not",  "and",       "or",      "compl",    "bitand",
    "bitor",  "xor",    "decltype",  "typeid",  "noexcept", "defined",
    "unroll", "if",     "while",     "for",     "switch",   "constexpr",
};

struct lex {
    struct loader *ld;
    const char *path; /* for messages */
    const char *p;
    int line;
    /* the previous token: 'i' identifier, '.' member access ('.', '->',
     * '::'), 'o' anything else; for 'i' its text */
    char prev;
    const char *prev_s;
    size_t prev_len;
    int tpl_depth;      /* '<' nesting inside `template <...>`, 0 outside */
    int pending_tpl;    /* saw `template`, waiting for its '<' */
    int paren_depth;
    unsigned guard[64]; /* per #if level: parameters it guards (#ifndef) */
    int nguard;
    /* Knobs the file #defines unguarded, in order: reported together once
     * the file is scanned, since a file with hard-wired knobs (the CUDA
     * samples') has several and each needs the same edit. */
    int redef_pi[ATUNE__MAX_PARAMS], redef_line[ATUNE__MAX_PARAMS];
    int nredef;
    /* Knobs the file also declares (a template's parameters are often all
     * of them: SGEMM's BM, BN, BK, ...), each with where and as what:
     * reported together, so that one run names every not_macros entry. */
    int decl_pi[ATUNE__MAX_PARAMS], decl_line[ATUNE__MAX_PARAMS];
    const char *decl_what[ATUNE__MAX_PARAMS];
    int ndecl;
};

static unsigned guarded(const struct lex *lx)
{
    unsigned g = 0;

    for (int i = 0; i < lx->nguard; i++)
        g |= lx->guard[i];
    return g;
}

static const char *skip_blank(const char *p)
{
    while (*p == ' ' || *p == '\t' || (*p == '\\' && p[1] == '\n'))
        p += *p == '\\' ? 2 : 1;
    return p;
}

static const char *ident_end(const char *p)
{
    if (!atune__ident_char(*p) || (*p >= '0' && *p <= '9'))
        return p;
    while (atune__ident_char(*p))
        p++;
    return p;
}

static int is_word(const char *s, size_t len, const char *w)
{
    return strlen(w) == len && memcmp(s, w, len) == 0;
}

static int fix_hint(struct lex *lx, int pi, int line, const char *what)
{
    const atune__manifest *m = lx->ld->m;
    const char *n = m->params[pi].name;

    return atune__fail(
        lx->ld->err, ATUNE__EDATA,
        "%s:%d: parameter '%s' (%s:%d) %s. Fix: rename the parameter in %s "
        "(e.g. %s_KNOB, used in the source where the knob is meant), or "
        "declare it not a macro (not_macros = %s under [template]) when the "
        "kernel gets it another way ([launch], the kernel's name "
        "expression)",
        lx->path, line, n, m->ini_path, m->params[pi].line, what, m->ini_path,
        n, n);
}

/* Every parameter named in [s, e) is named by the source. */
static void mark_named(struct lex *lx, const char *s, const char *e)
{
    atune__manifest *m = lx->ld->m;

    while (s < e) {
        const char *t = ident_end(s);
        int pi;
        if (t == s) {
            s++;
            continue;
        }
        if ((pi = atune__manifest_param_n(m, s, (size_t)(t - s))) >= 0)
            m->params[pi].named = 1;
        s = t;
    }
}

/* The parameter `#if !defined(NAME)` or `#if !defined NAME` guards. */
static unsigned if_guard(struct lex *lx, const char *p)
{
    const char *e;
    int pi;

    p = skip_blank(p);
    if (*p != '!')
        return 0;
    p = skip_blank(p + 1);
    if (strncmp(p, "defined", 7) != 0)
        return 0;
    p = skip_blank(p + 7);
    if (*p == '(')
        p = skip_blank(p + 1);
    e = ident_end(p);
    pi = atune__manifest_param_n(lx->ld->m, p, (size_t)(e - p));
    return pi >= 0 ? 1u << pi : 0;
}

/* A preprocessor line at p ('#'); returns the end of its last line. */
static int directive(struct lex *lx, const char *p, const char **end)
{
    atune__manifest *m = lx->ld->m;
    const char *d, *de, *e = p;
    int pi, line = lx->line;

    while (*e && !(*e == '\n' && e[-1] != '\\'))
        if (*e++ == '\n')
            lx->line++;
    *end = e;
    d = skip_blank(p + 1);
    de = ident_end(d);
    mark_named(lx, de, e);
    if (is_word(d, (size_t)(de - d), "define") ||
        is_word(d, (size_t)(de - d), "undef")) {
        const char *n = skip_blank(de), *ne = ident_end(n);
        int undef = *d == 'u';
        pi = atune__manifest_param_n(m, n, (size_t)(ne - n));
        if (pi >= 0 && m->params[pi].macro && !(guarded(lx) & (1u << pi)) &&
            !undef) {
            int seen = 0;
            for (int k = 0; k < lx->nredef; k++)
                seen |= lx->redef_pi[k] == pi;
            if (!seen && lx->nredef < ATUNE__MAX_PARAMS) {
                lx->redef_pi[lx->nredef] = pi;
                lx->redef_line[lx->nredef++] = line;
            }
        } else if (pi >= 0 && m->params[pi].macro &&
                   !(guarded(lx) & (1u << pi))) {
            char what[256];
            snprintf(what, sizeof(what),
                     "is undefined here (#undef %s): the knob's -D value is "
                     "thrown away",
                     m->params[pi].name);
            return fix_hint(lx, pi, line, what);
        }
    } else if (is_word(d, (size_t)(de - d), "ifndef")) {
        const char *n = skip_blank(de), *ne = ident_end(n);
        pi = atune__manifest_param_n(m, n, (size_t)(ne - n));
        if (lx->nguard < 64)
            lx->guard[lx->nguard] = pi >= 0 ? 1u << pi : 0;
        lx->nguard++;
    } else if (is_word(d, (size_t)(de - d), "if") ||
               is_word(d, (size_t)(de - d), "ifdef")) {
        if (lx->nguard < 64)
            lx->guard[lx->nguard] = *d == 'i' && d[2] != 'd' ? if_guard(lx, de)
                                                              : 0;
        lx->nguard++;
    } else if ((is_word(d, (size_t)(de - d), "else") ||
                is_word(d, (size_t)(de - d), "elif")) &&
               lx->nguard > 0 && lx->nguard <= 64) {
        lx->guard[lx->nguard - 1] = 0;
    } else if (is_word(d, (size_t)(de - d), "endif") && lx->nguard > 0) {
        lx->nguard--;
    }
    lx->prev = 'o';
    return 0;
}

/* An identifier token [s, e): a parameter used as a declared name? */
static int ident(struct lex *lx, const char *s, const char *e)
{
    atune__manifest *m = lx->ld->m;
    size_t len = (size_t)(e - s);
    int pi = atune__manifest_param_n(m, s, len);
    const char *what = NULL;

    if (pi >= 0) {
        m->params[pi].named = 1;
        if (lx->prev == '.')
            what = "is also a member's name here";
        else if (lx->prev == 'i' &&
                 atune__mf_find_name(expr_words, ARRAY_LEN(expr_words),
                                     lx->prev_s, lx->prev_len) < 0)
            what = lx->tpl_depth > 0 ? "is also a template parameter's name "
                                       "here"
                   : lx->paren_depth > 0 ? "is also a function parameter's "
                                           "name here"
                                         : "is also declared here (a "
                                           "variable, function or type)";
        if (what && m->params[pi].macro) {
            int seen = 0;
            for (int k = 0; k < lx->ndecl; k++)
                seen |= lx->decl_pi[k] == pi;
            if (!seen && lx->ndecl < ATUNE__MAX_PARAMS) {
                lx->decl_pi[lx->ndecl] = pi;
                lx->decl_line[lx->ndecl] = lx->line;
                lx->decl_what[lx->ndecl++] = what;
            }
        }
    }
    lx->pending_tpl = is_word(s, len, "template");
    lx->prev = 'i';
    lx->prev_s = s;
    lx->prev_len = len;
    return 0;
}

static int scan(struct lex *lx)
{
    int bol = 1, rc;

    for (const char *p = lx->p; *p;) {
        const char *e;
        if (*p == '\n') {
            lx->line++;
            bol = 1;
            p++;
            continue;
        }
        if (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\\') {
            p++;
            continue;
        }
        if (bol && *p == '#') {
            if ((rc = directive(lx, p, &p)) != 0)
                return rc;
            continue;
        }
        bol = 0;
        if ((*p >= '0' && *p <= '9') || (*p == '.' && p[1] >= '0' &&
                                         p[1] <= '9')) {
            /* A pp-number: 1.5e+3f, 0x1p-4; no identifier inside. */
            for (p++; atune__ident_char(*p) || *p == '.' ||
                      ((*p == '+' || *p == '-') &&
                       (p[-1] == 'e' || p[-1] == 'E' || p[-1] == 'p' ||
                        p[-1] == 'P'));)
                p++;
            lx->prev = 'o';
            continue;
        }
        if ((e = ident_end(p)) != p) {
            if ((rc = ident(lx, p, e)) != 0)
                return rc;
            p = e;
            continue;
        }
        if (*p == '<' && (lx->pending_tpl || lx->tpl_depth > 0))
            lx->tpl_depth++;
        else if (*p == '>' && lx->tpl_depth > 0)
            lx->tpl_depth--;
        else if (*p == '(')
            lx->paren_depth++;
        else if (*p == ')' && lx->paren_depth > 0)
            lx->paren_depth--;
        else if (*p == '{' || *p == ';' || *p == '}')
            lx->paren_depth = lx->tpl_depth = 0;
        lx->pending_tpl = 0;
        if (*p == '.' || (*p == '-' && p[1] == '>') ||
            (*p == ':' && p[1] == ':')) {
            lx->prev = '.';
            p += *p == '.' ? 1 : 2;
            continue;
        }
        lx->prev = 'o';
        p++;
    }
    return 0;
}

/* The knobs the file #defines outside an #ifndef guard: the only fix
 * that keeps the file's behaviour and makes the knob work is the guard,
 * so it comes first; renaming or not_macros only suits a name that is
 * not the knob. */
static int report_redefined(struct lex *lx)
{
    const atune__manifest *m = lx->ld->m;
    const atune__param *p0 = &m->params[lx->redef_pi[0]];
    char more[512] = "";
    size_t k = 0;

    for (int i = 1; i < lx->nredef && k < sizeof(more); i++)
        k += (size_t)snprintf(more + k, sizeof(more) - k, "%s%s (line %d)",
                              i == 1 ? "; so are " : ", ",
                              m->params[lx->redef_pi[i]].name,
                              lx->redef_line[i]);
    return atune__fail(
        lx->ld->err, ATUNE__EDATA,
        "%s:%d: parameter '%s' (%s:%d) is redefined here (#define %s): the "
        "file's value overrides the knob's -D value in every configuration "
        "(NVRTC warning 47, incompatible redefinition of macro)%s. Fix: make "
        "the file's value a default that -D overrides: '#ifndef %s' before "
        "the #define and '#endif' after it%s (the file compiles as before "
        "without -D); or, if the file's macro is not the knob, rename the "
        "parameter in %s or declare it not a macro (not_macros = %s under "
        "[template])",
        lx->path, lx->redef_line[0], p0->name, m->ini_path, p0->line,
        p0->name, more, p0->name,
        lx->nredef > 1 ? ", and the same for each of the others" : "",
        m->ini_path, p0->name);
}

/* The knobs the file also declares: the first with the usual fixes, the
 * others listed, and not_macros naming all of them (param_macros = no
 * when that is every macro parameter), so that one edit of the manifest
 * settles them. */
static int report_declared(struct lex *lx)
{
    const atune__manifest *m = lx->ld->m;
    const atune__param *p0 = &m->params[lx->decl_pi[0]];
    char what[1024], all[512] = "";
    size_t k = 0, a = 0;
    int nmacro = 0;

    k = (size_t)snprintf(what, sizeof(what),
                         "%s: as -D%s=VALUE the macro turns the declaration "
                         "into a number",
                         lx->decl_what[0], p0->name);
    for (int i = 0; i < lx->ndecl; i++) {
        if (i > 0 && k < sizeof(what))
            k += (size_t)snprintf(what + k, sizeof(what) - k,
                                  "%s%s (line %d, %s)",
                                  i == 1 ? "; so are " : ", ",
                                  m->params[lx->decl_pi[i]].name,
                                  lx->decl_line[i],
                                  strstr(lx->decl_what[i], "template")
                                      ? "a template parameter"
                                  : strstr(lx->decl_what[i], "member")
                                      ? "a member"
                                  : strstr(lx->decl_what[i], "function")
                                      ? "a function parameter"
                                      : "declared");
        if (a < sizeof(all))
            a += (size_t)snprintf(all + a, sizeof(all) - a, "%s%s",
                                  i ? ", " : "", m->params[lx->decl_pi[i]].name);
    }
    if (lx->ndecl == 1)
        return fix_hint(lx, lx->decl_pi[0], lx->decl_line[0], what);
    for (int i = 0; i < m->nparams; i++)
        nmacro += m->params[i].macro;
    return atune__fail(
        lx->ld->err, ATUNE__EDATA,
        "%s:%d: parameter '%s' (%s:%d) %s. Fix: declare them not macros "
        "(not_macros = %s under [template]%s) when the kernel gets them "
        "another way ([launch], the kernel's name expression), or rename "
        "the parameters in %s (e.g. %s_KNOB, used in the source where the "
        "knob is meant)",
        lx->path, lx->decl_line[0], p0->name, m->ini_path, p0->line, what,
        all, nmacro == lx->ndecl ? ", or param_macros = no: every parameter clashes"
                                 : "",
        m->ini_path, p0->name);
}

int atune__mf_macros_begin(struct loader *ld)
{
    atune__manifest *m = ld->m;
    const atune__ini_entry *en =
        atune__ini_get(atune__ini_find(ld->ini, "template"), "not_macros");
    char *piece[ATUNE__MAX_PARAMS];
    int n = 0, rc = 0;

    for (int i = 0; i < m->nparams; i++) {
        m->params[i].macro = m->param_macros;
        m->params[i].named = 0;
    }
    if (!en)
        return 0;
    if ((n = atune__split_top(en->value, piece, ATUNE__MAX_PARAMS)) < 0)
        return atune__mf_bad(ld, en->line,
                             "not_macros must list 1 to %d parameters, "
                             "comma-separated",
                             ATUNE__MAX_PARAMS);
    for (int i = 0; i < n; i++) {
        int pi = atune__manifest_param_n(m, piece[i], strlen(piece[i]));
        if (pi < 0 && rc == 0)
            rc = atune__mf_bad(ld, en->line,
                               "not_macros: '%s' is not a parameter of "
                               "[params]",
                               piece[i]);
        else if (pi >= 0)
            m->params[pi].macro = 0;
        free(piece[i]);
    }
    return rc;
}

int atune__mf_macros_scan(struct loader *ld, const char *path,
                          const char *text)
{
    struct lex lx = {.ld = ld, .path = path, .line = 1, .prev = 'o'};
    char *code = atune__mf_blank_comments(text);
    int rc;

    if (!code)
        return atune__mf_oom(ld);
    lx.p = code;
    rc = scan(&lx);
    if (!rc && lx.nredef > 0)
        rc = report_redefined(&lx);
    else if (!rc && lx.ndecl > 0)
        rc = report_declared(&lx);
    free(code);
    return rc;
}

/* The size variable called s[0..len) of m: its index in m->sizes[0].var,
 * or -1. */
/* The value ${NAME} pastes while the paste of ${X} is checked at value
 * v: v for X itself, else a parameter's default or the first size's
 * value. */
static long long paste_value(const atune__manifest *m, const char *name,
                             size_t len, const char *x, size_t xlen,
                             long long v)
{
    int pj = atune__manifest_param_n(m, name, len), sj = atune__manifest_size_var_n(m, name, len);

    if (len == xlen && memcmp(name, x, len) == 0)
        return v;
    if (pj >= 0)
        return m->params[pj].values[0];
    if (sj >= 0)
        return m->sizes[0].value[sj];
    return 0;
}

/* "name${X}": every ${...} names a parameter or a size variable, and with
 * each value of each (a parameter's values, a size variable's value at
 * each size; the others at their defaults, or the first size's) the
 * function exists in the .cu. */
int atune__mf_check_paste(struct loader *ld, const char *expr, int line)
{
    atune__manifest *m = ld->m;

    for (const char *d = strstr(expr, "${"); d; d = strstr(d + 2, "${")) {
        size_t n = strcspn(d + 2, "}");
        int pi = atune__manifest_param_n(m, d + 2, n), si = atune__manifest_size_var_n(m, d + 2, n);
        int nv = pi >= 0 ? m->params[pi].nvalues : m->nsizes;
        if (d[2 + n] != '}' || (pi < 0 && si < 0))
            return atune__mf_bad(ld, line,
                                 "'%.*s' in '%s' names no parameter and no "
                                 "size variable (${NAME} pastes its value)",
                                 (int)(n + 3), d, expr);
        for (int v = 0; v < nv; v++) {
            long long val = pi >= 0 ? m->params[pi].values[v]
                                    : m->sizes[v].value[si];
            char name[ATUNE__ENTRY_MAX + 32];
            size_t k = 0;
            for (const char *p = expr; *p && k + 24 < sizeof(name);) {
                if (p[0] == '$' && p[1] == '{') {
                    size_t l = strcspn(p + 2, "}");
                    k += (size_t)snprintf(name + k, sizeof(name) - k, "%lld",
                                          paste_value(m, p + 2, l, d + 2, n,
                                                      val));
                    p += l + 3;
                    continue;
                }
                if (*p == '<' || *p == ' ')
                    break; /* the function's name ends there */
                name[k++] = *p++;
            }
            name[k] = '\0';
            {
                const char *base = strrchr(name, ':');
                base = base ? base + 1 : name;
                char where[ATUNE__NAME_MAX + 64];
                if (!atune__mf_code_has(ld, base))
                    return atune__mf_bad(
                        ld, line, "'%s' with %.*s=%lld%s%s%s is '%s', not "
                        "found in %s",
                        expr, (int)n, d + 2, val, pi >= 0 ? "" : " (size ",
                        pi >= 0 ? "" : m->sizes[v].name, pi >= 0 ? "" : ")",
                        base,
                        atune__mf_code_where(ld, where, sizeof(where)));
            }
        }
    }
    return 0;
}

/* Whether the identifier at s (in expr) follows "::", "." or "->":
 * a member, not a variable (as jit_names.c reads it). */
static int is_member(const char *expr, const char *s)
{
    while (s > expr && (s[-1] == ' ' || s[-1] == '\t'))
        s--;
    return (s - expr >= 1 && s[-1] == '.') ||
           (s - expr >= 2 &&
            (memcmp(s - 2, "::", 2) == 0 || memcmp(s - 2, "->", 2) == 0));
}

/* A size variable in a name expression makes the template's modules one
 * per (configuration, size): m->names_sized. */
void atune__mf_note_size_vars(struct loader *ld, const char *expr)
{
    for (const char *s = expr; *s;) {
        const char *e = s;
        if (!atune__ident_char(*s)) {
            s++;
            continue;
        }
        while (atune__ident_char(*e))
            e++;
        if (!(*s >= '0' && *s <= '9') && !is_member(expr, s) &&
            atune__manifest_size_var_n(ld->m, s, (size_t)(e - s)) >= 0)
            ld->m->names_sized = 1;
        s = e;
    }
}

int atune__mf_macros_end(struct loader *ld)
{
    atune__manifest *m = ld->m;
    int rc;

    atune__mf_note_size_vars(ld, m->kernel);
    atune__mf_note_size_vars(ld, m->reference);
    if ((rc = atune__mf_check_paste(ld, m->kernel, m->kernel_line)) ||
        (rc = atune__mf_check_paste(ld, m->reference, m->reference_line)))
        return rc;

    for (int i = 0; i < m->nparams; i++) {
        atune__param *pa = &m->params[i];
        pa->macro = pa->macro && pa->named;
        pa->in_name = atune__mf_has_word(m->kernel, pa->name) ||
                      atune__mf_has_word(m->reference, pa->name);
    }
    return 0;
}

static int name_is(void *ctx, const char *name)
{
    return strcmp(ctx, name) == 0;
}

static int dim3_uses(const atune__dim3 *d, const char *name)
{
    for (int i = 0; i < d->n; i++)
        if (atune__expr_names(d->e[i], name_is, (void *)name))
            return 1;
    return 0;
}

int atune__manifest_expr_reads(const atune__manifest *m, const char *name)
{
    void *n = (void *)name;

    if (dim3_uses(&m->block, name) || dim3_uses(&m->grid, name) ||
        atune__expr_names(m->shared, name_is, n))
        return 1;
    for (int i = 0; i < m->nsteps; i++)
        if (dim3_uses(&m->steps[i].block, name) ||
            dim3_uses(&m->steps[i].grid, name) ||
            atune__expr_names(m->steps[i].shared, name_is, n))
            return 1;
    for (int i = 0; i < m->nconstraints; i++)
        if (atune__expr_names(m->constraints[i].expr, name_is, n))
            return 1;
    for (int i = 0; i < m->nargs; i++)
        if ((m->args[i].value &&
             atune__expr_names(m->args[i].value, name_is, n)) ||
            (m->args[i].count &&
             atune__expr_names(m->args[i].count, name_is, n)))
            return 1;
    return 0;
}

/* One edit turns a into b: a letter inserted, deleted or replaced, or
 * two neighbours swapped (a knob's name misspelt). */
static int one_edit(const char *a, size_t al, const char *b, size_t bl)
{
    size_t i = 0;

    if (al + 1 < bl || bl + 1 < al)
        return 0;
    while (i < al && i < bl && a[i] == b[i])
        i++;
    if (al == bl) {
        if (i == al)
            return 0; /* the same name */
        if (memcmp(a + i + 1, b + i + 1, al - i - 1) == 0)
            return 1;
        return i + 1 < al && a[i] == b[i + 1] && a[i + 1] == b[i] &&
               memcmp(a + i + 2, b + i + 2, al - i - 2) == 0;
    }
    if (al < bl)
        return memcmp(a + i, b + i + 1, al - i) == 0;
    return memcmp(a + i + 1, b + i, bl - i) == 0;
}

struct near {
    const char *s; /* the identifier, in the blanked code */
    size_t len;
    int rank; /* 2: in an #if, #ifdef, #ifndef or #elif line (a knob) */
    int line; /* of the .cu; 0 in a header */
};

/* The identifier of code one edit from name that no parameter has,
 * preferring one a conditional directive reads, into *best. */
static void near_in(const atune__manifest *m, const char *name,
                    const char *code, int in_cu, struct near *best)
{
    int line = 1, rank = 1, bol = 1;

    for (const char *p = code; *p;) {
        const char *e = ident_end(p);
        if (*p == '\n') {
            line++;
            /* A directive goes on past a backslash-newline. */
            if (p == code || p[-1] != '\\')
                rank = 1;
            bol = 1;
            p++;
            continue;
        }
        if (bol && *p == '#') {
            const char *d = skip_blank(p + 1), *de = ident_end(d);
            if (is_word(d, (size_t)(de - d), "if") ||
                is_word(d, (size_t)(de - d), "ifdef") ||
                is_word(d, (size_t)(de - d), "ifndef") ||
                is_word(d, (size_t)(de - d), "elif"))
                rank = 2;
            bol = 0;
            p = de;
            continue;
        }
        if (*p != ' ' && *p != '\t')
            bol = 0;
        if (e == p) {
            /* Not a name; a number's letters (0x1f, 1e5) are none either. */
            if (*p >= '0' && *p <= '9')
                while (atune__ident_char(*p))
                    p++;
            else
                p++;
            continue;
        }
        if (rank > best->rank && one_edit(name, strlen(name), p,
                                          (size_t)(e - p)) &&
            atune__manifest_param_n(m, p, (size_t)(e - p)) < 0) {
            best->s = p;
            best->len = (size_t)(e - p);
            best->rank = rank;
            best->line = in_cu ? line : 0;
        }
        p = e;
    }
}

static int expr_reads(const atune__expr *e, const char *name)
{
    return e && atune__expr_names(e, name_is, (void *)name);
}

/* Whether something besides a -D macro gives parameter pa's value to the
 * kernel or to the launch: a name expression, or an expression of
 * [launch], [constraints], [args], [constants], [macros] or block_cost. */
static int reaches(const atune__manifest *m, const atune__param *pa)
{
    const char *n = pa->name;

    if (pa->in_name || atune__manifest_expr_reads(m, pa->name) ||
        expr_reads(m->block_cost, n))
        return 1;
    for (int i = 0; i < m->nmacros; i++)
        if (expr_reads(m->macros[i].expr, n))
            return 1;
    for (int i = 0; i < m->nargs; i++)
        if (expr_reads(m->args[i].fill.lo, n) ||
            expr_reads(m->args[i].fill.hi, n))
            return 1;
    for (int i = 0; i < m->nconstants; i++)
        if (expr_reads(m->constants[i].count, n) ||
            expr_reads(m->constants[i].value, n))
            return 1;
    return 0;
}

void atune__mf_note_unread(struct loader *ld)
{
    atune__manifest *m = ld->m;

    for (int i = 0; i < m->nparams; i++) {
        atune__param *pa = &m->params[i];
        struct near best = {.rank = 0};
        /* A single value multiplies nothing: a constant the application
         * may read from the profile. */
        pa->unread = !pa->macro && pa->nvalues > 1 && !reaches(m, pa);
        pa->near[0] = '\0';
        pa->near_line = 0;
        /* Names of one or two letters are one edit from too much. */
        if (!pa->unread || strlen(pa->name) < 3)
            continue;
        near_in(m, pa->name, ld->code, 1, &best);
        if (ld->hdr_code)
            near_in(m, pa->name, ld->hdr_code, 0, &best);
        if (best.s && best.len < sizeof(pa->near)) {
            memcpy(pa->near, best.s, best.len);
            pa->near[best.len] = '\0';
            pa->near_line = best.line;
        }
    }
}
