/* manifest_abi.c -- [args] against a kernel's compiled parameters: the
 * driver copies each parameter's size from the pointer it is given, so a
 * manifest that passes three arguments to a kernel of four, or a long
 * where the kernel takes an int, launches with bytes nobody wrote. The
 * compiler's record of the parameters (count and size, not type) is the
 * only description of them the tool can trust for any file. */
#include "template/manifest.h"

#include <stdio.h>
#include <string.h>

#include "base/util.h"

int atune__entry_args(const atune__manifest *m, int i, const char **name,
                      int *line, int *arg)
{
    const atune__step *st = NULL;
    int n = 0;

    if (i >= 0 && i < m->nsteps)
        st = &m->steps[i];
    else if (i - m->nsteps < m->nref_steps)
        st = &m->ref_steps[i - m->nsteps];
    if (st) {
        *name = st->kernel;
        *line = st->kernel_line ? st->kernel_line : st->line;
        memcpy(arg, st->arg, (size_t)st->nargs * sizeof(*arg));
        return st->nargs;
    }
    /* The reference kernel: every [args] entry in order (runner.c). */
    *name = m->reference;
    *line = m->reference_line;
    for (n = 0; n < m->nargs; n++)
        arg[n] = n;
    return n;
}

int atune__ref_entry(const atune__manifest *m, int i)
{
    if (!m->nref_steps && m->ref_is_default)
        return m->sequence ? i : 0;
    return m->nsteps + i;
}

/* What the runner hands the driver for a: a device pointer for a
 * buffer, the value's bytes for a scalar. */
static size_t passed(const atune__arg *a)
{
    if (a->role != ATUNE__SCALAR)
        return sizeof(unsigned long long); /* CUdeviceptr */
    if (a->type == ATUNE__BYTES)
        return a->raw_len;
    return atune__arg_elem_size(a);
}

static void list_sizes(const unsigned *sizes, int n, char *buf, size_t len)
{
    size_t at = 0;

    buf[0] = '\0';
    for (int i = 0; i < n && at < len; i++)
        at += (size_t)snprintf(buf + at, len - at, "%s%u", i ? ", " : "",
                               sizes[i]);
}

static void list_names(const atune__manifest *m, const int *arg, int n,
                       char *buf, size_t len)
{
    size_t at = 0;

    buf[0] = '\0';
    for (int i = 0; i < n && at < len; i++)
        at += (size_t)snprintf(buf + at, len - at, "%s%s", i ? ", " : "",
                               m->args[arg[i]].name);
}

int atune__entry_abi_check(const atune__manifest *m, int i,
                           const unsigned *sizes, int n, atune__err *err)
{
    int arg[ATUNE__MAX_ARGS], line;
    const char *name;
    int na = atune__entry_args(m, i, &name, &line, arg);
    char have[400], want[200];

    /* More arguments than parameters are ignored by the driver: a
     * reference may take the first entries of [args] (llm.c's layernorm
     * version 1 takes 8 of the sequence's 11). */
    if (na < n) {
        list_names(m, arg, na, have, sizeof(have));
        list_sizes(sizes, n, want, sizeof(want));
        return atune__fail(err, ATUNE__EDATA,
                           "%s:%d: kernel '%s' takes %d parameter%s (%s "
                           "bytes), but is passed %d argument%s of [args] "
                           "(%s): %s",
                           m->ini_path, line, name, n, n == 1 ? "" : "s",
                           want, na, na == 1 ? "" : "s", na ? have : "none",
                           n - na == 1 ? "one is missing" : "some are missing");
    }
    for (int k = 0; k < n; k++) {
        const atune__arg *a = &m->args[arg[k]];
        size_t got = passed(a);
        if (got != sizes[k])
            return atune__fail(
                err, ATUNE__EDATA,
                "%s:%d: '%s' of [args] is passed as %zu bytes (%s%s), but "
                "parameter %d of kernel '%s' is %u bytes: give it the "
                "kernel's type (pointer: a buffer; char 1, int and float 4, "
                "long and double 8 bytes)",
                m->ini_path, a->line, a->name, got,
                a->role == ATUNE__SCALAR ? "a scalar " : "a buffer",
                a->role == ATUNE__SCALAR ? atune__type_name(a->type) : "",
                k + 1, name, sizes[k]);
    }
    return 0;
}
