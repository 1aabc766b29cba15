"""`size=` on every factory that torch gives it (zeros, ones, empty, full, rand, randn, randint, normal,
empty_strided, new_zeros/new_ones/new_empty/new_full/new_empty_strided, Tensor.new), side by side with
torch: the same shape and dtype, or the same TypeError (size both ways, a keyword that is not a tuple)."""
from __future__ import annotations

import pytest

import core

CALLS = {
    "zeros": lambda t: t.zeros(size=(2, 3)),
    "zeros_list": lambda t: t.zeros(size=[2]),
    "zeros_Size": lambda t: t.zeros(size=t.Size([2, 1])),
    "zeros_scalar": lambda t: t.zeros(size=()),
    "zeros_dtype": lambda t: t.zeros(size=(2,), dtype=t.int64),
    "zeros_out": lambda t: t.zeros(size=(2,), out=t.empty(0)),
    "zeros_requires_grad": lambda t: t.zeros(size=(2,), requires_grad=True),
    "ones": lambda t: t.ones(size=[2]),
    "empty": lambda t: t.empty(size=(2,)).zero_(),
    "empty_memory_format": lambda t: t.empty(size=(2,), memory_format=t.contiguous_format).zero_(),
    "full": lambda t: t.full(size=(2,), fill_value=3.0),
    "rand": lambda t: t.rand(size=(2,)),
    "randn": lambda t: t.randn(size=(2,)),
    "randint": lambda t: t.randint(5, size=(2,)),
    "randint_kw": lambda t: t.randint(low=0, high=5, size=(2,)),
    "normal": lambda t: t.normal(0.0, 1.0, size=(2,)),
    "empty_strided": lambda t: t.empty_strided(size=(2,), stride=(1,)).zero_(),
    "new_zeros": lambda t: t.ones(2).new_zeros(size=(2, 2)),
    "new_ones": lambda t: t.ones(2, dtype=t.int32).new_ones(size=(3,)),
    "new_empty": lambda t: t.ones(2).new_empty(size=(2,)).zero_(),
    "new_full": lambda t: t.ones(2).new_full(size=(2,), fill_value=1.0),
    "new_empty_strided": lambda t: t.ones(2).new_empty_strided(size=(2,), stride=(1,)).zero_(),
    "new": lambda t: t.ones(2).new(size=(2,)).zero_(),
    # torch's TypeErrors
    "zeros_int": lambda t: t.zeros(size=3),
    "ones_float": lambda t: t.ones(size=2.0),
    "ones_none": lambda t: t.ones(size=None),
    "zeros_float_list": lambda t: t.zeros(size=[2.0]),
    "zeros_both": lambda t: t.zeros(2, size=(2,)),
    "empty_both": lambda t: t.empty(2, size=(2,)),
    "ones_tuple_and_kw": lambda t: t.ones((2,), size=(2,)),
    "zeros_negative": lambda t: t.zeros(size=(-1,)),
    "new_zeros_int": lambda t: t.ones(2).new_zeros(size=3),
    "new_zeros_both": lambda t: t.ones(2).new_zeros(2, size=(2,)),
    "new_ones_float_list": lambda t: t.ones(2).new_ones(size=[2.0]),
    "zeros_unknown_kw": lambda t: t.zeros(2, names=None),
}


def _outcome(fn, mod):
    try:
        r = fn(mod)
    except (TypeError, RuntimeError) as e:
        return ("error", type(e).__name__, str(e).splitlines()[0])
    return ("ok", tuple(r.shape), str(r.dtype), bool(r.requires_grad))


@pytest.mark.parametrize("name", list(CALLS))
def test_size_keyword_as_torch(torch, name):
    assert _outcome(CALLS[name], core) == _outcome(CALLS[name], torch)


def test_size_keyword_values(torch):
    assert core.full(size=(2,), fill_value=3.0).tolist() == torch.full(size=(2,), fill_value=3.0).tolist()
    assert core.ones(size=(2, 2)).tolist() == torch.ones(size=(2, 2)).tolist()
    core.manual_seed(0)
    torch.manual_seed(0)
    assert core.rand(size=(3,)).tolist() == torch.rand(size=(3,)).tolist()
