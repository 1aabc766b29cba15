"""Issue #15's no-graph fast paths of softmax / log_softmax / cross_entropy / sigmoid: torch's values, dtypes,
errors and modes, and bit for bit what core computed before them. `_reference_*` are the operations core ran
before the fast paths (ndarray max / sum, NumPy's default buffers, a full-size log_softmax before the pick, the
Python int 1): wherever that equalled torch bitwise the fast path still does, since it equals the reference
everywhere. Shapes cover rows shorter and longer than the 256 elements where the row-wise buffers start."""
from __future__ import annotations

import numpy as np
import pytest

import core
from conftest import assert_same, same_error

SHAPES = [(10, 100), (64, 10), (1, 7), (5,), (3, 1000), (2, 4, 600), (40, 300), (7, 257), (2, 3, 5), (1000, 3)]
TOL = {np.float32: dict(rtol=1.3e-6, atol=1e-5), np.float64: dict(rtol=1e-7, atol=1e-7)}


def _data(shape, dtype, seed, special=False):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(shape) * rng.choice([0.5, 3.0, 40.0])
    if special:     # inf, nan, signed zeros and huge values in a few places
        flat = x.reshape(-1)
        vals = np.array([np.inf, -np.inf, np.nan, -0.0, 0.0, 1e30, -1e30])
        idx = rng.choice(flat.size, min(flat.size, 5), replace=False)
        flat[idx] = vals[rng.integers(0, len(vals), idx.size)]
    return x.astype(dtype)


def _reference_softmax(x, dim, log):
    """ATen's kernel order (core/ops/nn/_softmax_order.py, torch's bits: tests/core/ops/nn/test_softmax_bitwise.py)."""
    from core.ops.nn import _softmax_order
    with np.errstate(all="ignore"):
        return (_softmax_order.log_softmax if log else _softmax_order.softmax)(x, dim % x.ndim)


def _reference_cross_entropy(x, t, reduction):
    """nll_loss (ATen's cascade reduction, tests/core/ops/nn/test_loss_bitwise.py) of the reference log-softmax: what the
    unfused path computes."""
    logp = _reference_softmax(x, 1, True)
    return core.nn.functional.nll_loss(core.tensor(logp), core.tensor(t), reduction=reduction).numpy()


def _reference_sigmoid(x):
    with np.errstate(all="ignore"):
        return 1 / (1 + np.exp(-x))


def _bits(a):
    return np.ascontiguousarray(a).tobytes()


def _check(c, t, ref, dtype):
    """c: core Tensor, t: torch tensor, ref: the pre-fast-path NumPy result."""
    assert str(c.dtype) == str(t.dtype) and tuple(c.shape) == tuple(t.shape)
    assert c.grad_fn is None and not c.requires_grad and c.is_contiguous()
    cn, tn = c.numpy(), t.numpy()
    assert _bits(cn) == _bits(ref)                          # the same bits as before
    same = ref == tn
    assert np.array_equal(cn[same], tn[same])               # so torch's bits wherever they were torch's
    np.testing.assert_allclose(cn, tn, equal_nan=True, **TOL[dtype])


@pytest.mark.parametrize("fn", ["softmax", "log_softmax"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape", SHAPES)
def test_softmax_fast_path_is_bitwise_the_reference_and_close_to_torch(torch, fn, dtype, shape):
    for seed in range(4):
        x = _data(shape, dtype, seed, special=seed == 3)
        for dim in range(-len(shape), len(shape)):
            c = getattr(core.nn.functional, fn)(core.tensor(x), dim)
            t = getattr(torch.nn.functional, fn)(torch.tensor(x), dim)
            if seed == 3:   # torch and NumPy do not agree on every row holding inf/nan: bits only
                assert _bits(c.numpy()) == _bits(_reference_softmax(x, dim, fn == "log_softmax"))
                continue
            _check(c, t, _reference_softmax(x, dim, fn == "log_softmax"), dtype)


@pytest.mark.parametrize("fn", ["softmax", "log_softmax"])
def test_softmax_general_paths_give_the_fast_path_bits(torch, fn):
    """A recorded graph, Tensor.softmax, torch.softmax and dtype= take other paths: the same bits. A transposed
    input takes the general path: the reference's bits on that layout (NumPy's sums follow memory order)."""
    x = _data((300, 40), np.float32, 5)
    for dim in (0, 1):
        fast = getattr(core.nn.functional, fn)(core.tensor(x), dim).numpy()
        leaf = core.tensor(x, requires_grad=True)
        others = [getattr(core.nn.functional, fn)(leaf, dim), getattr(core.tensor(x), fn)(dim),
                  getattr(core, fn)(core.tensor(x), dim), getattr(core.nn.functional, fn)(core.tensor(x), dim,
                                                                                           dtype=core.float32)]
        for o in others:
            assert _bits(o.detach().numpy()) == _bits(fast)
        assert others[0].grad_fn.name() == getattr(torch.nn.functional, fn)(
            torch.tensor(x, requires_grad=True), dim).grad_fn.name()
        xt = np.ascontiguousarray(x.T).T            # the same values, column-major
        c = getattr(core.nn.functional, fn)(core.tensor(np.ascontiguousarray(x.T)).t(), dim)
        assert _bits(c.numpy()) == _bits(_reference_softmax(xt, dim, fn == "log_softmax"))


@pytest.mark.parametrize("fn", ["softmax", "log_softmax"])
def test_softmax_modes_and_errors_as_torch(torch, fn):
    x = _data((4, 300), np.float32, 1)
    for lib in (core, torch):
        with lib.inference_mode():
            r = getattr(lib.nn.functional, fn)(lib.tensor(x), 1)
        with lib.no_grad():
            r2 = getattr(lib.nn.functional, fn)(lib.tensor(x, requires_grad=True), 1)
        if lib is core:
            c = (r.is_inference(), r2.requires_grad, r2.grad_fn)
        else:
            assert c == (r.is_inference(), r2.requires_grad, r2.grad_fn)
    for args in [(x, 2), (x, -3), (x, 1.0), (np.arange(6).reshape(2, 3), 1), (np.float32(2.0), 0)]:
        same_error(lambda: getattr(core.nn.functional, fn)(core.tensor(args[0]), args[1]),
                   lambda: getattr(torch.nn.functional, fn)(torch.tensor(args[0]), args[1]))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape", [(10, 100), (64, 10), (1, 3), (3, 1000), (128, 300)])
@pytest.mark.parametrize("reduction", ["mean", "sum"])
def test_cross_entropy_fast_path_is_bitwise_the_reference(torch, dtype, shape, reduction):
    for seed in range(6):
        x = _data(shape, dtype, seed, special=seed == 5)
        t = np.random.default_rng(seed).integers(0, shape[1], shape[0])
        c = core.nn.functional.cross_entropy(core.tensor(x), core.tensor(t), reduction=reduction)
        tt = torch.nn.functional.cross_entropy(torch.tensor(x), torch.tensor(t), reduction=reduction)
        ref = _reference_cross_entropy(x, t, reduction)
        assert _bits(c.numpy()) == _bits(ref)
        if seed < 5:
            _check(c, tt, ref, dtype)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_cross_entropy_fast_path_zero_and_nan_losses(torch, dtype):
    """Every picked log-probability 0 (a dominant logit): +0.0, as the negated sum before; nan logits: nan."""
    x = np.zeros((4, 5), dtype)
    t = np.array([1, 0, 3, 3])
    x[np.arange(4), t] = 1e4
    for reduction in ("mean", "sum"):
        c = core.nn.functional.cross_entropy(core.tensor(x), core.tensor(t), reduction=reduction)
        tt = torch.nn.functional.cross_entropy(torch.tensor(x), torch.tensor(t), reduction=reduction)
        assert _bits(c.numpy()) == _bits(_reference_cross_entropy(x, t, reduction))
        assert_same(c, tt)
        y = x.copy()
        y[2, 1] = np.nan
        c = core.nn.functional.cross_entropy(core.tensor(y), core.tensor(t), reduction=reduction)
        assert _bits(c.numpy()) == _bits(_reference_cross_entropy(y, t, reduction))
        assert_same(c, torch.nn.functional.cross_entropy(torch.tensor(y), torch.tensor(t), reduction=reduction))
        for lp in (np.zeros((4, 5), dtype), y):      # nll_loss's fast path shares the reduction
            c = core.nn.functional.nll_loss(core.tensor(lp), core.tensor(t), reduction=reduction)
            picked = lp[np.arange(4), t]
            s = np.add.reduce(np.negative(picked), dtype=np.float64)
            assert _bits(c.numpy()) == _bits(np.asarray(s if reduction == "sum" else s / 4.0, dtype=dtype))
            assert_same(c, torch.nn.functional.nll_loss(torch.tensor(lp), torch.tensor(t), reduction=reduction))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape", [(10, 100), (5,), (3, 1000), (0, 4), (2, 3, 4)])
def test_sigmoid_fast_path_is_bitwise_the_reference(torch, dtype, shape):
    for seed in range(4):
        x = _data(shape, dtype, seed, special=seed == 3)
        for c, t in [(core.tensor(x).sigmoid(), torch.tensor(x).sigmoid()),
                     (core.sigmoid(core.tensor(x)), torch.sigmoid(torch.tensor(x))),
                     (core.nn.functional.sigmoid(core.tensor(x)), torch.nn.functional.sigmoid(torch.tensor(x)))]:
            _check(c, t, _reference_sigmoid(x), dtype)
    x = np.array([-1e4, -100, -88.8, -0.0, 0.0, 30, 1e4, np.inf, -np.inf, np.nan], dtype)
    _check(core.tensor(x).sigmoid(), torch.tensor(x).sigmoid(), _reference_sigmoid(x), dtype)


def test_sigmoid_general_paths_give_the_fast_path_bits(torch):
    x = _data((30, 20), np.float32, 7)
    fast = core.tensor(x).sigmoid().numpy()
    leaf = core.tensor(x, requires_grad=True)
    out = core.empty(30, 20)
    others = [core.tensor(np.ascontiguousarray(x.T)).t().sigmoid(), leaf.sigmoid(),
              core.sigmoid(core.tensor(x), out=out), core.tensor(x).sigmoid_()]
    for o in others:
        assert _bits(o.detach().numpy()) == _bits(fast)
    assert others[1].grad_fn.name() == torch.tensor(x, requires_grad=True).sigmoid().grad_fn.name()
    for lib in (core, torch):
        with lib.inference_mode():
            r = lib.tensor(x).sigmoid()
        assert r.is_inference()
    same_error(lambda: core.sigmoid([1.0]), lambda: torch.sigmoid([1.0]))
    assert_same(core.tensor([1, -2]).sigmoid(), torch.tensor([1, -2]).sigmoid())   # integers: default float
