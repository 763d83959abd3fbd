/* main.c -- autotune's command line: parse, validate, dispatch. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda.h>

#include "cli/commands.h"
#include "jit/jit.h"
#include "base/util.h"

static const char usage_text[] =
    "usage: autotune [tune] [--device N|all] [--kernel a,b] [--size NAME]\n"
    "                [--profile-dir DIR] [--templates DIR] [--journal FILE]\n"
    "                [--strategy S] [--budget EVALS] [--time-limit SECONDS]\n"
    "                [--seed N] [--launch-timeout SEC] [--no-resume]\n"
    "                [--evaluate PROFILE] [--json] [--quiet]\n"
    "       autotune tune --simulate JOURNAL [--kernel a,b] [--size NAME]\n"
    "                [--strategy S] [--budget EVALS] [--seed N] [--json]\n"
    "       autotune list [--templates DIR] [--kernel a,b] [--json]\n"
    "       autotune check [--templates DIR] [--kernel a,b] [--arch sm_XX]"
    " [--memory BYTES] [--json]\n"
    "       autotune show PROFILE...\n"
    "       autotune compare PROFILE... [--json] [--html FILE]\n"
    "       autotune header --kernel NAME [--templates DIR] [-o FILE]\n"
    "       autotune --help | --version\n";

static const char help_text[] =
    "\n"
    "Tunes CUDA kernel templates for a GPU: every configuration of each\n"
    "template is compiled with NVRTC, verified against the template's\n"
    "reference kernel and timed; the fastest verified configuration of\n"
    "each (kernel, problem size) is saved to PROFILE-DIR/<gpu>.ini.\n"
    "\n"
    "commands:\n"
    "  tune     tune on a GPU (the default command)\n"
    "  list     templates, their parameters and space sizes\n"
    "  check    compile every valid configuration (no GPU needed)\n"
    "  show     print profiles\n"
    "  compare  profiles of several GPUs side by side\n"
    "  header   a template's metadata as a C header (autotune header --help)\n"
    "\n"
    "options:\n"
    "  -d, --device N|all    GPU ordinal, or every GPU (default 0)\n"
    "  -k, --kernel a,b      only these templates\n"
    "  -s, --size NAME       only this problem size of each template\n"
    "  -p, --profile-dir DIR where profiles go (default profiles)\n"
    "  -t, --templates DIR   templates from DIR instead of the built-in set\n"
    "      --journal FILE    results journal (default PROFILE-DIR/<gpu>"
    ".journal)\n"
    "      --strategy S      search strategy (autotune --help lists them)\n"
    "      --budget EVALS    stop after this many evaluations per size\n"
    "      --time-limit SEC  stop after this many seconds per size\n"
    "      --launch-timeout SEC  kill a launch that runs longer (default:\n"
    "                        100x the reference kernel, 1 s to 60 s)\n"
    "      --no-resume       measure again what an unfinished run of the\n"
    "                        journal measured (default: resume from it)\n"
    "      --evaluate PROFILE  measure PROFILE's best configurations here\n"
    "                        and record how they do (compare shows it)\n"
    "      --simulate FILE   replay a journal's measurements instead of a GPU\n"
    "      --seed N          seed of the input data and of the search\n"
    "      --arch sm_XX      check: target architecture (default sm_90)\n"
    "      --memory BYTES    check: fail where a size needs more device memory\n"
    "      --no-cache        compile everything afresh (the module cache is\n"
    "                        $ATUNE_CACHE_DIR, else $XDG_CACHE_HOME/autotune)\n"
    "      --json            one JSON document on stdout\n"
    "      --html FILE       compare: also write an HTML report to FILE\n"
    "  -q, --quiet           no progress or summaries on stderr\n"
    "  -h, --help            this help\n"
    "  -V, --version         version and build\n"
    "\n"
    "exit status: 0 ok, 64 bad usage, 65 bad template/profile/journal or a\n"
    "configuration that does not compile (check), 66 missing input, 69 no\n"
    "CUDA driver or GPU, 70 internal or sticky CUDA error, 73 cannot write\n"
    "output, 74 I/O error, 130 interrupted.\n";

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
    OPT_MEMORY
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
    case 's':
    case 'p':
    case OPT_JOURNAL:
    case OPT_SEED:
    case OPT_STRATEGY:
    case OPT_BUDGET:
    case OPT_TIME_LIMIT:
    case OPT_SIMULATE:
    case OPT_NO_RESUME:
    case OPT_LAUNCH_TIMEOUT:
    case OPT_EVALUATE:
        return "tune";
    case 'k':
    case 't':
        return "tune list check";
    case OPT_ARCH:
    case OPT_MEMORY:
        return "check";
    case OPT_NO_CACHE:
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

static int parse_u64(const char *s, uint64_t *out)
{
    char *end;
    unsigned long long v;

    if (!*s || *s == '-')
        return -1;
    v = strtoull(s, &end, 0);
    if (*end)
        return -1;
    *out = v;
    return 0;
}

static int check_device(const char *s)
{
    uint64_t v;

    if (strcmp(s, "all") == 0)
        return 0;
    return parse_u64(s, &v) || v > 1024 ? -1 : 0;
}

static void version(void)
{
    int nv = atune__jit_version();

    printf("autotune %s (built with CUDA %d.%d, NVRTC %d.%d)\n",
           ATUNE_VERSION_STRING, CUDA_VERSION / 1000,
           CUDA_VERSION % 1000 / 10, nv / 1000, nv % 1000 / 10);
}

static int parse(int argc, char **argv, atune__cli *o)
{
    static const char *const commands[] = {"tune", "list", "check", "show",
                                           "compare"};
    int opt, known = 0;

    memset(o, 0, sizeof(*o));
    o->command = "tune";
    o->device = "0";
    o->profile_dir = "profiles";
    o->arch = "sm_90";
    o->seed = 0x5eed5eed12345678ULL;
    if (argc > 1 && argv[1][0] != '-') {
        for (size_t i = 0; i < sizeof(commands) / sizeof(*commands); i++)
            known |= strcmp(argv[1], commands[i]) == 0;
        if (!known)
            return usage_error("unknown command '%s'", argv[1]);
        o->command = argv[1];
        argv++;
        argc--;
    }
    opterr = 0;
    while ((opt = getopt_long(argc, argv, ":d:k:s:p:t:qhV", options, NULL)) !=
           -1) {
        if (opt == '?')
            return usage_error("unknown option '%s'", argv[optind - 1]);
        if (opt == ':')
            return usage_error("option '%s' needs a value", argv[optind - 1]);
        if (!applies(opt, o->command))
            return usage_error("option '%s' does not apply to this command",
                               argv[optind - 1]);
        switch (opt) {
        case 'd':
            if (check_device(optarg))
                return usage_error("invalid device '%s'", optarg);
            o->device = optarg;
            break;
        case 'k': o->kernels = optarg; break;
        case 's': o->size = optarg; break;
        case 'p': o->profile_dir = optarg; break;
        case 't': o->templates = optarg; break;
        case OPT_JOURNAL: o->journal = optarg; break;
        case OPT_ARCH:
            if (!atune__jit_arch_supported(optarg))
                return usage_error("NVRTC cannot target '%s'", optarg);
            o->arch = optarg;
            break;
        case OPT_SEED:
            if (parse_u64(optarg, &o->seed))
                return usage_error("invalid seed '%s'", optarg);
            break;
        case OPT_JSON: o->json = 1; break;
        case OPT_STRATEGY: o->strategy = optarg; break;
        case OPT_SIMULATE: o->simulate = optarg; break;
        case OPT_NO_CACHE: o->no_cache = 1; break;
        case OPT_HTML: o->html = optarg; break;
        case OPT_NO_RESUME: o->no_resume = 1; break;
        case OPT_EVALUATE: o->evaluate = optarg; break;
        case OPT_LAUNCH_TIMEOUT: {
            char *end;
            o->launch_timeout = strtod(optarg, &end);
            if (*end || end == optarg || !(o->launch_timeout > 0) ||
                o->launch_timeout > 86400)
                return usage_error("invalid launch timeout '%s'", optarg);
            break;
        }
        case OPT_MEMORY: {
            uint64_t v;
            if (parse_u64(optarg, &v) || v == 0 || v > INT64_MAX)
                return usage_error("invalid memory size '%s'", optarg);
            o->memory = (int64_t)v;
            break;
        }
        case OPT_BUDGET: {
            uint64_t v;
            if (parse_u64(optarg, &v) || v == 0 || v > INT64_MAX)
                return usage_error("invalid budget '%s'", optarg);
            o->budget = (int64_t)v;
            break;
        }
        case OPT_TIME_LIMIT: {
            char *end;
            o->time_limit = strtod(optarg, &end);
            if (*end || end == optarg || !(o->time_limit > 0))
                return usage_error("invalid time limit '%s'", optarg);
            break;
        }
        case 'q': o->quiet = 1; break;
        case 'h':
            fputs(usage_text, stdout);
            fputs(help_text, stdout);
            return -1;
        case 'V':
            version();
            return -1;
        }
    }
    o->files = argv + optind;
    o->nfiles = argc - optind;
    int takes_files = strcmp(o->command, "show") == 0 ||
                      strcmp(o->command, "compare") == 0;
    if (takes_files && o->nfiles == 0)
        return usage_error("%s needs a profile file", o->command);
    if (!takes_files && o->nfiles > 0)
        return usage_error("unexpected argument '%s'", o->files[0]);
    return 0;
}

int main(int argc, char **argv)
{
    atune__cli o;
    int rc;

    if (argc > 1 && strcmp(argv[1], "header") == 0)
        return atune__cmd_header(argc - 1, argv + 1);
    rc = parse(argc, argv, &o);

    if (rc)
        return rc < 0 ? 0 : rc;
    o.argv = argv;
    if (strcmp(o.command, "list") == 0)
        return atune__cmd_list(&o);
    if (strcmp(o.command, "check") == 0)
        return atune__cmd_check(&o);
    if (strcmp(o.command, "show") == 0)
        return atune__cmd_show(&o);
    if (strcmp(o.command, "compare") == 0)
        return atune__cmd_compare(&o);
    if (o.simulate)
        return atune__cmd_simulate(&o);
    return atune__cmd_tune(&o);
}
