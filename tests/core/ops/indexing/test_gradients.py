"""Gradients of the indexing ops: central-difference checks (tests/gradcheck.py) and double
backward (create_graph=True) compared with torch."""
from __future__ import annotations

import numpy as np
import pytest

import core
from gradcheck import gradcheck
from indexing_util import arr, assert_tensor_equal

X = arr(3, 4, dtype=np.float64)
X3 = arr(2, 3, 4, seed=2, dtype=np.float64)
POS = np.abs(X) + 0.5          # no zeros, distinct values: prod / amax are differentiable
I = [[0, 0, 3], [1, 2, 1], [3, 3, 3]]


def t(v):
    return core.tensor(v)


GRADCHECK = [
    ("gather_duplicates", lambda x: x.gather(1, t(I)), [X]),
    ("gather_dim0_3d", lambda x: x.gather(0, t(np.array([[[1, 0, 1, 1]]]))), [X3]),
    ("scatter_src", lambda x, s: x.scatter(1, t([[0, 1], [2, 3], [1, 0]]), s), [X, X[:, :2] * 2]),
    ("scatter_value", lambda x: x.scatter(0, t([[0, 2, 1, 0]]), 1.5), [X]),
    ("scatter_add", lambda x, s: x.scatter_add(1, t(I), s), [X, X[:, :3]]),
    ("scatter_reduce_sum", lambda x, s: x.scatter_reduce(1, t(I), s, "sum", include_self=False), [X, X[:, :3]]),
    ("scatter_reduce_prod", lambda x, s: x.scatter_reduce(1, t(I), s, "prod"), [POS, POS[:, :3] + 0.25]),
    ("scatter_reduce_mean", lambda x, s: x.scatter_reduce(1, t(I), s, "mean"), [X, X[:, :3]]),
    ("scatter_reduce_amax", lambda x, s: x.scatter_reduce(1, t(I), s, "amax"), [POS, POS[:, :3] * 1.37]),
    ("scatter_reduce_amin_no_self", lambda x, s: x.scatter_reduce(1, t(I), s, "amin", include_self=False),
     [POS, POS[:, :3] * 1.37]),
    ("index_select", lambda x: x.index_select(1, t([3, 0, 3])), [X]),
    ("index_add_alpha", lambda x, s: x.index_add(0, t([2, 2]), s, alpha=-1.5), [X, X[:2]]),
    ("index_fill_tensor_value", lambda x, v: x.index_fill(1, t([1, 1]), v), [X, np.array(0.7)]),
    ("index_put_accumulate", lambda x, v: x.index_put((t([0, 0, 2]), t([1, 1, 3])), v, accumulate=True),
     [X, X[0, :3]]),
    ("index_put", lambda x, v: x.index_put((t([0, 2]),), v), [X, X[0]]),
    ("masked_select_broadcast", lambda x: x.masked_select(t(np.stack([X > 0, X < 0]))), [X]),
    ("masked_fill_tensor_value", lambda x, v: x.masked_fill(t(X > 0), v), [X, np.array(0.3)]),
    ("take", lambda x: x.take(t([[0, 11], [-1, 0]])), [X]),
    ("take_along_dim", lambda x: x.take_along_dim(t([[2], [0], [2]]), 1), [X]),
    ("getitem_basic", lambda x: x[1:, None, ::2][0], [X3]),
    ("getitem_advanced_duplicates", lambda x: x[[0, 0, 1], :, [3, 3, 0]], [X3]),
    ("getitem_mask", lambda x: x[t(X3 > 0)], [X3]),
    ("setitem_value_and_self", lambda x, v: _set(x, (slice(None), [1, 3]), v), [X, X[:, :1]]),
    ("setitem_basic", lambda x, v: _set(x, (0, slice(1, 3)), v), [X, X[1, :2]]),
    ("triu", lambda x: x.triu(1), [X]),
    ("tril_batched", lambda x: x.tril(-1), [X3]),
    ("diagonal", lambda x: x.diagonal(1, -1, 0), [X3]),
    ("diag_embed", lambda x: core.diag_embed(x, -1), [X]),
    ("diag_matrix", lambda x: core.diag(x, 1), [X]),
]


def _set(x, index, v):
    y = x * 1
    y[index] = v
    return y


@pytest.mark.parametrize("name,fn,inputs", GRADCHECK, ids=[c[0] for c in GRADCHECK])
def test_numerical_gradient(name, fn, inputs):
    assert gradcheck(fn, *[core.tensor(a) for a in inputs])


DOUBLE = [
    ("gather", lambda L, x: x.gather(1, L.tensor(I))),
    ("scatter_add", lambda L, x: L.zeros(3, 4, dtype=L.float64).scatter_add(1, L.tensor(I), x[:, :3])),
    ("index_select", lambda L, x: x.index_select(1, L.tensor([3, 0, 3]))),
    ("getitem_adv", lambda L, x: x[[0, 0, 2], 1:]),
    ("getitem_basic", lambda L, x: x[1, ::2]),
    ("masked_select", lambda L, x: x.masked_select(x > 0)),
    ("take", lambda L, x: x.take(L.tensor([[0, 11], [-1, 0]]))),
    ("diagonal", lambda L, x: x.diagonal(1)),
    ("index_put_acc", lambda L, x: x.index_put((L.tensor([0, 0]),), x[1] * 2, accumulate=True)),
]


@pytest.mark.parametrize("name,fn", DOUBLE, ids=[c[0] for c in DOUBLE])
def test_double_backward_matches_torch(torch, name, fn):
    res = []
    for L in (core, torch):
        x = L.tensor(X, requires_grad=True)
        y = fn(L, x)
        (g,) = L.autograd.grad((y * y).sum(), x, create_graph=True)
        (g * L.tensor(X)).sum().backward()
        res.append((g.detach(), x.grad))
    assert_tensor_equal(res[0][0], res[1][0])
    assert_tensor_equal(res[0][1], res[1][1])


def test_gather_gradient_is_scatter_add_of_duplicates(torch):
    res = []
    for L in (core, torch):
        x = L.tensor(X, requires_grad=True)
        x.gather(1, L.tensor([[1, 1, 1, 1], [0, 0, 3, 3], [2, 2, 2, 2]])).sum().backward()
        res.append(x.grad)
    assert_tensor_equal(res[0], res[1])
    assert res[0]._data[0, 1] == 4.0


def test_max_dim_backward_still_uses_scatter_into_zeros(torch):
    res = []
    for L in (core, torch):
        x = L.tensor(X, requires_grad=True)
        x.max(dim=1)[0].sum().backward()
        res.append(x.grad)
    assert_tensor_equal(res[0], res[1])
