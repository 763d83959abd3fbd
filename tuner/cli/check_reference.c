/* check_reference.c -- `check` compiles the reference as tune does (see
 * check_reference.h). */
#include "cli/check_reference.h"

#include "jit/cache.h"
#include "jit/cubin_params.h"
#include "jit/refmodule.h"
#include "template/space.h"

int atune__check_reference(const atune__manifest *m, const char *arch,
                           atune__cache *cache, atune__procs *procs, int own,
                           atune__err *err)
{
    const char *names[ATUNE__JIT_MAX_NAMES];
    int nnames = atune__manifest_ref_names(m, names);
    int per_size = own ? m->nref_macros || m->names_sized : m->names_sized;
    int rc = 0;

    if (own != atune__refmod_needed(m))
        return 0;
    for (int i = 0; rc == 0 && i < (per_size ? m->nsizes : 1); i++) {
        atune__refmod_syms syms = {.nref = nnames};
        atune__cubin cubin = {0};
        atune__config dflt;
        if (own) {
            rc = atune__refmod_compile(m, &m->sizes[i], arch, &cubin, &syms,
                                       err);
        } else {
            atune__space_config(m, 0, &dflt);
            atune__config_at_size(m, &dflt, &m->sizes[i]);
            rc = procs ? atune__procs_compile_own(procs, m, &dflt, arch, names,
                                                  nnames, &cubin, NULL, err)
                       : atune__jit_compile_cached(cache, m, &dflt, arch,
                                                   names, nnames, &cubin,
                                                   NULL, err);
        }
        /* The reference's kernels come first in its module (refmodule.c). */
        if (rc == 0)
            rc = atune__cubin_abi_check(m, &cubin, 1, syms.nref, err);
        if (rc == 0)
            rc = atune__cubin_constants_check(
                m, &cubin, own && m->ref_path ? m->ref_path : m->cu_path,
                arch, err);
        atune__cubin_free(&cubin);
        if (rc && per_size)
            atune__err_prefix(err, "at size '%s': ", m->sizes[i].name);
    }
    return rc;
}
