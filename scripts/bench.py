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

# CPU time of this thread, not wall time: everything timed here runs on the calling thread (torch single-threaded,
# one BLAS thread). On a machine shared with other jobs wall time mostly measures the scheduler, and unevenly: a
# batch of calls longer than a time slice is always preempted, a shorter one often not (measured under load:
# SGD.step 0.93 ms wall vs 0.13 ms CPU for core, 0.027 vs 0.025 ms for torch). Thread time also leaves out
# helper threads that spin (process time once counted 0.33 ms for torch's 0.03 ms SGD.step).
CLOCK = time.thread_time


def timeit(fn, min_time=0.3, max_reps=10000):
    """Median per-call seconds over batches of calls (warm-up first)."""
    fn()
    t0 = CLOCK()
    fn()
    once = max(CLOCK() - t0, 1e-7)
    reps = int(min(max_reps, max(1, 0.05 / once)))
    samples = []
    deadline = CLOCK() + min_time
    while len(samples) < 5 or CLOCK() < deadline:
        t0 = CLOCK()
        for _ in range(reps):
            fn()
        samples.append((CLOCK() - t0) / reps)
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


def small_cases(torch):
    """Issue 15: forward on 1,000 elements (10x100, dim 1) and on 1024x1024; targets in TARGETS."""
    if torch is None:
        return []
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal((10, 100)).astype(np.float32), rng.standard_normal((1024, 1024)).astype(np.float32)
    tg = rng.integers(0, 100, 10)
    ca, ta, cb, tb, ct, tt = core.tensor(a), torch.tensor(a), core.tensor(b), torch.tensor(b), core.tensor(tg), torch.tensor(tg)
    cF, tF = core.nn.functional, torch.nn.functional
    return [("softmax, 1,000 elems", lambda: cF.softmax(ca, 1), lambda: tF.softmax(ta, 1)),
            ("log_softmax, 1,000 elems", lambda: cF.log_softmax(ca, 1), lambda: tF.log_softmax(ta, 1)),
            ("cross_entropy, 1,000 elems", lambda: cF.cross_entropy(ca, ct), lambda: tF.cross_entropy(ta, tt)),
            ("sigmoid, 1,000 elems", lambda: ca.sigmoid(), lambda: ta.sigmoid()),
            ("add, 1,000 elems", lambda: ca + ca, lambda: ta + ta),
            ("mul, 1,000 elems", lambda: ca * ca, lambda: ta * ta),
            ("sum, 1,000 elems", lambda: ca.sum(), lambda: ta.sum()),
            ("sum, 1024x1024", lambda: cb.sum(), lambda: tb.sum()),
            ("softmax, 1024x1024 dim 1", lambda: cF.softmax(cb, 1), lambda: tF.softmax(tb, 1))]


SECTIONS = {"core": core_cases, "optim": optim_cases, "small": small_cases}

# issue 15's targets: case name -> the ratio core/torch it must not exceed
TARGETS = {"tiny graph: (x*2+1).sum().backward(), 8 elems": 1.0, "MLP step 64-64-10, batch 32": 1.2,
           "SGD.step() 784x256": 1.5, "SGD.step() 784x256, momentum 0.9": 1.5, "Adam.step() 784x256": 1.5,
           "AdamW.step() 784x256, amsgrad": 1.5, "MLP 784-256-10 train step, batch 64, SGD": 1.2,
           "MLP 784-256-10 train step, batch 64, Adam": 1.2, "softmax, 1,000 elems": 2.0,
           "log_softmax, 1,000 elems": 2.0, "cross_entropy, 1,000 elems": 2.0, "sigmoid, 1,000 elems": 2.0,
           "add, 1,000 elems": 1.5, "mul, 1,000 elems": 1.5, "sum, 1,000 elems": 1.5, "sum, 1024x1024": 1.5,
           "softmax, 1024x1024 dim 1": 1.5, "conv2d_fwd_bwd": 1.3,
           "Linear(1000,1000) fwd+bwd on 100x1000: peak MiB above start": 1.2,
           "MLP 784-256-10 SGD step, batch 64: peak MiB above start": 1.2,
           "chain of 100,000 muls fwd+bwd: us/node vs chain of 1,000": 1.3,
           **{f"{op} dim {d} [2000x2000]": 1.6 for op in ("gather", "scatter_", "scatter_add_") for d in (0, 1)}}


def timepair(cfn, tfn, rounds=11):
    """Median over rounds of (core time / torch time), the two timed back to back in each round (the machine
    is shared: pairing cancels most of its drift). Returns (core s, torch s, ratio)."""
    reps = []
    for fn in (cfn, tfn):
        fn()
        t0 = CLOCK()
        fn()
        reps.append(int(min(10000, max(1, 0.01 / max(CLOCK() - t0, 1e-7)))))
    cs, ts, rs = [], [], []
    for _ in range(rounds):
        pair = []
        for fn, n in zip((cfn, tfn), reps):
            t0 = CLOCK()
            for _ in range(n):
                fn()
            pair.append((CLOCK() - t0) / n)
        cs.append(pair[0])
        ts.append(pair[1])
        rs.append(pair[0] / pair[1])
    return float(np.median(cs)), float(np.median(ts)), float(np.median(rs))


def _core_peak(fn):
    """Peak bytes above start of one fn() call (after a warm-up), as tracemalloc sees NumPy's buffers."""
    import tracemalloc
    fn()
    tracemalloc.start()
    try:
        start = tracemalloc.get_traced_memory()[0]
        fn()
        return tracemalloc.get_traced_memory()[1] - start
    finally:
        tracemalloc.stop()


def _torch_peak(torch, fn):
    """Peak bytes above start as torch's profiler records them: its [memory] events summed in time order."""
    from torch.profiler import ProfilerActivity, profile
    fn()
    with profile(activities=[ProfilerActivity.CPU], profile_memory=True) as prof:
        fn()
    events = sorted((e for e in prof.profiler.kineto_results.events() if e.name() == "[memory]"),
                    key=lambda e: e.start_ns())
    cur = peak = 0
    for e in events:
        cur += e.nbytes()
        peak = max(peak, cur)
    return peak


def memory_rows(torch):
    """Issue 15: peak memory above start of a training step, core (tracemalloc) vs torch (profiler)."""
    def linear(lib):
        lib.manual_seed(0)
        m, x = lib.nn.Linear(1000, 1000), lib.randn(100, 1000)

        def f():
            m.zero_grad(set_to_none=True)
            m(x).sum().backward()
        return f

    def mlp(lib):
        lib.manual_seed(0)
        model = lib.nn.Sequential(lib.nn.Linear(784, 256), lib.nn.ReLU(), lib.nn.Linear(256, 10))
        opt = lib.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
        x, t = lib.randn(64, 784), lib.tensor(np.arange(64) % 10)

        def f():
            opt.zero_grad()
            lib.nn.functional.cross_entropy(model(x), t).backward()
            opt.step()
        return f
    rows = []
    for name, make in [("Linear(1000,1000) fwd+bwd on 100x1000: peak MiB above start", linear),
                       ("MLP 784-256-10 SGD step, batch 64: peak MiB above start", mlp)]:
        rows.append((name, _core_peak(make(core)) / 2 ** 20,
                     _torch_peak(torch, make(torch)) / 2 ** 20 if torch is not None else None))
    return rows


def chain_rows(torch, n_big=100_000, n_small=1_000):
    """Issue 15: cost per node of a chain of n_big muls (forward+backward) over that of a chain of n_small,
    per library (a ratio of each library with itself; median of 3). The ratio column is core's own."""
    def per_node(lib, n):
        x = lib.ones(4, requires_grad=True)
        t0 = CLOCK()
        y = x
        for _ in range(n):
            y = y * 1.0
        y.sum().backward()
        return (CLOCK() - t0) / n
    out = []
    for lib in [core] + ([torch] if torch is not None else []):
        per_node(lib, n_small)
        rs = [per_node(lib, n_big) / float(np.median([per_node(lib, n_small) for _ in range(5)])) for _ in range(3)]
        out.append(float(np.median(rs)))
    return [("chain of 100,000 muls fwd+bwd: us/node vs chain of 1,000", out[0], out[1] if len(out) > 1 else None)]


def profile_report(top=12):
    """cProfile of (x * y).sum().backward() (1,000 elems) and of a Linear(784, 256) forward (batch 64)."""
    import cProfile
    import pstats
    x, y = core.randn(1000, requires_grad=True), core.randn(1000, requires_grad=True)
    lin, inp = core.nn.Linear(784, 256), core.randn(64, 784)
    for title, fn in [("(x * y).sum().backward()", lambda: (x * y).sum().backward()),
                      ("Linear(784, 256) forward, batch 64", lambda: lin(inp))]:
        fn()
        pr = cProfile.Profile(CLOCK)
        pr.enable()
        for _ in range(2000):
            fn()
        pr.disable()
        print(f"\n== profile: {title} (2000 calls; CPU seconds, totals) ==")
        pstats.Stats(pr).sort_stats("tottime").print_stats(top)


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
    ap.add_argument("--profile", action="store_true", help="cProfile two small graphs and exit")
    args = ap.parse_args(argv)
    try:
        import torch
        torch.set_num_threads(1)
    except ImportError:
        torch = None
        print("torch not installed: core timings only", file=sys.stderr)
    if args.profile:
        profile_report()
        return
    load_sections()
    rows = []
    for sec, fn in SECTIONS.items():
        if args.sections and sec not in args.sections:
            continue
        for name, cfn, tfn in fn(torch):
            if tfn is not None:
                tc, tt, r = timepair(cfn, tfn)
            else:
                tc, tt, r = timeit(cfn), None, None
            rows.append((sec, name, tc, tt, r))
            ratio = f"{r:6.2f}x" if tt else "   n/a"
            tts = f"{tt * 1e3:9.3f}" if tt else "      n/a"
            print(f"[{sec:8}] {name:55} core {tc * 1e3:9.3f} ms  torch {tts} ms  ratio {ratio}{_verdict(name, r)}",
                  flush=True)
    for sec, make in (("memory", memory_rows), ("chain", chain_rows)):
        if args.sections and sec not in args.sections:
            continue
        for name, c, t in make(torch):
            r = c if sec == "chain" else (c / t if t else None)   # the chain target is core's own growth
            rows.append((sec, name, None, None, r))
            print(f"[{sec:8}] {name:55} core {c:9.3f}     torch {t if t is not None else float('nan'):9.3f}     "
                  f"ratio {r if r else float('nan'):6.2f}x{_verdict(name, r)}", flush=True)
    if (not args.sections or "cli" in args.sections):
        try:
            import bench_cli
            res = bench_cli.run() if hasattr(bench_cli, "run") else None
            if res:
                for name, tc, tt in res:
                    rows.append(("cli", name, tc, tt, tc / tt))
                    print(f"[cli     ] {name:55} core {tc * 1e3:9.1f} ms  torch {tt * 1e3:9.1f} ms  "
                          f"ratio {tc / tt:6.2f}x", flush=True)
        except ImportError:
            pass
    if args.markdown:
        print("\n| section | case | core ms | torch ms | core/torch | #15 target |\n"
              "| --- | --- | ---: | ---: | ---: | --- |")
        for sec, name, tc, tt, r in rows:
            cms = f"{tc * 1e3:.3f}" if tc is not None else "-"
            tms = f"{tt * 1e3:.3f}" if tt is not None else "-"
            rs = f"{r:.2f}x" if r is not None else "n/a"
            print(f"| {sec} | {name} | {cms} | {tms} | {rs} | {_verdict(name, r).strip()} |")


def _verdict(name, r):
    """'  (target <= Nx: met / NOT met)' for issue 15's targets."""
    lim = TARGETS.get(name)
    if lim is None or r is None:
        return ""
    return f"  (target <= {lim}x: {'met' if r <= lim else 'NOT met'})"


if __name__ == "__main__":
    main()
