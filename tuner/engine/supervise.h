/* supervise.h -- `autotune tune` as a supervisor of worker processes.
 *
 * A configuration nobody ran before may fault (an illegal address ruins
 * the process's CUDA context for good) or never finish. So the process
 * the user started holds no CUDA context: it re-executes itself as one
 * worker per GPU and watches them.
 *
 *   - Before every wait on the GPU a worker writes to the watch pipe
 *       "A\t<limit ms>\t<journal>\t<kernel>\t<size>\t<config>\t<hash>\n"
 *     and after it "D\n". A worker still waiting past the limit is killed
 *     and the configuration journaled as `timeout`.
 *   - A worker that hit a sticky CUDA error journals the configuration as
 *     `fault` itself and exits ATUNE__ERESTART; one that dies of a signal
 *     while armed gets a `fault` record from the supervisor.
 *   - Either way the supervisor starts the worker again with the same
 *     arguments, and it resumes from the journal (resume.h): nothing that
 *     finished is measured twice.
 *
 * Workers learn their role from the environment (ATUNE__WORKER_*), so
 * their command line is the user's, unchanged. */
#ifndef ATUNE_SUPERVISE_H
#define ATUNE_SUPERVISE_H

#include "base/util.h"

/* The environment of a worker. */
#define ATUNE__WORKER_FD "ATUNE_WORKER_FD"         /* the watch pipe */
#define ATUNE__WORKER_DEVICE "ATUNE_WORKER_DEVICE" /* its GPU ordinal */
#define ATUNE__WORKER_OUT "ATUNE_WORKER_OUT"       /* file for its stdout */
#define ATUNE__WORKER_RUN "ATUNE_WORKER_RUN"       /* its journal run id */
#define ATUNE__WORKER_START "ATUNE_WORKER_START"   /* the run's start,
                                                      atune__now() */
#define ATUNE__WORKER_SHARED "ATUNE_WORKER_SHARED" /* "1": other GPUs tune
                                                      at the same time */

/* Most worker restarts after faults and timeouts per GPU. */
#define ATUNE__MAX_RESTARTS 200

typedef struct atune__supervise_opts {
    char *const *argv;  /* the command line to run again (argv[0] unused) */
    const int *devices; /* GPU ordinals, one worker each, in parallel */
    int ndevices;
    int json;  /* merge the workers' JSON documents into one */
    int quiet; /* no restart notes on stderr */
} atune__supervise_opts;

/* Runs the workers to the end and writes what the last run of each
 * printed to stdout (one JSON document with --json). Returns the exit
 * status for the command: 0, the first worker's failure, ATUNE__EINTR
 * when interrupted, or an error of the supervisor itself (in err). */
int atune__supervise(const atune__supervise_opts *o, atune__err *err);

/* The watch pipe of this process when it is a worker, else -1. */
/* In a worker: the GPU ordinal its supervisor gave it (decimal, as
 * written by the supervisor), else fallback. */
int atune__worker_device(int fallback);

/* In a worker: when the whole run started (the supervisor's clock, so that
 * restarted workers report the run's wall time), else atune__now(). */
double atune__worker_start(void);

/* In a worker: the journal run id its supervisor gave it (the same across
 * restarts), else a new one. */
void atune__worker_run_id(char *buf, size_t len);
int atune__worker_fd(void);

#endif
