/* header_hint.c -- a header the compiler cannot open (header_hint.h).
 *
 * NVRTC says "cannot open source file" both for a host header it does not
 * read (stdio.h: nvcc compiles such a file) and for a header that exists
 * nowhere (a file left behind when the kernel was copied out of its
 * project). The advice differs: the second needs the file, or an
 * include_dirs entry. */
#include "jit/header_hint.h"

#include <glob.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static int is_file_in(const char *dir, const char *name)
{
    char path[PATH_MAX];
    struct stat st;

    if (!dir || snprintf(path, sizeof(path), "%s/%s", dir, name) >=
                    (int)sizeof(path))
        return 0;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* Whether a file matches pattern (with name pasted for %s). */
static int globbed(const char *pattern, const char *name)
{
    char pat[PATH_MAX];
    glob_t g;
    int found;

    if (snprintf(pat, sizeof(pat), pattern, name) >= (int)sizeof(pat))
        return 0;
    found = glob(pat, GLOB_NOSORT, NULL, &g) == 0 && g.gl_pathc > 0;
    globfree(&g);
    return found;
}

/* The system's headers as the host compiler finds them: C, C++ and the
 * compiler's own. */
static int system_header(const char *name)
{
    static const char *const dirs[] = {"/usr/include", "/usr/local/include"};
    static const char *const patterns[] = {
        "/usr/include/c++/*/%s", "/usr/include/*-linux-gnu/%s",
        "/usr/lib/gcc/*/*/include/%s", "/usr/include/*-linux-gnu/c++/*/%s"};

    for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++)
        if (is_file_in(dirs[i], name))
            return 1;
    for (size_t i = 0; i < sizeof(patterns) / sizeof(patterns[0]); i++)
        if (globbed(patterns[i], name))
            return 1;
    return 0;
}

/* The next header the log cannot open, from *at on, into name, and the
 * folder of the file that includes it (when the log says) into from; *at
 * moves past it. 0 when none is left. A log can hold several: with
 * compiler = auto, NVRTC's stop at a host header (stdio.h, which nvcc
 * reads) comes before nvcc's stop at the header that exists nowhere. */
static int unopened(const char *log, const char **at, char *name,
                    size_t nlen, char *from, size_t flen)
{
    static const char nvrtc[] = "cannot open source file \"";
    /* nvcc: "path:1:10: fatal error: x.h: No such file or directory" */
    static const char nvcc[] = ": No such file or directory";

    for (;;) {
        const char *a = strstr(*at, nvrtc), *b = strstr(*at, nvcc);
        const char *s, *e, *line;
        size_t n;
        if (!a && !b)
            return 0;
        if (a && (!b || a < b)) {
            s = a + sizeof(nvrtc) - 1;
            e = strchr(s, '"');
            *at = s;
        } else {
            e = b;
            for (s = e; s > log && s[-1] != ' ' && s[-1] != '\n';)
                s--;
            *at = b + sizeof(nvcc) - 1;
        }
        if (!e || e <= s || (n = (size_t)(e - s)) >= nlen ||
            memchr(s, '\n', n))
            continue;
        memcpy(name, s, n);
        name[n] = '\0';
        from[0] = '\0';
        /* The line that says so starts with "path:LINE:". */
        for (line = s; line > log && line[-1] != '\n';)
            line--;
        n = strcspn(line, ":\n");
        if (line[n] == ':' && n < flen) {
            const char *slash;
            memcpy(from, line, n);
            from[n] = '\0';
            slash = strrchr(from, '/');
            if (slash)
                from[slash - from] = '\0';
            else
                strcpy(from, ".");
        }
        return 1;
    }
}

/* Whether a compiler of m finds header name, included from folder from
 * ("" when the log does not say). */
static int found(const atune__manifest *m, const char *toolkit_inc,
                 const char *name, const char *from)
{
    char cccl[PATH_MAX + 8];

    snprintf(cccl, sizeof(cccl), "%s/cccl", toolkit_inc ? toolkit_inc : "");
    if ((from[0] && is_file_in(from, name)) || is_file_in(m->dir, name) ||
        (toolkit_inc &&
         (is_file_in(toolkit_inc, name) || is_file_in(cccl, name))) ||
        system_header(name))
        return 1;
    for (int i = 0; i < m->ninclude_dirs; i++)
        if (is_file_in(m->include_dirs[i], name))
            return 1;
    return 0;
}

int atune__header_missing_hint(const atune__manifest *m,
                               const char *toolkit_inc, atune__err *err)
{
    char name[PATH_MAX], from[PATH_MAX];
    const char *at = err->msg;
    int nowhere = 0;

    /* The first header that exists nowhere; one found somewhere (a host
     * header NVRTC does not read) is not the one to hint. */
    while (!nowhere &&
           unopened(err->msg, &at, name, sizeof(name), from, sizeof(from)))
        nowhere = name[0] != '/' && !found(m, toolkit_inc, name, from);
    if (!nowhere)
        return 0;
    atune__err_suffix(err,
                      "(header '%s' is nowhere a compiler looks: not beside "
                      "the file that includes it, not in the template's "
                      "folder %s or its include_dirs, not in the CUDA "
                      "toolkit's headers%s%s, not a system header. Copy it "
                      "into %s, or name the folder that holds it in "
                      "include_dirs under [template] of %s)",
                      name, m->dir ? m->dir : "(built in)",
                      toolkit_inc ? " " : "", toolkit_inc ? toolkit_inc : "",
                      m->dir ? m->dir : "the template's folder", m->ini_path);
    return 1;
}
