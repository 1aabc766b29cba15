"""torch.func (grad, grad_and_value, vjp, jacrev, jacfwd, hessian, vmap, functional_call): core and torch
side by side on the same programs (values, dtypes, shapes, grad_fn presence, errors and their texts)."""
from __future__ import annotations

import pytest

import core


def _describe(x):
    """A comparable view of a result: tensors as (dtype, shape, values, requires_grad), containers walked."""
    if isinstance(x, (tuple, list)):
        return type(x).__name__, [_describe(i) for i in x]
    if isinstance(x, dict):
        return {k: _describe(v) for k, v in x.items()}
    if hasattr(x, "detach") and hasattr(x, "tolist"):
        return str(x.dtype), tuple(x.shape), x.detach().tolist(), x.requires_grad
    return x


def _run(fn):
    try:
        return "ok", _describe(fn())
    except Exception as e:  # noqa: BLE001 - class and text are compared
        return type(e).__name__, str(e)


def _close(c, t):
    """Equal structure and exact metadata; floats to float32 rounding (core's and torch's kernels may
    round a last bit differently)."""
    if isinstance(c, (tuple, list)) and isinstance(t, (tuple, list)):
        assert len(c) == len(t), (c, t)
        for a, b in zip(c, t):
            _close(a, b)
    elif isinstance(c, dict) and isinstance(t, dict):
        assert c.keys() == t.keys()
        for k in c:
            _close(c[k], t[k])
    elif isinstance(c, float) and isinstance(t, float):
        assert c == pytest.approx(t, rel=1e-5, abs=1e-6, nan_ok=True)
    else:
        assert c == t


X = [1., 2., 3.]
CASES = {
    "grad": lambda m, F: F.grad(lambda x: x.sin().sum())(m.tensor(X)),
    "grad_vector_output": lambda m, F: F.grad(lambda x: x.sin())(m.tensor(X)),
    "grad_not_tensor": lambda m, F: F.grad(lambda x: 3.0)(m.tensor(X)),
    "grad_argnums": lambda m, F: F.grad(lambda x, y: (x * y).sum(), argnums=(0, 1))(m.tensor(X), m.tensor(X) * 2),
    "grad_argnum_range": lambda m, F: F.grad(lambda x, y: (x * y).sum(), argnums=2)(m.tensor(X), m.tensor(X)),
    "grad_negative_argnum": lambda m, F: F.grad(lambda x, y: (x * y.exp()).sum(), argnums=-1)(m.tensor(X), m.tensor(X)),
    "grad_has_aux": lambda m, F: F.grad(lambda x: (x.sum(), x.cos()), has_aux=True)(m.tensor(X)),
    "grad_has_aux_bad": lambda m, F: F.grad(lambda x: x.sum(), has_aux=True)(m.tensor(X)),
    "grad_of_grad": lambda m, F: F.grad(F.grad(lambda x: x.sin()))(m.tensor(1.)),
    "grad_and_value": lambda m, F: F.grad_and_value(lambda x: x.pow(2).sum())(m.tensor(X)),
    "grad_and_value_aux": lambda m, F: F.grad_and_value(lambda x: (x.pow(2).sum(), {"n": x.norm()}),
                                                        has_aux=True)(m.tensor(X)),
    "grad_unused": lambda m, F: F.grad(lambda x: m.tensor(2.))(m.tensor(X)),
    "grad_dict": lambda m, F: F.grad(lambda d: (d["a"] * d["b"]).sum())({"a": m.tensor(X), "b": m.tensor(X) + 1}),
    "grad_int": lambda m, F: F.grad(lambda x: x.sum())(m.tensor([1, 2])),
    "grad_float64": lambda m, F: F.grad(lambda x: (x ** 3).mean())(m.tensor(X, dtype=m.float64)),
    "grad_under_no_grad": lambda m, F: _no_grad(m, lambda: F.grad(lambda x: (x * x).sum())(m.tensor(X))),
    "vjp": lambda m, F: (lambda o: (o[0], o[1](m.ones(3))))(F.vjp(lambda x: x.sin(), m.tensor(X))),
    "vjp_two": lambda m, F: F.vjp(lambda x, y: x * y, m.tensor(X), m.tensor(X) + 1)[1](m.tensor([1., -1., 2.])),
    "vjp_aux": lambda m, F: (lambda o: (o[0], o[1](m.ones(())), o[2]))(
        F.vjp(lambda x: (x.sum(), x * 2), m.tensor(X), has_aux=True)),
    "vjp_tuple_out": lambda m, F: F.vjp(lambda x: (x.sin(), x.cos().sum()), m.tensor(X))[1]((m.ones(3), m.tensor(2.))),
    "jacrev": lambda m, F: F.jacrev(lambda x: x.sin())(m.tensor(X)),
    "jacrev_matrix": lambda m, F: F.jacrev(lambda x: x @ x.t())(m.arange(6.).reshape(2, 3)),
    "jacrev_argnums": lambda m, F: F.jacrev(lambda x, y: (x * y, x + y), argnums=(0, 1))(m.tensor(X), m.tensor(X)),
    "jacrev_scalar": lambda m, F: F.jacrev(lambda x: x.pow(2).sum())(m.tensor(X)),
    "jacrev_aux": lambda m, F: F.jacrev(lambda x: (x.exp(), x.sum()), has_aux=True)(m.tensor(X)),
    "jacfwd": lambda m, F: F.jacfwd(lambda x: x.exp() * 2)(m.tensor(X)),
    "jacfwd_argnums": lambda m, F: F.jacfwd(lambda x, y: x * y.sin(), argnums=1)(m.tensor(X), m.tensor(X)),
    "hessian": lambda m, F: F.hessian(lambda x: x.pow(3).sum())(m.tensor(X)),
    "hessian_cross": lambda m, F: F.hessian(lambda x: (x[0] * x[1].exp() + x.sin().prod()))(m.tensor(X)),
    "jvp": lambda m, F: F.jvp(lambda v: v.sin() * v, (m.tensor(X),), (m.ones(3),)),
    "jvp_two": lambda m, F: F.jvp(lambda a, b: (a * b, (a + b).sum()), (m.tensor(X), m.tensor(X) * 2),
                                  (m.ones(3), m.tensor([1., 0., -1.]))),
    "jvp_aux": lambda m, F: F.jvp(lambda v: (v.exp(), v.sum()), (m.tensor(X),), (m.ones(3),), has_aux=True),
    "jvp_not_tuple": lambda m, F: F.jvp(lambda v: v, m.tensor(X), (m.ones(3),)),
    "jvp_constant": lambda m, F: F.jvp(lambda v: m.ones(2), (m.tensor(X),), (m.ones(3),)),
    "functionalize": lambda m, F: F.functionalize(lambda v: v.mul_(2) + 1)(m.tensor(X)),
    "vmap_dot": lambda m, F: F.vmap(m.dot)(m.ones(2, 3), m.arange(6.).reshape(2, 3)),
    "vmap_in_dims_none": lambda m, F: F.vmap(lambda a, b: a * b, in_dims=(0, None))(m.arange(6.).reshape(2, 3),
                                                                                    m.tensor(X)),
    "vmap_in_dim_1": lambda m, F: F.vmap(lambda a: a.sum(0), in_dims=1)(m.arange(6.).reshape(2, 3)),
    "vmap_negative_dim": lambda m, F: F.vmap(lambda a: a * 2, in_dims=-1, out_dims=-1)(m.arange(6.).reshape(2, 3)),
    "vmap_out_dims": lambda m, F: F.vmap(lambda a: (a, a * 2), out_dims=(0, 1))(m.arange(6.).reshape(2, 3)),
    "vmap_sizes": lambda m, F: F.vmap(lambda a, b: a + b)(m.ones(2, 3), m.ones(3, 3)),
    "vmap_nothing_batched": lambda m, F: F.vmap(lambda a: a, in_dims=(None,))(m.ones(2)),
    "vmap_float_out": lambda m, F: F.vmap(lambda a: 1.0)(m.ones(2)),
    "vmap_random_error": lambda m, F: F.vmap(lambda a: a + m.rand(1))(m.ones(2)),
    "vmap_bad_in_dim": lambda m, F: F.vmap(lambda a: a, in_dims=5)(m.ones(2)),
    "vmap_in_dims_structure": lambda m, F: F.vmap(lambda a, b: a, in_dims=(0,))(m.ones(2), m.ones(2)),
    "vmap_nested": lambda m, F: F.vmap(F.vmap(m.dot))(m.ones(2, 4, 3), m.arange(24.).reshape(2, 4, 3)),
    "vmap_dict_input": lambda m, F: F.vmap(lambda d: d["a"] - d["b"])({"a": m.ones(2, 2), "b": m.arange(4.).reshape(2, 2)}),
    "vmap_kwargs": lambda m, F: F.vmap(lambda a, scale=1.0: a * scale)(m.ones(2, 2), scale=3.0),
    "vmap_per_sample_grad": lambda m, F: F.vmap(F.grad(lambda w, xx: (w * xx).sin().sum()), in_dims=(None, 0))(
        m.tensor(X), m.arange(6.).reshape(2, 3)),
    "vmap_jacrev": lambda m, F: F.vmap(F.jacrev(lambda x: x.sin() * x.sum()))(m.arange(6.).reshape(2, 3)),
}


def _no_grad(m, fn):
    with m.no_grad():
        return fn()


@pytest.mark.parametrize("case", sorted(CASES))
def test_func_as_torch(torch, case):
    import torch.func as tfunc
    c = _run(lambda: CASES[case](core, core.func))
    t = _run(lambda: CASES[case](torch, tfunc))
    assert c[0] == t[0], (c, t)
    if c[0] == "ok":
        _close(c[1], t[1])
    else:
        assert c[1] == t[1]


@pytest.mark.parametrize("randomness", ["same", "different"])
def test_vmap_randomness_as_torch(torch, randomness):
    import torch.func as tfunc

    def run(m, F):
        m.manual_seed(0)
        out = F.vmap(lambda a: a + m.rand(3), randomness=randomness)(m.ones(4, 3))
        return out.tolist(), m.rand(2).tolist()
    assert run(core, core.func) == run(torch, tfunc)


def test_vmap_random_error_leaves_the_generator_as_torch(torch):
    import torch.func as tfunc

    def run(m, F):
        m.manual_seed(0)
        _run(lambda: F.vmap(lambda a: a + m.rand(1))(m.ones(2)))
        return m.rand(3).tolist()
    assert run(core, core.func) == run(torch, tfunc)


def test_transforms_compose_with_outer_autograd(torch):
    """An input that requires grad: the transform's result keeps its graph and backward reaches the input."""
    import torch.func as tfunc

    def run(m, F):
        x = m.tensor(X, requires_grad=True)
        g = F.grad(lambda v: (v.sin() * v).sum())(x)
        g.sum().backward()
        j = F.jacrev(lambda v: v.exp())(x * 1)
        return g.detach().tolist(), g.requires_grad, x.grad.tolist(), j.requires_grad
    c, t = run(core, core.func), run(torch, tfunc)
    _close(list(c), list(t))


def _model(m):
    m.manual_seed(0)
    net = m.nn.Sequential(m.nn.Linear(3, 4), m.nn.BatchNorm1d(4), m.nn.ReLU(), m.nn.Linear(4, 2))
    return net


FC_CASES = {
    "dict": lambda m, net, p, x: m.func.functional_call(net, p, (x,)),
    "single_arg": lambda m, net, p, x: m.func.functional_call(net, p, x),
    "tuple_of_dicts": lambda m, net, p, x: m.func.functional_call(
        net, ({k: v for k, v in p.items() if "weight" in k}, {k: v for k, v in p.items() if "weight" not in k}), (x,)),
    "strict_missing": lambda m, net, p, x: m.func.functional_call(net, {"0.weight": p["0.weight"]}, (x,), strict=True),
    "strict_unexpected": lambda m, net, p, x: m.func.functional_call(net, {**p, "foo": x}, (x,), strict=True),
    "duplicate": lambda m, net, p, x: m.func.functional_call(net, (p, {"0.weight": p["0.weight"]}), (x,)),
    "partial": lambda m, net, p, x: m.func.functional_call(net, {"3.bias": p["3.bias"]}, (x,)),
    "kwargs": lambda m, net, p, x: m.func.functional_call(net[0], {"weight": p["0.weight"]}, (), {"input": x}),
    "grad_through": lambda m, net, p, x: m.func.grad(lambda q: m.func.functional_call(net, q, (x,)).pow(2).sum())(p),
}


@pytest.mark.parametrize("case", sorted(FC_CASES))
def test_functional_call_as_torch(torch, case):
    def run(m):
        net = _model(m)
        p = {k: v.detach() * 2 for k, v in list(net.named_parameters()) + list(net.named_buffers())}
        p["1.num_batches_tracked"] = net[1].num_batches_tracked.clone()
        x = m.arange(6.).reshape(2, 3) / 5
        out = _run(lambda: FC_CASES[case](m, net, p, x))
        after = [v.tolist() for v in net.state_dict().values()]   # originals restored (buffers kept updated)
        return out, after
    (c, c_after), (t, t_after) = run(core), run(torch)
    assert c[0] == t[0], (c, t)
    if c[0] == "ok":
        _close(c[1], t[1])
    else:
        assert c[1] == t[1]
    _close(c_after, t_after)


def test_functional_call_tied_weights_as_torch(torch):
    def run(m):
        m.manual_seed(0)
        net = m.nn.Sequential(m.nn.Linear(2, 2, bias=False), m.nn.Linear(2, 2, bias=False))
        net[1].weight = net[0].weight
        w = m.ones(2, 2)
        x = m.tensor([[1., 2.]])
        return [_run(lambda: m.func.functional_call(net, {"0.weight": w}, (x,))),
                _run(lambda: m.func.functional_call(net, {"0.weight": w}, (x,), tie_weights=False)),
                _run(lambda: m.func.functional_call(net, {"0.weight": w, "1.weight": w * 2}, (x,))),
                _run(lambda: m.func.functional_call(net, {"0.weight": w, "1.weight": w * 2}, (x,),
                                                    tie_weights=False))]
    assert run(core) == run(torch)


def test_model_ensembling_as_torch(torch):
    """torch.func's ensembling recipe: stack_module_state, then vmap over functional_call."""
    import torch.func as tfunc

    def run(m, F):
        m.manual_seed(0)
        models = [m.nn.Linear(3, 2) for _ in range(4)]
        params, buffers = F.stack_module_state(models)
        base = m.nn.Linear(3, 2)
        out = F.vmap(lambda p, b, x: F.functional_call(base, (p, b), (x,)), in_dims=(0, 0, None))(
            params, buffers, m.arange(15.).reshape(5, 3))
        out.sum().backward()
        return ({k: (tuple(v.shape), v.is_leaf, v.requires_grad) for k, v in params.items()}, buffers,
                _describe(out), params["weight"].grad.tolist(),
                [_run(lambda ms=ms: F.stack_module_state(ms)) for ms in
                 ([], [m.nn.Linear(1, 1), m.nn.ReLU()], [m.nn.Linear(1, 1), m.nn.Linear(1, 1).eval()])])
    c, t = run(core, core.func), run(torch, tfunc)
    _close(list(c), list(t))
