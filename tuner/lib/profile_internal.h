/* profile_internal.h -- entry points of profile.c and profile_size.c that
 * are not part of the public API: the profile writer, the search's seeds
 * and the fuzzer use them. Not installed;
 * hidden in a shared libatune (no ATUNE_API), so callers link profile.c
 * statically. */
#ifndef ATUNE_PROFILE_INTERNAL_H
#define ATUNE_PROFILE_INTERNAL_H

#include <stddef.h>

#include "atune/atune.h"
#include "lib/inidoc.h"

/* atune_profile_open() on len bytes of text already in memory (which need
 * not be NUL-terminated; a NUL byte inside is an error). path is used in
 * messages and returned by atune_profile_path(). Same statuses, and *out
 * is set as by atune_profile_open(). */
int atune__profile_open_mem(const char *path, const char *text, size_t len,
                            atune_profile **out);

/* The parsed document behind an open profile, sections and entries in file
 * order (the writer re-emits them). NULL when the profile did not parse. */
const atune__ini *atune__profile_doc(const atune_profile *p);

/* The section an entry of a profile was read from (its keys in file
 * order); NULL for a configuration the application made. */
const atune__ini_section *atune__config_section(const atune_config *c);

/* The canonical form of a "KERNEL SIZE" section name, its size variables
 * sorted by name ("mm n=2,m=1" -> "mm m=1,n=2"), so that two names of the
 * same size compare equal. Returns 0, or -1 when name is not a valid
 * kernel section name or the result does not fit in len bytes; then msg
 * (msglen bytes, may be NULL) says why. */
int atune__section_canon(const char *name, char *buf, size_t len, char *msg,
                         size_t msglen);

/* How far apart two sizes ("m=4100,n=4100,k=4100") are: the sum over
 * their variables of |ln a - ln b|; INFINITY when either is not a size,
 * their variables differ or a value is 0. */
double atune__size_key_distance(const char *a, const char *b);

#endif
