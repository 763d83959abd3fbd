/* profile_size.c -- problem sizes ("m=4096,n=4096,k=4096") and the
 * "KERNEL SIZE" section names of a profile: parsing, comparing and the
 * canonical spelling. Allocates nothing: lookups parse the wanted size. */
#include "lib/profile_impl.h"
#include "lib/profile_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int name_cmp(const char *a, size_t alen, const char *b, size_t blen)
{
    size_t n = alen < blen ? alen : blen;

    /* Names are a byte or two: a loop beats a call to memcmp. */
    for (size_t i = 0; i < n; i++)
        if (a[i] != b[i])
            return (unsigned char)a[i] - (unsigned char)b[i];
    return (alen > blen) - (alen < blen);
}

/* Adds a variable to v in name order; -1 if it is already there. */
static int add_var(size_vars *vs, const char *name, size_t len, int64_t val)
{
    size_var *v = vs->v;
    int i = vs->n;

    for (; i > 0; i--) {
        int c = name_cmp(v[i - 1].name, v[i - 1].len, name, len);
        if (c == 0)
            return -1;
        if (c < 0)
            break;
        v[i] = v[i - 1];
    }
    v[i].name = name;
    v[i].len = len;
    v[i].val = val;
    v[i].pos = vs->n++;
    return 0;
}

static const char *skip_blanks(const char *s, int loose)
{
    while (loose && is_blank(*s))
        s++;
    return s;
}

/* Parses "m=4096,n=4096,k=4096" into v. loose allows blanks around every
 * token (queries); profiles are written without. Returns NULL, or why the
 * text is not a size. Allocates nothing: lookups call it. */
const char *atune__size_parse(const char *s, int loose, size_vars *v)
{
    v->n = 0;
    for (;;) {
        const char *name;
        size_t len;
        int64_t val = 0;

        s = skip_blanks(s, loose);
        name = s;
        if (!is_alpha(*s) && *s != '_')
            return "expected a variable name";
        while (is_ident(*s))
            s++;
        len = (size_t)(s - name);
        s = skip_blanks(s, loose);
        if (*s != '=')
            return "expected '=' after a variable name";
        s = skip_blanks(s + 1, loose);
        if (!is_digit(*s))
            return "expected a non-negative integer value";
        for (; is_digit(*s); s++) {
            int d = *s - '0';
            if (val > (INT64_MAX - d) / 10)
                return "value out of range";
            val = 10 * val + d;
        }
        s = skip_blanks(s, loose);
        if (v->n == MAX_VARS)
            return "too many variables";
        if (add_var(v, name, len, val) != 0)
            return "variable given twice";
        if (*s == '\0')
            return NULL;
        if (*s != ',')
            return "expected ',' between variables";
        s++;
    }
}

/* Orders sets of variable names (not their values). */
int atune__size_vars_cmp(const size_vars *a, const size_vars *b)
{
    if (a->n != b->n)
        return a->n - b->n;
    for (int i = 0; i < a->n; i++) {
        int c = name_cmp(a->v[i].name, a->v[i].len, b->v[i].name, b->v[i].len);
        if (c != 0)
            return c;
    }
    return 0;
}

/* The values of two sizes of the same variables. */
int atune__size_same_values(const size_vars *a, const size_vars *b)
{
    for (int i = 0; i < a->n; i++)
        if (a->v[i].val != b->v[i].val)
            return 0;
    return 1;
}

double atune__size_key_distance(const char *a, const char *b)
{
    size_vars x, y;
    double d = 0;

    if (atune__size_parse(a, 0, &x) || atune__size_parse(b, 0, &y) ||
        atune__size_vars_cmp(&x, &y) != 0)
        return INFINITY;
    for (int i = 0; i < x.n; i++) {
        if (x.v[i].val < 1 || y.v[i].val < 1)
            return INFINITY;
        d += fabs(log((double)x.v[i].val) - log((double)y.v[i].val));
    }
    return d;
}

double atune__size_log2(int64_t v)
{
    /* Size 0 is as far from 1 as 1 is: no -inf in the distances. */
    return v > 1 ? log2((double)v) : 0.0;
}

/* Splits a "KERNEL SIZE" section name into buf ("KERNEL\0SIZE") and v,
 * whose names point into buf. Returns NULL or why it is not one. */
const char *atune__section_split(const char *name, char *buf, size_t len,
                                 size_vars *v)
{
    const char *sp = strchr(name, ' ');
    size_t n = strlen(name);

    if (!sp)
        return "expected [device] or [KERNEL SIZE], e.g. [copy n=1024]";
    if (n >= len)
        return "name too long";
    if (sp == name)
        return "missing kernel name";
    for (const char *k = name; k < sp; k++)
        if (!is_kernel_char(*k))
            return "kernel names are letters, digits, '_', '-' and '.'";
    memcpy(buf, name, n + 1);
    buf[sp - name] = '\0';
    return atune__size_parse(buf + (sp - name) + 1, 0, v);
}

/* See documentation in profile_internal.h. */
int atune__section_canon(const char *name, char *buf, size_t len, char *msg,
                         size_t msglen)
{
    size_t n = strlen(name) + 1;
    char *tmp = malloc(n);
    const char *why = tmp ? NULL : "out of memory";
    size_vars v;

    if (tmp)
        why = atune__section_split(name, tmp, n, &v);
    if (why) {
        if (msg && msglen > 0)
            snprintf(msg, msglen, "bad section name '[%s]': %s", name, why);
        free(tmp);
        return -1;
    }
    n = (size_t)snprintf(buf, len, "%s", tmp);
    for (int i = 0; i < v.n && n < len; i++)
        n += (size_t)snprintf(buf + n, len - n, "%c%.*s=%lld", i ? ',' : ' ',
                              (int)v.v[i].len, v.v[i].name,
                              (long long)v.v[i].val);
    free(tmp);
    if (n >= len) {
        if (msg && msglen > 0)
            snprintf(msg, msglen, "section name '[%s]' too long", name);
        return -1;
    }
    return 0;
}
