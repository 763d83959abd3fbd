/* test_header.c -- `autotune header`: for every built-in template, the
 * generated header compiles alone with cc -Wall -Wextra -Werror (twice
 * included), and a program built on it agrees with the tool's own
 * evaluation (atune__space_check) on every configuration at every tuned
 * size: the constraint predicate, whether the launch may run, its grid,
 * block and shared memory, and the [macros]' values. */
#include <dirent.h>
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "testutil.h"

#include "template/space.h"
#include "template/templates.h"

static char tmp[] = "/tmp/atune-test-header-XXXXXX";

/* The program that prints, for each tuned size z (every STRIDE-th and
 * the last, LAST: its arguments) and configuration index i (last
 * parameter fastest, as atune__space_config counts), "z i valid runs [gx
 * gy gz bx by bz shared] | macro values". */
static const char driver[] =
    "#include <inttypes.h>\n"
    "#include <stdio.h>\n"
    "#include \"atune_%s.h\"\n"
    "#include \"atune_%s.h\"\n"
    "#include <stdlib.h>\n"
    "int main(int argc, char **argv)\n{\n"
    "    atune_%s_size s;\n"
    "    const char *name;\n"
    "    const int stride = argc > 2 ? atoi(argv[1]) : 1;\n"
    "    const int last = argc > 2 ? atoi(argv[2]) : 0;\n"
    "    for (int z = 0; atune_%s_tuned_size(z, &s, &name); z++) {\n"
    "        int idx[ATUNE_%s_NPARAMS + 1] = {0};\n"
    "        if (z %% stride != 0 && z != last)\n"
    "            continue;\n"
    "        for (long i = 0;; i++) {\n"
    "            atune_%s_config c = atune_%s_defaults();\n"
    "            unsigned g[3], b[3];\n"
    "            size_t sh;\n"
    "            int p, v, l;\n"
    "            for (p = 0; p < ATUNE_%s_NPARAMS; p++) {\n"
    "                const int64_t *vals;\n"
    "                atune_%s_param_values(p, &vals);\n"
    "                *atune_%s_param(&c, p) = vals[idx[p]];\n"
    "            }\n"
    "            v = atune_%s_valid(&c, &s, NULL);\n"
    "            l = atune_%s_launch(&c, &s, NULL, g, b, &sh);\n"
    "            printf(\"%%d %%ld %%d %%d\", z, i, v, l);\n"
    "            if (l)\n"
    "                printf(\" %%u %%u %%u %%u %%u %%u %%zu\", g[0], g[1], "
    "g[2], b[0], b[1], b[2], sh);\n"
    "            printf(\" |\");\n"
    "            for (int q = 0;; q++) {\n"
    "                int64_t mv;\n"
    "                if (!atune_%s_macro(&c, q, &mv))\n"
    "                    break;\n"
    "                printf(\" %%\" PRId64, mv);\n"
    "            }\n"
    "            printf(\"\\n\");\n"
    "            for (p = ATUNE_%s_NPARAMS - 1; p >= 0; p--) {\n"
    "                const int64_t *vals;\n"
    "                if (++idx[p] < atune_%s_param_values(p, &vals))\n"
    "                    break;\n"
    "                idx[p] = 0;\n"
    "            }\n"
    "            if (p < 0)\n"
    "                break;\n"
    "        }\n"
    "    }\n"
    "    return 0;\n}\n";

static void write_driver(const char *path, const char *t, const char *T)
{
    FILE *f = fopen(path, "w");

    assert_non_null(f);
    fprintf(f, driver, t, t, t, t, T, t, t, T, t, t, t, t, t, T, t);
    assert_int_equal(fclose(f), 0);
}

static void sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void sh(const char *fmt, ...)
{
    char cmd[8192];
    va_list ap;
    int rc;

    va_start(ap, fmt);
    vsnprintf(cmd, sizeof(cmd), fmt, ap);
    va_end(ap);
    rc = system(cmd);
    if (rc != 0)
        fail_msg("'%s' failed (%d)", cmd, rc);
}

/* Compares one line of the program's output with the tool. */
static void check_line(const atune__manifest *m, const char *line,
                       long *checked)
{
    atune__devattr dev;
    atune__vars vs;
    atune__config c;
    atune__launch l;
    atune__err err = {0};
    char reason[256] = "";
    unsigned d[7] = {0};
    long i;
    int z, v, runs, n, rc;

    n = sscanf(line, "%d %ld %d %d %u %u %u %u %u %u %u", &z, &i, &v, &runs,
               &d[0], &d[1], &d[2], &d[3], &d[4], &d[5], &d[6]);
    assert_true(n == 4 || n == 11);
    assert_true(z >= 0 && z < m->nsizes);
    assert_true(i >= 0 && i < atune__space_size(m));
    atune__devattr_default(&dev);
    vs.n = 0;
    assert_int_equal(atune__size_vars(&m->sizes[z], &vs), 0);
    assert_int_equal(atune__devattr_vars(&dev, &vs), 0);
    atune__space_config(m, i, &c);
    rc = atune__space_check(m, &c, &vs, &dev, &l, reason, sizeof(reason), &err);
    if (rc != 0 && rc != 1)
        fail_msg("%s size %d config %ld: %s", m->name, z, i, err.msg);
    if (runs != rc || v != !(rc == 0 && !strncmp(reason, "constraint", 10)))
        fail_msg("%s size %s config %ld: header says valid %d, runs %d; the "
                 "tool: %d (%s)",
                 m->name, m->sizes[z].name, i, v, runs, rc, reason);
    if (rc == 1 && ((int64_t)d[0] != l.grid[0] || (int64_t)d[1] != l.grid[1] ||
                    (int64_t)d[2] != l.grid[2] || (int64_t)d[3] != l.block[0] ||
                    (int64_t)d[4] != l.block[1] ||
                    (int64_t)d[5] != l.block[2] || (int64_t)d[6] != l.shared))
        fail_msg("%s size %s config %ld: header launch %s differs", m->name,
                 m->sizes[z].name, i, line);
    {
        int64_t mv[ATUNE__MAX_MACROS];
        const char *p = strchr(line, '|');
        int nm = 0, used;
        long long x;
        assert_non_null(p);
        if (atune__macro_values(m, c.v, mv, &err) != 0)
            fail_msg("%s config %ld: %s", m->name, i, err.msg);
        for (p++; sscanf(p, "%lld%n", &x, &used) == 1; p += used, nm++) {
            assert_true(nm < m->nmacros);
            if (x != mv[nm])
                fail_msg("%s config %ld: header macro %s = %lld, the tool "
                         "%" PRId64,
                         m->name, i, m->macros[nm].name, x, mv[nm]);
        }
        assert_int_equal(nm, m->nmacros);
    }
    (*checked)++;
}

/* dir: the template folder (NULL: the built-in templates). */
static void check_template(const char *dir, const atune__manifest *m)
{
    const char *bin = getenv("ATUNE_BINARY");
    char T[64], path[4200], line[512];
    long checked = 0;
    /* Every size of small spaces; of larger ones every stride-th and the
     * last, about 8 million lines in all (matmul: 933,120 configurations
     * at 40 sizes would be a 1 GB file). */
    const long per_size = (long)atune__space_size(m);
    const int stride =
        (int)(1 + (per_size * m->nsizes - 1) / 8000000);
    int picked = 0;
    FILE *f;

    assert_non_null(bin);
    for (size_t i = 0; i <= strlen(m->name); i++)
        T[i] = (char)(m->name[i] >= 'a' && m->name[i] <= 'z'
                          ? m->name[i] - 'a' + 'A'
                          : m->name[i]);
    sh("'%s' header %s%s%s --kernel %s -o %s/atune_%s.h", bin,
       dir ? "--templates '" : "", dir ? dir : "", dir ? "'" : "", m->name,
       tmp, m->name);
    snprintf(path, sizeof(path), "%s/drv_%s.c", tmp, m->name);
    write_driver(path, m->name, T);
    sh("cc -std=c17 -Wall -Wextra -Wpedantic -Werror -O1 -I%s -o %s/drv_%s "
       "%s",
       tmp, tmp, m->name, path);
    for (int z = 0; z < m->nsizes; z++)
        picked += z % stride == 0 || z == m->nsizes - 1;
    sh("%s/drv_%s %d %d > %s/out_%s.txt", tmp, m->name, stride,
       m->nsizes - 1, tmp, m->name);
    snprintf(path, sizeof(path), "%s/out_%s.txt", tmp, m->name);
    f = fopen(path, "r");
    assert_non_null(f);
    while (fgets(line, sizeof(line), f))
        check_line(m, line, &checked);
    fclose(f);
    /* Every configuration at every picked size, once. */
    assert_int_equal(checked, per_size * picked);
    printf("%s: %ld configurations x sizes agree (%d of %d sizes)\n",
           m->name, checked, picked, m->nsizes);
}

static void test_every_builtin_template(void **state)
{
    atune__templates t = {0};
    atune__err err = {0};

    (void)state;
    if (atune__templates_load(NULL, NULL, &t, &err) != 0)
        fail_msg("%s", err.msg);
    assert_true(t.n >= 5);
    for (int i = 0; i < t.n; i++)
        check_template(NULL, t.m[i]);
    atune__templates_free(&t);
}

/* A size may name its variables in another order than the first size:
 * each value goes to its own variable (the header once assigned them in
 * the first size's order, swapping m and n below, and with them the
 * grid). */
static void test_size_variable_order(void **state)
{
    static const char cu[] =
        "extern \"C\" __global__ void order_tuned(float *out, int m, int n)\n"
        "{\n"
        "    const int c = blockIdx.x * BX + threadIdx.x;\n"
        "    const int r = blockIdx.y * 16 + threadIdx.y;\n"
        "    if (r < m && c < n)\n"
        "        out[r * n + c] = (float)(r - c);\n"
        "}\n"
        "extern \"C\" __global__ void order_ref(float *out, int m, int n)\n"
        "{\n"
        "    const int c = blockIdx.x * 16 + threadIdx.x;\n"
        "    const int r = blockIdx.y * 16 + threadIdx.y;\n"
        "    if (r < m && c < n)\n"
        "        out[r * n + c] = (float)(r - c);\n"
        "}\n";
    static const char ini[] =
        "[template]\n"
        "kernel = order_tuned\n"
        "reference = order_ref\n"
        "reference_block = 16, 16\n"
        "reference_grid = cdiv(n, 16), cdiv(m, 16)\n"
        "metric = GB/s\n"
        "work = 4 * m * n\n"
        "tolerance = 0\n"
        "[sizes]\n"
        "first = m=300, n=20\n"
        "second = n=500, m=10\n"
        "third = n=m=64\n"
        "[params]\n"
        "BX = 16, 32\n"
        "[launch]\n"
        "block = BX, 16\n"
        "grid = cdiv(n, BX), cdiv(m, 16)\n"
        "[args]\n"
        "out = float[m * n] output\n"
        "m = int m\n"
        "n = int n\n";
    atune__templates t = {0};
    atune__err err = {0};
    char dir[4200], path[4300];

    (void)state;
    snprintf(dir, sizeof(dir), "%s/order", tmp);
    sh("mkdir -p '%s'", dir);
    snprintf(path, sizeof(path), "%s/order.cu", dir);
    write_text(path, cu);
    snprintf(path, sizeof(path), "%s/order.ini", dir);
    write_text(path, ini);
    if (atune__templates_load(dir, "order", &t, &err) != 0)
        fail_msg("%s", err.msg);
    assert_int_equal(t.m[0]->nsizes, 3);
    check_template(dir, t.m[0]);
    atune__templates_free(&t);
}

/* The hash in the header is the one the tool and the library record. */
static void test_hash_and_errors(void **state)
{
    const char *bin = getenv("ATUNE_BINARY");
    atune__templates t = {0};
    atune__err err = {0};
    char path[4200], want[64], *text = NULL;
    int rc;

    (void)state;
    assert_int_equal(atune__templates_load(NULL, "saxpy", &t, &err), 0);
    snprintf(path, sizeof(path), "%s/atune_saxpy.h", tmp);
    sh("'%s' header --kernel saxpy -o %s", bin, path);
    assert_int_equal(atune__read_file(path, &text, NULL, &err), 0);
    snprintf(want, sizeof(want), "ATUNE_SAXPY_TEMPLATE_HASH \"%016" PRIx64 "\"",
             t.m[0]->hash);
    assert_non_null(strstr(text, want));
    free(text);
    atune__templates_free(&t);
    snprintf(path, sizeof(path),
             "'%s' header --kernel nosuch -o %s/x.h "
             "2>/dev/null",
             bin, tmp);
    rc = system(path);
    assert_true(WIFEXITED(rc) && WEXITSTATUS(rc) == 64);
    snprintf(path, sizeof(path), "%s/x.h", tmp);
    assert_int_equal(access(path, F_OK), -1); /* nothing half-written */
    snprintf(path, sizeof(path), "'%s' header 2>/dev/null", bin);
    rc = system(path);
    assert_true(WIFEXITED(rc) && WEXITSTATUS(rc) == 64);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_builtin_template),
        cmocka_unit_test(test_hash_and_errors),
        cmocka_unit_test(test_size_variable_order),
    };
    int rc;

    if (!mkdtemp(tmp))
        return 1;
    rc = cmocka_run_group_tests(tests, NULL, NULL);
    rm_rf(tmp);
    return rc;
}
