/* fuzz_header.c -- libFuzzer target for `autotune header`: the input is a
 * manifest as for fuzz_manifest.c; a manifest that loads is written out as
 * a C header, which must not crash and whose comments must be closed only
 * where the generator closes them (a name or path holding "*" "/" ended
 * one early, issue 30): every comment opened is closed before the next
 * opens. Compiling the headers is tests/cli_header_property.sh's job. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/header_gen.h"
#include "template/manifest.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Comments nest nowhere and every one is closed; string literals (names
 * in quotes) are skipped. */
static int comments_balanced(const char *s)
{
    int in_comment = 0, in_string = 0;

    for (; *s; s++) {
        if (in_comment) {
            if (s[0] == '*' && s[1] == '/') {
                in_comment = 0;
                s++;
            }
        } else if (in_string) {
            if (*s == '\\' && s[1])
                s++;
            else if (*s == '"')
                in_string = 0;
        } else if (s[0] == '/' && s[1] == '*') {
            in_comment = 1;
            s++;
        } else if (s[0] == '*' && s[1] == '/') {
            return 0; /* a comment closed that was not open */
        } else if (*s == '"') {
            in_string = 1;
        }
    }
    return !in_comment && !in_string;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1), *cu = "", *out = NULL;
    atune__manifest *m = NULL;
    atune__err err;
    size_t len = 0;

    if (!text)
        return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    char *split = strstr(text, "\n%%\n");
    if (split) {
        *split = '\0';
        cu = split + 4;
    }
    if (strlen(text) != size && !split) {
        free(text);
        return 0;
    }
    /* The path holds what a hostile directory name may. */
    if (atune__manifest_parse("f", "a*/b/f.ini", text, "a*/b/f.cu", cu, &m,
                              &err) == 0) {
        FILE *f = open_memstream(&out, &len);
        if (f) {
            int rc = atune__header_write(f, m, &err);
            fclose(f);
            if (rc == 0 && !comments_balanced(out))
                __builtin_trap();
            free(out);
        }
    }
    atune__manifest_free(m);
    free(text);
    return 0;
}
