/* cache.h -- the module cache on disk: CUBINs keyed by everything that
 * decides their bytes (source, compile options, architecture, NVRTC
 * version), one file per entry under a cache directory.
 *
 * Every entry carries a header (magic, format version, key, lengths, a
 * checksum of header and payload), so a truncated, corrupt or foreign file
 * reads as a miss and is replaced by the next write. Writes go to a
 * temporary file that is renamed over the entry, so concurrent processes
 * and threads only ever see whole entries; no locks are needed. A handle
 * is thread-safe: the compile pool's workers share one. */
#ifndef ATUNE_CACHE_H
#define ATUNE_CACHE_H

#include <stddef.h>
#include <stdint.h>

#include "base/util.h"
#include "jit/jit.h"
#include "template/manifest.h"
#include "template/space.h"

typedef struct atune__cache atune__cache;

/* An entry's first 8 bytes ("ATUNECB" and its NUL). */
#define ATUNE__CACHE_MAGIC "ATUNECB"

/* A writer's temporary file: ".KEY.RANDOM.atune-tmp" (16 hex digits,
 * ATUNE__TMP_RANDOM characters of base/outfile.h's alphabet). */
#define ATUNE__CACHE_TMP_SUFFIX ".atune-tmp"

typedef struct atune__cache_stats {
    long hits;         /* lookups answered from the cache */
    long misses;       /* lookups that found no usable entry */
    long corrupt;      /* of the misses: entries found damaged */
    long writes;       /* entries written */
    long write_errors; /* entries that could not be written */
    long rebuilt;      /* of the corrupt: replaced by a good entry */
    long unreplaced;   /* of the corrupt: still damaged (not rewritten) */
    long evicted;      /* entries removed to keep the size limit */
} atune__cache_stats;

/* What atune__cache_get found. */
enum {
    ATUNE__CACHE_MISS = 0,
    ATUNE__CACHE_HIT = 1,      /* a CUBIN (and NVRTC's log) */
    ATUNE__CACHE_HIT_ERROR = 2 /* a recorded compile error (in log) */
};

/* True when the environment disables the cache: ATUNE_NO_CACHE is set to
 * anything but "" or "0". */
int atune__cache_disabled_by_env(void);

/* Writes the default cache directory into buf: $ATUNE_CACHE_DIR when set
 * and non-empty, else $XDG_CACHE_HOME/autotune (an absolute
 * $XDG_CACHE_HOME only, as the XDG spec asks), else
 * $HOME/.cache/autotune. ATUNE__ENOINPUT when none applies, ATUNE__EUSAGE
 * when the path does not fit. */
int atune__cache_default_dir(char *buf, size_t len, atune__err *err);

/* Opens the cache in dir (NULL: the default directory), creating missing
 * directories. When the environment disables the cache, returns 0 with
 * *out NULL: every function here accepts a NULL cache as "no cache".
 * Fails (ATUNE__ECANTCREAT, ATUNE__EOSERR) when the directory cannot be
 * created or is not a writable directory; callers usually warn and go on
 * without a cache. */
int atune__cache_open(const char *dir, atune__cache **out, atune__err *err);

void atune__cache_close(atune__cache *c);

/* The directory of the cache ("" for NULL). */
const char *atune__cache_dir(const atune__cache *c);

/* The key of one NVRTC compilation: a 64-bit FNV-1a over the source bytes,
 * the hash of the user headers it includes (atune__manifest.headers_hash),
 * every option in order but the include paths (the architecture is one:
 * --gpu-architecture=), the name expressions, and NVRTC's version, which
 * stands for the toolkit's own headers. Each string is
 * hashed with its length, so no two different inputs are the same byte
 * stream. The program name is left out: it does not change the CUBIN
 * (checked with NVRTC 13.0), so the built-in and a copied template share
 * entries. */
uint64_t atune__cache_key(const char *source, size_t source_len,
                          uint64_t headers_hash, const char *const *opts,
                          int nopts, const char *const *names, int nnames,
                          int nvrtc_version);

/* The file of an entry: DIR/0123456789abcdef.cubin. */
int atune__cache_entry_path(const atune__cache *c, uint64_t key, char *buf,
                            size_t len);

/* Looks key up. ATUNE__CACHE_HIT fills out (data, len and log, owned by
 * the caller: atune__cubin_free); ATUNE__CACHE_HIT_ERROR fills only
 * out->log with the recorded message; ATUNE__CACHE_MISS leaves out zeroed
 * (no entry, an unreadable one, or a damaged one, which is counted as
 * corrupt). Out of memory reads as a miss. A NULL cache always misses and
 * counts nothing. */
int atune__cache_get(atune__cache *c, uint64_t key, atune__cubin *out);

/* Stores a CUBIN (and its log) under key, atomically. ATUNE__ECANTCREAT,
 * ATUNE__EIO or ATUNE__EOSERR when it could not be written (counted);
 * the cache stays consistent. A NULL cache stores nothing and returns 0. */
int atune__cache_put(atune__cache *c, uint64_t key, const atune__cubin *cubin,
                     atune__err *err);

/* Stores a compile error (the configuration does not compile) under key,
 * so that a second run does not compile it again. */
int atune__cache_put_error(atune__cache *c, uint64_t key, const char *msg,
                           atune__err *err);

/* The size limit: ATUNE_CACHE_MAX_MB (whole MiB, 0 for none; default
 * ATUNE__CACHE_DEFAULT_MAX_MB), read by atune__cache_open, which fails
 * with ATUNE__EUSAGE on a value that is not one. After a process's first
 * write, and again after each further tenth of the limit it writes, the
 * directory is scanned once and, when it holds more than the limit, the
 * least recently used entries are removed down to 90 % of it (counted as
 * evicted). So a directory exceeds the limit by at most a tenth of it per
 * writing process, and a scan costs one readdir, not one per write. */
#define ATUNE__CACHE_DEFAULT_MAX_MB 1024

/* Sets the limit in bytes (0: none); tests use tiny ones. */
void atune__cache_set_limit(atune__cache *c, uint64_t max_bytes);

uint64_t atune__cache_limit(const atune__cache *c);

/* Removes the least recently used entries of dir (the later of access and
 * modification time) until it holds at most 90 % of max_bytes, when it
 * holds more than max_bytes; also removes temporary files an hour old,
 * left by killed writers, and only what it can tell is one: a regular
 * file (no link followed) of this user, named as write_entry names them,
 * empty or starting with an entry's magic. *evicted: how many entries it removed. -1 when
 * the directory cannot be listed (cache_evict.c). */
int atune__cache_evict_dir(const char *dir, uint64_t max_bytes, long *evicted);

/* The counters since open (all zero for NULL). */
void atune__cache_stats_get(const atune__cache *c, atune__cache_stats *s);

/* Adds what a forked copy of c counted (compile_procs.c). */
void atune__cache_stats_add(atune__cache *c, const atune__cache_stats *s);

/* atune__jit_compile through the cache: the key is made from exactly the
 * options atune__jit_compile passes to NVRTC for (m, c, arch) (c NULL: the
 * default configuration), the names and NVRTC's version, and the
 * manifest's compiler when it is not auto. A hit returns
 * the cached CUBIN, or the cached compile error as ATUNE__EDATA with the
 * message a compile would give; a miss compiles and stores the result
 * (a failure to store only counts as a write error). *hit (may be NULL)
 * tells whether NVRTC was skipped. cache may be NULL: plain compile. */
int atune__jit_compile_cached(atune__cache *cache, const atune__manifest *m,
                              const atune__config *c, const char *arch,
                              const char *const *names, int nnames,
                              atune__cubin *out, int *hit, atune__err *err);

/* Whether compiling (m, c, arch, names) would hit an entry of cache
 * (a CUBIN or a recorded error), without reading it: 0 for a NULL cache
 * or a configuration whose options cannot be made. */
int atune__jit_cache_has(atune__cache *cache, const atune__manifest *m,
                         const atune__config *c, const char *arch,
                         const char *const *names, int nnames);

#endif
