/* datafile.c -- input data from a file ("fill = file(PATH)"): raw
 * little-endian elements or a NumPy .npy array, checked against the
 * buffer's type and element count before anything reaches the device.
 * The file is untrusted input: every header field is checked. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "template/space.h"

#define NPY_HEADER_MAX 65536

static int bad(const atune__manifest *m, const atune__arg *a, atune__err *err,
               const char *why)
{
    return atune__fail(err, ATUNE__EDATA, "%s:%d: buffer '%s': file '%s': %s",
                       m->ini_path, a->line, a->name, a->fill.path, why);
}

/* The .npy descr of each type, in atune__type order. */
/* bf16 has no NumPy type: raw files only. */
static const char *const npy_descr[] = {"|i1", "<i4", "<u4", "<i8", "<u8",
                                        "<f4", "<f8", "<f2", NULL};

/* The value of key in a .npy header dict ({'descr': '<f4', ...}): the text
 * after "'key':" up to the next top-level ',' or '}'. */
static int dict_value(const char *h, const char *key, char *out, size_t len)
{
    char pat[32];
    const char *v, *e;
    int depth = 0;

    snprintf(pat, sizeof(pat), "'%s':", key);
    if (!(v = strstr(h, pat)))
        return -1;
    for (v += strlen(pat); *v == ' '; v++)
        continue;
    for (e = v; *e; e++) {
        if (*e == '(')
            depth++;
        else if (*e == ')')
            depth--;
        else if ((*e == ',' || *e == '}') && depth == 0)
            break;
    }
    while (e > v && e[-1] == ' ')
        e--;
    if ((size_t)(e - v) >= len)
        return -1;
    memcpy(out, v, (size_t)(e - v));
    out[e - v] = '\0';
    return 0;
}

/* Checks a .npy header at the start of f: the element type, C order, and
 * count elements in all; *offset is where the data starts. */
static int npy_header(const atune__manifest *m, const atune__arg *a,
                      FILE *f, size_t count, long *offset, atune__err *err)
{
    unsigned char pre[12];
    char *h, descr[16], order[16], shape[256], want[24];
    size_t hlen, pre_len;
    uint64_t n = 1;
    int rc = 0;

    if (fread(pre, 1, 10, f) != 10 || memcmp(pre, "\x93NUMPY", 6) != 0)
        return bad(m, a, err, "not a .npy file (no \\x93NUMPY magic)");
    if (pre[6] == 1) {
        hlen = pre[8] | (size_t)pre[9] << 8;
        pre_len = 10;
    } else if (pre[6] == 2 || pre[6] == 3) {
        if (fread(pre + 10, 1, 2, f) != 2)
            return bad(m, a, err, "truncated .npy header");
        hlen = pre[8] | (size_t)pre[9] << 8 | (size_t)pre[10] << 16 |
               (size_t)pre[11] << 24;
        pre_len = 12;
    } else {
        return bad(m, a, err, "unknown .npy format version");
    }
    if (hlen == 0 || hlen > NPY_HEADER_MAX)
        return bad(m, a, err, ".npy header length out of range");
    if (!(h = malloc(hlen + 1)))
        return atune__fail(err, ATUNE__EOSERR, "out of memory");
    if (fread(h, 1, hlen, f) != hlen) {
        free(h);
        return bad(m, a, err, "truncated .npy header");
    }
    h[hlen] = '\0';
    if (strlen(h) != hlen || dict_value(h, "descr", descr, sizeof(descr)) ||
        dict_value(h, "fortran_order", order, sizeof(order)) ||
        dict_value(h, "shape", shape, sizeof(shape)))
        rc = bad(m, a, err, ".npy header has no descr, fortran_order or shape");
    if (!rc && !npy_descr[a->type])
        rc = bad(m, a, err, "bf16 has no NumPy type: give a raw file");
    snprintf(want, sizeof(want), "'%s'",
             npy_descr[a->type] ? npy_descr[a->type] : "");
    if (!rc && strcmp(descr, want) != 0) {
        char why[96];
        snprintf(why, sizeof(why), "element type %s, the buffer is %s (%s)",
                 descr, atune__type_name(a->type), want);
        rc = bad(m, a, err, why);
    }
    if (!rc && strcmp(order, "False") != 0 && strchr(shape, ',') &&
        strcmp(shape + strcspn(shape, ",") + 1, ")") != 0)
        rc = bad(m, a, err, "Fortran-ordered arrays are not supported");
    if (!rc) {
        const char *s = shape;
        if (*s++ != '(')
            rc = bad(m, a, err, "bad .npy shape");
        while (!rc && *s && *s != ')') {
            char *end;
            unsigned long long d;
            errno = 0;
            d = strtoull(s, &end, 10);
            if (end == s || errno || (d && n > UINT64_MAX / d)) {
                rc = bad(m, a, err, "bad .npy shape");
                break;
            }
            n *= d;
            for (s = end; *s == ',' || *s == ' '; s++)
                continue;
        }
    }
    free(h);
    if (!rc && n != count) {
        char why[96];
        snprintf(why, sizeof(why), "%llu elements, the buffer has %zu",
                 (unsigned long long)n, count);
        rc = bad(m, a, err, why);
    }
    *offset = (long)(pre_len + hlen);
    return rc;
}

/* path relative to the manifest's directory (the working directory for
 * the embedded set, which has none). */
static char *data_path(const atune__manifest *m, const char *path)
{
    size_t dl = m->dir && path[0] != '/' ? strlen(m->dir) : 0;
    size_t pl = strlen(path);
    char *out = malloc(dl + 1 + pl + 1);

    if (!out)
        return NULL;
    if (dl) {
        memcpy(out, m->dir, dl);
        out[dl] = '/';
        memcpy(out + dl + 1, path, pl + 1);
    } else {
        memcpy(out, path, pl + 1);
    }
    return out;
}

int atune__data_load(const atune__manifest *m, const atune__arg *a,
                     size_t count, void **data, atune__err *err)
{
    size_t bytes = count * atune__type_size(a->type);
    size_t plen = strlen(a->fill.path);
    char *path = data_path(m, a->fill.path);
    struct stat st;
    long offset = 0;
    FILE *f;
    int rc = 0;

    if (data)
        *data = NULL;
    if (!path)
        return atune__fail(err, ATUNE__EOSERR, "out of memory");
    f = fopen(path, "rb");
    free(path);
    if (!f || fstat(fileno(f), &st) != 0 || !S_ISREG(st.st_mode)) {
        if (f)
            fclose(f);
        return bad(m, a, err, "cannot be read as a regular file");
    }
    if (plen > 4 && strcmp(a->fill.path + plen - 4, ".npy") == 0)
        rc = npy_header(m, a, f, count, &offset, err);
    if (!rc && (uint64_t)st.st_size != (uint64_t)offset + bytes) {
        char why[128];
        snprintf(why, sizeof(why),
                 "%lld bytes of data, the buffer needs %zu (%zu %s)",
                 (long long)st.st_size - offset, bytes, count,
                 atune__type_name(a->type));
        rc = bad(m, a, err, why);
    }
    if (!rc && data) {
        *data = malloc(bytes ? bytes : 1);
        if (!*data)
            rc = atune__fail(err, ATUNE__EOSERR, "out of memory");
        else if (fseek(f, offset, SEEK_SET) != 0 ||
                 fread(*data, 1, bytes, f) != bytes)
            rc = bad(m, a, err, "read failed");
        if (rc) {
            free(*data);
            *data = NULL;
        }
    }
    fclose(f);
    return rc;
}
