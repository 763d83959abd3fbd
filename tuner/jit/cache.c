/* cache.c -- the module cache on disk (see cache.h).
 *
 * Entry layout, integers little-endian whatever the host:
 *
 *    0  8  magic "ATUNECB\0"
 *    8  4  format version (2)
 *   12  4  kind: 0 CUBIN, 1 compile error
 *   16  8  key
 *   24  8  payload length (the CUBIN; 0 for a compile error)
 *   32  8  log length (NVRTC's log, or the error message)
 *   40  8  symbols length (each name expression's symbol, NUL-terminated)
 *   48  8  FNV-1a of bytes 0..48, then the payload, the log, the symbols
 *   56     payload, log, symbols; the file ends exactly there
 *
 * Entries are never written in place: a temporary file in the same
 * directory is renamed over the entry. There is no fsync: after a crash an
 * entry may be empty or hold garbage, which the checksum catches, and a
 * cache is worth less than the milliseconds an fsync per entry costs. */
#include "jit/cache.h"

#include "base/outfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAGIC ATUNE__CACHE_MAGIC
#define FORMAT 2
#define HDR 56
#define SYMS_AT 40
#define SUM_AT 48
#define KIND_CUBIN 0
#define KIND_ERROR 1
#define MAX_DATA (256u << 20) /* a CUBIN is KBs; refuse absurd lengths */
#define MAX_LOG (16u << 20)
#define MAX_SYMS (64u << 10)
#define MAX_LIMIT_MB (INT64_C(1) << 40)

struct atune__cache {
    char *dir;
    uid_t dir_owner;          /* whose entries, besides ours, are trusted */
    uint64_t max_bytes;       /* the size limit; 0: none */
    atomic_ullong since_scan; /* bytes written since the last scan */
    atomic_int scanned;       /* this process scanned once */
    atomic_flag scanning;     /* one thread scans at a time */
    atomic_long hits;
    atomic_long misses;
    atomic_long corrupt;
    atomic_long writes;
    atomic_long write_errors;
    atomic_long rebuilt;
    atomic_long unreplaced;
    atomic_long evicted;
};

/* What reading one entry file gave. */
enum entry { ENTRY_BAD = -1, ENTRY_ABSENT = 0, ENTRY_CUBIN, ENTRY_ERROR };

/* --- directory ------------------------------------------------------------ */

int atune__cache_disabled_by_env(void)
{
    const char *v = getenv("ATUNE_NO_CACHE");

    return v && *v && strcmp(v, "0") != 0;
}

int atune__cache_default_dir(char *buf, size_t len, atune__err *err)
{
    const char *env = getenv("ATUNE_CACHE_DIR");
    int n;

    if (env && *env)
        n = snprintf(buf, len, "%s", env);
    else if ((env = getenv("XDG_CACHE_HOME")) && env[0] == '/')
        n = snprintf(buf, len, "%s/autotune", env);
    else if ((env = getenv("HOME")) && *env)
        n = snprintf(buf, len, "%s/.cache/autotune", env);
    else
        return atune__fail(err, ATUNE__ENOINPUT,
                           "no cache directory: set ATUNE_CACHE_DIR or HOME");
    if (n < 0 || (size_t)n >= len)
        return atune__fail(err, ATUNE__EUSAGE, "cache directory too long");
    return 0;
}

/* mkdir -p: creates every missing directory of path. */
static int make_dirs(const char *path, atune__err *err)
{
    char *p = atune__strdup(path);
    struct stat st;
    int rc = 0;

    if (!p)
        return atune__fail(err, ATUNE__EOSERR, "out of memory");
    for (char *s = p + 1;; s++) {
        char c = *s;
        if (c != '/' && c != '\0')
            continue;
        *s = '\0';
        if (mkdir(p, 0755) != 0 && errno != EEXIST) {
            rc = atune__fail(err, ATUNE__ECANTCREAT,
                             "cannot create cache directory '%s': %s", p,
                             strerror(errno));
            break;
        }
        *s = c;
        if (c == '\0')
            break;
    }
    free(p);
    if (rc)
        return rc;
    if (stat(path, &st) != 0 || !S_ISDIR(st.st_mode))
        return atune__fail(err, ATUNE__ECANTCREAT,
                           "cache directory '%s' is not a directory", path);
    if (access(path, W_OK | X_OK) != 0)
        return atune__fail(err, ATUNE__ECANTCREAT,
                           "cache directory '%s' is not writable: %s", path,
                           strerror(errno));
    return 0;
}

/* ATUNE_CACHE_MAX_MB: whole MiB, 0 for no limit. */
static int limit_from_env(uint64_t *bytes, atune__err *err)
{
    int64_t mb;
    int rc = atune__env_i64("ATUNE_CACHE_MAX_MB", 0, MAX_LIMIT_MB,
                            ATUNE__CACHE_DEFAULT_MAX_MB,
                            "whole MiB, 0 for no limit", &mb, err);

    *bytes = (uint64_t)mb << 20;
    return rc;
}

int atune__cache_open(const char *dir, atune__cache **out, atune__err *err)
{
    char buf[4096];
    atune__cache *c;
    uint64_t max_bytes;
    int rc;

    *out = NULL;
    if (atune__cache_disabled_by_env())
        return 0;
    if ((rc = limit_from_env(&max_bytes, err)) != 0)
        return rc;
    if (!dir) {
        if ((rc = atune__cache_default_dir(buf, sizeof(buf), err)) != 0)
            return rc;
        dir = buf;
    }
    if (*dir == '\0')
        return atune__fail(err, ATUNE__EUSAGE, "empty cache directory");
    if ((rc = make_dirs(dir, err)) != 0)
        return rc;
    c = atune__calloc(1, sizeof(*c));
    if (!c || !(c->dir = atune__strdup(dir))) {
        free(c);
        return atune__fail(err, ATUNE__EOSERR, "out of memory");
    }
    atomic_init(&c->hits, 0);
    atomic_init(&c->misses, 0);
    atomic_init(&c->corrupt, 0);
    atomic_init(&c->writes, 0);
    atomic_init(&c->write_errors, 0);
    atomic_init(&c->rebuilt, 0);
    atomic_init(&c->unreplaced, 0);
    atomic_init(&c->evicted, 0);
    atomic_init(&c->since_scan, 0);
    atomic_init(&c->scanned, 0);
    atomic_flag_clear(&c->scanning);
    c->max_bytes = max_bytes;
    {
        struct stat st;
        c->dir_owner = stat(dir, &st) == 0 ? st.st_uid : geteuid();
    }
    *out = c;
    return 0;
}

void atune__cache_close(atune__cache *c)
{
    if (!c)
        return;
    free(c->dir);
    free(c);
}

const char *atune__cache_dir(const atune__cache *c)
{
    return c ? c->dir : "";
}

void atune__cache_set_limit(atune__cache *c, uint64_t max_bytes)
{
    if (c)
        c->max_bytes = max_bytes;
}

uint64_t atune__cache_limit(const atune__cache *c)
{
    return c ? c->max_bytes : 0;
}

/* After a write of bytes: scans the directory on this process's first
 * write and after each tenth of the limit written since (cache.h). */
static void keep_limit(atune__cache *c, uint64_t bytes)
{
    uint64_t written, step = c->max_bytes / 10;
    long evicted = 0;

    if (!c->max_bytes)
        return;
    written = atomic_fetch_add(&c->since_scan, bytes) + bytes;
    if (atomic_load(&c->scanned) && written < step)
        return;
    if (atomic_flag_test_and_set(&c->scanning))
        return; /* another thread scans now */
    atomic_store(&c->scanned, 1);
    atomic_store(&c->since_scan, 0);
    if (atune__cache_evict_dir(c->dir, c->max_bytes, &evicted) == 0)
        atomic_fetch_add(&c->evicted, evicted);
    atomic_flag_clear(&c->scanning);
}

int atune__cache_entry_path(const atune__cache *c, uint64_t key, char *buf,
                            size_t len)
{
    int n =
        snprintf(buf, len, "%s/%016llx.cubin", c->dir, (unsigned long long)key);

    return n < 0 || (size_t)n >= len ? -1 : 0;
}

void atune__cache_stats_add(atune__cache *c, const atune__cache_stats *s)
{
    if (!c)
        return;
    atomic_fetch_add(&c->hits, s->hits);
    atomic_fetch_add(&c->misses, s->misses);
    atomic_fetch_add(&c->corrupt, s->corrupt);
    atomic_fetch_add(&c->writes, s->writes);
    atomic_fetch_add(&c->write_errors, s->write_errors);
    atomic_fetch_add(&c->rebuilt, s->rebuilt);
    atomic_fetch_add(&c->unreplaced, s->unreplaced);
    atomic_fetch_add(&c->evicted, s->evicted);
}

void atune__cache_stats_get(const atune__cache *c, atune__cache_stats *s)
{
    /* atomic_load's parameter is not const in C17: drop the const. */
    atune__cache *w = (atune__cache *)c;

    memset(s, 0, sizeof(*s));
    if (!w)
        return;
    s->hits = atomic_load(&w->hits);
    s->misses = atomic_load(&w->misses);
    s->corrupt = atomic_load(&w->corrupt);
    s->writes = atomic_load(&w->writes);
    s->write_errors = atomic_load(&w->write_errors);
    s->rebuilt = atomic_load(&w->rebuilt);
    s->unreplaced = atomic_load(&w->unreplaced);
    s->evicted = atomic_load(&w->evicted);
}

/* --- key ------------------------------------------------------------------ */

static uint64_t hash_u64(uint64_t h, uint64_t v)
{
    unsigned char b[8];

    for (int i = 0; i < 8; i++)
        b[i] = (unsigned char)(v >> (8 * i));
    return atune__fnv1a(b, sizeof(b), h);
}

/* A string as its length then its bytes: "ab","c" never equals "a","bc". */
static uint64_t hash_str(uint64_t h, const char *s, size_t len)
{
    return atune__fnv1a(s, len, hash_u64(h, len));
}

uint64_t atune__cache_key(const char *source, size_t source_len,
                          uint64_t headers_hash, const char *const *opts,
                          int nopts, const char *const *names, int nnames,
                          int nvrtc_version)
{
    static const char domain[] = "autotune cubin cache";
    uint64_t h = hash_str(ATUNE__FNV_SEED, domain, sizeof(domain) - 1);

    h = hash_str(h, source, source_len);
    h = hash_u64(h, headers_hash);
    h = hash_u64(h, (uint64_t)nopts);
    for (int i = 0; i < nopts; i++)
        h = hash_str(h, opts[i], strlen(opts[i]));
    h = hash_u64(h, (uint64_t)nnames);
    for (int i = 0; i < nnames; i++)
        h = hash_str(h, names[i], strlen(names[i]));
    return hash_u64(h, (uint64_t)(int64_t)nvrtc_version);
}

/* --- entry format --------------------------------------------------------- */

static void put_le(unsigned char *p, uint64_t v, int bytes)
{
    for (int i = 0; i < bytes; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

static uint64_t get_le(const unsigned char *p, int bytes)
{
    uint64_t v = 0;

    for (int i = bytes - 1; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}

static uint64_t checksum(const unsigned char *hdr, const void *data,
                         size_t dlen, const void *log, size_t llen,
                         const void *syms, size_t slen)
{
    uint64_t h = atune__fnv1a(hdr, SUM_AT, ATUNE__FNV_SEED);

    h = atune__fnv1a(data, dlen, h);
    h = atune__fnv1a(log, llen, h);
    return atune__fnv1a(syms, slen, h);
}

/* Checks a header against the entry wanted and the file's size; fills the
 * kind and lengths. */
static int header_ok(const unsigned char *hdr, uint64_t key, off_t size,
                     uint32_t *kind, size_t *dlen, size_t *llen, size_t *slen)
{
    uint64_t dl = get_le(hdr + 24, 8), ll = get_le(hdr + 32, 8);
    uint64_t sl = get_le(hdr + SYMS_AT, 8);

    *kind = (uint32_t)get_le(hdr + 12, 4);
    if (memcmp(hdr, MAGIC, 8) != 0 || get_le(hdr + 8, 4) != FORMAT ||
        get_le(hdr + 16, 8) != key || dl > MAX_DATA || ll > MAX_LOG ||
        sl > MAX_SYMS || (uint64_t)size != HDR + dl + ll + sl)
        return 0;
    if ((*kind == KIND_CUBIN && dl == 0) || (*kind == KIND_ERROR && dl) ||
        *kind > KIND_ERROR)
        return 0;
    *dlen = (size_t)dl;
    *llen = (size_t)ll;
    *slen = (size_t)sl;
    return 1;
}

/* Reads the payload and log after a good header, and checks the sum. */
static enum entry read_body(int fd, const unsigned char *hdr, uint32_t kind,
                            size_t dlen, size_t llen, size_t slen,
                            atune__cubin *out)
{
    char *data = dlen ? malloc(dlen) : NULL;
    char *log = malloc(llen + 1);
    char *syms = malloc(slen + 1);
    enum entry e = ENTRY_BAD;

    if ((dlen && !data) || !log || !syms) {
        e = ENTRY_ABSENT;
        goto out;
    }
    if (atune__read_full(fd, data, dlen) != 0 ||
        atune__read_full(fd, log, llen) != 0 ||
        atune__read_full(fd, syms, slen) != 0)
        goto out;
    log[llen] = '\0';
    /* A NUL inside the log would cut the message a caller prints. */
    if (memchr(log, '\0', llen) ||
        checksum(hdr, data, dlen, log, llen, syms, slen) !=
            get_le(hdr + SUM_AT, 8) ||
        atune__cubin_syms_unpack(out, syms, slen) != 0) {
        atune__cubin_free(out);
        goto out;
    }
    out->data = data;
    out->len = dlen;
    out->log = log;
    data = log = NULL;
    e = kind == KIND_CUBIN ? ENTRY_CUBIN : ENTRY_ERROR;
out:
    free(data);
    free(log);
    free(syms);
    return e;
}

/* Whether an entry of this owner may be used. An entry is a CUBIN that
 * is loaded and run in the user's context (in an application's own, at
 * first use) or a compile error that rules a configuration out: one that
 * another user could write is trusted only from the user, root or the
 * directory's owner, whom the user chose by naming the directory. In a
 * cache directory anyone may write (mode 1777, a group's), the others'
 * entries are misses, compiled again. */
static int trusted_owner(const atune__cache *c, uid_t uid)
{
    return uid == geteuid() || uid == 0 || uid == c->dir_owner;
}

static enum entry read_entry(const atune__cache *c, const char *path,
                             uint64_t key, atune__cubin *out)
{
    unsigned char hdr[HDR];
    struct stat st;
    uint32_t kind;
    size_t dlen, llen, slen;
    enum entry e = ENTRY_BAD;
    /* Whatever was planted at the entry's name is a miss, never followed
     * and never waited for: a FIFO would block the build for good. */
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);

    if (fd < 0)
        return errno == ENOENT ? ENTRY_ABSENT : ENTRY_BAD;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) ||
        !trusted_owner(c, st.st_uid) || st.st_size < HDR ||
        atune__read_full(fd, hdr, HDR) != 0 ||
        !header_ok(hdr, key, st.st_size, &kind, &dlen, &llen, &slen))
        goto out;
    e = read_body(fd, hdr, kind, dlen, llen, slen, out);
    if (e == ENTRY_CUBIN || e == ENTRY_ERROR) {
        /* Used now, for the size limit's eviction (cache_evict.c); fails
         * harmlessly in a shared directory of another user's entries. */
        const struct timespec now[2] = {{0, UTIME_NOW}, {0, UTIME_OMIT}};
        futimens(fd, now);
    }
out:
    close(fd);
    return e;
}

/* atune__cache_get that also says whether the miss was a damaged entry. */
static int lookup(atune__cache *c, uint64_t key, atune__cubin *out,
                  int *damaged)
{
    char path[4200];
    enum entry e;

    memset(out, 0, sizeof(*out));
    *damaged = 0;
    if (!c)
        return ATUNE__CACHE_MISS;
    if (atune__cache_entry_path(c, key, path, sizeof(path)) != 0)
        e = ENTRY_ABSENT;
    else
        e = read_entry(c, path, key, out);
    if (e == ENTRY_CUBIN || e == ENTRY_ERROR) {
        atomic_fetch_add(&c->hits, 1);
        return e == ENTRY_CUBIN ? ATUNE__CACHE_HIT : ATUNE__CACHE_HIT_ERROR;
    }
    if (e == ENTRY_BAD) {
        atomic_fetch_add(&c->corrupt, 1);
        *damaged = 1;
    }
    atomic_fetch_add(&c->misses, 1);
    return ATUNE__CACHE_MISS;
}

int atune__cache_get(atune__cache *c, uint64_t key, atune__cubin *out)
{
    int damaged;

    return lookup(c, key, out, &damaged);
}

/* Writes the whole entry into a new temporary file and renames it over
 * the entry: readers see the old entry or the new one, never a part. The
 * temporary file's name (ATUNE__CACHE_TMP_*) is how cache_evict.c knows
 * one that a killed writer left. */
static int write_entry(atune__cache *c, uint64_t key, uint32_t kind,
                       const void *data, size_t dlen, const char *log,
                       const char *syms, size_t slen, atune__err *err)
{
    size_t llen = log ? strlen(log) : 0;
    unsigned char hdr[HDR];
    char prefix[4200], path[4200], *tmp;
    int fd, ok, rc;

    if (dlen > MAX_DATA || llen > MAX_LOG || slen > MAX_SYMS)
        return atune__fail(err, ATUNE__EIO, "cache entry too large");
    if (atune__cache_entry_path(c, key, path, sizeof(path)) != 0 ||
        snprintf(prefix, sizeof(prefix), "%s/.%016llx.", c->dir,
                 (unsigned long long)key) >= (int)sizeof(prefix))
        return atune__fail(err, ATUNE__ECANTCREAT, "cache path too long");
    memset(hdr, 0, sizeof(hdr));
    memcpy(hdr, MAGIC, 8);
    put_le(hdr + 8, FORMAT, 4);
    put_le(hdr + 12, kind, 4);
    put_le(hdr + 16, key, 8);
    put_le(hdr + 24, dlen, 8);
    put_le(hdr + 32, llen, 8);
    put_le(hdr + SYMS_AT, slen, 8);
    put_le(hdr + SUM_AT, checksum(hdr, data, dlen, log, llen, syms, slen), 8);
    if ((rc = atune__create_temp(prefix, ATUNE__CACHE_TMP_SUFFIX, &tmp, &fd,
                                 err)) != 0)
        return rc;
    /* A cache of compiled templates holds nothing secret, and a shared
     * ATUNE_CACHE_DIR needs others to read. */
    ok = fchmod(fd, 0644) == 0 && atune__write_full(fd, hdr, HDR) == 0 &&
         atune__write_full(fd, data, dlen) == 0 &&
         atune__write_full(fd, log, llen) == 0 &&
         atune__write_full(fd, syms, slen) == 0;
    if (close(fd) != 0)
        ok = 0;
    if (!ok || rename(tmp, path) != 0) {
        rc = atune__fail(err, ATUNE__EIO, "cannot write '%s': %s", path,
                         strerror(errno));
        unlink(tmp);
        free(tmp);
        return rc;
    }
    free(tmp);
    return 0;
}

static int put_entry(atune__cache *c, uint64_t key, uint32_t kind,
                     const void *data, size_t dlen, const char *log,
                     const char *syms, size_t slen, atune__err *err)
{
    int rc;

    if (!c)
        return 0;
    rc = write_entry(c, key, kind, data, dlen, log, syms, slen, err);
    atomic_fetch_add(rc ? &c->write_errors : &c->writes, 1);
    if (rc == 0)
        keep_limit(c, HDR + dlen + (log ? strlen(log) : 0) + slen);
    return rc;
}

int atune__cache_put(atune__cache *c, uint64_t key, const atune__cubin *cubin,
                     atune__err *err)
{
    char *syms;
    size_t slen = 0;
    int rc;

    if (!cubin->data || cubin->len == 0)
        return atune__fail(err, ATUNE__ESOFTWARE, "empty CUBIN not cached");
    if (!(syms = atune__cubin_syms_pack(cubin, &slen)))
        return atune__fail(err, ATUNE__EOSERR, "out of memory");
    rc = put_entry(c, key, KIND_CUBIN, cubin->data, cubin->len, cubin->log,
                   syms, slen, err);
    free(syms);
    return rc;
}

int atune__cache_put_error(atune__cache *c, uint64_t key, const char *msg,
                           atune__err *err)
{
    return put_entry(c, key, KIND_ERROR, "", 0, msg, "", 0, err);
}

/* --- cached compilation --------------------------------------------------- */

/* A compile error as stored: "c" or "i" (it started with the .cu's or
 * the .ini's path), the generation of the messages, then the rest of the
 * message; NULL for failures that may not recur (out of memory, a broken
 * NVRTC). The path is left out so that a copied template shares entries.
 * The message carries jit.c's hints (a clashing macro, host code, a
 * missing header): a record of another generation is compiled again, so
 * that a changed hint is not served from a cache filled before. Raise it
 * when those messages change. */
#define ERROR_GEN '2'

static char *config_error_record(const atune__manifest *m,
                                 const atune__err *err)
{
    size_t clen = strlen(m->cu_path), ilen = strlen(m->ini_path);
    const char *tail;
    char *rec;

    if (!err || err->code != ATUNE__EDATA ||
        !strstr(err->msg, "compile error (NVRTC_ERROR_COMPILATION)"))
        return NULL;
    if (strncmp(err->msg, m->cu_path, clen) == 0 && err->msg[clen] == ':')
        tail = err->msg + clen;
    else if (strncmp(err->msg, m->ini_path, ilen) == 0 && err->msg[ilen] == ':')
        tail = err->msg + ilen;
    else
        return NULL;
    if (!(rec = malloc(strlen(tail) + 3)))
        return NULL;
    rec[0] = tail == err->msg + clen ? 'c' : 'i';
    rec[1] = ERROR_GEN;
    strcpy(rec + 2, tail);
    return rec;
}

/* Whether rec is a record of this generation. */
static int current_error(const char *rec)
{
    return rec && (rec[0] == 'c' || rec[0] == 'i') && rec[1] == ERROR_GEN;
}

static int recorded_error(const atune__manifest *m, const char *rec,
                          atune__err *err)
{
    const char *path = rec[0] == 'i' ? m->ini_path : m->cu_path;

    return atune__fail(err, ATUNE__EDATA, "%s%s", path, rec + 2);
}

/* The cache key of compiling (m, c, arch, names). */
static int compile_key(const atune__manifest *m, const atune__config *c,
                       const char *arch, const char *const *names, int nnames,
                       uint64_t *key, atune__err *err)
{
    atune__jit_opts o;
    atune__jit_name_buf text[ATUNE__JIT_MAX_NAMES];
    const char *subst[ATUNE__JIT_MAX_NAMES];
    int rc;

    if ((rc = atune__jit_names(m, c, names, nnames, text, subst, err)) != 0)
        return rc;
    if ((rc = atune__jit_options(m, c, arch, &o, err)) != 0)
        return rc;
    *key = atune__cache_key(m->source, m->source_len, m->headers_hash, o.v,
                            o.nkey, subst, nnames, atune__jit_version());
    /* compiler = nvrtc refuses what auto compiles with nvcc, and nvcc's
     * CUBIN is not NVRTC's: each has its entries. */
    if (m->compiler != ATUNE__COMPILER_AUTO)
        *key = atune__fnv1a(&m->compiler, sizeof(m->compiler), *key);
    atune__jit_options_free(&o);
    return 0;
}

int atune__jit_cache_has(atune__cache *cache, const atune__manifest *m,
                         const atune__config *c, const char *arch,
                         const char *const *names, int nnames)
{
    atune__err err = {0};
    struct stat st;
    char path[4200];
    uint64_t key;

    return cache && compile_key(m, c, arch, names, nnames, &key, &err) == 0 &&
           atune__cache_entry_path(cache, key, path, sizeof(path)) == 0 &&
           lstat(path, &st) == 0 && S_ISREG(st.st_mode);
}

int atune__jit_compile_cached(atune__cache *cache, const atune__manifest *m,
                              const atune__config *c, const char *arch,
                              const char *const *names, int nnames,
                              atune__cubin *out, int *hit, atune__err *err)
{
    atune__config dflt;
    char *rec;
    uint64_t key;
    int found, rc, damaged, put = -1;

    if (hit)
        *hit = 0;
    if (!cache)
        return atune__jit_compile(m, c, arch, names, nnames, out, err);
    if (!c) {
        atune__space_config(m, 0, &dflt);
        c = &dflt;
    }
    if ((rc = compile_key(m, c, arch, names, nnames, &key, err)) != 0)
        return rc;
    found = lookup(cache, key, out, &damaged);
    if (found != ATUNE__CACHE_MISS && hit)
        *hit = 1;
    if (found == ATUNE__CACHE_HIT && out->nsyms == nnames)
        return 0;
    if (found == ATUNE__CACHE_HIT_ERROR && current_error(out->log)) {
        rc = recorded_error(m, out->log, err);
        atune__cubin_free(out);
        return rc;
    }
    if (found == ATUNE__CACHE_HIT_ERROR && hit)
        *hit = 0; /* an older generation's message: compiled again */
    atune__cubin_free(out);
    rc = atune__jit_compile(m, c, arch, names, nnames, out, err);
    if (rc == 0)
        put = atune__cache_put(cache, key, out, NULL);
    else if ((rec = config_error_record(m, err)) != NULL) {
        put = atune__cache_put_error(cache, key, rec, NULL);
        free(rec);
    }
    /* "Rebuilt" only when a good entry really took the damaged one's
     * place: an entry replaced by a directory cannot be renamed over. */
    if (damaged)
        atomic_fetch_add(put == 0 ? &cache->rebuilt : &cache->unreplaced, 1);
    return rc;
}
