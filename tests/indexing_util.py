"""Helpers for the indexing tests (no tests here): run the same code on core and torch and compare
results, grad_fn names, gradients and errors."""
from __future__ import annotations

import numpy as np
import pytest

import core


def arr(*shape, seed=0, dtype=np.float32):
    return np.random.default_rng(seed).standard_normal(shape).astype(dtype)


def _leaves(L, arrays, grad):
    return [L.tensor(a, requires_grad=bool(grad and a.dtype.kind == "f")) for a in arrays]


def _call(L, fn, arrays, grad):
    ts = _leaves(L, arrays, grad)
    try:
        return fn(L, *ts), ts, None
    except Exception as e:  # noqa: BLE001 - compared with torch's exception below
        return None, ts, e


def node_name(t):
    return t.grad_fn.name() if t.grad_fn is not None else None


def _as_list(r):
    return list(r) if isinstance(r, (tuple, list)) else [r]


def assert_tensor_equal(c, t, rtol=1e-5, atol=1e-6):
    if getattr(t, "is_sparse", False):   # torch's sparse_grad=True gradient; core's is dense
        t = t.to_dense()
    assert tuple(c.shape) == tuple(t.shape), f"shape {tuple(c.shape)} != {tuple(t.shape)}"
    assert str(c.dtype) == str(t.dtype), f"dtype {c.dtype} != {t.dtype}"
    a = np.asarray(c.detach()._data)
    b = t.detach().numpy()
    if a.dtype.kind in "biu":
        np.testing.assert_array_equal(a, b)
    else:
        np.testing.assert_allclose(a, b, rtol=rtol, atol=atol, equal_nan=True)


def assert_same_error(ec, et, msg=True):
    assert ec is not None, f"core did not raise; torch raised {type(et).__name__}: {et}"
    assert type(ec).__name__ == type(et).__name__, \
        f"core raised {type(ec).__name__}: {ec}; torch raised {type(et).__name__}: {et}"
    if msg:
        assert str(ec) == str(et), f"message differs:\n core:  {ec}\n torch: {et}"


def compare(torch, fn, arrays=(), *, grad=True, msg=True, names=True, rtol=1e-5, atol=1e-6):
    """Run fn(lib, *tensors) on core and torch (float inputs require grad when grad=True); compare
    outputs (values, dtypes, shapes, grad_fn names) or errors, then gradients of sum(out * w)."""
    rc, tc, ec = _call(core, fn, arrays, grad)
    rt, tt, et = _call(torch, fn, arrays, grad)
    if et is not None:
        assert_same_error(ec, et, msg)
        return None
    if ec is not None:
        raise AssertionError(f"core raised {type(ec).__name__}: {ec}; torch did not") from ec
    outs_c, outs_t = _as_list(rc), _as_list(rt)
    assert len(outs_c) == len(outs_t)
    for c, t in zip(outs_c, outs_t):
        assert_tensor_equal(c, t, rtol, atol)
        if names:
            assert node_name(c) == node_name(t), f"grad_fn {node_name(c)} != {node_name(t)}"
    first_t = outs_t[0]
    if grad and first_t.requires_grad:
        w = np.random.default_rng(1).standard_normal(tuple(first_t.shape)).astype(np.float32)
        errs = []
        for L, out in ((core, outs_c[0]), (torch, first_t)):
            try:
                (out * L.tensor(w).to(out.dtype)).sum().backward()
                errs.append(None)
            except Exception as e:  # noqa: BLE001
                errs.append(e)
        if errs[1] is not None:
            assert_same_error(errs[0], errs[1], msg=False)
            return rc
        assert errs[0] is None, f"core backward raised {errs[0]!r}"
        for a, b in zip(tc, tt):
            if b.grad is None:
                assert a.grad is None, "core produced a gradient torch did not"
                continue
            assert a.grad is not None, "no gradient reached a core input"
            assert_tensor_equal(a.grad, b.grad, rtol=1e-4, atol=1e-5)
    return rc


def inplace_writes_self(torch, fn, a):
    """fn(L, y) on a tensor of `a` returns y itself, bumps its version and a view's once, and writes what
    torch writes."""
    res = []
    for L in (core, torch):
        y = L.tensor(a)
        v = y[0]
        r = fn(L, y)
        assert r is y
        assert y._version == 1 and v._version == 1
        res.append(y)
    np.testing.assert_allclose(res[0]._data, res[1].numpy(), rtol=1e-6)


def inplace_on_leaf_refused(torch, fn, a):
    """fn(L, x) on a leaf that requires grad raises torch's RuntimeError, and runs under no_grad."""
    for L in (core, torch):
        x = L.tensor(a, requires_grad=True)
        with pytest.raises(RuntimeError, match="leaf Variable that requires grad"):
            fn(L, x)
        with L.no_grad():
            fn(L, x)
