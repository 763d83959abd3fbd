/* profile.c -- libatune: open the profile that autotune wrote for a GPU and
 * look up the tuned configuration of a kernel at a problem size.
 *
 * Pure C and inih. A profile is read whole, checked whole (every value the
 * library reads, every section name, duplicates) and indexed at open time,
 * so that a lookup only parses the wanted size, without allocating, and
 * scans the entries of one kernel. */
#include "atune/atune.h"
#include "lib/inidoc.h"
#include "lib/profile_internal.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define MAX_VARS 8          /* variables of one problem size */
#define MAX_FILE (16 << 20) /* bytes; a profile is a few KiB */
#define HASH_LEN 16         /* hex digits of template_hash */
#define TIE_EPS 1e-9        /* log2 distances closer than this tie */

/* One variable of a problem size. The name points into the text the size
 * was parsed from and is not NUL-terminated. */
typedef struct size_var {
    const char *name;
    size_t len;
    int64_t val;
    int pos; /* in the text: 0 for the first variable */
} size_var;

/* A problem size, its variables sorted by name so that two sizes compare
 * in one pass. */
typedef struct size_vars {
    int n;
    size_var v[MAX_VARS];
} size_vars;

typedef struct entry entry;

/* A configuration as a lookup returns it. Each entry has two, so that the
 * pointer an application keeps also keeps how it was found. */
struct atune_config {
    const entry *e;
    atune_size_match match;
};

/* One [KERNEL SIZE] section. */
struct entry {
    struct atune_config exact;
    struct atune_config nearest;
    char name[ATUNE__INI_MAX_NAME + 1]; /* "copy\0n=268435456" */
    const char *kernel;
    const char *size;
    size_vars vars;
    double lg[MAX_VARS]; /* log2 of vars.val, at least 0 */
    double lgsum;
    int64_t wanted[MAX_VARS]; /* the last size that found this entry */
    int nparams;
    const char **pname; /* into the document */
    int64_t *pval;
    int64_t time_ns;
    int64_t default_time_ns;
    const char *hash;
    const atune__ini_section *sec; /* every key, for atune_config_meta */
    int line;
};

/* The tuned sizes of one kernel with one set of variables (a kernel
 * usually has one) are sorted[first .. first + count - 1]. */
typedef struct shape {
    int first;
    int count;
} shape;

/* The shapes of a kernel are shapes[first .. first + count - 1]. */
typedef struct kernel {
    const char *name;
    int first;
    int count;
} kernel;

struct atune_profile {
    char *path;
    int status; /* of the open */
    int dev_ok; /* dev was read, even if a later section is malformed */
    atune_device dev;
    atune_device_match match;
    atune_device wanted; /* the device of atune_profile_open_for */
    atune__ini *doc;
    int nentries;
    entry *entries; /* file order */
    entry **sorted; /* by kernel, variables, then file order */
    int nshapes;
    shape *shapes;
    int nkernels;
    kernel *kernels;     /* by name */
    const char **pnames; /* parameter storage of all entries */
    int64_t *pvals;
    char errmsg[1024];
};

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

static int fail(atune_profile *p, int status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Stores the message of a failure on the handle and returns status. */
static int fail(atune_profile *p, int status, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(p->errmsg, sizeof(p->errmsg), fmt, ap);
    va_end(ap);
    return status;
}

static int ok(atune_profile *p)
{
    p->errmsg[0] = '\0';
    return ATUNE_OK;
}

/* Locale-independent character classes: the host application may have
 * called setlocale(). */
static int is_digit(char c)
{
    return c >= '0' && c <= '9';
}

static int is_upper(char c)
{
    return c >= 'A' && c <= 'Z';
}

static int is_alpha(char c)
{
    return is_upper(c) || (c >= 'a' && c <= 'z');
}

static int is_ident(char c)
{
    return is_alpha(c) || is_digit(c) || c == '_';
}

static int is_blank(char c)
{
    return c == ' ' || c == '\t';
}

static int is_kernel_char(char c)
{
    return is_ident(c) || c == '-' || c == '.';
}

/* ---- problem sizes ---------------------------------------------------- */

static int name_cmp(const char *a, size_t alen, const char *b, size_t blen)
{
    size_t n = alen < blen ? alen : blen;

    /* Names are a byte or two: a loop beats a call to memcmp. */
    for (size_t i = 0; i < n; i++)
        if (a[i] != b[i])
            return (unsigned char)a[i] - (unsigned char)b[i];
    return (alen > blen) - (alen < blen);
}

/* Adds a variable to v in name order; -1 if it is already there. */
static int add_var(size_vars *vs, const char *name, size_t len, int64_t val)
{
    size_var *v = vs->v;
    int i = vs->n;

    for (; i > 0; i--) {
        int c = name_cmp(v[i - 1].name, v[i - 1].len, name, len);
        if (c == 0)
            return -1;
        if (c < 0)
            break;
        v[i] = v[i - 1];
    }
    v[i].name = name;
    v[i].len = len;
    v[i].val = val;
    v[i].pos = vs->n++;
    return 0;
}

static const char *skip_blanks(const char *s, int loose)
{
    while (loose && is_blank(*s))
        s++;
    return s;
}

/* Parses "m=4096,n=4096,k=4096" into v. loose allows blanks around every
 * token (queries); profiles are written without. Returns NULL, or why the
 * text is not a size. Allocates nothing: lookups call it. */
static const char *parse_size(const char *s, int loose, size_vars *v)
{
    v->n = 0;
    for (;;) {
        const char *name;
        size_t len;
        int64_t val = 0;

        s = skip_blanks(s, loose);
        name = s;
        if (!is_alpha(*s) && *s != '_')
            return "expected a variable name";
        while (is_ident(*s))
            s++;
        len = (size_t)(s - name);
        s = skip_blanks(s, loose);
        if (*s != '=')
            return "expected '=' after a variable name";
        s = skip_blanks(s + 1, loose);
        if (!is_digit(*s))
            return "expected a non-negative integer value";
        for (; is_digit(*s); s++) {
            int d = *s - '0';
            if (val > (INT64_MAX - d) / 10)
                return "value out of range";
            val = 10 * val + d;
        }
        s = skip_blanks(s, loose);
        if (v->n == MAX_VARS)
            return "too many variables";
        if (add_var(v, name, len, val) != 0)
            return "variable given twice";
        if (*s == '\0')
            return NULL;
        if (*s != ',')
            return "expected ',' between variables";
        s++;
    }
}

/* Orders sets of variable names (not their values). */
static int vars_cmp(const size_vars *a, const size_vars *b)
{
    if (a->n != b->n)
        return a->n - b->n;
    for (int i = 0; i < a->n; i++) {
        int c = name_cmp(a->v[i].name, a->v[i].len, b->v[i].name, b->v[i].len);
        if (c != 0)
            return c;
    }
    return 0;
}

/* The values of two sizes of the same variables. */
static int same_values(const size_vars *a, const size_vars *b)
{
    for (int i = 0; i < a->n; i++)
        if (a->v[i].val != b->v[i].val)
            return 0;
    return 1;
}

static double log2_size(int64_t v)
{
    /* Size 0 is as far from 1 as 1 is: no -inf in the distances. */
    return v > 1 ? log2((double)v) : 0.0;
}

/* Splits a "KERNEL SIZE" section name into buf ("KERNEL\0SIZE") and v,
 * whose names point into buf. Returns NULL or why it is not one. */
static const char *parse_section(const char *name, char *buf, size_t len,
                                 size_vars *v)
{
    const char *sp = strchr(name, ' ');
    size_t n = strlen(name);

    if (!sp)
        return "expected [device] or [KERNEL SIZE], e.g. [copy n=1024]";
    if (n >= len)
        return "name too long";
    if (sp == name)
        return "missing kernel name";
    for (const char *k = name; k < sp; k++)
        if (!is_kernel_char(*k))
            return "kernel names are letters, digits, '_', '-' and '.'";
    memcpy(buf, name, n + 1);
    buf[sp - name] = '\0';
    return parse_size(buf + (sp - name) + 1, 0, v);
}

/* See documentation in profile_internal.h. */
int atune__section_canon(const char *name, char *buf, size_t len, char *msg,
                         size_t msglen)
{
    char tmp[ATUNE__INI_MAX_NAME + 1];
    size_vars v;
    const char *why = parse_section(name, tmp, sizeof(tmp), &v);
    size_t n;

    if (why) {
        if (msg && msglen > 0)
            snprintf(msg, msglen, "bad section name '[%s]': %s", name, why);
        return -1;
    }
    n = (size_t)snprintf(buf, len, "%s", tmp);
    for (int i = 0; i < v.n && n < len; i++)
        n += (size_t)snprintf(buf + n, len - n, "%c%.*s=%lld", i ? ',' : ' ',
                              (int)v.v[i].len, v.v[i].name,
                              (long long)v.v[i].val);
    if (n >= len) {
        if (msg && msglen > 0)
            snprintf(msg, msglen, "section name '[%s]' too long", name);
        return -1;
    }
    return 0;
}

/* ---- reading a profile -------------------------------------------------- */

/* Strict integer: the whole value, within [lo, hi]. */
static int get_int(atune_profile *p, const atune__ini_entry *e, int64_t lo,
                   int64_t hi, int64_t *out)
{
    char *end;
    long long v;

    errno = 0;
    v = strtoll(e->value, &end, 10);
    if (e->value[0] == '\0' || *end != '\0' || errno == ERANGE)
        return fail(p, ATUNE_EPARSE, "%s:%d: bad integer '%s' for '%s'",
                    p->path, e->line, e->value, e->key);
    if (v < lo || v > hi)
        return fail(p, ATUNE_EPARSE,
                    "%s:%d: '%s' = %lld is out of range (%lld to %lld)",
                    p->path, e->line, e->key, v, (long long)lo, (long long)hi);
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
        return fail(p, ATUNE_EPARSE, "%s:%d: [device] has no '%s'", p->path,
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
        return fail(p, ATUNE_EPARSE, "%s: no [device] section", p->path);
    e = atune__ini_get(s, "format");
    if (!e)
        return fail(p, ATUNE_EPARSE, "%s:%d: [device] has no 'format'", p->path,
                    s->line);
    if ((rc = get_int(p, e, 0, INT_MAX, &v)) != ATUNE_OK)
        return rc;
    if (v != ATUNE_PROFILE_FORMAT)
        return fail(p, ATUNE_EFORMAT,
                    "%s:%d: profile format %lld is not supported (this library "
                    "reads format %d)",
                    p->path, e->line, (long long)v, ATUNE_PROFILE_FORMAT);

    e = atune__ini_get(s, "name");
    if (!e || e->value[0] == '\0')
        return fail(p, ATUNE_EPARSE, "%s:%d: [device] has no 'name'", p->path,
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
        return fail(p, ATUNE_EPARSE, "%s:%d: 'uuid' too long", p->path,
                    e->line);
    snprintf(p->dev.uuid, sizeof(p->dev.uuid), "%s", e ? e->value : "");
    p->dev_ok = 1;
    return ATUNE_OK;
}

/* Duplicate keys in any section; the line of the second is reported. */
static int check_keys(atune_profile *p, const atune__ini_section *s)
{
    for (int j = 1; j < s->nentries; j++)
        for (int i = 0; i < j; i++)
            if (strcmp(s->entries[i].key, s->entries[j].key) == 0)
                return fail(p, ATUNE_EPARSE,
                            "%s:%d: duplicate key '%s' (first on line %d)",
                            p->path, s->entries[j].line, s->entries[j].key,
                            s->entries[i].line);
    return ATUNE_OK;
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
            return fail(p, ATUNE_EPARSE,
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
    why = parse_section(s->name, en->name, sizeof(en->name), &en->vars);
    if (why)
        return fail(p, ATUNE_EPARSE, "%s:%d: bad section name '[%s]': %s",
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
        en->lg[i] = log2_size(en->vars.v[i].val);
        en->lgsum += en->lg[i];
    }
    /* Same kernel and size in another spelling is the same section. */
    for (int i = 0; i < p->nentries; i++) {
        const entry *o = &p->entries[i];
        if (strcmp(o->kernel, en->kernel) == 0 &&
            vars_cmp(&o->vars, &en->vars) == 0 &&
            same_values(&o->vars, &en->vars))
            return fail(p, ATUNE_EPARSE,
                        "%s:%d: duplicate section [%s] (first on line %d)",
                        p->path, s->line, s->name, o->line);
    }
    p->nentries++;
    return ATUNE_OK;
}

static int read_sections(atune_profile *p)
{
    const atune__ini *doc = p->doc;
    const atune__ini_section *device = atune__ini_find(doc, "device");
    int nkeys = 0;
    int rc;

    for (int i = 0; i < doc->nsections; i++)
        nkeys += doc->sections[i].nentries;
    p->entries = calloc((size_t)doc->nsections + 1, sizeof(*p->entries));
    p->pnames = calloc((size_t)nkeys + 1, sizeof(*p->pnames));
    p->pvals = calloc((size_t)nkeys + 1, sizeof(*p->pvals));
    if (!p->entries || !p->pnames || !p->pvals)
        return fail(p, ATUNE_ENOMEM, "out of memory");

    nkeys = 0;
    for (int i = 0; i < doc->nsections; i++) {
        const atune__ini_section *s = &doc->sections[i];

        if (s->name[0] == '\0') /* inidoc's section of stray entries */
            return fail(p, ATUNE_EPARSE, "%s:%d: entry outside any section",
                        p->path, s->nentries ? s->entries[0].line : s->line);
        if ((rc = check_keys(p, s)) != ATUNE_OK)
            return rc;
        if (strcmp(s->name, "device") == 0) {
            if (s != device)
                return fail(
                    p, ATUNE_EPARSE,
                    "%s:%d: duplicate section [device] (first on line %d)",
                    p->path, s->line, device->line);
            continue;
        }
        rc = read_entry(p, s, p->pnames + nkeys, p->pvals + nkeys);
        if (rc != ATUNE_OK)
            return rc;
        nkeys += p->entries[p->nentries - 1].nparams;
    }
    return ATUNE_OK;
}

static int cmp_entry(const void *a, const void *b)
{
    const entry *x = *(entry *const *)a;
    const entry *y = *(entry *const *)b;
    int c = strcmp(x->kernel, y->kernel);

    if (c == 0)
        c = vars_cmp(&x->vars, &y->vars);
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
        return fail(p, ATUNE_ENOMEM, "out of memory");
    for (int i = 0; i < n; i++) {
        entry *e = &p->entries[i];
        e->exact.e = e;
        e->exact.match = ATUNE_SIZE_EXACT;
        e->nearest.e = e;
        e->nearest.match = ATUNE_SIZE_NEAREST;
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
        if (new_kernel || vars_cmp(&e->vars, &prev->vars) != 0) {
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

/* Parses NUL-terminated text of len bytes into p. */
static int load_text(atune_profile *p, const char *text, size_t len)
{
    const char *nul = memchr(text, '\0', len);
    int rc;

    if (nul)
        return fail(p, ATUNE_EPARSE, "%s:%d: NUL byte (not a text file)",
                    p->path, count_lines(text, nul));
    if (atune__ini_parse(p->path, text, &p->doc, p->errmsg,
                         sizeof(p->errmsg)) != 0)
        return ATUNE_EPARSE;
    if ((rc = read_device(p)) != ATUNE_OK)
        return rc;
    if ((rc = read_sections(p)) != ATUNE_OK)
        return rc;
    return build_index(p);
}

static int read_file(atune_profile *p, char **out, size_t *outlen)
{
    FILE *f = fopen(p->path, "rb");
    char *buf = NULL;
    size_t cap = 0, len = 0, got;
    int rc = ATUNE_OK;

    if (!f)
        return fail(p, ATUNE_EIO, "cannot open '%s': %s", p->path,
                    strerror(errno));
    do {
        if (len == cap) {
            char *nbuf;
            if (cap >= MAX_FILE) {
                rc = fail(p, ATUNE_EPARSE, "%s: too large for a profile",
                          p->path);
                goto out;
            }
            cap = cap ? 2 * cap : 16384;
            nbuf = realloc(buf, cap + 1);
            if (!nbuf) {
                rc = fail(p, ATUNE_ENOMEM, "out of memory");
                goto out;
            }
            buf = nbuf;
        }
        got = fread(buf + len, 1, cap - len, f);
        len += got;
    } while (got > 0);
    if (ferror(f)) {
        rc = fail(p, ATUNE_EIO, "cannot read '%s': %s", p->path,
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

static atune_profile *new_handle(const char *path)
{
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
    return p;
}

void atune_profile_close(atune_profile *p)
{
    if (!p)
        return;
    atune__ini_free(p->doc);
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
    *out = p = new_handle(path ? path : "");
    if (!p)
        return ATUNE_ENOMEM;
    if (!path || (from_mem && !text)) {
        rc =
            fail(p, ATUNE_EINVAL, "profile %s is NULL", path ? "text" : "path");
    } else if (from_mem) {
        /* A copy, for the NUL that inidoc needs after the text. */
        buf = malloc(len + 1);
        if (!buf) {
            rc = fail(p, ATUNE_ENOMEM, "out of memory");
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
    return rc == ATUNE_OK ? ok(p) : rc;
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

const atune__ini *atune__profile_doc(const atune_profile *p)
{
    return p && p->status == ATUNE_OK ? p->doc : NULL;
}

/* ---- choosing a profile for a device ------------------------------------ */

enum rank { RANK_EXACT, RANK_NAME, RANK_CC, RANK_UNKNOWN, RANK_NONE };

/* How well a candidate fits: lower is better, compared field by field. */
typedef struct fit {
    enum rank rank;
    long long sm_diff;
    const char *path; /* ties: the file name, as all share dir */
} fit;

static fit fit_of(const atune_device *want, const atune_profile *c)
{
    fit f = {RANK_UNKNOWN, 0, c->path};
    const atune_device *d = &c->dev;

    if (!c->dev_ok)
        return f;
    f.sm_diff = llabs((long long)want->sm_count - d->sm_count);
    if (strncmp(want->name, d->name, sizeof(want->name)) == 0)
        f.rank = want->cc == d->cc && f.sm_diff == 0 ? RANK_EXACT : RANK_NAME;
    else if (want->cc == d->cc)
        f.rank = RANK_CC;
    else
        f.rank = RANK_NONE;
    return f;
}

static int fit_better(const fit *a, const fit *b)
{
    if (a->rank != b->rank)
        return a->rank < b->rank;
    if (a->sm_diff != b->sm_diff)
        return a->sm_diff < b->sm_diff;
    return strcmp(a->path, b->path) < 0;
}

/* Only ranks a good file can have. */
static atune_device_match match_of(enum rank r)
{
    switch (r) {
    case RANK_EXACT:
        return ATUNE_DEVICE_EXACT;
    case RANK_NAME:
        return ATUNE_DEVICE_NAME;
    default:
        return ATUNE_DEVICE_CC;
    }
}

static int is_ini_name(const char *name)
{
    size_t n = strlen(name);

    return n > 4 && strcmp(name + n - 4, ".ini") == 0;
}

/* Keeps c in *slot if it fits better than the one there; closes the loser. */
static void keep_better(atune_profile **slot, fit *slot_fit, atune_profile *c,
                        const fit *f)
{
    if (f->rank != RANK_NONE && (!*slot || fit_better(f, slot_fit))) {
        atune_profile_close(*slot);
        *slot = c;
        *slot_fit = *f;
    } else {
        atune_profile_close(c);
    }
}

/* Opens every regular *.ini file in d and keeps the best good and the best
 * malformed candidate. Returns ATUNE_ENOMEM or ATUNE_OK. */
static int scan_dir(DIR *d, const char *dir, const atune_device *want,
                    atune_profile **good, atune_profile **bad)
{
    fit good_fit = {RANK_NONE, 0, NULL}, bad_fit = {RANK_NONE, 0, NULL};
    struct dirent *de;
    char *path = NULL;
    int rc = ATUNE_OK;

    while ((de = readdir(d)) != NULL) {
        atune_profile *c;
        struct stat st;
        size_t len;
        fit f;

        if (!is_ini_name(de->d_name))
            continue;
        len = strlen(dir) + strlen(de->d_name) + 2;

        free(path);
        path = malloc(len);
        if (!path) {
            rc = ATUNE_ENOMEM;
            break;
        }
        snprintf(path, len, "%s/%s", dir, de->d_name);
        if (stat(path, &st) != 0 || !S_ISREG(st.st_mode))
            continue;
        if (atune_profile_open(path, &c) == ATUNE_ENOMEM) {
            atune_profile_close(c);
            rc = ATUNE_ENOMEM;
            break;
        }
        f = fit_of(want, c);
        if (c->status == ATUNE_OK)
            keep_better(good, &good_fit, c, &f);
        else
            keep_better(bad, &bad_fit, c, &f);
    }
    free(path);
    if (*good)
        (*good)->match = match_of(good_fit.rank);
    return rc;
}

int atune_profile_open_for(const char *dir, const atune_device *dev,
                           atune_profile **out)
{
    atune_profile *p, *good = NULL, *bad = NULL;
    DIR *d;
    int rc;

    if (!out)
        return ATUNE_EINVAL;
    *out = p = new_handle(dir ? dir : "");
    if (!p)
        return ATUNE_ENOMEM;
    if (!dir || !dev)
        return p->status = fail(p, ATUNE_EINVAL, "%s is NULL",
                                dir ? "device" : "profile directory");
    p->wanted = *dev;
    p->wanted.name[sizeof(p->wanted.name) - 1] = '\0';
    p->wanted.uuid[sizeof(p->wanted.uuid) - 1] = '\0';
    d = opendir(dir);
    if (!d)
        return p->status = fail(p, ATUNE_EIO, "cannot open directory '%s': %s",
                                dir, strerror(errno));
    rc = scan_dir(d, dir, &p->wanted, &good, &bad);
    closedir(d);
    if (rc != ATUNE_OK) {
        p->status = fail(p, rc, "out of memory");
    } else if (good) {
        good->wanted = p->wanted;
        atune_profile_close(p);
        p = good;
        good = NULL;
    } else if (bad) {
        bad->wanted = p->wanted;
        atune_profile_close(p);
        p = bad;
        bad = NULL;
    } else {
        p->status = fail(p, ATUNE_ENOTFOUND,
                         "no profile in '%s' fits '%s' (cc %d, %d SMs)", dir,
                         p->wanted.name, dev->cc, dev->sm_count);
    }
    atune_profile_close(good);
    atune_profile_close(bad);
    *out = p;
    return p->status;
}

const char *atune_profile_errmsg(const atune_profile *p)
{
    /* A NULL handle comes from an open that ran out of memory. */
    return p ? p->errmsg : "out of memory";
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

/* ---- lookups ------------------------------------------------------------ */

static const kernel *find_kernel(const atune_profile *p, const char *name)
{
    int lo = 0, hi = p->nkernels;

    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        int c = strcmp(p->kernels[mid].name, name);
        if (c == 0)
            return &p->kernels[mid];
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

/* The sizes of k with the variables of q, or NULL. */
static const shape *find_shape(const atune_profile *p, const kernel *k,
                               const size_vars *q)
{
    for (int i = k->first; i < k->first + k->count; i++) {
        const shape *s = &p->shapes[i];
        if (vars_cmp(&p->sorted[s->first]->vars, q) == 0)
            return s;
    }
    return NULL;
}

/* The entry of s at exactly size q, else the nearest on a log scale (ties:
 * the larger tuned size, then the first in the file). */
static entry *nearest(const atune_profile *p, const shape *s,
                      const size_vars *q, int *exact)
{
    entry **first = p->sorted + s->first;
    double lq[MAX_VARS], best_d = HUGE_VAL;
    entry *best = NULL;

    for (int j = 0; j < s->count; j++) {
        if (same_values(&first[j]->vars, q)) {
            *exact = 1;
            return first[j];
        }
    }
    for (int i = 0; i < q->n; i++)
        lq[i] = log2_size(q->v[i].val);
    for (int j = 0; j < s->count; j++) {
        entry *e = first[j];
        double d = 0;

        for (int i = 0; i < q->n; i++)
            d += fabs(e->lg[i] - lq[i]);
        if (!best || d < best_d - TIE_EPS ||
            (d <= best_d + TIE_EPS && e->lgsum > best->lgsum + TIE_EPS)) {
            best = e;
            best_d = d;
        }
    }
    *exact = 0;
    return best;
}

int atune_profile_lookup(atune_profile *p, const char *kernel_name,
                         const char *size, const atune_config **out)
{
    const kernel *k;
    const shape *s;
    size_vars q;
    const char *why;
    entry *e;
    int exact;

    if (!p)
        return ATUNE_EINVAL;
    if (out)
        *out = NULL;
    if (!kernel_name || !size || !out)
        return fail(p, ATUNE_EINVAL, "lookup with a NULL argument");
    if (p->status != ATUNE_OK)
        return fail(p, ATUNE_EINVAL, "lookup on a profile that did not open");
    if ((why = parse_size(size, 1, &q)) != NULL)
        return fail(p, ATUNE_EINVAL, "bad size '%s': %s", size, why);
    k = find_kernel(p, kernel_name);
    if (!k)
        return fail(p, ATUNE_ENOTFOUND, "%s: no entry for kernel '%s'", p->path,
                    kernel_name);
    if ((s = find_shape(p, k, &q)) == NULL)
        return fail(
            p, ATUNE_ENOTFOUND,
            "%s: kernel '%s' has no tuned size with the variables of '%s'",
            p->path, kernel_name, size);
    e = nearest(p, s, &q, &exact);
    if (exact) {
        *out = &e->exact;
    } else {
        for (int i = 0; i < q.n; i++)
            e->wanted[i] = q.v[i].val;
        *out = &e->nearest;
    }
    return ok(p);
}

int atune_profile_count(const atune_profile *p)
{
    return p && p->status == ATUNE_OK ? p->nentries : 0;
}

const atune_config *atune_profile_entry(const atune_profile *p, int i)
{
    if (i < 0 || i >= atune_profile_count(p))
        return NULL;
    return &p->entries[i].exact;
}

/* ---- configurations ----------------------------------------------------- */

int atune_config_count(const atune_config *c)
{
    return c ? c->e->nparams : 0;
}

const char *atune_config_name(const atune_config *c, int i)
{
    return c && i >= 0 && i < c->e->nparams ? c->e->pname[i] : NULL;
}

int64_t atune_config_value(const atune_config *c, int i)
{
    return c && i >= 0 && i < c->e->nparams ? c->e->pval[i] : 0;
}

int64_t atune_config_get(const atune_config *c, const char *param, int64_t dflt)
{
    if (!c || !param)
        return dflt;
    for (int i = 0; i < c->e->nparams; i++)
        if (strcmp(c->e->pname[i], param) == 0)
            return c->e->pval[i];
    return dflt;
}

const char *atune_config_kernel(const atune_config *c)
{
    return c ? c->e->kernel : empty;
}

const char *atune_config_size(const atune_config *c)
{
    return c ? c->e->size : empty;
}

atune_size_match atune_config_size_match(const atune_config *c)
{
    return c ? c->match : ATUNE_SIZE_EXACT;
}

int64_t atune_config_time_ns(const atune_config *c)
{
    return c ? c->e->time_ns : 0;
}

int64_t atune_config_default_time_ns(const atune_config *c)
{
    return c ? c->e->default_time_ns : 0;
}

const char *atune_config_template_hash(const atune_config *c)
{
    return c ? c->e->hash : empty;
}

const char *atune_config_meta(const atune_config *c, const char *key)
{
    const atune__ini_entry *e;

    char pkey[ATUNE__INI_MAX_NAME + 8];

    if (!c || !key)
        return NULL;
    e = atune__ini_get(c->e->sec, key);
    /* A parameter with lower-case letters is stored as param.NAME. */
    if (!e && strlen(key) <= ATUNE__INI_MAX_NAME) {
        snprintf(pkey, sizeof(pkey), "param.%s", key);
        e = atune__ini_get(c->e->sec, pkey);
    }
    return e ? e->value : NULL;
}

/* The size a nearest match was asked for, variables in the tuned size's
 * order: "n=1000000". */
static void format_wanted(const entry *e, char *buf, size_t len)
{
    size_t n = 0;

    buf[0] = '\0';
    for (int pos = 0; pos < e->vars.n; pos++) {
        for (int i = 0; i < e->vars.n && n < len; i++) {
            const size_var *v = &e->vars.v[i];
            if (v->pos != pos)
                continue;
            n += (size_t)snprintf(buf + n, len - n, "%s%.*s=%lld",
                                  pos ? "," : "", (int)v->len, v->name,
                                  (long long)e->wanted[i]);
        }
    }
}

static const char *device_note(const atune_profile *p, char *buf, size_t len)
{
    switch (p->match) {
    case ATUNE_DEVICE_EXACT:
        return " (same GPU model)";
    case ATUNE_DEVICE_NAME:
        snprintf(buf, len,
                 " (same GPU model, tuned with %d SMs, this one has %d)",
                 p->dev.sm_count, p->wanted.sm_count);
        return buf;
    case ATUNE_DEVICE_CC:
        snprintf(buf, len, " (same compute capability as '%s')",
                 p->wanted.name);
        return buf;
    case ATUNE_DEVICE_FILE:
        break;
    }
    return "";
}

int atune_config_describe(const atune_profile *p, const atune_config *c,
                          char *buf, size_t len)
{
    char wanted[256], note[400];
    const entry *e;
    int exact;

    if (!buf || len == 0)
        return ATUNE_EINVAL;
    buf[0] = '\0';
    if (!p || !c)
        return ATUNE_EINVAL;
    e = c->e;
    exact = c->match == ATUNE_SIZE_EXACT;
    if (exact)
        snprintf(wanted, sizeof(wanted), "%s", e->size);
    else
        format_wanted(e, wanted, sizeof(wanted));
    snprintf(buf, len, "%s %s: using tuned size %s (%s) from profile '%s'%s",
             e->kernel, wanted, e->size, exact ? "exact" : "nearest",
             p->dev.name, device_note(p, note, sizeof(note)));
    return ATUNE_OK;
}
