/* test_manifest.c -- the template manifest loader: the real templates,
 * a manifest using every feature, one test per kind of defect (each must
 * name the right line), and template sets from directories and from the
 * built-in table. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include <sys/stat.h>

#include "testutil.h"

#include "jit/jit.h"
#include "template/manifest.h"
#include "template/space.h"
#include "template/templates.h"

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

/* The source tree, from CTest's environment. */
static const char *source_dir(void)
{
    const char *dir = getenv("ATUNE_SOURCE_DIR");

    if (!dir || !*dir)
        fail_msg("ATUNE_SOURCE_DIR is not set: run this test through ctest "
                 "or set it to the repository root");
    return dir;
}

static char *read_text(const char *dir, const char *file)
{
    char path[1024];
    atune__err err = {0};
    char *text = NULL;

    if (snprintf(path, sizeof(path), "%s/%s", dir, file) >= (int)sizeof(path))
        fail_msg("path too long: %s/%s", dir, file);
    if (atune__read_file(path, &text, NULL, &err) != ATUNE__OK)
        fail_msg("%s", err.msg);
    return text;
}

/* A manifest that uses every feature. Messages refer to these lines. */
static const char *const base_lines[] = {
    /*  1 */ "[template]",
    /*  2 */ "kernel = k_tuned",
    /*  3 */ "reference = k_ref",
    /*  4 */ "reference_block = 256",
    /*  5 */ "reference_grid = cdiv(n, 256)",
    /*  6 */ "metric = GB/s",
    /*  7 */ "work = 8 * n",
    /*  8 */ "tolerance = 0.001",
    /*  9 */ "",
    /* 10 */ "[sizes]",
    /* 11 */ "large = n=1 << 20, m=0x10",
    /* 12 */ "small = m=4, n=1000",
    /* 13 */ "",
    /* 14 */ "[params]",
    /* 15 */ "BLOCK = 128, 64, 256",
    /* 16 */ "VW = 1, 2, 4          ; a comment",
    /* 17 */ "NEG = -1, 0x10",
    /* 18 */ "",
    /* 19 */ "[constraints]",
    /* 20 */ "fits = BLOCK * VW <= 512",
    /* 21 */ "",
    /* 22 */ "[launch]",
    /* 23 */ "block = BLOCK, 1",
    /* 24 */ "grid = cdiv(n, VW * BLOCK), m",
    /* 25 */ "shared = BLOCK * 4",
    /* 26 */ "",
    /* 27 */ "[args]",
    /* 28 */ "in = float[n] input",
    /* 29 */ "out = float[n * m] output",
    /* 30 */ "alpha = float 2.5",
    /* 31 */ "n = long n",
    /* 32 */ "vw = int VW",
    /* 33 */ "",
    /* 34 */ "[constants]",
    /* 35 */ "table = int[m] input",
};

static const char base_cu[] =
    "__constant__ int table[16];\n"
    "extern \"C\" __global__ void k_tuned(const float *in, float *out,\n"
    "                                    float alpha, long n, int vw) {}\n"
    "extern \"C\" __global__ void k_ref(const float *in, float *out,\n"
    "                                  float alpha, long n, int vw) {}\n";

/* Lines from..to of the base manifest replaced: the first by text, the
 * others by comments, so that line numbers stay put. text NULL deletes. */
struct edit {
    int from, to;
    const char *text;
};

static char *edited_base(const struct edit *edits, int nedits)
{
    size_t cap = 16;
    char *out;

    for (size_t i = 0; i < ARRAY_LEN(base_lines); i++)
        cap += strlen(base_lines[i]) + 2;
    for (int i = 0; i < nedits; i++)
        cap += edits[i].text ? strlen(edits[i].text) : 0;
    out = calloc(1, cap);
    assert_non_null(out);
    for (int line = 1; line <= (int)ARRAY_LEN(base_lines); line++) {
        const char *text = base_lines[line - 1];
        for (int i = 0; i < nedits; i++) {
            if (line == edits[i].from && edits[i].text)
                text = edits[i].text;
            else if (line >= edits[i].from && line <= edits[i].to)
                text = ";";
        }
        strcat(out, text);
        strcat(out, "\n");
    }
    return out;
}

static int parse_text(const char *ini, atune__manifest **m, atune__err *err)
{
    return atune__manifest_parse("t", "dir/t.ini", ini, "dir/t.cu", base_cu, m,
                                 err);
}

static void test_base(void **state)
{
    char *ini = edited_base(NULL, 0);
    atune__manifest *m = NULL;
    atune__err err = {0};
    char key[64];
    uint64_t hash;

    (void)state;
    if (parse_text(ini, &m, &err) != ATUNE__OK)
        fail_msg("%s", err.msg);
    assert_string_equal(m->name, "t");
    assert_string_equal(m->ini_path, "dir/t.ini");
    assert_string_equal(m->cu_path, "dir/t.cu");
    assert_string_equal(m->source, base_cu);
    assert_int_equal(m->source_len, strlen(base_cu));
    hash = atune__fnv1a(base_cu, strlen(base_cu), ATUNE__FNV_SEED);
    assert_true(m->hash == atune__fnv1a(ini, strlen(ini), hash));

    assert_string_equal(m->kernel, "k_tuned");
    assert_string_equal(m->reference, "k_ref");
    assert_int_equal(m->names_sized, 0);
    assert_int_equal(m->ref_block.n, 1);
    assert_int_equal(m->ref_grid.n, 1);
    assert_string_equal(atune__expr_text(m->ref_grid.e[0]), "cdiv(n, 256)");
    assert_int_equal(m->ref_grid.line, 5);
    assert_int_equal(m->metric, ATUNE__GBS);
    assert_string_equal(atune__expr_text(m->work), "8 * n");
    assert_int_equal(m->work_line, 7);
    assert_true(m->tolerance == 0.001);

    /* Sizes keep the order each was written in. */
    assert_int_equal(m->nsizes, 2);
    assert_string_equal(m->sizes[0].name, "large");
    assert_int_equal(m->sizes[0].line, 11);
    atune__size_key(&m->sizes[0], key, sizeof(key));
    assert_string_equal(key, "n=1048576,m=16");
    atune__size_key(&m->sizes[1], key, sizeof(key));
    assert_string_equal(key, "m=4,n=1000");
    atune__size_key(&m->sizes[1], key, 6); /* truncation stays a string */
    assert_string_equal(key, "m=4");
    assert_ptr_equal(atune__manifest_size(m, "small"), &m->sizes[1]);
    assert_null(atune__manifest_size(m, "medium"));

    assert_int_equal(m->nparams, 3);
    assert_string_equal(m->params[1].name, "VW");
    assert_int_equal(m->params[1].nvalues, 3);
    assert_int_equal(m->params[1].values[2], 4);
    assert_int_equal(m->params[1].line, 16);
    assert_int_equal(m->params[2].values[0], -1);
    assert_int_equal(m->params[2].values[1], 16);

    assert_int_equal(m->nconstraints, 1);
    assert_string_equal(m->constraints[0].name, "fits");
    assert_int_equal(m->constraints[0].line, 20);
    assert_int_equal(m->block.n, 2);
    assert_int_equal(m->grid.n, 2);
    assert_int_equal(m->grid.line, 24);
    assert_string_equal(atune__expr_text(m->shared), "BLOCK * 4");
    assert_int_equal(m->shared_line, 25);

    assert_int_equal(m->nargs, 5);
    assert_string_equal(m->args[0].name, "in");
    assert_int_equal(m->args[0].type, ATUNE__FLOAT);
    assert_int_equal(m->args[0].role, ATUNE__INPUT);
    assert_string_equal(atune__expr_text(m->args[1].count), "n * m");
    assert_int_equal(m->args[1].role, ATUNE__OUTPUT);
    assert_int_equal(m->args[2].role, ATUNE__SCALAR);
    assert_true(m->args[2].has_fvalue);
    assert_true(m->args[2].fvalue == 2.5);
    assert_null(m->args[2].value);
    assert_int_equal(m->args[3].type, ATUNE__LONG);
    assert_false(m->args[3].has_fvalue);
    assert_string_equal(atune__expr_text(m->args[3].value), "n");
    assert_int_equal(m->args[4].line, 32);
    assert_int_equal(m->nconstants, 1);
    assert_string_equal(m->constants[0].name, "table");
    assert_int_equal(m->constants[0].role, ATUNE__INPUT);

    atune__manifest_free(m);
    free(ini);
}

/* [macros]: -D values computed from each configuration's parameters,
 * passed to NVRTC after the parameters (and so in the module's cache key). */
static void test_macros(void **state)
{
    static const struct edit e[] = {
        {21, 21, "[macros]\nWIDE = BLOCK * VW >= 256\nPOS = NEG > 0 ? NEG : 0"}};
    char *ini = edited_base(e, 1);
    atune__manifest *m = NULL;
    atune__err err = {0};
    atune__config c = {0};
    atune__jit_opts o;
    int64_t mv[ATUNE__MAX_MACROS];
    int wide = 0, pos = 0;

    (void)state;
    if (parse_text(ini, &m, &err) != ATUNE__OK)
        fail_msg("%s", err.msg);
    assert_int_equal(m->nmacros, 2);
    assert_string_equal(m->macros[0].name, "WIDE");
    assert_int_equal(m->macros[0].line, 22);
    assert_string_equal(m->macros[1].name, "POS");
    c.v[0] = 128, c.v[1] = 4, c.v[2] = -1;
    assert_int_equal(atune__macro_values(m, c.v, mv, &err), 0);
    assert_int_equal(mv[0], 1);
    assert_int_equal(mv[1], 0);
    c.v[0] = 64, c.v[1] = 1, c.v[2] = 16;
    assert_int_equal(atune__macro_values(m, c.v, mv, &err), 0);
    assert_int_equal(mv[0], 0);
    assert_int_equal(mv[1], 16);
    assert_int_equal(atune__jit_options(m, &c, "sm_90", &o, &err), 0);
    for (int i = 0; i < o.nkey; i++) {
        wide += strcmp(o.v[i], "-DWIDE=0") == 0;
        pos += strcmp(o.v[i], "-DPOS=16") == 0;
    }
    assert_int_equal(wide, 1);
    assert_int_equal(pos, 1);
    atune__jit_options_free(&o);
    atune__manifest_free(m);
    free(ini);
}

/* Parses the base manifest with edits; fails the test on an error. */
static atune__manifest *parse_edited(const struct edit *edits, int n)
{
    char *ini = edited_base(edits, n);
    atune__manifest *m = NULL;
    atune__err err = {0};

    if (parse_text(ini, &m, &err) != ATUNE__OK)
        fail_msg("%s", err.msg);
    free(ini);
    return m;
}

static void assert_dim3_text(const atune__dim3 *d, const char *a,
                             const char *b, int line)
{
    assert_int_equal(d->n, 2);
    assert_string_equal(atune__expr_text(d->e[0]), a);
    assert_string_equal(atune__expr_text(d->e[1]), b);
    assert_int_equal(d->line, line);
}

/* The kernel as its own reference: `reference` omitted or equal to
 * `kernel` checks every candidate against the default configuration,
 * launched as [launch] says unless reference_block/grid are given. */
/* A size variable in a name expression (the kernel's, the reference's,
 * pasted with ${}) makes modules per (configuration, size); a member
 * that happens to be called like one does not. */
static void test_sized_names(void **state)
{
    static const struct {
        int line;
        const char *text;
        int sized;
    } rows[] = {
        {2, "kernel = k_tuned<BLOCK, (n % 1024 == 0)>", 1},
        {2, "kernel = k_tuned<BLOCK, n % 32 ? 1 : 0>", 1},
        {3, "reference = k_ref<m>", 1},
        {2, "kernel = k_tuned<BLOCK, VW == 2 ? 1:n>", 1},
        {2, "kernel = k_tuned<BLOCK, 1 - n>", 1},
        {2, "kernel = k_tuned<BLOCK, ns::n>", 0},
        {2, "kernel = k_tuned<BLOCK, a.n + b::n>", 0},
        {2, "kernel = k_tuned<BLOCK, VW>", 0},
    };

    (void)state;
    for (size_t i = 0; i < ARRAY_LEN(rows); i++) {
        const struct edit e[] = {{rows[i].line, rows[i].line, rows[i].text}};
        char *ini = edited_base(e, 1);
        atune__manifest *m = NULL;
        atune__err err = {0};
        if (parse_text(ini, &m, &err) != ATUNE__OK)
            fail_msg("%s: %s", rows[i].text, err.msg);
        if (m->names_sized != rows[i].sized)
            fail_msg("%s: names_sized %d", rows[i].text, m->names_sized);
        atune__manifest_free(m);
        free(ini);
    }
}

static void test_reference_default(void **state)
{
    static const char dflt[] =
        "the default configuration of k_tuned (BLOCK=128,VW=1,NEG=-1)";
    const struct edit omitted[] = {{3, 5, NULL}};
    const struct edit equal[] = {{3, 5, "reference = k_tuned"}};
    const struct edit own_launch[] = {{3, 3, NULL}};
    atune__manifest *m;
    char text[256];

    (void)state;
    m = parse_edited(NULL, 0);
    assert_int_equal(m->ref_is_default, 0);
    assert_int_equal(m->ref_launch_default, 0);
    atune__reference_str(m, text, sizeof(text));
    assert_string_equal(text, "k_ref");
    atune__manifest_free(m);

    m = parse_edited(omitted, 1);
    assert_string_equal(m->reference, "k_tuned");
    assert_int_equal(m->reference_line, 2);
    assert_int_equal(m->ref_is_default, 1);
    assert_int_equal(m->ref_launch_default, 1);
    assert_dim3_text(&m->ref_block, "BLOCK", "1", 23);
    assert_dim3_text(&m->ref_grid, "cdiv(n, VW * BLOCK)", "m", 24);
    /* Copies, not the same expressions: each is freed once. */
    assert_ptr_not_equal(m->ref_block.e[0], m->block.e[0]);
    atune__reference_str(m, text, sizeof(text));
    assert_string_equal(text, dflt);
    atune__manifest_free(m);

    m = parse_edited(equal, 1);
    assert_string_equal(m->reference, "k_tuned");
    assert_int_equal(m->reference_line, 3);
    assert_int_equal(m->ref_is_default, 1);
    assert_int_equal(m->ref_launch_default, 1);
    assert_dim3_text(&m->ref_grid, "cdiv(n, VW * BLOCK)", "m", 24);
    atune__reference_str(m, text, sizeof(text));
    assert_string_equal(text, dflt);
    atune__manifest_free(m);

    m = parse_edited(own_launch, 1);
    assert_int_equal(m->ref_is_default, 1);
    assert_int_equal(m->ref_launch_default, 0);
    assert_int_equal(m->ref_grid.n, 1);
    assert_string_equal(atune__expr_text(m->ref_grid.e[0]), "cdiv(n, 256)");
    atune__manifest_free(m);
}

/* What the default reference still refuses. */
static void test_reference_default_errors(void **state)
{
    static const struct {
        struct edit e[2];
        const char *msg;
    } c[] = {
        {{{3, 4, NULL}, {0, 0, NULL}},
         "dir/t.ini:1: missing key 'reference_block' in [template]"},
        {{{3, 3, NULL}, {5, 5, NULL}},
         "dir/t.ini:1: missing key 'reference_grid' in [template]"},
        {{{4, 5, NULL}, {0, 0, NULL}},
         "dir/t.ini:1: missing key 'reference_block' in [template]"},
        {{{3, 3, NULL}, {4, 4, "reference_block = BLOCKS"}},
         "dir/t.ini:4: unknown variable 'BLOCKS' in reference_block "
         "'BLOCKS'"},
    };
    atune__manifest *m = NULL;
    atune__devattr dev;
    atune__err err = {0};
    const struct edit invalid[] = {{3, 5, NULL},
                                   {20, 20, "fits = BLOCK * VW >= 512"}};
    char *ini;

    (void)state;
    for (size_t i = 0; i < ARRAY_LEN(c); i++) {
        ini = edited_base(c[i].e, 2);
        assert_int_equal(parse_text(ini, &m, &err), ATUNE__EDATA);
        assert_null(m);
        if (strcmp(err.msg, c[i].msg) != 0)
            fail_msg("case %zu: got \"%s\", want \"%s\"", i, err.msg,
                     c[i].msg);
        free(ini);
    }
    /* A default configuration that is not valid is no reference. */
    m = parse_edited(invalid, 2);
    atune__devattr_default(&dev);
    assert_int_equal(atune__space_validate(m, &dev, NULL, NULL, &err),
                     ATUNE__EDATA);
    assert_string_equal(
        err.msg, "dir/t.ini:2: the reference is the default configuration "
                 "of k_tuned (BLOCK=128,VW=1,NEG=-1), which is not valid: "
                 "constraint 'fits' is false (name a reference kernel, or "
                 "make the first values valid) at size 'large' "
                 "(n=1048576,m=16)");
    atune__manifest_free(m);
}

static void test_optional_defaults(void **state)
{
    static const struct edit e[] = {
        {8, 8, NULL},   /* tolerance */
        {19, 20, NULL}, /* [constraints] */
        {25, 25, NULL}, /* shared */
        {30, 30, "alpha = double n"},
        {34, 35, NULL}, /* [constants] */
    };
    char *ini = edited_base(e, ARRAY_LEN(e));
    atune__manifest *m = NULL;
    atune__err err = {0};
    atune__vars vs = {0};
    int64_t v = -1;

    (void)state;
    if (parse_text(ini, &m, &err) != ATUNE__OK)
        fail_msg("%s", err.msg);
    assert_true(m->tolerance == 0);
    assert_int_equal(m->nconstraints, 0);
    assert_int_equal(m->nconstants, 0);
    assert_non_null(m->shared);
    assert_int_equal(m->shared_line, 22);
    assert_int_equal(
        atune__manifest_eval(m, m->shared, m->shared_line, &vs, &v, &err),
        ATUNE__OK);
    assert_int_equal(v, 0);
    assert_false(m->args[2].has_fvalue);
    assert_non_null(m->args[2].value);

    /* Evaluation errors name file and line. */
    assert_int_equal(
        atune__manifest_eval(m, m->work, m->work_line, &vs, &v, &err),
        ATUNE__EDATA);
    assert_string_equal(err.msg, "dir/t.ini:7: unknown name 'n'");
    atune__manifest_free(m);
    free(ini);
}

struct defect {
    struct edit edit[2];
    const char *where; /* "dir/t.ini:LINE: " */
    const char *what;  /* a phrase of the reason */
};

/* One defect per entry: kept as a table. */
/* clang-format off */
static const struct defect defects[] = {
    /* [macros]: computed from the parameters only, under a name of their own */
    {{{21, 21, "[macros]\nX = BLOCK * n"}}, "dir/t.ini:22: ",
     "macro 'X' uses 'n': a macro is computed from the parameters only"},
    {{{21, 21, "[macros]\nVW = 1"}}, "dir/t.ini:22: ",
     "macro 'VW' has the name of a parameter"},
    {{{21, 21, "[macros]\nsm_count = 1"}}, "dir/t.ini:22: ",
     "macro 'sm_count' has the name of"},
    {{{21, 21, "[macros]\nX = 1\nX = 2"}}, "dir/t.ini:23: ",
     "duplicate key 'X' in [macros] (first at line 22)"},
    {{{21, 21, "[macros]\nX = BLOCK +"}}, "dir/t.ini:22: ",
     "expected an operand in 'BLOCK +'"},
    {{{34, 34, "[constant]"}}, "dir/t.ini:34: ", "unknown section [constant]"},
    {{{10, 10, "[params]"}}, "dir/t.ini:14: ",
     "duplicate section [params] (first at line 10)"},
    {{{1, 1, "x = 1"}}, "dir/t.ini:1: ", "entry 'x' before any section"},
    {{{1, 8, NULL}}, "dir/t.ini:1: ", "missing section [template]"},
    {{{22, 25, NULL}}, "dir/t.ini:1: ", "missing section [launch]"},
    {{{2, 2, NULL}}, "dir/t.ini:1: ", "missing key 'kernel' in [template]"},
    {{{6, 6, NULL}}, "dir/t.ini:1: ", "missing key 'metric' in [template]"},
    {{{7, 7, NULL}}, "dir/t.ini:1: ", "missing key 'work' in [template]"},
    {{{4, 4, NULL}}, "dir/t.ini:1: ",
     "missing key 'reference_block' in [template]"},
    {{{3, 3, "refrence = k_ref"}}, "dir/t.ini:3: ",
     "unknown key 'refrence' in [template]"},
    {{{2, 2, "kernel = k_nope"}}, "dir/t.ini:2: ",
     "kernel 'k_nope' not found in t.cu"},
    {{{2, 2, "kernel = k_tune"}}, "dir/t.ini:2: ", /* a prefix is no match */
     "kernel 'k_tune' not found in t.cu"},
    {{{3, 3, "reference = k-ref"}}, "dir/t.ini:3: ",
     "reference 'k-ref' is not a C++ function name"},
    {{{2, 2, "kernel = k_tuned;"}}, "dir/t.ini:2: ",
     "kernel 'k_tuned;': ';' cannot be part of a C++ name expression"},
    {{{2, 2, "kernel = k_tuned<BLOCK"}}, "dir/t.ini:2: ",
     "kernel 'k_tuned<BLOCK' is not a C++ function name"},
    {{{2, 2, "kernel = ns::k_tuned)<BLOCK>("}}, "dir/t.ini:2: ",
     "is not a C++ function name"},
    {{{2, 2, "kernel = ns::k_nope<BLOCK, (T)VW>"}}, "dir/t.ini:2: ",
     "kernel 'k_nope' not found in t.cu"},
    {{{8, 8, "include_dirs = inc, nope"}}, "dir/t.ini:8: ",
     "include directory 'inc' (inc) is not a directory"},
    {{{8, 8, "include_dirs = a,,b"}}, "dir/t.ini:8: ",
     "include_dirs must be 1 to 8 comma-separated directories"},
    {{{8, 8, "nvrtc_options = -use_fast_math fast"}}, "dir/t.ini:8: ",
     "nvrtc_options: 'fast' is not an option"},
    {{{8, 8, "nvrtc_options = -arch=sm_50"}}, "dir/t.ini:8: ",
     "nvrtc_options: '-arch=sm_50': the tuner compiles for the GPU"},
    {{{8, 8, "nvrtc_options = -I/usr/include"}}, "dir/t.ini:8: ",
     "use include_dirs"},
    /* The allow-list (issue 30): nothing that touches files, no option
     * it does not know, values of the form each takes. */
    {{{8, 8, "nvrtc_options = --time=/tmp/x"}}, "dir/t.ini:8: ",
     "nvrtc_options: '--time=/tmp/x': it writes timing to a file"},
    {{{8, 8, "nvrtc_options = -time=x"}}, "dir/t.ini:8: ",
     "'-time=x': it writes timing to a file"},
    {{{8, 8, "nvrtc_options = --fdevice-time-trace=t.json"}}, "dir/t.ini:8: ",
     "'--fdevice-time-trace=t.json': it writes a trace file"},
    {{{8, 8, "nvrtc_options = --create-pch=x.pch"}}, "dir/t.ini:8: ",
     "it writes a precompiled header"},
    {{{8, 8, "nvrtc_options = --use-pch=x.pch"}}, "dir/t.ini:8: ",
     "it reads a precompiled header"},
    {{{8, 8, "nvrtc_options = --pch"}}, "dir/t.ini:8: ",
     "it reads and writes precompiled headers"},
    {{{8, 8, "nvrtc_options = -o"}}, "dir/t.ini:8: ", "'-o': the tuner keeps"},
    {{{8, 8, "nvrtc_options = --dump-ptx"}}, "dir/t.ini:8: ",
     "'--dump-ptx': it writes files"},
    {{{8, 8, "nvrtc_options = -Xptxas=-v,--output-file=x"}}, "dir/t.ini:8: ",
     "'-Xptxas=-v,--output-file=x': takes one ptxas option of the list"},
    {{{8, 8, "nvrtc_options = --ptxas-options=-v,-O3"}}, "dir/t.ini:8: ",
     "takes one ptxas option"},
    {{{8, 8, "nvrtc_options = -dopt=off"}}, "dir/t.ini:8: ",
     "'-dopt=off': takes =on"},
    {{{8, 8, "nvrtc_options = -std=gnu++17"}}, "dir/t.ini:8: ",
     "'-std=gnu++17': takes =c++03, =c++11, =c++14, =c++17 or =c++20"},
    {{{8, 8, "nvrtc_options = -ftz"}}, "dir/t.ini:8: ",
     "'-ftz': takes =true or =false"},
    {{{8, 8, "nvrtc_options = -lineinfo=yes"}}, "dir/t.ini:8: ",
     "'-lineinfo=yes': takes no value"},
    {{{8, 8, "nvrtc_options = --maxrregcount=-1"}}, "dir/t.ini:8: ",
     "takes =N"},
    {{{8, 8, "nvrtc_options = --no-such-option"}}, "dir/t.ini:8: ",
     "'--no-such-option': not an option autotune passes on to NVRTC"},
    {{{8, 8, "nvrtc_options = -D"}}, "dir/t.ini:8: ", "'-D': takes a macro"},
    {{{8, 8, "nvrtc_options = --define-macro=VW=2"}}, "dir/t.ini:8: ",
     "the parameter's macro is set per configuration"},
    {{{8, 8, "nvrtc_options = -DVW=2"}}, "dir/t.ini:8: ",
     "'-DVW=2': the parameter's macro is set per configuration"},
    {{{5, 5, "reference_grid = cdiv(n, BLOCKS)"}}, "dir/t.ini:5: ",
     "unknown variable 'BLOCKS' in reference_grid"},
    /* Element types: half, bf16, vectors, raw bytes. */
    {{{30, 30, "alpha = half 1"}}, "dir/t.ini:30: ",
     "scalar 'alpha' of type half: pass it as raw bytes"},
    {{{30, 30, "alpha = float4 1"}}, "dir/t.ini:30: ",
     "scalar 'alpha' of type float4: pass it as raw bytes"},
    {{{29, 29, "out = float5[n] output"}}, "dir/t.ini:29: ",
     "unknown type 'float5' of 'out'"},
    {{{29, 29, "out = int22[n] output"}}, "dir/t.ini:29: ",
     "unknown type 'int22' of 'out'"},
    {{{29, 29, "out = bytes2[n] output"}}, "dir/t.ini:29: ",
     "unknown type 'bytes2' of 'out'"},
    {{{28, 28, "in = half[n] input, fill = range(0, 3)"}}, "dir/t.ini:28: ",
     "range() fills integers; reals use uniform(LO, HI)"},
    {{{28, 28, "in = bf16[n] input, fill = bits(16)"}}, "dir/t.ini:28: ",
     "bits(B) fills integers"},
    {{{29, 29, "out = half[n] output, mismatches = 1"}}, "dir/t.ini:29: ",
     "'mismatches' of half buffer 'out': real buffers"},
    {{{30, 30, "alpha = bytes[0] hex:"}}, "dir/t.ini:30: ",
     "'alpha' = bytes[N] hex:HEX or bytes[N] file:PATH, N a number of bytes "
     "from 1 to 4096"},
    {{{30, 30, "alpha = bytes[4097] hex:00"}}, "dir/t.ini:30: ",
     "from 1 to 4096"},
    {{{30, 30, "alpha = bytes 00"}}, "dir/t.ini:30: ", "bytes[N] hex:HEX"},
    {{{30, 30, "alpha = bytes[2] hex:001"}}, "dir/t.ini:30: ",
     "bytes '001' of 'alpha': want 4 hex digits"},
    {{{30, 30, "alpha = bytes[2] hex:00112"}}, "dir/t.ini:30: ",
     "more than 4 hex digits"},
    {{{30, 30, "alpha = bytes[2] hex:00x1"}}, "dir/t.ini:30: ",
     "want 4 hex digits"},
    {{{30, 30, "alpha = bytes[2] 0011"}}, "dir/t.ini:30: ",
     "the value is hex:HEX or file:PATH"},
    {{{30, 30, "alpha = bytes[2] file:p.bin"}}, "dir/t.ini:30: ",
     "bytes file: a built-in template has no directory"},
    {{{35, 35, "table = bytes[4] hex:00000000"}}, "dir/t.ini:35: ",
     "constant 'table' must be TYPE[COUNT] input"},
    /* The reference's module: its source, macros, init and verify. */
    {{{9, 9, "reference_source = r.cu"}}, "dir/t.ini:9: ",
     "a built-in template has no directory to read 'r.cu' from"},
    {{{3, 3, NULL}, {9, 9, "reference_source = r.cu"}}, "dir/t.ini:9: ",
     "reference_source 'r.cu' without reference"},
    {{{9, 9, "reference_shared = 4 * BLOCKS"}}, "dir/t.ini:9: ",
     "unknown variable 'BLOCKS' in reference_shared '4 * BLOCKS'"},
    {{{3, 5, NULL}, {9, 9, "reference_shared = 4"}}, "dir/t.ini:9: ",
     "reference_shared without reference"},
    {{{9, 9, "reference_macros = BLOCK"}}, "dir/t.ini:9: ",
     "reference_macros: 'BLOCK' is not a size variable of [sizes]"},
    {{{9, 9, "reference_macros = n, n"}}, "dir/t.ini:9: ",
     "reference_macros names 'n' twice"},
    {{{9, 9, "reference_macros = n, m, n, m, n"}}, "dir/t.ini:9: ",
     "reference_macros must be 1 to 4"},
    {{{9, 9, "init = k_ref"}}, "dir/t.ini:9: ",
     "init 'k_ref' needs init_block and init_grid"},
    {{{9, 9, "init = k_nope"}}, "dir/t.ini:9: ",
     "init 'k_nope' not found in t.cu"},
    {{{9, 9, "init_grid = 1"}}, "dir/t.ini:9: ",
     "init_grid without init = NAME"},
    {{{8, 8, "init = k_ref"}, {9, 9, "init_block = 1"}}, "dir/t.ini:8: ",
     "needs init_block and init_grid"},
    {{{28, 28, "in = float[n] input, verify = k_ref"}}, "dir/t.ini:28: ",
     "'verify' of input buffer 'in': only output, inout and accum"},
    {{{29, 29, "out = float[n * m] output, verify = k_nope"}},
     "dir/t.ini:29: ", "verify 'k_nope' not found in t.cu"},
    {{{29, 29, "out = float[n * m] output, verify = k ref"}},
     "dir/t.ini:29: ", "verify 'k ref' is not a C++ function name"},
    {{{29, 29, "out = int[n * m] output, verify = k_ref, mismatches = 1"}},
     "dir/t.ini:29: ", "buffer 'out' has both verify and mismatches"},
    {{{6, 6, "metric = GB"}}, "dir/t.ini:6: ",
     "metric 'GB' is neither GB/s nor GFLOP/s"},
    {{{7, 7, "work = 8 * nn"}}, "dir/t.ini:7: ",
     "unknown variable 'nn' in work '8 * nn'"},
    {{{7, 7, "work = 8 * n * VW"}}, "dir/t.ini:7: ",
     "work '8 * n * VW' uses parameter 'VW': the runner computes it once "
     "per size"},
    {{{8, 8, "block_cost = 8 * nn"}}, "dir/t.ini:8: ",
     "unknown variable 'nn' in block_cost '8 * nn'"},
    {{{8, 8, "block_cost = n / (VW"}}, "dir/t.ini:8: ",
     "column 8: expected ')' in 'n / (VW'"},
    {{{8, 8, "tolerance = -0.5"}}, "dir/t.ini:8: ",
     "tolerance '-0.5' is negative"},
    {{{8, 8, "tolerance = 1e-3x"}}, "dir/t.ini:8: ",
     "tolerance '1e-3x' is not a number"},
    {{{8, 8, "tolerance = 0,5"}}, "dir/t.ini:8: ",
     "tolerance '0,5' is not a number"},
    {{{8, 8, "tolerance = nan"}}, "dir/t.ini:8: ",
     "tolerance 'nan' is not a number"},
    {{{10, 13, "[sizes]"}}, "dir/t.ini:10: ", "[sizes] has no entries"},
    {{{11, 11, "large = n"}}, "dir/t.ini:11: ", "'n' is not VAR=EXPR"},
    {{{11, 11, "large = n=0, m=16"}}, "dir/t.ini:11: ",
     "size variable 'n' must be >= 1, not 0"},
    {{{11, 11, "large = n=N, m=16"}}, "dir/t.ini:11: ",
     "size variable 'n': 'N' must be constant, not use 'N'"},
    {{{11, 11, "large = n=1.5, m=16"}}, "dir/t.ini:11: ",
     "size variable 'n': '1.5' is not an integer expression"},
    {{{11, 11, "large = n=1, m=2, k=3, j=4, i=5"}}, "dir/t.ini:11: ",
     "must be 1 to 4 comma-separated VAR=EXPR"},
    {{{12, 12, "small = n=1000"}}, "dir/t.ini:12: ",
     "size 'small' does not have the same variables as 'large'"},
    {{{12, 12, "small = m=4, k=1000"}}, "dir/t.ini:12: ",
     "does not have the same variables"},
    {{{12, 12, "small = m=4, n=1000, m=5"}}, "dir/t.ini:12: ",
     "size variable 'm' given twice"},
    {{{12, 12, "small = m=4, cc=1"}}, "dir/t.ini:12: ",
     "size variable 'cc' is a device attribute"},
    {{{12, 12, "2small = m=4, n=1"}}, "dir/t.ini:12: ",
     "size name '2small' is not a C identifier"},
    /* ladders */
    {{{12, 12, "small = m=4, n=8..4 pow2"}}, "dir/t.ini:12: ",
     "size variable 'n': empty range 8..4"},
    {{{12, 12, "small = m=4, n=8..4 step *sqrt2"}}, "dir/t.ini:12: ",
     "size variable 'n': empty range 8..4"},
    {{{12, 12, "small = m=0..4 step 2, n=1..3"}}, "dir/t.ini:12: ",
     "size variable 'm': a range from 0"},
    {{{12, 12, "small = m=4, n=0..4 step *sqrt2"}}, "dir/t.ini:12: ",
     "size variable 'n': a range from 0 (sizes are >= 1)"},
    {{{12, 12, "small = m=4, n=1..1<<62 step *sqrt2"}}, "dir/t.ini:12: ",
     "more than 64 sizes"},
    {{{12, 12, "small = m=4, n=1..16 pow2 odd 2"}}, "dir/t.ini:12: ",
     "size variable 'n': text after 'odd'"},
    {{{12, 12, "small = m=4, n=1..16 pow2 odd*0"}}, "dir/t.ini:12: ",
     "size variable 'n': 'odd*K' wants an integer K of 1..1048576"},
    {{{12, 12, "small = m=4, n=1..16 pow2 odd*x"}}, "dir/t.ini:12: ",
     "size variable 'n': 'odd*K' wants an integer K of 1..1048576"},
    {{{12, 12, "small = m=1..4 pow2, n=1..16 pow2"}}, "dir/t.ini:12: ",
     "ranges of 'm' (3 values) and 'n' (5 values) differ in length"},
    {{{12, 12, "small = m=4, n=1..100"}}, "dir/t.ini:12: ",
     "more than 64 sizes"},
    {{{11, 11, "small_2 = n=5, m=4"}, {12, 12, "small = m=4, n=1..4 pow2"}},
     "dir/t.ini:12: ", "size 'small_2' defined twice"},
    {{{12, 12, "small = m=n=4, n=1"}}, "dir/t.ini:12: ",
     "size variable 'n' given twice"},
    {{{12, 12, "small = m=16, n=1<<20"}}, "dir/t.ini:12: ",
     "sizes 'large' and 'small' are the same size"},
    {{{12, 12, "small = m=16, do=4"}}, "dir/t.ini:12: ",
     "size variable 'do' is a reserved word of C++ or CUDA"},
    {{{12, 12, "small = m=16, __n=4"}}, "dir/t.ini:12: ",
     "size variable '__n' is reserved"},
    {{{12, 12, "small = m=4, n=1..4 step *1.5"}}, "dir/t.ini:12: ",
     "size variable 'n': '1.5' is not an integer expression"},
    {{{14, 18, "[params]"}}, "dir/t.ini:14: ", "[params] has no entries"},
    {{{16, 16, "int = 1, 2"}}, "dir/t.ini:16: ",
     "parameter 'int' is a reserved word of C++ or CUDA"},
    {{{16, 16, "blockDim = 1, 2"}}, "dir/t.ini:16: ",
     "parameter 'blockDim' is a reserved word of C++ or CUDA"},
    {{{16, 16, "min = 1, 2"}}, "dir/t.ini:16: ",
     "parameter 'min' is a function of manifest expressions"},
    {{{16, 16, "_Vw = 1, 2"}}, "dir/t.ini:16: ",
     "parameter '_Vw' is reserved"},
    {{{16, 16, "n = 1, 2"}}, "dir/t.ini:16: ",
     "parameter 'n' has the name of a size variable"},
    {{{16, 16, "warp_size = 1, 2"}}, "dir/t.ini:16: ",
     "parameter 'warp_size' has the name of a device attribute"},
    {{{16, 16, "VW = 8..1"}}, "dir/t.ini:16: ",
     "parameter 'VW': empty range 8..1"},
    {{{16, 16, "VW = 1..8 step 0"}}, "dir/t.ini:16: ",
     "parameter 'VW': range step 0 (want 1 or more)"},
    {{{16, 16, "VW = 1..8 step *1"}}, "dir/t.ini:16: ",
     "parameter 'VW': range step *1 (want *2 or more"},
    {{{16, 16, "VW = 3..3 pow2"}}, "dir/t.ini:16: ",
     "parameter 'VW': no power of two in 3..3"},
    {{{16, 16, "VW = 8, 3..3 pow2"}}, "dir/t.ini:16: ",
     "parameter 'VW': no power of two in 3..3"},
    {{{16, 16, "VW = 1..8 step 2 pow2"}}, "dir/t.ini:16: ",
     "'step' or 'pow2', not both"},
    {{{16, 16, "VW = 1..x"}}, "dir/t.ini:16: ",
     "parameter 'VW': 'x' must be constant"},
    {{{2, 2, "kernel = k_${Q}"}}, "dir/t.ini:2: ",
     "'${Q}' in 'k_${Q}' names no parameter and no size variable"},
    {{{2, 2, "kernel = k_${n}"}}, "dir/t.ini:2: ",
     "'k_${n}' with n=1048576 (size large) is 'k_1048576', not found in"},
    {{{16, 16, "VW = 1..4, 4"}}, "dir/t.ini:16: ",
     "duplicate value 4 of parameter 'VW'"},
    {{{16, 16, "VW = 0..1000"}}, "dir/t.ini:16: ",
     "parameter 'VW' has more than 256 values"},
    {{{16, 16, "V-W = 1, 2"}}, "dir/t.ini:16: ",
     "parameter 'V-W' is not a C identifier"},
    {{{16, 16, "2VW = 1, 2"}}, "dir/t.ini:16: ",
     "parameter '2VW' is not a C identifier"},
    {{{16, 16, "VW ="}}, "dir/t.ini:16: ", "parameter 'VW' has no values"},
    {{{16, 16, "VW = 1, , 2"}}, "dir/t.ini:16: ",
     "parameter 'VW' needs 1 to 256 values, none empty"},
    {{{16, 16, "VW = 1, 2, 1"}}, "dir/t.ini:16: ",
     "duplicate value 1 of parameter 'VW'"},
    {{{16, 16, "VW = 1, 2, 3 - 2"}}, "dir/t.ini:16: ",
     "duplicate value 1 of parameter 'VW'"},
    {{{16, 16, "BLOCK = 1"}}, "dir/t.ini:16: ",
     "duplicate key 'BLOCK' in [params] (first at line 15)"},
    {{{17, 17, "NEG = 2.5"}}, "dir/t.ini:17: ",
     "parameter 'NEG': '2.5' is not an integer expression: column 2: "
     "unexpected character '.' in '2.5'"},
    {{{17, 17, "NEG = 1 / 0"}}, "dir/t.ini:17: ",
     "parameter 'NEG': division by zero in '1 / 0'"},
    {{{17, 17, "NEG = BLOCK"}}, "dir/t.ini:17: ",
     "parameter 'NEG': 'BLOCK' must be constant, not use 'BLOCK'"},
    {{{17, 17, "NEG = 1 << 63"}}, "dir/t.ini:17: ",
     "parameter 'NEG': bad shift count 63"},
    {{{17, 17, "NEG = 9223372036854775807 + 1"}}, "dir/t.ini:17: ",
     "parameter 'NEG': overflow in '9223372036854775807 + 1'"},
    {{{11, 12, "large = N=4"}, {17, 17, "N = 1"}}, "dir/t.ini:17: ",
     "parameter 'N' has the name of a size variable"},
    {{{20, 20, "fits = BLOCKS * VW <= 512"}}, "dir/t.ini:20: ",
     "unknown variable 'BLOCKS' in constraint 'BLOCKS * VW <= 512'"},
    {{{20, 20, "1fits = 1"}}, "dir/t.ini:20: ",
     "constraint '1fits' is not a C identifier"},
    {{{20, 20, "fits = BLOCK *"}}, "dir/t.ini:20: ",
     "column 8: expected an operand in 'BLOCK *'"},
    {{{23, 23, NULL}}, "dir/t.ini:22: ", "missing key 'block' in [launch]"},
    {{{23, 23, "block = BLOCK, 1, 1, 1"}}, "dir/t.ini:23: ",
     "'block' must be 1 to 3 comma-separated expressions"},
    {{{24, 24, "grid = cdiv(n, VW * BLOCK"}}, "dir/t.ini:24: ",
     "column 19: expected ')' in 'cdiv(n, VW * BLOCK'"},
    {{{24, 24, "grid = m, cdiv(n, VW * BLOK)"}}, "dir/t.ini:24: ",
     "unknown variable 'BLOK' in grid"},
    {{{25, 25, "shmem = 0"}}, "dir/t.ini:25: ",
     "unknown key 'shmem' in [launch]"},
    {{{25, 25, "shared = smem"}}, "dir/t.ini:25: ",
     "unknown variable 'smem' in shared 'smem'"},
    {{{28, 28, "in = quad[n] input"}}, "dir/t.ini:28: ",
     "unknown type 'quad' of 'in'"},
    {{{28, 28, "in = [n] input"}}, "dir/t.ini:28: ",
     "unknown type '' of 'in'"},
    {{{29, 29, "out = float[n * m] result"}}, "dir/t.ini:29: ",
     "unknown role 'result' of 'out'"},
    {{{29, 29, "out = float[n * m] scalar"}}, "dir/t.ini:29: ",
     "unknown role 'scalar' of 'out'"},
    {{{29, 29, "out = float[n * m]"}}, "dir/t.ini:29: ",
     "buffer 'out' has no role (input, output, inout, accum, scratch)"},
    {{{29, 29, "out = float[n * m], compare = 0"}}, "dir/t.ini:29: ",
     "buffer 'out' has no role (input, output, inout, accum, scratch)"},
    {{{29, 29, "out = float[n * m] output, compare"}}, "dir/t.ini:29: ",
     "option 'compare' of buffer 'out' has no value: compare = VALUE"},
    {{{29, 29, "out = float[n * m] output, comp = 1"}}, "dir/t.ini:29: ",
     "unknown option 'comp' of buffer 'out' (compare, mismatches, fill, "
     "verify)"},
    {{{29, 29, "out = float[n * m] output, 0..1"}}, "dir/t.ini:29: ",
     "unknown option '0..1' of buffer 'out'"},
    {{{29, 29, "out = float[n * m] output,"}}, "dir/t.ini:29: ",
     "buffer 'out': an empty option, or more than 4, after its role"},
    {{{29, 29, "out = float[n * m] output, compare = 0, compare = 1"}},
     "dir/t.ini:29: ", "buffer 'out' has two 'compare' options"},
    {{{29, 29, "out = float[n * m] output, compare = 0..VW"}},
     "dir/t.ini:29: ",
     "compare 'VW' of 'out' uses parameter 'VW': buffers are the same for "
     "every configuration"},
    {{{29, 29, "out = float[n * m] output, compare = nn..n"}},
     "dir/t.ini:29: ", "unknown variable 'nn' in compare 'nn' of 'out'"},
    {{{29, 29, "out = float[n * m] output, compare = 0..n +"}},
     "dir/t.ini:29: ", "column 4: expected an operand in 'n +'"},
    {{{28, 28, "in = float[n] input, compare = 0"}}, "dir/t.ini:28: ",
     "'compare' of input buffer 'in': only output, inout and accum buffers "
     "are compared"},
    {{{29, 29, "out = float[n * m] output, mismatches = 1"}},
     "dir/t.ini:29: ",
     "'mismatches' of float buffer 'out': real buffers are compared with "
     "the template's tolerance"},
    {{{29, 29, "out = int[n * m] scratch, mismatches = 1"}},
     "dir/t.ini:29: ",
     "'mismatches' of scratch buffer 'out': only output, inout and accum"},
    {{{29, 29, "out = int[n * m] output, mismatches = 1.5"}},
     "dir/t.ini:29: ",
     "mismatches '1.5' of 'out' is not a count of elements or a percentage "
     "from 0% to 100% (5, 0.1%)"},
    {{{29, 29, "out = int[n * m] output, mismatches = 101%"}},
     "dir/t.ini:29: ", "mismatches '101%' of 'out' is not a count"},
    {{{29, 29, "out = int[n * m] output, mismatches = -1"}},
     "dir/t.ini:29: ", "mismatches '-1' of 'out' is not a count"},
    {{{29, 29, "out = int[n * m] output, mismatches = 1e3%"}},
     "dir/t.ini:29: ", "mismatches '1e3%' of 'out' is not a count"},
    {{{29, 29, "out = int[n * m] output, mismatches = 99999999999999999999"}},
     "dir/t.ini:29: ", "is not a count"},
    {{{29, 29, "out = float[n * m] output, fill = 1"}}, "dir/t.ini:29: ",
     "'fill' of output buffer 'out': only input and inout buffers are "
     "filled"},
    {{{28, 28, "in = float[n] input, fill = range(0, 1)"}}, "dir/t.ini:28: ",
     "fill 'range(0, 1)' of float buffer 'in': range() fills integers; "
     "reals use uniform(LO, HI)"},
    {{{28, 28, "in = int[n] input, fill = range(0)"}}, "dir/t.ini:28: ",
     "fill 'range(0)' of 'in': range(LO, HI) takes two integers"},
    {{{28, 28, "in = int[n] input, fill = range(0, VW)"}}, "dir/t.ini:28: ",
     "fill 'VW' of 'in' uses parameter 'VW': buffers are the same for every "
     "configuration"},
    {{{28, 28, "in = int[n] input, fill = uniform(0, 1)"}}, "dir/t.ini:28: ",
     "fill 'uniform(0, 1)' of int buffer 'in': uniform(LO, HI) fills reals, "
     "LO < HI numbers"},
    {{{28, 28, "in = float[n] input, fill = uniform(1, 1)"}}, "dir/t.ini:28: ",
     "uniform(LO, HI) fills reals, LO < HI numbers"},
    {{{28, 28, "in = float[n] input, fill = uniform(0, 1e999)"}},
     "dir/t.ini:28: ", "uniform(LO, HI) fills reals, LO < HI numbers"},
    /* An empty piece of the argument list: split_top's pieces were freed
     * and then freed again by the fill's clean-up (fuzz_manifest, CI,
     * 2026-11-26). */
    {{{28, 28, "in = float[n] input, fill = uniform(-)"}}, "dir/t.ini:28: ",
     "uniform(LO, HI) fills reals, LO < HI numbers"},
    {{{28, 28, "in = float[n] input, fill = uniform(1, , 2)"}},
     "dir/t.ini:28: ", "uniform(LO, HI) fills reals, LO < HI numbers"},
    {{{28, 28, "in = uint[n] input, fill = bits(4, )"}}, "dir/t.ini:28: ",
     "bits(B) fills integers, B from 1 to 32"},
    {{{28, 28, "in = uint[n] input, fill = bits(33)"}}, "dir/t.ini:28: ",
     "fill 'bits(33)' of uint buffer 'in': bits(B) fills integers, B from 1 "
     "to 32"},
    {{{28, 28, "in = char[n] input, fill = bits(0)"}}, "dir/t.ini:28: ",
     "bits(B) fills integers, B from 1 to 8"},
    {{{28, 28, "in = double[n] input, fill = bits(8)"}}, "dir/t.ini:28: ",
     "bits(B) fills integers, B from 1 to 64"},
    {{{28, 28, "in = float[n] input, fill = const(1.5, 2)"}}, "dir/t.ini:28: ",
     "fill 'const(1.5, 2)' of 'in': const(X) takes one value"},
    {{{28, 28, "in = float[n] input, fill = 1.5.2"}}, "dir/t.ini:28: ",
     "fill '1.5.2' of 'in' is not a number"},
    {{{28, 28, "in = int[n] input, fill = file()"}}, "dir/t.ini:28: ",
     "fill 'file()' of 'in': file(PATH) takes one path"},
    {{{28, 28, "in = int[n] input, fill = iota + 1"}}, "dir/t.ini:28: ",
     "unknown variable 'iota' in fill 'iota + 1' of 'in'"},
    {{{29, 29, "out = float[n * m] scratch"}}, "dir/t.ini:27: ",
     "[args] has no output, inout or accum buffer"},
    {{{29, 29, "out = float[n * m output"}}, "dir/t.ini:29: ",
     "missing ']' in 'float[n * m output'"},
    {{{29, 29, "out = float[] output"}}, "dir/t.ini:29: ",
     "column 1: expected an operand in ''"},
    {{{29, 29, "out = float[n * VW] output"}}, "dir/t.ini:29: ",
     "buffer count 'n * VW' uses parameter 'VW': buffers are shared"},
    {{{29, 29, "out = float[n * m] input"}}, "dir/t.ini:27: ",
     "[args] has no output, inout or accum buffer"},
    {{{30, 30, "alpha = float"}}, "dir/t.ini:30: ",
     "scalar 'alpha' has no value"},
    {{{30, 30, "alpha = int 2.5"}}, "dir/t.ini:30: ",
     "unexpected character '.'"},
    {{{30, 30, "alpha = float 1e999"}}, "dir/t.ini:30: ",
     "bad literal '1e999'"},
    {{{31, 31, "n = long nn"}}, "dir/t.ini:31: ",
     "unknown variable 'nn' in value 'nn'"},
    {{{31, 31, "n = long n input"}}, "dir/t.ini:31: ",
     "scalar 'n' cannot have role 'input': only buffers (TYPE[COUNT] ROLE) "
     "have roles"},
    {{{31, 31, "n = long (n + 1) accum"}}, "dir/t.ini:31: ",
     "scalar 'n' cannot have role 'accum'"},
    {{{31, 31, "n = long output"}}, "dir/t.ini:31: ",
     "scalar 'n' has role 'output' but no value: a buffer is TYPE[COUNT] "
     "ROLE"},
    {{{31, 31, "n = long n +"}}, "dir/t.ini:31: ",
     "column 4: expected an operand in 'n +'"},
    {{{35, 35, "table = int[m] output"}}, "dir/t.ini:35: ",
     "constant 'table' must be TYPE[COUNT] input"},
    {{{35, 35, "table = int 4"}}, "dir/t.ini:35: ",
     "constant 'table' must be TYPE[COUNT] input"},
    {{{35, 35, "tabel = int[m] input"}}, "dir/t.ini:35: ",
     "constant 'tabel' not found in t.cu"},
    {{{35, 35, "table = int[BLOCK] input"}}, "dir/t.ini:35: ",
     "buffer count 'BLOCK' uses parameter 'BLOCK'"},
    /* inidoc's own refusals come through with their line. */
    {{{20, 20, "fits"}}, "dir/t.ini:20: ", "expected 'key = value'"},
    {{{20, 20, "  fits = 1"}}, "dir/t.ini:20: ", "continues no entry"},
};
/* clang-format on */

static void test_defects(void **state)
{
    (void)state;
    for (size_t i = 0; i < ARRAY_LEN(defects); i++) {
        const struct defect *d = &defects[i];
        int nedits = d->edit[1].from ? 2 : 1;
        char *ini = edited_base(d->edit, nedits);
        atune__manifest *m = (atune__manifest *)ini; /* must become NULL */
        atune__err err = {0};
        int rc = parse_text(ini, &m, &err);
        if (rc != ATUNE__EDATA)
            fail_msg("defect %zu (%s): rc %d, want %d", i, d->what, rc,
                     ATUNE__EDATA);
        assert_null(m);
        if (strncmp(err.msg, d->where, strlen(d->where)) != 0 ||
            !strstr(err.msg, d->what))
            fail_msg("defect %zu: got \"%s\", want \"%s...%s\"", i, err.msg,
                     d->where, d->what);
        free(ini);
    }
}

/* A value a range makes again is skipped, keeping its first place (the
 * default first, repeated inside a range); values given twice on their
 * own stay an error (test_defects). */
static void test_value_repeats(void **state)
{
    static const struct {
        const char *line;
        int n;
        int64_t v[6];
    } cases[] = {
        {"VW = 4, 1..8 pow2", 4, {4, 1, 2, 8}},
        {"VW = 6, 2..10 step 2", 5, {6, 2, 4, 8, 10}},
        {"VW = 2..4, 1..6", 6, {2, 3, 4, 1, 5, 6}},
        {"VW = 8, 1..8 step *2", 4, {8, 1, 2, 4}},
    };

    (void)state;
    for (size_t i = 0; i < ARRAY_LEN(cases); i++) {
        const struct edit e[2] = {{16, 16, cases[i].line}, {20, 20, ";"}};
        char *ini = edited_base(e, 2);
        atune__manifest *m = NULL;
        atune__err err = {0};
        if (parse_text(ini, &m, &err) != ATUNE__OK)
            fail_msg("%s: %s", cases[i].line, err.msg);
        assert_int_equal(m->params[1].nvalues, cases[i].n);
        for (int j = 0; j < cases[i].n; j++)
            if (m->params[1].values[j] != cases[i].v[j])
                fail_msg("%s: value %d is %lld, want %lld", cases[i].line, j,
                         (long long)m->params[1].values[j],
                         (long long)cases[i].v[j]);
        atune__manifest_free(m);
        free(ini);
    }
}

/* A ladder expands into named sizes, in the order written: "step *sqrt2"
 * rounds the odd steps and keeps the even ones exact; tied variables
 * ("m=n=...") share each value; a variable with one value stays fixed
 * (skinny shapes); "odd" makes every point odd, "odd*4" an odd multiple
 * of 4; 64 sizes fit. */
static void test_ladders(void **state)
{
    static const struct {
        const char *line11, *line12;
        int nsizes;
        const char *name[6], *key[6];
    } cases[] = {
        {"lad = n=1<<12..1<<14 step *sqrt2, m=16",
         NULL,
         5,
         {"lad_4096", "lad_5793", "lad_8192", "lad_11585", "lad_16384"},
         {"n=4096,m=16", "n=5793,m=16", "n=8192,m=16", "n=11585,m=16",
          "n=16384,m=16"}},
        {"square = m=n=256..1024 pow2",
         "one = n=7, m=9",
         4,
         {"square_256", "square_512", "square_1024", "one"},
         {"m=256,n=256", "m=512,n=512", "m=1024,n=1024", "n=7,m=9"}},
        {"skinny = m=64, n=100..400 step 100",
         NULL,
         4,
         {"skinny_100", "skinny_200", "skinny_300", "skinny_400"},
         {"m=64,n=100", "m=64,n=200", "m=64,n=300", "m=64,n=400"}},
        {"zip = n=1..4, m=8..64 step *2",
         NULL,
         4,
         {"zip_1", "zip_2", "zip_3", "zip_4"},
         {"n=1,m=8", "n=2,m=16", "n=3,m=32", "n=4,m=64"}},
        {"one = n=1..4 step *sqrt2, m=1",
         NULL,
         4,
         {"one_1", "one_2", "one_3", "one_4"},
         {"n=1,m=1", "n=2,m=1", "n=3,m=1", "n=4,m=1"}},
        {"odd = n=1000..3000 step *sqrt2, m=1",
         NULL,
         4,
         {"odd_1000", "odd_1414", "odd_2000", "odd_2828"},
         {"n=1000,m=1", "n=1414,m=1", "n=2000,m=1", "n=2828,m=1"}},
        /* "odd": every point v | 1, equal neighbours once; never past HI
         * (1025 moves back to 1023) */
        {"unal = n=256..1024 step *sqrt2 odd, m=1",
         NULL,
         5,
         {"unal_257", "unal_363", "unal_513", "unal_725", "unal_1023"},
         {"n=257,m=1", "n=363,m=1", "n=513,m=1", "n=725,m=1", "n=1023,m=1"}},
        {"sq = m=n=1..9 pow2 odd",
         NULL,
         4,
         {"sq_1", "sq_3", "sq_5", "sq_9"},
         {"m=1,n=1", "m=3,n=3", "m=5,n=5", "m=9,n=9"}},
        {"sq = m=n=1..8 pow2 odd",
         NULL,
         4,
         {"sq_1", "sq_3", "sq_5", "sq_7"},
         {"m=1,n=1", "m=3,n=3", "m=5,n=5", "m=7,n=7"}},
        {"al = n=256..1028 step *sqrt2 odd*4, m=1",
         NULL,
         5,
         {"al_260", "al_364", "al_516", "al_724", "al_1028"},
         {"n=260,m=1", "n=364,m=1", "n=516,m=1", "n=724,m=1", "n=1028,m=1"}},
        /* never below LO either: 6 -> 4 moves up to 12 */
        {"lo = n=6..12 step 6 odd*4, m=1",
         "one = n=7, m=9",
         2,
         {"lo_12", "one"},
         {"n=12,m=1", "n=7,m=9"}},
        {"un = n=1..3 odd, m=1",
         NULL,
         2,
         {"un_1", "un_3"},
         {"n=1,m=1", "n=3,m=1"}},
        /* A point that is also a size of its own is that size; a point of
         * two ladders stays in the first. */
        {"lad = n=1<<12..1<<14 step *sqrt2, m=16",
         "one = n=8192, m=16",
         5,
         {"lad_4096", "lad_5793", "lad_11585", "lad_16384", "one"},
         {"n=4096,m=16", "n=5793,m=16", "n=11585,m=16", "n=16384,m=16",
          "n=8192,m=16"}},
        {"a = n=1..4, m=1",
         "b = n=3..6, m=1",
         6,
         {"a_1", "a_2", "a_3", "a_4", "b_5", "b_6"},
         {"n=1,m=1", "n=2,m=1", "n=3,m=1", "n=4,m=1", "n=5,m=1", "n=6,m=1"}},
    };
    char key[64];

    (void)state;
    for (size_t i = 0; i < ARRAY_LEN(cases); i++) {
        char *ini = edited_base(
            (struct edit[]){{11, 11, cases[i].line11},
                            {12, 12, cases[i].line12 ? cases[i].line12 : ";"}},
            2);
        atune__manifest *m = NULL;
        atune__err err = {0};
        if (parse_text(ini, &m, &err) != ATUNE__OK)
            fail_msg("case %zu: %s", i, err.msg);
        assert_int_equal(m->nsizes, cases[i].nsizes);
        for (int s = 0; s < m->nsizes; s++) {
            assert_string_equal(m->sizes[s].name, cases[i].name[s]);
            int second = strcmp(m->sizes[s].name, "one") == 0 ||
                         m->sizes[s].name[0] == 'b';
            assert_int_equal(m->sizes[s].line, second ? 12 : 11);
            atune__size_key(&m->sizes[s], key, sizeof(key));
            assert_string_equal(key, cases[i].key[s]);
        }
        assert_ptr_equal(atune__manifest_size(m, cases[i].name[1]),
                         &m->sizes[1]);
        atune__manifest_free(m);
        free(ini);
    }
}

/* The ladder examples of tests/data/ladder load: copy from 2^12 to 2^29 in
 * steps of sqrt(2), matmul square and skinny. */
static void test_ladder_examples(void **state)
{
    char dir[1024];
    atune__manifest *m = NULL;
    atune__err err = {0};

    (void)state;
    snprintf(dir, sizeof(dir), "%s/tests/data/ladder", source_dir());
    if (atune__manifest_load(dir, "copy", &m, &err) != ATUNE__OK)
        fail_msg("%s", err.msg);
    assert_int_equal(m->nsizes, 35);
    assert_string_equal(m->sizes[0].name, "ladder_4096");
    assert_int_equal(m->sizes[1].value[0], 5793);
    assert_int_equal(m->sizes[34].value[0], 1 << 29);
    atune__manifest_free(m);
    if (atune__manifest_load(dir, "matmul", &m, &err) != ATUNE__OK)
        fail_msg("%s", err.msg);
    assert_int_equal(m->nsizes, 12);
    assert_string_equal(m->sizes[5].name, "square_8192");
    assert_string_equal(m->sizes[6].name, "skinny_256");
    assert_int_equal(m->sizes[6].value[0], 64);
    assert_int_equal(m->sizes[6].value[2], 256);
    atune__manifest_free(m);
}

/* The limit is 64 sizes, ladders expanded: 64 fit, the 65th is refused on
 * its line. */
static void test_size_limit(void **state)
{
    atune__manifest *m = NULL;
    atune__err err = {0};
    char *ini = edited_base((struct edit[]){{11, 12, "a = m=1, n=1..64"}}, 1);

    (void)state;
    if (parse_text(ini, &m, &err) != ATUNE__OK)
        fail_msg("%s", err.msg);
    assert_int_equal(m->nsizes, 64);
    assert_string_equal(m->sizes[63].name, "a_64");
    atune__manifest_free(m);
    free(ini);
    ini = edited_base((struct edit[]){{11, 11, "a = m=1, n=1..63"},
                                      {12, 12, "b = m=1, n=64..65"}},
                      2);
    assert_int_equal(parse_text(ini, &m, &err), ATUNE__EDATA);
    assert_null(m);
    assert_non_null(strstr(err.msg, "dir/t.ini:12: more than 64 sizes"));
    free(ini);
}

/* A line with count items: "P = 0,1,2,..." */
static void test_limits(void **state)
{
    char line[512], text[8192];
    atune__manifest *m = NULL;
    atune__err err = {0};
    char *ini;

    (void)state;
    /* 256 values fit, written over continuation lines; 257 do not. */
    strcpy(text, "VW = 0");
    for (int i = 1; i < 256; i++)
        sprintf(text + strlen(text), i % 32 ? ",%d" : ",\n    %d", i);
    ini = edited_base((struct edit[]){{16, 16, text}}, 1);
    if (parse_text(ini, &m, &err) != ATUNE__OK)
        fail_msg("%s", err.msg);
    assert_int_equal(m->params[1].nvalues, 256);
    assert_int_equal(m->params[1].values[255], 255);
    atune__manifest_free(m);
    free(ini);
    strcat(text, ",256");
    ini = edited_base((struct edit[]){{16, 16, text}}, 1);
    assert_int_equal(parse_text(ini, &m, &err), ATUNE__EDATA);
    assert_non_null(
        strstr(err.msg, "dir/t.ini:16: parameter 'VW' needs 1 to 256 values"));
    free(ini);

    /* 16 parameters fit; the 17th is refused on its line. */
    strcpy(text, "VW = 1, 2, 4");
    for (int i = 4; i <= 17; i++)
        sprintf(text + strlen(text), "\nP%d = 1", i);
    ini = edited_base((struct edit[]){{16, 16, text}}, 1);
    assert_int_equal(parse_text(ini, &m, &err), ATUNE__EDATA);
    assert_non_null(strstr(err.msg, "dir/t.ini:31: more than 16 parameters"));
    free(ini);

    /* A 47-byte name fits; inidoc passes 48 bytes, which we refuse. */
    memset(line, 'A', 48);
    strcpy(line + 48, " = 1");
    ini = edited_base((struct edit[]){{17, 17, line}}, 1);
    assert_int_equal(parse_text(ini, &m, &err), ATUNE__EDATA);
    assert_non_null(strstr(err.msg, "dir/t.ini:17: parameter 'AAAA"));
    assert_non_null(strstr(err.msg, "is longer than 47 bytes"));
    free(ini);
    strcpy(line + 47, " = 1");
    ini = edited_base((struct edit[]){{17, 17, line}}, 1);
    if (parse_text(ini, &m, &err) != ATUNE__OK)
        fail_msg("%s", err.msg);
    atune__manifest_free(m);
    free(ini);
}

static void test_template_name(void **state)
{
    char *ini = edited_base(NULL, 0);
    atune__manifest *m = NULL;
    atune__err err = {0};

    (void)state;
    assert_int_equal(atune__manifest_parse("my kernel", "d/my kernel.ini", ini,
                                           "d/x.cu", base_cu, &m, &err),
                     ATUNE__EDATA);
    assert_null(m);
    assert_non_null(
        strstr(err.msg, "d/my kernel.ini: bad template name 'my kernel'"));
    assert_int_equal(atune__manifest_parse("my-kernel_2", "x.ini", ini, "x.cu",
                                           base_cu, &m, &err),
                     ATUNE__OK);
    assert_string_equal(m->name, "my-kernel_2");
    atune__manifest_free(m);
    free(ini);
}

static void test_copy(void **state)
{
    static const char *const names[] = {"BLOCK_SIZE", "VW", "UNROLL", "GRID",
                                        "EVICT"};
    char dir[1024], *ini, *cu, want[1100];
    atune__manifest *m = NULL;
    atune__err err = {0};
    uint64_t hash;

    (void)state;
    snprintf(dir, sizeof(dir), "%s/templates", source_dir());
    if (atune__manifest_load(dir, "copy", &m, &err) != ATUNE__OK)
        fail_msg("%s", err.msg);
    assert_string_equal(m->name, "copy");
    snprintf(want, sizeof(want), "%s/copy.ini", dir);
    assert_string_equal(m->ini_path, want);
    assert_string_equal(m->kernel, "copy_tuned");
    assert_string_equal(m->reference, "copy_ref");
    assert_int_equal(m->nparams, 5);
    for (int i = 0; i < 5; i++)
        assert_string_equal(m->params[i].name, names[i]);
    assert_int_equal(m->params[0].values[0], 128);
    assert_int_equal(m->params[3].nvalues, 7);
    assert_int_equal(m->params[4].nvalues, 2);
    /* large, small, the powers of two 2^12..2^15 and the ladder
     * 2^16..2^29 step sqrt 2 without large and small */
    assert_int_equal(m->nsizes, 31);
    assert_string_equal(m->sizes[0].name, "large");
    assert_int_equal(m->sizes[0].value[0], 268435456);
    assert_string_equal(m->sizes[2].name, "latency_4096");
    assert_string_equal(m->sizes[5].name, "latency_32768");
    assert_string_equal(m->sizes[6].name, "ladder_65536");
    assert_string_equal(m->sizes[30].name, "ladder_536870912");
    for (int s = 2; s < m->nsizes; s++)
        assert_true(m->sizes[s].value[0] != 268435456 &&
                    m->sizes[s].value[0] != 1048576);
    assert_int_equal(m->nargs, 3);
    assert_int_equal(m->args[1].role, ATUNE__OUTPUT);
    assert_int_equal(m->metric, ATUNE__GBS);
    assert_true(m->tolerance == 0);

    ini = read_text(dir, "copy.ini");
    cu = read_text(dir, "copy.cu");
    hash = atune__fnv1a(cu, strlen(cu), ATUNE__FNV_SEED);
    assert_true(m->hash == atune__fnv1a(ini, strlen(ini), hash));
    free(ini);
    free(cu);
    atune__manifest_free(m);
}

/* ", compare = LO..HI" and ", mismatches = N|P%" after a buffer's role,
 * and the scratch role: parsed, and evaluated per size. */
static void test_buffer_options(void **state)
{
    static const struct edit edits[] = {
        {28, 28, "in = int[n] scratch"},
        {29, 29, "out = int[n * m + 1] output, compare = n * m..n * m, "
                 "mismatches = 2"},
        {30, 30, "part = uint[min(n, 64)] accum, mismatches = 12.5%, "
                 "compare = 1..max(m, 2)"},
        {31, 31, "whole = long[n] inout, compare = n - 1"},
    };
    char *ini = edited_base(edits, (int)ARRAY_LEN(edits));
    atune__manifest *m = NULL;
    atune__err err = {0};
    atune__vars vs = {0};
    int64_t first = -1, n = -1;

    (void)state;
    if (parse_text(ini, &m, &err) != ATUNE__OK)
        fail_msg("%s", err.msg);
    assert_int_equal(m->args[0].role, ATUNE__SCRATCH);
    assert_string_equal(atune__role_name(ATUNE__SCRATCH), "scratch");
    assert_false(atune__role_compared(ATUNE__SCRATCH));
    assert_false(atune__role_compared(ATUNE__INPUT));
    assert_true(atune__role_compared(ATUNE__ACCUM));
    assert_null(m->args[0].cmp_lo);
    assert_int_equal(m->args[1].role, ATUNE__OUTPUT);
    assert_string_equal(atune__expr_text(m->args[1].cmp_lo), "n * m");
    assert_int_equal(m->args[1].mismatch_count, 2);
    assert_true(m->args[2].mismatch_pct == 12.5);

    /* small: m=4, n=1000 */
    assert_int_equal(atune__size_vars(&m->sizes[1], &vs), 0);
    assert_int_equal(atune__buffer_slice(m, &m->args[1], &vs, 4001, &first,
                                         &n, &err), 0);
    assert_int_equal(first, 4000);
    assert_int_equal(n, 1);
    assert_int_equal(atune__buffer_slice(m, &m->args[2], &vs, 64, &first, &n,
                                         &err), 0);
    assert_int_equal(first, 1);
    assert_int_equal(n, 4);
    assert_int_equal(atune__buffer_slice(m, &m->args[3], &vs, 1000, &first,
                                         &n, &err), 0);
    assert_int_equal(first, 999);
    assert_int_equal(n, 1);
    /* no "compare": the whole buffer */
    assert_int_equal(atune__buffer_slice(m, &m->args[0], &vs, 7, &first, &n,
                                         &err), 0);
    assert_int_equal(first, 0);
    assert_int_equal(n, 7);
    /* a slice past the buffer's end at this size */
    assert_int_equal(atune__buffer_slice(m, &m->args[1], &vs, 4000, &first,
                                         &n, &err),
                     ATUNE__EDATA);
    assert_string_equal(err.msg, "dir/t.ini:29: buffer 'out' compares "
                                 "elements 4000..4000 of its 4000 (0..3999)");
    /* a count, or a percentage of the compared elements, rounded down */
    assert_int_equal(atune__mismatches_allowed(&m->args[1], 1), 2);
    assert_int_equal(atune__mismatches_allowed(&m->args[2], 4), 0);
    assert_int_equal(atune__mismatches_allowed(&m->args[2], 8), 1);
    assert_int_equal(atune__mismatches_allowed(&m->args[2], 1000), 125);
    assert_int_equal(atune__mismatches_allowed(&m->args[3], 1000), 0);
    atune__manifest_free(m);
    free(ini);
}

/* ", fill = ..." of input and inout buffers and constants: parsed, and
 * its integer values evaluated (and checked against the type) per size. */
static void test_fills(void **state)
{
    static const struct edit edits[] = {
        {28, 28, "in = float[n] input, fill = uniform(-1, 2.5)"},
        {30, 30, "keys = uint[n] inout, fill = bits(32)"},
        {31, 31, "idx = long[n] input, fill = range(-n, n - 1)"},
        {32, 32, "seq = int[n] input, fill = iota"},
        {33, 33, "c = double[n] input, fill = const(-2.5e-1)"},
        {35, 35, "table = int[m] input, fill = m * 2"},
    };
    char *ini = edited_base(edits, (int)ARRAY_LEN(edits));
    atune__manifest *m = NULL;
    atune__err err = {0};
    atune__vars vs = {0};
    int64_t lo, hi;

    (void)state;
    if (parse_text(ini, &m, &err) != ATUNE__OK)
        fail_msg("%s", err.msg);
    assert_int_equal(m->args[0].fill.kind, ATUNE__FILL_UNIFORM);
    assert_true(m->args[0].fill.rlo == -1 && m->args[0].fill.rhi == 2.5);
    assert_int_equal(m->args[1].fill.kind, ATUNE__FILL_RANDOM);
    assert_int_equal(m->args[2].fill.kind, ATUNE__FILL_BITS);
    assert_int_equal(m->args[2].fill.bits, 32);
    assert_int_equal(m->args[3].fill.kind, ATUNE__FILL_RANGE);
    assert_int_equal(m->args[4].fill.kind, ATUNE__FILL_IOTA);
    assert_int_equal(m->args[5].fill.kind, ATUNE__FILL_CONST);
    assert_true(m->args[5].fill.has_real && m->args[5].fill.rlo == -0.25);
    assert_int_equal(m->constants[0].fill.kind, ATUNE__FILL_CONST);
    assert_false(m->constants[0].fill.has_real);

    /* small: m=4, n=1000 */
    assert_int_equal(atune__size_vars(&m->sizes[1], &vs), 0);
    assert_int_equal(atune__fill_values(m, &m->args[3], &vs, &lo, &hi, &err),
                     0);
    assert_int_equal(lo, -1000);
    assert_int_equal(hi, 999);
    assert_int_equal(
        atune__fill_values(m, &m->constants[0], &vs, &lo, &hi, &err), 0);
    assert_int_equal(lo, 8);
    atune__manifest_free(m);
    free(ini);
}

/* Writes len bytes of a .npy version 1 file: header dict h, then data. */
static void write_npy(const char *path, const char *h, const void *data,
                      size_t len)
{
    FILE *f = fopen(path, "wb");
    size_t hl = strlen(h);
    unsigned char pre[10] = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0,
                             (unsigned char)(hl & 0xff),
                             (unsigned char)(hl >> 8)};
    assert_non_null(f);
    assert_int_equal(fwrite(pre, 1, 10, f), 10);
    assert_int_equal(fwrite(h, 1, hl, f), hl);
    if (len)
        assert_int_equal(fwrite(data, 1, len, f), len);
    fclose(f);
}

/* "fill = file(PATH)": raw or .npy, checked against the buffer's type and
 * count; every defect an error naming the manifest's line and the file. */
static void test_fill_file(void **state)
{
    static const int v[4] = {7, -1, 42, 3};
    static const struct {
        const char *file;
        const char *header; /* NULL: raw, else a .npy header */
        size_t len;         /* data bytes written */
        const char *msg;    /* NULL: loads v */
    } cases[] = {
        {"ok.raw", NULL, 16, NULL},
        {"ok.npy", "{'descr': '<i4', 'fortran_order': False, 'shape': (4,), }",
         16, NULL},
        {"two.npy", "{'descr': '<i4', 'fortran_order': False, 'shape': (2, 2), }",
         16, NULL},
        {"short.raw", NULL, 12,
         "12 bytes of data, the buffer needs 16 (4 int)"},
        {"type.npy", "{'descr': '<f4', 'fortran_order': False, 'shape': (4,), }",
         16, "element type '<f4', the buffer is int ('<i4')"},
        {"count.npy", "{'descr': '<i4', 'fortran_order': False, 'shape': (3,), }",
         12, "3 elements, the buffer has 4"},
        {"big.npy", "{'descr': '<i4', 'fortran_order': False, 'shape': (4,), }",
         12, "12 bytes of data, the buffer needs 16"},
        {"shape.npy", "{'descr': '<i4', 'fortran_order': False, 'shape': x, }",
         16, "bad .npy shape"},
        {"huge.npy",
         "{'descr': '<i4', 'fortran_order': False, 'shape': "
         "(99999999999, 99999999999), }",
         16, "bad .npy shape"},
        {"nodescr.npy", "{'fortran_order': False, 'shape': (4,), }", 16,
         "has no descr, fortran_order or shape"},
        {"fortran.npy", "{'descr': '<i4', 'fortran_order': True, 'shape': (2, 2), }",
         16, "Fortran-ordered arrays are not supported"},
        {"missing.raw", "", 0, "cannot be read as a regular file"},
    };
    char dir[] = "/tmp/atune-fill-XXXXXX";

    (void)state;
    assert_non_null(mkdtemp(dir));
    for (size_t i = 0; i < ARRAY_LEN(cases); i++) {
        char path[128], line[192];
        struct edit e = {28, 28, line};
        atune__manifest *m = NULL;
        atune__err err = {0};
        void *data = NULL;
        char *ini;
        snprintf(path, sizeof(path), "%s/%s", dir, cases[i].file);
        if (!cases[i].header) {
            FILE *f = fopen(path, "wb");
            assert_non_null(f);
            assert_int_equal(fwrite(v, 1, cases[i].len, f), cases[i].len);
            fclose(f);
        } else if (cases[i].header[0]) {
            write_npy(path, cases[i].header, v, cases[i].len);
        }
        snprintf(line, sizeof(line), "in = int[n] input, fill = file(%s)", path);
        ini = edited_base(&e, 1);
        if (parse_text(ini, &m, &err) != ATUNE__OK)
            fail_msg("%s: %s", cases[i].file, err.msg);
        assert_int_equal(m->args[0].fill.kind, ATUNE__FILL_FILE);
        if (!cases[i].msg) {
            assert_int_equal(atune__data_load(m, &m->args[0], 4, &data, &err),
                             0);
            assert_memory_equal(data, v, sizeof(v));
            free(data);
        } else {
            char want[256];
            assert_int_equal(atune__data_load(m, &m->args[0], 4, &data, &err),
                             ATUNE__EDATA);
            assert_null(data);
            snprintf(want, sizeof(want), "dir/t.ini:28: buffer 'in': file '%s': ",
                     path);
            if (strncmp(err.msg, want, strlen(want)) != 0 ||
                !strstr(err.msg, cases[i].msg))
                fail_msg("%s: got '%s', want '%s%s'", cases[i].file, err.msg,
                         want, cases[i].msg);
        }
        unlink(path);
        atune__manifest_free(m);
        free(ini);
    }
    rmdir(dir);
}

/* A fill that is empty or does not fit the type at a size: an error with
 * the line, from the evaluation that check and tune share. */
static void test_fill_values_errors(void **state)
{
    static const struct {
        const char *line;
        const char *msg;
    } cases[] = {
        {"in = int[n] input, fill = range(n, 0)",
         "dir/t.ini:28: buffer 'in' is filled from range(1000, 0), which is "
         "empty"},
        {"in = char[n] input, fill = range(0, n)",
         "dir/t.ini:28: fill of buffer 'in': 1000 does not fit its type char"},
        {"in = uint[n] input, fill = -n",
         "dir/t.ini:28: fill of buffer 'in': -1000 does not fit its type uint"},
        {"in = int[n] input, fill = range(0, (1 << 32) - 1)",
         "does not fit its type int"},
    };

    (void)state;
    for (size_t i = 0; i < ARRAY_LEN(cases); i++) {
        struct edit e = {28, 28, cases[i].line};
        char *ini = edited_base(&e, 1);
        atune__manifest *m = NULL;
        atune__err err = {0};
        atune__vars vs = {0};
        int64_t lo, hi;
        if (parse_text(ini, &m, &err) != ATUNE__OK)
            fail_msg("%s: %s", cases[i].line, err.msg);
        assert_int_equal(atune__size_vars(&m->sizes[1], &vs), 0);
        assert_int_equal(
            atune__fill_values(m, &m->args[0], &vs, &lo, &hi, &err),
            ATUNE__EDATA);
        if (!strstr(err.msg, cases[i].msg))
            fail_msg("%s: got '%s', want '%s'", cases[i].line, err.msg,
                     cases[i].msg);
        atune__manifest_free(m);
        free(ini);
    }
}

/* Entry points and constants must be named in the code itself: a name
 * only in a comment or a string is reported by the manifest (with its
 * line), not by NVRTC (without one). */
static void test_names_in_comments(void **state)
{
    static const char ini[] =
        "[template]\nkernel = k_tuned\nreference = k_ref\n"
        "reference_block = 1\nreference_grid = 1\nmetric = GB/s\n"
        "work = 1\n[sizes]\ns = n=1\n[params]\nP = 1\n[launch]\n"
        "block = 1\ngrid = 1\n[args]\no = int[1] output\n"
        "[constants]\ntable = int[4] input\n";
    static const struct {
        const char *cu;
        const char *msg; /* NULL: loads */
    } cases[] = {
        {"__constant__ int table[4];\n"
         "extern \"C\" __global__ void k_tuned(int *o) {}\n"
         "extern \"C\" __global__ void k_ref(int *o) {}\n",
         NULL},
        {"__constant__ int table[4]; /* k_tuned was here */\n"
         "extern \"C\" __global__ void k_ref(int *o) {}\n",
         "dir/t.ini:2: kernel 'k_tuned' not found in t.cu (only in a comment "
         "or string)"},
        {"__constant__ int table[4];\n"
         "extern \"C\" __global__ void k_tuned(int *o) {}\n"
         "// extern \"C\" __global__ void k_ref(int *o) {}\n",
         "dir/t.ini:3: reference 'k_ref' not found in t.cu (only in a "
         "comment or string)"},
        {"const char *s = \"table\", c = '\\'';\n"
         "extern \"C\" __global__ void k_tuned(int *o) {}\n"
         "extern \"C\" __global__ void k_ref(int *o) {}\n",
         "dir/t.ini:18: constant 'table' not found in t.cu"},
        /* An unterminated comment or literal ends the search, no more. */
        {"extern \"C\" __global__ void k_tuned(int *o) {}\n"
         "extern \"C\" __global__ void k_ref(int *o) {} /* table",
         "dir/t.ini:18: constant 'table' not found in t.cu"},
        {"extern \"C\" __global__ void k_tuned(int *o) {}\n"
         "extern \"C\" __global__ void k_ref(int *o) {} \"table\n"
         "__constant__ int table[4];\n",
         NULL},
    };

    (void)state;
    for (size_t i = 0; i < ARRAY_LEN(cases); i++) {
        atune__manifest *m = NULL;
        atune__err err = {0};
        int rc = atune__manifest_parse("t", "dir/t.ini", ini, "dir/t.cu",
                                       cases[i].cu, &m, &err);
        if (!cases[i].msg) {
            if (rc != ATUNE__OK)
                fail_msg("case %zu: %s", i, err.msg);
            atune__manifest_free(m);
            continue;
        }
        assert_int_equal(rc, ATUNE__EDATA);
        assert_null(m);
        assert_string_equal(err.msg, cases[i].msg);
    }
}

static void test_types(void **state)
{
    (void)state;
    assert_int_equal(atune__type_size(ATUNE__CHAR), 1);
    assert_int_equal(atune__type_size(ATUNE__UINT), 4);
    assert_int_equal(atune__type_size(ATUNE__FLOAT), 4);
    assert_int_equal(atune__type_size(ATUNE__LONG), 8);
    assert_int_equal(atune__type_size(ATUNE__ULONG), 8);
    assert_int_equal(atune__type_size(ATUNE__DOUBLE), 8);
    assert_string_equal(atune__type_name(ATUNE__ULONG), "ulong");
    assert_int_equal(atune__type_size(ATUNE__HALF), 2);
    assert_int_equal(atune__type_size(ATUNE__BF16), 2);
    assert_true(atune__type_is_real(ATUNE__HALF));
    assert_true(atune__type_is_real(ATUNE__BF16));
    assert_false(atune__type_is_real(ATUNE__LONG));
    assert_string_equal(atune__role_name(ATUNE__INOUT), "inout");
    assert_string_equal(atune__role_name(ATUNE__ACCUM), "accum");
}

/* ---- template sets ---------------------------------------------------- */

static void write_file(const char *dir, const char *file, const char *text)
{
    char path[1024];
    FILE *f;

    snprintf(path, sizeof(path), "%s/%s", dir, file);
    f = fopen(path, "w");
    assert_non_null(f);
    assert_true(fputs(text, f) >= 0);
    assert_int_equal(fclose(f), 0);
}

static void remove_file(const char *dir, const char *file)
{
    char path[1024];

    snprintf(path, sizeof(path), "%s/%s", dir, file);
    unlink(path);
}

/* A user's C++ kernel: a name expression with parameters, lower-case
 * knobs, ranges, continuation lines, include_dirs, nvrtc_options, and
 * headers (one beside the .cu, one in an include directory, included
 * from the first) whose contents the template hash covers. */
static const char cpp_ini[] =
    "[template]\n"
    "kernel = user::k<block_size_x, (user::Algo)ALGO>\n"
    "reference = ::user::ref\n"
    "reference_block = 256\n"
    "reference_grid = cdiv(n,\n"
    "                      256)\n"
    "metric = GB/s\n"
    "work = 8 * n\n"
    "include_dirs = inc\n"
    "nvrtc_options = -use_fast_math  -std=c++20\n"
    "[sizes]\n"
    "large = n=1 << 20\n"
    "[params]\n"
    "block_size_x = 32..256 step 32\n"
    "tile = 1..16 pow2, 64\n"
    "ALGO = 0, 1,\n"
    "       2\n"
    "grow = 3..100 step *3\n"
    "[launch]\n"
    "block = block_size_x\n"
    "grid = cdiv(n, block_size_x * tile)\n"
    "[args]\n"
    "in = float[n] input\n"
    "out = float[n] output\n"
    "n = long n\n";

static const char cpp_cu[] =
    "#include \"my.h\"\n"
    "#include <cub/cub.cuh>\n"
    "namespace user {\n"
    "template <int B, Algo A> __global__ void k(const float *in, float *out,"
    " long n) {}\n"
    "__global__ void ref(const float *in, float *out, long n) {}\n"
    "}\n";

static void test_cpp_kernel(void **state)
{
    char dir[] = "/tmp/atune_test_XXXXXX", inc[64], path[128];
    atune__manifest *m = NULL;
    atune__err err = {0};
    uint64_t hash, headers;

    (void)state;
    assert_non_null(mkdtemp(dir));
    snprintf(inc, sizeof(inc), "%s/inc", dir);
    assert_int_equal(mkdir(inc, 0755), 0);
    write_file(dir, "t.ini", cpp_ini);
    write_file(dir, "t.cu", cpp_cu);
    write_file(dir, "my.h", "#include <sub.h>\n");
    write_file(inc, "sub.h", "namespace user { enum Algo { A0, A1, A2 }; }\n");
    if (atune__manifest_load(dir, "t", &m, &err) != ATUNE__OK)
        fail_msg("%s", err.msg);
    assert_string_equal(m->kernel, "user::k<block_size_x, (user::Algo)ALGO>");
    assert_int_equal(m->kernel_line, 2);
    assert_string_equal(m->reference, "::user::ref");
    assert_int_equal(m->reference_line, 3);
    assert_int_equal(m->nparams, 4);
    assert_string_equal(m->params[0].name, "block_size_x");
    assert_int_equal(m->params[0].nvalues, 8);
    assert_int_equal(m->params[0].values[0], 32);
    assert_int_equal(m->params[0].values[7], 256);
    assert_int_equal(m->params[1].nvalues, 6); /* 1 2 4 8 16 64 */
    assert_int_equal(m->params[1].values[4], 16);
    assert_int_equal(m->params[1].values[5], 64);
    assert_int_equal(m->params[2].nvalues, 3);
    assert_int_equal(m->params[3].nvalues, 4); /* 3 9 27 81 */
    assert_int_equal(m->params[3].values[3], 81);
    assert_int_equal(m->nnvrtc_opts, 2);
    assert_string_equal(m->nvrtc_opts[1], "-std=c++20");
    assert_int_equal(m->ninclude_dirs, 1);
    assert_string_equal(m->include_dirs[0], inc);
    assert_string_equal(m->dir, dir);
    /* my.h and, through it, inc/sub.h; cub/ is the toolkit's. */
    assert_int_equal(m->nheaders, 2);
    hash = m->hash;
    headers = m->headers_hash;
    atune__manifest_free(m);

    /* Editing the header that sits in the include directory changes both
     * hashes: profiles go stale, cached modules miss. */
    write_file(inc, "sub.h",
               "namespace user { enum Algo { A0, A1, A2, "
               "A3 }; }\n");
    if (atune__manifest_load(dir, "t", &m, &err) != ATUNE__OK)
        fail_msg("%s", err.msg);
    assert_true(m->hash != hash);
    assert_true(m->headers_hash != headers);
    atune__manifest_free(m);

    /* An include directory that is not there is an error on its line. */
    snprintf(path, sizeof(path), "%s/inc", dir);
    rm_rf(path);
    assert_int_equal(atune__manifest_load(dir, "t", &m, &err), ATUNE__EDATA);
    assert_non_null(strstr(err.msg, "t.ini:9: include directory 'inc'"));
    rm_rf(dir);
}

/* Every option of the allow-list in its documented form is accepted. */
static void test_nvrtc_allowed(void **state)
{
    static const char *const ok[] = {
        "-DFOO=1 -DBAR --define-macro=BAZ=2 -UQUX --undefine-macro=Q2",
        "-std=c++17 --std=c++20 -use_fast_math --use_fast_math",
        "-ftz=true --ftz=false -prec-div=false --prec-sqrt=true -fmad=true",
        "-maxrregcount=64 --maxrregcount=32 -lineinfo --generate-line-info",
        "-extra-device-vectorization -restrict --restrict -default-device",
        "--device-as-default-execution-space -dopt=on --dopt=on -G -w",
        "-Xptxas=-v -Xptxas=-O3 -Xptxas=--warn-on-spills --ptxas-options=-dlcm=cg",
        "-diag-suppress=177,550 --diag-error=20 -err-no --brief-diagnostics=true",
        "-device-int128 --builtin-move-forward=false -no-err-no"};
    char line[512];

    (void)state;
    for (size_t i = 0; i < ARRAY_LEN(ok); i++) {
        struct edit e = {8, 8, line};
        atune__manifest *m;
        snprintf(line, sizeof(line), "nvrtc_options = %s", ok[i]);
        m = parse_edited(&e, 1);
        if (m->nnvrtc_opts <= 2)
            fail_msg("case %zu: %d options", i, m->nnvrtc_opts);
        atune__manifest_free(m);
    }
}

/* Headers that --pre-include names or that '#include MACRO' reaches are
 * part of the template hash and the cache key (issue 30): editing them
 * changes both. A pre-include outside the template's directories, a
 * missing one and a macro whose header cannot be told are refused. */
static void test_hidden_headers(void **state)
{
    char dir[] = "/tmp/atune_test_XXXXXX", out[] = "/tmp/atune_test_XXXXXX";
    char opt[256];
    atune__manifest *m = NULL;
    atune__err err = {0};
    uint64_t hash, headers;

    (void)state;
    assert_non_null(mkdtemp(dir));
    assert_non_null(mkdtemp(out));
    write_file(dir, "t.cu", base_cu);
    write_file(dir, "pre.h", "#define PRE 1\n");
    /* line 8 of the base (its tolerance) makes room for the option */
    {
        const struct edit e = {8, 8, "nvrtc_options = --pre-include=pre.h"};
        char *text = edited_base(&e, 1);
        write_file(dir, "t.ini", text);
        free(text);
    }
    if (atune__manifest_load(dir, "t", &m, &err) != ATUNE__OK)
        fail_msg("%s", err.msg);
    assert_int_equal(m->nheaders, 1);
    hash = m->hash;
    headers = m->headers_hash;
    atune__manifest_free(m);
    write_file(dir, "pre.h", "#define PRE 2\n");
    if (atune__manifest_load(dir, "t", &m, &err) != ATUNE__OK)
        fail_msg("%s", err.msg);
    assert_true(m->hash != hash);
    assert_true(m->headers_hash != headers);
    atune__manifest_free(m);

    /* Outside the template's directories, by path or by '..'; missing. */
    write_file(out, "evil.h", "\n");
    snprintf(opt, sizeof(opt), "nvrtc_options = -include=%s/evil.h", out);
    {
        const struct edit e = {8, 8, opt};
        char *text = edited_base(&e, 1);
        write_file(dir, "t.ini", text);
        free(text);
    }
    assert_int_equal(atune__manifest_load(dir, "t", &m, &err), ATUNE__EDATA);
    assert_non_null(strstr(err.msg, "t.ini:8: nvrtc_options: '-include="));
    assert_non_null(strstr(err.msg, "lies outside the template's directory"));
    snprintf(opt, sizeof(opt), "nvrtc_options = --pre-include=../%s/evil.h",
             strrchr(out, '/') + 1);
    {
        const struct edit e = {8, 8, opt};
        char *text = edited_base(&e, 1);
        write_file(dir, "t.ini", text);
        free(text);
    }
    assert_int_equal(atune__manifest_load(dir, "t", &m, &err), ATUNE__EDATA);
    assert_non_null(strstr(err.msg, "lies outside the template's directory"));
    {
        const struct edit e = {8, 8, "nvrtc_options = --pre-include=nope.h"};
        char *text = edited_base(&e, 1);
        write_file(dir, "t.ini", text);
        free(text);
    }
    assert_int_equal(atune__manifest_load(dir, "t", &m, &err), ATUNE__EDATA);
    assert_non_null(strstr(err.msg, "t.ini:8: nvrtc_options: "
                                    "'--pre-include=nope.h': no such header"));

    /* '#include MACRO': the macro from nvrtc_options, then from the .cu. */
    {
        const struct edit e = {8, 8, "nvrtc_options = -DHDR=\"mac.h\""};
        char *text = edited_base(&e, 1);
        char cu[4096];
        write_file(dir, "t.ini", text);
        free(text);
        snprintf(cu, sizeof(cu), "#include HDR\n%s", base_cu);
        write_file(dir, "t.cu", cu);
    }
    write_file(dir, "mac.h", "#define MAC 1\n");
    if (atune__manifest_load(dir, "t", &m, &err) != ATUNE__OK)
        fail_msg("%s", err.msg);
    assert_int_equal(m->nheaders, 1);
    hash = m->hash;
    atune__manifest_free(m);
    write_file(dir, "mac.h", "#define MAC 2\n");
    if (atune__manifest_load(dir, "t", &m, &err) != ATUNE__OK)
        fail_msg("%s", err.msg);
    assert_true(m->hash != hash);
    atune__manifest_free(m);
    {
        char cu[4096];
        char *text = edited_base(NULL, 0);
        write_file(dir, "t.ini", text);
        free(text);
        snprintf(cu, sizeof(cu), "#define HDR2 <mac.h>\n#include HDR2\n%s",
                 base_cu);
        write_file(dir, "t.cu", cu);
        if (atune__manifest_load(dir, "t", &m, &err) != ATUNE__OK)
            fail_msg("%s", err.msg);
        assert_int_equal(m->nheaders, 1);
        atune__manifest_free(m);
        snprintf(cu, sizeof(cu), "\n#include SOMEWHERE\n%s", base_cu);
        write_file(dir, "t.cu", cu);
    }
    assert_int_equal(atune__manifest_load(dir, "t", &m, &err), ATUNE__EDATA);
    assert_non_null(strstr(err.msg, "t.cu:2: #include SOMEWHERE: the header "
                                    "a macro names must be known"));
    rm_rf(dir);
    rm_rf(out);
}

static void test_template_dirs(void **state)
{
    char dir[] = "/tmp/atune_test_XXXXXX";
    char *ini = edited_base(NULL, 0);
    atune__templates t;
    atune__err err = {0};

    (void)state;
    assert_non_null(mkdtemp(dir));
    assert_int_equal(atune__templates_load(dir, NULL, &t, &err),
                     ATUNE__ENOINPUT);
    assert_non_null(strstr(err.msg, dir));
    assert_int_equal(t.n, 0);

    write_file(dir, "b.cu", base_cu); /* a .cu alone is no template */
    assert_int_equal(atune__templates_load(dir, NULL, &t, &err),
                     ATUNE__ENOINPUT);
    write_file(dir, "b.ini", ini);
    write_file(dir, "a.ini", ini);
    write_file(dir, ".hidden.ini", "garbage");
    assert_int_equal(atune__templates_load(dir, NULL, &t, &err),
                     ATUNE__ENOINPUT);
    assert_non_null(strstr(err.msg, "a.cu"));

    write_file(dir, "a.cu", base_cu);
    if (atune__templates_load(dir, NULL, &t, &err) != ATUNE__OK)
        fail_msg("%s", err.msg);
    assert_int_equal(t.n, 2);
    assert_string_equal(t.m[0]->name, "a"); /* sorted */
    assert_string_equal(t.m[1]->name, "b");
    atune__templates_free(&t);
    assert_int_equal(t.n, 0);
    assert_null(t.m);

    if (atune__templates_load(dir, " b ", &t, &err) != ATUNE__OK)
        fail_msg("%s", err.msg);
    assert_int_equal(t.n, 1);
    assert_string_equal(t.m[0]->name, "b");
    atune__templates_free(&t);

    assert_int_equal(atune__templates_load(dir, "b,c", &t, &err),
                     ATUNE__EUSAGE);
    assert_string_equal(err.msg, "unknown kernel 'c' (have: a, b)");
    assert_int_equal(atune__templates_load(dir, "a,", &t, &err), ATUNE__EUSAGE);
    assert_non_null(strstr(err.msg, "empty kernel name"));

    /* One broken template fails the set, with its file and line. */
    write_file(dir, "a.ini", "[template]\nkernel = k_tuned\n[bogus]\n");
    assert_int_equal(atune__templates_load(dir, NULL, &t, &err), ATUNE__EDATA);
    assert_non_null(strstr(err.msg, "/a.ini:3: unknown section [bogus]"));
    /* ... but not a selection without it. */
    assert_int_equal(atune__templates_load(dir, "b", &t, &err), ATUNE__OK);
    atune__templates_free(&t);

    remove_file(dir, "a.ini");
    remove_file(dir, "a.cu");
    remove_file(dir, "b.ini");
    remove_file(dir, "b.cu");
    remove_file(dir, ".hidden.ini");
    assert_int_equal(rmdir(dir), 0);
    assert_int_equal(atune__templates_load(dir, NULL, &t, &err),
                     ATUNE__ENOINPUT);
    assert_non_null(strstr(err.msg, "cannot open template directory"));
    free(ini);
}

/* Several folders, and templates in subfolders: a subfolder's .ini
 * without its .cu is no template, hidden folders and links to folders are
 * not searched, and two templates of one name are an error naming both
 * files (but not when --kernel leaves one of them out). */
static void test_template_tree(void **state)
{
    char a[] = "/tmp/atune_test_XXXXXX", b[] = "/tmp/atune_test_XXXXXX";
    char path[1024], *ini = edited_base(NULL, 0), **names = NULL;
    const char *dirs[2] = {a, b};
    atune__templates t;
    atune__err err = {0};
    int n = 0;

    (void)state;
    assert_non_null(mkdtemp(a));
    assert_non_null(mkdtemp(b));
    write_file(a, "top.ini", ini);
    write_file(a, "top.cu", base_cu);
    snprintf(path, sizeof(path), "%s/sub", a);
    assert_int_equal(mkdir(path, 0700), 0);
    snprintf(path, sizeof(path), "%s/sub/deeper", a);
    assert_int_equal(mkdir(path, 0700), 0);
    snprintf(path, sizeof(path), "%s/.hidden", a);
    assert_int_equal(mkdir(path, 0700), 0);
    write_file(a, "sub/deeper/low.ini", ini);
    write_file(a, "sub/deeper/low.cu", base_cu);
    write_file(a, "sub/settings.ini", "not a manifest"); /* no .cu */
    write_file(a, ".hidden/h.ini", "garbage");
    write_file(a, ".hidden/h.cu", base_cu);
    snprintf(path, sizeof(path), "%s/loop", a);
    assert_int_equal(symlink(a, path), 0);
    write_file(b, "other.ini", ini);
    write_file(b, "other.cu", base_cu);

    if (atune__templates_load_dirs(dirs, 2, NULL, &t, &err) != ATUNE__OK)
        fail_msg("%s", err.msg);
    assert_int_equal(t.n, 3);
    assert_string_equal(t.m[0]->name, "low");
    assert_string_equal(t.m[1]->name, "other");
    assert_string_equal(t.m[2]->name, "top");
    snprintf(path, sizeof(path), "%s/sub/deeper/low.cu", a);
    assert_string_equal(t.m[0]->cu_path, path);
    atune__templates_free(&t);

    /* the same name in the second folder's subfolder */
    snprintf(path, sizeof(path), "%s/x", b);
    assert_int_equal(mkdir(path, 0700), 0);
    write_file(b, "x/low.ini", ini);
    write_file(b, "x/low.cu", base_cu);
    assert_int_equal(atune__templates_load_dirs(dirs, 2, NULL, &t, &err),
                     ATUNE__EDATA);
    assert_int_equal(t.n, 0);
    snprintf(path, sizeof(path), "two templates are named 'low': "
             "%s/sub/deeper/low.ini and %s/x/low.ini", a, b);
    if (!strstr(err.msg, path))
        fail_msg("got \"%s\", want \"%s\"", err.msg, path);
    if (atune__templates_load_dirs(dirs, 2, "top,other", &t, &err) !=
        ATUNE__OK)
        fail_msg("%s", err.msg);
    assert_int_equal(t.n, 2);
    atune__templates_free(&t);
    assert_int_equal(atune__templates_names(dirs, 2, &names, &n, &err),
                     ATUNE__OK);
    assert_int_equal(n, 3); /* "low" once */
    assert_string_equal(names[0], "low");
    assert_string_equal(names[1], "other");
    assert_string_equal(names[2], "top");
    for (int i = 0; i < n; i++)
        free(names[i]);
    free(names);
    /* the same name in one tree */
    remove_file(b, "x/low.ini");
    write_file(a, "sub/top.ini", ini);
    write_file(a, "sub/top.cu", base_cu);
    assert_int_equal(atune__templates_load(a, NULL, &t, &err), ATUNE__EDATA);
    assert_non_null(strstr(err.msg, "two templates are named 'top'"));
    assert_non_null(strstr(err.msg, "/sub/top.ini"));

    snprintf(path, sizeof(path), "%s/loop", a);
    assert_int_equal(unlink(path), 0); /* rm_rf would follow it */
    rm_rf(a);
    rm_rf(b);
    free(ini);
}

/* reference_source: a file of the template's directory, whose kernels
 * (reference, init, verify) are looked up there and not in the .cu, whose
 * bytes the template hash covers, and which may not lie outside the
 * directory, by "../" or by a link. */
static void test_reference_source(void **state)
{
    char dir[] = "/tmp/atune_test_XXXXXX", sub[64], path[1024];
    const struct edit e[] = {
        {3, 3, "reference = r_ref"},
        {4, 4, "reference_block = BLOCK"}, /* the default's: 128 */
        {9, 9, "reference_source = r.cu"},
        {29, 29, "out = float[n * m] output, verify = r_verify"}};
    const char r_cu[] = "extern \"C\" __global__ void r_ref() {}\n"
                        "extern \"C\" __global__ void r_verify() {}\n";
    char *ini = edited_base(e, 4), *ini2;
    atune__manifest *m = NULL;
    atune__err err = {0};
    uint64_t hash;

    (void)state;
    assert_non_null(mkdtemp(dir));
    write_file(dir, "t.ini", ini);
    write_file(dir, "t.cu", base_cu);
    write_file(dir, "r.cu", r_cu);
    if (atune__manifest_load(dir, "t", &m, &err) != ATUNE__OK)
        fail_msg("%s", err.msg);
    assert_string_equal(m->ref_text, r_cu);
    assert_string_equal(m->reference, "r_ref");
    assert_string_equal(m->args[1].verify, "r_verify");
    assert_false(m->ref_is_default);
    hash = m->hash;
    atune__manifest_free(m);
    /* Another reference is another template: profiles become stale. */
    write_file(dir, "r.cu", "extern \"C\" __global__ void r_ref() {}\n"
                            "extern \"C\" __global__ void r_verify() {}//\n");
    assert_int_equal(atune__manifest_load(dir, "t", &m, &err), ATUNE__OK);
    assert_true(m->hash != hash);
    atune__manifest_free(m);
    /* "reference = FILE:NAME" says the same; a C++ "ns::" is no file. */
    ini2 = edited_base((const struct edit[]){{3, 3, "reference = r.cu:r_ref"},
                                            {4, 4, "reference_block = BLOCK"}},
                       2);
    write_file(dir, "t.ini", ini2);
    if (atune__manifest_load(dir, "t", &m, &err) != ATUNE__OK)
        fail_msg("%s", err.msg);
    assert_string_equal(m->reference, "r_ref");
    assert_string_equal(m->ref_text, "extern \"C\" __global__ void r_ref() {}\n"
                                     "extern \"C\" __global__ void r_verify() {}//\n");
    atune__manifest_free(m);
    free(ini2);
    ini2 = edited_base((const struct edit[]){{3, 3, "reference = r.cu:r_ref"},
                                            {9, 9, "reference_source = r.cu"}},
                       2);
    write_file(dir, "t.ini", ini2);
    assert_int_equal(atune__manifest_load(dir, "t", &m, &err), ATUNE__EDATA);
    assert_non_null(strstr(err.msg, "/t.ini:3: reference 'r.cu:r_ref' names a "
                                    "file, and so does reference_source"));
    free(ini2);
    ini2 = edited_base((const struct edit[]){{3, 3, "reference = ns::r_ref"}}, 1);
    write_file(dir, "t.ini", ini2);
    assert_int_equal(atune__manifest_load(dir, "t", &m, &err), ATUNE__EDATA);
    assert_non_null(strstr(err.msg, "reference 'r_ref' not found in t.cu"));
    free(ini2);
    write_file(dir, "t.ini", ini);
    /* Names are looked up in r.cu, not in t.cu. */
    write_file(dir, "r.cu", "extern \"C\" __global__ void r_ref() {}\n");
    assert_int_equal(atune__manifest_load(dir, "t", &m, &err), ATUNE__EDATA);
    assert_non_null(strstr(err.msg, "/t.ini:29: verify 'r_verify' not found "
                                    "in r.cu"));
    /* Outside the directory: by ../, by a link; and a missing file. */
    snprintf(sub, sizeof(sub), "%s/sub", dir);
    assert_int_equal(mkdir(sub, 0700), 0);
    write_file(sub, "r.cu", r_cu);
    ini2 = edited_base((const struct edit[]){{3, 3, "reference = r_ref"},
                                            {9, 9, "reference_source = ../r.cu"}},
                       2);
    write_file(sub, "t.ini", ini2);
    write_file(sub, "t.cu", base_cu);
    assert_int_equal(atune__manifest_load(sub, "t", &m, &err), ATUNE__EDATA);
    assert_non_null(strstr(err.msg, "/sub/t.ini:9: reference_source '../r.cu' "
                                    "lies outside the template's directory"));
    free(ini2);
    ini2 = edited_base((const struct edit[]){{3, 3, "reference = r_ref"},
                                            {9, 9, "reference_source = l.cu"}},
                       2);
    write_file(sub, "t.ini", ini2);
    snprintf(path, sizeof(path), "%s/l.cu", sub);
    assert_int_equal(symlink("../r.cu", path), 0);
    assert_int_equal(atune__manifest_load(sub, "t", &m, &err), ATUNE__EDATA);
    assert_non_null(strstr(err.msg, "lies outside the template's directory"));
    unlink(path);
    assert_int_equal(atune__manifest_load(sub, "t", &m, &err), ATUNE__EDATA);
    assert_non_null(strstr(err.msg, "/sub/t.ini:9: reference_source 'l.cu': "
                                    "no such file"));
    free(ini2);
    remove_file(sub, "t.ini");
    remove_file(sub, "t.cu");
    remove_file(sub, "r.cu");
    assert_int_equal(rmdir(sub), 0);
    remove_file(dir, "t.ini");
    remove_file(dir, "t.cu");
    remove_file(dir, "r.cu");
    assert_int_equal(rmdir(dir), 0);
    free(ini);
}

/* half, bf16 (and CUDA's names of them), vector element types sized in
 * elements of the vector, and structs passed by value as raw bytes. */
static void test_element_types(void **state)
{
    static const struct {
        const char *line;
        atune__type type;
        int lanes;
        size_t elem;
    } ok[] = {
        {"out = half[n * m] output", ATUNE__HALF, 1, 2},
        {"out = __half[n * m] output", ATUNE__HALF, 1, 2},
        {"out = bf16[n * m] output", ATUNE__BF16, 1, 2},
        {"out = __nv_bfloat16[n * m] output", ATUNE__BF16, 1, 2},
        {"out = half2[n * m] output", ATUNE__HALF, 2, 4},
        {"out = __half2[n * m] output", ATUNE__HALF, 2, 4},
        {"out = __nv_bfloat162[n * m] output", ATUNE__BF16, 2, 4},
        {"out = float4[n * m] output", ATUNE__FLOAT, 4, 16},
        {"out = float3[n * m] output", ATUNE__FLOAT, 3, 12},
        {"out = double2[n * m] output", ATUNE__DOUBLE, 2, 16},
        {"out = int2[n * m] output, mismatches = 1", ATUNE__INT, 2, 8},
        {"out = uint4[n * m] output", ATUNE__UINT, 4, 16},
        {"out = char4[n * m] output", ATUNE__CHAR, 4, 4},
        {"out = long2[n * m] output", ATUNE__LONG, 2, 16},
    };
    atune__manifest *m;

    (void)state;
    for (size_t i = 0; i < ARRAY_LEN(ok); i++) {
        const struct edit e[] = {{29, 29, ok[i].line}};
        m = parse_edited(e, 1);
        assert_int_equal(m->args[1].type, ok[i].type);
        assert_int_equal(atune__arg_lanes(&m->args[1]), ok[i].lanes);
        assert_int_equal(atune__arg_elem_size(&m->args[1]), ok[i].elem);
        atune__manifest_free(m);
    }
    /* fills of each component */
    m = parse_edited((const struct edit[]){{28, 28, "in = float4[n] input, "
                                                    "fill = uniform(0, 2)"}},
                     1);
    assert_int_equal(m->args[0].fill.kind, ATUNE__FILL_UNIFORM);
    assert_int_equal(atune__arg_lanes(&m->args[0]), 4);
    atune__manifest_free(m);
    m = parse_edited((const struct edit[]){{28, 28, "in = half[n] input, "
                                                    "fill = 0.5"}},
                     1);
    assert_true(m->args[0].fill.has_real);
    atune__manifest_free(m);
    /* raw bytes, in memory order */
    m = parse_edited((const struct edit[]){{30, 30, "alpha = bytes[4] "
                                                    "hex:0000803F"}},
                     1);
    assert_int_equal(m->args[2].type, ATUNE__BYTES);
    assert_int_equal(m->args[2].role, ATUNE__SCALAR);
    assert_int_equal(m->args[2].raw_len, 4);
    assert_memory_equal(m->args[2].raw, "\x00\x00\x80\x3f", 4);
    atune__manifest_free(m);
    m = parse_edited((const struct edit[]){{30, 30, "alpha = struct[2] "
                                                    "hex: ff01"}},
                     1);
    assert_memory_equal(m->args[2].raw, "\xff\x01", 2);
    atune__manifest_free(m);
}

/* A struct's bytes from a file of the template's directory: its size
 * checked, its bytes in the template hash, never a file outside. */
static void test_bytes_file(void **state)
{
    char dir[] = "/tmp/atune_test_XXXXXX", sub[64];
    const struct edit e[] = {{30, 30, "alpha = bytes[4] file:p.bin"}};
    char *ini = edited_base(e, 1);
    atune__manifest *m = NULL;
    atune__err err = {0};
    uint64_t hash;

    (void)state;
    assert_non_null(mkdtemp(dir));
    write_file(dir, "t.ini", ini);
    write_file(dir, "t.cu", base_cu);
    write_file(dir, "p.bin", "abcd");
    if (atune__manifest_load(dir, "t", &m, &err) != ATUNE__OK)
        fail_msg("%s", err.msg);
    assert_memory_equal(m->args[2].raw, "abcd", 4);
    hash = m->hash;
    atune__manifest_free(m);
    write_file(dir, "p.bin", "abce");
    assert_int_equal(atune__manifest_load(dir, "t", &m, &err), ATUNE__OK);
    assert_true(m->hash != hash);
    atune__manifest_free(m);
    write_file(dir, "p.bin", "abcde");
    assert_int_equal(atune__manifest_load(dir, "t", &m, &err), ATUNE__EDATA);
    assert_non_null(strstr(err.msg, "/t.ini:30: bytes file 'p.bin' of "
                                    "'alpha' has 5 bytes, not 4"));
    free(ini);
    ini = edited_base((const struct edit[]){{30, 30, "alpha = bytes[4] "
                                                     "file:../p.bin"}},
                      1);
    snprintf(sub, sizeof(sub), "%s/sub", dir);
    assert_int_equal(mkdir(sub, 0700), 0);
    write_file(sub, "t.ini", ini);
    write_file(sub, "t.cu", base_cu);
    write_file(dir, "p.bin", "abcd");
    assert_int_equal(atune__manifest_load(sub, "t", &m, &err), ATUNE__EDATA);
    assert_non_null(strstr(err.msg, "lies outside the template's directory"));
    remove_file(sub, "t.ini");
    remove_file(sub, "t.cu");
    assert_int_equal(rmdir(sub), 0);
    remove_file(dir, "t.ini");
    remove_file(dir, "t.cu");
    remove_file(dir, "p.bin");
    assert_int_equal(rmdir(dir), 0);
    free(ini);
}

static void test_manifest_load_errors(void **state)
{
    char dir[] = "/tmp/atune_test_XXXXXX";
    char *ini = edited_base(NULL, 0);
    atune__manifest *m = NULL;
    atune__err err = {0};
    char want[64];

    (void)state;
    assert_non_null(mkdtemp(dir));
    assert_int_equal(atune__manifest_load(dir, "t", &m, &err), ATUNE__ENOINPUT);
    snprintf(want, sizeof(want), "%s/t.ini", dir);
    assert_non_null(strstr(err.msg, want));
    write_file(dir, "t.ini", ini);
    assert_int_equal(atune__manifest_load(dir, "t", &m, &err), ATUNE__ENOINPUT);
    assert_null(m);
    snprintf(want, sizeof(want), "%s/t.cu", dir);
    assert_non_null(strstr(err.msg, want));
    remove_file(dir, "t.ini");
    assert_int_equal(rmdir(dir), 0);
    free(ini);
}

/* Every template of the repository loads, from the tree and built in. */
static void test_repository_templates(void **state)
{
    char dir[1024];
    atune__templates t, b;
    atune__err err = {0};

    (void)state;
    snprintf(dir, sizeof(dir), "%s/templates", source_dir());
    if (atune__templates_load(dir, NULL, &t, &err) != ATUNE__OK)
        fail_msg("%s", err.msg);
    if (atune__templates_load(NULL, NULL, &b, &err) != ATUNE__OK)
        fail_msg("%s", err.msg);
    assert_int_equal(t.n, b.n);
    for (int i = 0; i < t.n; i++) {
        assert_string_equal(t.m[i]->name, b.m[i]->name);
        if (t.m[i]->hash != b.m[i]->hash)
            fail_msg("built-in %s differs from %s: stale build?",
                     b.m[i]->ini_path, t.m[i]->ini_path);
        assert_int_equal(strncmp(b.m[i]->ini_path, "<builtin>/", 10), 0);
    }
    atune__templates_free(&t);
    atune__templates_free(&b);

    if (atune__templates_load(NULL, "copy", &b, &err) != ATUNE__OK)
        fail_msg("%s", err.msg);
    assert_int_equal(b.n, 1);
    assert_string_equal(b.m[0]->ini_path, "<builtin>/copy.ini");
    assert_string_equal(b.m[0]->cu_path, "<builtin>/copy.cu");
    atune__templates_free(&b);

    assert_int_equal(atune__templates_load(NULL, "copy,nosuch", &b, &err),
                     ATUNE__EUSAGE);
    assert_non_null(strstr(err.msg, "unknown kernel 'nosuch' (have: "));
    assert_non_null(strstr(err.msg, "copy"));

    /* devutil.cu is embedded for the runner but is not a template. */
    assert_non_null(atune__embedded_find("devutil.cu"));
    assert_null(atune__embedded_find("devutil.ini"));
    assert_null(atune__embedded_find("nosuch.cu"));
    assert_true(atune__embedded_find("copy.cu")->len ==
                strlen(atune__embedded_find("copy.cu")->data));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_base),
        cmocka_unit_test(test_optional_defaults),
        cmocka_unit_test(test_sized_names),
        cmocka_unit_test(test_reference_default),
        cmocka_unit_test(test_reference_default_errors),
        cmocka_unit_test(test_defects),
        cmocka_unit_test(test_macros),
        cmocka_unit_test(test_limits),
        cmocka_unit_test(test_ladders),
        cmocka_unit_test(test_value_repeats),
        cmocka_unit_test(test_size_limit),
        cmocka_unit_test(test_ladder_examples),
        cmocka_unit_test(test_cpp_kernel),
        cmocka_unit_test(test_template_name),
        cmocka_unit_test(test_copy),
        cmocka_unit_test(test_names_in_comments),
        cmocka_unit_test(test_types),
        cmocka_unit_test(test_buffer_options),
        cmocka_unit_test(test_fills),
        cmocka_unit_test(test_fill_values_errors),
        cmocka_unit_test(test_fill_file),
        cmocka_unit_test(test_template_dirs),
        cmocka_unit_test(test_template_tree),
        cmocka_unit_test(test_nvrtc_allowed),
        cmocka_unit_test(test_hidden_headers),
        cmocka_unit_test(test_manifest_load_errors),
        cmocka_unit_test(test_reference_source),
        cmocka_unit_test(test_element_types),
        cmocka_unit_test(test_bytes_file),
        cmocka_unit_test(test_repository_templates),
    };

    return cmocka_run_group_tests_name("manifest", tests, NULL, NULL);
}
