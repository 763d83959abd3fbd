/* manifest_entry.c -- C++ name expressions of __global__ functions
 * (kernel, reference, init, verify) as every section that names a kernel
 * checks them, looked up in the source that holds them. */
#include <string.h>

#include "template/manifest_internal.h"

/* The characters a name expression may hold: a C++ qualified name and
 * template arguments made of numbers, parameters, casts and operators.
 * Never quotes, ';', braces or '#': the text goes into NVRTC as C++. */
int atune__mf_is_name_expr_char(char ch)
{
    return atune__ident_char(ch) ||
           (ch && strchr(":<>(), +-*/%&|^~!.${}=?", ch));
}

/* The function a name expression names: "block_sum" of
 * "::user::block_sum<BLOCK, 4>"; NULL when the part before '<' is not a
 * qualified name or the brackets do not balance. */
const char *atune__mf_base_name(const char *expr, char out[ATUNE__NAME_MAX])
{
    const char *s = expr, *last = NULL;
    int depth = 0;

    for (const char *p = expr; *p; p++) {
        if (*p == '<' || *p == '(')
            depth++;
        else if ((*p == '>' || *p == ')') && --depth < 0)
            return NULL;
    }
    if (depth != 0)
        return NULL;
    for (;;) {
        size_t len = 0;
        if (s[0] == ':' && s[1] == ':')
            s += 2;
        if (!atune__ident_char(*s) || (*s >= '0' && *s <= '9'))
            return NULL;
        while (atune__ident_char(s[len]))
            len++;
        if (len >= ATUNE__NAME_MAX)
            return NULL;
        memcpy(out, s, len);
        out[len] = '\0';
        last = s;
        s += len;
        while (*s == ' ')
            s++;
        if (*s == '\0' || *s == '<')
            break;
        if (s[0] != ':' || s[1] != ':')
            return NULL;
    }
    if (*s == '<' && s[strlen(s) - 1] != '>')
        return NULL;
    return last;
}

/* kernel = NAME or reference = NAME: a C++ name expression of a
 * __global__ function in the .cu file ("copy_tuned", "ns::k",
 * "ns::k<BLOCK, (ns::Algo)ALGO>"); NVRTC resolves it per configuration
 * (jit.c), this checks what can be checked without compiling. */
int atune__mf_entry_point(struct loader *ld, int line, const char *key,
                          const char *value, char dst[ATUNE__ENTRY_MAX])
{
    char base[ATUNE__NAME_MAX], where[ATUNE__NAME_MAX + 64];
    const char *text = ld->ref_code ? ld->m->ref_text : ld->m->source;
    int found;

    for (const char *p = value; *p; p++)
        if (!atune__mf_is_name_expr_char(*p))
            return atune__mf_bad(ld, line,
                                 "%s '%s': '%c' cannot be part of a C++ name "
                                 "expression",
                                 key, value, *p);
    if (atune__strlcpy(dst, value, ATUNE__ENTRY_MAX) != 0)
        return atune__mf_bad(ld, line, "%s '%s' is longer than %d bytes",
                             key, value, ATUNE__ENTRY_MAX - 1);
    /* "kernel${VERSION}": checked once the parameters are known
     * (manifest_macros.c). */
    if (strstr(dst, "${"))
        return 0;
    if (!atune__mf_base_name(dst, base))
        return atune__mf_bad(ld, line,
                             "%s '%s' is not a C++ function name (NAME, "
                             "ns::NAME or ns::NAME<ARGS>)",
                             key, dst);
    found = ld->ref_code ? atune__mf_has_word(ld->ref_code, base)
                         : atune__mf_code_has(ld, base);
    if (found)
        return 0;
    return atune__mf_bad(ld, line, "%s '%s' not found in %s%s", key, base,
                         ld->ref_code
                             ? ld->ref_name
                             : atune__mf_code_where(ld, where, sizeof(where)),
                         atune__mf_has_word(text, base)
                             ? " (only in a comment or string)"
                             : "");
}
