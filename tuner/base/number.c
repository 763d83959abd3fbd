/* number.c -- checked parsing of decimal numbers (number.h). */
#include "base/number.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

const char *atune__parse_u64(const char *s, uint64_t max, uint64_t *out)
{
    uint64_t v = 0;

    if (!s || !*s)
        return "empty";
    for (const char *p = s; *p; p++) {
        unsigned d = (unsigned)(*p - '0');
        if (d > 9)
            return "not a decimal integer";
        if (v > (UINT64_MAX - d) / 10)
            return "out of range";
        v = v * 10 + d;
    }
    if (v > max)
        return "out of range";
    *out = v;
    return NULL;
}

const char *atune__parse_i64(const char *s, int64_t min, int64_t max,
                             int64_t *out)
{
    const uint64_t min_mag = (uint64_t)INT64_MAX + 1;
    int neg = s && *s == '-';
    uint64_t mag;
    const char *why = atune__parse_u64(s ? s + neg : s, UINT64_MAX, &mag);
    int64_t v;

    if (why)
        return neg && strcmp(why, "empty") == 0 ? "not a decimal integer"
                                                : why;
    if (mag > (neg ? min_mag : (uint64_t)INT64_MAX))
        return "out of range";
    v = neg ? (mag == min_mag ? INT64_MIN : -(int64_t)mag) : (int64_t)mag;
    if (v < min || v > max)
        return "out of range";
    *out = v;
    return NULL;
}

const char *atune__parse_hash(const char *s, uint64_t *out)
{
    size_t n = s ? strspn(s, "0123456789abcdef") : 0;
    uint64_t v = 0;

    if (n == 0 || n > 16 || s[n])
        return "not a hash (1 to 16 lower-case hex digits)";
    for (size_t i = 0; i < n; i++)
        v = v << 4 | (uint64_t)(s[i] <= '9' ? s[i] - '0' : s[i] - 'a' + 10);
    *out = v;
    return NULL;
}

const char *atune__parse_real(const char *s, double min, double max,
                              double *out)
{
    const char *p = s;
    size_t whole, frac = 0;
    char *end;
    double v;

    if (!s || !*s)
        return "empty";
    p += *p == '-';
    whole = strspn(p, "0123456789");
    p += whole;
    if (*p == '.') {
        frac = strspn(p + 1, "0123456789");
        p += 1 + frac;
    }
    if (whole + frac == 0)
        return "not a decimal number";
    if (*p == 'e' || *p == 'E') {
        size_t digits;
        p++;
        p += *p == '-' || *p == '+';
        if ((digits = strspn(p, "0123456789")) == 0)
            return "not a decimal number";
        p += digits;
    }
    if (*p)
        return "not a decimal number";
    /* The text is checked, so strtod reads all of it (the tools never call
     * setlocale: the decimal point is '.'). */
    v = strtod(s, &end);
    if (*end || !isfinite(v))
        return "out of range";
    if (!(v >= min && v <= max))
        return "out of range";
    *out = v;
    return NULL;
}
