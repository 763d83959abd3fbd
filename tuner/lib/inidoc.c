/* inidoc.c -- an INI text parsed by inih into an in-memory document that
 * remembers the line of every section and entry.
 *
 * inih reads through an fgets-style callback and gives its handler no line
 * number (Debian's libinih 55 is built without INI_HANDLER_LINENO, and
 * defining it here would break the ABI). So inih reads from our own reader,
 * which hands it one whole line per call: while inih processes a line and
 * calls the handler, the reader's counter is that line's number.
 *
 * The reader also checks every line before inih sees it, because inih
 * truncates overlong lines and names without a word and reads the rest of
 * a long line as a line of its own (so its line numbers drift). Anything
 * that inih would accept only by guessing is refused here, with its line.
 *
 * Long values are written as continuation lines: an indented line right
 * after an entry (or after another continuation line; comment lines may
 * come between) appends its text, after one space, to that entry's value.
 * The reader does this itself and never hands such a line to inih, whose
 * own multi-line mode would call the handler once per line. A blank line
 * or a section header ends an entry.
 *
 * The text is a C string, so a NUL byte ends it: a caller that reads a file
 * must check for NUL bytes itself (memchr over the length it read) and
 * report them as a NUL byte, not let the file end early. */
#include "lib/inidoc.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ini.h>

/* The reader's state; stream of the ini_reader callback and user of the
 * handler, so both callbacks see the same counter. */
typedef struct reader {
    const char *path;
    const char *pos; /* start of the next line */
    int line;        /* number of the line inih has now */
    int failed;      /* an error is in msg: stop reading */
    int open_entry;  /* the last line was an entry: it may be continued */
    atune__ini *doc;
    int sections_cap;
    int entries_cap; /* of the last section, the only one that grows */
    char *msg;
    size_t msglen;
} reader;

static void fail(reader *r, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Records the first error only: later ones are consequences. */
static void fail(reader *r, const char *fmt, ...)
{
    va_list ap;
    int n;

    if (r->failed)
        return;
    r->failed = 1;
    if (!r->msg || r->msglen == 0)
        return;
    n = snprintf(r->msg, r->msglen, "%s:%d: ", r->path, r->line);
    if (n < 0 || (size_t)n >= r->msglen)
        return;
    va_start(ap, fmt);
    vsnprintf(r->msg + n, r->msglen - (size_t)n, fmt, ap);
    va_end(ap);
}

static int is_space(char c)
{
    /* The test inih uses, so that both agree on where names end. */
    return isspace((unsigned char)c);
}

/* inih's find_chars_or_comment: the first of chars, or the start of an
 * inline comment (';' after white space), or the end of s. */
static int in_set(const char *chars, char c)
{
    /* Not strchr: a call per character is most of a large file's time. */
    for (; *chars; chars++)
        if (*chars == c)
            return 1;
    return 0;
}

static const char *find_chars_or_comment(const char *s, const char *chars)
{
    int was_space = 0;

    while (*s && !in_set(chars, *s) && !(was_space && *s == ';')) {
        was_space = is_space(*s);
        s++;
    }
    return s;
}

static int add_section(reader *r, const char *name, size_t len)
{
    atune__ini *doc = r->doc;
    atune__ini_section *s;

    if (doc->nsections == r->sections_cap) {
        int cap = r->sections_cap ? 2 * r->sections_cap : 16;
        s = realloc(doc->sections, (size_t)cap * sizeof(*s));
        if (!s)
            return -1;
        doc->sections = s;
        r->sections_cap = cap;
    }
    s = &doc->sections[doc->nsections];
    memset(s, 0, sizeof(*s));
    s->name = malloc(len + 1);
    if (!s->name)
        return -1;
    memcpy(s->name, name, len);
    s->name[len] = '\0';
    s->line = r->line;
    doc->nsections++;
    r->entries_cap = 0;
    return 0;
}

/* "[name]", optionally followed by white space and a "; comment". */
static void check_section(reader *r, const char *s)
{
    const char *end = find_chars_or_comment(s + 1, "]");
    const char *rest;
    size_t len = (size_t)(end - (s + 1));

    if (*end != ']') {
        fail(r, "unterminated section header (no ']')");
        return;
    }
    if (len == 0) {
        /* "" is the section of entries before the first header. */
        fail(r, "empty section name");
        return;
    }
    if (len > ATUNE__INI_MAX_NAME) {
        fail(r, "section name too long (%zu bytes, at most %d)", len,
             ATUNE__INI_MAX_NAME);
        return;
    }
    for (rest = end + 1; is_space(*rest); rest++)
        ;
    if (*rest != '\0' && *rest != ';') {
        fail(r, "unexpected text after section header");
        return;
    }
    if (add_section(r, s + 1, len) != 0)
        fail(r, "out of memory");
}

/* "key = value" or "key: value"; inih splits at the first '=' or ':'. */
static void check_entry(reader *r, const char *s)
{
    const char *end = find_chars_or_comment(s, "=:");
    size_t len;

    if (*end != '=' && *end != ':') {
        fail(r, "expected 'key = value'");
        return;
    }
    for (len = (size_t)(end - s); len > 0 && is_space(s[len - 1]); len--)
        ;
    if (len == 0)
        fail(r, "missing key name before '%c'", *end);
    else if (len > ATUNE__INI_MAX_NAME)
        fail(r, "key name too long (%zu bytes, at most %d)", len,
             ATUNE__INI_MAX_NAME);
}

/* Classifies one line (without its line ending) as inih will, refusing
 * what inih would truncate, continue or report without a reason. */
static void check_line(reader *r, const char *line)
{
    const char *s = line;

    while (is_space(*s))
        s++;
    if (*s == '\0') {
        r->open_entry = 0; /* a blank line ends an entry */
        return;
    }
    if (*s == ';' || *s == '#')
        return;
    r->open_entry = *s != '[';
    if (*s == '[')
        check_section(r, s);
    else
        check_entry(r, s);
}

/* Whether line is a continuation line: indented, not blank, no comment. */
static int is_continuation(const char *line)
{
    const char *s = line;

    while (is_space(*s))
        s++;
    return s != line && *s != '\0' && *s != ';' && *s != '#';
}

/* Appends the text of continuation line (inline comment and white space
 * removed) to the value of the last entry, after one space. */
static void continue_entry(reader *r, const char *line)
{
    atune__ini_section *sec;
    atune__ini_entry *e;
    const char *s = line, *end;
    size_t old, add;
    char *v;

    if (!r->open_entry || r->doc->nsections == 0 ||
        r->doc->sections[r->doc->nsections - 1].nentries == 0) {
        fail(r, "line starts with white space but continues no entry (a "
                "continuation line must follow an entry)");
        return;
    }
    sec = &r->doc->sections[r->doc->nsections - 1];
    e = &sec->entries[sec->nentries - 1];
    while (is_space(*s))
        s++;
    end = find_chars_or_comment(s, "");
    while (end > s && is_space(end[-1]))
        end--;
    old = strlen(e->value);
    add = (size_t)(end - s);
    if (old + add + 1 > ATUNE__INI_MAX_VALUE) {
        fail(r, "value too long (more than %d bytes)", ATUNE__INI_MAX_VALUE);
        return;
    }
    if (!(v = realloc(e->value, old + add + 2))) {
        fail(r, "out of memory");
        return;
    }
    e->value = v;
    if (old > 0)
        v[old++] = ' ';
    memcpy(v + old, s, add);
    v[old + add] = '\0';
}

static int is_section(const char *line)
{
    while (is_space(*line))
        line++;
    return *line == '[';
}

/* inih truncates section names at its compile-time INI_MAX_SECTION (50
 * bytes in Debian's build) without a word. check_section() recorded the
 * real name, so inih gets "[NUMBER]", the section's index, which on_entry
 * checks against the reader's idea of the current section. */
static void stand_in(reader *r, char *str, size_t num)
{
    snprintf(str, num, "[%d]", r->doc->nsections - 1);
}

/* An ini_reader: copies the next line into str, NUL-terminated and without
 * its "\n" or "\r\n", or returns NULL at the end or after an error. inih
 * strips white space itself, so the missing newline changes nothing. */
static char *read_line(char *str, int num, void *stream)
{
    reader *r = stream;
    const char *p;
    const char *nl;
    size_t len;

next:
    p = r->pos;
    if (r->failed || *p == '\0')
        return NULL;
    nl = strchr(p, '\n');
    len = nl ? (size_t)(nl - p) : strlen(p);
    r->pos = p + len + (nl != NULL);
    r->line++;
    if (len > 0 && p[len - 1] == '\r')
        len--;
    if (r->line == 1 && len >= 3 && memcmp(p, "\xEF\xBB\xBF", 3) == 0) {
        p += 3;
        len -= 3;
    }
    /* The second test only matters if inih's buffer is ever smaller than
     * our limit assumes: a truncated line must never reach it. */
    if (len > ATUNE__INI_MAX_LINE || num < 1 || len >= (size_t)num) {
        fail(r, "line too long (%zu bytes, at most %d)", len,
             ATUNE__INI_MAX_LINE);
        return NULL;
    }
    memcpy(str, p, len);
    str[len] = '\0';
    if (is_continuation(str)) {
        continue_entry(r, str);
        goto next; /* inih never sees it */
    }
    check_line(r, str);
    if (!r->failed && is_section(str))
        stand_in(r, str, (size_t)num);
    return r->failed ? NULL : str;
}

static int add_entry(reader *r, const char *key, const char *value)
{
    atune__ini *doc = r->doc;
    atune__ini_section *s = &doc->sections[doc->nsections - 1];
    atune__ini_entry *e;

    if (s->nentries == r->entries_cap) {
        int cap = r->entries_cap ? 2 * r->entries_cap : 16;
        e = realloc(s->entries, (size_t)cap * sizeof(*e));
        if (!e)
            return -1;
        s->entries = e;
        r->entries_cap = cap;
    }
    e = &s->entries[s->nentries];
    e->key = malloc(strlen(key) + 1);
    e->value = malloc(strlen(value) + 1);
    e->line = r->line;
    if (!e->key || !e->value) {
        free(e->key);
        free(e->value);
        return -1;
    }
    strcpy(e->key, key);
    strcpy(e->value, value);
    s->nentries++;
    return 0;
}

/* Whether inih's current section is the reader's last one: "" before the
 * first header, else its stand-in "[NUMBER]". */
static int section_agrees(const atune__ini *doc, const char *section)
{
    char want[16];

    if (doc->sections[doc->nsections - 1].name[0] == '\0' &&
        doc->nsections == 1)
        return *section == '\0';
    snprintf(want, sizeof(want), "%d", doc->nsections - 1);
    return strcmp(want, section) == 0;
}

/* inih's handler. Sections were recorded by the reader (so that empty ones
 * are kept too); inih's idea of the current section must agree. */
static int on_entry(void *user, const char *section, const char *key,
                    const char *value)
{
    reader *r = user;
    atune__ini *doc = r->doc;

    if (r->failed)
        return 0;
    if (doc->nsections == 0 && add_section(r, "", 0) != 0) {
        fail(r, "out of memory");
        return 0;
    }
    if (!section_agrees(doc, section)) {
        fail(r, "internal error: inih reports section '%s'", section);
        return 0;
    }
    if (add_entry(r, key, value) != 0) {
        fail(r, "out of memory");
        return 0;
    }
    return 1;
}

/* See documentation in header file. */
int atune__ini_parse(const char *path, const char *text, atune__ini **out,
                     char *msg, size_t msglen)
{
    reader r;
    int rc;

    memset(&r, 0, sizeof(r));
    r.path = path ? path : "<text>";
    r.pos = text;
    r.msg = msg;
    r.msglen = msglen;
    *out = NULL;
    if (msg && msglen > 0)
        msg[0] = '\0';
    r.doc = calloc(1, sizeof(*r.doc));
    if (!r.doc) {
        if (msg && msglen > 0)
            snprintf(msg, msglen, "%s: out of memory", r.path);
        return -1;
    }
    rc = ini_parse_stream(read_line, &r, on_entry, &r);
    if (rc != 0 && !r.failed) {
        /* Only reachable if inih refuses a line our checks let through. */
        if (rc > 0)
            r.line = rc;
        fail(&r, rc > 0 ? "syntax error" : "out of memory");
    }
    if (r.failed) {
        atune__ini_free(r.doc);
        return -1;
    }
    *out = r.doc;
    return 0;
}

void atune__ini_free(atune__ini *ini)
{
    if (!ini)
        return;
    for (int i = 0; i < ini->nsections; i++) {
        atune__ini_section *s = &ini->sections[i];
        for (int j = 0; j < s->nentries; j++) {
            free(s->entries[j].key);
            free(s->entries[j].value);
        }
        free(s->entries);
        free(s->name);
    }
    free(ini->sections);
    free(ini);
}

const atune__ini_section *atune__ini_find(const atune__ini *ini,
                                          const char *name)
{
    for (int i = 0; i < ini->nsections; i++)
        if (strcmp(ini->sections[i].name, name) == 0)
            return &ini->sections[i];
    return NULL;
}

const atune__ini_entry *atune__ini_get(const atune__ini_section *s,
                                       const char *key)
{
    for (int i = 0; i < s->nentries; i++)
        if (strcmp(s->entries[i].key, key) == 0)
            return &s->entries[i];
    return NULL;
}
