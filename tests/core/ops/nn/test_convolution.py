"""torch.convolution (the generic entry the conv functions call) and torch.conv_tbc, side by side with torch:
values, grad_fn names, gradients, argument errors."""
from __future__ import annotations

import pytest

import core
from conftest import assert_same, same_error


def _data(lib):
    g = lib.Generator().manual_seed(0)
    return {"x": lib.randn(2, 2, 5, generator=g, dtype=lib.float64, requires_grad=True),
            "w": lib.randn(3, 2, 2, generator=g, dtype=lib.float64, requires_grad=True),
            "X": lib.randn(6, 2, 3, generator=g, dtype=lib.float64, requires_grad=True),
            "W": lib.randn(3, 3, 4, generator=g, dtype=lib.float64, requires_grad=True),
            "B": lib.randn(4, generator=g, dtype=lib.float64, requires_grad=True), "lib": lib}


CASES = [
    "lib.convolution(x, w, None, [1], [0], [1], False, [0], 1)", "lib.convolution(x, w, None, 1, 0, 1, False, 0, 1)",
    "lib.convolution(x, w.transpose(0, 1), None, [1], [0], [1], True, [0], 1)", "lib.convolution(x, w)",
    "lib.convolution(x.view(2, 2, 5, 1), w.view(3, 2, 2, 1), B[:3], [1, 1], [1, 0], [1, 1], False, [0, 0], 1)",
    "lib.convolution(lib.ones(2, 5, dtype=lib.float64), w, None, [1], [0], [1], False, [0], 1)",
    "lib.convolution(x.view(1, 2, 1, 1, 5), w.view(3, 2, 1, 1, 2), None, [1, 1, 2], [0, 0, 1], [1, 1, 1], False, "
    "[0, 0, 0], 1)",
    "lib.conv_tbc(X, W, B, 1)", "lib.conv_tbc(X, W, B)", "lib.conv_tbc(X, W, B, 3)", "lib.conv_tbc(X, W)",
    "lib.conv_tbc(X[0], W, B)", "lib.conv_tbc(X, W[:, :2], B)", "lib.conv_tbc(X, W, B[:3])",
    "lib.conv_tbc(X[:1], W, B)", "lib.conv_tbc(X[:1], W, B, 1)"]


@pytest.mark.parametrize("expr", CASES)
def test_values_and_grad_fn(torch, expr):
    ec, et = same_error(lambda: eval(expr, _data(core)), lambda: eval(expr, _data(torch)))
    if ec is not None:
        assert str(ec) == str(et)
        return
    c, t = eval(expr, _data(core)), eval(expr, _data(torch))
    assert_same(c, t, rtol=1e-10, atol=1e-10)
    assert c.grad_fn.name() == t.grad_fn.name()


@pytest.mark.parametrize("pad", [0, 1, 2, 4])
def test_conv_tbc_gradients(torch, pad):
    def grads(lib):
        d = _data(lib)
        r = lib.conv_tbc(d["X"], d["W"], d["B"], pad)
        (r * r).sum().backward()
        return d["X"].grad, d["W"].grad, d["B"].grad
    for c, t in zip(grads(core), grads(torch)):
        assert_same(c, t, rtol=1e-10, atol=1e-10)
