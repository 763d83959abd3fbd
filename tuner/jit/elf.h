/* elf.h -- the parts of a CUBIN's ELF structure the tuner reads: its
 * section headers, section names, and function symbols. Every offset and
 * size is checked against the data's length before it is used, and
 * headers are copied out (a section's offset need not be aligned), so
 * that a truncated or hostile file is refused, never read past. */
#ifndef ATUNE_JIT_ELF_H
#define ATUNE_JIT_ELF_H

#include <elf.h>
#include <stddef.h>
#include <stdint.h>

typedef struct atune__elf {
    const char *data;
    size_t len;
    Elf64_Ehdr eh;
    Elf64_Shdr names; /* the section-name string table */
} atune__elf;

/* 0 when data[0..len) is a 64-bit ELF file whose section headers and
 * section-name table lie inside it; -1 otherwise. */
int atune__elf_open(atune__elf *e, const char *data, size_t len);

/* Section i's header into sh: 0 when its contents lie inside the file,
 * -1 otherwise (i out of range, or a section with no contents in the
 * file, SHT_NOBITS). */
int atune__elf_section(const atune__elf *e, int i, Elf64_Shdr *sh);

/* The NUL-terminated string at offset off of string table strtab (a
 * header atune__elf_section accepted), or NULL where it does not end
 * inside the table. */
const char *atune__elf_string(const atune__elf *e, const Elf64_Shdr *strtab,
                              size_t off);

/* Section sh's name, as atune__elf_string (NULL when unreadable). */
const char *atune__elf_section_name(const atune__elf *e,
                                    const Elf64_Shdr *sh);

/* Calls fn(name, size, arg) for each symbol of type (STT_FUNC, STT_OBJECT)
 * in every symbol table, its name read as atune__elf_string and size its
 * st_size; a symbol whose name cannot be read is skipped. Stops at and
 * returns fn's first non-zero value; 0 when every call returned 0. */
int atune__elf_symbols(const atune__elf *e, int type,
                       int (*fn)(const char *name, uint64_t size, void *arg),
                       void *arg);

/* Whether e has a symbol table that atune__elf_symbols can read. */
int atune__elf_has_symbols(const atune__elf *e);

#endif
