"""fill_ with a Python number converts it as c10's checked Scalar conversion does: out of range for the dtype
is torch's RuntimeError / OverflowError (it wrapped or raised NumPy's error before), negative ints wrap into
unsigned types, floats truncate into ints; the values written are torch's."""
from __future__ import annotations

import itertools

import pytest

import core
from conftest import assert_same, same_error

VALUES = [256, -1, -256, 2 ** 63, 2 ** 64, -2 ** 63 - 1, 1e300, -1e300, float("inf"), float("nan"), 3.7, -0.5,
          True, 1e10, 65504.5, 70000.0, 2 ** 31, 2 ** 53 + 1]
DTYPES = ["uint8", "int8", "int16", "int32", "int64", "bool", "float16", "float32", "float64"]


@pytest.mark.parametrize("dtype,value", list(itertools.product(DTYPES, VALUES)), ids=str)
def test_fill_converts_the_scalar_as_torch(torch, dtype, value):
    def run(L):
        return L.zeros(2, dtype=getattr(L, dtype)).fill_(value)
    try:
        expected = run(torch)
    except Exception:  # noqa: BLE001 - the class and text are compared by same_error
        same_error(lambda: run(core), lambda: run(torch))
        return
    assert_same(run(core), expected)
