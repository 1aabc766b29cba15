"""core.masked against torch.masked on strided tensors: values, dtypes, keepdim, dtype=, broadcast masks,
fully masked-out rows (the identity values), gradients, errors."""
from __future__ import annotations

import numpy as np
import pytest

import core
from conftest import assert_same, same_error

X = [[1.0, -2.0, 3.0, 0.5], [4.0, 5.0, -6.0, 2.0], [0.0, 1.5, 2.5, -1.0]]
MASK = [[True, False, True, True], [False, False, False, False], [True, True, False, True]]
REDUCTIONS = ["sum", "prod", "amax", "amin", "mean", "logsumexp", "var", "std", "norm"]


def operands(torch, dtype="float64", data=X, grad=True):
    req = grad and dtype.startswith("float")
    c = core.tensor(data, dtype=getattr(core, dtype), requires_grad=req)
    t = torch.tensor(data, dtype=getattr(torch, dtype), requires_grad=req)
    return c, t, core.tensor(MASK), torch.tensor(MASK)


def check_grad(oc, ot, c, t, torch):
    w = np.linspace(-1, 1, int(np.prod(ot.shape))).reshape(tuple(ot.shape))
    (gc,) = core.autograd.grad(oc, c, core.tensor(w, dtype=oc.dtype))
    (gt,) = torch.autograd.grad(ot, t, torch.tensor(w, dtype=ot.dtype))
    assert_same(gc, gt, rtol=1e-9, atol=1e-9)


@pytest.mark.parametrize("name", REDUCTIONS)
@pytest.mark.parametrize("dim,keepdim", [(1, False), (0, True), (None, False), ((0, 1), True)])
def test_masked_reductions(torch, name, dim, keepdim):
    c, t, mc, mt = operands(torch)
    oc = getattr(core.masked, name)(c, dim=dim, keepdim=keepdim, mask=mc)
    ot = getattr(torch.masked, name)(t, dim=dim, keepdim=keepdim, mask=mt)
    assert_same(oc, ot, rtol=1e-10, atol=1e-12)
    if ot.requires_grad and np.isfinite(ot.detach().numpy()).all():
        check_grad(oc, ot, c, t, torch)


@pytest.mark.parametrize("name", ["sum", "prod", "amax", "amin", "argmax", "argmin"])
@pytest.mark.parametrize("dtype", ["int64", "bool", "float32"])
def test_masked_reduction_dtypes(torch, name, dtype):
    if dtype == "bool" and name in ("amax", "amin", "argmax", "argmin"):
        pytest.skip("torch has no identity for bool max/min")
    data = (np.array(X) > 0).tolist() if dtype == "bool" else np.array(X).astype(int).tolist() \
        if dtype == "int64" else X
    c, t, mc, mt = operands(torch, dtype, data, grad=False)
    dim = 1
    assert_same(getattr(core.masked, name)(c, dim, mask=mc), getattr(torch.masked, name)(t, dim, mask=mt))


@pytest.mark.parametrize("name", ["cumsum", "cumprod", "softmax", "log_softmax", "softmin"])
@pytest.mark.parametrize("dim", [0, 1, -1])
def test_masked_normalizations(torch, name, dim):
    c, t, mc, mt = operands(torch)
    oc, ot = getattr(core.masked, name)(c, dim, mask=mc), getattr(torch.masked, name)(t, dim, mask=mt)
    assert_same(oc, ot, rtol=1e-10, atol=1e-12)
    if np.isfinite(ot.detach().numpy()).all():
        check_grad(oc, ot, c, t, torch)


@pytest.mark.parametrize("ord", [1, 2, float("inf"), 3.0])
def test_masked_normalize_and_norm(torch, ord):
    c, t, mc, mt = operands(torch)
    oc, ot = core.masked.normalize(c, ord, 1, mask=mc), torch.masked.normalize(t, ord, 1, mask=mt)
    assert_same(oc, ot, rtol=1e-10)
    check_grad(oc, ot, c, t, torch)
    assert_same(core.masked.norm(c, ord, 0, mask=mc), torch.masked.norm(t, ord, 0, mask=mt), rtol=1e-10)


def test_masked_median_and_logaddexp(torch):
    c, t, mc, mt = operands(torch)
    assert_same(core.masked.median(c, 1, mask=mc), torch.masked.median(t, 1, mask=mt))
    ci, ti, _, _ = operands(torch, "int64", np.array(X).astype(int).tolist(), grad=False)
    ec, et = same_error(lambda: core.masked.median(ci, 1, mask=mc), lambda: torch.masked.median(ti, 1, mask=mt))
    assert str(ec) == str(et)
    oc = core.masked.logaddexp(c, c * 2, input_mask=mc, other_mask=mc.logical_not())
    ot = torch.masked.logaddexp(t, t * 2, input_mask=mt, other_mask=mt.logical_not())
    assert_same(oc, ot)
    check_grad(oc, ot, c, t, torch)


def test_masked_broadcast_mask_none_mask_and_dtype(torch):
    c, t, _, _ = operands(torch)
    row_c, row_t = core.tensor([True, False, True, False]), torch.tensor([True, False, True, False])
    for name in ("sum", "mean", "amax", "var"):
        assert_same(getattr(core.masked, name)(c, 1, mask=row_c), getattr(torch.masked, name)(t, 1, mask=row_t))
        assert_same(getattr(core.masked, name)(c, 1), getattr(torch.masked, name)(t, 1))
    assert_same(core.masked.sum(c, 1, dtype=core.float32, mask=row_c),
                torch.masked.sum(t, 1, dtype=torch.float32, mask=row_t))
    assert_same(core.masked.var(c, 1, unbiased=False, mask=row_c), torch.masked.var(t, 1, unbiased=False, mask=row_t))
    assert_same(core.masked.std(c, 1, correction=0, mask=row_c), torch.masked.std(t, 1, correction=0, mask=row_t))


@pytest.mark.parametrize("call", [
    lambda m: m.masked.mean(m.tensor([[1, 2]]), 1, mask=m.tensor([[True, False]])),
    lambda m: m.masked.sum(m.ones(2, 2), 2, mask=m.ones(2, 2, dtype=m.bool)),
    lambda m: m.masked.sum(m.ones(2, 2), (0, 0), mask=m.ones(2, 2, dtype=m.bool)),
    lambda m: m.masked.sum(m.ones(2), 0, mask=m.ones(1, 2, 2, dtype=m.bool)),
])
def test_masked_errors(torch, call):
    ec, et = same_error(lambda: call(core), lambda: call(torch))
    assert str(ec) == str(et)
