/* term.h -- text for a terminal: strings from profiles, manifests and
 * journals are someone else's bytes, and a terminal obeys the control
 * sequences among them (retitle, clear, rewrite the screen, answer back).
 * Everything the tool prints goes through atune__term_escape. */
#ifndef ATUNE_TERM_H
#define ATUNE_TERM_H

#include <stddef.h>
#include <stdio.h>

/* The length of the valid UTF-8 sequence at s (n bytes available): 1 to 4;
 * 0 when the bytes are no valid UTF-8 (a stray continuation byte, an
 * overlong form, a surrogate); -1 when the sequence is cut by the end of
 * the n bytes but may continue. */
int atune__utf8_len(const unsigned char *s, size_t n);

/* Escapes len bytes of s into out (a stream): control characters (C0 but
 * tab and newline, DEL) as \xHH, C1 controls (U+0080..U+009F, in UTF-8) as
 * \u00HH, bytes that are no valid UTF-8 as \xHH; the rest as it is. The
 * one exception is "\r\033[K" (go to the line's start and clear it), which
 * the progress lines of tune and check use. With more set, a sequence cut
 * at the end is not written: the number of bytes consumed is returned so
 * that the caller keeps the rest for the next call. */
size_t atune__term_escape(FILE *out, const char *s, size_t len, int more);

/* Replaces stderr, and stdout when out_too, by streams that pass all
 * output through atune__term_escape to the original file descriptors
 * (stderr unbuffered, stdout buffered as before). 0, or -1 when a stream
 * cannot be made (the originals are then kept). */
int atune__term_guard_stdio(int out_too);

/* Closes the guarded standard output (its errors are the caller's to
 * report) and makes stdout the plain stream again. */
int atune__term_close_stdout(void);

#endif
