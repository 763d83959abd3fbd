/* cmd_header.c -- `autotune header --kernel NAME [--templates DIR]
 * [-o FILE]`: a template's metadata as a C header (header_gen.c) for an
 * application that compiles the kernel itself. Parses its own options, so
 * that main.c only dispatches to it. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli/commands.h"
#include "cli/header_gen.h"
#include "template/templates.h"

static const char header_usage[] =
    "usage: autotune header --kernel NAME [--templates DIR] [-o FILE]\n";

static int write_to(FILE *f, void *ctx)
{
    atune__err err = {0};
    int rc = atune__header_write(f, ctx, &err);

    if (rc)
        atune__cli_error(rc, "%s", err.msg);
    return rc;
}

/* Options of this command only; 0, -1 after --help, or 64. */
static int parse(int argc, char **argv, const char **kernel, const char **dir,
                 const char **out)
{
    static const struct option longs[] = {
        {"kernel", required_argument, NULL, 'k'},
        {"templates", required_argument, NULL, 't'},
        {"output", required_argument, NULL, 'o'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0}};
    int opt;

    opterr = 0;
    optind = 1;
    while ((opt = getopt_long(argc, argv, ":k:t:o:h", longs, NULL)) != -1) {
        switch (opt) {
        case 'k':
            *kernel = optarg;
            break;
        case 't':
            *dir = optarg;
            break;
        case 'o':
            *out = optarg;
            break;
        case 'h':
            fputs(header_usage, stdout);
            return -1;
        default:
            fputs(header_usage, stderr);
            return atune__cli_error(ATUNE__EUSAGE, "%s '%s'",
                                    opt == ':' ? "option needs a value"
                                               : "unknown option",
                                    argv[optind - 1]);
        }
    }
    if (optind < argc)
        return atune__cli_error(ATUNE__EUSAGE, "unexpected argument '%s'",
                                argv[optind]);
    if (!*kernel || !**kernel || strchr(*kernel, ','))
        return atune__cli_error(ATUNE__EUSAGE,
                                "header needs --kernel NAME (one template)");
    return 0;
}

int atune__cmd_header(int argc, char **argv)
{
    const char *kernel = NULL, *dir = NULL, *out = NULL;
    atune__templates t = {0};
    atune__err err = {0};
    int rc = parse(argc, argv, &kernel, &dir, &out);

    if (rc)
        return rc < 0 ? 0 : rc;
    if ((rc = atune__templates_load(dir, kernel, &t, &err)) != 0)
        return atune__cli_error(rc, "%s", err.msg);
    if (!out) {
        rc = write_to(stdout, t.m[0]);
        if (!rc && fflush(stdout) != 0)
            rc = atune__cli_error(ATUNE__EIO, "cannot write the header");
    } else if ((rc = atune__replace_file(out, write_to, t.m[0], &err)) != 0 &&
               err.msg[0]) {
        atune__cli_error(rc, "%s", err.msg);
    }
    atune__templates_free(&t);
    return rc;
}
