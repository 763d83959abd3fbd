/* manifest_internal.h -- shared by the manifest loader's files only:
 * manifest.c (loading, sections, [template], [launch]), manifest_params.c
 * ([sizes], [params], [constraints], [macros]), manifest_args.c ([args],
 * [constants]) and manifest_names.c (identifiers and name checks). */
#ifndef ATUNE_MANIFEST_INTERNAL_H
#define ATUNE_MANIFEST_INTERNAL_H

#include <stddef.h>

#include "lib/inidoc.h"
#include "base/number.h"
#include "template/manifest.h"

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

struct loader {
    atune__manifest *m;
    const atune__ini *ini;
    const char *cu_name; /* the .cu file's base name, for messages */
    char *code; /* the .cu with comments and literals blanked: names are
                   looked up here, so that one only in a comment is missing */
    char *hdr_code; /* the same of each header of its own the .cu includes
                       (manifest_headers.c), one after the other; NULL for
                       none */
    char *ref_code;       /* the same of reference_source's file, or NULL */
    const char *ref_name; /* its name as the manifest writes it */
    char ref_file[256];    /* "ref.cu" of "reference = ref.cu:NAME" */
    const char *ref_entry; /* its NAME, or NULL */
    atune__err *err;
};

/* Fails with "ini_path:line: message" (ATUNE__EDATA). */
int atune__mf_bad(struct loader *ld, int line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
int atune__mf_oom(struct loader *ld);

/* Parses an expression, prefixing errors with "ini_path:line: ". */
int atune__mf_parse_expr(struct loader *ld, int line, const char *text,
                         atune__expr **out);

/* manifest_entry.c */
/* A name expression's characters, and the function it names ("k" of
 * "ns::k<B>"), or NULL when it is not a C++ function name. */
int atune__mf_is_name_expr_char(char ch);
const char *atune__mf_base_name(const char *expr, char out[ATUNE__NAME_MAX]);
/* A C++ name expression of a __global__ function of the reference's
 * module (reference, init, verify), copied into dst and checked to occur
 * in reference_source's file, or without one in the .cu or its own
 * headers (called once they are read). */
int atune__mf_entry_point(struct loader *ld, int line, const char *key,
                          const char *value, char dst[ATUNE__ENTRY_MAX]);

/* manifest_reference.c: reference_source (read before the reference's
 * name is checked), then reference_macros and init (once the sizes and
 * arguments are known). */
int atune__mf_parse_ref_source(struct loader *ld);
/* Reads file rel of the template's directory (never outside it, by "../"
 * or a link) into *text (*len bytes); *path is its path. The caller frees
 * both, also on failure. what names the key in messages. */
int atune__mf_read_local(struct loader *ld, int line, const char *what,
                         const char *rel, char **path, char **text,
                         size_t *len);
int atune__mf_parse_ref_extras(struct loader *ld);

/* manifest_keys.c: what the sections' parsers share. */
int atune__mf_parse_dim3(struct loader *ld, const atune__ini_entry *en,
                         atune__dim3 *d);
int atune__mf_copy_dim3(struct loader *ld, const atune__dim3 *d,
                        atune__dim3 *to);
int atune__mf_need(struct loader *ld, const atune__ini_section *s,
                   const char *key, const atune__ini_entry **out);
int atune__mf_check_keys(struct loader *ld, const atune__ini_section *s,
                         const char *const *keys, size_t nkeys);
/* kernel = NAME of section s into dst, checked as far as it can be
 * without compiling. */
int atune__mf_parse_entry_point(struct loader *ld,
                                const atune__ini_section *s, const char *key,
                                char dst[ATUNE__ENTRY_MAX], int *line);
/* The function of name expression expr exists in the .cu or in a header
 * of its own that it includes (known once the headers are read). */
int atune__mf_entry_found(struct loader *ld, const char *key,
                          const char *expr, int line);

/* manifest_sequence.c: [launch.NAME] sections. */
/* Whether s is a [launch.NAME] or [reference.NAME] section. */
int atune__mf_is_step_section(const atune__ini_section *s);
/* The first [launch.NAME] section, or NULL; the first [reference.NAME]. */
const atune__ini_section *atune__mf_first_step(const atune__ini *ini);
const atune__ini_section *atune__mf_first_ref_step(const atune__ini *ini);
/* The [reference.NAME] sections into m->ref_steps (tmpl: [template], which
 * then names no reference). */
int atune__mf_parse_ref_steps(struct loader *ld,
                              const atune__ini_section *tmpl);
/* Sets m->sequence; refuses [launch] beside [launch.NAME]. */
int atune__mf_sequence_begin(struct loader *ld);
/* [template]'s kernel, or for a sequence the first section's (then
 * [template] may not name one). */
int atune__mf_sequence_kernel(struct loader *ld,
                              const atune__ini_section *tmpl);
/* The [launch.NAME] sections into m->steps, the first copied into
 * m->block, grid and shared. */
int atune__mf_parse_steps(struct loader *ld);
/* m->steps[0] from [launch] (section at line). */
int atune__mf_single_step(struct loader *ld, int line);
/* Each step's args = NAME, ... once [args] is known. */
int atune__mf_step_args(struct loader *ld);
/* The names that each step's launch expressions use. */
int atune__mf_check_steps(struct loader *ld);

/* manifest_names.c */
/* Checks that e uses only known names (parameters too, unless shared_by
 * says why not). */
int atune__mf_check_expr(struct loader *ld, const atune__expr *e, int line,
                         const char *what, const char *shared_by);
int atune__mf_is_ident(const char *s);
/* Copies the identifier s into dst, or fails naming it as what. */
int atune__mf_copy_ident(struct loader *ld, int line, const char *what,
                         const char *s, char dst[ATUNE__NAME_MAX]);
/* Whether word occurs in text as a whole identifier. */
int atune__mf_has_word(const char *text, const char *word);
/* Whether word is a name of the .cu's code or of its own headers' (an
 * entry point may be defined in a header the .cu includes); known only
 * once atune__mf_hash_headers has run. */
int atune__mf_code_has(const struct loader *ld, const char *word);
/* Where atune__mf_code_has looked, for messages: "x.cu" or "x.cu or the
 * 2 headers it includes". */
const char *atune__mf_code_where(const struct loader *ld, char *buf,
                                 size_t size);
/* A copy of CUDA source with comments and string and character literals
 * turned into spaces (line breaks kept), or NULL when out of memory. */
char *atune__mf_blank_comments(const char *src);
/* The index of the first of names[0..n) equal to s[0..len), or -1. */
int atune__mf_find_name(const char *const *names, size_t n, const char *s,
                        size_t len);
int atune__mf_is_devattr(const char *name);
int atune__mf_is_size_var(const atune__manifest *m, const char *name);
/* m's parameter called name, or NULL. */
const atune__param *atune__mf_find_param(const atune__manifest *m,
                                         const char *name);
/* Why name cannot be a parameter ("a C++ keyword"), or NULL. */
const char *atune__mf_reserved_word(const char *name);
/* Checks that every expression uses only names it may use. */
int atune__mf_check_names(struct loader *ld);

/* manifest_headers.c */
/* "dir/rel" on the heap, or NULL. */
char *atune__mf_path_join(const char *dir, const char *rel);
int atune__mf_is_dir(const char *path);
/* Sets m->headers_hash and m->nheaders from the user headers the .cu
 * includes, and folds them into m->hash. */
int atune__mf_hash_headers(struct loader *ld);

/* manifest_macros.c: which parameters are macros, and refusing those the
 * source redefines or declares. begin (after [params]) reads not_macros;
 * scan is called on the .cu and each of its own headers; end keeps as
 * macros only the parameters some source names, and checks ${NAME} in
 * the name expressions. */
int atune__mf_macros_begin(struct loader *ld);
int atune__mf_macros_scan(struct loader *ld, const char *path,
                          const char *text);
int atune__mf_macros_end(struct loader *ld);
/* Sets each parameter's unread, near and near_line (manifest.h). Called
 * once every section is parsed. */
void atune__mf_note_unread(struct loader *ld);
/* "name${X}": every ${...} names a parameter or a size variable, and
 * each value pastes a function name the .cu holds. */
int atune__mf_check_paste(struct loader *ld, const char *expr, int line);
/* Sets m->names_sized when name expression expr reads a size variable. */
void atune__mf_note_size_vars(struct loader *ld, const char *expr);

/* nvrtc_options: white-space-separated options, each on the allow-list
 * (manifest_options.c); sets m->nvrtc_opts and m->nvrtc_opts_line. */
int atune__mf_parse_nvrtc_options(struct loader *ld,
                                  const atune__ini_entry *en);

/* The header of a --pre-include=H (or -include=H) option; NULL for any
 * other option. */
const char *atune__mf_pre_include(const char *opt);

/* manifest_params.c */
int atune__mf_parse_sizes(struct loader *ld);
int atune__mf_parse_params(struct loader *ld);
int atune__mf_parse_constraints(struct loader *ld);
int atune__mf_parse_macros(struct loader *ld);

/* manifest_args.c */
int atune__mf_parse_args(struct loader *ld);
int atune__mf_parse_constants(struct loader *ld);

#endif
