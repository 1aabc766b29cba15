"""Grad modes: no_grad, enable_grad, set_grad_enabled, inference_mode as context managers
and decorators, nesting, thread-locality, restoration on exceptions, inference tensors."""
from __future__ import annotations

import threading

import pytest

import core
from tests.conftest import same_error


def both(torch, fn):
    return fn(core), fn(torch)


def test_no_grad_context_results_do_not_require_grad(torch):
    def run(lib):
        x = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
        with lib.no_grad():
            y = x * 2
            inside = y.requires_grad
        z = x * 2
        return inside, z.requires_grad, y.grad_fn is None
    c, t = both(torch, run)
    assert c == t == (False, True, True)


@pytest.mark.parametrize("form", ["call", "bare"])
def test_no_grad_decorator_forms(torch, form):
    def run(lib):
        deco = lib.no_grad() if form == "call" else lib.no_grad

        @deco
        def f(x):
            return (x * 2).requires_grad, lib.is_grad_enabled()
        return f(lib.ones(1, requires_grad=True)), lib.is_grad_enabled()
    c, t = both(torch, run)
    assert c == t


def test_enable_grad_inside_no_grad(torch):
    def run(lib):
        x = lib.ones(1, requires_grad=True)
        with lib.no_grad():
            with lib.enable_grad():
                y = x * 2
            z = x * 2
        return y.requires_grad, z.requires_grad
    assert both(torch, run)[0] == both(torch, run)[1] == (True, False)


def test_enable_grad_as_decorator_inside_no_grad(torch):
    def run(lib):
        @lib.enable_grad()
        def f(x):
            return (x * 2).requires_grad
        with lib.no_grad():
            return f(lib.ones(1, requires_grad=True))
    assert both(torch, run) == (True, True)


def test_set_grad_enabled_as_function_call_switches_mode(torch):
    def run(lib):
        lib.set_grad_enabled(False)
        off = lib.is_grad_enabled()
        lib.set_grad_enabled(True)
        return off, lib.is_grad_enabled()
    assert both(torch, run)[0] == both(torch, run)[1] == (False, True)


@pytest.mark.parametrize("mode", [True, False])
def test_set_grad_enabled_context_restores(torch, mode):
    def run(lib):
        x = lib.ones(1, requires_grad=True)
        with lib.no_grad():
            with lib.set_grad_enabled(mode):
                y = x * 2
            after = lib.is_grad_enabled()
        return y.requires_grad, after
    c, t = both(torch, run)
    assert c == t


def test_set_grad_enabled_decorator(torch):
    def run(lib):
        @lib.set_grad_enabled(False)
        def f(x):
            return (x * 2).requires_grad
        return f(lib.ones(1, requires_grad=True)), lib.is_grad_enabled()
    assert both(torch, run)[0] == both(torch, run)[1]


def test_mode_restored_after_exception(torch):
    def run(lib):
        try:
            with lib.no_grad():
                raise KeyError("x")
        except KeyError:
            pass
        return lib.is_grad_enabled()
    assert both(torch, run) == (True, True)


def test_nested_no_grad_restores_outer_state(torch):
    def run(lib):
        with lib.no_grad():
            with lib.no_grad():
                pass
            inner_after = lib.is_grad_enabled()
        return inner_after, lib.is_grad_enabled()
    assert both(torch, run)[0] == both(torch, run)[1] == (False, True)


def test_grad_mode_is_thread_local():
    seen = {}

    def worker():
        seen["thread"] = core.is_grad_enabled()

    with core.no_grad():
        t = threading.Thread(target=worker)
        t.start()
        t.join()
        seen["main"] = core.is_grad_enabled()
    assert seen == {"thread": True, "main": False}


def test_inference_mode_tensors_are_inference_and_no_grad(torch):
    def run(lib):
        x = lib.ones(2, requires_grad=True)
        with lib.inference_mode():
            y = x * 2
            flags = (lib.is_inference_mode_enabled(), lib.is_grad_enabled())
        return y.requires_grad, y.is_inference(), x.is_inference(), flags, lib.is_inference_mode_enabled()
    c, t = both(torch, run)
    assert c == t


@pytest.mark.parametrize("form", ["call", "bare"])
def test_inference_mode_decorator_forms(torch, form):
    def run(lib):
        deco = lib.inference_mode() if form == "call" else lib.inference_mode

        @deco
        def f(x):
            return (x * 2).is_inference()
        return f(lib.ones(1))
    assert both(torch, run) == (True, True)


def test_inference_tensor_cannot_be_saved_for_backward(torch):
    def run(lib):
        with lib.inference_mode():
            y = lib.ones(2)
        w = lib.ones(2, requires_grad=True)
        return w * y
    ec, et = same_error(lambda: run(core), lambda: run(torch))
    assert isinstance(ec, RuntimeError) and str(ec) == str(et)


def test_inplace_on_inference_tensor_outside_mode_raises(torch):
    def run(lib):
        with lib.inference_mode():
            y = lib.ones(2)
        y.add_(1)
    ec, et = same_error(lambda: run(core), lambda: run(torch))
    assert str(ec) == str(et)


def test_inference_mode_false_reenables_grad(torch):
    def run(lib):
        x = lib.ones(1, requires_grad=True)
        with lib.inference_mode():
            with lib.inference_mode(False):
                y = x * 2
                return y.requires_grad, lib.is_inference_mode_enabled(), lib.is_grad_enabled()
    assert both(torch, run)[0] == both(torch, run)[1]


def test_no_grad_seed_update_weights_adds_in_place(torch):
    def run(lib):
        p = lib.tensor([1.0, 2.0], requires_grad=True)

        @lib.no_grad()
        def update(params):
            for q in params:
                q.add_(1.0)
        update([p])
        return p.detach().tolist(), p.requires_grad
    assert both(torch, run)[0] == both(torch, run)[1]


def test_generator_function_decorated_with_no_grad(torch):
    def run(lib):
        @lib.no_grad()
        def gen():
            yield lib.is_grad_enabled()
            yield lib.is_grad_enabled()
        out = list(gen())
        return out, lib.is_grad_enabled()
    assert both(torch, run)[0] == both(torch, run)[1]
