/* profile_doc.c -- the parsed document behind a profile and its entries
 * (profile_internal.h), for the writers that re-emit it. A file of its
 * own, with no public function, so that a shared libatune_jit (whose
 * profile writer, measure/profile_write.c, needs it while libatune.so
 * hides it) can keep its own hidden copy, as it does of inidoc.c. */
#include "lib/profile_impl.h"
#include "lib/profile_internal.h"

const atune__ini_section *atune__config_section(const atune_config *c)
{
    return c && c->match != ATUNE_SIZE_OVERRIDE ? c->e->sec : NULL;
}

const atune__ini *atune__profile_doc(const atune_profile *p)
{
    return p && p->status == ATUNE_OK ? p->doc : NULL;
}
