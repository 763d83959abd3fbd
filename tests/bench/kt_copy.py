#!/usr/bin/env python3
"""Kernel Tuner's brute force over autotune's copy space (issue 6, item 5).

Tunes templates/copy.cu -- the same source autotune tunes, with the same
macros -- with Kernel Tuner's tune_kernel(lang="cupy",
strategy="brute_force") over the parameter lists of templates/copy.ini,
its [constraints] (if any) and its [launch] grid and block, at the
problem size of [sizes] large (n = 2^28 ints), on int32 input from a
seeded generator (never zeros). By default no output check, as in the
anchor of design.md; --verify adds Kernel Tuner's answer= check.

Prints one JSON line on stdout:
  {"tool": "kernel_tuner", "wall_s": ..., "configs": N, "best": {params...,
   "time_ms": ..., "gbs": ...}, ...}
wall_s is the time of the tune_kernel() call; setup_s (input generation)
and total_s (since the script started, imports included) come beside it.
Everything Kernel Tuner prints goes to stderr. Exit status: 0 ok, 1 the
run did not evaluate the expected number of configurations (or found no
valid one), 2 bad usage or a manifest this script cannot translate.

--dry-run needs neither a GPU nor cupy: it builds the space and the grid
and block of every configuration with Kernel Tuner's own functions and
prints their count and a few of them.
"""

import argparse
import configparser
import contextlib
import json
import os
import re
import shutil
import sys
import tempfile
import time
from pathlib import Path

T_START = time.perf_counter()
ROOT = Path(__file__).resolve().parents[2]

# ---------------------------------------------------------------------------
# The manifest's C expressions (int64, C operators, cdiv/min/max), evaluated
# the way autotune does: truncating division, 0/1 comparisons, short-circuit.

_TOKEN = re.compile(r"\s*(?:(0[xX][0-9a-fA-F]+|\d+)|([A-Za-z_]\w*)|"
                    r"(<<|>>|<=|>=|==|!=|&&|\|\||[-+*/%<>!~&^|?:(),]))")
_BINARY = [  # lowest precedence first; ?: is handled above these
    ("||",), ("&&",), ("|",), ("^",), ("&",), ("==", "!="),
    ("<", "<=", ">", ">="), ("<<", ">>"), ("+", "-"), ("*", "/", "%"),
]
_FUNCS = {"cdiv": 2, "min": 2, "max": 2}
INT64_MIN, INT64_MAX = -(1 << 63), (1 << 63) - 1


class ExprError(Exception):
    pass


def _tokens(text):
    pos, out = 0, []
    text = text.rstrip()
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if not m or m.end() == pos:
            raise ExprError(f"unexpected character {text[pos:].strip()[:1]!r}")
        num, name, op = m.groups()
        out.append(("num", int(num, 0)) if num else
                   ("name", name) if name else ("op", op))
        pos = m.end()
    return out


def _check(v):
    if not INT64_MIN <= v <= INT64_MAX:
        raise ExprError("integer overflow")
    return v


def _div(a, b):
    if b == 0:
        raise ZeroDivisionError("division by zero")
    q = abs(a) // abs(b)
    return _check(q if (a < 0) == (b < 0) else -q)


def _mod(a, b):
    return a - b * _div(a, b)


_OPS = {
    "*": lambda a, b: _check(a * b), "/": _div, "%": _mod,
    "+": lambda a, b: _check(a + b), "-": lambda a, b: _check(a - b),
    "<<": lambda a, b: _check(a << b), ">>": lambda a, b: a >> b,
    "<": lambda a, b: int(a < b), "<=": lambda a, b: int(a <= b),
    ">": lambda a, b: int(a > b), ">=": lambda a, b: int(a >= b),
    "==": lambda a, b: int(a == b), "!=": lambda a, b: int(a != b),
    "&": lambda a, b: a & b, "^": lambda a, b: a ^ b, "|": lambda a, b: a | b,
}


class CExpr:
    """One manifest expression, compiled to a closure over a name dict."""

    def __init__(self, text):
        self.text = text
        self.names = set()
        self._t = _tokens(text)
        self._i = 0
        if not self._t:
            raise ExprError("empty expression")
        self._f = self._ternary()
        if self._i != len(self._t):
            raise ExprError(f"unexpected {self._t[self._i][1]!r}")
        del self._t

    def __call__(self, env):
        try:
            return self._f(env)
        except KeyError as e:
            raise ExprError(f"unknown name {e.args[0]!r} in {self.text!r}")

    def _peek(self):
        return self._t[self._i] if self._i < len(self._t) else (None, None)

    def _take(self, op=None):
        tok = self._peek()
        if op is not None and tok != ("op", op):
            raise ExprError(f"expected {op!r} in {self.text!r}")
        if tok[0] is None:
            raise ExprError(f"unexpected end of {self.text!r}")
        self._i += 1
        return tok

    def _ternary(self):
        cond = self._binary(0)
        if self._peek() != ("op", "?"):
            return cond
        self._take("?")
        a = self._ternary()
        self._take(":")
        b = self._ternary()
        return lambda e: a(e) if cond(e) else b(e)

    def _binary(self, level):
        if level == len(_BINARY):
            return self._unary()
        left = self._binary(level + 1)
        while self._peek()[0] == "op" and self._peek()[1] in _BINARY[level]:
            op = self._take()[1]
            right = self._binary(level + 1)
            if op == "&&":
                left = (lambda l, r: lambda e: int(bool(l(e)) and bool(r(e))))(left, right)
            elif op == "||":
                left = (lambda l, r: lambda e: int(bool(l(e)) or bool(r(e))))(left, right)
            else:
                left = (lambda f, l, r: lambda e: f(l(e), r(e)))(_OPS[op], left, right)
        return left

    def _unary(self):
        kind, val = self._peek()
        if kind == "op" and val in ("-", "+", "!", "~"):
            self._take()
            x = self._unary()
            return {"-": lambda e: _check(-x(e)), "+": x,
                    "!": lambda e: int(not x(e)), "~": lambda e: ~x(e)}[val]
        return self._primary()

    def _primary(self):
        kind, val = self._take()
        if kind == "num":
            return lambda e: val
        if kind == "op" and val == "(":
            inner = self._ternary()
            self._take(")")
            return inner
        if kind == "name" and self._peek() == ("op", "("):
            if val not in _FUNCS:
                raise ExprError(f"unknown function {val!r}")
            self._take("(")
            a = self._ternary()
            self._take(",")
            b = self._ternary()
            self._take(")")
            if val == "cdiv":
                return lambda e: _div(_check(a(e) + b(e) - 1), b(e))
            return (lambda e: min(a(e), b(e))) if val == "min" else (lambda e: max(a(e), b(e)))
        if kind == "name":
            self.names.add(val)
            return lambda e: e[val]
        raise ExprError(f"unexpected {val!r} in {self.text!r}")


# ---------------------------------------------------------------------------


def split_top(text):
    """Split at the commas outside parentheses: 'cdiv(n, 4), 1' -> 2 parts."""
    parts, depth, cur = [], 0, ""
    for ch in text:
        depth += (ch == "(") - (ch == ")")
        if ch == "," and depth == 0:
            parts.append(cur.strip())
            cur = ""
        else:
            cur += ch
    parts.append(cur.strip())
    return parts


def read_manifest(path):
    cp = configparser.ConfigParser(delimiters=("=",), comment_prefixes=(";", "#"),
                                   inline_comment_prefixes=(";",),
                                   interpolation=None, strict=True)
    cp.optionxform = str  # parameter names are case-sensitive
    with open(path, encoding="utf-8") as f:
        cp.read_file(f)
    return cp


def parse_sizes(text):
    """'n=268435456' or 'm=4096, n=4096' -> dict."""
    out = {}
    for part in text.split(","):
        k, _, v = part.partition("=")
        out[k.strip()] = int(v.strip(), 0)
    return out


def device_attributes(device):
    """sm_count and the other expression variables, from cupy (its
    Device.attributes, named like cudaDevAttr*, else the fields of
    cudaDeviceProp)."""
    import cupy as cp
    d = cp.cuda.Device(device)
    attrs = d.attributes
    props = None

    def get(attr, prop, default=None):
        nonlocal props
        if attr in attrs:
            return int(attrs[attr])
        if props is None:
            props = cp.cuda.runtime.getDeviceProperties(device)
        if prop in props:
            return int(props[prop])
        if default is None:
            raise RuntimeError(f"cupy reports neither {attr} nor {prop}")
        return default

    return {
        "sm_count": get("MultiProcessorCount", "multiProcessorCount"),
        "max_threads_per_block": get("MaxThreadsPerBlock", "maxThreadsPerBlock"),
        "max_shared_per_block": get("MaxSharedMemoryPerBlockOptin", "sharedMemPerBlockOptin",
                                    49152),
        "warp_size": get("WarpSize", "warpSize", 32),
        "cc": int(d.compute_capability),  # "90"
        "l2_bytes": get("L2CacheSize", "l2CacheSize", 0),
    }


def fake_attributes(sm_count):
    """For --dry-run: an H100 SXM unless --sm-count says otherwise."""
    return {"sm_count": sm_count, "max_threads_per_block": 1024,
            "max_shared_per_block": 232448, "warp_size": 32, "cc": 90,
            "l2_bytes": 52428800}


class Space:
    """The copy template's space as Kernel Tuner arguments."""

    def __init__(self, ini, sizes, dev):
        m = read_manifest(ini)
        self.kernel = m.get("template", "kernel")
        self.params = {k: [int(x, 0) for x in v.split(",")] for k, v in m.items("params")}
        self.constraints = [(k, CExpr(v)) for k, v in
                            (m.items("constraints") if m.has_section("constraints") else [])]
        block = split_top(m.get("launch", "block"))
        grid = split_top(m.get("launch", "grid"))
        shared = m.get("launch", "shared", fallback="0").strip()
        if len(block) != 1 or block[0] not in self.params:
            raise ExprError(f"[launch] block = {', '.join(block)}: this script handles "
                            "a 1-D block that is one parameter")
        if len(grid) != 1:
            raise ExprError("[launch] grid: this script handles a 1-D grid")
        if CExpr(shared)({}) != 0:
            raise ExprError("[launch] shared: this script handles shared = 0")
        self.block_name = block[0]
        self.grid = CExpr(grid[0])
        self.grid_text = grid[0]
        self.work = CExpr(m.get("template", "work"))
        self.args = [(k, v.split()) for k, v in m.items("args")]
        self.env = dict(sizes)
        self.env.update(dev)
        for name in list(self.grid.names) + [n for _, c in self.constraints for n in c.names]:
            if name not in self.params and name not in self.env:
                raise ExprError(f"unknown name {name!r} in {ini}")
        clash = set(self.params) & set(self.env)
        if clash:
            raise ExprError(f"parameter names clash with variables: {sorted(clash)}")

    def _env(self, p):
        e = dict(self.env)
        e.update((k, int(p[k])) for k in self.params)
        return e

    def restriction(self, p):
        """Kernel Tuner's monolithic restriction (one dict argument)."""
        e = self._env(p)
        return all(c(e) != 0 for _, c in self.constraints)

    def grid_blocks(self, p):
        """Kernel Tuner's problem_size callable: the grid itself (the grid
        divisor is 1), so grid = ceil(problem_size / 1) = the manifest's
        grid expression."""
        g = self.grid(self._env(p))
        if g < 1:
            raise ExprError(f"grid {g} < 1 for {p}")
        return int(g)

    def valid_count(self):
        """Configurations the manifest allows, counted here, without Kernel
        Tuner: what its brute force must evaluate (threads per block are
        within the device limit for every value of copy's BLOCK_SIZE)."""
        import itertools
        keys = list(self.params)
        return sum(1 for v in itertools.product(*self.params.values())
                   if self.restriction(dict(zip(keys, v))))

    def kt_restrictions(self):
        return [self.restriction] if self.constraints else None


def kt_options(space):
    """The arguments that shape the space and launches in tune_kernel."""
    return dict(
        problem_size=space.grid_blocks,  # callable(params) -> grid in blocks
        grid_div_x=[],                   # empty list: divide by 1
        block_size_names=[space.block_name],
        restrictions=space.kt_restrictions(),
    )


def make_input(n, seed):
    """ints in [-1000, 1000] without 0, like autotune's input buffers."""
    import numpy as np
    rng = np.random.default_rng(seed)
    x = rng.integers(-1000, 1000, size=n, dtype=np.int32)  # [-1000, 999]
    x[x >= 0] += 1                                          # [-1000, 1000] \ {0}
    return x


def dry_run(space, args):
    from kernel_tuner.searchspace import Searchspace
    from kernel_tuner import util
    names = util.check_block_size_params_names_list([space.block_name], space.params)
    util.append_default_block_size_names(names)
    o = kt_options(space)
    # as tune_kernel builds it
    ss = Searchspace(space.params, o["restrictions"], space.env["max_threads_per_block"])
    configs = ss.sorted_list()
    keys = list(space.params)
    sample = []
    for cfg in configs:
        p = dict(zip(keys, cfg))
        threads, grid = util.setup_block_and_grid(o["problem_size"], (o["grid_div_x"], None, None),
                                                  p, names)
        if grid[0] != space.grid_blocks(p):
            raise SystemExit(f"kt_copy: grid mismatch for {p}: {grid} vs {space.grid_blocks(p)}")
        if len(sample) < 7 or cfg == configs[-1]:
            sample.append({**p, "threads": list(threads), "grid": list(grid)})
    return {"tool": "kernel_tuner", "dry_run": True, "configs": len(configs),
            "space": {k: v for k, v in space.params.items()},
            "grid": space.grid_text, "env": space.env, "sample": sample}


def pad_cupy_uuid():
    """cupy turns cudaDeviceProp.uuid (char[16]) into bytes that end at the
    first zero byte, and Kernel Tuner's cupy backend then fails in
    uuid.UUID(bytes=...) ("bytes is not a 16-char string") on a GPU whose
    UUID holds a zero byte (one of the two-H200 host's, 2026-11-23). Kernel
    Tuner only records the UUID, so pad it back to 16 bytes."""
    import cupy as cp
    get = cp.cuda.runtime.getDeviceProperties

    def padded(device):
        props = get(device)
        u = props.get("uuid")
        if isinstance(u, bytes) and len(u) < 16:
            props = dict(props, uuid=u.ljust(16, b"\0"))
        return props

    cp.cuda.runtime.getDeviceProperties = padded


def tune(space, args):
    import numpy as np
    import kernel_tuner
    from kernel_tuner import tune_kernel

    pad_cupy_uuid()

    n = space.env["n"]
    source = Path(args.templates, "copy.cu").read_text(encoding="utf-8")
    t0 = time.perf_counter()
    inp = make_input(n, args.seed)
    out = np.full(n, np.iinfo(np.int32).min, dtype=np.int32)  # poison, not in the input
    kargs = [inp, out, np.int64(n)]
    setup_s = time.perf_counter() - t0

    opts = kt_options(space)
    extra = {}
    if args.verify:
        extra["answer"] = [None, inp, None]
        extra["atol"] = 0
    # On errors Kernel Tuner dumps sources as temp_* files into the working
    # directory: keep them out of the repository.
    os.chdir(tempfile.gettempdir())
    # Kernel Tuner prints progress and its best configuration on stdout:
    # keep stdout for our one JSON line.
    t1 = time.perf_counter()
    with contextlib.redirect_stdout(sys.stderr):
        results, env = tune_kernel(space.kernel, source, opts["problem_size"], kargs,
                                   space.params, grid_div_x=opts["grid_div_x"],
                                   restrictions=opts["restrictions"],
                                   block_size_names=opts["block_size_names"],
                                   lang="cupy", strategy="brute_force",
                                   device=args.device, iterations=args.iterations,
                                   quiet=not args.verbose, verbose=args.verbose, **extra)
    wall_s = time.perf_counter() - t1

    doc = {"tool": "kernel_tuner", "version": getattr(kernel_tuner, "__version__", None),
           "device": env.get("device_name"), "n": n, "verify": bool(args.verify),
           "iterations": args.iterations, "wall_s": round(wall_s, 3),
           "setup_s": round(setup_s, 3), "expected_configs": args.expect_configs}
    doc.update(summarize(results, env, space.params, space.work(space.env) / 1e9))
    if doc["best"]:
        doc["best"]["gbs"] = doc["best"].pop("metric")
        doc["best"]["median_gbs"] = doc["best"].pop("median_metric")
    doc["total_s"] = round(time.perf_counter() - T_START, 3)
    return doc


def summarize(results, env, params, per_launch):
    """What tune_kernel returned, for the JSON line (kt_brute.py's too): the
    configurations and the valid ones, errors by kind, Kernel Tuner's own
    time split, and the best (the lowest mean time) with its median and
    rate; per_launch: the GB or GFLOP one launch moves or computes."""
    ok = [r for r in results if r and "__error__" not in r and isinstance(r.get("time"), float)]
    errors = {}
    for r in results:
        if r and "__error__" in r:
            k = str(r["__error__"])
            errors[k] = errors.get(k, 0) + 1
    doc = {"configs": len(results), "valid": len(ok), "errors": errors, "best": None}
    tt = {k: env.get("total_" + k + "_time") for k in
          ("compile", "verification", "benchmark", "framework", "strategy")}
    if all(v is not None for v in tt.values()):
        doc["time_split_s"] = {k: round(v / 1000.0, 3) for k, v in tt.items()}
        doc["time_split_s"]["overhead"] = round(env.get("overhead_time", 0) / 1000.0, 3)
    if ok:
        b = min(ok, key=lambda r: r["time"])
        times = sorted(b.get("times") or [b["time"]])
        med = times[len(times) // 2] if len(times) % 2 else \
            (times[len(times) // 2 - 1] + times[len(times) // 2]) / 2
        best = {k: int(b[k]) for k in params}
        best.update(time_ms=round(b["time"], 6),
                    metric=round(per_launch / (b["time"] * 1e-3), 1),
                    median_ms=round(med, 6),
                    median_metric=round(per_launch / (med * 1e-3), 1))
        doc["best"] = best
    return doc


def main(argv=None):
    ap = argparse.ArgumentParser(
        description="Kernel Tuner (cupy backend) brute force over autotune's copy space; "
                    "prints one JSON line.")
    ap.add_argument("--size", default="large",
                    help="problem size of copy.ini's [sizes] (default large: n = 2^28)")
    ap.add_argument("--n", type=int, help="element count, overrides --size")
    ap.add_argument("--device", type=int, default=0, help="GPU ordinal (default 0)")
    ap.add_argument("--verify", action="store_true",
                    help="Kernel Tuner's output check (answer=, atol=0); slow at 2^28")
    ap.add_argument("--iterations", type=int, default=7,
                    help="timed launches per configuration (Kernel Tuner's default 7)")
    ap.add_argument("--seed", type=int, default=1, help="input generator seed")
    ap.add_argument("--templates", default=str(ROOT / "templates"),
                    help="folder with copy.cu and copy.ini (default the repo's templates/)")
    ap.add_argument("--expect-configs", type=int, default=None,
                    help="configurations Kernel Tuner must evaluate (default: the valid "
                         "configurations of copy.ini, counted by this script; 0: any)")
    ap.add_argument("--cupy-cache", metavar="DIR",
                    help="CuPy kernel cache folder (default: a fresh temporary one, "
                         "so every configuration is compiled, as on a first run)")
    ap.add_argument("--dry-run", action="store_true",
                    help="no GPU, no cupy: build the space and launch grids with Kernel "
                         "Tuner's functions and print them")
    ap.add_argument("--sm-count", type=int, default=132,
                    help="SM count for --dry-run (on a GPU it is read through cupy)")
    ap.add_argument("--verbose", action="store_true",
                    help="Kernel Tuner's per-configuration lines (on stderr)")
    args = ap.parse_args(argv)
    if args.iterations < 1 or (args.expect_configs or 0) < 0 or args.sm_count < 1:
        ap.error("--iterations and --sm-count must be >= 1, --expect-configs >= 0")
    if args.n is not None and args.n < 1:
        ap.error("--n must be >= 1")

    ini = Path(args.templates, "copy.ini")
    try:
        m = read_manifest(ini)
        if not m.has_option("sizes", args.size):
            ap.error(f"{ini}: no size {args.size!r} in [sizes]")
        sizes = parse_sizes(m.get("sizes", args.size))
        if args.n is not None:
            sizes["n"] = args.n
        if set(sizes) != {"n"}:
            raise ExprError(f"size {args.size!r}: expected only n")
    except (OSError, configparser.Error, ValueError, ExprError) as e:
        print(f"kt_copy: {ini}: {e}", file=sys.stderr)
        return 2

    tmp_cache = None
    try:
        if args.dry_run:
            space = Space(ini, sizes, fake_attributes(args.sm_count))
            if args.expect_configs is None:
                args.expect_configs = space.valid_count()
            doc = dry_run(space, args)
        else:
            # CuPy caches compiled modules on disk; a fresh folder makes this a
            # first run, like autotune's run with an empty module cache.
            if args.cupy_cache:
                os.environ["CUPY_CACHE_DIR"] = args.cupy_cache
            else:
                tmp_cache = tempfile.mkdtemp(prefix="kt-cupy-cache-")
                os.environ["CUPY_CACHE_DIR"] = tmp_cache
            space = Space(ini, sizes, device_attributes(args.device))
            if args.expect_configs is None:
                args.expect_configs = space.valid_count()
            doc = tune(space, args)
            doc["cupy_cache"] = args.cupy_cache or "fresh"
    except ExprError as e:
        print(f"kt_copy: {ini}: {e}", file=sys.stderr)
        return 2
    finally:
        if tmp_cache:
            shutil.rmtree(tmp_cache, ignore_errors=True)

    print(json.dumps(doc), flush=True)
    if args.expect_configs and doc["configs"] != args.expect_configs:
        print(f"kt_copy: Kernel Tuner evaluated {doc['configs']} configurations, "
              f"expected {args.expect_configs}", file=sys.stderr)
        return 1
    if not args.dry_run and not doc.get("best"):
        print("kt_copy: no valid configuration", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
