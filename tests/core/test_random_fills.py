"""The in-place random fills (cauchy_, exponential_, geometric_, log_normal_, uniform_) draw torch's CPU
stream: the same values as torch under the same manual_seed, in float32 and float64, for sizes on both
sides of the vectorised paths, and torch's argument errors."""
from __future__ import annotations

import numpy as np
import pytest

import core
from conftest import same_error

FILLS = [("cauchy_", (0.5, 2.0)), ("exponential_", (1.5,)), ("geometric_", (0.3,)), ("log_normal_", (0.0, 0.5)),
         ("uniform_", (-2.0, 3.0)), ("uniform_", ())]


@pytest.mark.parametrize("name,args", FILLS)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("n", [1, 5, 16, 17, 100])
def test_fill_values_follow_torchs_stream(torch, name, args, dtype, n):
    core.manual_seed(7)
    torch.manual_seed(7)
    c = getattr(core.empty(n, dtype=getattr(core, dtype)), name)(*args)
    t = getattr(torch.empty(n, dtype=getattr(torch, dtype)), name)(*args)
    np.testing.assert_array_equal(c.numpy(), t.numpy())
    # the generator is left in the same state: the next draw agrees too
    np.testing.assert_array_equal(core.rand(3).numpy(), torch.rand(3).numpy())


@pytest.mark.parametrize("call", [
    lambda m: m.empty(3).exponential_(-1.0),
    lambda m: m.empty(3).geometric_(1.5),
    lambda m: m.empty(3).log_normal_(0.0, -1.0),
    lambda m: m.empty(3).uniform_(2.0, 1.0),
    lambda m: m.empty(3, dtype=m.int64).cauchy_(),
    lambda m: m.empty(3).cauchy_(0.0, 0.0),
    lambda m: m.empty(3).cauchy_(0.0, -1.5),
])
def test_fill_errors(torch, call):
    ec, et = same_error(lambda: call(core), lambda: call(torch))
    assert str(ec) == str(et)
