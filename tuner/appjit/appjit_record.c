/* appjit_record.c -- libatune_jit's recorder (ATUNE_RECORD,
 * atune_jit_set_record): which keys a process was served without an exact
 * tuned entry of its GPU, counted in memory and merged into the record
 * file (record.c) at bounded moments, so that a process calling
 * atune_jit_config_for() in a loop writes the file about once a second at
 * most, and a killed one loses at most its last second. One table for the
 * process, behind a mutex: handles are per thread, the file is not. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "appjit/appjit_internal.h"
#include "jit/record.h"

/* A new key waits at most this long for its merge. */
#define FLUSH_INTERVAL_S 1.0

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static struct {
    int decided; /* ATUNE_RECORD read, or atune_jit_set_record called */
    char *path;  /* NULL: not recording */
    atune__record table;
    int pending;       /* counts not yet merged */
    int new_pending;   /* of them, a key not in the file yet */
    double last_flush; /* atune__now() of the last merge; 0: none yet */
    char error[1024];  /* the last failure, "" when none */
} rec;

static pthread_once_t atfork_once = PTHREAD_ONCE_INIT;

static void before_fork(void)
{
    pthread_mutex_lock(&mu);
}

static void after_fork_parent(void)
{
    pthread_mutex_unlock(&mu);
}

/* The child's table holds the parent's counts, which the parent merges
 * itself: the child merges only what it serves from now on. */
static void after_fork_child(void)
{
    pthread_mutex_unlock(&mu); /* this thread locked it in before_fork */
    for (int i = 0; i < rec.table.n; i++)
        rec.table.e[i].flushed = rec.table.e[i].count;
    rec.table.dropped = 0;
    rec.pending = 0;
    rec.new_pending = 0;
}

static void register_atfork(void)
{
    pthread_atfork(before_fork, after_fork_parent, after_fork_child);
}

/* Under mu. */
static void set_error(const char *msg)
{
    atune__strlcpy(rec.error, msg, sizeof(rec.error));
}

/* Under mu: merges the pending counts; 0 or the error's code. */
static int flush_locked(void)
{
    atune__err err = {0};
    int rc;

    if (!rec.path || !rec.pending)
        return 0;
    rec.last_flush = atune__now();
    rc = atune__record_merge(rec.path, &rec.table, &err);
    if (rc) {
        set_error(err.msg);
        return rc;
    }
    rec.pending = 0;
    rec.new_pending = 0;
    return 0;
}

/* Under mu: the environment's ATUNE_RECORD, once. */
static void decide_locked(void)
{
    const char *env;

    if (rec.decided)
        return;
    rec.decided = 1;
    env = getenv("ATUNE_RECORD");
    if (env && *env && !(rec.path = atune__strdup(env)))
        set_error("out of memory");
    pthread_once(&atfork_once, register_atfork);
}

static int public_status(int code)
{
    switch (code) {
    case 0:
        return ATUNE_OK;
    case ATUNE__EDATA:
        return ATUNE_EPARSE;
    case ATUNE__EOSERR:
        return ATUNE_ENOMEM;
    case ATUNE__EUSAGE:
        return ATUNE_EINVAL;
    default:
        return ATUNE_EIO;
    }
}

int atune_jit_set_record(const char *path)
{
    atune__record check = {0};
    atune__err err = {0};
    int rc = 0;
    char *copy = NULL;

    if (path && !*path)
        return ATUNE_EINVAL;
    if (path && !(copy = atune__strdup(path)))
        return ATUNE_ENOMEM;
    pthread_mutex_lock(&mu);
    decide_locked();
    rec.error[0] = '\0';
    flush_locked(); /* the previous file's counts; its error stays */
    free(rec.path);
    rec.path = copy;
    atune__record_free(&rec.table);
    rec.pending = 0;
    rec.new_pending = 0;
    rec.last_flush = 0;
    /* A file that is not a record is found out now, not at exit. */
    if (copy && (rc = atune__record_read(copy, 1, &check, &err)) != 0) {
        set_error(err.msg);
        free(rec.path);
        rec.path = NULL;
    }
    atune__record_free(&check);
    pthread_mutex_unlock(&mu);
    return public_status(rc);
}

int atune_jit_record_flush(void)
{
    int rc;

    pthread_mutex_lock(&mu);
    decide_locked();
    rc = flush_locked();
    pthread_mutex_unlock(&mu);
    return public_status(rc);
}

const char *atune_jit_record_errmsg(void)
{
    static _Thread_local char copy[sizeof(rec.error)];

    pthread_mutex_lock(&mu);
    memcpy(copy, rec.error, sizeof(copy));
    pthread_mutex_unlock(&mu);
    return copy;
}

void atune__jit_record_close(void)
{
    pthread_mutex_lock(&mu);
    if (rec.path && rec.pending)
        flush_locked();
    pthread_mutex_unlock(&mu);
}

/* At exit (and when the library is unloaded): what is still pending. */
__attribute__((destructor)) static void record_at_exit(void)
{
    atune__jit_record_close();
}

/* "m=4096,n=4096,k=4094": the size in the template's variable order, as
 * the tuner names sections. */
static void size_key(const atune_jit *j, const int64_t *v, char *buf,
                     size_t len)
{
    size_t used = 0;

    buf[0] = '\0';
    for (int i = 0; i < j->nsize; i++) {
        int n = snprintf(buf + used, len - used, "%s%s=%lld", i ? "," : "",
                         j->m->sizes[0].var[i], (long long)v[i]);
        if (n < 0 || (size_t)n >= len - used)
            return;
        used += (size_t)n;
    }
}

void atune__jit_gpu_model(atune_jit *j, const atune_profile *p, char *buf,
                          size_t len)
{
    const atune_device *w = atune_profile_wanted(p);
    const char *wanted = w && w->name[0] ? w->name : NULL;
    const atune__cudrv *cu = j->cu;
    CUcontext ctx = NULL;
    CUdevice dev;

    /* The driver only where the application has loaded it or can: the
     * current context's device is the truth. */
    if (!cu)
        cu = atune__cudrv_load(NULL);
    if (cu && cu->cuCtxGetCurrent(&ctx) == CUDA_SUCCESS && ctx &&
        cu->cuCtxGetDevice(&dev) == CUDA_SUCCESS &&
        cu->cuDeviceGetName(buf, (int)len, dev) == CUDA_SUCCESS && *buf) {
        buf[len - 1] = '\0';
        return;
    }
    if (wanted)
        atune__strlcpy(buf, wanted, len);
    else if (p && atune_profile_device(p)->name[0])
        atune__strlcpy(buf, atune_profile_device(p)->name, len);
    else
        atune__strlcpy(buf, "unknown", len);
}

int atune__jit_recording(void)
{
    int on;

    pthread_mutex_lock(&mu);
    decide_locked();
    on = rec.path != NULL;
    pthread_mutex_unlock(&mu);
    return on;
}

int atune__jit_record(atune_jit *j, const char *gpu, const int64_t *size,
                      atune__served served, char *note, size_t notelen)
{
    char key[ATUNE__RECORD_SIZE_MAX];
    atune__err err = {0};
    int added = 0, rc = 0;
    double now;

    note[0] = '\0';
    size_key(j, size, key, sizeof(key));
    if (atune__record_check_key(gpu, j->m->name, key, &err)) {
        snprintf(note, notelen, "not recorded: %s", err.msg);
        return 0;
    }
    pthread_mutex_lock(&mu);
    decide_locked();
    if (!rec.path) {
        pthread_mutex_unlock(&mu);
        return 0;
    }
    if (!atune__record_add(&rec.table, gpu, j->m->name, key, served, 1,
                           &added) &&
        rec.table.n < ATUNE__RECORD_MAX_KEYS) {
        set_error("out of memory");
        snprintf(note, notelen, "not recorded: out of memory");
        pthread_mutex_unlock(&mu);
        return 0;
    }
    rec.pending = 1;
    rec.new_pending |= added;
    /* Counts of known keys wait for close or exit; a new key is merged at
     * once, unless a merge was less than FLUSH_INTERVAL_S ago. */
    now = atune__now();
    if (rec.new_pending &&
        (rec.last_flush == 0 || now - rec.last_flush >= FLUSH_INTERVAL_S))
        rc = flush_locked();
    if (rc)
        snprintf(note, notelen, "recorded, not yet merged into '%s': %s",
                 rec.path, rec.error);
    else
        snprintf(note, notelen, "recorded in '%s'", rec.path);
    pthread_mutex_unlock(&mu);
    return 1;
}
