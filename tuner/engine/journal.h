/* journal.h -- the results journal: every evaluated configuration, appended
 * (and flushed) the moment it finishes, so that nothing measured is lost.
 *
 * A text file, one record per line, tab-separated (docs/formats.md, "Journal"):
 *   kernel size config status time_ns spread_ns metric samples hash detail
 * Lines starting with '#' are comments: a format line first, then one
 * "# run:" line for every tuning run that appended to the file. Later runs
 * replay it (--simulate) and resume from it. */
#ifndef ATUNE_JOURNAL_H
#define ATUNE_JOURNAL_H

#include <stdint.h>
#include <stdio.h>

#include "measure/runner.h"
#include "base/util.h"

#define ATUNE__JOURNAL_FORMAT 2

/* A run id: "[0-9a-z-]+", shorter than this. */
#define ATUNE__RUN_ID_MAX 40

/* A new run id, unique to this process and moment: "6921f0a3-1b2c3-4d2". */
void atune__journal_new_run_id(char *buf, size_t len);

typedef struct atune__journal atune__journal;

/* Opens path for appending (creating it with its format line). run is the
 * text of this run's "# run:" line ("2026-11-22T03:00:00Z device=..."), or
 * NULL to append records to the current run (the supervisor's timeout
 * records). A last line cut short by a killed writer is removed first.
 * run_id (NULL: none, format 1 records) is appended to the "# run:" line
 * (" run=ID"), to every record (an 11th field) and to "# done:". Tuners
 * that share a journal each have their own: the "# done:" of one does not
 * finish another's records. */
int atune__journal_open(const char *path, const char *run,
                        const char *run_id, atune__journal **out,
                        atune__err *err);

int atune__journal_append(atune__journal *j, const char *kernel,
                          const char *size_key, const char *config,
                          const atune__result *r, uint64_t hash,
                          atune__err *err);

/* Marks the run complete ("# done: DATE run=ID resumed=A,B"): its records,
 * and those of the runs it resumed (resumed: a comma list or NULL), are
 * not resumed again. */
/* Appends "# NOTE" (one line, no newline in note): what readers of
 * records skip, such as the "# size:" summary tune writes after each
 * size. */
int atune__journal_note(atune__journal *j, const char *note, atune__err *err);

int atune__journal_done(atune__journal *j, const char *resumed,
                        atune__err *err);

void atune__journal_close(atune__journal *j);

/* The detail text of a final re-measurement record: the winner's time
 * from interleaved rounds, not a search evaluation. */
#define ATUNE__JOURNAL_FINAL "final"
/* The detail of an ok record whose output was not checked: it lost the
 * race against the best so far (lazy verification, runner.h). */
#define ATUNE__JOURNAL_UNVERIFIED "unverified"

/* One record read back. */
typedef struct atune__record {
    char kernel[48];
    char size_key[96];
    char config[512];
    atune__status status;
    double time_ns, spread_ns, metric;
    int samples;
    char hash[17];
    char detail[512];
    char run[ATUNE__RUN_ID_MAX]; /* "" in format 1 */
    int line;
    int final; /* a final re-measurement (detail ATUNE__JOURNAL_FINAL) */
    int unverified; /* ok, output not checked (ATUNE__JOURNAL_UNVERIFIED) */
} atune__record;

/* The longest time a record may hold: 10^13 ns (2.8 hours). */
#define ATUNE__JOURNAL_MAX_NS 1e13

/* Reads every search record of path (final re-measurements left out); a
 * malformed line is ATUNE__EDATA with "path:LINE: malformed record: bad
 * FIELD" (an ok record needs a time_ns in (0, 10^13], a NUL byte is an
 * error). A last line without its newline that does not parse is what a
 * kill leaves: it is left out. */
int atune__journal_read(const char *path, atune__record **recs, int *n,
                        atune__err *err);

/* atune__journal_read that also gives the line number of a cut last
 * record that was left out (0: none). */
int atune__journal_read_cut(const char *path, atune__record **recs, int *n,
                            int *cut_line, atune__err *err);

/* The records of the unfinished runs that a new run on device resumes:
 * those of each run id after its last "# done:" (records without an id:
 * after the last "# done:" of any kind), final re-measurements included.
 * ids (idlen bytes, may be NULL) gets their run ids, comma-separated, for
 * the new run's "# done:". A missing file has none. An unfinished run
 * whose "# run:" line names another device is ATUNE__EDATA
 * ("path:LINE: an unfinished run of GPU 'X', not 'Y'"): its measurements
 * must not be mixed in silently. */
int atune__journal_read_pending(const char *path, const char *device,
                                atune__record **recs, int *n, char *ids,
                                size_t idlen, atune__err *err);

#endif
