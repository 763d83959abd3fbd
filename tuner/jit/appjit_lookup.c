/* appjit_lookup.c -- look-ups that are always safe to launch: the
 * profile's configuration for a size, checked against the template's
 * constraints and the device limits at that size, with a fallback to
 * another tuned entry of the kernel, then to the defaults. libatune alone
 * cannot evaluate the template's rules; the JIT helper has the manifest. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "jit/appjit_internal.h"

static void say(char *msg, size_t len, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void say(char *msg, size_t len, const char *fmt, ...)
{
    va_list ap;

    if (!msg || len == 0)
        return;
    va_start(ap, fmt);
    vsnprintf(msg, len, fmt, ap);
    va_end(ap);
}

/* Whether c can be launched at size: its values are the template's, it is
 * this kernel's, and the constraints and limits hold. The reason (from
 * j->msg) in why otherwise. */
static int usable(atune_jit *j, const atune_config *c, const atune__devattr *a,
                  const int64_t *size, char *why, size_t len)
{
    atune__config cfg;
    atune__launch l;
    int stale = atune_jit_stale(j, c);
    const char *reason;

    if (stale & ATUNE_JIT_STALE_KERNEL) {
        snprintf(why, len, "it is kernel '%s''s", atune_config_kernel(c));
        return 0;
    }
    atune__jit_config_from(j->m, c, &cfg);
    if (atune__jit_check_values(j, &cfg) == ATUNE_OK &&
        atune__jit_shape_of(j, &cfg, a, size, &l) == ATUNE_OK)
        return 1;
    /* The message ends with the reason: "...: constraint 'x' is false". */
    reason = strstr(j->msg, ": constraint");
    atune__strlcpy(why, reason ? reason + 2 : j->msg, len);
    j->msg[0] = '\0';
    return 0;
}

/* Sum over the variables of |log2(tuned) - log2(wanted)|, as the profile
 * look-up measures nearness; -1 when c's size has other variables. */
static double distance(atune_jit *j, const atune_config *c, const int64_t *want)
{
    int64_t v[ATUNE__MAX_SIZE_VARS];
    double d = 0;

    if (atune__jit_size_values(j, atune_config_size(c), v) != ATUNE_OK) {
        j->msg[0] = '\0';
        return -1;
    }
    for (int i = 0; i < j->nsize; i++)
        d += fabs(log2((double)(v[i] > 0 ? v[i] : 1)) -
                  log2((double)(want[i] > 0 ? want[i] : 1)));
    return d;
}

/* The usable tuned entry of this kernel nearest to size, or NULL. */
static const atune_config *nearest_usable(atune_jit *j, atune_profile *p,
                                          const atune_config *skip,
                                          const atune__devattr *a,
                                          const int64_t *size)
{
    const atune_config *best = NULL;
    double best_d = 0;
    char why[512];

    for (int i = 0; i < atune_profile_count(p); i++) {
        const atune_config *e = atune_profile_entry(p, i);
        double d;
        if (strcmp(atune_config_kernel(e), j->m->name) != 0 ||
            strcmp(atune_config_size(e), atune_config_size(skip)) == 0)
            continue;
        d = distance(j, e, size);
        if (d < 0 || (best && d >= best_d))
            continue;
        if (usable(j, e, a, size, why, sizeof(why))) {
            best = e;
            best_d = d;
        }
    }
    return best;
}

/* The defaults, when they can run at size. */
static int defaults(atune_jit *j, const atune__devattr *a, const int64_t *size,
                    const atune_config **out)
{
    atune__config cfg;
    atune__launch l;

    *out = NULL;
    atune__jit_config_from(j->m, NULL, &cfg);
    return atune__jit_shape_of(j, &cfg, a, size, &l);
}

int atune_jit_config_for(atune_jit *j, atune_profile *p, const char *size,
                         const atune_jit_attr *attr, const atune_config **out,
                         char *msg, size_t len)
{
    int64_t v[ATUNE__MAX_SIZE_VARS];
    const atune_config *c = NULL, *alt;
    atune__devattr a;
    char why[512];
    int rc;

    say(msg, len, "%s", "");
    if (!j || !out)
        return ATUNE_EINVAL;
    *out = NULL;
    j->msg[0] = '\0';
    if (!j->m)
        return atune__jit_fail(j, ATUNE_EINVAL, "template did not open");
    if ((rc = atune__jit_size_values(j, size, v)) != 0)
        return rc;
    if (attr)
        atune__jit_attr_from_public(attr, &a);
    else
        atune__devattr_default(&a);
    rc = p ? atune_profile_lookup(p, j->m->name, size, &c) : ATUNE_ENOTFOUND;
    if (rc == ATUNE_ENOTFOUND) {
        say(msg, len, "%s %s: no tuned entry%s; using the template's defaults",
            j->m->name, size, p ? "" : " (no profile)");
        return defaults(j, &a, v, out);
    }
    if (rc != ATUNE_OK)
        return atune__jit_fail(j, rc, "%s", atune_profile_errmsg(p));
    if (usable(j, c, &a, v, why, sizeof(why))) {
        *out = c;
        atune_config_describe(p, c, msg ? msg : why, msg ? len : sizeof(why));
        return ATUNE_OK;
    }
    alt = nearest_usable(j, p, c, &a, v);
    if (alt) {
        say(msg, len,
            "%s %s: the tuned configuration of %s cannot run here (%s); "
            "using the tuned entry of %s",
            j->m->name, size, atune_config_size(c), why,
            atune_config_size(alt));
        *out = alt;
        return ATUNE_OK;
    }
    say(msg, len,
        "%s %s: the tuned configuration of %s cannot run here (%s) and no "
        "other tuned entry can; using the template's defaults",
        j->m->name, size, atune_config_size(c), why);
    return defaults(j, &a, v, out);
}
