/* check.c -- `autotune check`: validate every template as far as that is
 * possible without a GPU (atune__space_validate: every expression at every
 * size and configuration, buffer sizes, scalar values, at least one valid
 * configuration per size), then compile every valid configuration with
 * NVRTC, on all cores (or as many as --budget, or for as long as
 * --time-limit, allows). Needs no GPU and no driver. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/json.h"
#include "cli/check_changes.h"
#include "cli/check_reference.h"
#include "cli/check_sample.h"
#include "cli/commands.h"
#include "engine/compile.h"
#include "jit/cubin_params.h"
#include "jit/jit.h"
#include "jit/pch.h"
#include "jit/refmodule.h"
#include "template/space.h"
#include "template/templates.h"

/* What check learns about each size of a template. */
struct size_report {
    int64_t valid[ATUNE__MAX_SIZES]; /* valid configurations */
    int64_t bytes[ATUNE__MAX_SIZES]; /* device memory the runner needs */
};

/* The device check validates against: an H100's limits, the compute
 * capability of --arch ("sm_75", "sm_90a": main.c's arch_valid has
 * checked the form). */
static void check_device(const char *arch, atune__devattr *dev)
{
    atune__devattr_default(dev);
    dev->cc = atune__arch_cc(arch);
}

/* Validates m on the generic device, with the compute capability of the
 * target architecture (a constraint such as "EVICT == 0 || cc >= 80"
 * must rule out at sm_75 what ptxas would refuse there), and collects the
 * indices of the configurations valid at any size. */
static int validate(const atune__manifest *m, const char *arch,
                    atune__valid_set *valid, struct size_report *sr,
                    atune__err *err)
{
    atune__devattr dev;
    int rc;

    check_device(arch, &dev);
    rc = atune__space_validate_set(m, &dev, valid, sr->valid, err);
    for (int s = 0; !rc && s < m->nsizes; s++)
        rc = atune__size_memory(m, &m->sizes[s], &dev, &sr->bytes[s], err);
    return rc;
}

/* NVRTC writes "x.cu(12): error: ..."; every other message, and the
 * compilers and editors users know, say "x.cu:12: error: ...". Any file
 * at the start of a line is rewritten: the template's .cu, its own headers
 * and the toolkit's. Returns a heap copy of msg in that form, or NULL when
 * out of memory. */
static char *file_line_style(const char *msg)
{
    char *out = malloc(strlen(msg) + 1), *o = out;
    const char *p = msg;

    while (out && *p) {
        int bol = p == msg || p[-1] == '\n';
        size_t plen = bol ? strcspn(p, "( \t\n") : 0;
        const char *d = p + plen + 1;
        size_t nd = 0;
        if (plen == 0 || p[plen] != '(' ||
            (nd = strspn(d, "0123456789")) == 0 || d[nd] != ')' ||
            d[nd + 1] != ':') {
            *o++ = *p++;
            continue;
        }
        /* "(12):" becomes ":12:": never longer than the original. */
        memcpy(o, p, plen);
        o += plen;
        *o++ = ':';
        memcpy(o, d, nd);
        o += nd;
        *o++ = ':';
        p = d + nd + 2;
    }
    if (out)
        *o = '\0';
    return out;
}

/* The NVRTC logs already printed for one template, by hash: a defect in
 * the .cu usually breaks every configuration the same way, and thousands
 * of copies of one log would hide the first. */
struct seen_logs {
    int n;
    uint64_t hash[64];
    int64_t repeats; /* failures not printed: their log was */
};

/* Whether the log of msg (what follows its first line, which names the
 * configuration) was printed before; remembers it when not. A one-line
 * error (a kernel's [args] or [constants] against its CUBIN) names no
 * configuration: it counts whole, the same in each, shown once. */
static int seen_before(struct seen_logs *seen, const char *msg)
{
    const char *log = strchr(msg, '\n');
    uint64_t h;

    if (!log)
        log = msg;
    h = atune__fnv1a(log, strlen(log), ATUNE__FNV_SEED);
    for (int i = 0; i < seen->n; i++)
        if (seen->hash[i] == h)
            return 1;
    if (seen->n < 64)
        seen->hash[seen->n++] = h;
    return 0;
}

/* JSON lists every failure in full; text prints each distinct log once. */
static void report_failure(atune__json *j, struct seen_logs *seen,
                           const char *cfg, const char *msg)
{
    char *text;

    if (!j && seen_before(seen, msg)) {
        seen->repeats++;
        return;
    }
    text = file_line_style(msg);
    if (j) {
        atune__json_object(j, NULL);
        atune__json_str(j, "config", cfg);
        atune__json_str(j, "error", text ? text : msg);
        atune__json_end(j);
    } else {
        fprintf(stderr, "autotune: error: %s\n", text ? text : msg);
    }
    free(text);
}

/* A template that fails validation: nothing of it is compiled. */
static void report_invalid_name(const char *name, atune__json *j,
                                const char *msg)
{
    if (!j) {
        atune__cli_error(ATUNE__EDATA, "%s", msg);
        return;
    }
    atune__json_object(j, NULL);
    atune__json_str(j, "name", name);
    atune__json_str(j, "error", msg);
    atune__json_int(j, "configurations", 0);
    atune__json_array(j, "failures");
    atune__json_end(j);
    atune__json_int(j, "failed", 1);
    atune__json_num(j, "seconds", 0);
    atune__json_end(j);
}

static void report_invalid(const atune__manifest *m, atune__json *j,
                           const char *msg)
{
    report_invalid_name(m->name, j, msg);
}

static void human_bytes(int64_t b, char *buf, size_t len)
{
    static const char *const units[] = {"bytes", "KiB", "MiB", "GiB",
                                        "TiB",   "PiB", "EiB"};
    double v = (double)b;
    int u = 0;

    while (v >= 1024 && u < 6) {
        v /= 1024;
        u++;
    }
    if (u == 0)
        snprintf(buf, len, "%lld bytes", (long long)b);
    else
        snprintf(buf, len, "%.2f %s", v, units[u]);
}

/* Per size: valid configurations and the device memory a tuning run
 * needs, which only the device can say is free. */
/* Why the default configuration is not valid at size ("" where it is, or
 * where that cannot be said): tune then has nothing to compare its best
 * with, and a newcomer's grid expression that rules the default out
 * would otherwise go unnoticed. */
static void default_invalid(const atune__manifest *m, const char *arch,
                            const atune__size *size, char *why, size_t len)
{
    atune__vars vs = {0};
    atune__devattr dev;
    atune__config c;
    atune__err err;

    why[0] = '\0';
    check_device(arch, &dev);
    if (atune__size_vars(size, &vs) || atune__devattr_vars(&dev, &vs))
        return;
    atune__space_config(m, 0, &c);
    atune__config_at_size(m, &c, size);
    if (atune__space_check(m, &c, &vs, &dev, NULL, why, len, &err) != 0)
        why[0] = '\0';
}

static void report_sizes(const atune__manifest *m, const char *arch,
                         const struct size_report *sr, atune__json *j)
{
    int wname = 8, wkey = 24;

    for (int s = 0; s < m->nsizes; s++) {
        char key[256];
        int l = (int)strlen(m->sizes[s].name);
        atune__size_key(&m->sizes[s], key, sizeof(key));
        wname = l > wname ? l : wname;
        wkey = (int)strlen(key) > wkey ? (int)strlen(key) : wkey;
    }
    if (j)
        atune__json_array(j, "sizes");
    for (int s = 0; s < m->nsizes; s++) {
        char key[256], mem[64], why[256];
        atune__size_key(&m->sizes[s], key, sizeof(key));
        default_invalid(m, arch, &m->sizes[s], why, sizeof(why));
        if (j) {
            atune__json_object(j, NULL);
            atune__json_str(j, "name", m->sizes[s].name);
            atune__json_str(j, "size", key);
            atune__json_int(j, "valid", sr->valid[s]);
            atune__json_int(j, "device_bytes", sr->bytes[s]);
            if (why[0])
                atune__json_str(j, "default_invalid", why);
            atune__json_end(j);
            continue;
        }
        human_bytes(sr->bytes[s], mem, sizeof(mem));
        printf("  %-*s %-*s %6lld valid, %s of device memory\n", wname,
               m->sizes[s].name, wkey, key, (long long)sr->valid[s], mem);
        if (why[0])
            printf("  %-*s the default configuration is not valid here (%s): "
                   "tune has no default to compare its best with\n",
                   wname, "", why);
    }
    if (j)
        atune__json_end(j);
}

/* check --memory: a size whose buffers exceed the limit fails as it would
 * on a device with that much free memory. */
static int check_memory(const atune__manifest *m, const struct size_report *sr,
                        int64_t limit, atune__err *err)
{
    for (int s = 0; s < m->nsizes; s++) {
        char key[256], need[64], have[64];
        if (sr->bytes[s] <= limit)
            continue;
        atune__size_key(&m->sizes[s], key, sizeof(key));
        human_bytes(sr->bytes[s], need, sizeof(need));
        human_bytes(limit, have, sizeof(have));
        return atune__fail(err, ATUNE__EDATA,
                           "%s:%d: size '%s' (%s) needs %s of device memory, "
                           "more than --memory %s",
                           m->ini_path, m->sizes[s].line, m->sizes[s].name, key,
                           need, have);
    }
    return 0;
}

static void format_duration(double s, char *buf, size_t len)
{
    long t = s > 0 && s < 1e9 ? (long)s : 0;

    if (t >= 86400)
        snprintf(buf, len, "%ldd %ldh", t / 86400, t % 86400 / 3600);
    else if (t >= 3600)
        snprintf(buf, len, "%ldh %02ldm", t / 3600, t % 3600 / 60);
    else
        snprintf(buf, len, "%ldm %02lds", t / 60, t % 60);
}

/* Progress of a long check on stderr: on a terminal one line redrawn four
 * times a second from the first second on, elsewhere (a CI log) a line
 * every ten seconds. */
struct progress {
    const char *name;
    int tty, shown, hinted;
    double t0, shown_at;
};

static void show_progress(struct progress *p, int64_t done, int64_t total,
                          int64_t failed, const atune__cli *o)
{
    double now = atune__now(), el = now - p->t0;
    char eta[32];

    if (o->quiet || el < (p->tty ? 1.0 : 10.0) ||
        now - p->shown_at < (p->tty ? 0.25 : 10.0))
        return;
    format_duration(done ? el / (double)done * (double)(total - done) : 0,
                    eta, sizeof(eta));
    fprintf(stderr, "%s%s: %lld/%lld compiled, %lld failed, %.0f s, ETA %s%s",
            p->tty ? "\r\033[K" : "", p->name, (long long)done,
            (long long)total, (long long)failed, el, done ? eta : "--",
            p->tty ? "" : "\n");
    /* A check that would take hours says once how to bound it. */
    if (!p->hinted && done && el / (double)done * (double)total > 3600 &&
        !o->budget && !o->time_limit) {
        fprintf(stderr, "%sautotune: note: --budget N compiles N "
                        "configurations spread over the space, --time-limit "
                        "SEC stops after SEC seconds\n",
                p->tty ? "\n" : "");
        p->hinted = 1;
    }
    p->shown = 1;
    p->shown_at = now;
}

/* NVRTC's warnings (a redefined macro, an unused variable) are shown once
 * per distinct log: a compile that succeeds may still not be what the
 * user meant. */
static void report_warnings(struct seen_logs *seen, const atune__cubin *cb,
                            const char *cfg)
{
    char *text, *tagged;
    size_t len;

    if (!cb->log ||
        (!strstr(cb->log, "warning") && strncmp(cb->log, "note: ", 6) != 0))
        return;
    len = strlen(cb->log) + 2;
    if (!(tagged = malloc(len)))
        return;
    snprintf(tagged, len, "\n%s", cb->log);
    if (!seen_before(seen, tagged)) {
        text = file_line_style(cb->log);
        fprintf(stderr, "autotune: %s: configuration %s:\n%s%s",
                strstr(cb->log, "warning") ? "warning: compiler" : "note",
                cfg, text ? text : cb->log,
                cb->log[strlen(cb->log) - 1] == '\n' ? "" : "\n");
        free(text);
    }
    free(tagged);
}

/* How the parameters reach the kernel, and how many modules the checked
 * configurations made: launch-only parameters share modules. */
static void report_macros(const atune__manifest *m, int64_t done,
                          int64_t modules)
{
    const char *what[] = {"macros (-D)", "name expression", "not macros",
                          "launch only"};
    int groups = 0;

    for (int w = 0; w < 4; w++) {
        int n = 0;
        for (int i = 0; i < m->nparams; i++) {
            const atune__param *pa = &m->params[i];
            if ((pa->macro     ? 0
                 : pa->in_name ? 1
                 : pa->named   ? 2
                               : 3) != w)
                continue;
            if (n++ == 0)
                printf("%s%s: ", groups++ ? "; " : "  parameters: ", what[w]);
            else
                printf(", ");
            printf("%s", pa->name);
        }
    }
    printf("\n  modules: %lld for %lld configurations", (long long)modules,
           (long long)done);
    if (m->names_sized)
        printf(" (a name expression reads the size: a module per "
               "configuration and size, at each size it is valid at)");
    printf("\n");
}

/* NVRTC's precompiled headers, for a template that gains from them: how
 * many configurations' compiles created one and used one, or why none. */
/* nvcc: the modules nvcc compiled (host code in the file), of all
 * compiled: where it compiled every one, NVRTC's precompiled headers had
 * nothing to do. */
static void report_pch(const atune__manifest *m, const atune__procs *procs,
                       const int64_t pch[3], int64_t nvcc, int64_t all,
                       atune__json *j)
{
    const char *off, *root = atune__procs_pch(procs, &off);

    if (!atune__pch_eligible(m))
        return;
    if (nvcc > 0 && nvcc == all)
        root = NULL, off = "nvcc compiled every configuration (they are NVRTC's)";
    if (j) {
        atune__json_int(j, "pch_created", root ? pch[ATUNE__PCH_CREATED] : 0);
        atune__json_int(j, "pch_used", root ? pch[ATUNE__PCH_USED] : 0);
        if (!root && off)
            atune__json_str(j, "pch_off", off);
    } else if (root) {
        printf("  precompiled headers: %lld configurations created one, "
               "%lld used one (%s/HOST.PID, one per compile process)\n",
               (long long)pch[ATUNE__PCH_CREATED],
               (long long)pch[ATUNE__PCH_USED], root);
    } else if (off) {
        printf("  precompiled headers: off: %s\n", off);
    }
}

/* The configurations of index[0..k) valid at size (constraints and the
 * limits check validates against), for a template whose names read the
 * size: *at gets a heap list, *kat its length. */
static int sized_list(const atune__manifest *m, const char *arch,
                      const atune__size *size, const int64_t *index,
                      int64_t k, const int64_t **at, int64_t *kat,
                      atune__err *err)
{
    atune__valid_set here = {0};
    atune__devattr dev;
    int64_t *list = atune__calloc((size_t)k + 1, sizeof(*list)), n = 0;
    int rc;

    if (!list)
        return atune__fail(err, ATUNE__EOSERR, "out of memory");
    check_device(arch, &dev);
    if ((rc = atune__space_build(m, size, &dev, NULL, &here, NULL, err))) {
        free(list);
        return rc;
    }
    for (int64_t i = 0; i < k; i++)
        if (atune__valid_set_find(&here, index[i]) >= 0)
            list[n++] = index[i];
    atune__valid_set_free(&here);
    *at = list;
    *kat = n;
    return 0;
}

/* Configurations per compile pool: 65536 jobs are a few MB. */
#define CHECK_CHUNK ((int64_t)1 << 16)

/* Validates and compiles one template on every core; reports each
 * failure; adds the number of failures (a template that fails validation
 * counts as one) to *failed. Returns 0 or an error that stops the check. */
static int check_one(const atune__manifest *m, const atune__cli *o,
                     atune__cache *cache, atune__procs *procs, atune__json *j,
                     int64_t *failed)
{
    const char *names[ATUNE__JIT_MAX_NAMES];
    /* Every step's kernel, as tune's pools compile them; the reference
     * apart, as tune does (check_reference.c). */
    int nnames = atune__manifest_kernels(m, names);
    char ref[800];
    atune__valid_set valid = {0};
    const int64_t *index = NULL;
    int64_t *picked = NULL; /* --budget's configurations */
    struct size_report sr = {{0}, {0}};
    struct seen_logs seen = {0}, warned = {0};
    int64_t n = 0, k = 0, done = 0, nfailed = 0, nshared = 0, nhr = 0;
    int64_t nother = 0; /* the reference's and the manifest's errors */
    int64_t ncompiled = 0; /* modules asked for: done, or more by size */
    int64_t pch[3] = {0, 0, 0}, nnvcc = 0;
    struct hashrec *hr = NULL;
    atune__pool *pool = NULL;
    atune__err err, abi;
    double t0 = atune__now();
    struct progress pg = {.name = m->name, .tty = isatty(STDERR_FILENO),
                          .t0 = t0};
    const char *bound = NULL;
    int rc, started, dflt_failed = 0;

    atune__reference_str(m, ref, sizeof(ref));
    rc = validate(m, o->arch, &valid, &sr, &err);
    n = valid.n;
    index = valid.index;
    k = n;
    if (!rc && o->budget > 0 && (int64_t)o->budget < n) {
        k = (int64_t)o->budget;
        bound = "--budget";
        if (!(index = picked = atune__check_sample(m, valid.index, n, k)))
            rc = atune__fail(&err, ATUNE__EOSERR, "out of memory");
    }
    if (!rc && o->memory)
        rc = check_memory(m, &sr, o->memory, &err);
    if (!rc)
        rc = atune__check_reference(m, o->arch, cache, procs, 1, &err);
    if (rc == ATUNE__EDATA) {
        report_invalid(m, j, err.msg);
        atune__valid_set_free(&valid);
        free(picked);
        *failed += 1;
        return 0;
    }
    started = !rc;
    /* Without it, "changes nothing" is decided by compiles alone. */
    if (started)
        hr = malloc((size_t)(k < MAX_HASHRECS ? k : MAX_HASHRECS) *
                    sizeof(*hr) + 1);
    if (started && j) {
        atune__json_object(j, NULL);
        atune__json_str(j, "name", m->name);
        atune__json_str(j, "verified_against", ref);
        atune__json_int(j, "configurations", n);
        atune__json_array(j, "failures");
    }
    /* A template whose names read the size: each configuration compiled
     * at every size of [sizes] it is valid at, a module each. */
    for (int si = 0; !rc && si < (m->names_sized ? m->nsizes : 1); si++) {
        const atune__size *size = m->names_sized ? &m->sizes[si] : NULL;
        const int64_t *at = index;
        int64_t kat = k, i = 0;
        if (size) {
            rc = sized_list(m, o->arch, size, index, k, &at, &kat, &err);
            if (!rc && si > 0) /* progress over all sizes' compiles */
                pg.t0 = atune__now();
        }
        for (; !rc && i < kat; i++) {
            const atune__cubin *cubin;
            const char *msg;
            atune__config c;
            char cfg[512];

            if (o->time_limit && atune__now() - t0 >= o->time_limit) {
                bound = "--time-limit";
                break;
            }
            /* A pool per chunk: its bookkeeping (a job per configuration)
             * stays bounded however big the space. */
            if (i % CHECK_CHUNK == 0) {
                int64_t len = kat - i < CHECK_CHUNK ? kat - i : CHECK_CHUNK;
                if (pool)
                    nshared += atune__pool_shared(pool);
                atune__pool_free(pool);
                pool = NULL;
                if ((rc = atune__pool_start(m, size, o->arch, names, nnames,
                                            at + i, len, 0, cache, procs,
                                            &pool, &err)))
                    break;
            }
            show_progress(&pg, i, kat, nfailed, o);
            rc = atune__pool_get(pool, at[i], &cubin, &msg, &err);
            if (!rc)
                ncompiled++;
            /* [args] that do not fit a kernel's parameters as compiled
             * fail the configuration as a compile error would. */
            if (!rc && cubin && !msg)
                atune__space_config(m, at[i], &c);
            if (!rc && cubin && !msg &&
                (atune__cubin_abi_check(m, cubin, 0, nnames, &abi) ||
                 atune__cubin_constants_check(m, cubin, m->cu_path, o->arch,
                                              &abi) ||
                 atune__cubin_bounds_check(m, cubin, &c, size, o->arch,
                                           m->nsteps, &abi)))
                msg = abi.msg;
            if (!rc && cubin && cubin->pch > 0 && cubin->pch < 3)
                pch[cubin->pch]++;
            if (!rc && cubin && cubin->log &&
                strstr(cubin->log, "compiled with nvcc -cubin"))
                nnvcc++;
            /* check_changes compiles at the first size. */
            if (!rc && cubin && hr && nhr < MAX_HASHRECS && si == 0) {
                hr[nhr].idx = at[i];
                hr[nhr++].h = atune__fnv1a(cubin->data, cubin->len,
                                           ATUNE__FNV_SEED);
            }
            if (!rc && ((cubin && cubin->log && cubin->log[0]) || msg)) {
                atune__space_config(m, at[i], &c);
                atune__config_str(m, &c, cfg, sizeof(cfg));
                if (size) {
                    size_t l = strlen(cfg);
                    snprintf(cfg + l, sizeof(cfg) - l, " at size '%s'",
                             size->name);
                }
            }
            if (!rc && cubin && cubin->log && cubin->log[0])
                report_warnings(&warned, cubin, cfg);
            if (!rc && msg) {
                dflt_failed |= at[i] == 0;
                nfailed++;
                report_failure(j, &seen, cfg, msg);
            }
            if (!rc)
                atune__pool_release(pool, at[i]);
        }
        if (at != index)
            free((void *)at);
        /* The configurations checked: all of those valid at some size
         * where every size was done. */
        done = !size ? i : bound && si == 0 ? i : k;
        if (bound)
            break;
    }
    if (pg.shown && pg.tty)
        fputs("\r\033[K", stderr);
    if (pool)
        nshared += atune__pool_shared(pool);
    atune__pool_free(pool);
    pool = NULL;
    if (!rc && started) {
        int frc = atune__check_reference(m, o->arch, cache, procs, 0, &abi);
        /* With the default's macros the reference compiles the file the
         * default did: where that failed, its log is already shown. */
        if (frc == ATUNE__EDATA && !dflt_failed) {
            nother++;
            report_failure(j, &seen, "the reference", abi.msg);
        } else if (frc && frc != ATUNE__EDATA) {
            rc = frc;
            err = abi;
        }
    }
    if (!rc && started) {
        int bad = 0;
        atune__check_unread(m, j, &bad);
        rc = atune__check_changes(m, o->arch, &valid, index, done, hr, nhr,
                                  names, nnames, cache, procs, j, &bad, &err);
        nother += bad;
    }
    if (seen.repeats)
        fprintf(stderr,
                "autotune: error: %s: %lld more configurations fail "
                "with an error shown above\n",
                m->cu_path, (long long)seen.repeats);
    if (j && started) {
        atune__json_end(j);
        atune__json_int(j, "compiled", done);
        if (bound)
            atune__json_str(j, "bounded_by", bound + 2);
        atune__json_int(j, "failed", nfailed + nother);
        atune__json_int(j, "modules", ncompiled - nshared);
        report_pch(m, procs, pch, nnvcc, ncompiled, j);
        atune__json_num(j, "seconds", atune__now() - t0);
        report_sizes(m, o->arch, &sr, j);
        atune__json_end(j);
    } else if (!rc && !o->quiet) {
        char other[64] = "";
        if (nother) /* not configurations: "3113 failed" of 3112 read wrong */
            snprintf(other, sizeof(other), " and %lld other error%s",
                     (long long)nother, nother == 1 ? "" : "s");
        if (bound)
            printf("%-10s %6lld of %lld configurations compiled for %s "
                   "(%s), %lld failed%s, %.1f s\n",
                   m->name, (long long)done, (long long)n, o->arch, bound,
                   (long long)nfailed, other, atune__now() - t0);
        else
            printf("%-10s %6lld configurations compiled for %s, %lld "
                   "failed%s, %.1f s\n",
                   m->name, (long long)n, o->arch, (long long)nfailed, other,
                   atune__now() - t0);
        printf("  verified against: %s\n", ref);
        report_macros(m, done, ncompiled - nshared);
        report_pch(m, procs, pch, nnvcc, ncompiled, NULL);
        report_sizes(m, o->arch, &sr, NULL);
    }
    if (rc)
        atune__cli_error(rc, "%s", err.msg);
    atune__pool_free(pool);
    atune__valid_set_free(&valid);
    free(picked);
    free(hr);
    *failed += nfailed + nother;
    return rc;
}

/* Whether name is in the comma list only (NULL: every name). */
static int wanted(const char *only, const char *name)
{
    size_t n = strlen(name);

    for (const char *p = only; p; p = strchr(p, ',')) {
        p += *p == ',';
        if (strncmp(p, name, n) == 0 && (p[n] == ',' || p[n] == '\0'))
            return 1;
    }
    return !only;
}

/* One template of --templates at a time, so that one that does not load
 * is reported and the others are still checked. */
static int check_each(const atune__cli *o, atune__cache *cache,
                      atune__json *j, int64_t *failed)
{
    char **names = NULL;
    int n = 0, rc = 0;
    atune__err err;

    atune__err_clear(&err);
    if ((rc = atune__templates_names(o->template_dirs, o->ntemplate_dirs,
                                     &names, &n, &err)))
        return atune__cli_error(rc, "%s", err.msg);
    for (int i = 0; i < n; i++) {
        atune__templates t = {0};
        atune__err_clear(&err);
        if (!rc && !wanted(o->kernels, names[i])) {
            /* not asked for */
        } else if (!rc && atune__cli_templates(o, names[i], &t, &err)) {
            report_invalid_name(names[i], j, err.msg);
            *failed += 1;
        } else if (!rc) {
            /* Children forked now share this template's memory. */
            atune__procs *procs = NULL;
            if ((rc = atune__procs_start(&t, cache, 0, &procs, &err)))
                atune__cli_error(rc, "%s", err.msg);
            else
                rc = check_one(t.m[0], o, cache, procs, j, failed);
            atune__procs_stop(procs);
        }
        atune__templates_free(&t);
        free(names[i]);
    }
    free(names);
    return rc;
}

static void json_start(atune__json *j, const atune__cli *o)
{
    atune__json_init(j, stdout);
    atune__json_object(j, NULL);
    atune__json_int(j, "schema", 1);
    atune__json_str(j, "arch", o->arch);
    atune__json_array(j, "templates");
}

/* --json promises one document, also when a template does not load. */
static void report_unloadable(const atune__cli *o, const char *msg)
{
    atune__json json;

    json_start(&json, o);
    atune__json_end(&json);
    atune__json_str(&json, "error", msg);
    atune__json_int(&json, "failed", 1);
    atune__json_end(&json);
}

int atune__cmd_check(const atune__cli *o)
{
    atune__templates t = {0};
    atune__json json, *j = NULL;
    atune__cache *cache;
    atune__procs *procs = NULL;
    atune__err err;
    int64_t failed = 0;
    int rc, each;

    atune__err_clear(&err);
    rc = atune__cli_templates(o, o->kernels, &t, &err);
    /* A bad template in a folder: check the others one by one. */
    each = rc == ATUNE__EDATA && o->templates;
    if (rc && !each) {
        if (rc == ATUNE__EDATA && o->json)
            report_unloadable(o, err.msg);
        return atune__cli_error(rc, "%s", err.msg);
    }
    cache = atune__cli_cache(o);
    /* NVRTC in child processes, which a compilation past the time limit
     * can be killed with (a thread cannot). Forked before any thread. */
    if (!each && (rc = atune__procs_start(&t, cache, 0, &procs, &err))) {
        atune__cache_close(cache);
        atune__templates_free(&t);
        return atune__cli_error(rc, "%s", err.msg);
    }
    if (o->json) {
        j = &json;
        json_start(j, o);
    }
    if (each)
        rc = check_each(o, cache, j, &failed);
    for (int i = 0; !each && !rc && i < t.n; i++)
        rc = check_one(t.m[i], o, cache, procs, j, &failed);
    atune__procs_stop(procs);
    if (j) {
        atune__json_end(j);
        atune__json_int(j, "failed", failed);
        atune__cli_cache_report(o, cache, j);
        atune__json_end(j);
    } else {
        atune__cli_cache_report(o, cache, NULL);
    }
    atune__cache_close(cache);
    atune__templates_free(&t);
    if (!rc && failed)
        rc = ATUNE__EDATA;
    return rc;
}
