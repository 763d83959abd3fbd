/* cmd_simulate.c -- `autotune tune --simulate JOURNAL`. Placeholder until
 * the simulation lands. */
#include "cli.h"
#include "util.h"

int atune__cmd_simulate(const atune__cli *o)
{
    (void)o;
    return atune__cli_error(ATUNE__EUSAGE, "--simulate is not built yet");
}
