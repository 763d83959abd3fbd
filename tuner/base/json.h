/* json.h -- a minimal streaming JSON writer for --json output. */
#ifndef ATUNE_JSON_H
#define ATUNE_JSON_H

#include <stdint.h>
#include <stdio.h>

#define ATUNE__JSON_DEPTH 16

typedef struct atune__json {
    FILE *f;
    int depth;
    int count[ATUNE__JSON_DEPTH]; /* members written at each level */
    char close[ATUNE__JSON_DEPTH]; /* '}' or ']' */
} atune__json;

void atune__json_init(atune__json *j, FILE *f);
/* key is NULL inside arrays and for the top-level value. */
void atune__json_object(atune__json *j, const char *key);
void atune__json_array(atune__json *j, const char *key);
void atune__json_end(atune__json *j); /* closes the innermost object/array */
void atune__json_str(atune__json *j, const char *key, const char *v);
void atune__json_int(atune__json *j, const char *key, int64_t v);
void atune__json_num(atune__json *j, const char *key, double v);
void atune__json_bool(atune__json *j, const char *key, int v);
void atune__json_null(atune__json *j, const char *key);

#endif
