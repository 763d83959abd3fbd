/* jit.c -- NVRTC compilation of template configurations to CUBIN. */
#include "jit/jit.h"

#include <nvrtc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


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

/* Runs NVRTC on source with opts; on success out holds the CUBIN. */
static int compile(const char *source, const char *path, const char **opts,
                   int nopts, const char *const *names, int nnames,
                   const char *what, atune__cubin *out, atune__err *err)
{
    nvrtcProgram prog = NULL;
    nvrtcResult rc;
    char *log = NULL;
    int ret = ATUNE__OK;

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
    if (rc != NVRTC_SUCCESS) {
        ret = atune__fail(err, ATUNE__EDATA, "%s: %s: compile error (%s):\n%s",
                          path, what, nvrtcGetErrorString(rc), log);
        goto out;
    }
    /* A name expression that does not resolve means the entry point is
     * missing: make that a compile error, not a launch-time surprise. */
    for (int i = 0; i < nnames; i++) {
        const char *lowered = NULL;
        if (nvrtcGetLoweredName(prog, names[i], &lowered) != NVRTC_SUCCESS ||
            !lowered || strcmp(lowered, names[i]) != 0) {
            ret = atune__fail(err, ATUNE__EDATA,
                              "%s: %s: no extern \"C\" __global__ function "
                              "'%s'",
                              path, what, names[i]);
            goto out;
        }
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
    log = NULL;
out:
    if (ret != ATUNE__OK)
        atune__cubin_free(out);
    free(log);
    nvrtcDestroyProgram(&prog);
    return ret;
}

void atune__jit_options(const atune__manifest *m, const atune__config *c,
                        const char *arch, atune__jit_opts *o)
{
    atune__config dflt;

    if (!c) {
        atune__space_config(m, 0, &dflt);
        c = &dflt;
    }
    o->n = 0;
    snprintf(o->arch, sizeof(o->arch), "--gpu-architecture=%s", arch);
    o->v[o->n++] = o->arch;
    o->v[o->n++] = "-std=c++17";
    for (int i = 0; i < m->nparams; i++) {
        snprintf(o->defs[i], sizeof(o->defs[i]), "-D%s=%lld",
                 m->params[i].name, (long long)c->v[i]);
        o->v[o->n++] = o->defs[i];
    }
}

int atune__jit_compile(const atune__manifest *m, const atune__config *c,
                       const char *arch, const char *const *names,
                       int nnames, atune__cubin *out, atune__err *err)
{
    atune__jit_opts o;
    atune__config dflt;
    char what[1024];

    if (!c) {
        atune__space_config(m, 0, &dflt);
        c = &dflt;
    }
    atune__jit_options(m, c, arch, &o);
    memcpy(what, "configuration ", 15);
    atune__config_str(m, c, what + 14, sizeof(what) - 14);
    return compile(m->source, m->cu_path, o.v, o.n, names, nnames, what, out,
                   err);
}

int atune__jit_compile_source(const char *source, const char *path,
                              const char *arch, atune__cubin *out,
                              atune__err *err)
{
    char archopt[64];
    const char *opts[2];

    snprintf(archopt, sizeof(archopt), "--gpu-architecture=%s", arch);
    opts[0] = archopt;
    opts[1] = "-std=c++17";
    return compile(source, path, opts, 2, NULL, 0, "helpers", out, err);
}

void atune__cubin_free(atune__cubin *c)
{
    if (!c)
        return;
    free(c->data);
    free(c->log);
    memset(c, 0, sizeof(*c));
}

int atune__jit_version(void)
{
    int major = 0, minor = 0;

    if (nvrtcVersion(&major, &minor) != NVRTC_SUCCESS)
        return 0;
    return major * 1000 + minor * 10;
}

int atune__jit_arch_supported(const char *arch)
{
    int n = 0, want;
    int archs[64];

    if (strncmp(arch, "sm_", 3) != 0 || sscanf(arch + 3, "%d", &want) != 1)
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
