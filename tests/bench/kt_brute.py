#!/usr/bin/env python3
"""Kernel Tuner's brute force over the space of an autotune manifest (issue 34).

usage: kt_brute.py MANIFEST.ini KERNEL_FILE [--restrict EXPR]... [--device N]
                   [--size NAME] [--dry-run] [...]

Tunes KERNEL_FILE -- the same source autotune tunes, with the same macros --
with Kernel Tuner's tune_kernel(lang="cupy", strategy="brute_force") over
the manifest's space:

- [params]: every parameter with its values, ranges expanded as autotune
  expands them (LO..HI, step S, step *F, pow2); a parameter with one value
  (filter_height = 15) is a single-valued tune_params entry, which Kernel
  Tuner passes as a #define like the others.
- [constraints] and each --restrict EXPR (same syntax): one restriction
  function that evaluates them as autotune does (kt_copy.py's C expression
  evaluator: int64, truncating division, C precedence, ?:), so no C
  operator is read the way Python reads it.
- [launch] block: block_size_names; grid: `cdiv(VAR, P * Q)` per dimension
  becomes problem_size = VAR's value and grid_div = [P, Q], as a Kernel
  Tuner user writes it; any other grid expression is evaluated per
  configuration as a callable problem_size with grid_div [].
- [sizes]: the size named by --size (default the first).
- [args]: buffers as NumPy arrays (inputs seeded random: reals uniform in
  [-1, 1], integers in [-1000, 1000] without 0, or within a `fill =
  range(LO, HI)` or `uniform(LO, HI)`; outputs and scratch zeros),
  scalars evaluated at the size. [constants]: cmem_args; a symbol named
  like an input buffer gets that buffer's array, as autotune does.
- [template] nvrtc_options as compiler_options, with -I for the
  manifest's folder and its include_dirs (Kernel Tuner compiles the
  source as a string, so headers beside it are not found otherwise).
- No `answer`: as kt_copy.py, Kernel Tuner checks nothing.

Prints one JSON line on stdout, as kt_copy.py does: {"tool": "kernel_tuner",
"wall_s": tune_kernel's seconds, "configs": evaluated, "valid": ran,
"best": {params..., "time_ms", "metric", "unit"}, ...}; everything Kernel
Tuner prints goes to stderr. Exit status: 0 ok, 1 Kernel Tuner evaluated
another number of configurations than the space has (or found no valid
one; or --dry-run: its space differs from the translation's), 2 bad usage
or a manifest this script cannot translate.

--dry-run needs no GPU, no cupy and no NumPy: it prints the translation
(the space's size, the configurations the constraints keep, the grid and
block, the arguments) and, when kernel_tuner imports, builds the space with
Kernel Tuner's own Searchspace and checks its count and every
configuration's grid and block against the manifest's expressions.
"""

import argparse
import configparser
import contextlib
import itertools
import json
import os
import re
import shutil
import sys
import tempfile
import time
from pathlib import Path

T_START = time.perf_counter()
sys.path.insert(0, str(Path(__file__).resolve().parent))
from kt_copy import (CExpr, ExprError, device_attributes, fake_attributes,  # noqa: E402
                     pad_cupy_uuid, parse_sizes, read_manifest, split_top, summarize)

# NumPy dtypes of the manifest's scalar types (docs/manifest.md).
DTYPES = {"char": "int8", "int": "int32", "uint": "uint32", "long": "int64",
          "ulong": "uint64", "float": "float32", "double": "float64"}
REALS = ("float", "double")
_RANGE = re.compile(r"^(.+?)\.\.(.+?)(?:\s+(step\s+\*?\s*.+|pow2))?$")


def one_line(text):
    """A value that continues on indented lines, as one line."""
    return " ".join(text.split())


def param_values(name, text, env):
    """A [params] value list: constant expressions and ranges, the first
    place of a value kept (docs/manifest.md, "Parameters and values")."""
    out = []
    for part in split_top(one_line(text)):
        m = _RANGE.match(part)
        if not m:
            vals = [CExpr(part)(env)]
        else:
            lo, hi, how = CExpr(m.group(1))(env), CExpr(m.group(2))(env), m.group(3)
            vals = []
            if how is None or how.startswith("step") and "*" not in how:
                step = 1 if how is None else CExpr(how[4:].strip())(env)
                if step < 1:
                    raise ExprError(f"{name}: step {step} < 1")
                vals = list(range(lo, hi + 1, step))
            elif how == "pow2":
                v = 1
                while v <= hi:
                    if v >= lo:
                        vals.append(v)
                    v *= 2
            else:
                f = CExpr(how[4:].strip().lstrip("*").strip())(env)
                if f < 2 or lo < 1:
                    raise ExprError(f"{name}: step *{f} from {lo}")
                v = lo
                while v <= hi:
                    vals.append(v)
                    v *= f
            if not vals:
                raise ExprError(f"{name}: empty range {part!r}")
        for v in vals:
            if v not in out:
                out.append(v)
    return out


class Space:
    """A manifest's space, launch and arguments as Kernel Tuner arguments."""

    def __init__(self, ini, size, dev, restrict):
        m = read_manifest(ini)
        for sec in ("template", "params", "launch", "args"):
            if not m.has_section(sec):
                raise ExprError(f"no [{sec}] section (a launch sequence, [launch.NAME], "
                                "is not translated)")
        self.kernel = one_line(m.get("template", "kernel"))
        if re.search(r"[<$]", self.kernel):
            raise ExprError(f"kernel = {self.kernel}: a name expression with template "
                            "arguments or ${...} is not translated")
        if not m.has_option("sizes", size):
            raise ExprError(f"no size {size!r} in [sizes]")
        self.size_name = size
        self.sizes = parse_sizes(one_line(m.get("sizes", size)))
        self.env = dict(self.sizes)
        self.env.update(dev)
        self.params = {k: param_values(k, v, self.env) for k, v in m.items("params")}
        clash = set(self.params) & set(self.env)
        if clash:
            raise ExprError(f"parameter names clash with variables: {sorted(clash)}")
        self.constraints = [(k, CExpr(one_line(v))) for k, v in
                            (m.items("constraints") if m.has_section("constraints") else [])]
        self.constraints += [(f"--restrict {i + 1}", CExpr(e)) for i, e in enumerate(restrict)]
        self._launch(m)
        self.work = CExpr(one_line(m.get("template", "work")))(self.env)
        self.metric = m.get("template", "metric").strip()
        opts = m.get("template", "nvrtc_options", fallback="")
        self.compiler_options = one_line(opts).split() if opts.strip() else []
        # autotune looks for headers (#include "x.h", --pre-include=x.h) in
        # the manifest's folder; Kernel Tuner compiles the source as a
        # string, so it is told where.
        here = Path(ini).resolve().parent
        incs = one_line(m.get("template", "include_dirs", fallback=""))
        self.compiler_options += [f"-I{here / d.strip()}" for d in
                                  [".", *(incs.split(",") if incs else [])]]
        self.args = [(k, self._arg(k, v)) for k, v in m.items("args")]
        self.constants = [(k, self._arg(k, v)) for k, v in
                          (m.items("constants") if m.has_section("constants") else [])]
        for name, c in self.constraints:
            for n in c.names:
                if n not in self.params and n not in self.env:
                    raise ExprError(f"constraint {name}: unknown name {n!r}")

    def _launch(self, m):
        block = split_top(one_line(m.get("launch", "block")))
        grid = split_top(one_line(m.get("launch", "grid")))
        shared = one_line(m.get("launch", "shared", fallback="0"))
        if CExpr(shared)(self.env) != 0:
            raise ExprError("[launch] shared: dynamic shared memory is not translated")
        if not 1 <= len(grid) <= 3 or not 1 <= len(block) <= 3:
            raise ExprError("[launch]: 1 to 3 dimensions")
        self.block_names = []
        for i, b in enumerate(block):
            if b in self.params:
                self.block_names.append(b)
            elif b.strip() == "1" and i > 0:
                self.block_names.append(f"__unit_{i}")  # not a parameter: 1
            else:
                raise ExprError(f"[launch] block = {', '.join(block)}: each dimension must "
                                "be one parameter (or 1)")
        self.grid_exprs = [CExpr(g) for g in grid]
        self.grid_text = ", ".join(grid)
        # cdiv(VAR, P * Q * ...) with VAR a size variable, P, Q parameters:
        # Kernel Tuner's own problem_size and grid_div_*.
        native = []
        for g in grid:
            mm = re.fullmatch(r"cdiv\(\s*([A-Za-z_]\w*)\s*,\s*([\w\s*]+)\)", g)
            divs = [d.strip() for d in mm.group(2).split("*")] if mm else []
            if mm and mm.group(1) in self.sizes and divs and all(d in self.params for d in divs):
                native.append((self.sizes[mm.group(1)], divs))
            else:
                native = None
                break
        self.native_grid = native

    def _arg(self, name, text):
        """'float[w * h] output' or 'long n' -> a description."""
        text = one_line(text)
        head, _, opts = text.partition(",")
        fill = None
        # fill = range(LO, HI) / uniform(LO, HI): the generator's bounds,
        # as autotune fills them (the elements themselves differ).
        mf = re.search(r"\bfill\s*=\s*(range|uniform)\s*\(([^,()]+),([^,()]+)\)", opts)
        if mf:
            opts = opts[:mf.start()] + opts[mf.end():]
            if mf.group(1) == "range":
                fill = ("range", CExpr(mf.group(2).strip())(self.env),
                        CExpr(mf.group(3).strip())(self.env))
            else:
                fill = ("uniform", float(mf.group(2)), float(mf.group(3)))
        opts = [o.split("=")[0].strip() for o in opts.split(",")] if opts.strip(" ,") else []
        mm = re.fullmatch(r"(\w+)\s*\[(.+)\]\s+(\w+)", head.strip())
        if mm:
            typ, count, role = mm.group(1), CExpr(mm.group(2))(self.env), mm.group(3)
            if typ not in DTYPES:
                raise ExprError(f"{name}: element type {typ} is not translated")
            if role not in ("input", "output", "inout", "scratch"):
                raise ExprError(f"{name}: role {role}")
            if "fill" in opts:
                raise ExprError(f"{name}: a fill other than range(LO, HI) or "
                                "uniform(LO, HI) is not translated")
            if fill and (fill[0] == "range") == (typ in REALS):
                raise ExprError(f"{name}: fill = {fill[0]} on a {typ} buffer")
            if fill and role not in ("input", "inout"):
                raise ExprError(f"{name}: fill = on an {role} buffer")
            d = {"kind": "buffer", "type": typ, "count": count, "role": role}
            if fill:
                d["fill"] = list(fill)
            return d
        mm = re.fullmatch(r"(\w+)\s+(.+)", head.strip())
        if not mm or mm.group(1) not in DTYPES:
            raise ExprError(f"{name}: {text!r} is not translated")
        if mm.group(1) in REALS:
            return {"kind": "scalar", "type": mm.group(1), "value": float(mm.group(2))}
        return {"kind": "scalar", "type": mm.group(1), "value": CExpr(mm.group(2))(self.env)}

    def env_of(self, p):
        e = dict(self.env)
        e.update((k, int(p[k])) for k in self.params)
        return e

    def valid(self, p):
        """Kernel Tuner's restriction: one function of the whole configuration."""
        e = self.env_of(p)
        return all(c(e) != 0 for _, c in self.constraints)

    def grid(self, p):
        e = self.env_of(p)
        return [int(g(e)) for g in self.grid_exprs] + [1] * (3 - len(self.grid_exprs))

    def block(self, p):
        return [int(p[b]) if b in p else 1 for b in self.block_names] + \
               [1] * (3 - len(self.block_names))

    def enumerate(self):
        """The configurations the constraints keep, first parameter slowest
        (autotune's order), with the device's limit on threads per block."""
        names = list(self.params)
        for vals in itertools.product(*self.params.values()):
            p = dict(zip(names, vals))
            b = self.block(p)
            if b[0] * b[1] * b[2] <= self.env["max_threads_per_block"] and self.valid(p):
                yield p

    def kt_options(self):
        """What shapes the space and the launches in tune_kernel."""
        names = [b for b in self.block_names if not b.startswith("__unit_")]
        o = {"block_size_names": names,
             "restrictions": [self.valid] if self.constraints else None}
        if self.native_grid:
            o["problem_size"] = tuple(s for s, _ in self.native_grid)
            for axis, (_, divs) in zip("xyz", self.native_grid):
                o["grid_div_" + axis] = divs
        else:
            o["problem_size"] = lambda p: tuple(self.grid(p)[:len(self.grid_exprs)])
            for axis in "xyz"[:len(self.grid_exprs)]:
                o["grid_div_" + axis] = []
        return o

    def describe(self):
        o = self.kt_options()
        return {"kernel": self.kernel, "size": self.size_name,
                "sizes": self.sizes, "params": self.params,
                "space": len(list(itertools.product(*self.params.values()))),
                "constraints": [n for n, _ in self.constraints],
                "block_size_names": o["block_size_names"],
                "problem_size": o["problem_size"] if self.native_grid else "callable",
                "grid_div": {k[-1]: v for k, v in o.items() if k.startswith("grid_div_")},
                "grid": self.grid_text,
                "compiler_options": self.compiler_options,
                "args": [[k, a["kind"], a["type"], a.get("count", a.get("value")),
                          a.get("role", "value")] + ([a["fill"]] if "fill" in a else [])
                         for k, a in self.args],
                "cmem_args": [k for k, _ in self.constants]}


def dry_run(space):
    configs = list(space.enumerate())
    doc = {"tool": "kernel_tuner", "dry_run": True, "configs": len(configs),
           "translation": space.describe(), "env": space.env}
    try:
        from kernel_tuner.searchspace import Searchspace
        from kernel_tuner import util
    except ImportError as e:
        doc["kernel_tuner"] = f"not imported ({e}): the translation only"
        return doc, 0
    o = space.kt_options()
    names = util.check_block_size_params_names_list(o["block_size_names"], space.params)
    util.append_default_block_size_names(names)
    ss = Searchspace(space.params, o["restrictions"], space.env["max_threads_per_block"])
    kt = [dict(zip(space.params, c)) for c in ss.sorted_list()]
    doc["kernel_tuner"] = getattr(__import__("kernel_tuner"), "__version__", "?")
    doc["kt_configs"] = len(kt)
    bad = 0
    grid_div = tuple(o.get("grid_div_" + a) for a in "xyz")
    for p in kt:
        threads, grid = util.setup_block_and_grid(o["problem_size"], grid_div, p, names)
        if list(grid) != space.grid(p) or list(threads) != space.block(p):
            if bad < 5:
                print(f"kt_brute: {p}: Kernel Tuner launches {threads} x {grid}, the "
                      f"manifest {space.block(p)} x {space.grid(p)}", file=sys.stderr)
            bad += 1
    key = lambda p: tuple(p[k] for k in space.params)  # noqa: E731
    if sorted(map(key, kt)) != sorted(map(key, configs)):
        print(f"kt_brute: Kernel Tuner's space has {len(kt)} configurations, the "
              f"translation {len(configs)}, or other ones", file=sys.stderr)
        bad += 1
    doc["launch_mismatches"] = bad
    doc["sample"] = [dict(p, threads=space.block(p), grid=space.grid(p)) for p in kt[:3]]
    return doc, 1 if bad else 0


def make_arrays(space, seed):
    import numpy as np
    rng = np.random.default_rng(seed)
    arrays = {}
    for name, a in space.args + space.constants:
        if name in arrays or a["kind"] != "buffer":
            continue
        dt = np.dtype(DTYPES[a["type"]])
        if a["role"] in ("input", "inout"):
            fill = a.get("fill")
            if fill and fill[0] == "range":
                x = rng.integers(fill[1], fill[2] + 1, size=a["count"]).astype(dt)
            elif fill:
                x = rng.uniform(fill[1], fill[2], size=a["count"]).astype(dt)
            elif a["type"] in REALS:
                x = rng.uniform(-1.0, 1.0, size=a["count"]).astype(dt)
            elif a["type"] in ("uint", "ulong"):
                x = rng.integers(1, 1001, size=a["count"]).astype(dt)
            else:
                x = rng.integers(-1000, 1000, size=a["count"]).astype(dt)
                x[x >= 0] += 1
        else:
            x = np.zeros(a["count"], dtype=dt)
        arrays[name] = x
    args = [arrays[k] if a["kind"] == "buffer" else np.dtype(DTYPES[a["type"]]).type(a["value"])
            for k, a in space.args]
    # A symbol named like an input buffer has that buffer's array (as
    # autotune gives it that buffer's contents).
    cmem = {k: arrays[k] for k, _ in space.constants}
    return args, cmem


def tune(space, source, args):
    import numpy as np  # noqa: F401
    import kernel_tuner
    from kernel_tuner import tune_kernel

    pad_cupy_uuid()
    t0 = time.perf_counter()
    kargs, cmem = make_arrays(space, args.seed)
    setup_s = time.perf_counter() - t0
    o = space.kt_options()
    expected = sum(1 for _ in space.enumerate())
    os.chdir(tempfile.gettempdir())  # Kernel Tuner's temp_* files on errors
    t1 = time.perf_counter()
    with contextlib.redirect_stdout(sys.stderr):
        results, env = tune_kernel(space.kernel, source, o["problem_size"], kargs,
                                   space.params, grid_div_x=o.get("grid_div_x"),
                                   grid_div_y=o.get("grid_div_y"),
                                   grid_div_z=o.get("grid_div_z"),
                                   restrictions=o["restrictions"],
                                   block_size_names=o["block_size_names"],
                                   cmem_args=cmem or None,
                                   compiler_options=space.compiler_options,
                                   lang="cupy", strategy="brute_force",
                                   device=args.device, iterations=args.iterations,
                                   quiet=not args.verbose, verbose=args.verbose)
    wall_s = time.perf_counter() - t1
    unit = space.metric
    doc = {"tool": "kernel_tuner", "version": getattr(kernel_tuner, "__version__", None),
           "device": env.get("device_name"), "kernel": space.kernel,
           "size": ",".join(f"{k}={v}" for k, v in space.sizes.items()),
           "verify": False, "iterations": args.iterations, "wall_s": round(wall_s, 3),
           "setup_s": round(setup_s, 3), "expected_configs": expected, "metric_unit": unit}
    doc.update(summarize(results, env, space.params, space.work / 1e9))
    best = doc["best"]
    if best:
        best["unit"] = unit
        if unit == "GB/s":  # kt_copy.py's names, which the summary also reads
            best.update(gbs=best["metric"], median_gbs=best["median_metric"])
    doc["total_s"] = round(time.perf_counter() - T_START, 3)
    return doc


def main(argv=None):
    ap = argparse.ArgumentParser(
        description="Kernel Tuner (cupy backend) brute force over an autotune manifest's "
                    "space; prints one JSON line.")
    ap.add_argument("manifest", help="the template's NAME.ini")
    ap.add_argument("kernel_file", help="the .cu file both tools compile")
    ap.add_argument("--restrict", action="append", default=[], metavar="EXPR",
                    help="one more constraint, in the manifest's syntax (repeatable)")
    ap.add_argument("--size", help="the [sizes] entry (default the first)")
    ap.add_argument("--device", type=int, default=0, help="GPU ordinal (default 0)")
    ap.add_argument("--iterations", type=int, default=7,
                    help="timed launches per configuration (Kernel Tuner's default 7)")
    ap.add_argument("--seed", type=int, default=1, help="input generator seed")
    ap.add_argument("--cupy-cache", metavar="DIR",
                    help="CuPy kernel cache folder (default: a fresh temporary one, "
                         "so every configuration is compiled, as on a first run)")
    ap.add_argument("--dry-run", action="store_true",
                    help="no GPU: print the translation and check Kernel Tuner's space "
                         "and launches against it")
    ap.add_argument("--sm-count", type=int, default=132,
                    help="SM count for --dry-run (on a GPU it is read through cupy)")
    ap.add_argument("--verbose", action="store_true",
                    help="Kernel Tuner's per-configuration lines (on stderr)")
    args = ap.parse_args(argv)
    if args.iterations < 1 or args.sm_count < 1:
        ap.error("--iterations and --sm-count must be >= 1")
    ini = Path(args.manifest)
    try:
        source = Path(args.kernel_file).read_text(encoding="utf-8")
        size = args.size
        if size is None:
            m = read_manifest(ini)
            size = m.options("sizes")[0] if m.has_section("sizes") and m.options("sizes") \
                else None
            if size is None:
                raise ExprError("no [sizes]")
    except (OSError, configparser.Error, ValueError, ExprError) as e:
        print(f"kt_brute: {ini}: {e}", file=sys.stderr)
        return 2

    tmp_cache = None
    rc = 0
    try:
        if args.dry_run:
            space = Space(ini, size, fake_attributes(args.sm_count), args.restrict)
            doc, rc = dry_run(space)
        else:
            if args.cupy_cache:
                os.environ["CUPY_CACHE_DIR"] = args.cupy_cache
            else:
                tmp_cache = tempfile.mkdtemp(prefix="kt-cupy-cache-")
                os.environ["CUPY_CACHE_DIR"] = tmp_cache
            space = Space(ini, size, device_attributes(args.device), args.restrict)
            doc = tune(space, source, args)
            doc["cupy_cache"] = args.cupy_cache or "fresh"
    except (configparser.Error, ValueError, ExprError, ZeroDivisionError) as e:
        print(f"kt_brute: {ini}: {e}", file=sys.stderr)
        return 2
    finally:
        if tmp_cache:
            shutil.rmtree(tmp_cache, ignore_errors=True)

    print(json.dumps(doc), flush=True)
    if args.dry_run:
        return rc
    if doc["configs"] != doc["expected_configs"]:
        print(f"kt_brute: Kernel Tuner evaluated {doc['configs']} configurations, the "
              f"space has {doc['expected_configs']}", file=sys.stderr)
        return 1
    if not doc.get("best"):
        print("kt_brute: no valid configuration", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
