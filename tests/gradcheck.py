"""Numerical gradient check (central differences in float64), applied to core ops."""
from __future__ import annotations

import numpy as np

import core


def numerical_grad(fn, inputs, eps=1e-6):
    """d(sum(fn(*inputs) * w))/d(input) for a fixed random weight w, by central differences."""
    arrays = [np.array(x._data, dtype=np.float64) for x in inputs]
    out = fn(*[core.from_numpy(a.copy()) for a in arrays])
    rng = np.random.default_rng(0)
    w = rng.standard_normal(out.shape)
    grads = []
    for k, a in enumerate(arrays):
        g = np.zeros_like(a)
        it = np.nditer(a, flags=["multi_index"])
        for _ in it:
            i = it.multi_index
            plus = [b.copy() for b in arrays]
            minus = [b.copy() for b in arrays]
            plus[k][i] += eps
            minus[k][i] -= eps
            fp = fn(*[core.from_numpy(b) for b in plus])._data
            fm = fn(*[core.from_numpy(b) for b in minus])._data
            g[i] = np.sum((fp - fm) * w) / (2 * eps)
        grads.append(g)
    return grads, w


def gradcheck(fn, *inputs, atol=1e-5, rtol=1e-4):
    """Compare core's analytic gradients with numerical ones, in float64. Returns True or raises AssertionError."""
    xs = [core.from_numpy(np.array(x._data if isinstance(x, core.Tensor) else x, dtype=np.float64)).requires_grad_()
          for x in inputs]
    num, w = numerical_grad(fn, xs)
    out = fn(*xs)
    out.backward(core.from_numpy(w.astype(np.float64)))
    for x, n in zip(xs, num):
        assert x.grad is not None, "no gradient reached an input"
        np.testing.assert_allclose(x.grad._data, n, atol=atol, rtol=rtol)
    return True
