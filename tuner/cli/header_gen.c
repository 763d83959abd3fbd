/* header_gen.c -- `autotune header`'s generator: a template's manifest as
 * a self-contained C header (C99 and C++; static inline functions only,
 * so that any number of files may include it).
 *
 * The manifest's expressions are C's own syntax and precedence on int64
 * (template/expr.h), so each is written out token by token: a parameter
 * becomes c->NAME, a size variable s->NAME, a device attribute d->NAME,
 * cdiv/min/max helper functions, and every literal an int64_t. Where the
 * tool refuses an evaluation (overflow, division by zero) C's behaviour
 * applies instead; the built-in templates never get there. */
#include "cli/header_gen.h"

#include <ctype.h>
#include <inttypes.h>
#include <string.h>

#include "template/space.h"

static const char *const device_names[] = {"sm_count",
                                           "max_threads_per_block",
                                           "max_shared_per_block",
                                           "warp_size",
                                           "cc",
                                           "l2_bytes"};

/* The template name as a C identifier: a name of letters, digits and
 * '_' as it is ("copy", "my_k"); any other ("my-k", "k.v2") with its
 * other bytes made '_' and 8 hex digits of its hash after it
 * ("my_k_8d2e9a41"), so that two templates never get one C name. */
static void c_name(const char *name, char *out, size_t len, int upper)
{
    size_t i, plain = strspn(name, "abcdefghijklmnopqrstuvwxyz"
                                   "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_");

    for (i = 0; name[i] && i + 1 < len; i++) {
        unsigned char ch = (unsigned char)name[i];
        out[i] = isalnum(ch) ? (char)(upper ? toupper(ch) : ch) : '_';
    }
    out[i] = '\0';
    if (name[plain] != '\0')
        snprintf(out + i, len - i, upper ? "_%08" PRIX64 : "_%08" PRIx64,
                 atune__fnv1a(name, strlen(name), ATUNE__FNV_SEED) >> 32);
}

/* Names a C program may not use as a member or a variable of the header
 * and still compile: keywords of C17/C23 that C++ lacks (C++'s are
 * refused by the manifest loader), macros of the headers the header and
 * applications include, and the GNU modes' predefined macros. */
static const char *const c_taken[] = {
    "typeof", "typeof_unqual", "complex", "imaginary", "noreturn", "I",
    "NULL", "offsetof", "errno", "assert", "static_assert", "bool", "true",
    "false", "EOF", "BUFSIZ", "FILENAME_MAX", "FOPEN_MAX", "L_tmpnam",
    "TMP_MAX", "SEEK_SET", "SEEK_CUR", "SEEK_END", "stdin", "stdout",
    "stderr", "EXIT_SUCCESS", "EXIT_FAILURE", "RAND_MAX", "MB_CUR_MAX",
    "CHAR_BIT", "CHAR_MAX", "CHAR_MIN", "SCHAR_MAX", "SCHAR_MIN",
    "UCHAR_MAX", "SHRT_MAX", "SHRT_MIN", "USHRT_MAX", "INT_MAX", "INT_MIN",
    "UINT_MAX", "LONG_MAX", "LONG_MIN", "ULONG_MAX", "LLONG_MAX",
    "LLONG_MIN", "ULLONG_MAX", "MB_LEN_MAX", "SIZE_MAX", "PTRDIFF_MAX",
    "PTRDIFF_MIN", "SIG_ATOMIC_MAX", "SIG_ATOMIC_MIN", "WCHAR_MAX",
    "WCHAR_MIN", "WINT_MAX", "WINT_MIN", "INTMAX_MAX", "INTMAX_MIN",
    "UINTMAX_MAX", "INTMAX_C", "UINTMAX_C", "INTPTR_MAX", "INTPTR_MIN",
    "UINTPTR_MAX", "EDOM", "ERANGE", "EILSEQ", "EINVAL", "ENOMEM", "EAGAIN",
    "EINTR", "ENOENT", "EEXIST", "EACCES", "EPERM", "EIO", "EBADF",
    "NDEBUG", "linux", "unix", "i386", "i486", "i586", "i686", "vax",
    "mips", "sun", "sparc", "alloca", "memcpy", "memset", "strcmp",
    "strlen", "fortran", "asm", "inline", "restrict"};

/* INTn_MAX, UINT_LEAST16_C, PRId64, SCNx32 ...: stdint.h's and
 * inttypes.h's families. */
static int c_taken_family(const char *s)
{
    static const char *const heads[] = {"INT", "UINT", "PRI", "SCN"};
    static const char *const tails[] = {"_MAX", "_MIN", "_C", "_WIDTH"};
    size_t n = strlen(s);

    for (size_t i = 0; i < 4; i++) {
        size_t h = strlen(heads[i]);
        if (strncmp(s, heads[i], h) != 0)
            continue;
        if (i >= 2 && s[h] >= 'a' && s[h] <= 'z')
            return 1;
        for (size_t t = 0; i < 2 && t < 4; t++) {
            size_t tl = strlen(tails[t]);
            if (n > h + tl && strcmp(s + n - tl, tails[t]) == 0)
                return 1;
        }
    }
    return 0;
}

/* A parameter's or size variable's name as a member of the header's
 * structs: the name itself, or with '_' after it when C could not take it
 * there (c_taken) -- and when it already ends in '_', so that "NULL" ->
 * "NULL_" never meets a parameter of that name ("NULL_" -> "NULL__"). */
static void c_member(const char *name, size_t len, char *out, size_t size)
{
    int taken = len > 0 && name[len - 1] == '_';

    snprintf(out, size, "%.*s", (int)len, name);
    for (size_t i = 0; !taken && i < sizeof(c_taken) / sizeof(*c_taken); i++)
        taken = strcmp(out, c_taken[i]) == 0;
    if (taken || c_taken_family(out))
        snprintf(out, size, "%.*s_", (int)len, name);
}

/* Text for a C comment: "*" + "/" would end it early. */
static void comment_text(FILE *f, const char *s)
{
    for (; *s; s++) {
        fputc(*s, f);
        if (s[0] == '*' && s[1] == '/')
            fputc(' ', f);
    }
}

static int is_param(const atune__manifest *m, const char *s, size_t n)
{
    for (int i = 0; i < m->nparams; i++)
        if (strlen(m->params[i].name) == n && !strncmp(m->params[i].name, s, n))
            return 1;
    return 0;
}

static int is_size_var(const atune__manifest *m, const char *s, size_t n)
{
    for (int i = 0; m->nsizes && i < m->sizes[0].nvars; i++)
        if (strlen(m->sizes[0].var[i]) == n &&
            !strncmp(m->sizes[0].var[i], s, n))
            return 1;
    return 0;
}

static int is_device(const char *s, size_t n)
{
    for (size_t i = 0; i < sizeof(device_names) / sizeof(*device_names); i++)
        if (strlen(device_names[i]) == n && !strncmp(device_names[i], s, n))
            return 1;
    return 0;
}

struct expr_names {
    const atune__manifest *m;
    const char *bad;
    size_t bad_len;
};

static int emit_name(void *ctx, FILE *f, const char *s, size_t n)
{
    struct expr_names *en = ctx;
    char member[ATUNE__NAME_MAX + 2];

    c_member(s, n, member, sizeof(member));
    if (is_param(en->m, s, n))
        fprintf(f, "c->%s", member);
    else if (is_size_var(en->m, s, n))
        fprintf(f, "s->%s", member);
    else if (is_device(s, n))
        fprintf(f, "d->%.*s", (int)n, s);
    else {
        en->bad = s;
        en->bad_len = n;
        return ATUNE__EDATA;
    }
    return 0;
}

/* One expression as C. line is the manifest line, for errors. */
static int emit_expr(FILE *f, const atune__manifest *m, const atune__expr *e,
                     int line, atune__err *err)
{
    struct expr_names en = {m, NULL, 0};

    if (atune__expr_write_c(e, f, "atune_header_", emit_name, &en) == 0)
        return 0;
    if (en.bad)
        return atune__fail(err, ATUNE__EDATA,
                           "%s:%d: '%.*s' is no parameter, size "
                           "variable or device attribute",
                           m->ini_path, line, (int)en.bad_len, en.bad);
    return atune__fail(err, ATUNE__ESOFTWARE, "%s:%d: cannot write '%s' as C",
                       m->ini_path, line, atune__expr_text(e));
}

/* The operators of the manifest's expressions as functions (see
 * template/expr_c.c for why). */
static void emit_ops(FILE *f)
{
    static const char *const bin[][2] = {
        {"add", "+"}, {"sub", "-"},   {"mul", "*"},  {"div", "/"},
        {"mod", "%"}, {"shl", "<<"},  {"shr", ">>"}, {"band", "&"},
        {"bor", "|"}, {"bxor", "^"},  {"lt", "<"},   {"le", "<="},
        {"gt", ">"},  {"ge", ">="},   {"eq", "=="},  {"ne", "!="}};
    static const char *const un[][2] = {
        {"neg", "-"}, {"bnot", "~"}, {"not", "!"}};

    fprintf(f, "\n/* The operators of the manifest's expressions, as "
               "functions: a manifest's\n * constant or odd-looking "
               "expression draws no warning. */\n"
               "static inline int atune_header_true(int64_t v)\n{\n"
               "    return v != 0;\n}\n"
               "static inline int64_t atune_header_int(int v)\n{\n"
               "    return v;\n}\n");
    for (size_t i = 0; i < sizeof(bin) / sizeof(*bin); i++)
        fprintf(f,
                "static inline int64_t atune_header_%s(int64_t a, int64_t b)"
                "\n{\n    return a %s b;\n}\n",
                bin[i][0], bin[i][1]);
    for (size_t i = 0; i < sizeof(un) / sizeof(*un); i++)
        fprintf(f,
                "static inline int64_t atune_header_%s(int64_t a)\n{\n"
                "    return %sa;\n}\n",
                un[i][0], un[i][1]);
}

static void emit_common(FILE *f)
{
    atune__devattr g;

    atune__devattr_default(&g);
    fprintf(f,
            "#ifndef ATUNE_HEADER_COMMON\n"
            "#define ATUNE_HEADER_COMMON\n"
            "/* The device limits a launch is checked against, as\n"
            " * atune_jit_attr (libatune_jit) or cudaDeviceProp give them. */\n"
            "typedef struct atune_header_device {\n"
            "    int64_t sm_count;\n"
            "    int64_t max_threads_per_block;\n"
            "    int64_t max_block[3];\n"
            "    int64_t max_grid[3];\n"
            "    int64_t max_shared_per_block; /* opt-in maximum, bytes */\n"
            "    int64_t warp_size;\n"
            "    int64_t cc; /* 90 for 9.0 */\n"
            "    int64_t l2_bytes;\n"
            "} atune_header_device;\n\n"
            "/* A generic sm_90 device (H100), what `autotune check` "
            "assumes. */\n"
            "static inline const atune_header_device *"
            "atune_header_generic_device(void)\n"
            "{\n"
            "    static const atune_header_device g = {\n"
            "        %" PRId64 ", %" PRId64 ", {%" PRId64 ", %" PRId64
            ", %" PRId64 "}, {%" PRId64 ", %" PRId64 ", %" PRId64 "},\n"
            "        %" PRId64 ", %" PRId64 ", %" PRId64 ", %" PRId64 "};\n"
            "    return &g;\n"
            "}\n\n"
            "/* The manifest's functions: cdiv(a, b) = ceil(a / b). */\n"
            "static inline int64_t atune_header_cdiv(int64_t a, int64_t b)\n"
            "{\n"
            "    int64_t q = a / b;\n"
            "    return q + (a %% b != 0 && (a < 0) == (b < 0));\n"
            "}\n"

            "static inline int64_t atune_header_min(int64_t a, int64_t b)\n"
            "{\n"
            "    return a < b ? a : b;\n"
            "}\n"
            "static inline int64_t atune_header_max(int64_t a, int64_t b)\n"
            "{\n"
            "    return a > b ? a : b;\n"
            "}\n\n"
            "/* 64-bit FNV-1a, from seed (first call: "
            "ATUNE_HEADER_FNV_SEED). The\n"
            " * template hash is this over NAME.cu's bytes, then NAME.ini's, "
            "then,\n"
            " * when the .cu includes headers of its own, the 8 bytes of their "
            "hash\n"
            " * (docs/formats.md: 'The template hash'); printed as 16 hex digits. */\n"
            "#define ATUNE_HEADER_FNV_SEED UINT64_C(0xcbf29ce484222325)\n"
            "static inline uint64_t atune_header_fnv1a(const void *data, "
            "size_t len,\n"
            "                                          uint64_t seed)\n"
            "{\n"
            "    const unsigned char *p = (const unsigned char *)data;\n"
            "    for (size_t i = 0; i < len; i++)\n"
            "        seed = (seed ^ p[i]) * UINT64_C(0x100000001b3);\n"
            "    return seed;\n"
            "}\n",
            g.sm_count, g.max_threads_per_block, g.max_block[0], g.max_block[1],
            g.max_block[2], g.max_grid[0], g.max_grid[1], g.max_grid[2],
            g.max_shared_per_block, g.warp_size, g.cc, g.l2_bytes);
    emit_ops(f);
    fprintf(f, "#endif\n\n");
}

static void emit_types(FILE *f, const atune__manifest *m, const char *t,
                       const char *T)
{
    int nvars = m->nsizes ? m->sizes[0].nvars : 0;

    fprintf(f, "#define ATUNE_%s_NAME \"%s\"\n", T, m->name);
    fprintf(f, "#define ATUNE_%s_TEMPLATE_HASH \"%016" PRIx64 "\"\n", T,
            m->hash);
    fprintf(f, "#define ATUNE_%s_NPARAMS %d\n", T, m->nparams);
    fprintf(f, "#define ATUNE_%s_NMACROS %d /* [macros] */\n", T, m->nmacros);
    fprintf(f, "#define ATUNE_%s_NSIZES %d /* tuned sizes */\n\n", T,
            m->nsizes);
    fprintf(f,
            "/* A configuration: one value per [params] entry. */\n"
            "typedef struct atune_%s_config {\n",
            t);
    for (int i = 0; i < m->nparams; i++) {
        char mb[ATUNE__NAME_MAX + 2];
        c_member(m->params[i].name, strlen(m->params[i].name), mb, sizeof(mb));
        fprintf(f, "    int64_t %s;\n", mb);
    }
    if (m->nparams == 0)
        fprintf(f, "    int64_t unused_;\n");
    fprintf(f, "} atune_%s_config;\n\n", t);
    fprintf(f,
            "/* A problem size: the size variables. */\n"
            "typedef struct atune_%s_size {\n",
            t);
    for (int i = 0; i < nvars; i++) {
        char mb[ATUNE__NAME_MAX + 2];
        c_member(m->sizes[0].var[i], strlen(m->sizes[0].var[i]), mb,
                 sizeof(mb));
        fprintf(f, "    int64_t %s;\n", mb);
    }
    if (nvars == 0)
        fprintf(f, "    int64_t unused_;\n");
    fprintf(f, "} atune_%s_size;\n\n", t);
}

static void emit_params(FILE *f, const atune__manifest *m, const char *t)
{
    fprintf(f,
            "/* Parameter i's name; NULL out of range. */\n"
            "static inline const char *atune_%s_param_name(int i)\n{\n"
            "    static const char *const names[] = {",
            t);
    for (int i = 0; i < m->nparams; i++)
        fprintf(f, "%s\"%s\"", i ? ", " : "", m->params[i].name);
    fprintf(f, "%s};\n    return i >= 0 && i < %d ? names[i] : NULL;\n}\n\n",
            m->nparams ? "" : "NULL", m->nparams);
    fprintf(f,
            "/* Parameter i's values, the first one its default; their "
            "number (0 out\n * of range). */\n"
            "static inline int atune_%s_param_values(int i, const int64_t "
            "**values)\n{\n",
            t);
    for (int i = 0; i < m->nparams; i++) {
        fprintf(f, "    static const int64_t v%d[] = {", i);
        for (int v = 0; v < m->params[i].nvalues; v++)
            fprintf(f, "%s%" PRId64, v ? ", " : "", m->params[i].values[v]);
        fprintf(f, "};\n");
    }
    fprintf(f, "    switch (i) {\n");
    for (int i = 0; i < m->nparams; i++)
        fprintf(f, "    case %d: *values = v%d; return %d;\n", i, i,
                m->params[i].nvalues);
    fprintf(f, "    default: *values = NULL; return 0;\n    }\n}\n\n");
    fprintf(f,
            "static inline int64_t *atune_%s_param(atune_%s_config *c, "
            "int i)\n{\n    switch (i) {\n",
            t, t);
    for (int i = 0; i < m->nparams; i++) {
        char mb[ATUNE__NAME_MAX + 2];
        c_member(m->params[i].name, strlen(m->params[i].name), mb, sizeof(mb));
        fprintf(f, "    case %d: return &c->%s;\n", i, mb);
    }
    fprintf(f, "    default: return NULL;\n    }\n}\n\n");
    fprintf(f,
            "/* The template's defaults: every parameter's first value. */\n"
            "static inline atune_%s_config atune_%s_defaults(void)\n{\n"
            "    atune_%s_config c;\n"
            "    for (int i = 0; i < %d; i++) {\n"
            "        const int64_t *v;\n"
            "        atune_%s_param_values(i, &v);\n"
            "        *atune_%s_param(&c, i) = v[0];\n"
            "    }\n",
            t, t, t, m->nparams, t, t);
    if (m->nparams == 0)
        fprintf(f, "    c.unused_ = 0;\n");
    fprintf(f, "    return c;\n}\n\n");
    fprintf(f,
            "/* 1 when every value of c is one of its parameter's values, "
            "as libatune_jit\n * requires. */\n"
            "static inline int atune_%s_listed(const atune_%s_config *c)\n"
            "{\n"
            "    atune_%s_config x = *c;\n"
            "    for (int i = 0; i < %d; i++) {\n"
            "        const int64_t *v;\n"
            "        int n = atune_%s_param_values(i, &v), found = 0;\n"
            "        for (int k = 0; k < n; k++)\n"
            "            found |= v[k] == *atune_%s_param(&x, i);\n"
            "        if (!found)\n"
            "            return 0;\n"
            "    }\n"
            "    return 1;\n}\n\n",
            t, t, t, m->nparams, t, t);
}

static void emit_sizes(FILE *f, const atune__manifest *m, const char *t)
{
    fprintf(f,
            "/* Tuned size i of [sizes] into *s and its name; 0 out of "
            "range. */\n"
            "static inline int atune_%s_tuned_size(int i, atune_%s_size "
            "*s, const char **name)\n{\n    switch (i) {\n",
            t, t);
    for (int i = 0; i < m->nsizes; i++) {
        const atune__size *z = &m->sizes[i];
        fprintf(f, "    case %d:\n", i);
        for (int v = 0; v < z->nvars; v++) {
            char mb[ATUNE__NAME_MAX + 2];
            /* z's own order: a size may name its variables in another
             * order than the first (n=..., m=k=...) */
            c_member(z->var[v], strlen(z->var[v]), mb, sizeof(mb));
            fprintf(f, "        s->%s = INT64_C(%" PRId64 ");\n", mb,
                    z->value[v]);
        }
        fprintf(f, "        *name = \"%s\";\n        return 1;\n", z->name);
    }
    fprintf(f, "    default:\n        (void)s;\n        *name = NULL;\n"
               "        return 0;\n    }\n}\n\n");
}

static int emit_valid(FILE *f, const atune__manifest *m, const char *t,
                      atune__err *err)
{
    int rc;

    fprintf(f,
            "/* [constraints]: 1 when c may run at size s on device d "
            "(NULL: generic). */\n"
            "static inline int atune_%s_valid(const atune_%s_config *c, "
            "const atune_%s_size *s,\n"
            "                                 const atune_header_device "
            "*d)\n{\n"
            "    if (!d)\n        d = atune_header_generic_device();\n"
            "    (void)c;\n    (void)s;\n    (void)d;\n",
            t, t, t);
    for (int i = 0; i < m->nconstraints; i++) {
        const atune__named_expr *k = &m->constraints[i];
        fprintf(f, "    if (!atune_header_true(");
        if ((rc = emit_expr(f, m, k->expr, k->line, err)) != 0)
            return rc;
        fprintf(f, ")) /* %s = ", k->name);
        comment_text(f, atune__expr_text(k->expr));
        fputs(", ", f);
        comment_text(f, m->name);
        fprintf(f, ".ini:%d */\n        return 0;\n", k->line);
    }
    fprintf(f, "    return 1;\n}\n\n");
    return 0;
}

/* [macros]: what an application that compiles the kernel itself passes
 * as -D besides the parameters. */
static int emit_macros(FILE *f, const atune__manifest *m, const char *t,
                       atune__err *err)
{
    int rc;

    fprintf(f,
            "/* [macros]: macro i computed from c's parameters, passed as "
            "-DNAME=VALUE\n * besides the parameters: its name, and its "
            "value in *value; NULL past\n * the last. */\n"
            "static inline const char *atune_%s_macro(const atune_%s_config "
            "*c, int i,\n"
            "                                        int64_t *value)\n{\n"
            "    switch (i) {\n",
            t, t);
    for (int i = 0; i < m->nmacros; i++) {
        const atune__named_expr *k = &m->macros[i];
        fprintf(f, "    case %d:\n        *value = ", i);
        if ((rc = emit_expr(f, m, k->expr, k->line, err)) != 0)
            return rc;
        fprintf(f, ";\n        return \"%s\";\n", k->name);
    }
    fprintf(f, "    default:\n        (void)c;\n        (void)value;\n"
               "        return NULL;\n    }\n}\n\n");
    return 0;
}

static int emit_dim3(FILE *f, const atune__manifest *m, const char *var,
                     const atune__dim3 *d, atune__err *err)
{
    int rc;

    for (int i = 0; i < 3; i++) {
        fprintf(f, "    %s[%d] = ", var, i);
        if (i >= d->n)
            fprintf(f, "1");
        else if ((rc = emit_expr(f, m, d->e[i], d->line, err)) != 0)
            return rc;
        fprintf(f, ";\n");
    }
    return 0;
}

static int emit_launch(FILE *f, const atune__manifest *m, const char *t,
                       atune__err *err)
{
    int rc;

    fprintf(f,
            "/* [launch]: grid, block and dynamic shared memory of c at size "
            "s on device\n * d (NULL: generic), as autotune and libatune_jit "
            "compute them. Returns 1,\n * or 0 (outputs untouched) when c may "
            "not run there: a constraint is false\n * or the launch exceeds "
            "d's limits. Outputs may be NULL. */\n"
            "static inline int atune_%s_launch(const atune_%s_config *c,\n"
            "                                  const atune_%s_size *s,\n"
            "                                  const atune_header_device *d,\n"
            "                                  unsigned grid[3], unsigned "
            "block[3],\n"
            "                                  size_t *shared)\n{\n"
            "    int64_t b[3], g[3], sh, threads = 1;\n"
            "    if (!d)\n        d = atune_header_generic_device();\n"
            "    if (!atune_%s_valid(c, s, d))\n        return 0;\n",
            t, t, t, t);
    if ((rc = emit_dim3(f, m, "b", &m->block, err)) ||
        (rc = emit_dim3(f, m, "g", &m->grid, err)))
        return rc;
    fprintf(f, "    sh = ");
    if ((rc = emit_expr(f, m, m->shared, m->shared_line, err)) != 0)
        return rc;
    fprintf(f, ";\n"
               "    for (int i = 0; i < 3; i++) {\n"
               "        if (b[i] < 1 || b[i] > d->max_block[i] || g[i] < 1 ||\n"
               "            g[i] > d->max_grid[i])\n"
               "            return 0;\n"
               "    }\n"
               "    for (int i = 0; i < 3; i++) {\n"
               "        threads *= b[i];\n"
               "        if (threads > d->max_threads_per_block)\n"
               "            return 0;\n"
               "    }\n"
               "    if (sh < 0 || sh > d->max_shared_per_block)\n"
               "        return 0;\n"
               "    for (int i = 0; i < 3; i++) {\n"
               "        if (grid)\n            grid[i] = (unsigned)g[i];\n"
               "        if (block)\n            block[i] = (unsigned)b[i];\n"
               "    }\n"
               "    if (shared)\n        *shared = (size_t)sh;\n"
               "    return 1;\n}\n\n");
    return 0;
}

static void emit_from_profile(FILE *f, const char *t, const char *T)
{
    fprintf(f,
            "#ifdef ATUNE_ATUNE_H\n"
            "/* The configuration p holds for this template (libatune), the "
            "defaults\n * for what it lacks. Returns 0, or -1 when p is "
            "another kernel's, was\n * tuned with another version of the "
            "template, or has a value the\n * template does not list: then "
            "*c is the defaults. */\n"
            "static inline int atune_%s_from_profile(const atune_config *p,\n"
            "                                        atune_%s_config *c)\n{\n"
            "    const char *h = atune_config_template_hash(p);\n"
            "    const char *k = atune_config_kernel(p);\n"
            "    *c = atune_%s_defaults();\n"
            "    if (!p)\n        return 0;\n"
            "    if ((*k && strcmp(k, ATUNE_%s_NAME) != 0) ||\n"
            "        (*h && strcmp(h, ATUNE_%s_TEMPLATE_HASH) != 0))\n"
            "        return -1;\n"
            "    for (int i = 0; i < ATUNE_%s_NPARAMS; i++) {\n"
            "        int64_t *v = atune_%s_param(c, i);\n"
            "        *v = atune_config_get(p, atune_%s_param_name(i), *v);\n"
            "    }\n"
            "    if (!atune_%s_listed(c)) {\n"
            "        *c = atune_%s_defaults();\n"
            "        return -1;\n"
            "    }\n"
            "    return 0;\n}\n"
            "#endif\n\n",
            t, t, t, T, T, T, t, t, t, t);
}

int atune__header_write(FILE *f, const atune__manifest *m, atune__err *err)
{
    char t[ATUNE__NAME_MAX], T[ATUNE__NAME_MAX];
    int rc;

    /* The header's launch function computes one launch. */
    if (m->sequence)
        return atune__fail(err, ATUNE__EDATA,
                           "%s:%d: '%s' is a launch sequence of %d kernels; "
                           "autotune header writes the launch of one kernel "
                           "(libatune_jit launches a sequence: "
                           "atune_jit_launch)",
                           m->ini_path, m->steps[0].line, m->name, m->nsteps);
    c_name(m->name, t, sizeof(t), 0);
    c_name(m->name, T, sizeof(T), 1);
    fprintf(f, "/* atune_%s.h -- template '", t);
    comment_text(f, m->name);
    fputs("' (", f);
    comment_text(f, m->ini_path);
    fputs(", kernel ", f);
    comment_text(f, m->kernel);
    fputs(") for applications that\n * build the kernel themselves. "
          "Generated by `autotune header --kernel ", f);
    comment_text(f, m->name);
    fprintf(f,
            "`;\n * do not edit: generate it again when the template changes "
            "(the\n * template hash tells). */\n"
            "#ifndef ATUNE_TEMPLATE_%s_H\n#define ATUNE_TEMPLATE_%s_H\n\n"
            "#include <stddef.h>\n#include <stdint.h>\n#include <string.h>\n\n",
            T, T);
    emit_common(f);
    emit_types(f, m, t, T);
    emit_params(f, m, t);
    emit_sizes(f, m, t);
    if ((rc = emit_valid(f, m, t, err)) || (rc = emit_macros(f, m, t, err)) ||
        (rc = emit_launch(f, m, t, err)))
        return rc;
    emit_from_profile(f, t, T);
    fprintf(f, "#endif\n");
    if (ferror(f))
        return atune__fail(err, ATUNE__EIO, "cannot write the header");
    return 0;
}
