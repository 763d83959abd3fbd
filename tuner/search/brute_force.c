/* brute_force.c -- every valid configuration in index order. */
#include "search/technique.h"

typedef struct brute {
    int64_t next;
} brute;

static int64_t brute_ask(void *st, atune__search_state *s)
{
    brute *b = st;

    while (b->next < s->sp.nvalid && s->done[b->next])
        b->next++;
    return b->next < s->sp.nvalid ? b->next : -1;
}

const atune__technique atune__brute_force = {
    .name = "brute_force",
    .state_size = sizeof(brute),
    .ask = brute_ask,
    .tell = atune__told_nothing};
