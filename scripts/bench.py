#!/usr/bin/env python
"""Benchmarks: the same work on core and on torch (single-threaded), side by side in one
process, printing the ratio core/torch. Sections come from scripts/bench_*.py modules that
expose `cases(torch) -> [(name, core_fn, torch_fn)]` (zero-argument callables), plus the
CLI start-up timing from scripts/bench_cli.py when present.

    python scripts/bench.py            # everything
    python scripts/bench.py core nn    # only some sections
    python scripts/bench.py --markdown # a table for the README
"""
from __future__ import annotations

import argparse
import importlib
import os
import sys
import time

# torch runs single-threaded below; give NumPy's BLAS one thread too, or on a busy machine OpenBLAS's spinning
# worker threads make a 64x784 @ 784x256 product ~40x slower (9.5 ms instead of 0.22 ms) and the ratios
# measure contention, not code. Set before NumPy is imported.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
sys.path.insert(0, HERE)

import numpy as np  # noqa: E402

import core  # noqa: E402


def timeit(fn, min_time=0.3, max_reps=10000):
    """Median per-call seconds over batches of calls (warm-up first)."""
    fn()
    t0 = time.perf_counter()
    fn()
    once = max(time.perf_counter() - t0, 1e-7)
    reps = int(min(max_reps, max(1, 0.05 / once)))
    samples = []
    deadline = time.perf_counter() + min_time
    while len(samples) < 5 or time.perf_counter() < deadline:
        t0 = time.perf_counter()
        for _ in range(reps):
            fn()
        samples.append((time.perf_counter() - t0) / reps)
        if len(samples) >= 50:
            break
    return float(np.median(samples))


def core_cases(torch):
    """Issue 2: per-op overhead on a tiny graph, and a small MLP step."""
    x = core.ones(8, requires_grad=True)

    def tiny_core():
        (x * 2 + 1).sum().backward()

    rng = np.random.default_rng(0)
    W1, b1 = rng.standard_normal((64, 64)).astype(np.float32) * 0.1, np.zeros(64, np.float32)
    W2, b2 = rng.standard_normal((10, 64)).astype(np.float32) * 0.1, np.zeros(10, np.float32)
    X = rng.standard_normal((32, 64)).astype(np.float32)
    T = rng.standard_normal((32, 10)).astype(np.float32)

    def mlp(lib, params, xb, tb):
        w1, c1, w2, c2 = params

        def step():
            h = (xb.matmul(w1.t()) + c1).relu()
            out = h.matmul(w2.t()) + c2
            loss = ((out - tb) ** 2).mean()
            loss.backward()
            with lib.no_grad():
                for p in params:
                    p.sub_(p.grad * 0.01)
                    p.grad = None
        return step

    cp = [core.tensor(a.copy(), requires_grad=True) for a in (W1, b1, W2, b2)]
    cases = [("tiny graph: (x*2+1).sum().backward(), 8 elems", tiny_core, None),
             ("MLP step 64-64-10, batch 32", mlp(core, cp, core.tensor(X), core.tensor(T)), None)]
    if torch is not None:
        xt = torch.ones(8, requires_grad=True)

        def tiny_torch():
            (xt * 2 + 1).sum().backward()
        tp = [torch.tensor(a.copy(), requires_grad=True) for a in (W1, b1, W2, b2)]
        cases = [(cases[0][0], tiny_core, tiny_torch),
                 (cases[1][0], cases[1][1], mlp(torch, tp, torch.tensor(X), torch.tensor(T)))]
    return cases


def optim_cases(torch):
    """Issue 15: optimizer steps on a 784x256 weight, and a 784-256-10 MLP training step (batch 64)."""
    rng = np.random.default_rng(0)
    W = (rng.standard_normal((256, 784)) * 0.05).astype(np.float32)
    G = (rng.standard_normal((256, 784)) * 0.01).astype(np.float32)
    X = rng.standard_normal((64, 784)).astype(np.float32)
    T = rng.integers(0, 10, 64)
    libs = [core] + ([torch] if torch is not None else [])

    def step_case(lib, cls, kwargs):
        p = lib.tensor(W.copy(), requires_grad=True)
        p.grad = lib.tensor(G.copy())
        return getattr(lib.optim, cls)([p], **kwargs).step

    def mlp_case(lib, cls, kwargs):
        lib.manual_seed(0)
        model = lib.nn.Sequential(lib.nn.Linear(784, 256), lib.nn.ReLU(), lib.nn.Linear(256, 10))
        opt = getattr(lib.optim, cls)(model.parameters(), **kwargs)
        loss_fn = lib.nn.CrossEntropyLoss()
        xb, tb = lib.tensor(X), lib.tensor(T)

        def step():
            opt.zero_grad()
            loss_fn(model(xb), tb).backward()
            opt.step()
        return step

    cases = []
    for name, make, cls, kwargs in [
            ("SGD.step() 784x256", step_case, "SGD", dict(lr=0.01)),
            ("SGD.step() 784x256, momentum 0.9", step_case, "SGD", dict(lr=0.01, momentum=0.9)),
            ("Adam.step() 784x256", step_case, "Adam", dict(lr=1e-3)),
            ("AdamW.step() 784x256, amsgrad", step_case, "AdamW", dict(lr=1e-3, amsgrad=True)),
            ("MLP 784-256-10 train step, batch 64, SGD", mlp_case, "SGD", dict(lr=0.01, momentum=0.9)),
            ("MLP 784-256-10 train step, batch 64, Adam", mlp_case, "Adam", dict(lr=1e-3))]:
        fns = [make(lib, cls, kwargs) for lib in libs]
        cases.append((name, fns[0], fns[1] if len(fns) > 1 else None))
    return cases


SECTIONS = {"core": core_cases, "optim": optim_cases}


def load_sections():
    for name in ("indexing", "nn", "check"):
        try:
            mod = importlib.import_module(f"bench_{name}")
        except ImportError:
            continue
        if hasattr(mod, "cases"):
            SECTIONS[name] = mod.cases


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("sections", nargs="*")
    ap.add_argument("--markdown", action="store_true")
    args = ap.parse_args(argv)
    try:
        import torch
        torch.set_num_threads(1)
    except ImportError:
        torch = None
        print("torch not installed: core timings only", file=sys.stderr)
    load_sections()
    rows = []
    for sec, fn in SECTIONS.items():
        if args.sections and sec not in args.sections:
            continue
        for name, cfn, tfn in fn(torch):
            tc = timeit(cfn)
            tt = timeit(tfn) if tfn is not None else None
            rows.append((sec, name, tc, tt))
            ratio = f"{tc / tt:6.2f}x" if tt else "   n/a"
            tts = f"{tt * 1e3:9.3f}" if tt else "      n/a"
            print(f"[{sec:8}] {name:55} core {tc * 1e3:9.3f} ms  torch {tts} ms  ratio {ratio}", flush=True)
    if (not args.sections or "cli" in args.sections):
        try:
            import bench_cli
            res = bench_cli.run() if hasattr(bench_cli, "run") else None
            if res:
                for name, tc, tt in res:
                    rows.append(("cli", name, tc, tt))
                    print(f"[cli     ] {name:55} core {tc * 1e3:9.1f} ms  torch {tt * 1e3:9.1f} ms  "
                          f"ratio {tc / tt:6.2f}x", flush=True)
        except ImportError:
            pass
    if args.markdown:
        print("\n| section | case | core ms | torch ms | core/torch |\n| --- | --- | ---: | ---: | ---: |")
        for sec, name, tc, tt in rows:
            print(f"| {sec} | {name} | {tc * 1e3:.3f} | {tt * 1e3:.3f} | {tc / tt:.2f}x |" if tt else
                  f"| {sec} | {name} | {tc * 1e3:.3f} | n/a | n/a |")


if __name__ == "__main__":
    main()
