/* verdict.c -- whether a buffer's comparison with the reference passes,
 * from what the compare kernel (devutil.cu) read back: the rule that
 * docs/manifest.md states, kept apart from the launches so that it is
 * tested on the host. */
#include <stdio.h>
#include <string.h>

#include "measure/runner_internal.h"

/* Reals: the largest |out - ref| over the compared elements, divided by
 * the largest |ref| (absolute when every ref is 0), at most tol, and no
 * non-finite element on either side. Integers: at most the manifest's
 * "mismatches" elements differ. */
int atune__verdict(const atune__arg *a, size_t compared, double tol,
                   const struct cmp_result *r, char *detail, size_t len)
{
    if (atune__type_is_real(a->type)) {
        double diff, mref, rel;
        memcpy(&diff, &r->max_diff, sizeof(diff));
        memcpy(&mref, &r->max_ref, sizeof(mref));
        rel = mref > 0 ? diff / mref : diff;
        if (r->nonfinite) {
            snprintf(detail, len, "%s: %llu non-finite elements, first at %llu",
                     a->name, r->nonfinite, r->first);
            return 0;
        }
        if (rel > tol) {
            snprintf(detail, len, "%s: relative error %.3g exceeds tolerance %.3g",
                     a->name, rel, tol);
            return 0;
        }
        return 1;
    }
    if (r->mismatches > atune__mismatches_allowed(a, compared)) {
        snprintf(detail, len, "%s: %llu of %zu elements differ, first at %llu",
                 a->name, r->mismatches, compared, r->first);
        return 0;
    }
    return 1;
}
