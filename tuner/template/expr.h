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

/* An expression whose names are bound to slots of an array of values:
 * evaluated without looking names up, for the millions of evaluations of
 * building a space. e must outlive it. */
typedef struct atune__bound {
    const atune__expr *e;
    int n;     /* nodes of e */
    int *slot; /* per node: the slot of a name; -1 for an unknown name
                  and for nodes that are not names */
} atune__bound;

/* Binds every name of e to slot(ctx, name): an index into the values
 * atune__bound_eval is given, or -1 for a name that has none (evaluating
 * it fails as atune__expr_eval does: "unknown name 'X'"). Returns 0 or
 * ATUNE__EOSERR. */
int atune__expr_bind(const atune__expr *e,
                     int (*slot)(void *ctx, const char *name), void *ctx,
                     atune__bound *out, atune__err *err);

/* atune__expr_eval with the values of the bound slots: same results,
 * same errors. */
int atune__bound_eval(const atune__bound *b, const int64_t *values,
                      int64_t *out, atune__err *err);

void atune__bound_free(atune__bound *b);

/* The range [*lo_out, *hi_out] of b's value when every slot i takes a
 * value in [lo[i], hi[i]], and whether an evaluation can fail there:
 * 0 only when no evaluation in that box can (overflow, division by zero,
 * a bad shift, an unknown name). Conservative: 1 and the range of int64
 * where it cannot tell. */
int atune__bound_range(const atune__bound *b, const int64_t *lo,
                       const int64_t *hi, int64_t *lo_out, int64_t *hi_out);

/* The source text the expression was parsed from. */
const char *atune__expr_text(const atune__expr *e);

/* Calls fn for every variable name the expression references (functions
 * excluded), in source order, duplicates included; stops and returns fn's
 * value when it is non-zero. */
int atune__expr_names(const atune__expr *e,
                      int (*fn)(void *ctx, const char *name), void *ctx);

/* Writes e to f as a C expression on int64_t: literals as INT64_C(N),
 * each operator but &&, || and ?: as a call of fn_prefix + its name
 * (add sub mul div mod shl shr band bor bxor lt le gt ge eq ne neg bnot
 * not; cdiv min max), && and || as fn_prefix + "int" of them, the operands
 * of &&, || and ?: as fn_prefix + "true" of them, each variable through var
 * (which returns non-zero to stop, the value then returned). */
int atune__expr_write_c(const atune__expr *e, FILE *f, const char *fn_prefix,
                        int (*var)(void *ctx, FILE *f, const char *name,
                                   size_t len),
                        void *ctx);

void atune__expr_free(atune__expr *e);

/* Splits text at top-level commas (not those inside parentheses) into at
 * most max trimmed pieces, copied into out[i] (heap strings the caller
 * frees). Returns the number of pieces, or -1 when there are more than max
 * or a piece is empty. */
int atune__split_top(const char *text, char **out, int max);

#endif
