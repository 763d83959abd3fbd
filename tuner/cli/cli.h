/* cli.h -- the parsed command line, and the helpers every command shares
 * (cli.c). The commands themselves are in commands.h. */
#ifndef ATUNE_CLI_H
#define ATUNE_CLI_H

#include <stdint.h>

/* --templates given at most this many times (main.c's message says 16). */
#define ATUNE__CLI_MAX_TEMPLATE_DIRS 16

typedef struct atune__cli {
    const char *command;   /* tune, list, check, show, compare, merge */
    int device_num;        /* --device N: the GPU ordinal (default 0) */
    int device_all;        /* --device all */
    int device_given;      /* --device was given */
    int force_models;      /* merge --force-models: other GPU models too */
    const char *kernels;   /* comma list or NULL */
    const char *size;      /* size name or NULL */
    const char *strategy;  /* NULL: the default */
    int64_t budget;        /* 0: none */
    double time_limit;     /* 0: none */
    const char *profile_dir;
    const char *templates; /* the first --templates DIR; NULL: built-in */
    const char *template_dirs[ATUNE__CLI_MAX_TEMPLATE_DIRS]; /* each one */
    int ntemplate_dirs;
    const char *journal;
    const char *simulate;  /* tune --simulate JOURNAL: replay, no GPU */
    const char *arch;      /* check: "sm_90" */
    int64_t memory;        /* check --memory: device bytes, 0: no limit */
    int json, quiet;
    int no_cache;          /* --no-cache: compile everything afresh */
    int no_resume;         /* --no-resume: ignore an unfinished run */
    int replace;           /* --replace: no merge by evidence */
    double launch_timeout; /* --launch-timeout SEC: watchdog limit per launch */
    const char *evaluate;  /* --evaluate PROFILE: another GPU's best here */
    const char *sizes_from; /* tune --sizes-from RECORD: the recorded sizes */
    const char *record;    /* show --record RECORD */
    uint64_t seed;
    int nfiles;
    char **files;          /* show, compare, merge: profile paths */
    const char *html;      /* compare --html FILE: the report */
    char **argv;           /* the command line, for worker processes */
} atune__cli;

/* The on-disk module cache for this run: NULL with --no-cache or
 * ATUNE_NO_CACHE, or (after a warning) when it cannot be opened. */
struct atune__cache *atune__cli_cache(const atune__cli *o);

/* Reports the cache's hits and misses: to j when non-NULL, else to stderr
 * unless quiet. */
struct atune__json;
void atune__cli_cache_report(const atune__cli *o, struct atune__cache *c,
                             struct atune__json *j);

/* The templates of every --templates folder (the built-in set without
 * one), those of only when non-NULL: atune__templates_load_dirs. */
struct atune__templates;
struct atune__err;
int atune__cli_templates(const atune__cli *o, const char *only,
                         struct atune__templates *t, struct atune__err *err);

/* Whether any template of t has a problem size of this name (--size). */
int atune__cli_size_known(const struct atune__templates *t, const char *name);

/* Checks what the syntax cannot: every time_ns positive, counts and
 * times never negative, and, in a section that a template of t wrote (same
 * name and template_hash), every parameter one of its values. Prints each
 * problem as "FILE:LINE: ..." and returns ATUNE__EDATA, or 0. */
struct atune_profile;
int atune__cli_profile_values(const struct atune_profile *p,
                              const struct atune__templates *t);

/* Opens the JSON document of tune and tune --simulate on stdout: schema,
 * tuner version, the journal replayed (when not NULL), and the "results"
 * array the caller fills and closes. */
void atune__cli_json_begin(struct atune__json *j, const char *journal);

/* `autotune --version`'s line on stdout (main.c, header). */
void atune__cli_version(void);
/* "autotune: error: " + message on stderr; returns code. */
int atune__cli_error(int code, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

#endif
