/* manifest_params.c -- [sizes], [params], [constraints] and [macros] of a
 * manifest: the problem sizes, the tuning space and the macros computed
 * from it. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "template/manifest_internal.h"

/* A lower-case parameter is stored in profiles as "param.NAME": every
 * identifier the loader accepts fits in a profile key. */
#define PARAM_PREFIX_LEN 6
_Static_assert(ATUNE__NAME_MAX - 1 + PARAM_PREFIX_LEN <= ATUNE__INI_MAX_NAME,
               "param.NAME must fit in a profile key");

#define SQRT2 1.41421356237309504880 /* a ladder's step *sqrt2 */

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
        return atune__mf_bad(ld, line,
                             "%s: '%s' is not an integer expression: %s", what,
                             text, ld->err->msg);
    if (rc)
        return rc;
    if (atune__expr_names(e, first_name, name))
        rc = atune__mf_bad(ld, line, "%s: '%s' must be constant, not use '%s'",
                           what, text, name);
    else if ((rc = atune__expr_eval(e, NULL, out, ld->err)) != 0)
        atune__err_prefix(ld->err, "%s:%d: %s: ", ld->m->ini_path, line, what);
    atune__expr_free(e);
    return rc;
}

/* Appends v to p's values, refusing too many. A value given twice on its
 * own is an error (a typo, or two intents); a value a range makes again
 * is skipped (in_range), so that the default can come first and repeat
 * inside a range ("256, 32..992 step 32") and keeps its first place. */
static int add_value(struct loader *ld, int line, atune__param *p, int64_t v,
                     int in_range)
{
    for (int j = 0; j < p->nvalues; j++)
        if (p->values[j] == v) {
            if (in_range)
                return 0;
            return atune__mf_bad(
                ld, line, "duplicate value %" PRId64 " of parameter '%s'", v,
                p->name);
        }
    if (p->nvalues == ATUNE__MAX_VALUES)
        return atune__mf_bad(ld, line, "parameter '%s' has more than %d values",
                             p->name, ATUNE__MAX_VALUES);
    p->values[p->nvalues++] = v;
    return 0;
}

/* The word kw in text as a whole word, or NULL. */
static char *find_word(char *text, const char *kw)
{
    size_t len = strlen(kw);

    for (char *q = strstr(text, kw); q; q = strstr(q + 1, kw))
        if ((q == text || !atune__ident_char(q[-1])) &&
            !atune__ident_char(q[len]))
            return q;
    return NULL;
}

/* LO..HI [step S | step *F | pow2]: LO, LO+S, ... up to HI (S is 1 when
 * absent); LO, LO*F, LO*F*F, ... up to HI; or the powers of two between LO
 * and HI. Bounds and steps are constant expressions. dots points at the
 * "..". */
static int parse_range(struct loader *ld, int line, atune__param *p, char *text,
                       char *dots, const char *what, int64_t range[2])
{
    char *step = find_word(dots + 2, "step"),
         *pow2 = find_word(dots + 2, "pow2");
    int64_t lo, hi, s = 1, v;
    int geometric = 0, found = 0, rc;

    *dots = '\0';
    if (step && pow2)
        return atune__mf_bad(
            ld, line, "%s: a range has 'step' or 'pow2', not both", what);
    if (step)
        *step = '\0';
    if (pow2) {
        if (*atune__trim(pow2 + 4) != '\0')
            return atune__mf_bad(ld, line, "%s: text after 'pow2'", what);
        *pow2 = '\0';
    }
    if ((rc = const_value(ld, line, what, atune__trim(text), &lo)) ||
        (rc = const_value(ld, line, what, atune__trim(dots + 2), &hi)))
        return rc;
    if (step) {
        char *st = atune__trim(step + 4);
        if ((geometric = *st == '*'))
            st = atune__trim(st + 1);
        if ((rc = const_value(ld, line, what, st, &s)))
            return rc;
    }
    if (hi < lo)
        return atune__mf_bad(ld, line, "%s: empty range %" PRId64 "..%" PRId64,
                             what, lo, hi);
    if (range) {
        range[0] = lo;
        range[1] = hi;
    }
    if (pow2) {
        /* v stops at 2^62: doubling it again would overflow */
        for (v = 1; v <= hi; v *= 2) {
            found += v >= lo;
            if (v >= lo && (rc = add_value(ld, line, p, v, 1)))
                return rc;
            if (v > INT64_MAX / 2)
                break;
        }
        if (!found)
            return atune__mf_bad(ld, line,
                                 "%s: no power of two in %" PRId64 "..%" PRId64,
                                 what, lo, hi);
        return 0;
    }
    if (geometric ? s < 2 || lo < 1 : s < 1)
        return atune__mf_bad(ld, line, "%s: range step %s%" PRId64 " (want %s)",
                             what, geometric ? "*" : "", s,
                             geometric ? "*2 or more, from 1 or more"
                                       : "1 or more");
    for (v = lo;;) {
        if ((rc = add_value(ld, line, p, v, 1)))
            return rc;
        /* hi - v as unsigned: exact for any v <= hi, where the signed
         * difference (or hi - s) overflows */
        if (geometric ? v > hi / s : (uint64_t)hi - (uint64_t)v < (uint64_t)s)
            return 0;
        v = geometric ? v * s : v + s;
    }
}

/* The candidate values of one parameter: constant expressions and ranges,
 * comma-separated. */
static int parse_values(struct loader *ld, const atune__ini_entry *en,
                        atune__param *p)
{
    char *piece[ATUNE__MAX_VALUES];
    char what[ATUNE__NAME_MAX + 16];
    int n, rc = 0;

    snprintf(what, sizeof(what), "parameter '%s'", p->name);
    if (en->value[0] == '\0')
        return atune__mf_bad(ld, en->line, "parameter '%s' has no values",
                             p->name);
    n = atune__split_top(en->value, piece, ATUNE__MAX_VALUES);
    if (n < 0)
        return atune__mf_bad(ld, en->line,
                             "parameter '%s' needs 1 to %d values, none empty",
                             p->name, ATUNE__MAX_VALUES);
    for (int i = 0; i < n; i++) {
        char *dots = strstr(piece[i], "..");
        int64_t v = 0;
        if (rc == 0 && dots)
            rc = parse_range(ld, en->line, p, piece[i], dots, what, NULL);
        else if (rc == 0 &&
                 (rc = const_value(ld, en->line, what, piece[i], &v)) == 0)
            rc = add_value(ld, en->line, p, v, 0);
        free(piece[i]);
    }
    return rc;
}

/* A parameter is a -D macro, a variable of expressions and a profile key:
 * it may not be a word of C++ or CUDA, nor another variable's name. */
static int check_param_name(struct loader *ld, int line, const char *name)
{
    const char *why;

    if (!atune__mf_is_ident(name))
        return atune__mf_bad(ld, line, "parameter '%s' is not a C identifier",
                             name);
    if ((why = atune__mf_reserved_word(name)) != NULL)
        return atune__mf_bad(ld, line, "parameter '%s' is %s", name, why);
    if (atune__mf_is_size_var(ld->m, name))
        return atune__mf_bad(
            ld, line, "parameter '%s' has the name of a size variable", name);
    if (atune__mf_is_devattr(name))
        return atune__mf_bad(ld, line,
                             "parameter '%s' has the name of a device "
                             "attribute",
                             name);
    return 0;
}

int atune__mf_parse_params(struct loader *ld)
{
    const atune__ini_section *s = atune__ini_find(ld->ini, "params");
    atune__manifest *m = ld->m;
    int64_t points = 1;
    int rc;

    if (s->nentries == 0)
        return atune__mf_bad(ld, s->line, "[params] has no entries");
    for (int i = 0; i < s->nentries; i++) {
        const atune__ini_entry *en = &s->entries[i];
        atune__param *p = &m->params[i];
        if (i == ATUNE__MAX_PARAMS)
            return atune__mf_bad(ld, en->line, "more than %d parameters",
                                 ATUNE__MAX_PARAMS);
        if ((rc = check_param_name(ld, en->line, en->key)) ||
            (rc = atune__mf_copy_ident(ld, en->line, "parameter", en->key,
                                       p->name)))
            return rc;
        p->line = en->line;
        m->nparams++;
        if ((rc = parse_values(ld, en, p)) != 0)
            return rc;
        if (points > INT64_MAX / p->nvalues)
            return atune__mf_bad(
                ld, en->line, "the parameter space has more than 2^63 points");
        points *= p->nvalues;
    }
    return 0;
}

/* NAME = EXPR entries of section into list (at most max), counted in *n
 * as they are read, so that what was parsed is freed on an error. */
static int parse_named_exprs(struct loader *ld, const char *section,
                             const char *what, int max,
                             atune__named_expr *list, int *n)
{
    const atune__ini_section *s = atune__ini_find(ld->ini, section);
    int rc;

    for (int i = 0; s && i < s->nentries; i++) {
        const atune__ini_entry *en = &s->entries[i];
        atune__named_expr *e = &list[i];
        if (i == max)
            return atune__mf_bad(ld, en->line, "more than %d %ss", max, what);
        if ((rc = atune__mf_copy_ident(ld, en->line, what, en->key, e->name)))
            return rc;
        e->line = en->line;
        (*n)++;
        if ((rc = atune__mf_parse_expr(ld, en->line, en->value, &e->expr)) != 0)
            return rc;
    }
    return 0;
}

int atune__mf_parse_constraints(struct loader *ld)
{
    return parse_named_exprs(ld, "constraints", "constraint",
                             ATUNE__MAX_CONSTRAINTS, ld->m->constraints,
                             &ld->m->nconstraints);
}

/* [macros]: NAME = EXPR, an expression of the parameters only (it is
 * computed for each configuration's compile, where no size is known). */
struct first_name {
    const atune__manifest *m;
    char name[ATUNE__NAME_MAX];
};

static int first_non_param(void *ctx, const char *name)
{
    struct first_name *f = ctx;

    if (atune__mf_find_param(f->m, name))
        return 0;
    atune__strlcpy(f->name, name, sizeof(f->name));
    return 1;
}

int atune__mf_parse_macros(struct loader *ld)
{
    atune__manifest *m = ld->m;
    int rc = parse_named_exprs(ld, "macros", "macro", ATUNE__MAX_MACROS,
                               m->macros, &m->nmacros);

    for (int i = 0; rc == 0 && i < m->nmacros; i++) {
        const atune__named_expr *d = &m->macros[i];
        struct first_name f = {.m = m};
        if (atune__mf_find_param(m, d->name) ||
            atune__mf_is_size_var(m, d->name) || atune__mf_is_devattr(d->name))
            return atune__mf_bad(ld, d->line,
                                 "macro '%s' has the name of a parameter, a "
                                 "size variable or a device attribute",
                                 d->name);
        if (atune__expr_names(d->expr, first_non_param, &f))
            return atune__mf_bad(ld, d->line,
                                 "macro '%s' uses '%s': a macro is computed "
                                 "from the parameters only",
                                 d->name, f.name);
    }
    return rc;
}

/* ---- [sizes] ---------------------------------------------------------------
 * An entry is a size ("large = n=1<<28") or a ladder of sizes: a variable
 * given a range instead of one value ("ladder = n=1<<12..1<<29 step
 * *sqrt2") makes one size per value, named NAME_VALUE ("ladder_4096"), so
 * that the space, tune, profiles and --size see ordinary named sizes.
 * Several variables may share one value ("square = m=n=k=256..8192
 * pow2"); ranges of one entry move together and must have as many values;
 * a variable with one value stays fixed ("skinny = m=64, n=k=256..8192
 * pow2"); "odd" at the end makes every point odd ("w=h=256..8192 step
 * *sqrt2 odd": 257, 363, 513, ...), "odd*4" an odd multiple of 4 (260,
 * 364, 516, ...). */

/* One VAR=VALUE piece; VAR may be several variables tied together
 * ("m=n=k=..."). */
typedef struct size_piece {
    int nnames;
    char name[ATUNE__MAX_SIZE_VARS][ATUNE__NAME_MAX];
    atune__param vals; /* one value, or a ladder's values */
    int ranged;
} size_piece;

/* The variable names before the value: every "IDENT =" (not "==") at the
 * front of text. Returns the value's text. */
static char *piece_names(struct loader *ld, int line, char *text,
                         size_piece *pc, int nvars)
{
    char *rest = text;

    for (;;) {
        char *eq = strchr(rest, '='), *name;
        if (!eq || eq[1] == '=' || eq == rest)
            break;
        *eq = '\0';
        name = atune__trim(rest);
        if (!atune__mf_is_ident(name)) {
            *eq = '=';
            break;
        }
        if (nvars + pc->nnames == ATUNE__MAX_SIZE_VARS) {
            atune__mf_bad(ld, line, "a size has at most %d variables",
                          ATUNE__MAX_SIZE_VARS);
            return NULL;
        }
        if (atune__mf_copy_ident(ld, line, "size variable", name,
                                 pc->name[pc->nnames]))
            return NULL;
        pc->nnames++;
        rest = eq + 1;
    }
    if (pc->nnames == 0) {
        atune__mf_bad(ld, line, "'%s' is not VAR=EXPR", text);
        return NULL;
    }
    return rest;
}

/* LO..HI step *sqrt2: LO, LO*sqrt(2), 2*LO, ... rounded to integers, up to
 * HI; the even steps are exact multiples of LO. */
static int sqrt2_ladder(struct loader *ld, int line, atune__param *p,
                        char *text, char *dots, const char *what,
                        int64_t range[2])
{
    int64_t lo, hi;
    int rc;

    *dots = '\0';
    *find_word(dots + 2, "step") = '\0';
    if ((rc = const_value(ld, line, what, atune__trim(text), &lo)) ||
        (rc = const_value(ld, line, what, atune__trim(dots + 2), &hi)))
        return rc;
    if (lo < 1)
        return atune__mf_bad(ld, line,
                             "%s: a range from %" PRId64 " (sizes are >= 1)",
                             what, lo);
    if (hi < lo)
        return atune__mf_bad(ld, line, "%s: empty range %" PRId64 "..%" PRId64,
                             what, lo, hi);
    range[0] = lo;
    range[1] = hi;
    for (int i = 0;; i++) {
        int64_t base, v;
        if (lo > hi >> (i / 2))
            return 0;
        base = lo << (i / 2);
        v = i % 2 ? (int64_t)llround((double)base * SQRT2) : base;
        if (v > hi)
            return 0;
        /* 1..: 1, 1.41 and 2 round to 1, 1 and 2 */
        if (p->nvalues > 0 && v == p->values[p->nvalues - 1])
            continue;
        if ((rc = add_value(ld, line, p, v, 1)))
            return rc;
    }
}

/* Whether text ends in "step *sqrt2" (a ladder's factor, not an integer). */
static int is_sqrt2_step(char *after_dots)
{
    char *step = find_word(after_dots, "step"), *f;

    if (!step)
        return 0;
    f = atune__trim(step + 4);
    if (*f != '*')
        return 0;
    f = atune__trim(f + 1);
    return strcmp(f, "sqrt2") == 0;
}

/* A ladder ending in "odd" or "odd*K" (removed from text): K (1 for
 * "odd"), 0 when there is none, -1 (reported) when it is malformed. */
static int64_t odd_suffix(struct loader *ld, int line, char *after_dots,
                          const char *what)
{
    char *odd = find_word(after_dots, "odd"), *rest;
    int64_t k = 1;

    if (!odd)
        return 0;
    rest = atune__trim(odd + 3);
    if (*rest == '*') {
        if (atune__parse_i64(atune__trim(rest + 1), 1, 1 << 20, &k)) {
            atune__mf_bad(ld, line, "%s: 'odd*K' wants an integer K of 1..%d",
                          what, 1 << 20);
            return -1;
        }
    } else if (*rest != '\0') {
        atune__mf_bad(ld, line, "%s: text after 'odd'", what);
        return -1;
    }
    *odd = '\0';
    return k;
}

/* "odd*K": every point v made K * (floor(v / K) | 1), an odd multiple of
 * K (v | 1 for plain "odd"), moved by 2K back into LO..HI when that left
 * it, and dropped when no odd multiple of K near it is in LO..HI: a
 * ladder never steps outside its range. Such a size is aligned to K (a
 * vector width) and to no larger power of two, and every tile is partial,
 * as at most sizes an application meets; a configuration that wins there
 * does not rely on a size being a multiple of its tile, which winners at
 * powers of two often do (docs/results.md). The values rise, so equal
 * neighbours are next to each other. */
static int make_odd(struct loader *ld, int line, atune__param *p, int64_t k,
                    const int64_t range[2], const char *what)
{
    int n = 0;

    for (int i = 0; i < p->nvalues; i++) {
        /* k * (v / k) <= v <= HI: only the step up to the odd multiple and
         * the move by 2K can pass INT64_MAX, and they are checked */
        int64_t q = p->values[i] / k, v = k * q;
        if (q % 2 == 0)
            v = v <= range[1] - k ? v + k : v - k;
        if (v < range[0] && v <= range[1] - 2 * k)
            v += 2 * k;
        if (v < range[0] || v > range[1])
            continue;
        if (n == 0 || p->values[n - 1] < v)
            p->values[n++] = v;
    }
    p->nvalues = n;
    if (n == 0)
        return atune__mf_bad(ld, line,
                             "%s: no odd multiple of %" PRId64 " in %" PRId64
                             "..%" PRId64,
                             what, k, range[0], range[1]);
    return 0;
}

static int parse_piece(struct loader *ld, int line, char *text, size_piece *pc,
                       int nvars)
{
    char what[ATUNE__NAME_MAX + 20], *value, *dots;
    int64_t v;
    int rc;

    if (!(value = piece_names(ld, line, text, pc, nvars)))
        return ATUNE__EDATA;
    snprintf(what, sizeof(what), "size variable '%s'", pc->name[0]);
    atune__strlcpy(pc->vals.name, pc->name[0], sizeof(pc->vals.name));
    if ((dots = strstr(value, "..")) != NULL) {
        int64_t odd, range[2];
        pc->ranged = 1;
        if ((odd = odd_suffix(ld, line, dots + 2, what)) < 0)
            return ATUNE__EDATA;
        rc = is_sqrt2_step(dots + 2)
                 ? sqrt2_ladder(ld, line, &pc->vals, value, dots, what, range)
                 : parse_range(ld, line, &pc->vals, value, dots, what, range);
        if (rc == 0 && pc->vals.values[0] < 1)
            rc = atune__mf_bad(ld, line,
                               "%s: a range from %" PRId64 " (sizes are >= 1)",
                               what, pc->vals.values[0]);
        if (rc == 0 && odd)
            rc = make_odd(ld, line, &pc->vals, odd, range, what);
        return rc;
    }
    if ((rc = const_value(ld, line, what, atune__trim(value), &v)) != 0)
        return rc;
    if (v < 1)
        return atune__mf_bad(ld, line, "%s must be >= 1, not %" PRId64, what,
                             v);
    pc->vals.values[pc->vals.nvalues++] = v;
    return 0;
}

/* The variables of the pieces, refusing device attributes and repeats. */
static int check_piece_vars(struct loader *ld, int line, const size_piece *pc,
                            int n)
{
    for (int i = 0; i < n; i++)
        for (int a = 0; a < pc[i].nnames; a++) {
            const char *var = pc[i].name[a];
            const char *why = atune__mf_reserved_word(var);
            /* A size variable is a macro of the reference's source and a
             * field of the generated header, as a parameter is. */
            if (why != NULL)
                return atune__mf_bad(ld, line, "size variable '%s' is %s",
                                     var, why);
            if (atune__mf_is_devattr(var))
                return atune__mf_bad(
                    ld, line, "size variable '%s' is a device attribute", var);
            for (int j = 0; j <= i; j++)
                for (int b = 0; b < (j == i ? a : pc[j].nnames); b++)
                    if (strcmp(pc[j].name[b], var) == 0)
                        return atune__mf_bad(
                            ld, line, "size variable '%s' given twice", var);
        }
    return 0;
}

/* The number of sizes of the entry: 1, or the ladder's length, which every
 * range of the entry must share. */
static int ladder_length(struct loader *ld, int line, const size_piece *pc,
                         int n, int *first)
{
    int len = 1;

    *first = -1;
    for (int i = 0; i < n; i++) {
        if (!pc[i].ranged)
            continue;
        if (*first < 0) {
            *first = i;
            len = pc[i].vals.nvalues;
        } else if (pc[i].vals.nvalues != len) {
            return -atune__mf_bad(
                ld, line,
                "ranges of '%s' (%d values) and '%s' (%d values) differ in "
                "length: the ranges of one entry move together",
                pc[*first].name[0], len, pc[i].name[0], pc[i].vals.nvalues);
        }
    }
    return len;
}

/* The size at step k of the entry's ladder (k = 0 for a single size). */
static int expand_size(struct loader *ld, const atune__ini_entry *en,
                       const size_piece *pc, int n, int first, int k)
{
    atune__manifest *m = ld->m;
    atune__size *sz;
    char name[2 * ATUNE__NAME_MAX];

    if (m->nsizes == ATUNE__MAX_SIZES)
        return atune__mf_bad(ld, en->line, "more than %d sizes",
                             ATUNE__MAX_SIZES);
    sz = &m->sizes[m->nsizes];
    memset(sz, 0, sizeof(*sz));
    if (first < 0)
        atune__strlcpy(name, en->key, sizeof(name));
    else
        snprintf(name, sizeof(name), "%s_%" PRId64, en->key,
                 pc[first].vals.values[k]);
    if (atune__mf_copy_ident(ld, en->line, "size name", name, sz->name))
        return ATUNE__EDATA;
    for (int i = 0; i < m->nsizes; i++)
        if (strcmp(m->sizes[i].name, sz->name) == 0)
            return atune__mf_bad(ld, en->line, "size '%s' defined twice",
                                 sz->name);
    sz->line = en->line;
    sz->ladder = first >= 0;
    for (int i = 0; i < n; i++)
        for (int a = 0; a < pc[i].nnames; a++) {
            atune__strlcpy(sz->var[sz->nvars], pc[i].name[a], ATUNE__NAME_MAX);
            sz->value[sz->nvars++] = pc[i].vals.values[pc[i].ranged ? k : 0];
        }
    m->nsizes++;
    return 0;
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

/* One entry of [sizes]: a size or a ladder of them. */
static int parse_size_entry(struct loader *ld, const atune__ini_entry *en)
{
    char *piece[ATUNE__MAX_SIZE_VARS];
    size_piece *pc = atune__calloc(ATUNE__MAX_SIZE_VARS, sizeof(*pc));
    int n, len = 0, first = -1, nvars = 0, rc = 0;

    if (!pc)
        return atune__mf_oom(ld);
    n = atune__split_top(en->value, piece, ATUNE__MAX_SIZE_VARS);
    if (n < 0) {
        free(pc);
        return atune__mf_bad(
            ld, en->line, "size '%s' must be 1 to %d comma-separated VAR=EXPR",
            en->key, ATUNE__MAX_SIZE_VARS);
    }
    for (int i = 0; i < n; i++) {
        if (rc == 0 &&
            (rc = parse_piece(ld, en->line, piece[i], &pc[i], nvars)) == 0)
            nvars += pc[i].nnames;
        free(piece[i]);
    }
    if (rc == 0)
        rc = check_piece_vars(ld, en->line, pc, n);
    if (rc == 0 && (len = ladder_length(ld, en->line, pc, n, &first)) < 0)
        rc = -len;
    for (int k = 0; rc == 0 && k < len; k++)
        rc = expand_size(ld, en, pc, n, first, k);
    free(pc);
    return rc;
}

/* Whether a and b (same variables) have the same values. */
static int same_size(const atune__size *a, const atune__size *b)
{
    for (int i = 0; i < a->nvars; i++)
        for (int j = 0; j < b->nvars; j++)
            if (strcmp(a->var[i], b->var[j]) == 0 && a->value[i] != b->value[j])
                return 0;
    return 1;
}

/* One size per problem: a ladder's point that is also a size of its own
 * ("large = n=1<<28" beside a ladder through 2^28) is left to that size,
 * which keeps its name and place; a point of two ladders stays in the
 * first. Two sizes of their own alike are an error. */
static int drop_repeats(struct loader *ld)
{
    atune__manifest *m = ld->m;
    unsigned char keep[ATUNE__MAX_SIZES];
    int n = 0;

    for (int j = 0; j < m->nsizes; j++) {
        keep[j] = 1;
        for (int i = 0; i < m->nsizes && keep[j]; i++) {
            if (i == j || !same_size(&m->sizes[i], &m->sizes[j]))
                continue;
            const int li = m->sizes[i].ladder, lj = m->sizes[j].ladder;
            if (!lj && !li && i < j)
                return atune__mf_bad(ld, m->sizes[j].line,
                                     "sizes '%s' and '%s' are the same size",
                                     m->sizes[i].name, m->sizes[j].name);
            if (lj && (!li || i < j))
                keep[j] = 0;
        }
    }
    for (int j = 0; j < m->nsizes; j++)
        if (keep[j])
            m->sizes[n++] = m->sizes[j];
    m->nsizes = n;
    return 0;
}

int atune__mf_parse_sizes(struct loader *ld)
{
    const atune__ini_section *s = atune__ini_find(ld->ini, "sizes");
    atune__manifest *m = ld->m;
    int rc;

    if (s->nentries == 0)
        return atune__mf_bad(ld, s->line, "[sizes] has no entries");
    for (int i = 0; i < s->nentries; i++) {
        const atune__ini_entry *en = &s->entries[i];
        char name[ATUNE__NAME_MAX];
        int before = m->nsizes;
        if ((rc = atune__mf_copy_ident(ld, en->line, "size name", en->key,
                                       name)))
            return rc;
        if ((rc = parse_size_entry(ld, en)) != 0)
            return rc;
        for (int j = before; j < m->nsizes; j++)
            if (!same_vars(&m->sizes[0], &m->sizes[j]))
                return atune__mf_bad(
                    ld, en->line,
                    "size '%s' does not have the same variables as '%s'",
                    m->sizes[j].name, m->sizes[0].name);
    }
    return drop_repeats(ld);
}
