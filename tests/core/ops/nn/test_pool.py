"""Pooling of issue #14 vs torch: max/avg pool 1-D and 3-D (indices, ceil_mode, dilation, divisor),
adaptive 3-D pools, max_unpool 1/2/3-D, fractional max pool (same samples under the same seed),
lp_pool, constant_pad_nd; values, dtypes, grad_fn names, gradients (float64, create_graph), error
classes and messages, the nn modules (reprs, forward) and the commands' examples."""
from __future__ import annotations


import numpy as np
import pytest

import core
from core.ops.registry import OPS
from harness import assert_agree

RNG = np.random.default_rng(14)


def _x(torch, *shape, dtype="float64", grad=True):
    t = torch.tensor(RNG.standard_normal(shape), dtype=getattr(torch, dtype))
    return t.requires_grad_(grad and t.is_floating_point())


def _ties(torch, *shape):
    """Integer-valued floats: windows with ties and repeated maxima."""
    return torch.tensor(RNG.integers(-2, 3, shape), dtype=torch.float64).requires_grad_()


# (id, input shape or maker, fn(F-like namespace, L-like torch/core, x))
CASES = [
    ("max_pool1d", (2, 3, 9), lambda F, L, x: F.max_pool1d(x, 3, 2, 1)),
    ("max_pool1d_ceil_dil", (2, 3, 10), lambda F, L, x: F.max_pool1d(x, 2, 3, 1, 2, ceil_mode=True)),
    ("max_pool1d_indices", (3, 8), lambda F, L, x: F.max_pool1d(x, 2, return_indices=True)),
    ("torch_max_pool1d", (2, 3, 9), lambda F, L, x: L.max_pool1d(x, 3)),
    ("torch_max_pool1d_with_indices", (2, 3, 9), lambda F, L, x: L.max_pool1d_with_indices(x, 3)),
    ("F_max_pool1d_with_indices", (2, 3, 9), lambda F, L, x: F.max_pool1d_with_indices(x, 3, 1)),
    ("avg_pool1d", (2, 3, 9), lambda F, L, x: F.avg_pool1d(x, 3, 2, 1, count_include_pad=False)),
    ("avg_pool1d_ceil", (2, 3, 10), lambda F, L, x: F.avg_pool1d(x, 4, 3, 2, ceil_mode=True)),
    ("torch_avg_pool1d", (3, 9), lambda F, L, x: L.avg_pool1d(x, 2)),
    ("max_pool3d", (2, 2, 5, 6, 7), lambda F, L, x: F.max_pool3d(x, 2)),
    ("max_pool3d_all", (2, 5, 6, 7), lambda F, L, x: F.max_pool3d(x, (2, 3, 2), (1, 2, 1), 1, (1, 1, 2), True,
                                                                  True)),
    ("max_pool3d_ties", "ties", lambda F, L, x: F.max_pool3d(x, 2, 1, return_indices=True)),
    ("torch_max_pool3d", (1, 2, 4, 4, 4), lambda F, L, x: L.max_pool3d(x, 3, 2, 1)),
    ("F_max_pool3d_with_indices", (1, 2, 4, 4, 4), lambda F, L, x: F.max_pool3d_with_indices(x, 2)),
    ("avg_pool3d", (2, 2, 5, 6, 7), lambda F, L, x: F.avg_pool3d(x, 2)),
    ("avg_pool3d_pad", (2, 5, 6, 7), lambda F, L, x: F.avg_pool3d(x, 3, 2, 1, True, False)),
    ("avg_pool3d_divisor", (1, 2, 4, 5, 6), lambda F, L, x: F.avg_pool3d(x, (2, 3, 2), 1, (1, 0, 1),
                                                                         divisor_override=5)),
    ("adaptive_avg_pool3d", (2, 3, 5, 6, 7), lambda F, L, x: F.adaptive_avg_pool3d(x, (2, 4, 3))),
    ("adaptive_avg_pool3d_none", (3, 5, 6, 7), lambda F, L, x: F.adaptive_avg_pool3d(x, (None, 2, None))),
    ("adaptive_max_pool3d", (2, 3, 5, 6, 7), lambda F, L, x: F.adaptive_max_pool3d(x, (2, 4, 3), True)),
    ("adaptive_max_pool3d_unbatched", (3, 5, 6, 7), lambda F, L, x: F.adaptive_max_pool3d(x, 3)),
    ("adaptive_max_pool3d_with_indices", (3, 5, 6, 7), lambda F, L, x: F.adaptive_max_pool3d_with_indices(x, 2)),
    ("lp_pool1d", "positive", lambda F, L, x: F.lp_pool1d(x[0], 2, 3, 2)),
    ("lp_pool2d", "positive", lambda F, L, x: F.lp_pool2d(x, 1.5, (2, 3))),
    ("lp_pool2d_inf", (2, 3, 6, 7), lambda F, L, x: F.lp_pool2d(x, float("inf"), 2)),
    ("lp_pool3d", "positive3", lambda F, L, x: F.lp_pool3d(x, 3, 2)),
    ("constant_pad_nd", (2, 3, 4), lambda F, L, x: L.constant_pad_nd(x, (1, 2, -1, 1), 2.5)),
    ("constant_pad_nd_int", "int", lambda F, L, x: L.constant_pad_nd(x, (1, 1), 2.7)),
]


def _input(torch, spec):
    if spec == "ties":
        return _ties(torch, 1, 2, 4, 4, 4)
    if spec == "positive":
        return torch.tensor(RNG.random((2, 3, 6, 7)) + 0.1).requires_grad_()
    if spec == "positive3":
        return torch.tensor(RNG.random((2, 3, 4, 5, 6)) + 0.1).requires_grad_()
    if spec == "int":
        return torch.tensor(RNG.integers(-5, 5, (3, 4)))
    return _x(torch, *spec)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_pool_matches_torch(torch, case, dtype):
    _, spec, fn = case
    x = _input(torch, spec)
    if x.is_floating_point():
        x = x.detach().to(getattr(torch, dtype)).requires_grad_()
    assert_agree(lambda x: fn(core.nn.functional, core, x), lambda x: fn(torch.nn.functional, torch, x),
                 (x,), {}, torch)


def _unpool_case(torch, nd, dtype, **kw):
    shape = {1: (2, 3, 8), 2: (2, 3, 6, 7), 3: (2, 2, 4, 5, 6)}[nd]
    pool = getattr(torch.nn.functional, f"max_pool{nd}d")
    x = torch.tensor(RNG.standard_normal(shape), dtype=getattr(torch, dtype))
    out, idx = pool(x, 2, return_indices=True, **kw)
    return out.detach().requires_grad_(), idx


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("nd", [1, 2, 3])
def test_max_unpool_inverts_max_pool(torch, nd, dtype):
    v, idx = _unpool_case(torch, nd, dtype)
    name = f"max_unpool{nd}d"
    assert_agree(getattr(core.nn.functional, name), getattr(torch.nn.functional, name), (v, idx, 2), {}, torch)
    size = [s + 1 for s in v.shape[2:]]   # an explicit output_size (one larger than the default)
    assert_agree(getattr(core.nn.functional, name), getattr(torch.nn.functional, name), (v, idx, 2),
                 {"output_size": size}, torch)


POOL_ERRORS = [
    lambda F, L: F.max_pool1d(L.zeros(0, 1, 49), 2, 50, -1),
    lambda F, L: F.max_pool1d(L.zeros(0, 1, 49), 2, 50, 4, return_indices=True),
    lambda F, L: F.max_pool1d(L.zeros(1, 10, 0), 1),
    lambda F, L: F.max_pool1d(L.zeros(3, 3, 3), 1, 0),
    lambda F, L: F.max_pool1d(L.zeros(2, 2, 2), 5, 1),
    lambda F, L: F.max_pool1d(L.zeros(3, 3, 3).long(), 1),
    lambda F, L: F.max_pool1d(L.zeros(3, 3, 3), 1, 1, 0, 0, return_indices=True),
    lambda F, L: F.avg_pool1d(L.zeros(6), 2),
    lambda F, L: F.avg_pool1d(L.zeros(1, 1, 6), 2, 0),
    lambda F, L: F.max_pool3d(L.zeros(0, 1, 2, 10), 1),
    lambda F, L: F.max_pool3d(L.zeros(1, 1, 1, 4, 4), 2),
    lambda F, L: F.max_pool3d(L.zeros(4, 4, 4), 2),
    lambda F, L: F.max_pool3d(L.zeros(1, 1, 4, 4, 4), (2, 2)),
    lambda F, L: F.max_pool3d(L.zeros(1, 1, 4, 4, 4), 2, dilation=0),
    lambda F, L: F.avg_pool3d(L.zeros(1, 1, 1, 4, 4), 2),
    lambda F, L: F.avg_pool3d(L.zeros(3, 3, 3, 3), 2, divisor_override=0),
    lambda F, L: F.avg_pool3d(L.zeros(0, 1, 49, 50), 2, 50, 4),
    lambda F, L: F.adaptive_avg_pool3d(L.zeros(1, 2, 3, 4), ()),
    lambda F, L: F.adaptive_avg_pool3d(L.zeros(1, 1, 1, 1, 1), (-1, 0, 2)),
    lambda F, L: F.adaptive_max_pool3d(L.zeros(1, 1, 1, 1, 1), (-1, 0, 2)),
    lambda F, L: F.adaptive_max_pool3d(L.zeros(2, 0, 3, 4, 5), 2),
    lambda F, L: F.adaptive_avg_pool3d(L.zeros(1, 3, 4, 5).long(), 2),
    lambda F, L: F.adaptive_avg_pool1d(L.zeros(1, 2, 3), ()),
    lambda F, L: F.adaptive_max_pool2d(L.zeros(1, 2, 3), (-1, 2)),
    lambda F, L: F.max_unpool2d(L.zeros(1, 1, 2, 2), L.zeros(1, 1, 2, 1).long(), 2),
    lambda F, L: F.max_unpool2d(L.zeros(1, 1, 2, 2), L.zeros(1, 1, 2, 2), 2),
    lambda F, L: F.max_unpool2d(L.zeros(1, 1, 2, 2), L.full((1, 1, 2, 2), 100).long(), 2),
    lambda F, L: F.max_unpool2d(L.zeros(1, 1, 2, 2), L.zeros(1, 1, 2, 2).long(), 2, output_size=(7, 7)),
    lambda F, L: F.max_unpool2d(L.zeros(2, 2), L.zeros(2, 2).long(), 2),
    lambda F, L: F.max_unpool3d(L.zeros(1, 1, 2, 2, 2), L.full((1, 1, 2, 2, 2), 1000).long(), 2),
    lambda F, L: F.fractional_max_pool2d(L.zeros(1, 1, 4, 4), 2),
    lambda F, L: F.fractional_max_pool2d(L.zeros(1, 1, 4, 4), 2, output_ratio=0.5),
    lambda F, L: F.fractional_max_pool2d(L.zeros(1, 1, 4, 4), 3, output_size=3),
    lambda F, L: F.fractional_max_pool3d(L.zeros(1, 1, 4, 4), 2, output_size=2),
    lambda F, L: F.fractional_max_pool3d(L.zeros(1, 4, 4), 2, output_size=2),
    lambda F, L: F.fractional_max_pool2d(L.zeros(1, 0, 4), 2, output_size=2),
    lambda F, L: F.fractional_max_pool2d(L.zeros(1, 1, 4, 4), 2, output_size=2, _random_samples=L.zeros(1, 1, 3)),
    lambda F, L: F.fractional_max_pool3d(L.zeros(1, 1, 4, 4, 4), 2, output_size=2, _random_samples=L.zeros(1, 2, 3)),
    lambda F, L: L.constant_pad_nd(L.zeros(2, 3), (1,)),
    lambda F, L: L.constant_pad_nd(L.zeros(2, 3), (1, 1, 1, 1, 1, 1)),
    lambda F, L: L.constant_pad_nd(L.zeros(2, 3), (-4, -1)),
]


@pytest.mark.parametrize("i", range(len(POOL_ERRORS)))
def test_pool_errors_match_torch(torch, i):
    fn = POOL_ERRORS[i]
    ec = et = None
    try:
        fn(core.nn.functional, core)
    except Exception as e:  # noqa: BLE001
        ec = e
    try:
        fn(torch.nn.functional, torch)
    except Exception as e:  # noqa: BLE001
        et = e
    assert et is not None and ec is not None, (ec, et)
    assert type(ec) is type(et) and str(ec) == str(et), (ec, et)


@pytest.mark.parametrize("nd", [2, 3])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_fractional_max_pool_draws_torchs_samples(torch, nd, dtype):
    """Under the same seed, core's generator gives torch's samples, so values and indices are torch's."""
    shape = (2, 3, 9, 11) if nd == 2 else (2, 2, 7, 8, 9)
    x = torch.tensor(RNG.standard_normal(shape), dtype=getattr(torch, dtype), requires_grad=True)
    c = core.tensor(x.detach().numpy(), requires_grad=True)
    name = f"fractional_max_pool{nd}d"
    torch.manual_seed(3)
    core.manual_seed(3)
    t, ti = getattr(torch.nn.functional, name)(x, 2, output_ratio=(0.6,) * nd, return_indices=True)
    o, oi = getattr(core.nn.functional, name)(c, 2, output_ratio=(0.6,) * nd, return_indices=True)
    np.testing.assert_array_equal(o.detach().numpy(), t.detach().numpy())
    np.testing.assert_array_equal(oi.numpy(), ti.numpy())
    assert o.grad_fn.name() == t.grad_fn.name()
    g = RNG.standard_normal(tuple(t.shape))
    t.backward(torch.tensor(g, dtype=t.dtype))
    o.backward(core.tensor(g, dtype=o.dtype))
    np.testing.assert_allclose(c.grad.numpy(), x.grad.numpy(), rtol=1e-6, atol=1e-6)
    samples = torch.rand(shape[0], shape[1], nd, dtype=getattr(torch, dtype))   # explicit samples
    assert_agree(lambda x, s: getattr(core.nn.functional, name)(x, (2,) * nd, (3,) * nd, _random_samples=s),
                 lambda x, s: getattr(torch.nn.functional, name)(x, (2,) * nd, (3,) * nd, _random_samples=s),
                 (x.detach().requires_grad_(), samples), {}, torch)


MODULES = [
    ("MaxPool1d(3, 2, 1)", (2, 3, 9)), ("MaxPool1d(2, return_indices=True, ceil_mode=True)", (2, 3, 9)),
    ("MaxPool3d((2, 1, 2), ceil_mode=True)", (2, 2, 5, 6, 7)), ("AvgPool1d(3)", (2, 3, 9)),
    ("AvgPool3d(2, 1, 1, count_include_pad=False)", (2, 2, 5, 6, 7)),
    ("AdaptiveAvgPool3d((2, None, 3))", (2, 2, 5, 6, 7)), ("AdaptiveMaxPool1d(3)", (2, 3, 9)),
    ("AdaptiveMaxPool3d(2, return_indices=True)", (2, 2, 5, 6, 7)), ("LPPool1d(2, 3)", (2, 3, 9)),
    ("LPPool2d(1.5, (2, 3), 1)", (2, 3, 6, 7)), ("LPPool3d(2, 2)", (2, 3, 4, 5, 6)),
]


@pytest.mark.parametrize("spec,shape", MODULES, ids=[m[0] for m in MODULES])
def test_pooling_modules_match_torch(torch, spec, shape):
    tm, cm = eval("torch.nn." + spec), eval("core.nn." + spec)   # noqa: S307 - literals above
    assert repr(cm) == repr(tm)
    x = torch.tensor(RNG.random(shape) + 0.1, requires_grad=True)
    assert_agree(cm, tm, (x,), {}, torch)


@pytest.mark.parametrize("spec", ["MaxUnpool1d(2)", "MaxUnpool2d(2, 1)", "MaxUnpool3d((2, 2, 1))",
                                  "FractionalMaxPool2d(2, output_size=3)", "FractionalMaxPool3d(2, output_ratio=0.5)"])
def test_unpool_and_fractional_module_reprs(torch, spec):
    assert repr(eval("core.nn." + spec)) == repr(eval("torch.nn." + spec))   # noqa: S307


def test_fractional_module_checks_like_torch(torch):
    for kw in ({}, {"output_size": 2, "output_ratio": 0.5}, {"output_ratio": 1.5}):
        with pytest.raises(ValueError) as ec:
            core.nn.FractionalMaxPool2d(2, **kw)
        with pytest.raises(ValueError) as et:
            torch.nn.FractionalMaxPool2d(2, **kw)
        assert str(ec.value) == str(et.value)


COMMANDS = {   # each command's cli_example as torch computes it: tests/core/ops/nn/test_nn_commands.py runs them   # command -> the torch computation of its cli_example
    "max_pool1d": lambda T: T.nn.functional.max_pool1d(T.tensor([[[1.0, 3, 2, 5, 4, 6]]]), 2),
    "max_pool1d_with_indices": lambda T: T.nn.functional.max_pool1d_with_indices(T.tensor([[[1.0, 3, 2, 5, 4, 6]]]), 2),
    "max_pool3d_with_indices": lambda T: T.nn.functional.max_pool3d_with_indices(
        T.arange(1.0, 9).reshape(1, 1, 2, 2, 2), 2),
    "lp_pool1d": lambda T: T.nn.functional.lp_pool1d(T.tensor([[[1.0, 3, 2, 5, 4, 6]]]), 2, 2),
    "lp_pool2d": lambda T: T.nn.functional.lp_pool2d(T.arange(1.0, 10).reshape(1, 1, 3, 3), 2, [2, 2]),
    "lp_pool3d": lambda T: T.nn.functional.lp_pool3d(T.arange(1.0, 9).reshape(1, 1, 2, 2, 2), 2, [2, 2, 2]),
    "avg_pool1d": lambda T: T.nn.functional.avg_pool1d(T.tensor([[[1.0, 3, 2, 5, 4, 6]]]), 2),
    "max_pool3d": lambda T: T.nn.functional.max_pool3d(T.arange(1.0, 9).reshape(1, 1, 2, 2, 2), 2),
    "avg_pool3d": lambda T: T.nn.functional.avg_pool3d(T.arange(1.0, 9).reshape(1, 1, 2, 2, 2), 2),
    "adaptive_avg_pool3d": lambda T: T.nn.functional.adaptive_avg_pool3d(T.arange(1.0, 9).reshape(1, 1, 2, 2, 2),
                                                                         (1, 1, 2)),
    "adaptive_max_pool3d": lambda T: T.nn.functional.adaptive_max_pool3d(T.arange(1.0, 9).reshape(1, 1, 2, 2, 2),
                                                                         (1, 1, 2)),
    "max_unpool1d": lambda T: T.nn.functional.max_unpool1d(T.tensor([[[5.0, 7]]]), T.tensor([[[1, 2]]]), 2),
    "max_unpool2d": lambda T: T.nn.functional.max_unpool2d(T.tensor([[[[5.0]]]]), T.tensor([[[[3]]]]), (2, 2)),
    "max_unpool3d": lambda T: T.nn.functional.max_unpool3d(T.tensor([[[[[5.0]]]]]), T.tensor([[[[[7]]]]]),
                                                           (2, 2, 2)),
    "fractional_max_pool2d": lambda T: T.nn.functional.fractional_max_pool2d(T.arange(1.0, 17).reshape(1, 1, 4, 4),
                                                                             (2, 2), (2, 2)),
    "fractional_max_pool3d": lambda T: T.nn.functional.fractional_max_pool3d(T.arange(1.0, 9).reshape(1, 1, 2, 2, 2),
                                                                             (1, 1, 1), (1, 1, 1)),
    "constant_pad_nd": lambda T: T.constant_pad_nd(T.tensor([[1, 2], [3, 4]]), (1, 0), 9),
}


EMPTY_BATCH = [
    lambda F, L, x: F.max_pool3d(x, 2, return_indices=True),
    lambda F, L, x: F.adaptive_max_pool3d(x, 2),
    lambda F, L, x: F.adaptive_max_pool2d(x[:, :, 0], 2),
    lambda F, L, x: F.max_pool2d(x[:, :, 0], 2),
    lambda F, L, x: F.fractional_max_pool3d(x, 2, 3, _random_samples=L.rand(0, 2, 3, dtype=L.float64)),
    lambda F, L, x: F.fractional_max_pool2d(x[:, :, 0], 2, 3, _random_samples=L.rand(0, 2, 2, dtype=L.float64)),
]


@pytest.mark.parametrize("i", range(len(EMPTY_BATCH)))
def test_empty_batch_pools_like_torch(torch, i):
    """A batch of 0 is allowed by torch's max/adaptive/fractional pools (forward and backward)."""
    x = torch.zeros(0, 2, 5, 6, 7, dtype=torch.float64, requires_grad=True)
    fn = EMPTY_BATCH[i]
    assert_agree(lambda x: fn(core.nn.functional, core, x), lambda x: fn(torch.nn.functional, torch, x), (x,), {},
                 torch)
