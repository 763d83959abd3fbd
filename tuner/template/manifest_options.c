/* manifest_options.c -- a manifest's nvrtc_options: the allow-list.
 *
 * A template directory is code someone may hand you, and `check`, `tune`
 * and applications (libatune_jit) compile it. NVRTC options can write
 * files (--time=FILE, --fdevice-time-trace=FILE, --create-pch=FILE) or
 * read them (--use-pch, --pre-include from anywhere), so only options that
 * touch no file outside the template's include directories pass; a
 * --pre-include header must lie in them (manifest_headers.c checks and
 * hashes it). docs/safety.md lists them for users: keep both in step. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "template/manifest_internal.h"

/* What follows an option's name. */
enum form {
    FLAG,   /* nothing: "-use_fast_math" */
    BOOL,   /* "=true" or "=false" */
    NUMBER, /* "=" and decimal digits */
    STD,    /* "=c++NN" */
    ON,     /* "=on" (NVRTC 13 refuses "=off") */
    DIAGS,  /* "=" and comma-separated diagnostic numbers */
    MACRO,  /* glued or after "=": a macro definition or name */
    HEADER, /* "=" and a header in the include directories */
    PTXAS   /* "=" and one ptxas option of ptxas_ok (NVRTC passes a
               comma-separated list as one word) */
};

static const struct allowed {
    const char *name;
    enum form form;
} allowed[] = {
    {"-D", MACRO},
    {"--define-macro", MACRO},
    {"-U", MACRO},
    {"--undefine-macro", MACRO},
    {"-std", STD},
    {"--std", STD},
    {"-use_fast_math", FLAG},
    {"--use_fast_math", FLAG},
    {"-ftz", BOOL},
    {"--ftz", BOOL},
    {"-prec-div", BOOL},
    {"--prec-div", BOOL},
    {"-prec-sqrt", BOOL},
    {"--prec-sqrt", BOOL},
    {"-fmad", BOOL},
    {"--fmad", BOOL},
    {"-maxrregcount", NUMBER},
    {"--maxrregcount", NUMBER},
    {"-lineinfo", FLAG},
    {"--generate-line-info", FLAG},
    {"-G", FLAG},
    {"--device-debug", FLAG},
    {"-extra-device-vectorization", FLAG},
    {"--extra-device-vectorization", FLAG},
    {"-restrict", FLAG},
    {"--restrict", FLAG},
    {"-default-device", FLAG},
    {"--device-as-default-execution-space", FLAG},
    {"-dopt", ON},
    {"--dopt", ON},
    {"-device-int128", FLAG},
    {"--device-int128", FLAG},
    {"-builtin-move-forward", BOOL},
    {"--builtin-move-forward", BOOL},
    {"-builtin-initializer-list", BOOL},
    {"--builtin-initializer-list", BOOL},
    {"-w", FLAG},
    {"--disable-warnings", FLAG},
    {"-err-no", FLAG},
    {"--display-error-number", FLAG},
    {"-no-err-no", FLAG},
    {"--no-display-error-number", FLAG},
    {"-diag-error", DIAGS},
    {"--diag-error", DIAGS},
    {"-diag-suppress", DIAGS},
    {"--diag-suppress", DIAGS},
    {"-diag-warn", DIAGS},
    {"--diag-warn", DIAGS},
    {"-brief-diag", BOOL},
    {"--brief-diagnostics", BOOL},
    {"-include", HEADER},
    {"--pre-include", HEADER},
    {"-Xptxas", PTXAS},
    {"--ptxas-options", PTXAS},
};

/* ptxas options that only change the code or what the log says. */
static const char *const ptxas_ok[] = {
    "-v", "--verbose", "-O0", "-O1", "-O2", "-O3", "--warn-on-spills",
    "-warn-spills", "--warn-on-local-memory-usage", "-warn-lmem-usage",
    "--warn-on-double-precision-use", "-warn-double-usage",
    "--allow-expensive-optimizations=true",
    "--allow-expensive-optimizations=false",
    "--disable-optimizer-constants", "-disable-optimizer-consts",
    "--dont-merge-basicblocks", "-no-bb-merge",
    "--def-load-cache=ca", "--def-load-cache=cg", "--def-load-cache=cs",
    "--def-load-cache=lu", "--def-load-cache=cv", "-dlcm=ca", "-dlcm=cg",
    "--def-store-cache=wb", "--def-store-cache=cg", "--def-store-cache=cs",
    "--def-store-cache=wt", "-dscm=wb", "-dscm=cg", "-dscm=cs", "-dscm=wt"};

/* Options known to touch files, with the reason given. */
static const struct refused {
    const char *prefix;
    const char *why;
} refused[] = {
    {"-time", "it writes timing to a file"},
    {"--time", "it writes timing to a file"},
    {"-fdevice-time-trace", "it writes a trace file"},
    {"--fdevice-time-trace", "it writes a trace file"},
    {"-create-pch", "it writes a precompiled header"},
    {"--create-pch", "it writes a precompiled header"},
    {"-use-pch", "it reads a precompiled header"},
    {"--use-pch", "it reads a precompiled header"},
    {"-pch", "it reads and writes precompiled headers"},
    {"--pch", "it reads and writes precompiled headers"},
    {"-o", "the tuner keeps what NVRTC makes in memory"},
    {"--dump", "it writes files"},
    {"-dump", "it writes files"},
};

static int is_digits(const char *s)
{
    return *s && strspn(s, "0123456789") == strlen(s);
}

static int is_diags(const char *s)
{
    return *s && strspn(s, "0123456789,") == strlen(s) && s[0] != ',' &&
           s[strlen(s) - 1] != ',' && !strstr(s, ",,");
}

static int is_ptxas(const char *s)
{
    for (size_t i = 0; i < ARRAY_LEN(ptxas_ok); i++)
        if (strcmp(s, ptxas_ok[i]) == 0)
            return 1;
    return 0;
}

/* Whether the text after an option's name (rest) fits its form. */
static int fits(enum form form, const char *rest)
{
    const char *v = rest[0] == '=' ? rest + 1 : NULL;

    switch (form) {
    case FLAG:
        return *rest == '\0';
    case BOOL:
        return v && (strcmp(v, "true") == 0 || strcmp(v, "false") == 0);
    case NUMBER:
        return v && is_digits(v);
    case STD:
        return v && (strcmp(v, "c++03") == 0 || strcmp(v, "c++11") == 0 ||
                     strcmp(v, "c++14") == 0 || strcmp(v, "c++17") == 0 ||
                     strcmp(v, "c++20") == 0);
    case ON:
        return v && strcmp(v, "on") == 0;
    case DIAGS:
        return v && is_diags(v);
    case MACRO:
        return *rest != '\0' && (*rest != '=' || rest[1] != '\0');
    case HEADER:
        return v && *v;
    case PTXAS:
        return v && is_ptxas(v);
    }
    return 0;
}

/* The entry of allowed[] that o is; NULL when none. The longest name
 * wins, so "-D" does not claim "-default-device". */
static const struct allowed *find(const char *o)
{
    const struct allowed *best = NULL;

    for (size_t i = 0; i < ARRAY_LEN(allowed); i++) {
        size_t n = strlen(allowed[i].name);
        int glued = allowed[i].form == MACRO && n == 2;
        if (strncmp(o, allowed[i].name, n) != 0 ||
            (!glued && o[n] != '\0' && o[n] != '='))
            continue;
        if (!best || n > strlen(best->name))
            best = &allowed[i];
    }
    return best;
}

/* Options the manifest may not set: the tuner sets them itself. */
static const char *reserved_option(const atune__manifest *m, const char *o)
{
    static const char *const own[] = {"-arch", "--gpu-architecture",
                                      "--gpu-name", "-I", "--include-path"};

    for (size_t i = 0; i < ARRAY_LEN(own); i++)
        if (strncmp(o, own[i], strlen(own[i])) == 0)
            return own[i][1] == 'I' || own[i][2] == 'i'
                       ? "use include_dirs for include directories"
                       : "the tuner compiles for the GPU it tunes on";
    if (strncmp(o, "-D", 2) == 0 || strncmp(o, "--define-macro=", 15) == 0) {
        const char *name = o[1] == 'D' ? o + 2 : o + 15;
        if (atune__manifest_param_n(m, name, strcspn(name, "=")) >= 0)
            return "the parameter's macro is set per configuration";
    }
    return NULL;
}

/* Why o may not be passed to NVRTC; NULL when it may. */
static const char *refusal(const atune__manifest *m, const char *o)
{
    const struct allowed *a;
    const char *why = reserved_option(m, o);

    if (why)
        return why;
    for (size_t i = 0; i < ARRAY_LEN(refused); i++) {
        size_t n = strlen(refused[i].prefix);
        if (strncmp(o, refused[i].prefix, n) == 0 &&
            (o[n] == '\0' || o[n] == '=' || o[n] == '-'))
            return refused[i].why;
    }
    if (!(a = find(o)))
        return "not an option autotune passes on to NVRTC (the options "
               "allowed are listed in docs/safety.md)";
    if (!fits(a->form, o + strlen(a->name)))
        switch (a->form) {
        case FLAG:
            return "takes no value";
        case BOOL:
            return "takes =true or =false";
        case NUMBER:
            return "takes =N";
        case STD:
            return "takes =c++03, =c++11, =c++14, =c++17 or =c++20";
        case ON:
            return "takes =on";
        case DIAGS:
            return "takes =N or =N,N,...";
        case MACRO:
            return "takes a macro";
        case HEADER:
            return "takes =HEADER";
        case PTXAS:
            return "takes one ptxas option of the list in docs/safety.md "
                   "(-v, -O0..-O3, --warn-on-spills, ...)";
        }
    return NULL;
}

int atune__mf_parse_nvrtc_options(struct loader *ld,
                                  const atune__ini_entry *en)
{
    atune__manifest *m = ld->m;
    const char *s = en->value, *why;

    m->nvrtc_opts_line = en->line;
    while (*s) {
        size_t len = strcspn(s, " \t");
        char *opt;
        if (len == 0) {
            s++;
            continue;
        }
        if (m->nnvrtc_opts == ATUNE__MAX_NVRTC_OPTS)
            return atune__mf_bad(ld, en->line, "more than %d nvrtc_options",
                                 ATUNE__MAX_NVRTC_OPTS);
        if (!(opt = atune__strndup(s, len)))
            return atune__mf_oom(ld);
        m->nnvrtc_opts++;
        m->nvrtc_opts[m->nnvrtc_opts - 1] = opt;
        if (opt[0] != '-')
            return atune__mf_bad(ld, en->line,
                                 "nvrtc_options: '%s' is not an option "
                                 "(options start with '-')",
                                 opt);
        if ((why = refusal(m, opt)) != NULL)
            return atune__mf_bad(ld, en->line, "nvrtc_options: '%s': %s", opt,
                                 why);
        s += len;
    }
    return 0;
}

const char *atune__mf_pre_include(const char *opt)
{
    if (strncmp(opt, "-include=", 9) == 0)
        return opt + 9;
    if (strncmp(opt, "--pre-include=", 14) == 0)
        return opt + 14;
    return NULL;
}
