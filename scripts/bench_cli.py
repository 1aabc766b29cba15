#!/usr/bin/env python
"""Whole-process start-up of the tensorcli console script, against `python -c 'import numpy, typer, rich'`.

    python scripts/bench_cli.py              # median of 21 runs each, targets checked
    python scripts/bench_cli.py --runs 41

Like hyperfine: each command is a new process (what a shell script pays per call) with its output
captured through a pipe; runs are interleaved so machine load hits every command alike, and the
median wall time is reported. Bytecode caches are used: the warm-up runs without
PYTHONDONTWRITEBYTECODE (this machine sets it, which would recompile core on every run) so that
__pycache__ exists, as it does for any installed package, and the timed runs unset it too.

Targets (tensorcli / baseline): `gather` <= 1.3x, `--help` <= 1.5x, `ops` <= 1.3x; exit status 1
when one is missed. `run(runs)` returns [(name, tensorcli_seconds, torch_seconds)] for scripts/bench.py.
"""
from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import time

X, DIM, INDEX = "[[1,2],[3,4]]", "1", "[[0,0],[1,0]]"
BASELINE = "python -c 'import numpy, typer, rich'"
TARGETS = {"tensorcli gather (2x2, dim=1)": 1.3, "tensorcli --help": 1.5, "tensorcli ops": 1.3}
TORCH_CODE = ("import torch; print(torch.gather(torch.tensor({x}), {dim}, torch.tensor({index})))"
              .format(x=X, dim=DIM, index=INDEX))


def tensorcli_path() -> str:
    """The console script next to this interpreter (a pyenv shim would add its own start-up time)."""
    here = os.path.join(os.path.dirname(sys.executable), "tensorcli")
    found = here if os.path.exists(here) else shutil.which("tensorcli")
    if not found:
        raise SystemExit("tensorcli is not installed: pip install -e . --no-deps")
    return found


def commands(with_torch: bool = False) -> dict:
    cli = tensorcli_path()
    cmds = {
        BASELINE: [sys.executable, "-c", "import numpy, typer, rich"],
        "tensorcli gather (2x2, dim=1)": [cli, "gather", X, "--dim", DIM, "--index", INDEX],
        "tensorcli --help": [cli, "--help"],
        "tensorcli ops": [cli, "ops"],
        "python -c pass": [sys.executable, "-c", "pass"],
    }
    if with_torch:
        cmds["python -c 'import torch; torch.gather(...)'"] = [sys.executable, "-c", TORCH_CODE]
    return cmds


def environment() -> dict:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env.setdefault("COLUMNS", "100")
    return env


def wall(cmd, env) -> float:
    t = time.perf_counter()
    p = subprocess.run(cmd, capture_output=True, env=env)
    dt = time.perf_counter() - t
    if p.returncode != 0:
        raise RuntimeError(f"{cmd[:2]} failed: {p.stderr.decode(errors='replace')[-500:]}")
    return dt


def measure(runs: int = 21, warmup: int = 2, with_torch: bool = False) -> dict:
    """{name: [seconds...]}, runs interleaved."""
    env = environment()
    cmds = commands(with_torch)
    for cmd in cmds.values():
        for _ in range(warmup):
            wall(cmd, env)
    times = {name: [] for name in cmds}
    for _ in range(runs):
        for name, cmd in cmds.items():
            times[name].append(wall(cmd, env))
    return times


def run(runs: int = 15):
    """[(name, tensorcli_seconds, torch_seconds)] (medians) for scripts/bench.py."""
    t = measure(runs, with_torch=True)
    torch_name = next(n for n in t if "import torch" in n)
    name = "tensorcli gather (2x2, dim=1)"
    return [("process: " + name + " vs torch", statistics.median(t[name]), statistics.median(t[torch_name]))]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=21)
    ap.add_argument("--torch", action="store_true", help="also time python -c 'import torch; ...'")
    args = ap.parse_args(argv)
    t = measure(args.runs, with_torch=args.torch)
    base = statistics.median(t[BASELINE])
    print(f"median of {args.runs} runs (whole process, output to a pipe, bytecode cached):")
    missed = 0
    for name, xs in t.items():
        med = statistics.median(xs)
        line = f"  {name:48} {med * 1e3:7.1f} ms   (min {min(xs) * 1e3:6.1f})   {med / base:5.2f}x baseline"
        if name in TARGETS:
            ok = med / base <= TARGETS[name]
            missed += not ok
            line += f"   target <= {TARGETS[name]}x: {'ok' if ok else 'MISSED'}"
        print(line)
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
