/* cmd_info.c -- `autotune list` and `autotune show`: what templates and
 * profiles hold. Neither needs a GPU. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <atune/atune.h>

#include "cli/commands.h"
#include "base/json.h"
#include "template/space.h"
#include "template/templates.h"

/* Configurations valid at size s on a generic device of the default
 * architecture: the space a tuning run would search. */
static int count_valid(const atune__manifest *m, const atune__size *s,
                       int64_t *valid, atune__err *err)
{
    atune__devattr dev;

    atune__devattr_default(&dev);
    return atune__space_build(m, s, &dev, m->name, NULL, valid, err);
}

static void list_text(const atune__manifest *m, const int64_t *valid)
{
    char ref[800];

    atune__reference_str(m, ref, sizeof(ref));
    printf("%s  (%s, reference %s, %s)\n", m->name, m->kernel, m->reference,
           m->metric == ATUNE__GBS ? "GB/s" : "GFLOP/s");
    if (m->sequence) {
        printf("  launches:");
        for (int i = 0; i < m->nsteps; i++)
            printf("%s %s (%s)", i ? "," : "", m->steps[i].name,
                   m->steps[i].kernel);
        printf("\n");
    }
    printf("  verified against: %s\n", ref);
    int width = 12;

    for (int i = 0; i < m->nparams; i++)
        if ((int)strlen(m->params[i].name) > width)
            width = (int)strlen(m->params[i].name);
    for (int i = 0; i < m->nparams; i++) {
        const atune__param *pa = &m->params[i];
        printf("  %-*s", width, pa->name);
        for (int v = 0; v < pa->nvalues; v++)
            printf("%s%" PRId64, v ? ", " : " ", pa->values[v]);
        /* How it reaches the kernel, when not as a -D macro. */
        printf("%s\n", pa->macro     ? ""
                       : pa->in_name ? "  (name expression)"
                       : pa->named   ? "  (not a macro)"
                                     : "  (launch only)");
    }
    for (int i = 0; i < m->nmacros; i++)
        printf("  %-*s = %s  (macro)\n", width, m->macros[i].name,
               atune__expr_text(m->macros[i].expr));
    if (m->nnvrtc_opts || m->ninclude_dirs || m->nheaders ||
        !m->param_macros || m->compiler) {
        int any = 0;
        printf("  compile:");
        for (int i = 0; i < m->nnvrtc_opts; i++, any = 1)
            printf(" %s", m->nvrtc_opts[i]);
        for (int i = 0; i < m->ninclude_dirs; i++, any = 1)
            printf(" -I%s", m->include_dirs[i]);
        if (!m->param_macros)
            printf("%s(no parameter macros)", any++ ? " " : " ");
        if (m->compiler)
            printf("%scompiler %s", any++ ? "; " : " ",
                   m->compiler == ATUNE__COMPILER_NVCC ? "nvcc" : "nvrtc");
        if (m->nheaders)
            printf("%s%d header%s of its own", any++ ? "; " : " ",
                   m->nheaders, m->nheaders == 1 ? "" : "s");
        printf("\n");
    }
    printf("  space: %" PRId64 " configurations;", atune__space_size(m));
    for (int s = 0; s < m->nsizes; s++) {
        char key[96];
        atune__size_key(&m->sizes[s], key, sizeof(key));
        printf(" %s (%s): %" PRId64 " valid%s", m->sizes[s].name, key,
               valid[s], s + 1 < m->nsizes ? "," : "\n");
    }
}

static void list_json(atune__json *j, const atune__manifest *m,
                      const int64_t *valid)
{
    char hash[17], ref[800];

    atune__reference_str(m, ref, sizeof(ref));
    atune__json_object(j, NULL);
    atune__json_str(j, "name", m->name);
    atune__json_str(j, "kernel", m->kernel);
    atune__json_str(j, "reference", m->reference);
    atune__json_bool(j, "reference_is_default", m->ref_is_default);
    /* One per launch of an evaluation: [launch] is one without a name. */
    atune__json_array(j, "launches");
    for (int i = 0; i < m->nsteps; i++) {
        atune__json_object(j, NULL);
        atune__json_str(j, "name", m->steps[i].name);
        atune__json_str(j, "kernel", m->steps[i].kernel);
        atune__json_end(j);
    }
    atune__json_end(j);
    atune__json_str(j, "verified_against", ref);
    atune__json_str(j, "metric", m->metric == ATUNE__GBS ? "GB/s" : "GFLOP/s");
    snprintf(hash, sizeof(hash), "%016llx", (unsigned long long)m->hash);
    atune__json_str(j, "template_hash", hash);
    atune__json_array(j, "nvrtc_options");
    for (int i = 0; i < m->nnvrtc_opts; i++)
        atune__json_str(j, NULL, m->nvrtc_opts[i]);
    atune__json_end(j);
    atune__json_array(j, "include_dirs");
    for (int i = 0; i < m->ninclude_dirs; i++)
        atune__json_str(j, NULL, m->include_dirs[i]);
    atune__json_end(j);
    atune__json_int(j, "headers", m->nheaders);
    atune__json_bool(j, "param_macros", m->param_macros);
    atune__json_object(j, "params");
    for (int i = 0; i < m->nparams; i++) {
        atune__json_array(j, m->params[i].name);
        for (int v = 0; v < m->params[i].nvalues; v++)
            atune__json_int(j, NULL, m->params[i].values[v]);
        atune__json_end(j);
    }
    atune__json_end(j);
    atune__json_object(j, "macros");
    for (int i = 0; i < m->nmacros; i++)
        atune__json_str(j, m->macros[i].name,
                        atune__expr_text(m->macros[i].expr));
    atune__json_end(j);
    atune__json_int(j, "space", atune__space_size(m));
    atune__json_array(j, "sizes");
    for (int s = 0; s < m->nsizes; s++) {
        char key[96];
        atune__size_key(&m->sizes[s], key, sizeof(key));
        atune__json_object(j, NULL);
        atune__json_str(j, "name", m->sizes[s].name);
        atune__json_str(j, "size", key);
        atune__json_int(j, "valid", valid[s]);
        atune__json_end(j);
    }
    atune__json_end(j);
    atune__json_end(j);
}

int atune__cmd_list(const atune__cli *o)
{
    atune__templates t = {0};
    atune__json json;
    atune__err err;
    int rc;

    atune__err_clear(&err);
    rc = atune__cli_templates(o, o->kernels, &t, &err);
    if (rc)
        return atune__cli_error(rc, "%s", err.msg);
    if (o->json) {
        atune__json_init(&json, stdout);
        atune__json_object(&json, NULL);
        atune__json_int(&json, "schema", 1);
        atune__json_array(&json, "templates");
    }
    for (int i = 0; !rc && i < t.n; i++) {
        int64_t valid[ATUNE__MAX_SIZES];
        for (int s = 0; !rc && s < t.m[i]->nsizes; s++)
            rc = count_valid(t.m[i], &t.m[i]->sizes[s], &valid[s], &err);
        if (rc)
            atune__cli_error(rc, "%s", err.msg);
        else if (o->json)
            list_json(&json, t.m[i], valid);
        else
            list_text(t.m[i], valid);
    }
    if (o->json) {
        atune__json_end(&json);
        atune__json_end(&json);
    }
    atune__templates_free(&t);
    return rc;
}

static const char *device_match_name(atune_device_match m)
{
    switch (m) {
    case ATUNE_DEVICE_EXACT: return "exact";
    case ATUNE_DEVICE_NAME: return "same name";
    case ATUNE_DEVICE_CC: return "same compute capability";
    default: return "file";
    }
}

static void show_one(const atune_profile *p)
{
    const atune_device *dev = atune_profile_device(p);

    printf("%s: %s (cc %d.%d, %d SMs)  [%s]\n", atune_profile_path(p),
           dev->name, dev->cc / 10, dev->cc % 10, dev->sm_count,
           device_match_name(atune_profile_device_match(p)));
    for (int i = 0; i < atune_profile_count(p); i++) {
        const atune_config *c = atune_profile_entry(p, i);
        const char *metric = atune_config_meta(c, "metric");
        int64_t t = atune_config_time_ns(c), dt = atune_config_default_time_ns(c);

        printf("  %-10s %-24s", atune_config_kernel(c), atune_config_size(c));
        for (int k = 0; k < atune_config_count(c); k++)
            printf("%s%s=%" PRId64, k ? "," : " ", atune_config_name(c, k),
                   atune_config_value(c, k));
        printf("  %.3f ms", (double)t / 1e6);
        if (metric)
            printf("  %s", metric);
        if (t > 0 && dt > 0)
            printf("  %.2fx the default", (double)dt / (double)t);
        printf("\n");
    }
}

int atune__cmd_show(const atune__cli *o)
{
    atune__templates t = {0};
    atune__err err;
    int ret = 0;

    if (o->record && ((ret = atune__cmd_show_record(o)) != 0 || !o->nfiles))
        return ret;
    /* The templates that wrote the sections: to check their values. */
    if (atune__cli_templates(o, NULL, &t, &err))
        return atune__cli_error(err.code, "%s", err.msg);
    for (int i = 0; i < o->nfiles; i++) {
        atune_profile *p = NULL;
        int rc = atune_profile_open(o->files[i], &p);

        if (rc == ATUNE_OK && atune__cli_profile_values(p, &t)) {
            if (!ret)
                ret = ATUNE__EDATA;
        } else if (rc == ATUNE_OK) {
            show_one(p);
        } else {
            const char *msg = p ? atune_profile_errmsg(p) : "";
            atune__cli_error(rc == ATUNE_EIO ? ATUNE__ENOINPUT : ATUNE__EDATA,
                             "%s", *msg ? msg : atune_strerror(rc));
            if (!ret)
                ret = rc == ATUNE_EIO ? ATUNE__ENOINPUT : ATUNE__EDATA;
        }
        atune_profile_close(p);
    }
    atune__templates_free(&t);
    return ret;
}
