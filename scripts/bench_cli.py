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
when one is missed.

    python scripts/bench_cli.py --big        # files larger than memory: 200 MB and 2 GB inputs

`--big` generates float32 .npy files of (rows, 256) in a temporary directory (deleted after; needs
2.5x the largest size free) and times, one process each, with peak RSS (os.wait4's ru_maxrss):
the commands `tensorcli show FILE`, `tensorcli sum FILE --dim 1 -o OUT.npy` and `tensorcli gather
FILE --dim 1 --index IDX.npy -o OUT.npy` (IDX: (rows, 2) int64; both op commands stream) against
a plain NumPy script doing the same work (np.load, compute, np.save). Targets: peak RSS <= 1.1x output + 256 MB, time <= 1.3x NumPy. `run(runs)` returns [(name, tensorcli_seconds, torch_seconds)] for scripts/bench.py.
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


BIG_SIZES = {"200 MB": 200 * 2**20, "2 GB": 2 * 2**30}
COLS = 256
NUMPY_CODE = """
import sys, numpy as np
op, path, out = sys.argv[1:4]
x = np.load(path)
if op == "show":
    f = x[np.isfinite(x)]
    print(f.min(), f.max(), f.mean(), f.std(ddof=1), np.isnan(x).sum(), np.isinf(x).sum())
elif op == "sum":
    np.save(out, x.sum(axis=1))
else:
    np.save(out, np.take_along_axis(x, np.load(sys.argv[4]), 1))
"""


def _rss_run(cmd, env):
    """(seconds, peak RSS bytes) of one child process."""
    t = time.perf_counter()
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
    _, status, usage = os.wait4(p.pid, 0)
    dt = time.perf_counter() - t
    err = p.stderr.read().decode(errors="replace")
    p.stderr.close()
    p.returncode = os.waitstatus_to_exitcode(status)
    if p.returncode != 0:
        raise RuntimeError(f"{cmd[:3]} failed: {err[-500:]}")
    return dt, usage.ru_maxrss * 1024


def _make_npy(path, nbytes):
    import numpy as np
    rows = nbytes // (4 * COLS)
    out = np.lib.format.open_memmap(path, mode="w+", dtype=np.float32, shape=(rows, COLS))
    base = np.random.default_rng(0).standard_normal((1 << 14, COLS), dtype=np.float32)
    for r in range(0, rows, base.shape[0]):
        k = min(base.shape[0], rows - r)
        out[r:r + k] = base[:k] * np.float32(1 + r / rows)
    out.flush()
    idx = np.stack([np.arange(rows) % COLS, (np.arange(rows) * 7) % COLS], 1)
    np.save(os.path.join(os.path.dirname(path), "idx.npy"), idx)   # gather's index, (rows, 2) int64
    return rows


def _work(cli, work, src, out):
    """The tensorcli command and the NumPy script for one piece of work."""
    idx = os.path.join(os.path.dirname(src), "idx.npy")
    ours = {"show": [cli, "show", src], "sum": [cli, "sum", src, "--dim", "1", "-o", out],
            "gather": [cli, "gather", src, "--dim", "1", "--index", idx, "-o", out]}[work]
    return ours, [sys.executable, "-c", NUMPY_CODE, work, src, out, idx]


def big(sizes=None) -> int:
    """Print the big-file table; exit status 1 when a target is missed."""
    import tempfile
    env = dict(environment(), PYTHONPATH=os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
               OPENBLAS_NUM_THREADS="1")
    cli, missed = tensorcli_path(), 0
    print(f"{'input':8} {'work':8} {'tensorcli s':>11} {'NumPy s':>8} {'ratio':>6} {'RSS MB':>8} "
          f"{'NumPy RSS':>9} {'output MB':>9}  target")
    for label, nbytes in (sizes or BIG_SIZES).items():
        with tempfile.TemporaryDirectory(dir=os.environ.get("TMPDIR")) as d:
            if shutil.disk_usage(d).free < 2.5 * nbytes:
                print(f"{label}: skipped (less than {2.5 * nbytes / 2**30:.1f} GB free)")
                continue
            src, out = os.path.join(d, "x.npy"), os.path.join(d, "o.npy")
            # in a child: a process's peak RSS is inherited by the children it forks (Linux keeps
            # the high-water mark across exec), so this process must stay small
            gen = subprocess.run([sys.executable, "-c", f"import bench_cli; print(bench_cli._make_npy({src!r}, {nbytes}))"],
                                 capture_output=True, text=True, check=True,
                                 env=dict(env, PYTHONPATH=os.path.dirname(os.path.abspath(__file__))))
            rows = int(gen.stdout)
            for work, out_bytes in (("show", 0), ("sum", rows * 4), ("gather", rows * 8)):
                ours, theirs = _work(cli, work, src, out)
                t, rss = _rss_run(ours, env)
                tn, rssn = _rss_run(theirs, env)
                ok = rss <= 1.1 * out_bytes + 256 * 2**20 and t <= 1.3 * tn
                missed += not ok
                print(f"{label:8} {work:8} {t:11.2f} {tn:8.2f} {t / tn:6.2f} {rss / 2**20:8.0f} "
                      f"{rssn / 2**20:9.0f} {out_bytes / 2**20:9.1f}  {'ok' if ok else 'MISSED'}")
    return 1 if missed else 0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=21)
    ap.add_argument("--torch", action="store_true", help="also time python -c 'import torch; ...'")
    ap.add_argument("--big", action="store_true", help="files larger than memory (200 MB and 2 GB inputs)")
    ap.add_argument("--size", choices=list(BIG_SIZES), action="append", help="with --big: only this input size")
    args = ap.parse_args(argv)
    if args.big:
        return big({k: BIG_SIZES[k] for k in args.size} if args.size else None)
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
