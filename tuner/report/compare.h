/* compare.h -- profiles of several GPUs side by side: one row per (kernel,
 * size) found in any of them, one cell per GPU, and the portability matrix
 * that `autotune tune --evaluate` records. cmd_compare.c prints the model
 * as text or JSON; report_html.c draws it. Internal (prefix atune__). */
#ifndef ATUNE_COMPARE_H
#define ATUNE_COMPARE_H

#include <stdint.h>

#include <atune/atune.h>

#include "lib/inidoc.h"
#include "base/util.h"

/* One profile file: one GPU model. */
typedef struct atune__cmp_gpu {
    const char *path;
    atune_profile *prof;
    const atune_device *dev;
    /* Raw [device] text, "" when absent. */
    const char *slug, *date, *driver, *nvrtc, *tuner;
    char label[64];     /* short and unique among the GPUs: "H200" */
    double mem_gbs;     /* [device] mem_bandwidth_gbs; 0: unknown */
    double fp32_gflops; /* [device] fp32_gflops; 0: unknown */
} atune__cmp_gpu;

typedef enum atune__cmp_peak {
    ATUNE__PEAK_NONE = 0, /* unknown unit, or the device lacks the peak */
    ATUNE__PEAK_MEM,      /* GB/s over mem_bandwidth_gbs */
    ATUNE__PEAK_FP32      /* GFLOP/s over fp32_gflops */
} atune__cmp_peak;

/* One GPU's entry of a row. */
typedef struct atune__cmp_cell {
    const atune_config *cfg;       /* NULL: the profile has no entry */
    const atune__ini_section *sec; /* its section, every raw key */
    double value;                  /* metric number; NAN: unreadable */
    char unit[24];                 /* "GB/s", "GFLOP/s" or "" */
    atune__cmp_peak peak_kind;
    double peak;            /* fraction of the peak; NAN */
    double speedup;         /* default_time_ns / time_ns; NAN */
    const char *vendor;     /* "cuBLAS", or NULL */
    int64_t vendor_time_ns; /* 0 when not recorded */
    double vs_vendor;       /* vendor_time_ns / time_ns; NAN */
} atune__cmp_cell;

/* What run-on GPU b's profile says about tuned-on GPU a's configuration:
 * the port.<a-slug>.* keys of b's section. */
typedef struct atune__cmp_port {
    double percent;     /* own_ns / time_ns * 100; NAN: not measured */
    int64_t time_ns;    /* a's configuration on b; 0: not recorded */
    int64_t own_ns;     /* b's own best, same run; 0: not recorded */
    const char *config; /* "BLOCK_SIZE=256,VW=4"; "" */
} atune__cmp_port;

typedef struct atune__cmp_row {
    char kernel[ATUNE__INI_MAX_NAME + 1];
    char size[ATUNE__INI_MAX_NAME + 1];  /* as the first profile spells it */
    char canon[ATUNE__INI_MAX_NAME + 1]; /* atune__section_canon() */
    const char *size_name;               /* "large", or "" */
    int seq;                             /* order of first appearance */
    atune__cmp_cell *cells;              /* one per GPU */
    atune__cmp_port *port;               /* [tuned a * ngpus + run b] */
    int has_port;                        /* any off-diagonal measured */
} atune__cmp_row;

typedef struct atune__cmp {
    int ngpus;
    atune__cmp_gpu *gpus; /* in command-line order */
    int nrows;
    atune__cmp_row *rows; /* by kernel name, sizes in first appearance */
    int has_port;         /* any row has a measured off-diagonal cell */
    int rows_cap;
    int *slot;     /* rows by canon's hash: 1 + index, 0 free */
    size_t nslots; /* a power of two, at least twice rows_cap */
} atune__cmp;

/* Opens the n profiles and builds the model. Returns ATUNE__OK; or
 * ATUNE__ENOINPUT (a file cannot be read), ATUNE__EDATA (malformed: the
 * message has file:line), ATUNE__EOSERR, with the message in err. *out is
 * valid for atune__cmp_free() either way. */
int atune__cmp_load(char *const *paths, int n, atune__cmp *out,
                    atune__err *err);

void atune__cmp_free(atune__cmp *c);

/* Whether param's value differs between the GPUs that have row r (or some
 * of them lack it); 0 when fewer than two GPUs have r. */
int atune__cmp_differs(const atune__cmp *c, const atune__cmp_row *r,
                       const char *param);

/* Cell [tuned on a][run on b] of r's portability matrix in percent: 100 on
 * the diagonal where b has r, else what b's profile recorded; NAN when
 * nothing was measured. */
double atune__cmp_matrix(const atune__cmp *c, const atune__cmp_row *r, int a,
                         int b);

/* The metric the default configuration (or the vendor baseline) reaches:
 * the same work in its time, so the tuned metric scaled by time_ns over
 * its time; NAN when unknown. */
double atune__cmp_default_value(const atune__cmp_cell *cell);
double atune__cmp_vendor_value(const atune__cmp_cell *cell);

/* "13.0" for a CUDA version number such as 13000, else the text itself. */
void atune__cmp_version(const char *v, char *buf, size_t len);

#endif
