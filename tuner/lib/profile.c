/* profile.c -- libatune: the profile handle; reading a profile file (or
 * text), checking it whole and indexing it for lookups.
 *
 * Pure C and inih. A profile is read whole, checked whole (every value the
 * library reads, every section name, duplicates) and indexed at open time,
 * so that a lookup only parses the wanted size, without allocating, and
 * scans the entries of one kernel. Sizes are in profile_size.c, choosing a
 * file for a device in profile_select.c, lookups in profile_lookup.c. */
#include "lib/profile_impl.h"
#include "lib/profile_internal.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_FILE (16 << 20) /* bytes; a profile is a few KiB */
#define OPEN_ERROR (errno == EINVAL ? "a FIFO or socket" : strerror(errno))

static const char empty[] = "";

int atune_version_number(void)
{
    return ATUNE_VERSION_NUMBER;
}

const char *atune_strerror(int status)
{
    switch (status) {
#define ATUNE_XX(code, msg)                                                    \
    case ATUNE_##code:                                                         \
        return msg;
        ATUNE_STATUS_MAP(ATUNE_XX)
#undef ATUNE_XX
    }
    return "unknown status";
}

/* See profile_impl.h. */
int atune__profile_fail(atune_profile *p, int status, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(p->errmsg, sizeof(p->errmsg), fmt, ap);
    va_end(ap);
    return status;
}

int atune__profile_ok(atune_profile *p)
{
    p->errmsg[0] = '\0';
    return ATUNE_OK;
}

/* The message of the calling thread's last failed lookup, and the handle
 * it was on: a handle's own message is written by its open only, so that
 * threads may look up on one handle. Handles are told apart by id, not
 * address, as a closed handle's address comes back. */
static _Thread_local struct {
    unsigned long id;
    char msg[1024];
} last_lookup;

int atune__lookup_fail(const atune_profile *p, int status, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(last_lookup.msg, sizeof(last_lookup.msg), fmt, ap);
    va_end(ap);
    last_lookup.id = p->id;
    return status;
}

void atune__lookup_ok(const atune_profile *p)
{
    if (last_lookup.id == p->id)
        last_lookup.id = 0;
}

/* ---- reading a profile -------------------------------------------------- */

/* Strict integer: the whole value, within [lo, hi]. */
static int get_int(atune_profile *p, const atune__ini_entry *e, int64_t lo,
                   int64_t hi, int64_t *out)
{
    int64_t v;

    if (atune__lib_parse_i64(e->value, INT64_MIN, INT64_MAX, &v))
        return atune__profile_fail(p, ATUNE_EPARSE,
                                   "%s:%d: bad integer '%s' for '%s'", p->path,
                                   e->line, e->value, e->key);
    if (v < lo || v > hi)
        return atune__profile_fail(
            p, ATUNE_EPARSE,
            "%s:%d: '%s' = %lld is out of range (%lld to %lld)", p->path,
            e->line, e->key, (long long)v, (long long)lo, (long long)hi);
    *out = v;
    return ATUNE_OK;
}

/* The parameter a key holds: "BLOCK_SIZE" for BLOCK_SIZE, "tile_x" for
 * param.tile_x (a parameter with lower-case letters; the tuner writes
 * those so, to tell them from the library's own lower-case keys); NULL
 * for other keys. */
static const char *param_of_key(const char *k)
{
    const char *name = k;

    if (strncmp(k, "param.", 6) == 0) {
        int lower = 0;
        name = k + 6;
        if (!is_alpha(*name) && *name != '_')
            return NULL;
        for (k = name; *k; k++) {
            if (!is_ident(*k))
                return NULL;
            lower |= *k >= 'a' && *k <= 'z';
        }
        /* An upper-case name is written as itself, never as param.NAME:
         * reading both would give one parameter twice. */
        return lower ? name : NULL;
    }
    if (!is_upper(*k))
        return NULL;
    for (k++; *k; k++)
        if (!is_upper(*k) && !is_digit(*k) && *k != '_')
            return NULL;
    return name;
}

static int is_hash(const char *s)
{
    size_t n = 0;

    for (; s[n]; n++)
        if (!is_digit(s[n]) && !(s[n] >= 'a' && s[n] <= 'f'))
            return 0;
    return n == HASH_LEN;
}

static int read_device_key(atune_profile *p, const atune__ini_section *s,
                           const char *key, int64_t *out)
{
    const atune__ini_entry *e = atune__ini_get(s, key);

    if (!e)
        return atune__profile_fail(p, ATUNE_EPARSE,
                                   "%s:%d: [device] has no '%s'", p->path,
                                   s->line, key);
    return get_int(p, e, 0, INT_MAX, out);
}

/* The format key first: a later format may change everything else. */
static int read_device(atune_profile *p)
{
    const atune__ini_section *s = atune__ini_find(p->doc, "device");
    const atune__ini_entry *e;
    int64_t v;
    int rc;

    if (!s)
        return atune__profile_fail(p, ATUNE_EPARSE, "%s: no [device] section",
                                   p->path);
    e = atune__ini_get(s, "format");
    if (!e)
        return atune__profile_fail(p, ATUNE_EPARSE,
                                   "%s:%d: [device] has no 'format'", p->path,
                                   s->line);
    if ((rc = get_int(p, e, 0, INT_MAX, &v)) != ATUNE_OK)
        return rc;
    if (v < 1 || v > ATUNE_PROFILE_FORMAT)
        return atune__profile_fail(
            p, ATUNE_EFORMAT,
            "%s:%d: profile format %lld is not supported (this library "
            "reads formats 1 to %d)",
            p->path, e->line, (long long)v, ATUNE_PROFILE_FORMAT);
    p->format = (int)v;

    e = atune__ini_get(s, "name");
    if (!e || e->value[0] == '\0')
        return atune__profile_fail(p, ATUNE_EPARSE,
                                   "%s:%d: [device] has no 'name'", p->path,
                                   e ? e->line : s->line);
    snprintf(p->dev.name, sizeof(p->dev.name), "%s", e->value);
    if ((rc = read_device_key(p, s, "cc", &v)) != ATUNE_OK)
        return rc;
    p->dev.cc = (int)v;
    if ((rc = read_device_key(p, s, "sm_count", &v)) != ATUNE_OK)
        return rc;
    p->dev.sm_count = (int)v;
    e = atune__ini_get(s, "uuid");
    if (e && strlen(e->value) >= sizeof(p->dev.uuid))
        return atune__profile_fail(p, ATUNE_EPARSE, "%s:%d: 'uuid' too long",
                                   p->path, e->line);
    snprintf(p->dev.uuid, sizeof(p->dev.uuid), "%s", e ? e->value : "");
    p->dev_ok = 1;
    return ATUNE_OK;
}

static int cmp_key_entry(const void *a, const void *b)
{
    const atune__ini_entry *x = *(const atune__ini_entry *const *)a;
    const atune__ini_entry *y = *(const atune__ini_entry *const *)b;
    int c = strcmp(x->key, y->key);

    return c ? c : (x->line > y->line) - (x->line < y->line);
}

/* Duplicate keys in any section, found by sorting (a section may have
 * 200k keys): the earliest second occurrence is reported. tmp has room
 * for the section's entries. */
static int check_keys(atune_profile *p, const atune__ini_section *s,
                      const atune__ini_entry **tmp)
{
    const atune__ini_entry *dup = NULL, *first = NULL;

    if (s->nentries < 2)
        return ATUNE_OK;
    for (int i = 0; i < s->nentries; i++)
        tmp[i] = &s->entries[i];
    qsort(tmp, (size_t)s->nentries, sizeof(*tmp), cmp_key_entry);
    for (int i = 1; i < s->nentries; i++)
        if (strcmp(tmp[i]->key, tmp[i - 1]->key) == 0 &&
            (!dup || tmp[i]->line < dup->line)) {
            dup = tmp[i];
            first = tmp[i - 1]; /* a run is in line order */
        }
    if (!dup)
        return ATUNE_OK;
    return atune__profile_fail(p, ATUNE_EPARSE,
                               "%s:%d: duplicate key '%s' (first on line %d)",
                               p->path, dup->line, dup->key, first->line);
}

static int read_entry_key(atune_profile *p, entry *en,
                          const atune__ini_entry *e)
{
    int rc = ATUNE_OK;

    if (param_of_key(e->key)) {
        en->pname[en->nparams] = param_of_key(e->key);
        rc = get_int(p, e, INT64_MIN, INT64_MAX, &en->pval[en->nparams]);
        en->nparams++;
    } else if (strcmp(e->key, "time_ns") == 0) {
        rc = get_int(p, e, 0, INT64_MAX, &en->time_ns);
    } else if (strcmp(e->key, "default_time_ns") == 0) {
        rc = get_int(p, e, 0, INT64_MAX, &en->default_time_ns);
    } else if (strcmp(e->key, "template_hash") == 0) {
        if (!is_hash(e->value))
            return atune__profile_fail(
                p, ATUNE_EPARSE,
                "%s:%d: bad template_hash '%s' (expected %d lower-case "
                "hex digits)",
                p->path, e->line, e->value, HASH_LEN);
        en->hash = e->value;
    }
    /* Other keys are for people (metric, strategy) or later versions. */
    return rc;
}

static int read_entry(atune_profile *p, const atune__ini_section *s,
                      const char **pname, int64_t *pval)
{
    entry *en = &p->entries[p->nentries];
    const char *why;
    int rc;

    memset(en, 0, sizeof(*en));
    /* No limit of its own on the length of a section name. */
    en->name = malloc(strlen(s->name) + 1);
    if (!en->name)
        return atune__profile_fail(p, ATUNE_ENOMEM, "out of memory");
    why =
        atune__section_split(s->name, en->name, strlen(s->name) + 1, &en->vars);
    if (why)
        return atune__profile_fail(p, ATUNE_EPARSE,
                                   "%s:%d: bad section name '[%s]': %s",
                                   p->path, s->line, s->name, why);
    en->kernel = en->name;
    en->size = en->name + strlen(en->name) + 1;
    en->line = s->line;
    en->sec = s;
    en->hash = empty;
    en->pname = pname;
    en->pval = pval;
    for (int i = 0; i < s->nentries; i++)
        if ((rc = read_entry_key(p, en, &s->entries[i])) != ATUNE_OK)
            return rc;
    for (int i = 0; i < en->vars.n; i++) {
        en->lg[i] = atune__size_log2(en->vars.v[i].val);
        en->lgsum += en->lg[i];
    }
    p->nentries++;
    return ATUNE_OK;
}

/* One section of the document: [device] was read by read_device. */
static int read_section(atune_profile *p, const atune__ini_section *s,
                        const atune__ini_section *device,
                        const atune__ini_entry **tmp, int *nkeys)
{
    int rc;

    if (s->name[0] == '\0') /* inidoc's section of stray entries */
        return atune__profile_fail(p, ATUNE_EPARSE,
                                   "%s:%d: entry outside any section", p->path,
                                   s->nentries ? s->entries[0].line : s->line);
    if ((rc = check_keys(p, s, tmp)) != ATUNE_OK)
        return rc;
    if (strcmp(s->name, "device") == 0) {
        if (s != device)
            return atune__profile_fail(
                p, ATUNE_EPARSE,
                "%s:%d: duplicate section [device] (first on line %d)",
                p->path, s->line, device->line);
        return ATUNE_OK;
    }
    rc = read_entry(p, s, p->pnames + *nkeys, p->pvals + *nkeys);
    if (rc == ATUNE_OK)
        *nkeys += p->entries[p->nentries - 1].nparams;
    return rc;
}

/* Kernel, variable names, values, then file order. */
static int cmp_section(const void *a, const void *b)
{
    const entry *x = *(entry *const *)a;
    const entry *y = *(entry *const *)b;
    int c = strcmp(x->kernel, y->kernel);

    if (c == 0)
        c = atune__size_vars_cmp(&x->vars, &y->vars);
    for (int i = 0; c == 0 && i < x->vars.n; i++)
        c = (x->vars.v[i].val > y->vars.v[i].val) -
            (x->vars.v[i].val < y->vars.v[i].val);
    return c ? c : (x->line > y->line) - (x->line < y->line);
}

/* The same kernel and size in another spelling is the same section: found
 * by sorting (a profile may have 100k sections); the earliest second
 * occurrence is reported. */
static int check_sections(atune_profile *p)
{
    entry **v = calloc((size_t)p->nentries + 1, sizeof(*v));
    const entry *dup = NULL, *first = NULL;

    if (!v)
        return atune__profile_fail(p, ATUNE_ENOMEM, "out of memory");
    for (int i = 0; i < p->nentries; i++)
        v[i] = &p->entries[i];
    qsort(v, (size_t)p->nentries, sizeof(*v), cmp_section);
    for (int i = 1; i < p->nentries; i++) {
        const entry *x = v[i - 1], *y = v[i];
        if (strcmp(x->kernel, y->kernel) == 0 &&
            atune__size_vars_cmp(&x->vars, &y->vars) == 0 &&
            atune__size_same_values(&x->vars, &y->vars) &&
            (!dup || y->line < dup->line)) {
            dup = y;
            first = x; /* a run is in file order */
        }
    }
    free(v);
    if (!dup)
        return ATUNE_OK;
    return atune__profile_fail(
        p, ATUNE_EPARSE, "%s:%d: duplicate section [%s] (first on line %d)",
        p->path, dup->line, dup->sec->name, first->line);
}

static int read_sections(atune_profile *p)
{
    const atune__ini *doc = p->doc;
    const atune__ini_section *device = atune__ini_find(doc, "device");
    const atune__ini_entry **tmp;
    int nkeys = 0, most = 0;
    int rc = ATUNE_OK;

    for (int i = 0; i < doc->nsections; i++) {
        nkeys += doc->sections[i].nentries;
        if (doc->sections[i].nentries > most)
            most = doc->sections[i].nentries;
    }
    p->entries = calloc((size_t)doc->nsections + 1, sizeof(*p->entries));
    p->pnames = calloc((size_t)nkeys + 1, sizeof(*p->pnames));
    p->pvals = calloc((size_t)nkeys + 1, sizeof(*p->pvals));
    tmp = calloc((size_t)most + 1, sizeof(*tmp));
    if (!p->entries || !p->pnames || !p->pvals || !tmp) {
        free(tmp);
        return atune__profile_fail(p, ATUNE_ENOMEM, "out of memory");
    }
    nkeys = 0;
    for (int i = 0; i < doc->nsections && rc == ATUNE_OK; i++)
        rc = read_section(p, &doc->sections[i], device, tmp, &nkeys);
    free(tmp);
    return rc == ATUNE_OK ? check_sections(p) : rc;
}

static int cmp_entry(const void *a, const void *b)
{
    const entry *x = *(entry *const *)a;
    const entry *y = *(entry *const *)b;
    int c = strcmp(x->kernel, y->kernel);

    if (c == 0)
        c = atune__size_vars_cmp(&x->vars, &y->vars);
    return c ? c : (x->line > y->line) - (x->line < y->line);
}

/* Groups the entries by kernel, then by variables, for lookups. */
static int build_index(atune_profile *p)
{
    int n = p->nentries;

    p->sorted = calloc((size_t)n + 1, sizeof(*p->sorted));
    p->shapes = calloc((size_t)n + 1, sizeof(*p->shapes));
    p->kernels = calloc((size_t)n + 1, sizeof(*p->kernels));
    if (!p->sorted || !p->shapes || !p->kernels)
        return atune__profile_fail(p, ATUNE_ENOMEM, "out of memory");
    for (int i = 0; i < n; i++) {
        entry *e = &p->entries[i];
        e->exact.e = e;
        e->exact.match = ATUNE_SIZE_EXACT;
        e->owner = p;
        p->sorted[i] = e;
    }
    qsort(p->sorted, (size_t)n, sizeof(*p->sorted), cmp_entry);
    for (int i = 0; i < n; i++) {
        const entry *e = p->sorted[i], *prev = i ? p->sorted[i - 1] : NULL;
        int new_kernel = !prev || strcmp(e->kernel, prev->kernel) != 0;

        if (new_kernel) {
            kernel *k = &p->kernels[p->nkernels++];
            k->name = e->kernel;
            k->first = p->nshapes;
        }
        if (new_kernel || atune__size_vars_cmp(&e->vars, &prev->vars) != 0) {
            p->shapes[p->nshapes++].first = i;
            p->kernels[p->nkernels - 1].count++;
        }
        p->shapes[p->nshapes - 1].count++;
    }
    return ATUNE_OK;
}

static int count_lines(const char *text, const char *end)
{
    int line = 1;

    for (; text < end; text++)
        line += *text == '\n';
    return line;
}

/* The length of the [device] section at the start of the len bytes at
 * text (comments and blank lines may come before it), up to the next
 * section header; 0 when it does not come first or does not end within
 * them (whole: they are the whole file). */
static size_t device_span(const char *text, size_t len, int whole)
{
    const char *s = text, *end = text + len;
    int seen = 0;

    while (s < end) {
        const char *nl = memchr(s, '\n', (size_t)(end - s));
        const char *t = s;

        if (!nl && !whole)
            return 0; /* the head ends inside a line */
        while (t < (nl ? nl : end) && (is_blank(*t) || *t == '\r'))
            t++;
        if (t < end && *t == '[') {
            if (seen)
                return (size_t)(s - text);
            if ((size_t)(end - t) < 8 || memcmp(t, "[device]", 8) != 0)
                return 0;
            seen = 1;
        }
        s = nl ? nl + 1 : end;
    }
    return seen && whole ? len : 0;
}

/* The format that the [device] section at the start of text claims, or 0
 * when it cannot tell. Read line by line, not parsed: a file cut off may
 * not parse, and must still be called truncated when it promised an end
 * line. */
static int claimed_format(const char *text, size_t len)
{
    const char *s = text, *end = text + device_span(text, len, 1);

    while (s < end) {
        const char *nl = memchr(s, '\n', (size_t)(end - s));
        const char *t = s, *stop = nl ? nl : end;
        long v = 0;

        while (t < stop && is_blank(*t))
            t++;
        if ((size_t)(stop - t) > 6 && memcmp(t, "format", 6) == 0) {
            for (t += 6; t < stop && is_blank(*t); t++)
                ;
            if (t == stop || (*t != '=' && *t != ':'))
                return 0;
            for (t++; t < stop && is_blank(*t); t++)
                ;
            for (; t < stop && is_digit(*t) && v < 1000; t++)
                v = 10 * v + (*t - '0');
            while (t < stop && (is_blank(*t) || *t == '\r'))
                t++;
            return t == stop ? (int)v : 0;
        }
        s = stop + 1;
    }
    return 0;
}

/* A format 2 profile ends with its end line (blank lines may follow): a
 * file cut off anywhere lacks it. The line reported is the last one. */
static int check_end(atune_profile *p, const char *text, size_t len)
{
    const size_t n = strlen(ATUNE_PROFILE_END);
    const char *end = text + len, *start;

    while (end > text && (end[-1] == '\n' || end[-1] == '\r' ||
                          is_blank(end[-1])))
        end--;
    for (start = end; start > text && start[-1] != '\n'; start--)
        ;
    if ((size_t)(end - start) >= n && memcmp(start, ATUNE_PROFILE_END, n) == 0)
        return ATUNE_OK;
    return atune__profile_fail(
        p, ATUNE_EPARSE,
        "%s:%d: truncated profile: format %d ends with the line '%s' (the "
        "file was cut off, or lines were added after its end)",
        p->path, count_lines(text, start), p->format, ATUNE_PROFILE_END);
}

/* Parses NUL-terminated text of len bytes into p. */
static int load_text(atune_profile *p, const char *text, size_t len)
{
    const char *nul = memchr(text, '\0', len);
    int rc;

    if (nul)
        return atune__profile_fail(p, ATUNE_EPARSE,
                                   "%s:%d: NUL byte (not a text file)", p->path,
                                   count_lines(text, nul));
    p->format = claimed_format(text, len);
    if (p->format >= 2 && p->format <= ATUNE_PROFILE_FORMAT &&
        (rc = check_end(p, text, len)) != ATUNE_OK)
        return rc;
    if (atune__ini_parse(p->path, text, &p->doc, p->errmsg,
                         sizeof(p->errmsg)) != 0)
        return ATUNE_EPARSE;
    if ((rc = read_device(p)) != ATUNE_OK)
        return rc;
    if (p->format >= 2 && (rc = check_end(p, text, len)) != ATUNE_OK)
        return rc;
    if ((rc = read_sections(p)) != ATUNE_OK)
        return rc;
    return build_index(p);
}

static int read_file(atune_profile *p, char **out, size_t *outlen)
{
    FILE *f = atune__lib_open_regular(p->path);
    char *buf = NULL;
    size_t cap = 0, len = 0, got;
    int rc = ATUNE_OK;

    if (!f)
        return atune__profile_fail(p, ATUNE_EIO, "cannot open '%s': %s",
                                   p->path, OPEN_ERROR);
    do {
        if (len == cap) {
            char *nbuf;
            if (cap >= MAX_FILE) {
                rc = atune__profile_fail(
                    p, ATUNE_EPARSE, "%s: too large for a profile", p->path);
                goto out;
            }
            cap = cap ? 2 * cap : 16384;
            nbuf = realloc(buf, cap + 1);
            if (!nbuf) {
                rc = atune__profile_fail(p, ATUNE_ENOMEM, "out of memory");
                goto out;
            }
            buf = nbuf;
        }
        got = fread(buf + len, 1, cap - len, f);
        len += got;
    } while (got > 0);
    if (ferror(f)) {
        rc = atune__profile_fail(p, ATUNE_EIO, "cannot read '%s': %s", p->path,
                                 strerror(errno));
        goto out;
    }
    buf[len] = '\0';
    *out = buf;
    *outlen = len;
    buf = NULL;
out:
    free(buf);
    fclose(f);
    return rc;
}

/* See profile_impl.h. */
int atune__profile_peek(const char *path, atune_profile **out)
{
    enum { HEAD = 64 << 10 }; /* a [device] section is a few hundred bytes */
    atune_profile *p = atune__profile_new(path);
    char *buf = NULL;
    FILE *f = NULL;
    size_t len, span;
    int rc = ATUNE_EPARSE;

    if (!(*out = p))
        return ATUNE_ENOMEM;
    if (!(buf = malloc(HEAD + 1))) {
        rc = atune__profile_fail(p, ATUNE_ENOMEM, "out of memory");
        goto out;
    }
    if (!(f = atune__lib_open_regular(path))) {
        rc = atune__profile_fail(p, ATUNE_EIO, "cannot open '%s': %s", path,
                                 OPEN_ERROR);
        goto out;
    }
    len = fread(buf, 1, HEAD + 1, f);
    span = device_span(buf, len > HEAD ? HEAD : len, len <= HEAD);
    if (span == 0 || memchr(buf, '\0', span))
        goto out; /* left to a full open */
    buf[span] = '\0';
    if (atune__ini_parse(path, buf, &p->doc, p->errmsg, sizeof(p->errmsg)) ==
        0)
        rc = read_device(p);
out:
    if (f)
        fclose(f);
    free(buf);
    return p->status = rc;
}

atune_profile *atune__profile_new(const char *path)
{
    static atomic_ulong next_id;
    atune_profile *p = calloc(1, sizeof(*p));

    if (!p)
        return NULL;
    p->path = malloc(strlen(path) + 1);
    if (!p->path) {
        free(p);
        return NULL;
    }
    strcpy(p->path, path);
    p->match = ATUNE_DEVICE_FILE;
    p->id = atomic_fetch_add(&next_id, 1) + 1;
    return p;
}

void atune_profile_close(atune_profile *p)
{
    if (!p)
        return;
    /* entries has room for one more than were read: a failed one. */
    for (int i = 0; p->entries && i <= p->nentries; i++) {
        struct atune_config *c = atomic_load(&p->entries[i].nearest);
        while (c) {
            struct atune_config *next = c->next;
            free(c);
            c = next;
        }
        free(p->entries[i].name);
    }
    atune__ini_free(p->doc);
    free(p->warning);
    free(p->entries);
    free(p->sorted);
    free(p->shapes);
    free(p->kernels);
    free(p->pnames);
    free(p->pvals);
    free(p->path);
    free(p);
}

/* Opens the file at path, or with from_mem the len bytes at text. */
static int open_profile(const char *path, int from_mem, const char *text,
                        size_t len, atune_profile **out)
{
    atune_profile *p;
    char *buf = NULL;
    int rc;

    if (!out)
        return ATUNE_EINVAL;
    *out = p = atune__profile_new(path ? path : "");
    if (!p)
        return ATUNE_ENOMEM;
    if (!path || (from_mem && !text)) {
        rc = atune__profile_fail(p, ATUNE_EINVAL, "profile %s is NULL",
                                 path ? "text" : "path");
    } else if (from_mem) {
        /* A copy, for the NUL that inidoc needs after the text. */
        buf = malloc(len + 1);
        if (!buf) {
            rc = atune__profile_fail(p, ATUNE_ENOMEM, "out of memory");
        } else {
            memcpy(buf, text, len);
            buf[len] = '\0';
            rc = load_text(p, buf, len);
        }
    } else if ((rc = read_file(p, &buf, &len)) == ATUNE_OK) {
        rc = load_text(p, buf, len);
    }
    free(buf);
    p->status = rc;
    return rc == ATUNE_OK ? atune__profile_ok(p) : rc;
}

int atune_profile_open(const char *path, atune_profile **out)
{
    return open_profile(path, 0, NULL, 0, out);
}

/* See documentation in profile_internal.h. */
int atune__profile_open_mem(const char *path, const char *text, size_t len,
                            atune_profile **out)
{
    return open_profile(path, 1, text, len, out);
}

int atune_profile_open_string(const char *name, const char *text, size_t len,
                              atune_profile **out)
{
    return open_profile(name, 1, text, len, out);
}

const char *atune_profile_errmsg(const atune_profile *p)
{
    /* A NULL handle comes from an open that ran out of memory. */
    if (!p)
        return "out of memory";
    return last_lookup.id == p->id ? last_lookup.msg : p->errmsg;
}

const char *atune_profile_warning(const atune_profile *p)
{
    return p && p->warning ? p->warning : empty;
}

const char *atune_profile_path(const atune_profile *p)
{
    return p ? p->path : empty;
}

const atune_device *atune_profile_device(const atune_profile *p)
{
    return p ? &p->dev : NULL;
}

atune_device_match atune_profile_device_match(const atune_profile *p)
{
    return p ? p->match : ATUNE_DEVICE_FILE;
}

const atune_device *atune_profile_wanted(const atune_profile *p)
{
    return p && p->match != ATUNE_DEVICE_FILE ? &p->wanted : NULL;
}
