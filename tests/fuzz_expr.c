/* fuzz_expr.c -- libFuzzer target for the expression language: any bytes
 * are parsed; a parsed expression is evaluated with a few variables bound
 * and must either give a value or a message, never crash or overflow. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "template/expr.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int count_name(void *ctx, const char *name)
{
    (void)name;
    ++*(int *)ctx;
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *src = malloc(size + 1);
    atune__expr *e = NULL;
    atune__vars vs = {0};
    atune__err err;
    int64_t v;
    int names = 0;

    if (!src)
        return 0;
    memcpy(src, data, size);
    src[size] = '\0';
    atune__vars_set(&vs, "n", 268435456);
    atune__vars_set(&vs, "VW", 4);
    atune__vars_set(&vs, "zero", 0);
    atune__vars_set(&vs, "big", INT64_MAX);
    if (atune__expr_parse(src, &e, &err) == 0) {
        if (strcmp(atune__expr_text(e), src) != 0)
            __builtin_trap();
        atune__expr_names(e, count_name, &names);
        if (atune__expr_eval(e, &vs, &v, &err) != 0 && !err.msg[0])
            __builtin_trap();
    } else if (!err.msg[0]) {
        __builtin_trap();
    }
    atune__expr_free(e);
    free(src);
    return 0;
}
