"""Forward and gradient disagreements PyTorch's op_db (and issue #14) found, run in core and in torch
side by side: batch_norm on empty input and with mixed dtypes, torch.normal keeping requires_grad
(NormalBackward1/2/3, zero gradients) and writing into out=."""
from __future__ import annotations

import numpy as np
import pytest

import core
from tests.core.ops.test_out_checks import agree

BN = {
    "empty_1d_training": lambda m: m.nn.functional.batch_norm(m.empty(0), m.empty(0), m.empty(0), training=True),
    "empty_1d_eval": lambda m: m.nn.functional.batch_norm(m.empty(0), m.empty(0), m.empty(0), training=False),
    "empty_2d_weight_bias": lambda m: m.nn.functional.batch_norm(
        m.empty(0, 3), m.zeros(5), m.ones(5), m.full((3,), 2.0), m.full((3,), 0.5), training=True),
    "empty_int_input": lambda m: m.nn.functional.batch_norm(m.empty(0, 3, dtype=m.long), None, None, training=True),
    "1d_input_running_stats": lambda m: m.nn.functional.batch_norm(m.ones(3), m.ones(1), m.ones(1), training=True),
    "1d_input_no_stats": lambda m: m.nn.functional.batch_norm(m.ones(3), None, None, training=True),
    "0d_input_training": lambda m: m.nn.functional.batch_norm(m.tensor(2.0), None, None, training=True),
    "long_input": lambda m: m.nn.functional.batch_norm(m.ones(2, 3, dtype=m.long), m.zeros(3), m.ones(3)),
}


@pytest.mark.parametrize("name", sorted(BN))
def test_batch_norm_corners(torch, name):
    agree(torch, BN[name])


# integral parameters: torch raises 'mixed dtype', core still casts them (see core/ops/nn/norm.py)
MIXED = [("float64", "float32", None), ("float32", "float64", None), ("float32", "float32", "float64"),
         ("float64", "float64", None)]


@pytest.mark.parametrize("training", [True, False])
@pytest.mark.parametrize("xd,pd,wd", MIXED)
def test_batch_norm_mixed_dtypes(torch, xd, pd, wd, training):
    """ATen's CPU batch_norm: parameters must share input's dtype ('mixed dtype (CPU)' errors)."""
    def fn(m):
        w = None if wd is None else m.ones(3, dtype=getattr(m, wd))
        return m.nn.functional.batch_norm(m.ones(2, 3, dtype=getattr(m, xd)), m.zeros(3, dtype=getattr(m, pd)),
                                          m.ones(3, dtype=getattr(m, pd)), w, training=training)
    agree(torch, fn)


def test_instance_norm_running_stats_of_another_dtype(torch):
    """instance_norm accepts float32 running stats with a float64 input (batch_norm alone would not)."""
    def fn(m):
        rm, rv = m.zeros(4), m.ones(4)
        x = m.arange(48, dtype=m.float64).reshape(2, 4, 6).sin()
        return m.nn.functional.instance_norm(x, rm, rv), rm, rv
    agree(torch, fn)


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


CIRCULAR = [((-2, 3), (1, 1, 6)), ((3, -2), (1, 1, 6)), ((-1, 1, 1, -1), (1, 2, 3, 4)), ((2, -1, -1, 2), (2, 3, 4)),
            ((1, 1, -1, -1, 2, 0), (1, 1, 3, 4, 5)), ((0, -3), (1, 2, 5)), ((-2, -2), (1, 1, 6))]


@pytest.mark.parametrize("pads,shape", CIRCULAR, ids=[str(p) for p, _ in CIRCULAR])
def test_pad_circular_negative(torch, pads, shape):
    """A negative pad crops first; the other side then wraps the cropped tensor (ATen's _pad_circular):
    values and the gradient of the input."""
    x = np.random.default_rng(len(pads) + shape[-1]).standard_normal(shape)
    res = []
    for m in (core, torch):
        t = m.tensor(x, requires_grad=True)
        r = m.nn.functional.pad(t, pads, mode="circular")
        r.backward(m.tensor(np.arange(r.numel(), dtype=np.float64).reshape(tuple(r.shape))))
        res.append((r.detach().numpy(), t.grad.numpy()))
    np.testing.assert_array_equal(res[0][0], res[1][0])
    np.testing.assert_array_equal(res[0][1], res[1][1])


@pytest.mark.parametrize("kw", [{}, {"dim": 0}, {"dim": 0, "keepdim": True}, {"dim": -1}])
def test_prod_gradient_at_0d_zero(torch, kw):
    """prod of a 0-d zero: the gradient is 1 (core's zero-aware path indexed a 0-d array)."""
    res = []
    for m in (core, torch):
        z = m.tensor(0.0, dtype=m.float64, requires_grad=True)
        (g,) = m.autograd.grad(m.prod(z, **kw), z)
        res.append(g.detach().numpy())
    np.testing.assert_array_equal(res[0], res[1])
