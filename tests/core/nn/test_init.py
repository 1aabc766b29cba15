"""nn.init and layers' default initialisation against torch, bit for bit after the same manual_seed
(values, dtype and the generator's state afterwards)."""
from __future__ import annotations

import tracemalloc
import warnings

import numpy as np
import pytest

import core
import core.nn as cnn
from tests.core.test_random import assert_bits, assert_same_state, run_both

SHAPES = [(3, 5), (17, 9), (64, 32), (4, 3, 3, 3), (1, 1)]
INITS = [("uniform_", (), {}), ("uniform_", (-0.5, 0.5), {}), ("normal_", (), {}), ("normal_", (0.1, 0.3), {}),
         ("xavier_uniform_", (), {}), ("xavier_uniform_", (), {"gain": 2.0}), ("xavier_normal_", (), {}),
         ("kaiming_uniform_", (), {"a": 5 ** 0.5}), ("kaiming_uniform_", (), {"mode": "fan_out", "nonlinearity": "relu"}),
         ("kaiming_normal_", (), {}), ("kaiming_normal_", (), {"mode": "fan_out"}),
         ("trunc_normal_", (), {}), ("trunc_normal_", (0.0, 0.02), {}), ("trunc_normal_", (0.0, 1.0, -0.5, 0.5), {}),
         ("trunc_normal_", (0.0, 1.0, 0.1, 0.3), {}), ("constant_", (0.25,), {}), ("zeros_", (), {}), ("ones_", (), {})]


def _nn(m):
    return m.nn if m is not core else cnn


def _init(fname, shape, dtype, *args, **kw):
    def f(m):
        t = m.empty(*shape, dtype=getattr(m, dtype))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            r = getattr(_nn(m).init, fname)(t, *args, **kw)
        assert r is t
        return t
    return f


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("fname,args,kw", INITS, ids=lambda v: str(v))
def test_init_functions_bit_exact(torch, fname, args, kw, dtype):
    for seed, shape in enumerate(SHAPES):
        run_both(torch, _init(fname, shape, dtype, *args, **kw), seed)


def test_init_generator_argument(torch):
    gc, gt = core.Generator().manual_seed(3), torch.Generator().manual_seed(3)
    core.manual_seed(0)
    torch.manual_seed(0)
    a, b = core.empty(6, 4), torch.empty(6, 4)
    cnn.init.kaiming_uniform_(a, generator=gc)
    torch.nn.init.kaiming_uniform_(b, generator=gt)
    assert_bits(a, b)
    cnn.init.trunc_normal_(a, generator=gc)
    torch.nn.init.trunc_normal_(b, generator=gt)
    assert_bits(a, b)
    assert_same_state(torch)


@pytest.mark.parametrize("shape", [(3, 5), (5, 3), (4, 2, 3), (6, 6)])
def test_orthogonal_draws_like_torch(torch, shape):
    """Same normal_ draws (generator states equal); the QR itself is LAPACK's, equal to rounding."""
    torch.manual_seed(1)
    core.manual_seed(1)
    c, t = core.empty(*shape), torch.empty(*shape)
    cnn.init.orthogonal_(c, gain=2.0)
    torch.nn.init.orthogonal_(t, gain=2.0)
    np.testing.assert_allclose(c._data, t.numpy(), rtol=1e-5, atol=1e-5)
    assert_same_state(torch)


def test_init_keeps_dtype_and_draws_in_it(torch):
    for dtype in ("float16", "float32", "float64"):
        run_both(torch, _init("kaiming_uniform_", (8, 5), dtype, a=5 ** 0.5))
        run_both(torch, _init("normal_", (40,), dtype, 0.0, 0.5))


def test_init_runs_under_no_grad_on_parameters(torch):
    def f(m):
        w = _nn(m).Parameter(m.empty(4, 3))
        _nn(m).init.xavier_uniform_(w)
        _nn(m).init.trunc_normal_(w, std=0.02)
        return w.detach()
    run_both(torch, f, seed=2)


LAYERS = [("Linear", (20, 30), {}), ("Linear", (5, 1), {}), ("Linear", (7, 3), {"bias": False}),
          ("Conv2d", (3, 8, 3), {}), ("Conv2d", (4, 6, (3, 2)), {"groups": 2}), ("Embedding", (10, 7), {}),
          ("BatchNorm2d", (4,), {}), ("LayerNorm", (6,), {})]


@pytest.mark.parametrize("name,args,kw", LAYERS, ids=lambda v: str(v))
def test_layer_default_initialisation(torch, name, args, kw):
    def f(m):
        layer = getattr(_nn(m), name)(*args, **kw)
        return [p.detach() for p in layer.parameters()]
    for seed in (0, 42):
        run_both(torch, f, seed)


def test_model_construction_sequence(torch):
    def f(m):
        nn = _nn(m)
        model = nn.Sequential(nn.Linear(10, 16), nn.ReLU(), nn.Linear(16, 4))
        return [p.detach() for p in model.parameters()] + [m.randn(3, 10)]
    run_both(torch, f, seed=123)


@pytest.mark.parametrize("fname,args", [("kaiming_uniform_", ()), ("uniform_", (-0.1, 0.1)), ("normal_", (0.0, 0.02)),
                                        ("xavier_uniform_", ()), ("kaiming_normal_", ())])
def test_init_allocates_no_full_size_temporaries(fname, args):
    """Issue #15: initialisers draw straight into the weight in its dtype (no float64 copy of it)."""
    w = core.empty(2000, 1000)                   # 8 MB: the samplers' chunk temporaries are ~1 MB
    getattr(cnn.init, fname)(w, *args)          # warm-up: lazy imports
    tracemalloc.start()
    try:
        getattr(cnn.init, fname)(w, *args)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < w._data.nbytes / 2, f"{fname} allocated {peak} bytes for a {w._data.nbytes}-byte weight"
