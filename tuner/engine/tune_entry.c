/* tune_entry.c -- a tuning run's outcomes as profile sections (see
 * tune.h): the previous best a section holds, the entries, their [device]
 * and the write. */
#include "engine/tune.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <atune/atune.h>

#include "measure/profile_write.h"
#include "lib/profile_internal.h"
#include "jit/jit.h"

const char *atune__previous_name(atune__previous p)
{
    static const char *const names[] = {"none", "same", "kept", "replaced",
                                        "forced"};

    return p >= 0 && p <= ATUNE__PREV_FORCED ? names[p] : "none";
}

static void fill_entry(const atune__outcome *out, atune__pw_entry *e)
{
    const atune__manifest *m = out->m;

    memset(e, 0, sizeof(*e));
    atune__strlcpy(e->kernel, m->name, sizeof(e->kernel));
    atune__strlcpy(e->size_key, out->size_key, sizeof(e->size_key));
    atune__strlcpy(e->size_name, out->size->name, sizeof(e->size_name));
    e->nparams = m->nparams;
    for (int i = 0; i < m->nparams; i++) {
        atune__strlcpy(e->param[i], m->params[i].name, sizeof(e->param[i]));
        e->value[i] = out->best.v[i];
    }
    e->time_ns = (int64_t)(out->best_res.time_ns + 0.5);
    e->spread_ns = (int64_t)(out->best_res.spread_ns + 0.5);
    e->metric = out->best_res.metric;
    atune__strlcpy(e->metric_unit, m->metric == ATUNE__GBS ? "GB/s" : "GFLOP/s",
                   sizeof(e->metric_unit));
    e->default_time_ns =
        out->have_default ? (int64_t)(out->default_res.time_ns + 0.5) : 0;
    e->evaluated = out->evaluations;
    e->space = out->space;
    atune__strlcpy(e->strategy, out->strategy, sizeof(e->strategy));
    snprintf(e->template_hash, sizeof(e->template_hash), "%016llx",
             (unsigned long long)m->hash);
    /* Which run found it, and what became of the previous best: every
     * section sets both, so that no stale value is kept. */
    atune__pw_extra(e, "run", out->run[0] ? out->run : "unknown");
    atune__pw_extra(e, "previous", atune__previous_name(out->previous));
    {
        char v[32];
        snprintf(v, sizeof(v), "%.0f", out->previous_ns); /* 0: not timed */
        atune__pw_extra(e, "previous_time_ns", v);
    }
}

/* A section of this template version that is no configuration of the
 * space here (edited by hand, or by another tool) is not re-timed, and
 * this run's winner replaces it: said, never done silently. */
static void outside_space(const char *profile, const atune_config *pc,
                          const atune__manifest *m, const char *size_key,
                          const char *why, const char *param)
{
    const atune__ini_section *sec = atune__config_section(pc);
    char cfg[512];
    size_t used = 0;

    cfg[0] = '\0';
    for (int i = 0; i < atune_config_count(pc) && used < sizeof(cfg); i++)
        used += (size_t)snprintf(cfg + used, sizeof(cfg) - used, "%s%s=%lld",
                                 i ? "," : "", atune_config_name(pc, i),
                                 (long long)atune_config_value(pc, i));
    fprintf(stderr,
            "autotune: warning: %s:%d: the entry of %s %s %s%s%s (%s); it is "
            "not re-timed, and this run's winner replaces it\n",
            profile, sec ? sec->line : 0, m->name, size_key, why,
            param ? " " : "", param ? param : "", cfg);
}

/* The profile's best of this kernel, size and template version as a
 * configuration of the space valid here; 0 when there is none. The
 * profile is read now, after the search: a GPU of the same model that
 * finished meanwhile (--device all, Slurm) is seen. *seen is what the
 * section was, usable or not, for the write that follows. */
int atune__tune_previous_best(const char *profile, const atune__manifest *m,
                              const char *size_key,
                              const atune__valid_set *valid, atune__config *c,
                              int64_t *idx, char *run, size_t runlen,
                              atune__pw_seen *seen)
{
    atune_profile *p = NULL;
    const atune_config *pc;
    char hash[17];
    const char *prev_run;
    int found = 0;

    memset(seen, 0, sizeof(*seen));
    snprintf(hash, sizeof(hash), "%016llx", (unsigned long long)m->hash);
    if (atune_profile_open(profile, &p) != ATUNE_OK ||
        atune_profile_lookup(p, m->name, size_key, &pc) != ATUNE_OK ||
        atune_config_size_match(pc) != ATUNE_SIZE_EXACT)
        goto out;
    seen->present = 1;
    prev_run = atune_config_meta(pc, "run");
    atune__strlcpy(seen->run, prev_run ? prev_run : "", sizeof(seen->run));
    if (strcmp(atune_config_template_hash(pc), hash) != 0)
        goto out;
    memset(c, 0, sizeof(*c));
    for (int i = 0; i < m->nparams; i++) {
        c->v[i] = atune_config_get(pc, m->params[i].name, INT64_MIN);
        if (c->v[i] == INT64_MIN) {
            outside_space(profile, pc, m, size_key, "lacks parameter",
                          m->params[i].name);
            goto out;
        }
    }
    *idx = atune__space_index(m, c);
    if (*idx < 0 || atune__valid_set_find(valid, *idx) < 0) {
        outside_space(profile, pc, m, size_key,
                      *idx < 0 ? "has a value the template does not list"
                               : "is not valid at this size on this GPU",
                      NULL);
        goto out;
    }
    snprintf(run, runlen, "%s", prev_run ? prev_run : "earlier");
    found = 1;
out:
    atune_profile_close(p);
    return found;
}

/* Tests widen the window between reading a section and writing it, where
 * another tuner of the same GPU model may write it (tests/cli_stub_tune.sh):
 * ATUNE_TEST_WRITE_DELAY_MS. */
static void test_write_delay(void)
{
    int64_t ms;

    /* a test hook: a bad value only leaves the window as it is */
    if (!atune__env_i64("ATUNE_TEST_WRITE_DELAY_MS", 0, 59999, 0, "ms", &ms,
                        NULL) &&
        ms > 0) {
        struct timespec ts = {ms / 1000, ms % 1000 * 1000000L};
        nanosleep(&ts, NULL);
    }
}

int atune__tune_write_outcome(atune__device *d, const atune__outcome *out,
                              const char *path,
                              const struct atune__pw_seen *seen, int *changed,
                              atune__err *err)
{
    atune__pw_device pd;
    atune__pw_entry *e = atune__calloc(1, sizeof(*e));
    int rc;

    *changed = 0;
    if (!e)
        return atune__fail(err, ATUNE__EOSERR, "out of memory");
    if (seen)
        test_write_delay();
    atune__device_pw_entry(d, &pd);
    fill_entry(out, e);
    rc = seen ? atune__profile_update_if(path, &pd, e, seen, changed, err)
              : atune__profile_update(path, &pd, e, 1, err);
    free(e);
    return rc;
}
