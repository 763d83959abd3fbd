/* expr_bound.c -- expressions bound to slots (atune__expr_bind; their
 * evaluation is expr.c's), and interval analysis of them: the range of
 * an expression's value over a box of variable ranges, and whether any
 * evaluation in the box can fail. Building a space uses it to know which
 * checks can be taken out of their manifest order: only those that never
 * fail (a failure would have to be reported first). Every bound computed
 * here is exact or wider; "cannot fail" is only claimed when proved. */
#include "template/expr.h"
#include "template/expr_node.h"

#include <stdlib.h>
#include <string.h>

int atune__expr_bind(const atune__expr *e,
                     int (*slot)(void *ctx, const char *name), void *ctx,
                     atune__bound *out, atune__err *err)
{
    char name[ATUNE__NAME_MAX];

    out->e = e;
    out->n = e->n;
    out->slot = atune__calloc((size_t)e->n, sizeof(*out->slot));
    if (!out->slot)
        return atune__fail(err, ATUNE__EOSERR, "out of memory");
    for (int i = 0; i < e->n; i++) {
        size_t len;
        out->slot[i] = -1;
        if (e->nodes[i].op != OP_VAR)
            continue;
        len = atune__node_name_len(e, &e->nodes[i]);
        memcpy(name, e->text + e->nodes[i].value, len);
        name[len] = '\0';
        out->slot[i] = slot(ctx, name);
    }
    return ATUNE__OK;
}

void atune__bound_free(atune__bound *b)
{
    free(b->slot);
    b->slot = NULL;
}

struct range {
    int64_t lo, hi;
    int fail; /* an evaluation in the box may fail */
};

static const struct range everything = {INT64_MIN, INT64_MAX, 1};

static struct range span(int64_t a, int64_t b)
{
    return (struct range){a < b ? a : b, a < b ? b : a, 0};
}

/* Widens r to take v. */
static void take(struct range *r, int64_t v)
{
    r->lo = v < r->lo ? v : r->lo;
    r->hi = v > r->hi ? v : r->hi;
}

static int contains(struct range r, int64_t v)
{
    return r.lo <= v && v <= r.hi;
}

static struct range truth_range(void)
{
    return (struct range){0, 1, 0};
}

/* The operation op of the evaluator on one pair of values, or 1 when it
 * overflows (divisors and shift counts were checked by the caller). */
static int corner(enum op op, int64_t a, int64_t b, int64_t *out)
{
    int64_t q;

    switch (op) {
    case OP_ADD:
        return __builtin_add_overflow(a, b, out);
    case OP_SUB:
        return __builtin_sub_overflow(a, b, out);
    case OP_MUL:
        return __builtin_mul_overflow(a, b, out);
    case OP_DIV:
        *out = a / b;
        return 0;
    case OP_CDIV:
        q = a / b;
        *out = q + (a % b != 0 && (a < 0) == (b < 0));
        return 0;
    case OP_SHL:
        return __builtin_mul_overflow(a, INT64_C(1) << b, out);
    case OP_SHR:
        *out = a >= 0 ? a >> b : ~(~a >> b);
        return 0;
    case OP_MIN:
        *out = a < b ? a : b;
        return 0;
    default: /* OP_MAX */
        *out = a > b ? a : b;
        return 0;
    }
}

/* Operations monotone in each operand over the box: the extremes are at
 * its corners. */
static struct range corners(enum op op, struct range a, struct range b)
{
    const int64_t av[2] = {a.lo, a.hi}, bv[2] = {b.lo, b.hi};
    struct range r = {INT64_MAX, INT64_MIN, 0};

    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 2; j++) {
            int64_t v;
            if (corner(op, av[i], bv[j], &v))
                return everything;
            take(&r, v);
        }
    return r;
}

/* a % b: the sign of a, smaller than |b| and no larger than |a|. */
static struct range modulo(struct range a, struct range b)
{
    int64_t blo = b.lo == INT64_MIN ? INT64_MAX : b.lo < 0 ? -b.lo : b.lo;
    int64_t bhi = b.hi == INT64_MIN ? INT64_MAX : b.hi < 0 ? -b.hi : b.hi;
    int64_t m = (blo > bhi ? blo : bhi) - 1; /* the largest |a % b| */

    return (struct range){a.lo < 0 ? (a.lo > -m ? a.lo : -m) : 0,
                          a.hi > 0 ? (a.hi < m ? a.hi : m) : 0, 0};
}

/* Bitwise operators: bounded for non-negative operands only. */
static struct range bitwise(enum op op, struct range a, struct range b)
{
    int64_t top = a.hi > b.hi ? a.hi : b.hi, ones = 0;

    if (a.lo < 0 || b.lo < 0)
        return (struct range){INT64_MIN, INT64_MAX, 0};
    if (op == OP_BAND)
        return (struct range){0, a.hi < b.hi ? a.hi : b.hi, 0};
    while (ones < top)
        ones = ones * 2 + 1;
    return (struct range){0, ones, 0};
}

static struct range binary(enum op op, struct range a, struct range b)
{
    switch (op) {
    case OP_DIV:
    case OP_MOD:
    case OP_CDIV:
        if (contains(b, 0) || (a.lo == INT64_MIN && contains(b, -1)))
            return everything;
        return op == OP_MOD ? modulo(a, b) : corners(op, a, b);
    case OP_SHL:
    case OP_SHR:
        if (b.lo < 0 || b.hi > 62)
            return everything;
        return corners(op, a, b);
    case OP_ADD:
    case OP_SUB:
    case OP_MUL:
    case OP_MIN:
    case OP_MAX:
        return corners(op, a, b);
    case OP_BAND:
    case OP_BOR:
    case OP_BXOR:
        return bitwise(op, a, b);
    default: /* comparisons */
        return truth_range();
    }
}

static struct range unary(enum op op, struct range a)
{
    switch (op) {
    case OP_NEG:
        if (a.lo == INT64_MIN)
            return everything;
        return span(-a.hi, -a.lo);
    case OP_NOT:
        if (a.lo == 0 && a.hi == 0)
            return (struct range){1, 1, 0};
        if (!contains(a, 0))
            return (struct range){0, 0, 0};
        return truth_range();
    default: /* OP_BNOT, decreasing */
        return span(~a.hi, ~a.lo);
    }
}

static struct range node_range(const atune__bound *b, int i, const int64_t *lo,
                               const int64_t *hi)
{
    const struct node *n = &b->e->nodes[i];
    struct range a, c, r;

    switch (n->op) {
    case OP_NUM:
        return span(n->value, n->value);
    case OP_VAR:
        if (b->slot[i] < 0)
            return everything;
        return span(lo[b->slot[i]], hi[b->slot[i]]);
    default:
        break;
    }
    a = node_range(b, n->a, lo, hi);
    switch (n->op) {
    case OP_NEG:
    case OP_NOT:
    case OP_BNOT:
        r = unary(n->op, a);
        r.fail |= a.fail;
        return r;
    case OP_COND:
        c = node_range(b, n->b, lo, hi);
        r = node_range(b, n->c, lo, hi);
        if (!contains(a, 0))
            r = c; /* always taken */
        else if (a.lo != 0 || a.hi != 0)
            take(&r, c.lo), take(&r, c.hi), r.fail |= c.fail;
        r.fail |= a.fail;
        return r;
    default:
        break;
    }
    c = node_range(b, n->b, lo, hi);
    if (n->op == OP_AND || n->op == OP_OR) {
        r = truth_range();
        r.fail = a.fail || c.fail;
        return r;
    }
    r = binary(n->op, a, c);
    r.fail |= a.fail || c.fail;
    return r;
}

int atune__bound_range(const atune__bound *b, const int64_t *lo,
                       const int64_t *hi, int64_t *lo_out, int64_t *hi_out)
{
    struct range r = node_range(b, b->e->root, lo, hi);

    *lo_out = r.lo;
    *hi_out = r.hi;
    return r.fail;
}
