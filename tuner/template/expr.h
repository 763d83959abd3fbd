/* expr.h -- the int64 expression language of template manifests.
 *
 * Grammar (C precedence and associativity, lowest first):
 *   cond    := or ( '?' expr ':' cond )?
 *   or      := and ( '||' and )*
 *   and     := bor ( '&&' bor )*
 *   bor     := bxor ( '|' bxor )*
 *   bxor    := band ( '^' band )*
 *   band    := eq ( '&' eq )*
 *   eq      := rel ( ('==' | '!=') rel )*
 *   rel     := shift ( ('<' | '<=' | '>' | '>=') shift )*
 *   shift   := add ( ('<<' | '>>') add )*
 *   add     := mul ( ('+' | '-') mul )*
 *   mul     := unary ( ('*' | '/' | '%') unary )*
 *   unary   := ('-' | '+' | '!' | '~') unary | primary
 *   primary := INT | NAME | NAME '(' args ')' | '(' expr ')'
 * Functions: cdiv(a,b) = ceil(a/b) for b > 0, min(a,b), max(a,b).
 * Integer literals are decimal or 0x hex. Names are C identifiers.
 *
 * Evaluation follows C on int64_t, except that what C leaves undefined is
 * an error: overflow, division or modulo by zero, shifts by a negative
 * count or by 63 or more. && || and ?: evaluate lazily, so
 * `d != 0 && n / d > 1` is safe.
 */
#ifndef ATUNE_EXPR_H
#define ATUNE_EXPR_H

#include <stddef.h>
#include <stdint.h>

#include "base/util.h"

#define ATUNE__NAME_MAX 48 /* longest identifier, NUL included */
#define ATUNE__VARS_MAX 96

/* A small name -> value table: parameters, size variables and device
 * attributes of one evaluation. Lookups are linear; tables stay small. */
typedef struct atune__vars {
    int n;
    struct {
        char name[ATUNE__NAME_MAX];
        int64_t value;
    } v[ATUNE__VARS_MAX];
} atune__vars;

/* Adds name or replaces its value. Returns 0, or -1 when the table is full
 * or the name is too long. */
int atune__vars_set(atune__vars *vs, const char *name, int64_t value);

/* Looks up the first len bytes of name; NULL when absent. */
const int64_t *atune__vars_get(const atune__vars *vs, const char *name,
                               size_t len);

typedef struct atune__expr atune__expr;

/* Parses src. On a syntax error returns ATUNE__EDATA with a message of the
 * form "column C: expected ')' in 'cdiv(n, 4'" (1-based column); callers
 * prefix file:line. */
int atune__expr_parse(const char *src, atune__expr **out, atune__err *err);

/* Evaluates e with variables from vs. Unknown names, overflow and division
 * by zero return ATUNE__EDATA with a message naming the culprit
 * ("unknown name 'BLOCK'", "division by zero in 'n / VW'"). */
int atune__expr_eval(const atune__expr *e, const atune__vars *vs,
                     int64_t *out, atune__err *err);

/* The source text the expression was parsed from. */
const char *atune__expr_text(const atune__expr *e);

/* Calls fn for every variable name the expression references (functions
 * excluded), in source order, duplicates included; stops and returns fn's
 * value when it is non-zero. */
int atune__expr_names(const atune__expr *e,
                      int (*fn)(void *ctx, const char *name), void *ctx);

void atune__expr_free(atune__expr *e);

/* Splits text at top-level commas (not those inside parentheses) into at
 * most max trimmed pieces, copied into out[i] (heap strings the caller
 * frees). Returns the number of pieces, or -1 when there are more than max
 * or a piece is empty. */
int atune__split_top(const char *text, char **out, int max);

#endif
