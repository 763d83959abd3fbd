/* pch.c -- NVRTC's automatic precompiled headers (pch.h).
 *
 * A kernel that includes CUB or cooperative groups spends most of each
 * compile parsing those headers; NVRTC (12.8+) can keep them parsed in a
 * file (-pch --pch-dir=DIR) and reuse it for the next compile whose text
 * before the first declaration and whose options are the same. NVRTC
 * creates those files with O_CREAT|O_TRUNC through any link, and reads
 * whatever PCH file of a matching name it finds there: the directory must
 * be one no other user can write (atune__private_dir), never a shared one,
 * and one per process, as NVRTC writes its file in place (a second
 * process scanning the directory could read it half-written). NVRTC
 * deletes the files it made when the process exits normally (checked with
 * NVRTC 13.0: an unlink at exit), so they live as long as a compile
 * process does; the compile processes end with _exit, which skips that,
 * so atune__pch_remove does it. */
#define _POSIX_C_SOURCE 200809L
#include "jit/pch.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/outfile.h"

static char pch_dir[PATH_MAX];
static char pch_opt[PATH_MAX + 16];

int atune__pch_eligible(const atune__manifest *m)
{
    if (m->toolkit_includes == 0 || m->compiler == ATUNE__COMPILER_NVCC)
        return 0;
    for (int i = 0; i < m->nparams; i++)
        if (m->params[i].macro)
            return 0;
    return m->nmacros == 0;
}

int atune__pch_root(const char *cache_dir, char *root, size_t len,
                    atune__err *err)
{
    char dir[PATH_MAX];

    if (!cache_dir || !*cache_dir)
        return atune__fail(err, ATUNE__ECANTCREAT, "no module cache");
    if (snprintf(dir, sizeof(dir), "%s/pch", cache_dir) >= (int)sizeof(dir))
        return atune__fail(err, ATUNE__ECANTCREAT, "'%s/pch': too long",
                           cache_dir);
    return atune__private_dir(dir, root, len, err);
}

/* This host's name as it starts the directories of its processes
 * (HOST.PID) into tag: a cache directory in a home shared by several
 * nodes (NFS) holds several hosts' processes, whose ids mean nothing
 * here. Letters, digits and '-' of gethostname up to its first '.', at
 * most 63; "host" when there are none. Made anew at each call: the
 * compile pool's threads call it too. */
static const char *host_tag(char tag[64])
{
    char name[256] = "";
    size_t n = 0;

    if (gethostname(name, sizeof(name) - 1) != 0)
        name[0] = '\0';
    for (const char *c = name; *c && *c != '.' && n < 63; c++)
        if ((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
            (*c >= '0' && *c <= '9') || *c == '-')
            tag[n++] = *c;
    tag[n] = '\0';
    if (n == 0)
        strcpy(tag, "host");
    return tag;
}

/* The process id a directory of root is named for, when that process is
 * this host's (HOST.PID; a bare PID, as earlier versions named them, is
 * taken as this host's), or -1. */
static long pid_name(const char *name)
{
    char tag[64];
    const char *host = host_tag(tag), *p = name;
    size_t hl = strlen(host);
    char *end;
    long pid;

    if (strncmp(name, host, hl) == 0 && name[hl] == '.')
        p = name + hl + 1;
    if (p[0] < '1' || p[0] > '9')
        return -1;
    errno = 0;
    pid = strtol(p, &end, 10);
    return *end || errno || pid <= 0 || pid > INT_MAX ? -1 : pid;
}

/* Removes root/name and the files in it. */
static void remove_named(const char *root, const char *name)
{
    char dir[PATH_MAX], path[PATH_MAX + 300];
    struct dirent *de;
    DIR *d;

    if (!root || !*root ||
        snprintf(dir, sizeof(dir), "%s/%s", root, name) >= (int)sizeof(dir) ||
        !(d = opendir(dir)))
        return;
    /* unlink removes a link, never what it names */
    while ((de = readdir(d)) != NULL)
        if (strcmp(de->d_name, ".") && strcmp(de->d_name, "..") &&
            snprintf(path, sizeof(path), "%s/%s", dir, de->d_name) <
                (int)sizeof(path))
            unlink(path);
    closedir(d);
    rmdir(dir);
}

void atune__pch_remove(const char *root, pid_t pid)
{
    char name[128], tag[64];

    snprintf(name, sizeof(name), "%s.%ld", host_tag(tag), (long)pid);
    remove_named(root, name);
}

void atune__pch_sweep(const char *root)
{
    struct dirent *de;
    DIR *d = root && *root ? opendir(root) : NULL;
    char names[64][128];
    int n = 0;

    if (!d)
        return;
    while ((de = readdir(d)) != NULL && n < 64) {
        long pid = pid_name(de->d_name);
        if (pid > 0 && kill((pid_t)pid, 0) != 0 && errno == ESRCH &&
            strlen(de->d_name) < sizeof(names[0]))
            strcpy(names[n++], de->d_name);
    }
    closedir(d);
    for (int i = 0; i < n; i++)
        remove_named(root, names[i]);
}

int atune__pch_use(const char *root)
{
    char dir[PATH_MAX], tag[64];
    struct stat st;

    pch_dir[0] = '\0';
    if (!root || !*root ||
        snprintf(dir, sizeof(dir), "%s/%s.%ld", root, host_tag(tag),
                 (long)getpid()) >= (int)sizeof(dir))
        return -1;
    /* A leftover of an earlier process of this id is emptied first. */
    atune__pch_remove(root, getpid());
    if (mkdir(dir, 0700) != 0 || lstat(dir, &st) != 0 || !S_ISDIR(st.st_mode))
        return -1;
    strcpy(pch_dir, dir);
    snprintf(pch_opt, sizeof(pch_opt), "--pch-dir=%s", dir);
    return 0;
}

const char *atune__pch_dir(void)
{
    return pch_dir[0] ? pch_dir : NULL;
}

void atune__pch_options(const atune__manifest *m, const char **opts, int *n,
                        int cap)
{
    /* Messages on: they tell created from used (atune__pch_filter_log).
     * Verbose off: a PCH file that does not fit is no warning of the
     * user's. */
    static const char *const fixed[] = {"-pch", "--pch-messages=true",
                                        "--pch-verbose=false"};

    if (!pch_dir[0] || !atune__pch_eligible(m) || *n + 4 > cap)
        return;
    for (size_t i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++)
        opts[(*n)++] = fixed[i];
    opts[(*n)++] = pch_opt;
}

int atune__pch_filter_log(char *log)
{
    int what = ATUNE__PCH_NONE;
    char *out = log;

    for (char *p = log; p && *p;) {
        char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) + 1 : strlen(p);
        /* '"FILE": creating precompiled header file "DIR/x_0.pch"' */
        int created = strstr(p, ": creating precompiled header file \"") &&
                      (!nl || strstr(p, ": creating") < nl);
        int used = strstr(p, ": using precompiled header file \"") &&
                   (!nl || strstr(p, ": using") < nl);
        if (created || used) {
            what = created ? ATUNE__PCH_CREATED : ATUNE__PCH_USED;
        } else {
            memmove(out, p, len);
            out += len;
        }
        p += len;
    }
    if (log)
        *out = '\0';
    /* a log of nothing but blank lines is no log */
    if (log && strspn(log, "\n") == strlen(log))
        log[0] = '\0';
    return what;
}
