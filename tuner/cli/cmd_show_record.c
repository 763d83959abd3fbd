/* cmd_show_record.c -- `autotune show --record RECORD`: what applications
 * were served without an exact tuned entry of their GPU, per GPU model
 * and kernel: the sizes, how each was served, how often. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "jit/record.h"

static int by_key(const void *a, const void *b)
{
    const atune__rec_entry *x = a, *y = b;
    int c = strcmp(x->gpu, y->gpu);

    if (c == 0)
        c = strcmp(x->kernel, y->kernel);
    if (c == 0 && x->count != y->count)
        c = x->count > y->count ? -1 : 1;
    return c ? c : strcmp(x->size, y->size);
}

/* "nearest 2, defaults 1": the sizes of entries [from, to) per way
 * served. */
static void ways(const atune__rec_entry *e, int from, int to, char *buf,
                 size_t len)
{
    size_t used = 0;

    buf[0] = '\0';
    for (int s = 0; s < ATUNE__SERVED_COUNT; s++) {
        int n = 0, w;
        for (int i = from; i < to; i++)
            n += e[i].served == (atune__served)s;
        if (n == 0)
            continue;
        w = snprintf(buf + used, len - used, "%s%s %d", used ? ", " : "",
                     atune__served_name((atune__served)s), n);
        if (w < 0 || (size_t)w >= len - used)
            return;
        used += (size_t)w;
    }
}

static int64_t sat_add(int64_t a, int64_t b)
{
    return a > INT64_MAX - b ? INT64_MAX : a + b;
}

int atune__cmd_show_record(const atune__cli *o)
{
    atune__record r = {0};
    atune__err err = {0};
    int64_t total = 0;
    int ngpu = 0, rc;

    if ((rc = atune__record_read(o->record, 0, &r, &err)) != 0)
        return atune__cli_error(rc, "%s", err.msg);
    qsort(r.e, (size_t)r.n, sizeof(r.e[0]), by_key);
    for (int i = 0; i < r.n; i++) {
        total = sat_add(total, r.e[i].count);
        ngpu += i == 0 || strcmp(r.e[i].gpu, r.e[i - 1].gpu) != 0;
    }
    printf("record %s: %d key%s on %d GPU model%s, %lld serving%s\n", o->record,
           r.n, r.n == 1 ? "" : "s", ngpu, ngpu == 1 ? "" : "s",
           (long long)total, total == 1 ? "" : "s");
    if (r.dropped > 0)
        printf("  %lld servings of keys beyond the bound of %d were not "
               "recorded\n",
               (long long)r.dropped, ATUNE__RECORD_MAX_KEYS);
    for (int i = 0; i < r.n;) {
        int g = i;
        printf("\n%s\n", r.e[g].gpu);
        while (i < r.n && strcmp(r.e[i].gpu, r.e[g].gpu) == 0) {
            int k = i;
            int64_t served = 0;
            char how[256];
            while (i < r.n && strcmp(r.e[i].gpu, r.e[g].gpu) == 0 &&
                   strcmp(r.e[i].kernel, r.e[k].kernel) == 0)
                served = sat_add(served, r.e[i++].count);
            ways(r.e, k, i, how, sizeof(how));
            printf("  %s: %d size%s, %lld serving%s (%s)\n", r.e[k].kernel,
                   i - k, i - k == 1 ? "" : "s", (long long)served,
                   served == 1 ? "" : "s", how);
            for (int s = k; s < i; s++)
                printf("    %-28s %-10s %lld\n", r.e[s].size,
                       atune__served_name(r.e[s].served),
                       (long long)r.e[s].count);
        }
    }
    atune__record_free(&r);
    return 0;
}
