/* compare.c -- the model behind `autotune compare`: profiles opened through
 * the library (so a malformed one is refused exactly as an application
 * would refuse it), then the raw keys the library does not interpret
 * (metric, peaks, vendor baseline, port.*) read from the parsed document,
 * where their line numbers are known. */
#include "report/compare.h"

#include <errno.h>
#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/number.h"
#include "lib/profile_internal.h"

static const char *raw(const atune__ini_section *s, const char *key)
{
    const atune__ini_entry *e = s ? atune__ini_get(s, key) : NULL;

    return e ? e->value : "";
}

/* Strict positive-or-zero real: the whole value, finite. Absent keys leave
 * *out alone. */
static int get_real(const char *path, const atune__ini_section *s,
                    const char *key, double *out, atune__err *err)
{
    const atune__ini_entry *e = atune__ini_get(s, key);

    if (!e)
        return ATUNE__OK;
    if (atune__parse_real(e->value, 0, DBL_MAX, out))
        return atune__fail(err, ATUNE__EDATA, "%s:%d: bad number '%s' for '%s'",
                           path, e->line, e->value, key);
    return ATUNE__OK;
}

static int get_count(const char *path, const atune__ini_section *s,
                     const char *key, int64_t *out, atune__err *err)
{
    const atune__ini_entry *e = atune__ini_get(s, key);

    if (!e)
        return ATUNE__OK;
    if (atune__parse_i64(e->value, 0, INT64_MAX, out))
        return atune__fail(err, ATUNE__EDATA,
                           "%s:%d: bad integer '%s' for '%s'", path, e->line,
                           e->value, key);
    return ATUNE__OK;
}

/* The library's status as the CLI's exit code, with its message. */
static int open_error(const atune_profile *p, int status, const char *path,
                      atune__err *err)
{
    const char *msg = p ? atune_profile_errmsg(p) : "";
    int code = status == ATUNE_EIO      ? ATUNE__ENOINPUT
               : status == ATUNE_ENOMEM ? ATUNE__EOSERR
                                        : ATUNE__EDATA;

    if (!*msg)
        return atune__fail(err, code, "%s: %s", path, atune_strerror(status));
    return atune__fail(err, code, "%s", msg);
}

static int open_gpu(atune__cmp_gpu *g, const char *path, atune__err *err)
{
    const atune__ini_section *dev;
    int rc;

    g->path = path;
    rc = atune_profile_open(path, &g->prof);
    if (rc != ATUNE_OK)
        return open_error(g->prof, rc, path, err);
    g->dev = atune_profile_device(g->prof);
    dev = atune__ini_find(atune__profile_doc(g->prof), "device");
    g->slug = raw(dev, "slug");
    g->date = raw(dev, "date");
    g->driver = raw(dev, "driver");
    g->nvrtc = raw(dev, "nvrtc");
    g->tuner = raw(dev, "tuner");
    if ((rc = get_real(path, dev, "mem_bandwidth_gbs", &g->mem_gbs, err)))
        return rc;
    return get_real(path, dev, "fp32_gflops", &g->fp32_gflops, err);
}

/* Column names: the model without the vendor's prefix, which every GPU
 * shares; the profile's position breaks a tie between two of one model. */
static void make_labels(atune__cmp *c)
{
    for (int i = 0; i < c->ngpus; i++) {
        atune__cmp_gpu *g = &c->gpus[i];
        const char *name = g->dev->name;

        if (strncmp(name, "NVIDIA ", 7) == 0 && name[7])
            name += 7;
        snprintf(g->label, sizeof(g->label), "%.50s", name);
        for (int j = 0; j < i; j++)
            if (strcmp(c->gpus[j].label, g->label) == 0) {
                snprintf(g->label, sizeof(g->label), "%.50s #%d", name, i + 1);
                break;
            }
    }
}

static int canon_of(const char *kernel, const char *size, char *buf, size_t len)
{
    char name[2 * (ATUNE__INI_MAX_NAME + 1)];

    snprintf(name, sizeof(name), "%s %s", kernel, size);
    return atune__section_canon(name, buf, len, NULL, 0);
}

/* The slot of canon in c's hash of rows: the one holding it, or the free
 * one where it goes. Rows are found in constant time: compare is linear
 * in the sections of its profiles (20,000 took 26 s when every entry
 * searched every row and every section). */
static int *row_slot(const atune__cmp *c, const char *canon)
{
    size_t mask = c->nslots - 1,
           h = (size_t)atune__fnv1a(canon, strlen(canon), ATUNE__FNV_SEED) &
               mask;

    for (;; h = (h + 1) & mask) {
        int *sl = &c->slot[h];
        if (!*sl || strcmp(c->rows[*sl - 1].canon, canon) == 0)
            return sl;
    }
}

static atune__cmp_row *find_row(atune__cmp *c, const char *canon)
{
    int *sl = c->nslots ? row_slot(c, canon) : NULL;

    return sl && *sl ? &c->rows[*sl - 1] : NULL;
}

/* Room for one more row: the array and its hash grown together. */
static int grow_rows(atune__cmp *c, atune__err *err)
{
    int cap = c->rows_cap ? 2 * c->rows_cap : 64;
    atune__cmp_row *rows = realloc(c->rows, (size_t)cap * sizeof(*rows));
    int *slot;

    if (!rows)
        return atune__fail(err, ATUNE__EOSERR, "out of memory");
    c->rows = rows;
    if (!(slot = atune__calloc(4 * (size_t)cap, sizeof(*slot))))
        return atune__fail(err, ATUNE__EOSERR, "out of memory");
    free(c->slot);
    c->slot = slot;
    c->nslots = 4 * (size_t)cap;
    c->rows_cap = cap;
    for (int i = 0; i < c->nrows; i++)
        *row_slot(c, c->rows[i].canon) = i + 1;
    return ATUNE__OK;
}

static atune__cmp_row *new_row(atune__cmp *c, const atune_config *cfg,
                               const char *canon, atune__err *err)
{
    atune__cmp_row *r;
    size_t n = (size_t)c->ngpus;

    if (c->nrows == c->rows_cap && grow_rows(c, err) != ATUNE__OK)
        return NULL;
    r = &c->rows[c->nrows];
    memset(r, 0, sizeof(*r));
    r->cells = atune__calloc(n, sizeof(*r->cells));
    r->port = atune__calloc(n * n, sizeof(*r->port));
    if (!r->cells || !r->port) {
        free(r->cells);
        free(r->port);
        atune__fail(err, ATUNE__EOSERR, "out of memory");
        return NULL;
    }
    snprintf(r->kernel, sizeof(r->kernel), "%s", atune_config_kernel(cfg));
    snprintf(r->size, sizeof(r->size), "%s", atune_config_size(cfg));
    snprintf(r->canon, sizeof(r->canon), "%s", canon);
    r->size_name = "";
    r->seq = c->nrows++;
    *row_slot(c, canon) = r->seq + 1;
    return r;
}

static int add_entries(atune__cmp *c, int g, atune__err *err)
{
    const atune_profile *p = c->gpus[g].prof;

    for (int i = 0; i < atune_profile_count(p); i++) {
        const atune_config *cfg = atune_profile_entry(p, i);
        char canon[ATUNE__INI_MAX_NAME + 1];
        atune__cmp_row *r;

        if (canon_of(atune_config_kernel(cfg), atune_config_size(cfg), canon,
                     sizeof(canon)) != 0)
            return atune__fail(err, ATUNE__ESOFTWARE,
                               "%s: cannot name entry %d", c->gpus[g].path, i);
        r = find_row(c, canon);
        if (!r && !(r = new_row(c, cfg, canon, err)))
            return err->code;
        r->cells[g].cfg = cfg;
        r->cells[g].sec = atune__config_section(cfg);
        if (!r->cells[g].sec)
            return atune__fail(err, ATUNE__ESOFTWARE,
                               "%s: section of '%s' not found", c->gpus[g].path,
                               canon);
        if (!r->size_name[0])
            r->size_name = raw(r->cells[g].sec, "size");
    }
    return ATUNE__OK;
}

/* "4266.8 GB/s" -> 4266.8 and "GB/s". The metric is written for people,
 * so text that is not a number is shown as is, not refused. */
static void parse_metric(atune__cmp_cell *cell)
{
    const char *m = raw(cell->sec, "metric");
    size_t n = strcspn(m, " \t");
    char num[64];

    cell->value = NAN;
    if (n >= sizeof(num))
        return;
    memcpy(num, m, n);
    num[n] = '\0';
    if (atune__parse_real(num, 0, DBL_MAX, &cell->value)) {
        cell->value = NAN;
        return;
    }
    m += n;
    while (*m == ' ' || *m == '\t')
        m++;
    snprintf(cell->unit, sizeof(cell->unit), "%s", m);
}

static int unit_is(const char *unit, const char *want)
{
    size_t n = strlen(want);

    return strncmp(unit, want, n) == 0 && (unit[n] == '\0' || unit[n] == ' ');
}

static int fill_cell(const atune__cmp_gpu *g, atune__cmp_cell *cell,
                     atune__err *err)
{
    int64_t t = atune_config_time_ns(cell->cfg);
    int64_t dt = atune_config_default_time_ns(cell->cfg);
    int rc;

    cell->peak = cell->speedup = cell->vs_vendor = NAN;
    parse_metric(cell);
    if (unit_is(cell->unit, "GB/s") && g->mem_gbs > 0) {
        cell->peak_kind = ATUNE__PEAK_MEM;
        cell->peak = cell->value / g->mem_gbs;
    } else if (unit_is(cell->unit, "GFLOP/s") && g->fp32_gflops > 0) {
        cell->peak_kind = ATUNE__PEAK_FP32;
        cell->peak = cell->value / g->fp32_gflops;
    }
    if (t > 0 && dt > 0)
        cell->speedup = (double)dt / (double)t;
    rc = get_count(g->path, cell->sec, "vendor_time_ns", &cell->vendor_time_ns,
                   err);
    if (rc)
        return rc;
    if (cell->vendor_time_ns > 0)
        cell->vendor =
            *raw(cell->sec, "vendor") ? raw(cell->sec, "vendor") : "vendor";
    if (cell->vendor_time_ns > 0 && t > 0)
        cell->vs_vendor = (double)cell->vendor_time_ns / (double)t;
    return ATUNE__OK;
}

/* Run-on GPU b's record of tuned-on GPU a's configuration. */
static int fill_port(const atune__cmp *c, atune__cmp_row *r, int a, int b,
                     atune__err *err)
{
    const atune__cmp_gpu *run = &c->gpus[b];
    const atune__ini_section *s = r->cells[b].sec;
    atune__cmp_port *pt = &r->port[a * c->ngpus + b];
    const char *slug = c->gpus[a].slug;
    char key[3 * ATUNE__INI_MAX_NAME];
    int rc;

    pt->percent = NAN;
    pt->config = "";
    if (!s || !*slug || a == b)
        return ATUNE__OK;
    snprintf(key, sizeof(key), "port.%s.config", slug);
    pt->config = raw(s, key);
    snprintf(key, sizeof(key), "port.%s.time_ns", slug);
    if ((rc = get_count(run->path, s, key, &pt->time_ns, err)))
        return rc;
    snprintf(key, sizeof(key), "port.%s.own_ns", slug);
    if ((rc = get_count(run->path, s, key, &pt->own_ns, err)))
        return rc;
    snprintf(key, sizeof(key), "port.%s.percent", slug);
    if ((rc = get_real(run->path, s, key, &pt->percent, err)))
        return rc;
    /* The percent is derived; the two times alone still give it. */
    if (isnan(pt->percent) && pt->time_ns > 0 && pt->own_ns > 0)
        pt->percent = 100.0 * (double)pt->own_ns / (double)pt->time_ns;
    if (!isnan(pt->percent))
        r->has_port = 1;
    return ATUNE__OK;
}

static int fill_row(atune__cmp *c, atune__cmp_row *r, atune__err *err)
{
    int rc;

    for (int b = 0; b < c->ngpus; b++) {
        if (r->cells[b].cfg && (rc = fill_cell(&c->gpus[b], &r->cells[b], err)))
            return rc;
        for (int a = 0; a < c->ngpus; a++)
            if ((rc = fill_port(c, r, a, b, err)))
                return rc;
    }
    c->has_port |= r->has_port;
    return ATUNE__OK;
}

static int cmp_rows(const void *x, const void *y)
{
    const atune__cmp_row *a = x, *b = y;
    int k = strcmp(a->kernel, b->kernel);

    return k ? k : (a->seq > b->seq) - (a->seq < b->seq);
}

int atune__cmp_load(char *const *paths, int n, atune__cmp *out, atune__err *err)
{
    int rc = ATUNE__OK;

    memset(out, 0, sizeof(*out));
    out->gpus = atune__calloc((size_t)n, sizeof(*out->gpus));
    if (!out->gpus)
        return atune__fail(err, ATUNE__EOSERR, "out of memory");
    out->ngpus = n;
    for (int i = 0; !rc && i < n; i++)
        rc = open_gpu(&out->gpus[i], paths[i], err);
    if (rc)
        return rc;
    make_labels(out);
    for (int i = 0; !rc && i < n; i++)
        rc = add_entries(out, i, err);
    if (rc)
        return rc;
    /* Sorting moves rows, not their cells: the pointers stay valid; the
     * hash of rows does not, and is not needed any more. */
    free(out->slot);
    out->slot = NULL;
    out->nslots = 0;
    if (out->nrows > 1)
        qsort(out->rows, (size_t)out->nrows, sizeof(*out->rows), cmp_rows);
    for (int i = 0; !rc && i < out->nrows; i++)
        rc = fill_row(out, &out->rows[i], err);
    return rc;
}

void atune__cmp_free(atune__cmp *c)
{
    for (int i = 0; i < c->nrows; i++) {
        free(c->rows[i].cells);
        free(c->rows[i].port);
    }
    for (int i = 0; i < c->ngpus; i++)
        atune_profile_close(c->gpus[i].prof);
    free(c->rows);
    free(c->slot);
    free(c->gpus);
    memset(c, 0, sizeof(*c));
}

static int param_of(const atune_config *cfg, const char *param, int64_t *v)
{
    for (int k = 0; k < atune_config_count(cfg); k++)
        if (strcmp(atune_config_name(cfg, k), param) == 0) {
            *v = atune_config_value(cfg, k);
            return 1;
        }
    return 0;
}

int atune__cmp_differs(const atune__cmp *c, const atune__cmp_row *r,
                       const char *param)
{
    int have = 0, seen = 0, differs = 0;
    int64_t first = 0, v;

    for (int g = 0; g < c->ngpus; g++) {
        if (!r->cells[g].cfg)
            continue;
        have++;
        if (!param_of(r->cells[g].cfg, param, &v))
            differs = 1;
        else if (!seen++)
            first = v;
        else if (v != first)
            differs = 1;
    }
    return have >= 2 && differs;
}

double atune__cmp_matrix(const atune__cmp *c, const atune__cmp_row *r, int a,
                         int b)
{
    if (a == b)
        return r->cells[b].cfg ? 100.0 : NAN;
    return r->port[a * c->ngpus + b].percent;
}

static double scaled(const atune__cmp_cell *cell, int64_t other_ns)
{
    int64_t t = atune_config_time_ns(cell->cfg);

    if (!cell->cfg || isnan(cell->value) || t <= 0 || other_ns <= 0)
        return NAN;
    return cell->value * (double)t / (double)other_ns;
}

double atune__cmp_default_value(const atune__cmp_cell *cell)
{
    return scaled(cell, atune_config_default_time_ns(cell->cfg));
}

double atune__cmp_vendor_value(const atune__cmp_cell *cell)
{
    return scaled(cell, cell->vendor_time_ns);
}

void atune__cmp_version(const char *v, char *buf, size_t len)
{
    int64_t n;

    if (!atune__parse_i64(v, 1000, INT64_MAX, &n))
        snprintf(buf, len, "%" PRId64 ".%" PRId64, n / 1000, n % 1000 / 10);
    else
        snprintf(buf, len, "%s", *v ? v : "-");
}
