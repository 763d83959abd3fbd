/* record_sizes.h -- `autotune tune --sizes-from RECORD` (record_sizes.c). */
#ifndef ATUNE_RECORD_SIZES_H
#define ATUNE_RECORD_SIZES_H

#include "template/templates.h"

/* Reads the record at path (untrusted: errors name path:line) and checks
 * that every line of a template of t has that template's size variables.
 * With gpu (a device name), each template of t with sizes recorded on
 * that GPU model gets them as its sizes instead of its own (the most
 * served first, at most ATUNE__MAX_SIZES), and sel lists those templates
 * (free sel->m only: the manifests are t's); ATUNE__EUSAGE when none has
 * any. With gpu NULL only the checks, sel may be NULL. Says on stderr
 * (unless quiet) how many sizes each template gets and which lines are
 * left out. */
int atune__cli_sizes_from(const char *path, const char *gpu,
                          const atune__templates *t, atune__templates *sel,
                          int quiet, atune__err *err);

#endif
