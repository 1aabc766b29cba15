"""Views made with grad mode off of a tensor that requires grad, side by side with torch 2.13: they report
requires_grad=True (derived from the base) with no grad_fn and no accumulator (ops on them record graphs
whose edge to the view is None, so backward reaches nothing), views of normal tensors made in inference
mode are normal tensors, and in-place on them with grad mode on raises torch's CreationMeta errors."""
from __future__ import annotations

import pytest

import core

VIEWS = {
    "view": lambda x: x.view(2, 2),
    "slice": lambda x: x[1:],
    "select": lambda x: x[0],
    "expand": lambda x: x.expand(2, 4),
    "unsqueeze": lambda x: x.unsqueeze(0),
    "reshape": lambda x: x.reshape(2, 2),
    "as_strided": lambda x: x.as_strided((2,), (1,)),
    "split0": lambda x: x.split(2)[0],
    "nonleaf_view": lambda x: (x * 1).view(4),
    "detach": lambda x: x.detach(),
}
MODES = {
    "no_grad": lambda t: t.no_grad(),
    "set_grad_enabled": lambda t: t.set_grad_enabled(False),
    "inference_mode": lambda t: t.inference_mode(),
}


def _info(t):
    return (t.requires_grad, None if t.grad_fn is None else t.grad_fn.name(), t.is_leaf, t.is_inference(),
            t._version)


def _made(mod, mode, view):
    x = mod.ones(4, requires_grad=True)
    if view == "nonleaf_view":      # the non-leaf is made in grad mode, its view with grad mode off
        y = x * 1
        with MODES[mode](mod):
            return x, y.view(4)
    with MODES[mode](mod):
        return x, VIEWS[view](x)


@pytest.mark.parametrize("mode", list(MODES))
@pytest.mark.parametrize("view", list(VIEWS))
def test_view_flags_as_torch(torch, mode, view):
    _, mine = _made(core, mode, view)
    _, theirs = _made(torch, mode, view)
    assert _info(mine) == _info(theirs)


def _outcome(fn):
    try:
        return ("ok", fn())
    except RuntimeError as e:
        return ("error", str(e))


@pytest.mark.parametrize("mode", ["no_grad", "inference_mode"])
def test_graph_through_a_no_grad_view_reaches_nothing(torch, mode):
    def run(mod):
        x, v = _made(mod, mode, "slice")
        m = v * 2
        edge = m.grad_fn.next_functions[0][0]
        m.sum().backward()
        return (m.requires_grad, m.grad_fn.name(), edge, x.grad, v.grad)
    assert run(core) == run(torch) == (True, "MulBackward0", None, None, None)

    def grad_wrt_view(mod):
        _, v = _made(mod, mode, "slice")
        return _outcome(lambda: mod.autograd.grad((v * 2).sum(), v))
    assert grad_wrt_view(core) == grad_wrt_view(torch)

    def view_of_view(mod):
        _, v = _made(mod, mode, "slice")
        w = v.view(3)
        return (w.requires_grad, w.grad_fn.name(), w.grad_fn.next_functions)
    assert view_of_view(core) == view_of_view(torch)


INPLACE = {
    "mul_": lambda v: v.mul_(2),
    "zero_": lambda v: v.zero_(),
    "view_of_view_mul_": lambda v: v[0:1].mul_(2),
}


@pytest.mark.parametrize("mode", list(MODES))
@pytest.mark.parametrize("op", list(INPLACE))
def test_inplace_with_grad_mode_on_raises_as_torch(torch, mode, op):
    def run(mod):
        _, v = _made(mod, mode, "slice")
        return _outcome(lambda: _info(INPLACE[op](v)))
    mine, theirs = run(core), run(torch)
    assert mine == theirs
    assert mine[0] == "error"


def test_inplace_inside_no_grad_and_plain_inference_views(torch):
    def inside(mod):
        x = mod.ones(4, requires_grad=True)
        with mod.no_grad():
            v = x[:2]
            v.mul_(2)
        return x.tolist(), x._version, x.requires_grad
    assert inside(core) == inside(torch)

    def plain(mod):         # a view of a tensor that needs no grad, made in inference mode, modified outside
        x = mod.ones(4)
        with mod.inference_mode():
            v = x[1:]
        v.mul_(2)
        return v.is_inference(), v.requires_grad, x._version, x.tolist()
    assert plain(core) == plain(torch)
