/* space_bench.c -- time and peak memory of building spaces (issue 21), on
 * the CPU: every size of every template of the built-in set, or of the
 * --templates DIRs given, each template in a child process of its own so
 * that its peak resident memory is its own. One line per space:
 *
 *   template size combinations valid seconds peak_MB checksum
 *
 * seconds is atune__space_build's wall time (best of --repeat runs),
 * peak_MB the process's peak resident set so far (run one directory with
 * one template under /usr/bin/time -v for a whole process's), checksum the FNV-1a of the
 * valid configurations' indices (tests/bench/kt_space.py prints the same
 * for Kernel Tuner's set). usage: space_bench [--repeat N] [DIR...] */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "template/space.h"
#include "template/templates.h"

static uint64_t checksum(const atune__valid_set *s)
{
    uint64_t h = 1469598103934665603ULL;

    for (int64_t i = 0; i < s->n; i++) {
        h ^= (uint64_t)s->index[i];
        h *= 1099511628211ULL;
    }
    return h;
}

/* Builds every size of m repeat times; prints one line per size. */
static int bench_one(const atune__manifest *m, int repeat)
{
    atune__devattr dev;
    struct rusage ru;

    atune__devattr_default(&dev);
    for (int s = 0; s < m->nsizes; s++) {
        atune__valid_set set = {0};
        atune__err err = {0};
        double best = 1e300;
        for (int r = 0; r < repeat; r++) {
            double t0 = atune__now(), t;
            if (atune__space_build(m, &m->sizes[s], &dev, NULL, &set, NULL,
                                   &err)) {
                fprintf(stderr, "space_bench: %s\n", err.msg);
                atune__valid_set_free(&set);
                return 1;
            }
            t = atune__now() - t0;
            best = t < best ? t : best;
        }
        getrusage(RUSAGE_SELF, &ru);
        printf("%-10s %-8s %12" PRId64 " %10" PRId64 " %8.3f %7.1f %016llx\n",
               m->name, m->sizes[s].name, atune__space_size(m), set.n, best,
               (double)ru.ru_maxrss / 1024.0,
               (unsigned long long)checksum(&set));
        fflush(stdout);
        atune__valid_set_free(&set);
    }
    return 0;
}

/* Every template of dir (NULL: the built-in set). */
static int bench_dir(const char *dir, int repeat)
{
    atune__templates t = {0};
    atune__err err = {0};
    int failed = 0;

    if (atune__templates_load(dir, NULL, &t, &err)) {
        fprintf(stderr, "space_bench: %s\n", err.msg);
        return 1;
    }
    for (int i = 0; i < t.n; i++)
        failed |= bench_one(t.m[i], repeat);
    atune__templates_free(&t);
    return failed;
}

int main(int argc, char **argv)
{
    int repeat = 1, first = 1, failed = 0;

    if (argc > 2 && strcmp(argv[1], "--repeat") == 0) {
        repeat = atoi(argv[2]);
        first = 3;
    }
    if (repeat < 1 || (argc > 1 && argv[1][0] == '-' && first == 1)) {
        fprintf(stderr, "usage: space_bench [--repeat N] [DIR...]\n");
        return 64;
    }
    printf("%-10s %-8s %12s %10s %8s %7s %s\n", "template", "size",
           "combinations", "valid", "seconds", "peak_MB", "checksum");
    if (first == argc)
        return bench_dir(NULL, repeat);
    for (int i = first; i < argc; i++)
        failed |= bench_dir(argv[i], repeat);
    return failed;
}
