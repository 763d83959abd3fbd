/* jit_names.c -- name expressions as NVRTC sees them: a configuration's
 * parameter values, and for a template whose names read the size the
 * size's values, substituted into "user::sum<BLOCK, (n % 1024 == 0)>"
 * (jit.h). Compiling and the module cache's key both take the names from
 * here. */
#include <stdio.h>
#include <string.h>

#include "jit/jit.h"

/* Whether the identifier at s (in expr) follows "::", "." or "->". */
static int is_member(const char *expr, const char *s)
{
    while (s > expr && (s[-1] == ' ' || s[-1] == '\t'))
        s--;
    return (s - expr >= 1 && s[-1] == '.') ||
           (s - expr >= 2 &&
            (memcmp(s - 2, "::", 2) == 0 || memcmp(s - 2, "->", 2) == 0));
}

/* A size variable counts only in a manifest whose names read the size. */
static int size_index(const atune__manifest *m, const char *s, size_t len)
{
    return m->names_sized ? atune__manifest_size_var_n(m, s, len) : -1;
}

/* The value of parameter pi, or of size variable si of c's size; -2 when
 * the name is a size variable and c has no size. */
static int var_value(const atune__config *c, int pi, int si, long long *v)
{
    if (pi >= 0) {
        *v = (long long)c->v[pi];
        return 0;
    }
    if (si >= c->nsz)
        return -2;
    *v = (long long)c->sz[si];
    return 0;
}

int atune__jit_name(const atune__manifest *m, const atune__config *c,
                    const char *expr, char *buf, size_t len)
{
    size_t used = 0;

    for (const char *s = expr; *s;) {
        const char *e = s;
        char num[32];
        const char *piece = s;
        size_t plen, l;
        int pi = -1, si = -1;
        long long v;
        if (s[0] == '$' && s[1] == '{' && s[2 + (l = strcspn(s + 2, "}"))] &&
            ((pi = atune__manifest_param_n(m, s + 2, l)) >= 0 ||
             (si = size_index(m, s + 2, l)) >= 0)) {
            /* ${NAME} pastes the value into an identifier. */
            if (var_value(c, pi, si, &v))
                return -2;
            snprintf(num, sizeof(num), "%lld", v);
            if (used + strlen(num) >= len)
                return -1;
            memcpy(buf + used, num, strlen(num));
            used += strlen(num);
            s += 3 + l;
            continue;
        }
        pi = si = -1;
        if (atune__ident_char(*s) && !(*s >= '0' && *s <= '9')) {
            while (atune__ident_char(*e))
                e++;
            if (!is_member(expr, s) &&
                (pi = atune__manifest_param_n(m, s, (size_t)(e - s))) < 0)
                si = size_index(m, s, (size_t)(e - s));
        } else if (atune__ident_char(*s)) {
            while (atune__ident_char(*e)) /* a number: never a parameter */
                e++;
        } else {
            e++;
        }
        plen = (size_t)(e - s);
        if (pi >= 0 || si >= 0) {
            if (var_value(c, pi, si, &v))
                return -2;
            snprintf(num, sizeof(num), v < 0 ? "(%lld)" : "%lld", v);
            piece = num;
            plen = strlen(num);
        }
        if (used + plen >= len)
            return -1;
        memcpy(buf + used, piece, plen);
        used += plen;
        s = e;
    }
    if (len == 0)
        return -1;
    buf[used] = '\0';
    return 0;
}

int atune__jit_names(const atune__manifest *m, const atune__config *c,
                     const char *const *names, int nnames,
                     atune__jit_name_buf *text, const char **subst,
                     atune__err *err)
{
    if (nnames > ATUNE__JIT_MAX_NAMES)
        return atune__fail(err, ATUNE__ESOFTWARE, "too many names");
    for (int i = 0; i < nnames; i++) {
        int rc = atune__jit_name(m, c, names[i], text[i], sizeof(text[i]));
        /* A caller that compiles such a template without the size is a
         * bug of the tool's, not of the manifest. */
        if (rc == -2)
            return atune__fail(err, ATUNE__ESOFTWARE,
                               "%s: name '%s' reads a size variable, and "
                               "no size was given to compile it for",
                               m->ini_path, names[i]);
        if (rc != 0)
            return atune__fail(err, ATUNE__EDATA, "%s: name '%s' too long",
                               m->ini_path, names[i]);
        subst[i] = text[i];
    }
    return 0;
}
