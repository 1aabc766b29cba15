#!/usr/bin/env python
"""Benchmark for `tensorcli check`: 1,000 small cases in one process (target: well under 5 s).

    python scripts/bench_check.py          # load / run / full command timings for 1,000 cases
    python scripts/bench_check.py 5000     # another count

`cases(torch)` gives the per-case timings for scripts/bench.py: one case of each kind run by the
check engine on core, and the same case on torch (the --against-torch path).
"""
from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

# Case templates: {i} makes names unique and varies the data a little.
TEMPLATES = (
    """[[case]]
name = "gather {i}"
op = "gather"
input = [[0.2, 0.3, 0.5], [0.1, 0.8, {f}]]
dim = 1
index = [[2], [1]]
expect = [[0.5], [0.8]]
expect_dtype = "float32"
""",
    """[[case]]
name = "backward weights {i}"
expr = "2 * x ** 2"
let = {{x = [1.0, 1.0, 1.0]}}
requires_grad = ["x"]
gradient = [0.1, 1.0, 0.0001]
expect_grad = {{x = [0.4, 4.0, 0.0004]}}
""",
    """[[case]]
name = "out of range {i}"
op = "gather"
input = [[1, 2]]
dim = 1
index = [[{j}]]
expect_error = "out of bounds"
""",
    """[[case]]
name = "sum {i}"
op = "sum"
input = [[1, 2, 3], [4, 5, {j}]]
dim = 1
expect = [6, {s}]
expect_shape = [2]
""",
    """[[case]]
name = "argmax gather {i}"
expr = "torch.gather(s, 1, s.argmax(dim=1, keepdim=True))"
let = {{s = [[0.1, 0.8, 0.3], [0.6, 0.2, 0.9]]}}
expect = [[0.8], [0.9]]
""",
)


def make_cases_text(n: int) -> str:
    parts = []
    for i in range(n):
        t = TEMPLATES[i % len(TEMPLATES)]
        j = 5 + i % 7
        parts.append(t.format(i=i, f=0.1, j=j, s=9 + j))
    return "\n".join(parts)


def write_cases(directory: str, n: int = 1000) -> str:
    path = os.path.join(directory, "bench_cases.toml")
    with open(path, "w", encoding="utf-8") as f:
        f.write(make_cases_text(n))
    return path


def cases(torch):
    """[(name, core_fn, torch_fn_or_None)]: one case of each kind through the check engine."""
    from tensorcli.services import cases, checks
    tmp = tempfile.mkdtemp(prefix="bench_check_")
    path = write_cases(tmp, len(TEMPLATES))
    loaded = cases.load_file(path)
    core_eng = checks._engine("core")
    torch_eng = checks._engine("torch") if torch is not None else None
    out = []
    for case in loaded:
        label = "check case: " + case.name.rsplit(" ", 1)[0]

        def core_fn(case=case):
            checks.check_outcome(case, checks._execute(case, core_eng))

        torch_fn = None
        if torch_eng is not None:
            def torch_fn(case=case):
                checks.check_outcome(case, checks._execute(case, torch_eng))
        out.append((label, core_fn, torch_fn))
    return out


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    n = int(argv[0]) if argv else 1000
    from tensorcli.services import cases, checks
    with tempfile.TemporaryDirectory() as tmp:
        path = write_cases(tmp, n)
        t0 = time.perf_counter()
        loaded = cases.load_file(path)
        t1 = time.perf_counter()
        rep = checks.run(loaded, files=[path])
        t2 = time.perf_counter()
        s = rep.summary()
        print(f"{n} cases: load {t1 - t0:.3f} s, run {t2 - t1:.3f} s "
              f"({(t2 - t1) / n * 1e3:.3f} ms/case); {s['passed']} passed, {s['failed']} failed, "
              f"{s['errors']} errors")
        junit = os.path.join(tmp, "r.xml")
        t0 = time.perf_counter()
        proc = subprocess.run([sys.executable, "-m", "tensorcli.app", "check", path, "--junit", junit],
                              cwd=ROOT, capture_output=True, text=True)
        t1 = time.perf_counter()
        print(f"tensorcli check (new process, Rich output, --junit): {t1 - t0:.3f} s, exit {proc.returncode}")
        t0 = time.perf_counter()
        proc = subprocess.run([sys.executable, "-m", "tensorcli.app", "check", path, "--json"],
                              cwd=ROOT, capture_output=True, text=True)
        t1 = time.perf_counter()
        print(f"tensorcli check --json (new process): {t1 - t0:.3f} s, exit {proc.returncode}")
        ex = os.path.join(ROOT, "examples")
        if os.path.isdir(ex):
            t0 = time.perf_counter()
            proc = subprocess.run([sys.executable, "-m", "tensorcli.app", "check", ex], cwd=ROOT,
                                  capture_output=True, text=True)
            t1 = time.perf_counter()
            print(f"tensorcli check examples/ (new process): {t1 - t0:.3f} s, exit {proc.returncode}")
    return 0 if rep.exit_code == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
