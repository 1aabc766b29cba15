"""Issue #15's fast paths give torch's results bit for bit and keep its errors: add / sub / mul without a
graph, in-place add_ / sub_ / mul_, one- and two-tensor node recording, loss.backward()'s direct engine
entry, and the blocked scatter kernels (offsets checked after they are built)."""
from __future__ import annotations

import numpy as np
import pytest

import core

SHAPES = [((), ()), ((5,), (5,)), ((3, 4), (4,)), ((3, 1), (1, 4)), ((2, 3, 4), (3, 1)), ((0, 3), (3,))]
DTYPES = ["float32", "float64", "int64", "int32", "bool"]


def _pair(torch, arr):
    return core.tensor(arr), torch.tensor(arr)


def _same(c, t):
    assert str(c.dtype) == str(t.dtype)
    assert tuple(c.shape) == tuple(t.shape)
    assert c.stride() == t.stride()
    np.testing.assert_array_equal(c.detach().numpy(), t.detach().numpy())


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("sa,sb", SHAPES)
@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("op", ["add", "sub", "mul"])
def test_binary_without_graph_bitwise(torch, op, dt, sa, sb, seed):
    rng = np.random.default_rng(seed)
    a, b = (rng.standard_normal(s) * 50 for s in (sa, sb))
    a, b = np.asarray(a).astype(dt), np.asarray(b).astype(dt)
    (ca, ta), (cb, tb) = _pair(torch, a), _pair(torch, b)
    outs = []
    for x, y, lib in ((ca, cb, core), (ta, tb, torch)):
        try:
            outs.append(getattr(lib, op)(x, y))
        except Exception as e:       # bool subtraction: the same error class
            outs.append(type(e))
    if isinstance(outs[0], type):
        assert outs[0] is outs[1]
    else:
        _same(*outs)


@pytest.mark.parametrize("dt", ["float32", "float64"])
@pytest.mark.parametrize("scalar", [2, 0.1, -3.5, 10 ** 6])
def test_mul_by_number_bitwise_and_grad(torch, dt, scalar):
    a = np.random.default_rng(1).standard_normal((4, 5)).astype(dt)
    res = []
    for lib in (core, torch):
        x = lib.tensor(a, requires_grad=True)
        with lib.no_grad():
            plain = x * scalar
        y = x * scalar
        (y * y).sum().backward()
        res.append((plain, y, x.grad, y.grad_fn.name() if lib is core else type(y.grad_fn).__name__))
    (cp, cy, cg, cn), (tp, ty, tg, tn) = res
    _same(cp, tp)
    _same(cy, ty)
    _same(cg, tg)
    assert cn == tn


@pytest.mark.parametrize("dt", ["float32", "float64", "float16"])
@pytest.mark.parametrize("number", [1, 0.1, -3.5, 10 ** 6])
def test_add_number_and_sum_recorded_directly(torch, dt, number):
    """x + number and x.sum() on a graph record their nodes without Op.apply's argument scan: the same values,
    node names, next_functions and gradients as torch (also a non-leaf input, a 0-dim one, alpha != 1 and
    no_grad, which take the general paths)."""
    a = np.random.default_rng(2).standard_normal((3, 17)).astype(dt)
    res = []
    for lib in (core, torch):
        x = lib.tensor(a, requires_grad=True)
        z = lib.tensor(a[0, 0], requires_grad=True)
        y = x + number
        w = (y * 2 + number).sum() + (z + number).sum() + lib.add(x, number, alpha=2).sum()
        with lib.no_grad():
            plain = (x + number, x.sum())
        w.backward()
        names = [n.name() for n in (y.grad_fn, w.grad_fn)]
        # the tensor's edge (torch adds a second, (None, 0), for the number: core records none, as on main)
        nxt = [y.grad_fn.next_functions[0][0].name(), w.grad_fn.next_functions[0][0].name()]
        res.append((y, w, x.grad, z.grad, plain, names, nxt, plain[0].requires_grad))
    for c, t in zip(*res):
        if isinstance(c, tuple):
            for cc, tt in zip(c, t):
                _same(cc, tt)
        elif isinstance(c, (list, bool)):
            assert c == t
        else:
            _same(c, t)


def test_broadcast_error_without_graph(torch):
    for lib in (core, torch):
        with pytest.raises(RuntimeError, match="must match the size"):
            lib.add(lib.ones(3), lib.ones(4))
        with pytest.raises(RuntimeError, match="must match the size"):
            lib.ones(3) * lib.ones(2)
        with pytest.raises(RuntimeError, match="with a bool tensor|two bool tensors"):
            lib.sub(lib.ones(3, dtype=lib.bool), lib.ones(3, dtype=lib.bool))


@pytest.mark.parametrize("op", ["add_", "sub_", "mul_"])
@pytest.mark.parametrize("other", ["tensor", "broadcast", "int", "float"])
@pytest.mark.parametrize("grad_mode", [True, False])
def test_inplace_fast_bitwise_and_version(torch, op, other, grad_mode):
    rng = np.random.default_rng(3)
    a = rng.standard_normal((4, 6)).astype(np.float32)
    b = {"tensor": rng.standard_normal((4, 6)).astype(np.float32),
         "broadcast": rng.standard_normal(6).astype(np.float32), "int": 3, "float": 0.7}[other]
    res = []
    for lib in (core, torch):
        x = lib.tensor(a)
        o = lib.tensor(b) if isinstance(b, np.ndarray) else b
        with lib.set_grad_enabled(grad_mode):
            r = getattr(x, op)(o)
        assert r is x
        res.append((x, x._version))
    _same(res[0][0], res[1][0])
    assert res[0][1] == res[1][1]


def test_inplace_fast_keeps_errors(torch):
    for lib in (core, torch):
        leaf = lib.ones(3, requires_grad=True)
        with pytest.raises(RuntimeError, match="leaf Variable that requires grad"):
            leaf.sub_(lib.ones(3))
        with pytest.raises(RuntimeError):
            lib.ones(3).add_(lib.ones(4))
        with pytest.raises(RuntimeError):
            lib.ones(1).expand(3).mul_(2.0)
        ints = lib.ones(3, dtype=lib.int64)
        with pytest.raises(RuntimeError, match="can't be cast"):
            ints.add_(lib.ones(3))
        with lib.inference_mode():
            inf = lib.ones(3)
        with pytest.raises(RuntimeError, match="Inplace update to inference tensor"):
            inf.add_(lib.ones(3))


def test_inplace_fast_records_graph_when_needed(torch):
    """A non-leaf that requires grad still goes through the generic variant (its node is rebased)."""
    a = np.arange(4, dtype=np.float32)
    res = []
    for lib in (core, torch):
        x = lib.tensor(a, requires_grad=True)
        y = x * 2
        y.mul_(lib.tensor(a + 1))
        y.sum().backward()
        res.append((x.grad, y.grad_fn.name() if lib is core else type(y.grad_fn).__name__))
    _same(res[0][0], res[1][0])
    assert res[0][1] == res[1][1]


@pytest.mark.parametrize("seed", range(4))
def test_two_input_nodes_and_backward_bitwise(torch, seed):
    """Mixed one- and two-tensor nodes (add with alpha, matmul, sub, broadcasting) over several seeds:
    gradients, grad_fn names and next_functions as torch's."""
    rng = np.random.default_rng(seed)
    W, b, X = (rng.standard_normal(s).astype(np.float32) for s in ((5, 4), (5,), (3, 4)))
    res = []
    for lib in (core, torch):
        w, bb, x = (lib.tensor(v, requires_grad=True) for v in (W, b, X))
        h = lib.add(x.matmul(w.t()), bb, alpha=0.5)
        loss = ((h - 1.0) * h).relu().sum()
        loss.backward()
        name = (lambda f: None if f is None else (f.name() if lib is core else type(f).__name__))
        res.append(([w.grad, bb.grad, x.grad], name(h.grad_fn), [name(f) for f, _ in h.grad_fn.next_functions]))
    for c, t in zip(res[0][0], res[1][0]):
        np.testing.assert_allclose(c.numpy(), t.numpy(), rtol=1e-6, atol=1e-6)
    assert res[0][1] == res[1][1] == "AddBackward0"
    assert [n.replace("torch::autograd::", "") if n else n for n in res[0][2]] == res[1][2]


def test_backward_twice_and_hooks(torch):
    """loss.backward()'s direct entry keeps retain_graph's error, hooks and retain_grad."""
    res = []
    for lib in (core, torch):
        x = lib.ones(3, requires_grad=True)
        y = x * 2.0
        loss = (y * y).sum()
        seen = []
        y.register_hook(lambda g: seen.append(g.clone()))
        y.retain_grad()
        loss.backward(retain_graph=True)
        loss.backward()
        with pytest.raises(RuntimeError, match="backward through the graph a second time"):
            loss.backward()
        z = x * 3.0
        z.sum().backward()
        with pytest.raises(RuntimeError, match="second time"):
            z.sum().backward()
        res.append(([g.tolist() for g in seen], y.grad.tolist(), x.grad.tolist()))
    assert res[0] == res[1]


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("dim", [0, 1])
@pytest.mark.parametrize("how", ["scatter_", "scatter_add_"])
def test_blocked_scatter_bitwise(torch, how, dim, seed):
    """Several blocks of rows (more than the kernel's block of index elements), duplicates included."""
    rng = np.random.default_rng(seed)
    n, m = 700, 600      # 420,000 index elements: two blocks
    a = rng.standard_normal((n, m)).astype(np.float32)
    src = rng.standard_normal((n, m)).astype(np.float32)
    idx = rng.integers(0, (n, m)[dim], (n, m))
    outs = []
    for lib in (core, torch):
        y = lib.tensor(a.copy())
        getattr(y, how)(dim, lib.tensor(idx), lib.tensor(src))
        outs.append(y)
    _same(*outs)


@pytest.mark.parametrize("bad", [-1, 10 ** 6])
@pytest.mark.parametrize("how", ["scatter_", "scatter_add_"])
def test_blocked_scatter_error_in_second_block(torch, how, bad):
    """An index out of range in a later block: the same error, and the elements before it written."""
    rng = np.random.default_rng(7)
    n, m = 700, 600
    a = rng.standard_normal((n, m)).astype(np.float32)
    src = rng.standard_normal((n, m)).astype(np.float32)
    idx = rng.integers(0, m, (n, m))
    idx[650, 17] = bad
    outs = []
    for lib in (core, torch):
        y = lib.tensor(a.copy())
        with pytest.raises(RuntimeError, match="out of bounds") as e:
            getattr(y, how)(1, lib.tensor(idx), lib.tensor(src))
        outs.append((y, str(e.value)))
    assert outs[0][1] == outs[1][1]
    np.testing.assert_array_equal(outs[0][0].numpy()[:650], outs[1][0].numpy()[:650])


@pytest.mark.parametrize("op", ["add", "sub", "mul"])
@pytest.mark.parametrize("other", ["same", "number", "row"])
@pytest.mark.parametrize("grad", [False, True])
def test_binary_keeps_layout_of_permuted_input(torch, op, other, grad):
    """Elementwise results keep a dense input's strides (no-graph fast path and recorded path alike)."""
    res = []
    for lib in (core, torch):
        x = lib.arange(18.0).reshape(3, 3, 2).permute(2, 1, 0)
        if grad:
            x = x.detach().requires_grad_()
        y = {"same": x, "number": 2.0, "row": lib.arange(3.0)}[other]
        if op != "mul" and other == "number":
            r = getattr(lib, op)(x, lib.tensor(2.0))
        else:
            r = getattr(lib, op)(x, y)
        res.append(r)
    _same(*res)
