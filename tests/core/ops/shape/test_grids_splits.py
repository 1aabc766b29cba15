"""The shape ops added after rot90, vs torch: repeat_interleave, meshgrid, cartesian_prod, combinations,
block_diag, diagflat, hsplit / vsplit / dsplit, cross / linalg.cross, and view_as & co. as methods only.
Values, dtypes, shapes, grad_fn names, gradients (plain, numerical and create_graph), errors."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import core
from conftest import assert_same, same_error
from core.ops.registry import OPS
from tensorcli import opspec
from gradcheck import gradcheck
from shape_util import arr, both, check_rule, node_name

A23 = arr(2, 3, seed=1)
A3 = arr(3, seed=2)
A2 = arr(2, seed=3)
A234 = arr(2, 3, 4)
I64 = np.int64


def _lcross(L):
    return L.linalg.cross if L is not core else OPS["linalg.cross"].fn


CASES = [
    # repeat_interleave: int repeats (unsqueeze/expand/clone/flatten) and tensor repeats (index_select)
    ("ri_int_flat", lambda L, x: x.repeat_interleave(2), [A23]),
    ("ri_int_dim1", lambda L, x: L.repeat_interleave(x, 3, 1), [A23]),
    ("ri_int_negdim", lambda L, x: x.repeat_interleave(2, -2), [A234]),
    ("ri_int_zero", lambda L, x: x.repeat_interleave(0, 0), [A23]),
    ("ri_int_one", lambda L, x: x.repeat_interleave(1, 1), [A23]),
    ("ri_int_one_noncontig", lambda L, x: x.t().repeat_interleave(1, 0), [A23]),
    ("ri_int_0d_flat", lambda L, x: x.repeat_interleave(3), [np.array(1.5, np.float32)]),
    ("ri_int_output_size", lambda L, x: x.repeat_interleave(2, 0, output_size=4), [A23]),
    ("ri_tensor_dim0", lambda L, x: x.repeat_interleave(L.tensor([1, 2]), 0), [A23]),
    ("ri_tensor_flat", lambda L, x: x.repeat_interleave(L.tensor([0, 1, 2, 1, 0, 3])), [A23]),
    ("ri_tensor_0d", lambda L, x: x.repeat_interleave(L.tensor(2), 1), [A23]),
    ("ri_tensor_size1", lambda L, x: x.repeat_interleave(L.tensor([3]), -1), [A23]),
    ("ri_tensor_int32", lambda L, x: x.repeat_interleave(L.tensor([1, 2], dtype=L.int32), 0), [A23]),
    ("ri_tensor_1d_input", lambda L, x: x.repeat_interleave(L.tensor([2, 0, 1])), [A3]),
    ("ri_int64_input", lambda L, x: x.repeat_interleave(2, 1), [arr(2, 3, dtype=I64)]),
    ("ri_index_only", lambda L, x: L.repeat_interleave(x), [np.array([1, 0, 3], I64)]),
    ("ri_index_int32", lambda L, x: L.repeat_interleave(x), [np.array([2, 1], np.int32)]),
    ("ri_index_empty", lambda L, x: L.repeat_interleave(x), [np.zeros(0, I64)]),
    # meshgrid: expanded views
    ("mg_ij", lambda L, x, y: L.meshgrid(x, y, indexing="ij"), [A3, A2]),
    ("mg_xy", lambda L, x, y: L.meshgrid(x, y, indexing="xy"), [A3, A2]),
    ("mg_list_xy", lambda L, x, y: L.meshgrid([x, y, x], indexing="xy"), [A3, A2]),
    ("mg_tuple_ij", lambda L, x, y: L.meshgrid((x, y), indexing="ij"), [A3, A2]),
    ("mg_one", lambda L, x: L.meshgrid(x, indexing="xy"), [A3]),
    ("mg_0d", lambda L, x, y: L.meshgrid(x, y, indexing="ij"), [np.array(2.0, np.float32), A2]),
    ("mg_int", lambda L, x, y: L.meshgrid(x, y, indexing="xy"), [np.arange(3), np.arange(2)]),
    ("mg_then_sum", lambda L, x, y: sum(g * (i + 1) for i, g in enumerate(L.meshgrid(x, y, indexing="xy"))),
     [A3, A2]),
    # cartesian_prod / combinations
    ("cp_two", lambda L, x, y: L.cartesian_prod(x, y), [A3, A2]),
    ("cp_three", lambda L, x, y: L.cartesian_prod(x, y, x), [A3, A2]),
    ("cp_one", lambda L, x: L.cartesian_prod(x), [A3]),
    ("cp_int", lambda L, x, y: L.cartesian_prod(x, y), [np.arange(3), np.arange(2)]),
    ("cp_empty", lambda L, x, y: L.cartesian_prod(x, y), [np.zeros(0, np.float32), A2]),
    ("comb_2", lambda L, x: L.combinations(x), [arr(4)]),
    ("comb_3", lambda L, x: L.combinations(x, 3), [arr(5)]),
    ("comb_repl", lambda L, x: L.combinations(x, 2, with_replacement=True), [arr(4)]),
    ("comb_repl_3", lambda L, x: L.combinations(x, r=3, with_replacement=True), [A3]),
    ("comb_1", lambda L, x: L.combinations(x, 1), [A3]),
    ("comb_0", lambda L, x: L.combinations(x, 0), [A3]),
    ("comb_r_gt_n", lambda L, x: L.combinations(x, 4), [A3]),
    ("comb_int", lambda L, x: L.combinations(x), [np.arange(4)]),
    # block_diag / diagflat
    ("bd_mixed_ranks", lambda L, x, y, z: L.block_diag(x, y, z), [A23, A3, np.array(2.0, np.float32)]),
    ("bd_promote", lambda L, x, y: L.block_diag(x, y), [A23, np.arange(2)]),
    ("bd_int_bool", lambda L, x, y: L.block_diag(x, y), [np.arange(2), np.array([True])]),
    ("bd_empty_blocks", lambda L, x, y: L.block_diag(x, y), [np.zeros((0, 3), np.float32), A23]),
    ("bd_empty_1d", lambda L, x, y: L.block_diag(x, y), [np.zeros(0, np.float32), A23]),
    ("bd_one", lambda L, x: L.block_diag(x), [A23]),
    ("bd_none", lambda L: L.block_diag(), []),
    ("df_1d", lambda L, x: L.diagflat(x), [A3]),
    ("df_offset", lambda L, x: L.diagflat(x, 2), [A3]),
    ("df_neg_offset", lambda L, x: x.diagflat(-1), [A23]),
    ("df_2d", lambda L, x: L.diagflat(x), [A23]),
    ("df_0d", lambda L, x: L.diagflat(x), [np.array(3.0, np.float32)]),
    ("df_int", lambda L, x: L.diagflat(x, 1), [np.arange(3)]),
    # hsplit / vsplit / dsplit: tensor_split views
    ("hsplit_sections", lambda L, x: L.hsplit(x, 3), [A23]),
    ("hsplit_indices", lambda L, x: x.hsplit([1, 2]), [A23]),
    ("hsplit_tuple", lambda L, x: L.hsplit(x, (1,)), [A23]),
    ("hsplit_1d", lambda L, x: L.hsplit(x, 3), [A3]),
    ("hsplit_3d", lambda L, x: L.hsplit(x, [2]), [A234]),
    ("vsplit", lambda L, x: L.vsplit(x, 2), [A23]),
    ("vsplit_indices", lambda L, x: x.vsplit([1, 5]), [A234]),
    ("dsplit", lambda L, x: L.dsplit(x, 2), [A234]),
    ("dsplit_indices", lambda L, x: x.dsplit([1, 3]), [A234]),
    # cross / linalg.cross
    ("cross_dim", lambda L, x, y: L.cross(x, y, dim=1), [A23, arr(2, 3, seed=5)]),
    ("cross_method", lambda L, x, y: x.cross(y, 0), [arr(3, 2), arr(3, 2, seed=5)]),
    ("cross_neg_dim", lambda L, x, y: L.cross(x, y, -1), [A23, arr(2, 3, seed=5)]),
    ("cross_broadcast", lambda L, x, y: L.cross(x, y, 2), [arr(4, 1, 3), arr(1, 2, 3, seed=5)]),
    ("cross_float64", lambda L, x, y: L.cross(x, y, 0), [arr(3, dtype=np.float64), arr(3, dtype=np.float64, seed=9)]),
    ("cross_int", lambda L, x, y: L.cross(x, y, 0), [arr(3, dtype=I64), arr(3, dtype=I64, seed=9)]),
    ("linalg_cross", lambda L, x, y: _lcross(L)(x, y), [A23, arr(2, 3, seed=5)]),
    ("linalg_cross_dim0", lambda L, x, y: _lcross(L)(x, y, dim=0), [arr(3, 4), arr(3, 1, seed=5)]),
]


@pytest.mark.parametrize("name,fn,arrays", CASES, ids=[c[0] for c in CASES])
def test_new_op_matches_torch_values_grad_fn_and_grads(torch, name, fn, arrays):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        rc, rt, _, _ = both(torch, fn, *arrays)
    assert isinstance(rc, tuple) == isinstance(rt, tuple)
    for c, t in zip(rc if isinstance(rc, tuple) else [rc], rt if isinstance(rt, tuple) else [rt]):
        assert (c._base is not None) == (t._base is not None), "view-ness differs"
        if t.numel() and t.dim() and all(s > 1 for s in t.shape):    # torch's strides of size-1 dims are arbitrary
            assert c.stride() == t.stride()


def test_cartesian_prod_of_one_tensor_is_that_tensor(torch):
    x = core.tensor(A3, requires_grad=True)
    assert core.cartesian_prod(x) is x


def test_meshgrid_without_indexing_warns_once_like_torch(torch):
    core.ops.shape.grids._MESHGRID_WARNED[0] = False
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        gc = core.meshgrid(core.tensor(A3), core.tensor(A2))
        core.meshgrid(core.tensor(A3), core.tensor(A2))
    assert [str(x.message) for x in w] == ["torch.meshgrid: in an upcoming release, it will be required to pass "
                                           "the indexing argument. (Triggered internally at "
                                           "/__w/pytorch/pytorch/aten/src/ATen/native/TensorShape.cpp:4215.)"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        gt = torch.meshgrid(torch.tensor(A3), torch.tensor(A2))
    for c, t in zip(gc, gt):
        assert_same(c, t)


def test_cross_without_dim_uses_first_size_3_dim_and_warns_once(torch):
    core.ops.shape.cross._CROSS_WARNED[0] = False
    a, b = arr(3, 3, 2), arr(3, 3, 2, seed=4)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        rc = core.cross(core.tensor(a), core.tensor(b))
        core.cross(core.tensor(a), core.tensor(b))
    assert len(w) == 1 and "Using torch.cross without specifying the dim arg is deprecated." in str(w[0].message)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert_same(rc, torch.cross(torch.tensor(a), torch.tensor(b)))


def test_view_as_family_are_methods_only_as_in_torch(torch):
    for name in ("view_as", "reshape_as", "expand_as"):
        assert hasattr(core.Tensor, name) and hasattr(torch.Tensor, name)
        assert not hasattr(core, name) and not hasattr(torch, name)


@pytest.mark.parametrize("name", ["view_as", "reshape_as", "expand_as"])
def test_view_as_family_reject_non_tensors_like_torch(torch, name):
    ec, et = same_error(lambda: getattr(core.ones(2, 3), name)([1]), lambda: getattr(torch.ones(2, 3), name)([1]))
    assert str(ec) == str(et)


DOUBLE = [
    ("repeat_interleave_int", lambda L, x: x.repeat_interleave(2, 1)),
    ("repeat_interleave_tensor", lambda L, x: x.repeat_interleave(L.tensor([2, 1, 0, 3]), 0)),
    ("meshgrid", lambda L, x: L.meshgrid(x[0], x[1, :3], indexing="xy")[0]),
    ("cartesian_prod", lambda L, x: L.cartesian_prod(x[0], x[1])),
    ("combinations", lambda L, x: L.combinations(x[2], 3)),
    ("block_diag", lambda L, x: L.block_diag(x, x[0])),
    ("diagflat", lambda L, x: L.diagflat(x[:2], 1)),
    ("hsplit", lambda L, x: L.hsplit(x, 2)[1]),
    ("cross", lambda L, x: L.cross(x[:, :3], x[:, 3:], 1) * x[:, :3]),
]


@pytest.mark.parametrize("name,fn", DOUBLE, ids=[d[0] for d in DOUBLE])
def test_double_backward_matches_torch(torch, name, fn):
    a = arr(4, 6, dtype=np.float64)
    res = []
    for L in (core, torch):
        x = L.tensor(a, requires_grad=True)
        y = fn(L, x)
        v = L.tensor(np.arange(float(np.prod(tuple(y.shape)))).reshape(tuple(y.shape)), requires_grad=True)
        (g,) = L.autograd.grad(y, x, v, create_graph=True)
        (g * L.tensor(np.linspace(-1, 1, 24).reshape(4, 6))).sum().backward()
        res.append((g.detach().numpy().copy(), v.grad.numpy().copy(),
                    None if x.grad is None else x.grad.numpy().copy()))
    for c, t in zip(*res):
        assert (c is None) == (t is None)
        if c is not None:
            np.testing.assert_allclose(c, t, rtol=1e-10, atol=1e-12)


GRADCHECK = [
    ("repeat_interleave", lambda x: x.repeat_interleave(core.tensor([1, 3, 2]), 1) ** 2, (2, 3)),
    ("combinations", lambda x: core.combinations(x, 2).prod(1), (4,)),
    ("block_diag", lambda x: core.block_diag(x, x[0]) ** 2, (2, 3)),
    ("cross", lambda x: core.cross(x, x.flip(0), 1) * x, (2, 3)),
]


@pytest.mark.parametrize("name,fn,shape", GRADCHECK, ids=[g[0] for g in GRADCHECK])
def test_gradient_matches_numerical(name, fn, shape):
    assert gradcheck(fn, np.random.default_rng(3).standard_normal(shape))


def _fill(L, x):
    return L.tensor(x)


ERRORS = [
    ("ri_negative_int", lambda L: L.tensor(A23).repeat_interleave(-1)),
    ("ri_negative_tensor", lambda L: L.tensor(A23).repeat_interleave(L.tensor([1, -2]), 0)),
    ("ri_wrong_length", lambda L: L.tensor(A23).repeat_interleave(L.tensor([1, 2, 3]), -2)),
    ("ri_2d_repeats", lambda L: L.tensor(A23).repeat_interleave(L.tensor([[1, 2]]), 0)),
    ("ri_float_repeats", lambda L: L.tensor(A23).repeat_interleave(L.tensor([1.0, 2.0]), 0)),
    ("ri_int16_repeats", lambda L: L.tensor(A23).repeat_interleave(L.tensor([1, 2], dtype=L.int16), 0)),
    ("ri_bad_output_size", lambda L: L.tensor(A23).repeat_interleave(2, 0, output_size=5)),
    ("ri_bad_output_size_t", lambda L: L.repeat_interleave(L.tensor([1, 2]), output_size=2)),
    ("ri_dim_out_of_range", lambda L: L.tensor(A23).repeat_interleave(2, 2)),
    ("ri_0d_with_dim", lambda L: L.tensor(1.0).repeat_interleave(2, 0)),
    ("ri_index_2d", lambda L: L.repeat_interleave(L.tensor([[1]]))),
    ("ri_index_0d", lambda L: L.repeat_interleave(L.tensor(2))),
    ("ri_index_negative", lambda L: L.repeat_interleave(L.tensor([1, -1]))),
    ("mg_empty", lambda L: L.meshgrid(indexing="ij")),
    ("mg_empty_list", lambda L: L.meshgrid([], indexing="ij")),
    ("mg_bad_indexing", lambda L: L.meshgrid(L.tensor(A3), indexing="foo")),
    ("mg_dtypes", lambda L: L.meshgrid(L.tensor(A3), L.tensor([1, 2]), indexing="ij")),
    ("cp_2d", lambda L: L.cartesian_prod(L.tensor(A23), L.tensor(A3))),
    ("cp_dtypes", lambda L: L.cartesian_prod(L.tensor(A3), L.tensor([1, 2]))),
    ("comb_negative", lambda L: L.combinations(L.tensor(A3), -1)),
    ("comb_2d", lambda L: L.combinations(L.tensor(A23))),
    ("bd_3d", lambda L: L.block_diag(L.tensor(A3), L.zeros(1, 1, 1))),
    ("bd_list", lambda L: L.block_diag([L.tensor(A3)])),
    ("hsplit_not_divisible", lambda L: L.hsplit(L.tensor(A23), 2)),
    ("hsplit_zero", lambda L: L.hsplit(L.tensor(A23), 0)),
    ("hsplit_negative", lambda L: L.hsplit(L.tensor(A23), -1)),
    ("hsplit_0d", lambda L: L.hsplit(L.tensor(1.0), 1)),
    ("vsplit_1d", lambda L: L.vsplit(L.tensor(A3), 3)),
    ("vsplit_not_divisible", lambda L: L.vsplit(L.tensor(A23), 3)),
    ("dsplit_2d", lambda L: L.dsplit(L.tensor(A23), 1)),
    ("cross_wrong_dim_len", lambda L: L.cross(L.tensor(A23), L.tensor(A23), 0)),
    ("cross_no_size3", lambda L: L.cross(L.ones(2, 4), L.ones(2, 4))),
    ("cross_ndim", lambda L: L.cross(L.tensor(A23), L.ones(3), 1)),
    ("cross_broadcast", lambda L: L.cross(L.ones(2, 3), L.ones(3, 3), 1)),
    ("cross_dtypes", lambda L: L.cross(L.ones(3, dtype=L.int64), L.ones(3), 0)),
    ("cross_bool", lambda L: L.cross(L.ones(3, dtype=L.bool), L.ones(3, dtype=L.bool), 0)),
    ("cross_dim_out_of_range", lambda L: L.cross(L.tensor(A23), L.tensor(A23), 2)),
    ("linalg_cross_default_dim", lambda L: _lcross(L)(L.ones(3, 2), L.ones(3, 2))),
    ("linalg_cross_0d", lambda L: _lcross(L)(L.ones(3), L.tensor(1.0))),
]


@pytest.mark.parametrize("name,fn", ERRORS, ids=[e[0] for e in ERRORS])
def test_errors_match_torch(torch, name, fn):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ec, et = same_error(lambda: fn(core), lambda: fn(torch))
    assert ec is not None
    assert str(ec) == str(et)


def test_meshgrid_rejects_2d_like_torch(torch):
    ec, et = same_error(lambda: core.meshgrid(core.tensor(A23), indexing="ij"),
                        lambda: torch.meshgrid(torch.tensor(A23), indexing="ij"))
    prefix = "torch.meshgrid: Expected 0D or 1D tensor in the tensor list but got:"
    assert str(ec).startswith(prefix) and str(et).startswith(prefix)


RULES = [
    ("repeat_interleave", lambda x: x.repeat_interleave(2, 1), dict(dim=1, repeats=2)),
    ("repeat_interleave", lambda x: x.repeat_interleave(3).reshape(-1), dict(repeats=3)),
]


@pytest.mark.parametrize("name,fn,kw", RULES, ids=["ri_dim", "ri_flat"])
def test_rule_formula_matches_op(name, fn, kw):
    x = np.arange(24.).reshape(2, 3, 4)
    out = fn(core.tensor(x)).numpy()
    kw = dict(kw)
    rule = opspec.entry(name).rule(3, kw.pop("dim", None), **kw)
    if rule.startswith("out.flatten()"):
        rule = rule.replace("out.flatten()[n]", "out[n]").replace("input.flatten()", "flat")
    check_rule(rule, out, {"input": x, "flat": x.reshape(-1)})


def test_diagflat_and_block_diag_rules_match_op():
    x = np.arange(1., 7.)
    for off in (-2, 0, 1):
        out = core.diagflat(core.tensor(x), off).numpy()
        rule = opspec.entry("diagflat").rule(2, None, offset=off).replace("input.flatten()", "flat").split("  (")[0]
        lhs = rule.split(" = ")[0]
        for i in range(x.size):
            r, c = eval(lhs.replace("out", "").replace("][", ",").strip("[]"), {"i": i})
            assert out[r, c] == x[i]
        assert np.count_nonzero(out) == x.size
    assert "tensors[t][i][j]" in opspec.entry("block_diag").rule(2)


def test_hsplit_outputs_are_views_sharing_version_counter(torch):
    x = core.tensor(A23)
    parts = core.hsplit(x, 3)
    parts[1].add_(1)
    assert x._version == parts[0]._version == 1
    assert_same(x, torch.tensor(A23) + torch.tensor([[0, 1, 0]]))


def test_node_names_in_cartesian_prod_chain(torch):
    rc = core.cartesian_prod(core.tensor(A3, requires_grad=True), core.tensor(A2))
    rt = torch.cartesian_prod(torch.tensor(A3, requires_grad=True), torch.tensor(A2))
    chain = []
    for r in (rc, rt):
        names, fn = [], r.grad_fn
        while fn is not None:
            names.append(node_name(r) if fn is r.grad_fn else fn.name().replace("torch::autograd::", ""))
            nxt = [f for f, _ in fn.next_functions if f is not None]
            fn = nxt[0] if nxt else None
        chain.append(names)
    assert chain[0] == chain[1]
