/* evaluate.h -- the cost of carrying a configuration to another GPU:
 * `autotune tune --evaluate OTHER.ini` measures, for every (kernel, size)
 * that both OTHER and this GPU's profile hold, OTHER's best configuration
 * and this GPU's own best on this GPU, interleaved in the same run and
 * verified as always, and records in this GPU's profile
 *
 *   port.<other-slug>.config  = BLOCK_SIZE=256,VW=4,...
 *   port.<other-slug>.time_ns = its time here
 *   port.<other-slug>.own_ns  = this GPU's own best, timed beside it
 *   port.<other-slug>.percent = own_ns / time_ns * 100
 *
 * `autotune compare` shows them as the portability matrix. */
#ifndef ATUNE_EVALUATE_H
#define ATUNE_EVALUATE_H

#include "base/json.h"
#include "engine/tune.h"

/* Evaluates other's configurations on d for the templates of t (sizes as
 * o->size selects); writes the keys into o->profile_dir/<slug>.ini and
 * reports a table on stdout, or into j. */
int atune__evaluate(atune__device *d, const atune__templates *t,
                    const atune__tune_opts *o, const char *other,
                    atune__json *j, atune__err *err);

#endif
