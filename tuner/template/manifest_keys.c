/* manifest_keys.c -- what the parsers of several sections share: launch
 * shapes, required and known keys, C++ name expressions of entry points
 * ([template]'s kernel and reference, each [launch.NAME]'s kernel; their
 * characters and function names are manifest_entry.c's). */
#include <stdlib.h>
#include <string.h>

#include "template/manifest_internal.h"

/* "x", "x, y" or "x, y, z". */
int atune__mf_parse_dim3(struct loader *ld, const atune__ini_entry *en,
                         atune__dim3 *d)
{
    char *piece[3];
    int n = atune__split_top(en->value, piece, 3), rc = 0;

    if (n < 0)
        return atune__mf_bad(ld, en->line,
                             "'%s' must be 1 to 3 comma-separated expressions",
                             en->key);
    d->line = en->line;
    for (int i = 0; i < n; i++) {
        if (rc == 0)
            rc = atune__mf_parse_expr(ld, en->line, piece[i], &d->e[i]);
        free(piece[i]);
    }
    d->n = rc ? 0 : n;
    return rc;
}

/* The entry key of section s, or a "missing key" failure. */
int atune__mf_need(struct loader *ld, const atune__ini_section *s, const char *key,
                const atune__ini_entry **out)
{
    *out = atune__ini_get(s, key);
    if (!*out)
        return atune__mf_bad(ld, s->line, "missing key '%s' in [%s]", key,
                             s->name);
    return 0;
}

int atune__mf_check_keys(struct loader *ld, const atune__ini_section *s,
                         const char *const *keys, size_t nkeys)
{
    for (int i = 0; i < s->nentries; i++) {
        const atune__ini_entry *en = &s->entries[i];
        if (atune__mf_find_name(keys, nkeys, en->key, strlen(en->key)) < 0)
            return atune__mf_bad(ld, en->line, "unknown key '%s' in [%s]",
                                 en->key, s->name);
    }
    return 0;
}

/* kernel = NAME or reference = NAME: a C++ name expression of a
 * __global__ function in the .cu file ("copy_tuned", "ns::k",
 * "ns::k<BLOCK, (ns::Algo)ALGO>"); NVRTC resolves it per configuration
 * (jit.c), this checks what can be checked without compiling. */
int atune__mf_parse_entry_point(struct loader *ld,
                                const atune__ini_section *s, const char *key,
                                char dst[ATUNE__ENTRY_MAX], int *line)
{
    const atune__ini_entry *en;
    char base[ATUNE__NAME_MAX];
    int rc;

    if ((rc = atune__mf_need(ld, s, key, &en)) != 0)
        return rc;
    *line = en->line;
    for (const char *p = en->value; *p; p++)
        if (!atune__mf_is_name_expr_char(*p))
            return atune__mf_bad(ld, en->line,
                                 "%s '%s': '%c' cannot be part of a C++ name "
                                 "expression",
                                 key, en->value, *p);
    if (atune__strlcpy(dst, en->value, ATUNE__ENTRY_MAX) != 0)
        return atune__mf_bad(ld, en->line, "%s '%s' is longer than %d bytes",
                             key, en->value, ATUNE__ENTRY_MAX - 1);
    /* "kernel${VERSION}": checked once the parameters are known
     * (manifest_macros.c). */
    if (strstr(dst, "${"))
        return 0;
    if (!atune__mf_base_name(dst, base))
        return atune__mf_bad(ld, en->line,
                             "%s '%s' is not a C++ function name (NAME, "
                             "ns::NAME or ns::NAME<ARGS>)",
                             key, dst);
    return 0;
}

int atune__mf_entry_found(struct loader *ld, const char *key,
                          const char *expr, int line)
{
    char base[ATUNE__NAME_MAX], where[ATUNE__NAME_MAX + 64];

    if (strstr(expr, "${") || !atune__mf_base_name(expr, base) ||
        atune__mf_code_has(ld, base))
        return 0;
    return atune__mf_bad(ld, line, "%s '%s' not found in %s%s", key, base,
                         atune__mf_code_where(ld, where, sizeof(where)),
                         atune__mf_has_word(ld->m->source, base)
                             ? " (only in a comment or string)"
                             : "");
}

/* ref_block or ref_grid as a copy of [launch]'s d: each has its own
 * expressions, freed with the manifest. */
int atune__mf_copy_dim3(struct loader *ld, const atune__dim3 *d, atune__dim3 *to)
{
    int rc = 0;

    to->line = d->line;
    for (int i = 0; rc == 0 && i < d->n; i++)
        rc = atune__mf_parse_expr(ld, d->line, atune__expr_text(d->e[i]),
                                  &to->e[i]);
    to->n = rc ? 0 : d->n;
    return rc;
}
