/* expr_c.c -- an expression written out as C (`autotune header`): every
 * operator but &&, || and ?: (which short-circuit) as a call of a small
 * function of the header (fn_prefix + "mul", "lt", ...). The compiler then
 * sees no expression of the manifest's own, so none of its warnings on
 * constant or odd-looking expressions fires (-Wparentheses on "a & b ==
 * c", -Wbool-compare on "(a < b) == 5", -Wtautological-compare on "A ==
 * A" or "(6 | x) != 0", -Wint-in-bool-context on "a << 2 && b",
 * -Wshift-count-overflow on "1 << 70", -Wdiv-by-zero, -Woverflow): a
 * manifest the loader accepts gives a header that compiles with -Wall
 * -Wextra -Werror. The calls are inlined; a function's body is C's own
 * operator, so the values are C's (the tool refuses what overflows). */
#include "template/expr.h"

#include <inttypes.h>

#include "template/expr_node.h"

struct writer {
    const atune__expr *e;
    FILE *f;
    const char *fn_prefix;
    int (*var)(void *ctx, FILE *f, const char *name, size_t len);
    void *ctx;
};

/* The function of a binary operator: fn_prefix + this. */
static const char *binary_fn(enum op op)
{
    switch (op) {
    case OP_MUL: return "mul";
    case OP_DIV: return "div";
    case OP_MOD: return "mod";
    case OP_ADD: return "add";
    case OP_SUB: return "sub";
    case OP_SHL: return "shl";
    case OP_SHR: return "shr";
    case OP_LT: return "lt";
    case OP_LE: return "le";
    case OP_GT: return "gt";
    case OP_GE: return "ge";
    case OP_EQ: return "eq";
    case OP_NE: return "ne";
    case OP_BAND: return "band";
    case OP_BXOR: return "bxor";
    case OP_BOR: return "bor";
    case OP_CDIV: return "cdiv";
    case OP_MIN: return "min";
    case OP_MAX: return "max";
    default: return NULL;
    }
}

static int write_node(struct writer *w, int i);

/* An operand of &&, ||, ! or ?: as a truth value, through the function
 * fn_prefix + "true" (v != 0): written "(v != 0)" it would draw
 * -Wtautological-compare where v is "6 | x". */
static int write_truth(struct writer *w, int i)
{
    int rc;

    fprintf(w->f, "%strue(", w->fn_prefix);
    if ((rc = write_node(w, i)) != 0)
        return rc;
    fputc(')', w->f);
    return 0;
}

static int write_node(struct writer *w, int i)
{
    const struct node *n = &w->e->nodes[i];
    const char *fn;
    int rc;

    switch (n->op) {
    case OP_NUM:
        if (n->value == INT64_MIN)
            fputs("(-INT64_C(9223372036854775807) - 1)", w->f);
        else if (n->value < 0)
            fprintf(w->f, "(-INT64_C(%" PRId64 "))", -n->value);
        else
            fprintf(w->f, "INT64_C(%" PRId64 ")", n->value);
        return 0;
    case OP_VAR:
        return w->var(w->ctx, w->f, w->e->text + n->value,
                      atune__node_name_len(w->e, n));
    case OP_NEG:
    case OP_BNOT:
    case OP_NOT:
        fprintf(w->f, "%s%s(", w->fn_prefix,
                n->op == OP_NEG ? "neg" : n->op == OP_BNOT ? "bnot" : "not");
        if ((rc = write_node(w, n->a)) != 0)
            return rc;
        fputc(')', w->f);
        return 0;
    case OP_AND:
    case OP_OR:
        /* && and || short-circuit, as the tool's evaluation does */
        fprintf(w->f, "%sint(", w->fn_prefix);
        if ((rc = write_truth(w, n->a)) != 0)
            return rc;
        fputs(n->op == OP_AND ? " && " : " || ", w->f);
        if ((rc = write_truth(w, n->b)) != 0)
            return rc;
        fputc(')', w->f);
        return 0;
    case OP_COND:
        fputc('(', w->f);
        if ((rc = write_truth(w, n->a)) != 0)
            return rc;
        fputs(" ? ", w->f);
        if ((rc = write_node(w, n->b)) != 0)
            return rc;
        fputs(" : ", w->f);
        if ((rc = write_node(w, n->c)) != 0)
            return rc;
        fputc(')', w->f);
        return 0;
    default:
        break;
    }
    if (!(fn = binary_fn(n->op)))
        return -1;
    fprintf(w->f, "%s%s(", w->fn_prefix, fn);
    if ((rc = write_node(w, n->a)) != 0)
        return rc;
    fputs(", ", w->f);
    if ((rc = write_node(w, n->b)) != 0)
        return rc;
    fputc(')', w->f);
    return 0;
}

int atune__expr_write_c(const atune__expr *e, FILE *f, const char *fn_prefix,
                        int (*var)(void *ctx, FILE *f, const char *name,
                                   size_t len),
                        void *ctx)
{
    struct writer w = {e, f, fn_prefix, var, ctx};

    return write_node(&w, e->root);
}
