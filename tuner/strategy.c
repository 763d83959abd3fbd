/* strategy.c -- search strategies (see strategy.h). Placeholder: brute
 * force only, until the strategies land. */
#include "strategy.h"

#include <math.h>
#include <string.h>

#include "space.h"

static const char *const names[] = {"brute_force", NULL};

const char *const *atune__strategy_names(void)
{
    return names;
}

const char *atune__strategy_default(void)
{
    return names[0];
}

int atune__strategy_known(const char *name)
{
    for (int i = 0; names[i]; i++)
        if (strcmp(names[i], name) == 0)
            return 1;
    return 0;
}

int atune__search(const atune__search_spec *spec, atune__eval_fn eval,
                  atune__remeasure_fn remeasure, void *ctx,
                  atune__search_result *out, atune__err *err)
{
    int64_t total = atune__space_size(spec->m);
    double t0 = atune__now();
    int rc = 0;

    (void)remeasure;
    out->best = -1;
    out->best_time_ns = INFINITY;
    out->evaluations = 0;
    out->stop = "exhausted";
    if (spec->strategy && !atune__strategy_known(spec->strategy))
        return atune__fail(err, ATUNE__EUSAGE, "unknown strategy '%s'",
                           spec->strategy);
    for (int64_t i = 0; i < total; i++) {
        double t;
        if (!spec->valid[i])
            continue;
        if (spec->budget && out->evaluations >= spec->budget) {
            out->stop = "budget";
            break;
        }
        if (spec->time_limit > 0 && atune__now() - t0 > spec->time_limit) {
            out->stop = "time";
            break;
        }
        rc = eval(ctx, i, &t, err);
        if (rc)
            break;
        out->evaluations++;
        if (t < out->best_time_ns) {
            out->best = i;
            out->best_time_ns = t;
        }
    }
    return rc;
}
