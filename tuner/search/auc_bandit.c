/* auc_bandit.c -- an ensemble of the other techniques.
 *
 * As ATF's AUC bandit (after OpenTuner): each step asks the technique with
 * the best area under its recent curve of "improved the best time"
 * (exploitation) plus C sqrt(2 ln N / n_i) (exploration). */
#include <math.h>
#include <stdlib.h>

#include "search/technique.h"

#define AUC_C 0.05
enum { AUC_ARMS = 4, AUC_WINDOW = 64 };

typedef struct arm {
    const atune__technique *t;
    void *st;
    unsigned char hist[AUC_WINDOW]; /* 1: improved the best time */
    int uses;
} arm;

typedef struct bandit {
    arm arm[AUC_ARMS];
    int narms, last, uses, asked;
} bandit;

static int bandit_init(void *st, atune__search_state *s)
{
    /* The technique objects themselves, not looked up in the driver's
     * table: the driver uses the bandit, so the bandit does not use the
     * driver. */
    static const atune__technique *const arms[AUC_ARMS] = {
        &atune__greedy_ils, &atune__simulated_annealing,
        &atune__genetic_algorithm, &atune__diff_evo};
    bandit *b = st;

    for (int i = 0; i < AUC_ARMS; i++) {
        arm *a = &b->arm[i];
        int rc;
        a->t = arms[i];
        a->st = atune__calloc(1, a->t->state_size);
        if (!a->st)
            return atune__fail(s->err, ATUNE__EOSERR, "out of memory");
        b->narms++;
        if (a->t->init && (rc = a->t->init(a->st, s)))
            return rc;
    }
    return 0;
}

static double auc(const arm *a)
{
    int n = a->uses < AUC_WINDOW ? a->uses : AUC_WINDOW;
    double sum = 0;

    /* Recent uses weigh more: the i-th oldest of the window weighs i. */
    for (int i = 0; i < n; i++)
        sum += (i + 1) * a->hist[(a->uses - n + i) % AUC_WINDOW];
    return n ? 2 * sum / ((double)n * (n + 1)) : 0;
}

static int64_t bandit_ask(void *st, atune__search_state *s)
{
    bandit *b = st;
    double best = -INFINITY;
    int pick = 0;

    for (int i = 0; i < b->narms; i++) {
        const arm *a = &b->arm[i];
        double v;
        if (a->uses == 0) {
            pick = i;
            break;
        }
        v = auc(a) + AUC_C * sqrt(2 * log((double)b->uses) / a->uses);
        if (v > best) {
            best = v;
            pick = i;
        }
    }
    b->last = pick;
    b->asked = 1;
    return b->arm[pick].t->ask(b->arm[pick].st, s);
}

static void bandit_tell(void *st, atune__search_state *s, int64_t pos, double t,
                        int how)
{
    bandit *b = st;

    if (!b->asked) {
        /* The default configuration: every technique may start there. */
        for (int i = 0; i < b->narms; i++)
            b->arm[i].t->tell(b->arm[i].st, s, pos, t, how);
        return;
    }
    b->arm[b->last].t->tell(b->arm[b->last].st, s, pos, t, how);
    if (how != ATUNE__TOLD_CACHED) {
        arm *a = &b->arm[b->last];
        /* The driver updated best before telling: an improvement is a
         * new configuration that is the best. */
        a->hist[a->uses % AUC_WINDOW] = s->best == pos && isfinite(t);
        a->uses++;
        b->uses++;
    }
}

static void bandit_fini(void *st)
{
    bandit *b = st;

    for (int i = 0; i < b->narms; i++) {
        if (b->arm[i].t->fini)
            b->arm[i].t->fini(b->arm[i].st);
        free(b->arm[i].st);
    }
}

const atune__technique atune__auc_bandit = {
    .name = "auc_bandit",
    .state_size = sizeof(bandit),
    .init = bandit_init,
    .ask = bandit_ask,
    .tell = bandit_tell,
    .fini = bandit_fini};
