/* check_changes.h -- a parameter that changes nothing: a macro whose
 * values all compile to the same CUBIN (the source ignores it or
 * overrides it), or one that is no macro and that no expression reads. */
#ifndef ATUNE_CHECK_CHANGES_H
#define ATUNE_CHECK_CHANGES_H

#include <stdint.h>

#include "base/json.h"
#include "engine/compile_procs.h"
#include "jit/cache.h"
#include "template/manifest.h"
#include "template/space.h"

/* The CUBIN hash of each configuration the check compiled. */
struct hashrec {
    uint64_t rest; /* the other parameters' values (group_key) */
    uint64_t h;
    int64_t idx;
};
#define MAX_HASHRECS ((int64_t)1 << 20)


/* Checks every macro parameter of m: first among the configurations the
 * check compiled (hr[0..nhr), may be NULL), then by compiling each value
 * that keeps the configuration in valid (the space's valid
 * configurations) from up to 8 of the checked configurations
 * index[0..k). One that
 * changes nothing and that no manifest expression reads is an error
 * (reported on stderr or into j's open failures array; *bad set); one
 * that [launch] reads gets a note. Returns 0, or an error that is not the
 * template's. */
int atune__check_changes(const atune__manifest *m, const char *arch,
                         const atune__valid_set *valid,
                         const int64_t *index, int64_t k,
                         struct hashrec *hr, int64_t nhr,
                         const char *const *names, int nnames,
                         atune__cache *cache, atune__procs *procs,
                         atune__json *j, int *bad, atune__err *err);

/* Reports every parameter that is no macro and that nothing of m reads
 * (atune__param's unread): its values change neither the code nor the
 * launch. With a name of the source one edit away, asks whether that was
 * meant. Into j's open failures array, else on stderr; *bad set. */
void atune__check_unread(const atune__manifest *m, atune__json *j, int *bad);

#endif
