/* testutil.h -- helpers shared by the tests. */
#ifndef ATUNE_TESTUTIL_H
#define ATUNE_TESTUTIL_H

#include <dirent.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* Removes path and, when it is a directory, everything under it. */
static inline void rm_rf(const char *path)
{
    DIR *d = opendir(path);
    struct dirent *de;

    if (!d) {
        unlink(path);
        return;
    }
    while ((de = readdir(d)) != NULL) {
        char sub[4200];
        if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
            continue;
        if (snprintf(sub, sizeof(sub), "%s/%s", path, de->d_name) <
            (int)sizeof(sub))
            rm_rf(sub);
    }
    closedir(d);
    rmdir(path);
}

/* Writes text to path, replacing it (include cmocka.h first). */
static inline void write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");

    assert_non_null(f);
    assert_true(fputs(text, f) >= 0);
    assert_int_equal(fclose(f), 0);
}

#endif
