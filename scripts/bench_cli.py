#!/usr/bin/env python
"""Whole-process timing of the tensorcli console script against `python -c "import torch; ..."`.

    python scripts/bench_cli.py            # median of 15 runs each
    python scripts/bench_cli.py --runs 41

Each command is started as a new process (what a shell script pays per call) with its output
captured through a pipe; the median wall time of N runs is reported, after warm-up runs. The
first warm-up runs with bytecode writing allowed so that __pycache__ exists, as it does for any
installed package (PYTHONDONTWRITEBYTECODE=1 otherwise recompiles core on every run).

`run(runs)` returns [(name, tensorcli_seconds, torch_seconds)] for scripts/bench.py.
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
TORCH_CODE = ("import torch; print(torch.gather(torch.tensor({x}), {dim}, torch.tensor({index})))"
              .format(x=X, dim=DIM, index=INDEX))


def tensorcli_path() -> str:
    """The console script next to this interpreter (a pyenv shim would add its own start-up time)."""
    here = os.path.join(os.path.dirname(sys.executable), "tensorcli")
    found = here if os.path.exists(here) else shutil.which("tensorcli")
    if not found:
        raise SystemExit("tensorcli is not installed: pip install -e . --no-deps")
    return found


def commands() -> dict:
    return {
        "tensorcli gather (2x2, dim=1)": [tensorcli_path(), "gather", X, "--dim", DIM, "--index", INDEX],
        "python -c 'import torch; torch.gather(...)'": [sys.executable, "-c", TORCH_CODE],
        "python -c pass": [sys.executable, "-c", "pass"],
        "python -c 'import numpy'": [sys.executable, "-c", "import numpy"],
    }


def wall(cmd, env) -> float:
    t = time.perf_counter()
    p = subprocess.run(cmd, capture_output=True, env=env)
    dt = time.perf_counter() - t
    if p.returncode != 0:
        raise RuntimeError(f"{cmd[:2]} failed: {p.stderr.decode(errors='replace')[-500:]}")
    return dt


def measure(runs: int = 15, warmup: int = 2) -> dict:
    """{name: [seconds...]} — runs are interleaved so machine load affects all commands alike."""
    env = dict(os.environ)
    cmds = commands()
    warm_env = {k: v for k, v in env.items() if k != "PYTHONDONTWRITEBYTECODE"}
    for cmd in cmds.values():
        wall(cmd, warm_env)
        for _ in range(max(warmup - 1, 0)):
            wall(cmd, env)
    times = {name: [] for name in cmds}
    for _ in range(runs):
        for name, cmd in cmds.items():
            times[name].append(wall(cmd, env))
    return times


def run(runs: int = 15):
    """[(name, tensorcli_seconds, torch_seconds)] (medians) for scripts/bench.py."""
    t = measure(runs)
    names = list(t)
    return [("process: " + names[0] + " vs torch", statistics.median(t[names[0]]), statistics.median(t[names[1]]))]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=15)
    args = ap.parse_args(argv)
    t = measure(args.runs)
    print(f"median of {args.runs} runs (whole process, output to a pipe):")
    for name, xs in t.items():
        print(f"  {name:48} {statistics.median(xs) * 1e3:7.1f} ms   (min {min(xs) * 1e3:6.1f})")
    names = list(t)
    ratio = statistics.median(t[names[0]]) / statistics.median(t[names[1]])
    print(f"  tensorcli / torch: {ratio:.2f}x")


if __name__ == "__main__":
    main()
