"""Differential tests: printed form of core tensors (dtype / requires_grad / grad_fn suffixes) equals torch's."""
from __future__ import annotations

import numpy as np
import pytest

import core

REPRS = {
    "leaf_requires_grad": lambda m: m.tensor([1.0, 2.0], requires_grad=True),
    "leaf_requires_grad_double": lambda m: m.tensor([1.0, 2.0], dtype=m.float64, requires_grad=True),
    "leaf_requires_grad_half": lambda m: m.tensor([1.5], dtype=m.float16, requires_grad=True),
    "zero_dim_requires_grad": lambda m: m.tensor(3.5, requires_grad=True),
    "zero_dim_grad_fn": lambda m: m.tensor(3.5, requires_grad=True) * 2,
    "mul_grad_fn": lambda m: m.tensor([1.0, 2.0], requires_grad=True) * 3,
    "add_grad_fn_2d": lambda m: m.ones(2, 3, requires_grad=True) + 1,
    "sum_grad_fn": lambda m: m.ones(2, 3, requires_grad=True).sum(),
    "mean_dim_grad_fn": lambda m: m.ones(2, 3, requires_grad=True).mean(1),
    "double_grad_fn": lambda m: m.ones(2, dtype=m.float64, requires_grad=True).exp(),
    "to_double_grad_fn": lambda m: m.ones(2, requires_grad=True).double(),
    "matmul_grad_fn": lambda m: m.ones(2, 3, requires_grad=True) @ m.ones(3, 2),
    "max_values_grad_fn": lambda m: m.tensor([[1.0, 3.0], [2.0, 0.0]], requires_grad=True).max(1).values,
    "pow_grad_fn": lambda m: m.tensor([1.0, 2.0], requires_grad=True) ** 2,
    "rsub_grad_fn": lambda m: 1 - m.tensor([1.0, 2.0], requires_grad=True),
    "rdiv_grad_fn": lambda m: 1 / m.tensor([1.0, 2.0], requires_grad=True),
    "where_grad_fn": lambda m: m.where(m.tensor([True, False]), m.tensor([1.0, 2.0], requires_grad=True), 0.0),
    "clamp_grad_fn": lambda m: m.tensor([1.0, 2.0], requires_grad=True).clamp(min=1.5),
    "norm_grad_fn": lambda m: m.tensor([3.0, 4.0], requires_grad=True).norm(),
    "empty_requires_grad": lambda m: m.zeros(0, requires_grad=True),
    "empty_2d_grad_fn": lambda m: m.zeros(0, 3, requires_grad=True) * 2,
    "large_values_grad_fn": lambda m: m.tensor([1e10, 1.0], requires_grad=True) * 1,
    "int_tensor": lambda m: m.tensor([1, 2, 3]),
    "int32_tensor": lambda m: m.tensor([1, 2], dtype=m.int32),
    "bool_tensor": lambda m: m.tensor([True, False]),
    "comparison_of_grad_tensor": lambda m: m.tensor([1.0, 2.0], requires_grad=True) > 1,
    "detached": lambda m: (m.tensor([1.0, 2.0], requires_grad=True) * 2).detach(),
    "no_grad_result": lambda m: _no_grad(m, lambda: m.tensor([1.0], requires_grad=True) * 2),
    "inplace_on_non_leaf": lambda m: (m.tensor([1.0, 2.0], requires_grad=True) * 1).add_(1),
    "argmax_of_grad_tensor": lambda m: m.tensor([1.0, 2.0], requires_grad=True).argmax(),
    "float_power": lambda m: m.tensor([1.0, 2.0], requires_grad=True).float_power(2),
}


def _no_grad(m, fn):
    with m.no_grad():
        return fn()


@pytest.mark.parametrize("case", sorted(REPRS))
def test_repr_matches_torch(torch, case):
    c, t = REPRS[case](core), REPRS[case](torch)
    assert repr(c) == repr(t)
    assert str(c) == str(t)


@pytest.mark.parametrize("name", ["float32", "float64", "int64", "int8", "uint8", "bool", "float16"])
def test_dtype_and_size_reprs(torch, name):
    assert repr(getattr(core, name)) == repr(getattr(torch, name))
    assert repr(core.zeros(2, 3, dtype=getattr(core, name)).shape) == repr(torch.zeros(2, 3).shape)


def test_max_namedtuple_repr(torch):
    x = np.array([[1.0, 3.0], [2.0, 0.0]], np.float32)
    assert repr(core.tensor(x).max(1)) == repr(torch.tensor(x).max(1))
    assert repr(core.tensor(x, requires_grad=True).min(0)) == repr(torch.tensor(x, requires_grad=True).min(0))


def test_grad_fn_repr_names_node(torch):
    c = core.ones(2, requires_grad=True) * 2
    t = torch.ones(2, requires_grad=True) * 2
    assert repr(c.grad_fn).split(" object")[0] == repr(t.grad_fn).split(" object")[0]


def test_format_of_zero_dim_tensor(torch):
    assert f"{core.tensor(2.5):.3f}" == f"{torch.tensor(2.5):.3f}"
    assert f"{core.tensor(7)}" == f"{torch.tensor(7)}"
