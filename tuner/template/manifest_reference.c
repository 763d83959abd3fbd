/* manifest_reference.c -- what a manifest says about the reference's
 * module beyond its name and launch: the file it comes from
 * (reference_source), the size variables it sees as macros
 * (reference_macros) and the init kernel run before it (init, init_block,
 * init_grid). The reference's source is a file others may write: it is
 * read only from the template's own directory, as its headers are. */
#define _XOPEN_SOURCE 700 /* realpath */
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "template/manifest_internal.h"

/* Whether real (a real path) lies in the real path of dir or below. */
static int inside(const char *real, const char *dir)
{
    char rdir[PATH_MAX];
    size_t n;

    if (!dir || !realpath(dir, rdir))
        return 0;
    n = strlen(rdir);
    return strncmp(real, rdir, n) == 0 && (real[n] == '/' || n == 1);
}

int atune__mf_read_local(struct loader *ld, int line, const char *what,
                         const char *rel, char **path, char **text,
                         size_t *len)
{
    atune__manifest *m = ld->m;
    char real[PATH_MAX];
    struct stat st;
    int rc;

    *path = *text = NULL;
    if (!m->dir)
        return atune__mf_bad(ld, line,
                             "%s: a built-in template has no directory to "
                             "read '%s' from",
                             what, rel);
    if (rel[0] == '\0' || rel[0] == '/')
        return atune__mf_bad(ld, line,
                             "%s '%s' must be a path relative to the "
                             "template's directory",
                             what, rel);
    if (!(*path = atune__mf_path_join(m->dir, rel)))
        return atune__mf_oom(ld);
    if (!realpath(*path, real) || stat(real, &st) != 0 ||
        !S_ISREG(st.st_mode))
        return atune__mf_bad(ld, line,
                             "%s '%s': no such file in the template's "
                             "directory",
                             what, rel);
    /* A link or "../" out of the directory would let a template read any
     * file the user can: the same rule as for pre-included headers. */
    if (!inside(real, m->dir))
        return atune__mf_bad(ld, line,
                             "%s '%s' lies outside the template's directory",
                             what, rel);
    if ((rc = atune__read_file(*path, text, len, ld->err)))
        atune__err_prefix(ld->err, "%s:%d: %s: ", m->ini_path, line, what);
    return rc;
}

/* "reference = FILE:NAME": FILE when the text before the first ':' that
 * is not half of a "::" names a source file (.cu, .cuh, .h, .hpp). */
static int split_ref(struct loader *ld, const char *v)
{
    static const char *const exts[] = {".cu", ".cuh", ".h", ".hpp"};
    const char *c = v;
    size_t n;

    while ((c = strchr(c, ':')) && c[1] == ':')
        c += 2;
    if (!c || c == v || (size_t)(c - v) >= sizeof(ld->ref_file))
        return 0;
    n = (size_t)(c - v);
    for (size_t i = 0; i < ARRAY_LEN(exts); i++) {
        size_t e = strlen(exts[i]);
        if (n > e && memcmp(v + n - e, exts[i], e) == 0) {
            memcpy(ld->ref_file, v, n);
            ld->ref_file[n] = '\0';
            for (ld->ref_entry = c + 1; *ld->ref_entry == ' ';)
                ld->ref_entry++;
            return 1;
        }
    }
    return 0;
}

int atune__mf_parse_ref_source(struct loader *ld)
{
    const atune__ini_section *s = atune__ini_find(ld->ini, "template");
    const atune__ini_entry *en = atune__ini_get(s, "reference_source");
    const atune__ini_entry *ref = atune__ini_get(s, "reference");
    atune__manifest *m = ld->m;
    const char *file = en ? en->value : NULL;
    int line = en ? en->line : 0;
    size_t len = 0;
    int rc;

    if (ref && split_ref(ld, ref->value)) {
        if (en)
            return atune__mf_bad(ld, ref->line,
                                 "reference '%s' names a file, and so does "
                                 "reference_source (line %d): one of them",
                                 ref->value, en->line);
        file = ld->ref_file;
        line = ref->line;
    }
    if (!file)
        return 0;
    if (!ref)
        return atune__mf_bad(ld, line,
                             "reference_source '%s' without reference: name "
                             "the reference kernel of that file "
                             "(reference = NAME)",
                             file);
    if ((rc = atune__mf_read_local(ld, line, "reference_source", file,
                                   &m->ref_path, &m->ref_text, &len)))
        return rc;
    if (strlen(m->ref_text) != len)
        return atune__mf_bad(ld, line,
                             "reference_source '%s' holds a NUL byte: not "
                             "CUDA source",
                             file);
    /* The reference decides what passes: a new one marks profiles stale. */
    m->hash = atune__fnv1a(file, strlen(file), m->hash);
    m->hash = atune__fnv1a(m->ref_text, len, m->hash);
    if (!(ld->ref_code = atune__mf_blank_comments(m->ref_text)))
        return atune__mf_oom(ld);
    ld->ref_name = ld->ref_entry ? ld->ref_file : en->value;
    return 0;
}

static int parse_ref_macros(struct loader *ld, const atune__ini_entry *en)
{
    atune__manifest *m = ld->m;
    char *piece[ATUNE__MAX_SIZE_VARS];
    int n = atune__split_top(en->value, piece, ATUNE__MAX_SIZE_VARS), rc = 0;

    m->ref_macros_line = en->line;
    if (n < 0)
        return atune__mf_bad(ld, en->line,
                             "reference_macros must be 1 to %d comma-separated "
                             "size variables",
                             ATUNE__MAX_SIZE_VARS);
    for (int i = 0; i < n; i++) {
        if (rc == 0 && !atune__mf_is_size_var(m, piece[i]))
            rc = atune__mf_bad(ld, en->line,
                               "reference_macros: '%s' is not a size "
                               "variable of [sizes]",
                               piece[i]);
        for (int j = 0; rc == 0 && j < m->nref_macros; j++)
            if (strcmp(m->ref_macros[j], piece[i]) == 0)
                rc = atune__mf_bad(ld, en->line,
                                   "reference_macros names '%s' twice",
                                   piece[i]);
        if (rc == 0)
            strcpy(m->ref_macros[m->nref_macros++], piece[i]);
        free(piece[i]);
    }
    if (rc == 0 && m->nnvrtc_opts + m->nref_macros > ATUNE__MAX_NVRTC_OPTS)
        rc = atune__mf_bad(ld, en->line,
                           "reference_macros and nvrtc_options together are "
                           "more than %d options",
                           ATUNE__MAX_NVRTC_OPTS);
    return rc;
}

static int parse_init(struct loader *ld, const atune__ini_section *s)
{
    const atune__ini_entry *en = atune__ini_get(s, "init");
    const atune__ini_entry *b = atune__ini_get(s, "init_block");
    const atune__ini_entry *g = atune__ini_get(s, "init_grid");
    atune__manifest *m = ld->m;
    int rc;

    if (!en) {
        if (b || g)
            return atune__mf_bad(ld, (b ? b : g)->line,
                                 "%s without init = NAME",
                                 (b ? b : g)->key);
        return 0;
    }
    m->init_line = en->line;
    if ((rc = atune__mf_entry_point(ld, en->line, "init", en->value,
                                    m->init)))
        return rc;
    if (!b || !g)
        return atune__mf_bad(ld, en->line,
                             "init '%s' needs init_block and init_grid",
                             en->value);
    if ((rc = atune__mf_parse_dim3(ld, b, &m->init_block)))
        return rc;
    return atune__mf_parse_dim3(ld, g, &m->init_grid);
}

/* A verification kernel decides alone: no tolerance or mismatches apply
 * to its buffer; and the reference's module resolves at most
 * ATUNE__MAX_VERIFY of them. */
static int check_verify(struct loader *ld)
{
    const atune__manifest *m = ld->m;
    int distinct = 0;

    for (int i = 0; i < m->nargs; i++) {
        const atune__arg *a = &m->args[i];
        int seen = 0;
        if (!a->verify[0])
            continue;
        if (a->mismatch_count || a->mismatch_pct > 0)
            return atune__mf_bad(ld, a->line,
                                 "buffer '%s' has both verify and "
                                 "mismatches: its verify kernel decides "
                                 "alone",
                                 a->name);
        for (int j = 0; j < i; j++)
            seen |= strcmp(m->args[j].verify, a->verify) == 0;
        if (!seen && ++distinct > ATUNE__MAX_VERIFY)
            return atune__mf_bad(ld, a->line,
                                 "more than %d different verify kernels",
                                 ATUNE__MAX_VERIFY);
    }
    return 0;
}

int atune__mf_parse_ref_extras(struct loader *ld)
{
    const atune__ini_section *s = atune__ini_find(ld->ini, "template");
    const atune__ini_entry *en = atune__ini_get(s, "reference_macros");
    int rc;

    if (en && (rc = parse_ref_macros(ld, en)))
        return rc;
    if ((en = atune__ini_get(s, "reference_shared"))) {
        if (ld->m->ref_is_default)
            return atune__mf_bad(ld, en->line,
                                 "reference_shared without reference: the "
                                 "kernel as its own reference is launched "
                                 "with [launch]'s shared");
        ld->m->ref_shared_line = en->line;
        if ((rc = atune__mf_parse_expr(ld, en->line, en->value,
                                       &ld->m->ref_shared)))
            return rc;
    }
    if ((rc = parse_init(ld, s)))
        return rc;
    return check_verify(ld);
}
