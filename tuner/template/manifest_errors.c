/* manifest_errors.c -- how every file of the manifest loader reports a
 * problem: "NAME.ini:LINE: message" (see manifest_internal.h). Apart from
 * manifest.c, which calls the section parsers, so that they need not call
 * back into it. */
#include <stdarg.h>
#include <stdio.h>

#include "template/manifest_internal.h"

int atune__mf_bad(struct loader *ld, int line, const char *fmt, ...)
{
    char what[1024];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(what, sizeof(what), fmt, ap);
    va_end(ap);
    return atune__fail(ld->err, ATUNE__EDATA, "%s:%d: %s", ld->m->ini_path,
                       line, what);
}

int atune__mf_oom(struct loader *ld)
{
    return atune__fail(ld->err, ATUNE__EOSERR, "out of memory");
}

int atune__mf_parse_expr(struct loader *ld, int line, const char *text,
                         atune__expr **out)
{
    int rc = atune__expr_parse(text, out, ld->err);

    if (rc)
        atune__err_prefix(ld->err, "%s:%d: ", ld->m->ini_path, line);
    return rc;
}
