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

#include <stdint.h>
#include <string.h>

#include "jit/elf.h"

enum { EIFMT_NVAL = 1, EIFMT_BVAL = 2, EIFMT_HVAL = 3, EIFMT_SVAL = 4 };
enum { EIATTR_KPARAM_INFO = 0x17, EIATTR_CBANK_PARAM_SIZE = 0x19,
       KPARAM_LEN = 12 };

/* Whether name is ".nv.info." followed by sym. */
static int info_of(const char *name, const char *sym)
{
    static const char prefix[] = ".nv.info.";
    size_t plen = sizeof(prefix) - 1;

    return name && strncmp(name, prefix, plen) == 0 && strcmp(name + plen, sym) == 0;
}

int atune__cubin_params(const char *data, size_t len, const char *sym,
                        unsigned *sizes, int max)
{
    atune__elf e;

    if (atune__elf_open(&e, data, len))
        return -1;
    for (int i = 0; i < e.eh.e_shnum; i++) {
        Elf64_Shdr sh;
        const unsigned char *p, *end;
        int n = 0, total = -1;

        if (atune__elf_section(&e, i, &sh) ||
            !info_of(atune__elf_section_name(&e, &sh), sym))
            continue;
        p = (const unsigned char *)data + sh.sh_offset;
        end = p + sh.sh_size;
        while (end - p >= 4) {
            unsigned fmt = p[0], attr = p[1];
            size_t vlen = (size_t)p[2] | (size_t)p[3] << 8;
            if (fmt != EIFMT_SVAL) { /* the value is in the record */
                if (fmt == EIFMT_HVAL && attr == EIATTR_CBANK_PARAM_SIZE)
                    total = (int)vlen;
                p += 4;
                continue;
            }
            if ((size_t)(end - p) - 4 < vlen)
                return -1;
            if (attr == EIATTR_KPARAM_INFO && vlen == KPARAM_LEN) {
                const unsigned char *v = p + 4;
                int ord = v[4] | v[5] << 8;
                uint32_t flags = (uint32_t)v[8] | (uint32_t)v[9] << 8 |
                                 (uint32_t)v[10] << 16 | (uint32_t)v[11] << 24;
                for (int k = n; k < ord && k < max; k++)
                    sizes[k] = 0; /* an ordinal not seen (yet) */
                if (ord < max)
                    sizes[ord] = flags >> 18;
                n = ord + 1 > n ? ord + 1 : n;
            }
            p += 4 + vlen;
        }
        /* No parameter records: none, if the parameter space is empty. */
        return n > 0 ? n : total == 0 ? 0 : -1;
    }
    return -1;
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
