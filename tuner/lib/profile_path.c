/* profile_path.c -- the directories searched for a profile when the
 * application names none: $ATUNE_PROFILE_PATH, the user's, the system's.
 * FFTW's system wisdom is the model: one call finds what the system
 * installed, and the user's own tuning comes first. */
#define _GNU_SOURCE /* dladdr */
#include "lib/profile_impl.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef ATUNE_DATADIR
#define ATUNE_DATADIR "/usr/local/share"
#endif
#ifndef ATUNE_DATADIR_FROM_LIBDIR
#define ATUNE_DATADIR_FROM_LIBDIR ""
#endif
#define SUBDIR "/autotune/profiles"

/* A list of directories being built, as long as the path is (no limit of
 * entries): the strings are then moved behind the pointer array in one
 * allocation. */
typedef struct dirlist {
    int n, cap;
    size_t bytes;
    char **dir;
} dirlist;

/* Adds the len bytes at s, then suffix; duplicates and empty names are
 * dropped. ATUNE_ENOMEM. */
static int add(dirlist *l, const char *s, size_t len, const char *suffix)
{
    size_t n = len + strlen(suffix) + 1;
    char *d;

    if (len == 0)
        return ATUNE_OK;
    if (l->n == l->cap) {
        int cap = l->cap ? 2 * l->cap : 16;
        char **dir = realloc(l->dir, (size_t)cap * sizeof(*dir));
        if (!dir)
            return ATUNE_ENOMEM;
        l->dir = dir;
        l->cap = cap;
    }
    if (!(d = malloc(n)))
        return ATUNE_ENOMEM;
    snprintf(d, n, "%.*s%s", (int)len, s, suffix);
    for (int i = 0; i < l->n; i++) {
        if (strcmp(l->dir[i], d) == 0) {
            free(d);
            return ATUNE_OK;
        }
    }
    l->dir[l->n++] = d;
    l->bytes += n;
    return ATUNE_OK;
}

static int add_env_path(dirlist *l)
{
    const char *s = getenv("ATUNE_PROFILE_PATH");
    int rc = ATUNE_OK;

    while (s && *s && rc == ATUNE_OK) {
        const char *colon = strchr(s, ':');
        size_t len = colon ? (size_t)(colon - s) : strlen(s);
        rc = add(l, s, len, "");
        s = colon ? colon + 1 : NULL;
    }
    return rc;
}

/* The XDG base directory rule: a relative $XDG_DATA_HOME is ignored. */
static int add_user(dirlist *l)
{
    const char *xdg = getenv("XDG_DATA_HOME");
    const char *home = getenv("HOME");

    if (xdg && xdg[0] == '/')
        return add(l, xdg, strlen(xdg), SUBDIR);
    if (home && home[0] == '/')
        return add(l, home, strlen(home), "/.local/share" SUBDIR);
    return ATUNE_OK;
}

/* The datadir of the prefix the shared library was installed in, found
 * from the library's own file, so that `cmake --install --prefix P` finds
 * P's profiles; then the datadir it was configured for. */
static int add_system(dirlist *l)
{
#ifdef ATUNE_SHARED_LIB
    /* An object of the library: ISO C has no function-to-object cast. */
    static const char anchor;
    Dl_info info;

    if (ATUNE_DATADIR_FROM_LIBDIR[0] && dladdr(&anchor, &info) &&
        info.dli_fname && info.dli_fname[0] == '/') {
        const char *slash = strrchr(info.dli_fname, '/');
        char *dir, *real;
        int rc;
        if (!(dir = malloc(strlen(info.dli_fname) + sizeof(SUBDIR) +
                           sizeof(ATUNE_DATADIR_FROM_LIBDIR) + 2)))
            return ATUNE_ENOMEM;
        sprintf(dir, "%.*s/%s%s", (int)(slash - info.dli_fname), info.dli_fname,
                ATUNE_DATADIR_FROM_LIBDIR, SUBDIR);
        /* "PREFIX/share/...", not "PREFIX/lib/../share/...", in messages;
         * a directory that is not there is not searched. */
        real = realpath(dir, NULL);
        free(dir);
        rc = real ? add(l, real, strlen(real), "") : ATUNE_OK;
        free(real);
        if (rc != ATUNE_OK)
            return rc;
    }
#endif
    return add(l, ATUNE_DATADIR, strlen(ATUNE_DATADIR), SUBDIR);
}

/* See profile_impl.h. */
int atune__profile_dirs(char ***dirs, int *n)
{
    dirlist l = {0};
    char **out = NULL, *text;
    int rc = add_env_path(&l);

    if (rc == ATUNE_OK)
        rc = add_user(&l);
    if (rc == ATUNE_OK)
        rc = add_system(&l);
    if (rc == ATUNE_OK &&
        !(out = malloc((size_t)l.n * sizeof(char *) + l.bytes + 1)))
        rc = ATUNE_ENOMEM;
    text = out ? (char *)(out + l.n) : NULL;
    for (int i = 0; i < l.n; i++) {
        if (out) {
            size_t len = strlen(l.dir[i]) + 1;
            out[i] = memcpy(text, l.dir[i], len);
            text += len;
        }
        free(l.dir[i]);
    }
    free(l.dir);
    *dirs = out;
    *n = out ? l.n : 0;
    return rc;
}

int atune_profile_search_path(char *buf, size_t len)
{
    char **dirs;
    size_t used = 0;
    int n, rc;

    if (!buf || len == 0)
        return ATUNE_EINVAL;
    buf[0] = '\0';
    if ((rc = atune__profile_dirs(&dirs, &n)) != ATUNE_OK)
        return rc;
    for (int i = 0; i < n && used < len; i++)
        used += (size_t)snprintf(buf + used, len - used, "%s%s", i ? ":" : "",
                                 dirs[i]);
    free(dirs);
    return ATUNE_OK;
}

/* Opened without waiting: a planted FIFO is refused (errno EINVAL). */
FILE *atune__lib_open_regular(const char *path)
{
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    struct stat st;
    FILE *f = NULL;

    if (fd >= 0 && fstat(fd, &st) == 0 && !S_ISFIFO(st.st_mode) &&
        !S_ISSOCK(st.st_mode) && fcntl(fd, F_SETFL, 0) == 0)
        f = fdopen(fd, "rb");
    if (!f && fd >= 0 && close(fd) == 0)
        errno = EINVAL;
    return f;
}

