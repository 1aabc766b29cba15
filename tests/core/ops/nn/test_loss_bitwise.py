"""Loss reductions bit for bit with torch: apply_loss_reduction's sum / mean in torch's sum order, nll_loss's
4-level cascade (nll_loss_out_frame; weights and ignore_index included), mse_loss_backward's norm * diff * grad."""
import numpy as np
import pytest

import core
from agreement import bits_equal as _bits_equal


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("n", [1, 17, 300])
def test_loss_reductions_bits(torch, dtype, n):
    rng = np.random.default_rng(n)
    x, y = (rng.standard_normal((n, 6)).astype(dtype) for _ in range(2))
    t = rng.integers(0, 6, n)
    t[::5] = 2
    w = rng.random(6).astype(dtype)
    for red in ("mean", "sum"):
        for name in ("mse_loss", "l1_loss", "smooth_l1_loss", "huber_loss"):
            res = []
            for lib in (core, torch):
                xi = lib.from_numpy(x.copy()).requires_grad_(True)
                out = getattr(lib.nn.functional, name)(xi, lib.from_numpy(y), reduction=red)
                (g,) = lib.autograd.grad(out, xi)
                res.append((out, g))
            _bits_equal(res[0][0], res[1][0])
            if name in ("mse_loss", "l1_loss"):
                _bits_equal(res[0][1], res[1][1])
        for kw in ({}, {"weight": w}, {"ignore_index": 2}, {"weight": w, "ignore_index": 2}):
            outs = [lib.nn.functional.nll_loss(lib.from_numpy(x), lib.from_numpy(t), reduction=red,
                                               **{k: (lib.from_numpy(v) if k == "weight" else v) for k, v in kw.items()})
                    for lib in (core, torch)]
            _bits_equal(*outs)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape", [(17,), (5, 7), (3, 4, 5), (33, 20)])
@pytest.mark.parametrize("name,kw", [("smooth_l1_loss", {"beta": 0.7}), ("smooth_l1_loss", {}),
                                     ("huber_loss", {"delta": 0.8})])
def test_piecewise_loss_grads_bits(torch, dtype, shape, name, kw):
    """smooth_l1 / huber backward: the vectorised formula on whole pairs of vectors, the scalar one (with beta /
    delta as a double) on the last numel % 16 (float) or % 8 (double) elements, and on every element when the
    input is not C-contiguous."""
    rng = np.random.default_rng(len(shape) + shape[0])
    x, t = (rng.standard_normal(shape).astype(dtype) for _ in range(2))
    for layout in ("contiguous", "transposed"):
        xs, ts = (a if layout == "contiguous" else np.ascontiguousarray(a.T).T for a in (x, t))
        for reduction in ("mean", "sum", "none"):
            grads = []
            for lib in (core, torch):
                X, T = (lib.from_numpy(a).requires_grad_(True) for a in (xs, ts))
                out = getattr(lib.nn.functional, name)(X, T, reduction=reduction, **kw)
                cot = lib.from_numpy(np.full(shape, 0.37, dtype)) if reduction == "none" else None
                grads.append([np.ascontiguousarray(g.numpy()).tobytes() for g in lib.autograd.grad(out, [X, T], cot)])
            assert grads[0] == grads[1], (layout, reduction)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_binary_cross_entropy_input_grad_bits(torch, dtype, reduction):
    """binary_cross_entropy_backward: grad * (x - t) / max((1 - x) * x, 1e-12), times weight, then / numel."""
    rng = np.random.default_rng(3)
    x, t = rng.uniform(0.01, 0.99, (33, 20)).astype(dtype), rng.uniform(0, 1, (33, 20)).astype(dtype)
    w = rng.uniform(0.5, 2, (33, 20)).astype(dtype)
    for weight in (None, w):
        grads = []
        for lib in (core, torch):
            X = lib.from_numpy(x.copy()).requires_grad_(True)
            out = lib.nn.functional.binary_cross_entropy(X, lib.from_numpy(t), reduction=reduction,
                                                         weight=None if weight is None else lib.from_numpy(weight))
            cot = lib.from_numpy(np.full(x.shape, 0.37, dtype)) if reduction == "none" else None
            grads.append(lib.autograd.grad(out, [X], cot)[0].numpy().tobytes())
        assert grads[0] == grads[1]
