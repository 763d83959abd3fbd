/* space.h -- the parameter space of a template: the cartesian product of
 * its [params] values, filtered by [constraints] and by device limits. */
#ifndef ATUNE_SPACE_H
#define ATUNE_SPACE_H

#include <stdint.h>

#include "template/manifest.h"

/* Device attributes visible to expressions; also the limits the space is
 * checked against before anything is compiled. */
typedef struct atune__devattr {
    int64_t sm_count;
    int64_t max_threads_per_block;
    int64_t max_block[3]; /* max block dimension x, y, z */
    int64_t max_grid[3];
    int64_t max_shared_per_block; /* opt-in maximum, bytes */
    int64_t warp_size;
    int64_t cc; /* 90 for 9.0 */
    int64_t l2_bytes;
} atune__devattr;

/* The limits of a generic sm_90 device, used where no GPU is present
 * (autotune check, list, simulations): H100 values. */
void atune__devattr_default(atune__devattr *d);

/* Adds sm_count, max_threads_per_block, max_shared_per_block, warp_size,
 * cc and l2_bytes to vs. */
int atune__devattr_vars(const atune__devattr *d, atune__vars *vs);

/* A configuration: one value per parameter, in manifest order. */
typedef struct atune__config {
    int64_t v[ATUNE__MAX_PARAMS];
    /* The size it is compiled for, when the manifest's name expressions
     * read size variables (m->names_sized): its module is then one per
     * (configuration, size). nsz values in the order of the manifest's
     * size variables (m->sizes[0].var); nsz 0: no size, which such a
     * name cannot be compiled without (jit.c says so). Never set for
     * other manifests, whose modules stay one per configuration. */
    int nsz;
    int64_t sz[ATUNE__MAX_SIZE_VARS];
} atune__config;

/* Gives c the values of size s (atune__config's nsz and sz) when m's
 * name expressions read size variables; leaves c as it is otherwise, and
 * for s NULL. */
void atune__config_at_size(const atune__manifest *m, atune__config *c,
                           const atune__size *s);
/* The same from values in the order of m's size variables. */
void atune__config_at_values(const atune__manifest *m, atune__config *c,
                             const int64_t *v);

/* Number of points of the cartesian product (before any filtering). */
int64_t atune__space_size(const atune__manifest *m);

/* The index-th point of the cartesian product, 0 <= index < size. Index 0
 * is the default configuration (every parameter's first value); the LAST
 * parameter varies fastest. */
void atune__space_config(const atune__manifest *m, int64_t index,
                         atune__config *c);

/* Index of a configuration, or -1 when a value is not in the manifest. */
int64_t atune__space_index(const atune__manifest *m, const atune__config *c);

/* Adds the configuration's parameters to vs. */
int atune__config_vars(const atune__manifest *m, const atune__config *c,
                       atune__vars *vs);

/* Writes "BLOCK_SIZE=128,VW=1" into buf. */
void atune__config_str(const atune__manifest *m, const atune__config *c,
                       char *buf, size_t len);

/* Parses "BLOCK_SIZE=128,VW=1" (every parameter exactly once, any order).
 * Returns 0 or ATUNE__EDATA. */
int atune__config_parse(const atune__manifest *m, const char *text,
                        atune__config *c, atune__err *err);

/* The evaluated launch of one configuration at one size. */
typedef struct atune__launch {
    int64_t block[3];
    int64_t grid[3];
    int64_t shared;
} atune__launch;

/* Checks c at the size whose variables (plus device attributes) are in
 * base: every constraint, then the launch shape against the device limits
 * (each block and grid dimension >= 1 and within max_block/max_grid, block
 * threads <= max_threads_per_block, shared <= max_shared_per_block).
 * Returns 1 when valid (and fills *launch when non-NULL), 0 when invalid
 * with a one-line reason ("constraint 'fits' is false",
 * "block of 2048 threads exceeds 1024"), or an error code (< 0 is never
 * returned; errors are ATUNE__EDATA with file:line) when an expression
 * cannot be evaluated. */
int atune__space_check(const atune__manifest *m, const atune__config *c,
                       const atune__vars *base, const atune__devattr *dev,
                       atune__launch *launch, char *reason, size_t len,
                       atune__err *err);

/* atune__space_check with every step's launch into all[0..m->nsteps):
 * what a launch sequence needs. */
int atune__space_launches(const atune__manifest *m, const atune__config *c,
                          const atune__vars *base, const atune__devattr *dev,
                          atune__launch *all, char *reason, size_t len,
                          atune__err *err);

/* Whether the launches after the first of a launch sequence fit dev (1),
 * or not (0), or an error: what the space's enumeration, which prunes on
 * the first launch only, checks of each configuration it keeps. */
int atune__space_check_steps(const atune__manifest *m, const atune__config *c,
                             const atune__vars *base,
                             const atune__devattr *dev, atune__err *err);

/* The valid configurations of a space: ascending space indices. */
typedef struct atune__valid_set {
    int64_t n;
    int64_t *index; /* n entries, ascending */
    int64_t cap;
} atune__valid_set;

void atune__valid_set_free(atune__valid_set *s);

/* Adds b's configurations to a (a stays ascending, without duplicates). */
int atune__valid_set_union(atune__valid_set *a, const atune__valid_set *b,
                           atune__err *err);

/* Position of space index idx in s, or -1 when it is not there. */
int64_t atune__valid_set_find(const atune__valid_set *s, int64_t idx);
/* The same on n ascending space indices (the search's copy of a set). */
int64_t atune__index_find(const int64_t *index, int64_t n, int64_t idx);

/* The most valid configurations one space may have, unless the
 * environment variable ATUNE_MAX_VALID says otherwise: the valid set
 * takes 8 bytes per configuration, a search about 30 more. A value of the
 * variable that is not a whole number from 1 is ATUNE__EUSAGE naming it
 * (never silently the default); the same for ATUNE_MAX_VISITS. */
#define ATUNE__MAX_VALID_DEFAULT INT64_C(50000000)
int atune__space_max_valid(int64_t *out, atune__err *err);

/* The most partial configurations (a value given to one parameter, the
 * ones before it set) one build may examine, unless ATUNE_MAX_VISITS says
 * otherwise: a bound on its time (about 100 ns each) where constraints
 * read late parameters and prune little. */
#define ATUNE__MAX_VISITS_DEFAULT INT64_C(300000000)
int atune__space_max_visits(int64_t *out, atune__err *err);

/* The configurations valid at size on dev (the same as atune__space_check
 * and the scalar checks of atune__space_mark_valid say, configuration by
 * configuration), enumerated without visiting the combinations that the
 * constraints rule out: into *set (replacing what it held) or, with set
 * NULL, only counted into *count. Checks the size first as
 * atune__space_mark_valid does, with its errors. More than
 * atune__space_max_valid() valid configurations (counted or into a set),
 * or more than atune__space_max_visits() examined: ATUNE__EDATA naming
 * the manifest, the size, the combinations and the limit. With
 * label non-NULL and stderr a terminal, a build that takes more than a
 * second shows its progress there, each line starting with label. */
int atune__space_build(const atune__manifest *m, const atune__size *size,
                       const atune__devattr *dev, const char *label,
                       atune__valid_set *set, int64_t *count,
                       atune__err *err);

/* atune__space_validate with the configurations valid at any size in
 * *any (may be NULL). */
int atune__space_validate_set(const atune__manifest *m,
                              const atune__devattr *dev,
                              atune__valid_set *any, int64_t *counts,
                              atune__err *err);

/* Internal to tuner/template (space_build.c): the enumeration of
 * atune__space_build with the size's and device's variables in base; an
 * EDATA error is about the configuration in *failed. */
int atune__space_enumerate(const atune__manifest *m, const atune__vars *base,
                           const atune__devattr *dev, const char *label,
                           int64_t max_valid, atune__valid_set *set,
                           int64_t *count, atune__config *failed,
                           atune__err *err);

/* Sets valid[i] = 1 for every configuration that passes atune__space_check
 * at size on dev; entries already set stay set, so calls for several sizes
 * give "valid at any of them". *count (when non-NULL) is the number valid
 * at this size. valid has atune__space_size(m) entries.
 * Before anything is compiled or launched, it also evaluates what the
 * runner will: work (must be >= 1), the reference launch (must fit dev),
 * every buffer's size (atune__size_memory) and the scalar arguments of
 * every valid configuration (must fit their type). A failure is
 * ATUNE__EDATA with file:line, the size and the configuration. */
int atune__space_mark_valid(const atune__manifest *m, const atune__size *size,
                            const atune__devattr *dev, unsigned char *valid,
                            int64_t *count, atune__err *err);

/* atune__space_mark_valid at every size, and an error (file:line of what
 * rules out the default configuration) for a size where no configuration
 * is valid: everything about a template that can be known without a GPU,
 * on dev's limits. valid (atune__space_size(m) entries) and counts
 * (m->nsizes entries: valid configurations per size) may be NULL. */
int atune__space_validate(const atune__manifest *m, const atune__devattr *dev,
                          unsigned char *valid, int64_t *counts,
                          atune__err *err);

/* The elements of buffer a (count of them at vs) that are compared with
 * the reference: first and n, the whole buffer without "compare"; an
 * error with file and line when the slice is not inside the buffer. */
int atune__buffer_slice(const atune__manifest *m, const atune__arg *a,
                        const atune__vars *vs, int64_t count, int64_t *first,
                        int64_t *n, atune__err *err);

/* The integer values of buffer a's fill at vs: range(LO, HI) or an
 * integer constant (lo); an error with file and line when a range is empty
 * or a value does not fit the buffer's type. */
int atune__fill_values(const atune__manifest *m, const atune__arg *a,
                       const atune__vars *vs, int64_t *lo, int64_t *hi,
                       atune__err *err);

/* The contents of buffer a's "fill = file(PATH)" for count elements, in
 * *data (malloc'd; NULL: only checks the file): raw elements, or a .npy
 * array of the buffer's type and count. Errors name the manifest's line
 * and the file (ATUNE__EDATA). */
int atune__data_load(const atune__manifest *m, const atune__arg *a,
                     size_t count, void **data, atune__err *err);

/* The device memory the runner allocates at size, in bytes: every buffer,
 * a copy of each inout buffer's initial contents, the reference's result
 * of each compared buffer, and the constants. Fails (ATUNE__EDATA,
 * file:line) when a count is below 1 or the bytes overflow int64. Whether
 * that much is free is known only on the device: the runner checks it
 * before allocating. */
int atune__size_memory(const atune__manifest *m, const atune__size *size,
                       const atune__devattr *dev, int64_t *bytes,
                       atune__err *err);

/* What every candidate's results are compared with: "copy_ref", or,
 * when the kernel is its own reference (m->ref_is_default), "the default
 * configuration of copy_tuned (BLOCK_SIZE=128,VW=1)". */
void atune__reference_str(const atune__manifest *m, char *buf, size_t len);

/* What a launch limit applies to: says which manifest line to blame. */
typedef enum atune__launch_part {
    ATUNE__PART_BLOCK,
    ATUNE__PART_GRID,
    ATUNE__PART_SHARED
} atune__launch_part;

/* 1 when launch l fits dev (each block and grid dimension from 1 to its
 * limit, the block's threads, shared memory from 0 to the limit), else 0
 * with the reason and in *part what does not fit (space_steps.c). */
int atune__launch_fits(const atune__launch *l, const atune__devattr *dev,
                       char *reason, size_t len, atune__launch_part *part);

/* The launches of steps first..m->nsteps-1 of a launch sequence (none for
 * a single launch) at vs, each against dev's limits: 1 when all fit (into
 * all[i] when all is non-NULL), 0 with the reason ("launch 'NAME': ...")
 * and its manifest line, or an error (space_steps.c). */
int atune__steps_fit(const atune__manifest *m, int first,
                     const atune__vars *vs, const atune__devattr *dev,
                     atune__launch *all, char *reason, size_t len, int *line,
                     atune__err *err);

/* The launches of the reference's [reference.NAME] sections at vs (into
 * all when non-NULL), each against dev's limits: 0, or ATUNE__EDATA
 * naming the launch and its line (a template error: the reference is the
 * same for every configuration). */
int atune__ref_steps_fit(const atune__manifest *m, const atune__vars *vs,
                         const atune__devattr *dev, atune__launch *all,
                         atune__err *err);

/* Evaluates a dim3 of the manifest. */
int atune__dim3_eval(const atune__manifest *m, const atune__dim3 *d,
                     const atune__vars *vs, int64_t out[3], atune__err *err);

#endif
