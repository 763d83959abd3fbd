/* check.c -- `autotune check`: compile every valid configuration of every
 * template with NVRTC, on all cores. Needs no GPU and no driver. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "jit.h"
#include "json.h"
#include "space.h"
#include "templates.h"

#define MAX_THREADS 64

/* The work of one template: the configurations to compile, and what
 * became of each. */
typedef struct job {
    const atune__manifest *m;
    const char *arch;
    int64_t n;
    int64_t *index;  /* configurations to compile */
    char **failure;  /* NULL, or the compile error */
    atomic_llong next;
    atomic_int fatal; /* an error that is not the configuration's fault */
    atune__err fatal_err;
    pthread_mutex_t lock;
} job;

static void *worker(void *arg)
{
    job *jb = arg;
    const char *names[] = {jb->m->kernel, jb->m->reference};

    for (;;) {
        long long i = atomic_fetch_add(&jb->next, 1);
        atune__config c;
        atune__cubin cubin;
        atune__err err;
        int rc;

        if (i >= jb->n || atomic_load(&jb->fatal))
            break;
        atune__space_config(jb->m, jb->index[i], &c);
        rc = atune__jit_compile(jb->m, &c, jb->arch, names, 2, &cubin, &err);
        atune__cubin_free(&cubin);
        if (rc == ATUNE__EDATA) {
            jb->failure[i] = atune__strdup(err.msg);
        } else if (rc) {
            pthread_mutex_lock(&jb->lock);
            if (!atomic_exchange(&jb->fatal, rc))
                jb->fatal_err = err;
            pthread_mutex_unlock(&jb->lock);
        }
    }
    return NULL;
}

/* Indices of the configurations valid at any size of the template. */
static int valid_configs(const atune__manifest *m, int64_t *index,
                         int64_t *n, atune__err *err)
{
    atune__devattr dev;
    char reason[256];
    int64_t total = atune__space_size(m);

    atune__devattr_default(&dev);
    *n = 0;
    for (int64_t i = 0; i < total; i++) {
        atune__config c;
        int any = 0;
        atune__space_config(m, i, &c);
        for (int s = 0; !any && s < m->nsizes; s++) {
            atune__vars vs = {0};
            int rc;
            if (atune__size_vars(&m->sizes[s], &vs) ||
                atune__devattr_vars(&dev, &vs))
                return atune__fail(err, ATUNE__ESOFTWARE,
                                   "too many variables");
            rc = atune__space_check(m, &c, &vs, &dev, NULL, reason,
                                    sizeof(reason), err);
            if (rc > 1)
                return rc;
            any = rc;
        }
        if (any)
            index[(*n)++] = i;
    }
    return 0;
}

static int run_job(job *jb, int nthreads)
{
    pthread_t th[MAX_THREADS];
    int started = 0;

    for (; started < nthreads; started++)
        if (pthread_create(&th[started], NULL, worker, jb) != 0)
            break;
    if (started == 0)
        worker(jb);
    for (int i = 0; i < started; i++)
        pthread_join(th[i], NULL);
    return atomic_load(&jb->fatal);
}

static int threads(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);

    return n < 1 ? 1 : n > MAX_THREADS ? MAX_THREADS : (int)n;
}

/* Compiles one template; reports; returns the number of failures, or a
 * negative error code. */
static int check_one(const atune__manifest *m, const atune__cli *o,
                     atune__json *j, int64_t *failed)
{
    job jb;
    atune__err err;
    double t0 = atune__now(), secs;
    int rc;

    memset(&jb, 0, sizeof(jb));
    jb.m = m;
    jb.arch = o->arch;
    jb.index = atune__calloc((size_t)atune__space_size(m), sizeof(int64_t));
    jb.failure = atune__calloc((size_t)atune__space_size(m), sizeof(char *));
    pthread_mutex_init(&jb.lock, NULL);
    atomic_init(&jb.next, 0);
    atomic_init(&jb.fatal, 0);
    if (!jb.index || !jb.failure)
        rc = atune__fail(&err, ATUNE__EOSERR, "out of memory");
    else
        rc = valid_configs(m, jb.index, &jb.n, &err);
    if (!rc && (rc = run_job(&jb, threads())))
        err = jb.fatal_err;
    secs = atune__now() - t0;
    *failed = 0;
    if (!rc && j) {
        atune__json_object(j, NULL);
        atune__json_str(j, "name", m->name);
        atune__json_int(j, "configurations", jb.n);
        atune__json_array(j, "failures");
    }
    for (int64_t i = 0; !rc && i < jb.n; i++) {
        atune__config c;
        char cfg[512];
        if (!jb.failure[i])
            continue;
        (*failed)++;
        atune__space_config(m, jb.index[i], &c);
        atune__config_str(m, &c, cfg, sizeof(cfg));
        if (j) {
            atune__json_object(j, NULL);
            atune__json_str(j, "config", cfg);
            atune__json_str(j, "error", jb.failure[i]);
            atune__json_end(j);
        } else {
            fprintf(stderr, "autotune: error: %s\n", jb.failure[i]);
        }
    }
    if (!rc && j) {
        atune__json_end(j);
        atune__json_int(j, "failed", *failed);
        atune__json_num(j, "seconds", secs);
        atune__json_end(j);
    } else if (!rc && !o->quiet) {
        printf("%-10s %6lld configurations compiled for %s, %lld failed, "
               "%.1f s\n",
               m->name, (long long)jb.n, o->arch, (long long)*failed, secs);
    }
    if (rc)
        atune__cli_error(rc, "%s", err.msg);
    for (int64_t i = 0; jb.failure && i < jb.n; i++)
        free(jb.failure[i]);
    free(jb.failure);
    free(jb.index);
    pthread_mutex_destroy(&jb.lock);
    return rc;
}

int atune__cmd_check(const atune__cli *o)
{
    atune__templates t = {0};
    atune__json json, *j = NULL;
    atune__err err;
    int64_t failed = 0;
    int rc;

    atune__err_clear(&err);
    rc = atune__templates_load(o->templates, o->kernels, &t, &err);
    if (rc)
        return atune__cli_error(rc, "%s", err.msg);
    if (o->json) {
        j = &json;
        atune__json_init(j, stdout);
        atune__json_object(j, NULL);
        atune__json_int(j, "schema", 1);
        atune__json_str(j, "arch", o->arch);
        atune__json_array(j, "templates");
    }
    for (int i = 0; !rc && i < t.n; i++) {
        int64_t f = 0;
        rc = check_one(t.m[i], o, j, &f);
        failed += f;
    }
    if (j) {
        atune__json_end(j);
        atune__json_int(j, "failed", failed);
        atune__json_end(j);
    }
    atune__templates_free(&t);
    if (!rc && failed)
        rc = ATUNE__EDATA;
    return rc;
}
