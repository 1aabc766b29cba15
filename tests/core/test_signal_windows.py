"""torch.signal.windows and the ATen *_window factories, side by side with torch: values (float32 and
float64, symmetric and periodic, M = 0 / 1 / even / odd), dtypes, requires_grad, errors."""
from __future__ import annotations

import numpy as np
import pytest

import core
from conftest import assert_same, same_error

WINDOWS = ["bartlett", "blackman", "cosine", "exponential", "gaussian", "hamming", "hann", "kaiser", "nuttall",
           "general_hamming"]


@pytest.mark.parametrize("name", WINDOWS)
@pytest.mark.parametrize("M", [0, 1, 2, 5, 8])
@pytest.mark.parametrize("sym", [True, False])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_window_matches_torch(torch, name, M, sym, dtype):
    c = getattr(core.signal.windows, name)(M, sym=sym, dtype=getattr(core, dtype))
    t = getattr(torch.signal.windows, name)(M, sym=sym, dtype=getattr(torch, dtype))
    assert_same(c, t, rtol=1e-6 if dtype == "float32" else 1e-12, atol=1e-7 if dtype == "float32" else 1e-14)


@pytest.mark.parametrize("kw", [dict(tau=0.5), dict(tau=2.0, center=1.0, sym=False)])
def test_exponential_parameters(torch, kw):
    assert_same(core.signal.windows.exponential(7, **kw), torch.signal.windows.exponential(7, **kw))


@pytest.mark.parametrize("name,kw", [("gaussian", dict(std=0.3)), ("kaiser", dict(beta=3.5)),
                                     ("general_cosine", dict(a=[0.5, 0.3, 0.2])), ("general_hamming", dict(alpha=0.6))])
def test_shape_parameters(torch, name, kw):
    assert_same(getattr(core.signal.windows, name)(9, **kw), getattr(torch.signal.windows, name)(9, **kw))


def test_requires_grad_and_default_dtype(torch):
    c = core.signal.windows.hann(4, requires_grad=True)
    t = torch.signal.windows.hann(4, requires_grad=True)
    assert c.requires_grad == t.requires_grad and str(c.dtype) == str(t.dtype)


@pytest.mark.parametrize("call", [
    lambda m: m.signal.windows.hann(-1),
    lambda m: m.signal.windows.hann(3, dtype=m.int64),
    lambda m: m.signal.windows.gaussian(3, std=0),
    lambda m: m.signal.windows.exponential(3, tau=-1),
    lambda m: m.signal.windows.exponential(3, center=1.0),
    lambda m: m.signal.windows.kaiser(3, beta=-1),
    lambda m: m.signal.windows.general_cosine(3, a=[]),
    lambda m: m.signal.windows.general_cosine(3, a=3),
])
def test_window_errors(torch, call):
    ec, et = same_error(lambda: call(core), lambda: call(torch))
    assert str(ec) == str(et)


FACTORIES = ["hann_window", "hamming_window", "bartlett_window", "blackman_window", "kaiser_window"]


@pytest.mark.parametrize("name", FACTORIES)
@pytest.mark.parametrize("L", [0, 1, 2, 5, 8, 11])
@pytest.mark.parametrize("periodic", [True, False])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_aten_window_factories(torch, name, L, periodic, dtype):
    c = getattr(core, name)(L, periodic, dtype=getattr(core, dtype))
    t = getattr(torch, name)(L, periodic, dtype=getattr(torch, dtype))
    assert_same(c, t, rtol=1e-6 if dtype == "float32" else 1e-12, atol=3e-7 if dtype == "float32" else 1e-14)


def test_aten_window_parameters_and_grad(torch):
    assert_same(core.hamming_window(7, True, 0.5, 0.3), torch.hamming_window(7, True, 0.5, 0.3))
    assert_same(core.kaiser_window(7, False, 3.0), torch.kaiser_window(7, False, 3.0))
    assert core.hann_window(5, requires_grad=True).requires_grad
    assert core.hann_window(5, requires_grad=True).grad_fn is None


@pytest.mark.parametrize("name", FACTORIES)
@pytest.mark.parametrize("args,kw", [((-1,), {}), ((3,), {"dtype": "int64"})])
def test_aten_window_errors(torch, name, args, kw):
    ec, et = same_error(lambda: getattr(core, name)(*args, **{k: getattr(core, v) for k, v in kw.items()}),
                        lambda: getattr(torch, name)(*args, **{k: getattr(torch, v) for k, v in kw.items()}))
    assert str(ec) == str(et)
