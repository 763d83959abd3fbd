/* header_hint.h -- what to tell the user when a header cannot be opened
 * (header_hint.c). */
#ifndef ATUNE_HEADER_HINT_H
#define ATUNE_HEADER_HINT_H

#include "base/util.h"
#include "template/manifest.h"

/* When err's compile log says a header cannot be opened ("cannot open
 * source file", NVRTC's; "No such file or directory", nvcc's) and that
 * header is nowhere a compiler could find it (beside the file including
 * it, the template's folder, its include_dirs, the toolkit's include
 * directory toolkit_inc, the system's headers), appends to err what to
 * do, and returns 1. A host header that exists (stdio.h) is not missing:
 * 0, err unchanged. */
int atune__header_missing_hint(const atune__manifest *m,
                               const char *toolkit_inc, atune__err *err);

#endif
