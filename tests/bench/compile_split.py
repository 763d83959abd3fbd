#!/usr/bin/env python3
"""compile_split.py -- where a tune run's wall time went (issue 34).

    compile_split.py RUN.json [--max-modules-ratio 2] [--max-wait 0.25]

Reads `autotune ... --json` and prints, per (kernel, size) and in total,
the evaluations, the modules compiled by NVRTC and taken from the disk
cache, and the wall time split into waiting for NVRTC (compile_s), timing
(measure_s), verifying (verify_s), the final pick's rounds (final_s, 0
for runs from before it was counted apart) and the rest (framework_s). Exits 1
when the run compiled more than --max-modules-ratio modules per evaluation
or waited for NVRTC more than --max-wait of its wall time, 2 when the JSON
lacks the fields."""
import json
import sys


def main(argv):
    if len(argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    path, ratio, wait = argv[1], 2.0, 0.25
    args = argv[2:]
    while args:
        if args[0] == "--max-modules-ratio" and len(args) > 1:
            ratio = float(args[1])
        elif args[0] == "--max-wait" and len(args) > 1:
            wait = float(args[1])
        else:
            print(__doc__, file=sys.stderr)
            return 2
        args = args[2:]
    with open(path) as f:
        results = json.load(f)["results"]
    keys = ("evaluations", "modules_compiled", "modules_cached", "wall_s",
            "compile_s", "measure_s", "verify_s", "framework_s")
    tot = dict.fromkeys(keys, 0)
    tot["final_s"] = 0
    print("| kernel size | evaluated | compiled | cached | wall s | NVRTC wait s "
          "| timing s | verify s | final pick s | framework s | framework ms/eval |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for r in results:
        if any(k not in r for k in keys):
            print(f"{path}: a result lacks one of {keys}", file=sys.stderr)
            return 2
        for k in keys:
            tot[k] += r[k]
        tot["final_s"] += r.get("final_s", 0)
        # Later templates' modules compiled meanwhile (into the cache, where
        # they count again as cached): NVRTC's work all the same.
        tot["modules_compiled"] += r.get("modules_warmed", 0)
        ev = r["evaluations"]
        print(f"| {r['kernel']} {r['size']} | {ev} | {r['modules_compiled']} | "
              f"{r['modules_cached']} | {r['wall_s']:.2f} | {r['compile_s']:.2f} | "
              f"{r['measure_s']:.2f} | {r['verify_s']:.2f} | {r.get('final_s', 0):.2f} | "
              f"{r['framework_s']:.2f} | "
              f"{1e3 * r['framework_s'] / ev if ev else 0:.2f} |")
    ev = tot["evaluations"]
    share = tot["compile_s"] / tot["wall_s"] if tot["wall_s"] > 0 else 0
    print(f"total: {ev} evaluations, {tot['modules_compiled']} modules compiled "
          f"({tot['modules_compiled'] / ev if ev else 0:.2f} per evaluation), "
          f"{tot['modules_cached']} from the cache; wall {tot['wall_s']:.1f} s: "
          f"NVRTC wait {tot['compile_s']:.1f} s ({100 * share:.1f}%), timing "
          f"{tot['measure_s']:.1f} s, verify {tot['verify_s']:.1f} s, final pick "
          f"{tot['final_s']:.1f} s, framework "
          f"{tot['framework_s']:.1f} s ({1e3 * tot['framework_s'] / ev if ev else 0:.2f} ms per evaluation)")
    bad = 0
    if tot["modules_compiled"] > ratio * ev:
        print(f"FAIL: {tot['modules_compiled']} modules compiled for {ev} "
              f"evaluations (want <= {ratio:g}x)")
        bad = 1
    if share > wait:
        print(f"FAIL: {100 * share:.1f}% of the wall time waiting for NVRTC "
              f"(want <= {100 * wait:.0f}%)")
        bad = 1
    return bad


if __name__ == "__main__":
    sys.exit(main(sys.argv))
