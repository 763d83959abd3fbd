/* test_cache.c -- the module cache on disk: keys, hits and misses, damaged
 * entries detected and rebuilt, concurrent writers, the directory from
 * the environment, and the cache turned off. NVRTC runs (no GPU). */
#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "testutil.h"

#include <atune/atune.h>
#include <atune/atune_jit.h>

#include "jit/cache.h"
#include "template/templates.h"

#define THREADS 8
#define ROUNDS 150

static char root[] = "/tmp/atune-test-cache-XXXXXX";
static int ndirs;

/* --- helpers -------------------------------------------------------------- */

/* A fresh directory under root for one test: root/N. */
static void fresh_dir(char *buf, size_t len)
{
    snprintf(buf, len, "%s/%d", root, ++ndirs);
}

static atune__cache *open_cache(const char *dir)
{
    atune__cache *c = NULL;
    atune__err err = {0};

    if (atune__cache_open(dir, &c, &err) != 0)
        fail_msg("%s", err.msg);
    assert_non_null(c);
    return c;
}

static void make_cubin(atune__cubin *cb, size_t len, int seed, const char *log)
{
    memset(cb, 0, sizeof(*cb));
    cb->data = malloc(len);
    cb->len = len;
    cb->log = atune__strdup(log);
    assert_non_null(cb->data);
    assert_non_null(cb->log);
    for (size_t i = 0; i < len; i++)
        cb->data[i] = (char)(seed * 31 + (int)(i * 7));
}

static long file_size(const char *path)
{
    struct stat st;

    return stat(path, &st) == 0 ? (long)st.st_size : -1;
}

static void write_bytes(const char *path, const void *data, size_t len)
{
    FILE *f = fopen(path, "wb");

    assert_non_null(f);
    assert_int_equal(fwrite(data, 1, len, f), len);
    assert_int_equal(fclose(f), 0);
}

/* Binary: atune__read_file is for text and refuses NUL bytes. */
static char *read_bytes(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    char *buf;
    long n;

    assert_non_null(f);
    assert_int_equal(fseek(f, 0, SEEK_END), 0);
    n = ftell(f);
    assert_true(n >= 0);
    rewind(f);
    buf = malloc((size_t)n + 1);
    assert_non_null(buf);
    assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
    fclose(f);
    buf[n] = '\0';
    *len = (size_t)n;
    return buf;
}

static int entries_in(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *de;
    int n = 0;

    assert_non_null(d);
    while ((de = readdir(d)) != NULL) {
        size_t len = strlen(de->d_name);
        if (len > 6 && strcmp(de->d_name + len - 6, ".cubin") == 0)
            n++;
        /* No temporary file may be left behind. */
        if (de->d_name[0] == '.' && strcmp(de->d_name, ".") &&
            strcmp(de->d_name, ".."))
            fail_msg("left over: %s/%s", dir, de->d_name);
    }
    closedir(d);
    return n;
}

static atune__manifest *load_template(const char *name)
{
    const char *src = getenv("ATUNE_SOURCE_DIR");
    char dir[4096];
    atune__manifest *m = NULL;
    atune__err err = {0};

    if (!src || !*src)
        fail_msg("ATUNE_SOURCE_DIR is not set: run through ctest");
    snprintf(dir, sizeof(dir), "%s/templates", src);
    if (atune__manifest_load(dir, name, &m, &err) != 0)
        fail_msg("%s", err.msg);
    return m;
}

static void config_of(const atune__manifest *m, const char *text,
                      atune__config *c)
{
    atune__err err = {0};

    if (atune__config_parse(m, text, c, &err) != 0)
        fail_msg("%s", err.msg);
}

/* --- keys ----------------------------------------------------------------- */

static uint64_t key_of_h(const char *src, uint64_t headers, const char *o0,
                         const char *o1, const char *name, int version)
{
    const char *opts[] = {o0, o1};
    const char *names[] = {name};

    return atune__cache_key(src, strlen(src), headers, opts, 2, names,
                            name ? 1 : 0, version);
}

static uint64_t key_of(const char *src, const char *o0, const char *o1,
                       const char *name, int version)
{
    return key_of_h(src, 0, o0, o1, name, version);
}

static void test_key_changes_with_every_input(void **state)
{
    const char *arch = "--gpu-architecture=sm_90";
    uint64_t base = key_of("src", arch, "-DVW=1", "k", 13000);
    uint64_t keys[] = {
        key_of("src ", arch, "-DVW=1", "k", 13000),
        key_of("Src", arch, "-DVW=1", "k", 13000),
        key_of("src", "--gpu-architecture=sm_80", "-DVW=1", "k", 13000),
        key_of("src", arch, "-DVW=2", "k", 13000),
        key_of("src", arch, "-DVX=1", "k", 13000),
        key_of("src", arch, "-DVW=1", "k2", 13000),
        key_of("src", arch, "-DVW=1", NULL, 13000),
        key_of("src", arch, "-DVW=1", "k", 12080),
        key_of("src", arch, "-DVW=1", "k", 13010),
        key_of("src", "-DVW=1", arch, "k", 13000), /* order matters */
        key_of_h("src", 1, arch, "-DVW=1", "k", 13000), /* a header */
    };
    const char *a[] = {"-DA=1", "-DB=2"}, *b[] = {"-DA=1-DB", "=2"};

    (void)state;
    assert_int_equal(base, key_of("src", arch, "-DVW=1", "k", 13000));
    for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
        if (keys[i] == base)
            fail_msg("variant %zu has the base key", i);
        for (size_t j = 0; j < i; j++)
            assert_true(keys[i] != keys[j]);
    }
    /* Strings are hashed with their lengths: no concatenation collides. */
    assert_true(atune__cache_key("s", 1, 0, a, 2, NULL, 0, 1) !=
                atune__cache_key("s", 1, 0, b, 2, NULL, 0, 1));
    /* The source is hashed by its length, not up to a NUL. */
    assert_true(atune__cache_key("ab", 1, 0, a, 2, NULL, 0, 1) ==
                atune__cache_key("ac", 1, 0, a, 2, NULL, 0, 1));
    assert_true(atune__cache_key("ab", 2, 0, a, 2, NULL, 0, 1) !=
                atune__cache_key("ac", 2, 0, a, 2, NULL, 0, 1));
}

/* --- hits, misses, damaged entries ---------------------------------------- */

static void test_hit_and_miss(void **state)
{
    char dir[4200], path[4300];
    atune__cache *c;
    atune__cubin in, out;
    atune__cache_stats s;
    atune__err err = {0};

    (void)state;
    fresh_dir(dir, sizeof(dir));
    c = open_cache(dir);
    assert_string_equal(atune__cache_dir(c), dir);
    assert_int_equal(atune__cache_get(c, 42, &out), ATUNE__CACHE_MISS);
    assert_null(out.data);
    make_cubin(&in, 3000, 1, "warning: something");
    assert_int_equal(atune__cache_put(c, 42, &in, &err), 0);
    assert_int_equal(atune__cache_entry_path(c, 42, path, sizeof(path)), 0);
    assert_non_null(strstr(path, "/000000000000002a.cubin"));
    assert_int_equal(file_size(path), 56 + 3000 + 18);
    assert_int_equal(atune__cache_get(c, 42, &out), ATUNE__CACHE_HIT);
    assert_int_equal(out.len, in.len);
    assert_memory_equal(out.data, in.data, in.len);
    assert_string_equal(out.log, "warning: something");
    atune__cubin_free(&out);
    /* Another key misses; the same key through another handle hits. */
    assert_int_equal(atune__cache_get(c, 43, &out), ATUNE__CACHE_MISS);
    atune__cache_stats_get(c, &s);
    assert_int_equal(s.hits, 1);
    assert_int_equal(s.misses, 2);
    assert_int_equal(s.corrupt, 0);
    assert_int_equal(s.writes, 1);
    assert_int_equal(s.write_errors, 0);
    atune__cache_close(c);
    c = open_cache(dir);
    assert_int_equal(atune__cache_get(c, 42, &out), ATUNE__CACHE_HIT);
    atune__cubin_free(&out);
    /* An empty log is stored as such. */
    free(in.log);
    in.log = atune__strdup("");
    assert_int_equal(atune__cache_put(c, 7, &in, &err), 0);
    assert_int_equal(atune__cache_get(c, 7, &out), ATUNE__CACHE_HIT);
    assert_string_equal(out.log, "");
    atune__cubin_free(&out);
    /* A recorded compile error. */
    assert_int_equal(atune__cache_put_error(c, 8, ": it broke", &err), 0);
    assert_int_equal(atune__cache_get(c, 8, &out), ATUNE__CACHE_HIT_ERROR);
    assert_null(out.data);
    assert_string_equal(out.log, ": it broke");
    atune__cubin_free(&out);
    assert_int_equal(entries_in(dir), 3);
    atune__cubin_free(&in);
    atune__cache_close(c);
}

/* One way of damaging an entry file of `len` bytes in place. */
typedef void (*damage_fn)(char *bytes, size_t *len);

static void cut_0(char *b, size_t *len)
{
    (void)b;
    *len = 0;
}
static void cut_header(char *b, size_t *len)
{
    (void)b;
    *len = 55;
}
static void cut_to_header(char *b, size_t *len)
{
    (void)b;
    *len = 56;
}
static void cut_last(char *b, size_t *len)
{
    (void)b;
    *len -= 1;
}
static void extra_byte(char *b, size_t *len)
{
    b[(*len)++] = 'x';
}
static void flip_payload(char *b, size_t *len)
{
    (void)len;
    b[100] ^= 0x10;
}
static void flip_log(char *b, size_t *len)
{
    b[*len - 2] ^= 0x01;
}
static void bad_magic(char *b, size_t *len)
{
    (void)len;
    b[0] = 'X';
}
static void bad_version(char *b, size_t *len)
{
    (void)len;
    b[8] = 1; /* the format before symbols were stored */
}
static void bad_kind(char *b, size_t *len)
{
    (void)len;
    b[12] = 9;
}
static void other_key(char *b, size_t *len)
{
    (void)len;
    b[16] ^= 1; /* an entry copied to the wrong name */
}
static void huge_length(char *b, size_t *len)
{
    (void)len;
    memset(b + 24, 0xff, 8);
}
static void flip_sum(char *b, size_t *len)
{
    (void)len;
    b[48] ^= 0x80;
}
static void garbage(char *b, size_t *len)
{
    for (size_t i = 0; i < *len; i++)
        b[i] = (char)(i * 131 + 7);
}
static void nul_in_log(char *b, size_t *len)
{
    b[*len - 3] = '\0'; /* sum mismatch as well, either one catches it */
}

static void test_damaged_entries_rebuilt(void **state)
{
    static const damage_fn damages[] = {
        cut_0,        cut_header,  cut_to_header, cut_last,    extra_byte,
        flip_payload, flip_log,    bad_magic,     bad_version, bad_kind,
        other_key,    huge_length, flip_sum,      garbage,     nul_in_log};
    const size_t n = sizeof(damages) / sizeof(damages[0]);
    char dir[4200], path[4300];
    atune__cache *c;
    atune__cubin in, out;
    atune__cache_stats s;
    atune__err err = {0};

    (void)state;
    fresh_dir(dir, sizeof(dir));
    c = open_cache(dir);
    make_cubin(&in, 4096, 5, "log text");
    assert_int_equal(atune__cache_entry_path(c, 99, path, sizeof(path)), 0);
    for (size_t i = 0; i < n; i++) {
        size_t len;
        char *bytes;

        assert_int_equal(atune__cache_put(c, 99, &in, &err), 0);
        bytes = read_bytes(path, &len);
        bytes = realloc(bytes, len + 1);
        assert_non_null(bytes);
        damages[i](bytes, &len);
        write_bytes(path, bytes, len);
        free(bytes);
        if (atune__cache_get(c, 99, &out) != ATUNE__CACHE_MISS)
            fail_msg("damage %zu not detected", i);
        assert_null(out.data);
        /* The next write replaces the bad file. */
        assert_int_equal(atune__cache_put(c, 99, &in, &err), 0);
        assert_int_equal(atune__cache_get(c, 99, &out), ATUNE__CACHE_HIT);
        assert_memory_equal(out.data, in.data, in.len);
        atune__cubin_free(&out);
    }
    /* A directory where an entry should be is damage too. */
    unlink(path);
    assert_int_equal(mkdir(path, 0755), 0);
    assert_int_equal(atune__cache_get(c, 99, &out), ATUNE__CACHE_MISS);
    rmdir(path);
    atune__cache_stats_get(c, &s);
    assert_int_equal(s.corrupt, (long)n + 1);
    assert_int_equal(s.hits, (long)n);
    atune__cubin_free(&in);
    atune__cache_close(c);
}

/* Something planted at an entry's name (issue 30): a FIFO is a miss at
 * once, not a wait for a writer; a link is not followed (its target is
 * neither read nor replaced); the next write puts a real entry there. */
static void test_planted_entries(void **state)
{
    char dir[4200], path[4300], target[4300];
    atune__cache *c;
    atune__cubin in, out;
    atune__err err = {0};
    struct stat st;
    size_t len;
    char *bytes;

    (void)state;
    fresh_dir(dir, sizeof(dir));
    c = open_cache(dir);
    make_cubin(&in, 1024, 7, "log");
    assert_int_equal(atune__cache_entry_path(c, 77, path, sizeof(path)), 0);

    assert_int_equal(mkfifo(path, 0600), 0);
    assert_int_equal(atune__cache_get(c, 77, &out), ATUNE__CACHE_MISS);
    assert_int_equal(atune__cache_put(c, 77, &in, &err), 0);
    assert_int_equal(lstat(path, &st), 0);
    assert_true(S_ISREG(st.st_mode));
    assert_int_equal(atune__cache_get(c, 77, &out), ATUNE__CACHE_HIT);
    atune__cubin_free(&out);

    /* A link to a valid entry elsewhere: still a miss, target untouched. */
    snprintf(target, sizeof(target), "%s/elsewhere", root);
    bytes = read_bytes(path, &len);
    write_bytes(target, bytes, len);
    unlink(path);
    assert_int_equal(symlink(target, path), 0);
    assert_int_equal(atune__cache_get(c, 77, &out), ATUNE__CACHE_MISS);
    assert_int_equal(atune__cache_put(c, 77, &in, &err), 0);
    assert_int_equal(lstat(path, &st), 0);
    assert_true(S_ISREG(st.st_mode));
    {
        size_t tlen;
        char *t = read_bytes(target, &tlen);
        assert_int_equal(tlen, len);
        assert_memory_equal(t, bytes, len);
        free(t);
    }
    free(bytes);
    atune__cubin_free(&in);
    atune__cache_close(c);
}

/* An entry another user wrote into a directory others may write (1777, a
 * group's): its CUBIN would run in the user's context, its compile error
 * would rule a configuration out. Only entries of the user, root or the
 * directory's owner are used. Only root can give a file to another user
 * (chown): elsewhere this test passes without checking. */
static void test_entries_of_other_users(void **state)
{
    char dir[4200], path[4300];
    atune__cache *c;
    atune__cubin in, out;
    atune__err err = {0};

    (void)state;
    fresh_dir(dir, sizeof(dir));
    c = open_cache(dir);
    make_cubin(&in, 1024, 9, "log");
    assert_int_equal(atune__cache_put(c, 91, &in, &err), 0);
    assert_int_equal(atune__cache_put_error(c, 92, "c2: planted error", &err),
                     0);
    assert_int_equal(atune__cache_get(c, 91, &out), ATUNE__CACHE_HIT);
    atune__cubin_free(&out);
    assert_int_equal(atune__cache_entry_path(c, 91, path, sizeof(path)), 0);
    if (geteuid() != 0 || chown(path, 12345, 12345) != 0) {
        atune__cubin_free(&in);
        atune__cache_close(c);
        return;
    }
    assert_int_equal(chmod(dir, 01777), 0);
    assert_int_equal(atune__cache_get(c, 91, &out), ATUNE__CACHE_MISS);
    assert_int_equal(atune__cache_entry_path(c, 92, path, sizeof(path)), 0);
    assert_int_equal(chown(path, 12345, 12345), 0);
    assert_int_equal(atune__cache_get(c, 92, &out), ATUNE__CACHE_MISS);
    atune__cache_close(c);
    /* The same entries in a directory of that user's: theirs, trusted. */
    assert_int_equal(chown(dir, 12345, 12345), 0);
    c = open_cache(dir);
    assert_int_equal(atune__cache_get(c, 91, &out), ATUNE__CACHE_HIT);
    assert_memory_equal(out.data, in.data, in.len);
    atune__cubin_free(&out);
    assert_int_equal(atune__cache_get(c, 92, &out), ATUNE__CACHE_HIT_ERROR);
    atune__cubin_free(&out);
    atune__cubin_free(&in);
    atune__cache_close(c);
}

/* --- concurrency ---------------------------------------------------------- */

struct writer {
    atune__cache *c;
    int id;
    int bad; /* reads that returned something no writer wrote */
};

/* Every writer stores its own payload (its length and bytes depend on
 * the writer) under the same key and reads the key back: a read must be
 * a miss (nothing written yet) or some writer's whole payload. */
static int payload_ok(const atune__cubin *cb)
{
    for (int id = 0; id < THREADS; id++) {
        size_t len = 1000 + 517 * (size_t)id;
        int ok = cb->len == len;
        for (size_t i = 0; ok && i < len; i++)
            ok = cb->data[i] == (char)(id * 31 + (int)(i * 7));
        if (ok)
            return 1;
    }
    return 0;
}

static void writer_rounds(struct writer *w)
{
    atune__cubin mine, got;
    atune__err err = {0};

    make_cubin(&mine, 1000 + 517 * (size_t)w->id, w->id, "log");
    for (int r = 0; r < ROUNDS; r++) {
        int found;
        if (atune__cache_put(w->c, 1234, &mine, &err) != 0)
            w->bad++;
        found = atune__cache_get(w->c, 1234, &got);
        if (found == ATUNE__CACHE_HIT_ERROR ||
            (found == ATUNE__CACHE_HIT && !payload_ok(&got)))
            w->bad++;
        atune__cubin_free(&got);
    }
    atune__cubin_free(&mine);
}

static void *writer_thread(void *arg)
{
    writer_rounds(arg);
    return NULL;
}

static void test_concurrent_threads(void **state)
{
    char dir[4200];
    pthread_t t[THREADS];
    struct writer w[THREADS];
    atune__cache_stats s;
    atune__cache *c;
    atune__cubin got;

    (void)state;
    fresh_dir(dir, sizeof(dir));
    c = open_cache(dir);
    for (int i = 0; i < THREADS; i++) {
        w[i] = (struct writer){.c = c, .id = i};
        assert_int_equal(pthread_create(&t[i], NULL, writer_thread, &w[i]), 0);
    }
    for (int i = 0; i < THREADS; i++) {
        assert_int_equal(pthread_join(t[i], NULL), 0);
        assert_int_equal(w[i].bad, 0);
    }
    atune__cache_stats_get(c, &s);
    assert_int_equal(s.corrupt, 0);
    assert_int_equal(s.write_errors, 0);
    assert_int_equal(s.writes, THREADS * ROUNDS);
    assert_int_equal(atune__cache_get(c, 1234, &got), ATUNE__CACHE_HIT);
    assert_true(payload_ok(&got));
    atune__cubin_free(&got);
    assert_int_equal(entries_in(dir), 1);
    atune__cache_close(c);
}

static void test_concurrent_processes(void **state)
{
    char dir[4200];
    pid_t pid[THREADS];
    atune__cache *c;
    atune__cubin got;

    (void)state;
    fresh_dir(dir, sizeof(dir));
    c = open_cache(dir);
    for (int i = 0; i < THREADS; i++) {
        pid[i] = fork();
        assert_true(pid[i] >= 0);
        if (pid[i] == 0) {
            /* Each process has its own handle, as separate runs would. */
            struct writer w = {.id = i};
            atune__cache_stats s;
            atune__err err = {0};
            if (atune__cache_open(dir, &w.c, &err) != 0 || !w.c)
                _exit(2);
            writer_rounds(&w);
            atune__cache_stats_get(w.c, &s);
            _exit(w.bad || s.corrupt ? 1 : 0);
        }
    }
    for (int i = 0; i < THREADS; i++) {
        int status = 0;
        assert_int_equal(waitpid(pid[i], &status, 0), pid[i]);
        assert_true(WIFEXITED(status));
        assert_int_equal(WEXITSTATUS(status), 0);
    }
    assert_int_equal(atune__cache_get(c, 1234, &got), ATUNE__CACHE_HIT);
    assert_true(payload_ok(&got));
    atune__cubin_free(&got);
    assert_int_equal(entries_in(dir), 1);
    atune__cache_close(c);
}

/* --- directory and switches ----------------------------------------------- */

static void restore_env(const char *name, const char *saved)
{
    if (saved)
        setenv(name, saved, 1);
    else
        unsetenv(name);
}

static void test_directory_from_environment(void **state)
{
    char *cache_dir = getenv("ATUNE_CACHE_DIR"),
         *xdg = getenv("XDG_CACHE_HOME");
    char *home = getenv("HOME");
    char saved[3][4096] = {"", "", ""}, dir[4200], buf[4300];
    atune__cache *c;
    atune__err err = {0};

    (void)state;
    snprintf(saved[0], sizeof(saved[0]), "%s", cache_dir ? cache_dir : "");
    snprintf(saved[1], sizeof(saved[1]), "%s", xdg ? xdg : "");
    snprintf(saved[2], sizeof(saved[2]), "%s", home ? home : "");
    unsetenv("ATUNE_NO_CACHE");

    /* ATUNE_CACHE_DIR wins, and missing directories are created. */
    fresh_dir(dir, sizeof(dir));
    snprintf(buf, sizeof(buf), "%s/deep/er", dir);
    setenv("ATUNE_CACHE_DIR", buf, 1);
    setenv("XDG_CACHE_HOME", "/nonexistent-xdg", 1);
    c = open_cache(NULL);
    assert_string_equal(atune__cache_dir(c), buf);
    atune__cache_close(c);
    assert_int_equal(entries_in(buf), 0);

    /* Then an absolute XDG_CACHE_HOME. */
    unsetenv("ATUNE_CACHE_DIR");
    setenv("XDG_CACHE_HOME", dir, 1);
    assert_int_equal(atune__cache_default_dir(buf, sizeof(buf), &err), 0);
    assert_true(strncmp(buf, dir, strlen(dir)) == 0);
    assert_string_equal(buf + strlen(dir), "/autotune");

    /* A relative XDG_CACHE_HOME is ignored: HOME/.cache. */
    setenv("XDG_CACHE_HOME", "relative", 1);
    setenv("HOME", "/home/someone", 1);
    assert_int_equal(atune__cache_default_dir(buf, sizeof(buf), &err), 0);
    assert_string_equal(buf, "/home/someone/.cache/autotune");
    unsetenv("XDG_CACHE_HOME");
    unsetenv("HOME");
    assert_int_equal(atune__cache_default_dir(buf, sizeof(buf), &err),
                     ATUNE__ENOINPUT);
    assert_non_null(strstr(err.msg, "ATUNE_CACHE_DIR"));

    restore_env("ATUNE_CACHE_DIR", cache_dir ? saved[0] : NULL);
    restore_env("XDG_CACHE_HOME", xdg ? saved[1] : NULL);
    restore_env("HOME", home ? saved[2] : NULL);
}

static void test_unusable_directory(void **state)
{
    char dir[4200], file[4300], below[4400];
    atune__cache *c = NULL;
    atune__err err = {0};

    (void)state;
    fresh_dir(dir, sizeof(dir));
    assert_int_equal(mkdir(dir, 0755), 0);
    snprintf(file, sizeof(file), "%s/file", dir);
    write_bytes(file, "x", 1);
    snprintf(below, sizeof(below), "%s/sub", file);
    assert_int_equal(atune__cache_open(below, &c, &err), ATUNE__ECANTCREAT);
    assert_null(c);
    assert_non_null(strstr(err.msg, "cannot create cache directory"));
    assert_int_equal(atune__cache_open(file, &c, &err), ATUNE__ECANTCREAT);
    assert_non_null(strstr(err.msg, "not a directory"));
    assert_int_equal(atune__cache_open("", &c, &err), ATUNE__EUSAGE);
}

static void test_disabled(void **state)
{
    char dir[4200];
    atune__cache *c = (atune__cache *)&c;
    atune__cubin cb, out;
    atune__cache_stats s;
    atune__err err = {0};

    (void)state;
    fresh_dir(dir, sizeof(dir));
    setenv("ATUNE_NO_CACHE", "1", 1);
    assert_true(atune__cache_disabled_by_env());
    assert_int_equal(atune__cache_open(dir, &c, &err), 0);
    assert_null(c);
    assert_int_equal(access(dir, F_OK), -1); /* nothing created */
    setenv("ATUNE_NO_CACHE", "0", 1);
    assert_false(atune__cache_disabled_by_env());
    setenv("ATUNE_NO_CACHE", "", 1);
    assert_false(atune__cache_disabled_by_env());
    unsetenv("ATUNE_NO_CACHE");
    /* A NULL cache: every lookup misses, every write is dropped. */
    make_cubin(&cb, 10, 1, "");
    assert_int_equal(atune__cache_put(NULL, 1, &cb, &err), 0);
    assert_int_equal(atune__cache_get(NULL, 1, &out), ATUNE__CACHE_MISS);
    atune__cache_stats_get(NULL, &s);
    assert_int_equal(s.hits + s.misses + s.writes, 0);
    assert_string_equal(atune__cache_dir(NULL), "");
    atune__cache_close(NULL);
    atune__cubin_free(&cb);
}

/* --- cached compilation (NVRTC) ------------------------------------------- */

static void test_compile_cached(void **state)
{
    atune__manifest *m = load_template("copy");
    const char *names[] = {"copy_tuned"};
    char dir[4200], path[4600];
    atune__cubin plain, a, b;
    atune__config c1, c2;
    atune__cache_stats s;
    atune__cache *c;
    atune__err err = {0};
    int hit = -1;

    (void)state;
    fresh_dir(dir, sizeof(dir));
    c = open_cache(dir);
    config_of(m, "BLOCK_SIZE=256,VW=4,UNROLL=2,GRID=0,EVICT=0", &c1);
    config_of(m, "BLOCK_SIZE=256,VW=2,UNROLL=2,GRID=0,EVICT=0", &c2);
    if (atune__jit_compile(m, &c1, "sm_90", names, 1, &plain, &err))
        fail_msg("%s", err.msg);

    /* A miss compiles and stores exactly what NVRTC gives. */
    if (atune__jit_compile_cached(c, m, &c1, "sm_90", names, 1, &a, &hit, &err))
        fail_msg("%s", err.msg);
    assert_int_equal(hit, 0);
    assert_int_equal(a.len, plain.len);
    assert_memory_equal(a.data, plain.data, a.len);
    assert_int_equal(entries_in(dir), 1);
    /* The second time NVRTC is skipped. */
    assert_int_equal(
        atune__jit_compile_cached(c, m, &c1, "sm_90", names, 1, &b, &hit, &err),
        0);
    assert_int_equal(hit, 1);
    assert_int_equal(b.len, plain.len);
    assert_memory_equal(b.data, plain.data, b.len);
    assert_string_equal(b.log, a.log);
    atune__cubin_free(&b);

    /* Another configuration, architecture or name list is another entry. */
    assert_int_equal(
        atune__jit_compile_cached(c, m, &c2, "sm_90", names, 1, &b, &hit, &err),
        0);
    assert_int_equal(hit, 0);
    atune__cubin_free(&b);
    assert_int_equal(
        atune__jit_compile_cached(c, m, &c1, "sm_80", names, 1, &b, &hit, &err),
        0);
    assert_int_equal(hit, 0);
    atune__cubin_free(&b);
    assert_int_equal(entries_in(dir), 3);

    /* NULL configuration = the default one, same entry both ways. */
    assert_int_equal(atune__jit_compile_cached(c, m, NULL, "sm_90", names, 1,
                                               &b, &hit, &err),
                     0);
    assert_int_equal(hit, 0);
    atune__cubin_free(&b);
    atune__space_config(m, 0, &c2);
    assert_int_equal(
        atune__jit_compile_cached(c, m, &c2, "sm_90", names, 1, &b, &hit, &err),
        0);
    assert_int_equal(hit, 1);
    atune__cubin_free(&b);

    /* A truncated entry is detected, compiled again and replaced. */
    {
        DIR *d = opendir(dir);
        struct dirent *de;
        char victim[4600] = "";
        char *bytes;
        size_t len;
        uint64_t key;
        atune__cubin again;

        /* Find c1's entry: the one whose content is plain's CUBIN. */
        assert_non_null(d);
        while ((de = readdir(d)) != NULL) {
            if (de->d_name[0] == '.')
                continue;
            snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
            bytes = read_bytes(path, &len);
            if (len >= 56 + plain.len &&
                memcmp(bytes + 56, plain.data, plain.len) == 0)
                snprintf(victim, sizeof(victim), "%s", path);
            free(bytes);
        }
        closedir(d);
        assert_true(victim[0] != '\0');
        assert_int_equal(sscanf(strrchr(victim, '/') + 1, "%16llx",
                                (unsigned long long *)&key),
                         1);
        assert_int_equal(truncate(victim, 100), 0);
        assert_int_equal(atune__jit_compile_cached(c, m, &c1, "sm_90", names, 1,
                                                   &again, &hit, &err),
                         0);
        assert_int_equal(hit, 0);
        assert_memory_equal(again.data, plain.data, plain.len);
        atune__cubin_free(&again);
        assert_int_equal(file_size(victim),
                         (long)a.len + 56 + (long)strlen(a.log) +
                             (long)strlen(a.sym[0]) + 1);
        assert_int_equal(atune__cache_get(c, key, &again), ATUNE__CACHE_HIT);
        atune__cubin_free(&again);
        atune__cache_stats_get(c, &s);
        assert_int_equal(s.rebuilt, 1);
        assert_int_equal(s.unreplaced, 0);

        /* A directory in the entry's place cannot be renamed over: the
         * compile still succeeds, but it is not counted as rebuilt. */
        assert_int_equal(unlink(victim), 0);
        assert_int_equal(mkdir(victim, 0755), 0);
        assert_int_equal(atune__jit_compile_cached(c, m, &c1, "sm_90", names, 1,
                                                   &again, &hit, &err),
                         0);
        atune__cubin_free(&again);
        assert_int_equal(rmdir(victim), 0);
    }
    atune__cache_stats_get(c, &s);
    assert_int_equal(s.corrupt, 2);
    assert_int_equal(s.rebuilt, 1);
    assert_int_equal(s.unreplaced, 1);
    assert_int_equal(s.write_errors, 1);

    /* Without a cache it is a plain compile. */
    assert_int_equal(atune__jit_compile_cached(NULL, m, &c1, "sm_90", names, 1,
                                               &b, &hit, &err),
                     0);
    assert_int_equal(hit, 0);
    assert_memory_equal(b.data, plain.data, plain.len);
    atune__cubin_free(&b);

    atune__cubin_free(&a);
    atune__cubin_free(&plain);
    atune__cache_close(c);
    atune__manifest_free(m);
}

/* A configuration that does not compile is recorded and reported again
 * without NVRTC, with the same message and the current template's path. */
static void test_compile_error_cached(void **state)
{
    static const char ini[] =
        "[template]\nkernel = k\nreference = k\nreference_block = 32\n"
        "reference_grid = 1\nmetric = GB/s\nwork = n\n"
        "[sizes]\ns = n=32\n[params]\nP = 1, 2\n"
        "[launch]\nblock = 32\ngrid = 1\n[args]\nout = int[n] output\n"
        "n = long n\n";
    static const char cu[] =
        "#if P == 2\n#error P must not be 2\n#endif\n"
        "extern \"C\" __global__ void k(int *out, long n) { out[0] = P; }\n";
    const char *names[] = {"k"};
    atune__manifest *m = NULL, *m2 = NULL;
    char dir[4200], first[4096];
    atune__config cfg;
    atune__cubin b;
    atune__cache *c;
    atune__err err = {0};
    int hit = -1;

    (void)state;
    if (atune__manifest_parse("t", "a/t.ini", ini, "a/t.cu", cu, &m, &err) ||
        atune__manifest_parse("t", "b/t.ini", ini, "b/t.cu", cu, &m2, &err))
        fail_msg("%s", err.msg);
    fresh_dir(dir, sizeof(dir));
    c = open_cache(dir);
    config_of(m, "P=2", &cfg);
    assert_int_equal(atune__jit_compile_cached(c, m, &cfg, "sm_90", names, 1,
                                               &b, &hit, &err),
                     ATUNE__EDATA);
    assert_int_equal(hit, 0);
    assert_null(b.data);
    assert_non_null(strstr(err.msg, "P must not be 2"));
    assert_true(strncmp(err.msg, "a/t.cu: ", 8) == 0);
    snprintf(first, sizeof(first), "%s", err.msg);
    assert_int_equal(atune__jit_compile_cached(c, m, &cfg, "sm_90", names, 1,
                                               &b, &hit, &err),
                     ATUNE__EDATA);
    assert_int_equal(hit, 1);
    assert_null(b.data);
    assert_null(b.log);
    assert_string_equal(err.msg, first);
    /* The same source elsewhere: same entry, its own path in the text. */
    assert_int_equal(atune__jit_compile_cached(c, m2, &cfg, "sm_90", names, 1,
                                               &b, &hit, &err),
                     ATUNE__EDATA);
    assert_int_equal(hit, 1);
    assert_true(strncmp(err.msg, "b/t.cu: ", 8) == 0);
    assert_string_equal(err.msg + 1, first + 1);
    /* The other value compiles; a missing entry point is a compile error
     * too (NVRTC rejects the name expression), and recorded. */
    config_of(m, "P=1", &cfg);
    assert_int_equal(atune__jit_compile_cached(c, m, &cfg, "sm_90", names, 1,
                                               &b, &hit, &err),
                     0);
    atune__cubin_free(&b);
    names[0] = "nope";
    assert_int_equal(atune__jit_compile_cached(c, m, &cfg, "sm_90", names, 1,
                                               &b, &hit, &err),
                     ATUNE__EDATA);
    assert_int_equal(hit, 0);
    assert_int_equal(atune__jit_compile_cached(c, m, &cfg, "sm_90", names, 1,
                                               &b, &hit, &err),
                     ATUNE__EDATA);
    assert_int_equal(hit, 1);
    assert_non_null(strstr(err.msg, "identifier \"nope\" is undefined"));
    assert_int_equal(entries_in(dir), 3);
    atune__cache_close(c);
    atune__manifest_free(m);
    atune__manifest_free(m2);
}

/* The only entry of dir: its key, from the file name. */
static uint64_t only_key(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *de;
    unsigned long long key = 0;
    int n = 0;

    assert_non_null(d);
    while ((de = readdir(d)) != NULL)
        if (strlen(de->d_name) == 22 && strcmp(de->d_name + 16, ".cubin") == 0 &&
            sscanf(de->d_name, "%16llx", &key) == 1)
            n++;
    closedir(d);
    assert_int_equal(n, 1);
    return key;
}

/* A compile error recorded by an older tool (its hints since changed: a
 * "clashing macro" said of a file's own #error) is compiled again and
 * replaced, not served. */
static void test_old_error_record_compiled_again(void **state)
{
    static const char ini[] =
        "[template]\nkernel = k\nreference = k\nreference_block = 32\n"
        "reference_grid = 1\nmetric = GB/s\nwork = n\n"
        "[sizes]\ns = n=32\n[params]\nP = 2, 1\n"
        "[launch]\nblock = 32\ngrid = 1\n[args]\nout = int[n] output\n"
        "n = long n\n";
    static const char cu[] =
        "#if P == 2\n#error P must not be 2\n#endif\n"
        "extern \"C\" __global__ void k(int *out, long n) { out[0] = P; }\n";
    const char *names[] = {"k"};
    atune__manifest *m = NULL;
    char dir[4200];
    atune__cubin b;
    atune__cache *c;
    atune__err err = {0};
    uint64_t key;
    int hit = -1;

    (void)state;
    if (atune__manifest_parse("t", "a/t.ini", ini, "a/t.cu", cu, &m, &err))
        fail_msg("%s", err.msg);
    fresh_dir(dir, sizeof(dir));
    c = open_cache(dir);
    assert_int_equal(atune__jit_compile_cached(c, m, NULL, "sm_90", names, 1,
                                               &b, &hit, &err),
                     ATUNE__EDATA);
    key = only_key(dir);
    /* as an older version stored it: kind, then the message */
    assert_int_equal(atune__cache_put_error(c, key, "c: an old hint", &err), 0);
    assert_int_equal(atune__jit_compile_cached(c, m, NULL, "sm_90", names, 1,
                                               &b, &hit, &err),
                     ATUNE__EDATA);
    assert_int_equal(hit, 0);
    assert_null(strstr(err.msg, "an old hint"));
    assert_non_null(strstr(err.msg, "P must not be 2"));
    /* replaced: the next look-up is a hit with today's message */
    assert_int_equal(atune__jit_compile_cached(c, m, NULL, "sm_90", names, 1,
                                               &b, &hit, &err),
                     ATUNE__EDATA);
    assert_int_equal(hit, 1);
    assert_non_null(strstr(err.msg, "P must not be 2"));
    assert_int_equal(entries_in(dir), 1);
    atune__cache_close(c);
    atune__manifest_free(m);
}

/* --- user headers and C++ names ------------------------------------------ */

static void write_in(const char *dir, const char *file, const char *text)
{
    char path[4400];
    FILE *f;

    snprintf(path, sizeof(path), "%s/%s", dir, file);
    f = fopen(path, "w");
    assert_non_null(f);
    assert_true(fputs(text, f) >= 0);
    assert_int_equal(fclose(f), 0);
}

static atune__manifest *load_from(const char *dir, const char *name)
{
    atune__manifest *m = NULL;
    atune__err err = {0};

    if (atune__manifest_load(dir, name, &m, &err) != 0)
        fail_msg("%s", err.msg);
    return m;
}

/* A template kernel in a namespace whose header lies in an include
 * directory: the cache keys on the header's contents, so editing it
 * compiles again (and the template hash, which profiles record, changes:
 * the profile's section reads as stale). The symbol of the instantiated
 * name comes back from NVRTC, and from the cache on a hit. */
static void test_header_change(void **state)
{
    static const char ini[] =
        "[template]\n"
        "kernel = user::k<block_x>\n"
        "reference = user::k<1>\n"
        "reference_block = 32\nreference_grid = 1\n"
        "metric = GB/s\nwork = n\n"
        "include_dirs = inc\n"
        "[sizes]\ns = n=32\n[params]\nblock_x = 32..64 step 32\n"
        "[launch]\nblock = block_x\ngrid = 1\n[args]\n"
        "out = int[n] output\nn = long n\n";
    static const char cu[] =
        "#include <k.cuh>\n"
        "namespace user {\n"
        "template <int B> __global__ void k(int *out, long n)\n"
        "{ out[threadIdx.x % n] = VALUE * B; }\n"
        "}\n";
    char dir[4200], inc[4300], prof[4400], text[1024];
    atune__manifest *m;
    atune__cubin b;
    atune__cache *c;
    atune__err err = {0};
    atune_jit *j = NULL;
    atune_profile *p = NULL;
    const atune_config *cfg = NULL;
    uint64_t hash;
    int hit = -1;

    (void)state;
    fresh_dir(dir, sizeof(dir));
    assert_int_equal(mkdir(dir, 0755), 0);
    snprintf(inc, sizeof(inc), "%s/inc", dir);
    assert_int_equal(mkdir(inc, 0755), 0);
    write_in(dir, "t.ini", ini);
    write_in(dir, "t.cu", cu);
    write_in(inc, "k.cuh", "#define VALUE 3\n");
    m = load_from(dir, "t");
    assert_int_equal(m->nheaders, 1);
    {
        const char *names[] = {m->kernel, m->reference};
        c = open_cache(dir);
        assert_int_equal(atune__jit_compile_cached(c, m, NULL, "sm_90", names,
                                                   2, &b, &hit, &err),
                         0);
        assert_int_equal(hit, 0);
        assert_int_equal(b.nsyms, 2);
        assert_string_equal(b.sym[0], "_ZN4user1kILi32EEEvPil");
        assert_string_equal(b.sym[1], "_ZN4user1kILi1EEEvPil");
        atune__cubin_free(&b);
        assert_int_equal(atune__jit_compile_cached(c, m, NULL, "sm_90", names,
                                                   2, &b, &hit, &err),
                         0);
        assert_int_equal(hit, 1);
        assert_string_equal(b.sym[0], "_ZN4user1kILi32EEEvPil");
        atune__cubin_free(&b);
    }
    hash = m->hash;

    /* A profile that records this hash is fresh for libatune_jit... */
    snprintf(prof, sizeof(prof), "%s/p.ini", dir);
    snprintf(text, sizeof(text),
             "[device]\nformat = 1\nname = X\ncc = 90\nsm_count = 132\n"
             "[t n=32]\nparam.block_x = 64\ntemplate_hash = %016llx\n",
             (unsigned long long)hash);
    write_in(dir, "p.ini", text);
    assert_int_equal(atune_profile_open(prof, &p), ATUNE_OK);
    assert_int_equal(atune_profile_lookup(p, "t", "n=32", &cfg), ATUNE_OK);
    assert_int_equal(atune_config_get(cfg, "block_x", 0), 64);
    assert_int_equal(atune_jit_open(dir, "t", &j), ATUNE_OK);
    assert_int_equal(atune_jit_stale(j, cfg), 0);
    atune_jit_close(j);
    atune__manifest_free(m);

    /* ... until the header changes: stale, and the module compiles anew. */
    write_in(inc, "k.cuh", "#define VALUE 4\n");
    m = load_from(dir, "t");
    assert_true(m->hash != hash);
    assert_int_equal(atune_jit_open(dir, "t", &j), ATUNE_OK);
    assert_int_equal(atune_jit_stale(j, cfg), ATUNE_JIT_STALE_HASH);
    atune_jit_close(j);
    atune_profile_close(p);
    {
        const char *names[] = {m->kernel, m->reference};
        assert_int_equal(atune__jit_compile_cached(c, m, NULL, "sm_90", names,
                                                   2, &b, &hit, &err),
                         0);
        assert_int_equal(hit, 0);
        atune__cubin_free(&b);
    }
    atune__manifest_free(m);
    atune__cache_close(c);
}

/* A name that NVRTC cannot resolve is the manifest's error, on its line,
 * and is cached as a compile error like any other. */
static void test_name_error(void **state)
{
    static const char ini[] =
        "[template]\nkernel = ns::k<P>\nreference = ns::k<1>\n"
        "reference_block = 32\nreference_grid = 1\nmetric = GB/s\n"
        "work = n\n[sizes]\ns = n=32\n[params]\nP = 1, 2\n"
        "[launch]\nblock = 32\ngrid = 1\n[args]\nout = int[n] output\n"
        "n = long n\n";
    static const char cu[] =
        "template <int B> __global__ void k(int *out, long n) {}\n";
    atune__manifest *m = NULL;
    char dir[4200];
    atune__cubin b;
    atune__cache *c;
    atune__err err = {0};
    int hit = -1;

    (void)state;
    if (atune__manifest_parse("t", "a/t.ini", ini, "a/t.cu", cu, &m, &err))
        fail_msg("%s", err.msg);
    fresh_dir(dir, sizeof(dir));
    c = open_cache(dir);
    for (int round = 0; round < 2; round++) {
        const char *names[] = {m->kernel};
        assert_int_equal(atune__jit_compile_cached(c, m, NULL, "sm_90", names,
                                                   1, &b, &hit, &err),
                         ATUNE__EDATA);
        assert_int_equal(hit, round);
        if (strncmp(err.msg, "a/t.ini:2: kernel 'ns::k<P>' (as 'ns::k<1>')",
                    42) != 0)
            fail_msg("round %d: %s", round, err.msg);
    }
    atune__manifest_free(m);
    atune__cache_close(c);
}

static int setup(void **state)
{
    (void)state;
    if (!mkdtemp(root))
        return -1;
    unsetenv("ATUNE_NO_CACHE");
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    rm_rf(root);
    return 0;
}

int main(void)
{
    /* Processes fork before any thread exists. */
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_concurrent_processes),
        cmocka_unit_test(test_key_changes_with_every_input),
        cmocka_unit_test(test_hit_and_miss),
        cmocka_unit_test(test_damaged_entries_rebuilt),
        cmocka_unit_test(test_planted_entries),
        cmocka_unit_test(test_entries_of_other_users),
        cmocka_unit_test(test_concurrent_threads),
        cmocka_unit_test(test_directory_from_environment),
        cmocka_unit_test(test_unusable_directory),
        cmocka_unit_test(test_disabled),
        cmocka_unit_test(test_compile_cached),
        cmocka_unit_test(test_compile_error_cached),
        cmocka_unit_test(test_old_error_record_compiled_again),
        cmocka_unit_test(test_header_change),
        cmocka_unit_test(test_name_error),
    };

    return cmocka_run_group_tests_name("cache", tests, setup, teardown);
}
