/* appjit_launch.c -- launch shapes and launches of the application JIT
 * helper: the size read from the kernel's own arguments (or a size
 * string), the argument types checked against [args] once, and the shape
 * of each size computed once per kernel, so that a launch at a size seen
 * before costs a few compares on top of cuLaunchKernel. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/number.h"
#include "appjit/appjit_internal.h"

#define OPTIN_SHARED (48 * 1024) /* above this a kernel must opt in */

/* --- sizes ---------------------------------------------------------------- */

static int size_var_known(const atune__manifest *m, const char *name)
{
    if (m->nsizes == 0)
        return 1;
    for (int i = 0; i < m->sizes[0].nvars; i++) {
        if (strcmp(m->sizes[0].var[i], name) == 0)
            return 1;
    }
    return 0;
}

/* One "name=value" item of a size, the bytes [s, end). */
static int size_item(atune_jit *j, const char *size, const char *s,
                     const char *end, atune__vars *vs)
{
    char item[128], *eq, *name, *value;
    int64_t v;

    if ((size_t)(end - s) >= sizeof(item))
        return atune__jit_fail(j, ATUNE_EINVAL, "bad size '%s': item too long",
                               size);
    memcpy(item, s, (size_t)(end - s));
    item[end - s] = '\0';
    if (!(eq = strchr(item, '=')))
        return atune__jit_fail(j, ATUNE_EINVAL,
                               "bad size '%s': expected NAME=VALUE", size);
    *eq = '\0';
    name = atune__trim(item);
    value = atune__trim(eq + 1);
    if (!*name || atune__parse_i64(value, 0, INT64_MAX, &v))
        return atune__jit_fail(j, ATUNE_EINVAL,
                               "bad size '%s': bad value '%s' of '%s'", size,
                               value, name);
    if (!size_var_known(j->m, name))
        return atune__jit_fail(j, ATUNE_EINVAL,
                               "bad size '%s': %s has no size variable '%s'",
                               size, j->m->ini_path, name);
    if (atune__vars_get(vs, name, strlen(name)))
        return atune__jit_fail(j, ATUNE_EINVAL,
                               "bad size '%s': '%s' given twice", size, name);
    if (atune__vars_set(vs, name, v) != 0)
        return atune__jit_fail(j, ATUNE_EINVAL,
                               "bad size '%s': too many variables", size);
    return ATUNE_OK;
}

/* Parses "n=1000000" or "m=4096, n=4096, k=4096" into vs: every size
 * variable of the template exactly once. */
static int parse_size(atune_jit *j, const char *size, atune__vars *vs)
{
    const char *s = size;
    int rc;

    for (;;) {
        const char *end = strchr(s, ',');
        if (!end)
            end = s + strlen(s);
        if ((rc = size_item(j, size, s, end, vs)) != 0)
            return rc;
        if (!*end)
            break;
        s = end + 1;
    }
    for (int i = 0; j->m->nsizes && i < j->m->sizes[0].nvars; i++) {
        const char *var = j->m->sizes[0].var[i];
        if (!atune__vars_get(vs, var, strlen(var)))
            return atune__jit_fail(j, ATUNE_EINVAL,
                                   "bad size '%s': '%s' is missing", size, var);
    }
    return ATUNE_OK;
}

/* "m=4096,n=4096,k=4096" of size values in the template's order. */
static void size_label(const atune_jit *j, const int64_t *size, char *buf,
                       size_t len)
{
    size_t used = 0;

    buf[0] = '\0';
    for (int i = 0; i < j->nsize; i++) {
        int n = snprintf(buf + used, len - used, "%s%s=%" PRId64, i ? "," : "",
                         j->m->sizes[0].var[i], size[i]);
        if (n < 0 || (size_t)n >= len - used)
            return;
        used += (size_t)n;
    }
}

int atune__jit_size_values(atune_jit *j, const char *size, int64_t *out)
{
    atune__vars vs;
    int rc;

    vs.n = 0;
    if (!size)
        return atune__jit_fail(j, ATUNE_EINVAL, "no size");
    if ((rc = parse_size(j, size, &vs)) != 0)
        return rc;
    for (int i = 0; i < j->nsize; i++) {
        const char *var = j->m->sizes[0].var[i];
        out[i] = *atune__vars_get(&vs, var, strlen(var));
    }
    return ATUNE_OK;
}

/* The value of integer argument a from the application's pointer, as
 * the kernel will read it. */
static int64_t arg_value(const atune__arg *a, const void *p)
{
    switch (a->type) {
    case ATUNE__CHAR:
        return *(const signed char *)p;
    case ATUNE__INT:
        return *(const int32_t *)p;
    case ATUNE__UINT:
        return *(const uint32_t *)p;
    case ATUNE__ULONG: /* a size beyond INT64_MAX is refused as negative */
    case ATUNE__LONG:
    default:
        return *(const int64_t *)p;
    }
}

/* The size of a launch, read from the arguments tied to size variables;
 * ATUNE_EINVAL when a variable has none. */
static int size_from_args(atune_jit *j, void **args, int64_t *out)
{
    const atune__manifest *m = j->m;

    if (!args && m->nargs > 0)
        return atune__jit_fail(j, ATUNE_EINVAL,
                               "%s: no arguments for %d parameters", m->name,
                               m->nargs);
    for (int i = 0; i < j->nsize; i++) {
        int a = j->size_arg[i];
        if (a < 0)
            return atune__jit_fail(
                j, ATUNE_EINVAL,
                "%s: no argument of [args] is the size variable '%s' "
                "(NAME = TYPE %s): give the size with atune_jit_launch()",
                m->ini_path, m->sizes[0].var[i], m->sizes[0].var[i]);
        if (!args[a])
            return atune__jit_fail(j, ATUNE_EINVAL,
                                   "%s: argument %d '%s' is NULL", m->name,
                                   a + 1, m->args[a].name);
        out[i] = arg_value(&m->args[a], args[a]);
        if (out[i] < 0)
            return atune__jit_fail(j, ATUNE_EINVAL,
                                   "%s: argument %d '%s' is %" PRId64
                                   ": a size is never negative",
                                   m->name, a + 1, m->args[a].name, out[i]);
    }
    return ATUNE_OK;
}

/* A size given apart from args must be the one the kernel will read. */
static int size_agrees(atune_jit *j, const int64_t *size, void **args)
{
    const atune__manifest *m = j->m;

    for (int i = 0; args && i < j->nsize; i++) {
        int a = j->size_arg[i];
        int64_t v;
        if (a < 0 || !args[a])
            continue;
        v = arg_value(&m->args[a], args[a]);
        if (v != size[i])
            return atune__jit_fail(
                j, ATUNE_EINVAL,
                "%s: the size says %s=%" PRId64 " but argument %d '%s' is "
                "%" PRId64 ": the launch would not cover what the kernel "
                "reads (give the size once: atune_jit_run())",
                m->name, m->sizes[0].var[i], size[i], a + 1, m->args[a].name,
                v);
    }
    return ATUNE_OK;
}

/* --- argument types ------------------------------------------------------- */

static atune_jit_type scalar_type(atune__type t)
{
    switch (t) {
    case ATUNE__CHAR:
        return ATUNE_JIT_CHAR;
    case ATUNE__INT:
        return ATUNE_JIT_INT;
    case ATUNE__UINT:
        return ATUNE_JIT_UINT;
    case ATUNE__LONG:
        return ATUNE_JIT_LONG;
    case ATUNE__ULONG:
        return ATUNE_JIT_ULONG;
    case ATUNE__FLOAT:
        return ATUNE_JIT_FLOAT;
    case ATUNE__DOUBLE:
    default:
        return ATUNE_JIT_DOUBLE;
    }
}

static const char *type_name(atune_jit_type t)
{
    static const char *const scalars[] = {
        "unknown",      "char",          "int",
        "unsigned int", "long (64-bit)", "unsigned long (64-bit)",
        "float",        "double"};
    static const char *const pointers[] = {
        "a device pointer", "char *",          "int *",   "unsigned int *",
        "long *",           "unsigned long *", "float *", "double *"};

    if (t >= ATUNE_JIT_PTR && t <= ATUNE_JIT_PTR_DOUBLE)
        return pointers[t - ATUNE_JIT_PTR];
    if (t >= ATUNE_JIT_UNKNOWN && t <= ATUNE_JIT_DOUBLE)
        return scalars[t - ATUNE_JIT_UNKNOWN];
    return "not a type";
}

/* Whether an argument of type t may stand for [args] entry a. */
static int type_fits(const atune__arg *a, atune_jit_type t)
{
    atune_jit_type want = scalar_type(a->type);

    /* Types the application's type tags do not name: a struct passed by
     * value is declared ATUNE_JIT_UNKNOWN (its bytes are the
     * application's), buffers of half, bf16 or vectors ATUNE_JIT_PTR. */
    if (a->type == ATUNE__BYTES)
        return t == ATUNE_JIT_UNKNOWN;
    if (a->type == ATUNE__HALF || a->type == ATUNE__BF16 || a->lanes > 1)
        return a->role != ATUNE__SCALAR && t == ATUNE_JIT_PTR;

    if (a->role == ATUNE__SCALAR)
        return t == want;
    return t == ATUNE_JIT_PTR ||
           t == (atune_jit_type)(ATUNE_JIT_PTR + (want - ATUNE_JIT_UNKNOWN));
}

int atune_jit_declare_args(atune_jit *j, const atune_jit_type *types,
                           int ntypes)
{
    const atune__manifest *m;

    if (!j)
        return ATUNE_EINVAL;
    j->msg[0] = '\0';
    j->args_declared = 0;
    if (!(m = j->m))
        return atune__jit_fail(j, ATUNE_EINVAL, "template did not open");
    if (!types && ntypes > 0)
        return atune__jit_fail(j, ATUNE_EINVAL, "no argument types");
    if (ntypes != m->nargs)
        return atune__jit_fail(j, ATUNE_EINVAL,
                               "%s: %d argument types for the %d arguments "
                               "of [args]",
                               m->ini_path, ntypes, m->nargs);
    for (int i = 0; i < ntypes; i++) {
        const atune__arg *a = &m->args[i];
        atune_jit_type want = scalar_type(a->type);
        if (type_fits(a, types[i]))
            continue;
        if (a->type == ATUNE__BYTES)
            return atune__jit_fail(
                j, ATUNE_EINVAL,
                "%s:%d: argument %d '%s' is a struct of %zu bytes passed by "
                "value: declare it ATUNE_JIT_UNKNOWN, the application passes "
                "%s",
                m->ini_path, a->line, i + 1, a->name, a->raw_len,
                type_name(types[i]));
        if (a->type == ATUNE__HALF || a->type == ATUNE__BF16 || a->lanes > 1)
            return atune__jit_fail(
                j, ATUNE_EINVAL,
                "%s:%d: argument %d '%s' is a pointer to %s%.0d in the "
                "kernel: declare it ATUNE_JIT_PTR, the application passes %s",
                m->ini_path, a->line, i + 1, a->name,
                atune__type_name(a->type), a->lanes > 1 ? a->lanes : 0,
                type_name(types[i]));
        return atune__jit_fail(
            j, ATUNE_EINVAL,
            "%s:%d: argument %d '%s' is %s%s in the kernel, the application "
            "passes %s",
            m->ini_path, a->line, i + 1, a->name,
            a->role == ATUNE__SCALAR ? "" : "a pointer to ", type_name(want),
            type_name(types[i]));
    }
    j->args_declared = 1;
    return ATUNE_OK;
}

/* --- shapes --------------------------------------------------------------- */

int atune__jit_shape_of(atune_jit *j, const atune__config *cfg,
                        const atune__devattr *a, const int64_t *size,
                        atune__launch *l)
{
    atune__launch all[ATUNE__MAX_STEPS];
    int rc = atune__jit_shapes_of(j, cfg, a, size, all);

    if (rc == ATUNE_OK)
        *l = all[0];
    return rc;
}

int atune__jit_shapes_of(atune_jit *j, const atune__config *cfg,
                         const atune__devattr *a, const int64_t *size,
                         atune__launch *all)
{
    atune__vars vs;
    atune__err err = {0};
    char reason[256], cfgs[512], label[256];
    int rc;

    vs.n = 0;
    size_label(j, size, label, sizeof(label));
    for (int i = 0; i < j->nsize; i++) {
        if (atune__vars_set(&vs, j->m->sizes[0].var[i], size[i]) != 0)
            return atune__jit_fail(j, ATUNE_EINVAL, "too many variables");
    }
    if (atune__devattr_vars(a, &vs) != 0)
        return atune__jit_fail(j, ATUNE_EINVAL,
                               "bad size '%s': too many "
                               "variables",
                               label);
    rc = atune__space_launches(j->m, cfg, &vs, a, all, reason, sizeof(reason),
                               &err);
    if (rc == 1)
        return ATUNE_OK;
    atune__config_str(j->m, cfg, cfgs, sizeof(cfgs));
    if (rc == 0)
        return atune__jit_fail(j, ATUNE_ELAUNCH, "%s: %s at %s: %s",
                               j->m->ini_path, cfgs, label, reason);
    return atune__jit_fail(j, ATUNE_ELAUNCH, "%s (configuration %s at %s)",
                           err.msg, cfgs, label);
}

static void shape_to_public(const atune__launch *l, atune_jit_dims *out)
{
    /* Checked against the device limits: every value fits. */
    for (int i = 0; i < 3; i++) {
        out->grid[i] = (unsigned)l->grid[i];
        out->block[i] = (unsigned)l->block[i];
    }
    out->shared = (unsigned)l->shared;
}

/* atune_jit_shape's and atune_jit_shape_args' common part. */
static int shape_public(atune_jit *j, const atune_config *c,
                        const atune_jit_attr *attr, const int64_t *size,
                        atune_jit_dims *out)
{
    atune__config cfg;
    atune__devattr a;
    atune__launch l;
    int rc;

    if (attr)
        atune__jit_attr_from_public(attr, &a);
    else
        atune__devattr_default(&a);
    atune__jit_config_from(j->m, c, &cfg);
    if ((rc = atune__jit_check_values(j, &cfg)) != 0 ||
        (rc = atune__jit_shape_of(j, &cfg, &a, size, &l)) != 0)
        return rc;
    shape_to_public(&l, out);
    return ATUNE_OK;
}

/* What both public shape calls check first. */
static int shape_entry(atune_jit *j, const atune_jit_dims *out)
{
    if (!j || !out)
        return ATUNE_EINVAL;
    j->msg[0] = '\0';
    if (!j->m)
        return atune__jit_fail(j, ATUNE_EINVAL, "template did not open");
    return ATUNE_OK;
}

int atune_jit_shape(atune_jit *j, const atune_config *c,
                    const atune_jit_attr *attr, const char *size,
                    atune_jit_dims *out)
{
    int64_t v[ATUNE__MAX_SIZE_VARS];
    int rc;

    if ((rc = shape_entry(j, out)) != 0 ||
        (rc = atune__jit_size_values(j, size, v)) != 0)
        return rc;
    return shape_public(j, c, attr, v, out);
}

int atune_jit_shape_args(atune_jit *j, const atune_config *c,
                         const atune_jit_attr *attr, void **args,
                         atune_jit_dims *out)
{
    int64_t v[ATUNE__MAX_SIZE_VARS];
    int rc;

    if ((rc = shape_entry(j, out)) != 0 ||
        (rc = size_from_args(j, args, v)) != 0)
        return rc;
    return shape_public(j, c, attr, v, out);
}

/* The launches of k at size (one per step), checked against the compiled
 * functions too; computed once per size (ATUNE__LAUNCH_CACHE sizes kept,
 * the oldest replaced). Only valid shapes are kept: a failure is checked
 * anew. */
static int kernel_launch_shape(atune_jit_kernel *k, const int64_t *size,
                               const atune__launch **out)
{
    atune_jit *j = k->j;
    size_t bytes = sizeof(size[0]) * (size_t)j->nsize;
    atune__jit_shape *s;
    int64_t threads;
    char cfgs[512], label[256];
    int rc;

    for (int i = 0; i < ATUNE__LAUNCH_CACHE; i++) {
        s = &k->shapes[i];
        if (s->used && memcmp(s->size, size, bytes) == 0) {
            *out = s->l;
            return ATUNE_OK;
        }
    }
    s = &k->shapes[k->shape_next];
    s->used = 0;
    if ((rc = atune__jit_shapes_of(j, &k->cfg, &k->attr, size, s->l)) != 0)
        return rc;
    atune__config_str(j->m, &k->cfg, cfgs, sizeof(cfgs));
    size_label(j, size, label, sizeof(label));
    for (int i = 0; i < j->m->nsteps; i++) {
        const atune__launch *l = &s->l[i];
        threads = l->block[0] * l->block[1] * l->block[2];
        if (threads > k->max_threads[i])
            return atune__jit_fail(j, ATUNE_ELAUNCH,
                                   "%s: %s at %s: %s '%s': block of %" PRId64
                                   " threads exceeds the %d that the "
                                   "kernel's registers allow",
                                   j->m->ini_path, cfgs, label,
                                   j->m->sequence ? "launch" : "kernel",
                                   j->m->sequence ? j->m->steps[i].name
                                                  : j->m->kernel,
                                   threads, k->max_threads[i]);
        if (l->shared + k->static_shared[i] > k->attr.max_shared_per_block)
            return atune__jit_fail(j, ATUNE_ELAUNCH,
                                   "%s: %s at %s: %s '%s': %" PRId64
                                   " bytes of shared memory exceed %" PRId64,
                                   j->m->ini_path, cfgs, label,
                                   j->m->sequence ? "launch" : "kernel",
                                   j->m->sequence ? j->m->steps[i].name
                                                  : j->m->kernel,
                                   l->shared + k->static_shared[i],
                                   k->attr.max_shared_per_block);
    }
    memcpy(s->size, size, bytes);
    s->used = 1;
    k->shape_next = (k->shape_next + 1) % ATUNE__LAUNCH_CACHE;
    *out = s->l;
    return ATUNE_OK;
}

int atune_jit_kernel_shape(atune_jit_kernel *k, const char *size,
                           atune_jit_dims *out)
{
    int64_t v[ATUNE__MAX_SIZE_VARS];
    const atune__launch *l;
    int rc;

    if (!k || !out)
        return ATUNE_EINVAL;
    k->j->msg[0] = '\0';
    if ((rc = atune__jit_size_values(k->j, size, v)) != 0 ||
        (rc = atune__jit_kernel_at(k, v, &k)) != 0 ||
        (rc = kernel_launch_shape(k, v, &l)) != 0)
        return rc;
    shape_to_public(l, out);
    return ATUNE_OK;
}

/* --- launch --------------------------------------------------------------- */

static int launch_at(atune_jit_kernel *k, const int64_t *size, void **args,
                     CUstream stream)
{
    atune_jit *j = k->j;
    const atune__cudrv *cu = j->cu;
    const atune__launch *all;
    CUresult r;
    int rc;

    /* Every launch is checked before the first is queued: a sequence
     * never runs half. A template whose names read the size launches the
     * module of this size (compiled at its first launch). */
    if ((rc = atune__jit_kernel_at(k, size, &k)) != 0 ||
        (rc = kernel_launch_shape(k, size, &all)) != 0)
        return rc;
    for (int i = 0; i < j->m->nsteps; i++) {
        const atune__step *st = &j->m->steps[i];
        const atune__launch *l = &all[i];
        void *sargs[ATUNE__MAX_ARGS + 1];
        for (int a = 0; a < st->nargs; a++)
            sargs[a] = args ? args[st->arg[a]] : NULL;
        sargs[st->nargs] = NULL;
        if (l->shared > OPTIN_SHARED && l->shared > k->shared_optin[i]) {
            r = cu->cuFuncSetAttribute(
                k->fn[i], CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                (int)l->shared);
            if (r != CUDA_SUCCESS)
                return atune__jit_cuda_fail(j, &k->cfg, "cuFuncSetAttribute",
                                            r);
            k->shared_optin[i] = l->shared;
        }
        r = cu->cuLaunchKernel(k->fn[i], (unsigned)l->grid[0],
                               (unsigned)l->grid[1], (unsigned)l->grid[2],
                               (unsigned)l->block[0], (unsigned)l->block[1],
                               (unsigned)l->block[2], (unsigned)l->shared,
                               stream, st->nargs ? sargs : NULL, NULL);
        if (r != CUDA_SUCCESS)
            return atune__jit_cuda_fail(j, &k->cfg,
                                        j->m->sequence ? st->kernel
                                                       : "cuLaunchKernel",
                                        r);
    }
    return ATUNE_OK;
}

int atune_jit_launch(atune_jit_kernel *k, const char *size, void **args,
                     CUstream stream)
{
    int64_t v[ATUNE__MAX_SIZE_VARS];
    atune_jit *j;
    int rc;

    if (!k)
        return ATUNE_EINVAL;
    j = k->j;
    j->msg[0] = '\0';
    if (!args && j->m->nargs > 0)
        return atune__jit_fail(j, ATUNE_EINVAL,
                               "%s: no arguments for %d parameters", j->m->name,
                               j->m->nargs);
    if ((rc = atune__jit_size_values(j, size, v)) != 0 ||
        (rc = size_agrees(j, v, args)) != 0)
        return rc;
    return launch_at(k, v, args, stream);
}

int atune_jit_run(atune_jit_kernel *k, void **args, CUstream stream)
{
    int64_t v[ATUNE__MAX_SIZE_VARS];
    atune_jit *j;
    int rc;

    if (!k)
        return ATUNE_EINVAL;
    j = k->j;
    if (!j->args_declared)
        return atune__jit_fail(j, ATUNE_EINVAL,
                               "%s: declare the argument types first "
                               "(atune_jit_declare_args)",
                               j->m->name);
    j->msg[0] = '\0';
    if ((rc = size_from_args(j, args, v)) != 0)
        return rc;
    return launch_at(k, v, args, stream);
}
