/* jit.h -- NVRTC: one configuration of a template to CUBIN.
 *
 * NVRTC needs no GPU and no driver, so `autotune check` compiles every
 * configuration on a machine without either. */
#ifndef ATUNE_JIT_H
#define ATUNE_JIT_H

#include <stddef.h>

#include "base/util.h"
#include "template/manifest.h"
#include "template/space.h"

/* Every step of a launch sequence, and those of the reference; or the
 * reference's module (refmodule.h): the reference's launches, an init
 * and ATUNE__MAX_VERIFY verify kernels (no more, refmodule.c asserts). */
#define ATUNE__JIT_MAX_NAMES (2 * ATUNE__MAX_STEPS)

typedef struct atune__cubin {
    char *data;
    size_t len;
    char *log; /* NVRTC's log (warnings), NUL-terminated; may be "" */
    /* The symbol of each name expression compiled, in the order asked:
     * what cuModuleGetFunction wants ("_ZN4user9block_sumILi128EEvPKfPf"
     * for "user::block_sum<BLOCK>", the name itself for extern "C"). */
    int nsyms;
    char *sym[ATUNE__JIT_MAX_NAMES];
    int pch; /* ATUNE__PCH_*: a precompiled header created, used, neither */
} atune__cubin;

/* NVRTC's options for one configuration. The first nkey go into the module
 * cache's key: the architecture, the language standard, the manifest's
 * nvrtc_options, then -DNAME=VALUE per parameter in manifest order (none
 * when the manifest says param_macros = no). The rest are include paths
 * (the template's directory, its include_dirs, the toolkit's), which the
 * key replaces by the contents of the headers they hold (m->headers_hash)
 * and NVRTC's version, so that a template moved to another directory keeps
 * its entries. The compile and the key both come from here, so they cannot
 * drift. */
#define ATUNE__JIT_MAX_OPTS                                                    \
    (ATUNE__MAX_PARAMS + ATUNE__MAX_MACROS + ATUNE__MAX_NVRTC_OPTS +          \
     ATUNE__MAX_INCLUDE_DIRS + 8)
typedef struct atune__jit_opts {
    char arch[64];
    char defs[ATUNE__MAX_PARAMS][ATUNE__NAME_MAX + 32];
    char mdefs[ATUNE__MAX_MACROS][ATUNE__NAME_MAX + 32]; /* [macros] */
    char *incs[ATUNE__MAX_INCLUDE_DIRS + 4]; /* "-I..." on the heap */
    int nincs;
    const char *v[ATUNE__JIT_MAX_OPTS];
    int n, nkey;
} atune__jit_opts;

/* Fills o for configuration c of m (the default when c is NULL). Returns
 * ATUNE__EOSERR when out of memory, ATUNE__EDATA when a [macros]
 * expression fails; free o with atune__jit_options_free. */
int atune__jit_options(const atune__manifest *m, const atune__config *c,
                       const char *arch, atune__jit_opts *o, atune__err *err);
void atune__jit_options_free(atune__jit_opts *o);

/* Writes name expression expr (a step's kernel or m->reference) with every
 * parameter of m replaced by its value in c: "user::sum<BLOCK, (T)ALGO>"
 * becomes "user::sum<128, (T)2>"; for a manifest whose names read size
 * variables (m->names_sized), each of them by its value in c's size
 * ("k<(n % 1024 == 0)>", "k${n}"). A name after "::", "." or "->" is a
 * member, not a parameter. -1 when buf is too small, -2 when the name
 * reads a size variable and c has none (c->nsz). */
int atune__jit_name(const atune__manifest *m, const atune__config *c,
                    const char *expr, char *buf, size_t len);

/* Room for one name expression as NVRTC sees it. */
typedef char atune__jit_name_buf[ATUNE__ENTRY_MAX * 2];

/* The nnames (at most ATUNE__JIT_MAX_NAMES) name expressions of names
 * with c's values substituted: text[i] holds names[i] as NVRTC sees it,
 * subst[i] points at it. What both compiling and the module cache's key
 * need: with param_macros = no, only these names tell configurations
 * apart. */
int atune__jit_names(const atune__manifest *m, const atune__config *c,
                     const char *const *names, int nnames,
                     atune__jit_name_buf *text, const char **subst,
                     atune__err *err);

/* The CUDA toolkit's include directory ("/usr/local/cuda/include"), found
 * once: $CUDA_HOME/include, $CUDA_PATH/include, next to the NVRTC library
 * in use, /usr/local/cuda/include; the first holding cuda_runtime.h. Its
 * cccl/ subdirectory (CUDA 13's CUB, Thrust, libcu++) is searched too.
 * NULL when none is found: then only NVRTC's built-in headers work. */
const char *atune__jit_toolkit_include(void);

/* Compiles m's source with -DNAME=VALUE for every parameter of c (or the
 * default configuration when c is NULL) for arch ("sm_90"), and resolves
 * every name expression in names[] (atune__manifest_entries': the steps'
 * kernels and/or m->reference, at most ATUNE__JIT_MAX_NAMES) with c's values substituted into out->sym[]. A
 * compile error is ATUNE__EDATA with "copy.cu: configuration BLOCK_SIZE=..:
 * compile error (NVRTC_ERROR_COMPILATION):\n<NVRTC log>"; when the source
 * compiles but a name does not (no such function, an instantiation that
 * fails), the message starts "copy.ini:LINE: kernel '...'" instead. */
int atune__jit_compile(const atune__manifest *m, const atune__config *c,
                       const char *arch, const char *const *names, int nnames,
                       atune__cubin *out, atune__err *err);

/* Compiles plain source (no parameters): the tuner's own device helpers.
 * define: one more option ("-DNAME"), or NULL. */
int atune__jit_compile_source(const char *source, const char *path,
                              const char *arch, const char *define,
                              atune__cubin *out, atune__err *err);

void atune__cubin_free(atune__cubin *c);



/* c's symbols as one heap buffer, each NUL-terminated, for the module
 * cache and the compile processes; NULL when out of memory. */
char *atune__cubin_syms_pack(const atune__cubin *c, size_t *len);

/* Sets c's symbols from a packed buffer; -1 when it is malformed (more
 * than ATUNE__JIT_MAX_NAMES, or not NUL-terminated) or out of memory. */
int atune__cubin_syms_unpack(atune__cubin *c, const char *buf, size_t len);

/* NVRTC's version as 1000 * major + 10 * minor (13000). */
int atune__jit_version(void);

/* The architectures this NVRTC can target, e.g. "sm_75 ... sm_121". */
int atune__jit_arch_supported(const char *arch);

/* The compute capability of "sm_90", "sm_90a", "sm_100f" (90, 90, 100),
 * or -1 when arch is not of that form. */
int atune__arch_cc(const char *arch);

#endif
