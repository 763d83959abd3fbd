/* expr_node.h -- the parsed form of an expression, shared by the parser
 * (expr.c), the evaluator (expr_eval.c) and the range analysis
 * (expr_bound.c); private
 * to tuner/template. */
#ifndef ATUNE_EXPR_NODE_H
#define ATUNE_EXPR_NODE_H

#include <stddef.h>
#include <stdint.h>

enum op {
    OP_NUM,
    OP_VAR,
    OP_NEG,
    OP_NOT,
    OP_BNOT,
    OP_MUL,
    OP_DIV,
    OP_MOD,
    OP_ADD,
    OP_SUB,
    OP_SHL,
    OP_SHR,
    OP_LT,
    OP_LE,
    OP_GT,
    OP_GE,
    OP_EQ,
    OP_NE,
    OP_BAND,
    OP_BXOR,
    OP_BOR,
    OP_AND,
    OP_OR,
    OP_COND,
    OP_CDIV,
    OP_MIN,
    OP_MAX
};

struct node {
    enum op op;
    int a, b, c;   /* operands (node indices), -1 when unused */
    int64_t value; /* OP_NUM: the value; OP_VAR: offset of the name */
    int start;     /* source span [start, end), parentheses included */
    int end;
    int depth; /* of the subtree rooted here */
};

struct atune__expr {
    char *text;
    struct node *nodes; /* leaves appear in source order */
    int n;
    int root;
};

/* The length of the name of an OP_VAR node (names are [A-Za-z0-9_]+). */
static inline size_t atune__node_name_len(const struct atune__expr *e,
                                          const struct node *n)
{
    size_t len = 0;

    for (;;) {
        char ch = e->text[n->value + (int64_t)len];
        if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
              (ch >= '0' && ch <= '9') || ch == '_'))
            return len;
        len++;
    }
}

#endif
