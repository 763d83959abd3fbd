/* check_sample.h -- the configurations `check --budget B` compiles. */
#ifndef ATUNE_CHECK_SAMPLE_H
#define ATUNE_CHECK_SAMPLE_H

#include <stdint.h>

#include "template/manifest.h"
#include "template/space.h"

/* B < n of the n valid configurations index[] (ascending): first ones
 * that give every value of every parameter at least once (as far as B
 * allows), then the rest spread evenly over the space. Ascending; NULL
 * when out of memory. */
int64_t *atune__check_sample(const atune__manifest *m, const int64_t *index,
                             int64_t n, int64_t budget);

#endif
