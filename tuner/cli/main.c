/* main.c -- autotune's command line: parse, validate, dispatch. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda.h>

#include "base/number.h"
#include "base/term.h"
#include "base/util.h"
#include "cli/commands.h"
#include "engine/supervise.h"
#include "jit/jit.h"
#include "search/strategy.h"

static const char usage_text[] =
    "usage: autotune [tune] [--device N|all] [--kernel a,b] [--size NAME]\n"
    "                [--profile-dir DIR] [--templates DIR] [--journal FILE]\n"
    "                [--strategy S] [--budget EVALS] [--time-limit SEC]\n"
    "                [--seed N] [--launch-timeout SEC] [--no-resume]\n"
    "                [--no-cache] [--replace] [--evaluate PROFILE]\n"
    "                [--sizes-from RECORD] [--json] [--quiet]\n"
    "       autotune tune --simulate JOURNAL [--kernel a,b] [--size NAME]\n"
    "                [--strategy S] [--budget EVALS] [--seed N] [--json]\n"
    "       autotune list [--templates DIR] [--kernel a,b] [--json]\n"
    "       autotune check [--templates DIR] [--kernel a,b] [--arch sm_XX]\n"
    "                [--memory BYTES] [--budget CONFIGS] [--time-limit SEC]\n"
    "                [--no-cache] [--json]\n"
    "       autotune show [--templates DIR] PROFILE...\n"
    "       autotune show --record RECORD [PROFILE...]\n"
    "       autotune compare PROFILE... [--json] [--html FILE]\n"
    "       autotune merge OUT.ini IN.ini... [--device N] [--templates DIR]\n"
    "                [--force-models] [--no-cache] [--quiet]\n"
    "       autotune header --kernel NAME [--templates DIR] [-o FILE]\n"
    "       autotune --help | --version\n";

static const char help_text[] =
    "\n"
    "Tunes CUDA kernel templates for a GPU: the configurations of each\n"
    "template are compiled with NVRTC, timed and verified against the\n"
    "template's reference kernel (the default run verifies every one that\n"
    "could win, a named strategy or a budget every one); the fastest\n"
    "verified configuration of each (kernel, problem size) is saved to\n"
    "PROFILE-DIR/<gpu>.ini.\n"
    "\n"
    "commands:\n"
    "  tune     tune on a GPU (the default command)\n"
    "  list     templates, their parameters and space sizes\n"
    "  check    compile every valid configuration (no GPU needed)\n"
    "  show     print profiles\n"
    "  compare  profiles of several GPUs side by side\n"
    "  merge    profiles of one GPU model into OUT, the faster configuration\n"
    "           of each section kept: timed side by side with --device,\n"
    "           else by recorded time (OUT's own sections take part)\n"
    "  header   a template's metadata as a C header (autotune header --help)\n"
    "\n"
    "options:\n"
    "  -d, --device N|all    GPU ordinal, or every GPU (default 0)\n"
    "  -k, --kernel a,b      only these templates\n"
    "  -s, --size NAME       only this problem size of each template\n"
    "  -p, --profile-dir DIR where profiles go (default profiles)\n"
    "  -t, --templates DIR   templates from DIR and its subfolders instead of\n"
    "                        the built-in set (repeatable)\n"
    "      --journal FILE    results journal (default PROFILE-DIR/<gpu>"
    ".journal)\n"
    "      --strategy S      search strategy (listed at the end)\n"
    "      --budget EVALS    stop after this many evaluations per size\n"
    "                        (check: compile this many configurations per\n"
    "                        template, spread over its space)\n"
    "      --time-limit SEC  stop after this many seconds per size (check:\n"
    "                        per template)\n"
    "      --launch-timeout SEC  kill a launch that runs longer (default:\n"
    "                        100x the reference kernel, 1 s to 60 s)\n"
    "      --no-resume       measure again what an unfinished run of the\n"
    "                        journal measured (default: resume from it)\n"
    "      --replace         a new best replaces the profile's section as it\n"
    "                        is (default: the previous best of the same\n"
    "                        template is measured again and the faster kept)\n"
    "      --evaluate PROFILE  measure PROFILE's best configurations here\n"
    "                        and record how they do (compare shows it)\n"
    "      --simulate FILE   replay a journal's measurements instead of a GPU\n"
    "      --sizes-from RECORD  tune the sizes that applications recorded on\n"
    "                        this GPU model (ATUNE_RECORD) instead of the\n"
    "                        templates' sizes\n"
    "      --record RECORD   show: summarize a record\n"
    "      --seed N          seed of the input data and of the search\n"
    "      --arch sm_XX      check: target architecture (default sm_90)\n"
    "      --memory BYTES    check: fail where a size needs more device memory\n"
    "      --no-cache        compile everything afresh (the module cache is\n"
    "                        $ATUNE_CACHE_DIR, else $XDG_CACHE_HOME/autotune)\n"
    "      --json            one JSON document on stdout\n"
    "      --html FILE       compare: also write an HTML report to FILE\n"
    "      --force-models    merge: profiles of other GPU models too\n"
    "  -q, --quiet           no progress or summaries on stderr\n"
    "  -h, --help            this help\n"
    "  -V, --version         version and build\n"
    "\n"
    "exit status: 0 ok, 64 bad usage, 65 bad template/profile/journal or a\n"
    "configuration that does not compile (check), 66 missing input (or a\n"
    "directory given as a file), 69 no CUDA driver or GPU, 70 internal or\n"
    "sticky CUDA error, 71 out of memory, 73 cannot create output, 74 I/O\n"
    "error (a failed write, also of standard output), 130 interrupted.\n"
    "Numbers are decimal. Templates and journals over 256 MiB are refused\n"
    "(ATUNE_MAX_INPUT_MB changes the limit).\n\n";

static int usage_error(const char *fmt, const char *arg)
{
    fputs("autotune: error: ", stderr);
    fprintf(stderr, fmt, arg);
    fputc('\n', stderr);
    fputs(usage_text, stderr);
    return ATUNE__EUSAGE;
}

enum {
    OPT_JOURNAL = 256,
    OPT_SEED,
    OPT_ARCH,
    OPT_JSON,
    OPT_STRATEGY,
    OPT_BUDGET,
    OPT_TIME_LIMIT,
    OPT_SIMULATE,
    OPT_NO_CACHE,
    OPT_HTML,
    OPT_NO_RESUME,
    OPT_LAUNCH_TIMEOUT,
    OPT_EVALUATE,
    OPT_MEMORY,
    OPT_REPLACE,
    OPT_SIZES_FROM,
    OPT_RECORD,
    OPT_FORCE_MODELS
};

static const struct option options[] = {
    {"device", required_argument, NULL, 'd'},
    {"kernel", required_argument, NULL, 'k'},
    {"size", required_argument, NULL, 's'},
    {"profile-dir", required_argument, NULL, 'p'},
    {"templates", required_argument, NULL, 't'},
    {"journal", required_argument, NULL, OPT_JOURNAL},
    {"seed", required_argument, NULL, OPT_SEED},
    {"arch", required_argument, NULL, OPT_ARCH},
    {"json", no_argument, NULL, OPT_JSON},
    {"strategy", required_argument, NULL, OPT_STRATEGY},
    {"budget", required_argument, NULL, OPT_BUDGET},
    {"time-limit", required_argument, NULL, OPT_TIME_LIMIT},
    {"simulate", required_argument, NULL, OPT_SIMULATE},
    {"no-cache", no_argument, NULL, OPT_NO_CACHE},
    {"memory", required_argument, NULL, OPT_MEMORY},
    {"html", required_argument, NULL, OPT_HTML},
    {"no-resume", no_argument, NULL, OPT_NO_RESUME},
    {"launch-timeout", required_argument, NULL, OPT_LAUNCH_TIMEOUT},
    {"evaluate", required_argument, NULL, OPT_EVALUATE},
    {"replace", no_argument, NULL, OPT_REPLACE},
    {"sizes-from", required_argument, NULL, OPT_SIZES_FROM},
    {"record", required_argument, NULL, OPT_RECORD},
    {"force-models", no_argument, NULL, OPT_FORCE_MODELS},
    {"quiet", no_argument, NULL, 'q'},
    {"help", no_argument, NULL, 'h'},
    {"version", no_argument, NULL, 'V'},
    {NULL, 0, NULL, 0},
};

/* Which commands take which option; "" for options every command takes. */
static const char *option_commands(int opt)
{
    switch (opt) {
    case 'd':
        return "tune merge";
    case 's':
    case 'p':
    case OPT_JOURNAL:
    case OPT_SEED:
    case OPT_STRATEGY:
    case OPT_SIMULATE:
    case OPT_NO_RESUME:
    case OPT_LAUNCH_TIMEOUT:
    case OPT_EVALUATE:
    case OPT_REPLACE:
    case OPT_SIZES_FROM:
        return "tune";
    case OPT_RECORD:
        return "show";
    case 'k':
        return "tune list check";
    case 't':
        return "tune list check show merge";
    case OPT_FORCE_MODELS:
        return "merge";
    case OPT_ARCH:
    case OPT_MEMORY:
        return "check";
    case OPT_NO_CACHE:
        return "tune check merge";
    case OPT_BUDGET:
    case OPT_TIME_LIMIT:
        return "tune check";
    case OPT_JSON:
        return "tune list check compare";
    case OPT_HTML:
        return "compare";
    default:
        return "";
    }
}

static int applies(int opt, const char *command)
{
    const char *list = option_commands(opt);
    size_t n = strlen(command);

    if (!*list)
        return 1;
    for (const char *p = strstr(list, command); p; p = strstr(p + 1, command))
        if ((p == list || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\0'))
            return 1;
    return 0;
}

/* Every number of the command line is decimal digits only: no sign, no
 * space, no 0x or leading-zero octal ("010" is ten) (base/number.h).
 * Parsed once, here; the commands use the value, never the text. */
static int parse_u64(const char *s, uint64_t *out)
{
    return atune__parse_u64(s, UINT64_MAX, out) ? -1 : 0;
}

static int parse_device(const char *s, atune__cli *o)
{
    uint64_t v;

    if (strcmp(s, "all") == 0) {
        o->device_all = 1;
        return 0;
    }
    if (parse_u64(s, &v) || v > 1024)
        return -1;
    o->device_num = (int)v;
    return 0;
}

/* sm_XY, sm_XYZ, with NVRTC's 'a' (arch-specific) or 'f' (family)
 * suffix, and only what this NVRTC can target. */
static int arch_valid(const char *a)
{
    size_t digits = strspn(a + 3, "0123456789");
    const char *rest = a + 3 + digits;

    if (strncmp(a, "sm_", 3) != 0 || digits < 2 || digits > 3)
        return 0;
    if (*rest && (strcmp(rest, "a") != 0 && strcmp(rest, "f") != 0))
        return 0;
    return atune__jit_arch_supported(a);
}

/* The strategies, for --help and for a bad --strategy. */
static void list_strategies(FILE *f)
{
    const char *const *names = atune__strategy_names();

    fprintf(f, "strategies (default %s):", atune__strategy_default());
    for (int i = 0; names[i]; i++)
        fprintf(f, " %s", names[i]);
    fputc('\n', f);
}

static int is_command(const char *s)
{
    static const char *const commands[] = {"tune", "list", "check", "show",
                                           "compare", "merge"};

    for (size_t i = 0; i < sizeof(commands) / sizeof(*commands); i++)
        if (strcmp(s, commands[i]) == 0)
            return 1;
    return 0;
}

/* getopt_long's '?' for "--name...": a value given to an option that takes
 * none, an ambiguous abbreviation, or an unknown option. */
static int bad_long_option(const char *arg)
{
    const char *name = arg + 2, *eq = strchr(name, '=');
    size_t n = eq ? (size_t)(eq - name) : strlen(name);
    char buf[512] = "";
    int matches = 0;

    for (const struct option *op = options; op->name; op++) {
        if (strncmp(op->name, name, n) != 0)
            continue;
        if (strlen(op->name) == n) {
            if (eq && op->has_arg == no_argument)
                return usage_error("option '--%s' takes no value", op->name);
            matches = 1;
            break;
        }
        matches++;
        if (strlen(buf) + strlen(op->name) + 4 < sizeof(buf)) {
            strcat(buf, matches > 1 ? ", --" : "--");
            strcat(buf, op->name);
        }
    }
    if (matches > 1) {
        fprintf(stderr, "autotune: error: option '%.*s' is ambiguous: %s\n",
                (int)(n + 2), arg, buf);
        fputs(usage_text, stderr);
        return ATUNE__EUSAGE;
    }
    return usage_error("unknown option '%s'", arg);
}

static const char *option_name(int opt)
{
    for (const struct option *op = options; op->name; op++)
        if (op->val == opt)
            return op->name;
    return "?";
}

/* Options that --simulate (a replay, no GPU, no profile) cannot honour. */
static const int not_with_simulate[] = {
    'd', 'p', OPT_JOURNAL, OPT_NO_RESUME, OPT_LAUNCH_TIMEOUT, OPT_EVALUATE,
    OPT_TIME_LIMIT, OPT_NO_CACHE, OPT_REPLACE, OPT_SIZES_FROM};

static int check_combinations(const atune__cli *o, const unsigned char *seen)
{
    if (o->simulate) {
        for (size_t i = 0; i < sizeof(not_with_simulate) / sizeof(int); i++)
            if (seen[not_with_simulate[i]]) {
                fprintf(stderr, "autotune: error: --%s does not apply to "
                                "--simulate (a replay of a journal: no GPU, "
                                "no profile)\n",
                        option_name(not_with_simulate[i]));
                fputs(usage_text, stderr);
                return ATUNE__EUSAGE;
            }
    }
    if (o->sizes_from && (seen['s'] || o->evaluate))
        return usage_error("%s", "--sizes-from chooses the sizes: --size "
                                 "and --evaluate do not apply");
    if (o->evaluate && (seen[OPT_STRATEGY] || seen[OPT_BUDGET] ||
                        seen[OPT_TIME_LIMIT] || seen[OPT_NO_RESUME] ||
                        seen[OPT_REPLACE]))
        return usage_error("%s", "--evaluate measures a profile's "
                                 "configurations: --strategy, --budget, "
                                 "--time-limit, --no-resume and --replace "
                                 "do not apply");
    return 0;
}

static int parse(int argc, char **argv, atune__cli *o)
{
    unsigned char seen[512] = {0};
    int opt;

    memset(o, 0, sizeof(*o));
    o->command = "tune";
    o->profile_dir = "profiles";
    o->arch = "sm_90";
    o->seed = 0x5eed5eed12345678ULL;
    if (argc > 1 && argv[1][0] != '-') {
        if (!is_command(argv[1]))
            return usage_error("unknown command '%s'", argv[1]);
        o->command = argv[1];
        argv++;
        argc--;
    }
    opterr = 0;
    while ((opt = getopt_long(argc, argv, ":d:k:s:p:t:qhV", options, NULL)) !=
           -1) {
        const char *arg = argv[optind - 1];
        if (opt == '?')
            return strncmp(arg, "--", 2) == 0
                       ? bad_long_option(arg)
                       : usage_error("unknown option '%s'", arg);
        if (opt == ':')
            return usage_error("option '%s' needs a value", arg);
        /* Named by its long name: arg is the value where one follows
         * ("list --arch sm_90" named 'sm_90'), or "-d0", "--arch=X". */
        if (!applies(opt, o->command)) {
            fprintf(stderr, "autotune: error: option '--%s' does not apply "
                    "to %s\n", option_name(opt), o->command);
            fputs(usage_text, stderr);
            return ATUNE__EUSAGE;
        }
        /* Last-wins would silently drop the first: refuse instead. */
        if (opt != 'q' && opt != 't' && seen[opt])
            return usage_error("option '--%s' given twice",
                               option_name(opt));
        seen[opt] = 1;
        switch (opt) {
        case 'd':
            if (parse_device(optarg, o))
                return usage_error("invalid device '%s' (a decimal GPU "
                                   "ordinal, or all)", optarg);
            o->device_given = 1;
            break;
        case 'k': o->kernels = optarg; break;
        case 's': o->size = optarg; break;
        case 'p': o->profile_dir = optarg; break;
        case 't':
            if (o->ntemplate_dirs == ATUNE__CLI_MAX_TEMPLATE_DIRS)
                return usage_error("--templates given more than 16 times "
                                   "(at '%s')",
                                   optarg);
            o->template_dirs[o->ntemplate_dirs++] = optarg;
            if (!o->templates)
                o->templates = optarg;
            break;
        case OPT_JOURNAL: o->journal = optarg; break;
        case OPT_ARCH:
            if (!arch_valid(optarg))
                return usage_error("invalid or unsupported architecture "
                                   "'%s' (sm_XY as NVRTC names it)", optarg);
            o->arch = optarg;
            break;
        case OPT_SEED:
            if (parse_u64(optarg, &o->seed))
                return usage_error("invalid seed '%s' (decimal, 0 to "
                                   "18446744073709551615)", optarg);
            break;
        case OPT_JSON: o->json = 1; break;
        case OPT_STRATEGY:
            if (!atune__strategy_known(optarg)) {
                fprintf(stderr, "autotune: error: unknown strategy '%s'; ",
                        optarg);
                list_strategies(stderr);
                return ATUNE__EUSAGE;
            }
            o->strategy = optarg;
            break;
        case OPT_SIMULATE: o->simulate = optarg; break;
        case OPT_NO_CACHE: o->no_cache = 1; break;
        case OPT_HTML: o->html = optarg; break;
        case OPT_NO_RESUME: o->no_resume = 1; break;
        case OPT_EVALUATE: o->evaluate = optarg; break;
        case OPT_REPLACE: o->replace = 1; break;
        case OPT_SIZES_FROM: o->sizes_from = optarg; break;
        case OPT_RECORD: o->record = optarg; break;
        case OPT_FORCE_MODELS: o->force_models = 1; break;
        case OPT_LAUNCH_TIMEOUT: {
            if (atune__parse_real(optarg, 0, 86400, &o->launch_timeout) ||
                !(o->launch_timeout > 0))
                return usage_error("invalid launch timeout '%s' (decimal "
                                   "seconds)", optarg);
            break;
        }
        case OPT_MEMORY: {
            uint64_t v;
            if (parse_u64(optarg, &v) || v == 0 || v > INT64_MAX)
                return usage_error("invalid memory size '%s' (decimal "
                                   "bytes)", optarg);
            o->memory = (int64_t)v;
            break;
        }
        case OPT_BUDGET: {
            uint64_t v;
            if (parse_u64(optarg, &v) || v == 0 || v > INT64_MAX)
                return usage_error("invalid budget '%s' (a decimal number "
                                   "of evaluations)", optarg);
            o->budget = (int64_t)v;
            break;
        }
        case OPT_TIME_LIMIT: {
            if (atune__parse_real(optarg, 0, 1e9, &o->time_limit) ||
                !(o->time_limit > 0))
                return usage_error("invalid time limit '%s' (decimal seconds)",
                                   optarg);
            break;
        }
        case 'q': o->quiet = 1; break;
        case 'h':
            fputs(usage_text, stdout);
            fputs(help_text, stdout);
            list_strategies(stdout);
            return -1;
        case 'V':
            atune__cli_version();
            return -1;
        }
    }
    o->files = argv + optind;
    o->nfiles = argc - optind;
    int takes_files = strcmp(o->command, "show") == 0 ||
                      strcmp(o->command, "compare") == 0;
    if (o->nfiles > 0 && is_command(o->files[0]) && argc > 1 &&
        o->files != argv + 1)
        return usage_error("the command '%s' comes first: autotune "
                           "COMMAND [options]", o->files[0]);
    int merge = strcmp(o->command, "merge") == 0;
    takes_files |= merge;
    if (takes_files && o->nfiles == 0 && !o->record)
        return usage_error("%s needs a profile file", o->command);
    if (merge && o->nfiles < 2)
        return usage_error("%s", "merge needs OUT.ini and at least one "
                                 "profile to merge into it");
    if (merge && o->device_all)
        return usage_error("%s", "merge re-times on one GPU: --device N");
    if (!takes_files && o->nfiles > 0)
        return usage_error("unexpected argument '%s'", o->files[0]);
    return check_combinations(o, seen);
}

/* A full disk or a closed pipe on stdout loses the result: say so, 74. */
static int finish_stdout(int rc)
{
    int failed = fflush(stdout) != 0 || ferror(stdout);

    if (atune__term_close_stdout() != 0)
        failed = 1;
    if (!failed)
        return rc;
    atune__cli_error(ATUNE__EIO, "cannot write standard output: %s",
                     strerror(errno ? errno : EIO));
    return rc ? rc : ATUNE__EIO;
}

int main(int argc, char **argv)
{
    atune__cli o;
    int rc;

    /* Profiles, manifests and journals are other people's text: nothing
     * printed may drive the terminal (docs/safety.md), a GPU worker's
     * progress included. A worker's stdout is a file its supervisor reads
     * and prints through its own guard, and stays plain: guarded too,
     * every worker of a cold default run on an H100 aborted at exit with
     * "corrupted size vs. prev_size" (2026-11-26), with or without the
     * guarded streams closed at exit; an AddressSanitizer build ran clean.
     * Not understood. */
    if (atune__term_guard_stdio(getenv(ATUNE__WORKER_FD) == NULL) != 0) {
        fputs("autotune: error: cannot set up standard output\n", stderr);
        return ATUNE__EOSERR;
    }
    if (argc > 1 && strcmp(argv[1], "header") == 0)
        return finish_stdout(atune__cmd_header(argc - 1, argv + 1));
    rc = parse(argc, argv, &o);

    if (rc)
        return finish_stdout(rc < 0 ? 0 : rc);
    o.argv = argv;
    if (strcmp(o.command, "list") == 0)
        rc = atune__cmd_list(&o);
    else if (strcmp(o.command, "check") == 0)
        rc = atune__cmd_check(&o);
    else if (strcmp(o.command, "show") == 0)
        rc = atune__cmd_show(&o);
    else if (strcmp(o.command, "compare") == 0)
        rc = atune__cmd_compare(&o);
    else if (strcmp(o.command, "merge") == 0)
        rc = atune__cmd_merge(&o);
    else if (o.simulate)
        rc = atune__cmd_simulate(&o);
    else
        rc = atune__cmd_tune(&o);
    return finish_stdout(rc);
}
