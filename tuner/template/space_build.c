/* space_build.c -- the valid configurations of a space at one size,
 * enumerated with pruning.
 *
 * Every check a configuration must pass (atune__space_check, then the
 * scalar arguments) is a "step" that reads some parameters: a constraint,
 * the evaluation of one launch dimension, one launch limit, one scalar.
 * Parameters are assigned in manifest order, first parameter outermost,
 * so configurations come out in index order; a step is evaluated as soon
 * as the last parameter it reads is assigned, on expressions bound to
 * slots (no name lookups). A subtree is skipped when its configurations
 * are all invalid, and only then: the outcome of one configuration is the
 * first step, in manifest order, that is not true, exactly as a
 * one-by-one check finds it. So a false step prunes when every step
 * before it is true or cannot fail (atune__bound_may_fail: an error there
 * would have come first); an evaluation error is reported for the first
 * configuration, in index order, whose first untrue step fails. */
#include "template/space.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The size of the Cartesian product the enumerator walks. */
int64_t atune__space_size(const atune__manifest *m)
{
    int64_t n = 1;

    /* The loader refused spaces whose size does not fit. */
    for (int i = 0; i < m->nparams; i++)
        n *= m->params[i].nvalues;
    return n;
}

enum kind { K_CONSTRAINT, K_EVAL, K_LIMIT, K_SCALAR };
enum status { S_TRUE, S_FALSE, S_ERR };

/* Launch values K_EVAL steps compute and K_LIMIT steps read. */
enum { L_BLOCK = 0, L_GRID = 3, L_SHARED = 6, NLAUNCH = 7 };
/* K_LIMIT predicates: block x..z, threads, grid x..z, shared. */
enum { P_BLOCK = 0, P_THREADS = 3, P_GRID = 4, P_SHARED = 7, NLIMITS = 8 };

struct step {
    enum kind kind;
    const atune__expr *e; /* K_CONSTRAINT, K_EVAL, K_SCALAR */
    atune__bound b;
    int line;
    int which;    /* K_EVAL: launch value; K_LIMIT: predicate */
    int arg;      /* K_SCALAR: index into m->args */
    int level;    /* evaluated once parameters 0..level-1 are assigned */
    int may_fail; /* whether evaluating it can be an error */
    int64_t lo, hi; /* the range of its value */
};

#define MAX_STEPS (ATUNE__MAX_CONSTRAINTS + NLAUNCH + NLIMITS + ATUNE__MAX_ARGS)

struct walk {
    const atune__manifest *m;
    const atune__devattr *dev;
    struct step steps[MAX_STEPS];
    int nsteps;
    /* Steps evaluated at each level, in step order. */
    int at_level[ATUNE__MAX_PARAMS + 1][MAX_STEPS];
    int nat_level[ATUNE__MAX_PARAMS + 1];
    unsigned char status[MAX_STEPS];
    int64_t launch[NLAUNCH];
    int launch_step[NLAUNCH]; /* K_EVAL step of each value, -1: constant */
    /* Slots: the parameters, then the size's and device's variables. */
    int64_t values[ATUNE__MAX_PARAMS + ATUNE__VARS_MAX];
    const atune__vars *base;
    int64_t stride[ATUNE__MAX_PARAMS];
    int pos[ATUNE__MAX_PARAMS]; /* value position of each parameter */
    /* The result. */
    atune__valid_set *set; /* NULL: count only */
    int64_t n, max_valid, max_visits;
    int rc;
    atune__err *err;
    atune__config *failed; /* the configuration an error is about */
    /* Progress. */
    const char *label;
    int64_t total, nodes;
    double t0;
    int shown;
    double shown_at;
};

static int slot_of(void *ctx, const char *name)
{
    const struct walk *w = ctx;

    for (int i = 0; i < w->m->nparams; i++)
        if (strcmp(w->m->params[i].name, name) == 0)
            return i;
    for (int i = 0; i < w->base->n; i++)
        if (strcmp(w->base->v[i].name, name) == 0)
            return w->m->nparams + i;
    return -1;
}

/* The deepest parameter an expression reads, plus one. */
static int expr_level(const struct walk *w, const atune__bound *b)
{
    int level = 0;

    for (int i = 0; i < b->n; i++) {
        int s = b->slot[i];
        if (s >= 0 && s < w->m->nparams && s + 1 > level)
            level = s + 1;
    }
    return level;
}

static int add_step(struct walk *w, enum kind kind, const atune__expr *e,
                    int line, int which)
{
    struct step *s = &w->steps[w->nsteps];
    int64_t lo[ATUNE__MAX_PARAMS + ATUNE__VARS_MAX];
    int64_t hi[ATUNE__MAX_PARAMS + ATUNE__VARS_MAX];
    int rc;

    memset(s, 0, sizeof(*s));
    s->kind = kind;
    s->e = e;
    s->line = line;
    s->which = which;
    s->arg = which;
    w->nsteps++;
    if (!e)
        return 0;
    if ((rc = atune__expr_bind(e, slot_of, w, &s->b, w->err)) != 0)
        return rc;
    s->level = expr_level(w, &s->b);
    /* The range of every slot: a parameter's values, a constant's value. */
    for (int i = 0; i < w->m->nparams; i++) {
        const atune__param *p = &w->m->params[i];
        lo[i] = hi[i] = p->values[0];
        for (int v = 1; v < p->nvalues; v++) {
            lo[i] = p->values[v] < lo[i] ? p->values[v] : lo[i];
            hi[i] = p->values[v] > hi[i] ? p->values[v] : hi[i];
        }
    }
    for (int i = 0; i < w->base->n; i++)
        lo[w->m->nparams + i] = hi[w->m->nparams + i] = w->base->v[i].value;
    s->may_fail = atune__bound_range(&s->b, lo, hi, &s->lo, &s->hi);
    if (kind == K_SCALAR)
        s->may_fail |= !atune__scalar_fits(w->m->args[which].type, s->lo) ||
                       !atune__scalar_fits(w->m->args[which].type, s->hi);
    return 0;
}

/* The level of a launch limit: that of the launch values it reads. */
static int limit_level(const struct walk *w, int first, int n)
{
    int level = 0;

    for (int i = first; i < first + n; i++) {
        int st = w->launch_step[i];
        if (st >= 0 && w->steps[st].level > level)
            level = w->steps[st].level;
    }
    return level;
}

static int add_dim3(struct walk *w, const atune__dim3 *d, int first)
{
    for (int i = 0; i < 3; i++) {
        int rc;
        w->launch[first + i] = 1;
        w->launch_step[first + i] = -1;
        if (i >= d->n)
            continue;
        w->launch_step[first + i] = w->nsteps;
        if ((rc = add_step(w, K_EVAL, d->e[i], d->line, first + i)) != 0)
            return rc;
    }
    return 0;
}

/* Every step, in the order a one-by-one check takes them. */
static int plan(struct walk *w)
{
    const atune__manifest *m = w->m;
    static const struct {
        int first, n;
    } reads[NLIMITS] = {{L_BLOCK, 1},     {L_BLOCK + 1, 1}, {L_BLOCK + 2, 1},
                        {L_BLOCK, 3},     {L_GRID, 1},      {L_GRID + 1, 1},
                        {L_GRID + 2, 1},  {L_SHARED, 1}};
    int rc = 0;

    for (int i = 0; !rc && i < m->nconstraints; i++)
        rc = add_step(w, K_CONSTRAINT, m->constraints[i].expr,
                      m->constraints[i].line, i);
    if (!rc)
        rc = add_dim3(w, &m->block, L_BLOCK);
    if (!rc)
        rc = add_dim3(w, &m->grid, L_GRID);
    if (!rc) {
        w->launch_step[L_SHARED] = w->nsteps;
        rc = add_step(w, K_EVAL, m->shared, m->shared_line, L_SHARED);
    }
    for (int i = 0; !rc && i < NLIMITS; i++) {
        rc = add_step(w, K_LIMIT, NULL, 0, i);
        w->steps[w->nsteps - 1].level = limit_level(w, reads[i].first,
                                                    reads[i].n);
    }
    for (int i = 0; !rc && i < m->nargs; i++) {
        const atune__arg *a = &m->args[i];
        if (a->role != ATUNE__SCALAR || a->has_fvalue || a->raw)
            continue;
        rc = add_step(w, K_SCALAR, a->value, a->line, i);
    }
    for (int i = 0; !rc && i < w->nsteps; i++) {
        int l = w->steps[i].level;
        w->at_level[l][w->nat_level[l]++] = i;
    }
    return rc;
}

static int in_range(int64_t v, int64_t lo, int64_t hi)
{
    return v >= lo && v <= hi;
}

/* The launch limits of atune__space_check, one predicate at a time. */
static int limit_holds(const struct walk *w, int which)
{
    const int64_t *l = w->launch;
    const atune__devattr *d = w->dev;
    int64_t threads = 1;

    switch (which) {
    case P_THREADS:
        for (int i = 0; i < 3; i++) {
            if (l[L_BLOCK + i] < 1)
                return 0;
            if (threads > INT64_MAX / l[L_BLOCK + i])
                return 0;
            threads *= l[L_BLOCK + i];
        }
        return threads <= d->max_threads_per_block;
    case P_SHARED:
        return in_range(l[L_SHARED], 0, d->max_shared_per_block);
    default:
        break;
    }
    if (which < P_THREADS)
        return in_range(l[L_BLOCK + which], 1, d->max_block[which]);
    return in_range(l[L_GRID + which - P_GRID], 1, d->max_grid[which - P_GRID]);
}

/* Evaluates step i on the assigned parameters; with err non-NULL, an
 * error's message is the one a one-by-one check gives. */
static enum status eval_step(struct walk *w, int i, atune__err *err)
{
    struct step *s = &w->steps[i];
    const atune__manifest *m = w->m;
    int64_t v;

    if (s->kind == K_LIMIT) {
        for (int k = 0; k < NLAUNCH; k++) {
            int st = w->launch_step[k];
            if (st >= 0 && w->steps[st].level <= s->level &&
                w->status[st] != S_TRUE)
                return S_TRUE; /* an earlier step decides */
        }
        return limit_holds(w, s->which) ? S_TRUE : S_FALSE;
    }
    if (s->kind == K_EVAL && !s->may_fail && s->lo == s->hi) {
        w->launch[s->which] = s->lo; /* a constant */
        return S_TRUE;
    }
    if (atune__bound_eval(&s->b, w->values, &v, err) != 0) {
        atune__err_prefix(err, "%s:%d: ", m->ini_path, s->line);
        return S_ERR;
    }
    switch (s->kind) {
    case K_CONSTRAINT:
        return v != 0 ? S_TRUE : S_FALSE;
    case K_EVAL:
        w->launch[s->which] = v;
        return S_TRUE;
    default:
        break;
    }
    if (atune__scalar_fits(m->args[s->arg].type, v))
        return S_TRUE;
    atune__fail(err, ATUNE__EDATA,
                "%s:%d: value %" PRId64 " of scalar '%s' does not fit in %s",
                m->ini_path, s->line, v, m->args[s->arg].name,
                atune__type_name(m->args[s->arg].type));
    return S_ERR;
}

enum verdict { V_DESCEND, V_PRUNE, V_ERROR, V_VALID };

/* What is known of every configuration below a node of depth level: the
 * first step that is not true decides, as long as none before it is
 * unknown and able to fail. *first is the deciding step. */
static enum verdict judge(const struct walk *w, int level, int *first)
{
    int unknown = 0;

    for (int i = 0; i < w->nsteps; i++) {
        const struct step *s = &w->steps[i];
        if (s->level > level) {
            if (s->may_fail)
                return V_DESCEND;
            unknown = 1;
            continue;
        }
        if (w->status[i] == S_TRUE)
            continue;
        *first = i;
        if (w->status[i] == S_FALSE)
            return V_PRUNE;
        return unknown ? V_DESCEND : V_ERROR;
    }
    return unknown ? V_DESCEND : V_VALID;
}

static void show_progress(struct walk *w, int64_t index, int done)
{
    double now;

    if (!w->label || (done && !w->shown))
        return;
    now = atune__now();
    /* From the first second on, four times a second. */
    if (!done && (now - w->t0 < 1.0 || now - w->shown_at < 0.25))
        return;
    w->shown = 1;
    w->shown_at = now;
    fprintf(stderr, "\r%s: %3d%% of %" PRId64 " combinations, %" PRId64
                    " valid, %.1f s%s",
            w->label, (int)(100.0 * (double)index / (double)w->total),
            w->total, w->n, now - w->t0, done ? "\n" : "");
}

/* The configuration of the node: assigned parameters, then every other
 * parameter's first value (the first configuration below the node). */
static void node_config(const struct walk *w, int level, atune__config *c)
{
    memset(c, 0, sizeof(*c));
    for (int i = 0; i < w->m->nparams; i++)
        c->v[i] = w->m->params[i].values[i < level ? w->pos[i] : 0];
}

static int fail_at(struct walk *w, int level, int step)
{
    atune__config c;

    node_config(w, level, &c);
    for (int i = level; i < w->m->nparams; i++)
        w->values[i] = c.v[i];
    eval_step(w, step, w->err); /* the message, again */
    if (w->failed)
        *w->failed = c;
    return w->rc = ATUNE__EDATA;
}

/* Adds the valid configurations first..first+n-1. Counting has the limit
 * of a set too: a space that tune could not hold is an error of the
 * manifest in list and check as well, and the count stays bounded. */
static int emit_range(struct walk *w, int64_t first, int64_t n)
{
    if (n > w->max_valid - w->n)
        return w->rc = atune__fail(
                   w->err, ATUNE__EDATA,
                   "%s: too large a space to build: over the limit of %" PRId64
                   " valid configurations (ATUNE_MAX_VALID=N raises it; "
                   "constraints or fewer values make it smaller), more than "
                   "that many of its %" PRId64 " combinations are valid",
                   w->m->ini_path, w->max_valid, w->total);
    if (!w->set) {
        w->n += n;
        return 0;
    }
    if (w->n + n > w->set->cap) {
        int64_t cap = w->set->cap ? w->set->cap : 1024;
        int64_t *index;
        while (cap < w->n + n)
            cap *= 2;
        index = realloc(w->set->index, (size_t)cap * sizeof(int64_t));
        if (!index)
            return w->rc = atune__fail(w->err, ATUNE__EOSERR, "out of memory");
        w->set->index = index;
        w->set->cap = cap;
    }
    for (int64_t i = 0; i < n; i++)
        w->set->index[w->n++] = first + i;
    return 0;
}

/* emit_range for a launch sequence: the walk pruned on its first launch
 * only, so each configuration's other launches are checked here. */
static int emit(struct walk *w, int64_t first, int64_t n)
{
    if (!w->m->sequence || w->m->nsteps < 2)
        return emit_range(w, first, n);
    for (int64_t i = first; i < first + n; i++) {
        atune__config c;
        int rc;
        for (int k = 0; k < w->m->nparams; k++)
            c.v[k] = w->m->params[k]
                         .values[i / w->stride[k] % w->m->params[k].nvalues];
        rc = atune__space_check_steps(w->m, &c, w->base, w->dev, w->err);
        if (rc > 1) {
            if (w->failed)
                *w->failed = c;
            return w->rc = rc;
        }
        if (rc == 1 && emit_range(w, i, 1))
            return w->rc;
    }
    return 0;
}

/* Visits the subtree below a node of depth level whose first
 * configuration has the given index. */
static int visit(struct walk *w, int level, int64_t index)
{
    const atune__param *p = &w->m->params[level];

    for (int j = 0; j < p->nvalues; j++) {
        int64_t at = index + j * w->stride[level];
        int first = -1;
        w->pos[level] = j;
        w->values[level] = p->values[j];
        for (int k = 0; k < w->nat_level[level + 1]; k++) {
            int i = w->at_level[level + 1][k];
            w->status[i] = (unsigned char)eval_step(w, i, NULL);
        }
        if ((++w->nodes & 0xffff) == 0)
            show_progress(w, at, 0);
        if (w->nodes > w->max_visits)
            return w->rc = atune__fail(
                       w->err, ATUNE__EDATA,
                       "%s: too large a space to build: examined more than "
                       "the limit of %" PRId64 " partial configurations "
                       "(ATUNE_MAX_VISITS=N raises it; constraints on the "
                       "first parameters prune earlier) of its %" PRId64
                       " combinations",
                       w->m->ini_path, w->max_visits, w->total);
        switch (judge(w, level + 1, &first)) {
        case V_PRUNE:
            continue;
        case V_ERROR:
            return fail_at(w, level + 1, first);
        case V_VALID: /* every configuration below */
            if (emit(w, at, w->stride[level]))
                return w->rc;
            continue;
        case V_DESCEND:
            break;
        }
        if (level + 1 < w->m->nparams && visit(w, level + 1, at))
            return w->rc;
    }
    return 0;
}

static int walk_space(struct walk *w)
{
    int first = -1;

    for (int i = w->m->nparams - 1; i >= 0; i--)
        w->stride[i] = i == w->m->nparams - 1
                           ? 1
                           : w->stride[i + 1] * w->m->params[i + 1].nvalues;
    for (int k = 0; k < w->nat_level[0]; k++) {
        int i = w->at_level[0][k];
        w->status[i] = (unsigned char)eval_step(w, i, NULL);
    }
    switch (judge(w, 0, &first)) {
    case V_PRUNE:
        return 0;
    case V_ERROR:
        return fail_at(w, 0, first);
    case V_VALID:
        return emit(w, 0, w->total);
    case V_DESCEND:
        break;
    }
    return w->m->nparams > 0 ? visit(w, 0, 0) : 0;
}

int atune__space_max_valid(int64_t *out, atune__err *err)
{
    return atune__env_i64("ATUNE_MAX_VALID", 1, INT64_MAX - 1,
                          ATUNE__MAX_VALID_DEFAULT,
                          "a number of valid configurations", out, err);
}

int atune__space_max_visits(int64_t *out, atune__err *err)
{
    return atune__env_i64("ATUNE_MAX_VISITS", 1, INT64_MAX - 1,
                          ATUNE__MAX_VISITS_DEFAULT,
                          "a number of partial configurations", out, err);
}

int atune__space_enumerate(const atune__manifest *m, const atune__vars *base,
                           const atune__devattr *dev, const char *label,
                           int64_t max_valid, atune__valid_set *set,
                           int64_t *count, atune__config *failed,
                           atune__err *err)
{
    struct walk *w;
    int64_t env_valid, env_visits;
    int rc;

    if ((rc = atune__space_max_valid(&env_valid, err)) ||
        (rc = atune__space_max_visits(&env_visits, err)))
        return rc;
    if (!(w = atune__calloc(1, sizeof(*w))))
        return atune__fail(err, ATUNE__EOSERR, "out of memory");
    w->m = m;
    w->dev = dev;
    w->base = base;
    w->err = err;
    w->failed = failed;
    w->set = set;
    w->max_valid = max_valid > 0 ? max_valid : env_valid;
    w->max_visits = env_visits;
    w->label = label && isatty(2) ? label : NULL;
    w->total = atune__space_size(m);
    w->t0 = atune__now();
    for (int i = 0; i < base->n; i++)
        w->values[m->nparams + i] = base->v[i].value;
    rc = plan(w);
    if (!rc)
        rc = walk_space(w);
    show_progress(w, w->total, 1);
    if (set)
        set->n = w->n;
    if (!rc && count)
        *count = w->n;
    for (int i = 0; i < w->nsteps; i++)
        atune__bound_free(&w->steps[i].b);
    free(w);
    return rc;
}
