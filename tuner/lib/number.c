/* number.c -- libatune's copy of base/number.c's integer parser: libatune
 * may not use base/ (ARCHITECTURE.md, "Layers": an application linking
 * libatune gets nothing of the tool), and a profile's numbers must read
 * as the tool's do. tests/test_number.c runs one table through both. */
#include "lib/profile_impl.h"


const char *atune__lib_parse_i64(const char *s, int64_t min, int64_t max,
                                 int64_t *out)
{
    const uint64_t min_mag = (uint64_t)INT64_MAX + 1;
    int neg = s && *s == '-';
    uint64_t mag = 0;
    int64_t v;

    if (!s || !*s)
        return "empty";
    if (!s[neg])
        return "not a decimal integer";
    for (const char *p = s + neg; *p; p++) {
        unsigned d = (unsigned)(*p - '0');
        if (d > 9)
            return "not a decimal integer";
        if (mag > (UINT64_MAX - d) / 10)
            return "out of range";
        mag = mag * 10 + d;
    }
    if (mag > (neg ? min_mag : (uint64_t)INT64_MAX))
        return "out of range";
    v = neg ? (mag == min_mag ? INT64_MIN : -(int64_t)mag) : (int64_t)mag;
    if (v < min || v > max)
        return "out of range";
    *out = v;
    return NULL;
}
