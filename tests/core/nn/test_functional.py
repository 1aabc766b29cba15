"""core.nn.functional vs torch.nn.functional: values, dtypes, shapes, grad_fn names, gradients
(including create_graph / double backward), numerical gradient checks and PyTorch's errors."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import core
import core.nn.functional as CF
from tests.conftest import assert_same
from tests.gradcheck import gradcheck

RNG = np.random.default_rng(1234)


def f32(*shape):
    return RNG.standard_normal(shape).astype(np.float32)


def ints(high, *shape):
    return RNG.integers(0, high, shape).astype(np.int64)


def run(torch, fn, *arrays, rg=None, rtol=1e-5, atol=1e-5, check_name=True):
    """Run fn(T, F, *tensors) on core and torch with the same inputs; compare output and input grads."""
    rg = rg if rg is not None else [a.dtype.kind == "f" for a in arrays]
    tc = [core.from_numpy(a.copy()).requires_grad_(bool(r)) for a, r in zip(arrays, rg)]
    tt = [torch.from_numpy(a.copy()).requires_grad_(bool(r)) for a, r in zip(arrays, rg)]
    oc, ot = fn(core, CF, *tc), fn(torch, torch.nn.functional, *tt)
    assert_same(oc, ot, rtol=rtol, atol=atol)
    if check_name:
        assert type(oc.grad_fn).__name__ == type(ot.grad_fn).__name__
    if ot.requires_grad:
        g = RNG.standard_normal(tuple(ot.shape)).astype(np.float64)
        oc.backward(core.from_numpy(g.astype(oc._data.dtype)))
        ot.backward(torch.from_numpy(g).to(ot.dtype))
        for a, b, r in zip(tc, tt, rg):
            if r:
                assert (a.grad is None) == (b.grad is None)
                if b.grad is not None:
                    assert_same(a.grad, b.grad, rtol=rtol, atol=atol)
    return oc, ot


def error_pair(fc, ft):
    """Both raise; same class name and same first message line."""
    with pytest.raises(Exception) as ec:
        fc()
    with pytest.raises(Exception) as et:
        ft()
    assert type(ec.value).__name__ == type(et.value).__name__, (ec.value, et.value)
    assert str(ec.value).split("\n")[0] == str(et.value).split("\n")[0]


def both_errors(torch, fn, *arrays):
    tc = [core.from_numpy(a.copy()) for a in arrays]
    tt = [torch.from_numpy(a.copy()) for a in arrays]
    error_pair(lambda: fn(core, CF, *tc), lambda: fn(torch, torch.nn.functional, *tt))


# -- linear ----------------------------------------------------------------------------------------

def test_linear_2d_with_bias_is_addmm(torch):
    oc, _ = run(torch, lambda T, F, x, w, b: F.linear(x, w, b), f32(4, 5), f32(3, 5), f32(3))
    assert oc.grad_fn.name() == "AddmmBackward0"


def test_linear_without_bias_is_mm(torch):
    run(torch, lambda T, F, x, w: F.linear(x, w), f32(4, 5), f32(3, 5))


@pytest.mark.parametrize("shape", [(5,), (2, 4, 5)])
def test_linear_other_ranks_view_back(torch, shape):
    run(torch, lambda T, F, x, w, b: F.linear(x, w, b), f32(*shape), f32(3, 5), f32(3))


def test_linear_shape_mismatch_message(torch):
    both_errors(torch, lambda T, F, x, w: F.linear(x, w), f32(2, 3), f32(5, 4))
    both_errors(torch, lambda T, F, x, w, b: F.linear(x, w, b), f32(2, 3), f32(5, 4), f32(5))


def test_linear_bias_mismatch_message(torch):
    both_errors(torch, lambda T, F, x, w, b: F.linear(x, w, b), f32(2, 3), f32(5, 3), f32(4))


def test_linear_dtype_mismatch_message(torch):
    both_errors(torch, lambda T, F, x, w, b: F.linear(x, w, b), f32(2, 3).astype(np.float64), f32(5, 3), f32(5))
    both_errors(torch, lambda T, F, x, w, b: F.linear(x, w, b), f32(2, 3), f32(5, 3), f32(5).astype(np.float64))


# -- activations and softmax ------------------------------------------------------------------------

@pytest.mark.parametrize("name", ["relu", "sigmoid", "tanh", "leaky_relu", "gelu"])
def test_activation(torch, name):
    run(torch, lambda T, F, x: getattr(F, name)(x), f32(4, 5))


def test_gelu_tanh_approximation(torch):
    run(torch, lambda T, F, x: F.gelu(x, approximate="tanh"), f32(4, 5))


def test_leaky_relu_inplace_keeps_graph(torch):
    run(torch, lambda T, F, x: F.leaky_relu(x * 1, 0.2, inplace=True), f32(3, 4))


@pytest.mark.parametrize("fname", ["softmax", "log_softmax"])
@pytest.mark.parametrize("dim", [0, 1, -1])
def test_softmax_family(torch, fname, dim):
    run(torch, lambda T, F, x: getattr(F, fname)(x, dim), f32(3, 4, 5))


def test_softmax_dtype_argument(torch):
    run(torch, lambda T, F, x: F.softmax(x, 1, dtype=T.float64), f32(3, 4))


def test_softmax_implicit_dim_warns_like_torch(torch):
    x = f32(3, 4)
    with pytest.warns(UserWarning, match="Implicit dimension choice for softmax"):
        oc = CF.softmax(core.from_numpy(x))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ot = torch.nn.functional.softmax(torch.from_numpy(x))
    assert_same(oc, ot)


def test_softmax_of_long_is_not_implemented(torch):
    both_errors(torch, lambda T, F, x: F.softmax(x, 1), ints(3, 2, 3))
    both_errors(torch, lambda T, F, x: F.log_softmax(x, 0), ints(3, 2, 3))


def test_softmax_large_values_are_stable(torch):
    run(torch, lambda T, F, x: F.log_softmax(x, 1), (f32(2, 3) * 1000).astype(np.float32))


# -- dropout ------------------------------------------------------------------------------------------

def test_dropout_not_training_returns_input():
    x = core.randn(3, 4)
    assert CF.dropout(x, 0.5, training=False) is x


def test_dropout_scales_kept_values_and_is_mul():
    core.manual_seed(0)
    x = core.ones(200, 50, requires_grad=True)
    y = CF.dropout(x, 0.2)
    vals = np.unique(y.detach().numpy())
    np.testing.assert_allclose(sorted(vals), [0.0, 1.25], rtol=1e-6)
    assert abs((y.detach().numpy() == 0).mean() - 0.2) < 0.02
    assert y.grad_fn.name() == "MulBackward0"
    y.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), y.detach().numpy())


def test_dropout_p_one_zeroes(torch):
    run(torch, lambda T, F, x: F.dropout(x, 1.0), f32(3, 4))


def test_dropout_bad_probability(torch):
    both_errors(torch, lambda T, F, x: F.dropout(x, 1.5), f32(2))


# -- unfold / fold / conv2d ---------------------------------------------------------------------------


@pytest.mark.parametrize("kw", [
    dict(),
    dict(stride=2, padding=1, dilation=2),
    dict(padding=(2, 1), dilation=(2, 3)),
    dict(stride=(1, 2), padding=(0, 1)),
])
def test_conv2d(torch, kw):
    run(torch, lambda T, F, x, w, b: F.conv2d(x, w, b, **kw), f32(2, 3, 9, 11), f32(4, 3, 3, 2), f32(4),
        rtol=1e-4, atol=1e-4)


def test_conv2d_groups_no_bias(torch):
    run(torch, lambda T, F, x, w: F.conv2d(x, w, groups=3), f32(2, 6, 7, 7), f32(6, 2, 3, 3), rtol=1e-4, atol=1e-4)


def test_conv2d_padding_same_even_kernel(torch):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        run(torch, lambda T, F, x, w: F.conv2d(x, w, padding="same"), f32(1, 2, 6, 7), f32(3, 2, 4, 3),
            rtol=1e-4, atol=1e-4)


def test_conv2d_padding_valid(torch):
    run(torch, lambda T, F, x, w: F.conv2d(x, w, padding="valid"), f32(1, 2, 6, 7), f32(3, 2, 3, 3),
        rtol=1e-4, atol=1e-4)


def test_conv2d_unbatched_squeezes(torch):
    oc, _ = run(torch, lambda T, F, x, w: F.conv2d(x, w), f32(3, 6, 6), f32(2, 3, 3, 3), rtol=1e-4, atol=1e-4)
    assert oc.grad_fn.name() == "SqueezeBackward1"


def test_conv2d_float64_and_int64(torch):
    run(torch, lambda T, F, x, w: F.conv2d(x, w), f32(1, 2, 5, 5).astype(np.float64),
        f32(2, 2, 3, 3).astype(np.float64))
    run(torch, lambda T, F, x, w: F.conv2d(x, w), ints(5, 1, 2, 5, 5), ints(3, 2, 2, 3, 3))


def test_conv2d_expanded_weight(torch):
    k = np.array([[-1.0, -2.0, -1.0], [0.0, 0.0, 0.0], [1.0, 2.0, 1.0]], dtype=np.float32)
    run(torch, lambda T, F, x: F.conv2d(x, T.from_numpy(k).expand(2, 3, 3, 3), None, 1, 1), f32(1, 3, 6, 6))


@pytest.mark.parametrize("case", [
    ((2, 3, 8, 8), (4, 2, 3, 3), {}),
    ((2, 3, 8, 8), (4, 1, 3, 3), dict(groups=3)),
    ((2, 4, 8, 8), (3, 2, 3, 3), dict(groups=2)),
    ((2, 3, 8, 8), (4, 3, 3), {}),
    ((2, 3, 8, 8), (4, 3, 3, 3, 1), {}),
    ((8, 8), (4, 3, 3, 3), {}),
    ((1, 1, 1, 8, 8), (1, 1, 2, 2), {}),
    ((2, 3, 8, 8), (4, 3, 9, 9), {}),
    ((2, 3, 8, 8), (4, 3, 3, 3), dict(stride=0)),
    ((2, 3, 8, 8), (4, 3, 3, 3), dict(padding=-1)),
    ((2, 3, 8, 8), (4, 3, 3, 3), dict(dilation=0)),
    ((2, 3, 8, 8), (4, 3, 3, 3), dict(groups=0)),
    ((2, 3, 8, 8), (4, 3, 3, 3), dict(stride=(1, 1, 1))),
    ((2, 3, 8, 8), (4, 3, 3, 3), dict(padding=(1, 1, 1))),
    ((2, 3, 8, 8), (4, 3, 3, 3), dict(padding="same", stride=2)),
    ((2, 3, 8, 8), (4, 3, 3, 3), dict(padding="foo")),
])
def test_conv2d_errors(torch, case):
    xs, ws, kw = case
    both_errors(torch, lambda T, F, x, w: F.conv2d(x, w, **kw), f32(*xs), f32(*ws))


def test_conv2d_bias_size_error(torch):
    both_errors(torch, lambda T, F, x, w, b: F.conv2d(x, w, b), f32(1, 3, 5, 5), f32(4, 3, 3, 3), f32(5))


def test_conv2d_dtype_errors(torch):
    both_errors(torch, lambda T, F, x, w: F.conv2d(x, w), f32(1, 3, 5, 5), f32(4, 3, 3, 3).astype(np.float64))
    both_errors(torch, lambda T, F, x, w: F.conv2d(x, w), f32(1, 3, 5, 5).astype(np.float64), f32(4, 3, 3, 3))
    both_errors(torch, lambda T, F, x, w, b: F.conv2d(x, w, b), f32(1, 3, 5, 5), f32(4, 3, 3, 3),
                f32(4).astype(np.float64))


def test_conv2d_positional_int_bias_is_type_error(torch):
    """FreeDefineConV's F.conv2d(x, weight, 1, 1): the third positional argument is bias."""
    x, w = f32(1, 3, 5, 5), f32(2, 3, 3, 3)
    error_pair(lambda: CF.conv2d(core.from_numpy(x), core.from_numpy(w), 1, 1),
               lambda: torch.nn.functional.conv2d(torch.from_numpy(x), torch.from_numpy(w), 1, 1))
    with pytest.raises(TypeError) as ec:
        CF.conv2d(core.from_numpy(x), core.from_numpy(w), 1, 1)
    with pytest.raises(TypeError) as et:
        torch.nn.functional.conv2d(torch.from_numpy(x), torch.from_numpy(w), 1, 1)
    assert str(ec.value) == str(et.value)


# -- pooling --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("kw", [
    dict(kernel_size=2),
    dict(kernel_size=3, stride=2, padding=1, ceil_mode=True),
    dict(kernel_size=(3, 2), stride=1, padding=1, dilation=2),
    dict(kernel_size=3, stride=1),
])
def test_max_pool2d(torch, kw):
    run(torch, lambda T, F, x: F.max_pool2d(x, **kw), f32(2, 3, 9, 8))


def test_max_pool2d_return_indices(torch):
    x = f32(2, 3, 7, 7)
    oc, ic = CF.max_pool2d(core.from_numpy(x), 3, 2, 1, return_indices=True)
    ot, it = torch.nn.functional.max_pool2d(torch.from_numpy(x), 3, 2, 1, return_indices=True)
    assert_same(oc, ot)
    assert_same(ic, it)


def test_max_pool2d_ties_and_nan_like_torch(torch):
    x = np.zeros((1, 1, 4, 4), dtype=np.float32)
    x[0, 0, 1, 1] = np.nan
    x[0, 0, 2, 3] = -np.inf
    oc, ic = CF.max_pool2d(core.from_numpy(x), 2, return_indices=True)
    ot, it = torch.nn.functional.max_pool2d(torch.from_numpy(x), 2, return_indices=True)
    assert_same(oc, ot)
    assert_same(ic, it)


def test_max_pool2d_unbatched_and_int(torch):
    run(torch, lambda T, F, x: F.max_pool2d(x, 2), f32(3, 6, 6))
    run(torch, lambda T, F, x: F.max_pool2d(x, 2), ints(9, 1, 2, 4, 4))


@pytest.mark.parametrize("kw", [
    dict(kernel_size=2),
    dict(kernel_size=3, stride=2, padding=1, ceil_mode=True),
    dict(kernel_size=3, stride=2, padding=1, ceil_mode=True, count_include_pad=False),
    dict(kernel_size=(3, 2), stride=(1, 2), padding=(1, 0), divisor_override=5),
])
def test_avg_pool2d(torch, kw):
    run(torch, lambda T, F, x: F.avg_pool2d(x, **kw), f32(2, 3, 9, 8))


def test_avg_pool2d_unbatched(torch):
    run(torch, lambda T, F, x: F.avg_pool2d(x, 2), f32(3, 6, 6))


@pytest.mark.parametrize("case", [
    (lambda T, F, x: F.max_pool2d(x, 9), (2, 3, 8, 8)),
    (lambda T, F, x: F.max_pool2d(x, 2, padding=2), (2, 3, 8, 8)),
    (lambda T, F, x: F.max_pool2d(x, 2), (8, 8)),
    (lambda T, F, x: F.max_pool2d(x, 2), (1, 1, 1, 8, 8)),
    (lambda T, F, x: F.max_pool2d(x, 2, stride=0), (2, 3, 8, 8)),
    (lambda T, F, x: F.max_pool2d(x, 2, dilation=0), (2, 3, 8, 8)),
    (lambda T, F, x: F.max_pool2d(x, (2, 2, 2)), (2, 3, 8, 8)),
    (lambda T, F, x: F.avg_pool2d(x, 2, padding=2), (2, 3, 8, 8)),
    (lambda T, F, x: F.avg_pool2d(x, 9), (2, 3, 8, 8)),
    (lambda T, F, x: F.avg_pool2d(x, 2), (8, 8)),
    (lambda T, F, x: F.avg_pool2d(x, 2), (1, 1, 1, 8, 8)),
    (lambda T, F, x: F.avg_pool2d(x, 2, divisor_override=0), (2, 3, 8, 8)),
])
def test_pool_errors(torch, case):
    fn, shape = case
    both_errors(torch, fn, f32(*shape))


# -- normalisation -----------------------------------------------------------------------------------------

@pytest.mark.parametrize("shape", [(6, 3), (4, 3, 5), (2, 3, 4, 5)])
def test_batch_norm_training(torch, shape):
    def fn(T, F, x, w, b):
        rm, rv = T.zeros(3), T.ones(3)
        out = F.batch_norm(x, rm, rv, w, b, training=True, momentum=0.3)
        return out, rm, rv
    xs = f32(*shape)
    w, b = f32(3), f32(3)
    tc = [core.from_numpy(a.copy()).requires_grad_() for a in (xs, w, b)]
    tt = [torch.from_numpy(a.copy()).requires_grad_() for a in (xs, w, b)]
    (oc, rmc, rvc), (ot, rmt, rvt) = fn(core, CF, *tc), fn(torch, torch.nn.functional, *tt)
    assert_same(oc, ot, atol=1e-5)
    assert_same(rmc, rmt)
    assert_same(rvc, rvt)
    assert oc.grad_fn.name() == "NativeBatchNormBackward0"
    run(torch, lambda T, F, x, w, b: F.batch_norm(x, None, None, w, b, training=True), xs, w, b, atol=1e-4)


def test_batch_norm_eval_uses_running_stats(torch):
    run(torch, lambda T, F, x, w, b: F.batch_norm(x, T.zeros(3) + 0.5, T.ones(3) * 2, w, b), f32(4, 3, 5),
        f32(3), f32(3))


def test_batch_norm_without_affine(torch):
    run(torch, lambda T, F, x: F.batch_norm(x, None, None, training=True), f32(5, 2), atol=1e-4)


@pytest.mark.parametrize("case", [
    (lambda T, F, x: F.batch_norm(x, T.zeros(4), T.ones(4)), (2, 3, 4)),
    (lambda T, F, x: F.batch_norm(x, T.zeros(3), T.ones(4)), (2, 3, 4)),
    (lambda T, F, x: F.batch_norm(x, T.zeros(3), T.ones(3), T.ones(4)), (2, 3, 4)),
    (lambda T, F, x: F.batch_norm(x, T.zeros(3), T.ones(3), None, T.ones(4)), (2, 3, 4)),
    (lambda T, F, x: F.batch_norm(x, None, None, training=True), (1, 3)),
    (lambda T, F, x: F.batch_norm(x, None, None, training=False), (2, 3)),
])
def test_batch_norm_errors(torch, case):
    fn, shape = case
    both_errors(torch, fn, f32(*shape))


@pytest.mark.parametrize("ns", [(5,), (4, 5)])
def test_layer_norm(torch, ns):
    run(torch, lambda T, F, x, w, b: F.layer_norm(x, ns, w, b), f32(2, 3, 4, 5), f32(*ns), f32(*ns), atol=1e-4)


def test_layer_norm_without_affine(torch):
    run(torch, lambda T, F, x: F.layer_norm(x, (5,)), f32(3, 5), atol=1e-4)


@pytest.mark.parametrize("case", [
    (lambda T, F, x: F.layer_norm(x, (7,)), (2, 3, 8)),
    (lambda T, F, x: F.layer_norm(x, (7, 8)), (2, 3, 8)),
    (lambda T, F, x: F.layer_norm(x, (8,), T.ones(7)), (2, 3, 8)),
    (lambda T, F, x: F.layer_norm(x, (8,), None, T.ones(7)), (2, 3, 8)),
])
def test_layer_norm_errors(torch, case):
    fn, shape = case
    both_errors(torch, fn, f32(*shape))


# -- losses ---------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_nll_loss(torch, reduction):
    run(torch, lambda T, F, x, t: F.nll_loss(x, t, reduction=reduction), f32(6, 5), ints(5, 6))


def test_nll_loss_weight_and_ignore_index(torch):
    t = ints(5, 6)
    t[2] = 1
    run(torch, lambda T, F, x, t, w: F.nll_loss(x, t, weight=w, ignore_index=1), f32(6, 5), t,
        np.abs(f32(5)), rg=[True, False, False])


def test_nll_loss_1d_input(torch):
    run(torch, lambda T, F, x, t: F.nll_loss(x, t), f32(5), np.array(3))


@pytest.mark.parametrize("shape", [(2, 3, 4), (2, 3, 4, 5), (2, 3, 2, 2, 2)])
def test_nll_loss_spatial(torch, shape):
    t = ints(3, shape[0], *shape[2:])
    run(torch, lambda T, F, x, t: F.nll_loss(x, t), f32(*shape), t)
    run(torch, lambda T, F, x, t: F.nll_loss(x, t, reduction="none"), f32(*shape), t)


def test_nll_loss_all_ignored_is_nan(torch):
    run(torch, lambda T, F, x, t: F.nll_loss(x, t), f32(2, 3), np.array([-100, -100]))


@pytest.mark.parametrize("case", [
    (lambda T, F, x, t: F.nll_loss(x, t), (4, 5), np.array([0, 1, 2, 5])),
    (lambda T, F, x, t: F.nll_loss(x, t), (4, 5), np.array([0, 1, 2, -1])),
    (lambda T, F, x, t: F.nll_loss(x, t), (4, 5), np.array([0, 1, 2])),
    (lambda T, F, x, t: F.nll_loss(x, t), (4, 5), np.array([0.0, 1, 2, 3], dtype=np.float32)),
    (lambda T, F, x, t: F.nll_loss(x, t), (4, 5), np.array([[0], [1], [2], [3]])),
    (lambda T, F, x, t: F.nll_loss(x, t), (2, 3, 4), np.zeros((2, 5), dtype=np.int64)),
    (lambda T, F, x, t: F.nll_loss(x, t), (2, 3, 4, 5), np.zeros((2, 4, 6), dtype=np.int64)),
    (lambda T, F, x, t: F.nll_loss(x, t), (5,), np.array([1, 2])),
    (lambda T, F, x, t: F.nll_loss(x, t), (), np.array(0)),
    (lambda T, F, x, t: F.nll_loss(x, t, weight=T.ones(4)), (4, 5), np.array([0, 1, 2, 3])),
    (lambda T, F, x, t: F.nll_loss(x, t, reduction="foo"), (4, 5), np.array([0, 1, 2, 3])),
    (lambda T, F, x, t: F.cross_entropy(x, t), (4, 5), np.array([0, 1, 2, 5])),
    (lambda T, F, x, t: F.cross_entropy(x, t), (4, 5), np.ones((4, 5), dtype=np.int64)),
    (lambda T, F, x, t: F.cross_entropy(x, t), (4, 5), np.ones((4,), dtype=np.float32)),
])
def test_loss_errors(torch, case):
    fn, shape, t = case
    both_errors(torch, fn, f32(*shape), t)


@pytest.mark.parametrize("kw", [dict(), dict(reduction="sum"), dict(reduction="none"), dict(label_smoothing=0.2),
                                dict(ignore_index=2), dict(label_smoothing=0.1, ignore_index=2, reduction="none")])
def test_cross_entropy(torch, kw):
    t = ints(5, 6)
    t[0] = 2
    run(torch, lambda T, F, x, t: F.cross_entropy(x, t, **kw), f32(6, 5), t)


def test_cross_entropy_weighted_label_smoothing(torch):
    t = ints(5, 6)
    t[0] = 2
    run(torch, lambda T, F, x, t, w: F.cross_entropy(x, t, weight=w, ignore_index=2, label_smoothing=0.3),
        f32(6, 5), t, np.abs(f32(5)), rg=[True, False, False])


def test_cross_entropy_probability_targets(torch):
    p = np.abs(f32(4, 5))
    p /= p.sum(1, keepdims=True)
    run(torch, lambda T, F, x, t: F.cross_entropy(x, t), f32(4, 5), p, rg=[True, True], check_name=False)
    run(torch, lambda T, F, x, t: F.cross_entropy(x, t, reduction="none", label_smoothing=0.1), f32(4, 5), p,
        rg=[True, False], check_name=False)


def test_cross_entropy_spatial_and_unbatched(torch):
    run(torch, lambda T, F, x, t: F.cross_entropy(x, t), f32(2, 3, 4, 5), ints(3, 2, 4, 5))
    run(torch, lambda T, F, x, t: F.cross_entropy(x, t), f32(5), np.array(1))


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_mse_loss(torch, reduction):
    run(torch, lambda T, F, x, t: F.mse_loss(x, t, reduction=reduction), f32(4, 5), f32(4, 5))


def test_mse_loss_broadcast_warns(torch):
    with pytest.warns(UserWarning, match="Using a target size"):
        run(torch, lambda T, F, x, t: F.mse_loss(x, t), f32(4, 5), f32(5))


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_l1_loss(torch, reduction):
    run(torch, lambda T, F, x, t: F.l1_loss(x, t, reduction=reduction), f32(4, 5), f32(4, 5))


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_binary_cross_entropy(torch, reduction):
    x = RNG.uniform(0.05, 0.95, (4, 5)).astype(np.float32)
    t = RNG.uniform(0, 1, (4, 5)).astype(np.float32)
    run(torch, lambda T, F, x, t: F.binary_cross_entropy(x, t, reduction=reduction), x, t, atol=1e-4)


def test_binary_cross_entropy_weight_and_extremes(torch):
    x = np.array([[0.0, 1.0, 0.5]], dtype=np.float32)
    t = np.array([[1.0, 0.0, 1.0]], dtype=np.float32)
    run(torch, lambda T, F, x, t, w: F.binary_cross_entropy(x, t, weight=w), x, t, f32(3), rg=[False, False, False])


def test_binary_cross_entropy_errors(torch):
    both_errors(torch, lambda T, F, x, t: F.binary_cross_entropy(x, t), np.array([1.5], np.float32),
                np.array([1.0], np.float32))
    both_errors(torch, lambda T, F, x, t: F.binary_cross_entropy(x, t), np.array([0.5, 0.5], np.float32),
                np.array([1.0], np.float32))


def test_loss_legacy_size_average_warns(torch):
    with pytest.warns(UserWarning, match="size_average and reduce args will be deprecated"):
        run(torch, lambda T, F, x, t: F.mse_loss(x, t, size_average=False), f32(3), f32(3))


# -- pad -------------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("args", [
    ((1, 2), "constant", None, (2, 3)),
    ((1, 2, -1, 1), "constant", 3.5, (2, 3, 4)),
    ((2, 1, 1, 2), "reflect", None, (2, 3, 5, 6)),
    ((2, 1), "reflect", None, (2, 5)),
    ((1, 1, 1, 1, 1, 1), "reflect", None, (1, 2, 3, 4, 5)),
    ((2, 1, 1, 2), "replicate", None, (2, 3, 5, 6)),
    ((3, 0), "replicate", None, (2, 3, 4)),
    ((2, 1), "circular", None, (2, 3, 4)),
    ((1, 2, 2, 1), "circular", None, (1, 2, 3, 4)),
])
def test_pad(torch, args):
    pad, mode, value, shape = args
    run(torch, lambda T, F, x: F.pad(x, pad, mode=mode, value=value), f32(*shape), check_name=mode != "circular")


@pytest.mark.parametrize("case", [
    ((1,), "constant", (4, 5)),
    ((1, 1, 1, 1, 1, 1), "constant", (4, 5)),
    ((-3, -3), "constant", (4, 5)),
    ((8, 8, 1, 1), "reflect", (2, 3, 8, 8)),
    ((4, 1), "reflect", (1, 2, 4)),
    ((1, 1, 1, 1), "reflect", (4, 5)),
    ((1, 1), "replicate", (1, 1, 2, 4)),
    ((5, 5), "circular", (1, 2, 4)),
    ((1, 1), "foo", (1, 2, 4)),
])
def test_pad_errors(torch, case):
    pad, mode, shape = case
    both_errors(torch, lambda T, F, x: F.pad(x, pad, mode=mode), f32(*shape))


def test_pad_value_with_reflect_errors(torch):
    both_errors(torch, lambda T, F, x: F.pad(x, (1, 1), mode="reflect", value=1.0), f32(1, 2, 4))


# -- one_hot / embedding -----------------------------------------------------------------------------------------

def test_one_hot(torch):
    t = np.array([[0, 2], [1, 4]])
    assert_same(CF.one_hot(core.from_numpy(t)), torch.nn.functional.one_hot(torch.from_numpy(t)))
    assert_same(CF.one_hot(core.from_numpy(t), 6), torch.nn.functional.one_hot(torch.from_numpy(t), 6))


def test_one_hot_errors(torch):
    both_errors(torch, lambda T, F, t: F.one_hot(t, 3), np.array([1, 5]))
    both_errors(torch, lambda T, F, t: F.one_hot(t, 3), np.array([-1, 1]))


def test_embedding(torch):
    run(torch, lambda T, F, w, i: F.embedding(i, w), f32(5, 3), np.array([[0, 1], [1, 4]]))
    run(torch, lambda T, F, w, i: F.embedding(i, w, padding_idx=1), f32(5, 3), np.array([[0, 1], [1, 4]]))


def test_embedding_errors(torch):
    both_errors(torch, lambda T, F, w, i: F.embedding(i, w), f32(4, 3), np.array([5]))
    both_errors(torch, lambda T, F, w, i: F.embedding(i, w), f32(4, 3), np.array([1.0], np.float32))


# -- numerical gradients (float64) --------------------------------------------------------------------------------

def _g64(*shape):
    return RNG.standard_normal(shape)


@pytest.mark.parametrize("name,fn,shapes", [
    ("conv2d", lambda x, w, b: CF.conv2d(x, w, b, stride=(1, 2), padding=1, dilation=(2, 1)),
     [(1, 2, 5, 5), (2, 2, 2, 3), (2,)]),
    ("conv2d_groups", lambda x, w: CF.conv2d(x, w, groups=2, stride=2), [(1, 4, 5, 5), (2, 2, 3, 3)]),
    ("unfold", lambda x: CF.unfold(x, 2, padding=1, stride=2), [(1, 2, 4, 3)]),
    ("fold", lambda x: CF.fold(x, (3, 4), 2, padding=1), [(1, 8, 20)]),
    ("max_pool2d", lambda x: CF.max_pool2d(x, 3, 2, 1, ceil_mode=True), [(1, 2, 5, 6)]),
    ("avg_pool2d", lambda x: CF.avg_pool2d(x, 3, 2, 1, ceil_mode=True, count_include_pad=False), [(1, 2, 5, 6)]),
    ("batch_norm", lambda x, w, b: CF.batch_norm(x, None, None, w, b, training=True), [(4, 3, 2), (3,), (3,)]),
    ("layer_norm", lambda x, w, b: CF.layer_norm(x, (4,), w, b), [(3, 4), (4,), (4,)]),
    ("log_softmax", lambda x: CF.log_softmax(x, 1), [(3, 4)]),
    ("softmax", lambda x: CF.softmax(x, 0), [(3, 4)]),
    ("mse_loss", lambda x, t: CF.mse_loss(x, t), [(3, 4), (3, 4)]),
    ("gelu", lambda x: CF.gelu(x), [(3, 4)]),
    ("pad_reflect", lambda x: CF.pad(x, (2, 1, 1, 1), mode="reflect"), [(1, 1, 3, 4)]),
])
def test_gradcheck(name, fn, shapes):
    assert gradcheck(fn, *[_g64(*s) for s in shapes])


def test_gradcheck_losses_with_targets():
    t = core.from_numpy(np.array([0, 2, 1, 2]))
    assert gradcheck(lambda x: CF.cross_entropy(x, t, label_smoothing=0.1), _g64(4, 3))
    assert gradcheck(lambda x: CF.nll_loss(x, t, reduction="sum"), _g64(4, 3))
    p = core.from_numpy(RNG.uniform(0, 1, (4, 3)))
    assert gradcheck(lambda x: CF.binary_cross_entropy(x.sigmoid(), p), _g64(4, 3))


# -- create_graph: the core-op backward equals the NumPy fast path and torch's double backward ---------------------

@pytest.mark.parametrize("name,fn,shapes", [
    ("conv2d", lambda F, x, w: F.conv2d(x, w, padding=1), [(1, 2, 4, 4), (3, 2, 3, 3)]),
    ("conv2d_s2", lambda F, x, w: F.conv2d(x, w, stride=2, groups=2), [(1, 2, 5, 5), (2, 1, 3, 3)]),
    ("max_pool2d", lambda F, x: F.max_pool2d(x, 2, 1), [(1, 2, 4, 4)]),
    ("avg_pool2d", lambda F, x: F.avg_pool2d(x, 2, 1, 1), [(1, 2, 4, 4)]),
    ("batch_norm", lambda F, x, w: F.batch_norm(x, None, None, w, None, training=True), [(4, 3, 2), (3,)]),
    ("layer_norm", lambda F, x, w: F.layer_norm(x, (4,), w), [(3, 4), (4,)]),
    ("log_softmax", lambda F, x: F.log_softmax(x, 1), [(3, 4)]),
    ("softmax", lambda F, x: F.softmax(x, 1), [(3, 4)]),
    ("linear", lambda F, x, w, b: F.linear(x, w, b), [(3, 4), (2, 4), (2,)]),
    ("nll_loss", lambda F, x: F.nll_loss(x.log_softmax(1) if hasattr(x, "log_softmax") else F.log_softmax(x, 1),
                                         _T(F, [0, 2, 1])), [(3, 4)]),
    ("mse_loss", lambda F, x, t: F.mse_loss(x, t), [(3, 4), (3, 4)]),
    ("pad", lambda F, x: F.pad(x, (1, 2, 2, 1), mode="replicate"), [(1, 1, 3, 3)]),
])
def test_double_backward_matches_torch(torch, name, fn, shapes):
    arrays = [_g64(*s) for s in shapes]
    res = {}
    for lib, F in ((core, CF), (torch, torch.nn.functional)):
        xs = [lib.from_numpy(a.copy()).requires_grad_() for a in arrays]
        out = fn(F, *xs)
        w = lib.from_numpy(np.linspace(-1, 1, out.numel()).reshape(tuple(out.shape)))
        grads = lib.autograd.grad((out * out * w).sum(), xs, create_graph=True)
        first = [g.detach().numpy().copy() for g in grads]
        second = lib.autograd.grad(sum((g * g).sum() for g in grads), xs, allow_unused=True)
        res[lib.__name__] = (first, [None if g is None else g.detach().numpy() for g in second])
        if lib is core:   # the NumPy fast path (no create_graph) gives the same first derivatives
            xs2 = [lib.from_numpy(a.copy()).requires_grad_() for a in arrays]
            out2 = fn(F, *xs2)
            fast = lib.autograd.grad((out2 * out2 * w).sum(), xs2)
            for a, b in zip(fast, first):
                np.testing.assert_allclose(a.numpy(), b, rtol=1e-10, atol=1e-12)
    (c1, c2), (t1, t2) = res["core"], res["torch"]
    for a, b in zip(c1, t1):
        np.testing.assert_allclose(a, b, rtol=1e-7, atol=1e-9)
    for a, b in zip(c2, t2):
        if b is None:
            assert a is None or np.allclose(a, 0)
        else:
            np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-8)


def _T(F, vals):
    lib = core if F is CF else __import__("torch")
    return lib.tensor(vals)


# -- property: random conv2d / pool configurations ---------------------------------------------------------------

from hypothesis import given, settings, strategies as st  # noqa: E402


@st.composite
def _conv_cases(draw):
    groups = draw(st.integers(1, 2))
    cin, cout = groups * draw(st.integers(1, 2)), groups * draw(st.integers(1, 2))
    kh, kw = draw(st.integers(1, 3)), draw(st.integers(1, 3))
    sh, sw = draw(st.integers(1, 3)), draw(st.integers(1, 3))
    dh, dw = draw(st.integers(1, 2)), draw(st.integers(1, 2))
    ph, pw = draw(st.integers(0, 2)), draw(st.integers(0, 2))
    h = draw(st.integers(max(1, dh * (kh - 1) + 1 - 2 * ph), 7))
    w = draw(st.integers(max(1, dw * (kw - 1) + 1 - 2 * pw), 7))
    n = draw(st.integers(1, 2))
    return (n, cin, h, w), (cout, cin // groups, kh, kw), dict(stride=(sh, sw), padding=(ph, pw),
                                                              dilation=(dh, dw), groups=groups)


@settings(max_examples=25, deadline=None)
@given(_conv_cases(), st.booleans())
def test_conv2d_random_configurations(case, bias):
    torch = pytest.importorskip("torch")
    xs, ws, kw = case
    arrays = [f32(*xs), f32(*ws)] + ([f32(ws[0])] if bias else [])
    run(torch, lambda T, F, x, w, *b: F.conv2d(x, w, b[0] if b else None, **kw), *arrays, rtol=1e-4, atol=1e-4)


@settings(max_examples=25, deadline=None)
@given(st.integers(1, 3), st.integers(1, 3), st.integers(0, 1), st.booleans(), st.booleans(), st.integers(3, 7),
       st.integers(3, 7))
def test_pools_random_configurations(k, s, p, ceil, include_pad, h, w):
    torch = pytest.importorskip("torch")
    p = min(p, k // 2)
    x = f32(1, 2, h, w)
    run(torch, lambda T, F, x: F.max_pool2d(x, k, s, p, ceil_mode=ceil), x)
    run(torch, lambda T, F, x: F.avg_pool2d(x, k, s, p, ceil_mode=ceil, count_include_pad=include_pad), x)
