"""einsum and tensordot vs torch: values, dtypes, grad_fn names, gradients, double backward, errors."""
from __future__ import annotations

import numpy as np
import pytest

import core
from conftest import assert_same, same_error
from gradcheck import gradcheck
from shape_util import arr, both

EQS = [
    ("seed_attention", "b c i d, b c j d -> b c i j", [(4, 3, 8, 16), (4, 3, 8, 16)]),
    ("matmul", "ij,jk->ik", [(2, 3), (3, 4)]),
    ("implicit_matmul", "ij,jk", [(2, 3), (3, 4)]),
    ("implicit_sorted_output", "ji,kj", [(3, 2), (4, 3)]),
    ("diagonal", "ii->i", [(3, 3)]),
    ("trace", "ii", [(3, 3)]),
    ("transpose", "ij->ji", [(2, 3)]),
    ("sum_all", "ij->", [(2, 3)]),
    ("sum_axis", "ijk->kj", [(2, 3, 4)]),
    ("dot", "i,i->", [(3,), (3,)]),
    ("outer", "i,j->ij", [(3,), (4,)]),
    ("batched_ellipsis", "...ij,...jk->...ik", [(5, 2, 3), (5, 3, 4)]),
    ("ellipsis_broadcast", "...ij,...jk", [(2, 1, 2, 3), (4, 3, 2)]),
    ("three_operands", "bij,bjk,bkl->bil", [(2, 3, 4), (2, 4, 5), (2, 5, 6)]),
    ("repeated_in_operand", "iij->j", [(3, 3, 2)]),
    ("repeated_apart", "iji->j", [(2, 3, 2)]),
    ("batch_diag_contract", "ijk,ikj->i", [(2, 3, 4), (2, 4, 3)]),
    ("broadcast_size1", "ij,ij->ij", [(1, 3), (2, 3)]),
    ("uppercase", "Ab,bA->A", [(2, 3), (3, 2)]),
    ("ellipsis_only", "...", [(2, 3)]),
    ("ellipsis_sum", "i...->...", [(2, 3, 4)]),
    ("hadamard_sum", "ij,ij->", [(3, 4), (3, 4)]),
    ("bilinear", "bn,anm,bm->ba", [(2, 3), (4, 3, 5), (2, 5)]),
    ("spaces_everywhere", " i j , j k -> i k ", [(2, 3), (3, 4)]),
]


@pytest.mark.parametrize("name,eq,shapes", EQS, ids=[e[0] for e in EQS])
def test_einsum_matches_torch(torch, name, eq, shapes):
    arrays = [arr(*s, seed=i) for i, s in enumerate(shapes)]
    both(torch, lambda L, *xs: L.einsum(eq, *xs), *arrays)


def test_seed_einsum_equals_matmul():
    q, v = core.rand(4, 3, 8, 128), core.rand(4, 3, 8, 128)
    r = core.einsum('b c i d, b c j d -> b c i j', q, v)
    assert tuple(r.shape) == (4, 3, 8, 8)
    assert bool((r - q @ v.transpose(-1, -2)).abs().max() < 1e-4)


def test_einsum_operands_as_list(torch):
    a, b = arr(2, 3), arr(3, 4, seed=1)
    both(torch, lambda L, x, y: L.einsum("ij,jk", [x, y]), a, b)


def test_einsum_sublist_format(torch):
    a, b = arr(2, 3), arr(3, 4, seed=1)
    both(torch, lambda L, x, y: L.einsum(x, [0, 1], y, [1, 2], [0, 2]), a, b)
    both(torch, lambda L, x, y: L.einsum(x, [Ellipsis, 0], y, [0, 1]), a, b)


@pytest.mark.parametrize("dtype", [np.int64, np.int32, np.float64])
def test_einsum_dtypes(torch, dtype):
    a, b = arr(2, 3, dtype=dtype), arr(3, 4, dtype=dtype, seed=1)
    both(torch, lambda L, x, y: L.einsum("ij,jk->ik", x, y), a, b)
    both(torch, lambda L, x: L.einsum("ij->i", x), a)


def test_einsum_mixed_dtype_elementwise_promotes(torch):
    both(torch, lambda L, x, y: L.einsum("ij,ij->ij", x, y), arr(2, 3), arr(2, 3, dtype=np.float64))


EINSUM_ERRORS = [
    ("fewer_operands", lambda L, a, b: L.einsum("ij,jk->ik", a)),
    ("more_operands", lambda L, a, b: L.einsum("ij->ij", a, b)),
    ("ndim_mismatch", lambda L, a, b: L.einsum("ijk,jk->ik", a, b)),
    ("ndim_mismatch_ellipsis", lambda L, a, b: L.einsum("ijk...,jk->ik", a, b)),
    ("size_mismatch", lambda L, a, b: L.einsum("ij,ik->jk", a, b)),
    ("bad_char", lambda L, a, b: L.einsum("i1,jk->ik", a, b)),
    ("output_not_in_input", lambda L, a, b: L.einsum("ij,jk->iz", a, b)),
    ("output_repeated", lambda L, a, b: L.einsum("ij,jk->ii", a, b)),
    ("lone_dot", lambda L, a, b: L.einsum("i.j,jk->ik", a, b)),
    ("two_ellipses", lambda L, a, b: L.einsum("...i...,jk->ik", a, b)),
    ("two_output_ellipses", lambda L, a, b: L.einsum("...j,jk->......", a, b)),
    ("repeated_size_mismatch", lambda L, a, b: L.einsum("ii->i", a)),
    ("ellipsis_no_broadcast", lambda L, a, b: L.einsum("...i,...i->...", a, L.zeros(4, 3))),
    ("no_operands", lambda L, a, b: L.einsum("i->i")),
    ("mixed_dtype_contraction", lambda L, a, b: L.einsum("ij,jk->ik", a.double(), b)),
    ("implicit_size_mismatch", lambda L, a, b: L.einsum("ji,jk", a, b.t())),
    ("tensordot_mismatch", lambda L, a, b: L.tensordot(a, b, dims=([0], [0]))),
    ("tensordot_dtype", lambda L, a, b: L.tensordot(a, b.double(), dims=1)),
    ("tensordot_negative", lambda L, a, b: L.tensordot(a, b, dims=-1)),
    ("tensordot_lengths", lambda L, a, b: L.tensordot(a, b, dims=([0, 1], [0]))),
]


@pytest.mark.parametrize("name,fn", EINSUM_ERRORS, ids=[e[0] for e in EINSUM_ERRORS])
def test_einsum_error_matches_torch(torch, name, fn):
    a, b = arr(2, 3), arr(3, 4, seed=1)
    ec, et = same_error(lambda: fn(core, core.tensor(a), core.tensor(b)),
                        lambda: fn(torch, torch.tensor(a), torch.tensor(b)))
    assert et is not None
    assert str(ec).split("\n")[0] == str(et).split("\n")[0]


TENSORDOT = [
    ("int_dims", lambda L, a, b: L.tensordot(a, b, dims=1), [(2, 3), (3, 4)]),
    ("zero_dims", lambda L, a, b: L.tensordot(a, b, dims=0), [(2, 3), (3, 4)]),
    ("default_dims", lambda L, a, b: L.tensordot(a, b), [(2, 3, 4), (3, 4, 5)]),
    ("list_dims", lambda L, a, b: L.tensordot(a, b, dims=([1, 0], [0, 2])), [(3, 4, 5), (4, 2, 3)]),
    ("tensor_dims", lambda L, a, b: L.tensordot(a, b, dims=L.tensor(1)), [(2, 3), (3, 4)]),
    ("broadcast_dim", lambda L, a, b: L.tensordot(a, b, dims=([1], [0])), [(2, 1), (3, 4)]),
]


@pytest.mark.parametrize("name,fn,shapes", TENSORDOT, ids=[t[0] for t in TENSORDOT])
def test_tensordot_matches_torch(torch, name, fn, shapes):
    both(torch, fn, *[arr(*s, seed=i) for i, s in enumerate(shapes)])


@pytest.mark.parametrize("eq,shapes", [("ij,jk->ik", [(2, 3), (3, 2)]), ("iij->j", [(3, 3, 2)]),
                                       ("bi,bij,bj->b", [(2, 3), (2, 3, 2), (2, 2)]),
                                       ("...i,i", [(2, 3), (3,)])])
def test_einsum_gradient_matches_numerical(eq, shapes):
    arrays = [np.random.default_rng(i).standard_normal(s) for i, s in enumerate(shapes)]

    def fn(*xs):
        return core.einsum(eq, *xs)

    for k in range(len(arrays)):
        def only_k(x, k=k):
            xs = [core.tensor(a) for a in arrays]
            xs[k] = x
            return fn(*xs)
        assert gradcheck(only_k, arrays[k])


def test_einsum_double_backward_matches_torch(torch):
    res = []
    for L in (core, torch):
        a = L.tensor(arr(3, 4, dtype=np.float64), requires_grad=True)
        b = L.tensor(arr(4, 2, dtype=np.float64, seed=1), requires_grad=True)
        y = L.einsum("ij,jk->ik", a, b)
        (ga,) = L.autograd.grad(y.pow(2).sum(), a, create_graph=True)
        ga.sum().backward()
        res.append((ga.detach(), a.grad, b.grad))
    for c, t in zip(res[0], res[1]):
        assert_same(c, t)


def test_einsum_rule_describes_contraction():
    from tensorcli import opspec
    rule = opspec.entry("einsum").rule
    assert rule(4, equation="b c i d, b c j d -> b c i j") == \
        "out[b][c][i][j] = Σ_d operands[0][b][c][i][d] * operands[1][b][c][j][d]"
    assert rule(2, equation="ii") == "out = Σ_i operands[0][i][i]"
