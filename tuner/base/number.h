/* number.h -- the one parser of the numbers the tools read from people,
 * files and the environment: command-line options, ATUNE_* variables,
 * journals, profiles, manifests' scalars. One text format everywhere:
 * decimal digits, a '-' where negatives make sense, nothing else (no
 * space, no '+', no 0x, no trailing text), within the caller's bounds.
 * Manifest expressions have their own literals (expr.c: hex, "1 << 20").
 *
 * libatune (tuner/lib) may not use base/ (ARCHITECTURE.md, "Layers"), so
 * lib/profile_impl.h keeps a copy of atune__parse_i64 for profiles;
 * tests/test_number.c runs the same table through both. The
 * environment's numbers: atune__env_i64 (util.h).
 */
#ifndef ATUNE_NUMBER_H
#define ATUNE_NUMBER_H

#include <stdint.h>

/* Each returns NULL and sets *out, or returns why s was refused ("not a
 * decimal integer", "out of range", ...) and leaves *out alone. */
const char *atune__parse_u64(const char *s, uint64_t max, uint64_t *out);
const char *atune__parse_i64(const char *s, int64_t min, int64_t max,
                             int64_t *out);
/* A hash as the tools write it: 1 to 16 lower-case hex digits (a
 * template hash, a cache key), nothing else. */
const char *atune__parse_hash(const char *s, uint64_t *out);

/* Decimal fractions: [-]DIGITS[.DIGITS][e[-]DIGITS] or [-].DIGITS...; no
 * hex floats, inf or nan; finite and within [min, max]. */
const char *atune__parse_real(const char *s, double min, double max,
                              double *out);

#endif
