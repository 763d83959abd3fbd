/* expr.c -- parser of the int64 expression language, and the name tables
 * expressions are evaluated against (evaluation: expr_eval.c).
 *
 * An expression is parsed once into a flat array of nodes (children are
 * indices) and evaluated many times: once per configuration and size.
 * Every node keeps its source span so that evaluation errors can quote
 * the offending subexpression.
 */
#include "template/expr.h"
#include "template/expr_node.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Both the parser's recursion and the depth of the tree are bounded, so
 * that neither parsing nor evaluation can exhaust the stack, whatever the
 * input. Real manifests fit on 199-byte lines and never come close. */
#define MAX_DEPTH 200
/* Keeps every offset in an int. */
#define MAX_TEXT 65535

/* Binary operators by precedence level, 1 binding loosest. Two-character
 * operators come before their one-character prefixes. */
#define NLEVELS 10
static const struct binop {
    const char *text;
    enum op op;
    int level;
} binops[] = {
    {"||", OP_OR, 1},  {"&&", OP_AND, 2}, {"==", OP_EQ, 6},  {"!=", OP_NE, 6},
    {"<=", OP_LE, 7},  {">=", OP_GE, 7},  {"<<", OP_SHL, 8}, {">>", OP_SHR, 8},
    {"|", OP_BOR, 3},  {"^", OP_BXOR, 4}, {"&", OP_BAND, 5}, {"<", OP_LT, 7},
    {">", OP_GT, 7},   {"+", OP_ADD, 9},  {"-", OP_SUB, 9},  {"*", OP_MUL, 10},
    {"/", OP_DIV, 10}, {"%", OP_MOD, 10},
};

static const struct func {
    const char *name;
    enum op op;
} funcs[] = {{"cdiv", OP_CDIV}, {"min", OP_MIN}, {"max", OP_MAX}};

/* Punctuators the lexer knows, longest first. */
static const char *const puncts[] = {
    "<<", ">>", "<=", ">=", "==", "!=", "&&", "||", "+", "-", "*", "/", "%",
    "<",  ">",  "&",  "|",  "^",  "!",  "~",  "?",  ":", "(", ")", ",",
};

enum { TK_END, TK_NUM, TK_NAME, TK_PUNCT };

struct token {
    int kind;
    int start;
    int len;
    int64_t num; /* TK_NUM */
    int min_mag; /* TK_NUM: the literal is 2^63, legal only after unary '-' */
};

struct parser {
    const char *src;
    int pos; /* first byte not yet lexed */
    struct token tok;
    int depth; /* current recursion depth */
    struct node *nodes;
    int n;
    int cap;
    int code; /* of the first error */
    atune__err *err;
};

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

int atune__vars_set(atune__vars *vs, const char *name, int64_t value)
{
    size_t len = strlen(name);
    int64_t *slot;

    if (len >= ATUNE__NAME_MAX)
        return -1;
    slot = (int64_t *)atune__vars_get(vs, name, len);
    if (slot) {
        *slot = value;
        return 0;
    }
    if (vs->n >= ATUNE__VARS_MAX)
        return -1;
    memcpy(vs->v[vs->n].name, name, len + 1);
    vs->v[vs->n].value = value;
    vs->n++;
    return 0;
}

const int64_t *atune__vars_get(const atune__vars *vs, const char *name,
                               size_t len)
{
    if (!vs || len >= ATUNE__NAME_MAX)
        return NULL;
    for (int i = 0; i < vs->n; i++) {
        if (memcmp(vs->v[i].name, name, len) == 0 && vs->v[i].name[len] == '\0')
            return &vs->v[i].value;
    }
    return NULL;
}

/* ---- lexer ------------------------------------------------------------ */

static int is_space(char ch)
{
    return ch == ' ' || ch == '\t' || ch == '\r' || ch == '\n' || ch == '\v' ||
           ch == '\f';
}

static int is_digit(char ch)
{
    return ch >= '0' && ch <= '9';
}

static int is_alpha(char ch)
{
    return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || ch == '_';
}

static int is_alnum(char ch)
{
    return is_alpha(ch) || is_digit(ch);
}

/* The value of a decimal or hex digit, or -1. */
static int digit_value(char ch)
{
    if (is_digit(ch))
        return ch - '0';
    if (ch >= 'a' && ch <= 'f')
        return ch - 'a' + 10;
    if (ch >= 'A' && ch <= 'F')
        return ch - 'A' + 10;
    return -1;
}

/* Reports a syntax error at 0-based offset at. */
static int syntax(struct parser *p, int at, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int syntax(struct parser *p, int at, const char *fmt, ...)
{
    char what[512];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(what, sizeof(what), fmt, ap);
    va_end(ap);
    p->code = atune__fail(p->err, ATUNE__EDATA, "column %d: %s in '%s'", at + 1,
                          what, p->src);
    return -1;
}

/* Lexes the literal starting at p->pos. The whole run of identifier
 * characters is taken, so that "12abc" is one bad literal rather than a
 * number followed by a name. */
static int lex_number(struct parser *p)
{
    const char *s = p->src + p->pos;
    int len = 0, base = 10, first = 0;
    uint64_t v = 0;
    const uint64_t min_mag = (uint64_t)INT64_MAX + 1;

    while (is_alnum(s[len]))
        len++;
    if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
        base = 16;
        first = 2;
    }
    if (first == len)
        return syntax(p, p->pos, "bad literal '%.*s'", len, s);
    if (base == 10 && s[0] == '0' && len > 1)
        return syntax(p, p->pos, "bad literal '%.*s': octal is not supported",
                      len, s);
    for (int i = first; i < len; i++) {
        int d = digit_value(s[i]);
        if (d < 0 || d >= base)
            return syntax(p, p->pos, "bad literal '%.*s'", len, s);
        if (v > (min_mag - (uint64_t)d) / (uint64_t)base)
            return syntax(p, p->pos, "literal '%.*s' out of range", len, s);
        v = v * (uint64_t)base + (uint64_t)d;
    }
    /* 2^63 is kept for parse_unary, which makes -2^63 INT64_MIN as C
     * programmers write it; anywhere else parse_primary refuses it. */
    p->tok.kind = TK_NUM;
    p->tok.len = len;
    p->tok.min_mag = v == min_mag;
    p->tok.num = v == min_mag ? INT64_MIN : (int64_t)v;
    return 0;
}

/* Moves p->tok to the next token. */
static int advance(struct parser *p)
{
    const char *s;

    while (is_space(p->src[p->pos]))
        p->pos++;
    s = p->src + p->pos;
    p->tok.start = p->pos;
    if (*s == '\0') {
        p->tok.kind = TK_END;
        p->tok.len = 0;
        return 0;
    }
    if (is_digit(*s)) {
        if (lex_number(p))
            return -1;
    } else if (is_alpha(*s)) {
        int len = 0;
        while (is_alnum(s[len]))
            len++;
        if (len >= ATUNE__NAME_MAX)
            return syntax(p, p->pos, "name '%.20s...' longer than %d bytes", s,
                          ATUNE__NAME_MAX - 1);
        p->tok.kind = TK_NAME;
        p->tok.len = len;
    } else {
        size_t i;
        for (i = 0; i < ARRAY_LEN(puncts); i++) {
            if (strncmp(s, puncts[i], strlen(puncts[i])) == 0)
                break;
        }
        if (i == ARRAY_LEN(puncts)) {
            unsigned char ch = (unsigned char)*s;
            if (ch >= 0x20 && ch < 0x7f)
                return syntax(p, p->pos, "unexpected character '%c'", ch);
            return syntax(p, p->pos, "unexpected byte 0x%02x", ch);
        }
        p->tok.kind = TK_PUNCT;
        p->tok.len = (int)strlen(puncts[i]);
    }
    p->pos += p->tok.len;
    return 0;
}

/* Whether the current token is the punctuator s. */
static int at(const struct parser *p, const char *s)
{
    return p->tok.kind == TK_PUNCT && (size_t)p->tok.len == strlen(s) &&
           memcmp(p->src + p->tok.start, s, (size_t)p->tok.len) == 0;
}

static int expect(struct parser *p, const char *s)
{
    if (!at(p, s))
        return syntax(p, p->tok.start, "expected '%s'", s);
    return advance(p);
}

/* ---- parser ----------------------------------------------------------- */

static int node_depth(const struct parser *p, int i)
{
    return i < 0 ? 0 : p->nodes[i].depth;
}

/* Appends a node spanning [start, end) and returns its index, or -1. */
static int mknode(struct parser *p, enum op op, int a, int b, int c, int start,
                  int end)
{
    struct node *nd;
    int depth = node_depth(p, a);

    if (node_depth(p, b) > depth)
        depth = node_depth(p, b);
    if (node_depth(p, c) > depth)
        depth = node_depth(p, c);
    if (depth + 1 > MAX_DEPTH)
        return syntax(p, start, "expression nested deeper than %d levels",
                      MAX_DEPTH);
    if (p->n == p->cap) {
        int cap = p->cap ? 2 * p->cap : 16;
        struct node *nodes = realloc(p->nodes, (size_t)cap * sizeof(*nodes));
        if (!nodes) {
            p->code = atune__fail(p->err, ATUNE__EOSERR, "out of memory");
            return -1;
        }
        p->nodes = nodes;
        p->cap = cap;
    }
    nd = &p->nodes[p->n];
    nd->op = op;
    nd->a = a;
    nd->b = b;
    nd->c = c;
    nd->value = 0;
    nd->start = start;
    nd->end = end;
    nd->depth = depth + 1;
    return p->n++;
}

static int parse_cond(struct parser *p);

static int enter(struct parser *p)
{
    if (++p->depth > MAX_DEPTH)
        return syntax(p, p->tok.start,
                      "expression nested deeper than %d levels", MAX_DEPTH);
    return 0;
}

/* NAME '(' args ')' with the name already consumed. */
static int parse_call(struct parser *p, const struct token *name)
{
    const struct func *f = NULL;
    int args[2] = {-1, -1}, nargs = 0, end;

    for (size_t i = 0; i < ARRAY_LEN(funcs); i++) {
        if ((size_t)name->len == strlen(funcs[i].name) &&
            memcmp(p->src + name->start, funcs[i].name, (size_t)name->len) == 0)
            f = &funcs[i];
    }
    if (!f)
        return syntax(p, name->start, "unknown function '%.*s'", name->len,
                      p->src + name->start);
    for (;;) {
        int a;
        if (advance(p)) /* '(' or ',' */
            return -1;
        if (nargs == 0 && at(p, ")"))
            break;
        if ((a = parse_cond(p)) < 0)
            return -1;
        if (nargs < 2)
            args[nargs] = a;
        nargs++;
        if (!at(p, ","))
            break;
    }
    if (!at(p, ")"))
        return syntax(p, p->tok.start, "expected ')'");
    if (nargs != 2)
        return syntax(p, name->start, "'%s' takes 2 arguments, got %d", f->name,
                      nargs);
    end = p->tok.start + 1;
    if (advance(p)) /* ')' */
        return -1;
    return mknode(p, f->op, args[0], args[1], -1, name->start, end);
}

static int parse_primary(struct parser *p)
{
    struct token t = p->tok;
    int i;

    if (t.kind == TK_NUM && t.min_mag)
        return syntax(p, t.start, "literal '%.*s' out of range", t.len,
                      p->src + t.start);
    if (t.kind == TK_NUM || t.kind == TK_NAME) {
        int end = t.start + t.len;
        if (advance(p))
            return -1;
        if (t.kind == TK_NAME && at(p, "("))
            return parse_call(p, &t);
        i = mknode(p, t.kind == TK_NUM ? OP_NUM : OP_VAR, -1, -1, -1, t.start,
                   end);
        if (i >= 0)
            p->nodes[i].value = t.kind == TK_NUM ? t.num : t.start;
        return i;
    }
    if (!at(p, "("))
        return syntax(p, t.start, "expected an operand");
    if (advance(p))
        return -1;
    i = parse_cond(p);
    if (i < 0)
        return -1;
    if (!at(p, ")"))
        return syntax(p, p->tok.start, "expected ')'");
    /* The span takes the parentheses, so that an enclosing node's span,
     * which starts at its left operand's, quotes balanced text. */
    p->nodes[i].start = t.start;
    p->nodes[i].end = p->tok.start + 1;
    if (advance(p))
        return -1;
    return i;
}

static int parse_unary(struct parser *p)
{
    struct token t = p->tok;
    char ch = p->src[t.start];
    enum op op;
    int a;

    if (!at(p, "-") && !at(p, "!") && !at(p, "~") && !at(p, "+"))
        return parse_primary(p);
    if (enter(p) || advance(p))
        return -1;
    if (ch == '-' && p->tok.kind == TK_NUM && p->tok.min_mag) {
        struct token lit = p->tok;
        p->depth--;
        if (advance(p))
            return -1;
        a = mknode(p, OP_NUM, -1, -1, -1, t.start, lit.start + lit.len);
        if (a >= 0)
            p->nodes[a].value = INT64_MIN;
        return a;
    }
    a = parse_unary(p);
    p->depth--;
    if (a < 0 || ch == '+')
        return a;
    op = ch == '-' ? OP_NEG : ch == '!' ? OP_NOT : OP_BNOT;
    return mknode(p, op, a, -1, -1, t.start, p->nodes[a].end);
}

static const struct binop *binop_at(const struct parser *p, int level)
{
    for (size_t i = 0; i < ARRAY_LEN(binops); i++) {
        if (binops[i].level == level && at(p, binops[i].text))
            return &binops[i];
    }
    return NULL;
}

/* Left-associative binary operators of one level and tighter. */
static int parse_binary(struct parser *p, int level)
{
    const struct binop *op;
    int lhs;

    if (level > NLEVELS)
        return parse_unary(p);
    lhs = parse_binary(p, level + 1);
    while (lhs >= 0 && (op = binop_at(p, level)) != NULL) {
        int rhs;
        if (advance(p))
            return -1;
        rhs = parse_binary(p, level + 1);
        if (rhs < 0)
            return -1;
        lhs = mknode(p, op->op, lhs, rhs, -1, p->nodes[lhs].start,
                     p->nodes[rhs].end);
    }
    return lhs;
}

static int parse_cond(struct parser *p)
{
    int c, t = -1, f = -1;

    if (enter(p))
        return -1;
    c = parse_binary(p, 1);
    if (c >= 0 && at(p, "?")) {
        if (advance(p) || (t = parse_cond(p)) < 0 || expect(p, ":") ||
            (f = parse_cond(p)) < 0)
            c = -1;
        else
            c = mknode(p, OP_COND, c, t, f, p->nodes[c].start, p->nodes[f].end);
    }
    p->depth--;
    return c;
}

int atune__expr_parse(const char *src, atune__expr **out, atune__err *err)
{
    struct parser p = {.src = src, .err = err};
    atune__expr *e = NULL;
    int root = -1;

    *out = NULL;
    if (strlen(src) > MAX_TEXT)
        return atune__fail(err, ATUNE__EDATA,
                           "column %d: expression longer than %d bytes",
                           MAX_TEXT + 1, MAX_TEXT);
    if (advance(&p) || (root = parse_cond(&p)) < 0)
        goto fail;
    if (p.tok.kind != TK_END) {
        syntax(&p, p.tok.start, "unexpected '%.*s'", p.tok.len,
               src + p.tok.start);
        goto fail;
    }
    e = atune__calloc(1, sizeof(*e));
    if (!e || !(e->text = atune__strdup(src))) {
        p.code = atune__fail(err, ATUNE__EOSERR, "out of memory");
        goto fail;
    }
    e->nodes = p.nodes;
    e->n = p.n;
    e->root = root;
    *out = e;
    return ATUNE__OK;
fail:
    free(e);
    free(p.nodes);
    return p.code;
}

const char *atune__expr_text(const atune__expr *e)
{
    return e->text;
}

int atune__expr_names(const atune__expr *e,
                      int (*fn)(void *ctx, const char *name), void *ctx)
{
    char name[ATUNE__NAME_MAX];

    /* Leaves were appended as the parser met them, so array order is
     * source order. */
    for (int i = 0; i < e->n; i++) {
        const struct node *n = &e->nodes[i];
        size_t len;
        int rc;
        if (n->op != OP_VAR)
            continue;
        len = atune__node_name_len(e, n); /* < ATUNE__NAME_MAX: the lexer checked */
        memcpy(name, e->text + n->value, len);
        name[len] = '\0';
        rc = fn(ctx, name);
        if (rc)
            return rc;
    }
    return 0;
}

void atune__expr_free(atune__expr *e)
{
    if (!e)
        return;
    free(e->nodes);
    free(e->text);
    free(e);
}

int atune__split_top(const char *text, char **out, int max)
{
    const char *piece = text;
    int n = 0, depth = 0;

    for (const char *s = text;; s++) {
        const char *b = piece, *end = s;
        if (*s == '(')
            depth++;
        else if (*s == ')')
            depth--;
        if (*s != '\0' && (*s != ',' || depth != 0))
            continue;
        while (b < end && is_space(*b))
            b++;
        while (end > b && is_space(end[-1]))
            end--;
        if (b == end || n == max)
            goto fail;
        out[n] = atune__strndup(b, (size_t)(end - b));
        if (!out[n])
            goto fail;
        n++;
        if (*s == '\0')
            return n;
        piece = s + 1;
    }
fail:
    /* The caller's slots are left empty, not dangling: it may free them. */
    while (n > 0) {
        free(out[--n]);
        out[n] = NULL;
    }
    return -1;
}
