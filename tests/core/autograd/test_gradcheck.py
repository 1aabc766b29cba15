"""torch.autograd.gradcheck / gradgradcheck, anomaly-mode switches and torch.utils.checkpoint, against torch."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import core


def _bad(L):
    class Bad(L.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return g * x
    return Bad.apply


def test_gradcheck_reports_torchs_jacobian_mismatch(torch):
    msgs = []
    for L in (core, torch):
        x = L.tensor([1.0, 2.0], dtype=L.float64, requires_grad=True)
        with pytest.raises(RuntimeError) as e:
            L.autograd.gradcheck(_bad(L), (x,))
        assert type(e.value).__name__ == "GradcheckError"
        msgs.append(str(e.value))
        assert L.autograd.gradcheck(_bad(L), (x,), raise_exception=False) is False
    assert msgs[0] == msgs[1]


@pytest.mark.parametrize("fn", [lambda t: t.sin() * t, lambda t: (t @ t.t(), t.sum()), lambda t: t.t() ** 3])
def test_gradcheck_and_gradgradcheck_pass_where_torchs_pass(torch, fn):
    a = np.linspace(-1, 1, 6).reshape(2, 3)
    for L in (core, torch):
        x = L.tensor(a, requires_grad=True)
        assert L.autograd.gradcheck(fn, (x,)) is True
        assert L.autograd.gradgradcheck(fn, (x,)) is True


def test_gradcheck_float32_warns_and_fails_as_torch(torch):
    for L in (core, torch):
        with pytest.warns(UserWarning, match="Input #0 requires gradient and is not a double precision"):
            assert L.autograd.gradcheck(lambda t: t * 2, (L.ones(2, requires_grad=True),),
                                        raise_exception=False) is False


def test_gradcheck_needs_an_input_requiring_grad(torch):
    msgs = []
    for L in (core, torch):
        with pytest.raises(ValueError) as e:
            L.autograd.gradcheck(lambda t: t * 2, (L.ones(2, dtype=L.float64),))
        msgs.append(str(e.value))
    assert msgs[0] == msgs[1]


def test_anomaly_switches_mirror_torch(torch):
    for L in (core, torch):
        assert L.is_anomaly_enabled() is False
        with L.autograd.set_detect_anomaly(True, check_nan=False):
            assert L.is_anomaly_enabled() is True and L.is_anomaly_check_nan_enabled() is False
        assert L.is_anomaly_enabled() is False and L.is_anomaly_check_nan_enabled() is True
        with pytest.warns(UserWarning, match="Anomaly Detection has been enabled"):
            with L.autograd.detect_anomaly():
                assert L.is_anomaly_enabled() is True
        assert L.is_anomaly_enabled() is False


@pytest.mark.parametrize("reentrant", [True, False])
def test_checkpoint_gives_torchs_values_grads_and_stream(torch, reentrant):
    res = []
    for L in (core, torch):
        L.manual_seed(0)
        net = L.nn.Sequential(L.nn.Linear(4, 4), L.nn.Dropout(0.5), L.nn.Tanh())
        x = L.tensor(np.linspace(-1, 1, 8, dtype=np.float32).reshape(2, 4), requires_grad=True)
        out = L.utils.checkpoint.checkpoint(net, x, use_reentrant=reentrant)
        out.sum().backward()
        res.append((out.detach().numpy(), x.grad.numpy(), net[0].weight.grad.numpy(), L.rand(2).numpy(),
                    type(out.grad_fn).__name__ if L is torch else out.grad_fn.name()))
    for a, b in zip(res[0], res[1]):
        if isinstance(a, str):
            assert a == b
        else:
            np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-7)


def test_checkpoint_without_use_reentrant_warns_as_torch(torch):
    for L in (core, torch):
        with pytest.warns(UserWarning, match="the use_reentrant parameter should be passed explicitly"):
            L.utils.checkpoint.checkpoint(lambda t: t * 2, L.ones(2, requires_grad=True))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with pytest.warns(UserWarning, match="None of the inputs have requires_grad=True"):
                L.utils.checkpoint.checkpoint(lambda t: t * 2, L.ones(2), use_reentrant=True)


def test_checkpoint_sequential_splits_like_torch(torch):
    res = []
    for L in (core, torch):
        L.manual_seed(1)
        lin = L.nn.Linear(3, 3)
        seq = L.nn.Sequential(lin, L.nn.ReLU(), L.nn.Linear(3, 2), L.nn.Sigmoid())
        x = L.ones(2, 3, requires_grad=True)
        out = L.utils.checkpoint.checkpoint_sequential(seq, 2, x, use_reentrant=False)
        out.sum().backward()
        res.append((out.detach().numpy(), x.grad.numpy()))
    for a, b in zip(res[0], res[1]):
        np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("make", [lambda L, x: x.sqrt(), lambda L, x: (x * 0).log() * 0])
def test_anomaly_mode_names_the_backward_that_returned_nan(torch, make):
    msgs = []
    for L in (core, torch):
        x = L.tensor([-1.0, 0.0, 4.0], requires_grad=True)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with pytest.raises(RuntimeError) as e:
                with L.autograd.detect_anomaly():
                    make(L, x).sum().backward()
        msgs.append(str(e.value))
    assert msgs[0] == msgs[1]
