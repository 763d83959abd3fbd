/* fuzz_manifest.c -- libFuzzer target for the manifest loader: the input is
 * an INI manifest, optionally followed by a line "%%" and CUDA source. It
 * must load, or fail with a "file:line:" message; never crash. A loaded
 * manifest's space is enumerated and checked on a default device. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "template/manifest.h"
#include "template/space.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void walk_space(const atune__manifest *m)
{
    atune__devattr dev;
    atune__vars vs = {0};
    atune__err err;
    char reason[256];
    int64_t total = atune__space_size(m);

    atune__devattr_default(&dev);
    if (m->nsizes < 1 || atune__size_vars(&m->sizes[0], &vs) ||
        atune__devattr_vars(&dev, &vs))
        return;
    for (int64_t i = 0; i < total && i < 64; i++) {
        atune__config c;
        char text[512];
        atune__space_config(m, i, &c);
        atune__config_str(m, &c, text, sizeof(text));
        if (atune__space_index(m, &c) != i)
            __builtin_trap();
        atune__space_check(m, &c, &vs, &dev, NULL, reason, sizeof(reason),
                           &err);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1), *cu = "";
    atune__manifest *m = NULL;
    atune__err err;

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
        free(text); /* embedded NUL: files are checked before parsing */
        return 0;
    }
    if (atune__manifest_parse("f", "f.ini", text, "f.cu", cu, &m, &err) == 0)
        walk_space(m);
    else if (strncmp(err.msg, "f.ini:", 6) != 0 && strncmp(err.msg, "f.cu", 4))
        __builtin_trap();
    atune__manifest_free(m);
    free(text);
    return 0;
}
