/* manifest.h -- a kernel template: NAME.cu plus its NAME.ini manifest.
 * The format is specified in docs/manifest.md. */
#ifndef ATUNE_MANIFEST_H
#define ATUNE_MANIFEST_H

#include <stddef.h>
#include <stdint.h>

#include "base/util.h"
#include "template/expr.h"

#define ATUNE__MAX_PARAMS 16
#define ATUNE__MAX_VALUES 256 /* candidate values of one parameter */
#define ATUNE__MAX_SIZES 64   /* sizes of one template, ladders expanded */
#define ATUNE__MAX_SIZE_VARS 4
#define ATUNE__MAX_CONSTRAINTS 16
#define ATUNE__MAX_MACROS 8 /* [macros]: -D values computed from parameters */
#define ATUNE__MAX_ARGS 16
#define ATUNE__MAX_CONSTANTS 8
#define ATUNE__MAX_INCLUDE_DIRS 8
#define ATUNE__MAX_NVRTC_OPTS 16
#define ATUNE__MAX_HEADERS 256 /* user headers hashed into the template */
#define ATUNE__ENTRY_MAX 256   /* a kernel or reference name expression */
#define ATUNE__MAX_VERIFY 4    /* different verify kernels of one template */
#define ATUNE__MAX_STEPS 8     /* kernels of one launch sequence */

typedef enum atune__type {
    ATUNE__CHAR,
    ATUNE__INT,
    ATUNE__UINT,
    ATUNE__LONG,
    ATUNE__ULONG,
    ATUNE__FLOAT,
    ATUNE__DOUBLE,
    ATUNE__HALF,  /* __half: IEEE binary16, 2 bytes */
    ATUNE__BF16,  /* __nv_bfloat16: 8-bit exponent, 7-bit mantissa */
    ATUNE__BYTES  /* scalars only: raw bytes passed by value (a struct) */
} atune__type;

#define ATUNE__NBUFTYPES 9 /* the element types of buffers: up to BF16 */
#define ATUNE__MAX_RAW 4096 /* bytes of a raw scalar (kernel parameters) */

typedef enum atune__role {
    ATUNE__SCALAR, /* not a buffer: passed by value */
    ATUNE__INPUT,  /* filled once from the seeded generator */
    ATUNE__OUTPUT, /* poisoned before verification, compared */
    ATUNE__INOUT,  /* restored before every launch, compared */
    ATUNE__ACCUM,  /* zeroed before every launch, compared */
    ATUNE__SCRATCH /* poisoned before verification, never compared */
} atune__role;

enum { ATUNE__COMPILER_AUTO, ATUNE__COMPILER_NVRTC, ATUNE__COMPILER_NVCC };

/* How an input or inout buffer is filled (", fill = ..."). */
typedef enum atune__fill_kind {
    ATUNE__FILL_RANDOM,  /* default: small non-zero values of either sign */
    ATUNE__FILL_RANGE,   /* range(LO, HI): integers, uniform, inclusive */
    ATUNE__FILL_UNIFORM, /* uniform(LO, HI): reals, uniform */
    ATUNE__FILL_BITS,    /* bits(B): integers, the low B bits random */
    ATUNE__FILL_CONST,   /* a constant */
    ATUNE__FILL_IOTA,    /* element i is i */
    ATUNE__FILL_FILE     /* file(PATH): raw elements or .npy */
} atune__fill_kind;

typedef struct atune__fill {
    atune__fill_kind kind;
    atune__expr *lo, *hi; /* range; an integer constant (lo) */
    double rlo, rhi;      /* uniform; a real constant written with '.' or
                             'e' (rlo, has_real) */
    int has_real;
    int bits;
    char *path; /* file(PATH), relative to the manifest's directory */
} atune__fill;

typedef enum atune__metric { ATUNE__GBS, ATUNE__GFLOPS } atune__metric;

/* sizeof the C type on the device (char 1, int/uint/float 4, long/ulong/
 * double 8: CUDA's long is 64-bit on Linux). */
size_t atune__type_size(atune__type t);
/* float, double, half, bf16: compared by the tolerance rule. */
int atune__type_is_real(atune__type t);
const char *atune__type_name(atune__type t);
/* Whether v fits the C type a scalar argument is passed as. */
int atune__scalar_fits(atune__type t, int64_t v);
const char *atune__role_name(atune__role r);
/* Whether a buffer of role r is compared with the reference's result. */
int atune__role_compared(atune__role r);

typedef struct atune__param {
    char name[ATUNE__NAME_MAX]; /* a C identifier (also a -D macro) */
    int nvalues;
    int64_t values[ATUNE__MAX_VALUES]; /* values[0] is the default */
    int line;
    /* 1: passed to NVRTC as -DNAME=VALUE (param_macros is yes, not listed
     * in not_macros, and the .cu or one of its own headers names it). 0:
     * the kernel sees it only through its name expression, or only
     * [launch] does; configurations that differ only in it share one
     * module (manifest_macros.c). */
    int macro;
    int named;   /* the .cu or one of its own headers names it */
    int in_name; /* the kernel's or the reference's name expression does */
    /* 1: it has several values, yet it is no macro and nothing else reads
     * it (no name expression, no expression of [launch], [constraints],
     * [args], [constants], [macros] or block_cost): tuning it only
     * multiplies the space, and `check` refuses it (a misspelt knob). A
     * stub source of recorded journals (tune --simulate) may leave every
     * knob unread, so loading does not. near: a name of the source one
     * edit from it (a conditional directive's first), "" for none;
     * near_line: its line in the .cu, 0 when in a header. */
    int unread;
    char near[ATUNE__NAME_MAX];
    int near_line;
} atune__param;

typedef struct atune__size {
    char name[ATUNE__NAME_MAX]; /* "large" */
    int nvars;
    char var[ATUNE__MAX_SIZE_VARS][ATUNE__NAME_MAX]; /* "m", "n", "k" */
    int64_t value[ATUNE__MAX_SIZE_VARS];
    int line;
    int ladder; /* 1: a point of a ladder ("ladder_4096"), 0: named */
} atune__size;

typedef struct atune__named_expr {
    char name[ATUNE__NAME_MAX];
    atune__expr *expr;
    int line;
} atune__named_expr;

/* One kernel parameter ([args]) or __constant__ symbol ([constants]). */
typedef struct atune__arg {
    char name[ATUNE__NAME_MAX];
    atune__type type;
    atune__role role;   /* ATUNE__SCALAR for scalars */
    atune__expr *count; /* buffers: element count */
    int lanes;          /* components of a vector element type (float4:
                           4); 1 for others. count is in elements, fills
                           and compares go by component */
    atune__expr *value; /* scalars: the value (int64 expression) */
    unsigned char *raw; /* bytes scalars: raw_len bytes passed by value */
    size_t raw_len;
    double fvalue;      /* scalars of float/double type: the value when
                           written as a literal with '.' or 'e'
                           ("float 2.5"); has_fvalue tells */
    int has_fvalue;
    /* Compared buffers, ", compare = LO..HI": the elements compared,
     * inclusive (NULL: the whole buffer); size variables and device
     * attributes only, evaluated per size. */
    atune__expr *cmp_lo, *cmp_hi;
    /* Integer buffers, ", mismatches = N" or "P%": how many compared
     * elements may differ from the reference (0 by default). */
    uint64_t mismatch_count;
    double mismatch_pct; /* > 0: a percentage of the compared elements */
    atune__fill fill;    /* input and inout buffers, constants */
    /* Compared buffers, ", verify = NAME": a kernel of the reference's
     * source that compares this buffer instead of the built-in rule
     * (docs/manifest.md, "A verification kernel"); "" for none. */
    char verify[ATUNE__ENTRY_MAX];
    int line;
} atune__arg;

/* Bytes of one element of buffer a: its type's size times its lanes. */
size_t atune__arg_elem_size(const atune__arg *a);
/* Components of one element of a: 1 but for vector types. */
static inline size_t atune__arg_lanes(const atune__arg *a)
{
    return a->lanes > 1 ? (size_t)a->lanes : 1;
}

/* A launch shape: 1 to 3 expressions ("x" or "x, y" or "x, y, z"). */
typedef struct atune__dim3 {
    int n;
    atune__expr *e[3];
    int line;
} atune__dim3;

/* One launch of the tuned unit: [launch] (with [template]'s kernel and
 * every [args] entry in order), or one [launch.NAME] section of a launch
 * sequence (manifest_sequence.c). */
typedef struct atune__step {
    char name[ATUNE__NAME_MAX]; /* "partial" of [launch.partial]; "" */
    char kernel[ATUNE__ENTRY_MAX]; /* its C++ name expression */
    int kernel_line;
    atune__dim3 block, grid;
    atune__expr *shared; /* never NULL */
    int shared_line;
    int nargs;
    int arg[ATUNE__MAX_ARGS]; /* indices into args, in the kernel's order */
    int line;                 /* the section's */
} atune__step;

typedef struct atune__manifest {
    char name[ATUNE__NAME_MAX]; /* file stem: "copy" */
    char *ini_path;             /* for messages: "templates/copy.ini" */
    char *cu_path;              /* "templates/copy.cu" */
    char *source;               /* the .cu text, NUL-terminated */
    size_t source_len;
    uint64_t hash; /* FNV-1a of .cu, .ini, then headers_hash: staleness */
    char *dir;     /* the manifest's directory: first on the include path */
    int ninclude_dirs;
    char *include_dirs[ATUNE__MAX_INCLUDE_DIRS]; /* made relative to dir */
    int nnvrtc_opts;
    char *nvrtc_opts[ATUNE__MAX_NVRTC_OPTS]; /* "-use_fast_math" */
    int nvrtc_opts_line;
    /* FNV-1a of the path (relative to its include directory) and contents
     * of every header that the .cu includes, directly or through other
     * headers, and that lies in dir or an include_dirs directory. The
     * toolkit's headers are covered by NVRTC's version in cache keys. */
    uint64_t headers_hash;
    int nheaders;
    /* #include lines (of the .cu or its own headers) the loader could not
     * resolve to a file of its own: the toolkit's (or missing) headers.
     * Where there are some, NVRTC's precompiled headers pay (jit/pch.c). */
    int toolkit_includes;
    /* param_macros: 1 (default) passes every parameter as -DNAME=VALUE;
     * 0 leaves the parameters to the kernel's name expression only, so
     * that no macro can clash with a name in a header (CUB's
     * BLOCK_THREADS, libcu++'s algorithm). */
    int param_macros;
    /* compiler: ATUNE__COMPILER_AUTO (NVRTC, then nvcc -cubin when NVRTC
     * fails on host code), _NVRTC (never nvcc) or _NVCC (nvcc only). */
    int compiler;

    /* C++ name expressions: "copy_tuned", "ns::k", "ns::k<BLOCK, 4>" */
    char kernel[ATUNE__ENTRY_MAX];
    char reference[ATUNE__ENTRY_MAX];
    int kernel_line, reference_line;
    atune__dim3 ref_block, ref_grid;
    /* reference_shared = EXPR: the reference's dynamic shared memory
     * (parameters at their defaults); NULL: 0, or [launch]'s shared for a
     * kernel that is its own reference. */
    atune__expr *ref_shared;
    int ref_shared_line;
    /* reference_source = FILE: the reference (and init and verify
     * kernels) live in this file of the template's directory, not in the
     * .cu; NULL when absent. ref_path is for messages and NVRTC. */
    char *ref_path;
    char *ref_text;
    /* reference_macros = VAR, ...: size variables passed to the
     * reference's compile as -DVAR=VALUE (it is compiled per size). */
    int nref_macros;
    char ref_macros[ATUNE__MAX_SIZE_VARS][ATUNE__NAME_MAX];
    int ref_macros_line;
    /* init = NAME: a kernel of the reference's source run once per size
     * after the fills and before the reference, with the kernel's
     * arguments, launched with init_block and init_grid; "" for none. */
    char init[ATUNE__ENTRY_MAX];
    int init_line;
    atune__dim3 init_block, init_grid;
    /* 1 when the reference is the kernel itself (`reference` omitted, or
     * equal to `kernel`): compiled with the default configuration's
     * macros and launched with its shared memory, it checks every
     * candidate against the kernel's own default configuration. */
    int ref_is_default;
    /* 1 when ref_block and ref_grid are copies of [launch]'s block and
     * grid (reference_block and reference_grid absent, ref_is_default):
     * they read parameters, evaluated at the default configuration. */
    int ref_launch_default;
    atune__metric metric;
    atune__expr *work; /* bytes (GB/s) or flops (GFLOP/s) per launch */
    int work_line;
    /* block_cost: what one block of the first launch costs, in any unit,
     * at a configuration and size (NULL: the work over the blocks); the
     * look-up's model of untuned sizes scales by it (appjit_lookup.c) */
    atune__expr *block_cost;
    int block_cost_line;
    double tolerance; /* 0: exact; else max relative error */

    int nsizes;
    atune__size sizes[ATUNE__MAX_SIZES];
    int nparams;
    atune__param params[ATUNE__MAX_PARAMS];
    int nconstraints;
    atune__named_expr constraints[ATUNE__MAX_CONSTRAINTS];
    /* [macros]: NAME = EXPR of parameters, passed as -DNAME=VALUE. A
     * switch that follows from launch-only parameters (matmul's SPLIT
     * from SPLITK and SKB) is computed, not searched: configurations
     * that differ only in those share a module when the values agree,
     * and no tie between parameters hides them from one-step moves. */
    int nmacros;
    atune__named_expr macros[ATUNE__MAX_MACROS];
    atune__dim3 block, grid;
    atune__expr *shared; /* dynamic shared memory bytes; never NULL */
    int shared_line;
    int nargs;
    atune__arg args[ATUNE__MAX_ARGS];
    int nconstants;
    atune__arg constants[ATUNE__MAX_CONSTANTS]; /* role is INPUT */
    /* The launches of one evaluation, in order: one for [launch], one per
     * [launch.NAME] section of a launch sequence (sequence = 1). kernel,
     * kernel_line, block, grid, shared and shared_line above are copies
     * of steps[0]'s, for what only needs the first. */
    int nsteps;
    atune__step steps[ATUNE__MAX_STEPS];
    int sequence;
    /* A reference that is a sequence of its own: one [reference.NAME]
     * section per launch (0: none; then reference, reference_block and
     * reference_grid say it). reference and reference_line are copies of
     * the first's kernel, ref_block and ref_grid of its launch. Their
     * expressions read no parameter. */
    int nref_steps;
    atune__step ref_steps[ATUNE__MAX_STEPS];
    /* 1 when a name expression (a step's kernel, the reference, a
     * [reference.NAME] kernel) reads a size variable ("k<BLOCK, (n % 1024
     * == 0)>", "k${n}"): its modules are one per (configuration, size),
     * and whoever compiles gives the configuration its size
     * (atune__config_at_size). 0: one module per configuration serves
     * every size. */
    int names_sized;
} atune__manifest;

/* Loads INI text and CUDA source already in memory. name is the template
 * name; ini_path and cu_path are only used in messages. Every defect is
 * reported as "ini_path:LINE: message" with ATUNE__EDATA. */
int atune__manifest_parse(const char *name, const char *ini_path,
                          const char *ini_text, const char *cu_path,
                          const char *cu_text, atune__manifest **out,
                          atune__err *err);

/* Loads DIR/NAME.ini and DIR/NAME.cu. */
int atune__manifest_load(const char *dir, const char *name,
                         atune__manifest **out, atune__err *err);

void atune__manifest_free(atune__manifest *m);

/* The values of m's [macros] for parameter values v (m->nparams of them),
 * into out (m->nmacros). Returns ATUNE__EDATA, with file:line, where an
 * expression fails (division by zero, overflow). */
int atune__macro_values(const atune__manifest *m, const int64_t *v,
                        int64_t *out, atune__err *err);

/* Whether an expression of [launch], [constraints] or [args] reads the
 * parameter called name: then its value changes the launch even where it
 * changes no code. */
int atune__manifest_expr_reads(const atune__manifest *m, const char *name);

/* Whether ch may be part of a C identifier (a letter, a digit, '_'). */
int atune__ident_char(char ch);

/* The index of the parameter, or of the first size's variable, whose name
 * is the len bytes at s; -1 when none. */
int atune__manifest_param_n(const atune__manifest *m, const char *s,
                            size_t len);
int atune__manifest_size_var_n(const atune__manifest *m, const char *s,
                               size_t len);

/* The entry points to compile, in order: every step's kernel (steps[i]'s
 * is names[i]), then, when the reference is not ref_is_default, each
 * [reference.NAME] section's kernel or the reference kernel. Returns how
 * many (at most 2 * ATUNE__MAX_STEPS). */
int atune__manifest_entries(const atune__manifest *m, const char **names);
/* The steps' kernels alone: the first m->nsteps entries. */
int atune__manifest_kernels(const atune__manifest *m, const char **names);

/* The entry points of the reference's module where the reference has no
 * module of its own (refmodule.h): the reference kernel, each
 * [reference.NAME] section's, or every step's for a sequence that is its
 * own reference. The runner compiles them with the default
 * configuration's macros, and check the same, so one cache entry serves
 * both. Returns how many. */
int atune__manifest_ref_names(const atune__manifest *m, const char **names);
/* Function i of that module as atune__entry_args counts it. */
int atune__ref_entry(const atune__manifest *m, int i);

/* Entry i of atune__manifest_entries' order (m->nsteps and after: the
 * reference's kernels, whether or not they are entries there): its name,
 * the manifest line that names it, and the [args] entries it takes in
 * parameter order (arg: at least ATUNE__MAX_ARGS). Returns how many. */
int atune__entry_args(const atune__manifest *m, int i, const char **name,
                      int *line, int *arg);

/* The arguments of entry i (atune__entry_args) against the parameters
 * the compiler gave the kernel, sizes[0..n) in bytes
 * (jit/cubin_params.h): a missing or extra argument, or one of another
 * size, would have the driver read past what it was given. EDATA with
 * the manifest's line. */
int atune__entry_abi_check(const atune__manifest *m, int i,
                           const unsigned *sizes, int n, atune__err *err);

/* Returns the size called name ("large"), or NULL. */
const atune__size *atune__manifest_size(const atune__manifest *m,
                                        const char *name);

/* Writes "n=268435456" or "m=4096,n=4096,k=4096" into buf. */
void atune__size_key(const atune__size *s, char *buf, size_t len);

/* Adds the size's variables to vs. */
int atune__size_vars(const atune__size *s, atune__vars *vs);

/* How many of compared elements of integer buffer a may differ from the
 * reference ("mismatches"; a percentage rounds down). */
uint64_t atune__mismatches_allowed(const atune__arg *a, uint64_t compared);

/* Evaluates an expression of the manifest, prefixing errors with
 * "ini_path:line: ". */
int atune__manifest_eval(const atune__manifest *m, const atune__expr *e,
                         int line, const atune__vars *vs, int64_t *out,
                         atune__err *err);

#endif
