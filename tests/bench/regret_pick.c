/* regret_pick.c -- what libatune hands an application: for each size on
 * standard input ("KERNEL SIZE" per line), the configuration the library
 * looks up in PROFILE, one line "KERNEL SIZE CONFIG" (CONFIG as
 * NAME=VALUE,... in the profile's order; "-" when the lookup fails), and
 * atune_config_describe's line on standard error. tests/bench/regret.sh
 * compiles it against the libatune it measures. */
#include <stdio.h>
#include <string.h>

#include "atune/atune.h"

static void print_config(const atune_config *c)
{
    for (int i = 0; i < atune_config_count(c); i++)
        printf("%s%s=%lld", i ? "," : "", atune_config_name(c, i),
               (long long)atune_config_value(c, i));
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
    while (fgets(line, sizeof(line), stdin)) {
        const atune_config *c = NULL;
        if (sscanf(line, "%127s %255s", kernel, size) != 2)
            continue;
        printf("%s %s ", kernel, size);
        if (atune_profile_lookup(p, kernel, size, &c) != ATUNE_OK) {
            fprintf(stderr, "regret_pick: %s\n", atune_profile_errmsg(p));
            printf("-\n");
            rc = 1;
            continue;
        }
        print_config(c);
        printf("\n");
        atune_config_describe(p, c, line, sizeof(line));
        fprintf(stderr, "%s\n", line);
    }
    atune_profile_close(p);
    return rc;
}
