"""masked_fill (core/ops/indexing/masked.py) side by side with torch: complex fill values (a RuntimeError
naming the type; on bool tensors, value != 0 written)."""
from __future__ import annotations

import pytest

import core


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "int32", "int16", "int8", "uint8"])
def test_masked_fill_with_a_complex_value_is_a_runtime_error_naming_the_type(torch, dtype):
    msgs = []
    for lib in (torch, core):
        with pytest.raises(RuntimeError) as e:
            lib.ones(2, dtype=getattr(lib, dtype)).masked_fill(lib.tensor([True, False]), 1 + 2j)
        msgs.append(str(e.value))
    assert msgs[0] == msgs[1]


def test_masked_fill_of_a_bool_tensor_with_a_complex_value_writes_value_ne_zero(torch):
    for v in (1 + 2j, 0j):
        want = torch.zeros(2, dtype=torch.bool).masked_fill(torch.tensor([True, False]), v)
        got = core.zeros(2, dtype=core.bool).masked_fill(core.tensor([True, False]), v)
        assert got.tolist() == want.tolist()

