"""addcmul and addcdiv (core/ops/pointwise/addc.py) against torch: every dtype and value, mixed dtypes,
in-place variants."""
from __future__ import annotations

import numpy as np
import pytest

import core
from conftest import assert_same, same_error
from tests.core.ops.pointwise.test_pointwise import arr, check


DTYPES = ["float32", "float64", "int64", "bool"]


def _input(dtype, low, high, shape=(2, 3), seed=0):
    if dtype == "bool":
        return arr(*shape, dtype=np.bool_, seed=seed)
    if dtype == "int64":
        return arr(*shape, dtype=np.int64, low=max(low, -3), high=min(high, 3), seed=seed)
    return arr(*shape, dtype=np.dtype(dtype), low=low, high=high, seed=seed)


def _compare(torch, fn, *inputs, rtol=1e-5, atol=1e-6, grad=True):
    """same_error on both; when both succeed, the full differential check (values, dtype, grads)."""
    ec, _ = same_error(lambda: fn(core, *[core.tensor(x) if isinstance(x, np.ndarray) else x for x in inputs]),
                       lambda: fn(torch, *[torch.tensor(x) if isinstance(x, np.ndarray) else x for x in inputs]))
    if ec is None:
        check(torch, fn, *inputs, rtol=rtol, atol=atol, grad=grad)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("value", [1, 0.5, 2])
@pytest.mark.parametrize("name", ["addcmul", "addcdiv"])
def test_addcmul_addcdiv(torch, name, value, dtype):
    a, t1, t2 = _input(dtype, -2, 2, (2, 3), 5), _input(dtype, -2, 2, (3,), 6), _input(dtype, 0.5, 2, (2, 1), 7)
    _compare(torch, lambda m, x, y, z: getattr(m, name)(x, y, z, value=value), a, t1, t2)


@pytest.mark.parametrize("name", ["addcmul", "addcdiv"])
def test_addc_mixed_dtypes_and_inplace(torch, name):
    a = np.array([1.0, 2.0, 3.0], np.float32)
    i = np.array([1, 2, 3], np.int64)
    _compare(torch, lambda m, x, y, z: getattr(m, name)(x, y, z, value=2), a, i, i)
    # forward only: torch's own backward fails here (casting the float gradient of tensor1 to input's Long)
    _compare(torch, lambda m, x, y, z: getattr(m, name)(x, y, z), i, a, i, grad=False)
    c, t = core.tensor(a), torch.tensor(a)
    assert getattr(c, name + "_")(core.tensor(a), core.tensor(a + 1), value=0.5) is c
    getattr(t, name + "_")(torch.tensor(a), torch.tensor(a + 1), value=0.5)
    assert_same(c, t)

