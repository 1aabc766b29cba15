"""Argument checks and error classes PyTorch's op_db found missing or different (error inputs and
forward samples), each run in core and in torch side by side: arange with an integral result
(truncated start/end/step, torch's size formula, int `out=`), narrow with a Tensor start, embedding
with a weight that is not 2-D."""
from __future__ import annotations

import pytest

import core
from tests.core.ops.test_out_checks import agree

ARANGE = [
    ((0.1, -7.9, -4.0), {"dtype": "int64"}),
    ((0.1, -7.9, -4.0), {"dtype": "int32"}),
    ((-0.5, 7.9, 1.4), {"dtype": "int32"}),
    ((-0.5, 7.9, 1.4), {"dtype": "int64"}),
    ((0.5, -7.9, -1.4), {"dtype": "int64"}),
    ((0.0, 3.0, 0.5), {"dtype": "int64"}),       # the step truncates to 0: ValueError
    ((0.0, 3.0, 0.5), {"dtype": "int32"}),       # ... but not for int32: size from the doubles, all zeros
    ((0.0, 3.0, 0.2), {"dtype": "uint8"}),
    ((0.0, 3.0, -0.5), {"dtype": "int64"}),      # the sign check comes first
    ((0.5, 0.2, 1), {"dtype": "int32"}),
    ((0, 3, 0), {}),
    ((0.0, 3.0, 0.5), {"dtype": "bool"}),
    ((0.0, 3.0, 0.5), {"dtype": "float16"}),
    ((1549556900, 1549556828, 1989724), {}),
    ((-3, 10, 3), {}),
    ((10, -3, -3), {}),
]


@pytest.mark.parametrize("args,kw", ARANGE, ids=[f"{a}-{k.get('dtype')}" for a, k in ARANGE])
def test_arange_integral_results(torch, args, kw):
    agree(torch, lambda m: m.arange(*args, **{k: getattr(m, v) for k, v in kw.items()}))


ARANGE_OUT = [
    ((0, 64, 0.5), "int64", (0,)),      # op_db's error input: ValueError
    ((0.5, 5.7, 1.3), "int64", (0,)),
    ((0.5, 5.2, 0.7), "int32", (2,)),   # resized, with torch's warning
    ((0, 5, 1.5), "float32", (0,)),
    ((5,), "float32", (5, 1)),          # numel fits: shape kept
    ((5,), "float64", (2, 3)),
    ((0, 3, 0), "float32", (0,)),
    ((5,), "bool", (5,)),
]


@pytest.mark.parametrize("args,dtype,shape", ARANGE_OUT, ids=[f"{a}-{d}-{s}" for a, d, s in ARANGE_OUT])
def test_arange_out(torch, args, dtype, shape):
    """out= decides the dtype, is written (core ignored it) and returned."""
    def fn(m):
        o = m.empty(shape, dtype=getattr(m, dtype))
        r = m.arange(*args, out=o)
        assert r is o
        return o
    agree(torch, fn)


def test_arange_out_warns_like_torch(torch):
    with pytest.warns(UserWarning, match="The number of elements in the out tensor of shape \\[2\\] is 2"):
        core.arange(5, out=core.empty(2))
    with pytest.warns(UserWarning, match="The number of elements in the out tensor of shape \\[2\\] is 2"):
        torch.arange(5, out=torch.empty(2))


@pytest.mark.parametrize("case", ["dtype_mismatch", "requires_grad"])
def test_arange_out_errors(torch, case):
    if case == "dtype_mismatch":
        agree(torch, lambda m: m.arange(5, out=m.empty(0, dtype=m.int32), dtype=m.int64))
    else:
        agree(torch, lambda m: m.arange(5, out=m.empty(0, requires_grad=True)))


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


@pytest.mark.parametrize("shape", [(), (3,), (1, 1, 1), (3, 2)])
@pytest.mark.parametrize("padding_idx", [None, 1])
def test_embedding_weight_must_be_2d(torch, shape, padding_idx):
    if shape == () and padding_idx is not None:
        pytest.skip("F.embedding reads weight.size(0) first: Tensor.size's IndexError message differs (tensor.py)")
    agree(torch, lambda m: m.nn.functional.embedding(m.tensor([[0, 1]]), m.ones(shape), padding_idx=padding_idx))


def test_embedding_weight_check_before_index_dtype(torch):
    agree(torch, lambda m: m.nn.functional.embedding(m.tensor([[0.0, 1.0]]), m.ones(3)))


LOGSPACE = [
    ((0, 1.2, 2), {"dtype": "int64"}),
    ((0.5, 3.7, 5), {"dtype": "int32", "base": 3}),
    ((-1.5, 4.9, 7), {"dtype": "int64", "base": 2.5}),
    ((0.1, 2.9, 1), {"dtype": "int64"}),
    ((0, 3, 4), {"dtype": "uint8"}),
    ((0, 1, 0), {"dtype": "int64"}),
    ((-2, 2, 5), {"dtype": "int64"}),
    ((0, 1.2, 3), {"dtype": "float64"}),
]


@pytest.mark.parametrize("args,kw", LOGSPACE, ids=[f"{a}-{k}" for a, k in LOGSPACE])
def test_logspace_integral_dtype(torch, args, kw):
    """Integral logspace: start/end truncated, base as float32, powers from both ends, truncated (ATen)."""
    agree(torch, lambda m: m.logspace(*args, **{k: getattr(m, v) if k == "dtype" else v for k, v in kw.items()}))


def test_logspace_tensor_bounds_integral(torch):
    agree(torch, lambda m: m.logspace(m.tensor(0.7), m.tensor(3.2), 4, dtype=m.int16))


@pytest.mark.parametrize("name", ["max", "min"])
@pytest.mark.parametrize("args", [(2, 3), (2,), (2.5, "t")])
def test_max_min_of_numbers(torch, name, args):
    """torch.max(2, 3): PyTorch's argument parser raises TypeError (core raised AttributeError)."""
    agree(torch, lambda m: getattr(m, name)(*(m.ones(2) if a == "t" else a for a in args)))
