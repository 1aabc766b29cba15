#!/usr/bin/env python
"""Exact floors of issue 26's targets that NumPy cannot reach while staying bit for bit torch's: the leanest
straight-line NumPy sequence giving core's (torch's) bits, timed beside core and torch (one thread).

Each floor first asserts that it gives core's bits; then CPU time (time.thread_time) of interleaved rounds, medians.
Rows: SGD.step (momentum) and Adam.step on the 784-256-10 MLP's parameters, the ordered sum of 1M float32, a
(32, 64) -> (64,) bias-gradient sum, cross_entropy 64x10 forward + backward.

    python scripts/bench_exact_floors.py
"""
from __future__ import annotations

import os
import sys
import time

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import numpy as np  # noqa: E402

import core  # noqa: E402
from core._sum_order import torch_sum  # noqa: E402
from core.autograd.graph_node import np_sum_to_shape  # noqa: E402
from core.optim._exact import _fix_ties  # noqa: E402

CLOCK = time.thread_time
SHAPES = [(256, 784), (256,), (10, 256), (10,)]
_S, _MID = np.uint64(35), np.iinfo(np.int64).min


def fma_exact(o, a, b, c, w, u):
    """o = float32(c + a * b) rounded once: float64 product and sum, the float32 midpoints double rounding
    breaks found (shift + min) and repaired as core's kernels do, narrowed."""
    np.copyto(w, a)
    np.multiply(w, b, out=w)
    np.add(w, c, out=w)
    if np.minimum.reduce(np.left_shift(w.view(np.uint64), _S, out=u).view(np.int64), axis=None) == _MID:
        fb = b.reshape(-1) if isinstance(b, np.ndarray) else b
        _fix_ties(w.reshape(-1), np.flatnonzero(u.reshape(-1).view(np.int64) == _MID), a.reshape(-1), fb,
                  c.reshape(-1))
    np.copyto(o, w, casting="same_kind")


def sgd_floor(ps, gs, lr=0.01, momentum=0.9):
    qs, bufs, first = [p.copy() for p in ps], [g.copy() for g in gs], [True]
    ws, us = [np.empty(p.shape) for p in ps], [np.empty(p.shape, np.uint64) for p in ps]
    neg_lr, m = np.float32(-lr), np.float32(momentum)

    def step():
        for q, g, bf, w, u in zip(qs, gs, bufs, ws, us):
            if not first[0]:                    # torch's first step takes the gradient as the buffer
                np.multiply(bf, m, out=bf)
                np.add(bf, g, out=bf)
            fma_exact(q, bf, neg_lr, q, w, u)
        first[0] = False
    return step, qs


def adam_floor(ps, gs, lr=1e-3, b1=0.9, b2=0.999, eps=1e-8):
    qs, m1, v = [p.copy() for p in ps], [np.zeros_like(p) for p in ps], [np.zeros_like(p) for p in ps]
    ws, us, ts = [np.empty(p.shape) for p in ps], [np.empty(p.shape, np.uint64) for p in ps], [np.empty_like(p) for p in ps]
    n = [0]

    def step():
        n[0] += 1
        bc1, bc2 = 1 - b1 ** n[0], 1 - b2 ** n[0]
        for q, g, a, s, w, u, t in zip(qs, gs, m1, v, ws, us, ts):
            np.subtract(g, a, out=t)
            fma_exact(a, t, np.float32(1 - b1), a, w, u)               # exp_avg.lerp_(grad, 1 - beta1)
            np.multiply(s, np.float32(b2), out=s)
            np.multiply(g, np.float32(1 - b2), out=t)
            fma_exact(s, t, g, s, w, u)                                 # .addcmul_(grad, grad, 1 - beta2)
            d = np.sqrt(s)
            np.divide(d, np.float32(bc2 ** 0.5), out=d)
            np.add(d, np.float32(eps), out=d)
            np.multiply(a, np.float32(-lr / bc1), out=t)
            np.divide(t, d, out=t)
            np.add(q, t, out=q)                                         # param.addcdiv_(exp_avg, denom, -step)
    return step, qs


def sum_floor(x):
    """torch's order for a C-ordered (1024, 1024) float32 full sum: 16-row chunks of 32 lanes folded after one
    transposing copy of 128-byte lane rows, then the cascade's upper levels and the lanes."""
    items = x.reshape(2048, 16, 32).view(np.dtype((np.void, 128)))[..., 0]
    buf = np.empty((16, 2048), items.dtype)
    red = np.add.reduce

    def f():
        np.copyto(buf, items.T)
        p = red(buf.view(np.float32).reshape(16, -1), 0).reshape(2048, 32)
        p = red(red(red(p.reshape(128, 16, 32), 1).reshape(8, 16, 32), 1), 0)
        return np.add.accumulate(red(p.reshape(4, 8), 0))[-1]
    return f


def ce_floor(x, t):
    """cross_entropy (mean) forward + backward on (N, C) float32 logits, straight line: ATen's log_softmax kernel
    (SLEEF's expf / logf emulated, its lane order), nll_loss's mean of the picked terms in its order, the one-hot
    gradient and log_softmax's backward kernel: the exact kernels without a graph around them."""
    from core.ops.nn import _softmax_order as so
    from core.ops.nn.loss import _ce_reduce
    rows, scale = np.arange(t.shape[0]), -(np.float32(1) / np.float32(t.shape[0]))

    def f():
        with np.errstate(all="ignore"):
            o = so.log_softmax(x, 1)
            loss = _ce_reduce(o[rows, t], "mean", x.dtype)
            g = np.zeros_like(x)
            g[rows, t] = scale
            return loss, so.log_softmax_backward(g, o, 1)
    return f


def ce_step(lib, x, t):
    X, T = lib.tensor(x, requires_grad=True), lib.tensor(t)

    def f():
        X.grad = None
        lib.nn.functional.cross_entropy(X, T).backward()
        return X
    return f


def lib_step(lib, cls, ps, gs, **kw):
    ts = [lib.tensor(p.copy(), requires_grad=True) for p in ps]
    for t, g in zip(ts, gs):
        t.grad = lib.tensor(g.copy())
    return getattr(lib.optim, cls)(ts, **kw).step, ts


def rows(torch):
    rng = np.random.default_rng(0)
    ps = [(rng.standard_normal(s) * 0.05).astype(np.float32) for s in SHAPES]
    gs = [(rng.standard_normal(s) * 0.01).astype(np.float32) for s in SHAPES]
    for cls, floor, kw in (("SGD", sgd_floor, dict(lr=0.01, momentum=0.9)), ("Adam", adam_floor, dict(lr=1e-3))):
        (fs, fq), (cs, ct) = floor(ps, gs), lib_step(core, cls, ps, gs, **kw)
        for _ in range(3):
            fs()
            cs()
        assert all(q.tobytes() == t.detach().numpy().tobytes() for q, t in zip(fq, ct)), cls
    x = np.random.default_rng(1).standard_normal((1024, 1024)).astype(np.float32)
    g = np.random.default_rng(2).standard_normal((32, 64)).astype(np.float32)
    g3, zero = g.reshape(2, 16, 64), np.float32(0)
    out = {
        "SGD.step 784-256-10, momentum": {"core": lib_step(core, "SGD", ps, gs, lr=0.01, momentum=0.9)[0],
                                          "floor": sgd_floor(ps, gs)[0]},
        "Adam.step 784-256-10": {"core": lib_step(core, "Adam", ps, gs, lr=1e-3)[0], "floor": adam_floor(ps, gs)[0]},
        "sum 1M float32": {"core": lambda: torch_sum(x, (0, 1)), "floor": sum_floor(x),
                           "np.sum": lambda: np.add.reduce(x.reshape(-1))},
        "bias sum (32,64)->(64,)": {"core": lambda: np_sum_to_shape(g, (64,)),
                                    "floor": lambda: np.add.reduce(np.add.reduce(g3, 1), 0, None, None, False, zero),
                                    "np.sum": lambda: np.add.reduce(g, 0)},
    }
    logits = np.random.default_rng(3).standard_normal((64, 10)).astype(np.float32)
    target = np.random.default_rng(4).integers(0, 10, 64)
    out["cross_entropy 64x10 fwd+bwd"] = {"core": ce_step(core, logits, target), "floor": ce_floor(logits, target)}
    assert out["cross_entropy 64x10 fwd+bwd"]["floor"]()[1].tobytes() == \
        out["cross_entropy 64x10 fwd+bwd"]["core"]().grad.numpy().tobytes()
    assert out["sum 1M float32"]["floor"]().tobytes() == np.asarray(torch_sum(x, (0, 1))).tobytes()
    assert out["bias sum (32,64)->(64,)"]["floor"]().tobytes() == np_sum_to_shape(g, (64,)).tobytes()
    if torch is not None:
        tx, tg = torch.tensor(x), torch.tensor(g)
        out["SGD.step 784-256-10, momentum"]["torch"] = lib_step(torch, "SGD", ps, gs, lr=0.01, momentum=0.9)[0]
        out["Adam.step 784-256-10"]["torch"] = lib_step(torch, "Adam", ps, gs, lr=1e-3)[0]
        out["sum 1M float32"]["torch"] = tx.sum
        out["bias sum (32,64)->(64,)"]["torch"] = lambda: tg.sum(0)
        out["cross_entropy 64x10 fwd+bwd"]["torch"] = ce_step(torch, logits, target)
    return out


def measure(fns, rounds=11, budget=0.01):
    reps = {}
    for k, f in fns.items():
        f()
        t0 = CLOCK()
        f()
        reps[k] = max(1, int(budget / max(CLOCK() - t0, 1e-7)))
    times = {k: [] for k in fns}
    for _ in range(rounds):
        for k, f in fns.items():
            t0 = CLOCK()
            for _ in range(reps[k]):
                f()
            times[k].append((CLOCK() - t0) / reps[k])
    return times


def main():
    try:
        import torch
        torch.set_num_threads(1)
    except ImportError:
        torch = None
    for name, fns in rows(torch).items():
        t = measure(fns)

        def ratio(a, b):
            return float(np.median([x / y for x, y in zip(t[a], t[b])])) if a in t and b in t else None
        med = ", ".join(f"{k} {np.median(v) * 1e6:.1f} us" for k, v in t.items())
        rs = [(f"{a}/{b}", ratio(a, b)) for a, b in (("core", "torch"), ("core", "floor"), ("floor", "torch"),
                                                     ("floor", "np.sum"))]
        print(f"{name}: {med} | " + ", ".join(f"{n} {r:.2f}" for n, r in rs if r is not None))


if __name__ == "__main__":
    main()
