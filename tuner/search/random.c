/* random.c -- uniform sampling without replacement: the baseline every
 * other strategy is scored against (tests/eval_strategies.c). */
#include "search/technique.h"

static int64_t random_ask(void *st, atune__search_state *s)
{
    (void)st;
    return atune__random_new(s);
}

const atune__technique atune__random = {
    .name = "random",
    .state_size = 1,
    .ask = random_ask,
    .tell = atune__told_nothing};
