/* cmd_compare.c -- `autotune compare PROFILE...`: the best configuration of
 * every (kernel, size) on each GPU side by side, as a text table or one
 * JSON document, and optionally the HTML report. No GPU needed. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cli/commands.h"
#include "report/compare.h"
#include "base/json.h"
#include "report/report_html.h"
#include "template/templates.h"

#define CONFIG_TEXT 1024

/* "BLOCK_SIZE=128*,VW=4": parameters that differ between GPUs starred. */
static void config_text(const atune__cmp *c, const atune__cmp_row *r,
                        const atune_config *cfg, char *buf, size_t len)
{
    size_t n = 0;

    buf[0] = '\0';
    for (int k = 0; k < atune_config_count(cfg) && n < len; k++) {
        const char *name = atune_config_name(cfg, k);
        n += (size_t)snprintf(buf + n, len - n, "%s%s=%" PRId64 "%s",
                              k ? "," : "", name, atune_config_value(cfg, k),
                              atune__cmp_differs(c, r, name) ? "*" : "");
    }
    if (!buf[0])
        snprintf(buf, len, "(no parameters)");
}

static void metric_text(const atune__cmp_cell *cell, char *buf, size_t len)
{
    const char *raw = atune_config_meta(cell->cfg, "metric");

    if (!isnan(cell->value))
        snprintf(buf, len, "%.1f %s", cell->value, cell->unit);
    else
        snprintf(buf, len, "%s", raw && *raw ? raw : "-");
}

static void percent_text(double fraction, char *buf, size_t len)
{
    if (isnan(fraction))
        snprintf(buf, len, "-");
    else
        snprintf(buf, len, "%.1f%%", 100.0 * fraction);
}

static void ratio_text(double ratio, char *buf, size_t len)
{
    if (isnan(ratio))
        snprintf(buf, len, "-");
    else
        snprintf(buf, len, "%.2fx", ratio);
}

typedef struct widths {
    int kernel, size, gpu, config, metric;
    int vendor; /* some entry has a vendor baseline: one more column */
} widths;

static int max_int(int a, int b)
{
    return a > b ? a : b;
}

static void measure(const atune__cmp *c, widths *w)
{
    char buf[CONFIG_TEXT];

    *w = (widths){(int)strlen("kernel"), (int)strlen("size"),
                  (int)strlen("GPU"),    (int)strlen("missing"),
                  (int)strlen("metric"), 0};
    for (int g = 0; g < c->ngpus; g++)
        w->gpu = max_int(w->gpu, (int)strlen(c->gpus[g].label));
    for (int i = 0; i < c->nrows; i++) {
        const atune__cmp_row *r = &c->rows[i];
        w->kernel = max_int(w->kernel, (int)strlen(r->kernel));
        w->size = max_int(w->size, (int)strlen(r->size));
        for (int g = 0; g < c->ngpus; g++) {
            if (!r->cells[g].cfg)
                continue;
            config_text(c, r, r->cells[g].cfg, buf, sizeof(buf));
            w->config = max_int(w->config, (int)strlen(buf));
            metric_text(&r->cells[g], buf, sizeof(buf));
            w->metric = max_int(w->metric, (int)strlen(buf));
            w->vendor |= r->cells[g].vendor != NULL;
        }
    }
}

static void print_gpus(const atune__cmp *c)
{
    for (int g = 0; g < c->ngpus; g++) {
        const atune__cmp_gpu *gpu = &c->gpus[g];
        char drv[32], nvrtc[32];

        atune__cmp_version(gpu->driver, drv, sizeof(drv));
        atune__cmp_version(gpu->nvrtc, nvrtc, sizeof(nvrtc));
        printf("%s: %s (%s), cc %d.%d, %d SMs", gpu->label, gpu->dev->name,
               gpu->path, gpu->dev->cc / 10, gpu->dev->cc % 10,
               gpu->dev->sm_count);
        if (gpu->mem_gbs > 0)
            printf(", %.0f GB/s", gpu->mem_gbs);
        if (gpu->fp32_gflops > 0)
            printf(", FP32 %.0f GFLOP/s", gpu->fp32_gflops);
        printf(", driver %s, NVRTC %s, tuned %s\n", drv, nvrtc,
               *gpu->date ? gpu->date : "-");
    }
}

static void print_cell(const atune__cmp *c, const atune__cmp_row *r, int g,
                       const widths *w)
{
    const atune__cmp_cell *cell = &r->cells[g];
    char config[CONFIG_TEXT], metric[CONFIG_TEXT], peak[32], speedup[32];

    if (!cell->cfg) {
        printf("%s\n", "missing");
        return;
    }
    config_text(c, r, cell->cfg, config, sizeof(config));
    metric_text(cell, metric, sizeof(metric));
    percent_text(cell->peak, peak, sizeof(peak));
    ratio_text(cell->speedup, speedup, sizeof(speedup));
    printf("%-*s  %*s  %6s  %10s", w->config, config, w->metric, metric, peak,
           speedup);
    if (cell->vendor) {
        ratio_text(cell->vs_vendor, speedup, sizeof(speedup));
        printf("  %s %s", speedup, cell->vendor);
    }
    printf("\n");
}

static void print_matrix(const atune__cmp *c, const atune__cmp_row *r,
                         int indent)
{
    int lw = 0;

    for (int g = 0; g < c->ngpus; g++)
        lw = max_int(lw, (int)strlen(c->gpus[g].label));
    printf("%*sportability, %% of the run-on GPU's own best (rows: tuned on, "
           "columns: run on)\n%*s%-*s",
           indent, "", indent + 2, "", lw, "");
    for (int b = 0; b < c->ngpus; b++)
        printf("  %*s", max_int(7, (int)strlen(c->gpus[b].label)),
               c->gpus[b].label);
    printf("\n");
    for (int a = 0; a < c->ngpus; a++) {
        printf("%*s%-*s", indent + 2, "", lw, c->gpus[a].label);
        for (int b = 0; b < c->ngpus; b++) {
            char cell[32];
            percent_text(atune__cmp_matrix(c, r, a, b) / 100.0, cell,
                         sizeof(cell));
            printf("  %*s", max_int(7, (int)strlen(c->gpus[b].label)), cell);
        }
        printf("\n");
    }
}

static void print_text(const atune__cmp *c)
{
    widths w;
    int indent;

    measure(c, &w);
    indent = w.kernel + 2 + w.size + 2;
    print_gpus(c);
    printf("\n%-*s  %-*s  %-*s  %-*s  %*s  %6s  %10s%s\n", w.kernel, "kernel",
           w.size, "size", w.gpu, "GPU", w.config, "best configuration",
           w.metric, "metric", "peak", "vs default",
           w.vendor ? "  vs vendor" : "");
    for (int i = 0; i < c->nrows; i++) {
        const atune__cmp_row *r = &c->rows[i];
        for (int g = 0; g < c->ngpus; g++) {
            printf("%-*s  %-*s  %-*s  ", w.kernel, g ? "" : r->kernel, w.size,
                   g ? "" : r->size, w.gpu, c->gpus[g].label);
            print_cell(c, r, g, &w);
        }
        if (r->has_port)
            print_matrix(c, r, indent);
    }
    printf("\n* the parameter differs between GPUs. peak: the metric over the "
           "GPU's\n  [device] mem_bandwidth_gbs (GB/s) or fp32_gflops "
           "(GFLOP/s), '-' when unknown.\n  vs default: default_time_ns / "
           "time_ns, the speedup over the article's\n  configuration."
           "%s\n",
           w.vendor ? " vs vendor: vendor_time_ns / time_ns, above 1 when\n"
                      "  the tuned kernel is faster than the vendor library."
                    : "");
    if (!c->has_port)
        printf("portability: not measured (autotune tune --evaluate "
               "OTHER_PROFILE records it).\n");
}

/* null for NAN, which the JSON writer would also give, but explicit. */
static void json_real(atune__json *j, const char *key, double v)
{
    if (isnan(v))
        atune__json_null(j, key);
    else
        atune__json_num(j, key, v);
}

static void json_gpus(atune__json *j, const atune__cmp *c)
{
    atune__json_array(j, "gpus");
    for (int g = 0; g < c->ngpus; g++) {
        const atune__cmp_gpu *gpu = &c->gpus[g];
        atune__json_object(j, NULL);
        atune__json_str(j, "file", gpu->path);
        atune__json_str(j, "label", gpu->label);
        atune__json_str(j, "name", gpu->dev->name);
        atune__json_str(j, "slug", gpu->slug);
        atune__json_int(j, "cc", gpu->dev->cc);
        atune__json_int(j, "sm_count", gpu->dev->sm_count);
        json_real(j, "mem_bandwidth_gbs",
                  gpu->mem_gbs > 0 ? gpu->mem_gbs : NAN);
        json_real(j, "fp32_gflops",
                  gpu->fp32_gflops > 0 ? gpu->fp32_gflops : NAN);
        atune__json_str(j, "driver", gpu->driver);
        atune__json_str(j, "nvrtc", gpu->nvrtc);
        atune__json_str(j, "date", gpu->date);
        atune__json_end(j);
    }
    atune__json_end(j);
}

static void json_cell(atune__json *j, const atune__cmp *c,
                      const atune__cmp_row *r, int g)
{
    const atune__cmp_cell *cell = &r->cells[g];
    const char *peak = cell->peak_kind == ATUNE__PEAK_MEM ? "memory bandwidth"
                       : cell->peak_kind == ATUNE__PEAK_FP32 ? "fp32"
                                                             : NULL;

    atune__json_object(j, NULL);
    atune__json_str(j, "gpu", c->gpus[g].label);
    atune__json_bool(j, "missing", !cell->cfg);
    if (cell->cfg) {
        atune__json_object(j, "params");
        for (int k = 0; k < atune_config_count(cell->cfg); k++)
            atune__json_int(j, atune_config_name(cell->cfg, k),
                            atune_config_value(cell->cfg, k));
        atune__json_end(j);
        atune__json_int(j, "time_ns", atune_config_time_ns(cell->cfg));
        atune__json_int(j, "default_time_ns",
                        atune_config_default_time_ns(cell->cfg));
        json_real(j, "metric", cell->value);
        atune__json_str(j, "unit", cell->unit);
        json_real(j, "peak_fraction", cell->peak);
        if (peak)
            atune__json_str(j, "peak", peak);
        else
            atune__json_null(j, "peak");
        json_real(j, "speedup", cell->speedup);
        if (cell->vendor) {
            atune__json_str(j, "vendor", cell->vendor);
            atune__json_int(j, "vendor_time_ns", cell->vendor_time_ns);
            json_real(j, "vs_vendor", cell->vs_vendor);
        }
    }
    atune__json_end(j);
}

static void json_matrix(atune__json *j, const atune__cmp *c,
                        const atune__cmp_row *r)
{
    atune__json_object(j, "portability");
    atune__json_array(j, "percent"); /* [tuned on][run on] */
    for (int a = 0; a < c->ngpus; a++) {
        atune__json_array(j, NULL);
        for (int b = 0; b < c->ngpus; b++)
            json_real(j, NULL, atune__cmp_matrix(c, r, a, b));
        atune__json_end(j);
    }
    atune__json_end(j);
    atune__json_array(j, "measured");
    for (int a = 0; a < c->ngpus; a++)
        for (int b = 0; b < c->ngpus; b++) {
            const atune__cmp_port *p = &r->port[a * c->ngpus + b];
            if (isnan(p->percent))
                continue;
            atune__json_object(j, NULL);
            atune__json_str(j, "tuned_on", c->gpus[a].label);
            atune__json_str(j, "run_on", c->gpus[b].label);
            atune__json_str(j, "config", p->config);
            atune__json_int(j, "time_ns", p->time_ns);
            atune__json_int(j, "own_ns", p->own_ns);
            atune__json_num(j, "percent", p->percent);
            atune__json_end(j);
        }
    atune__json_end(j);
    atune__json_end(j);
}

/* Whether param was already named by an earlier GPU's configuration. */
static int named_before(const atune__cmp_row *r, int g, const char *param)
{
    for (int h = 0; h < g; h++)
        for (int k = 0; k < atune_config_count(r->cells[h].cfg); k++)
            if (strcmp(atune_config_name(r->cells[h].cfg, k), param) == 0)
                return 1;
    return 0;
}

/* Every differing parameter once, also those only some GPUs have. */
static void json_differs(atune__json *j, const atune__cmp *c,
                         const atune__cmp_row *r)
{
    atune__json_array(j, "differs");
    for (int g = 0; g < c->ngpus; g++)
        for (int k = 0; k < atune_config_count(r->cells[g].cfg); k++) {
            const char *name = atune_config_name(r->cells[g].cfg, k);
            if (!named_before(r, g, name) && atune__cmp_differs(c, r, name))
                atune__json_str(j, NULL, name);
        }
    atune__json_end(j);
}

static void json_row(atune__json *j, const atune__cmp *c,
                     const atune__cmp_row *r)
{
    atune__json_object(j, NULL);
    atune__json_str(j, "kernel", r->kernel);
    atune__json_str(j, "size", r->size);
    atune__json_str(j, "size_name", r->size_name);
    json_differs(j, c, r);
    atune__json_array(j, "gpus");
    for (int g = 0; g < c->ngpus; g++)
        json_cell(j, c, r, g);
    atune__json_end(j);
    json_matrix(j, c, r);
    atune__json_end(j);
}

static void print_json(const atune__cmp *c)
{
    atune__json j;

    atune__json_init(&j, stdout);
    atune__json_object(&j, NULL);
    atune__json_int(&j, "schema", 1);
    json_gpus(&j, c);
    atune__json_array(&j, "rows");
    for (int i = 0; i < c->nrows; i++)
        json_row(&j, c, &c->rows[i]);
    atune__json_end(&j);
    atune__json_end(&j);
}

/* Values no template could have written are not compared: the syntax
 * errors are left to atune__cmp_load, which names them. */
static int check_values(const atune__cli *o)
{
    atune__templates t = {0};
    atune__err err;
    int bad = 0;

    if (atune__templates_load(NULL, NULL, &t, &err))
        return atune__cli_error(err.code, "%s", err.msg);
    for (int i = 0; i < o->nfiles; i++) {
        atune_profile *p = NULL;
        if (atune_profile_open(o->files[i], &p) == ATUNE_OK)
            bad |= atune__cli_profile_values(p, &t) != 0;
        atune_profile_close(p);
    }
    atune__templates_free(&t);
    return bad ? ATUNE__EDATA : 0;
}

int atune__cmd_compare(const atune__cli *o)
{
    atune__cmp c;
    atune__err err;
    int rc;

    atune__err_clear(&err);
    if (o->html &&
        (rc = atune__report_html_check(o->html, o->files, o->nfiles, &err)))
        return atune__cli_error(rc, "%s", err.msg);
    if ((rc = check_values(o)))
        return rc;
    rc = atune__cmp_load(o->files, o->nfiles, &c, &err);
    /* The report first: if it cannot be written, nothing went to stdout. */
    if (!rc && o->html)
        rc = atune__report_html_write(o->html, o->files, o->nfiles, &c,
                                       &err);
    if (rc) {
        atune__cli_error(rc, "%s", err.msg);
    } else {
        if (o->json)
            print_json(&c);
        else
            print_text(&c);
        if (o->html && !o->quiet)
            fprintf(stderr, "autotune: wrote %s\n", o->html);
    }
    atune__cmp_free(&c);
    return rc;
}
