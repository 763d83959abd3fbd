/* space_steps.c -- one launch against the device's limits, and each
 * launch of a launch sequence: what the space's checks (space.c) and its
 * enumeration (space_build.c) share, so that neither calls the other for
 * it. */
#include "template/space.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>

static const char dim_names[3] = {'x', 'y', 'z'};

int atune__dim3_eval(const atune__manifest *m, const atune__dim3 *d,
                     const atune__vars *vs, int64_t out[3], atune__err *err)
{
    for (int i = 0; i < 3; i++) {
        int rc;
        out[i] = 1;
        if (i < d->n && (rc = atune__manifest_eval(m, d->e[i], d->line, vs,
                                                   &out[i], err)) != 0)
            return rc;
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

/* a * b for positive a and b, saturated at INT64_MAX. */
static int64_t mul_sat(int64_t a, int64_t b)
{
    return a > INT64_MAX / b ? INT64_MAX : a * b;
}

int atune__launch_fits(const atune__launch *l, const atune__devattr *dev,
                       char *reason, size_t len, atune__launch_part *part)
{
    int64_t threads = 1;

    *part = ATUNE__PART_BLOCK;
    for (int i = 0; i < 3; i++) {
        if (l->block[i] < 1)
            return invalid(reason, len, "block %c of %" PRId64 " is below 1",
                           dim_names[i], l->block[i]);
        threads = mul_sat(threads, l->block[i]);
    }
    if (threads > dev->max_threads_per_block)
        return invalid(reason, len,
                       "block of %" PRId64 " threads exceeds %" PRId64, threads,
                       dev->max_threads_per_block);
    for (int i = 0; i < 3; i++) {
        *part = ATUNE__PART_BLOCK;
        if (l->block[i] > dev->max_block[i])
            return invalid(reason, len,
                           "block %c of %" PRId64 " exceeds %" PRId64,
                           dim_names[i], l->block[i], dev->max_block[i]);
        *part = ATUNE__PART_GRID;
        if (l->grid[i] < 1)
            return invalid(reason, len, "grid %c of %" PRId64 " is below 1",
                           dim_names[i], l->grid[i]);
        if (l->grid[i] > dev->max_grid[i])
            return invalid(reason, len,
                           "grid %c of %" PRId64 " exceeds %" PRId64,
                           dim_names[i], l->grid[i], dev->max_grid[i]);
    }
    *part = ATUNE__PART_SHARED;
    if (l->shared < 0)
        return invalid(reason, len,
                       "shared memory of %" PRId64 " bytes is negative",
                       l->shared);
    if (l->shared > dev->max_shared_per_block)
        return invalid(reason, len,
                       "shared memory of %" PRId64 " bytes exceeds %" PRId64,
                       l->shared, dev->max_shared_per_block);
    return 1;
}

int atune__steps_fit(const atune__manifest *m, int first,
                     const atune__vars *vs, const atune__devattr *dev,
                     atune__launch *all, char *reason, size_t len, int *line,
                     atune__err *err)
{
    for (int i = first; m->sequence && i < m->nsteps; i++) {
        const atune__step *st = &m->steps[i];
        atune__launch l;
        atune__launch_part part;
        char why[256];
        int rc;

        if ((rc = atune__dim3_eval(m, &st->block, vs, l.block, err)) ||
            (rc = atune__dim3_eval(m, &st->grid, vs, l.grid, err)) ||
            (rc = atune__manifest_eval(m, st->shared, st->shared_line, vs,
                                       &l.shared, err)))
            return rc;
        if (!atune__launch_fits(&l, dev, why, sizeof(why), &part)) {
            *line = part == ATUNE__PART_BLOCK  ? st->block.line
                    : part == ATUNE__PART_GRID ? st->grid.line
                                        : st->shared_line;
            return invalid(reason, len, "launch '%s': %s", st->name, why);
        }
        if (all)
            all[i] = l;
    }
    return 1;
}

int atune__space_check_steps(const atune__manifest *m, const atune__config *c,
                             const atune__vars *base,
                             const atune__devattr *dev, atune__err *err)
{
    atune__vars vs = *base;
    int line;

    for (int i = 0; i < m->nparams; i++)
        if (atune__vars_set(&vs, m->params[i].name, c->v[i]) != 0)
            return atune__fail(err, ATUNE__ESOFTWARE,
                               "%s: too many variables for one evaluation",
                               m->ini_path);
    return atune__steps_fit(m, 1, &vs, dev, NULL, NULL, 0, &line, err);
}

int atune__ref_steps_fit(const atune__manifest *m, const atune__vars *vs,
                         const atune__devattr *dev, atune__launch *all,
                         atune__err *err)
{
    for (int i = 0; i < m->nref_steps; i++) {
        const atune__step *st = &m->ref_steps[i];
        atune__launch l;
        atune__launch_part part;
        char why[256];
        int rc;

        if ((rc = atune__dim3_eval(m, &st->block, vs, l.block, err)) ||
            (rc = atune__dim3_eval(m, &st->grid, vs, l.grid, err)) ||
            (rc = atune__manifest_eval(m, st->shared, st->shared_line, vs,
                                       &l.shared, err)))
            return rc;
        if (!atune__launch_fits(&l, dev, why, sizeof(why), &part))
            return atune__fail(err, ATUNE__EDATA,
                               "%s:%d: reference launch '%s': %s",
                               m->ini_path,
                               part == ATUNE__PART_BLOCK  ? st->block.line
                               : part == ATUNE__PART_GRID ? st->grid.line
                                                          : st->shared_line,
                               st->name, why);
        if (all)
            all[i] = l;
    }
    return 0;
}
