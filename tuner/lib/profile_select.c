/* profile_select.c -- choosing the profile that best fits a device among
 * the files of one directory or of the search path
 * (atune_profile_open_for). */
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
    int dir;          /* ties: the earlier directory of the path */
    const char *path; /* then the file name */
} fit;

/* The best good and the best malformed candidate so far. */
typedef struct scan {
    const atune_device *want;
    atune_profile *good, *bad;
    fit good_fit, bad_fit;
} scan;

static fit fit_of(const atune_device *want, const atune_profile *c, int dir)
{
    fit f = {RANK_UNKNOWN, 0, dir, c->path};
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
    if (a->dir != b->dir)
        return a->dir < b->dir;
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

/* Opens every regular *.ini file in d, the directory number idx of the
 * path, into sc. Returns ATUNE_ENOMEM or ATUNE_OK. */
static int scan_dir(DIR *d, const char *dir, int idx, scan *sc)
{
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
        f = fit_of(sc->want, c, idx);
        if (c->status == ATUNE_OK)
            keep_better(&sc->good, &sc->good_fit, c, &f);
        else
            keep_better(&sc->bad, &sc->bad_fit, c, &f);
    }
    free(path);
    return rc;
}

static const char *rank_words(enum rank r)
{
    switch (r) {
    case RANK_EXACT:
        return "this exact GPU";
    case RANK_NAME:
        return "this GPU model";
    case RANK_CC:
        return "this compute capability";
    default:
        return "this GPU";
    }
}

/* A malformed profile that would have been chosen is reported on the one
 * that was, never skipped silently. */
static int note_skipped(scan *sc)
{
    const char *why = sc->bad->errmsg;
    size_t len = strlen(why) + 128;

    if (!fit_better(&sc->bad_fit, &sc->good_fit))
        return ATUNE_OK;
    if (!(sc->good->warning = malloc(len)))
        return ATUNE_ENOMEM;
    snprintf(sc->good->warning, len, "skipped a malformed profile for %s: %s",
             rank_words(sc->bad_fit.rank), why);
    return ATUNE_OK;
}

/* Joins dirs with ':' for messages. NULL when memory runs out. */
static char *join(char *const *dirs, int n)
{
    size_t len = 1;
    char *s;

    for (int i = 0; i < n; i++)
        len += strlen(dirs[i]) + 1;
    if (!(s = malloc(len)))
        return NULL;
    s[0] = '\0';
    for (int i = 0; i < n; i++) {
        if (i)
            strcat(s, ":");
        strcat(s, dirs[i]);
    }
    return s;
}

/* Scans the directories; a missing one is an error unless skip_missing. */
static int scan_dirs(atune_profile *p, char *const *dirs, int n,
                     int skip_missing, scan *sc)
{
    for (int i = 0; i < n; i++) {
        DIR *d = opendir(dirs[i]);
        int rc;

        if (!d && skip_missing && (errno == ENOENT || errno == ENOTDIR))
            continue;
        if (!d)
            return atune__profile_fail(p, ATUNE_EIO,
                                       "cannot open directory '%s': %s",
                                       dirs[i], strerror(errno));
        rc = scan_dir(d, dirs[i], i, sc);
        closedir(d);
        if (rc != ATUNE_OK)
            return atune__profile_fail(p, rc, "out of memory");
    }
    return ATUNE_OK;
}

/* See profile_impl.h. */
int atune__profile_open_dirs(char *const *dirs, int n, int skip_missing,
                             const atune_device *dev, atune_profile **out)
{
    scan sc = {0};
    char *where = join(dirs, n);
    atune_profile *p;

    *out = p = atune__profile_new(where ? where : "");
    if (!p || !where) {
        free(where);
        atune_profile_close(p);
        *out = NULL;
        return ATUNE_ENOMEM;
    }
    p->wanted = *dev;
    p->wanted.name[sizeof(p->wanted.name) - 1] = '\0';
    p->wanted.uuid[sizeof(p->wanted.uuid) - 1] = '\0';
    sc.want = &p->wanted;
    p->status = scan_dirs(p, dirs, n, skip_missing, &sc);
    if (p->status == ATUNE_OK && sc.good && sc.bad)
        p->status = note_skipped(&sc);
    if (p->status != ATUNE_OK) {
        if (p->status == ATUNE_ENOMEM)
            atune__profile_fail(p, ATUNE_ENOMEM, "out of memory");
    } else if (sc.good || sc.bad) {
        atune_profile *c = sc.good ? sc.good : sc.bad;
        if (sc.good)
            c->match = match_of(sc.good_fit.rank);
        c->wanted = p->wanted;
        atune_profile_close(p);
        p = c;
        if (sc.good)
            sc.good = NULL;
        else
            sc.bad = NULL;
    } else {
        p->status = atune__profile_fail(
            p, ATUNE_ENOTFOUND, "no profile in '%s' fits '%s' (cc %d, %d SMs)",
            where, p->wanted.name, dev->cc, dev->sm_count);
    }
    free(where);
    atune_profile_close(sc.good);
    atune_profile_close(sc.bad);
    *out = p;
    return p->status;
}

int atune_profile_open_for(const char *dir, const atune_device *dev,
                           atune_profile **out)
{
    char **dirs = NULL;
    int n = 0, rc;

    if (!out)
        return ATUNE_EINVAL;
    if (!dev) {
        atune_profile *p = atune__profile_new(dir ? dir : "");
        *out = p;
        if (!p)
            return ATUNE_ENOMEM;
        return p->status =
                   atune__profile_fail(p, ATUNE_EINVAL, "device is NULL");
    }
    if (dir)
        return atune__profile_open_dirs((char *const *)&dir, 1, 0, dev, out);
    if ((rc = atune__profile_dirs(&dirs, &n)) != ATUNE_OK) {
        *out = NULL;
        return rc;
    }
    rc = atune__profile_open_dirs(dirs, n, 1, dev, out);
    free(dirs);
    return rc;
}
