/* fuzz_override.c -- libFuzzer target for configurations made by the
 * application (atune_config_from_string, _set, _get) and for the number
 * parser libatune shares with the tool: the input's first line is a
 * kernel name, the rest a configuration's text. A configuration that
 * parses holds each parameter once, gets back what it holds, and takes a
 * _set of each name; base/number.c and lib/number.c agree on every input
 * (issue 30). Never a crash. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "atune/atune.h"
#include "base/number.h"
#include "lib/profile_impl.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void same_numbers(const char *s)
{
    int64_t a = 0, b = 0;
    const char *wa = atune__parse_i64(s, INT64_MIN, INT64_MAX, &a);
    const char *wb = atune__lib_parse_i64(s, INT64_MIN, INT64_MAX, &b);

    if ((wa == NULL) != (wb == NULL) || (!wa && a != b))
        __builtin_trap();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1), *body, msg[256];
    atune_config *c = NULL;

    if (!text)
        return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    if (strlen(text) != size) {
        free(text);
        return 0;
    }
    same_numbers(text);
    body = strchr(text, '\n');
    if (body)
        *body++ = '\0';
    else
        body = text;
    same_numbers(body);
    if (atune_config_from_string(body == text ? NULL : text, body, &c, msg,
                                 sizeof(msg)) == ATUNE_OK) {
        int n = atune_config_count(c);
        for (int i = 0; i < n; i++) {
            const char *name = atune_config_name(c, i);
            int64_t v = atune_config_value(c, i);
            for (int j = 0; j < i; j++)
                if (strcmp(atune_config_name(c, j), name) == 0)
                    __builtin_trap();
            if (atune_config_get(c, name, v ^ 1) != v ||
                atune_config_set(c, name, v + (v < INT64_MAX)) != ATUNE_OK ||
                atune_config_count(c) != n)
                __builtin_trap();
        }
        atune_config_free(c);
    }
    free(text);
    return 0;
}
