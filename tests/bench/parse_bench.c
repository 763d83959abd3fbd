/* parse_bench.c -- how long libatune takes to read large profiles (issue
 * 20): a generated profile of 100k sections, one of about 16 MB (the size
 * cap) and atune_profile_open_for on a directory where a 16 MB profile of
 * another GPU lies beside the right one. Prints each time and fails when
 * one is over its limit: 1 s of CPU time (wall time on a shared machine
 * says more about the other jobs), more under a sanitizer. A ctest
 * (cpu). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "atune/atune.h"

#if defined(__SANITIZE_ADDRESS__)
#define SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SANITIZED 1
#endif
#endif
#ifdef SANITIZED
#define LIMIT_S 10.0
#else
#define LIMIT_S 1.0
#endif

#define STRAY_BYTES 16000000 /* under the 16 MiB cap */

typedef struct buf {
    char *s;
    size_t len, cap;
} buf;

static int add(buf *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static int add(buf *b, const char *fmt, ...)
{
    va_list ap;
    int n;

    if (b->cap - b->len < 256) {
        char *s = realloc(b->s, b->cap ? 2 * b->cap : 1 << 20);
        if (!s)
            return -1;
        b->s = s;
        b->cap = b->cap ? 2 * b->cap : 1 << 20;
    }
    va_start(ap, fmt);
    n = vsnprintf(b->s + b->len, b->cap - b->len, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= b->cap - b->len)
        return -1;
    b->len += (size_t)n;
    return 0;
}

/* A format 2 profile of dev name with sections until it has n sections
 * or bytes bytes. */
static int profile_text(buf *b, const char *name, long n, size_t bytes)
{
    b->len = 0;
    if (add(b, "[device]\nformat = 2\nname = %s\ncc = 90\nsm_count = 132\n",
            name))
        return -1;
    for (long i = 0; i < n && b->len + 128 < bytes; i++)
        if (add(b,
                "\n[copy n=%ld]\nBLOCK_SIZE = %ld\nVW = 4\ntime_ns = %ld\n"
                "template_hash = 0123456789abcdef\n",
                i, 32 + i % 993, 1000 + i))
            return -1;
    return add(b, "\n; end of profile\n");
}

static double now(clockid_t clock)
{
    struct timespec ts;

    clock_gettime(clock, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int write_file(const char *path, const buf *b)
{
    FILE *f = fopen(path, "wb");
    int ok = f && fwrite(b->s, 1, b->len, f) == b->len;

    if (f && fclose(f) != 0)
        ok = 0;
    if (!ok)
        fprintf(stderr, "parse_bench: cannot write %s\n", path);
    return ok ? 0 : -1;
}

/* Times one open; -1 when it fails. */
static double timed_open(const char *what, const char *path, const buf *b,
                         const char *dir, const atune_device *dev)
{
    atune_profile *p = NULL;
    double wall = now(CLOCK_MONOTONIC), t = now(CLOCK_PROCESS_CPUTIME_ID);
    int rc = dir ? atune_profile_open_for(dir, dev, &p)
         : path  ? atune_profile_open(path, &p)
                 : atune_profile_open_string("gen.ini", b->s, b->len, &p);

    t = now(CLOCK_PROCESS_CPUTIME_ID) - t;
    wall = now(CLOCK_MONOTONIC) - wall;
    if (rc != ATUNE_OK) {
        fprintf(stderr, "parse_bench: %s: %s\n", what,
                atune_profile_errmsg(p));
        t = -1;
    } else {
        printf("%-38s %7.3f s CPU %7.3f s wall (%d entries)\n", what, t,
               wall, atune_profile_count(p));
    }
    atune_profile_close(p);
    return t;
}

static int check(double t, int *failed)
{
    if (t < 0 || t > LIMIT_S)
        *failed = 1;
    return t < 0;
}

int main(void)
{
    const atune_device h100 = {"NVIDIA H100 80GB HBM3", 90, 132, ""};
    const char *tmp = getenv("TMPDIR");
    char dir[4096], right[4200], stray[4200];
    buf b = {0};
    int failed = 0;

    snprintf(dir, sizeof(dir), "%s/parse-bench-XXXXXX",
             tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(dir)) {
        perror("parse_bench: mkdtemp");
        return 1;
    }
    snprintf(right, sizeof(right), "%s/nvidia-h100-80gb-hbm3.ini", dir);
    snprintf(stray, sizeof(stray), "%s/stray.ini", dir);

    if (profile_text(&b, h100.name, 100000, (size_t)-1) ||
        check(timed_open("100k sections, from memory", NULL, &b, NULL, NULL),
              &failed)) {
        failed = 1;
        goto out;
    }
    if (profile_text(&b, h100.name, 1000000, STRAY_BYTES) ||
        write_file(stray, &b) ||
        check(timed_open("16 MB profile, from a file", stray, &b, NULL, NULL),
              &failed)) {
        failed = 1;
        goto out;
    }
    /* The same 16 MB of another GPU beside a small right profile. */
    if (profile_text(&b, "NVIDIA B200", 1000000, STRAY_BYTES) ||
        write_file(stray, &b) || profile_text(&b, h100.name, 10, 4096) ||
        write_file(right, &b)) {
        failed = 1;
        goto out;
    }
    check(timed_open("open_for beside a 16 MB stray file", NULL, NULL, dir,
                     &h100),
          &failed);
out:
    unlink(right);
    unlink(stray);
    rmdir(dir);
    free(b.s);
    printf("parse_bench: limit %.1f s: %s\n", LIMIT_S,
           failed ? "FAILED" : "ok");
    return failed;
}
