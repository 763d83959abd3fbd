/* commands.h -- the autotune commands, called by main() with parsed options:
 * one cmd_*.c (or check.c) each. */
#ifndef ATUNE_COMMANDS_H
#define ATUNE_COMMANDS_H

#include "cli/cli.h"

int atune__cmd_tune(const atune__cli *o);
int atune__cmd_list(const atune__cli *o);
int atune__cmd_check(const atune__cli *o);
int atune__cmd_show(const atune__cli *o);
/* `autotune show --record FILE` (cmd_show_record.c). */
int atune__cmd_show_record(const atune__cli *o);
int atune__cmd_simulate(const atune__cli *o);
int atune__cmd_compare(const atune__cli *o);
int atune__cmd_merge(const atune__cli *o);
/* `autotune header`: parses its own options (argv[0] is "header"). */
int atune__cmd_header(int argc, char **argv);

#endif
