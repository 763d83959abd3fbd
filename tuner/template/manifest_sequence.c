/* manifest_sequence.c -- launch sequences: a tuned unit of several
 * kernels launched one after another, one [launch.NAME] section each
 * (docs/manifest.md, "Launch sequences"). A template with a single
 * [launch] gets one step too, so that whoever launches loops over
 * m->steps whatever the manifest says. */
#include <stdlib.h>
#include <string.h>

#include "template/manifest_internal.h"

#define STEP_PREFIX "launch."
#define REF_PREFIX "reference."

static const char *const step_keys[] = {"kernel", "block", "grid", "shared",
                                        "args"};

static int has_prefix(const atune__ini_section *s, const char *prefix)
{
    return strncmp(s->name, prefix, strlen(prefix)) == 0;
}

int atune__mf_is_step_section(const atune__ini_section *s)
{
    return has_prefix(s, STEP_PREFIX) || has_prefix(s, REF_PREFIX);
}

static const atune__ini_section *first_with(const atune__ini *ini,
                                            const char *prefix)
{
    for (int i = 0; i < ini->nsections; i++)
        if (has_prefix(&ini->sections[i], prefix))
            return &ini->sections[i];
    return NULL;
}

const atune__ini_section *atune__mf_first_step(const atune__ini *ini)
{
    return first_with(ini, STEP_PREFIX);
}

const atune__ini_section *atune__mf_first_ref_step(const atune__ini *ini)
{
    return first_with(ini, REF_PREFIX);
}

int atune__mf_sequence_begin(struct loader *ld)
{
    const atune__ini_section *first = atune__mf_first_step(ld->ini);
    const atune__ini_section *one = atune__ini_find(ld->ini, "launch");

    ld->m->sequence = first != NULL;
    if (first && one)
        return atune__mf_bad(ld, one->line,
                             "[launch] beside [%s] (line %d): a template is "
                             "either one launch ([launch]) or a sequence "
                             "(one [launch.NAME] per kernel)",
                             first->name, first->line);
    return 0;
}

int atune__mf_sequence_kernel(struct loader *ld,
                              const atune__ini_section *tmpl)
{
    atune__manifest *m = ld->m;
    const atune__ini_entry *en = atune__ini_get(tmpl, "kernel");

    if (!m->sequence)
        return atune__mf_parse_entry_point(ld, tmpl, "kernel", m->kernel,
                                           &m->kernel_line);
    if (en)
        return atune__mf_bad(ld, en->line,
                             "'kernel' in [template] of a launch sequence: "
                             "each [launch.NAME] section names its own "
                             "kernel");
    return atune__mf_parse_entry_point(ld, atune__mf_first_step(ld->ini),
                                       "kernel", m->kernel, &m->kernel_line);
}

static int parse_step(struct loader *ld, const atune__ini_section *s,
                      const char *prefix, atune__step *st)
{
    const atune__ini_entry *en;
    int rc;

    st->line = s->line;
    if ((rc = atune__mf_check_keys(ld, s, step_keys, ARRAY_LEN(step_keys))) ||
        (rc = atune__mf_copy_ident(ld, s->line, "launch name",
                                   s->name + strlen(prefix), st->name)) ||
        (rc = atune__mf_parse_entry_point(ld, s, "kernel", st->kernel,
                                          &st->kernel_line)) ||
        (rc = atune__mf_need(ld, s, "block", &en)) ||
        (rc = atune__mf_parse_dim3(ld, en, &st->block)) ||
        (rc = atune__mf_need(ld, s, "grid", &en)) ||
        (rc = atune__mf_parse_dim3(ld, en, &st->grid)))
        return rc;
    en = atune__ini_get(s, "shared");
    st->shared_line = en ? en->line : s->line;
    return atune__mf_parse_expr(ld, st->shared_line, en ? en->value : "0",
                                &st->shared);
}

/* The sections named prefix + NAME, in file order, into steps. */
static int parse_sections(struct loader *ld, const char *prefix,
                          atune__step *steps, int *n)
{
    int rc;

    for (int i = 0; i < ld->ini->nsections; i++) {
        const atune__ini_section *s = &ld->ini->sections[i];
        if (!has_prefix(s, prefix))
            continue;
        if (*n == ATUNE__MAX_STEPS)
            return atune__mf_bad(ld, s->line, "more than %d [%sNAME] sections",
                                 ATUNE__MAX_STEPS, prefix);
        rc = parse_step(ld, s, prefix, &steps[*n]);
        /* Counted even when it failed: its expressions are freed. */
        (*n)++;
        if (rc)
            return rc;
    }
    return 0;
}

int atune__mf_parse_ref_steps(struct loader *ld,
                              const atune__ini_section *tmpl)
{
    static const char *const keys[] = {"reference", "reference_block",
                                       "reference_grid", "reference_shared"};
    atune__manifest *m = ld->m;
    const atune__step *first = &m->ref_steps[0];
    const atune__ini_entry *en;
    int rc;

    for (size_t i = 0; i < ARRAY_LEN(keys); i++) {
        if ((en = atune__ini_get(tmpl, keys[i])))
            return atune__mf_bad(ld, en->line,
                                 "'%s' in [template] beside [%s] (line %d): "
                                 "a reference is either one kernel or "
                                 "[reference.NAME] sections",
                                 en->key, atune__mf_first_ref_step(ld->ini)->name,
                                 atune__mf_first_ref_step(ld->ini)->line);
    }
    /* Their kernels are looked up and compiled in the .cu and its own
     * headers, as the steps' are. */
    if ((en = atune__ini_get(tmpl, "reference_source")))
        return atune__mf_bad(ld, en->line,
                             "reference_source beside [%s] (line %d): the "
                             "kernels of [reference.NAME] sections come from "
                             "the .cu or its own headers",
                             atune__mf_first_ref_step(ld->ini)->name,
                             atune__mf_first_ref_step(ld->ini)->line);
    if ((rc = parse_sections(ld, REF_PREFIX, m->ref_steps, &m->nref_steps)))
        return rc;
    strcpy(m->reference, first->kernel);
    m->reference_line = first->kernel_line;
    m->ref_is_default = 0;
    m->ref_launch_default = 0;
    if ((rc = atune__mf_copy_dim3(ld, &first->block, &m->ref_block)) ||
        (rc = atune__mf_copy_dim3(ld, &first->grid, &m->ref_grid)))
        return rc;
    return 0;
}

int atune__mf_parse_steps(struct loader *ld)
{
    atune__manifest *m = ld->m;
    const atune__step *first = &m->steps[0];
    int rc;

    if ((rc = parse_sections(ld, STEP_PREFIX, m->steps, &m->nsteps)))
        return rc;
    /* What reads only the first launch (messages, the launch limits'
     * early pruning) finds it where a single launch is. */
    if ((rc = atune__mf_copy_dim3(ld, &first->block, &m->block)) ||
        (rc = atune__mf_copy_dim3(ld, &first->grid, &m->grid)) ||
        (rc = atune__mf_parse_expr(ld, first->shared_line,
                                   atune__expr_text(first->shared),
                                   &m->shared)))
        return rc;
    m->shared_line = first->shared_line;
    if (m->ref_launch_default &&
        ((rc = atune__mf_copy_dim3(ld, &first->block, &m->ref_block)) ||
         (rc = atune__mf_copy_dim3(ld, &first->grid, &m->ref_grid))))
        return rc;
    return 0;
}

int atune__mf_single_step(struct loader *ld, int line)
{
    atune__manifest *m = ld->m;
    atune__step *st = &m->steps[0];
    int rc;

    m->nsteps = 1;
    st->line = line;
    strcpy(st->kernel, m->kernel);
    st->kernel_line = m->kernel_line;
    st->shared_line = m->shared_line;
    if ((rc = atune__mf_copy_dim3(ld, &m->block, &st->block)) ||
        (rc = atune__mf_copy_dim3(ld, &m->grid, &st->grid)))
        return rc;
    return atune__mf_parse_expr(ld, m->shared_line,
                                atune__expr_text(m->shared), &st->shared);
}

static int find_arg(const atune__manifest *m, const char *name)
{
    for (int i = 0; i < m->nargs; i++)
        if (strcmp(m->args[i].name, name) == 0)
            return i;
    return -1;
}

/* args = NAME, NAME, ...: the [args] entries the step's kernel takes, in
 * its parameter order; without it, every [args] entry in order. */
static int step_args(struct loader *ld, atune__step *st,
                     const char *section, const atune__ini_entry *en)
{
    char *piece[ATUNE__MAX_ARGS];
    const atune__manifest *m = ld->m;
    int n, rc = 0;

    if (!en) {
        for (int i = 0; i < m->nargs; i++)
            st->arg[i] = i;
        st->nargs = m->nargs;
        return 0;
    }
    n = atune__split_top(en->value, piece, ATUNE__MAX_ARGS);
    if (n < 0)
        return atune__mf_bad(ld, en->line,
                             "args of [%s] must be 1 to %d "
                             "comma-separated names of [args], none empty",
                             section, ATUNE__MAX_ARGS);
    for (int i = 0; i < n; i++) {
        int a = find_arg(m, piece[i]);
        if (rc == 0 && a < 0)
            rc = atune__mf_bad(ld, en->line,
                               "args of [%s]: '%s' is not an entry "
                               "of [args]",
                               section, piece[i]);
        st->arg[i] = a;
        free(piece[i]);
    }
    st->nargs = rc ? 0 : n;
    return rc;
}

int atune__mf_step_args(struct loader *ld)
{
    atune__manifest *m = ld->m;
    char section[ATUNE__NAME_MAX + sizeof(REF_PREFIX)];
    int rc;

    for (int i = 0; i < m->nref_steps; i++) {
        atune__step *st = &m->ref_steps[i];
        snprintf(section, sizeof(section), REF_PREFIX "%s", st->name);
        if ((rc = step_args(ld, st, section,
                            atune__ini_get(atune__ini_find(ld->ini, section),
                                           "args"))))
            return rc;
    }
    if (!m->sequence)
        return step_args(ld, &m->steps[0], "launch", NULL);
    for (int i = 0; i < m->nsteps; i++) {
        atune__step *st = &m->steps[i];
        snprintf(section, sizeof(section), STEP_PREFIX "%s", st->name);
        if ((rc = step_args(ld, st, section,
                            atune__ini_get(atune__ini_find(ld->ini, section),
                                           "args"))))
            return rc;
    }
    /* An entry no kernel takes would be compared untouched, or filled for
     * nothing: a slip in an args list. */
    for (int a = 0; a < m->nargs; a++) {
        int used = 0;
        for (int i = 0; !used && i < m->nsteps; i++)
            for (int k = 0; k < m->steps[i].nargs; k++)
                used |= m->steps[i].arg[k] == a;
        for (int i = 0; !used && i < m->nref_steps; i++)
            for (int k = 0; k < m->ref_steps[i].nargs; k++)
                used |= m->ref_steps[i].arg[k] == a;
        if (!used)
            return atune__mf_bad(ld, m->args[a].line,
                                 "'%s' of [args] is passed to no kernel: no "
                                 "[launch.NAME] or [reference.NAME] section "
                                 "lists it in 'args'",
                                 m->args[a].name);
    }
    return 0;
}

static int check_dim3(struct loader *ld, const atune__dim3 *d,
                      const char *what, const char *shared_by)
{
    int rc = 0;

    for (int i = 0; rc == 0 && i < d->n; i++)
        rc = atune__mf_check_expr(ld, d->e[i], d->line, what, shared_by);
    return rc;
}

/* shared_by: why the expressions may not read parameters, or NULL. */
static int check_list(struct loader *ld, const atune__step *steps, int n,
                      const char *shared_by)
{
    atune__manifest *m = ld->m;
    int rc;

    for (int i = 0; i < n; i++) {
        const atune__step *st = &steps[i];
        if ((rc = check_dim3(ld, &st->block, "block", shared_by)) ||
            (rc = check_dim3(ld, &st->grid, "grid", shared_by)) ||
            (rc = atune__mf_check_expr(ld, st->shared, st->shared_line,
                                       "shared", shared_by)) ||
            (rc = atune__mf_check_paste(ld, st->kernel, st->kernel_line)) ||
            (rc = atune__mf_entry_found(ld, "kernel", st->kernel,
                                        st->kernel_line)))
            return rc;
        atune__mf_note_size_vars(ld, st->kernel);
        for (int p = 0; p < m->nparams; p++)
            m->params[p].in_name |=
                atune__mf_has_word(st->kernel, m->params[p].name);
    }
    return 0;
}

int atune__mf_check_steps(struct loader *ld)
{
    atune__manifest *m = ld->m;
    int rc;

    /* steps[0] of a single [launch] is checked as [launch]. */
    if (m->sequence && (rc = check_list(ld, m->steps, m->nsteps, NULL)))
        return rc;
    return check_list(ld, m->ref_steps, m->nref_steps,
                      "the reference runs once for all configurations");
}

int atune__manifest_kernels(const atune__manifest *m, const char **names)
{
    for (int i = 0; i < m->nsteps; i++)
        names[i] = m->steps[i].kernel;
    return m->nsteps;
}

int atune__manifest_entries(const atune__manifest *m, const char **names)
{
    int n = 0;

    for (int i = 0; i < m->nsteps; i++)
        names[n++] = m->steps[i].kernel;
    for (int i = 0; !m->ref_is_default && i < m->nref_steps; i++)
        names[n++] = m->ref_steps[i].kernel;
    if (!m->ref_is_default && m->nref_steps == 0)
        names[n++] = m->reference;
    return n;
}

int atune__manifest_ref_names(const atune__manifest *m, const char **names)
{
    int n = 1;

    names[0] = m->reference;
    if (m->sequence && m->ref_is_default)
        n = atune__manifest_entries(m, names);
    for (int i = 0; i < m->nref_steps; i++)
        names[i] = m->ref_steps[i].kernel;
    return m->nref_steps ? m->nref_steps : n;
}
