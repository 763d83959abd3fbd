#!/usr/bin/env python3
"""kt_space.py -- Kernel Tuner's search-space construction on the space of
one autotune manifest, for tests/bench/space_bench.sh (issue 21).

Reads [params] and [constraints] of MANIFEST.ini, turns the constraints
into Kernel Tuner restrictions (C's && || ! become and or not; the
manifests measured here use nothing else that Python reads differently),
adds --extra restrictions (the device limits autotune applies on top:
threads per block, shared memory) and times
kernel_tuner.searchspace.Searchspace (python-constraint2, Kernel Tuner's
default solver) building it. Prints one line of JSON: the space, the valid
configurations, the seconds of construction, and an FNV-1a checksum of the
valid configurations' indices in autotune's order (first parameter
slowest), to compare with autotune's. Peak memory: run it under
/usr/bin/time -v.

Optional benchmark dependency: pip install 'kernel_tuner==1.4.*' (in a
virtual environment; not needed to build or test autotune).

usage: kt_space.py MANIFEST.ini [--extra EXPR]...
"""
import argparse
import configparser
import json
import re
import sys
import time


def read_manifest(path):
    ini = configparser.ConfigParser(inline_comment_prefixes=(";", "#"),
                                    comment_prefixes=(";", "#"),
                                    interpolation=None)
    ini.optionxform = str
    ini.read(path)
    params = {k: [int(v) for v in s.split(",")]
              for k, s in ini["params"].items()}
    constraints = list(ini["constraints"].values()) \
        if ini.has_section("constraints") else []
    return params, constraints


def to_python(expr):
    expr = expr.replace("&&", " and ").replace("||", " or ")
    return re.sub(r"!(?!=)", " not ", expr)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("manifest")
    ap.add_argument("--extra", action="append", default=[])
    a = ap.parse_args()
    params, constraints = read_manifest(a.manifest)
    restrictions = [to_python(c) for c in constraints] + a.extra
    from kernel_tuner.searchspace import Searchspace
    t0 = time.perf_counter()
    ss = Searchspace(params, restrictions, 1 << 30)
    seconds = time.perf_counter() - t0
    names = list(params)
    strides, s = [], 1
    for n in reversed(names):
        strides.insert(0, s)
        s *= len(params[n])
    pos = [{v: i for i, v in enumerate(params[n])} for n in names]
    index = sorted(sum(pos[p][c[p]] * strides[p] for p in range(len(names)))
                   for c in ss.list)
    h = 1469598103934665603
    for i in index:
        h = ((h ^ i) * 1099511628211) & (2**64 - 1)
    print(json.dumps({"space": s, "valid": len(index), "seconds": seconds,
                      "checksum": "%016x" % h}))


if __name__ == "__main__":
    sys.exit(main())
