"""Differential tests for shape ops vs torch: values, dtypes, shapes, grad_fn names and gradients
(backward with a random weight), numerical gradient checks and double backward."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import core
from gradcheck import gradcheck
from shape_util import arr, both, node_name

A234 = arr(2, 3, 4)
A23 = arr(2, 3, seed=1)
A3 = arr(3, seed=2)
A0 = np.array(1.5, dtype=np.float32)
A1314 = arr(1, 3, 1, 4, seed=3)
A66 = arr(6, 6, seed=4)

# (id, fn(lib, *tensors), input arrays)
CASES = [
    ("view", lambda L, x: x.view(6, 4), [A234]),
    ("view_minus1", lambda L, x: x.view(-1), [A234]),
    ("view_infer_middle", lambda L, x: x.view(2, -1, 3), [A234]),
    ("view_size_arg", lambda L, x: x.view(x.size(0), -1), [A234]),
    ("view_tuple_arg", lambda L, x: x.view((4, 6)), [A234]),
    ("view_0d_to_11", lambda L, x: x.view(1, 1), [A0]),
    ("view_as", lambda L, x, y: x.view_as(y), [A234, arr(4, 6)]),
    ("reshape_view", lambda L, x: x.reshape(4, 6), [A234]),
    ("reshape_copy", lambda L, x: x.transpose(0, 1).reshape(-1), [A234]),
    ("reshape_fn", lambda L, x: L.reshape(x, (3, -1)), [A234]),
    ("reshape_as", lambda L, x, y: x.reshape_as(y), [A234, arr(24)]),
    ("flatten", lambda L, x: x.flatten(), [A234]),
    ("flatten_range", lambda L, x: x.flatten(1, 2), [A234]),
    ("flatten_neg", lambda L, x: L.flatten(x, -2), [A234]),
    ("flatten_noncontig", lambda L, x: x.transpose(0, 2).flatten(), [A234]),
    ("flatten_0d", lambda L, x: x.flatten(), [A0]),
    ("unflatten", lambda L, x: x.unflatten(2, (2, 2)), [A234]),
    ("unflatten_infer", lambda L, x: L.unflatten(x, -1, (-1, 2)), [A234]),
    ("ravel", lambda L, x: x.ravel(), [A234]),
    ("ravel_noncontig", lambda L, x: L.ravel(x.mT), [A234]),
    ("unsqueeze0", lambda L, x: x.unsqueeze(0), [A234]),
    ("unsqueeze_last", lambda L, x: L.unsqueeze(x, -1), [A234]),
    ("unsqueeze_mid", lambda L, x: x.unsqueeze(2), [A234]),
    ("unsqueeze_0d", lambda L, x: x.unsqueeze(0), [A0]),
    ("squeeze_all", lambda L, x: x.squeeze(), [A1314]),
    ("squeeze_dim", lambda L, x: x.squeeze(2), [A1314]),
    ("squeeze_dims", lambda L, x: L.squeeze(x, (0, 2)), [A1314]),
    ("squeeze_non1", lambda L, x: x.squeeze(1), [A1314]),
    ("squeeze_nothing", lambda L, x: x.squeeze(), [A234]),
    ("expand", lambda L, x: x.expand(2, 3, 4), [arr(3, 1)]),
    ("expand_minus1", lambda L, x: x.expand(5, -1, 4), [arr(3, 1)]),
    ("expand_as", lambda L, x, y: x.expand_as(y), [arr(2, 1), A23]),
    ("expand_same", lambda L, x: x.expand(2, 3), [A23]),
    ("broadcast_to", lambda L, x: L.broadcast_to(x, (4, 2, 3)), [A23]),
    ("contiguous_copy", lambda L, x: x.t().contiguous(), [A23]),
    ("repeat_seed", lambda L, x: x.repeat(4, 2), [np.array([1, 2, 3], dtype=np.float32)]),
    ("repeat_2d", lambda L, x: x.repeat(2, 1, 3), [A23]),
    ("repeat_ones", lambda L, x: x.repeat(1, 1), [A23]),
    ("repeat_0d", lambda L, x: x.repeat(2, 3), [A0]),
    ("repeat_zero", lambda L, x: x.repeat(0, 2), [A23]),
    ("tile", lambda L, x: L.tile(x, (2,)), [A23]),
    ("tile_more", lambda L, x: x.tile((2, 1, 2)), [A23]),
    ("flip", lambda L, x: x.flip(0), [A234]),
    ("flip_many", lambda L, x: L.flip(x, (0, 2)), [A234]),
    ("flip_list", lambda L, x: x.flip([-1]), [A234]),
    ("fliplr", lambda L, x: L.fliplr(x), [A23]),
    ("flipud", lambda L, x: x.flipud(), [A23]),
    ("roll_flat", lambda L, x: x.roll(2), [A234]),
    ("roll_dim", lambda L, x: L.roll(x, -1, 1), [A234]),
    ("roll_dims", lambda L, x: x.roll((1, 5), (0, 2)), [A234]),
    ("narrow", lambda L, x: x.narrow(1, 1, 2), [A234]),
    ("narrow_neg_start", lambda L, x: L.narrow(x, -1, -3, 2), [A234]),
    ("narrow_tensor_start", lambda L, x: x.narrow(0, L.tensor(1), 1), [A234]),
    ("select", lambda L, x: x.select(1, 2), [A234]),
    ("select_neg", lambda L, x: L.select(x, 0, -1), [A234]),
    ("chunk_seed", lambda L, x: x.chunk(3, 2), [arr(1, 1, 3, 3)]),
    ("chunk_uneven", lambda L, x: L.chunk(x, 4, 0), [arr(5, 2)]),
    ("chunk_more_than_size", lambda L, x: x.chunk(6, 0), [arr(6, 2)]),
    ("chunk_empty", lambda L, x: x.chunk(3), [np.zeros((0,), np.float32)]),
    ("split_int", lambda L, x: x.split(2, 2), [A234]),
    ("split_fn", lambda L, x: L.split(x, 1), [A234]),
    ("split_list", lambda L, x: x.split([1, 2], 1), [A234]),
    ("split_with_sizes", lambda L, x: x.split_with_sizes([3, 1], -1), [A234]),
    ("split_zero_dim", lambda L, x: x.split(0), [np.zeros((0, 2), np.float32)]),
    ("tensor_split_int", lambda L, x: x.tensor_split(3, 2), [A234]),
    ("tensor_split_idx", lambda L, x: L.tensor_split(x, [1, -1, 10], 2), [A234]),
    ("tensor_split_tensor", lambda L, x: x.tensor_split(L.tensor([1, 2]), 1), [A234]),
    ("unbind", lambda L, x: x.unbind(), [A234]),
    ("unbind_dim", lambda L, x: L.unbind(x, -1), [A234]),
    ("cat", lambda L, x, y: L.cat([x, y]), [A23, arr(4, 3)]),
    ("cat_dim1", lambda L, x, y: L.cat((x, y), dim=1), [A23, arr(2, 5)]),
    ("cat_neg", lambda L, x, y: L.cat([x, y, x], -1), [A23, arr(2, 1)]),
    ("concat", lambda L, x, y: L.concat([x, y]), [A23, A23]),
    ("concatenate", lambda L, x, y: L.concatenate([x, y], axis=1), [A23, A23]),
    ("cat_promote_float", lambda L, x, y: L.cat([x, y]), [A23, arr(1, 3, dtype=np.float64)]),
    ("cat_promote_int", lambda L, x, y: L.cat([x, y]), [arr(2, 3, dtype=np.int32), arr(1, 3, dtype=np.int64)]),
    ("cat_int_float", lambda L, x, y: L.cat([x, y]), [arr(2, 3, dtype=np.int64), A23]),
    ("cat_bool_int", lambda L, x, y: L.cat([x, y]), [arr(2, 3, dtype=bool), arr(2, 3, dtype=np.int32)]),
    ("cat_legacy_empty", lambda L, x, y: L.cat([x, y]), [np.zeros((0,), np.float32), A23]),
    ("cat_legacy_empty_dim1", lambda L, x, y: L.cat([y, x, y], 1), [np.zeros((0,), np.float32), A23]),
    ("cat_legacy_empty_promotes", lambda L, x, y: L.cat([x, y]),
     [np.zeros((0,), np.int64), arr(2, 3, dtype=np.int32)]),
    ("cat_zeros_0x3", lambda L, x: L.cat([L.zeros([0, 3]), x], dim=0), [A23]),
    ("cat_single", lambda L, x: L.cat([x]), [A23]),
    ("stack", lambda L, x, y: L.stack([x, y]), [A23, arr(2, 3, seed=9)]),
    ("stack_neg", lambda L, x, y: L.stack((x, y), -1), [A23, A23]),
    ("stack_mid", lambda L, x, y, z: L.stack([x, y, z], 1), [A3, A3, A3]),
    ("stack_promote", lambda L, x, y: L.stack([x, y]), [arr(3, dtype=np.int32), A3]),
    ("stack_0d", lambda L, x, y: L.stack([x, y]), [A0, A0]),
    ("hstack_1d", lambda L, x, y: L.hstack([x, y]), [A3, A3]),
    ("hstack_2d", lambda L, x, y: L.hstack([x, y]), [A23, A23]),
    ("vstack", lambda L, x, y: L.vstack([x, y]), [A3, A3]),
    ("row_stack", lambda L, x, y: L.row_stack([x, y]), [A23, A23]),
    ("dstack", lambda L, x, y: L.dstack([x, y]), [A23, A23]),
    ("column_stack", lambda L, x, y: L.column_stack([x, y]), [A3, arr(3, 2)]),
    ("atleast_1d", lambda L, x: L.atleast_1d(x), [A0]),
    ("atleast_2d", lambda L, x: L.atleast_2d(x), [A3]),
    ("atleast_3d", lambda L, x: L.atleast_3d(x), [A23]),
    ("atleast_3d_1d", lambda L, x: L.atleast_3d(x), [A3]),
    ("unfold", lambda L, x: x.unfold(1, 2, 1), [A234]),
    ("unfold_step", lambda L, x: x.unfold(-1, 2, 2), [A234]),
    ("unfold_gap", lambda L, x: x.unfold(0, 2, 3), [arr(8, 2)]),
    ("unfold_0d", lambda L, x: x.unfold(0, 1, 1), [A0]),
    ("as_strided", lambda L, x: x.as_strided((2, 2), (1, 2)), [A234]),
    ("as_strided_offset", lambda L, x: L.as_strided(x, (3, 3), (4, 1), 2), [A234]),
    ("as_strided_overlap", lambda L, x: x.as_strided((3, 3), (1, 1)), [arr(6)]),
    ("as_strided_of_view", lambda L, x: x[1].as_strided((2,), (2,)), [A234]),
    ("as_strided_diag", lambda L, x: x.as_strided((6,), (7,)), [A66]),
]


@pytest.mark.parametrize("name,fn,arrays", CASES, ids=[c[0] for c in CASES])
def test_op_matches_torch_values_dtype_grad_fn_and_grads(torch, name, fn, arrays):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        both(torch, fn, *arrays)


NONLEAF_CASES = [c for c in CASES if c[0] in ("view", "narrow", "unbind", "chunk_seed", "cat", "stack", "expand",
                                               "select", "unfold", "as_strided", "repeat_2d")]


@pytest.mark.parametrize("name,fn,arrays", NONLEAF_CASES, ids=[c[0] for c in NONLEAF_CASES])
def test_op_on_non_leaf_matches_torch(torch, name, fn, arrays):
    both(torch, lambda L, *xs: fn(L, *[x * 2 for x in xs]), *arrays)


def test_T_on_3d_warns_and_reverses_dims(torch):
    x = core.tensor(A234)
    with warnings.catch_warnings(record=True):
        warnings.simplefilter("always")
        r = x.T
    assert tuple(r.shape) == (4, 3, 2)
    np.testing.assert_array_equal(r.numpy(), A234.transpose(2, 1, 0))


def test_contiguous_returns_self_when_contiguous(torch):
    x = core.tensor(A23)
    assert x.contiguous() is x
    assert x.t().contiguous().is_contiguous()
    assert x.t().contiguous().stride() == torch.tensor(A23).t().contiguous().stride()


def test_flatten_same_start_end_returns_self(torch):
    x = core.tensor(A234)
    assert x.flatten(1, 1) is x
    assert torch.tensor(A234).flatten(1, 1).shape == x.flatten(1, 1).shape


def test_reshape_copy_records_clone_then_unsafe_view(torch):
    x = core.tensor(A234, requires_grad=True)
    tx = torch.tensor(A234, requires_grad=True)
    r, tr = x.transpose(0, 1).reshape(-1), tx.transpose(0, 1).reshape(-1)
    assert node_name(r) == node_name(tr) == "UnsafeViewBackward0"
    assert r.grad_fn.next_functions[0][0].name() == tr.grad_fn.next_functions[0][0].name() == "CloneBackward0"


@pytest.mark.parametrize("target", ["int32", "float16", "float64", "int16", "uint8"])
def test_view_dtype_reinterprets_bits(torch, target):
    a = arr(2, 4)
    r, tr = core.tensor(a).view(getattr(core, target)), torch.tensor(a).view(getattr(torch, target))
    assert tuple(r.shape) == tuple(tr.shape)
    assert str(r.dtype) == str(tr.dtype)
    np.testing.assert_array_equal(r.numpy(), tr.numpy())


def test_view_dtype_shares_memory(torch):
    x = core.zeros(4)
    x.view(core.int32).fill_(1)
    t = torch.zeros(4)
    t.view(torch.int32).fill_(1)
    np.testing.assert_array_equal(x.numpy(), t.numpy())


def test_chunk_returns_fewer_chunks_when_size_does_not_divide(torch):
    r, tr = core.zeros(5).chunk(4), torch.zeros(5).chunk(4)
    assert [tuple(c.shape) for c in r] == [tuple(c.shape) for c in tr] == [(2,), (2,), (1,)]


def test_iterating_a_tensor_yields_unbind_rows(torch):
    x = core.tensor(A23, requires_grad=True)
    tx = torch.tensor(A23, requires_grad=True)
    rows, trows = list(x), list(tx)
    assert len(rows) == len(trows) == 2
    assert node_name(rows[0]) == node_name(trows[0]) == "UnbindBackward0"
    np.testing.assert_array_equal(rows[1].detach().numpy(), trows[1].detach().numpy())


def test_cat_out_argument_writes_into_out(torch):
    out = core.empty(0)
    r = core.cat([core.ones(2), core.zeros(1)], out=out)
    assert r is out
    np.testing.assert_array_equal(out.numpy(), torch.cat([torch.ones(2), torch.zeros(1)]).numpy())


def test_stack_out_argument_writes_into_out(torch):
    out = core.empty(0)
    r = core.stack([core.ones(2), core.zeros(2)], out=out)
    assert r is out and tuple(out.shape) == (2, 2)


def test_cat_in_a_loop_from_zeros_0x3(torch):
    def run(L):
        acc = L.zeros([0, 3])
        value = L.FloatTensor([[1, 2, 3], [4, 5, 6]])
        for _ in range(10):
            acc = L.cat([acc, value], dim=0)
        return acc
    r, tr = run(core), run(torch)
    assert tuple(r.shape) == tuple(tr.shape) == (20, 3)
    np.testing.assert_array_equal(r.numpy(), tr.numpy())


def test_storage_offset_matches_torch(torch):
    x, tx = core.tensor(A234), torch.tensor(A234)
    assert x[1].narrow(1, 2, 2).storage_offset() == tx[1].narrow(1, 2, 2).storage_offset()
    assert x.select(2, 3).storage_offset() == tx.select(2, 3).storage_offset()


def test_strides_of_views_match_torch(torch):
    x, tx = core.tensor(A234), torch.tensor(A234)
    for f in (lambda v: v.transpose(0, 2), lambda v: v.unsqueeze(1), lambda v: v.unfold(2, 2, 1),
              lambda v: v[:, :1].expand(2, 5, 4), lambda v: v.narrow(2, 1, 2), lambda v: v.select(1, 0),
              lambda v: v.permute(1, 2, 0), lambda v: v.as_strided((2, 3), (3, 1), 1)):
        assert f(x).stride() == f(tx).stride()
        assert f(x).is_contiguous() == f(tx).is_contiguous()


# -- numerical gradient checks (float64 central differences) ------------------------------------

GRADCHECK = [
    ("view", lambda x: x.view(-1, 2), (3, 4)),
    ("reshape_copy", lambda x: x.t().reshape(-1), (3, 4)),
    ("permute", lambda x: x.permute(2, 0, 1), (2, 3, 2)),
    ("expand", lambda x: x.expand(3, 2, 4), (2, 1)),
    ("repeat", lambda x: x.repeat(2, 1, 3), (2, 2)),
    ("flip", lambda x: x.flip(0, 1), (3, 2)),
    ("roll", lambda x: x.roll((1, -1), (0, 1)), (3, 3)),
    ("narrow", lambda x: x.narrow(1, 1, 2), (3, 4)),
    ("select", lambda x: x.select(0, 2) * 3, (3, 4)),
    ("split", lambda x: x.split([1, 3], 1)[1] * x.split([1, 3], 1)[0], (3, 4)),
    ("chunk", lambda x: x.chunk(2)[0] - 2 * x.chunk(2)[1], (4, 2)),
    ("unbind", lambda x: core.stack(x.unbind(1)[::-1]), (2, 3)),
    ("cat", lambda x: core.cat([x, x * x, x[:1]]), (2, 3)),
    ("stack", lambda x: core.stack([x, x.exp()], 1), (2, 3)),
    ("unfold", lambda x: x.unfold(1, 3, 1) ** 2, (2, 5)),
    ("as_strided_overlap", lambda x: x.as_strided((3, 3), (1, 1)) ** 2, (5,)),
    ("squeeze_unsqueeze", lambda x: x.unsqueeze(1).squeeze() * x, (3, 1)),
    ("movedim", lambda x: x.movedim(0, 2).flatten() ** 2, (2, 3, 2)),
    ("tensor_split", lambda x: x.tensor_split(3)[1] * 2, (7,)),
]


@pytest.mark.parametrize("name,fn,shape", GRADCHECK, ids=[g[0] for g in GRADCHECK])
def test_gradient_matches_numerical(name, fn, shape):
    x = np.random.default_rng(3).standard_normal(shape)
    assert gradcheck(fn, x)


# -- double backward (create_graph) -------------------------------------------------------------

DOUBLE = [
    ("narrow", lambda L, x: x.narrow(1, 1, 2)),
    ("select", lambda L, x: x.select(0, 1)),
    ("unfold", lambda L, x: x.unfold(1, 2, 2)),
    ("as_strided", lambda L, x: x.as_strided((2, 2), (1, 2))),
    ("split", lambda L, x: x.split(2)[0]),
    ("unbind", lambda L, x: x.unbind()[1]),
    ("repeat", lambda L, x: x.repeat(2, 1)),
    ("cat", lambda L, x: L.cat([x, x])),
    ("stack", lambda L, x: L.stack([x, x])),
    ("roll", lambda L, x: x.roll(1, 0)),
    ("flip", lambda L, x: x.flip(0)),
    ("squeeze", lambda L, x: x.unsqueeze(0).squeeze(0)),
    ("permute", lambda L, x: x.permute(1, 0)),
    ("expand", lambda L, x: x.unsqueeze(0).expand(3, 4, 6)),
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
        w = L.tensor(np.linspace(-1, 1, 24).reshape(4, 6))
        (g * w).sum().backward()
        res.append((g.detach().numpy().copy(), v.grad.numpy().copy()))
    np.testing.assert_allclose(res[0][0], res[1][0])
    np.testing.assert_allclose(res[0][1], res[1][1])


# -- CLI formulas: rule(ndim, dim, **op kwargs) evaluated against the op's actual result -----------

def _check_rule(rule, out, env):
    """Evaluate 'out[i][j] = rhs' for every out index with Python arithmetic and compare."""
    lhs, rhs = [p.strip() for p in rule.split("  (")[0].split("=", 1)]
    names = [v.strip("[]") for v in lhs[len(lhs.split("[")[0]):].split("][")] if "[" in lhs else []
    for idx in np.ndindex(*out.shape):
        scope = dict(env, **{n: i for n, i in zip(names, idx) if not n.isdigit()})
        assert eval(rhs, {}, scope) == out[idx], f"{rule} at {idx}"


RULES = [
    ("permute", lambda x: x.permute(2, 0, 1), dict(dims=(2, 0, 1))),
    ("transpose", lambda x: x.transpose(0, 2), dict(dim0=0, dim1=2)),
    ("unsqueeze", lambda x: x.unsqueeze(1), dict(dim=1)),
    ("narrow", lambda x: x.narrow(2, 1, 2), dict(dim=2, start=1, length=2)),
    ("select", lambda x: x.select(1, 2), dict(dim=1, index=2)),
    ("unfold", lambda x: x.unfold(2, 2, 1), dict(dimension=2, size=2, step=1)),
    ("flip", lambda x: x.flip(0, 2), dict(dims=(0, 2))),
    ("roll", lambda x: x.roll((1, -2), (0, 2)), dict(shifts=(1, -2), dims=(0, 2))),
    ("repeat", lambda x: x.repeat(1, 2, 1), {}),
    ("repeat_new_dims", lambda x: x.repeat(2, 1, 2, 1), dict(sizes=(2, 1, 2, 1))),
    ("movedim", lambda x: x.movedim(0, 2), dict(source=0, destination=2)),
]


@pytest.mark.parametrize("name,fn,kw", RULES, ids=[r[0] for r in RULES])
def test_rule_formula_matches_op(name, fn, kw):
    from tensorcli import opspec
    x = np.arange(24.).reshape(2, 3, 4)
    out = fn(core.tensor(x)).numpy()
    kw = dict(kw)
    dim = kw.pop("dim", None)
    rule = opspec.entry(name.replace("_new_dims", "")).rule(3, dim, **kw)
    _check_rule(rule, out, {"input": x, "size": lambda k: x.shape[k]})


def test_rule_formulas_for_stack_unbind_as_strided():
    from tensorcli import opspec
    x = np.arange(24.).reshape(2, 3, 4)
    ts = [x, x + 100]
    _check_rule(opspec.entry("stack").rule(3, 1), core.stack([core.tensor(t) for t in ts], 1).numpy(), {"tensors": ts})
    for c, o in enumerate(core.tensor(x).unbind(1)):
        _check_rule(opspec.entry("unbind").rule(3, 1).replace("outputs[c]", "out"), o.numpy(), {"input": x, "c": c})
    r = opspec.entry("as_strided").rule(3, None, size=(3, 4), stride=(5, 1), storage_offset=2)
    _check_rule(r, core.tensor(x).as_strided((3, 4), (5, 1), 2).numpy(), {"storage": x.reshape(-1)})
    assert opspec.entry("permute").rule(3, None, dims=(2, 0, 1)) == "out[i][j][k] = input[j][k][i]"


def test_every_cli_shape_rule_gives_text_for_the_listing_call():
    from core.ops.registry import OPS
    from tensorcli import opspec
    for name, info in OPS.items():
        rule = opspec.entry(name).rule
        if info.category == "shape" and opspec.is_command(name) and rule is not None:
            r = rule(2, 1)
            assert r is None or isinstance(r, str), name
