/* term.c -- text for a terminal (see term.h). */
#define _GNU_SOURCE /* fopencookie */
#include "base/term.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* What the progress lines write to redraw themselves. */
static const char clear_line[] = "\r\033[K";
#define CLEAR_LEN (sizeof(clear_line) - 1)

int atune__utf8_len(const unsigned char *s, size_t n)
{
    unsigned char c = s[0];
    int len;
    unsigned cp;

    if (c < 0x80)
        return 1;
    if (c >= 0xc2 && c <= 0xdf)
        len = 2, cp = c & 0x1f;
    else if (c >= 0xe0 && c <= 0xef)
        len = 3, cp = c & 0x0f;
    else if (c >= 0xf0 && c <= 0xf4)
        len = 4, cp = c & 0x07;
    else
        return 0;
    for (int i = 1; i < len; i++) {
        if ((size_t)i >= n)
            return -1;
        if ((s[i] & 0xc0) != 0x80)
            return 0;
        cp = cp << 6 | (s[i] & 0x3f);
        /* Overlong forms and surrogates are known after the second byte. */
        if (i == 1 && ((len == 3 && cp < 0x20) ||
                       (len == 3 && cp >= 0x360 && cp < 0x380) ||
                       (len == 4 && (cp < 0x10 || cp > 0x10f))))
            return 0;
    }
    return len;
}

size_t atune__term_escape(FILE *out, const char *str, size_t len, int more)
{
    const unsigned char *s = (const unsigned char *)str;
    size_t i = 0;

    while (i < len) {
        unsigned char c = s[i];
        int n;
        if (c == '\r') {
            size_t left = len - i;
            if (left >= CLEAR_LEN &&
                memcmp(s + i, clear_line, CLEAR_LEN) == 0) {
                fwrite(clear_line, 1, CLEAR_LEN, out);
                i += CLEAR_LEN;
                continue;
            }
            if (more && left < CLEAR_LEN &&
                memcmp(s + i, clear_line, left) == 0)
                return i; /* perhaps the start of a clear_line */
        }
        if (c == '\t' || c == '\n' || (c >= 0x20 && c < 0x7f)) {
            fputc(c, out);
            i++;
            continue;
        }
        if (c < 0x80) {
            fprintf(out, "\\x%02x", c);
            i++;
            continue;
        }
        n = atune__utf8_len(s + i, len - i);
        if (n < 0 && more)
            return i;
        if (n <= 0) {
            fprintf(out, "\\x%02x", c);
            i++;
        } else if (n == 2 && c == 0xc2 && s[i + 1] < 0xa0) {
            fprintf(out, "\\u%04x", s[i + 1]);
            i += 2;
        } else {
            fwrite(s + i, 1, (size_t)n, out);
            i += (size_t)n;
        }
    }
    return i;
}

/* A guarded stream: its bytes, escaped, go to raw; a sequence cut at the
 * end of one write waits in held for the next. */
typedef struct guard {
    FILE *raw;
    unsigned char held[8];
    size_t nheld;
} guard;

static ssize_t guard_write(void *cookie, const char *buf, size_t size)
{
    guard *g = cookie;
    size_t total = g->nheld + size, used;
    char small[512], *all = total <= sizeof(small) ? small : malloc(total);

    if (!all)
        return -1;
    memcpy(all, g->held, g->nheld);
    memcpy(all + g->nheld, buf, size);
    used = atune__term_escape(g->raw, all, total, 1);
    /* At most a few bytes wait: a cut UTF-8 sequence or clear_line. */
    g->nheld = total - used < sizeof(g->held) ? total - used : 0;
    memcpy(g->held, all + used, g->nheld);
    if (all != small)
        free(all);
    return fflush(g->raw) == 0 ? (ssize_t)size : -1;
}

static int guard_close(void *cookie)
{
    guard *g = cookie;
    int rc;

    atune__term_escape(g->raw, (const char *)g->held, g->nheld, 0);
    rc = fclose(g->raw);
    g->raw = NULL;
    return rc;
}

/* Static: the streams live as long as the process (unguard closes them
 * at exit). */
static guard guards[2];

static FILE *guarded(guard *g, int fd, int buffered)
{
    static const cookie_io_functions_t io = {.write = guard_write,
                                             .close = guard_close};
    int copy = fd >= 0 ? dup(fd) : -1;
    FILE *f = NULL;

    if (copy >= 0 && (g->raw = fdopen(copy, "w")) != NULL &&
        (f = fopencookie(g, "w", io)) != NULL) {
        if (!buffered)
            setvbuf(f, NULL, _IONBF, 0);
        return f;
    }
    if (g->raw)
        fclose(g->raw);
    else if (copy >= 0)
        close(copy);
    g->raw = NULL;
    return NULL;
}

static FILE *plain_out, *plain_err;

/* At exit: the guarded streams are flushed (and what a cut sequence held
 * back is written), and stdout and stderr are the plain ones again, but
 * the guarded streams are not closed: whatever still holds one (a thread,
 * the C library's own flush of every stream at exit) writes through it to
 * its raw stream, never into freed memory. Closed here, every GPU worker
 * of a cold default run on an H100 aborted at exit with "corrupted size
 * vs. prev_size" (2026-11-26; an AddressSanitizer build, whose freed
 * memory waits in quarantine, ran clean). */
static void unguard(void)
{
    FILE *out = stdout, *err = stderr;

    if (!plain_out)
        return;
    stdout = plain_out;
    stderr = plain_err;
    plain_out = plain_err = NULL;
    /* main closes the guarded stdout itself to see write errors (its
     * guard's raw is NULL then). */
    if (guards[0].raw)
        fflush(out);
    if (guards[1].raw)
        fflush(err);
    for (int i = 0; i < 2; i++)
        if (guards[i].raw) {
            atune__term_escape(guards[i].raw, (const char *)guards[i].held,
                               guards[i].nheld, 0);
            guards[i].nheld = 0;
            fflush(guards[i].raw);
        }
}

int atune__term_guard_stdio(int out_too)
{
    FILE *out, *err;

    if (plain_out)
        return 0; /* guarded already */
    fflush(stdout);
    fflush(stderr);
    out = out_too ? guarded(&guards[0], STDOUT_FILENO, 1) : stdout;
    err = guarded(&guards[1], STDERR_FILENO, 0);
    if (!out || !err || atexit(unguard) != 0) {
        if (out && out != stdout)
            fclose(out);
        if (err)
            fclose(err);
        return -1;
    }
    plain_out = stdout;
    plain_err = stderr;
    stdout = out;
    stderr = err;
    return 0;
}

int atune__term_close_stdout(void)
{
    FILE *f = stdout;

    /* From here on stdout is the plain stream: nothing that runs later
     * (exit handlers) writes to a closed one. */
    if (plain_out)
        stdout = plain_out;
    return fclose(f);
}
