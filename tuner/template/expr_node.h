/* expr_node.h -- the parsed form of an expression, shared by the parser
 * and evaluator (expr.c) and the range analysis (expr_range.c); private
 * to tuner/template. */
#ifndef ATUNE_EXPR_NODE_H
#define ATUNE_EXPR_NODE_H

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

#endif
