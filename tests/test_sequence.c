/* test_sequence.c -- launch sequences ([launch.NAME] sections): the
 * parsing rules and their errors (file:line), the launch limits of every
 * step in the space, the entry points compiled, and libatune_jit launching
 * every step in order on the stub driver (a child process with the stub
 * first on LD_LIBRARY_PATH and ATUNE_STUB_LAUNCH_LOG). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include <atune/atune_jit.h>

#include "jit/cudrv.h"
#include "template/manifest.h"
#include "template/space.h"
#include "testutil.h"

static const char cu_text[] =
    "extern \"C\" __global__ void first(const float *in, float *tmp, long n)"
    " {}\n"
    "extern \"C\" __global__ void second(const float *tmp, float *out, int k)"
    " {}\n"
    "extern \"C\" __global__ void ref(const float *in, float *tmp, float "
    "*out, long n, int k) {}\n";

/* Line numbers of the manifest below matter to the error tests. */
static const char ini[] =
    "[template]\n"                  /* 1 */
    "metric = GB/s\n"               /* 2 */
    "work = 8 * n\n"                /* 3 */
    "\n"                            /* 4 */
    "[sizes]\n"                     /* 5 */
    "small = n=4096\n"              /* 6 */
    "\n"                            /* 7 */
    "[params]\n"                    /* 8 */
    "B1 = 128, 256\n"               /* 9 */
    "B2 = 64, 2048\n"               /* 10 */
    "\n"                            /* 11 */
    "[launch.one]\n"                /* 12 */
    "kernel = first\n"              /* 13 */
    "block = B1\n"                  /* 14 */
    "grid = cdiv(n, B1)\n"          /* 15 */
    "args = in, tmp, n\n"           /* 16 */
    "\n"                            /* 17 */
    "[launch.two]\n"                /* 18 */
    "kernel = second\n"             /* 19 */
    "block = B2\n"                  /* 20 */
    "grid = 3, 2\n"                 /* 21 */
    "shared = 4 * B2\n"             /* 22 */
    "args = tmp, out, k\n"          /* 23 */
    "\n"                            /* 24 */
    "[args]\n"                      /* 25 */
    "in = float[n] input\n"         /* 26 */
    "tmp = float[n] scratch\n"      /* 27 */
    "out = float[n] output\n"       /* 28 */
    "n = long n\n"                  /* 29 */
    "k = int B1 + 1\n";             /* 30 */

static int parse(const char *text, atune__manifest **m, atune__err *err)
{
    return atune__manifest_parse("seq", "d/seq.ini", text, "d/seq.cu", cu_text, m,
                                 err);
}

/* ini with the line that starts with `from` replaced by `to` (a line or
 * several, "\n"-separated; "" deletes it). */
static char *edited(const char *from, const char *to)
{
    const char *at = strstr(ini, from);
    const char *eol;
    char *out;

    assert_non_null(at);
    eol = strchr(at, '\n');
    out = malloc(sizeof(ini) + strlen(to) + 2);
    assert_non_null(out);
    sprintf(out, "%.*s%s%s%s", (int)(at - ini), ini, to, *to ? "\n" : "",
            eol + 1);
    return out;
}

static void expect_error(const char *text, const char *want)
{
    atune__manifest *m = NULL;
    atune__err err = {0};

    assert_int_equal(parse(text, &m, &err), ATUNE__EDATA);
    assert_null(m);
    if (!strstr(err.msg, want))
        fail_msg("want '%s' in '%s'", want, err.msg);
}

static void test_parse(void **state)
{
    atune__manifest *m = NULL;
    atune__err err = {0};
    const char *names[ATUNE__MAX_STEPS + 1];

    (void)state;
    if (parse(ini, &m, &err) != ATUNE__OK)
        fail_msg("%s", err.msg);
    assert_true(m->sequence);
    assert_int_equal(m->nsteps, 2);
    assert_string_equal(m->steps[0].name, "one");
    assert_string_equal(m->steps[0].kernel, "first");
    assert_int_equal(m->steps[0].kernel_line, 13);
    assert_string_equal(m->steps[1].name, "two");
    assert_string_equal(m->steps[1].kernel, "second");
    assert_int_equal(m->steps[1].line, 18);
    assert_int_equal(m->steps[1].block.line, 20);
    assert_int_equal(m->steps[1].grid.n, 2);
    assert_int_equal(m->steps[1].shared_line, 22);
    /* args by name, in the kernel's order: tmp (1), out (2), k (4) */
    assert_int_equal(m->steps[1].nargs, 3);
    assert_int_equal(m->steps[1].arg[0], 1);
    assert_int_equal(m->steps[1].arg[1], 2);
    assert_int_equal(m->steps[1].arg[2], 4);
    assert_int_equal(m->steps[0].nargs, 3);
    assert_int_equal(m->steps[0].arg[2], 3);
    /* What reads the first launch only finds it where [launch] is. */
    assert_string_equal(m->kernel, "first");
    assert_int_equal(m->kernel_line, 13);
    assert_int_equal(m->block.line, 14);
    /* Without a reference kernel: its own default configuration. */
    assert_true(m->ref_is_default);
    assert_int_equal(atune__manifest_entries(m, names), 2);
    assert_string_equal(names[0], "first");
    assert_string_equal(names[1], "second");
    /* B2 is read by step two's launch only. */
    assert_true(atune__manifest_expr_reads(m, "B2"));
    atune__manifest_free(m);
}

static void test_reference_kernel(void **state)
{
    char *t = edited("metric = GB/s", "reference = ref\nreference_block = 1\n"
                                      "reference_grid = 1\nmetric = GB/s");
    atune__manifest *m = NULL;
    atune__err err = {0};
    const char *names[ATUNE__MAX_STEPS + 1];

    (void)state;
    if (parse(t, &m, &err) != ATUNE__OK)
        fail_msg("%s", err.msg);
    assert_false(m->ref_is_default);
    assert_int_equal(atune__manifest_entries(m, names), 3);
    assert_string_equal(names[2], "ref");
    atune__manifest_free(m);
    free(t);
}

/* A reference that is a sequence: [reference.NAME] sections, compiled
 * after the steps, launched with no parameter in their expressions. */
static void test_reference_sequence(void **state)
{
    char *t = edited("[args]", "[reference.a]\nkernel = ref\nblock = 1\n"
                               "grid = n\nargs = in, tmp, out, n, k\n"
                               "[reference.b]\nkernel = second\n"
                               "block = 32\ngrid = 1\nshared = 64\n"
                               "args = tmp, out, k\n[args]");
    char *bad;
    atune__manifest *m = NULL;
    atune__err err = {0};
    const char *names[ATUNE__MAX_STEPS + 1];

    (void)state;
    if (parse(t, &m, &err) != ATUNE__OK)
        fail_msg("%s", err.msg);
    assert_int_equal(m->nref_steps, 2);
    assert_false(m->ref_is_default);
    assert_string_equal(m->reference, "ref");
    assert_string_equal(m->ref_steps[1].name, "b");
    assert_int_equal(m->ref_steps[1].nargs, 3);
    assert_int_equal(m->ref_steps[1].arg[2], 4);
    assert_int_equal(atune__manifest_entries(m, names), 4);
    assert_string_equal(names[2], "ref");
    assert_string_equal(names[3], "second");
    atune__manifest_free(m);
    /* its launches are the same for every configuration */
    bad = edited("[args]", "[reference.a]\nkernel = ref\nblock = B1\n"
                           "grid = 1\n[args]");
    expect_error(bad, "d/seq.ini:27: block 'B1' uses parameter 'B1': the "
                      "reference runs once for all configurations");
    free(bad);
    bad = edited("metric = GB/s", "reference_grid = 1\nmetric = GB/s");
    free(t);
    t = malloc(strlen(bad) + 64);
    assert_non_null(t);
    sprintf(t, "%s[reference.a]\nkernel = ref\nblock = 1\ngrid = 1\n", bad);
    expect_error(t, "d/seq.ini:2: 'reference_grid' in [template] beside "
                    "[reference.a] (line 32)");
    free(bad);
    free(t);
}

static void test_single_launch_is_one_step(void **state)
{
    static const char one[] = "[template]\nkernel = ref\nmetric = GB/s\n"
                              "work = n\n[sizes]\ns = n=64\n[params]\nB = 1\n"
                              "[launch]\nblock = B\ngrid = 1\n[args]\n"
                              "in = float[n] input\ntmp = float[n] scratch\n"
                              "out = float[n] output\nn = long n\nk = int 1\n";
    atune__manifest *m = NULL;
    atune__err err = {0};
    const char *names[ATUNE__MAX_STEPS + 1];

    (void)state;
    if (parse(one, &m, &err) != ATUNE__OK)
        fail_msg("%s", err.msg);
    assert_false(m->sequence);
    assert_int_equal(m->nsteps, 1);
    assert_string_equal(m->steps[0].kernel, "ref");
    assert_string_equal(m->steps[0].name, "");
    assert_int_equal(m->steps[0].nargs, 5);
    for (int i = 0; i < 5; i++)
        assert_int_equal(m->steps[0].arg[i], i);
    assert_int_equal(atune__manifest_entries(m, names), 1);
    atune__manifest_free(m);
}

static void test_errors(void **state)
{
    static const struct {
        const char *from, *to, *want;
    } cases[] = {
        {"args = tmp, out, k", "args = tmp, out, kk",
         "d/seq.ini:23: args of [launch.two]: 'kk' is not an entry of [args]"},
        {"args = tmp, out, k", "args = tmp, out",
         "d/seq.ini:30: 'k' of [args] is passed to no kernel: no "
         "[launch.NAME] or [reference.NAME] section lists it in 'args'"},
        {"args = tmp, out, k", "args = tmp,, k",
         "d/seq.ini:23: args of [launch.two] must be 1 to 16 "
         "comma-separated names of [args], none empty"},
        {"metric = GB/s", "kernel = first\nmetric = GB/s",
         "d/seq.ini:2: 'kernel' in [template] of a launch sequence: each "
         "[launch.NAME] section names its own kernel"},
        {"metric = GB/s", "reference_block = 1\nmetric = GB/s",
         "d/seq.ini:2: 'reference_block' without 'reference': a launch "
         "sequence"},
        {"kernel = second", "kernel = third",
         "d/seq.ini:19: kernel 'third' not found in seq.cu"},
        {"kernel = second", "", "d/seq.ini:18: missing key 'kernel' in "
                                "[launch.two]"},
        {"block = B2", "", "d/seq.ini:18: missing key 'block' in [launch.two]"},
        {"block = B2", "block = B2\nthreads = 4",
         "d/seq.ini:21: unknown key 'threads' in [launch.two]"},
        {"grid = 3, 2", "grid = 3, q",
         "d/seq.ini:21: unknown variable 'q' in grid 'q'"},
        {"shared = 4 * B2", "shared = 4 * B3",
         "d/seq.ini:22: unknown variable 'B3' in shared"},
        {"[launch.two]", "[launch.2nd]", "d/seq.ini:18: "},
        {"[launch.two]", "[launch.one]",
         "d/seq.ini:18: duplicate section [launch.one] (first at line 12)"},
        {"[args]", "[launch]\nblock = 1\ngrid = 1\n[args]",
         "d/seq.ini:25: [launch] beside [launch.one] (line 12): a template "
         "is either one launch ([launch]) or a sequence"},
        {"kernel = second", "kernel = ${B1}x",
         "d/seq.ini:19: '${B1}x' with B1=128 is '128x', not found in seq.cu"},
    };

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char *t = edited(cases[i].from, cases[i].to);
        expect_error(t, cases[i].want);
        free(t);
    }
}

static void test_too_many_steps(void **state)
{
    char text[8192], *p = text;

    (void)state;
    p += sprintf(p, "[template]\nmetric = GB/s\nwork = n\n[sizes]\ns = n=64\n"
                    "[params]\nB = 1\n");
    for (int i = 0; i <= ATUNE__MAX_STEPS; i++)
        p += sprintf(p, "[launch.s%d]\nkernel = first\nblock = 1\ngrid = 1\n"
                        "args = in, tmp, n\n",
                     i);
    sprintf(p, "[args]\nin = float[n] input\ntmp = float[n] output\n"
               "n = long n\n");
    /* The ninth section starts at line 8 + 8 * 5. */
    expect_error(text, "d/seq.ini:48: more than 8 [launch.NAME] sections");
}

/* Each step's launch against the device's limits: B2 = 2048 is too many
 * threads for step two, with the reason naming the launch and its line. */
static void test_space(void **state)
{
    atune__manifest *m = NULL;
    atune__err err = {0};
    atune__devattr dev;
    atune__vars vs = {0};
    atune__launch all[ATUNE__MAX_STEPS];
    atune__config c;
    atune__valid_set set = {0};
    int64_t counts[1];
    char why[256];

    (void)state;
    assert_int_equal(parse(ini, &m, &err), ATUNE__OK);
    atune__devattr_default(&dev);
    assert_int_equal(atune__size_vars(&m->sizes[0], &vs), 0);
    assert_int_equal(atune__devattr_vars(&dev, &vs), 0);
    /* B1=256, B2=64 */
    c.v[0] = 256;
    c.v[1] = 64;
    assert_int_equal(atune__space_launches(m, &c, &vs, &dev, all, why,
                                           sizeof(why), &err),
                     1);
    assert_int_equal(all[0].block[0], 256);
    assert_int_equal(all[0].grid[0], 16);
    assert_int_equal(all[1].block[0], 64);
    assert_int_equal(all[1].grid[0], 3);
    assert_int_equal(all[1].grid[1], 2);
    assert_int_equal(all[1].grid[2], 1);
    assert_int_equal(all[1].shared, 256);
    /* B2=2048 */
    c.v[1] = 2048;
    assert_int_equal(atune__space_check(m, &c, &vs, &dev, NULL, why,
                                        sizeof(why), &err),
                     0);
    assert_string_equal(why, "launch 'two': block of 2048 threads exceeds 1024");
    /* The enumeration prunes on the first launch only and checks the
     * rest of each configuration it keeps: 2 of 4 valid. */
    assert_int_equal(atune__space_build(m, &m->sizes[0], &dev, NULL, &set,
                                        NULL, &err),
                     0);
    assert_int_equal(set.n, 2);
    for (int64_t i = 0; i < set.n; i++) {
        atune__space_config(m, set.index[i], &c);
        assert_int_equal(c.v[1], 64);
    }
    atune__valid_set_free(&set);
    assert_int_equal(atune__space_validate(m, &dev, NULL, counts, &err), 0);
    assert_int_equal(counts[0], 2);
    atune__manifest_free(m);
}

/* When the default configuration is not valid at a size, the error names
 * the launch that does not fit; with a reference kernel, where no
 * configuration is valid, the step's line. */
static void test_space_error_line(void **state)
{
    char *t = edited("B2 = 64, 2048", "B2 = 2048");
    char *r = edited("B2 = 64, 2048",
                     "B2 = 2048\n[constraints]\nc = B1 < 200");
    char *rr;
    atune__manifest *m = NULL;
    atune__err err = {0};
    atune__devattr dev;

    (void)state;
    atune__devattr_default(&dev);
    assert_int_equal(parse(t, &m, &err), ATUNE__OK);
    assert_int_not_equal(atune__space_validate(m, &dev, NULL, NULL, &err), 0);
    if (!strstr(err.msg, "the default configuration of the launch sequence "
                         "(B1=128,B2=2048), which is not valid: launch "
                         "'two': block of 2048 threads exceeds 1024"))
        fail_msg("got '%s'", err.msg);
    atune__manifest_free(m);
    /* with a reference kernel: no configuration valid, the step's line */
    rr = malloc(strlen(r) + 100);
    assert_non_null(rr);
    strcpy(rr, "[template]\nreference = ref\nreference_block = 1\n"
               "reference_grid = 1");
    strcat(rr, r + strlen("[template]"));
    m = NULL;
    assert_int_equal(parse(rr, &m, &err), ATUNE__OK);
    assert_int_not_equal(atune__space_validate(m, &dev, NULL, NULL, &err), 0);
    /* [launch.two]'s block is at line 20 + 3 (reference lines) + 2
     * ([constraints]) */
    if (!strstr(err.msg, "d/seq.ini:25"))
        fail_msg("want d/seq.ini:25 in '%s'", err.msg);
    atune__manifest_free(m);
    free(t);
    free(r);
    free(rr);
}

/* --- libatune_jit on the stub driver --------------------------------------- */

static const char *source_dir(void)
{
    const char *dir = getenv("ATUNE_SOURCE_DIR");

    if (!dir || !*dir)
        fail_msg("ATUNE_SOURCE_DIR is not set: run this test through ctest");
    return dir;
}

/* In the child: opens tests/data/sequence/two_pass_sum, builds
 * BLOCK=128,PARTS=1024,MERGE=256 and launches it once at n=1000003 with
 * made-up device addresses. */
static int launch_child(const char *dir)
{
    const atune__cudrv *cu;
    atune__err err = {0};
    CUdevice dev;
    CUcontext ctx;
    atune_jit *j = NULL;
    atune_profile *p = NULL;
    const atune_config *c = NULL;
    atune_jit_kernel *k = NULL;
    /* 8 bytes each: the stub reads every argument as 8 bytes. */
    uint64_t in = 0x1000, part = 0x2000, total = 0x3000;
    int64_t n = 1000003, parts = 1024;
    void *args[] = {&in, &part, &total, &n, &parts};
    static const char prof[] =
        "[device]\nformat = 1\nname = NVIDIA Stub H100\n"
        "slug = nvidia-stub-h100\ncc = 90\nsm_count = 132\n"
        "mem_bandwidth_gbs = 3352\nl2_bytes = 52428800\ndriver = 13000\n"
        "nvrtc = 13000\nuuid = GPU-0\ndate = 2026-11-26\ntuner = 0.1.0\n"
        "[two_pass_sum n=1000003]\nsize = odd\nBLOCK = 128\nPARTS = 1024\n"
        "MERGE = 256\ntime_ns = 1000\nspread_ns = 1\nmetric = 1 GB/s\n"
        "default_time_ns = 1000\nevaluated = 1\nspace = 36\n"
        "strategy = brute_force\ntemplate_hash = 0123456789abcdef\n";

    if (!(cu = atune__cudrv_load(&err)) || cu->cuInit(0) ||
        cu->cuDeviceGet(&dev, 0) || cu->cuDevicePrimaryCtxRetain(&ctx, dev) ||
        cu->cuCtxSetCurrent(ctx))
        return 2;
    if (atune_jit_open(dir, "two_pass_sum", &j) != ATUNE_OK)
        return 3;
    if (atune_profile_open_string("seq.ini", prof, strlen(prof), &p) !=
            ATUNE_OK ||
        atune_profile_lookup(p, "two_pass_sum", "n=1000003", &c) !=
            ATUNE_OK) {
        fprintf(stderr, "%s\n", atune_profile_errmsg(p));
        return 4;
    }
    if (atune_jit_build(j, c, &k) != ATUNE_OK) {
        fprintf(stderr, "%s\n", atune_jit_errmsg(j));
        return 5;
    }
    if (atune_jit_launch(k, "n=1000003", args, NULL) != ATUNE_OK) {
        fprintf(stderr, "%s\n", atune_jit_errmsg(j));
        return 6;
    }
    atune_jit_close(j);
    atune_profile_close(p);
    return 0;
}

static void test_jit_launches_sequence(void **state)
{
    const char *stub = getenv("ATUNE_STUB_DRIVER_DIR");
    char dir[4200], log[] = "/tmp/atune_seq_log_XXXXXX", cache[4200];
    char cmd[12000], line[512];
    FILE *f;
    int fd, nl = 0;

    (void)state;
    if (!stub)
        skip();
    snprintf(dir, sizeof(dir), "%s/tests/data/sequence", source_dir());
    fd = mkstemp(log);
    assert_true(fd >= 0);
    close(fd);
    snprintf(cache, sizeof(cache), "%s.cache", log);
    snprintf(cmd, sizeof(cmd),
             "LD_LIBRARY_PATH='%s' ATUNE_STUB_LAUNCH_LOG='%s' "
             "ATUNE_CACHE_DIR='%s' /proc/%ld/exe launch-child '%s'",
             stub, log, cache, (long)getpid(), dir);
    assert_int_equal(system(cmd), 0);
    f = fopen(log, "r");
    assert_non_null(f);
    /* In order, each with its own shape and its own arguments: partial
     * (in, part, n), then merge (part, parts, total). */
    while (fgets(line, sizeof(line), f)) {
        line[strcspn(line, "\n")] = '\0';
        if (nl == 0)
            assert_string_equal(line, "partial_sums grid=1024,1,1 "
                                      "block=128,1,1 shared=0 "
                                      "args=4096,8192,1000003");
        else if (nl == 1)
            assert_string_equal(line, "merge_sums grid=1,1,1 block=256,1,1 "
                                      "shared=2048 args=8192,1024,12288");
        nl++;
    }
    fclose(f);
    assert_int_equal(nl, 2);
    unlink(log);
    rm_rf(cache);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse),
        cmocka_unit_test(test_reference_kernel),
        cmocka_unit_test(test_reference_sequence),
        cmocka_unit_test(test_single_launch_is_one_step),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_too_many_steps),
        cmocka_unit_test(test_space),
        cmocka_unit_test(test_space_error_line),
        cmocka_unit_test(test_jit_launches_sequence),
    };

    if (argc == 3 && strcmp(argv[1], "launch-child") == 0)
        return launch_child(argv[2]);
    return cmocka_run_group_tests(tests, NULL, NULL);
}
