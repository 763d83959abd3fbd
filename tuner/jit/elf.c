/* elf.c -- see elf.h. The data is a compiler's output or comes from the
 * module cache, which checksums it; the checks still hold for anything. */
#include "jit/elf.h"

#include <stdint.h>
#include <string.h>

/* Whether [off, off + size) lies inside [0, len), without overflow. */
static int inside(uint64_t off, uint64_t size, size_t len)
{
    return off <= len && size <= len - off;
}

int atune__elf_open(atune__elf *e, const char *data, size_t len)
{
    memset(e, 0, sizeof(*e));
    if (!data || len < sizeof(e->eh))
        return -1;
    memcpy(&e->eh, data, sizeof(e->eh));
    e->data = data;
    e->len = len;
    if (memcmp(e->eh.e_ident, ELFMAG, SELFMAG) != 0 ||
        e->eh.e_ident[EI_CLASS] != ELFCLASS64 ||
        e->eh.e_shentsize != sizeof(Elf64_Shdr) ||
        !inside(e->eh.e_shoff, (uint64_t)e->eh.e_shnum * sizeof(Elf64_Shdr),
                len) ||
        e->eh.e_shstrndx >= e->eh.e_shnum)
        return -1;
    return atune__elf_section(e, e->eh.e_shstrndx, &e->names);
}

int atune__elf_section(const atune__elf *e, int i, Elf64_Shdr *sh)
{
    if (i < 0 || i >= e->eh.e_shnum)
        return -1;
    memcpy(sh, e->data + e->eh.e_shoff + (size_t)i * sizeof(*sh), sizeof(*sh));
    return sh->sh_type != SHT_NOBITS && inside(sh->sh_offset, sh->sh_size, e->len)
               ? 0
               : -1;
}

const char *atune__elf_string(const atune__elf *e, const Elf64_Shdr *strtab,
                              size_t off)
{
    const char *s;

    if (off >= strtab->sh_size)
        return NULL;
    s = e->data + strtab->sh_offset + off;
    return memchr(s, '\0', strtab->sh_size - off) ? s : NULL;
}

const char *atune__elf_section_name(const atune__elf *e, const Elf64_Shdr *sh)
{
    return atune__elf_string(e, &e->names, sh->sh_name);
}

/* Symbol table i and its string table into sym and str: 0 when both
 * are readable. */
static int symtab(const atune__elf *e, int i, Elf64_Shdr *sym, Elf64_Shdr *str)
{
    return atune__elf_section(e, i, sym) || sym->sh_type != SHT_SYMTAB ||
                   sym->sh_link >= e->eh.e_shnum ||
                   atune__elf_section(e, (int)sym->sh_link, str)
               ? -1
               : 0;
}

int atune__elf_symbols(const atune__elf *e, int type,
                       int (*fn)(const char *name, uint64_t size, void *arg),
                       void *arg)
{
    for (int i = 0; i < e->eh.e_shnum; i++) {
        Elf64_Shdr sh, str;

        if (symtab(e, i, &sh, &str))
            continue;
        for (uint64_t k = 0; k + sizeof(Elf64_Sym) <= sh.sh_size;
             k += sizeof(Elf64_Sym)) {
            Elf64_Sym sy;
            const char *name;
            int rc;

            memcpy(&sy, e->data + sh.sh_offset + k, sizeof(sy));
            if (ELF64_ST_TYPE(sy.st_info) != type ||
                !(name = atune__elf_string(e, &str, sy.st_name)))
                continue;
            if ((rc = fn(name, sy.st_size, arg)) != 0)
                return rc;
        }
    }
    return 0;
}

int atune__elf_has_symbols(const atune__elf *e)
{
    for (int i = 0; i < e->eh.e_shnum; i++) {
        Elf64_Shdr sh, str;
        if (!symtab(e, i, &sh, &str))
            return 1;
    }
    return 0;
}
