/* test_elf.c -- the CUBIN reader (jit/elf.h) and what reads a kernel's
 * parameters through it (jit/cubin_params.h), on a small ELF file built
 * here: its symbols and sections are found at any alignment of
 * the buffer, and a file cut short or pointing outside itself is refused
 * or its broken part skipped, never read past (ASan checks that in CI). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "jit/cubin_params.h"
#include "jit/elf.h"

enum { S_NULL, S_SHSTR, S_STR, S_SYM, S_INFO, NSEC };

/* Section names, symbol names, the symbols, one .nv.info record list. */
static const char shstr[] = "\0.shstrtab\0.strtab\0.symtab\0.nv.info.k1";
static const char str[] = "\0k1\0obj\0k2";
enum { NM_SHSTR = 1, NM_STR = 11, NM_SYM = 19, NM_INFO = 27 };
enum { NM_K1 = 1, NM_OBJ = 4, NM_K2 = 8 };

typedef struct image {
    char *data;
    size_t len;
    Elf64_Ehdr *eh;
    Elf64_Shdr *sh;
    Elf64_Sym *sym;
} image;

/* KPARAM_INFO records: parameter ordinal and size (bits 18-31 of flags). */
static size_t kparam(unsigned char *p, int ord, unsigned size)
{
    uint32_t flags = (uint32_t)size << 18;

    p[0] = 4; /* EIFMT_SVAL */
    p[1] = 0x17; /* EIATTR_KPARAM_INFO */
    p[2] = 12;
    p[3] = 0;
    memset(p + 4, 0, 12);
    p[8] = (unsigned char)ord;
    for (int b = 0; b < 4; b++)
        p[12 + b] = (unsigned char)(flags >> (8 * b));
    return 16;
}

/* The file at data + shift (shift bytes of padding first): sections'
 * contents, then the section headers. */
static image build(size_t shift)
{
    unsigned char info[64];
    size_t ninfo = 0, off;
    Elf64_Sym syms[4];
    image im;

    ninfo += kparam(info + ninfo, 0, 8); /* a pointer */
    ninfo += kparam(info + ninfo, 1, 4); /* an int */
    memset(syms, 0, sizeof(syms));
    syms[1].st_name = NM_K1;
    syms[1].st_info = ELF64_ST_INFO(STB_GLOBAL, STT_FUNC);
    syms[2].st_name = NM_OBJ;
    syms[2].st_info = ELF64_ST_INFO(STB_GLOBAL, STT_OBJECT);
    syms[2].st_size = 68; /* a __constant__ float[17] */
    syms[3].st_name = NM_K2;
    syms[3].st_info = ELF64_ST_INFO(STB_GLOBAL, STT_FUNC);

    /* + 16: the symbols and the section headers start 8-aligned, so that
     * the aliases below may patch them in place (ELF does not require
     * it: the reader copies every header out) */
    im.len = sizeof(Elf64_Ehdr) + sizeof(shstr) + sizeof(str) + sizeof(syms) +
             ninfo + NSEC * sizeof(Elf64_Shdr) + 16;
    char *buf = calloc(1, im.len + shift);
    assert_non_null(buf);
    im.data = buf + shift;
    Elf64_Ehdr eh;
    memset(&eh, 0, sizeof(eh));
    memcpy(eh.e_ident, ELFMAG, SELFMAG);
    eh.e_ident[EI_CLASS] = ELFCLASS64;
    eh.e_shentsize = sizeof(Elf64_Shdr);
    eh.e_shnum = NSEC;
    eh.e_shstrndx = S_SHSTR;

    Elf64_Shdr sh[NSEC];
    memset(sh, 0, sizeof(sh));
    off = sizeof(Elf64_Ehdr);
    sh[S_SHSTR] = (Elf64_Shdr){.sh_name = NM_SHSTR, .sh_type = SHT_STRTAB,
                               .sh_offset = off, .sh_size = sizeof(shstr)};
    memcpy(im.data + off, shstr, sizeof(shstr));
    off += sizeof(shstr);
    sh[S_STR] = (Elf64_Shdr){.sh_name = NM_STR, .sh_type = SHT_STRTAB,
                             .sh_offset = off, .sh_size = sizeof(str)};
    memcpy(im.data + off, str, sizeof(str));
    off += sizeof(str);
    off = (off + 7) & ~(size_t)7;
    sh[S_SYM] = (Elf64_Shdr){.sh_name = NM_SYM, .sh_type = SHT_SYMTAB,
                             .sh_offset = off, .sh_size = sizeof(syms),
                             .sh_link = S_STR};
    memcpy(im.data + off, syms, sizeof(syms));
    off += sizeof(syms);
    sh[S_INFO] = (Elf64_Shdr){.sh_name = NM_INFO, .sh_type = SHT_LOPROC,
                              .sh_offset = off, .sh_size = ninfo};
    memcpy(im.data + off, info, ninfo);
    off += ninfo;
    off = (off + 7) & ~(size_t)7;
    eh.e_shoff = off;
    memcpy(im.data + off, sh, sizeof(sh));
    im.len = off + sizeof(sh); /* the file ends with its section headers */
    memcpy(im.data, &eh, sizeof(eh));
    /* Aliases to patch before a test reads the file (shift 0 only:
     * aligned). */
    im.eh = (Elf64_Ehdr *)(void *)im.data;
    im.sh = (Elf64_Shdr *)(void *)(im.data + off);
    im.sym = (Elf64_Sym *)(void *)(im.data + sh[S_SYM].sh_offset);
    return im;
}

static void release(image *im, size_t shift)
{
    free(im->data - shift);
}

typedef struct names {
    int n;
    char list[8][16];
} names;

static int collect(const char *name, uint64_t size, void *arg)
{
    names *ns = arg;

    (void)size;
    if (ns->n < 8)
        snprintf(ns->list[ns->n], sizeof(ns->list[0]), "%s", name);
    ns->n++;
    return 0;
}

static names functions(const image *im)
{
    atune__elf e;
    names ns = {0};

    if (atune__elf_open(&e, im->data, im->len) == 0)
        assert_int_equal(atune__elf_symbols(&e, STT_FUNC, collect, &ns), 0);
    else
        ns.n = -1;
    return ns;
}

static void test_reads_functions_and_params(void **state)
{
    (void)state;
    for (size_t shift = 0; shift < 8; shift++) { /* any alignment */
        image im = build(shift);
        names ns = functions(&im);
        unsigned sizes[4] = {0};

        assert_int_equal(ns.n, 2); /* the object is not a function */
        assert_string_equal(ns.list[0], "k1");
        assert_string_equal(ns.list[1], "k2");
        assert_int_equal(atune__cubin_params(im.data, im.len, "k1", sizes, 4), 2);
        assert_int_equal(sizes[0], 8);
        assert_int_equal(sizes[1], 4);
        /* k2 has no .nv.info section: the CUBIN does not say */
        assert_int_equal(atune__cubin_params(im.data, im.len, "k2", sizes, 4), -1);
        /* a prefix of a name is another name */
        assert_int_equal(atune__cubin_params(im.data, im.len, "k", sizes, 4), -1);
        release(&im, shift);
    }
}

static void test_refuses_a_file_cut_short(void **state)
{
    (void)state;
    image im = build(0);
    atune__elf e;
    unsigned sizes[4];

    /* every length short of the section headers' end is refused */
    for (size_t len = 0; len < im.len; len++) {
        assert_int_equal(atune__elf_open(&e, im.data, len), -1);
        assert_int_equal(atune__cubin_params(im.data, len, "k1", sizes, 4), -1);
    }
    assert_int_equal(atune__elf_open(&e, NULL, im.len), -1);
    memcpy(im.data, "\177ELG", 4);
    assert_int_equal(atune__elf_open(&e, im.data, im.len), -1);
    release(&im, 0);
}

static void test_refuses_offsets_outside(void **state)
{
    (void)state;
    atune__elf e;
    Elf64_Shdr sh;
    unsigned sizes[4];

    /* section headers that would wrap around past the end */
    image im = build(0);
    im.eh->e_shoff = UINT64_MAX - 8;
    assert_int_equal(atune__elf_open(&e, im.data, im.len), -1);
    release(&im, 0);

    /* a section-name table outside the file: the file is refused */
    im = build(0);
    im.sh[S_SHSTR].sh_offset = im.len;
    assert_int_equal(atune__elf_open(&e, im.data, im.len), -1);
    release(&im, 0);

    /* the parameter records' section running past the end */
    im = build(0);
    im.sh[S_INFO].sh_size = UINT64_MAX;
    assert_int_equal(atune__elf_open(&e, im.data, im.len), 0);
    assert_int_equal(atune__elf_section(&e, S_INFO, &sh), -1);
    assert_int_equal(atune__elf_section(&e, NSEC, &sh), -1);
    assert_int_equal(atune__elf_section(&e, -1, &sh), -1);
    assert_int_equal(atune__cubin_params(im.data, im.len, "k1", sizes, 4), -1);
    release(&im, 0);

    /* a record longer than its section */
    im = build(0);
    im.sh[S_INFO].sh_size -= 1;
    assert_int_equal(atune__cubin_params(im.data, im.len, "k1", sizes, 4), -1);
    release(&im, 0);
}

static void test_skips_broken_symbols(void **state)
{
    (void)state;
    names ns;

    /* a name past the string table, and one whose table has no NUL
     * after it: skipped, the other function still found */
    image im = build(0);
    im.sym[1].st_name = 1000;
    ns = functions(&im);
    assert_int_equal(ns.n, 1);
    assert_string_equal(ns.list[0], "k2");
    release(&im, 0);

    im = build(0);
    im.sh[S_STR].sh_size -= 1; /* "k2" loses its terminating NUL */
    ns = functions(&im);
    assert_int_equal(ns.n, 1);
    assert_string_equal(ns.list[0], "k1");
    release(&im, 0);

    /* a symbol table whose string table does not exist: skipped */
    im = build(0);
    im.sh[S_SYM].sh_link = NSEC + 3;
    ns = functions(&im);
    assert_int_equal(ns.n, 0);
    release(&im, 0);

    /* a symbol table running past the end: skipped */
    im = build(0);
    im.sh[S_SYM].sh_size = im.len;
    ns = functions(&im);
    assert_int_equal(ns.n, 0);
    release(&im, 0);
}

static int object_size(const char *name, uint64_t size, void *arg)
{
    if (strcmp(name, "obj") != 0)
        fail_msg("a data object named '%s'", name);
    *(uint64_t *)arg = size;
    return 0;
}

static void test_objects_and_their_sizes(void **state)
{
    (void)state;
    image im = build(3);
    atune__elf e;
    uint64_t size = 0;

    assert_int_equal(atune__elf_open(&e, im.data, im.len), 0);
    assert_true(atune__elf_has_symbols(&e));
    assert_int_equal(atune__elf_symbols(&e, STT_OBJECT, object_size, &size), 0);
    assert_int_equal(size, 68);
    release(&im, 3);

    /* no readable symbol table: none */
    im = build(0);
    im.sh[S_SYM].sh_link = NSEC + 3; /* no such string table */
    assert_int_equal(atune__elf_open(&e, im.data, im.len), 0);
    assert_false(atune__elf_has_symbols(&e));
    release(&im, 0);
}

static int stop_at_first(const char *name, uint64_t size, void *arg)
{
    (void)name;
    (void)size;
    (*(int *)arg)++;
    return 7;
}

static void test_callback_stops_the_walk(void **state)
{
    (void)state;
    image im = build(0);
    atune__elf e;
    int calls = 0;

    assert_int_equal(atune__elf_open(&e, im.data, im.len), 0);
    assert_int_equal(atune__elf_symbols(&e, STT_FUNC, stop_at_first, &calls), 7);
    assert_int_equal(calls, 1);
    release(&im, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reads_functions_and_params),
        cmocka_unit_test(test_refuses_a_file_cut_short),
        cmocka_unit_test(test_refuses_offsets_outside),
        cmocka_unit_test(test_skips_broken_symbols),
        cmocka_unit_test(test_objects_and_their_sizes),
        cmocka_unit_test(test_callback_stops_the_walk),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
