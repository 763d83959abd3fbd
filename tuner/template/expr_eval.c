/* expr_eval.c -- evaluation of parsed expressions (expr.c parses them):
 * int64 arithmetic with every overflow, division by zero and bad shift
 * reported with the offending subexpression quoted, by name lookup or on
 * bound slots (expr_bound.c). */
#include "template/expr.h"
#include "template/expr_node.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

static int culprit(const atune__expr *e, const struct node *n, atune__err *err,
                   const char *what)
{
    return atune__fail(err, ATUNE__EDATA, "%s in '%.*s'", what,
                       n->end - n->start, e->text + n->start);
}

static int add_overflows(int64_t a, int64_t b)
{
    return b > 0 ? a > INT64_MAX - b : a < INT64_MIN - b;
}

static int sub_overflows(int64_t a, int64_t b)
{
    return b < 0 ? a > INT64_MAX + b : a < INT64_MIN + b;
}

static int mul_overflows(int64_t a, int64_t b)
{
    if (a == 0 || b == 0)
        return 0;
    if (a > 0)
        return b > 0 ? a > INT64_MAX / b : b < INT64_MIN / a;
    return b > 0 ? a < INT64_MIN / b : a < INT64_MAX / b;
}

/* The quotient rounded toward +infinity; b != 0, (a, b) != (MIN, -1). */
static int64_t ceil_div(int64_t a, int64_t b)
{
    int64_t q = a / b;

    /* Truncation rounded a positive, inexact quotient down. */
    if (a % b != 0 && (a < 0) == (b < 0))
        q++;
    return q;
}

static int arith(const atune__expr *e, const struct node *n, int64_t a,
                 int64_t b, int64_t *out, atune__err *err)
{
    switch (n->op) {
    case OP_ADD:
        if (add_overflows(a, b))
            return culprit(e, n, err, "overflow");
        *out = a + b;
        return 0;
    case OP_SUB:
        if (sub_overflows(a, b))
            return culprit(e, n, err, "overflow");
        *out = a - b;
        return 0;
    case OP_MUL:
        if (mul_overflows(a, b))
            return culprit(e, n, err, "overflow");
        *out = a * b;
        return 0;
    default:
        break;
    }
    /* Division, modulo and cdiv. */
    if (b == 0)
        return culprit(e, n, err, "division by zero");
    if (a == INT64_MIN && b == -1)
        return culprit(e, n, err, "overflow");
    if (n->op == OP_DIV)
        *out = a / b;
    else if (n->op == OP_MOD)
        *out = a % b;
    else
        *out = ceil_div(a, b);
    return 0;
}

static int shift(const atune__expr *e, const struct node *n, int64_t a,
                 int64_t b, int64_t *out, atune__err *err)
{
    char what[64];

    if (b < 0 || b > 62) {
        snprintf(what, sizeof(what), "bad shift count %" PRId64, b);
        return culprit(e, n, err, what);
    }
    if (n->op == OP_SHR) {
        /* Arithmetic shift, spelled without implementation-defined
         * behaviour for negative a. */
        *out = a >= 0 ? a >> b : ~(~a >> b);
        return 0;
    }
    /* a * 2^b, defined for negative a as well. */
    if (mul_overflows(a, INT64_C(1) << b))
        return culprit(e, n, err, "overflow");
    *out = a * (INT64_C(1) << b);
    return 0;
}

static int binary(const atune__expr *e, const struct node *n, int64_t a,
                  int64_t b, int64_t *out, atune__err *err)
{
    switch (n->op) {
    case OP_SHL:
    case OP_SHR:
        return shift(e, n, a, b, out, err);
    case OP_LT:
        *out = a < b;
        break;
    case OP_LE:
        *out = a <= b;
        break;
    case OP_GT:
        *out = a > b;
        break;
    case OP_GE:
        *out = a >= b;
        break;
    case OP_EQ:
        *out = a == b;
        break;
    case OP_NE:
        *out = a != b;
        break;
    case OP_BAND:
        *out = a & b;
        break;
    case OP_BXOR:
        *out = a ^ b;
        break;
    case OP_BOR:
        *out = a | b;
        break;
    case OP_MIN:
        *out = a < b ? a : b;
        break;
    case OP_MAX:
        *out = a > b ? a : b;
        break;
    default:
        return arith(e, n, a, b, out, err);
    }
    return 0;
}

/* The length of the name of an OP_VAR node. */
static size_t name_len(const atune__expr *e, const struct node *n)
{
    return atune__node_name_len(e, n);
}

/* Where an evaluation finds its variables: a name table, or (bound
 * expressions) an array of values indexed by each OP_VAR node's slot. */
struct env {
    const atune__vars *vs;
    const int *slot;       /* per node; -1: an unknown name */
    const int64_t *values; /* by slot */
};

static int eval(const atune__expr *e, int i, const struct env *vs,
                int64_t *out, atune__err *err);

/* Evaluates node i as a truth value, 0 or 1. */
static int truth(const atune__expr *e, int i, const struct env *vs,
                 int64_t *out, atune__err *err)
{
    int64_t v;
    int rc = eval(e, i, vs, &v, err);

    if (rc)
        return rc;
    *out = v != 0;
    return 0;
}

/* The value of OP_VAR node i. */
static int var(const atune__expr *e, int i, const struct env *vs,
               int64_t *out, atune__err *err)
{
    const struct node *n = &e->nodes[i];
    const char *name = e->text + n->value;
    const int64_t *v;

    if (vs->slot)
        v = vs->slot[i] >= 0 ? &vs->values[vs->slot[i]] : NULL;
    else
        v = atune__vars_get(vs->vs, name, name_len(e, n));
    if (!v)
        return atune__fail(err, ATUNE__EDATA, "unknown name '%.*s'",
                           (int)name_len(e, n), name);
    *out = *v;
    return 0;
}

static int eval(const atune__expr *e, int i, const struct env *vs,
                int64_t *out, atune__err *err)
{
    const struct node *n = &e->nodes[i];
    int64_t a, b;
    int rc;

    switch (n->op) {
    case OP_NUM:
        *out = n->value;
        return 0;
    case OP_VAR:
        return var(e, i, vs, out, err);
    default:
        break;
    }
    if ((rc = eval(e, n->a, vs, &a, err)) != 0)
        return rc;
    /* && || and ?: are lazy, as in C: the operand not taken may be
     * undefined ("d != 0 && n / d > 1"). */
    switch (n->op) {
    case OP_NEG:
        if (a == INT64_MIN)
            return culprit(e, n, err, "overflow");
        *out = -a;
        return 0;
    case OP_NOT:
        *out = !a;
        return 0;
    case OP_BNOT:
        *out = ~a;
        return 0;
    case OP_COND:
        return eval(e, a ? n->b : n->c, vs, out, err);
    case OP_AND:
        if (!a) {
            *out = 0;
            return 0;
        }
        return truth(e, n->b, vs, out, err);
    case OP_OR:
        if (a) {
            *out = 1;
            return 0;
        }
        return truth(e, n->b, vs, out, err);
    default:
        break;
    }
    if ((rc = eval(e, n->b, vs, &b, err)) != 0)
        return rc;
    return binary(e, n, a, b, out, err);
}

int atune__expr_eval(const atune__expr *e, const atune__vars *vs, int64_t *out,
                     atune__err *err)
{
    struct env env = {.vs = vs};
    int64_t v;
    int rc = eval(e, e->root, &env, &v, err);

    if (rc)
        return rc;
    *out = v;
    return ATUNE__OK;
}

int atune__bound_eval(const atune__bound *b, const int64_t *values,
                      int64_t *out, atune__err *err)
{
    struct env env = {.slot = b->slot, .values = values};
    int64_t v;
    int rc = eval(b->e, b->e->root, &env, &v, err);

    if (rc)
        return rc;
    *out = v;
    return ATUNE__OK;
}

