/* nvcc.c -- the device side of a .cu that NVRTC cannot compile, through
 * `nvcc -cubin`.
 *
 * Published kernel files hold host code too (main, printf, cudaMalloc,
 * <stdio.h>), which NVRTC refuses ("cannot open source file", "host
 * functions are not allowed in JIT mode"). nvcc compiles such a file's
 * device side as it is, with the same -D, -I and -std options. It ships
 * with every toolkit that has NVRTC, but costs a process and about a
 * second per configuration, against NVRTC's tens of milliseconds.
 *
 * nvcc has no name expressions: a wrapper that includes the file takes
 * each entry point's address in host code (which instantiates a kernel
 * template with the configuration's arguments), and the symbol is then
 * found in the CUBIN's symbol table by matching its Itanium mangling
 * against the expression: "ns::k<128, (ns::Algo)2>" is _ZN2ns1kILi128ELNS_
 * ... with any integer type for a literal argument. */
#define _GNU_SOURCE /* mkdtemp, realpath */
#include "jit/nvcc.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "jit/elf.h"

extern char **environ;

static int is_exec(const char *path)
{
    struct stat st;

    return stat(path, &st) == 0 && S_ISREG(st.st_mode) &&
           access(path, X_OK) == 0;
}

int atune__nvcc_find(const char *tk, char *buf, size_t len)
{
    const char *envs[] = {"CUDA_HOME", "CUDA_PATH"};
    const char *path = getenv("PATH");

    for (size_t i = 0; i < 2; i++) {
        const char *v = getenv(envs[i]);
        if (v && *v && snprintf(buf, len, "%s/bin/nvcc", v) < (int)len &&
            is_exec(buf))
            return 0;
    }
    /* TOOLKIT/include's sibling bin/ (targets/x86_64-linux/include has
     * none: then the PATH). */
    if (tk && snprintf(buf, len, "%s/../bin/nvcc", tk) < (int)len &&
        is_exec(buf))
        return 0;
    for (const char *p = path; p && *p;) {
        size_t n = strcspn(p, ":");
        if (n && snprintf(buf, len, "%.*s/nvcc", (int)n, p) < (int)len &&
            is_exec(buf))
            return 0;
        p += n + (p[n] == ':');
    }
    if (snprintf(buf, len, "/usr/local/cuda/bin/nvcc") < (int)len &&
        is_exec(buf))
        return 0;
    return -1;
}

int atune__nvcc_host_code(const char *log)
{
    static const char *const signs[] = {
        "host functions are not allowed",
        "cannot open source file",
        "identifier \"cudaMalloc",
        "identifier \"cudaMemcpy",
        "identifier \"cudaFree",
        "identifier \"cudaDeviceSynchronize",
        "identifier \"cudaEvent",
        "identifier \"cudaGetLastError",
        "identifier \"fprintf\" is undefined",
        "identifier \"malloc\" is undefined",
        "identifier \"exit\" is undefined",
        "CUB_STDERR",
    };

    for (size_t i = 0; i < sizeof(signs) / sizeof(signs[0]); i++)
        if (strstr(log, signs[i]))
            return 1;
    return 0;
}

/* --- matching a symbol against a name expression ------------------------ */

static int is_id(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
           (c >= '0' && c <= '9') || c == '_';
}

static const char *skip_ws(const char *s)
{
    while (*s == ' ' || *s == '\t')
        s++;
    return s;
}

/* Matches "<len><name>" at *sym against the identifier [id, id+n). */
static int match_source_name(const char **sym, const char *id, size_t n)
{
    char num[24];
    int k = snprintf(num, sizeof(num), "%zu", n);

    if (strncmp(*sym, num, (size_t)k) != 0 || strncmp(*sym + k, id, n) != 0)
        return 0;
    *sym += (size_t)k + n;
    return 1;
}

static const struct {
    const char *name;
    const char *code;
} builtin[] = {
    {"void", "v"},     {"bool", "b"},      {"char", "c"},    {"short", "s"},
    {"int", "i"},      {"unsigned", "j"},  {"long", "l"},    {"float", "f"},
    {"double", "d"},   {"size_t", "m"},    {"int64_t", "l"}, {"uint64_t", "m"},
    {"int32_t", "i"},  {"uint32_t", "j"},  {"unsigned int", "j"},
    {"long long", "x"}, {"unsigned long", "m"}, {"signed char", "a"},
    {"unsigned char", "h"},
};

/* A qualified type or function name [s, e) ("cub::Algo", "k"): matched at
 * *sym as <source-name> or N <source-name>+ E (with `term`: the last
 * component is followed by template arguments, so no E here). */
static int match_qualified(const char **sym, const char *s, const char *e,
                           int open_n)
{
    const char *parts[16], *ends[16];
    int n = 0;

    for (const char *p = skip_ws(s); p < e && n < 16;) {
        const char *q = p;
        while (q < e && is_id(*q))
            q++;
        if (q == p)
            return 0;
        parts[n] = p;
        ends[n++] = q;
        p = skip_ws(q);
        if (p < e && p[0] == ':' && p[1] == ':')
            p = skip_ws(p + 2);
        else if (p < e)
            return 0;
    }
    if (n == 0)
        return 0;
    if (n == 1 && !open_n)
        return match_source_name(sym, parts[0], (size_t)(ends[0] - parts[0]));
    if (n == 1)
        return match_source_name(sym, parts[0], (size_t)(ends[0] - parts[0]));
    if (**sym != 'N')
        return 0;
    (*sym)++;
    for (int i = 0; i < n; i++)
        if (!match_source_name(sym, parts[i], (size_t)(ends[i] - parts[i])))
            return 0;
    if (!open_n) {
        if (**sym != 'E')
            return 0;
        (*sym)++;
    }
    return 1;
}

/* One template argument [s, e): an integer literal (any integer type), a
 * cast "(T)N" to an enumeration or integer type, or a type. */
static int match_arg(const char **sym, const char *s, const char *e)
{
    const char *p = skip_ws(s), *sy = *sym;
    int neg = 0;

    while (e > p && (e[-1] == ' ' || e[-1] == '\t'))
        e--;
    if (*p == '(') {
        const char *close = memchr(p, ')', (size_t)(e - p));
        if (!close || *sy != 'L')
            return 0;
        sy++;
        {
            const char *t = sy;
            int okb = 0;
            for (size_t i = 0; i < sizeof(builtin) / sizeof(builtin[0]); i++)
                if (strlen(builtin[i].name) == (size_t)(close - p - 1) &&
                    !strncmp(builtin[i].name, p + 1, (size_t)(close - p - 1)) &&
                    *t == builtin[i].code[0]) {
                    sy = t + 1;
                    okb = 1;
                    break;
                }
            if (!okb && !match_qualified(&sy, p + 1, close, 0))
                return 0;
        }
        p = skip_ws(close + 1);
    } else if ((e - p == 4 && !strncmp(p, "true", 4)) ||
               (e - p == 5 && !strncmp(p, "false", 5))) {
        if (strncmp(sy, *p == 't' ? "Lb1E" : "Lb0E", 4) != 0)
            return 0;
        *sym = sy + 4;
        return 1;
    } else if ((*p >= '0' && *p <= '9') || *p == '-') {
        if (*sy != 'L' || !(sy[1] >= 'a' && sy[1] <= 'z'))
            return 0;
        sy += 2;
    } else {
        for (size_t i = 0; i < sizeof(builtin) / sizeof(builtin[0]); i++)
            if (strlen(builtin[i].name) == (size_t)(e - p) &&
                !strncmp(builtin[i].name, p, (size_t)(e - p)) &&
                *sy == builtin[i].code[0]) {
                *sym = sy + 1;
                return 1;
            }
        if (!match_qualified(&sy, p, e, 0))
            return 0;
        *sym = sy;
        return 1;
    }
    /* the number, signed; literals may carry suffixes (4u, 8L) */
    if (*p == '-') {
        neg = 1;
        p = skip_ws(p + 1);
    }
    if (neg) {
        if (*sy != 'n')
            return 0;
        sy++;
    }
    while (p < e && *p >= '0' && *p <= '9') {
        if (*sy != *p)
            return 0;
        sy++;
        p++;
    }
    if (*sy != 'E')
        return 0;
    *sym = sy + 1;
    return 1;
}

/* Whether symbol sym is the kernel that name expression expr names. */
static int symbol_matches(const char *sym, const char *expr)
{
    const char *lt = strchr(expr, '<'), *end = expr + strlen(expr);
    const char *s = sym;

    if (!lt)
        return strcmp(sym, expr) == 0 ||
               (!strncmp(s, "_Z", 2) && (s += 2, 1) &&
                match_qualified(&s, expr, end, 0) && *s != 'I');
    if (strncmp(s, "_Z", 2) != 0)
        return 0;
    s += 2;
    {
        int nested = *s == 'N';
        const char *a;
        if (!match_qualified(&s, expr, lt, 1) || *s != 'I')
            return 0;
        s++;
        /* the arguments, split at top-level commas */
        a = lt + 1;
        for (;;) {
            int depth = 0;
            const char *q = a;
            while (*q && !(depth == 0 && (*q == ',' || *q == '>'))) {
                depth += *q == '<' || *q == '(';
                depth -= *q == '>' || *q == ')';
                q++;
            }
            if (!*q || !match_arg(&s, a, q))
                return 0;
            if (*q == '>')
                break;
            a = q + 1;
        }
        if (*s != 'E')
            return 0;
        s++;
        if (nested) {
            if (*s != 'E')
                return 0;
            s++;
        }
        return *s == 'v'; /* a kernel returns void */
    }
}

/* find_symbol's matches of one expression. */
typedef struct sym_match {
    const char *expr;
    char *found; /* the first match */
    int n;
} sym_match;

static int match_symbol(const char *name, uint64_t size, void *arg)
{
    sym_match *sm = arg;

    (void)size;
    if (symbol_matches(name, sm->expr) && sm->n++ == 0 &&
        !(sm->found = atune__strdup(name)))
        return -1;
    return 0;
}

/* The symbol of expr among the CUBIN's functions: NULL with a message in
 * why when none or several match. */
static char *find_symbol(const char *data, size_t len, const char *expr,
                         char *why, size_t wlen)
{
    atune__elf e;
    sym_match sm = {expr, NULL, 0};

    if (atune__elf_open(&e, data, len)) {
        snprintf(why, wlen, "nvcc wrote no ELF CUBIN");
        return NULL;
    }
    if (atune__elf_symbols(&e, STT_FUNC, match_symbol, &sm)) {
        snprintf(why, wlen, "out of memory");
        return NULL;
    }
    if (sm.n == 1)
        return sm.found;
    free(sm.found);
    snprintf(why, wlen,
             sm.n ? "'%s' matches %d kernels of the CUBIN (overloads): name "
                    "one by its template arguments"
                  : "no kernel of the CUBIN is '%s' (a __global__ function "
                    "of that name, with these template arguments)",
             expr, sm.n);
    return NULL;
}

/* --- running nvcc ------------------------------------------------------ */

/* nvcc names the wrapper by its scratch folder, a new one each compile
 * ("In file included from /tmp/atune-nvcc-oYGntQ/w.cu:1:"): the same
 * error in every configuration would read as a different log each time,
 * and check shows each distinct log once. The folder becomes
 * "(wrapper)", shorter than any of them. */
static void unscratch(char *log, const char *dir)
{
    static const char with[] = "(wrapper)";
    size_t dlen = strlen(dir), wlen = sizeof(with) - 1;
    char *p = log;

    if (dlen < wlen)
        return;
    while ((p = strstr(p, dir)) != NULL) {
        memcpy(p, with, wlen);
        memmove(p + wlen, p + dlen, strlen(p + dlen) + 1);
        p += wlen;
    }
}

/* NVRTC's precompiled-header options, which nvcc does not know (it has
 * no use for them: it compiles each file in full anyway). */
static int nvrtc_only(const char *o)
{
    static const char *const pre[] = {"-pch", "--pch", "--create-pch",
                                      "--use-pch", "-create-pch", "-use-pch"};

    for (size_t i = 0; i < sizeof(pre) / sizeof(pre[0]); i++)
        if (strncmp(o, pre[i], strlen(pre[i])) == 0)
            return 1;
    return 0;
}

static int write_text(const char *path, const char *text)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    int rc;

    if (fd < 0)
        return -1;
    rc = atune__write_full(fd, text, strlen(text));
    return close(fd) == 0 && rc == 0 ? 0 : -1;
}

/* The wrapper: the file itself, then each entry point's address taken in
 * host code, which instantiates kernel templates. */
static char *wrapper_text(const char *cu, const char *const *names,
                          int nnames)
{
    size_t len = strlen(cu) + 64;
    char *w, *at;

    for (int i = 0; i < nnames; i++)
        len += strlen(names[i]) + 80;
    if (!(w = malloc(len)))
        return NULL;
    at = w + sprintf(w, "#include \"%s\"\n", cu);
    for (int i = 0; i < nnames; i++)
        at += sprintf(at,
                      "void *atune__entry%d(void) { return (void *)&%s; }\n",
                      i, names[i]);
    return w;
}

/* The CUBIN nvcc wrote (atune__read_file takes text only). */
static int read_binary(const char *path, atune__nvcc_result *out,
                       atune__err *err)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    struct stat st;
    int rc = 0;

    if (fd < 0 || fstat(fd, &st) != 0 || st.st_size <= 0 ||
        st.st_size > (256 << 20)) {
        rc = atune__fail(err, ATUNE__EDATA, "nvcc wrote no CUBIN (%s)", path);
    } else if (!(out->data = malloc((size_t)st.st_size))) {
        rc = atune__fail(err, ATUNE__EOSERR, "out of memory");
    } else if (atune__read_full(fd, out->data, (size_t)st.st_size) != 0) {
        rc = atune__fail(err, ATUNE__EIO, "cannot read %s", path);
    } else {
        out->len = (size_t)st.st_size;
    }
    if (fd >= 0)
        close(fd);
    return rc;
}

/* Also what nvcc left of its own there (its TMPDIR, below): a killed or
 * failed nvcc does not clean up. The folder is ours alone (mode 0700), so
 * whatever is in it is ours; unlink removes a link, never what it names. */
static void remove_dir(const char *dir)
{
    char p[PATH_MAX + 256];
    struct dirent *de;
    DIR *d = opendir(dir);

    while (d && (de = readdir(d)) != NULL)
        if (strcmp(de->d_name, ".") && strcmp(de->d_name, "..") &&
            snprintf(p, sizeof(p), "%s/%s", dir, de->d_name) < (int)sizeof(p))
            unlink(p);
    if (d)
        closedir(d);
    rmdir(dir);
}

/* The environment with TMPDIR set to dir. nvcc writes its intermediate
 * files under $TMPDIR by names anyone can predict (tmpxft_<its pid>_...,
 * opened O_CREAT | O_TRUNC without O_EXCL, through any link: seen with
 * strace, nvcc 13.0); in a shared /tmp a link planted at such a name would
 * make it overwrite what the link names, so it gets the private scratch
 * folder instead. NULL when out of memory. */
static char **env_with_tmpdir(const char *dir, char **tmpdir_var)
{
    size_t n = 0, k = 0, len = strlen(dir) + sizeof("TMPDIR=");
    char **env;

    while (environ[n])
        n++;
    if (!(env = calloc(n + 2, sizeof(*env))) || !(*tmpdir_var = malloc(len))) {
        free(env);
        return NULL;
    }
    snprintf(*tmpdir_var, len, "TMPDIR=%s", dir);
    for (size_t i = 0; i < n; i++)
        if (strncmp(environ[i], "TMPDIR=", 7) != 0)
            env[k++] = environ[i];
    env[k++] = *tmpdir_var;
    env[k] = NULL;
    return env;
}

void atune__nvcc_result_free(atune__nvcc_result *r)
{
    free(r->data);
    free(r->log);
    for (int i = 0; i < 4; i++)
        free(r->sym[i]);
    memset(r, 0, sizeof(*r));
}

int atune__nvcc_compile(const atune__manifest *m, const char *toolkit_inc,
                        const char **opts, int nopts,
                        const char *const *names, int nnames, const char *what,
                        atune__nvcc_result *out, atune__err *err)
{
    char nvcc[PATH_MAX], dir[] = "/tmp/atune-nvcc-XXXXXX", wpath[PATH_MAX],
         src[PATH_MAX], cubin[PATH_MAX], logp[PATH_MAX], why[512];
    const char *tmp = getenv("TMPDIR");
    char tdir[PATH_MAX - 64]; /* room for "/out.cubin" in the others */
    char **argv = NULL, *wtext = NULL, *log = NULL, **env = NULL;
    char *tmpdir_var = NULL;
    posix_spawn_file_actions_t fa;
    int argc = 0, rc = 0, status = 0;
    size_t loglen = 0;
    pid_t pid;

    memset(out, 0, sizeof(*out));
    if (nnames > 4)
        return atune__fail(err, ATUNE__ESOFTWARE, "too many names");
    if (atune__nvcc_find(toolkit_inc, nvcc, sizeof(nvcc)) != 0)
        return atune__fail(err, ATUNE__EDATA,
                           "%s: %s: nvcc not found (CUDA_HOME/bin, the "
                           "toolkit beside NVRTC, PATH, /usr/local/cuda/bin): "
                           "install the CUDA toolkit's compiler or set "
                           "CUDA_HOME",
                           m->cu_path, what);
    if (tmp && *tmp && tmp[0] == '/' &&
        snprintf(tdir, sizeof(tdir), "%s/atune-nvcc-XXXXXX", tmp) <
            (int)sizeof(tdir)) {
        if (!mkdtemp(tdir))
            tdir[0] = '\0';
    } else {
        tdir[0] = '\0';
    }
    if (!tdir[0]) {
        if (!mkdtemp(dir))
            return atune__fail(err, ATUNE__EOSERR,
                               "cannot create a directory for nvcc: %s",
                               strerror(errno));
        atune__strlcpy(tdir, dir, sizeof(tdir));
    }
    snprintf(wpath, sizeof(wpath), "%s/w.cu", tdir);
    snprintf(cubin, sizeof(cubin), "%s/out.cubin", tdir);
    snprintf(logp, sizeof(logp), "%s/log", tdir);
    /* The file as the user has it (its own includes resolve beside it);
     * a built-in template lives in memory only. */
    if (!m->dir || !realpath(m->cu_path, src)) {
        snprintf(src, sizeof(src), "%s/src.cu", tdir);
        if (write_text(src, m->source) != 0) {
            rc = atune__fail(err, ATUNE__EOSERR, "cannot write %s", src);
            goto out;
        }
    }
    if (!(wtext = wrapper_text(src, names, nnames)) ||
        write_text(wpath, wtext) != 0) {
        rc = atune__fail(err, ATUNE__EOSERR, "cannot write %s", wpath);
        goto out;
    }
    if (!(argv = calloc((size_t)nopts + 8, sizeof(*argv)))) {
        rc = atune__fail(err, ATUNE__EOSERR, "out of memory");
        goto out;
    }
    argv[argc++] = nvcc;
    argv[argc++] = "-cubin";
    for (int i = 0; i < nopts; i++)
        if (!nvrtc_only(opts[i]))
            argv[argc++] = (char *)opts[i];
    argv[argc++] = "-o";
    argv[argc++] = cubin;
    argv[argc++] = wpath;
    argv[argc] = NULL;
    if (!(env = env_with_tmpdir(tdir, &tmpdir_var))) {
        rc = atune__fail(err, ATUNE__EOSERR, "out of memory");
        goto out;
    }
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 1, logp, O_WRONLY | O_CREAT | O_TRUNC,
                                     0600);
    posix_spawn_file_actions_adddup2(&fa, 1, 2);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    rc = posix_spawn(&pid, nvcc, &fa, NULL, argv, env);
    posix_spawn_file_actions_destroy(&fa);
    if (rc != 0) {
        rc = atune__fail(err, ATUNE__EOSERR, "cannot run %s: %s", nvcc,
                         strerror(rc));
        goto out;
    }
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    if (atune__read_file(logp, &log, &loglen, err) != 0)
        log = atune__strdup("");
    if (!log) {
        rc = atune__fail(err, ATUNE__EOSERR, "out of memory");
        goto out;
    }
    unscratch(log, tdir);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        rc = atune__fail(err, ATUNE__EDATA,
                         "%s: %s: compile error (nvcc -cubin, exit %d):\n%s",
                         m->cu_path, what,
                         WIFEXITED(status) ? WEXITSTATUS(status) : -1, log);
        goto out;
    }
    if ((rc = read_binary(cubin, out, err)) != 0)
        goto out;
    for (int i = 0; i < nnames; i++) {
        if (!(out->sym[i] = find_symbol(out->data, out->len, names[i], why,
                                        sizeof(why)))) {
            rc = atune__fail(err, ATUNE__EDATA,
                             "%s:%d: %s: compiled with nvcc, but %s",
                             m->ini_path, m->kernel_line, what, why);
            goto out;
        }
    }
    out->log = log;
    log = NULL;
out:
    if (rc)
        atune__nvcc_result_free(out);
    free(argv);
    free(env);
    free(tmpdir_var);
    free(log);
    free(wtext);
    remove_dir(tdir);
    return rc;
}
