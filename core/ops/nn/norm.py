"""batch_norm (NativeBatchNormBackward0) and layer_norm (NativeLayerNormBackward0)."""
from __future__ import annotations

import numpy as np

from ...autograd.function import Op
from ...autograd.grad_mode import STATE, no_grad
from ..registry import export, register
from ..reduce import _rowwise_moments as _moments
from ..reduce.group_norm_kernel import NativeGroupNormBackward0
from . import _bn_backward, _bn_stats
from ._util import _make, _shape, _short, _torch_name


class NativeBatchNormBackward0(Op):
    """Batch norm over every dim but 1; training mode normalises with batch statistics and updates the
    running stats in place (momentum, unbiased variance), eval mode uses the running stats. Statistics,
    output and gradients follow ATen's CPU kernels bit for bit where modelled (_bn_stats, _bn_backward)."""

    grads_per_arg = True
    contiguous_output = False       # the output is laid out like the input's suggested memory format

    @staticmethod
    def forward(ctx, input, weight, bias, running_mean=None, running_var=None, training=False, momentum=0.1,
                eps=1e-5):
        x = input._data
        c = x.shape[1]
        axes = (0,) + tuple(range(2, x.ndim))
        bshape = (1, c) + (1,) * (x.ndim - 2)
        exact = _bn_stats.train_moments(x, eps) if training else None
        if exact is not None:
            mean_x, invstd_x, var_sum, contiguous = exact
            with no_grad():
                _bn_stats.running_update(None if running_mean is None else running_mean._data,
                                         None if running_var is None else running_var._data,
                                         mean_x, var_sum, x.size // c, momentum, contiguous)   # no version bump, as torch
            w_, b_ = (None if weight is None else weight._data), (None if bias is None else bias._data)
            params = (weight, bias, running_mean, running_var)     # the contiguous kernel wants them all contiguous
            contiguous = contiguous and all(t is None or t._data.flags.c_contiguous for t in params)
            out = (_bn_stats.transform(x, mean_x, invstd_x, w_, b_) if contiguous else
                   _bn_stats.transform_strided(x, mean_x, invstd_x, w_, b_))
            ctx.save_for_backward(input, weight, running_mean, running_var, _make(mean_x), _make(invstd_x))
            ctx.meta = (training, eps, axes, bshape)
            return _bn_stats.like_input(out, x)
        if training:
            n = x.size // c if c else 0
            with np.errstate(invalid="ignore", divide="ignore"):
                mean = x.mean(axis=axes, dtype=np.float64) if n else np.full(c, np.nan)
                xc = x - mean.reshape(bshape).astype(x.dtype)
                var = np.square(xc, dtype=np.float64).mean(axis=axes) if n else np.full(c, np.nan)
            with no_grad():
                if running_mean is not None:
                    rm = running_mean._data
                    rm[...] = (1 - momentum) * rm + momentum * mean   # like torch: no version bump
                if running_var is not None:
                    rv = running_var._data
                    unbiased = var * n / (n - 1) if n > 1 else np.full_like(var, np.nan)
                    rv[...] = (1 - momentum) * rv + momentum * unbiased
            invstd = 1.0 / np.sqrt(var + eps)
            mean_x = mean.astype(x.dtype)
        else:
            mean_x = running_mean._data.astype(x.dtype, copy=False)
            invstd = 1.0 / np.sqrt(running_var._data.astype(np.float64) + eps)   # the backward kernels' (double)
            out = _bn_stats.eval_output(x, running_mean._data, running_var._data,
                                        None if weight is None else weight._data, None if bias is None else bias._data,
                                        eps)
            if out is not None:
                ctx.save_for_backward(input, weight, running_mean, running_var, _make(mean_x),
                                      _make(invstd.astype(x.dtype)))
                ctx.meta = (training, eps, axes, bshape)
                return _bn_stats.like_input(out, x)
            xc = x - mean_x.reshape(bshape)
        scale = invstd.astype(x.dtype)
        if weight is not None:
            scale = scale * weight._data
        out = xc * scale.reshape(bshape)
        if bias is not None:
            out += bias._data.reshape(bshape)
        # torch's NativeBatchNormBackward0 also saves the running stats (by reference)
        ctx.save_for_backward(input, weight, running_mean, running_var, _make(mean_x), _make(invstd.astype(x.dtype)))
        ctx.meta = (training, eps, axes, bshape)
        return _bn_stats.like_input(out, x)

    @staticmethod
    def backward(ctx, g):
        x, w, _, _, mean, invstd = ctx.saved_tensors
        training, eps, axes, bshape = ctx.meta
        need = ctx.needs_input_grad
        if training and STATE.grad_enabled:
            # create_graph: recompute the statistics from x so second derivatives flow through them
            mean_b = x.mean(axes, keepdim=True)
            invstd_b = ((x - mean_b) * (x - mean_b)).mean(axes, keepdim=True).add(eps).rsqrt()
        else:
            mean_b, invstd_b = mean.reshape(bshape), invstd.reshape(bshape)
        xhat = (x - mean_b) * invstd_b
        gi = gw = gb = None
        if need[0]:
            gxhat = g * w.reshape(bshape) if w is not None else g
            if training:
                gi = (gxhat - gxhat.mean(axes, keepdim=True)
                      - xhat * (gxhat * xhat).mean(axes, keepdim=True)) * invstd_b
            else:
                gi = gxhat * invstd_b
        if len(need) > 1 and need[1]:
            gw = (g * xhat).sum(axes)
        if len(need) > 2 and need[2]:
            gb = g.sum(axes)
        return gi, gw, gb

    @staticmethod
    def backward_np(ctx, g):
        x, w, _, _, mean, invstd = ctx.saved_tensors
        training, eps, axes, bshape = ctx.meta
        need = ctx.needs_input_grad
        exact = _bn_backward.backward(g, x._data, None if w is None else w._data, mean._data, invstd._data,
                                      training, need)
        if exact is not None:
            return exact
        invstd_b = invstd._data.reshape(bshape)
        xhat = (x._data - mean._data.reshape(bshape)) * invstd_b
        gi = gw = gb = None
        if need[0]:
            gxhat = g * w._data.reshape(bshape) if w is not None else g
            if training:
                gi = (gxhat - gxhat.mean(axes, keepdims=True)
                      - xhat * (gxhat * xhat).mean(axes, keepdims=True)) * invstd_b
            else:
                gi = gxhat * invstd_b
        if len(need) > 1 and need[1]:
            gw = (g * xhat).sum(axes)
        if len(need) > 2 and need[2]:
            gb = g.sum(axes)
        return gi, gw, gb


def _check_mixed_dtypes(input, *params):
    """ATen's CPU batch_norm: parameters of another dtype than input's are only allowed as float32 ones with
    a reduced-precision input (float16 here); otherwise its 'mixed dtype (CPU)' RuntimeErrors.
    Integral parameters are still accepted (and cast), unlike torch: the batch-norm command's example
    passes int running stats (known disagreement until that example changes)."""
    ps = [p._data.dtype for p in params if p is not None and p._data.dtype.kind == "f"]
    if all(d == input._data.dtype for d in ps):
        return
    if any(d != np.float32 for d in ps):
        raise RuntimeError("mixed dtype (CPU): expect parameter to have scalar type of Float")
    if input._data.dtype != np.float16:
        raise RuntimeError("mixed dtype (CPU): all inputs must share same datatype.")


@register(category="nn", function=False)
def batch_norm(input, running_mean, running_var, weight=None, bias=None, training=False, momentum=0.1, eps=1e-5):
    """Normalise each channel (dim 1) of [N, C, *] input (NativeBatchNormBackward0)."""
    shp = input._data.shape
    if training:
        size_prods = shp[0]
        for v in shp[2:]:
            size_prods *= v
        if size_prods == 1:
            raise ValueError(f"Expected more than 1 value per channel when training, got input size {input.size()}")
    if training and eps <= 0.0:
        raise ValueError(f"batch_norm eps must be positive during training, but got {eps}")
    elif eps < 0.0:
        raise ValueError(f"batch_norm eps must be non-negative, but got {eps}")
    if input._data.size == 0:   # ATen: a clone (not a view, to keep the graph), times weight[0] plus bias[0]
        out = input.clone()
        if weight is not None:
            out = out * weight[0]
        if bias is not None:
            out = out + bias[0]
        return out
    c = shp[1] if len(shp) > 1 else 0     # ATen reads sizes()[1] unchecked: 0 here, then size(1) raises
    for name, t in (("weight", weight), ("bias", bias), ("running_mean", running_mean), ("running_var", running_var)):
        if t is not None and t.numel() != c:
            raise RuntimeError(f"{name} should contain {c} elements not {t.numel()}")
    if not training and (running_mean is None or running_var is None):
        raise RuntimeError(("running_mean" if running_mean is None else "running_var")
                           + " must be defined in evaluation mode")
    if len(shp) < 2:
        raise IndexError("Dimension specified as 1 but tensor has no dimensions" if not shp else
                         "Dimension out of range (expected to be in range of [-1, 0], but got 1)")
    if input._data.dtype.kind != "f":
        raise NotImplementedError(f"\"batch_norm\" not implemented for '{_short(input.dtype)}'")
    _check_mixed_dtypes(input, weight, bias, running_mean, running_var)
    return NativeBatchNormBackward0.apply(input, weight, bias, running_mean=running_mean, running_var=running_var,
                                          training=bool(training), momentum=momentum, eps=eps)


class NativeLayerNormBackward0(Op):
    """Normalise over the last len(normalized_shape) dims, then scale and shift elementwise."""

    grads_per_arg = True

    @staticmethod
    def forward(ctx, input, weight, bias, ndim_norm=1, eps=1e-5):
        x = input._data
        axes = tuple(range(x.ndim - ndim_norm, x.ndim))
        exact = _moments.layer_norm(x, ndim_norm, eps, None if weight is None else weight._data,
                                    None if bias is None else bias._data)
        if exact is not None:
            out, mean, rstd = exact
            ctx.save_for_backward(input, weight, _make(mean), _make(rstd))
            ctx.meta = (axes, tuple(range(x.ndim - ndim_norm)), eps)
            return out
        with np.errstate(invalid="ignore", divide="ignore"):
            mean = x.mean(axis=axes, keepdims=True, dtype=np.float64)
            xc = x - mean.astype(x.dtype)
            var = np.square(xc, dtype=np.float64).mean(axis=axes, keepdims=True)
            rstd = (1.0 / np.sqrt(var + eps)).astype(x.dtype)
        out = xc * rstd
        if weight is not None:
            out *= weight._data
        if bias is not None:
            out += bias._data
        ctx.save_for_backward(input, weight, _make(mean.astype(x.dtype)), _make(rstd))
        ctx.meta = (axes, tuple(range(x.ndim - ndim_norm)), eps)
        return out

    @staticmethod
    def backward(ctx, g):
        x, w, mean, rstd = ctx.saved_tensors
        axes, lead, eps = ctx.meta
        need = ctx.needs_input_grad
        if STATE.grad_enabled:
            saved = (mean, rstd)
            mean = x.mean(axes, keepdim=True)
            rstd = ((x - mean) * (x - mean)).mean(axes, keepdim=True).add(eps).rsqrt()
        xhat = (x - mean) * rstd
        gi = gw = gb = None
        if need[0]:
            gxhat = g * w if w is not None else g
            gi = (gxhat - gxhat.mean(axes, keepdim=True) - xhat * (gxhat * xhat).mean(axes, keepdim=True)) * rstd
        if len(need) > 1 and need[1]:
            gw = (g * xhat).sum(lead) if lead else g * xhat
        if len(need) > 2 and need[2]:
            gb = g.sum(lead) if lead else g
        if STATE.grad_enabled:      # create_graph: native_layer_norm_backward's bits, the composite's derivatives
            mean, rstd = saved
            rows = int(np.prod(x.shape[:len(lead)], dtype=np.int64))
            need3 = tuple(need[:3]) + (False,) * (3 - len(need))
            exact = None if not x._data.size or g._data.dtype != x._data.dtype else _moments.layer_norm_backward(
                g._data.reshape(rows, -1), x._data.reshape(rows, -1), mean._data.ravel(), rstd._data.ravel(),
                None if w is None else w._data.ravel(), need3)
            if exact is not None:
                gi, gw, gb = (c if c is None or e is None else
                              NativeLayerNormBackwardBackward0.apply(c, *((x,) if w is None else (x, w)),
                                                                     value=e.reshape(c._data.shape))
                              for c, e in zip((gi, gw, gb), exact))
        return gi, gw, gb

    @staticmethod
    def backward_np(ctx, g):
        x, w, mean, rstd = ctx.saved_tensors
        axes, lead, eps = ctx.meta
        need = ctx.needs_input_grad
        need3 = tuple(need[:3]) + (False,) * (3 - len(need))
        rows = int(np.prod(x.shape[:len(lead)], dtype=np.int64))
        exact = None if not x._data.size else _moments.layer_norm_backward(
            g.reshape(rows, -1), x._data.reshape(rows, -1), mean._data.ravel(), rstd._data.ravel(),
            None if w is None else w._data.ravel(), need3)
        if exact is not None:
            gi, gw, gb = exact
            return (None if gi is None else gi.reshape(x.shape), None if gw is None else gw.reshape(w.shape),
                    None if gb is None else gb.reshape(w.shape if w is not None else x.shape[len(lead):]))
        r = rstd._data
        xhat = (x._data - mean._data) * r
        gi = gw = gb = None
        if need[0]:
            gxhat = g * w._data if w is not None else g
            gi = (gxhat - gxhat.mean(axes, keepdims=True) - xhat * (gxhat * xhat).mean(axes, keepdims=True)) * r
        if len(need) > 1 and need[1]:
            gw = (g * xhat).sum(lead) if lead else g * xhat
        if len(need) > 2 and need[2]:
            gb = g.sum(lead) if lead else g
        return gi, gw, gb


class NativeLayerNormBackwardBackward0(Op):
    """A first derivative of layer_norm recorded with create_graph=True: its value is native_layer_norm_backward's
    (the kernel's bits, passed in), its derivative the identity into the composite formula it replaces (so second
    derivatives follow that formula, not the order of torch's layer_norm_double_backward). input and weight are
    recorded as inputs without gradient, so the node exists whenever they require grad, as torch's."""

    @staticmethod
    def forward(ctx, composite, *recorded, value=None):
        return value

    @staticmethod
    def backward(ctx, gg):
        return (gg,) + (None,) * (len(ctx.needs_input_grad) - 1)


@register(category="nn", function=False)
def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-5):
    """Normalise over the trailing normalized_shape dims (NativeLayerNormBackward0)."""
    ns = (int(normalized_shape),) if isinstance(normalized_shape, (int, np.integer)) else \
        tuple(int(v) for v in normalized_shape)
    shp = input._data.shape
    if weight is not None and tuple(weight.shape) != ns:
        raise RuntimeError(f"Expected weight to be of same shape as normalized_shape, but got weight of shape "
                           f"{_shape(weight.shape)} and normalized_shape = {_shape(ns)}")
    if bias is not None and tuple(bias.shape) != ns:
        raise RuntimeError(f"Expected bias to be of same shape as normalized_shape, but got bias of shape "
                           f"{_shape(bias.shape)} and normalized_shape = {_shape(ns)}")
    if len(shp) < len(ns) or tuple(shp[len(shp) - len(ns):]) != ns:
        raise RuntimeError(f"Given normalized_shape={_shape(ns)}, expected input with shape [*, "
                           f"{', '.join(map(str, ns))}], but got input of size{_shape(shp)}")
    if input._data.dtype.kind != "f":
        raise RuntimeError(f"\"LayerNormKernelImpl\" not implemented for '{_short(input.dtype)}'")
    return NativeLayerNormBackward0.apply(input, weight, bias, ndim_norm=len(ns), eps=eps)


@export(name="batch_norm")
@_torch_name
def torch_batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps, cudnn_enabled):
    """torch.batch_norm: F.batch_norm's kernel under torch's argument order (cudnn_enabled is ignored)."""
    return batch_norm(input, running_mean, running_var, weight, bias, training, momentum, eps)


@export(name="layer_norm")
@_torch_name
def torch_layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-05, cudnn_enable=True):
    """torch.layer_norm: F.layer_norm plus torch's (ignored) cudnn_enable flag."""
    return layer_norm(input, normalized_shape, weight, bias, eps)


# -- group_norm, instance_norm --------------------------------------------------------------------------

@register(category="nn", function=False)
def group_norm(input, num_groups, weight=None, bias=None, eps=1e-5):
    """Normalise [N, C, *] input over groups of C/num_groups channels (NativeGroupNormBackward0)."""
    shp = input._data.shape
    if len(shp) < 2:
        raise RuntimeError(f"Expected at least 2 dimensions for input tensor but received {len(shp)}")
    size = [shp[0] * shp[1] // num_groups, num_groups] + list(shp[2:])
    if size[0] * int(np.prod(size[2:])) == 1:   # torch's _verify_batch_size skips dim 1
        raise ValueError(f"Expected more than 1 value per channel when training, got input size {size}")
    c = shp[1]
    if c % num_groups != 0:
        raise RuntimeError(f"Expected number of channels in input to be divisible by num_groups, but got input of "
                           f"shape {_shape(shp)} and num_groups={num_groups}")
    for name, t in (("weight", weight), ("bias", bias)):
        if t is not None and (t._data.ndim != 1 or t._data.shape[0] != c):
            raise RuntimeError(f"Expected {name} to be a vector of size equal to the number of channels in input, "
                               f"but got {name} of shape {_shape(t._data.shape)} and input of shape {_shape(shp)}")
    if input._data.dtype.kind != "f":
        raise NotImplementedError(f"\"GroupNormKernelImpl\" not implemented for '{_short(input.dtype)}'")
    return NativeGroupNormBackward0.apply(input, weight, bias, int(num_groups), eps)


@export(name="group_norm")
@_torch_name
def torch_group_norm(input, num_groups, weight=None, bias=None, eps=1e-05, cudnn_enabled=True):
    """torch.group_norm: F.group_norm plus torch's (ignored) cudnn_enabled flag."""
    return group_norm(input, num_groups, weight, bias, eps)


@register(category="nn", function=False)
def instance_norm(input, running_mean=None, running_var=None, weight=None, bias=None, use_input_stats=True,
                  momentum=0.1, eps=1e-5):
    """Normalise each (sample, channel) over its positions: batch_norm on the [1, N*C, *] view, as PyTorch
    computes it (ViewBackward0 over NativeBatchNormBackward0); running stats get the mean over samples."""
    shp = input._data.shape
    if use_input_stats:
        if int(np.prod(shp[2:])) == 1:
            raise ValueError(f"Expected more than 1 spatial element when training, got input size {input.size()}")
    b, c = shp[0], shp[1]
    rep = (lambda t: None if t is None else t.repeat(b))
    # torch accepts running stats of another dtype here (batch_norm alone would not): computed in input's
    rm, rv = (None if t is None else rep(t).to(input.dtype) for t in (running_mean, running_var))
    out = batch_norm(input.contiguous().view((1, b * c) + tuple(shp[2:])), rm, rv, rep(weight), rep(bias),
                     use_input_stats, momentum, eps)
    with no_grad():
        for t, r in ((running_mean, rm), (running_var, rv)):
            if t is not None:
                t._data[...] = r._data.reshape(b, c).mean(0)
    return out.view(shp)


@export(name="instance_norm")
@_torch_name
def torch_instance_norm(input, weight, bias, running_mean, running_var, use_input_stats, momentum, eps,
                        cudnn_enabled):
    """torch.instance_norm: F.instance_norm's computation under torch's argument order."""
    return instance_norm(input, running_mean, running_var, weight, bias, use_input_stats, momentum, eps)
