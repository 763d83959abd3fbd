/* tune_progress.c -- what a tuning run tells the person watching it on
 * stderr: the progress line of the size being tuned and each size's
 * summary; and each size's summary line in the journal (see tune.h). */
#include "engine/tune.h"

#include <stdio.h>
#include <string.h>

#include "engine/journal.h"
#include "search/strategy.h"

static void format_eta(double s, char *buf, size_t len)
{
    if (s < 0 || s > 360000)
        snprintf(buf, len, "--:--");
    else
        snprintf(buf, len, "%d:%02d", (int)s / 60, (int)s % 60);
}

void atune__tune_progress(const atune__tune_opts *o, const atune__outcome *out,
                          int64_t done, int64_t total, double t0)
{
    char eta[32];
    double el = atune__now() - t0;

    if (!o->progress)
        return;
    format_eta(done ? el / (double)done * (double)(total - done) : -1, eta,
               sizeof(eta));
    fprintf(stderr, "\r\033[K%s %s: %lld/%lld", out->m->name,
            out->size->name, (long long)done, (long long)total);
    if (out->have_best)
        fprintf(stderr, "  best %.1f %s", out->best_res.metric,
                out->m->metric == ATUNE__GBS ? "GB/s" : "GFLOP/s");
    fprintf(stderr, "  ETA %s", eta);
    fflush(stderr);
}

void atune__tune_summary(const atune__tune_opts *o, const atune__outcome *out,
                         int failed)
{
    const char *unit = out->m->metric == ATUNE__GBS ? "GB/s" : "GFLOP/s";
    char cfg[512];

    if (o->progress)
        fputs("\r\033[K", stderr);
    if (o->quiet)
        return;
    if (out->skipped || (failed && !out->have_best))
        return;
    if (!out->have_best && out->evaluations == 0 && out->stop &&
        strcmp(out->stop, "time") == 0) {
        fprintf(stderr, "%s %s (%s): the time limit stopped the search "
                        "before its first evaluation\n",
                out->m->name, out->size->name, out->size_key);
        return;
    }
    if (!out->have_best) {
        fprintf(stderr, "%s %s (%s): no valid configuration in %lld\n",
                out->m->name, out->size->name, out->size_key,
                (long long)out->evaluations);
        return;
    }
    atune__config_str(out->m, &out->best, cfg, sizeof(cfg));
    fprintf(stderr, "%s %s (%s): %.1f %s with %s", out->m->name,
            out->size->name, out->size_key, out->best_res.metric, unit, cfg);
    if (out->have_default)
        fprintf(stderr, ", %.2fx the default",
                out->default_res.time_ns / out->best_res.time_ns);
    fprintf(stderr, "; %lld configurations in %.1f s\n",
            (long long)out->evaluations, out->wall_s);
    if (out->previous == ATUNE__PREV_KEPT)
        fprintf(stderr, "  kept the profile's previous best: faster when "
                        "measured again beside this run's best\n");
    else if (out->previous == ATUNE__PREV_REPLACED)
        fprintf(stderr, "  replaces the profile's previous best (%.0f ns "
                        "measured again)\n",
                out->previous_ns);
    else if (out->previous == ATUNE__PREV_FORCED)
        fprintf(stderr, "  replaces the profile's previous best without "
                        "measuring it (--replace)\n");
}

void atune__tune_warn_shift(const atune__tune_opts *o,
                            const atune__outcome *out, int64_t idx)
{
    atune__config c;
    char cfg[512];

    if (o->quiet || idx < 0 || !out->final_retried)
        return;
    atune__space_config(out->m, idx, &c);
    atune__config_str(out->m, &c, cfg, sizeof(cfg));
    if (out->final_shift <= ATUNE__FINAL_SHIFT_LIMIT)
        fprintf(stderr,
                "autotune: note: %s %s: the final pick's first rounds took "
                "over %.0f%% longer than the search; measured again, the "
                "largest difference is %+.0f%% (%s)\n",
                out->m->name, out->size_key,
                100 * (ATUNE__FINAL_SHIFT_LIMIT - 1),
                100 * (out->final_shift - 1), cfg);
    else
        fprintf(stderr,
                "autotune: warning: %s %s: in the final pick %s took %.0f%% "
                "longer than in the search, in both sets of rounds; the "
                "GPU's state may have changed (tune this size again to "
                "check)\n",
                out->m->name, out->size_key, cfg,
                100 * (out->final_shift - 1));
}

/* The size's "# size:" line: its evaluations, the modules compiled for
 * them, and where its wall time went (waiting for NVRTC, timing,
 * verifying, the final pick; the rest is the framework), as --json says. */
int atune__tune_journal_size(atune__journal *j, const atune__outcome *out,
                             atune__err *err)
{
    char line[512];

    if (!j)
        return 0;
    snprintf(line, sizeof(line),
             "size: %s %s evaluations=%lld modules_compiled=%lld "
             "modules_cached=%lld modules_warmed=%lld wall_s=%.3f "
             "compile_s=%.3f measure_s=%.3f verify_s=%.3f final_s=%.3f "
             "framework_s=%.3f",
             out->m->name, out->size_key, (long long)out->evaluations,
             (long long)out->compiled, (long long)out->cached,
             (long long)out->warmed, out->wall_s,
             out->compile_s, out->measure_s, out->verify_s, out->final_s,
             out->wall_s - out->compile_s - out->verify_s - out->measure_s -
                 out->final_s);
    return atune__journal_note(j, line, err);
}
