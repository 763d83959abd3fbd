/* stats.c -- order statistics of timing samples. Medians and quartiles,
 * not means: a launch disturbed by a clock change or another process is an
 * outlier that must not move the figure. */
#include "measure/stats.h"

#include <stdlib.h>

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return (x > y) - (x < y);
}

double atune__quantile(const double *sorted, int n, double q)
{
    double pos = q * (n - 1);
    int lo = (int)pos;
    double frac = pos - lo;

    if (lo + 1 >= n)
        return sorted[n - 1];
    return sorted[lo] + frac * (sorted[lo + 1] - sorted[lo]);
}

void atune__summarize(double *x, int n, atune__summary *s)
{
    qsort(x, (size_t)n, sizeof(*x), cmp_double);
    s->n = n;
    s->min = x[0];
    s->max = x[n - 1];
    s->median = atune__quantile(x, n, 0.5);
    s->q1 = atune__quantile(x, n, 0.25);
    s->q3 = atune__quantile(x, n, 0.75);
}
