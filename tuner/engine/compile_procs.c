/* compile_procs.c -- NVRTC in forked child processes (see compile_procs.h).
 *
 * Protocol on a pair of pipes per child, native byte order (same binary):
 *   request:  struct request
 *   response: struct response, then len bytes: the CUBIN (status 0) or
 *             the message (status != 0), then log_len bytes of NVRTC's log,
 *             then syms_len bytes: the symbols (atune__cubin_syms_pack).
 */
#include "engine/compile_procs.h"

#include "jit/pch.h"
#include "template/space.h"

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define MAX_PROCS 64
#define DEFAULT_TIME_LIMIT 120 /* seconds of one compilation */
#define MAX_TIME_LIMIT 86400

struct request {
    const atune__manifest *m; /* an address the child shares */
    atune__config c;
    char arch[16];
    int names; /* bit i: entry i of atune__manifest_entries(m), in order */
};

struct response {
    int status; /* atune__jit_compile_cached's return value */
    int hit;
    int pch; /* atune__cubin.pch */
    uint64_t len, log_len, syms_len;
    atune__cache_stats stats; /* the child's cache counters for this one */
};

typedef struct proc {
    pid_t pid;
    int to, from; /* request and response pipe ends */
    int ready;    /* its warm-up byte was read */
    /* Held for a request and its response: a retired pool's worker may
     * still be waiting for this child when the next pool's worker of the
     * same number asks (atune__pool_retire). */
    pthread_mutex_t lock;
} proc;

struct atune__procs {
    const atune__templates *t;
    atune__cache *cache;
    int time_limit; /* seconds; 0: none */
    int n;     /* the pool's children, p[0..n) */
    int total; /* n and the owner's own child, p[n] */
    proc p[MAX_PROCS + 1];
    char pch_root[4096]; /* "" when no precompiled headers are kept */
    char pch_off[1024];  /* why not, when a template would gain */
};

/* --- the child ---------------------------------------------------------- */

static int known_manifest(const atune__templates *t, const atune__manifest *m)
{
    for (int i = 0; i < t->n; i++)
        if (t->m[i] == m)
            return 1;
    return 0;
}

static void stats_delta(const atune__cache_stats *a,
                        const atune__cache_stats *b, atune__cache_stats *d)
{
    d->hits = b->hits - a->hits;
    d->misses = b->misses - a->misses;
    d->corrupt = b->corrupt - a->corrupt;
    d->writes = b->writes - a->writes;
    d->write_errors = b->write_errors - a->write_errors;
    d->rebuilt = b->rebuilt - a->rebuilt;
    d->unreplaced = b->unreplaced - a->unreplaced;
    d->evicted = b->evicted - a->evicted;
}

/* Serves one request; returns -1 when the parent is gone. */
static int serve(const atune__procs *ps, int in, int out)
{
    struct request rq;
    struct response rs;
    const char *names[ATUNE__JIT_MAX_NAMES], *all[ATUNE__JIT_MAX_NAMES];
    atune__cubin cubin = {0};
    atune__cache_stats before, after;
    atune__err err;
    const char *body = "", *log = "";
    char *syms = NULL;
    size_t syms_len = 0;
    int nn = 0, rc;

    if (atune__read_full(in, &rq, sizeof(rq)))
        return -1;
    memset(&rs, 0, sizeof(rs));
    atune__err_clear(&err);
    rq.arch[sizeof(rq.arch) - 1] = '\0';
    if (!known_manifest(ps->t, rq.m)) {
        rs.status = atune__fail(&err, ATUNE__ESOFTWARE,
                                "compile process: unknown template");
    } else {
        int nall = atune__manifest_entries(rq.m, all);
        for (int i = 0; i < nall; i++)
            if (rq.names & (1 << i))
                names[nn++] = all[i];
        atune__cache_stats_get(ps->cache, &before);
        rs.status = atune__jit_compile_cached(ps->cache, rq.m, &rq.c, rq.arch,
                                              names, nn, &cubin, &rs.hit,
                                              &err);
        atune__cache_stats_get(ps->cache, &after);
        stats_delta(&before, &after, &rs.stats);
    }
    if (rs.status == 0 && !(syms = atune__cubin_syms_pack(&cubin, &syms_len)))
        rs.status = atune__fail(&err, ATUNE__EOSERR, "out of memory");
    if (rs.status == 0) {
        body = cubin.data;
        rs.len = cubin.len;
        rs.pch = cubin.pch;
        log = cubin.log ? cubin.log : "";
        rs.syms_len = syms_len;
    } else {
        body = err.msg;
        rs.len = strlen(err.msg);
    }
    rs.log_len = strlen(log);
    rc = atune__write_full(out, &rs, sizeof(rs)) ||
                 atune__write_full(out, body, rs.len) ||
                 atune__write_full(out, log, rs.log_len) ||
                 atune__write_full(out, syms ? syms : "", rs.syms_len)
             ? -1
             : 0;
    free(syms);
    atune__cubin_free(&cubin);
    return rc;
}

static void child_main(const atune__procs *ps, int in, int out)
{
    static const char warm[] = "extern \"C\" __global__ void w(int *p) "
                               "{ *p = 1; }\n";
    atune__cubin cubin = {0};
    atune__err err;

    /* The parent's Ctrl-C is the parent's business: it ends the children
     * by closing their pipes. */
    signal(SIGINT, SIG_IGN);
    signal(SIGTERM, SIG_DFL);
    if (ps->pch_root[0])
        atune__pch_use(ps->pch_root);
    /* NVRTC's first compile in a process pays for loading and setting up
     * the compiler (a few hundred ms): pay it now, while the parent opens
     * the GPU, not when the first configuration is wanted. */
    if (atune__jit_compile_source(warm, "warm.cu", "sm_75", NULL, &cubin,
                                  &err) == 0)
        atune__cubin_free(&cubin);
    /* Ready: the parent's time limit starts with the first request, not
     * with the warm-up. */
    if (atune__write_full(out, "r", 1) == 0)
        while (serve(ps, in, out) == 0)
            ;
    /* _exit skips NVRTC's own removal of its precompiled headers. */
    atune__pch_remove(ps->pch_root, getpid());
    _exit(0);
}

/* --- the parent --------------------------------------------------------- */

static int fork_one(atune__procs *ps, int i, atune__err *err)
{
    int req[2], rsp[2];
    pid_t pid;

    if (pipe(req) != 0)
        return atune__fail(err, ATUNE__EOSERR, "pipe: %s", strerror(errno));
    if (pipe(rsp) != 0) {
        close(req[0]);
        close(req[1]);
        return atune__fail(err, ATUNE__EOSERR, "pipe: %s", strerror(errno));
    }
    fflush(NULL);
    pid = fork();
    if (pid < 0) {
        close(req[0]);
        close(req[1]);
        close(rsp[0]);
        close(rsp[1]);
        return atune__fail(err, ATUNE__EOSERR, "fork: %s", strerror(errno));
    }
    if (pid == 0) {
        /* Only its own pipe ends: a pipe end kept open here (the other
         * children's, a supervisor's watch pipe) would hide its end of
         * file from whoever waits for it. */
        long max = sysconf(_SC_OPEN_MAX);
        for (int fd = 3; fd < (max > 0 && max < 65536 ? max : 4096); fd++)
            if (fd != req[0] && fd != rsp[1])
                close(fd);
        child_main(ps, req[0], rsp[1]);
    }
    close(req[0]);
    close(rsp[1]);
    /* field by field: the lock stays (restart runs with it held) */
    ps->p[i].pid = pid;
    ps->p[i].to = req[1];
    ps->p[i].from = rsp[0];
    ps->p[i].ready = 0;
    return 0;
}

/* ATUNE_COMPILE_TIMEOUT: whole seconds, 0 for no limit. */
static int time_limit_from_env(int *out, atune__err *err)
{
    int64_t n;
    int rc = atune__env_i64("ATUNE_COMPILE_TIMEOUT", 0, MAX_TIME_LIMIT,
                            DEFAULT_TIME_LIMIT,
                            "whole seconds, 0 for no limit", &n, err);

    *out = (int)n;
    return rc;
}

/* The precompiled headers' root, when a template gains from them. */
static void pch_setup(atune__procs *ps)
{
    atune__err err;
    int want = 0;

    for (int i = 0; i < ps->t->n && !want; i++)
        want = atune__pch_eligible(ps->t->m[i]);
    if (!want)
        return;
    if (!ps->cache) {
        snprintf(ps->pch_off, sizeof(ps->pch_off), "the module cache is off");
        return;
    }
    atune__err_clear(&err);
    if (atune__pch_root(atune__cache_dir(ps->cache), ps->pch_root,
                        sizeof(ps->pch_root), &err) != 0) {
        ps->pch_root[0] = '\0';
        atune__strlcpy(ps->pch_off, err.msg, sizeof(ps->pch_off));
        return;
    }
    atune__pch_sweep(ps->pch_root);
}

const char *atune__procs_pch(const atune__procs *ps, const char **off)
{
    *off = ps && ps->pch_off[0] ? ps->pch_off : NULL;
    return ps && ps->pch_root[0] ? ps->pch_root : NULL;
}

int atune__procs_start(const atune__templates *t, atune__cache *cache, int n,
                       atune__procs **out, atune__err *err)
{
    atune__procs *ps = atune__calloc(1, sizeof(*ps));
    int rc = 0;

    *out = NULL;
    if (!ps)
        return atune__fail(err, ATUNE__EOSERR, "out of memory");
    if (n <= 0) {
        long cores = sysconf(_SC_NPROCESSORS_ONLN);
        n = cores < 1 ? 1 : (int)cores;
    }
    if (n > MAX_PROCS)
        n = MAX_PROCS;
    ps->t = t;
    ps->cache = cache;
    for (int i = 0; i <= MAX_PROCS; i++)
        pthread_mutex_init(&ps->p[i].lock, NULL);
    if ((rc = time_limit_from_env(&ps->time_limit, err))) {
        atune__procs_stop(ps);
        return rc;
    }
    pch_setup(ps);
    /* A child that died must show up as a failed write, not kill us. */
    signal(SIGPIPE, SIG_IGN);
    for (; ps->total < n + 1; ps->total++)
        if ((rc = fork_one(ps, ps->total, err)))
            break;
    ps->n = n;
    if (rc) {
        atune__procs_stop(ps);
        return rc;
    }
    *out = ps;
    return 0;
}

int atune__procs_count(const atune__procs *ps)
{
    return ps ? ps->n : 0;
}

void atune__procs_set_time_limit(atune__procs *ps, int seconds)
{
    ps->time_limit = seconds > 0 ? seconds : 0;
}

/* Waits until fd is readable or seconds (0: forever) have passed: 1 when
 * readable (or at end of file), 0 on time-out, -1 on error. */
static int wait_readable(int fd, int seconds)
{
    double end = atune__now() + seconds;
    struct pollfd pf = {.fd = fd, .events = POLLIN};

    for (;;) {
        double left = end - atune__now();
        int ms = seconds ? (left <= 0 ? 0 : (int)(left * 1000) + 1) : -1;
        int r = poll(&pf, 1, ms);
        if (r > 0)
            return 1;
        if (r == 0)
            return 0;
        if (errno != EINTR)
            return -1;
    }
}

/* Kills child i (its compilation ran past the limit) and forks a new one
 * in its place. The parent may have threads by now (the pool's): the new
 * child only ever calls NVRTC and the module cache, which the parent does
 * not hold locks of, and glibc keeps malloc and stdio usable after fork. */
static int restart(atune__procs *ps, int i, atune__err *err)
{
    proc *p = &ps->p[i];

    kill(p->pid, SIGKILL);
    close(p->to);
    close(p->from);
    while (waitpid(p->pid, NULL, 0) < 0 && errno == EINTR)
        ;
    atune__pch_remove(ps->pch_root, p->pid);
    *p = (proc){.pid = -1, .to = -1, .from = -1};
    return fork_one(ps, i, err);
}

/* Sends a request to child i and waits for its response header within
 * the time limit. 1: the limit passed (the child was replaced). */
static int ask(atune__procs *ps, int i, const struct request *rq,
               struct response *rs, atune__err *err)
{
    proc *p = &ps->p[i];
    char r;
    int w;

    if (!p->ready) {
        if (atune__read_full(p->from, &r, 1))
            return -1;
        p->ready = 1;
    }
    if (atune__write_full(p->to, rq, sizeof(*rq)))
        return -1;
    if ((w = wait_readable(p->from, ps->time_limit)) == 0)
        return restart(ps, i, err) ? -2 : 1;
    if (w < 0 || atune__read_full(p->from, rs, sizeof(*rs)))
        return -1;
    return 0;
}

static int names_mask(const atune__manifest *m, const char *const *names,
                      int nnames, int *mask)
{
    const char *all[ATUNE__JIT_MAX_NAMES];
    int nall = atune__manifest_entries(m, all);

    *mask = 0;
    for (int i = 0; i < nnames; i++) {
        int bit = 0;
        for (int j = 0; !bit && j < nall; j++)
            if (names[i] == all[j])
                bit = 1 << j;
        for (int j = 0; !bit && j < nall; j++)
            if (strcmp(names[i], all[j]) == 0 && !(*mask & (1 << j)))
                bit = 1 << j;
        /* The child takes them in the order of the entries. */
        if (!bit || bit <= *mask)
            return -1;
        *mask |= bit;
    }
    return 0;
}

/* Reads a response body into a fresh NUL-terminated buffer. */
static char *read_body(int fd, uint64_t len)
{
    char *s;

    if (len > (uint64_t)1 << 30 || !(s = malloc((size_t)len + 1)))
        return NULL;
    if (atune__read_full(fd, s, (size_t)len)) {
        free(s);
        return NULL;
    }
    s[len] = '\0';
    return s;
}

static int compile_in(atune__procs *ps, int i, const atune__manifest *m,
                      const atune__config *c, const char *arch,
                      const char *const *names, int nnames, atune__cubin *out,
                      int *hit, atune__err *err)
{
    struct request rq;
    struct response rs;
    char *body = NULL, *log = NULL, *syms = NULL;
    proc *p = &ps->p[i];
    int rc;

    memset(out, 0, sizeof(*out));
    memset(&rq, 0, sizeof(rq));
    rq.m = m;
    if (c)
        rq.c = *c;
    else
        atune__space_config(m, 0, &rq.c);
    if (atune__strlcpy(rq.arch, arch, sizeof(rq.arch)) ||
        names_mask(m, names, nnames, &rq.names))
        return atune__jit_compile_cached(ps->cache, m, c, arch, names,
                                         nnames, out, hit, err);
    if ((rc = ask(ps, i, &rq, &rs, err)) == 1) {
        char cfg[512];
        atune__config_str(m, &rq.c, cfg, sizeof(cfg));
        return atune__fail(err, ATUNE__EDATA,
                           "%s: %s: compile time limit exceeded: killed after "
                           "%d s (ATUNE_COMPILE_TIMEOUT)",
                           m->cu_path, cfg, ps->time_limit);
    }
    if (rc == -2)
        return err->code;
    if (rc ||
        !(body = read_body(p->from, rs.len)) ||
        !(log = read_body(p->from, rs.log_len)) ||
        !(syms = read_body(p->from, rs.syms_len))) {
        free(body);
        free(log);
        return atune__fail(err, ATUNE__ESOFTWARE,
                           "compile process %d (pid %d) is gone", i,
                           (int)p->pid);
    }
    atune__cache_stats_add(ps->cache, &rs.stats);
    if (hit)
        *hit = rs.hit;
    if (rs.status != 0) {
        atune__fail(err, rs.status, "%s", body);
        free(body);
        free(log);
        free(syms);
        return rs.status;
    }
    out->data = body;
    out->len = (size_t)rs.len;
    out->log = log;
    out->pch = rs.pch;
    if (atune__cubin_syms_unpack(out, syms, (size_t)rs.syms_len) != 0) {
        free(syms);
        atune__cubin_free(out);
        return atune__fail(err, ATUNE__ESOFTWARE,
                           "compile process %d: bad symbols", i);
    }
    free(syms);
    return 0;
}

int atune__procs_compile(atune__procs *ps, int i, const atune__manifest *m,
                         const atune__config *c, const char *arch,
                         const char *const *names, int nnames,
                         atune__cubin *out, int *hit, atune__err *err)
{
    int rc;

    pthread_mutex_lock(&ps->p[i].lock);
    rc = compile_in(ps, i, m, c, arch, names, nnames, out, hit, err);
    pthread_mutex_unlock(&ps->p[i].lock);
    return rc;
}

int atune__procs_compile_own(atune__procs *ps, const atune__manifest *m,
                             const atune__config *c, const char *arch,
                             const char *const *names, int nnames,
                             atune__cubin *out, int *hit, atune__err *err)
{
    return atune__procs_compile(ps, ps->n, m, c, arch, names, nnames, out,
                                hit, err);
}

void atune__procs_abort(atune__procs *ps)
{
    if (!ps)
        return;
    for (int i = 0; i < ps->total; i++)
        if (ps->p[i].pid > 0)
            kill(ps->p[i].pid, SIGKILL);
}

void atune__procs_stop(atune__procs *ps)
{
    if (!ps)
        return;
    for (int i = 0; i < ps->total; i++) {
        close(ps->p[i].to);
        close(ps->p[i].from);
    }
    for (int i = 0; i < ps->total; i++) {
        while (ps->p[i].pid > 0 && waitpid(ps->p[i].pid, NULL, 0) < 0 &&
               errno == EINTR)
            ;
        if (ps->p[i].pid > 0) /* a child that died before its clean-up */
            atune__pch_remove(ps->pch_root, ps->p[i].pid);
    }
    for (int i = 0; i <= MAX_PROCS; i++)
        pthread_mutex_destroy(&ps->p[i].lock);
    free(ps);
}

int atune__procs_compile_hook(void *ctx, const atune__manifest *m,
                              const atune__config *c, const char *arch,
                              const char *const *names, int nnames,
                              atune__cubin *out, atune__err *err)
{
    return atune__procs_compile_own(ctx, m, c, arch, names, nnames, out, NULL,
                                    err);
}
