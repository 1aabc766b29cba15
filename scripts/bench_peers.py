#!/usr/bin/env python
"""core against torch (one thread), the NumPy autograds (MyGrad, HIPS autograd) and the NumPy floor (the
leanest hand-written NumPy doing the same work), on issue 26's workloads.

For every workload each system is built twice from the same inputs: once to check that one call gives the
same values as core's (loss, gradients or updated parameters, to float32 tolerance; the peers are not bit
exact to torch, core is, as the tests check), once to time. Timing: CPU time of this thread
(time.thread_time: the machine may be shared), rounds in which every system runs one batch back to back
(interleaved), medians over the rounds. Printed per row: the median time of each system, core/torch,
core/floor and core/best-peer (medians of the per-round ratios; best peer = the faster of MyGrad and HIPS
autograd in that round) and issue 26's target beside them.

    pip install -e '.[bench]'          # MyGrad and HIPS autograd (never installed at run time)
    python scripts/bench_peers.py      # all rows; a missing peer shows as n/a
    python scripts/bench_peers.py mlp sum --markdown
"""
from __future__ import annotations

import argparse
import os
import sys
import time

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")   # one BLAS thread, as torch gets one thread (see bench.py)

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))

import numpy as np  # noqa: E402

import core  # noqa: E402

CLOCK = time.thread_time
SYSTEMS = ("core", "torch", "mygrad", "autograd", "numpy")
PEERS = ("mygrad", "autograd")


def _import_peers():
    libs = {"core": core}
    try:
        import torch
        torch.set_num_threads(1)
        libs["torch"] = torch
    except ImportError:
        pass
    try:
        import mygrad
        import mygrad.nnet  # noqa: F401
        libs["mygrad"] = mygrad
    except ImportError:
        pass
    try:
        import autograd
        import autograd.numpy  # noqa: F401
        libs["autograd"] = autograd
    except ImportError:
        pass
    return libs


# ---------------------------------------------------------------- NumPy pieces shared by peers and floor
def _np_sgd(params, grads, bufs, lr, momentum):
    for i, (p, g) in enumerate(zip(params, grads)):
        if momentum:
            if bufs[i] is None:
                bufs[i] = g.copy()
            else:
                bufs[i] *= momentum
                bufs[i] += g
            g = bufs[i]
        p -= lr * g


def _np_adam(params, grads, state, lr, b1=0.9, b2=0.999, eps=1e-8):
    state["t"] = t = state.get("t", 0) + 1
    m, v = state.setdefault("m", [np.zeros_like(p) for p in params]), state.setdefault(
        "v", [np.zeros_like(p) for p in params])
    c1, c2 = 1 - b1 ** t, 1 - b2 ** t
    for p, g, mi, vi in zip(params, grads, m, v):
        mi *= b1
        mi += (1 - b1) * g
        vi *= b2
        vi += (1 - b2) * g * g
        den = np.sqrt(vi / c2)
        den += eps
        p -= (lr / c1) * mi / den


def _np_update(opt, params, grads, state):
    if opt[0] == "sgd":
        _np_sgd(params, grads, state.setdefault("bufs", [None] * len(params)), opt[1], opt[2])
    else:
        _np_adam(params, grads, state, opt[1])


def _np_ce(out, t):
    """cross_entropy (mean) and d loss / d out, in NumPy."""
    z = out - out.max(1, keepdims=True)
    e = np.exp(z)
    s = e.sum(1, keepdims=True)
    n = out.shape[0]
    loss = np.log(s[:, 0]).sum() / n - z[np.arange(n), t].sum() / n
    d = e / s
    d[np.arange(n), t] -= 1
    d /= n
    return loss, d


def _ag_lse(anp, a):
    """logsumexp over dim 1 in autograd.numpy (autograd.scipy would need SciPy)."""
    m = anp.max(a, axis=1, keepdims=True)
    return anp.log(anp.sum(anp.exp(a - m), axis=1)) + m[:, 0]


# ---------------------------------------------------------------- workloads
def mlp(libs, sizes, batch, opt):
    """nn.Linear-ReLU-nn.Linear, cross_entropy (mean), backward, optimizer step. Returns {system: builder}."""
    rng = np.random.default_rng(0)
    n_in, n_hid, n_out = sizes
    W1 = (rng.standard_normal((n_hid, n_in)) / np.sqrt(n_in)).astype(np.float32)
    b1 = (rng.standard_normal(n_hid) * 0.1).astype(np.float32)
    W2 = (rng.standard_normal((n_out, n_hid)) / np.sqrt(n_hid)).astype(np.float32)
    b2 = (rng.standard_normal(n_out) * 0.1).astype(np.float32)
    X = rng.standard_normal((batch, n_in)).astype(np.float32)
    T = rng.integers(0, n_out, batch)
    init = (W1, b1, W2, b2)

    def torchlike(lib):
        def build():
            model = lib.nn.Sequential(lib.nn.Linear(n_in, n_hid), lib.nn.ReLU(), lib.nn.Linear(n_hid, n_out))
            with lib.no_grad():
                for p, a in zip(model.parameters(), init):
                    p.copy_(lib.tensor(a))
            o = (lib.optim.SGD(model.parameters(), lr=opt[1], momentum=opt[2]) if opt[0] == "sgd"
                 else lib.optim.Adam(model.parameters(), lr=opt[1]))
            loss_fn, xb, tb = lib.nn.CrossEntropyLoss(), lib.tensor(X), lib.tensor(T)

            def step():
                o.zero_grad()
                loss_fn(model(xb), tb).backward()
                o.step()
            return step, lambda: [p.detach().numpy() for p in model.parameters()]
        return build

    def mygrad_build():
        mg = libs["mygrad"]
        ps = [mg.Tensor(a.copy()) for a in init]
        xb = mg.Tensor(X, constant=True)
        state = {}

        def step():
            w1, c1, w2, c2 = ps
            out = mg.nnet.relu(xb @ w1.T + c1) @ w2.T + c2
            mg.nnet.softmax_crossentropy(out, T).backward()
            _np_update(opt, [p.data for p in ps], [p.grad for p in ps], state)
        return step, lambda: [p.data for p in ps]

    def autograd_build():
        ag = libs["autograd"]
        anp = ag.numpy
        ps = [a.copy() for a in init]
        state = {}

        def loss(params):
            w1, c1, w2, c2 = params
            out = anp.dot(anp.maximum(anp.dot(X, w1.T) + c1, 0.0), w2.T) + c2
            return anp.mean(_ag_lse(anp, out) - out[np.arange(batch), T])
        gradf = ag.grad(loss)

        def step():
            _np_update(opt, ps, gradf(ps), state)
        return step, lambda: ps

    def numpy_build():
        ps = [a.copy() for a in init]
        state = {}

        def step():
            w1, c1, w2, c2 = ps
            z = X @ w1.T
            z += c1
            h = np.maximum(z, 0)
            out = h @ w2.T
            out += c2
            _, d = _np_ce(out, T)
            dh = d @ w2
            dh *= z > 0
            _np_update(opt, ps, [dh.T @ X, dh.sum(0), d.T @ h, d.sum(0)], state)
        return step, lambda: ps

    return {"core": torchlike(core), "torch": torchlike(libs.get("torch")), "mygrad": mygrad_build,
            "autograd": autograd_build, "numpy": numpy_build}


def forward(libs, op, shape):
    """A forward-only op on float32 tensors that do not require grad."""
    rng = np.random.default_rng(0)
    a = rng.standard_normal(shape).astype(np.float32)
    np_op = {"sum": np.sum, "add": np.add}[op]
    nargs = 1 if op == "sum" else 2

    def torchlike(lib):
        def build():
            t = lib.tensor(a)
            fn = (lambda: t.sum()) if op == "sum" else (lambda: t + t)
            return fn, lambda: [np.asarray(fn().numpy())]
        return build

    def mygrad_build():
        mg = libs["mygrad"]
        t = mg.Tensor(a, constant=True)
        fn = (lambda: mg.sum(t)) if op == "sum" else (lambda: mg.add(t, t))
        return fn, lambda: [np.asarray(fn().data)]

    def autograd_build():
        f = getattr(libs["autograd"].numpy, op)
        return (lambda: f(*(a,) * nargs)), lambda: [np.asarray(f(*(a,) * nargs))]

    return {"core": torchlike(core), "torch": torchlike(libs.get("torch")), "mygrad": mygrad_build,
            "autograd": autograd_build,
            "numpy": lambda: ((lambda: np_op(*(a,) * nargs)), lambda: [np.asarray(np_op(*(a,) * nargs))])}


def _grad_rows(libs, arrays, torch_fn, mygrad_fn, autograd_fn, numpy_fn):
    """fwd+bwd of a scalar function of float32 leaves; the values checked are the gradients."""
    def torchlike(lib):
        def build():
            xs = [lib.tensor(a, requires_grad=True) for a in arrays]

            def step():
                for x in xs:
                    x.grad = None
                torch_fn(lib, *xs).backward()
            return step, lambda: [x.grad.numpy() for x in xs]
        return build

    def mygrad_build():
        mg = libs["mygrad"]
        xs = [mg.Tensor(a) for a in arrays]

        def step():
            mygrad_fn(mg, *xs).backward()
        return step, lambda: [x.grad for x in xs]

    def autograd_build():
        ag = libs["autograd"]
        gradf = ag.grad(lambda xs: autograd_fn(ag, *xs))
        res = []

        def step():
            res[:] = gradf(list(arrays))
        return step, lambda: res

    def numpy_build():
        res = []

        def step():
            res[:] = numpy_fn(*arrays)
        return step, lambda: res

    return {"core": torchlike(core), "torch": torchlike(libs.get("torch")), "mygrad": mygrad_build,
            "autograd": autograd_build, "numpy": numpy_build}


def mul_bwd(libs):
    rng = np.random.default_rng(0)
    x, y = rng.standard_normal((2, 1000)).astype(np.float32)

    def floor(a, b):
        np.sum(a * b)
        g = np.ones_like(a)
        return [g * b, g * a]
    return _grad_rows(libs, [x, y], lambda lib, a, b: (a * b).sum(), lambda mg, a, b: (a * b).sum(),
                      lambda ag, a, b: ag.numpy.sum(a * b), floor)


def cross_entropy_bwd(libs):
    rng = np.random.default_rng(0)
    x = rng.standard_normal((64, 10)).astype(np.float32)
    t = rng.integers(0, 10, 64)
    tt = {}

    def torch_fn(lib, a):
        tb = tt.get(lib)
        if tb is None:
            tb = tt[lib] = lib.tensor(t)
        return lib.nn.functional.cross_entropy(a, tb)

    def ag_fn(ag, a):
        return ag.numpy.mean(_ag_lse(ag.numpy, a) - a[np.arange(64), t])
    return _grad_rows(libs, [x], torch_fn, lambda mg, a: mg.nnet.softmax_crossentropy(a, t), ag_fn,
                      lambda a: [_np_ce(a, t)[1]])


def tiny_bwd(libs):
    x = np.ones(8, np.float32)

    def floor(a):
        np.sum(a * 2 + 1)
        return [np.ones_like(a) * 2]
    return _grad_rows(libs, [x], lambda lib, a: (a * 2 + 1).sum(), lambda mg, a: (a * 2 + 1).sum(),
                      lambda ag, a: ag.numpy.sum(a * 2 + 1), floor)


def conv_bwd(libs):
    """conv2d of a 1x3x64x64 input with 16 3x3 filters (+ bias), sum, backward (bench_nn's conv2d_fwd_bwd)."""
    rng = np.random.default_rng(0)
    x = rng.standard_normal((1, 3, 64, 64)).astype(np.float32)
    w = (rng.standard_normal((16, 3, 3, 3)) * 0.2).astype(np.float32)
    b = rng.standard_normal(16).astype(np.float32)
    swv = np.lib.stride_tricks.sliding_window_view

    def ag_fn(ag, a, k, c):
        # a sum of the 9 shifted products, in autograd.numpy (its scipy.signal.convolve needs SciPy)
        anp = ag.numpy
        out = sum(anp.tensordot(k[:, :, i, j], a[:, :, i:i + 62, j:j + 62], axes=([1], [1]))
                  for i in range(3) for j in range(3))          # (16, N, 62, 62)
        return anp.sum(out + c[:, None, None, None])

    def floor(a, k, c):
        # im2col once (one copy), one GEMM forward, two GEMMs backward, col2im as 9 slice adds
        cols = swv(a[0], (3, 3), axis=(1, 2)).transpose(1, 2, 0, 3, 4).reshape(62 * 62, 27)
        km = k.reshape(16, 27)
        out = cols @ km.T
        out += c
        out.sum()
        g = np.ones(out.shape, np.float32)
        gw = (g.T @ cols).reshape(k.shape)
        gc = (g @ km).reshape(62, 62, 3, 3, 3)
        gx = np.zeros_like(a)
        for i in range(3):
            for j in range(3):
                gx[0, :, i:i + 62, j:j + 62] += gc[:, :, :, i, j].transpose(2, 0, 1)
        return [gx, gw, g.sum(0)]

    return _grad_rows(libs, [x, w, b], lambda lib, a, k, c: lib.nn.functional.conv2d(a, k, c).sum(),
                      lambda mg, a, k, c: (mg.nnet.conv_nd(a, k, stride=1) + c[:, None, None]).sum(),
                      ag_fn, floor)


CHAIN = 10_000


def chain_bwd(libs):
    """A chain of 10,000 adds (y = y + 1.0) from a 4-element leaf, sum, backward; reported per node."""
    x = np.ones(4, np.float32)

    def body(a):
        y = a
        for _ in range(CHAIN):
            y = y + 1.0
        return y.sum()

    def floor(a):
        body(a)
        return [np.ones_like(a)]
    return _grad_rows(libs, [x], lambda lib, a: body(a), lambda mg, a: body(a),
                      lambda ag, a: body(a), floor)


def bias_sum(libs):
    """A bias gradient: (32, 64) -> (64,) as the engine reduces it (core: np_sum_to_shape, torch's at::sum_to
    order; torch: grad.sum(0); floor: np.sum(axis=0)). Peers sum with np.sum themselves."""
    from core.autograd.node import np_sum_to_shape
    g = np.random.default_rng(0).standard_normal((32, 64)).astype(np.float32)
    out = {"core": lambda: ((lambda: np_sum_to_shape(g, (64,))), lambda: [np_sum_to_shape(g, (64,))]),
           "numpy": lambda: ((lambda: g.sum(0)), lambda: [g.sum(0)])}
    if "torch" in libs:
        tg = libs["torch"].tensor(g)
        out["torch"] = lambda: ((lambda: tg.sum(0)), lambda: [tg.sum(0).numpy()])
    return out


def optim_step(libs, cls, kwargs):
    """optimizer.step() alone on the 784-256-10 MLP's parameters (gradients set once)."""
    rng = np.random.default_rng(0)
    shapes = [(256, 784), (256,), (10, 256), (10,)]
    ps = [(rng.standard_normal(s) * 0.05).astype(np.float32) for s in shapes]
    gs = [(rng.standard_normal(s) * 0.01).astype(np.float32) for s in shapes]

    def torchlike(lib):
        def build():
            ts = [lib.tensor(p.copy(), requires_grad=True) for p in ps]
            for t, g in zip(ts, gs):
                t.grad = lib.tensor(g.copy())
            o = getattr(lib.optim, cls)(ts, **kwargs)
            return o.step, lambda: [t.detach().numpy() for t in ts]
        return build

    opt = ("sgd", kwargs["lr"], kwargs.get("momentum", 0)) if cls == "SGD" else ("adam", kwargs["lr"])

    def numpy_build():
        qs, state = [p.copy() for p in ps], {}
        return (lambda: _np_update(opt, qs, gs, state)), lambda: qs
    return {"core": torchlike(core), "torch": torchlike(libs.get("torch")), "numpy": numpy_build}


# name, section, make, issue 26's targets {"torch": max core/torch, "floor": max core/floor, "peer": max
# core/best-peer, "us": max core microseconds}; unit "node" divides the times by CHAIN
ROWS = [
    ("MLP 64-64-10 SGD step (batch 32)", "mlp", lambda L: mlp(L, (64, 64, 10), 32, ("sgd", 0.01, 0)),
     {"torch": 1.1, "peer": 1.0}),
    ("MLP 784-256-10 SGD step (batch 64, momentum 0.9)", "mlp",
     lambda L: mlp(L, (784, 256, 10), 64, ("sgd", 0.01, 0.9)), {"torch": 1.2, "peer": 1.0}),
    ("MLP 784-256-10 Adam step (batch 64)", "mlp", lambda L: mlp(L, (784, 256, 10), 64, ("adam", 1e-3)),
     {"torch": 1.2, "peer": 1.0}),
    ("SGD.step 784-256-10 params, momentum 0.9", "optim",
     lambda L: optim_step(L, "SGD", dict(lr=0.01, momentum=0.9)), {"torch": 2.0}),
    ("Adam.step 784-256-10 params", "optim", lambda L: optim_step(L, "Adam", dict(lr=1e-3)), {"torch": 1.5}),
    ("sum 1M fwd (1024x1024)", "sum", lambda L: forward(L, "sum", (1024, 1024)), {"floor": 2.0}),
    ("sum 1k fwd (10x100)", "sum", lambda L: forward(L, "sum", (10, 100)), {}),
    ("bias-grad sum (32,64)->(64,)", "sum", bias_sum, {"us": 4.0}),
    ("add 1k fwd (10x100)", "small", lambda L: forward(L, "add", (10, 100)), {}),
    ("mul 1k fwd+bwd", "small", mul_bwd, {"peer": 1.0}),
    ("cross_entropy 64x10 fwd+bwd", "small", cross_entropy_bwd, {"torch": 1.1, "peer": 1.0}),
    ("tiny graph (x*2+1).sum() fwd+bwd", "small", tiny_bwd, {"torch": 0.7, "peer": 1.0}),
    ("conv2d 1x3x64x64, 16 3x3 fwd+bwd", "conv", conv_bwd, {"floor": 1.1, "peer": 1.0}),
    ("10k-add chain fwd+bwd, per node", "chain", chain_bwd, {"peer": 1.0}),
]


def check(name, results):
    """Every system's values equal core's to float32 tolerance; False (and a message) when not."""
    ref = results["core"]
    ok = True
    for sysname, vals in results.items():
        if len(vals) != len(ref) or not all(
                np.allclose(np.asarray(v, np.float64), np.asarray(r, np.float64), rtol=2e-4, atol=2e-5)
                for v, r in zip(vals, ref)):
            print(f"  !! {name}: {sysname}'s values differ from core's", file=sys.stderr)
            ok = False
    return ok


def measure(builders, rounds, budget=0.01):
    """{system: [seconds per call, one per round]}: every round runs each system's batch back to back."""
    fns, reps = {}, {}
    for s, build in builders.items():
        fn = build()[0]
        fn()
        t0 = CLOCK()
        fn()
        reps[s] = int(min(10000, max(1, budget / max(CLOCK() - t0, 1e-7))))
        fns[s] = fn
    times = {s: [] for s in fns}
    for _ in range(rounds):
        for s, fn in fns.items():
            n = reps[s]
            t0 = CLOCK()
            for _ in range(n):
                fn()
            times[s].append((CLOCK() - t0) / n)
    return times


def run_row(libs, name, make, targets, rounds):
    builders = {s: b for s, b in make(libs).items() if s in libs or s == "numpy"}
    results = {s: [np.asarray(v) for v in (lambda fr: (fr[0](), fr[1]())[1])(b())] for s, b in builders.items()}
    valid = check(name, results)
    times = measure(builders, rounds)
    scale = CHAIN if "per node" in name else 1
    med = {s: float(np.median(v)) / scale for s, v in times.items()}

    def ratio(other):
        if other not in times:
            return None
        return float(np.median([c / o for c, o in zip(times["core"], times[other])]))
    peers = [p for p in PEERS if p in times]
    best = None
    if peers:
        best = float(np.median([c / min(times[p][i] for p in peers) for i, c in enumerate(times["core"])]))
    best_name = min(peers, key=lambda p: med[p]) if peers else None
    return dict(name=name, med=med, torch=ratio("torch"), floor=ratio("numpy"), peer=best, best=best_name,
                targets=targets, valid=valid)


def verdicts(row):
    out = []
    for key, lim in row["targets"].items():
        v = row["med"]["core"] * 1e6 if key == "us" else row[key]
        if v is None:
            out.append(f"{key} <= {lim}: n/a")
        else:
            label = {"us": "core µs", "torch": "/torch", "floor": "/floor", "peer": "/best peer"}[key]
            out.append(f"{label} <= {lim}: {'met' if v <= lim else 'NOT met'}")
    return "; ".join(out) if out else "reported, not a target"


def _fmt_t(s):
    if s is None:
        return "n/a"
    us = s * 1e6
    return f"{us / 1000:.1f} ms" if us >= 10_000 else (f"{us:.0f}" if us >= 100 else f"{us:.1f}")


def _fmt_r(r):
    return "n/a" if r is None else f"{r:.2f}"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("sections", nargs="*", help="mlp optim sum small conv chain (default: all)")
    ap.add_argument("--rounds", type=int, default=11)
    ap.add_argument("--markdown", action="store_true")
    args = ap.parse_args(argv)
    libs = _import_peers()
    missing = [s for s in ("torch",) + PEERS if s not in libs]
    if missing:
        print(f"not installed (shown as n/a): {', '.join(missing)}; pip install -e '.[bench]'", file=sys.stderr)
    rows = []
    for name, sec, make, targets in ROWS:
        if args.sections and sec not in args.sections:
            continue
        row = run_row(libs, name, make, targets, args.rounds)
        rows.append(row)
        m = row["med"]
        print(f"{name:48} " + " ".join(f"{s} {_fmt_t(m.get(s)):>8}" for s in SYSTEMS) +
              f" | core/torch {_fmt_r(row['torch'])} core/floor {_fmt_r(row['floor'])} "
              f"core/best-peer {_fmt_r(row['peer'])} [{verdicts(row)}]" + ("" if row["valid"] else " VALUES DIFFER"),
              flush=True)
    if args.markdown:
        print("\n| workload | NumPy floor | core | MyGrad | HIPS autograd | torch | core/torch | core/floor "
              "| core/best peer | target (issue 26) |\n|---|--:|--:|--:|--:|--:|--:|--:|--:|---|")
        for r in rows:
            m = r["med"]
            print(f"| {r['name']} | {_fmt_t(m.get('numpy'))} | {_fmt_t(m.get('core'))} | {_fmt_t(m.get('mygrad'))} "
                  f"| {_fmt_t(m.get('autograd'))} | {_fmt_t(m.get('torch'))} | {_fmt_r(r['torch'])} "
                  f"| {_fmt_r(r['floor'])} | {_fmt_r(r['peer'])} | {verdicts(r)} |")
        print("\nTimes in µs (CPU time of the thread, median of interleaved rounds) unless marked ms.")


if __name__ == "__main__":
    main()
