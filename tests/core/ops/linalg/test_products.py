"""Differential tests: matrix products (matmul/mm/bmm/mv/dot/outer) vs torch: values, grads, names, errors."""
from __future__ import annotations

import numpy as np
import pytest

import core
from conftest import same_error
from gradcheck import gradcheck
from tests.core.ops.pointwise.test_pointwise import arr, check  # shared differential helpers

MATMUL_SHAPES = [
    ((3,), (3,)), ((2, 3), (3, 4)), ((2, 3), (3,)), ((3,), (3, 4)), ((2, 2, 3), (2, 3, 4)), ((2, 2, 3), (3, 4)),
    ((2, 3), (5, 3, 4)), ((2, 2, 3), (3,)), ((3,), (2, 3, 4)), ((2, 1, 2, 3), (3, 3, 4)), ((1, 2, 3), (4, 3, 2)),
    ((2, 1, 2, 3), (1, 3, 3, 4)), ((0, 3), (3, 2)), ((2, 0), (0, 3)),
]


@pytest.mark.parametrize("shapes", MATMUL_SHAPES, ids=str)
def test_matmul_values_grads_and_grad_fn(torch, shapes):
    sa, sb = shapes
    check(torch, lambda m, a, b: a @ b, arr(*sa), arr(*sb), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("shapes", MATMUL_SHAPES, ids=str)
@pytest.mark.parametrize("which", ["only_a", "only_b"])
def test_matmul_with_one_input_requiring_grad(torch, shapes, which):
    sa, sb = shapes
    a, b = arr(*sa), arr(*sb)
    res = []
    for m in (core, torch):
        ta, tb = m.tensor(a), m.tensor(b)
        (ta if which == "only_a" else tb).requires_grad_()
        y = m.matmul(ta, tb)
        y.backward(m.ones_like(y))
        res.append((y, ta, tb))
    (cy, ca, cb), (ty, ta, tb) = res
    assert cy.grad_fn.name() == ty.grad_fn.name()
    for c, t in ((ca, ta), (cb, tb)):
        assert (c.grad is None) == (t.grad is None)
        if t.grad is not None:
            np.testing.assert_allclose(c.grad._data, t.grad.numpy(), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("shapes", MATMUL_SHAPES[:6], ids=str)
def test_matmul_float64(torch, shapes):
    sa, sb = shapes
    check(torch, lambda m, a, b: m.matmul(a, b), arr(*sa, dtype=np.float64), arr(*sb, dtype=np.float64),
          rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize("dtype", ["int64", "int32", "uint8", "float16"])
def test_matmul_other_dtypes(torch, dtype):
    a = np.arange(6).reshape(2, 3).astype(dtype)
    b = np.arange(12).reshape(3, 4).astype(dtype)
    check(torch, lambda m, x, y: x @ y, a, b, grad=False, rtol=1e-3)
    check(torch, lambda m, x, y: x @ y, a[0], b, grad=False, rtol=1e-3)


LINALG = {
    "mm": (lambda m, a, b: m.mm(a, b), (2, 3), (3, 4)),
    "mm_method": (lambda m, a, b: a.mm(b), (4, 3), (3, 1)),
    "bmm": (lambda m, a, b: m.bmm(a, b), (2, 2, 3), (2, 3, 4)),
    "bmm_method": (lambda m, a, b: a.bmm(b), (3, 1, 2), (3, 2, 2)),
    "mv": (lambda m, a, b: m.mv(a, b), (2, 3), (3,)),
    "mv_method": (lambda m, a, b: a.mv(b), (4, 2), (2,)),
    "dot": (lambda m, a, b: m.dot(a, b), (3,), (3,)),
    "dot_method": (lambda m, a, b: a.dot(b), (5,), (5,)),
    "outer": (lambda m, a, b: m.outer(a, b), (3,), (4,)),
    "outer_method": (lambda m, a, b: a.outer(b), (2,), (3,)),
    "ger": (lambda m, a, b: a.ger(b), (2,), (3,)),
    "ger_function": (lambda m, a, b: m.ger(a, b), (3,), (2,)),
    "addmm": (lambda m, a, b: m.addmm(m.ones(a.shape[0], b.shape[1]), a, b), (2, 3), (3, 4)),
    "matmul_method": (lambda m, a, b: a.matmul(b), (2, 3), (3, 2)),
    "rmatmul_transpose": (lambda m, a, b: (a.t() @ b.t()), (3, 2), (4, 3)),
}


@pytest.mark.parametrize("name", sorted(LINALG))
def test_product_values_grads_and_grad_fn(torch, name):
    fn, sa, sb = LINALG[name]
    check(torch, fn, arr(*sa), arr(*sb), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("name", sorted(LINALG))
def test_product_gradcheck(name):
    fn, sa, sb = LINALG[name]
    assert gradcheck(lambda a, b: fn(core, a, b), arr(*sa, dtype=np.float64, seed=8),
                     arr(*sb, dtype=np.float64, seed=9))


@pytest.mark.parametrize("shapes", MATMUL_SHAPES[:12], ids=str)
def test_matmul_gradcheck(shapes):
    sa, sb = shapes
    assert gradcheck(lambda a, b: a @ b, arr(*sa, dtype=np.float64, seed=10), arr(*sb, dtype=np.float64, seed=11))


def test_outer_promotes_mixed_dtypes(torch):
    check(torch, lambda m, a, b: m.outer(a, b), np.array([1, 2, 3]), np.array([0.5, 1.5], np.float32), grad=False)


def test_ger_promotes_and_refuses_as_outer(torch):
    check(torch, lambda m, a, b: m.ger(a, b), np.array([1, 2, 3]), np.array([0.5, 1.5], np.float32), grad=False)
    for sa, sb in (((2, 2), (2,)), ((2,), (1, 2))):
        ec, et = same_error(lambda: core.ger(core.ones(sa), core.ones(sb)), lambda: torch.ger(torch.ones(sa), torch.ones(sb)))
        assert isinstance(ec, RuntimeError) and str(ec) == str(et)


def test_dot_of_ints(torch):
    check(torch, lambda m, a, b: m.dot(a, b), np.array([1, 2, 3]), np.array([4, 5, 6]), grad=False)


# -- errors ----------------------------------------------------------------------------------------

def _ones(m, shape, dtype="float32", rg=False):
    return m.ones(shape, dtype=getattr(m, dtype), requires_grad=rg)


MATMUL_ERRORS = [
    ((3,), (4,)), ((2, 3), (4, 5)), ((2, 3), (4,)), ((3,), (4, 5)), ((2, 2, 3), (2, 4, 5)), ((2, 2, 3), (3, 3, 4)),
    ((2, 2, 3), (4,)), ((3,), (2, 4, 5)), ((), (3,)), ((2, 2, 3), (4, 5)), ((2, 3), (5, 4, 2)),
    ((2, 1, 2, 3), (1, 3, 4, 5)),
]


@pytest.mark.parametrize("rg", [False, True], ids=["plain", "requires_grad"])
@pytest.mark.parametrize("shapes", MATMUL_ERRORS, ids=str)
def test_matmul_shape_mismatch_raises_like_torch(torch, shapes, rg):
    sa, sb = shapes
    ec, et = same_error(lambda: _ones(core, sa, rg=rg) @ _ones(core, sb, rg=rg),
                        lambda: _ones(torch, sa, rg=rg) @ _ones(torch, sb, rg=rg))
    assert isinstance(ec, RuntimeError) and str(ec) == str(et)


def test_matmul_mismatch_message_names_shapes():
    with pytest.raises(RuntimeError, match=r"mat1 and mat2 shapes cannot be multiplied \(2x3 and 4x5\)"):
        core.ones(2, 3) @ core.ones(4, 5)


OTHER_ERRORS = {
    "mm_1d": lambda m: m.mm(_ones(m, (3,)), _ones(m, (3, 2))),
    "mm_3d": lambda m: m.mm(_ones(m, (2, 3)), _ones(m, (1, 3, 2))),
    "mm_mismatch": lambda m: m.mm(_ones(m, (2, 3)), _ones(m, (4, 2))),
    "mm_dtype": lambda m: m.mm(_ones(m, (2, 3)), _ones(m, (3, 2), "float64")),
    "matmul_dtype": lambda m: _ones(m, (2, 3)) @ _ones(m, (3, 2), "float64"),
    "matmul_int_float": lambda m: _ones(m, (2, 3), "int64") @ _ones(m, (3, 2)),
    "matmul_half_int": lambda m: _ones(m, (2, 3), "int32") @ _ones(m, (3, 2), "float16"),
    "matmul_bool_short": lambda m: _ones(m, (2, 3), "bool") @ _ones(m, (3, 2), "int16"),
    "matmul_uint8_int8": lambda m: _ones(m, (2, 3), "uint8") @ _ones(m, (3, 2), "int8"),
    "matmul_bool": lambda m: _ones(m, (2, 2), "bool") @ _ones(m, (2, 2), "bool"),
    "dot_bool": lambda m: _ones(m, (3,), "bool") @ _ones(m, (3,), "bool"),
    "mv_bool": lambda m: _ones(m, (2, 2), "bool") @ _ones(m, (2,), "bool"),
    "bmm_bool": lambda m: m.bmm(_ones(m, (1, 2, 2), "bool"), _ones(m, (1, 2, 2), "bool")),
    "bmm_2d": lambda m: m.bmm(_ones(m, (2, 3)), _ones(m, (3, 2))),
    "bmm_second_2d": lambda m: m.bmm(_ones(m, (2, 2, 3)), _ones(m, (3, 2))),
    "bmm_batch": lambda m: m.bmm(_ones(m, (2, 2, 3)), _ones(m, (3, 3, 2))),
    "bmm_inner": lambda m: m.bmm(_ones(m, (2, 2, 3)), _ones(m, (2, 4, 2))),
    "bmm_dtype": lambda m: m.bmm(_ones(m, (2, 2, 3)), _ones(m, (2, 3, 2), "float64")),
    "bmm_dtype_rev": lambda m: m.bmm(_ones(m, (2, 2, 3), "float64"), _ones(m, (2, 3, 2))),
    "mv_mismatch": lambda m: m.mv(_ones(m, (2, 3)), _ones(m, (4,))),
    "mv_1d": lambda m: m.mv(_ones(m, (3,)), _ones(m, (3,))),
    "mv_vec_2d": lambda m: m.mv(_ones(m, (2, 3)), _ones(m, (3, 1))),
    "mv_dtype": lambda m: m.mv(_ones(m, (2, 3)), _ones(m, (3,), "float64")),
    "mv_dtype_rev": lambda m: m.mv(_ones(m, (2, 3), "float64"), _ones(m, (3,))),
    "dot_mismatch": lambda m: m.dot(_ones(m, (3,)), _ones(m, (4,))),
    "dot_2d": lambda m: m.dot(_ones(m, (3, 1)), _ones(m, (3,))),
    "dot_dtype": lambda m: m.dot(_ones(m, (3,)), _ones(m, (3,), "float64")),
    "outer_2d": lambda m: m.outer(_ones(m, (3, 1)), _ones(m, (3,))),
    "matmul_python_number": lambda m: m.matmul(_ones(m, (3,)), 2),
}


@pytest.mark.parametrize("name", sorted(OTHER_ERRORS))
def test_product_errors_match_torch(torch, name):
    ec, et = same_error(lambda: OTHER_ERRORS[name](core), lambda: OTHER_ERRORS[name](torch))
    assert str(ec) == str(et)


@pytest.mark.parametrize("bshape", [(64,), (1, 64), (32, 1), (), (32, 64)])
@pytest.mark.parametrize("beta", [1, 0.5])
def test_addmm_input_gradient_is_torchs_sum(torch, bshape, beta):
    """addmm's broadcast input gets its gradient summed before the matrices' (as torch's formula orders them):
    torch's bits, for a linear bias and the other broadcasts, with and without beta."""
    rng = np.random.default_rng(5)
    b, m1, m2, c = (rng.standard_normal(s).astype(np.float32) for s in [bshape, (32, 48), (48, 64), (32, 64)])
    grads = []
    for lib in (core, torch):
        bt = lib.tensor(b, requires_grad=True)
        (lib.addmm(bt, lib.tensor(m1, requires_grad=True), lib.tensor(m2), beta=beta) * lib.tensor(c)).sum().backward()
        grads.append(bt.grad.numpy())
    assert grads[0].shape == grads[1].shape and grads[0].tobytes() == grads[1].tobytes()
