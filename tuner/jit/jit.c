/* jit.c -- NVRTC compilation of template configurations to CUBIN.
 *
 * Entry points are C++ name expressions ("user::block_sum<BLOCK, 4>"):
 * NVRTC instantiates them (nvrtcAddNameExpression) and tells their
 * symbols (nvrtcGetLoweredName), which the CUBIN's user then looks up.
 * Headers are found through -I: the template's directory, its
 * include_dirs and the toolkit's include directory (CCCL included). */
#define _GNU_SOURCE /* dladdr: where the NVRTC in use lives */
#include "jit/jit.h"

#include "base/number.h"

#include <dlfcn.h>
#include <limits.h>
#include <nvrtc.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "jit/header_hint.h"
#include "jit/nvcc.h"
#include "jit/pch.h"

static int is_dir(const char *path)
{
    struct stat st;

    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static int is_file(const char *path)
{
    struct stat st;

    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

static char toolkit_inc[PATH_MAX];
static pthread_once_t toolkit_once = PTHREAD_ONCE_INIT;

/* Takes dir when it holds the toolkit's headers. */
static int try_toolkit(const char *dir)
{
    char probe[PATH_MAX + 32], real[PATH_MAX];

    if (!dir || !*dir ||
        snprintf(probe, sizeof(probe), "%s/cuda_runtime.h", dir) >=
            (int)sizeof(probe) ||
        !is_file(probe) || !realpath(dir, real))
        return 0;
    atune__strlcpy(toolkit_inc, real, sizeof(toolkit_inc));
    return 1;
}

static int try_env(const char *var)
{
    const char *v = getenv(var);
    char dir[PATH_MAX];

    if (!v || !*v ||
        snprintf(dir, sizeof(dir), "%s/include", v) >= (int)sizeof(dir))
        return 0;
    return try_toolkit(dir);
}

/* LIBDIR/../include (targets/x86_64-linux/lib, or lib64 of a flat
 * install) and LIBDIR/../../include, LIBDIR being the NVRTC library's. */
static int try_nvrtc_lib(void)
{
    static const char *const up[] = {"/../include", "/../../include"};
    Dl_info info;
    char real[PATH_MAX], dir[PATH_MAX + 16];
    char *slash;
    /* dlsym, not &nvrtcVersion: ISO C has no function-to-object cast. */
    void *sym = dlsym(RTLD_DEFAULT, "nvrtcVersion");

    if (!sym || !dladdr(sym, &info) || !info.dli_fname ||
        !realpath(info.dli_fname, real) || !(slash = strrchr(real, '/')))
        return 0;
    *slash = '\0';
    for (size_t i = 0; i < sizeof(up) / sizeof(up[0]); i++) {
        snprintf(dir, sizeof(dir), "%s%s", real, up[i]);
        if (try_toolkit(dir))
            return 1;
    }
    return 0;
}

static void find_toolkit(void)
{
    if (!try_env("CUDA_HOME") && !try_env("CUDA_PATH") && !try_nvrtc_lib())
        try_toolkit("/usr/local/cuda/include");
}

const char *atune__jit_toolkit_include(void)
{
    pthread_once(&toolkit_once, find_toolkit);
    return toolkit_inc[0] ? toolkit_inc : NULL;
}

static char *program_log(nvrtcProgram prog)
{
    size_t len = 0;
    char *log;

    if (nvrtcGetProgramLogSize(prog, &len) != NVRTC_SUCCESS || len == 0)
        return atune__strdup("");
    log = malloc(len + 1);
    if (!log)
        return NULL;
    if (nvrtcGetProgramLog(prog, log) != NVRTC_SUCCESS)
        log[0] = '\0';
    log[len] = '\0';
    return log;
}

/* Runs NVRTC on source with opts, instantiating the name expressions
 * names[0..nnames); on success out holds the CUBIN and their symbols. */
static int compile(const char *source, const char *path, const char **opts,
                   int nopts, const char *const *names, int nnames,
                   const char *what, atune__cubin *out, atune__err *err)
{
    nvrtcProgram prog = NULL;
    nvrtcResult rc;
    char *log = NULL;
    int ret = ATUNE__OK, pch;

    memset(out, 0, sizeof(*out));
    rc = nvrtcCreateProgram(&prog, source, path, 0, NULL, NULL);
    if (rc != NVRTC_SUCCESS)
        return atune__fail(err, ATUNE__ESOFTWARE, "%s: nvrtcCreateProgram: %s",
                           path, nvrtcGetErrorString(rc));
    for (int i = 0; i < nnames; i++) {
        rc = nvrtcAddNameExpression(prog, names[i]);
        if (rc != NVRTC_SUCCESS) {
            ret = atune__fail(err, ATUNE__ESOFTWARE,
                              "%s: nvrtcAddNameExpression('%s'): %s", path,
                              names[i], nvrtcGetErrorString(rc));
            goto out;
        }
    }
    rc = nvrtcCompileProgram(prog, nopts, opts);
    log = program_log(prog);
    if (!log) {
        ret = atune__fail(err, ATUNE__EOSERR, "out of memory");
        goto out;
    }
    pch = atune__pch_filter_log(log);
    if (rc != NVRTC_SUCCESS) {
        ret = atune__fail(err, ATUNE__EDATA, "%s: %s: compile error (%s):\n%s",
                          path, what, nvrtcGetErrorString(rc), log);
        goto out;
    }
    for (int i = 0; i < nnames; i++) {
        const char *lowered = NULL;
        if (nvrtcGetLoweredName(prog, names[i], &lowered) != NVRTC_SUCCESS ||
            !lowered || !(out->sym[i] = atune__strdup(lowered))) {
            ret = atune__fail(err, ATUNE__ESOFTWARE,
                              "%s: %s: NVRTC has no symbol for '%s'", path,
                              what, names[i]);
            goto out;
        }
        out->nsyms = i + 1;
    }
    rc = nvrtcGetCUBINSize(prog, &out->len);
    if (rc == NVRTC_SUCCESS && out->len > 0) {
        out->data = malloc(out->len);
        if (!out->data) {
            ret = atune__fail(err, ATUNE__EOSERR, "out of memory");
            goto out;
        }
        rc = nvrtcGetCUBIN(prog, out->data);
    }
    if (rc != NVRTC_SUCCESS || out->len == 0) {
        ret = atune__fail(err, ATUNE__ESOFTWARE, "%s: %s: no CUBIN: %s", path,
                          what, nvrtcGetErrorString(rc));
        goto out;
    }
    out->log = log;
    out->pch = pch;
    log = NULL;
out:
    if (ret != ATUNE__OK)
        atune__cubin_free(out);
    free(log);
    nvrtcDestroyProgram(&prog);
    return ret;
}

static int add_opt(atune__jit_opts *o, const char *opt)
{
    if (o->n == ATUNE__JIT_MAX_OPTS)
        return -1;
    o->v[o->n++] = opt;
    return 0;
}

static int add_include(atune__jit_opts *o, const char *dir)
{
    size_t len = strlen(dir) + 3;
    char *inc;

    if (o->nincs == (int)(sizeof(o->incs) / sizeof(o->incs[0])) ||
        !(inc = malloc(len)))
        return -1;
    snprintf(inc, len, "-I%s", dir);
    o->incs[o->nincs++] = inc;
    return add_opt(o, inc);
}

/* The include paths: the template's directory, its include_dirs, then the
 * toolkit's (and its cccl/, where CUDA 13 keeps CUB, Thrust, libcu++). */
static int add_includes(const atune__manifest *m, atune__jit_opts *o)
{
    const char *tk = atune__jit_toolkit_include();
    char cccl[PATH_MAX + 8];

    if (m->dir && add_include(o, m->dir))
        return -1;
    for (int i = 0; i < m->ninclude_dirs; i++)
        if (add_include(o, m->include_dirs[i]))
            return -1;
    if (!tk)
        return 0;
    if (add_include(o, tk))
        return -1;
    snprintf(cccl, sizeof(cccl), "%s/cccl", tk);
    return is_dir(cccl) ? add_include(o, cccl) : 0;
}

static int has_std_option(const atune__manifest *m)
{
    for (int i = 0; i < m->nnvrtc_opts; i++)
        if (strncmp(m->nvrtc_opts[i], "-std=", 5) == 0 ||
            strncmp(m->nvrtc_opts[i], "--std=", 6) == 0)
            return 1;
    return 0;
}

int atune__jit_options(const atune__manifest *m, const atune__config *c,
                       const char *arch, atune__jit_opts *o, atune__err *err)
{
    atune__config dflt;

    if (!c) {
        atune__space_config(m, 0, &dflt);
        c = &dflt;
    }
    memset(o, 0, sizeof(*o));
    snprintf(o->arch, sizeof(o->arch), "--gpu-architecture=%s", arch);
    add_opt(o, o->arch);
    if (!has_std_option(m))
        add_opt(o, "-std=c++17");
    for (int i = 0; i < m->nnvrtc_opts; i++)
        add_opt(o, m->nvrtc_opts[i]);
    for (int i = 0; i < m->nparams; i++) {
        if (!m->params[i].macro)
            continue;
        snprintf(o->defs[i], sizeof(o->defs[i]), "-D%s=%lld", m->params[i].name,
                 (long long)c->v[i]);
        add_opt(o, o->defs[i]);
    }
    if (m->nmacros > 0) {
        int64_t mv[ATUNE__MAX_MACROS];
        int rc = atune__macro_values(m, c->v, mv, err);
        if (rc)
            return rc;
        for (int i = 0; i < m->nmacros; i++) {
            snprintf(o->mdefs[i], sizeof(o->mdefs[i]), "-D%s=%lld",
                     m->macros[i].name, (long long)mv[i]);
            add_opt(o, o->mdefs[i]);
        }
    }
    o->nkey = o->n;
    if (add_includes(m, o) != 0) {
        atune__jit_options_free(o);
        return atune__fail(err, ATUNE__EOSERR, "out of memory");
    }
    return 0;
}

void atune__jit_options_free(atune__jit_opts *o)
{
    for (int i = 0; i < o->nincs; i++)
        free(o->incs[i]);
    o->nincs = 0;
}

/* The source compiled but a name expression did not: which one, with its
 * manifest line, so that the user fixes the manifest, not the .cu. */
static int name_error(const atune__manifest *m, const char *const *names,
                      atune__jit_name_buf *text, int nnames,
                      const char **opts, int nopts, const char *what,
                      atune__err *err)
{
    const char *log = strchr(err->msg, '\n');
    char *copy = atune__strdup(log ? log + 1 : "");
    atune__cubin probe;
    atune__err perr;
    int bad = 0, is_ref, rc, line;
    const char *key;

    for (int i = 0; nnames > 1 && i < nnames; i++) {
        const char *one[] = {text[i]};
        if (compile(m->source, m->cu_path, opts, nopts, one, 1, what, &probe,
                    &perr) != 0) {
            bad = i;
            break;
        }
        atune__cubin_free(&probe);
    }
    /* names[] point into m (atune__manifest_entries', a step's kernel
     * before the reference; refmodule.c's: the reference's launches, then
     * init's and verify's names). */
    is_ref = names[bad] == m->reference;
    line = is_ref ? m->reference_line : m->kernel_line;
    for (int i = 0; !is_ref && i < m->nsteps; i++)
        if (names[bad] == m->steps[i].kernel ||
            strcmp(names[bad], m->steps[i].kernel) == 0) {
            line = m->steps[i].kernel_line;
            break;
        }
    for (int i = 0; i < m->nref_steps; i++)
        if (names[bad] == m->ref_steps[i].kernel) {
            line = m->ref_steps[i].kernel_line;
            is_ref = 1;
        }
    key = is_ref ? "reference" : "kernel";
    if (names[bad] == m->init) {
        key = "init";
        line = m->init_line;
    }
    for (int i = 0; i < m->nargs; i++)
        if (names[bad] == m->args[i].verify) {
            key = "verify";
            line = m->args[i].line;
        }
    rc = atune__fail(err, ATUNE__EDATA,
                     "%s:%d: %s '%s' (as '%s'): %s: compile error "
                     "(NVRTC_ERROR_COMPILATION): no such __global__ "
                     "function, or its instantiation does not compile:\n%s",
                     m->ini_path, line, key, names[bad], text[bad],
                     what, copy ? copy : "");
    free(copy);
    return rc;
}

/* Whether a failed compile may be a name's fault: NVRTC reports names it
 * cannot parse from "__nv_name_map"; a template instantiation fails inside
 * the source. Plain names that exist cannot fail, so an ordinary compile
 * error is not compiled a second time. */
static int may_be_name_error(const char *const *names, int nnames,
                             const atune__err *err)
{
    if (strstr(err->msg, "__nv_name_map"))
        return 1;
    for (int i = 0; i < nnames; i++)
        if (strchr(names[i], '<'))
            return 1;
    return 0;
}

/* Adds a hint to a compile error when the toolkit's headers are missing. */
static void toolkit_hint(atune__err *err)
{
    if (atune__jit_toolkit_include() ||
        !strstr(err->msg, "cannot open source file"))
        return;
    atune__err_suffix(err, "(the CUDA toolkit's include directory was not "
                           "found: set CUDA_HOME or CUDA_PATH)");
}

#define HOST_CODE_NOTE                                                         \
    "compiled with nvcc -cubin, automatically: NVRTC cannot compile this "     \
    "file (host code or a host header; compiler = nvrtc turns this off)"

/* The templates (by hash) whose file NVRTC refused for host code in this
 * process: their next configurations go to nvcc directly. */
static uint64_t host_code_hash[32];
static int nhost_code;
static pthread_mutex_t host_code_lock = PTHREAD_MUTEX_INITIALIZER;

static int known_host_code(const atune__manifest *m)
{
    int found = 0;

    if (m->compiler != ATUNE__COMPILER_AUTO)
        return 0;
    pthread_mutex_lock(&host_code_lock);
    for (int i = 0; i < nhost_code && !found; i++)
        found = host_code_hash[i] == m->hash;
    pthread_mutex_unlock(&host_code_lock);
    return found;
}

static void remember_host_code(const atune__manifest *m)
{
    pthread_mutex_lock(&host_code_lock);
    if (nhost_code < 32)
        host_code_hash[nhost_code++] = m->hash;
    pthread_mutex_unlock(&host_code_lock);
}

/* The first "error" line of an NVRTC message, shortened, into buf. */
static void first_error(const char *msg, char *buf, size_t len)
{
    const char *e = strstr(msg, ": error");
    size_t n;

    if (e)
        e += 2;
    else if ((e = strstr(msg, "error: ")) == NULL) {
        atune__strlcpy(buf, "compile error", len);
        return;
    }
    n = strcspn(e, "\n");
    snprintf(buf, len, "%.*s", (int)(n < len - 1 ? n : len - 1), e);
}

/* Puts "note: WHAT" before the compiler's log of out. */
/* nvcc.c's result as a cubin: the CUBIN, its log and symbols move. */
static int nvcc_compile(const atune__manifest *m, atune__jit_opts *o,
                        const char *const *names, int nnames,
                        const char *what, atune__cubin *out, atune__err *err)
{
    atune__nvcc_result r;
    int rc = atune__nvcc_compile(m, atune__jit_toolkit_include(), o->v, o->n,
                                 names, nnames, what, &r, err);

    memset(out, 0, sizeof(*out));
    if (rc)
        return rc;
    out->data = r.data;
    out->len = r.len;
    out->log = r.log;
    for (int i = 0; i < nnames; i++) {
        out->sym[i] = r.sym[i];
        r.sym[i] = NULL;
    }
    out->nsyms = nnames;
    r.data = r.log = NULL;
    atune__nvcc_result_free(&r);
    return 0;
}

static void note_log(atune__cubin *out, const char *what)
{
    size_t len = strlen(what) + (out->log ? strlen(out->log) : 0) + 16;
    char *log = malloc(len);

    if (!log)
        return;
    snprintf(log, len, "note: %s\n%s", what, out->log ? out->log : "");
    free(out->log);
    out->log = log;
}

/* compiler = nvrtc and the file holds host code: say what to do. */
static void host_code_hint(const atune__manifest *m, atune__err *err)
{
    atune__err_suffix(err,
                      "(%s holds host code or includes a host header, which "
                      "NVRTC cannot compile: remove compiler = nvrtc from %s "
                      "to compile its device side with nvcc -cubin)",
                      m->cu_path, m->ini_path);
}

/* A compile error on a line that names a parameter passed as a macro
 * (in a header the loader does not scan, CUB's for one): the macro is the
 * likely cause, and NVRTC's message does not name it. 1 when it said so. */
static int macro_hint(const atune__manifest *m, const atune__config *c,
                      atune__err *err)
{
    for (const char *p = err->msg; p && *p;
         p = strchr(p, '\n'), p = p ? p + 1 : p) {
        size_t flen = strcspn(p, "(\n");
        char path[PATH_MAX], *text = NULL;
        const char *l, *q = p + flen;
        atune__err rerr;
        long line = 0;
        int end = 0;
        /* "(N): error" only: a catastrophic error (the file's own #error,
         * a missing header) or a warning is no clash. */
        if (*q != '(' || flen == 0 || flen >= sizeof(path) ||
            sscanf(q, "(%ld): error%n", &line, &end) != 1 || end == 0 ||
            line < 1)
            continue;
        memcpy(path, p, flen);
        path[flen] = '\0';
        /* The line from the file; for NVRTC's built-in headers (no file),
         * as the log quotes it on the next line. */
        if (is_file(path) &&
            atune__read_file(path, &text, NULL, &rerr) == 0) {
            l = text;
            for (long i = 1; l && i < line; i++)
                if ((l = strchr(l, '\n')))
                    l++;
        } else {
            l = strchr(q, '\n');
            l = l ? l + 1 : NULL;
        }
        for (int k = 0; l && k < m->nparams; k++) {
            const char *n = m->params[k].name, *hit = l;
            size_t nl = strlen(n), ll = strcspn(l, "\n");
            if (!m->params[k].macro)
                continue;
            for (; (hit = strstr(hit, n)) && hit < l + ll; hit += nl) {
                if ((hit == l || !atune__ident_char(hit[-1])) &&
                    !atune__ident_char(hit[nl])) {
                    atune__err_suffix(
                        err,
                        "(%s:%ld names '%s', which is passed as -D%s=%lld: "
                        "a clashing macro. Rename the parameter in %s or "
                        "declare it not a macro: not_macros = %s)",
                        path, line, n, n, (long long)c->v[k], m->ini_path,
                        n);
                    free(text);
                    return 1;
                }
            }
        }
        free(text);
    }
    return 0;
}

int atune__jit_compile(const atune__manifest *m, const atune__config *c,
                       const char *arch, const char *const *names, int nnames,
                       atune__cubin *out, atune__err *err)
{
    atune__jit_opts o;
    atune__config dflt;
    char what[1024];
    atune__jit_name_buf text[ATUNE__JIT_MAX_NAMES];
    const char *subst[ATUNE__JIT_MAX_NAMES];
    atune__cubin probe;
    atune__err perr;
    int rc, clash = 0;

    memset(out, 0, sizeof(*out));
    if (!c) {
        atune__space_config(m, 0, &dflt);
        c = &dflt;
    }
    if ((rc = atune__jit_names(m, c, names, nnames, text, subst, err)) != 0)
        return rc;
    if ((rc = atune__jit_options(m, c, arch, &o, err)) != 0)
        return rc;
    memcpy(what, "configuration ", 15);
    atune__config_str(m, c, what + 14, sizeof(what) - 14);
    for (int i = 0; i < c->nsz && m->nsizes > 0; i++) {
        size_t l = strlen(what);
        snprintf(what + l, sizeof(what) - l, "%s%s=%lld", i ? "," : " at ",
                 m->sizes[0].var[i], (long long)c->sz[i]);
    }
    if (m->compiler == ATUNE__COMPILER_NVCC || known_host_code(m)) {
        rc = nvcc_compile(m, &o, subst, nnames, what, out, err);
        if (rc == 0)
            note_log(out, m->compiler == ATUNE__COMPILER_NVCC
                              ? "compiled with nvcc -cubin (compiler = nvcc)"
                              : HOST_CODE_NOTE);
        atune__jit_options_free(&o);
        return rc;
    }
    {
        /* The precompiled header's options: not in the cache key (o.nkey),
         * they change how fast, not what. */
        const char *v[ATUNE__JIT_MAX_OPTS + 4];
        int n = o.n;
        memcpy(v, o.v, sizeof(*v) * (size_t)o.n);
        atune__pch_options(m, v, &n, (int)(sizeof(v) / sizeof(v[0])));
        rc = compile(m->source, m->cu_path, v, n, subst, nnames, what, out,
                     err);
    }
    /* A published file with host code (main, printf, <stdio.h>): its
     * device side through nvcc, unless the manifest says nvrtc. */
    /* An error in a toolkit header on a line naming a -D parameter is a
     * clashing macro (CUB's "host functions" errors look like host code):
     * nvcc would fail the same way, only slower. */
    if (rc == ATUNE__EDATA && atune__nvcc_host_code(err->msg) &&
        !(clash = macro_hint(m, c, err))) {
        if (m->compiler == ATUNE__COMPILER_AUTO) {
            char first[300];
            first_error(err->msg, first, sizeof(first));
            rc = nvcc_compile(m, &o, subst, nnames, what, out, err);
            if (rc == 0) {
                remember_host_code(m);
                note_log(out, HOST_CODE_NOTE);
            } else {
                atune__err_prefix(err, "NVRTC cannot compile %s (%s), and "
                                       "nvcc -cubin failed too: ",
                                  m->cu_path, first);
                atune__header_missing_hint(m, atune__jit_toolkit_include(),
                                           err);
            }
            atune__jit_options_free(&o);
            return rc;
        }
        if (!atune__header_missing_hint(m, atune__jit_toolkit_include(),
                                        err))
            host_code_hint(m, err);
    }
    /* Did the source fail, or only a name? Compile once more without the
     * names to tell. */
    if (rc == ATUNE__EDATA && nnames > 0 &&
        may_be_name_error(names, nnames, err) &&
        compile(m->source, m->cu_path, o.v, o.n, NULL, 0, what, &probe,
                &perr) == 0) {
        atune__cubin_free(&probe);
        rc = name_error(m, names, text, nnames, o.v, o.n, what, err);
    }
    /* NVRTC refused an option: the manifest's, as the tuner's are fixed. */
    if (rc == ATUNE__EDATA && m->nnvrtc_opts &&
        strstr(err->msg, "(NVRTC_ERROR_INVALID_OPTION)"))
        atune__err_prefix(err, "%s:%d: nvrtc_options: ", m->ini_path,
                          m->nvrtc_opts_line);
    if (rc == ATUNE__EDATA) {
        toolkit_hint(err);
        if (!clash)
            macro_hint(m, c, err);
    }
    atune__jit_options_free(&o);
    return rc;
}

int atune__jit_compile_source(const char *source, const char *path,
                              const char *arch, const char *define,
                              atune__cubin *out, atune__err *err)
{
    char archopt[64];
    const char *opts[3];

    snprintf(archopt, sizeof(archopt), "--gpu-architecture=%s", arch);
    opts[0] = archopt;
    opts[1] = "-std=c++17";
    opts[2] = define;
    return compile(source, path, opts, define ? 3 : 2, NULL, 0, "helpers",
                   out, err);
}

void atune__cubin_free(atune__cubin *c)
{
    if (!c)
        return;
    free(c->data);
    free(c->log);
    for (int i = 0; i < ATUNE__JIT_MAX_NAMES; i++)
        free(c->sym[i]);
    memset(c, 0, sizeof(*c));
}

char *atune__cubin_syms_pack(const atune__cubin *c, size_t *len)
{
    size_t n = 0;
    char *buf;

    for (int i = 0; i < c->nsyms; i++)
        n += strlen(c->sym[i]) + 1;
    if (!(buf = malloc(n + 1)))
        return NULL;
    *len = 0;
    for (int i = 0; i < c->nsyms; i++) {
        size_t l = strlen(c->sym[i]) + 1;
        memcpy(buf + *len, c->sym[i], l);
        *len += l;
    }
    return buf;
}

int atune__cubin_syms_unpack(atune__cubin *c, const char *buf, size_t len)
{
    size_t at = 0;

    if (len > 0 && buf[len - 1] != '\0')
        return -1;
    while (at < len) {
        size_t l = strlen(buf + at);
        if (c->nsyms == ATUNE__JIT_MAX_NAMES ||
            !(c->sym[c->nsyms] = atune__strndup(buf + at, l)))
            return -1;
        c->nsyms++;
        at += l + 1;
    }
    return 0;
}

int atune__jit_version(void)
{
    int major = 0, minor = 0;

    if (nvrtcVersion(&major, &minor) != NVRTC_SUCCESS)
        return 0;
    return major * 1000 + minor * 10;
}

int atune__arch_cc(const char *arch)
{
    char digits[4];
    size_t n;
    int64_t cc;

    if (strncmp(arch, "sm_", 3) != 0 ||
        (n = strspn(arch + 3, "0123456789")) < 2 || n > 3)
        return -1;
    memcpy(digits, arch + 3, n);
    digits[n] = '\0';
    return atune__parse_i64(digits, 10, 999, &cc) ? -1 : (int)cc;
}

int atune__jit_arch_supported(const char *arch)
{
    int n = 0, want = atune__arch_cc(arch);
    int archs[64];

    if (want < 0)
        return 0;
    if (nvrtcGetNumSupportedArchs(&n) != NVRTC_SUCCESS || n > 64)
        return 0;
    if (nvrtcGetSupportedArchs(archs) != NVRTC_SUCCESS)
        return 0;
    for (int i = 0; i < n; i++)
        if (archs[i] == want)
            return 1;
    return 0;
}
