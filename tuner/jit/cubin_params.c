/* cubin_params.c -- see cubin_params.h. A CUBIN is an ELF file; for each
 * kernel K a section ".nv.info.K" holds attribute records (format byte,
 * attribute byte, then a 2-byte value or a 2-byte length and that many
 * bytes). EIATTR_KPARAM_INFO (0x17) describes one parameter: a 4-byte
 * index, the 2-byte ordinal, the 2-byte offset in the parameter space,
 * and 4 bytes of flags whose bits 18-31 are its size in bytes (read from
 * nvcc 13.0's and NVRTC's CUBINs for sm_75 to sm_120; the driver itself
 * copies that many bytes from each kernelParams pointer at a launch). The
 * data comes from the module cache, which checksums it, or a compiler;
 * every offset is still checked against its length. */
#include "jit/cubin_params.h"

#include <limits.h>
#include <stdint.h>
#include <string.h>

#include "jit/elf.h"
#include "template/space.h"

enum { EIFMT_NVAL = 1, EIFMT_BVAL = 2, EIFMT_HVAL = 3, EIFMT_SVAL = 4 };
enum { EIATTR_MAX_THREADS = 0x05, EIATTR_KPARAM_INFO = 0x17,
       EIATTR_CBANK_PARAM_SIZE = 0x19, KPARAM_LEN = 12, MAXNTID_LEN = 12 };

/* Whether name is ".nv.info." followed by sym. */
static int info_of(const char *name, const char *sym)
{
    static const char prefix[] = ".nv.info.";
    size_t plen = sizeof(prefix) - 1;

    return name && strncmp(name, prefix, plen) == 0 && strcmp(name + plen, sym) == 0;
}

/* One attribute record: its format, attribute, and value (v[0..vlen) for
 * EIFMT_SVAL; vlen itself, the 2-byte value, for the others). */
typedef int (*record_fn)(unsigned fmt, unsigned attr, const unsigned char *v,
                         size_t vlen, void *arg);

/* Calls fn for each record of kernel sym's ".nv.info.sym" section in
 * data[0..len), stopping at fn's first non-zero value, which it returns.
 * 0 when every record was passed; -1 when the CUBIN has no such section
 * or a record runs past its section's end. */
static int info_records(const char *data, size_t len, const char *sym,
                        record_fn fn, void *arg)
{
    atune__elf e;

    if (atune__elf_open(&e, data, len))
        return -1;
    for (int i = 0; i < e.eh.e_shnum; i++) {
        Elf64_Shdr sh;
        const unsigned char *p, *end;

        if (atune__elf_section(&e, i, &sh) ||
            !info_of(atune__elf_section_name(&e, &sh), sym))
            continue;
        p = (const unsigned char *)data + sh.sh_offset;
        end = p + sh.sh_size;
        while (end - p >= 4) {
            unsigned fmt = p[0], attr = p[1];
            size_t vlen = (size_t)p[2] | (size_t)p[3] << 8;
            int rc;
            if (fmt != EIFMT_SVAL) { /* the value is in the record */
                if ((rc = fn(fmt, attr, NULL, vlen, arg)) != 0)
                    return rc;
                p += 4;
                continue;
            }
            if ((size_t)(end - p) - 4 < vlen)
                return -1;
            if ((rc = fn(fmt, attr, p + 4, vlen, arg)) != 0)
                return rc;
            p += 4 + vlen;
        }
        return 0;
    }
    return -1;
}

/* The 4-byte little-endian value at p. */
static uint32_t le32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
           (uint32_t)p[3] << 24;
}

/* atune__cubin_params' reading of the records. */
typedef struct param_sizes {
    unsigned *sizes;
    int max, n, total; /* total: the parameter space's bytes, -1 unknown */
} param_sizes;

static int param_record(unsigned fmt, unsigned attr, const unsigned char *v,
                        size_t vlen, void *arg)
{
    param_sizes *ps = arg;

    if (fmt == EIFMT_HVAL && attr == EIATTR_CBANK_PARAM_SIZE)
        ps->total = (int)vlen;
    if (fmt == EIFMT_SVAL && attr == EIATTR_KPARAM_INFO && vlen == KPARAM_LEN) {
        int ord = v[4] | v[5] << 8;
        for (int k = ps->n; k < ord && k < ps->max; k++)
            ps->sizes[k] = 0; /* an ordinal not seen (yet) */
        if (ord < ps->max)
            ps->sizes[ord] = le32(v + 8) >> 18;
        ps->n = ord + 1 > ps->n ? ord + 1 : ps->n;
    }
    return 0;
}

int atune__cubin_params(const char *data, size_t len, const char *sym,
                        unsigned *sizes, int max)
{
    param_sizes ps = {sizes, max, 0, -1};

    if (!data || info_records(data, len, sym, param_record, &ps) != 0)
        return -1;
    /* No parameter records: none, if the parameter space is empty. */
    return ps.n > 0 ? ps.n : ps.total == 0 ? 0 : -1;
}

/* More parameters than a kernel can take in any sensible file: those past
 * it are not listed (the count still differs from [args]'). */
#define MAX_LISTED 256

int atune__cubin_abi_check(const atune__manifest *m, const atune__cubin *cb,
                           int ref, int n, atune__err *err)
{
    for (int k = 0; k < n && k < cb->nsyms; k++) {
        unsigned sizes[MAX_LISTED];
        int np = atune__cubin_params(cb->data, cb->len, cb->sym[k], sizes,
                                     MAX_LISTED);
        int rc = np < 0 ? 0
                        : atune__entry_abi_check(
                              m, ref ? atune__ref_entry(m, k) : k, sizes,
                              np < MAX_LISTED ? np : MAX_LISTED, err);
        if (rc)
            return rc;
    }
    return 0;
}

/* find_object's search for one name. */
typedef struct object_find {
    const char *name;
    uint64_t size;
} object_find;

static int object_named(const char *name, uint64_t size, void *arg)
{
    object_find *f = arg;

    if (strcmp(name, f->name) != 0)
        return 0;
    f->size = size;
    return 1;
}

/* The bytes of the data object called name in the CUBIN's symbol table:
 * -1 without a symbol table, -2 with one that has no such object. */
static long long object_size(const char *data, size_t len, const char *name)
{
    atune__elf e;
    object_find f = {name, 0};

    if (atune__elf_open(&e, data, len) || !atune__elf_has_symbols(&e))
        return -1;
    if (atune__elf_symbols(&e, STT_OBJECT, object_named, &f))
        return f.size > (uint64_t)LLONG_MAX ? -2 : (long long)f.size;
    return -2;
}

int atune__cubin_constants_check(const atune__manifest *m,
                                 const atune__cubin *cb, const char *file,
                                 const char *arch, atune__err *err)
{
    atune__devattr dev;

    atune__devattr_default(&dev);
    dev.cc = atune__arch_cc(arch);
    for (int c = 0; c < m->nconstants; c++) {
        const atune__arg *a = &m->constants[c];
        long long got = object_size(cb->data, cb->len, a->name);
        if (got == -1)
            continue;
        if (got == -2)
            return atune__fail(err, ATUNE__EDATA,
                               "%s:%d: [constants] '%s': %s has no "
                               "__constant__ variable of that name (or it "
                               "is unused and the compiler dropped it)",
                               m->ini_path, a->line, a->name, file);
        for (int s = 0; s < m->nsizes; s++) {
            atune__vars vs = {0};
            int64_t n;
            int rc = atune__size_vars(&m->sizes[s], &vs) ||
                             atune__devattr_vars(&dev, &vs)
                         ? atune__fail(err, ATUNE__ESOFTWARE,
                                       "%s: too many variables", m->ini_path)
                         : atune__manifest_eval(m, a->count, a->line, &vs,
                                                &n, err);
            if (rc)
                return rc;
            if (n < 1 || (unsigned long long)n * atune__arg_elem_size(a) !=
                             (unsigned long long)got)
                return atune__fail(
                    err, ATUNE__EDATA,
                    "%s:%d: __constant__ '%s' has %lld bytes in %s, but "
                    "[constants] makes it %lld %s elements (%lld bytes) at "
                    "size '%s': give it the variable's length",
                    m->ini_path, a->line, a->name, got, file, (long long)n,
                    atune__type_name(a->type),
                    (long long)n * (long long)atune__arg_elem_size(a),
                    m->sizes[s].name);
        }
    }
    return 0;
}

/* maxntid x, y, z: the bound is on their product. */
static int max_threads_record(unsigned fmt, unsigned attr,
                              const unsigned char *v, size_t vlen, void *arg)
{
    if (fmt != EIFMT_SVAL || attr != EIATTR_MAX_THREADS || vlen != MAXNTID_LEN)
        return 0;
    *(long long *)arg = (long long)le32(v) * le32(v + 4) * le32(v + 8);
    return 1;
}

long long atune__cubin_max_threads(const char *data, size_t len,
                                   const char *sym)
{
    long long bound = 0;
    int rc = data ? info_records(data, len, sym, max_threads_record, &bound)
                  : -1;

    return rc < 0 ? -1 : bound;
}

int atune__cubin_bounds_check(const atune__manifest *m,
                              const atune__cubin *cb,
                              const atune__config *c,
                              const atune__size *size_only, const char *arch,
                              int n, atune__err *err)
{
    long long bound[ATUNE__MAX_STEPS];
    atune__devattr dev;
    int any = 0;

    for (int k = 0; k < n && k < cb->nsyms && k < ATUNE__MAX_STEPS; k++)
        any |= (bound[k] = atune__cubin_max_threads(cb->data, cb->len,
                                                    cb->sym[k])) > 0;
    if (!any)
        return 0;
    atune__devattr_default(&dev);
    dev.cc = atune__arch_cc(arch);
    for (int s = 0; s < m->nsizes; s++) {
        const atune__size *sz = size_only ? size_only : &m->sizes[s];
        atune__launch all[ATUNE__MAX_STEPS];
        atune__vars vs = {0};
        char reason[256];
        int rc;

        if (atune__size_vars(sz, &vs) || atune__devattr_vars(&dev, &vs))
            return atune__fail(err, ATUNE__ESOFTWARE, "%s: too many variables",
                               m->ini_path);
        rc = atune__space_launches(m, c, &vs, &dev, all, reason,
                                   sizeof(reason), err);
        if (rc != 0 && rc != 1)
            return rc;
        for (int k = 0; rc == 1 && k < n && k < cb->nsyms &&
                        k < ATUNE__MAX_STEPS; k++) {
            long long threads =
                (long long)(all[k].block[0] * all[k].block[1] * all[k].block[2]);
            if (bound[k] > 0 && threads > bound[k])
                return atune__fail(
                    err, ATUNE__EDATA,
                    "%s:%d: kernel '%s' is compiled with "
                    "__launch_bounds__ of %lld threads, but [launch%s%s] "
                    "gives it blocks of %lld threads at size '%s': no such "
                    "launch can run (CUDA_ERROR_INVALID_VALUE). Fix: make "
                    "the block at most the bound (a constraint, or the "
                    "block expression that the bound's parameter gives)",
                    m->ini_path, m->steps[k].block.line, m->steps[k].kernel,
                    bound[k], m->sequence ? "." : "", m->steps[k].name,
                    threads, sz->name);
        }
        if (size_only)
            break;
    }
    return 0;
}
