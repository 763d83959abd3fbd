/* report_html.h -- `autotune compare --html FILE`: one self-contained HTML
 * page (inline CSS and SVG, no scripts, nothing fetched) with, per kernel
 * and size, bars of each GPU's tuned, default and vendor metric, the
 * configurations, and the portability matrix as a heat map. */
#ifndef ATUNE_REPORT_HTML_H
#define ATUNE_REPORT_HTML_H

#include "report/compare.h"
#include "base/util.h"

/* Before anything is loaded: --html path must not be one of the inputs
 * (ATUNE__EUSAGE), a directory, a link of another user, or an existing
 * non-empty regular file that is not a report of ours
 * (ATUNE__ECANTCREAT): nothing else is ever replaced (base/outfile.h). */
int atune__report_html_check(const char *path, char *const *inputs, int n,
                             atune__err *err);

/* Checks path again and writes the report of c to it atomically: a temp
 * file beside it, synced, then renamed over path; on failure the temp
 * file is removed and path is as it was. Returns ATUNE__OK, or
 * ATUNE__ECANTCREAT (temp file or rename), ATUNE__EIO (write or sync),
 * ATUNE__EOSERR, with the message in err. A device or FIFO is written
 * through (ATUNE__EIO when that fails), never renamed over; a symbolic
 * link of the user's (or root's) is followed and kept. */
int atune__report_html_write(const char *path, char *const *inputs, int n,
                             const atune__cmp *c, atune__err *err);

#endif
