"""torch.autograd.functional (jacobian, hessian, vjp, jvp, hvp, vhp) and the profilers, core vs torch."""
from __future__ import annotations

import numpy as np
import pytest

import core
import core.autograd.functional as cF
import core.autograd.profiler as cprof
import core.profiler
from tests.conftest import assert_same, same_error


def _cases(m):
    x = m.tensor([1.0, 2.0, 3.0], dtype=m.float64)
    y = m.tensor([[0.5, -1.0], [2.0, 0.25]], dtype=m.float64)
    return x, y


FUNCS = {
    "sin_sq": (lambda m: lambda a: (a ** 2).sin(), "x"),
    "two_in": (lambda m: lambda a, b: (a.sum() * b).exp(), "xy"),
    "two_out": (lambda m: lambda a: (a * 2, a.sum()), "x"),
    "matvec": (lambda m: lambda a, b: b @ a[:2], "xy"),
    "indep": (lambda m: lambda a, b: a * 3, "xy"),
}
SCALAR = {
    "cubic": (lambda m: lambda a: (a ** 3).sum() + a.prod(), "x"),
    "pair": (lambda m: lambda a, b: (a.sum() * b).sum() ** 2, "xy"),
    "tanh": (lambda m: lambda a: a.tanh().pow(2).mean(), "x"),
}


def _inputs(m, which):
    x, y = _cases(m)
    return x if which == "x" else (x, y)


def _compare(c, t):
    if isinstance(t, (tuple, list)):
        assert isinstance(c, tuple) and len(c) == len(t)
        for a, b in zip(c, t):
            _compare(a, b)
    else:
        assert_same(c, t, rtol=1e-10, atol=1e-12)
        assert c.requires_grad == t.requires_grad


def _run(torch, fn_name, make, which, *args, **kw):
    import torch.autograd.functional as tF
    c = getattr(cF, fn_name)(make(core), _inputs(core, which), *args, **kw)
    t = getattr(tF, fn_name)(make(torch), _inputs(torch, which), *args, **kw)
    _compare(c, t)


@pytest.mark.parametrize("name", FUNCS)
@pytest.mark.parametrize("kw", [{}, {"create_graph": True}, {"vectorize": True}])
def test_jacobian(torch, name, kw):
    _run(torch, "jacobian", *FUNCS[name], **kw)


@pytest.mark.parametrize("name", SCALAR)
@pytest.mark.parametrize("kw", [{}, {"create_graph": True}, {"vectorize": True}])
def test_hessian(torch, name, kw):
    _run(torch, "hessian", *SCALAR[name], **kw)


def _v(m, which):
    vx, vy = m.linspace(-1, 1, 3, dtype=m.float64), m.tensor([[1.0, 2.0], [0.5, -0.5]], dtype=m.float64)
    return vx if which == "x" else (vx, vy)


@pytest.mark.parametrize("fn_name", ["hvp", "vhp"])
@pytest.mark.parametrize("name", SCALAR)
@pytest.mark.parametrize("create_graph", [False, True])
def test_hvp_vhp(torch, fn_name, name, create_graph):
    make, which = SCALAR[name]
    import torch.autograd.functional as tF
    c = getattr(cF, fn_name)(make(core), _inputs(core, which), _v(core, which), create_graph=create_graph)
    t = getattr(tF, fn_name)(make(torch), _inputs(torch, which), _v(torch, which), create_graph=create_graph)
    _compare(c, t)


@pytest.mark.parametrize("create_graph", [False, True])
def test_vjp_jvp(torch, create_graph):
    import torch.autograd.functional as tF
    f = FUNCS["sin_sq"][0]
    for fn_name in ("vjp", "jvp"):
        c = getattr(cF, fn_name)(f(core), _inputs(core, "x"), _v(core, "x"), create_graph=create_graph)
        t = getattr(tF, fn_name)(f(torch), _inputs(torch, "x"), _v(torch, "x"), create_graph=create_graph)
        _compare(c, t)
    g = FUNCS["two_in"][0]
    c = cF.jvp(g(core), _inputs(core, "xy"), _v(core, "xy"))
    t = tF.jvp(g(torch), _inputs(torch, "xy"), _v(torch, "xy"))
    _compare(c, t)
    c = cF.vjp(lambda a: a.sum() * 2, _inputs(core, "x"))
    t = tF.vjp(lambda a: a.sum() * 2, _inputs(torch, "x"))
    _compare(c, t)


ERRORS = [
    lambda m, F: F.vjp(lambda a: a.sin(), _inputs(m, "x")),
    lambda m, F: F.jvp(lambda a: a.sin(), _inputs(m, "x")),
    lambda m, F: F.hessian(lambda a: a.sin(), _inputs(m, "x")),
    lambda m, F: F.hessian(lambda a: (a.sin(), a), _inputs(m, "x")),
    lambda m, F: F.jacobian(lambda a: a.detach(), _inputs(m, "x"), strict=True),
    lambda m, F: F.jacobian(lambda a, b: a * 2, _inputs(m, "xy"), strict=True),
    lambda m, F: F.jacobian(lambda a: a * 2, _inputs(m, "x"), strict=True, vectorize=True),
    lambda m, F: F.jacobian(lambda a: a, [m.ones(2)]),
    lambda m, F: F.jacobian(lambda a: 3, m.ones(2)),
    lambda m, F: F.vjp(lambda a: a.sin(), _inputs(m, "x"), m.ones(2)),
    lambda m, F: F.hvp(lambda a: a.sum(), _inputs(m, "x"), (m.ones(3), m.ones(3))),
    lambda m, F: F.hessian(lambda a: (a * 2).sum(), _inputs(m, "x"), strict=True),
    lambda m, F: F.jacobian(lambda a: a, m.ones(2), strategy="x"),
    lambda m, F: F.jacobian(lambda a: a, m.ones(2), strategy="forward-mode"),
    lambda m, F: F.jacobian(lambda a: a, m.ones(2), strategy="forward-mode", create_graph=True),
]


@pytest.mark.parametrize("i", range(len(ERRORS)))
def test_errors(torch, i):
    import torch.autograd.functional as tF
    ec, et = same_error(lambda: ERRORS[i](core, cF), lambda: ERRORS[i](torch, tF))
    assert str(ec) == str(et)


def test_inputs_left_untouched(torch):
    x = core.tensor([1.0, 2.0], requires_grad=True)
    cF.jacobian(lambda a: a * a, x)
    assert x.grad is None and x.requires_grad


# -- profiler -----------------------------------------------------------------------------------

def _workload(m):
    x = m.ones(3, requires_grad=True)
    y = (x * 2).sum()
    y.backward()
    return m.mm(m.ones(2, 2), m.ones(2, 2))


@pytest.mark.parametrize("use_new_api", [False, True])
def test_profiler_records_ops(torch, use_new_api):
    def names(m, prof_mod):
        with prof_mod.profile() as prof:
            with prof_mod.record_function("block"):
                _workload(m)
        return prof, {e.key for e in prof.key_averages()}
    cp, c = names(core, core.profiler if use_new_api else cprof)
    tp, t = names(torch, torch.profiler if use_new_api else torch.autograd.profiler)
    expected = {"aten::ones", "aten::mul", "aten::sum", "aten::mm", "MulBackward0", "block"}
    assert expected <= t
    assert expected <= c
    block = next(e for e in cp.function_events if e.name == "block")
    assert block.cpu_time_total >= sum(ch.cpu_time_total for ch in block.cpu_children)
    counts = {e.key: e.count for e in cp.key_averages()}
    tcounts = {e.key: e.count for e in tp.key_averages()}
    assert counts["aten::ones"] == tcounts["aten::ones"] and counts["aten::mm"] == tcounts["aten::mm"]


def test_profiler_table_layout(torch):
    def table(m, prof_mod):
        with prof_mod.profile() as prof:
            _workload(m)
        return prof.key_averages().table(sort_by="self_cpu_time_total", row_limit=5).splitlines()
    c, t = table(core, cprof), table(torch, torch.autograd.profiler)
    assert c[1].split() == t[1].split()           # header names
    assert set(c[0]) == set(t[0]) == {"-", " "}
    assert c[-1].startswith("Self CPU time total:") and t[-1].startswith("Self CPU time total:")
    assert len(c) <= 5 + 5


def test_profiler_inactive_and_nesting():
    with cprof.record_function("outside"):  # no profiler running: a no-op
        core.ones(2)
    with cprof.profile() as outer:
        with cprof.profile(enabled=False) as off:
            core.zeros(2)
    assert [e.key for e in outer.function_events] == ["aten::zeros"] and len(off.function_events) == 0
    assert np.isfinite(outer.key_averages().total_average().cpu_time_total)
