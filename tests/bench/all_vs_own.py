#!/usr/bin/env python3
"""all_vs_own.py -- what `--device all` kept against each GPU's own best.

    all_vs_own.py PROFILE.ini GPU0.journal GPU1.journal ... [--tolerance F]

PROFILE.ini is the profile that GPUs of one model wrote together under
`autotune --device all`; the journals are each GPU's own
(`<slug>.gpuN.journal`). For every section it prints each GPU's own best
(configuration and time from its own journal), the configuration the
profile kept and the side-by-side figure merge by evidence recorded
(time_ns against previous_time_ns). A section passes when the kept
configuration is one of the GPUs' own bests (or was measured faster than
the one it met) and, where it met another GPU's best, was not measured
slower than it. Times of one configuration on two GPUs differ by the GPUs'
own noise, so the journals' figures are shown, not compared, beyond the
tolerance (default 3%). Exit 1 when a section fails. A benchmark tool of
the GPU script (tests/gpu.sh, step 'all', issue 17).
"""
import sys

from atune_files import ok_records, profile_sections


def read_journal(path):
    """(kernel, size) -> (best config string, its time) over ok records."""
    best = {}
    for kernel, size, config, t, _ in ok_records(path):
        key = (kernel, size)
        if key not in best or t < best[key][1]:
            best[key] = (config, t)
    return best


def config_of(section, like):
    """The section's configuration, in the order of a journal config."""
    names = [kv.split("=", 1)[0] for kv in like.split(",")]
    return ",".join(f"{n}={section.get(n, '?')}" for n in names)


def main(argv):
    tol = 0.03
    if "--tolerance" in argv:
        i = argv.index("--tolerance")
        tol = float(argv[i + 1])
        del argv[i:i + 2]
    if len(argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    profile, journals = argv[1], argv[2:]
    own = [read_journal(j) for j in journals]
    failed = 0
    print("section | " + " | ".join(f"gpu{i} own best (ns)" for i in range(len(own)))
          + " | kept (ns) | merge | verdict")
    for kernel, size, sec in profile_sections(profile):
        bests = [o.get((kernel, size)) for o in own]
        known = [b for b in bests if b]
        if not known:
            print(f"{kernel} {size} | no journal record | FAIL")
            failed += 1
            continue
        kept = config_of(sec, known[0][0])
        t = float(sec.get("time_ns", "nan"))
        prev = sec.get("previous", "-")
        pt = float(sec.get("previous_time_ns", "nan"))
        is_own = any(b and b[0] == kept for b in bests)
        # "replaced"/"kept" mean two configurations were timed side by side:
        # the one written must not be the slower of the two.
        paired_ok = not (prev in ("kept", "replaced") and pt == pt and t > pt * (1 + tol))
        # Against every GPU's own best as its journal recorded it, within
        # the noise between two GPUs of one model.
        fastest = min(b[1] for b in known)
        ok = paired_ok and (is_own or t <= fastest * (1 + tol))
        failed += not ok
        cols = [f"{b[0]} {b[1]:.0f}" if b else "-" for b in bests]
        merge = f"{prev} (previous {pt:.0f})" if pt > 0 else prev
        print(f"{kernel} {size} | " + " | ".join(cols)
              + f" | {kept} {t:.0f} | {merge} | {'ok' if ok else 'FAIL'}")
    print(f"SUMMARY all_vs_own: {failed} section(s) failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
