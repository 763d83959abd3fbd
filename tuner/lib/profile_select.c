/* profile_select.c -- choosing the profile of a directory that best fits
 * a device (atune_profile_open_for). */
#include "lib/profile_impl.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

enum rank { RANK_EXACT, RANK_NAME, RANK_CC, RANK_UNKNOWN, RANK_NONE };

/* How well a candidate fits: lower is better, compared field by field. */
typedef struct fit {
    enum rank rank;
    long long sm_diff;
    const char *path; /* ties: the file name, as all share dir */
} fit;

static fit fit_of(const atune_device *want, const atune_profile *c)
{
    fit f = {RANK_UNKNOWN, 0, c->path};
    const atune_device *d = &c->dev;

    if (!c->dev_ok)
        return f;
    f.sm_diff = llabs((long long)want->sm_count - d->sm_count);
    if (strncmp(want->name, d->name, sizeof(want->name)) == 0)
        f.rank = want->cc == d->cc && f.sm_diff == 0 ? RANK_EXACT : RANK_NAME;
    else if (want->cc == d->cc)
        f.rank = RANK_CC;
    else
        f.rank = RANK_NONE;
    return f;
}

static int fit_better(const fit *a, const fit *b)
{
    if (a->rank != b->rank)
        return a->rank < b->rank;
    if (a->sm_diff != b->sm_diff)
        return a->sm_diff < b->sm_diff;
    return strcmp(a->path, b->path) < 0;
}

/* Only ranks a good file can have. */
static atune_device_match match_of(enum rank r)
{
    switch (r) {
    case RANK_EXACT:
        return ATUNE_DEVICE_EXACT;
    case RANK_NAME:
        return ATUNE_DEVICE_NAME;
    default:
        return ATUNE_DEVICE_CC;
    }
}

static int is_ini_name(const char *name)
{
    size_t n = strlen(name);

    return n > 4 && strcmp(name + n - 4, ".ini") == 0;
}

/* Keeps c in *slot if it fits better than the one there; closes the loser. */
static void keep_better(atune_profile **slot, fit *slot_fit, atune_profile *c,
                        const fit *f)
{
    if (f->rank != RANK_NONE && (!*slot || fit_better(f, slot_fit))) {
        atune_profile_close(*slot);
        *slot = c;
        *slot_fit = *f;
    } else {
        atune_profile_close(c);
    }
}

/* Opens every regular *.ini file in d and keeps the best good and the best
 * malformed candidate. Returns ATUNE_ENOMEM or ATUNE_OK. */
static int scan_dir(DIR *d, const char *dir, const atune_device *want,
                    atune_profile **good, atune_profile **bad)
{
    fit good_fit = {RANK_NONE, 0, NULL}, bad_fit = {RANK_NONE, 0, NULL};
    struct dirent *de;
    char *path = NULL;
    int rc = ATUNE_OK;

    while ((de = readdir(d)) != NULL) {
        atune_profile *c;
        struct stat st;
        size_t len;
        fit f;

        if (!is_ini_name(de->d_name))
            continue;
        len = strlen(dir) + strlen(de->d_name) + 2;

        free(path);
        path = malloc(len);
        if (!path) {
            rc = ATUNE_ENOMEM;
            break;
        }
        snprintf(path, len, "%s/%s", dir, de->d_name);
        if (stat(path, &st) != 0 || !S_ISREG(st.st_mode))
            continue;
        if (atune_profile_open(path, &c) == ATUNE_ENOMEM) {
            atune_profile_close(c);
            rc = ATUNE_ENOMEM;
            break;
        }
        f = fit_of(want, c);
        if (c->status == ATUNE_OK)
            keep_better(good, &good_fit, c, &f);
        else
            keep_better(bad, &bad_fit, c, &f);
    }
    free(path);
    if (*good)
        (*good)->match = match_of(good_fit.rank);
    return rc;
}

int atune_profile_open_for(const char *dir, const atune_device *dev,
                           atune_profile **out)
{
    atune_profile *p, *good = NULL, *bad = NULL;
    DIR *d;
    int rc;

    if (!out)
        return ATUNE_EINVAL;
    *out = p = atune__profile_new(dir ? dir : "");
    if (!p)
        return ATUNE_ENOMEM;
    if (!dir || !dev)
        return p->status =
                   atune__profile_fail(p, ATUNE_EINVAL, "%s is NULL",
                                       dir ? "device" : "profile directory");
    p->wanted = *dev;
    p->wanted.name[sizeof(p->wanted.name) - 1] = '\0';
    p->wanted.uuid[sizeof(p->wanted.uuid) - 1] = '\0';
    d = opendir(dir);
    if (!d)
        return p->status = atune__profile_fail(p, ATUNE_EIO,
                                               "cannot open directory '%s': %s",
                                               dir, strerror(errno));
    rc = scan_dir(d, dir, &p->wanted, &good, &bad);
    closedir(d);
    if (rc != ATUNE_OK) {
        p->status = atune__profile_fail(p, rc, "out of memory");
    } else if (good) {
        good->wanted = p->wanted;
        atune_profile_close(p);
        p = good;
        good = NULL;
    } else if (bad) {
        bad->wanted = p->wanted;
        atune_profile_close(p);
        p = bad;
        bad = NULL;
    } else {
        p->status = atune__profile_fail(
            p, ATUNE_ENOTFOUND, "no profile in '%s' fits '%s' (cc %d, %d SMs)",
            dir, p->wanted.name, dev->cc, dev->sm_count);
    }
    atune_profile_close(good);
    atune_profile_close(bad);
    *out = p;
    return p->status;
}
