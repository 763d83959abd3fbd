/* cmd_tune.c -- `autotune tune`: open the GPU(s), tune, report. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/commands.h"
#include "cli/record_sizes.h"
#include "engine/compile_procs.h"
#include "engine/evaluate.h"
#include "base/json.h"
#include "search/strategy.h"
#include "engine/supervise.h"
#include "engine/tune.h"

static void on_signal(int sig)
{
    (void)sig;
    atune__tune_interrupt();
}

static void catch_signals(void)
{
    struct sigaction sa;

    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
}

static const char *unit(const atune__manifest *m)
{
    return m->metric == ATUNE__GBS ? "GB/s" : "GFLOP/s";
}

static void json_outcome(atune__json *j, const atune__devinfo *in,
                         const atune__outcome *out)
{
    const atune__manifest *m = out->m;

    atune__json_object(j, NULL);
    atune__json_str(j, "kernel", m->name);
    atune__json_str(j, "size", out->size_key);
    atune__json_str(j, "size_name", out->size->name);
    atune__json_str(j, "device", in->name);
    if (out->have_best) {
        atune__json_object(j, "best");
        atune__json_object(j, "params");
        for (int i = 0; i < m->nparams; i++)
            atune__json_int(j, m->params[i].name, out->best.v[i]);
        atune__json_end(j);
        atune__json_int(j, "time_ns", (int64_t)(out->best_res.time_ns + 0.5));
        atune__json_int(j, "spread_ns",
                        (int64_t)(out->best_res.spread_ns + 0.5));
        atune__json_num(j, "metric", out->best_res.metric);
        atune__json_str(j, "unit", unit(m));
        atune__json_end(j);
    } else {
        atune__json_null(j, "best");
    }
    if (out->have_default) {
        atune__json_int(j, "default_time_ns",
                        (int64_t)(out->default_res.time_ns + 0.5));
        atune__json_num(j, "default_metric", out->default_res.metric);
    } else {
        atune__json_null(j, "default_time_ns");
    }
    if (out->have_best && out->have_default)
        atune__json_num(j, "speedup",
                        out->default_res.time_ns / out->best_res.time_ns);
    atune__json_str(j, "previous", atune__previous_name(out->previous));
    if (out->previous_ns > 0)
        atune__json_int(j, "previous_time_ns",
                        (int64_t)(out->previous_ns + 0.5));
    atune__json_str(j, "strategy", out->strategy);
    atune__json_int(j, "evaluations", out->evaluations);
    atune__json_int(j, "space", out->space);
    /* Why the search stopped: exhausted, budget, time, converged... */
    if (out->stop)
        atune__json_str(j, "stop", out->stop);
    else
        atune__json_null(j, "stop");
    /* The final pick's largest re-measured time over the search's; 0 when
     * there was none. Over 1.2 the pick is measured again (final_retried)
     * and final_shift is the second's. */
    atune__json_num(j, "final_shift", out->final_shift);
    atune__json_bool(j, "final_retried", out->final_retried);
    atune__json_object(j, "statuses");
    for (int s = 0; s < ATUNE__ST_COUNT; s++)
        atune__json_int(j, atune__status_name((atune__status)s),
                        out->count[s]);
    atune__json_end(j);
    atune__json_int(j, "unverified", out->unverified);
    atune__json_int(j, "twins", out->twins);
    atune__json_num(j, "wall_s", out->wall_s);
    atune__json_num(j, "compile_s", out->compile_s);
    atune__json_num(j, "verify_s", out->verify_s);
    atune__json_num(j, "measure_s", out->measure_s);
    atune__json_num(j, "final_s", out->final_s);
    atune__json_num(j, "framework_s", out->wall_s - out->compile_s -
                                          out->verify_s - out->measure_s -
                                          out->final_s);
    /* Modules compiled for these evaluations (NVRTC; the disk cache's
     * apart): the compile pool's cost beside what was measured. */
    atune__json_int(j, "modules_compiled", out->compiled);
    atune__json_int(j, "modules_cached", out->cached);
    /* Later templates' modules compiled meanwhile into the module cache. */
    atune__json_int(j, "modules_warmed", out->warmed);
    atune__json_num(j, "evaluations_per_s",
                    out->wall_s > 0 ? out->evaluations / out->wall_s : 0);
    atune__json_end(j);
}

static void print_table(const atune__tune_run *run)
{
    printf("%-10s %-22s %-44s %10s %16s %8s %9s\n", "kernel", "size",
           "best configuration", "time", "metric", "speedup", "evaluated");
    for (int i = 0; i < run->n; i++) {
        const atune__outcome *out = &run->o[i];
        char cfg[512], metric[64], speed[32] = "-";
        if (!out->have_best) {
            printf("%-10s %-22s %-44s\n", out->m->name, out->size_key,
                   out->skipped ? "(skipped: not enough device memory)"
                                : "(no valid configuration)");
            continue;
        }
        atune__config_str(out->m, &out->best, cfg, sizeof(cfg));
        snprintf(metric, sizeof(metric), "%.1f %s", out->best_res.metric,
                 unit(out->m));
        if (out->have_default)
            snprintf(speed, sizeof(speed), "%.2fx",
                     out->default_res.time_ns / out->best_res.time_ns);
        printf("%-10s %-22s %-44s %7.3f ms %16s %8s %5lld/%lld\n",
               out->m->name, out->size_key, cfg, out->best_res.time_ns / 1e6,
               metric, speed, (long long)out->evaluations,
               (long long)out->space);
    }
}

/* Whether other GPUs tune beside this worker (--device all). */
static int shared_gpus(void)
{
    const char *v = getenv(ATUNE__WORKER_SHARED);

    return v && strcmp(v, "1") == 0;
}

/* Tunes one device; reports into j (when --json) or as a table. */
static int tune_device(int ordinal, const atune__cli *o,
                       const atune__templates *t, atune__cache *cache,
                       atune__procs *procs, atune__json *j)
{
    atune__device *d = NULL;
    atune__templates recorded = {0};
    atune__tune_opts opts;
    atune__tune_run run;
    atune__err err;
    double t0 = atune__worker_start(); /* restarts included */
    int rc;

    atune__err_clear(&err);
    rc = atune__device_open(ordinal, cache, &d, &err);
    if (rc)
        return atune__cli_error(rc, "%s", err.msg);
    atune__device_set_compiler(d, atune__procs_compile_hook, procs);
    if (o->sizes_from) {
        rc = atune__cli_sizes_from(o->sizes_from, atune__device_info(d)->name,
                                   t, &recorded, o->quiet, &err);
        if (rc) {
            atune__device_close(d);
            return atune__cli_error(rc, "%s", err.msg);
        }
        t = &recorded;
    }
    atune__tune_opts_default(&opts);
    opts.profile_dir = o->profile_dir;
    opts.journal = o->journal;
    opts.size = o->size;
    opts.quiet = o->quiet;
    opts.progress = !o->quiet && isatty(STDERR_FILENO);
    opts.seed = o->seed;
    opts.strategy = o->strategy;
    opts.cache = cache;
    opts.procs = procs;
    opts.budget = o->budget;
    opts.time_limit = o->time_limit;
    opts.watch_fd = atune__worker_fd();
    opts.launch_limit_s = o->launch_timeout;
    opts.resume = !o->no_resume;
    /* The default run (it stops by itself) verifies what could matter;
     * a named strategy or a budget verifies every configuration. */
    opts.verify_lazily = !o->strategy && !o->budget;
    opts.replace = o->replace;
    if (shared_gpus())
        opts.journal_gpu = ordinal;
    if (o->evaluate) {
        rc = atune__evaluate(d, t, &opts, o->evaluate, j, &err);
        if (rc)
            atune__cli_error(rc, "%s", err.msg);
        atune__device_close(d);
        return rc;
    }
    if (!o->quiet)
        fprintf(stderr, "tuning on GPU %d: %s (%s, %lld SMs)\n", ordinal,
                atune__device_info(d)->name, atune__device_info(d)->arch,
                (long long)atune__device_info(d)->attr.sm_count);
    rc = atune__tune(d, t, &opts, &run, &err);
    if (rc == ATUNE__EINTR && run.profile[0])
        atune__cli_error(rc, "interrupted: kept what was measured in '%s' "
                             "and '%s'",
                         run.profile, run.journal);
    else if (rc == ATUNE__EINTR)
        atune__cli_error(rc, "interrupted: kept what was measured in '%s'",
                         run.journal);
    else if (rc)
        atune__cli_error(rc, "%s", err.msg);
    if (j) {
        const atune__devinfo *in = atune__device_info(d);
        for (int i = 0; i < run.n; i++)
            json_outcome(j, in, &run.o[i]);
    } else if (run.n || !rc) {
        /* A run refused before tuning (an unwritable profile, a journal
         * that is a FIFO) has no rows: a header alone on stdout read as
         * a result table in a log. */
        print_table(&run);
    }
    if (!o->quiet && run.n)
        fprintf(stderr, "profile: %s\njournal: %s\nwall time: %.1f s\n",
                run.profile[0] ? run.profile : "(not written)", run.journal,
                atune__now() - t0);
    atune__tune_run_free(&run);
    atune__device_close(d);
    free(recorded.m);
    return rc;
}

/* The worker: tunes one GPU, reports to stdout (a file the supervisor
 * reads). */
static int run_worker(const atune__cli *o, const atune__templates *t)
{
    atune__json json, *j = NULL;
    atune__procs *procs = NULL;
    atune__cache *cache;
    atune__err err;
    int rc;

    catch_signals();
    if (o->json) {
        j = &json;
        atune__cli_json_begin(j, NULL);
    }
    cache = atune__cli_cache(o);
    /* Before the device is opened: the children must not inherit a CUDA
     * context or a thread. */
    rc = atune__procs_start(t, cache, 0, &procs, &err);
    if (rc)
        atune__cli_error(rc, "%s", err.msg);
    else
        rc = tune_device(atune__worker_device(o->device_num), o, t, cache,
                         procs, j);
    atune__procs_stop(procs);
    if (j) {
        atune__json_end(j);
        atune__cli_cache_report(o, cache, j);
        atune__json_str(j, "status", rc == 0 ? "ok"
                                     : rc == ATUNE__EINTR ? "interrupted"
                                                          : "error");
        atune__json_end(j);
    }
    if (!j)
        atune__cli_cache_report(o, cache, NULL);
    atune__cache_close(cache);
    return rc;
}

/* The GPU ordinals of --device: one, or every GPU. */
static int device_list(const atune__cli *o, int *devs, int max, int *n)
{
    atune__err err;
    int count = 0, rc;

    atune__err_clear(&err);
    if (!o->device_all) {
        devs[0] = o->device_num;
        *n = 1;
        return 0;
    }
    /* cuInit without a context: the workers are exec'ed, not forked
     * copies, so nothing of the driver's state crosses into them. */
    rc = atune__device_count(&count, &err);
    if (rc)
        return atune__cli_error(rc, "%s", err.msg);
    if (count == 0)
        return atune__cli_error(ATUNE__EUNAVAIL, "no CUDA GPU");
    *n = count < max ? count : max;
    for (int i = 0; i < *n; i++)
        devs[i] = i;
    return 0;
}

int atune__cmd_tune(const atune__cli *o)
{
    atune__templates t = {0};
    atune__supervise_opts so = {0};
    atune__err err;
    int devs[64], n = 0, rc;

    atune__err_clear(&err);
    /* Bad templates and arguments fail here, before any GPU or worker. */
    rc = atune__cli_templates(o, o->kernels, &t, &err);
    if (rc)
        return atune__cli_error(rc, "%s", err.msg);
    if (o->size && !atune__cli_size_known(&t, o->size)) {
        atune__templates_free(&t);
        return atune__cli_error(ATUNE__EUSAGE,
                                "no template%s has a size '%s' (autotune "
                                "list shows them)",
                                o->kernels ? " of --kernel" : "", o->size);
    }
    /* A bad record fails here too; its GPU model is the worker's to see. */
    if (o->sizes_from &&
        (rc = atune__cli_sizes_from(o->sizes_from, NULL, &t, NULL, 1, &err))) {
        atune__templates_free(&t);
        return atune__cli_error(rc, "%s", err.msg);
    }
    if (atune__worker_fd() >= 0) {
        rc = run_worker(o, &t);
        atune__templates_free(&t);
        return rc;
    }
    atune__templates_free(&t);
    if ((rc = device_list(o, devs, 64, &n)))
        return rc;
    so.argv = o->argv;
    so.devices = devs;
    so.ndevices = n;
    so.json = o->json;
    so.quiet = o->quiet;
    rc = atune__supervise(&so, &err);
    if (rc && err.msg[0])
        atune__cli_error(rc, "%s", err.msg);
    return rc;
}
