/* pch.h -- NVRTC's precompiled headers for templates that include heavy
 * toolkit headers (pch.c). */
#ifndef ATUNE_PCH_H
#define ATUNE_PCH_H

#include <stddef.h>
#include <sys/types.h>

#include "base/util.h"
#include "template/manifest.h"

/* What NVRTC did with a precompiled header in one compile
 * (atune__cubin.pch). */
enum { ATUNE__PCH_NONE = 0, ATUNE__PCH_CREATED = 1, ATUNE__PCH_USED = 2 };

/* Whether m's compiles gain from a precompiled header: its source includes
 * toolkit headers (m->toolkit_includes) and no parameter is a -D macro.
 * With -D knobs every configuration's preamble differs: NVRTC would make
 * a new 178 MB file per configuration, slower than none. */
int atune__pch_eligible(const atune__manifest *m);

/* The root of the precompiled headers of the module cache in cache_dir:
 * cache_dir/pch, made and checked private (atune__private_dir), its real
 * path into root. ATUNE__ECANTCREAT with the reason when it is not safe:
 * then compile without. */
int atune__pch_root(const char *cache_dir, char *root, size_t len,
                    atune__err *err);

/* Removes the directories of this host's compile processes that are gone
 * (root/HOST.PID, PID no longer running), left by a run that was killed;
 * another host's (a cache in a home shared by nodes) are left alone. */
void atune__pch_sweep(const char *root);

/* This process's own directory root/HOST.PID (made, mode 0700): every NVRTC
 * compile of an eligible template in this process passes -pch
 * --pch-dir=it. NVRTC names its files after the source file and reads any
 * of them it finds there, and files being written by another process
 * could be read half-written: one directory per compile process. 0 or -1
 * (then no precompiled headers). */
int atune__pch_use(const char *root);

/* Removes root/HOST.PID and the files in it (NVRTC removes its own at a normal
 * exit, not at _exit or SIGKILL: the compile processes end with _exit). */
void atune__pch_remove(const char *root, pid_t pid);

/* This process's directory, or NULL when it uses none. */
const char *atune__pch_dir(void);

/* Adds the options for m (none unless this process uses a directory and m
 * is eligible) to opts[*n], room permitting (cap). */
void atune__pch_options(const atune__manifest *m, const char **opts, int *n,
                        int cap);

/* Takes NVRTC's lines about precompiled headers out of log (in place) and
 * says what happened: ATUNE__PCH_CREATED, _USED or _NONE. */
int atune__pch_filter_log(char *log);

#endif
