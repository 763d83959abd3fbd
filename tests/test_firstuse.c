/* test_firstuse.c -- tuning at first use (appjit/firstuse.c,
 * docs/first-use.md) on the stub driver: effort selection; measure writes
 * an exact entry into the user's profile directory, so that a second
 * process gets an exact hit and measures nothing; profile and estimate
 * never measure; too little free device memory falls back to estimate;
 * several threads asking for the same new size measure it once
 * (tests/ci.d/tsan_jit.sh runs that case under ThreadSanitizer).
 *
 * The work happens in child processes of this binary (/proc/self/exe
 * child ...), started with the stub driver's folder in LD_LIBRARY_PATH;
 * "nothing measured" is read from the stub's log of the helper kernels
 * (ATUNE_STUB_HELPER_LOG): measuring fills buffers, serving does not. */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "testutil.h"

#include <atune/atune.h>
#include <atune/atune_jit.h>

#include "jit/cudrv.h"

static char tmp[] = "/tmp/atune-test-firstuse-XXXXXX";
static const char *stub;

/* A profile of another GPU model on the search path (ATUNE_PROFILE_PATH):
 * its nearest entries are candidates too. */
static const char other_gpu[] =
    "[device]\nformat = 1\nname = Other GPU\ncc = 80\nsm_count = 108\n"
    "[copy n=1048576]\nBLOCK_SIZE = 256\nVW = 4\nUNROLL = 1\nGRID = 0\n"
    "EVICT = 0\n"
    "[copy n=4194304]\nBLOCK_SIZE = 512\nVW = 2\nUNROLL = 2\nGRID = 0\n"
    "EVICT = 0\n";

/* --- children --------------------------------------------------------------- */

static atune_profile *open_for_gpu(const atune__cudrv *cu, CUdevice d)
{
    atune_device dev = {"", 0, 0, ""};
    atune_profile *p = NULL;
    int major = 0, minor = 0, sms = 0;

    cu->cuDeviceGetName(dev.name, (int)sizeof(dev.name), d);
    cu->cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR,
                             d);
    cu->cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR,
                             d);
    cu->cuDeviceGetAttribute(&sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, d);
    dev.cc = 10 * major + minor;
    dev.sm_count = sms;
    if (atune_profile_open_for(NULL, &dev, &p) != ATUNE_OK) {
        atune_profile_close(p);
        return NULL;
    }
    return p;
}

static int make_current(const atune__cudrv *cu, CUdevice *d)
{
    CUcontext ctx;

    return !cu || cu->cuDeviceGet(d, 0) != CUDA_SUCCESS ||
           cu->cuDevicePrimaryCtxRetain(&ctx, *d) != CUDA_SUCCESS ||
           cu->cuCtxSetCurrent(ctx) != CUDA_SUCCESS;
}

/* serve SIZE...: the example application of tests/gpu_firstuse.sh: one
 * handle of ATUNE_TEST_KERNEL (default copy), the effort of ATUNE_EFFORT,
 * the profile the search path has for the GPU; prints "GPU <name>", then
 * per size "MSG <message>", "CFG <configuration>" and "MS <wall time of
 * atune_jit_config_for>". Exit 2 without a driver or GPU. */
static int serve_child(int argc, char **argv)
{
    const atune__cudrv *cu = atune__cudrv_load(NULL);
    const char *kernel = getenv("ATUNE_TEST_KERNEL");
    atune_profile *p;
    atune_jit *j = NULL;
    CUdevice d = 0;
    char msg[4096], name[256] = "";
    struct timespec t0, t1;

    if (make_current(cu, &d) ||
        atune_jit_open(NULL, kernel && *kernel ? kernel : "copy", &j) !=
            ATUNE_OK)
        return 2;
    cu->cuDeviceGetName(name, (int)sizeof(name), d);
    printf("GPU %s\n", name);
    p = open_for_gpu(cu, d);
    for (int i = 2; i < argc; i++) {
        const atune_config *c = NULL;
        char cfg[256] = "defaults";
        int rc;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        rc = atune_jit_config_for(j, p, argv[i], NULL, &c, msg, sizeof(msg));
        clock_gettime(CLOCK_MONOTONIC, &t1);
        if (rc != ATUNE_OK) {
            printf("ERR %d %s\n", rc, atune_jit_errmsg(j));
            return 3;
        }
        for (int k = 0, used = 0; c && k < atune_config_count(c); k++)
            used += snprintf(cfg + used, sizeof(cfg) - (size_t)used,
                             "%s%s=%lld", k ? "," : "", atune_config_name(c, k),
                             (long long)atune_config_value(c, k));
        printf("MSG %s\nCFG %s\nMS %.1f\n", msg, cfg,
               (double)(t1.tv_sec - t0.tv_sec) * 1e3 +
                   (double)(t1.tv_nsec - t0.tv_nsec) / 1e6);
    }
    atune_jit_close(j);
    atune_profile_close(p);
    return 0;
}

/* sized DIR SIZE...: template szn of DIR (its kernel's name reads the
 * size n), the configuration atune_jit_config_for serves at each size
 * (ATUNE_EFFORT decides), built and launched at that size with
 * atune_jit_launch; prints "FN <function>" per launch and, at the end,
 * "MISSES <modules compiled>". */
static int sized_child(int argc, char **argv)
{
    const atune__cudrv *cu = atune__cudrv_load(NULL);
    atune_jit *j = NULL;
    CUdevice d = 0;
    CUdeviceptr in = 0x1000, out = 0x2000;
    char msg[4096];
    long hits = 0, misses = 0;

    if (make_current(cu, &d) || atune_jit_open(argv[2], "szn", &j) != ATUNE_OK)
        return 2;
    for (int i = 3; i < argc; i++) {
        const atune_config *c = NULL;
        atune_jit_kernel *k = NULL;
        long n = strtol(strchr(argv[i], '=') + 1, NULL, 10);
        void *args[] = {&in, &out, &n, NULL};
        if (atune_jit_config_for(j, NULL, argv[i], NULL, &c, msg,
                                 sizeof(msg)) != ATUNE_OK ||
            atune_jit_build(j, c, &k) != ATUNE_OK ||
            atune_jit_launch(k, argv[i], args, NULL) != ATUNE_OK) {
            printf("ERR %s\n", atune_jit_errmsg(j));
            return 3;
        }
        printf("FN %p\n", (void *)atune_jit_kernel_function(k));
    }
    atune_jit_cache_stats(j, &hits, &misses);
    printf("MISSES %ld\n", misses);
    atune_jit_close(j);
    return 0;
}

#define NTHREADS 6

static pthread_barrier_t start;
static const char *thread_size;
static char thread_msg[NTHREADS][4096];
static char thread_cfg[NTHREADS][256];

static void *thread_main(void *arg)
{
    long id = (long)arg;
    const atune__cudrv *cu = atune__cudrv_load(NULL);
    const atune_config *c = NULL;
    atune_jit *j = NULL;
    CUdevice d = 0;
    int rc;

    if (make_current(cu, &d) || atune_jit_open(NULL, "copy", &j) != ATUNE_OK)
        return (void *)1;
    pthread_barrier_wait(&start);
    rc = atune_jit_config_for(j, NULL, thread_size, NULL, &c, thread_msg[id],
                              sizeof(thread_msg[id]));
    for (int k = 0, used = 0; rc == ATUNE_OK && c && k < atune_config_count(c);
         k++)
        used += snprintf(thread_cfg[id] + used,
                         sizeof(thread_cfg[id]) - (size_t)used, "%s%s=%lld",
                         k ? "," : "", atune_config_name(c, k),
                         (long long)atune_config_value(c, k));
    atune_jit_close(j);
    return (void *)(long)(rc != ATUNE_OK);
}

/* threads SIZE: NTHREADS threads, a handle each, ask for SIZE at once;
 * prints each thread's message and configuration. */
static int threads_child(const char *size)
{
    pthread_t th[NTHREADS];
    int bad = 0;

    thread_size = size;
    pthread_barrier_init(&start, NULL, NTHREADS);
    for (long i = 0; i < NTHREADS; i++)
        if (pthread_create(&th[i], NULL, thread_main, (void *)i) != 0)
            return 2;
    for (int i = 0; i < NTHREADS; i++) {
        void *r;
        pthread_join(th[i], &r);
        bad |= r != NULL;
    }
    pthread_barrier_destroy(&start);
    for (int i = 0; i < NTHREADS; i++)
        printf("MSG %s\nCFG %s\n", thread_msg[i], thread_cfg[i]);
    return bad ? 3 : 0;
}

/* forked A B: measures A on one handle, then forks while a thread
 * measures B on another; the child measures and closes the first handle
 * (under ATUNE_STUB_DELAY_US the race lasts seconds). Prints "CHILD n"
 * with its exit status, or "CHILD hung". */
static atune_jit *fork_j[2];
static void *fork_measure(void *arg)
{
    const atune_config *c;
    char msg[4096];
    CUdevice d;

    make_current(atune__cudrv_load(NULL), &d);
    atune_jit_config_for(fork_j[1], NULL, arg, NULL, &c, msg, sizeof(msg));
    return NULL;
}

static int forked_child(const char *a, const char *b)
{
    const atune_config *c;
    char msg[4096];
    pthread_t th;
    CUdevice d;
    int st, pid;

    for (int i = 0; i < 2; i++)
        if (atune_jit_open(NULL, "copy", &fork_j[i]) != ATUNE_OK ||
            atune_jit_set_effort(fork_j[i], ATUNE_JIT_EFFORT_MEASURE))
            return 2;
    if (make_current(atune__cudrv_load(NULL), &d) ||
        atune_jit_config_for(fork_j[0], NULL, a, NULL, &c, msg, sizeof(msg)))
        return 2;
    setenv("ATUNE_STUB_DELAY_US", "20000", 1);
    pthread_create(&th, NULL, fork_measure, (void *)b);
    nanosleep(&(struct timespec){0, 300000000}, NULL);
    fflush(stdout);
    if ((pid = fork()) == 0) {
        alarm(10);
        atune_jit_config_for(fork_j[0], NULL, "n=5001", NULL, &c, msg,
                             sizeof(msg));
        atune_jit_close(fork_j[0]);
        _exit(0);
    }
    waitpid(pid, &st, 0);
    printf(WIFEXITED(st) ? "CHILD %d\n" : "CHILD hung\n", WEXITSTATUS(st));
    pthread_join(th, NULL);
    for (int i = 0; i < 2; i++)
        atune_jit_close(fork_j[i]);
    return 0;
}

/* --- the parent ------------------------------------------------------------- */

static char out_text[1 << 16];

static void path_in(char *buf, size_t len, const char *name)
{
    snprintf(buf, len, "%s/%s", tmp, name);
}

static char *slurp(const char *path)
{
    static char buf[1 << 16];
    FILE *f = fopen(path, "r");
    size_t n = 0;

    buf[0] = '\0';
    if (f) {
        n = fread(buf, 1, sizeof(buf) - 1, f);
        fclose(f);
    }
    buf[n] = '\0';
    return buf;
}

static int count(const char *text, const char *what)
{
    int n = 0;

    for (const char *s = text; (s = strstr(s, what)) != NULL; s++)
        n++;
    return n;
}

/* Runs this binary as a child with env (assignments) and args; its
 * stdout lands in out_text; the helper kernels' log is truncated first.
 * Returns the exit status. */
static int child(const char *env, const char *args)
{
    char cmd[16384], out[4200], log[4200];
    int rc;

    path_in(out, sizeof(out), "child.out");
    path_in(log, sizeof(log), "helpers.log");
    unlink(log);
    snprintf(cmd, sizeof(cmd),
             "LD_LIBRARY_PATH='%s' XDG_DATA_HOME='%s/xdg' "
             "ATUNE_PROFILE_PATH='%s/sys' ATUNE_CACHE_DIR='%s/cache' "
             "ATUNE_STUB_HELPER_LOG='%s' %s /proc/%ld/exe %s >'%s' 2>&1",
             stub, tmp, tmp, tmp, log, env, (long)getpid(), args, out);
    rc = system(cmd);
    snprintf(out_text, sizeof(out_text), "%s", slurp(out));
    return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

/* Fill launches of the last child: a measurement fills its buffers. */
static int fills(void)
{
    char log[4200];

    path_in(log, sizeof(log), "helpers.log");
    return count(slurp(log), "fill_");
}

/* The last child's "N configurations compiled (C from the module cache)". */
static void compiled_counts(int *n, int *cached)
{
    const char *m = strstr(out_text, "measured at first use (measure: ");

    assert_non_null(m);
    assert_int_equal(sscanf(m + strlen("measured at first use (measure: "),
                            "%d configurations compiled (%d from", n, cached),
                     2);
}

static const char *user_profile(void)
{
    static char path[4200];

    snprintf(path, sizeof(path), "%s/xdg/autotune/profiles/nvidia-stub-h100.ini",
             tmp);
    return path;
}

#define SKIP_WITHOUT_STUB()                                                    \
    do {                                                                       \
        if (!stub)                                                             \
            skip();                                                            \
    } while (0)

/* measure writes an exact entry; a second process gets the exact hit and
 * measures nothing, with ATUNE_EFFORT=measure still on. */
static void test_measure_then_exact(void **state)
{
    const char *prof;
    char first_cfg[256] = "";
    const char *c;

    (void)state;
    SKIP_WITHOUT_STUB();
    assert_int_equal(child("ATUNE_EFFORT=measure", "serve n=1000003"), 0);
    /* The defaults and Other GPU's two entries, then the winner's
     * one-step neighbours (at most POLISH, 16). */
    {
        const char *m = strstr(out_text, "measured at first use (measure: ");
        int n = 0;
        assert_non_null(m);
        assert_int_equal(sscanf(m + strlen("measured at first use (measure: "),
                                "%d", &n),
                         1);
        assert_true(n > 3 && n <= 3 + 16);
        assert_non_null(strstr(m, "configurations compiled"));
    }
    assert_non_null(strstr(out_text, "written to '"));
    assert_non_null(strstr(out_text, "; effort measure"));
    assert_true(fills() > 0);
    c = strstr(out_text, "CFG ");
    assert_non_null(c);
    sscanf(c + 4, "%255s", first_cfg);
    prof = slurp(user_profile());
    assert_non_null(strstr(prof, "[copy n=1000003]"));
    assert_non_null(strstr(prof, "strategy = first-use-measure"));
    assert_non_null(strstr(prof, "first_use = measure: "));
    assert_non_null(strstr(prof, "name = NVIDIA Stub H100"));
    {
        const char *e = strstr(prof, "evaluated = ");
        int n = 0;
        assert_non_null(e);
        assert_int_equal(sscanf(e + strlen("evaluated = "), "%d", &n), 1);
        assert_true(n > 3 && n <= 3 + 16);
    }

    assert_int_equal(child("ATUNE_EFFORT=measure", "serve n=1000003"), 0);
    assert_non_null(strstr(out_text, "(exact)"));
    assert_null(strstr(out_text, "measured at first use ("));
    assert_int_equal(fills(), 0);
    c = strstr(out_text, "CFG ");
    assert_non_null(c);
    assert_memory_equal(c + 4, first_cfg, strlen(first_cfg));
    /* In one process, a size measured once is answered from memory. */
    assert_int_equal(child("ATUNE_EFFORT=measure", "serve n=2000003 n=2000003"),
                     0);
    /* the same note twice */
    assert_int_equal(count(out_text, "measured at first use ("), 2);
    assert_int_equal(count(slurp(user_profile()), "[copy n=2000003]"), 1);
}

/* patient: the race, then the default search under ATUNE_EFFORT_TIME;
 * the section says so. */
static void test_patient(void **state)
{
    (void)state;
    SKIP_WITHOUT_STUB();
    assert_int_equal(child("ATUNE_EFFORT=patient ATUNE_EFFORT_TIME=1",
                           "serve n=6000011"),
                     0);
    assert_non_null(strstr(out_text, "measured at first use (patient: "));
    assert_non_null(strstr(out_text, "the default search over "));
    assert_non_null(strstr(out_text, "; effort patient"));
    assert_non_null(strstr(slurp(user_profile()),
                           "strategy = first-use-patient"));
    /* Its note, longer than a profile value may be, is cut, not lost. */
    assert_non_null(strstr(slurp(user_profile()), "first_use = patient: "));
    /* The next process: an exact hit, nothing measured. */
    assert_int_equal(child("ATUNE_EFFORT=patient", "serve n=6000011"), 0);
    assert_non_null(strstr(out_text, "(exact)"));
    assert_int_equal(fills(), 0);
}

/* profile (the default) and estimate never measure and write nothing. */
static void test_profile_never_measures(void **state)
{
    struct stat st;
    char dir[4200];

    (void)state;
    SKIP_WITHOUT_STUB();
    path_in(dir, sizeof(dir), "xdg");
    rm_rf(dir);
    assert_int_equal(child("", "serve n=3000017"), 0);
    assert_non_null(strstr(out_text, "; effort profile"));
    assert_int_equal(fills(), 0);
    assert_int_equal(child("ATUNE_EFFORT=estimate", "serve n=3000017"), 0);
    assert_non_null(strstr(out_text, "; effort estimate"));
    assert_int_equal(fills(), 0);
    assert_int_not_equal(stat(user_profile(), &st), 0);
}

/* Buffers that would not fit the free device memory: estimate, said. */
static void test_memory_fallback(void **state)
{
    struct stat st;
    char dir[4200];

    (void)state;
    SKIP_WITHOUT_STUB();
    path_in(dir, sizeof(dir), "xdg");
    rm_rf(dir);
    /* copy at n=50000000: two float buffers and the reference's copy,
     * 600 MB, on a GPU with 256 MiB. */
    assert_int_equal(child("ATUNE_EFFORT=measure ATUNE_STUB_MEM_MB=256",
                           "serve n=50000000"),
                     0);
    assert_non_null(strstr(out_text, "; effort measure: not measured ("));
    assert_non_null(strstr(out_text, "GiB of device memory"));
    assert_non_null(strstr(out_text, "falling back to estimate"));
    assert_int_equal(fills(), 0);
    assert_int_not_equal(stat(user_profile(), &st), 0);
}

/* A warm call compiles nothing: with near-equal candidates (the stub's
 * ATUNE_STUB_NEAR) another process's race puts another one first, and the
 * neighbours that race are still those the module cache holds. */
static void test_warm_compiles_nothing(void **state)
{
    char dir[4200], env[4400];

    (void)state;
    SKIP_WITHOUT_STUB();
    path_in(dir, sizeof(dir), "xdg");
    rm_rf(dir);
    snprintf(env, sizeof(env),
             "ATUNE_EFFORT=measure ATUNE_STUB_NEAR=1 ATUNE_CACHE_DIR='%s/near'",
             tmp);
    assert_int_equal(child(env, "serve n=5000011"), 0);
    assert_non_null(strstr(out_text, "measured at first use (measure: "));
    for (int seed = 2; seed <= 6; seed++) {
        int n = -1, cached = -2;
        rm_rf(dir);
        snprintf(env, sizeof(env),
                 "ATUNE_EFFORT=measure ATUNE_STUB_NEAR=%d "
                 "ATUNE_CACHE_DIR='%s/near'",
                 seed, tmp);
        assert_int_equal(child(env, "serve n=5000011"), 0);
        compiled_counts(&n, &cached);
        if (n != cached)
            fail_msg("seed %d: %d of %d configurations compiled in a warm "
                     "call: %s", seed, n - cached, n, out_text);
    }
}

/* Where the call's compiles as predicted pass ATUNE_MEASURE_MS, the race's
 * winner's neighbours that NVRTC would have to compile are left out, and
 * the note says how many; those in the module cache still race. (With the
 * default budget copy's neighbours race: test_measure_then_exact.) */
static void test_measure_budget(void **state)
{
    char env[200], tight[240], dir[4200];
    const char *m;
    int n = 0, cached = -1, left = 0;

    (void)state;
    SKIP_WITHOUT_STUB();
    path_in(dir, sizeof(dir), "xdg");
    rm_rf(dir);
    snprintf(env, sizeof(env),
             "ATUNE_EFFORT=measure ATUNE_CACHE_DIR='%s/budget'", tmp);
    snprintf(tight, sizeof(tight), "ATUNE_MEASURE_MS=0 %s", env);
    assert_int_equal(child(tight, "serve n=1000003"), 0);
    compiled_counts(&n, &cached);
    /* the defaults and Other GPU's two entries, no neighbour */
    assert_int_equal(n, 3);
    m = strstr(out_text, " not compiled: the call's compiles, ");
    assert_non_null(m);
    while (m > out_text && m[-1] >= '0' && m[-1] <= '9')
        m--;
    assert_int_equal(sscanf(m, "%d", &left), 1);
    assert_true(left > 0 && left <= 16);
    /* The same with the neighbours in the module cache: they race. */
    rm_rf(dir);
    assert_int_equal(child(env, "serve n=1000003"), 0);
    rm_rf(dir);
    assert_int_equal(child(tight, "serve n=1000003"), 0);
    compiled_counts(&n, &cached);
    assert_true(n > 3);
    assert_int_equal(n, cached);
    assert_null(strstr(out_text, " not compiled: the call's compiles, "));
}

/* Several threads, a handle each, ask for the same new size at once: it
 * is measured once, every thread gets the same configuration. */
static void test_threads_measure_once(void **state)
{
    const char *c;
    char cfg0[256] = "";

    (void)state;
    SKIP_WITHOUT_STUB();
    assert_int_equal(child("ATUNE_EFFORT=measure", "threads n=4000037"), 0);
    assert_int_equal(count(out_text, "MSG "), NTHREADS);
    assert_int_equal(count(out_text, "measured at first use ("), 1);
    assert_int_equal(count(out_text, "written since this process opened"),
                     NTHREADS - 1);
    c = strstr(out_text, "CFG ");
    assert_non_null(c);
    sscanf(c + 4, "%255s", cfg0);
    assert_true(strlen(cfg0) > 0);
    {
        char line[300];
        snprintf(line, sizeof(line), "CFG %s\n", cfg0);
        assert_int_equal(count(out_text, line), NTHREADS);
    }
    assert_int_equal(count(slurp(user_profile()), "[copy n=4000037]"), 1);
}

/* The effort levels: every one is accepted by the API and ATUNE_EFFORT;
 * anything else is refused. No GPU needed. */
static void test_effort_selection(void **state)
{
    atune_jit *j = NULL;
    const atune_config *c;
    char msg[2048];

    (void)state;
    assert_int_equal(atune_jit_open(NULL, "copy", &j), ATUNE_OK);
    for (int e = ATUNE_JIT_EFFORT_PROFILE; e <= ATUNE_JIT_EFFORT_PATIENT; e++)
        assert_int_equal(atune_jit_set_effort(j, (atune_jit_effort)e),
                         ATUNE_OK);
    assert_int_equal(atune_jit_set_effort(j, (atune_jit_effort)7),
                     ATUNE_EINVAL);
    assert_int_equal(atune_jit_set_effort(j, ATUNE_JIT_EFFORT_PROFILE),
                     ATUNE_OK);
    setenv("ATUNE_EFFORT", "measure", 1);
    /* The handle's level wins over the environment. */
    assert_int_equal(
        atune_jit_config_for(j, NULL, "n=1000", NULL, &c, msg, sizeof(msg)),
        ATUNE_OK);
    assert_non_null(strstr(msg, "; effort profile"));
    atune_jit_close(j);
    assert_int_equal(atune_jit_open(NULL, "copy", &j), ATUNE_OK);
    setenv("ATUNE_EFFORT", "fast", 1);
    assert_int_equal(
        atune_jit_config_for(j, NULL, "n=1000", NULL, &c, msg, sizeof(msg)),
        ATUNE_EINVAL);
    assert_non_null(strstr(atune_jit_errmsg(j), "ATUNE_EFFORT='fast'"));
    unsetenv("ATUNE_EFFORT");
    atune_jit_close(j);
}

/* A copy whose kernel's name reads the size: copy_tuned<..., true> where
 * n is a multiple of 1024, <..., false> elsewhere. */
static const char szn_cu[] =
    "template <int BLOCK_SIZE, int VW, bool ALIGNED>\n"
    "__global__ void copy_tuned(const int *in, int *out, long n)\n"
    "{\n"
    "    long i = ((long)blockIdx.x * BLOCK_SIZE + threadIdx.x) * VW;\n"
    "    for (int v = 0; v < VW; v++)\n"
    "        if (ALIGNED || i + v < n)\n"
    "            out[i + v] = in[i + v];\n"
    "}\n"
    "extern \"C\" __global__ void copy_ref(const int *in, int *out, long n)\n"
    "{\n"
    "    long i = (long)blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (i < n)\n"
    "        out[i] = in[i];\n"
    "}\n";
static const char szn_ini[] =
    "[template]\n"
    "kernel = copy_tuned<BLOCK_SIZE, VW, (n % 1024 == 0)>\n"
    "reference = copy_ref\n"
    "reference_block = 256\n"
    "reference_grid = cdiv(n, 256)\n"
    "metric = GB/s\n"
    "work = 8 * n\n"
    "tolerance = 0\n"
    "param_macros = no\n"
    "[sizes]\n"
    "small = n=1048576\n"
    "odd = n=1000003\n"
    "[params]\n"
    "BLOCK_SIZE = 128, 256\n"
    "VW = 1, 2\n"
    "[launch]\n"
    "block = BLOCK_SIZE\n"
    "grid = cdiv(n, VW * BLOCK_SIZE)\n"
    "[args]\n"
    "in = int[n] input\n"
    "out = int[n] output\n"
    "n = long n\n";

/* Launch log lines of copy_tuned at size n (its third argument) whose
 * symbol says ALIGNED = aligned (Lb1E / Lb0E), and those that do not. */
static void launches_at(const char *log, long n, int aligned, int *right,
                        int *wrong)
{
    char tail[64];

    *right = *wrong = 0;
    snprintf(tail, sizeof(tail), ",%ld\n", n);
    for (const char *l = log; l && *l;) {
        const char *e = strchr(l, '\n');
        size_t len = e ? (size_t)(e - l + 1) : strlen(l);
        char line[1024];
        snprintf(line, sizeof(line), "%.*s", (int)len, l);
        if (strstr(line, "copy_tuned") && strstr(line, tail)) {
            if (strstr(line, aligned ? "Lb1E" : "Lb0E"))
                (*right)++;
            else
                (*wrong)++;
        }
        l += len;
    }
}

/* A template whose kernel's name reads the size: each size is compiled
 * and launched as its own instantiation, by atune_jit_launch (a module
 * per size, kept: a size launched again compiles nothing) and by first
 * use, which compiles its candidates at the size it measures. */
static void test_size_in_name(void **state)
{
    char dir[4200], path[8600], launches[4200], env[8600];
    const char *fn[3];
    int right, wrong;
    FILE *f;

    (void)state;
    SKIP_WITHOUT_STUB();
    path_in(dir, sizeof(dir), "szn");
    assert_int_equal(mkdir(dir, 0755), 0);
    snprintf(path, sizeof(path), "%s/szn.cu", dir);
    assert_non_null(f = fopen(path, "w"));
    fputs(szn_cu, f);
    fclose(f);
    snprintf(path, sizeof(path), "%s/szn.ini", dir);
    assert_non_null(f = fopen(path, "w"));
    fputs(szn_ini, f);
    fclose(f);
    path_in(launches, sizeof(launches), "launches.log");

    /* profile: the defaults at n=1048576, n=1000003, n=1048576 again. */
    unlink(launches);
    snprintf(env, sizeof(env), "ATUNE_EFFORT=profile ATUNE_CACHE_DIR='%s/c1' "
             "ATUNE_STUB_LAUNCH_LOG='%s'", tmp, launches);
    snprintf(path, sizeof(path), "sized '%s' n=1048576 n=1000003 n=1048576",
             dir);
    assert_int_equal(child(env, path), 0);
    fn[0] = strstr(out_text, "FN ");
    assert_non_null(fn[0]);
    assert_non_null(fn[1] = strstr(fn[0] + 1, "FN "));
    assert_non_null(fn[2] = strstr(fn[1] + 1, "FN "));
    /* Two sizes, two functions; the first size again, its own again. */
    assert_true(strncmp(fn[0], fn[1], strcspn(fn[0], "\n")) != 0);
    assert_true(strncmp(fn[0], fn[2], strcspn(fn[0], "\n")) == 0);
    assert_non_null(strstr(out_text, "MISSES 2\n"));
    launches_at(slurp(launches), 1048576, 1, &right, &wrong);
    assert_int_equal(right, 2);
    assert_int_equal(wrong, 0);
    launches_at(slurp(launches), 1000003, 0, &right, &wrong);
    assert_int_equal(right, 1);
    assert_int_equal(wrong, 0);

    /* measure: first use races candidates at each size, each compiled
     * for that size; what it serves launches that size's kernel. */
    unlink(launches);
    snprintf(env, sizeof(env), "ATUNE_EFFORT=measure ATUNE_CACHE_DIR='%s/c2' "
             "ATUNE_STUB_LAUNCH_LOG='%s'", tmp, launches);
    snprintf(path, sizeof(path), "sized '%s' n=1048576 n=1000003", dir);
    assert_int_equal(child(env, path), 0);
    launches_at(slurp(launches), 1048576, 1, &right, &wrong);
    assert_true(right > 1);
    assert_int_equal(wrong, 0);
    launches_at(slurp(launches), 1000003, 0, &right, &wrong);
    assert_true(right > 1);
    assert_int_equal(wrong, 0);
}

/* A fork while another thread measures: the child measuring, or closing a
 * handle that measured, does not wait for a lock no thread of it holds. */
static void test_fork_while_measuring(void **state)
{
    (void)state;
    SKIP_WITHOUT_STUB();
    assert_int_equal(child("ATUNE_EFFORT=measure", "forked n=3001 n=6000011"),
                     0);
    if (!strstr(out_text, "CHILD 0\n"))
        fail_msg("%s", out_text);
}

static int setup(void **state)
{
    (void)state;
    if (!mkdtemp(tmp))
        return -1;
    unsetenv("ATUNE_EFFORT");
    unsetenv("ATUNE_RECORD");
    stub = getenv("ATUNE_STUB_DRIVER_DIR");
    {
        char path[4200];
        FILE *f;
        path_in(path, sizeof(path), "sys");
        if (mkdir(path, 0755) != 0)
            return -1;
        path_in(path, sizeof(path), "sys/other.ini");
        if (!(f = fopen(path, "w")))
            return -1;
        fputs(other_gpu, f);
        fclose(f);
    }
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    rm_rf(tmp);
    return 0;
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_effort_selection),
        cmocka_unit_test(test_measure_then_exact),
        cmocka_unit_test(test_patient),
        cmocka_unit_test(test_profile_never_measures),
        cmocka_unit_test(test_memory_fallback),
        cmocka_unit_test(test_threads_measure_once),
        cmocka_unit_test(test_warm_compiles_nothing),
        cmocka_unit_test(test_measure_budget),
        cmocka_unit_test(test_size_in_name),
        cmocka_unit_test(test_fork_while_measuring),
    };
    const char *only = getenv("ATUNE_TEST_ONLY");

    if (argc >= 2 && strcmp(argv[1], "serve") == 0)
        return serve_child(argc, argv);
    if (argc == 3 && strcmp(argv[1], "threads") == 0)
        return threads_child(argv[2]);
    if (argc == 4 && strcmp(argv[1], "forked") == 0)
        return forked_child(argv[2], argv[3]);
    if (argc >= 4 && strcmp(argv[1], "sized") == 0)
        return sized_child(argc, argv);
    if (only && *only)
        cmocka_set_test_filter(only);
    return cmocka_run_group_tests(tests, setup, teardown);
}
