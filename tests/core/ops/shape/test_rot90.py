"""rot90 vs torch: values, dtypes, strides, grad_fn name, gradients (plain and create_graph),
errors, and the CLI formula."""
from __future__ import annotations

import numpy as np
import pytest

import core
from conftest import same_error
from gradcheck import gradcheck
from shape_util import arr, both, check_rule

A234 = arr(2, 3, 4)

CASES = [
    ("default", lambda L, x: L.rot90(x), [arr(3, 4)]),
    ("method", lambda L, x: x.rot90(), [arr(3, 4)]),
    *[(f"k{k}", lambda L, x, k=k: L.rot90(x, k, [0, 2]), [A234]) for k in range(-5, 6)],
    ("neg_dims", lambda L, x: L.rot90(x, 1, (-1, -3)), [A234]),
    ("reversed_dims", lambda L, x: L.rot90(x, 1, [1, 0]), [A234]),
    ("tensor_k", lambda L, x: L.rot90(x, L.tensor(3)), [A234]),
    ("noncontig_k2", lambda L, x: L.rot90(x.t(), 2), [arr(3, 5)]),
    ("noncontig_k1", lambda L, x: L.rot90(x.t(), 1), [arr(3, 5)]),
    ("int64", lambda L, x: L.rot90(x, 1), [arr(2, 3, dtype=np.int64)]),
    ("bool", lambda L, x: L.rot90(x, 3), [arr(2, 3, dtype=bool)]),
    ("empty", lambda L, x: L.rot90(x, 1), [arr(0, 3)]),
]


@pytest.mark.parametrize("name,fn,arrays", CASES, ids=[c[0] for c in CASES])
def test_rot90_matches_torch_values_grad_fn_and_grads(torch, name, fn, arrays):
    rc, rt, _, _ = both(torch, fn, *arrays)
    if rt.numel():      # torch gives empty results degenerate strides
        assert rc.stride() == rt.stride()
    assert rc.is_contiguous() == rt.is_contiguous()


def test_rot90_without_grad_records_nothing_and_is_not_a_view(torch):
    for L in (core, torch):
        x = L.tensor(A234, requires_grad=True)
        with L.no_grad():
            r = L.rot90(x)
        assert r.grad_fn is None and r._base is None


@pytest.mark.parametrize("k", [1, 2, 3])
def test_rot90_double_backward_matches_torch(torch, k):
    res = []
    for L in (core, torch):
        x = L.tensor(arr(3, 4, dtype=np.float64), requires_grad=True)
        y = L.rot90(x, k) ** 2
        v = L.tensor(np.arange(12.0).reshape(tuple(y.shape)), requires_grad=True)
        (g,) = L.autograd.grad(y, x, v, create_graph=True)
        (g * L.tensor(np.linspace(-1, 1, 12).reshape(3, 4))).sum().backward()
        res.append((g.detach().numpy().copy(), x.grad.numpy().copy(), v.grad.numpy().copy(), g.grad_fn.name()))
    for c, t in zip(res[0][:3], res[1][:3]):
        np.testing.assert_allclose(c, t)
    assert res[0][3] == res[1][3]


def test_rot90_gradient_matches_numerical():
    assert gradcheck(lambda x: core.rot90(x, 1, [1, 2]) ** 2, np.random.default_rng(0).standard_normal((2, 3, 4)))


ERRORS = [
    ("one_dim_list", lambda L, x: L.rot90(x, 1, [0])),
    ("three_dims", lambda L, x: L.rot90(x, 1, [0, 1, 2])),
    ("no_dims", lambda L, x: L.rot90(x, 1, [])),
    ("same_dims", lambda L, x: L.rot90(x, 1, [0, 0])),
    ("same_after_wrap", lambda L, x: L.rot90(x, 1, [0, -3])),
    ("out_of_range", lambda L, x: L.rot90(x, 1, [0, 3])),
    ("both_out_of_range", lambda L, x: L.rot90(x, 1, [5, 5])),
    ("int_dims", lambda L, x: L.rot90(x, 1, 0)),
    ("float_dim", lambda L, x: L.rot90(x, 1, [0, 1.0])),
    ("float_k", lambda L, x: L.rot90(x, 1.5)),
    ("bool_k", lambda L, x: L.rot90(x, True)),
    ("1d", lambda L, x: L.rot90(x[0, 0])),
    ("0d", lambda L, x: L.rot90(x[0, 0, 0], 1, [0, 0])),
]


@pytest.mark.parametrize("name,fn", ERRORS, ids=[e[0] for e in ERRORS])
def test_rot90_errors_match_torch(torch, name, fn):
    ec, et = same_error(lambda: fn(core, core.tensor(A234)), lambda: fn(torch, torch.tensor(A234)))
    assert str(ec) == str(et)


@pytest.mark.parametrize("k", [0, 1, 2, 3, -1])
@pytest.mark.parametrize("dims", [(0, 1), (2, 0), (-1, 1)])
def test_rot90_rule_formula_matches_op(k, dims):
    from tensorcli import opspec
    x = np.arange(24.).reshape(2, 3, 4)
    out = core.rot90(core.tensor(x), k, dims).numpy()
    check_rule(opspec.entry("rot90").rule(3, None, k=k, dims=dims), out, {"input": x, "size": lambda d: x.shape[d]})
