/* inidoc.h -- an INI file read with inih into memory, keeping the line of
 * every section and entry so that callers can report "file:line".
 *
 * inih (Debian's libinih 55) silently truncates lines over 199 bytes and
 * section names over 49 bytes, and its handler gets no line number.
 * inidoc feeds inih through its own line reader, which counts lines and
 * refuses overlong lines, names and NUL bytes before inih sees them, so
 * nothing is ever truncated silently; section headers are recorded by the
 * reader and reach inih as a short stand-in, so inih's section limit does
 * not apply ("[batched_gemm_f16_tensorcore m=4096,n=4096,k=4096,batch=128]"
 * fits). A UTF-8 BOM and CRLF line endings are
 * accepted. A value may go on over indented continuation lines (joined
 * with one space), so no value is limited by the line length. Used by the
 * manifest loader and the profile library alike. */
#ifndef ATUNE_INIDOC_H
#define ATUNE_INIDOC_H

#include <stddef.h>

#define ATUNE__INI_MAX_LINE 199    /* bytes, excluding the line ending */
#define ATUNE__INI_MAX_NAME 160    /* section and key names, bytes */
#define ATUNE__INI_MAX_VALUE 65536 /* a value with its continuation lines */

typedef struct atune__ini_entry {
    char *key;
    char *value; /* inih-trimmed; inline "; comments" removed;
                    continuation lines appended after one space */
    int line;    /* the entry's first line */
} atune__ini_entry;

typedef struct atune__ini_section {
    char *name; /* "" for entries before the first section */
    int line;
    int nentries;
    atune__ini_entry *entries;
} atune__ini_section;

typedef struct atune__ini {
    int nsections;
    atune__ini_section *sections; /* in file order; duplicates kept */
} atune__ini;

/* Parses NUL-terminated text. path is used in messages only. On failure
 * returns -1 with "path:LINE: reason" in msg (msglen bytes) and *out NULL.
 * Reasons: line too long, name too long, NUL byte, unterminated section
 * header, line without '=' or ':', an indented line that continues no
 * entry, a value over ATUNE__INI_MAX_VALUE, out of memory. */
int atune__ini_parse(const char *path, const char *text, atune__ini **out,
                     char *msg, size_t msglen);

void atune__ini_free(atune__ini *ini);

/* First section called name, or NULL. */
const atune__ini_section *atune__ini_find(const atune__ini *ini,
                                          const char *name);

/* First entry called key in s, or NULL. */
const atune__ini_entry *atune__ini_get(const atune__ini_section *s,
                                       const char *key);

#endif
