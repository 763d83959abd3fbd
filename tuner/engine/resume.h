/* resume.h -- what an unfinished run already measured: the records of its
 * journal, looked up by (kernel, size, configuration, template hash), so
 * that running the same command again re-measures nothing that finished
 * and, fed the same times, the search takes the same path. */
#ifndef ATUNE_RESUME_H
#define ATUNE_RESUME_H

#include <stdint.h>

#include "engine/journal.h"

typedef struct atune__resume atune__resume;

/* Reads the pending records of path (atune__journal_read_pending) for
 * device. Records of another template version (another hash) are never
 * found, so they are re-measured, not mixed in. A missing journal gives
 * an empty set, not an error. */
int atune__resume_load(const char *path, const char *device,
                       atune__resume **out, atune__err *err);

/* The run ids of the records that look-ups found, "A,B", into buf (for
 * "# done: ... resumed="): a run finishes those it took records from, and
 * only those: another tuner's live run in the same journal stays open. */
void atune__resume_runs(const atune__resume *r, char *buf, size_t len);

/* Records loaded. */
int atune__resume_count(const atune__resume *r);

/* The record of (kernel, size_key, config, hash), or NULL. final selects
 * the final re-measurement records instead of the search's. When a
 * configuration was recorded more than once, the last record counts. */
const atune__record *atune__resume_find(const atune__resume *r,
                                        const char *kernel,
                                        const char *size_key,
                                        const char *config, uint64_t hash,
                                        int final);

void atune__resume_free(atune__resume *r);

/* The result a journal record holds, as the runner would give it. */
void atune__resume_result(const atune__record *r, atune__result *res);

#endif
