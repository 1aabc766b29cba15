"""Autograd engine: backward semantics, accumulation, hooks, retain_graph, create_graph,
autograd.grad, custom Functions and version-counter checks, each compared with PyTorch."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import core
from tests.conftest import assert_same, same_error


def both(torch, fn):
    """Run fn(lib) on core and torch; return both results."""
    return fn(core), fn(torch)


def test_backward_with_gradient_weights_non_scalar_output(torch):
    def run(lib):
        x = lib.ones(3, requires_grad=True)
        y = 2 * x ** 2
        y.backward(lib.tensor([0.1, 1.0, 0.0001], dtype=lib.float))
        return x.grad
    c, t = both(torch, run)
    assert_same(c, t)
    np.testing.assert_allclose(c.numpy(), [0.4, 4.0, 0.0004], rtol=1e-6)


def test_scalar_backward_needs_no_gradient(torch):
    def run(lib):
        x = lib.ones(1, requires_grad=True)
        y = 2 * x ** 2
        y.backward(lib.tensor([0.1], dtype=lib.float))
        return x.grad
    c, t = both(torch, run)
    assert_same(c, t)


def test_non_scalar_backward_without_gradient_raises_runtime_error(torch):
    ec, et = same_error(lambda: (core.ones(3, requires_grad=True) * 2).backward(),
                        lambda: (torch.ones(3, requires_grad=True) * 2).backward())
    assert str(ec) == str(et) == "grad can be implicitly created only for scalar outputs"


def test_backward_on_tensor_without_grad_raises(torch):
    ec, et = same_error(lambda: core.ones(2).sum().backward(), lambda: torch.ones(2).sum().backward())
    assert str(ec) == str(et)


def test_gradient_shape_mismatch_raises(torch):
    ec, et = same_error(lambda: (core.ones(3, requires_grad=True) * 2).backward(core.ones(2)),
                        lambda: (torch.ones(3, requires_grad=True) * 2).backward(torch.ones(2)))
    assert str(ec) == str(et)


def test_gradients_accumulate_across_backward_calls(torch):
    def run(lib):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        (x * x).sum().backward()
        (x * 3).sum().backward()
        return x.grad
    c, t = both(torch, run)
    assert_same(c, t)


def test_tensor_used_twice_gets_both_contributions(torch):
    def run(lib):
        x = lib.tensor([1.0, -2.0, 3.0], requires_grad=True)
        y = x * x + x.sin() * x
        y.sum().backward()
        return x.grad
    c, t = both(torch, run)
    assert_same(c, t)


def test_broadcast_gradients_reduce_to_input_shape(torch):
    def run(lib):
        a = lib.tensor([[1.0], [2.0]], requires_grad=True)
        b = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
        (a * b + b).sum().backward()
        return a.grad, b.grad
    (ca, cb), (ta, tb) = both(torch, run)
    assert_same(ca, ta)
    assert_same(cb, tb)


def test_seed_hook_example_prints_gradient_and_non_leaf_grad_is_none(torch, capsys):
    def run(lib):
        x = lib.Tensor([0, 1, 2, 3]).requires_grad_()
        y = lib.Tensor([4, 5, 6, 7]).requires_grad_()
        w = lib.Tensor([1, 2, 3, 4]).requires_grad_()
        z = x + y
        seen = []
        z.register_hook(lambda g: seen.append(g.tolist()))
        o = w.matmul(z)
        o.backward()
        with warnings.catch_warnings(record=True) as rec:
            warnings.simplefilter("always")
            zg = z.grad
        return seen, x.grad.tolist(), y.grad.tolist(), w.grad.tolist(), zg, [str(r.message)[:60] for r in rec]
    c, t = both(torch, run)
    assert c == t
    assert c[0] == [[1.0, 2.0, 3.0, 4.0]]
    assert c[4] is None and len(c[5]) == 1


def test_hook_return_value_replaces_gradient(torch):
    def run(lib):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        y = x * 2
        y.register_hook(lambda g: g * 10)
        y.sum().backward()
        return x.grad
    c, t = both(torch, run)
    assert_same(c, t)


def test_leaf_hook_sees_and_can_replace_gradient(torch):
    def run(lib):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        seen = []
        x.register_hook(lambda g: seen.append(g.tolist()) or g + 1)
        (x * 3).sum().backward()
        return seen, x.grad.tolist()
    assert both(torch, run)[0] == both(torch, run)[1]


def test_removed_hook_is_not_called(torch):
    def run(lib):
        x = lib.tensor([1.0], requires_grad=True)
        seen = []
        h = x.register_hook(lambda g: seen.append(1))
        h.remove()
        (x * 2).sum().backward()
        return seen
    c, t = both(torch, run)
    assert c == t == []


def test_register_hook_on_tensor_without_grad_raises(torch):
    same_error(lambda: core.ones(2).register_hook(lambda g: g), lambda: torch.ones(2).register_hook(lambda g: g))


def test_retain_grad_keeps_non_leaf_gradient(torch):
    def run(lib):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        z = x * 3
        z.retain_grad()
        (z * z).sum().backward()
        return z.grad, z.retains_grad
    (cg, cr), (tg, tr) = both(torch, run)
    assert_same(cg, tg)
    assert cr == tr is True


def test_second_backward_without_retain_graph_raises_with_hint(torch):
    def run(lib):
        x = lib.randn((1, 4), dtype=lib.float32, requires_grad=True)
        y = x ** 2
        z = y * 4
        o1, o2 = z.mean(), z.sum()
        o1.backward()
        o2.backward()
    ec, et = same_error(lambda: run(core), lambda: run(torch))
    assert isinstance(ec, RuntimeError)
    assert "retain_graph=True" in str(ec) and str(ec) == str(et)


def test_retain_graph_allows_second_backward(torch):
    def run(lib):
        x = lib.tensor([[1.0, -1.0, 2.0, 0.5]], requires_grad=True)
        z = (x ** 2) * 4
        z.mean().backward(retain_graph=True)
        z.sum().backward()
        return x.grad
    c, t = both(torch, run)
    assert_same(c, t)


def test_graph_without_saved_tensors_allows_second_backward(torch):
    def run(lib):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        y = (x + 1).sum()
        y.backward()
        y.backward()
        return x.grad
    c, t = both(torch, run)
    assert_same(c, t)


def test_create_graph_gives_second_derivative(torch):
    def run(lib):
        x = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
        y = (x ** 3).sum()
        (g,) = lib.autograd.grad(y, x, create_graph=True)
        (g2,) = lib.autograd.grad(g.sum(), x)
        return g, g2
    (cg, cg2), (tg, tg2) = both(torch, run)
    assert_same(cg.detach(), tg.detach())
    assert_same(cg2, tg2)


def test_backward_create_graph_makes_grad_differentiable(torch):
    def run(lib):
        x = lib.tensor([0.5, -1.5], requires_grad=True)
        y = (x.sin() * x).sum()
        y.backward(create_graph=True)
        g = x.grad
        x.grad = None
        g.sum().backward()
        return x.grad
    c, t = both(torch, run)
    assert_same(c, t, atol=1e-6)


def test_autograd_grad_does_not_touch_dot_grad(torch):
    def run(lib):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        (g,) = lib.autograd.grad((x * x).sum(), x)
        return g, x.grad
    (cg, cx), (tg, tx) = both(torch, run)
    assert_same(cg, tg)
    assert cx is None and tx is None


def test_autograd_grad_of_non_leaf(torch):
    def run(lib):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        h = x * 2
        (g,) = lib.autograd.grad((h * h).sum(), h)
        return g
    c, t = both(torch, run)
    assert_same(c, t)


def test_autograd_grad_unused_input_raises_unless_allowed(torch):
    def run(lib, allow):
        x = lib.tensor([1.0], requires_grad=True)
        w = lib.tensor([1.0], requires_grad=True)
        return lib.autograd.grad((x * 2).sum(), [x, w], allow_unused=allow)
    same_error(lambda: run(core, False), lambda: run(torch, False))
    c, t = run(core, True), run(torch, True)
    assert c[1] is None and t[1] is None


def test_backward_inputs_argument_limits_accumulation(torch):
    def run(lib):
        x = lib.tensor([1.0], requires_grad=True)
        w = lib.tensor([2.0], requires_grad=True)
        (x * w).sum().backward(inputs=[x])
        return x.grad, w.grad
    (cx, cw), (tx, tw) = both(torch, run)
    assert_same(cx, tx)
    assert cw is None and tw is None


class _MultiplyAddSeed:
    """The seed's MultiplyAdd Function, built for a given library."""

    @staticmethod
    def make(lib):
        class MultiplyAdd(lib.autograd.Function):
            @staticmethod
            def forward(ctx, w, x, b):
                ctx.save_for_backward(w, x)
                return w * x + b

            @staticmethod
            def backward(ctx, grad_output):
                w, x = ctx.saved_tensors
                return grad_output * x, grad_output * w, grad_output * 1
        return MultiplyAdd


def test_custom_function_seed_multiply_add(torch):
    def run(lib):
        MultiplyAdd = _MultiplyAddSeed.make(lib)
        x = lib.ones(1)
        w = lib.tensor([0.3], requires_grad=True)
        b = lib.tensor([0.6], requires_grad=True)
        z = MultiplyAdd.apply(w, x, b)
        z.backward()
        return x.grad, w.grad, b.grad, z.grad_fn.name()
    c, t = both(torch, run)
    assert c[0] is None and t[0] is None
    assert_same(c[1], t[1])
    assert_same(c[2], t[2])
    assert c[3] == t[3] == "MultiplyAddBackward"


def test_custom_function_needs_input_grad_and_ctx_attributes(torch):
    def run(lib):
        class Scale(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x, k, y):
                ctx.k = k
                ctx.flags = ctx.needs_input_grad
                return x * k + y

            @staticmethod
            def backward(ctx, g):
                return g * ctx.k, None, None
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        y = lib.tensor([1.0, 1.0])
        out = Scale.apply(x, 3.0, y)
        out.sum().backward()
        return x.grad, out.grad_fn.flags if hasattr(out.grad_fn, "flags") else None
    (cg, cf), (tg, tf) = both(torch, run)
    assert_same(cg, tg)
    assert cf == tf == (True, False, False)


def test_custom_function_wrong_number_of_grads_raises(torch):
    def run(lib):
        class Bad(lib.autograd.Function):
            @staticmethod
            def forward(ctx, a, b):
                return a * b

            @staticmethod
            def backward(ctx, g):
                return g
        a = lib.ones(1, requires_grad=True)
        Bad.apply(a, lib.ones(1, requires_grad=True)).sum().backward()
    ec, et = same_error(lambda: run(core), lambda: run(torch))
    assert str(ec) == str(et)


def test_inplace_on_leaf_requiring_grad_raises(torch):
    ec, et = same_error(lambda: core.ones(2, requires_grad=True).add_(1),
                        lambda: torch.ones(2, requires_grad=True).add_(1))
    assert str(ec) == str(et)


def test_inplace_on_leaf_allowed_under_no_grad(torch):
    def run(lib):
        p = lib.ones(2, requires_grad=True)
        with lib.no_grad():
            p.add_(1.0)
        return p, p.requires_grad, p.is_leaf
    (c, cr, cl), (t, tr, tl) = both(torch, run)
    assert_same(c.detach(), t.detach())
    assert (cr, cl) == (tr, tl)


def test_modifying_saved_tensor_makes_backward_raise(torch):
    def run(lib):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        y = x.sigmoid()
        y.mul_(2)
        y.sum().backward()
    ec, et = same_error(lambda: run(core), lambda: run(torch))
    assert isinstance(ec, RuntimeError)
    assert "modified by an inplace operation" in str(ec)


def test_inplace_on_non_leaf_records_graph(torch):
    def run(lib):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        y = x * 3
        y.add_(x)
        y.mul_(2)
        y.sum().backward()
        return x.grad, y.grad_fn.name(), y._version
    (cg, cn, cv), (tg, tn, tv) = both(torch, run)
    assert_same(cg, tg)
    assert cn == tn and cv == tv


def test_version_counter_counts_inplace_ops(torch):
    def run(lib):
        x = lib.zeros(3)
        v0 = x._version
        x.add_(1)
        x.zero_()
        x.fill_(2)
        return v0, x._version
    assert both(torch, run)[0] == both(torch, run)[1]


def test_detach_shares_storage_and_leaves_graph(torch):
    def run(lib):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        d = (x * 2).detach()
        d2 = x.detach()
        d2.mul_(5)
        return d.requires_grad, d.is_leaf, d.grad_fn, x.detach().tolist()
    c, t = both(torch, run)
    assert c == t


def test_detach_inplace_cuts_graph(torch):
    def run(lib):
        x = lib.tensor([1.0], requires_grad=True)
        y = x * 2
        y.detach_()
        return y.requires_grad, y.is_leaf, y.grad_fn
    assert both(torch, run)[0] == both(torch, run)[1]


def test_requires_grad_on_integer_tensor_raises(torch):
    ec, et = same_error(lambda: core.tensor([1, 2]).requires_grad_(), lambda: torch.tensor([1, 2]).requires_grad_())
    assert str(ec) == str(et)


def test_setting_requires_grad_false_on_non_leaf_raises(torch):
    def run(lib):
        y = lib.ones(1, requires_grad=True) * 2
        y.requires_grad = False
    same_error(lambda: run(core), lambda: run(torch))


def test_is_leaf_and_grad_fn_names(torch):
    def run(lib):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        y = x * 2
        z = y + 1
        s = z.sum()
        return (x.is_leaf, y.is_leaf, y.grad_fn.name(), z.grad_fn.name(), s.grad_fn.name(),
                type(s.grad_fn.next_functions[0][0]).__name__,
                type(y.grad_fn.next_functions[0][0]).__name__)
    c, t = both(torch, run)
    assert c == t


def test_accumulate_grad_node_holds_variable(torch):
    x = core.tensor([1.0], requires_grad=True)
    y = x * 2
    acc = y.grad_fn.next_functions[0][0]
    tx = torch.tensor([1.0], requires_grad=True)
    tacc = (tx * 2).grad_fn.next_functions[0][0]
    assert (acc.name(), type(acc).__name__) == (tacc.name(), type(tacc).__name__)
    assert acc.variable is x


def test_numpy_on_tensor_requiring_grad_raises(torch):
    ec, et = same_error(lambda: core.ones(2, requires_grad=True).numpy(),
                        lambda: torch.ones(2, requires_grad=True).numpy())
    assert str(ec) == str(et)


def test_to_dtype_is_differentiable(torch):
    def run(lib):
        x = lib.tensor([1.5, 2.5], requires_grad=True)
        y = x.double() * 2
        y.sum().backward()
        return x.grad, y.grad_fn.next_functions[0][0].name()
    (cg, cn), (tg, tn) = both(torch, run)
    assert_same(cg, tg)
    assert cn == tn


def test_clone_keeps_graph(torch):
    def run(lib):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        c = x.clone()
        (c * c).sum().backward()
        return x.grad, c.grad_fn.name()
    (cg, cn), (tg, tn) = both(torch, run)
    assert_same(cg, tg)
    assert cn == tn


def test_repr_suffixes_match_torch(torch):
    def run(lib):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        return repr(x), repr(x * 2), repr((x * 2).sum())
    assert both(torch, run)[0] == both(torch, run)[1]


def test_max_ties_split_gradient_evenly(torch):
    def run(lib):
        x = lib.tensor([1.0, 3.0, 3.0], requires_grad=True)
        x.max().backward()
        return x.grad
    c, t = both(torch, run)
    assert_same(c, t)


def test_autograd_backward_function_with_multiple_roots(torch):
    def run(lib):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        a, b = x * 2, x * x
        lib.autograd.backward([a.sum(), b.sum()])
        return x.grad
    c, t = both(torch, run)
    assert_same(c, t)


def test_hooks_and_retain_grad_see_tensors_after_numpy_backward_nodes(torch):
    """Gradients travel as bare arrays between NumPy backward formulas; hooks, retain_grad and
    autograd.grad must still receive tensors with torch's values."""
    def run(lib):
        x = lib.tensor([1.0, -2.0, 3.0], requires_grad=True)
        y = x * 2            # MulBackward0
        y.retain_grad()
        seen = []
        y.register_hook(lambda g: seen.append((type(g).__name__, g.tolist())))
        z = (y.relu() + y).sum()      # ReluBackward0, AddBackward0, SumBackward0
        z.backward(retain_graph=True)
        (gy,) = lib.autograd.grad(z, y)
        return seen, y.grad.tolist(), gy.tolist(), x.grad.tolist()
    c, t = both(torch, run)
    assert c == t


def test_gradient_reaching_a_node_twice_is_summed_with_numpy_paths(torch):
    def run(lib):
        x = lib.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
        s = x.sum()
        out = s * s + s.exp() + x.mean()     # s used three times
        out.backward()
        return x.grad
    c, t = both(torch, run)
    assert_same(c, t)


def test_leaf_grads_never_alias_each_other_or_the_given_gradient(torch):
    # AccumulateGrad takes over a gradient only when nothing else references it (PyTorch's
    # use_count rule): add's backward hands the same gradient to both leaves, and the user's
    # gradient tensor stays the user's.
    import numpy as np
    a = core.ones(3, requires_grad=True)
    b = core.ones(3, requires_grad=True)
    g = core.tensor([1.0, 2.0, 3.0])
    (a + b).backward(g)
    assert not np.shares_memory(a.grad._data, b.grad._data)
    assert not np.shares_memory(a.grad._data, g._data)
    a.grad.add_(1)
    assert b.grad.tolist() == g.tolist() == [1.0, 2.0, 3.0]


def test_second_backward_accumulates_into_a_taken_over_gradient():
    w = core.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    x = core.tensor([[1.0, 1.0]])
    (x @ w).sum().backward()
    first = w.grad
    (x @ w).sum().backward()
    assert w.grad is first and w.grad.tolist() == [[2.0, 2.0], [2.0, 2.0]]


def test_grad_of_outputs_where_one_root_reaches_the_other(torch):
    # y and y.t() are both roots, and y.t()'s node leads to y's: each node must be counted once
    for L in (core, torch):
        x = L.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
        y = x.exp()
        (g,) = L.autograd.grad([y, y.t()], [x], [L.ones(2, 2), L.ones(2, 2)])
        assert g is not None
    np.testing.assert_allclose(g.detach().numpy(), 2 * np.exp([[1.0, 2.0], [3.0, 4.0]]), rtol=1e-6)
