/* report_html.c -- the HTML report of `autotune compare --html FILE`.
 *
 * One file that a browser shows offline and a reviewer can mail around:
 * CSS in a <style> element, charts as inline SVG drawn here with fixed
 * geometry, no scripts and no URLs. Every string that comes from a profile
 * (names, paths, kernels, units, vendor names) goes through esc(). */
#include "report/report_html.h"

#include "base/outfile.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Colours of the bar series; readable on white and in greyscale. */
#define COL_TUNED "#2b6cb0"
#define COL_DEFAULT "#a0aec0"
#define COL_VENDOR "#dd6b20"

/* Bar chart geometry, px. */
#define BAR_LABEL_W 230 /* GPU and series names left of the plot */
#define BAR_PLOT_W 400
#define BAR_RIGHT_W 130 /* room for the value after the longest bar */
#define BAR_H 16
#define BAR_GAP 4
#define GROUP_GAP 14
#define BAR_TOP 30  /* legend */
#define BAR_AXIS 44 /* ticks and axis title */

/* Heat map: percent at or below HEAT_LO is full red, 100 full green. */
#define HEAT_LO 60.0
#define HEAT_CELL_H 34

static const char style[] =
    "body{margin:24px auto;max-width:1140px;padding:0 16px;"
    "font:14px/1.45 'DejaVu Sans',Verdana,Arial,sans-serif;color:#1a202c;"
    "background:#fff}\n"
    "h1{font-size:22px;margin:0 0 4px}\n"
    "h2{font-size:18px;margin:30px 0 8px;padding-bottom:4px;"
    "border-bottom:2px solid #cbd5e0}\n"
    "h3{font-size:15px;margin:20px 0 6px}\n"
    "h3 .sz{font-weight:normal;color:#718096;font-size:13px}\n"
    "p.sub,.note{color:#4a5568;font-size:13px}\n"
    "table{border-collapse:collapse;margin:6px 0 10px;font-size:13px}\n"
    "th,td{padding:3px 10px;border-bottom:1px solid #e2e8f0;text-align:left;"
    "vertical-align:top}\n"
    "th{background:#f7fafc;font-weight:600}\n"
    "td.num,th.num{text-align:right;white-space:nowrap}\n"
    "code{font:12px 'DejaVu Sans Mono',Consolas,monospace}\n"
    "mark{background:#fefcbf;color:#744210;font-weight:bold;padding:0 2px}\n"
    ".missing{color:#c53030;font-style:italic}\n"
    ".fig{display:flex;flex-wrap:wrap;gap:24px;align-items:flex-start}\n"
    "table.nw td{white-space:nowrap}\n"
    "small{color:#4a5568}\n"
    "a{color:inherit}\n"
    "svg{font-family:'DejaVu Sans',Verdana,Arial,sans-serif;font-size:12px}\n";

static void esc(FILE *f, const char *s)
{
    for (; *s; s++) {
        switch (*s) {
        case '&':
            fputs("&amp;", f);
            break;
        case '<':
            fputs("&lt;", f);
            break;
        case '>':
            fputs("&gt;", f);
            break;
        case '"':
            fputs("&quot;", f);
            break;
        case '\'':
            fputs("&#39;", f);
            break;
        default:
            fputc(*s, f);
        }
    }
}

/* "43,031.6": thousands grouped from 10,000 up, as docs/results.md writes them. */
static void num_text(double v, int decimals, char *buf, size_t len)
{
    char plain[64];
    int digits, n = 0, neg = v < 0;
    size_t o = 0;

    snprintf(plain, sizeof(plain), "%.*f", decimals, fabs(v));
    digits = (int)strcspn(plain, ".");
    if (neg && o + 1 < len)
        buf[o++] = '-';
    for (const char *p = plain; *p && o + 2 < len; p++, n++) {
        if (n > 0 && n < digits && (digits - n) % 3 == 0 && fabs(v) >= 1e4)
            buf[o++] = ',';
        buf[o++] = *p;
    }
    buf[o] = '\0';
}

static double bar_value(const atune__cmp_cell *cell, int series)
{
    if (!cell->cfg)
        return NAN;
    if (series == 0)
        return cell->value;
    if (series == 1)
        return atune__cmp_default_value(cell);
    return atune__cmp_vendor_value(cell);
}

/* Bars a GPU's group has: the tuned one, then default and vendor where
 * known; a missing entry takes one row for its label. */
static int bar_count(const atune__cmp_cell *cell)
{
    int n = 0;

    for (int s = 0; s < 3; s++)
        n += !isnan(bar_value(cell, s));
    return n ? n : 1;
}

/* A step of 1, 2 or 5 times a power of ten giving about five ticks. */
static double nice_step(double max)
{
    double raw = max / 5, mag = pow(10, floor(log10(raw)));
    double norm = raw / mag;

    return (norm <= 1 ? 1 : norm <= 2 ? 2 : norm <= 5 ? 5 : 10) * mag;
}

static void legend_item(FILE *f, int x, const char *fill, const char *text)
{
    fprintf(f,
            "<rect x=\"%d\" y=\"8\" width=\"12\" height=\"12\" fill=\"%s\"/>"
            "<text x=\"%d\" y=\"18\">%s</text>\n",
            x, fill, x + 17, text);
}

static void bar_axis(FILE *f, double axis_max, double step, int y0, int y1,
                     const char *unit)
{
    long ticks = lround(axis_max / step);

    for (long i = 0; i <= ticks; i++) {
        double t = (double)i * step;
        double x = BAR_LABEL_W + t / axis_max * BAR_PLOT_W;
        char label[64];
        num_text(t, step >= 1 ? 0 : 2, label, sizeof(label));
        fprintf(f,
                "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" "
                "stroke=\"%s\"/>"
                "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\" "
                "fill=\"#4a5568\">%s</text>\n",
                x, y0, x, y1 + 4, t > 0 ? "#e2e8f0" : "#4a5568", x, y1 + 17,
                label);
    }
    fprintf(f,
            "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#4a5568\"/>"
            "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\" fill=\"#2d3748\">",
            BAR_LABEL_W, y1, BAR_LABEL_W + BAR_PLOT_W, y1,
            BAR_LABEL_W + BAR_PLOT_W / 2, y1 + 36);
    esc(f, *unit ? unit : "metric");
    fputs(" (higher is better)</text>\n", f);
}

static void bar_one(FILE *f, int y, double v, double axis_max, int series,
                    const atune__cmp_cell *cell)
{
    static const char *const fills[] = {COL_TUNED, COL_DEFAULT, COL_VENDOR};
    static const char *const names[] = {"tuned", "default", NULL};
    double w = v / axis_max * BAR_PLOT_W;
    char value[64];

    num_text(v, 1, value, sizeof(value));
    fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\" fill=\"#4a5568\">",
            BAR_LABEL_W - 8, y + BAR_H - 4);
    esc(f, names[series] ? names[series] : cell->vendor);
    fprintf(f,
            "</text><rect x=\"%d\" y=\"%d\" width=\"%.1f\" height=\"%d\" "
            "fill=\"%s\"/><text x=\"%.1f\" y=\"%d\">%s",
            BAR_LABEL_W, y, w, BAR_H, fills[series], BAR_LABEL_W + w + 5,
            y + BAR_H - 4, value);
    if (series == 0 && !isnan(cell->speedup))
        fprintf(f, " (%.2fx)", cell->speedup);
    fputs("</text>\n", f);
}

static void bar_group(FILE *f, const atune__cmp_gpu *g,
                      const atune__cmp_cell *cell, int y, double axis_max)
{
    int row = 0;

    fprintf(f, "<text x=\"4\" y=\"%d\" font-weight=\"bold\">", y + BAR_H - 4);
    esc(f, g->label);
    fputs("</text>\n", f);
    if (isnan(bar_value(cell, 0))) {
        fprintf(f,
                "<text x=\"%d\" y=\"%d\" fill=\"#c53030\" "
                "font-style=\"italic\">%s</text>\n",
                BAR_LABEL_W + 5, y + BAR_H - 4,
                cell->cfg ? "no metric recorded" : "missing");
        return;
    }
    for (int s = 0; s < 3; s++) {
        double v = bar_value(cell, s);
        if (isnan(v))
            continue;
        bar_one(f, y + row * (BAR_H + BAR_GAP), v, axis_max, s, cell);
        row++;
    }
}

static void write_bars(FILE *f, const atune__cmp *c, const atune__cmp_row *r)
{
    double max = 0;
    int height = BAR_TOP, vendor = 0, y = BAR_TOP;
    const char *unit = "";

    for (int g = 0; g < c->ngpus; g++) {
        const atune__cmp_cell *cell = &r->cells[g];
        for (int s = 0; s < 3; s++)
            if (bar_value(cell, s) > max)
                max = bar_value(cell, s);
        vendor |= !isnan(bar_value(cell, 2));
        if (cell->cfg && !*unit)
            unit = cell->unit;
        height +=
            bar_count(cell) * (BAR_H + BAR_GAP) - BAR_GAP + (g ? GROUP_GAP : 0);
    }
    /* Nothing positive and finite: no scale to draw on. */
    if (!(max > 0) || !isfinite(max)) {
        fputs("<p class=\"note\">No metric recorded: nothing to chart.</p>\n",
              f);
        return;
    }
    double step = nice_step(max), axis_max = ceil(max / step) * step;
    fprintf(f,
            "<svg width=\"%d\" "
            "height=\"%d\" viewBox=\"0 0 %d %d\" role=\"img\">\n<title>",
            BAR_LABEL_W + BAR_PLOT_W + BAR_RIGHT_W, height + BAR_AXIS,
            BAR_LABEL_W + BAR_PLOT_W + BAR_RIGHT_W, height + BAR_AXIS);
    esc(f, r->kernel);
    fputc(' ', f);
    esc(f, r->size);
    fputs(": tuned vs default per GPU</title>\n", f);
    legend_item(f, BAR_LABEL_W, COL_TUNED, "tuned (speedup)");
    legend_item(f, BAR_LABEL_W + 130, COL_DEFAULT, "article default");
    if (vendor)
        legend_item(f, BAR_LABEL_W + 260, COL_VENDOR, "vendor library");
    bar_axis(f, axis_max, step, BAR_TOP - 4, height + 4, unit);
    for (int g = 0; g < c->ngpus; g++) {
        bar_group(f, &c->gpus[g], &r->cells[g], y, axis_max);
        y += bar_count(&r->cells[g]) * (BAR_H + BAR_GAP) - BAR_GAP + GROUP_GAP;
    }
    fputs("</svg>\n", f);
}

/* Red at HEAT_LO percent or less, yellow half-way, green at 100. */
static void heat_colour(double percent, int rgb[3])
{
    static const int stops[3][3] = {
        {215, 48, 39}, {254, 224, 139}, {26, 152, 80}};
    double t = (percent - HEAT_LO) / (100.0 - HEAT_LO);
    int lo;

    t = t < 0 ? 0 : t > 1 ? 1 : t;
    lo = t < 0.5 ? 0 : 1;
    t = t < 0.5 ? t * 2 : (t - 0.5) * 2;
    for (int i = 0; i < 3; i++)
        rgb[i] =
            (int)lround(stops[lo][i] + t * (stops[lo + 1][i] - stops[lo][i]));
}

static int label_width(const atune__cmp *c)
{
    size_t n = 0;

    for (int g = 0; g < c->ngpus; g++)
        if (strlen(c->gpus[g].label) > n)
            n = strlen(c->gpus[g].label);
    /* About 7.5 px per character at 12 px. */
    return (int)n * 15 / 2 + 16;
}

static void heat_cell(FILE *f, int x, int y, int w, double p)
{
    int rgb[3];

    if (isnan(p)) {
        fprintf(f,
                "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" "
                "fill=\"#edf2f7\" stroke=\"#fff\" stroke-width=\"2\"/>"
                "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\" "
                "fill=\"#a0aec0\">-</text>\n",
                x, y, w, HEAT_CELL_H, x + w / 2, y + HEAT_CELL_H / 2 + 4);
        return;
    }
    heat_colour(p, rgb);
    fprintf(f,
            "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" "
            "fill=\"#%02x%02x%02x\" stroke=\"#fff\" stroke-width=\"2\"/>"
            "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\" "
            "font-weight=\"bold\" fill=\"%s\">%.1f%%</text>\n",
            x, y, w, HEAT_CELL_H, rgb[0], rgb[1], rgb[2], x + w / 2,
            y + HEAT_CELL_H / 2 + 4,
            p > 100.0 - (100.0 - HEAT_LO) * 0.2 ? "#fff" : "#1a202c", p);
}

static void heat_legend(FILE *f, int x, int y)
{
    for (int i = 0; i < 20; i++) {
        int rgb[3];
        heat_colour(HEAT_LO + (100.0 - HEAT_LO) * (i + 0.5) / 20, rgb);
        fprintf(f,
                "<rect x=\"%d\" y=\"%d\" width=\"8\" height=\"10\" "
                "fill=\"#%02x%02x%02x\"/>",
                x + 8 * i, y, rgb[0], rgb[1], rgb[2]);
    }
    fprintf(f,
            "\n<text x=\"%d\" y=\"%d\" fill=\"#4a5568\">&#8804;%.0f%%</text>"
            "<text x=\"%d\" y=\"%d\" text-anchor=\"end\" "
            "fill=\"#4a5568\">100%%</text>\n",
            x, y + 24, HEAT_LO, x + 160, y + 24);
}

static void write_heat(FILE *f, const atune__cmp *c, const atune__cmp_row *r)
{
    int left = 24 + label_width(c), top = 46, n = c->ngpus;
    int cw = label_width(c) > 90 ? label_width(c) : 90;
    int width = left + n * cw + 10, height = top + n * HEAT_CELL_H + 44;

    if (width < left + 170)
        width = left + 170;
    fprintf(f,
            "<svg width=\"%d\" "
            "height=\"%d\" viewBox=\"0 0 %d %d\" role=\"img\">\n<title>",
            width, height, width, height);
    esc(f, r->kernel);
    fputc(' ', f);
    esc(f, r->size);
    fprintf(f,
            ": portability matrix</title>\n"
            "<text x=\"%d\" y=\"14\" text-anchor=\"middle\" "
            "font-weight=\"bold\">run on &#8594;</text>\n"
            "<text transform=\"translate(14 %d) rotate(-90)\" "
            "text-anchor=\"middle\" font-weight=\"bold\">tuned on &#8594;"
            "</text>\n",
            left + n * cw / 2, top + n * HEAT_CELL_H / 2);
    for (int b = 0; b < n; b++) {
        fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">",
                left + b * cw + cw / 2, top - 10);
        esc(f, c->gpus[b].label);
        fputs("</text>\n", f);
    }
    for (int a = 0; a < n; a++) {
        fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">", left - 8,
                top + a * HEAT_CELL_H + HEAT_CELL_H / 2 + 4);
        esc(f, c->gpus[a].label);
        fputs("</text>\n", f);
        for (int b = 0; b < n; b++)
            heat_cell(f, left + b * cw, top + a * HEAT_CELL_H, cw,
                      atune__cmp_matrix(c, r, a, b));
    }
    heat_legend(f, left, top + n * HEAT_CELL_H + 12);
    fputs("</svg>\n", f);
}

/* The configuration with the parameters that differ between GPUs marked. */
static void config_html(FILE *f, const atune__cmp *c, const atune__cmp_row *r,
                        const atune_config *cfg)
{
    fputs("<code>", f);
    if (atune_config_count(cfg) == 0)
        fputs("(no parameters)", f);
    for (int k = 0; k < atune_config_count(cfg); k++) {
        const char *name = atune_config_name(cfg, k);
        int mark = atune__cmp_differs(c, r, name);
        fputs(k ? ", " : "", f);
        fputs(mark ? "<mark>" : "", f);
        esc(f, name);
        fprintf(f, "=%" PRId64 "%s", atune_config_value(cfg, k),
                mark ? "</mark>" : "");
    }
    fputs("</code>", f);
}

static void ratio_cell(FILE *f, double v, const char *suffix)
{
    if (isnan(v))
        fputs("<td class=\"num\">-</td>", f);
    else
        fprintf(f, "<td class=\"num\">%.2fx%s</td>", v, suffix);
}

static void metric_cells(FILE *f, const atune__cmp_cell *cell)
{
    char value[64];

    if (isnan(cell->value)) {
        fputs("<td class=\"num\">", f);
        esc(f, atune_config_meta(cell->cfg, "metric")
                   ? atune_config_meta(cell->cfg, "metric")
                   : "-");
        fputs("</td>", f);
    } else {
        num_text(cell->value, 1, value, sizeof(value));
        fprintf(f, "<td class=\"num\">%s ", value);
        esc(f, cell->unit);
        fputs("</td>", f);
    }
    if (isnan(cell->peak))
        fputs("<td class=\"num\">-</td>", f);
    else
        fprintf(f, "<td class=\"num\">%.1f%%</td>", 100 * cell->peak);
    ratio_cell(f, cell->speedup, "");
}

static void write_configs(FILE *f, const atune__cmp *c, const atune__cmp_row *r)
{
    int vendor = 0;

    for (int g = 0; g < c->ngpus; g++)
        vendor |= r->cells[g].vendor != NULL;
    fprintf(f,
            "<table class=\"nw\"><tr><th>GPU</th><th>best configuration</th>"
            "<th class=\"num\">metric</th><th class=\"num\">of peak</th>"
            "<th class=\"num\">vs default</th>%s</tr>\n",
            vendor ? "<th>vs vendor</th>" : "");
    for (int g = 0; g < c->ngpus; g++) {
        const atune__cmp_cell *cell = &r->cells[g];
        fputs("<tr><td>", f);
        esc(f, c->gpus[g].label);
        fputs("</td>", f);
        if (!cell->cfg) {
            fprintf(f,
                    "<td class=\"missing\" colspan=\"%d\">missing</td>"
                    "</tr>\n",
                    4 + vendor);
            continue;
        }
        fputs("<td>", f);
        config_html(f, c, r, cell->cfg);
        fputs("</td>", f);
        metric_cells(f, cell);
        if (cell->vendor) {
            if (isnan(cell->vs_vendor))
                fputs("<td>- ", f);
            else
                fprintf(f, "<td>%.2fx ", cell->vs_vendor);
            esc(f, cell->vendor);
            fputs("</td>", f);
        } else if (vendor) {
            fputs("<td>-</td>", f);
        }
        fputs("</tr>\n", f);
    }
    fputs("</table>\n", f);
}

static void write_row(FILE *f, const atune__cmp *c, const atune__cmp_row *r,
                      int i)
{
    fprintf(f, "<section id=\"r%d\">\n<h3>", i);
    esc(f, r->kernel);
    fputc(' ', f);
    esc(f, r->size);
    if (*r->size_name) {
        fputs(" <span class=\"sz\">(", f);
        esc(f, r->size_name);
        fputs(")</span>", f);
    }
    fputs("</h3>\n<div class=\"fig\">\n", f);
    write_bars(f, c, r);
    if (r->has_port)
        write_heat(f, c, r);
    fputs("</div>\n", f);
    write_configs(f, c, r);
    fputs("</section>\n", f);
}

static void gpu_row(FILE *f, const atune__cmp_gpu *g)
{
    char drv[32], nvrtc[32];

    atune__cmp_version(g->driver, drv, sizeof(drv));
    atune__cmp_version(g->nvrtc, nvrtc, sizeof(nvrtc));
    fputs("<tr><td><b>", f);
    esc(f, g->label);
    fputs("</b>", f);
    if (strcmp(g->label, g->dev->name) != 0) {
        fputs("<br><small>", f);
        esc(f, g->dev->name);
        fputs("</small>", f);
    }
    fputs("</td><td><code>", f);
    esc(f, g->path);
    fprintf(f,
            "</code></td><td class=\"num\">%d.%d</td>"
            "<td class=\"num\">%d</td>",
            g->dev->cc / 10, g->dev->cc % 10, g->dev->sm_count);
    if (g->mem_gbs > 0)
        fprintf(f, "<td class=\"num\">%.0f GB/s</td>", g->mem_gbs);
    else
        fputs("<td class=\"num\">-</td>", f);
    if (g->fp32_gflops > 0)
        fprintf(f, "<td class=\"num\">%.0f GFLOP/s</td>", g->fp32_gflops);
    else
        fputs("<td class=\"num\">-</td>", f);
    fputs("<td>", f);
    esc(f, drv);
    fputs("</td><td>", f);
    esc(f, nvrtc);
    fputs("</td><td>", f);
    esc(f, *g->date ? g->date : "-");
    fputs("</td></tr>\n", f);
}

static void write_header(FILE *f, const atune__cmp *c)
{
    fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8"
          "\">\n<meta name=\"viewport\" content=\"width=device-width\">\n"
          "<title>autotune: ",
          f);
    for (int g = 0; g < c->ngpus; g++) {
        fputs(g ? " vs " : "", f);
        esc(f, c->gpus[g].label);
    }
    fprintf(f, "</title>\n<style>\n%s</style>\n</head>\n<body>\n<h1>", style);
    for (int g = 0; g < c->ngpus; g++) {
        fputs(g ? " vs " : "", f);
        esc(f, c->gpus[g].label);
    }
    fprintf(f,
            ": tuned launch configurations</h1>\n<p class=\"sub\">autotune "
            "%s compare of %d profile%s, %d (kernel, size) entries.</p>\n"
            "<table class=\"nw\"><tr><th>GPU</th><th>profile</th>"
            "<th class=\"num\">cc</th><th class=\"num\">SMs</th>"
            "<th class=\"num\">memory bandwidth</th>"
            "<th class=\"num\">FP32 peak</th><th>driver</th><th>NVRTC</th>"
            "<th>tuned</th></tr>\n",
            ATUNE_VERSION_STRING, c->ngpus, c->ngpus == 1 ? "" : "s", c->nrows);
    for (int g = 0; g < c->ngpus; g++)
        gpu_row(f, &c->gpus[g]);
    fputs("</table>\n<p class=\"note\">Bars: the metric of each GPU's best "
          "configuration, of the article's default configuration (the "
          "template's first values) and, where the profile records one, of "
          "the vendor library, on the same problem. <mark>Marked</mark> "
          "parameters differ between GPUs. <i>of peak</i>: the metric over "
          "the GPU's memory bandwidth (GB/s) or FP32 peak (GFLOP/s). "
          "Portability: the percent of the run-on GPU's own best that the "
          "tuned-on GPU's configuration keeps (rows: where tuned, columns: "
          "where run).",
          f);
    if (!c->has_port)
        fputs(" No portability was measured in these profiles "
              "(<code>autotune tune --evaluate OTHER_PROFILE</code> "
              "records it).",
              f);
    fputs("</p>\n", f);
}

/* One line per (kernel, size), one cell per GPU: the page's summary. */
static void overview_cell(FILE *f, const atune__cmp_cell *cell)
{
    char value[64];

    if (!cell->cfg) {
        fputs("<td class=\"missing\">missing</td>", f);
        return;
    }
    if (isnan(cell->value)) {
        fputs("<td>-", f);
    } else {
        num_text(cell->value, 1, value, sizeof(value));
        fprintf(f, "<td><b>%s</b> ", value);
        esc(f, cell->unit);
    }
    fputs(" <small>", f);
    if (!isnan(cell->peak))
        fprintf(f, "%.1f%% of peak, ", 100 * cell->peak);
    if (!isnan(cell->speedup))
        fprintf(f, "%.2fx default", cell->speedup);
    fputs("</small></td>", f);
}

static void write_overview(FILE *f, const atune__cmp *c)
{
    fputs("<h2>Overview</h2>\n<table class=\"nw\"><tr><th>kernel, size</th>",
          f);
    for (int g = 0; g < c->ngpus; g++) {
        fputs("<th>", f);
        esc(f, c->gpus[g].label);
        fputs("</th>", f);
    }
    fputs("<th>portability</th></tr>\n", f);
    for (int i = 0; i < c->nrows; i++) {
        const atune__cmp_row *r = &c->rows[i];
        fprintf(f, "<tr><td><a href=\"#r%d\">", i);
        esc(f, r->kernel);
        fputc(' ', f);
        esc(f, r->size);
        fputs("</a></td>", f);
        for (int g = 0; g < c->ngpus; g++)
            overview_cell(f, &r->cells[g]);
        fprintf(f, "<td>%s</td></tr>\n", r->has_port ? "measured" : "-");
    }
    fputs("</table>\n", f);
}

static void write_report(FILE *f, const atune__cmp *c)
{
    write_header(f, c);
    write_overview(f, c);
    for (int i = 0; i < c->nrows; i++) {
        const atune__cmp_row *r = &c->rows[i];
        if (i == 0 || strcmp(r->kernel, c->rows[i - 1].kernel) != 0) {
            fputs("<h2>", f);
            esc(f, r->kernel);
            fputs("</h2>\n", f);
        }
        write_row(f, c, r, i);
    }
    fputs("</body>\n</html>\n", f);
}

static int fill_report(FILE *f, void *ctx)
{
    write_report(f, ctx);
    return 0; /* a failed write shows in ferror() */
}

/* Whether the file open at fd is a report of ours: what write_report puts
 * first. Reports are the only files it replaces. */
static int ours(int fd)
{
    char head[1024];
    ssize_t n = read(fd, head, sizeof(head) - 1);

    if (n < 0)
        return 0;
    head[n] = '\0';
    return strncmp(head, "<!DOCTYPE html>", 15) == 0 &&
           strstr(head, "<title>autotune: ") != NULL;
}

/* No directory sync: a report is cheap to make again, and the rename alone
 * already means that no reader ever sees half of one. A device or a FIFO
 * is written through, never renamed over (as root, a rename would replace
 * /dev/full with a regular file); a link of the user's is followed, so
 * the file it names is replaced and the link stays. */
static atune__out_rules rules(char *const *inputs, int n)
{
    atune__out_rules r = {.what = "--html",
                          .kind = "an HTML report of autotune compare",
                          .inputs = inputs,
                          .ninputs = n,
                          .ours = ours,
                          .links = ATUNE__LINK_TRUSTED,
                          .special = ATUNE__SPECIAL_THROUGH};
    return r;
}

int atune__report_html_check(const char *path, char *const *inputs, int n,
                             atune__err *err)
{
    atune__out_rules r = rules(inputs, n);
    char *real;
    int through, rc = atune__out_resolve(path, &r, &real, &through, err);

    free(real);
    return rc;
}

int atune__report_html_write(const char *path, char *const *inputs, int n,
                             const atune__cmp *c, atune__err *err)
{
    atune__out_rules r = rules(inputs, n);

    return atune__out_write(path, &r, fill_report, (void *)c, err);
}
