/* manifest.c -- loads a template manifest (NAME.ini) and checks it.
 *
 * The loader's job is to make every later stage safe: whatever reaches
 * the space, the compiler or the runner has been validated here, and every
 * defect is reported with the file and line that holds it. This file
 * holds the entry points, the sections, [template] and [launch]; the other
 * sections and the name checks are in manifest_*.c.
 */
#include "template/manifest.h"

#include <errno.h>
#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/inidoc.h"
#include "template/manifest_internal.h"

static const struct {
    const char *name;
    int required;
} section_specs[] = {
    {"template", 1}, {"sizes", 1}, {"params", 1},    {"constraints", 0},
    {"macros", 0},   {"launch", 1},   {"args", 1},  {"constants", 0},
};

static const char *const template_keys[] = {
    "kernel", "reference", "reference_block", "reference_grid", "metric",
    "work",   "tolerance", "include_dirs",    "nvrtc_options",  "param_macros",
    "not_macros", "compiler", "reference_source", "reference_macros", "init",
    "init_block", "init_grid", "reference_shared", "block_cost"};
static const char *const launch_keys[] = {"block", "grid", "shared"};

/* ---- sections --------------------------------------------------------- */

static int check_section(struct loader *ld, int index)
{
    const atune__ini_section *s = &ld->ini->sections[index];

    if (s->name[0] == '\0') {
        if (s->nentries > 0)
            return atune__mf_bad(ld, s->entries[0].line,
                                 "entry '%s' before any section",
                                 s->entries[0].key);
        return 0;
    }
    for (size_t i = 0;; i++) {
        if (i == ARRAY_LEN(section_specs) && atune__mf_is_step_section(s))
            break;
        if (i == ARRAY_LEN(section_specs))
            return atune__mf_bad(ld, s->line, "unknown section [%s]", s->name);
        if (strcmp(section_specs[i].name, s->name) == 0)
            break;
    }
    for (int i = 0; i < index; i++) {
        if (strcmp(ld->ini->sections[i].name, s->name) == 0)
            return atune__mf_bad(ld, s->line,
                                 "duplicate section [%s] (first at line %d)",
                                 s->name, ld->ini->sections[i].line);
    }
    for (int i = 0; i < s->nentries; i++) {
        for (int j = 0; j < i; j++) {
            if (strcmp(s->entries[i].key, s->entries[j].key) == 0)
                return atune__mf_bad(
                    ld, s->entries[i].line,
                    "duplicate key '%s' in [%s] (first at line %d)",
                    s->entries[i].key, s->name, s->entries[j].line);
        }
    }
    return 0;
}

static int check_sections(struct loader *ld)
{
    const atune__ini_section *t = atune__ini_find(ld->ini, "template");
    int rc;

    for (int i = 0; i < ld->ini->nsections; i++) {
        if ((rc = check_section(ld, i)) != 0)
            return rc;
    }
    for (size_t i = 0; i < ARRAY_LEN(section_specs); i++) {
        if (section_specs[i].required &&
            !atune__ini_find(ld->ini, section_specs[i].name) &&
            (strcmp(section_specs[i].name, "launch") != 0 ||
             !atune__mf_first_step(ld->ini)))
            return atune__mf_bad(ld, t ? t->line : 1, "missing section [%s]",
                                 section_specs[i].name);
    }
    return 0;
}

/* include_dirs = DIR, DIR: directories searched for #include, relative
 * to the manifest's own directory (searched first). */
static int parse_include_dirs(struct loader *ld, const atune__ini_entry *en)
{
    char *piece[ATUNE__MAX_INCLUDE_DIRS];
    atune__manifest *m = ld->m;
    int n = atune__split_top(en->value, piece, ATUNE__MAX_INCLUDE_DIRS);
    int rc = 0;

    if (n < 0)
        return atune__mf_bad(ld, en->line,
                             "include_dirs must be 1 to %d comma-separated "
                             "directories, none empty",
                             ATUNE__MAX_INCLUDE_DIRS);
    for (int i = 0; i < n; i++) {
        char *dir = NULL;
        if (rc == 0) {
            dir = piece[i][0] == '/' || !m->dir
                      ? atune__strdup(piece[i])
                      : atune__mf_path_join(m->dir, piece[i]);
            if (!dir)
                rc = atune__mf_oom(ld);
            else if (!atune__mf_is_dir(dir))
                rc = atune__mf_bad(ld, en->line,
                                   "include directory '%s' (%s) is not a "
                                   "directory",
                                   piece[i], dir);
            if (rc == 0)
                m->include_dirs[m->ninclude_dirs++] = dir;
            else
                free(dir);
        }
        free(piece[i]);
    }
    return rc;
}

static int parse_tolerance(struct loader *ld, const atune__ini_entry *en)
{
    double t;

    if (atune__parse_real(en->value, -DBL_MAX, DBL_MAX, &t))
        return atune__mf_bad(ld, en->line, "tolerance '%s' is not a number",
                             en->value);
    if (t < 0)
        return atune__mf_bad(ld, en->line, "tolerance '%s' is negative",
                             en->value);
    ld->m->tolerance = t;
    return 0;
}

/* reference = NAME, reference_block and reference_grid. Without
 * `reference` the kernel is its own reference, at the default
 * configuration; then, without reference_block and reference_grid, it is
 * launched as [launch] says (parse_launch copies them). */
static int parse_reference(struct loader *ld, const atune__ini_section *s)
{
    const atune__ini_entry *en;
    atune__manifest *m = ld->m;
    int rc;

    if (atune__mf_first_ref_step(ld->ini))
        return atune__mf_parse_ref_steps(ld, s);
    if ((rc = atune__mf_parse_ref_source(ld)))
        return rc;
    if ((en = atune__ini_get(s, "reference")) && ld->ref_code) {
        m->reference_line = en->line;
        if ((rc = atune__mf_entry_point(
                 ld, en->line, "reference",
                 ld->ref_entry ? ld->ref_entry : en->value, m->reference)))
            return rc;
    } else if (en) {
        if ((rc = atune__mf_parse_entry_point(ld, s, "reference", m->reference,
                                    &m->reference_line)))
            return rc;
    } else {
        strcpy(m->reference, m->kernel);
        m->reference_line = m->kernel_line;
    }
    m->ref_is_default = strcmp(m->reference, m->kernel) == 0;
    if (m->sequence) {
        /* Its own reference: the whole sequence at the default
         * configuration, each launch as its section says. */
        m->ref_is_default = atune__ini_get(s, "reference") == NULL;
        en = atune__ini_get(s, "reference_block");
        if (!en)
            en = atune__ini_get(s, "reference_grid");
        if (m->ref_is_default && en)
            return atune__mf_bad(ld, en->line,
                                 "'%s' without 'reference': a launch "
                                 "sequence without a reference kernel is "
                                 "checked against its default "
                                 "configuration, launched as its "
                                 "[launch.NAME] sections say",
                                 en->key);
    }
    if (m->ref_is_default && !atune__ini_get(s, "reference_block") &&
        !atune__ini_get(s, "reference_grid")) {
        m->ref_launch_default = 1;
        return 0;
    }
    if ((rc = atune__mf_need(ld, s, "reference_block", &en)) ||
        (rc = atune__mf_parse_dim3(ld, en, &m->ref_block)) ||
        (rc = atune__mf_need(ld, s, "reference_grid", &en)))
        return rc;
    return atune__mf_parse_dim3(ld, en, &m->ref_grid);
}

static int parse_template(struct loader *ld)
{
    const atune__ini_section *s = atune__ini_find(ld->ini, "template");
    const atune__ini_entry *en;
    atune__manifest *m = ld->m;
    int rc;

    if ((rc = atune__mf_check_keys(ld, s, template_keys,
                                   ARRAY_LEN(template_keys))) ||
        (rc = atune__mf_sequence_kernel(ld, s)) ||
        (rc = parse_reference(ld, s)) ||
        (rc = atune__mf_need(ld, s, "metric", &en)))
        return rc;
    if (strcmp(en->value, "GB/s") == 0)
        m->metric = ATUNE__GBS;
    else if (strcmp(en->value, "GFLOP/s") == 0)
        m->metric = ATUNE__GFLOPS;
    else
        return atune__mf_bad(
            ld, en->line, "metric '%s' is neither GB/s nor GFLOP/s", en->value);
    if ((rc = atune__mf_need(ld, s, "work", &en)) ||
        (rc = atune__mf_parse_expr(ld, en->line, en->value, &m->work)))
        return rc;
    m->work_line = en->line;
    if ((en = atune__ini_get(s, "block_cost")) != NULL) {
        if ((rc = atune__mf_parse_expr(ld, en->line, en->value, &m->block_cost)))
            return rc;
        m->block_cost_line = en->line;
    }
    if ((en = atune__ini_get(s, "include_dirs")) &&
        (rc = parse_include_dirs(ld, en)))
        return rc;
    m->param_macros = 1;
    if ((en = atune__ini_get(s, "param_macros")) != NULL) {
        if (strcmp(en->value, "yes") != 0 && strcmp(en->value, "no") != 0)
            return atune__mf_bad(ld, en->line,
                                 "param_macros '%s' is neither yes nor no",
                                 en->value);
        m->param_macros = strcmp(en->value, "yes") == 0;
    }
    if ((en = atune__ini_get(s, "compiler")) != NULL) {
        static const char *const compilers[] = {"auto", "nvrtc", "nvcc"};
        m->compiler = atune__mf_find_name(compilers, ARRAY_LEN(compilers),
                                          en->value, strlen(en->value));
        if (m->compiler < 0)
            return atune__mf_bad(ld, en->line,
                                 "compiler '%s' is none of auto, nvrtc, nvcc",
                                 en->value);
    }
    en = atune__ini_get(s, "tolerance");
    return en ? parse_tolerance(ld, en) : 0;
}

static int parse_launch(struct loader *ld)
{
    const atune__ini_section *s = atune__ini_find(ld->ini, "launch");
    const atune__ini_entry *en;
    atune__manifest *m = ld->m;
    int rc;

    if (m->sequence)
        return atune__mf_parse_steps(ld);
    if ((rc = atune__mf_check_keys(ld, s, launch_keys, ARRAY_LEN(launch_keys))) ||
        (rc = atune__mf_need(ld, s, "block", &en)) ||
        (rc = atune__mf_parse_dim3(ld, en, &m->block)) ||
        (rc = atune__mf_need(ld, s, "grid", &en)) || (rc = atune__mf_parse_dim3(ld, en, &m->grid)))
        return rc;
    if (m->ref_launch_default &&
        ((rc = atune__mf_copy_dim3(ld, &m->block, &m->ref_block)) ||
         (rc = atune__mf_copy_dim3(ld, &m->grid, &m->ref_grid))))
        return rc;
    /* An absent shared is a parsed "0", so that users never see NULL. */
    en = atune__ini_get(s, "shared");
    m->shared_line = en ? en->line : s->line;
    if ((rc = atune__mf_parse_expr(ld, m->shared_line, en ? en->value : "0",
                                   &m->shared)))
        return rc;
    return atune__mf_single_step(ld, s->line);
}
/* ---- entry points ----------------------------------------------------- */

/* Template names become profile section names and --kernel list items:
 * no spaces, commas or brackets. */
static int is_template_name(const char *s)
{
    if (*s == '\0' || *s == '-' || strlen(s) >= ATUNE__NAME_MAX)
        return 0;
    for (; *s; s++) {
        if (!atune__ident_char(*s) && *s != '-')
            return 0;
    }
    return 1;
}

/* The manifest's directory, first on the include path; none for the
 * built-in templates, which live in no directory. */
static int set_dir(atune__manifest *m)
{
    const char *slash = strrchr(m->ini_path, '/');

    m->dir = slash ? atune__strndup(m->ini_path, (size_t)(slash - m->ini_path))
                   : atune__strdup(".");
    if (!m->dir)
        return -1;
    if (m->dir[0] == '\0') { /* "/x.ini" */
        free(m->dir);
        m->dir = atune__strdup("/");
        return m->dir ? 0 : -1;
    }
    if (!atune__mf_is_dir(m->dir)) {
        free(m->dir);
        m->dir = NULL;
    }
    return 0;
}

static int init_manifest(atune__manifest *m, const char *name,
                         const char *ini_path, const char *ini_text,
                         const char *cu_path, const char *cu_text)
{
    size_t ini_len = strlen(ini_text);

    strcpy(m->name, name);
    m->ini_path = atune__strdup(ini_path);
    m->cu_path = atune__strdup(cu_path);
    m->source_len = strlen(cu_text);
    m->source = atune__strndup(cu_text, m->source_len);
    if (!m->ini_path || !m->cu_path || !m->source)
        return -1;
    m->hash = atune__fnv1a(cu_text, m->source_len, ATUNE__FNV_SEED);
    m->hash = atune__fnv1a(ini_text, ini_len, m->hash);
    return set_dir(m);
}

static int nvrtc_options(struct loader *ld)
{
    const atune__ini_entry *en =
        atune__ini_get(atune__ini_find(ld->ini, "template"), "nvrtc_options");

    return en ? atune__mf_parse_nvrtc_options(ld, en) : 0;
}

static int load_sections(struct loader *ld)
{
    int rc;

    if ((rc = check_sections(ld)) || (rc = atune__mf_sequence_begin(ld)) ||
        (rc = parse_template(ld)) ||
        (rc = atune__mf_parse_sizes(ld)) || (rc = atune__mf_parse_params(ld)) ||
        (rc = nvrtc_options(ld)) || (rc = atune__mf_hash_headers(ld)) ||
        (rc = atune__mf_entry_found(ld, "kernel", ld->m->kernel, ld->m->kernel_line)) ||
        (!ld->ref_code &&
         (rc = atune__mf_entry_found(ld, "reference", ld->m->reference,
                                     ld->m->reference_line))) ||
        (rc = atune__mf_parse_constraints(ld)) ||
        (rc = atune__mf_parse_macros(ld)) || (rc = parse_launch(ld)) ||
        (rc = atune__mf_parse_args(ld)) ||
        (rc = atune__mf_step_args(ld)) || (rc = atune__mf_parse_constants(ld)) ||
        (rc = atune__mf_parse_ref_extras(ld)) ||
        (rc = atune__mf_check_names(ld)))
        return rc;
    if ((rc = atune__mf_check_steps(ld)))
        return rc;
    atune__mf_note_unread(ld);
    return 0;
}

int atune__manifest_parse(const char *name, const char *ini_path,
                          const char *ini_text, const char *cu_path,
                          const char *cu_text, atune__manifest **out,
                          atune__err *err)
{
    struct loader ld = {.err = err};
    atune__ini *ini = NULL;
    const char *slash = strrchr(cu_path, '/');
    char msg[1024];
    int rc;

    *out = NULL;
    if (!is_template_name(name))
        return atune__fail(err, ATUNE__EDATA,
                           "%s: bad template name '%s' (want [A-Za-z0-9_-])",
                           ini_path, name);
    ld.cu_name = slash ? slash + 1 : cu_path;
    ld.m = atune__calloc(1, sizeof(*ld.m));
    if (!ld.m ||
        init_manifest(ld.m, name, ini_path, ini_text, cu_path, cu_text) != 0) {
        rc = atune__fail(err, ATUNE__EOSERR, "out of memory");
        goto fail;
    }
    if (atune__ini_parse(ini_path, ini_text, &ini, msg, sizeof(msg)) != 0) {
        rc = atune__fail(err, ATUNE__EDATA, "%s", msg);
        goto fail;
    }
    ld.ini = ini;
    ld.code = atune__mf_blank_comments(cu_text);
    if (!ld.code) {
        rc = atune__fail(err, ATUNE__EOSERR, "out of memory");
        goto fail;
    }
    if ((rc = load_sections(&ld)) != 0)
        goto fail;
    atune__ini_free(ini);
    free(ld.code);
    free(ld.hdr_code);
    free(ld.ref_code);
    *out = ld.m;
    return ATUNE__OK;
fail:
    atune__ini_free(ini);
    free(ld.code);
    free(ld.hdr_code);
    free(ld.ref_code);
    atune__manifest_free(ld.m);
    return rc;
}

/* Returns "dir/stem.ext" on the heap, or NULL. */
static char *join_path(const char *dir, const char *stem, const char *ext)
{
    size_t len = strlen(dir) + strlen(stem) + strlen(ext) + 2;
    char *path = malloc(len);

    if (path)
        snprintf(path, len, "%s/%s%s", dir, stem, ext);
    return path;
}

int atune__manifest_load(const char *dir, const char *name,
                         atune__manifest **out, atune__err *err)
{
    char *ini_path = join_path(dir, name, ".ini");
    char *cu_path = join_path(dir, name, ".cu");
    char *ini_text = NULL, *cu_text = NULL;
    int rc;

    *out = NULL;
    if (!ini_path || !cu_path) {
        rc = atune__fail(err, ATUNE__EOSERR, "out of memory");
        goto out;
    }
    if ((rc = atune__read_file(ini_path, &ini_text, NULL, err)) ||
        (rc = atune__read_file(cu_path, &cu_text, NULL, err)))
        goto out;
    rc = atune__manifest_parse(name, ini_path, ini_text, cu_path, cu_text, out,
                               err);
out:
    free(ini_path);
    free(cu_path);
    free(ini_text);
    free(cu_text);
    return rc;
}

static void free_dim3(atune__dim3 *d)
{
    for (int i = 0; i < 3; i++)
        atune__expr_free(d->e[i]);
}

static void free_args(atune__arg *args, int n)
{
    for (int i = 0; i < n; i++) {
        atune__expr_free(args[i].count);
        atune__expr_free(args[i].value);
        atune__expr_free(args[i].cmp_lo);
        atune__expr_free(args[i].cmp_hi);
        atune__expr_free(args[i].fill.lo);
        atune__expr_free(args[i].fill.hi);
        free(args[i].fill.path);
        free(args[i].raw);
    }
}

void atune__manifest_free(atune__manifest *m)
{
    if (!m)
        return;
    free(m->ini_path);
    free(m->cu_path);
    free(m->source);
    free(m->dir);
    for (int i = 0; i < m->ninclude_dirs; i++)
        free(m->include_dirs[i]);
    for (int i = 0; i < m->nnvrtc_opts; i++)
        free(m->nvrtc_opts[i]);
    free_dim3(&m->ref_block);
    free_dim3(&m->ref_grid);
    atune__expr_free(m->ref_shared);
    free_dim3(&m->init_block);
    free_dim3(&m->init_grid);
    free(m->ref_path);
    free(m->ref_text);
    atune__expr_free(m->work);
    atune__expr_free(m->block_cost);
    for (int i = 0; i < m->nconstraints; i++)
        atune__expr_free(m->constraints[i].expr);
    for (int i = 0; i < m->nmacros; i++)
        atune__expr_free(m->macros[i].expr);
    free_dim3(&m->block);
    free_dim3(&m->grid);
    atune__expr_free(m->shared);
    free_args(m->args, m->nargs);
    free_args(m->constants, m->nconstants);
    for (int i = 0; i < m->nsteps; i++) {
        free_dim3(&m->steps[i].block);
        free_dim3(&m->steps[i].grid);
        atune__expr_free(m->steps[i].shared);
    }
    for (int i = 0; i < m->nref_steps; i++) {
        free_dim3(&m->ref_steps[i].block);
        free_dim3(&m->ref_steps[i].grid);
        atune__expr_free(m->ref_steps[i].shared);
    }
    free(m);
}

const atune__size *atune__manifest_size(const atune__manifest *m,
                                        const char *name)
{
    for (int i = 0; i < m->nsizes; i++) {
        if (strcmp(m->sizes[i].name, name) == 0)
            return &m->sizes[i];
    }
    return NULL;
}

void atune__size_key(const atune__size *s, char *buf, size_t len)
{
    size_t used = 0;

    if (len == 0)
        return;
    buf[0] = '\0';
    for (int i = 0; i < s->nvars; i++) {
        int n = snprintf(buf + used, len - used, "%s%s=%" PRId64, i ? "," : "",
                         s->var[i], s->value[i]);
        if (n < 0 || (size_t)n >= len - used) {
            buf[used] = '\0'; /* too small: keep whole items only */
            return;
        }
        used += (size_t)n;
    }
}

int atune__size_vars(const atune__size *s, atune__vars *vs)
{
    for (int i = 0; i < s->nvars; i++) {
        if (atune__vars_set(vs, s->var[i], s->value[i]) != 0)
            return -1;
    }
    return 0;
}

int atune__macro_values(const atune__manifest *m, const int64_t *v,
                        int64_t *out, atune__err *err)
{
    atune__vars vs;

    if (m->nmacros == 0)
        return 0;
    vs.n = 0;
    for (int i = 0; i < m->nparams; i++)
        if (atune__vars_set(&vs, m->params[i].name, v[i]) != 0)
            return atune__fail(err, ATUNE__EDATA, "%s: too many parameters",
                               m->ini_path);
    for (int i = 0; i < m->nmacros; i++) {
        int rc = atune__manifest_eval(m, m->macros[i].expr, m->macros[i].line,
                                      &vs, &out[i], err);
        if (rc)
            return rc;
    }
    return 0;
}

int atune__manifest_eval(const atune__manifest *m, const atune__expr *e,
                         int line, const atune__vars *vs, int64_t *out,
                         atune__err *err)
{
    int rc = atune__expr_eval(e, vs, out, err);

    if (rc)
        atune__err_prefix(err, "%s:%d: ", m->ini_path, line);
    return rc;
}
