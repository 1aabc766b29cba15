"""core/ops/random.py side by side with torch: normal keeps requires_grad (NormalBackward1/2/3, zero
gradients) and writes into out=; bernoulli's and multinomial's out=."""
from __future__ import annotations

import numpy as np
import pytest

import core
from agreement import agree


NORMAL = {
    "tensor_tensor": (lambda m, a, b: m.normal(a, b), "NormalBackward3"),
    "tensor_float": (lambda m, a, b: m.normal(a, 2.0), "NormalBackward1"),
    "float_tensor": (lambda m, a, b: m.normal(1.0, b), "NormalBackward2"),
}


@pytest.mark.parametrize("name", sorted(NORMAL))
def test_normal_keeps_requires_grad(torch, name):
    """normal with Tensor mean/std records torch's node; its gradients are zeros of each input's shape."""
    fn, node = NORMAL[name]
    res = {}
    for m in (core, torch):
        m.manual_seed(3)
        a = m.zeros(1, 3, dtype=m.float64, requires_grad=True)
        b = m.ones(2, 3, dtype=m.float64, requires_grad=True)
        r = fn(m, a, b)
        assert r.requires_grad and type(r.grad_fn).__name__ == node
        r.sum().backward()
        res[m.__name__] = (r.detach().numpy(), a.grad, b.grad)
    c, t = res["core"], res["torch"]
    np.testing.assert_array_equal(c[0], t[0])
    for gc, gt in zip(c[1:], t[1:]):
        assert (gc is None) == (gt is None)
        if gt is not None:
            np.testing.assert_array_equal(gc.numpy(), gt.numpy())


@pytest.mark.parametrize("case", ["tensor_out", "size_out", "size_out_long", "grad_out"])
def test_normal_out(torch, case):
    def fn(m):
        m.manual_seed(7)
        if case == "tensor_out":
            o = m.empty(3)
            r = m.normal(m.zeros(2), m.ones(2), out=o)
        elif case == "size_out":
            o = m.empty(3)
            r = m.normal(0.0, 1.0, (2,), out=o)
        elif case == "size_out_long":
            o = m.empty(3, dtype=m.long)
            r = m.normal(0.0, 1.0, (2,), out=o)
        else:
            o = m.empty(3)
            r = m.normal(m.zeros(3, requires_grad=True), m.ones(3), out=o)
        assert r is o
        return o
    agree(torch, fn)


OVERLAP = {
    "bernoulli_expanded_out": lambda m: m.bernoulli(m.full((6,), 0.5), out=m.zeros(1).expand(6)),
}


@pytest.mark.parametrize("name", sorted(OVERLAP))
def test_out_overlap_checks(torch, name):
    agree(torch, OVERLAP[name])


def test_bernoulli_out_written_like_torch(torch):
    """bernoulli(p, out=o): o resized to p's shape and filled with the draws torch makes (same generator)."""
    def fn(m):
        m.manual_seed(5)
        o = m.zeros(2, 3, dtype=m.int64)
        r = m.bernoulli(m.full((6,), 0.5, dtype=m.float64), out=o)
        assert r is o
        return o
    agree(torch, fn)


@pytest.mark.parametrize("dtype", ["float64", "int32", "int64"])
def test_multinomial_out(torch, dtype):
    def fn(m):
        m.manual_seed(1)
        o = m.empty(3, dtype=getattr(m, dtype))
        r = m.multinomial(m.tensor([[0.2, 0.3, 0.5], [0.9, 0.05, 0.05]], dtype=m.float64), 2, out=o)
        assert r is o
        return o
    agree(torch, fn)
