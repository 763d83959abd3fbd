/* profile_select.c -- choosing the profile that best fits a device among
 * the files of one directory or of the search path
 * (atune_profile_open_for). */
#include "lib/profile_impl.h"

#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
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
    int foreign;      /* then the file autotune writes, <slug>.ini, wins */
    const char *path; /* then the file name */
} fit;

/* A file that may fit: its [device] read from its start, or, when that
 * could not tell, the whole file opened (p). */
typedef struct cand {
    fit f;
    char *path;
    atune_profile *p; /* NULL until opened whole */
} cand;

typedef struct scan {
    const atune_device *want;
    cand *c;
    int n, cap;
    int nskipped;        /* search path entries that could not be opened */
    char skipped[160];   /* the first of them, for the warning */
} scan;

/* Whether the file's name is the [device] slug the tuner wrote into it. */
static int own_name(const atune_profile *c)
{
    const atune__ini_section *s = c->doc ? atune__ini_find(c->doc, "device")
                                         : NULL;
    const atune__ini_entry *e = s ? atune__ini_get(s, "slug") : NULL;
    const char *base = strrchr(c->path, '/');
    size_t n;

    base = base ? base + 1 : c->path;
    if (!e || !(n = strlen(e->value)))
        return 0;
    return strncmp(base, e->value, n) == 0 && strcmp(base + n, ".ini") == 0;
}

static fit fit_of(const atune_device *want, const atune_profile *c, int dir)
{
    fit f = {RANK_UNKNOWN, 0, dir, 1, c->path};
    const atune_device *d = &c->dev;

    if (!c->dev_ok)
        return f;
    f.foreign = !own_name(c);
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
    if (a->foreign != b->foreign)
        return a->foreign < b->foreign;
    return strcmp(a->path, b->path) < 0;
}

static int cmp_cand(const void *a, const void *b)
{
    const cand *x = a, *y = b;

    return fit_better(&x->f, &y->f) ? -1 : fit_better(&y->f, &x->f);
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

/* Reads the [device] of the file at path (the whole file when its start
 * cannot tell) and keeps it as a candidate if it may fit. Takes path. */
static int add_cand(scan *sc, char *path, int idx)
{
    atune_profile *c;
    int rc = atune__profile_peek(path, &c);
    int whole = 0;
    fit f;

    if (rc != ATUNE_OK && rc != ATUNE_ENOMEM) {
        atune_profile_close(c);
        rc = atune_profile_open(path, &c);
        whole = 1;
    }
    if (rc == ATUNE_ENOMEM) {
        atune_profile_close(c);
        free(path);
        return ATUNE_ENOMEM;
    }
    f = fit_of(sc->want, c, idx);
    if (f.rank == RANK_NONE) {
        atune_profile_close(c);
        free(path);
        return ATUNE_OK;
    }
    if (sc->n == sc->cap) {
        int cap = sc->cap ? 2 * sc->cap : 8;
        cand *v = realloc(sc->c, (size_t)cap * sizeof(*v));
        if (!v) {
            atune_profile_close(c);
            free(path);
            return ATUNE_ENOMEM;
        }
        sc->c = v;
        sc->cap = cap;
    }
    f.path = path;
    sc->c[sc->n].f = f;
    sc->c[sc->n].path = path;
    /* A peeked handle holds its [device] only: opened whole if chosen. */
    if (!whole) {
        atune_profile_close(c);
        c = NULL;
    }
    sc->c[sc->n++].p = c;
    return ATUNE_OK;
}

/* Every regular *.ini file in d, the directory number idx of the path,
 * into sc. Returns ATUNE_ENOMEM or ATUNE_OK. */
static int scan_dir(DIR *d, const char *dir, int idx, scan *sc)
{
    struct dirent *de;
    int rc = ATUNE_OK;

    while (rc == ATUNE_OK && (de = readdir(d)) != NULL) {
        struct stat st;
        size_t len;
        char *path;

        if (!is_ini_name(de->d_name))
            continue;
        len = strlen(dir) + strlen(de->d_name) + 2;
        if (!(path = malloc(len)))
            return ATUNE_ENOMEM;
        snprintf(path, len, "%s/%s", dir, de->d_name);
        if (stat(path, &st) != 0 || !S_ISREG(st.st_mode)) {
            free(path);
            continue;
        }
        rc = add_cand(sc, path, idx);
    }
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

/* Appends a sentence to p's warning ("; " between two). */
static int warn(atune_profile *p, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static int warn(atune_profile *p, const char *fmt, ...)
{
    size_t old = p->warning ? strlen(p->warning) : 0;
    va_list ap;
    char *w;
    int n;

    va_start(ap, fmt);
    n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0 || !(w = realloc(p->warning, old + (size_t)n + 3)))
        return ATUNE_ENOMEM;
    p->warning = w;
    if (old) {
        strcpy(w + old, "; ");
        old += 2;
    }
    va_start(ap, fmt);
    vsnprintf(w + old, (size_t)n + 1, fmt, ap);
    va_end(ap);
    return ATUNE_OK;
}

/* What the warning of the chosen file c (number k of the sorted sc) says:
 * a malformed file that would have been chosen is never skipped silently,
 * and another file of the same directory that describes the same GPU as
 * well is named, with the rule that chose between them. */
static int note_choice(const scan *sc, int k, int first_bad, atune_profile *c)
{
    const fit *f = &sc->c[k].f;
    int rc = ATUNE_OK, others = 0, other = -1;

    if (first_bad >= 0)
        rc = warn(c, "skipped a malformed profile for %s: %s",
                  rank_words(sc->c[first_bad].f.rank),
                  sc->c[first_bad].p->errmsg);
    for (int j = k + 1; j < sc->n; j++) {
        const fit *g = &sc->c[j].f;
        if (g->rank == f->rank && g->sm_diff == f->sm_diff &&
            g->dir == f->dir && f->rank != RANK_CC) {
            others++;
            other = other < 0 ? j : other;
        }
    }
    /* A file whose [device] cannot be read may be this GPU's own profile:
     * another model's is handed out only with a word (issue 30), never
     * silently. Not refused: a GPU of the same compute capability is what
     * the search path promises when nothing closer can be read. */
    for (int j = k + 1; rc == ATUNE_OK && f->rank != RANK_EXACT && j < sc->n;
         j++) {
        const cand *u = &sc->c[j];
        if (u->f.rank == RANK_UNKNOWN && u->p && u->p->status != ATUNE_OK) {
            rc = warn(c,
                      "'%s' cannot be read and may be this GPU's own "
                      "profile (%s); chose '%s', a profile for %s",
                      u->path, u->p->errmsg, c->path, rank_words(f->rank));
            break;
        }
    }
    if (rc == ATUNE_OK && others)
        rc = warn(c,
                  "%d other file%s describe%s %s as well (%s%s); chose '%s' "
                  "as %s",
                  others, others > 1 ? "s" : "", others > 1 ? "" : "s",
                  rank_words(f->rank), sc->c[other].path,
                  others > 1 ? ", ..." : "", c->path,
                  !f->foreign && sc->c[other].f.foreign
                      ? "the file autotune writes for it (named for its slug)"
                      : "the first by file name");
    return rc;
}

/* Opens the candidates whole, the best fit first, until one is good. */
static int choose(scan *sc, atune_profile **chosen)
{
    int first_bad = -1;

    *chosen = NULL;
    if (sc->n > 1) /* qsort of NULL is undefined, even of 0 items */
        qsort(sc->c, (size_t)sc->n, sizeof(*sc->c), cmp_cand);
    for (int i = 0; i < sc->n; i++) {
        cand *c = &sc->c[i];
        if (!c->p && atune_profile_open(c->path, &c->p) == ATUNE_ENOMEM)
            return ATUNE_ENOMEM;
        if (c->p->status != ATUNE_OK) {
            first_bad = first_bad < 0 ? i : first_bad;
            continue;
        }
        c->p->match = match_of(c->f.rank);
        *chosen = c->p;
        c->p = NULL;
        return note_choice(sc, i, first_bad, *chosen);
    }
    /* Nothing good: the error of the malformed file that fits best. */
    if (sc->n) {
        *chosen = sc->c[0].p;
        sc->c[0].p = NULL;
    }
    return ATUNE_OK;
}

static void scan_free(scan *sc)
{
    for (int i = 0; i < sc->n; i++) {
        atune_profile_close(sc->c[i].p);
        free(sc->c[i].path);
    }
    free(sc->c);
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
        /* One entry of the search path that cannot be read (too long a
         * name, no permission) does not hide the others; it is named in
         * the chosen profile's warning. */
        if (!d && skip_missing) {
            if (sc->nskipped++ == 0)
                snprintf(sc->skipped, sizeof(sc->skipped), "'%.*s%s': %s",
                         (int)(strlen(dirs[i]) > 100 ? 100 : strlen(dirs[i])),
                         dirs[i], strlen(dirs[i]) > 100 ? "..." : "",
                         strerror(errno));
            continue;
        }
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
    atune_profile *p, *c = NULL;

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
    if (p->status == ATUNE_OK)
        p->status = choose(&sc, &c);
    if (p->status != ATUNE_OK) {
        atune_profile_close(c);
        if (p->status == ATUNE_ENOMEM)
            atune__profile_fail(p, ATUNE_ENOMEM, "out of memory");
    } else if (c) {
        c->wanted = p->wanted;
        if (sc.nskipped &&
            warn(c, "skipped %d entr%s of the profile search path that "
                    "cannot be opened (%s)",
                 sc.nskipped, sc.nskipped > 1 ? "ies" : "y",
                 sc.skipped) != ATUNE_OK)
            c->status = atune__profile_fail(c, ATUNE_ENOMEM, "out of memory");
        atune_profile_close(p);
        p = c;
    } else {
        p->status = atune__profile_fail(
            p, ATUNE_ENOTFOUND, "no profile in '%s' fits '%s' (cc %d, %d SMs)",
            where, p->wanted.name, dev->cc, dev->sm_count);
    }
    free(where);
    scan_free(&sc);
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
