/* templates.c -- the built-in template set, embedded at build time, and
 * the templates of a directory given with --templates. */
#include "template/templates.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sys/stat.h>

#define BUILTIN "<builtin>"

/* Template names (file stems) and the folder of each (NULL: built in),
 * sorted by name once collected. */
struct names {
    int n;
    int cap;
    char **v;
    char **dir;
};

/* Folders nested deeper than this under a --templates folder are not
 * searched: a bound for a tree others may have made. */
#define MAX_DEPTH 8

const atune__embedded *atune__embedded_find(const char *name)
{
    for (const atune__embedded *f = atune__embedded_files; f->name; f++) {
        if (strcmp(f->name, name) == 0)
            return f;
    }
    return NULL;
}

static int names_add(struct names *ns, const char *stem, size_t len,
                     const char *dir, atune__err *err)
{
    if (ns->n == ns->cap) {
        int cap = ns->cap ? 2 * ns->cap : 8;
        char **v = realloc(ns->v, (size_t)cap * sizeof(*v));
        if (v)
            ns->v = v;
        v = v ? realloc(ns->dir, (size_t)cap * sizeof(*v)) : NULL;
        if (!v)
            return atune__fail(err, ATUNE__EOSERR, "out of memory");
        ns->dir = v;
        ns->cap = cap;
    }
    ns->v[ns->n] = atune__strndup(stem, len);
    ns->dir[ns->n] = dir ? atune__strdup(dir) : NULL;
    if (!ns->v[ns->n] || (dir && !ns->dir[ns->n])) {
        free(ns->v[ns->n]);
        free(ns->dir[ns->n]);
        return atune__fail(err, ATUNE__EOSERR, "out of memory");
    }
    ns->n++;
    return 0;
}

static void names_free(struct names *ns)
{
    for (int i = 0; i < ns->n; i++) {
        free(ns->v[i]);
        free(ns->dir[i]);
    }
    free(ns->v);
    free(ns->dir);
}

static int names_find(const struct names *ns, const char *name)
{
    for (int i = 0; i < ns->n; i++) {
        if (strcmp(ns->v[i], name) == 0)
            return i;
    }
    return -1;
}

/* Sorts by name, and a name's folders in the order found (insertion
 * sort: stable, and sets are small). */
static void sort_names(struct names *ns)
{
    for (int i = 1; i < ns->n; i++) {
        char *v = ns->v[i], *dir = ns->dir[i];
        int j = i;
        for (; j > 0 && strcmp(ns->v[j - 1], v) > 0; j--) {
            ns->v[j] = ns->v[j - 1];
            ns->dir[j] = ns->dir[j - 1];
        }
        ns->v[j] = v;
        ns->dir[j] = dir;
    }
}

/* The length of the stem of "stem.ini", or 0 when file is no manifest.
 * Hidden files (editor and OS droppings) are not templates. */
static size_t ini_stem(const char *file)
{
    size_t len = strlen(file);

    if (file[0] == '.' || len <= 4 || strcmp(file + len - 4, ".ini") != 0)
        return 0;
    return len - 4;
}

static int builtin_names(struct names *ns, atune__err *err)
{
    int rc;

    for (const atune__embedded *f = atune__embedded_files; f->name; f++) {
        size_t len = ini_stem(f->name);
        if (len > 0 && (rc = names_add(ns, f->name, len, NULL, err)) != 0)
            return rc;
    }
    if (ns->n == 0)
        return atune__fail(err, ATUNE__ENOINPUT, "no built-in templates");
    return 0;
}

/* "dir/name.ext" on the heap, or NULL. */
static char *join_path(const char *dir, const char *name, size_t len,
                       const char *ext)
{
    size_t n = strlen(dir) + len + strlen(ext) + 2;
    char *path = malloc(n);

    if (path)
        snprintf(path, n, "%s/%.*s%s", dir, (int)len, name, ext);
    return path;
}

/* Whether dir/stem.cu exists: in a subfolder, an .ini without its .cu
 * beside it is some other file (a profile, a tool's settings). */
static int has_source(const char *dir, const char *stem, size_t len)
{
    struct stat st;
    char *path = join_path(dir, stem, len, ".cu");
    int ok;

    if (!path)
        return 0;
    ok = stat(path, &st) == 0 && S_ISREG(st.st_mode);
    free(path);
    return ok;
}

/* The templates of dir and of its subfolders, depth levels down at most.
 * At the top every NAME.ini is a template (a missing NAME.cu is then
 * reported when it loads); below, only one with its NAME.cu. Hidden
 * files and folders are skipped, and a link to a folder is not followed
 * (a tree others can write could loop). */
static int walk_dir(const char *dir, int depth, struct names *ns,
                    atune__err *err)
{
    DIR *d = opendir(dir);
    const struct dirent *de;
    int rc = 0;

    if (!d)
        return depth == 0 ? atune__fail(err, ATUNE__ENOINPUT,
                                        "cannot open template directory '%s': "
                                        "%s",
                                        dir, strerror(errno))
                          : atune__fail(err, ATUNE__EIO,
                                        "cannot open template folder '%s': %s",
                                        dir, strerror(errno));
    for (errno = 0; rc == 0 && (de = readdir(d)) != NULL; errno = 0) {
        size_t len = ini_stem(de->d_name);
        struct stat st;
        char *sub;
        if (de->d_name[0] == '.')
            continue;
        if (len > 0) {
            if (depth == 0 || has_source(dir, de->d_name, len))
                rc = names_add(ns, de->d_name, len, dir, err);
            continue;
        }
        if (depth >= MAX_DEPTH)
            continue;
        if (!(sub = join_path(dir, de->d_name, strlen(de->d_name), ""))) {
            rc = atune__fail(err, ATUNE__EOSERR, "out of memory");
            break;
        }
        if (lstat(sub, &st) == 0 && S_ISDIR(st.st_mode))
            rc = walk_dir(sub, depth + 1, ns, err);
        free(sub);
    }
    if (rc == 0 && errno != 0)
        rc = atune__fail(err, ATUNE__EIO, "cannot read directory '%s': %s", dir,
                         strerror(errno));
    closedir(d);
    return rc;
}

static int dir_names(const char *dir, struct names *ns, atune__err *err)
{
    int before = ns->n, rc = walk_dir(dir, 0, ns, err);

    if (rc == 0 && ns->n == before)
        rc = atune__fail(err, ATUNE__ENOINPUT,
                         "no templates (NAME.ini with NAME.cu) in '%s'", dir);
    return rc;
}

/* Two templates of one name: a profile section, --kernel and the module
 * cache know a template by its name alone, so neither may win silently.
 * ns is sorted. */
static int check_clashes(const struct names *ns, atune__err *err)
{
    for (int i = 1; i < ns->n; i++)
        if (strcmp(ns->v[i - 1], ns->v[i]) == 0)
            return atune__fail(
                err, ATUNE__EDATA,
                "two templates are named '%s': %s/%s.ini and %s/%s.ini (a "
                "template is known by its file name, in every --templates "
                "folder and their subfolders: rename one pair of NAME.ini and "
                "NAME.cu, or leave one folder out)",
                ns->v[i], ns->dir[i - 1], ns->v[i], ns->dir[i], ns->v[i]);
    return 0;
}

static int unknown_name(const struct names *ns, const char *name,
                        atune__err *err)
{
    char have[1024] = "";
    size_t used = 0;

    for (int i = 0; i < ns->n && used < sizeof(have); i++) {
        int n = snprintf(have + used, sizeof(have) - used, "%s%s",
                         i ? ", " : "", ns->v[i]);
        if (n < 0)
            break;
        used += (size_t)n;
    }
    return atune__fail(err, ATUNE__EUSAGE, "unknown kernel '%s' (have: %s)",
                       name, have);
}

/* Keeps only the names of the comma list only, in their sorted order. */
static int select_names(struct names *ns, const char *only, atune__err *err)
{
    char *list = atune__strdup(only);
    char *item, *next;
    int *keep = atune__calloc((size_t)ns->n, sizeof(*keep));
    int kept = 0, rc = 0;

    if (!list || !keep) {
        rc = atune__fail(err, ATUNE__EOSERR, "out of memory");
        goto out;
    }
    for (item = list; item; item = next) {
        char *name;
        int i;
        next = strchr(item, ',');
        if (next)
            *next++ = '\0';
        name = atune__trim(item);
        if (*name == '\0') {
            rc = atune__fail(err, ATUNE__EUSAGE, "empty kernel name in '%s'",
                             only);
            goto out;
        }
        if ((i = names_find(ns, name)) < 0) {
            rc = unknown_name(ns, name, err);
            goto out;
        }
        /* every folder's template of that name (check_clashes) */
        for (; i < ns->n && strcmp(ns->v[i], name) == 0; i++)
            keep[i] = 1;
    }
    for (int i = 0; i < ns->n; i++) {
        if (keep[i]) {
            ns->dir[kept] = ns->dir[i];
            ns->v[kept++] = ns->v[i];
        } else {
            free(ns->v[i]);
            free(ns->dir[i]);
        }
    }
    ns->n = kept;
out:
    free(list);
    free(keep);
    return rc;
}

static int load_builtin(const char *name, atune__manifest **out,
                        atune__err *err)
{
    char ini_name[256], cu_name[256], ini_path[300], cu_path[300];
    const atune__embedded *ini, *cu;

    snprintf(ini_name, sizeof(ini_name), "%s.ini", name);
    snprintf(cu_name, sizeof(cu_name), "%s.cu", name);
    snprintf(ini_path, sizeof(ini_path), BUILTIN "/%s", ini_name);
    snprintf(cu_path, sizeof(cu_path), BUILTIN "/%s", cu_name);
    ini = atune__embedded_find(ini_name);
    cu = atune__embedded_find(cu_name);
    if (!cu)
        return atune__fail(err, ATUNE__ENOINPUT,
                           "cannot open '%s': not built in", cu_path);
    return atune__manifest_parse(name, ini_path, ini->data, cu_path, cu->data,
                                 out, err);
}

/* The names of dirs[0..ndirs) (the built-in set when ndirs is 0), sorted,
 * those of only kept when only is non-NULL. */
static int collect(const char *const *dirs, int ndirs, const char *only,
                   struct names *ns, atune__err *err)
{
    int rc = 0;

    for (int i = 0; rc == 0 && i < ndirs; i++)
        rc = dir_names(dirs[i], ns, err);
    if (rc == 0 && ndirs == 0)
        rc = builtin_names(ns, err);
    if (rc)
        return rc;
    sort_names(ns);
    return only ? select_names(ns, only, err) : 0;
}

int atune__templates_load_dirs(const char *const *dirs, int ndirs,
                               const char *only, atune__templates *out,
                               atune__err *err)
{
    struct names ns = {0};
    int rc;

    out->n = 0;
    out->m = NULL;
    if ((rc = collect(dirs, ndirs, only, &ns, err)) ||
        (rc = check_clashes(&ns, err)))
        goto out;
    out->m = atune__calloc((size_t)ns.n, sizeof(*out->m));
    if (!out->m) {
        rc = atune__fail(err, ATUNE__EOSERR, "out of memory");
        goto out;
    }
    for (int i = 0; i < ns.n; i++) {
        rc = ns.dir[i] ? atune__manifest_load(ns.dir[i], ns.v[i], &out->m[i],
                                              err)
                       : load_builtin(ns.v[i], &out->m[i], err);
        if (rc)
            goto out;
        out->n++;
    }
out:
    names_free(&ns);
    if (rc)
        atune__templates_free(out);
    return rc;
}

int atune__templates_load(const char *dir, const char *only,
                          atune__templates *out, atune__err *err)
{
    return atune__templates_load_dirs(dir ? &dir : NULL, dir ? 1 : 0, only,
                                      out, err);
}

int atune__templates_names(const char *const *dirs, int ndirs,
                           char ***names, int *n, atune__err *err)
{
    struct names ns = {0};
    int rc = collect(dirs, ndirs, NULL, &ns, err), kept = 0;

    *names = NULL;
    *n = 0;
    if (rc) {
        names_free(&ns);
        return rc;
    }
    for (int i = 0; i < ns.n; i++) {
        free(ns.dir[i]);
        if (kept > 0 && strcmp(ns.v[kept - 1], ns.v[i]) == 0)
            free(ns.v[i]);
        else
            ns.v[kept++] = ns.v[i];
    }
    free(ns.dir);
    *names = ns.v;
    *n = kept;
    return 0;
}

const atune__manifest *atune__templates_find(const atune__templates *t,
                                             int nsets, const char *name)
{
    for (int s = 0; s < nsets; s++)
        for (int i = 0; i < t[s].n; i++)
            if (strcmp(t[s].m[i]->name, name) == 0)
                return t[s].m[i];
    return NULL;
}

void atune__templates_free(atune__templates *t)
{
    for (int i = 0; i < t->n; i++)
        atune__manifest_free(t->m[i]);
    free(t->m);
    t->n = 0;
    t->m = NULL;
}
