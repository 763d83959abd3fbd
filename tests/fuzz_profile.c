/* fuzz_profile.c -- libFuzzer target for the profile reader: any bytes are
 * opened as a profile; an opened one must find every one of its own
 * sections exactly, and answers a lookup of a size taken from the input.
 *
 *   clang-14 -g -O1 -fsanitize=fuzzer,address,undefined \
 *       -fno-sanitize-recover=all -std=c17 -D_POSIX_C_SOURCE=200809L \
 *       -Ituner -Iinclude tests/fuzz_profile.c tuner/lib/profile.c \
 *       tuner/lib/inidoc.c -linih -lm -o fuzz_profile
 *   mkdir -p corpus && ./fuzz_profile -max_total_time=60 -max_len=4096 \
 *       corpus tests/fuzz/profile_seeds
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "atune/atune.h"
#include "lib/profile_internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Every [KERNEL SIZE] section is an entry, found by its own name exactly
 * (the very configuration atune_profile_entry gives). */
static void check_own_sections(atune_profile *p)
{
    const atune__ini *doc = atune__profile_doc(p);
    int n = atune_profile_count(p);
    char buf[512];

    if (n != doc->nsections - 1) /* all but [device] */
        __builtin_trap();
    for (int i = 0; i < n; i++) {
        const atune_config *e = atune_profile_entry(p, i);
        const atune_config *c;

        if (atune_profile_lookup(p, atune_config_kernel(e),
                                 atune_config_size(e), &c) != ATUNE_OK ||
            c != e || atune_config_size_match(c) != ATUNE_SIZE_EXACT)
            __builtin_trap();
        for (int j = 0; j < atune_config_count(c); j++)
            if (!atune_config_name(c, j) ||
                !atune_config_meta(c, atune_config_name(c, j)))
                __builtin_trap();
        atune_config_describe(p, c, buf, sizeof(buf));
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *text = (const char *)data;
    size_t start = size, qlen;
    char query[64];
    atune_profile *p = NULL;
    const atune_config *c;
    char buf[512];

    /* The last line doubles as a size to look up: in a profile it is an
     * unknown lower-case key ("n=1000000"), which readers ignore. */
    while (start > 0 && text[start - 1] != '\n')
        start--;
    qlen = size - start < sizeof(query) ? size - start : sizeof(query) - 1;
    memcpy(query, text + start, qlen);
    query[qlen] = '\0';

    if (atune__profile_open_mem("fuzz.ini", text, size, &p) == ATUNE_OK) {
        check_own_sections(p);
        if (atune_profile_lookup(p, "copy", query, &c) == ATUNE_OK)
            atune_config_describe(p, c, buf, sizeof(buf));
        if (atune_profile_lookup(p, "matmul", query, &c) == ATUNE_OK)
            atune_config_describe(p, c, buf, sizeof(buf));
    } else if (!p || atune_profile_errmsg(p)[0] == '\0') {
        __builtin_trap(); /* every failure has a message */
    }
    atune_profile_close(p);
    return 0;
}
