/* stats.h -- order statistics of timing samples. */
#ifndef ATUNE_STATS_H
#define ATUNE_STATS_H

typedef struct atune__summary {
    double median;
    double q1, q3; /* quartiles: the spread is q3 - q1 */
    double min, max;
    int n;
} atune__summary;

/* Summarises n >= 1 samples; sorts x in place. Quantiles interpolate
 * linearly between order statistics. */
void atune__summarize(double *x, int n, atune__summary *s);

/* The q-quantile (0 <= q <= 1) of sorted x. */
double atune__quantile(const double *sorted, int n, double q);

#endif
