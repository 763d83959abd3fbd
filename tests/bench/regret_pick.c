/* regret_pick.c -- what an application is handed: for each size on
 * standard input ("KERNEL SIZE" per line), the configuration that
 * atune_jit_config_for() picks from PROFILE for the built-in template of
 * that name, one line "KERNEL SIZE CONFIG" (CONFIG as NAME=VALUE,... in the
 * profile's order; "-" when there is no tuned configuration to hand out),
 * and the look-up's own description on standard error. The safe look-up,
 * not atune_profile_lookup() alone: where the nearest tuned size's
 * configuration cannot run (matmul's float4 kernels at a size whose rows
 * are not 16-byte aligned), an application gets the nearest tuned entry
 * that can, and that is what it runs. Device limits are the generic sm_90
 * device's (132 SMs, as the H100 and the H200). tests/bench/regret.sh
 * compiles it against the libatune_jit it measures. */
#include <stdio.h>
#include <string.h>

#include "atune/atune.h"
#include "atune/atune_jit.h"

static void print_config(const atune_config *c)
{
    for (int i = 0; i < atune_config_count(c); i++)
        printf("%s%s=%lld", i ? "," : "", atune_config_name(c, i),
               (long long)atune_config_value(c, i));
}

/* One look-up; 0 when a tuned configuration was printed. */
static int pick(atune_profile *p, const char *kernel, const char *size)
{
    const atune_config *c = NULL;
    atune_jit *j = NULL;
    char why[1024];
    int rc;

    printf("%s %s ", kernel, size);
    rc = atune_jit_open(NULL, kernel, &j);
    if (rc == ATUNE_OK)
        rc = atune_jit_config_for(j, p, size, NULL, &c, why, sizeof(why));
    if (rc != ATUNE_OK)
        fprintf(stderr, "regret_pick: %s %s: %s\n", kernel, size,
                atune_jit_errmsg(j));
    else
        fprintf(stderr, "%s\n", why);
    if (rc == ATUNE_OK && c)
        print_config(c);
    else
        printf("-");
    printf("\n");
    atune_jit_close(j);
    return rc == ATUNE_OK && c ? 0 : 1;
}

int main(int argc, char **argv)
{
    char kernel[128], size[256], line[1024];
    atune_profile *p = NULL;
    int rc = 0;

    if (argc != 2) {
        fprintf(stderr, "usage: regret_pick PROFILE <sizes\n");
        return 2;
    }
    if (atune_profile_open(argv[1], &p) != ATUNE_OK) {
        fprintf(stderr, "regret_pick: %s\n", atune_profile_errmsg(p));
        atune_profile_close(p);
        return 1;
    }
    while (fgets(line, sizeof(line), stdin))
        if (sscanf(line, "%127s %255s", kernel, size) == 2)
            rc |= pick(p, kernel, size);
    atune_profile_close(p);
    return rc;
}
