/* compile_model.c -- see compile_model.h. The rules are compile.c's
 * (next_job, within_budget, whole): a worker takes a job a consumer waits
 * for, else, within the budget, the latest hint in order, then index
 * order for a list the floor covers well; an urgent job waits for the
 * next worker to come free. Time moves from one event (a hint, an
 * evaluation) to the next; between them a worker that comes free takes
 * what the rules give it at that moment. */
#include "compile_model.h"

#include <stdlib.h>

#include "engine/compile.h"

enum { PENDING, RUNNING, DONE };
enum { MAX_SOON = 64, MAX_WORKERS = 64 };

struct cmodel {
    cmodel_opts o;
    int64_t total;
    unsigned char *state;
    double *done_at;
    int64_t *order; /* the valid configurations, ascending */
    int64_t norder, next;
    int64_t soon[MAX_SOON];
    int nsoon, isoon;
    int64_t started, requests;
    double free_at[MAX_WORKERS];
    int64_t job[MAX_WORKERS]; /* what the worker compiles, or -1 */
    unsigned char idle[MAX_WORKERS];
    double now, wait;
};

/* 0.7-1.3 times the mean, fixed per configuration (splitmix64). */
static double cost(const cmodel *m, int64_t idx)
{
    uint64_t z = (uint64_t)idx + 0x9e3779b97f4a7c15u;

    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    z ^= z >> 31;
    return m->o.compile_s *
           (0.7 + 0.6 * (double)(z >> 11) / 9007199254740992.0);
}

cmodel *cmodel_open(const cmodel_opts *o, int64_t total,
                    const unsigned char *valid)
{
    cmodel *m = calloc(1, sizeof(*m));

    if (!m)
        return NULL;
    m->o = *o;
    if (m->o.workers < 1)
        m->o.workers = 1;
    if (m->o.workers > MAX_WORKERS)
        m->o.workers = MAX_WORKERS;
    m->total = total;
    m->state = calloc((size_t)total, 1);
    m->done_at = calloc((size_t)total, sizeof(double));
    m->order = malloc((size_t)total * sizeof(int64_t));
    if (!m->state || !m->done_at || !m->order) {
        cmodel_close(m);
        return NULL;
    }
    for (int i = 0; i < MAX_WORKERS; i++)
        m->job[i] = -1;
    for (int64_t i = 0; i < total; i++)
        if (valid[i])
            m->order[m->norder++] = i;
    return m;
}

void cmodel_close(cmodel *m)
{
    if (!m)
        return;
    free(m->state);
    free(m->done_at);
    free(m->order);
    free(m);
}

static int takeable(const cmodel *m, int64_t idx)
{
    return m->state[idx] == PENDING;
}

/* compile.c's whole() */
static int whole(const cmodel *m)
{
    return m->norder <= (int64_t)ATUNE__POOL_FOLLOW_WHOLE /
                            ATUNE__POOL_FOLLOW_FLOOR * m->o.floor;
}

/* compile.c's within_budget() */
static int within_budget(const cmodel *m)
{
    if (m->started < 2 * m->requests)
        return 1;
    if (whole(m))
        return m->started < m->o.floor;
    return m->started < m->o.floor &&
           m->started < m->requests + ATUNE__POOL_FOLLOW_AHEAD;
}

static int64_t next_job(cmodel *m)
{
    if (!within_budget(m))
        return -1;
    while (m->isoon < m->nsoon && m->isoon < m->o.window) {
        int64_t j = m->soon[m->isoon++];
        if (takeable(m, j))
            return j;
    }
    while (m->isoon < m->nsoon) {
        int64_t j = m->soon[m->isoon++];
        if (takeable(m, j))
            return j;
    }
    while (m->nsoon > 0 && whole(m) && m->next < m->norder) {
        int64_t j = m->order[m->next++];
        if (takeable(m, j))
            return j;
    }
    return -1;
}

static void start(cmodel *m, int w, int64_t j, double at)
{
    m->state[j] = RUNNING;
    m->done_at[j] = at + cost(m, j);
    m->free_at[w] = m->done_at[j];
    m->job[w] = j;
    m->started++;
}

/* The jobs finished by time t. */
static void finish(cmodel *m, double t)
{
    for (int i = 0; i < m->o.workers; i++)
        if (m->job[i] >= 0 && m->done_at[m->job[i]] <= t) {
            m->state[m->job[i]] = DONE;
            m->job[i] = -1;
        }
}

/* Workers that come free up to time t take jobs; those that find none
 * sleep until the next event wakes them. */
static void advance(cmodel *m, double t)
{
    for (;;) {
        int w = -1;
        for (int i = 0; i < m->o.workers; i++)
            if (!m->idle[i] && (w < 0 || m->free_at[i] < m->free_at[w]))
                w = i;
        if (w < 0 || m->free_at[w] > t)
            break;
        finish(m, m->free_at[w]);
        int64_t j = next_job(m);
        if (j < 0)
            m->idle[w] = 1;
        else
            start(m, w, j, m->free_at[w]);
    }
    finish(m, t);
}

static void wake(cmodel *m)
{
    for (int i = 0; i < m->o.workers; i++)
        if (m->idle[i]) {
            m->idle[i] = 0;
            m->free_at[i] = m->now;
        }
    advance(m, m->now);
}

void cmodel_hint(cmodel *m, const int64_t *idx, int n)
{
    advance(m, m->now);
    m->nsoon = m->isoon = 0;
    for (int i = 0; i < n && m->nsoon < MAX_SOON; i++)
        if (idx[i] >= 0 && idx[i] < m->total)
            m->soon[m->nsoon++] = idx[i];
    wake(m);
}

void cmodel_eval(cmodel *m, int64_t idx)
{
    double ready;

    advance(m, m->now);
    m->requests++;
    if (m->state[idx] == PENDING) {
        /* Urgent, and taken before the budget's new room (compile.c holds
         * the lock from the request to the urgent list): an idle worker,
         * else the next to come free. */
        int w = -1;
        for (int i = 0; i < m->o.workers && w < 0; i++)
            if (m->idle[i]) {
                w = i;
                m->idle[i] = 0;
                m->free_at[i] = m->now;
            }
        if (w < 0) {
            w = 0;
            for (int i = 1; i < m->o.workers; i++)
                if (m->free_at[i] < m->free_at[w])
                    w = i;
        }
        if (m->job[w] >= 0) /* done at free_at[w]: ready is done_at */
            m->state[m->job[w]] = DONE;
        start(m, w, idx, m->free_at[w] > m->now ? m->free_at[w] : m->now);
    }
    wake(m);
    ready = m->done_at[idx];
    if (ready > m->now) {
        m->wait += ready - m->now;
        m->now = ready;
    }
    advance(m, m->now);
    m->now += m->o.eval_s;
    advance(m, m->now);
}

void cmodel_totals(const cmodel *m, double *wall, double *wait,
                   int64_t *started)
{
    *wall = m->now;
    *wait = m->wait;
    *started = m->started;
}
