"""Tensor and torch.* predicates, flags, typename, Tensor.new and post-accumulate-grad hooks, side by side
with torch."""
from __future__ import annotations

import warnings

import pytest

import core
from conftest import assert_same, same_error

DTYPES = ("float32", "float64", "float16", "int64", "int32", "int16", "int8", "uint8", "bool")


def _both(torch, fn):
    return fn(core), fn(torch)


@pytest.mark.parametrize("dtype", DTYPES)
def test_dtype_predicates(torch, dtype):
    for lib_pred in ("is_signed", "is_complex", "is_conj", "is_neg", "is_inference", "is_floating_point"):
        c, t = _both(torch, lambda lib: getattr(lib, lib_pred)(lib.zeros(2, dtype=getattr(lib, dtype))))
        assert c == t, lib_pred
    c, t = _both(torch, lambda lib: lib.zeros(2, dtype=getattr(lib, dtype)).is_signed())
    assert c == t


def test_device_and_memory_predicates(torch):
    for expr in (lambda lib: lib.ones(2).is_cpu, lambda lib: lib.ones(2).get_device(),
                 lambda lib: lib.ones(2).is_pinned(), lambda lib: lib.ones(2).is_shared()):
        c, t = _both(torch, expr)
        assert c == t and type(c) is type(t)


@pytest.mark.parametrize("data", [[0.0], [2.5], 3, 0, [True], [[0]], [], [1, 2]])
def test_is_nonzero(torch, data):
    fc = lambda: core.tensor(data).is_nonzero()     # noqa: E731
    ft = lambda: torch.tensor(data).is_nonzero()    # noqa: E731
    ec, et = same_error(fc, ft)
    if ec is None:
        assert fc() == ft()
        assert core.is_nonzero(core.tensor(data)) == torch.is_nonzero(torch.tensor(data))
    else:
        assert str(ec) == str(et)
        ec2, et2 = same_error(lambda: core.is_nonzero(core.tensor(data)),
                              lambda: torch.is_nonzero(torch.tensor(data)))
        assert str(ec2) == str(et2)


def test_is_same_size(torch):
    for a, b in (((2, 3), (2, 3)), ((2, 3), (3, 2)), ((), ()), ((0,), (0,)), ((1,), ())):
        c, t = _both(torch, lambda lib: (lib.zeros(a).is_same_size(lib.zeros(b)),
                                         lib.is_same_size(lib.zeros(a), lib.zeros(b))))
        assert c == t


@pytest.mark.parametrize("make", [
    lambda lib: lib.zeros(2), lambda lib: lib.zeros(()), lambda lib: lib.zeros(2, 3, 4).permute(2, 0, 1),
    lambda lib: lib.zeros(2, 3).t(), lambda lib: lib.zeros(2, 1, 4).permute(1, 0, 2),
    lambda lib: lib.zeros(2, 3, 4, 5).permute(0, 2, 3, 1), lambda lib: lib.zeros(4, 4)[:, ::2],
    lambda lib: lib.zeros(3, 1).expand(3, 4), lambda lib: lib.zeros(2, 3, 4).transpose(0, 2)[:, 1:],
    lambda lib: lib.zeros(1, 3), lambda lib: lib.zeros(2, 2, 2).permute(1, 2, 0)])
@pytest.mark.parametrize("check", [False, True])
def test_dim_order(torch, make, check):
    fc = lambda: make(core).dim_order(ambiguity_check=check)     # noqa: E731
    ft = lambda: make(torch).dim_order(ambiguity_check=check)    # noqa: E731
    ec, et = same_error(fc, ft)
    if ec is None:
        assert fc() == ft()
    else:
        assert str(ec) == str(et)
    ec, et = same_error(lambda: make(core).dim_order(ambiguity_check=3),
                        lambda: make(torch).dim_order(ambiguity_check=3))
    assert str(ec) == str(et)


def test_flags_and_typename(torch):
    for name in ("is_anomaly_enabled", "is_anomaly_check_nan_enabled", "are_deterministic_algorithms_enabled",
                 "is_deterministic_algorithms_warn_only_enabled", "is_warn_always_enabled", "init_num_threads"):
        assert getattr(core, name)() == getattr(torch, name)(), name
    for make in (lambda lib: lib.zeros(2), lambda lib: lib.zeros(2, dtype=lib.int64),
                 lambda lib: lib.zeros(2, dtype=lib.bool), lambda lib: lib.zeros(2, dtype=lib.float64),
                 lambda lib: 3, lambda lib: "a", lambda lib: lib.nn.Linear(2, 2), lambda lib: lib.nn.ReLU,
                 lambda lib: [1], lambda lib: lib.Size([2])):
        c, t = _both(torch, lambda lib: lib.typename(make(lib)))
        assert c == t


def test_deterministic_and_warn_always_flags_round_trip(torch):
    try:
        for lib in (core, torch):
            lib.use_deterministic_algorithms(True, warn_only=True)
            lib.set_warn_always(True)
        assert core.are_deterministic_algorithms_enabled() == torch.are_deterministic_algorithms_enabled()
        assert (core.is_deterministic_algorithms_warn_only_enabled()
                == torch.is_deterministic_algorithms_warn_only_enabled())
        assert core.is_warn_always_enabled() == torch.is_warn_always_enabled()
    finally:
        for lib in (core, torch):
            lib.use_deterministic_algorithms(False)
            lib.set_warn_always(False)


def test_torch_detach(torch):
    c, t = _both(torch, lambda lib: lib.detach(lib.ones(2, requires_grad=True) * 2))
    assert_same(c, t)
    assert c.requires_grad == t.requires_grad and c.grad_fn is None and t.grad_fn is None


@pytest.mark.parametrize("args", [(2, 3), ([1, 2],), ((2, 3),), ([[1.5, 2]],), (), (0,)])
@pytest.mark.parametrize("dtype", ["float32", "int64", "float64"])
def test_new(torch, args, dtype):
    c, t = _both(torch, lambda lib: lib.zeros(2, dtype=getattr(lib, dtype)).new(*args))
    assert tuple(c.shape) == tuple(t.shape) and str(c.dtype) == str(t.dtype)
    if args and isinstance(args[0], (list, tuple)):
        assert_same(c, t)


def test_new_size_and_alias(torch):
    c, t = _both(torch, lambda lib: lib.ones(2).new(lib.Size([2, 1])))
    assert tuple(c.shape) == tuple(t.shape)
    src_c, src_t = core.ones(3), torch.ones(3)
    ac, at = src_c.new(src_c), src_t.new(src_t)
    ac[0] = 5
    at[0] = 5
    assert_same(src_c, src_t)


@pytest.mark.parametrize("call", [
    lambda lib: lib.ones(2).new(2, dtype=lib.int64), lambda lib: lib.ones(2).new(2.5),
    lambda lib: lib.ones(2).new([1], requires_grad=True), lambda lib: lib.ones(2).new(lib.tensor([1, 2])),
    lambda lib: lib.ones(2).new(1, "a")])
def test_new_errors(torch, call):
    ec, et = same_error(lambda: call(core), lambda: call(torch))
    assert str(ec).split("\n")[0] == str(et).split("\n")[0]


def test_post_accumulate_grad_hook(torch):
    def run(lib):
        v = lib.tensor([0.0, 0.0, 0.0], requires_grad=True)
        seen = []

        def hook(p):
            seen.append(p.grad.clone())
            p.add_(p.grad, alpha=-0.01)
        h = v.register_post_accumulate_grad_hook(hook)
        (v * lib.tensor([1.0, 2.0, 3.0])).sum().backward()
        (v * 2).sum().backward()
        h.remove()
        v.sum().backward()
        lib.autograd.grad((v * 3).sum(), v)     # autograd.grad does not accumulate: no hook
        return v.detach(), seen, v.grad
    (vc, sc, gc), (vt, st, gt) = run(core), run(torch)
    assert_same(vc, vt)
    assert len(sc) == len(st)
    for a, b in zip(sc, st):
        assert_same(a, b)
    assert_same(gc, gt)


def test_post_accumulate_grad_hook_errors(torch):
    for make in (lambda lib: lib.ones(2), lambda lib: lib.ones(2, requires_grad=True) * 2):
        ec, et = same_error(lambda: make(core).register_post_accumulate_grad_hook(print),
                            lambda: make(torch).register_post_accumulate_grad_hook(print))
        assert str(ec) == str(et)


def test_no_warnings_from_predicates():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        core.ones(2).is_signed()
        core.typename(core.ones(1))
