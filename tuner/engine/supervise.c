/* supervise.c -- worker processes, their watchdog and their restarts (see
 * supervise.h). */
/* pipe2 */
#define _GNU_SOURCE
#include "engine/supervise.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/number.h"
#include "engine/journal.h"

#define MAX_WORKERS 64

typedef struct worker {
    int dev;
    pid_t pid;      /* 0 when not running */
    int fd;         /* read end of its watch pipe, -1 when closed */
    char buf[4096]; /* a partial line of the pipe */
    size_t len;
    int armed;
    double deadline, limit_ms;
    char rec[2048]; /* journal, kernel, size, config, hash of the wait */
    int killed;     /* by the watchdog */
    int restarts;
    int done, status;
    char out[64]; /* its stdout, a temporary file */
    char run[ATUNE__RUN_ID_MAX]; /* its journal run id, kept on restarts */
} worker;

static volatile sig_atomic_t stop_signal;
static char start_s[32]; /* atune__now() when the supervisor started */

static void on_stop(int sig)
{
    stop_signal = sig;
}

int atune__worker_fd(void)
{
    const char *v = getenv(ATUNE__WORKER_FD);
    int64_t fd;

    return v && !atune__parse_i64(v, 0, 65535, &fd) ? (int)fd : -1;
}

int atune__worker_device(int fallback)
{
    const char *v = getenv(ATUNE__WORKER_DEVICE);
    int64_t d;

    return v && !atune__parse_i64(v, 0, 1024, &d) ? (int)d : fallback;
}

double atune__worker_start(void)
{
    const char *v = getenv(ATUNE__WORKER_START);
    double t, now = atune__now();

    return v && !atune__parse_real(v, 0, now, &t) && t > 0 ? t : now;
}

void atune__worker_run_id(char *buf, size_t len)
{
    const char *v = getenv(ATUNE__WORKER_RUN);

    if (v && *v && strlen(v) < len &&
        strspn(v, "0123456789abcdefghijklmnopqrstuvwxyz-") == strlen(v))
        snprintf(buf, len, "%s", v);
    else
        atune__journal_new_run_id(buf, len);
}

/* In the child: the worker's environment, stdout and exec. Only calls
 * that are safe after fork until the exec. */
static void exec_worker(const atune__supervise_opts *o, const worker *w,
                        int wfd)
{
    char fd_s[16], dev_s[16];
    int out;

    prctl(PR_SET_PDEATHSIG, SIGKILL); /* a killed supervisor takes it along */
    snprintf(fd_s, sizeof(fd_s), "%d", wfd);
    snprintf(dev_s, sizeof(dev_s), "%d", w->dev);
    /* The file make_outputs created; a link put in its place is not
     * followed. */
    out = open(w->out, O_WRONLY | O_TRUNC | O_NOFOLLOW | O_CLOEXEC);
    if (out < 0 || dup2(out, STDOUT_FILENO) < 0 ||
        setenv(ATUNE__WORKER_FD, fd_s, 1) || setenv(ATUNE__WORKER_DEVICE, dev_s, 1) ||
        setenv(ATUNE__WORKER_OUT, w->out, 1) ||
        setenv(ATUNE__WORKER_RUN, w->run, 1) ||
        setenv(ATUNE__WORKER_START, start_s, 1) ||
        setenv(ATUNE__WORKER_SHARED, o->ndevices > 1 ? "1" : "0", 1))
        _exit(ATUNE__EOSERR);
    execv("/proc/self/exe", o->argv);
    _exit(ATUNE__EOSERR);
}

static int spawn(const atune__supervise_opts *o, worker *w, atune__err *err)
{
    int p[2];
    pid_t pid;

    if (pipe2(p, O_CLOEXEC) != 0)
        return atune__fail(err, ATUNE__EOSERR, "pipe: %s", strerror(errno));
    fflush(NULL);
    pid = fork();
    if (pid < 0) {
        close(p[0]);
        close(p[1]);
        return atune__fail(err, ATUNE__EOSERR, "fork: %s", strerror(errno));
    }
    if (pid == 0) {
        /* The write end must survive the exec; the read end must not. */
        int flags = fcntl(p[1], F_GETFD);
        if (flags < 0 || fcntl(p[1], F_SETFD, flags & ~FD_CLOEXEC) < 0)
            _exit(ATUNE__EOSERR);
        exec_worker(o, w, p[1]);
    }
    close(p[1]);
    w->pid = pid;
    w->fd = p[0];
    w->len = 0;
    w->armed = 0;
    w->killed = 0;
    return 0;
}

/* "A\t<ms>\t<record>" arms the watchdog, "D" disarms it. */
static void watch_line(worker *w, char *line)
{
    char *end;
    double ms;

    if (line[0] == 'D') {
        w->armed = 0;
        return;
    }
    if (line[0] != 'A' || line[1] != '\t')
        return;
    if (!(end = strchr(line + 2, '\t')))
        return;
    *end = '\0';
    if (atune__parse_real(line + 2, 0, 1e12, &ms) || ms <= 0)
        return;
    atune__strlcpy(w->rec, end + 1, sizeof(w->rec));
    w->limit_ms = ms;
    w->deadline = atune__now() + ms / 1e3;
    w->armed = 1;
}

/* Reads what the worker wrote; returns 0 at end of file. */
static int read_pipe(worker *w)
{
    ssize_t n = read(w->fd, w->buf + w->len, sizeof(w->buf) - 1 - w->len);
    char *line, *nl;

    if (n < 0 && (errno == EINTR || errno == EAGAIN))
        return 1;
    if (n <= 0)
        return 0;
    w->len += (size_t)n;
    w->buf[w->len] = '\0';
    line = w->buf;
    while ((nl = strchr(line, '\n')) != NULL) {
        *nl = '\0';
        watch_line(w, line);
        line = nl + 1;
    }
    w->len -= (size_t)(line - w->buf);
    memmove(w->buf, line, w->len);
    if (w->len == sizeof(w->buf) - 1)
        w->len = 0; /* a line that long is not ours */
    return 1;
}

/* Journals the armed configuration as status with detail. */
static int journal_verdict(const worker *w, atune__status status,
                           const char *detail, atune__err *err)
{
    char rec[2048], *f[5], *p = rec;
    atune__journal *j = NULL;
    atune__result res;
    int n = 0, rc;
    uint64_t key = 0;

    atune__strlcpy(rec, w->rec, sizeof(rec));
    while (n < 5) {
        f[n++] = p;
        if (!(p = strchr(p, '\t')))
            break;
        *p++ = '\0';
    }
    if (n != 5 || atune__parse_hash(f[4], &key))
        return atune__fail(err, ATUNE__ESOFTWARE,
                           "GPU %d: malformed watch message", w->dev);
    memset(&res, 0, sizeof(res));
    res.status = status;
    atune__strlcpy(res.detail, detail, sizeof(res.detail));
    rc = atune__journal_open(f[0], NULL, w->run, &j, err);
    if (!rc)
        rc = atune__journal_append(j, f[1], f[2], f[3], &res,
                                   key, err);
    atune__journal_close(j);
    if (!rc)
        fprintf(stderr, "autotune: GPU %d: %s %s %s: %s; restarting the "
                        "worker\n",
                w->dev, f[1], f[2], f[3], detail);
    return rc;
}

/* What a finished worker means: done, or a restart after a journaled
 * fault or timeout. */
static int reap(const atune__supervise_opts *o, worker *w, int wstatus,
                atune__err *err)
{
    char detail[256];
    int restart = 0, rc = 0;

    w->pid = 0;
    if (WIFEXITED(wstatus)) {
        w->status = WEXITSTATUS(wstatus);
        /* The worker journaled the fault itself. */
        restart = w->status == ATUNE__ERESTART;
    } else if (w->killed) {
        snprintf(detail, sizeof(detail),
                 "no completion within %.0f ms: killed by the watchdog",
                 w->limit_ms);
        rc = journal_verdict(w, ATUNE__ST_TIMEOUT, detail, err);
        restart = 1;
    } else if (w->armed && !stop_signal) {
        snprintf(detail, sizeof(detail), "the worker died of %s",
                 strsignal(WTERMSIG(wstatus)));
        rc = journal_verdict(w, ATUNE__ST_FAULT, detail, err);
        restart = 1;
    } else {
        w->status = stop_signal ? ATUNE__EINTR : ATUNE__ESOFTWARE;
        if (!stop_signal)
            fprintf(stderr, "autotune: GPU %d: the worker died of %s\n",
                    w->dev, strsignal(WTERMSIG(wstatus)));
    }
    if (rc || !restart || stop_signal) {
        w->done = 1;
        /* Stopped by the user: a worker that would have been restarted
         * ends the run as interrupted, like the others. */
        if (stop_signal && restart)
            w->status = ATUNE__EINTR;
        if (rc)
            w->status = rc;
        return rc;
    }
    if (++w->restarts > ATUNE__MAX_RESTARTS) {
        w->done = 1;
        w->status = ATUNE__ESOFTWARE;
        return atune__fail(err, ATUNE__ESOFTWARE,
                           "GPU %d: more than %d worker restarts", w->dev,
                           ATUNE__MAX_RESTARTS);
    }
    return spawn(o, w, err);
}

/* Milliseconds until the nearest deadline, -1 for none. */
static int poll_timeout(const worker *ws, int n)
{
    double now = atune__now(), wait = -1;

    for (int i = 0; i < n; i++) {
        double left;
        if (!ws[i].pid || !ws[i].armed || ws[i].killed)
            continue;
        left = ws[i].deadline - now;
        if (wait < 0 || left < wait)
            wait = left < 0 ? 0 : left;
    }
    return wait < 0 ? -1 : (int)(wait * 1e3) + 1;
}

static void kill_overdue(worker *ws, int n)
{
    double now = atune__now();

    for (int i = 0; i < n; i++)
        if (ws[i].pid && ws[i].armed && !ws[i].killed &&
            now >= ws[i].deadline) {
            kill(ws[i].pid, SIGKILL);
            ws[i].killed = 1;
        }
}

static void forward_stop(worker *ws, int n, int *forwarded)
{
    if (!stop_signal || *forwarded)
        return;
    *forwarded = 1;
    for (int i = 0; i < n; i++)
        if (ws[i].pid)
            kill(ws[i].pid, SIGINT);
}

/* One round: wait for pipe data, a deadline or a signal; handle them. */
static int step(const atune__supervise_opts *o, worker *ws, int n,
                int *forwarded, atune__err *err)
{
    struct pollfd pfd[MAX_WORKERS];
    int np = 0, rc = 0;

    for (int i = 0; i < n; i++)
        if (ws[i].pid)
            pfd[np++] = (struct pollfd){.fd = ws[i].fd, .events = POLLIN};
    if (poll(pfd, (nfds_t)np, poll_timeout(ws, n)) < 0 && errno != EINTR)
        return atune__fail(err, ATUNE__EOSERR, "poll: %s", strerror(errno));
    forward_stop(ws, n, forwarded);
    kill_overdue(ws, n);
    for (int i = 0, k = 0; i < n && !rc; i++) {
        int wstatus;
        if (!ws[i].pid)
            continue;
        if (!(pfd[k++].revents & (POLLIN | POLLHUP | POLLERR)))
            continue;
        if (read_pipe(&ws[i]))
            continue;
        /* End of file: the worker is gone (its pipe closed with it). */
        close(ws[i].fd);
        ws[i].fd = -1;
        while (waitpid(ws[i].pid, &wstatus, 0) < 0 && errno == EINTR)
            ;
        rc = reap(o, &ws[i], wstatus, err);
    }
    return rc;
}

static int running(const worker *ws, int n)
{
    for (int i = 0; i < n; i++)
        if (ws[i].pid)
            return 1;
    return 0;
}

static void copy_file(const char *path, FILE *to, int or_null)
{
    FILE *f = fopen(path, "r");
    char buf[8192];
    size_t n, total = 0;

    while (f && (n = fread(buf, 1, sizeof(buf), f)) > 0) {
        fwrite(buf, 1, n, to);
        total += n;
    }
    if (f)
        fclose(f);
    if (!total && or_null)
        fputs("null\n", to);
}

/* What the workers printed, in GPU order: one JSON document around theirs
 * when there are several. */
static void print_outputs(const atune__supervise_opts *o, const worker *ws,
                          int n, int status)
{
    if (n == 1) {
        copy_file(ws[0].out, stdout, 0);
        return;
    }
    if (o->json)
        printf("{\"schema\": 1, \"tuner\": \"%s\", \"devices\": [\n",
               ATUNE_VERSION_STRING);
    for (int i = 0; i < n; i++) {
        if (o->json && i > 0)
            fputs(",\n", stdout);
        else if (!o->json)
            printf("%sGPU %d\n", i ? "\n" : "", ws[i].dev);
        copy_file(ws[i].out, stdout, o->json);
    }
    if (o->json)
        printf("], \"status\": \"%s\"}\n",
               status == 0             ? "ok"
               : status == ATUNE__EINTR ? "interrupted"
                                        : "error");
}

static int make_outputs(worker *ws, int n, atune__err *err)
{
    for (int i = 0; i < n; i++) {
        const char *tmp = getenv("TMPDIR");
        int fd;
        snprintf(ws[i].out, sizeof(ws[i].out), "%s/autotune-out-XXXXXX",
                 tmp && *tmp && strlen(tmp) < 40 ? tmp : "/tmp");
        if ((fd = mkstemp(ws[i].out)) < 0)
            return atune__fail(err, ATUNE__ECANTCREAT,
                               "cannot create a temporary file: %s",
                               strerror(errno));
        close(fd);
    }
    return 0;
}

static void catch_stop(struct sigaction *old_int, struct sigaction *old_term)
{
    struct sigaction sa;

    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_stop;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, old_int);
    sigaction(SIGTERM, &sa, old_term);
    signal(SIGPIPE, SIG_IGN);
}

int atune__supervise(const atune__supervise_opts *o, atune__err *err)
{
    worker ws[MAX_WORKERS];
    struct sigaction old_int, old_term;
    int n = o->ndevices, forwarded = 0, rc, status = 0;

    if (n < 1 || n > MAX_WORKERS)
        return atune__fail(err, ATUNE__EUSAGE, "between 1 and %d GPUs",
                           MAX_WORKERS);
    memset(ws, 0, sizeof(ws));
    snprintf(start_s, sizeof(start_s), "%.6f", atune__now());
    for (int i = 0; i < n; i++) {
        ws[i].dev = o->devices[i];
        ws[i].fd = -1;
        atune__journal_new_run_id(ws[i].run, sizeof(ws[i].run));
        /* Workers of one supervisor start in the same microsecond. */
        snprintf(ws[i].run + strlen(ws[i].run),
                 sizeof(ws[i].run) - strlen(ws[i].run), "-%d", i);
    }
    catch_stop(&old_int, &old_term);
    rc = make_outputs(ws, n, err);
    for (int i = 0; !rc && i < n; i++)
        rc = spawn(o, &ws[i], err);
    while (running(ws, n)) {
        int src = step(o, ws, n, &forwarded, err);
        if (src && !rc) {
            rc = src;
            stop_signal = SIGTERM; /* end the others too */
        }
    }
    for (int i = 0; i < n && !status; i++)
        status = ws[i].done ? ws[i].status : ATUNE__ESOFTWARE;
    if (stop_signal && !rc && status == 0)
        status = ATUNE__EINTR;
    print_outputs(o, ws, n, rc ? rc : status);
    for (int i = 0; i < n; i++)
        if (ws[i].out[0])
            unlink(ws[i].out);
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGTERM, &old_term, NULL);
    return rc ? rc : status;
}
