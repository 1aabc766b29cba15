"""narrow (core/ops/shape/slicing.py) side by side with torch: a Tensor start must be a 0-dim integral
tensor (RuntimeError), else it works as the int."""
from __future__ import annotations

import pytest

from agreement import agree


NARROW_START = {
    "1-d int32 tensor": lambda m: m.tensor([1, 2, 3, 4, 5], dtype=m.int32),
    "0-d bool tensor": lambda m: m.tensor(True),
    "0-d float tensor": lambda m: m.tensor(2.0),
    "1-elem 1-d tensor": lambda m: m.tensor([2]),
    "0-d int64 tensor": lambda m: m.tensor(2),
    "0-d int32 tensor": lambda m: m.tensor(2, dtype=m.int32),
    "negative 0-d tensor": lambda m: m.tensor(-3),
}


@pytest.mark.parametrize("name", sorted(NARROW_START))
def test_narrow_tensor_start(torch, name):
    """narrow.Tensor: start must be a 0-dim integral Tensor (RuntimeError), else it works as the int."""
    agree(torch, lambda m: m.narrow(m.arange(200.).reshape(20, 10), 1, NARROW_START[name](m), 3))

