/* templates.c -- the built-in template set, embedded at build time, and
 * the templates of a directory given with --templates. */
#include "template/templates.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BUILTIN "<builtin>"

/* Template names (file stems), sorted once collected. */
struct names {
    int n;
    int cap;
    char **v;
};

const atune__embedded *atune__embedded_find(const char *name)
{
    for (const atune__embedded *f = atune__embedded_files; f->name; f++) {
        if (strcmp(f->name, name) == 0)
            return f;
    }
    return NULL;
}

static int names_add(struct names *ns, const char *stem, size_t len,
                     atune__err *err)
{
    if (ns->n == ns->cap) {
        int cap = ns->cap ? 2 * ns->cap : 8;
        char **v = realloc(ns->v, (size_t)cap * sizeof(*v));
        if (!v)
            return atune__fail(err, ATUNE__EOSERR, "out of memory");
        ns->v = v;
        ns->cap = cap;
    }
    ns->v[ns->n] = atune__strndup(stem, len);
    if (!ns->v[ns->n])
        return atune__fail(err, ATUNE__EOSERR, "out of memory");
    ns->n++;
    return 0;
}

static void names_free(struct names *ns)
{
    for (int i = 0; i < ns->n; i++)
        free(ns->v[i]);
    free(ns->v);
}

static int names_find(const struct names *ns, const char *name)
{
    for (int i = 0; i < ns->n; i++) {
        if (strcmp(ns->v[i], name) == 0)
            return i;
    }
    return -1;
}

static int compare_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
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
        if (len > 0 && (rc = names_add(ns, f->name, len, err)) != 0)
            return rc;
    }
    if (ns->n == 0)
        return atune__fail(err, ATUNE__ENOINPUT, "no built-in templates");
    return 0;
}

static int dir_names(const char *dir, struct names *ns, atune__err *err)
{
    DIR *d = opendir(dir);
    const struct dirent *de;
    int rc = 0;

    if (!d)
        return atune__fail(err, ATUNE__ENOINPUT,
                           "cannot open template directory '%s': %s", dir,
                           strerror(errno));
    for (errno = 0; (de = readdir(d)) != NULL; errno = 0) {
        size_t len = ini_stem(de->d_name);
        if (len > 0 && (rc = names_add(ns, de->d_name, len, err)) != 0)
            break;
    }
    if (rc == 0 && errno != 0)
        rc = atune__fail(err, ATUNE__EIO, "cannot read directory '%s': %s", dir,
                         strerror(errno));
    closedir(d);
    if (rc == 0 && ns->n == 0)
        rc = atune__fail(err, ATUNE__ENOINPUT,
                         "no templates (NAME.ini with NAME.cu) in '%s'", dir);
    return rc;
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
        keep[i] = 1;
    }
    for (int i = 0; i < ns->n; i++) {
        if (keep[i])
            ns->v[kept++] = ns->v[i];
        else
            free(ns->v[i]);
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

int atune__templates_load(const char *dir, const char *only,
                          atune__templates *out, atune__err *err)
{
    struct names ns = {0};
    int rc;

    out->n = 0;
    out->m = NULL;
    rc = dir ? dir_names(dir, &ns, err) : builtin_names(&ns, err);
    if (rc)
        goto out;
    qsort(ns.v, (size_t)ns.n, sizeof(*ns.v), compare_names);
    if (only && (rc = select_names(&ns, only, err)) != 0)
        goto out;
    out->m = atune__calloc((size_t)ns.n, sizeof(*out->m));
    if (!out->m) {
        rc = atune__fail(err, ATUNE__EOSERR, "out of memory");
        goto out;
    }
    for (int i = 0; i < ns.n; i++) {
        rc = dir ? atune__manifest_load(dir, ns.v[i], &out->m[i], err)
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
