/* refmodule.c -- the reference's module (refmodule.h). It is compiled
 * from a copy of the manifest whose source is the reference's and whose
 * NVRTC options carry the size macros, so that jit.c's errors, host-code
 * fallback and name resolution apply unchanged. The compile processes
 * know only the loaded manifests, not such a copy: it compiles in this
 * process, once per size. */
#include "jit/refmodule.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

_Static_assert(ATUNE__MAX_STEPS + 1 + ATUNE__MAX_VERIFY <= ATUNE__JIT_MAX_NAMES,
               "the reference's module: its launches, init and verify");

int atune__refmod_needed(const atune__manifest *m)
{
    if (m->ref_text || m->nref_macros || m->init[0])
        return 1;
    for (int i = 0; i < m->nargs; i++)
        if (m->args[i].verify[0])
            return 1;
    return 0;
}

/* The value of size variable name in s, or -1 when s lacks it. */
static int size_value(const atune__size *s, const char *name, int64_t *v)
{
    for (int i = 0; s && i < s->nvars; i++)
        if (strcmp(s->var[i], name) == 0) {
            *v = s->value[i];
            return 0;
        }
    return -1;
}

int atune__refmod_compile(const atune__manifest *m, const atune__size *size,
                          const char *arch, atune__cubin *out,
                          atune__refmod_syms *syms, atune__err *err)
{
    atune__manifest *c = malloc(sizeof(*c));
    char defs[ATUNE__MAX_SIZE_VARS][ATUNE__NAME_MAX + 32];
    const char *names[ATUNE__JIT_MAX_NAMES];
    int n = 0, rc;

    memset(out, 0, sizeof(*out));
    if (!c)
        return atune__fail(err, ATUNE__EOSERR, "out of memory");
    memcpy(c, m, sizeof(*c));
    if (m->ref_text) {
        c->source = m->ref_text;
        c->source_len = strlen(m->ref_text);
        c->cu_path = m->ref_path;
    }
    for (int i = 0; i < m->nref_macros; i++) {
        int64_t v = 0;
        if (size_value(size, m->ref_macros[i], &v) != 0 ||
            c->nnvrtc_opts == ATUNE__MAX_NVRTC_OPTS) {
            free(c);
            return atune__fail(err, ATUNE__EDATA,
                               "%s:%d: reference_macros: no value of '%s' at "
                               "this size",
                               m->ini_path, m->ref_macros_line,
                               m->ref_macros[i]);
        }
        snprintf(defs[i], sizeof(defs[i]), "-D%s=%" PRId64, m->ref_macros[i],
                 v);
        c->nvrtc_opts[c->nnvrtc_opts++] = defs[i];
    }
    /* Names point into c: jit.c tells which failed by its address. The
     * reference's launches come first, in the order runner.c launches
     * them: each [reference.NAME] section's kernel, every step of a
     * sequence that is its own reference, or the one reference kernel. */
    n = atune__manifest_ref_names(c, names);
    syms->nref = n;
    syms->init = -1;
    if (m->init[0]) {
        syms->init = n;
        names[n++] = c->init;
    }
    for (int i = 0; i < m->nargs; i++) {
        syms->verify[i] = -1;
        if (!m->args[i].verify[0])
            continue;
        for (int j = syms->nref; j < n; j++)
            if (strcmp(names[j], m->args[i].verify) == 0)
                syms->verify[i] = j;
        if (syms->verify[i] < 0) {
            if (n == ATUNE__JIT_MAX_NAMES) {
                free(c);
                return atune__fail(err, ATUNE__EDATA,
                                   "%s:%d: too many verify kernels",
                                   m->ini_path, m->args[i].line);
            }
            syms->verify[i] = n;
            names[n++] = c->args[i].verify;
        }
    }
    {
        atune__config dflt;
        atune__space_config(m, 0, &dflt);
        atune__config_at_size(m, &dflt, size); /* a name that reads it */
        rc = atune__jit_compile(c, &dflt, arch, names, n, out, err);
    }
    free(c);
    return rc;
}
