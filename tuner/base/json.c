/* json.c -- a minimal streaming JSON writer. Pretty enough to read, strict
 * enough to parse: strings escaped per RFC 8259, non-finite numbers become
 * null. */
#include "base/json.h"

#include <math.h>
#include <string.h>

#include "base/term.h"

void atune__json_init(atune__json *j, FILE *f)
{
    j->f = f;
    j->depth = 0;
    j->count[0] = 0;
}

/* Control characters (C0, DEL, C1) as \u escapes, so that the text that
 * reaches a terminal holds none (base/term.h); bytes that are no UTF-8 as
 * U+FFFD, which JSON requires. */
static void put_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        int n = c < 0x80 ? 1
                         : atune__utf8_len((const unsigned char *)s,
                                           strnlen(s, 4));
        if (n <= 0) {
            fputs("\\ufffd", f);
            continue;
        }
        if (n > 1) {
            if (c == 0xc2 && (unsigned char)s[1] < 0xa0)
                fprintf(f, "\\u%04x", (unsigned char)s[1]);
            else
                fwrite(s, 1, (size_t)n, f);
            s += n - 1;
            continue;
        }
        if (c == '"' || c == '\\')
            fprintf(f, "\\%c", c);
        else if (c == '\n')
            fputs("\\n", f);
        else if (c == '\t')
            fputs("\\t", f);
        else if (c < 0x20 || c == 0x7f)
            fprintf(f, "\\u%04x", c);
        else
            fputc(c, f);
    }
    fputc('"', f);
}

/* Comma, newline and indentation before a member, then its key. */
static void member(atune__json *j, const char *key)
{
    if (j->depth > 0) {
        if (j->count[j->depth]++)
            fputc(',', j->f);
        fprintf(j->f, "\n%*s", 2 * j->depth, "");
    }
    if (key) {
        put_string(j->f, key);
        fputs(": ", j->f);
    }
}

static void open_container(atune__json *j, const char *key, char c)
{
    member(j, key);
    fputc(c, j->f);
    if (j->depth + 1 < ATUNE__JSON_DEPTH) {
        j->count[++j->depth] = 0;
        j->close[j->depth] = c == '{' ? '}' : ']';
    }
}

void atune__json_object(atune__json *j, const char *key)
{
    open_container(j, key, '{');
}

void atune__json_array(atune__json *j, const char *key)
{
    open_container(j, key, '[');
}

void atune__json_end(atune__json *j)
{
    char c = j->close[j->depth];
    int had = j->count[j->depth];

    j->depth--;
    if (had)
        fprintf(j->f, "\n%*s", 2 * j->depth, "");
    fputc(c, j->f);
    if (j->depth == 0)
        fputc('\n', j->f);
}

void atune__json_str(atune__json *j, const char *key, const char *v)
{
    member(j, key);
    put_string(j->f, v);
}

void atune__json_int(atune__json *j, const char *key, int64_t v)
{
    member(j, key);
    fprintf(j->f, "%lld", (long long)v);
}

void atune__json_num(atune__json *j, const char *key, double v)
{
    member(j, key);
    if (isfinite(v))
        fprintf(j->f, "%.9g", v);
    else
        fputs("null", j->f);
}

void atune__json_bool(atune__json *j, const char *key, int v)
{
    member(j, key);
    fputs(v ? "true" : "false", j->f);
}

void atune__json_null(atune__json *j, const char *key)
{
    member(j, key);
    fputs("null", j->f);
}
