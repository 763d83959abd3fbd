/* cmd_merge.c -- `autotune merge OUT IN...`: profiles of one GPU model
 * combined section by section, the better of each kept by evidence
 * (engine/profile_merge.h): timed side by side with --device, else by
 * recorded time. Every input is read and checked before OUT is touched. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "atune/atune.h"
#include "cli/commands.h"
#include "engine/compile_procs.h"
#include "engine/profile_merge.h"
#include "measure/runner.h"
#include "template/templates.h"

/* Opens every input and checks its values; a bad one is reported with
 * its file:line and stops the merge. */
static int open_inputs(const atune__cli *o, const atune__templates *t,
                       atune__merge_in *in, int n)
{
    for (int i = 0; i < n; i++) {
        int rc;

        in[i].path = o->files[i + 1];
        rc = atune_profile_open(in[i].path, &in[i].p);
        if (rc != ATUNE_OK) {
            const char *msg = in[i].p ? atune_profile_errmsg(in[i].p) : "";
            return atune__cli_error(
                rc == ATUNE_EIO       ? ATUNE__ENOINPUT
                : rc == ATUNE_ENOMEM ? ATUNE__EOSERR
                                      : ATUNE__EDATA,
                "%s (nothing merged, '%s' not touched)",
                *msg ? msg : atune_strerror(rc), o->files[0]);
        }
        if (atune__cli_profile_values(in[i].p, t))
            return atune__cli_error(ATUNE__EDATA,
                                    "%s: bad values (nothing merged, '%s' "
                                    "not touched)",
                                    in[i].path, o->files[0]);
    }
    return 0;
}

/* The GPU of --device, of the profiles' model, with its compile
 * children (started first: they must not inherit a CUDA context). */
static int open_gpu(const atune__cli *o, const atune__templates *t,
                    const atune__merge_in *in, int n, atune__merge_gpu *g,
                    atune__procs **procs)
{
    atune__err err;
    const char *name;
    int rc;

    atune__err_clear(&err);
    if ((rc = atune__procs_start(t, g->cache, 0, procs, &err)) ||
        (rc = atune__device_open(o->device_num, g->cache, &g->d, &err)))
        return atune__cli_error(rc, "%s", err.msg);
    atune__device_set_compiler(g->d, atune__procs_compile_hook, *procs);
    name = atune__device_info(g->d)->name;
    for (int i = 0; i < n; i++)
        if (strcmp(atune_profile_device(in[i].p)->name, name) != 0)
            return atune__cli_error(
                ATUNE__EUSAGE,
                "GPU %d is a '%s'; %s is a profile of '%s': re-time on a GPU "
                "of the profiles' model, or merge without --device (by "
                "recorded time)",
                o->device_num, name, in[i].path,
                atune_profile_device(in[i].p)->name);
    return 0;
}

int atune__cmd_merge(const atune__cli *o)
{
    const char *out = o->files[0];
    int n = o->nfiles - 1, rc;
    atune__templates t = {0};
    atune__merge_in *in = atune__calloc((size_t)n + 1, sizeof(*in));
    atune__merge_gpu gpu = {0};
    atune__procs *procs = NULL;
    atune__merge_opts mo = {0};
    atune__merge_stats st;
    atune__err err;

    atune__err_clear(&err);
    if (!in)
        return atune__cli_error(ATUNE__EOSERR, "out of memory");
    /* The templates that wrote the sections: to check their values and,
     * with --device, to time them. */
    if ((rc = atune__cli_templates(o, NULL, &t, &err))) {
        atune__cli_error(rc, "%s", err.msg);
        goto out;
    }
    if ((rc = open_inputs(o, &t, in, n)))
        goto out;
    mo.force_models = o->force_models;
    mo.log = o->quiet ? NULL : stderr;
    if (o->device_given) {
        gpu.t = &t;
        gpu.seed = o->seed;
        gpu.cache = atune__cli_cache(o);
        if ((rc = open_gpu(o, &t, in, n, &gpu, &procs)))
            goto out;
        mo.retime = atune__merge_retime_gpu;
        mo.retime_ctx = &gpu;
        if (!o->quiet)
            fprintf(stderr, "re-timing disagreements on GPU %d: %s\n",
                    o->device_num, atune__device_info(gpu.d)->name);
    }
    rc = atune__profile_merge(out, in, n, &mo, &st, &err);
    if (rc)
        atune__cli_error(rc, "%s", err.msg);
    else if (!o->quiet && st.unchanged)
        fprintf(stderr, "%s: unchanged (%d sections)\n", out, st.sections);
    else if (!o->quiet)
        fprintf(stderr,
                "%s: %d sections from %d input%s; %d chosen between "
                "configurations (%d re-timed side by side, %d by recorded "
                "time)\n",
                out, st.sections, n, n == 1 ? "" : "s", st.decided, st.retimed,
                st.decided - st.retimed);
out:
    if (gpu.d)
        atune__device_close(gpu.d);
    atune__procs_stop(procs);
    if (gpu.cache)
        atune__cache_close(gpu.cache);
    for (int i = 0; i < n; i++)
        atune_profile_close(in[i].p);
    free(in);
    atune__templates_free(&t);
    return rc;
}
