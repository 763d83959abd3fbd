/* check_sample.c -- which configurations `check --budget N` compiles. */
#include "cli/check_sample.h"

#include <stdlib.h>
#include <string.h>

static int by_index(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

    return x < y ? -1 : x > y;
}

/* With --budget B < n: first configurations that give every value of
 * every parameter (that some valid configuration has) at least once, as
 * far as B allows, taken in a pass over the space; then the rest spread
 * evenly over it (the first one included), so that a bounded check still
 * samples every region. Sorted by index, as the compile pool wants. NULL
 * when out of memory. */
int64_t *atune__check_sample(const atune__manifest *m, const int64_t *index,
                            int64_t n, int64_t budget)
{
    int64_t *out = malloc((size_t)budget * sizeof(*out)), k = 0;
    char(*seen)[ATUNE__MAX_VALUES] = calloc(ATUNE__MAX_PARAMS, sizeof(*seen));
    int64_t left = 0;

    if (!out || !seen) {
        free(out);
        free(seen);
        return NULL;
    }
    for (int p = 0; p < m->nparams; p++)
        left += m->params[p].nvalues;
    /* The diagonal first (value r of every parameter, cycling), where
     * valid: the fewest configurations that cover every value; then a
     * pass over the space for values the diagonal missed. Values no
     * valid configuration has are never found: the pass ends at the end
     * of the space. */
    for (int64_t i = -ATUNE__MAX_VALUES; i < n && k < budget && left > 0;
         i++) {
        atune__config c;
        int64_t idx;
        int adds = 0;
        if (i < 0) {
            int r = (int)(i + ATUNE__MAX_VALUES);
            for (int p = 0; p < m->nparams; p++)
                c.v[p] = m->params[p].values[r % m->params[p].nvalues];
            idx = atune__space_index(m, &c);
            if (idx < 0 || atune__index_find(index, n, idx) < 0)
                continue;
        } else {
            idx = index[i];
            atune__space_config(m, idx, &c);
        }
        for (int p = 0; p < m->nparams; p++)
            for (int v = 0; v < m->params[p].nvalues; v++)
                if (m->params[p].values[v] == c.v[p] && !seen[p][v]) {
                    seen[p][v] = 1;
                    left--;
                    adds = 1;
                }
        if (adds) /* a configuration adding a value is new */
            out[k++] = idx;
    }
    free(seen);
    qsort(out, (size_t)k, sizeof(*out), by_index);
    {
        int64_t chosen = k;
        for (int64_t i = 0; k < budget && i < budget; i++) {
            int64_t idx = index[(int64_t)((double)i * (double)n / budget)];
            if (atune__index_find(out, chosen, idx) < 0)
                out[k++] = idx;
        }
    }
    qsort(out, (size_t)k, sizeof(*out), by_index);
    /* A spread point that coverage had taken: the first ones not taken. */
    for (int64_t i = 0; k < budget && i < n; i++) {
        int64_t at = 0;
        if (atune__index_find(out, k, index[i]) >= 0)
            continue;
        while (at < k && out[at] < index[i])
            at++;
        memmove(out + at + 1, out + at, (size_t)(k - at) * sizeof(*out));
        out[at] = index[i];
        k++;
    }
    qsort(out, (size_t)k, sizeof(*out), by_index);
    return out;
}
