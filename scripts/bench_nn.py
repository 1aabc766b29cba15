"""core.nn vs torch.nn speed, side by side in one process (torch single-threaded).

`cases(torch_mod)` returns a list of `(name, core_fn, torch_fn)`: zero-argument callables that
each run one full step of the case on core and on `torch_mod` (inputs and parameters are built
once, with torch's values copied into core):

- conv2d_fwd_bwd: conv2d of a 1x3x64x64 input with 16 3x3 filters (+ bias), sum, backward.
- mlp_train_step: 784-256-10 MLP (Linear, ReLU, Linear) on a batch of 64: forward, cross_entropy,
  zero_grad, backward, SGD update of every parameter under no_grad.

Run directly: prints core ms, torch ms and core/torch ratio per case (best of interleaved batches),
plus NumPy's BLAS configuration. torch is set to one thread; NumPy's OpenBLAS uses its default
thread count unless `--blas-threads N` is given (it sets OPENBLAS_NUM_THREADS before NumPy loads).
On a loaded 2-core machine multi-threaded OpenBLAS is much noisier for these small GEMMs.
"""
from __future__ import annotations

import os
import sys
import time

if __name__ == "__main__" and "--blas-threads" in sys.argv:
    _n = sys.argv[sys.argv.index("--blas-threads") + 1]
    os.environ["OPENBLAS_NUM_THREADS"] = os.environ["OMP_NUM_THREADS"] = os.environ["MKL_NUM_THREADS"] = _n

import numpy as np  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import core  # noqa: E402
import core.nn as cnn  # noqa: E402
import core.nn.functional as CF  # noqa: E402


def _copy_params(tmod, cmod):
    for (_, tp), (_, cp) in zip(tmod.named_parameters(), cmod.named_parameters()):
        cp._data[...] = tp.detach().numpy()


def cases(torch_mod):
    """[(name, core_fn, torch_fn)] of zero-argument callables; see the module docstring."""
    T = torch_mod
    TF = T.nn.functional
    rng = np.random.default_rng(0)
    out = []

    x = rng.standard_normal((1, 3, 64, 64)).astype(np.float32)
    w = rng.standard_normal((16, 3, 3, 3)).astype(np.float32)
    b = rng.standard_normal(16).astype(np.float32)
    cx, cw, cb = (core.from_numpy(a.copy()).requires_grad_() for a in (x, w, b))
    tx, tw, tb = (T.from_numpy(a.copy()).requires_grad_() for a in (x, w, b))

    def core_conv():
        cx.grad = cw.grad = cb.grad = None
        CF.conv2d(cx, cw, cb).sum().backward()

    def torch_conv():
        tx.grad = tw.grad = tb.grad = None
        TF.conv2d(tx, tw, tb).sum().backward()

    out.append(("conv2d_fwd_bwd", core_conv, torch_conv))

    tm = T.nn.Sequential(T.nn.Linear(784, 256), T.nn.ReLU(), T.nn.Linear(256, 10))
    cm = cnn.Sequential(cnn.Linear(784, 256), cnn.ReLU(), cnn.Linear(256, 10))
    _copy_params(tm, cm)
    xi = rng.standard_normal((64, 784)).astype(np.float32)
    ti = rng.integers(0, 10, 64)
    cxi, ctg = core.from_numpy(xi.copy()), core.from_numpy(ti.copy())
    txi, ttg = T.from_numpy(xi.copy()), T.from_numpy(ti.copy())
    lr = 0.01

    def core_mlp():
        loss = CF.cross_entropy(cm(cxi), ctg)
        cm.zero_grad()
        loss.backward()
        with core.no_grad():
            for p in cm.parameters():
                p -= lr * p.grad

    def torch_mlp():
        loss = TF.cross_entropy(tm(txi), ttg)
        tm.zero_grad()
        loss.backward()
        with T.no_grad():
            for p in tm.parameters():
                p -= lr * p.grad

    out.append(("mlp_train_step", core_mlp, torch_mlp))
    return out


def _calibrate(fn, target=0.02):
    fn()
    n, t0 = 0, time.perf_counter()
    while time.perf_counter() - t0 < target:
        fn()
        n += 1
    return max(1, n)


def _time_pair(cfn, tfn, reps=15):
    """Interleaved timings (core batch, torch batch, ...) so that load from other processes hits both;
    returns the best (minimum) per-call milliseconds of each, the usual estimate on a noisy machine."""
    nc, nt = _calibrate(cfn), _calibrate(tfn)
    best = [float("inf"), float("inf")]
    for _ in range(reps):
        for i, (fn, n) in enumerate(((cfn, nc), (tfn, nt))):
            t0 = time.perf_counter()
            for _ in range(n):
                fn()
            best[i] = min(best[i], (time.perf_counter() - t0) / n)
    return best[0] * 1e3, best[1] * 1e3


def _blas_info():
    try:
        cfg = np.show_config(mode="dicts")
        blas = cfg["Build Dependencies"]["blas"]
        return f"{blas.get('name')} {blas.get('version')}"
    except Exception:  # noqa: BLE001 - informational only
        return "unknown"


def main():
    import torch
    torch.set_num_threads(1)
    threads = os.environ.get("OPENBLAS_NUM_THREADS") or os.environ.get("OMP_NUM_THREADS") or "default"
    print(f"numpy {np.__version__}, BLAS {_blas_info()} (threads: {threads}; {os.cpu_count()} CPUs), "
          f"torch {torch.__version__} with 1 thread")
    print(f"{'case':<18} {'core ms':>9} {'torch ms':>9} {'ratio':>7}")
    for name, cfn, tfn in cases(torch):
        c, t = _time_pair(cfn, tfn)
        print(f"{name:<18} {c:9.3f} {t:9.3f} {c / t:7.2f}")


if __name__ == "__main__":
    main()
