/* manifest_headers.c -- the user headers a template's .cu includes.
 *
 * NVRTC reads headers itself and does not say which it used, so the
 * loader follows the #include lines: every header that the .cu includes,
 * directly or through another header, and that is found in the
 * manifest's directory or one of its include_dirs, is hashed (its name as
 * written and its bytes) into m->headers_hash, which the template hash and
 * the module cache's key cover. Editing such a header therefore marks
 * profiles stale and compiles again. The headers of --pre-include options
 * count too, and so do '#include MACRO' lines, whose macro must be
 * defined as a header name where the loader can read it (-D in
 * nvrtc_options, a #define in the same file or the .cu); one that is not
 * is refused, as the loader cannot tell what NVRTC would read. Headers
 * found nowhere there are the toolkit's (or missing, which NVRTC
 * reports); NVRTC's version stands for them. An #include inside a comment or a disabled #if block is followed
 * too: that can only make the hash cover more than was compiled. */
#define _XOPEN_SOURCE 700 /* realpath */
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "template/manifest_internal.h"

struct scan {
    struct loader *ld;
    uint64_t h;
    int n;
    char *seen[ATUNE__MAX_HEADERS]; /* real paths already hashed */
};

char *atune__mf_path_join(const char *dir, const char *rel)
{
    size_t len = strlen(dir) + strlen(rel) + 2;
    char *path = malloc(len);

    if (path)
        snprintf(path, len, "%s/%s", dir, rel);
    return path;
}

int atune__mf_is_dir(const char *path)
{
    struct stat st;

    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static int is_file(const char *path)
{
    struct stat st;

    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

static int ident_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
           (c >= '0' && c <= '9') || c == '_';
}

/* The name of an #include line at p ("x.h" of '#include "x.h"'), its
 * length in *len and its quote in *quote; NULL when p is no #include. For
 * '#include MACRO' the macro's name, with *quote 'm'. */
static const char *include_name(const char *p, size_t *len, char *quote)
{
    const char *end;

    while (*p == ' ' || *p == '\t')
        p++;
    if (*p++ != '#')
        return NULL;
    while (*p == ' ' || *p == '\t')
        p++;
    if (strncmp(p, "include", 7) != 0)
        return NULL;
    for (p += 7; *p == ' ' || *p == '\t';)
        p++;
    if (ident_char(*p) && !(*p >= '0' && *p <= '9')) {
        for (end = p; ident_char(*end);)
            end++;
        *quote = 'm';
        *len = (size_t)(end - p);
        return p;
    }
    if (*p != '"' && *p != '<')
        return NULL;
    *quote = *p;
    end = strchr(p + 1, *p == '"' ? '"' : '>');
    if (!end || memchr(p + 1, '\n', (size_t)(end - p - 1)) || end == p + 1)
        return NULL;
    *len = (size_t)(end - p - 1);
    return p + 1;
}

/* The header name found in dir, or NULL (also when out of memory). */
static char *find_in(const char *dir, const char *name)
{
    char *path = dir ? atune__mf_path_join(dir, name) : NULL;

    if (path && is_file(path))
        return path;
    free(path);
    return NULL;
}

/* Where NVRTC finds name: a quoted name beside the file that includes it
 * first, then in the include path (the manifest's directory, then
 * include_dirs). NULL for a toolkit header or a missing one. */
static char *resolve(const atune__manifest *m, const char *from_dir,
                     const char *name, char quote)
{
    char *path = NULL;

    if (name[0] == '/')
        return is_file(name) ? atune__strdup(name) : NULL;
    if (quote == '"' && (path = find_in(from_dir, name)))
        return path;
    if ((path = find_in(m->dir, name)))
        return path;
    for (int i = 0; i < m->ninclude_dirs; i++)
        if ((path = find_in(m->include_dirs[i], name)))
            return path;
    return NULL;
}

static int scan_text(struct scan *sc, const char *text, const char *dir,
                     const char *file);

/* Appends a header's code, comments and literals blanked, to
 * ld->hdr_code, where entry points and constants are looked up too. */
static int keep_code(struct loader *ld, const char *text)
{
    char *code = atune__mf_blank_comments(text), *all;
    size_t had = ld->hdr_code ? strlen(ld->hdr_code) : 0;

    if (!code)
        return atune__mf_oom(ld);
    all = realloc(ld->hdr_code, had + strlen(code) + 2);
    if (!all) {
        free(code);
        return atune__mf_oom(ld);
    }
    all[had] = '\n'; /* a name never spans two files */
    strcpy(all + had + 1, code);
    ld->hdr_code = all;
    free(code);
    return 0;
}

/* Hashes the header at path (named name in the #include) and follows its
 * own includes, unless it was hashed already. */
static int add_header(struct scan *sc, const char *name, size_t nlen,
                      const char *path)
{
    struct loader *ld = sc->ld;
    char real[PATH_MAX], *text = NULL, *slash;
    size_t len = 0, dlen;
    uint64_t n64;
    int rc;

    if (!realpath(path, real))
        return atune__fail(ld->err, ATUNE__EDATA,
                           "%s: cannot resolve header "
                           "'%s'",
                           ld->m->cu_path, path);
    for (int i = 0; i < sc->n; i++)
        if (strcmp(sc->seen[i], real) == 0)
            return 0;
    if (sc->n == ATUNE__MAX_HEADERS)
        return atune__fail(ld->err, ATUNE__EDATA,
                           "%s: includes more than %d headers of its own",
                           ld->m->cu_path, ATUNE__MAX_HEADERS);
    if (!(sc->seen[sc->n] = atune__strdup(real)))
        return atune__mf_oom(ld);
    sc->n++;
    if ((rc = atune__read_file(path, &text, &len, ld->err)) != 0)
        return rc;
    n64 = nlen;
    sc->h = atune__fnv1a(&n64, sizeof(n64), sc->h);
    sc->h = atune__fnv1a(name, nlen, sc->h);
    n64 = len;
    sc->h = atune__fnv1a(&n64, sizeof(n64), sc->h);
    sc->h = atune__fnv1a(text, len, sc->h);
    if ((rc = atune__mf_macros_scan(ld, path, text)) != 0 ||
        (rc = keep_code(ld, text)) != 0) {
        free(text);
        return rc;
    }
    slash = strrchr(real, '/');
    dlen = slash ? (size_t)(slash - real) : 0;
    real[dlen] = '\0';
    rc = scan_text(sc, text, real, path);
    free(text);
    return rc;
}

/* The header that macro name stands for: from -Dname="h" (or <h>) among
 * nvrtc_options, or a '#define name "h"' line of text or of the .cu.
 * Copies it without its quotes into buf and returns its quote ('"' or
 * '<'); 0 when it cannot be told. */
static char macro_header(const atune__manifest *m, const char *text,
                         const char *name, size_t nlen, char *buf,
                         size_t size)
{
    const char *v = NULL;

    for (int i = 0; i < m->nnvrtc_opts && !v; i++) {
        const char *o = m->nvrtc_opts[i];
        o = strncmp(o, "-D", 2) == 0                ? o + 2
            : strncmp(o, "--define-macro=", 15) == 0 ? o + 15
                                                     : NULL;
        if (o && strncmp(o, name, nlen) == 0 && o[nlen] == '=')
            v = o + nlen + 1;
    }
    for (int t = 0; t < 2 && !v; t++) {
        const char *p = t ? m->source : text;
        for (; p && *p && !v;) {
            const char *q = p;
            while (*q == ' ' || *q == '\t')
                q++;
            if (*q++ == '#') {
                while (*q == ' ' || *q == '\t')
                    q++;
                if (strncmp(q, "define", 6) == 0 &&
                    (q[6] == ' ' || q[6] == '\t')) {
                    for (q += 6; *q == ' ' || *q == '\t';)
                        q++;
                    if (strncmp(q, name, nlen) == 0 &&
                        (q[nlen] == ' ' || q[nlen] == '\t')) {
                        for (q += nlen; *q == ' ' || *q == '\t';)
                            q++;
                        v = q;
                    }
                }
            }
            p = strchr(p, '\n');
            p = p ? p + 1 : NULL;
        }
    }
    if (v && (*v == '"' || *v == '<')) {
        const char *end = strchr(v + 1, *v == '"' ? '"' : '>');
        size_t len = end ? (size_t)(end - v - 1) : 0;
        if (end && len > 0 && len < size && !memchr(v + 1, '\n', len)) {
            memcpy(buf, v + 1, len);
            buf[len] = '\0';
            return *v;
        }
    }
    return 0;
}

/* Follows every #include line of text, the file file in dir. */
static int scan_text(struct scan *sc, const char *text, const char *dir,
                     const char *file)
{
    int rc = 0, line = 1;

    for (const char *p = text; rc == 0 && p && *p; line++) {
        size_t len;
        char quote, name[PATH_MAX], *path;
        const char *s = include_name(p, &len, &quote);
        if (s && quote == 'm') {
            quote = macro_header(sc->ld->m, text, s, len, name, sizeof(name));
            if (quote)
                goto found;
            return atune__fail(
                sc->ld->err, ATUNE__EDATA,
                "%s:%d: #include %.*s: the header a macro names must be "
                "known when the template is loaded (for its hash and the "
                "module cache): write the name, or define the macro as "
                "\"header\" in this file, in the .cu or with -D in "
                "nvrtc_options",
                file, line, (int)len, s);
        }
        if (s && len < sizeof(name)) {
            memcpy(name, s, len);
            name[len] = '\0';
        } else {
            s = NULL;
        }
    found:
        if (s && (path = resolve(sc->ld->m, dir, name, quote)) != NULL) {
            rc = add_header(sc, name, strlen(name), path);
            free(path);
        } else if (s) {
            sc->ld->m->toolkit_includes++;
        }
        p = strchr(p, '\n');
        p = p ? p + 1 : NULL;
    }
    return rc;
}

/* Whether the file at real (a real path) lies in dir or below. */
static int inside(const char *real, const char *dir)
{
    char rdir[PATH_MAX];
    size_t n;

    if (!dir || !realpath(dir, rdir))
        return 0;
    n = strlen(rdir);
    return strncmp(real, rdir, n) == 0 && (real[n] == '/' || n == 1);
}

/* The headers of --pre-include options: found in the template's directory
 * or its include_dirs (NVRTC reads them as it reads an #include), hashed
 * as the .cu's own headers are. */
static int pre_includes(struct scan *sc)
{
    struct loader *ld = sc->ld;
    atune__manifest *m = ld->m;
    int rc = 0;

    for (int i = 0; rc == 0 && i < m->nnvrtc_opts; i++) {
        const char *h = atune__mf_pre_include(m->nvrtc_opts[i]);
        char real[PATH_MAX], *path;
        int ok;
        if (!h)
            continue;
        path = resolve(m, m->dir, h, '"');
        ok = path && realpath(path, real) != NULL && inside(real, m->dir);
        for (int d = 0; path && !ok && d < m->ninclude_dirs; d++)
            ok = inside(real, m->include_dirs[d]);
        if (!ok) {
            free(path);
            return atune__mf_bad(ld, m->nvrtc_opts_line,
                                 "nvrtc_options: '%s': %s", m->nvrtc_opts[i],
                                 path ? "the header lies outside the "
                                        "template's directory and its "
                                        "include_dirs"
                                      : "no such header in the template's "
                                        "directory or its include_dirs");
        }
        rc = add_header(sc, h, strlen(h), path);
        free(path);
    }
    return rc;
}

int atune__mf_hash_headers(struct loader *ld)
{
    atune__manifest *m = ld->m;
    struct scan sc = {.ld = ld, .h = ATUNE__FNV_SEED};
    int rc = 0;

    if ((rc = atune__mf_macros_begin(ld)) ||
        (rc = atune__mf_macros_scan(ld, m->cu_path, m->source)) ||
        (m->ref_text &&
         (rc = atune__mf_macros_scan(ld, m->ref_path, m->ref_text))))
        return rc;
    /* Built-in templates (m->dir NULL) include no headers of their own. */
    if (m->dir && (rc = pre_includes(&sc)) == 0)
        rc = scan_text(&sc, m->source, m->dir, m->cu_path);
    if (!rc)
        rc = atune__mf_macros_end(ld);
    for (int i = 0; i < sc.n; i++)
        free(sc.seen[i]);
    if (rc)
        return rc;
    m->nheaders = sc.n;
    m->headers_hash = sc.n ? sc.h : 0;
    /* Templates without headers keep the hash they always had. */
    if (sc.n)
        m->hash =
            atune__fnv1a(&m->headers_hash, sizeof(m->headers_hash), m->hash);
    return 0;
}
