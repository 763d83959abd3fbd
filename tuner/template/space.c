/* space.c -- the parameter space of a template: enumeration, indexing,
 * the textual form of a configuration, and validity against the
 * manifest's constraints and the device's launch limits. */
#include "template/space.h"

#include "base/number.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void atune__devattr_default(atune__devattr *d)
{
    *d = (atune__devattr){
        .sm_count = 132,
        .max_threads_per_block = 1024,
        .max_block = {1024, 1024, 64},
        .max_grid = {2147483647, 65535, 65535},
        .max_shared_per_block = 232448,
        .warp_size = 32,
        .cc = 90,
        .l2_bytes = 52428800,
    };
}

/* The names must match the list manifest.c accepts in expressions. */
int atune__devattr_vars(const atune__devattr *d, atune__vars *vs)
{
    if (atune__vars_set(vs, "sm_count", d->sm_count) ||
        atune__vars_set(vs, "max_threads_per_block",
                        d->max_threads_per_block) ||
        atune__vars_set(vs, "max_shared_per_block", d->max_shared_per_block) ||
        atune__vars_set(vs, "warp_size", d->warp_size) ||
        atune__vars_set(vs, "cc", d->cc) ||
        atune__vars_set(vs, "l2_bytes", d->l2_bytes))
        return -1;
    return 0;
}

void atune__space_config(const atune__manifest *m, int64_t index,
                         atune__config *c)
{
    memset(c, 0, sizeof(*c));
    for (int i = m->nparams - 1; i >= 0; i--) {
        const atune__param *p = &m->params[i];
        c->v[i] = p->values[index % p->nvalues];
        index /= p->nvalues;
    }
}

void atune__config_at_values(const atune__manifest *m, atune__config *c,
                             const int64_t *v)
{
    if (!m->names_sized || !v || m->nsizes == 0)
        return;
    c->nsz = m->sizes[0].nvars;
    for (int i = 0; i < c->nsz; i++)
        c->sz[i] = v[i];
}

void atune__config_at_size(const atune__manifest *m, atune__config *c,
                           const atune__size *s)
{
    int64_t v[ATUNE__MAX_SIZE_VARS] = {0};

    if (!m->names_sized || !s || m->nsizes == 0)
        return;
    /* Every size names the same variables; by name, whatever the order. */
    for (int i = 0; i < m->sizes[0].nvars; i++)
        for (int k = 0; k < s->nvars; k++)
            if (strcmp(s->var[k], m->sizes[0].var[i]) == 0)
                v[i] = s->value[k];
    atune__config_at_values(m, c, v);
}

static int value_index(const atune__param *p, int64_t v)
{
    for (int j = 0; j < p->nvalues; j++) {
        if (p->values[j] == v)
            return j;
    }
    return -1;
}

int64_t atune__space_index(const atune__manifest *m, const atune__config *c)
{
    int64_t index = 0;

    for (int i = 0; i < m->nparams; i++) {
        int j = value_index(&m->params[i], c->v[i]);
        if (j < 0)
            return -1;
        index = index * m->params[i].nvalues + j;
    }
    return index;
}

int atune__config_vars(const atune__manifest *m, const atune__config *c,
                       atune__vars *vs)
{
    for (int i = 0; i < m->nparams; i++) {
        if (atune__vars_set(vs, m->params[i].name, c->v[i]) != 0)
            return -1;
    }
    return 0;
}

void atune__config_str(const atune__manifest *m, const atune__config *c,
                       char *buf, size_t len)
{
    size_t used = 0;

    if (len == 0)
        return;
    buf[0] = '\0';
    for (int i = 0; i < m->nparams; i++) {
        int n = snprintf(buf + used, len - used, "%s%s=%" PRId64, i ? "," : "",
                         m->params[i].name, c->v[i]);
        if (n < 0 || (size_t)n >= len - used) {
            buf[used] = '\0'; /* too small: keep whole items only */
            return;
        }
        used += (size_t)n;
    }
}

/* One NAME=VALUE item, the bytes [s, end) of text. */
static int parse_item(const atune__manifest *m, const char *text, const char *s,
                      const char *end, atune__config *c, int *seen,
                      atune__err *err)
{
    char item[2 * ATUNE__NAME_MAX + 32];
    char *eq, *name, *value;
    int64_t v;
    int i;

    if ((size_t)(end - s) >= sizeof(item))
        return atune__fail(err, ATUNE__EDATA, "item too long in '%s'", text);
    memcpy(item, s, (size_t)(end - s));
    item[end - s] = '\0';
    eq = strchr(item, '=');
    if (!eq)
        return atune__fail(err, ATUNE__EDATA,
                           "expected NAME=VALUE, not '%s', in '%s'",
                           atune__trim(item), text);
    *eq = '\0';
    name = atune__trim(item);
    value = atune__trim(eq + 1);
    for (i = 0; i < m->nparams && strcmp(m->params[i].name, name); i++)
        continue;
    if (i == m->nparams)
        return atune__fail(err, ATUNE__EDATA, "unknown parameter '%s' in '%s'",
                           name, text);
    if (seen[i])
        return atune__fail(err, ATUNE__EDATA,
                           "parameter '%s' given twice in '%s'", name, text);
    if (atune__parse_i64(value, INT64_MIN, INT64_MAX, &v))
        return atune__fail(err, ATUNE__EDATA,
                           "bad value '%s' of parameter '%s' in '%s'", value,
                           name, text);
    if (value_index(&m->params[i], v) < 0)
        return atune__fail(err, ATUNE__EDATA,
                           "%s=%" PRId64 " is not among the values of '%s' in '%s'",
                           name, v, name, text);
    c->v[i] = v;
    seen[i] = 1;
    return 0;
}

int atune__config_parse(const atune__manifest *m, const char *text,
                        atune__config *c, atune__err *err)
{
    int seen[ATUNE__MAX_PARAMS] = {0};
    const char *s = text;
    int rc;

    memset(c, 0, sizeof(*c));
    for (;;) {
        const char *end = strchr(s, ',');
        if (!end)
            end = s + strlen(s);
        if ((rc = parse_item(m, text, s, end, c, seen, err)) != 0)
            return rc;
        if (*end == '\0')
            break;
        s = end + 1;
    }
    for (int i = 0; i < m->nparams; i++) {
        if (!seen[i])
            return atune__fail(err, ATUNE__EDATA,
                               "missing parameter '%s' in '%s'",
                               m->params[i].name, text);
    }
    return ATUNE__OK;
}

/* Writes the reason an invalid configuration is invalid; returns 0. */
static int invalid(char *reason, size_t len, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int invalid(char *reason, size_t len, const char *fmt, ...)
{
    va_list ap;

    if (reason && len > 0) {
        va_start(ap, fmt);
        vsnprintf(reason, len, fmt, ap);
        va_end(ap);
    }
    return 0;
}

/* Whether v fits the C type a scalar argument is passed as: the runner
 * converts with a cast, which would silently wrap. */
/* Evaluates every integer scalar argument with the configuration's
 * variables in vs; a value that does not fit its type is an error. */
static int check_scalars(const atune__manifest *m, const atune__vars *vs,
                         atune__err *err)
{
    for (int i = 0; i < m->nargs; i++) {
        const atune__arg *a = &m->args[i];
        int64_t v;
        int rc;

        if (a->role != ATUNE__SCALAR || a->has_fvalue || a->raw)
            continue;
        rc = atune__manifest_eval(m, a->value, a->line, vs, &v, err);
        if (rc)
            return rc;
        if (!atune__scalar_fits(a->type, v))
            return atune__fail(err, ATUNE__EDATA,
                               "%s:%d: value %" PRId64 " of scalar '%s' does "
                               "not fit in %s",
                               m->ini_path, a->line, v, a->name,
                               atune__type_name(a->type));
    }
    return 0;
}

/* atune__space_check, and for an invalid configuration the manifest line
 * its reason comes from; with scalars, a valid configuration's scalar
 * arguments are evaluated too; all, when non-NULL, gets every step's
 * launch. */
static int check_config(const atune__manifest *m, const atune__config *c,
                        const atune__vars *base, const atune__devattr *dev,
                        atune__launch *launch, char *reason, size_t len,
                        int *line, int scalars, atune__launch *all,
                        atune__err *err)
{
    atune__vars vs = *base;
    atune__launch l;
    atune__launch_part part;
    int rc;

    if (atune__config_vars(m, c, &vs) != 0)
        return atune__fail(err, ATUNE__ESOFTWARE,
                           "%s: too many variables for one evaluation",
                           m->ini_path);
    for (int i = 0; i < m->nconstraints; i++) {
        const atune__named_expr *k = &m->constraints[i];
        int64_t v;
        if ((rc = atune__manifest_eval(m, k->expr, k->line, &vs, &v, err)))
            return rc;
        *line = k->line;
        if (v == 0)
            return invalid(reason, len, "constraint '%s' is false", k->name);
    }
    if ((rc = atune__dim3_eval(m, &m->block, &vs, l.block, err)) ||
        (rc = atune__dim3_eval(m, &m->grid, &vs, l.grid, err)) ||
        (rc = atune__manifest_eval(m, m->shared, m->shared_line, &vs, &l.shared,
                                   err)))
        return rc;
    if (!atune__launch_fits(&l, dev, reason, len, &part)) {
        *line = part == ATUNE__PART_BLOCK  ? m->block.line
                : part == ATUNE__PART_GRID ? m->grid.line
                                    : m->shared_line;
        if (m->sequence) {
            char why[256];
            snprintf(why, sizeof(why), "%s", reason ? reason : "");
            invalid(reason, len, "launch '%s': %s", m->steps[0].name, why);
        }
        return 0;
    }
    if ((rc = atune__steps_fit(m, 1, &vs, dev, all, reason, len, line, err)) != 1)
        return rc;
    if (all)
        all[0] = l;
    if (scalars && (rc = check_scalars(m, &vs, err)) != 0)
        return rc;
    if (launch)
        *launch = l;
    return 1;
}

int atune__space_check(const atune__manifest *m, const atune__config *c,
                       const atune__vars *base, const atune__devattr *dev,
                       atune__launch *launch, char *reason, size_t len,
                       atune__err *err)
{
    int line;

    return check_config(m, c, base, dev, launch, reason, len, &line, 0, NULL,
                        err);
}

int atune__space_launches(const atune__manifest *m, const atune__config *c,
                          const atune__vars *base, const atune__devattr *dev,
                          atune__launch *all, char *reason, size_t len,
                          atune__err *err)
{
    int line;

    return check_config(m, c, base, dev, NULL, reason, len, &line, 0, all,
                        err);
}

/* Appends where an evaluation failed to err's message: the size and, when
 * c is non-NULL, the configuration, so that the user can reproduce it. */
static int at(const atune__manifest *m, const atune__size *size,
              const atune__config *c, int rc, atune__err *err)
{
    char key[256], cfg[512] = "";
    size_t used;

    if (!err || rc != ATUNE__EDATA)
        return rc;
    atune__size_key(size, key, sizeof(key));
    if (c)
        atune__config_str(m, c, cfg, sizeof(cfg));
    used = strlen(err->msg);
    snprintf(err->msg + used, sizeof(err->msg) - used, " at size '%s' (%s)%s%s",
             size->name, key, c ? " with " : "", cfg);
    return rc;
}

void atune__reference_str(const atune__manifest *m, char *buf, size_t len)
{
    atune__config c;
    char cfg[512];

    if (!m->ref_is_default) {
        const char *file = m->ref_path ? strrchr(m->ref_path, '/') : NULL;
        size_t used = 0;
        snprintf(buf, len, "%s%s%s", m->nref_steps > 1 ? "" : m->reference,
                 m->ref_path ? " of " : "",
                 m->ref_path ? (file ? file + 1 : m->ref_path) : "");
        for (int i = 0; m->nref_steps > 1 && i < m->nref_steps; i++) {
            used = strlen(buf);
            snprintf(buf + used, len - used, "%s%s", i ? " then " : "",
                     m->ref_steps[i].kernel);
        }
        return;
    }
    atune__space_config(m, 0, &c);
    atune__config_str(m, &c, cfg, sizeof(cfg));
    if (m->sequence)
        snprintf(buf, len,
                 "the default configuration of the launch sequence (%s)",
                 cfg);
    else
        snprintf(buf, len, "the default configuration of %s (%s)", m->kernel,
                 cfg);
}

/* A kernel that is its own reference runs its default configuration, with
 * that configuration's parameters in *vs and its shared memory: which
 * must be valid at every size, or the reference's results mean nothing. */
static int reference_default(const atune__manifest *m, atune__vars *vs,
                             const atune__devattr *dev, int64_t *shared,
                             atune__err *err)
{
    atune__config c;
    char why[256], what[600];
    int rc;

    atune__space_config(m, 0, &c);
    rc = atune__space_check(m, &c, vs, dev, NULL, why, sizeof(why), err);
    if (rc == 0) {
        atune__reference_str(m, what, sizeof(what));
        return atune__fail(err, ATUNE__EDATA,
                           "%s:%d: the reference is %s, which is not valid: "
                           "%s (name a reference kernel, or make the first "
                           "values valid)",
                           m->ini_path, m->reference_line, what, why);
    }
    if (rc != 1)
        return rc;
    if ((rc = atune__config_vars(m, &c, vs)) != 0)
        return atune__fail(err, ATUNE__ESOFTWARE, "%s: too many variables",
                           m->ini_path);
    return atune__manifest_eval(m, m->shared, m->shared_line, vs, shared, err);
}

/* The reference launch: shared by all configurations, so a launch the
 * device refuses is an error of the template, not an invalid point. */
static int check_reference(const atune__manifest *m, const atune__vars *base,
                           const atune__devattr *dev, atune__err *err)
{
    atune__launch l = {.shared = 0};
    atune__vars vs = *base;
    atune__launch_part part;
    char reason[128];
    int rc;

    if (m->ref_is_default &&
        (rc = reference_default(m, &vs, dev, &l.shared, err)) != 0)
        return rc;
    if (!m->ref_is_default) {
        /* reference_block, reference_grid and the init kernel's launch
         * read the default configuration's parameters. */
        atune__config c;
        atune__space_config(m, 0, &c);
        if (atune__config_vars(m, &c, &vs) != 0)
            return atune__fail(err, ATUNE__ESOFTWARE, "%s: too many variables",
                               m->ini_path);
        if (m->ref_shared &&
            (rc = atune__manifest_eval(m, m->ref_shared, m->ref_shared_line,
                                       &vs, &l.shared, err)))
            return rc;
    }
    if (m->nref_steps) {
        if ((rc = atune__ref_steps_fit(m, &vs, dev, NULL, err)))
            return rc;
    } else {
        if ((rc = atune__dim3_eval(m, &m->ref_block, &vs, l.block, err)) ||
            (rc = atune__dim3_eval(m, &m->ref_grid, &vs, l.grid, err)))
            return rc;
        if (!atune__launch_fits(&l, dev, reason, sizeof(reason), &part))
            return atune__fail(err, ATUNE__EDATA,
                               "%s:%d: reference launch: %s", m->ini_path,
                               part == ATUNE__PART_GRID ? m->ref_grid.line
                               : part == ATUNE__PART_SHARED && m->ref_shared
                                   ? m->ref_shared_line
                                   : m->ref_block.line,
                               reason);
    }
    if (!m->init[0])
        return 0;
    l.shared = 0;
    if ((rc = atune__dim3_eval(m, &m->init_block, &vs, l.block, err)) ||
        (rc = atune__dim3_eval(m, &m->init_grid, &vs, l.grid, err)))
        return rc;
    if (atune__launch_fits(&l, dev, reason, sizeof(reason), &part))
        return 0;
    return atune__fail(
        err, ATUNE__EDATA, "%s:%d: init launch: %s", m->ini_path,
        part == ATUNE__PART_GRID ? m->init_grid.line : m->init_block.line,
        reason);
}

/* work is the numerator of every metric at this size. */
static int check_work(const atune__manifest *m, const atune__vars *vs,
                      atune__err *err)
{
    int64_t work;
    int rc = atune__manifest_eval(m, m->work, m->work_line, vs, &work, err);

    if (rc)
        return rc;
    if (work < 1)
        return atune__fail(err, ATUNE__EDATA,
                           "%s:%d: work is %" PRId64 ", not positive",
                           m->ini_path, m->work_line, work);
    return 0;
}

/* block_cost at the default configuration (every parameter's first
 * value): the look-up's model evaluates it for any configuration and
 * leaves out one where it fails, so a formula wrong everywhere is caught
 * here, with its line. */
static int check_block_cost(const atune__manifest *m, const atune__vars *vs,
                            atune__err *err)
{
    atune__vars with = *vs;
    atune__config c;
    int64_t cost;
    int rc;

    if (!m->block_cost)
        return 0;
    atune__space_config(m, 0, &c);
    if (atune__config_vars(m, &c, &with) != 0)
        return atune__fail(err, ATUNE__ESOFTWARE,
                           "%s: too many variables for one evaluation",
                           m->ini_path);
    if ((rc = atune__manifest_eval(m, m->block_cost, m->block_cost_line, &with,
                                   &cost, err)))
        return rc;
    if (cost < 1)
        return atune__fail(err, ATUNE__EDATA,
                           "%s:%d: block_cost is %" PRId64
                           " at the default configuration, not positive",
                           m->ini_path, m->block_cost_line, cost);
    return 0;
}

int atune__buffer_slice(const atune__manifest *m, const atune__arg *a,
                        const atune__vars *vs, int64_t count, int64_t *first,
                        int64_t *n, atune__err *err)
{
    int64_t lo = 0, hi = count - 1;
    int rc;

    if (a->cmp_lo &&
        ((rc = atune__manifest_eval(m, a->cmp_lo, a->line, vs, &lo, err)) ||
         (rc = atune__manifest_eval(m, a->cmp_hi, a->line, vs, &hi, err))))
        return rc;
    if (lo < 0 || hi < lo || hi >= count)
        return atune__fail(err, ATUNE__EDATA,
                           "%s:%d: buffer '%s' compares elements %" PRId64
                           "..%" PRId64 " of its %" PRId64
                           " (0..%" PRId64 ")",
                           m->ini_path, a->line, a->name, lo, hi, count,
                           count - 1);
    *first = lo;
    *n = hi - lo + 1;
    return 0;
}

int atune__fill_values(const atune__manifest *m, const atune__arg *a,
                       const atune__vars *vs, int64_t *lo, int64_t *hi,
                       atune__err *err)
{
    const atune__fill *f = &a->fill;
    int real = atune__type_is_real(a->type);
    int rc;

    *lo = *hi = 0;
    if (f->lo && (rc = atune__manifest_eval(m, f->lo, a->line, vs, lo, err)))
        return rc;
    if (f->hi && (rc = atune__manifest_eval(m, f->hi, a->line, vs, hi, err)))
        return rc;
    if (f->kind == ATUNE__FILL_RANGE && *lo > *hi)
        return atune__fail(err, ATUNE__EDATA,
                           "%s:%d: buffer '%s' is filled from range(%" PRId64
                           ", %" PRId64 "), which is empty",
                           m->ini_path, a->line, a->name, *lo, *hi);
    if (!real && f->lo &&
        (!atune__scalar_fits(a->type, *lo) ||
         (f->hi && !atune__scalar_fits(a->type, *hi))))
        return atune__fail(err, ATUNE__EDATA,
                           "%s:%d: fill of buffer '%s': %" PRId64
                           " does not fit its type %s",
                           m->ini_path, a->line, a->name,
                           atune__scalar_fits(a->type, *lo) ? *hi : *lo,
                           atune__type_name(a->type));
    return 0;
}

/* Adds copies of one buffer of a's count (evaluated with vs) to *total. */
static int add_buffer(const atune__manifest *m, const atune__arg *a, int copies,
                      const atune__vars *vs, int64_t *total, atune__err *err)
{
    int64_t n, size = (int64_t)atune__arg_elem_size(a);
    int rc = atune__manifest_eval(m, a->count, a->line, vs, &n, err);

    if (rc)
        return rc;
    if (n < 1)
        return atune__fail(err, ATUNE__EDATA,
                           "%s:%d: buffer '%s' has %" PRId64 " elements",
                           m->ini_path, a->line, a->name, n);
    if (n > INT64_MAX / size)
        return atune__fail(err, ATUNE__EDATA,
                           "%s:%d: buffer '%s' of %" PRId64 " %s elements "
                           "is more than 2^63 bytes",
                           m->ini_path, a->line, a->name, n,
                           atune__type_name(a->type));
    if (n * size > (INT64_MAX - *total) / copies)
        return atune__fail(err, ATUNE__EDATA,
                           "%s:%d: with buffer '%s' the device memory the "
                           "runner needs is more than 2^63 bytes",
                           m->ini_path, a->line, a->name);
    *total += n * size * copies;
    if (a->role == ATUNE__INPUT || a->role == ATUNE__INOUT) {
        int64_t lo, hi;
        if (a->fill.kind == ATUNE__FILL_FILE)
            return atune__data_load(m, a, (size_t)n * atune__arg_lanes(a),
                                    NULL, err);
        return atune__fill_values(m, a, vs, &lo, &hi, err);
    }
    if (atune__role_compared(a->role)) {
        int64_t first, cmp;
        return atune__buffer_slice(m, a, vs, n, &first, &cmp, err);
    }
    return 0;
}

int atune__size_memory(const atune__manifest *m, const atune__size *size,
                       const atune__devattr *dev, int64_t *bytes,
                       atune__err *err)
{
    atune__vars vs = {0};
    int64_t total = 0;
    int rc = 0;

    if (atune__size_vars(size, &vs) || atune__devattr_vars(dev, &vs))
        return atune__fail(err, ATUNE__ESOFTWARE, "%s: too many variables",
                           m->ini_path);
    for (int i = 0; !rc && i < m->nargs; i++) {
        const atune__arg *a = &m->args[i];
        /* The working buffer, its initial contents (inout) and the
         * reference's result (every compared buffer): as the runner
         * allocates them. */
        int copies = 1 + (a->role == ATUNE__INOUT) +
                     atune__role_compared(a->role);
        if (a->role != ATUNE__SCALAR)
            rc = add_buffer(m, a, copies, &vs, &total, err);
    }
    for (int i = 0; !rc && i < m->nconstants; i++)
        rc = add_buffer(m, &m->constants[i], 1, &vs, &total, err);
    if (rc)
        return at(m, size, NULL, rc, err);
    *bytes = total;
    return 0;
}

/* What is shared by every configuration at one size. */
static int check_size(const atune__manifest *m, const atune__size *size,
                      const atune__vars *vs, const atune__devattr *dev,
                      atune__err *err)
{
    int64_t bytes;
    int rc;

    if ((rc = check_work(m, vs, err)) ||
        (rc = check_block_cost(m, vs, err)) ||
        (rc = check_reference(m, vs, dev, err)))
        return at(m, size, NULL, rc, err);
    return atune__size_memory(m, size, dev, &bytes, err);
}

int atune__space_build(const atune__manifest *m, const atune__size *size,
                       const atune__devattr *dev, const char *label,
                       atune__valid_set *set, int64_t *count,
                       atune__err *err)
{
    atune__vars vs = {0};
    atune__config failed;
    char text[256];
    int rc;

    if (set)
        set->n = 0;
    if (atune__size_vars(size, &vs) || atune__devattr_vars(dev, &vs))
        return atune__fail(err, ATUNE__ESOFTWARE, "%s: too many variables",
                           m->ini_path);
    if ((rc = check_size(m, size, &vs, dev, err)) != 0)
        return rc;
    if (label)
        snprintf(text, sizeof(text), "%s, size %s", label, size->name);
    memset(&failed, 0, sizeof(failed));
    failed.v[0] = INT64_MIN; /* "no configuration" */
    rc = atune__space_enumerate(m, &vs, dev, label ? text : NULL, 0, set,
                                count, &failed, err);
    if (rc == ATUNE__EDATA)
        return at(m, size, failed.v[0] == INT64_MIN ? NULL : &failed, rc, err);
    return rc;
}

int atune__space_mark_valid(const atune__manifest *m, const atune__size *size,
                            const atune__devattr *dev, unsigned char *valid,
                            int64_t *count, atune__err *err)
{
    atune__valid_set set = {0};
    int rc = atune__space_build(m, size, dev, NULL, &set, count, err);

    for (int64_t i = 0; !rc && i < set.n; i++)
        valid[set.index[i]] = 1;
    atune__valid_set_free(&set);
    return rc;
}

void atune__valid_set_free(atune__valid_set *s)
{
    free(s->index);
    memset(s, 0, sizeof(*s));
}

int atune__valid_set_union(atune__valid_set *a, const atune__valid_set *b,
                           atune__err *err)
{
    int64_t *out, i = 0, j = 0, n = 0;

    if (b->n == 0)
        return 0;
    out = atune__calloc((size_t)(a->n + b->n), sizeof(*out));
    if (!out)
        return atune__fail(err, ATUNE__EOSERR, "out of memory");
    while (i < a->n || j < b->n) {
        if (j == b->n || (i < a->n && a->index[i] < b->index[j]))
            out[n++] = a->index[i++];
        else if (i == a->n || b->index[j] < a->index[i])
            out[n++] = b->index[j++];
        else
            out[n++] = a->index[i++], j++;
    }
    free(a->index);
    a->index = out;
    a->n = n;
    a->cap = a->n + b->n;
    return 0;
}

int64_t atune__index_find(const int64_t *index, int64_t n, int64_t idx)
{
    int64_t lo = 0, hi = n - 1;

    while (lo <= hi) {
        int64_t mid = lo + (hi - lo) / 2;
        if (index[mid] == idx)
            return mid;
        if (index[mid] < idx)
            lo = mid + 1;
        else
            hi = mid - 1;
    }
    return -1;
}

int64_t atune__valid_set_find(const atune__valid_set *s, int64_t idx)
{
    return atune__index_find(s->index, s->n, idx);
}

/* Fails because no configuration is valid at size, blaming the line that
 * rules out the default configuration. */
static int none_valid(const atune__manifest *m, const atune__size *size,
                      const atune__devattr *dev, atune__err *err)
{
    atune__vars vs = {0};
    atune__config c;
    char reason[256] = "", key[256], cfg[512];
    int line = 0, rc;

    atune__size_key(size, key, sizeof(key));
    atune__space_config(m, 0, &c);
    atune__config_str(m, &c, cfg, sizeof(cfg));
    if (atune__size_vars(size, &vs) || atune__devattr_vars(dev, &vs))
        return atune__fail(err, ATUNE__ESOFTWARE, "%s: too many variables",
                           m->ini_path);
    rc = check_config(m, &c, &vs, dev, NULL, reason, sizeof(reason), &line, 1, NULL,
                      err);
    if (rc > 1)
        return rc;
    return atune__fail(err, ATUNE__EDATA,
                       "%s:%d: no valid configuration at size '%s' (%s) "
                       "among %" PRId64 "; the default %s is invalid: %s",
                       m->ini_path, line ? line : size->line, size->name, key,
                       atune__space_size(m), cfg, reason);
}

int atune__space_validate_set(const atune__manifest *m,
                              const atune__devattr *dev,
                              atune__valid_set *any, int64_t *counts,
                              atune__err *err)
{
    atune__valid_set set = {0};
    int rc = 0;

    for (int s = 0; !rc && s < m->nsizes; s++) {
        int64_t n = 0;
        rc = atune__space_build(m, &m->sizes[s], dev, m->name,
                                any ? &set : NULL, &n, err);
        if (!rc && n == 0)
            rc = none_valid(m, &m->sizes[s], dev, err);
        if (!rc && counts)
            counts[s] = n;
        if (!rc && any)
            rc = atune__valid_set_union(any, &set, err);
    }
    atune__valid_set_free(&set);
    return rc;
}

int atune__space_validate(const atune__manifest *m, const atune__devattr *dev,
                          unsigned char *valid, int64_t *counts,
                          atune__err *err)
{
    atune__valid_set any = {0};
    int rc = atune__space_validate_set(m, dev, valid ? &any : NULL, counts,
                                       err);

    for (int64_t i = 0; !rc && i < any.n; i++)
        valid[any.index[i]] = 1;
    atune__valid_set_free(&any);
    return rc;
}
