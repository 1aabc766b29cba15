"""Lazy modules (LazyLinear, LazyConv*, LazyConvTranspose*, LazyBatchNorm*, LazyInstanceNorm*) and the
uninitialized parameter/buffer classes against torch: reprs before and after the first forward, the
class they become, parameter values after the same seed, state_dict round trips, errors."""
from __future__ import annotations

import pytest

from _nn_side_by_side import error_of, side_by_side

_CASES = [
    ("LazyConv1d", (4, 3), {"stride": 2}, (2, 3, 9)),
    ("LazyConv2d", (4, 3), {"padding": 1, "bias": False}, (2, 3, 5, 5)),
    ("LazyConv3d", (2, 2), {"groups": 1}, (1, 3, 4, 4, 4)),
    ("LazyConvTranspose1d", (4, 3), {"groups": 2}, (2, 4, 5)),
    ("LazyConvTranspose2d", (3, 2), {"stride": 2, "output_padding": 1}, (1, 2, 3, 3)),
    ("LazyConvTranspose3d", (2, 2), {}, (1, 3, 2, 2, 2)),
    ("LazyBatchNorm1d", (), {}, (4, 3)),
    ("LazyBatchNorm2d", (), {"momentum": None}, (2, 3, 2, 2)),
    ("LazyBatchNorm3d", (), {"affine": False}, (2, 2, 2, 2, 2)),
    ("LazyInstanceNorm1d", (), {}, (2, 3, 5)),
    ("LazyInstanceNorm2d", (), {"track_running_stats": False}, (2, 3, 4, 4)),
    ("LazyInstanceNorm3d", (), {"affine": False}, (1, 2, 2, 3, 3)),
    ("LazyLinear", (3,), {}, (2, 5)),
]


@pytest.mark.parametrize("name,args,kwargs,shape", _CASES, ids=[c[0] for c in _CASES])
def test_lazy_module_initialises_as_torch(torch, name, args, kwargs, shape):
    def scenario(lib):
        lib.manual_seed(0)
        m = getattr(lib.nn, name)(*args, **kwargs)
        rec = [repr(m), type(m).__name__, m.has_uninitialized_params(),
               {k: repr(v) for k, v in m.state_dict().items()}]
        x = lib.randn(*shape, requires_grad=True)
        y = m(x)
        rec += [repr(m), type(m).__name__, hasattr(m, "_initialize_hook"), dict(m.state_dict()), y]
        y.sum().backward()
        rec.append(x.grad)
        rec.append([(n, p.grad) for n, p in m.named_parameters()])
        return rec
    side_by_side(torch, scenario, rtol=1e-4, atol=1e-5)


def test_lazy_state_dict_load_materialises(torch):
    def scenario(lib):
        lib.manual_seed(1)
        src = lib.nn.Conv2d(3, 4, 2)
        lazy = lib.nn.LazyConv2d(4, 2)
        rec = [repr(lazy.load_state_dict(src.state_dict())), type(lazy).__name__, lazy.weight,
               lazy.has_uninitialized_params()]
        x = lib.randn(1, 3, 3, 3)
        rec += [lazy(x), src(x), type(lazy).__name__, repr(lazy)]
        bn = lib.nn.LazyBatchNorm1d()
        bn.load_state_dict(lib.nn.BatchNorm1d(5).state_dict())
        rec += [dict(bn.state_dict()), repr(bn)]
        return rec
    side_by_side(torch, scenario)


def test_lazy_errors(torch):
    def scenario(lib):
        return [error_of(lambda: lib.nn.LazyConv2d(4, 3)(lib.randn(3, 3))),
                error_of(lambda: lib.nn.LazyConv1d(4, 3, groups=2)(lib.randn(1, 3, 5))),
                error_of(lambda: lib.nn.LazyConv2d(4, 3).weight.shape),
                error_of(lambda: lib.nn.utils.weight_norm(lib.nn.LazyLinear(3))),
                error_of(lambda: lib.nn.utils.spectral_norm(lib.nn.LazyLinear(3)))]
    side_by_side(torch, scenario)


def test_uninitialized_parameter_and_buffer(torch):
    def scenario(lib):
        P = lib.nn.parameter
        p = lib.nn.UninitializedParameter()
        b = lib.nn.UninitializedBuffer()
        rec = [repr(p), repr(b), P.is_lazy(p), P.is_lazy(b), P.is_lazy(lib.zeros(1)), p.requires_grad,
               b.requires_grad, isinstance(b, lib.nn.Buffer), isinstance(p, lib.nn.Parameter)]
        p.materialize((2, 3))
        b.materialize((4,), dtype=lib.float64)
        rec += [type(p).__name__, tuple(p.shape), p.dtype, type(b).__name__, tuple(b.shape), b.dtype,
                P.is_lazy(p), p.requires_grad]
        m = lib.nn.Module()
        m.u = lib.nn.UninitializedBuffer(persistent=False)
        rec.append(list(m._buffers))
        rec.append(list(m.state_dict()))
        return rec
    side_by_side(torch, scenario)
