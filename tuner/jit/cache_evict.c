/* cache_evict.c -- the module cache's size limit: removing the least
 * recently used entries of a cache directory (see cache.h).
 *
 * "Recently used" is the later of an entry's modification time (written)
 * and access time (cache.c sets it on every hit, so noatime or relatime
 * mounts do not matter). Several processes may evict one directory at
 * once, and others may be reading the entries removed: on POSIX an open
 * file stays readable after unlink, and a lookup of a removed entry is a
 * miss that compiles and writes it again, so no lock is needed. */
#include "jit/cache.h"

#include "base/outfile.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* A temporary file this old was left by a writer that was killed (a
 * compile past its time limit, a crash); a live writer renames its file
 * within milliseconds. */
#define STALE_TMP_SECONDS 3600

typedef struct file {
    char name[32];
    uint64_t bytes;
    struct timespec used;
} file;

typedef struct listing {
    file *v;
    size_t n, cap;
    uint64_t total;
} listing;

/* "0123456789abcdef.cubin" */
static int is_entry(const char *name)
{
    if (strlen(name) != 22 || strcmp(name + 16, ".cubin") != 0)
        return 0;
    for (int i = 0; i < 16; i++)
        if (!strchr("0123456789abcdef", name[i]))
            return 0;
    return 1;
}

/* ".0123456789abcdef.RANDOM.atune-tmp", write_entry's temporary files. */
static int is_tmp(const char *name)
{
    size_t slen = strlen(ATUNE__CACHE_TMP_SUFFIX);
    size_t len = 1 + 16 + 1 + ATUNE__TMP_RANDOM + slen;

    if (strlen(name) != len || name[0] != '.' || name[17] != '.' ||
        strcmp(name + len - slen, ATUNE__CACHE_TMP_SUFFIX) != 0)
        return 0;
    for (int i = 1; i < 17; i++)
        if (!strchr("0123456789abcdef", name[i]))
            return 0;
    for (size_t i = 18; i < 18 + ATUNE__TMP_RANDOM; i++)
        if (!atune__tmp_random_char(name[i]))
            return 0;
    return 1;
}

/* Whether the file at path, named as a temporary file, is a stale one of
 * ours: this user's regular file, an hour untouched, empty or holding the
 * start of an entry. Checked on the open file, never through a link. */
static int stale_tmp_of_ours(const char *path, time_t now)
{
    char head[8];
    struct stat st;
    int ok = 0, fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);

    if (fd < 0)
        return 0;
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
        st.st_uid == geteuid() && now - st.st_mtime > STALE_TMP_SECONDS)
        ok = st.st_size == 0 ||
             (atune__read_full(fd, head, sizeof(head)) == 0 &&
              memcmp(head, ATUNE__CACHE_MAGIC, sizeof(head)) == 0);
    close(fd);
    return ok;
}

static int later(struct timespec a, struct timespec b)
{
    return a.tv_sec != b.tv_sec ? a.tv_sec > b.tv_sec : a.tv_nsec > b.tv_nsec;
}

static int by_use(const void *a, const void *b)
{
    const file *x = a, *y = b;

    return later(x->used, y->used) - later(y->used, x->used);
}

static int add(listing *l, const char *name, const struct stat *st)
{
    file *f;

    if (l->n == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 256;
        file *v = realloc(l->v, cap * sizeof(*v));
        if (!v)
            return -1;
        l->v = v;
        l->cap = cap;
    }
    f = &l->v[l->n++];
    snprintf(f->name, sizeof(f->name), "%s", name);
    f->bytes = (uint64_t)st->st_size;
    f->used = later(st->st_atim, st->st_mtim) ? st->st_atim : st->st_mtim;
    l->total += f->bytes;
    return 0;
}

/* Lists the entries of dir with their sizes and last use; removes stale
 * temporary files on the way. Only entries the cache would use count
 * (cache.c: the user's, root's, the directory owner's): another user's
 * file at an entry's name, in a directory others may write, cannot be
 * removed and could be any size (a sparse terabyte): counted, it would
 * have every entry of the user's evicted at each scan. */
static int list_dir(const char *dir, listing *l)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    time_t now = time(NULL);
    struct stat dst;
    uid_t owner = stat(dir, &dst) == 0 ? dst.st_uid : geteuid();
    int rc = 0;

    if (!d)
        return -1;
    while (!rc && (e = readdir(d))) {
        struct stat st;
        char path[4200];
        int entry = is_entry(e->d_name);
        if (!entry && !is_tmp(e->d_name))
            continue;
        if (snprintf(path, sizeof(path), "%s/%s", dir, e->d_name) >=
                (int)sizeof(path) ||
            lstat(path, &st) != 0 || !S_ISREG(st.st_mode))
            continue;
        if (!entry) {
            if (stale_tmp_of_ours(path, now))
                unlink(path);
            continue;
        }
        if (st.st_uid == geteuid() || st.st_uid == 0 || st.st_uid == owner)
            rc = add(l, e->d_name, &st);
    }
    closedir(d);
    return rc;
}

int atune__cache_evict_dir(const char *dir, uint64_t max_bytes, long *evicted)
{
    listing l = {0};
    uint64_t low = max_bytes - max_bytes / 10;

    *evicted = 0;
    if (list_dir(dir, &l) != 0) {
        free(l.v);
        return -1;
    }
    if (l.total > max_bytes) {
        /* Down to 90 % of the limit, so that the next writes do not start
         * another scan at once. */
        qsort(l.v, l.n, sizeof(*l.v), by_use);
        for (size_t i = 0; i < l.n && l.total > low; i++) {
            char path[4200];
            snprintf(path, sizeof(path), "%s/%s", dir, l.v[i].name);
            if (unlink(path) == 0)
                (*evicted)++;
            else if (errno != ENOENT) /* ENOENT: another process evicted */
                continue;
            l.total -= l.v[i].bytes;
        }
    }
    free(l.v);
    return 0;
}
