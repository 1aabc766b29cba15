"""torch.nn.functional: layers as functions. Each differentiable kernel is an `Op` whose
class name is PyTorch's grad_fn name (ConvolutionBackward0, NllLossBackward0, ...);
forward runs on NumPy (convolution = im2col + one batched matmul), backward is written
with core ops or with a paired Op (Im2Col <-> Col2Im, max-pool scatter <-> gather, pad
gather <-> scatter), so create_graph=True gives differentiable gradients; hot ops also define
`backward_np`, the same formula on NumPy arrays, used when no graph of the gradient is wanted.
Argument checks raise PyTorch's exception classes with its messages."""
from __future__ import annotations

import inspect
import math
import warnings

import numpy as np
from numpy.lib.stride_tricks import as_strided

from .. import dtypes as _dt
from ..autograd.function import Op
from ..ops.linalg import AddmmBackward0
from ..autograd.grad_mode import STATE, no_grad
from ..tensor import Size, Tensor, _wrap_dim

__all__ = ["linear", "relu", "relu_", "sigmoid", "tanh", "leaky_relu", "gelu", "softmax", "log_softmax",
           "nll_loss", "cross_entropy", "mse_loss", "l1_loss", "binary_cross_entropy", "dropout", "unfold",
           "fold", "conv2d", "max_pool2d", "max_pool2d_with_indices", "avg_pool2d", "batch_norm", "layer_norm",
           "one_hot", "pad", "embedding", "normalize"]


# -- helpers ------------------------------------------------------------------------------------

def _short(d):
    """PyTorch's scalar type name ('Float', 'Long', ...) of a core dtype or NumPy dtype."""
    return _dt.scalar_name(d)


def _cpp_name(d):
    """C++ type name used in some of PyTorch's messages ('float', 'double', 'long int')."""
    return {"float32": "float", "float64": "double", "float16": "c10::Half", "int64": "long int", "int32": "int",
            "int16": "short int", "int8": "signed char", "uint8": "unsigned char", "bool": "bool"}[d.name]


def _shape(s):
    return "[" + ", ".join(map(str, s)) + "]"


def _pair(x):
    if isinstance(x, (list, tuple, Size)):
        if len(x) == 1:
            return (int(x[0]), int(x[0]))
        return tuple(int(v) for v in x)
    return (int(x), int(x))


def _make(arr):
    return Tensor._make(arr)


_REDUCTIONS = {"none": 0, "mean": 1, "sum": 2}


def _reduction(reduction, size_average=None, reduce=None):
    """Validate `reduction` (legacy size_average/reduce flags map onto it, with PyTorch's warning)."""
    if size_average is not None or reduce is not None:
        sa = True if size_average is None else size_average
        rd = True if reduce is None else reduce
        reduction = "mean" if (sa and rd) else ("sum" if rd else "none")
        warnings.warn(f"size_average and reduce args will be deprecated, please use reduction='{reduction}' "
                      "instead.", stacklevel=3)
    if reduction == "elementwise_mean":
        warnings.warn("reduction='elementwise_mean' is deprecated. Please use reduction='mean' instead.",
                      stacklevel=3)
        reduction = "mean"
    if reduction not in _REDUCTIONS:
        raise ValueError(f"{reduction} is not a valid value for reduction")
    return reduction


def _reduce_np(a, reduction):
    if reduction == "none":
        return a
    if reduction == "sum":
        return np.asarray(a.sum(), dtype=a.dtype)
    return np.asarray(a.mean() if a.size else np.nan, dtype=a.dtype)


def _alloc(shape, dtype):
    from ..creation import check_alloc
    check_alloc(shape, dtype)


# -- activations ----------------------------------------------------------------------------------

def relu(input, inplace=False):
    """max(input, 0) elementwise (ReluBackward0)."""
    return input.relu_() if inplace else input.relu()


def relu_(input):
    return input.relu_()


def sigmoid(input):
    """1 / (1 + exp(-input)) (SigmoidBackward0)."""
    return input.sigmoid()


def tanh(input):
    """tanh(input) (TanhBackward0)."""
    return input.tanh()


class LeakyReluBackward0(Op):
    @staticmethod
    def forward(ctx, input, negative_slope):
        x = input._data
        ctx.save_for_backward(input)
        ctx.slope = negative_slope
        return np.where(x > 0, x, x * np.asarray(negative_slope, dtype=x.dtype)).astype(x.dtype, copy=False)

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        d = x._data
        # the derivative is piecewise constant, so a constant mask keeps double backward exact
        return g * _make(np.where(d > 0, 1, ctx.slope).astype(d.dtype))


class LeakyReluBackward1(LeakyReluBackward0):
    """leaky_relu_ (in place) node."""


def leaky_relu(input, negative_slope=0.01, inplace=False):
    """x if x > 0 else negative_slope * x (LeakyReluBackward0)."""
    if input._data.dtype.kind != "f":
        raise NotImplementedError(f"\"leaky_relu_cpu\" not implemented for '{_short(input.dtype)}'")
    if not inplace:
        return LeakyReluBackward0.apply(input, negative_slope)
    from ..ops.inplace import check_inplace, rebase, snapshot, write_result
    check_inplace(input)
    recorded = STATE.grad_enabled and input._requires_grad
    r = LeakyReluBackward1.apply(snapshot(input) if recorded else input, negative_slope)
    write_result(input, r, "leaky_relu_")
    if recorded:
        rebase(input, r)
    return input


def _erf(a):
    import math as _m
    return np.vectorize(_m.erf, otypes=[np.float64])(a) if a.size else a.astype(np.float64)


class GeluBackward0(Op):
    @staticmethod
    def forward(ctx, input, approximate):
        ctx.save_for_backward(input)
        ctx.approximate = approximate
        x = input._data.astype(np.float64)
        if approximate == "tanh":
            y = 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x ** 3)))
        else:
            y = 0.5 * x * (1 + _erf(x / math.sqrt(2)))
        return y.astype(input._data.dtype)

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        if ctx.approximate == "tanh":
            k = math.sqrt(2 / math.pi)
            inner = (x + x * x * x * 0.044715) * k
            t = inner.tanh()
            dinner = (x * x * (3 * 0.044715) + 1) * k
            return g * (0.5 * (1 + t) + 0.5 * x * (1 - t * t) * dinner)
        cdf = 0.5 * (1 + (x * (1 / math.sqrt(2))).erf())
        pdf = (x * x * -0.5).exp() * (1 / math.sqrt(2 * math.pi))
        return g * (cdf + x * pdf)


def gelu(input, approximate="none"):
    """x * Phi(x) (exact, or the tanh approximation) (GeluBackward0)."""
    if approximate not in ("none", "tanh"):
        raise RuntimeError("approximate argument must be either none or tanh.")
    if input._data.dtype.kind != "f":
        raise NotImplementedError(f"\"GeluKernelImpl\" not implemented for '{_short(input.dtype)}'")
    return GeluBackward0.apply(input, approximate)


def _softmax_np(x, dim):
    if x.dtype == np.float16:   # PyTorch computes half softmax in float32
        return _softmax_np(x.astype(np.float32), dim).astype(np.float16)
    m = np.max(x, axis=dim, keepdims=True) if x.size else x
    with np.errstate(invalid="ignore", over="ignore"):
        e = np.exp(x - m)
        return e / e.sum(axis=dim, keepdims=True)


def _log_softmax_np(x, dim):
    if x.dtype == np.float16:
        return _log_softmax_np(x.astype(np.float32), dim).astype(np.float16)
    m = np.max(x, axis=dim, keepdims=True) if x.size else x
    with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
        s = x - m
        return s - np.log(np.exp(s).sum(axis=dim, keepdims=True))


class SoftmaxBackward0(Op):
    save_output = True

    @staticmethod
    def forward(ctx, input, dim):
        ctx.dim = dim
        x = input._data
        return _softmax_np(x, dim) if x.ndim else np.ones_like(x)

    @staticmethod
    def backward(ctx, g):
        (out,) = ctx.saved_tensors
        if out.ndim == 0:
            return g * 0
        return out * (g - (g * out).sum(ctx.dim, keepdim=True))

    @staticmethod
    def backward_np(ctx, g):
        (out,) = ctx.saved_tensors
        o = out._data
        if o.ndim == 0:
            return g * 0
        return o * (g - (g * o).sum(ctx.dim, keepdims=True))


class LogSoftmaxBackward0(Op):
    save_output = True

    @staticmethod
    def forward(ctx, input, dim):
        ctx.dim = dim
        x = input._data
        return _log_softmax_np(x, dim) if x.ndim else np.zeros_like(x)

    @staticmethod
    def backward(ctx, g):
        (out,) = ctx.saved_tensors
        if out.ndim == 0:
            return g * 0
        return g - out.exp() * g.sum(ctx.dim, keepdim=True)

    @staticmethod
    def backward_np(ctx, g):
        (out,) = ctx.saved_tensors
        o = out._data
        if o.ndim == 0:
            return g * 0
        return g - np.exp(o) * g.sum(ctx.dim, keepdims=True)


def _get_softmax_dim(name, ndim, stacklevel):
    warnings.warn(f"Implicit dimension choice for {name} has been deprecated. Change the call to include dim=X as "
                  "an argument.", stacklevel=stacklevel)
    return 0 if ndim in (0, 1, 3) else 1


def _softmax_common(cls, name, input, dim, dtype, stacklevel):
    if dim is None:
        dim = _get_softmax_dim(name, input.dim(), stacklevel + 1)
    d = _wrap_dim(dim, input._data.ndim)
    if dtype is not None:
        input = input.to(_dt.as_dtype(dtype))
    if input._data.dtype.kind != "f":
        last = d == max(input._data.ndim - 1, 0)
        kernel = f"{name}_lastdim_kernel_impl" if last else f"{name}_kernel_impl"
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{_short(input.dtype)}'")
    return cls.apply(input, d)


def softmax(input, dim=None, _stacklevel=3, dtype=None):
    """exp(x) / sum(exp(x)) along dim (SoftmaxBackward0); dim=None picks PyTorch's legacy default with a warning."""
    return _softmax_common(SoftmaxBackward0, "softmax", input, dim, dtype, _stacklevel)


def log_softmax(input, dim=None, _stacklevel=3, dtype=None):
    """x - logsumexp(x) along dim, computed stably (LogSoftmaxBackward0)."""
    return _softmax_common(LogSoftmaxBackward0, "log_softmax", input, dim, dtype, _stacklevel)


# -- linear -----------------------------------------------------------------------------------------

def normalize(input, p=2.0, dim=1, eps=1e-12, out=None):
    """input / max(||input||_p along dim, eps), as torch.nn.functional.normalize computes it."""
    denom = input.norm(p, dim, keepdim=True).clamp_min(eps).expand_as(input)
    if out is not None:
        from ..ops.pointwise import div
        return div(input, denom, out=out)
    return input / denom


def linear(input, weight, bias=None):
    """input @ weight.T + bias. 2-D input with bias is one addmm (AddmmBackward0), like PyTorch."""
    if input._data.ndim == 0 or weight._data.ndim == 0:
        raise RuntimeError(f"both arguments to linear need to be at least 1D, but they are {input._data.ndim}D "
                           f"and {weight._data.ndim}D")
    if bias is None or weight._data.ndim != 2:
        r = input.matmul(weight.t())
        return r if bias is None else r + bias
    k = input._data.shape[-1]
    if k != weight._data.shape[1]:
        rows = int(np.prod(input._data.shape[:-1])) if input._data.ndim > 1 else 1
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({rows}x{k} and "
                           f"{weight._data.shape[1]}x{weight._data.shape[0]})")
    if bias._data.dtype != weight._data.dtype:
        raise RuntimeError(f"self and mat2 must have the same dtype, but got {_short(bias.dtype)} and "
                           f"{_short(weight.dtype)}")
    if input._data.dtype != weight._data.dtype:
        raise RuntimeError(f"mat1 and mat2 must have the same dtype, but got {_short(input.dtype)} and "
                           f"{_short(weight.dtype)}")
    out_f = weight._data.shape[0]
    if input._data.ndim == 2:
        _check_bias_broadcast(bias, (input._data.shape[0], out_f))
        return AddmmBackward0.apply(bias, input, weight.t(), 1, 1)
    lead = input._data.shape[:-1]
    flat = input._data.view()
    try:
        flat.shape = (-1, k)
    except AttributeError:   # not viewable: matmul + add, as PyTorch does for non-contiguous input
        return input.matmul(weight.t()) + bias
    _check_bias_broadcast(bias, (flat.shape[0], out_f))
    r = AddmmBackward0.apply(bias, input.reshape(-1, k), weight.t(), 1, 1)
    return r.view(lead + (out_f,))


def _check_bias_broadcast(bias, target):
    bs = bias._data.shape
    if len(bs) > 2:
        raise RuntimeError(f"expand(torch.{_short(bias.dtype)}Tensor{{{_shape(bs)}}}, size={_shape(target)}): the "
                           f"number of sizes provided ({len(target)}) must be greater or equal to the number of "
                           f"dimensions in the tensor ({len(bs)})")
    pb = (1,) * (2 - len(bs)) + tuple(bs)
    for i in (1, 0):
        if pb[i] != 1 and pb[i] != target[i]:
            raise RuntimeError(f"The expanded size of the tensor ({target[i]}) must match the existing size ({pb[i]}) "
                               f"at non-singleton dimension {i}.  Target sizes: {_shape(target)}.  Tensor sizes: "
                               f"{_shape(bs)}")


# -- dropout --------------------------------------------------------------------------------------

def dropout(input, p=0.5, training=True, inplace=False):
    """Zero each element with probability p and scale the rest by 1/(1-p) (input * noise: MulBackward0);
    returns input itself when not training or p == 0."""
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if p == 0 or not training or input._data.size == 0:
        return input
    from ..creation import default_generator
    dt = input._data.dtype
    if p == 1:
        noise = _make(np.zeros((), dtype=dt))
    else:
        keep = default_generator._rng.random(input._data.shape) < (1 - p)
        noise = _make((keep.astype(dt) / dt.type(1 - p)).astype(dt, copy=False))
    return input.mul_(noise) if inplace else input * noise


# -- im2col / col2im -------------------------------------------------------------------------------

def _out_len(size, lo, hi, k, d, s):
    return (size + lo + hi - d * (k - 1) - 1) // s + 1


def _padded(x, pads, fill=0):
    """x [N, C, H, W] padded by (top, bottom, left, right) with `fill` (a fresh array, or x itself)."""
    pt, pb, pl, pr = pads
    if not (pt or pb or pl or pr):
        return x
    n, c, h, w = x.shape
    if fill == 0:
        out = np.zeros((n, c, h + pt + pb, w + pl + pr), dtype=x.dtype)
    else:
        out = np.full((n, c, h + pt + pb, w + pl + pr), fill, dtype=x.dtype)
    out[:, :, pt:pt + h, pl:pl + w] = x
    return out


def _windows(xp, k, d, s, oh, ow):
    """Read-only strided view [N, C, kh, kw, Ho, Wo] of the sliding blocks of padded xp."""
    n, c = xp.shape[:2]
    sn, sc, sh, sw = xp.strides
    return as_strided(xp, (n, c, k[0], k[1], oh, ow),
                      (sn, sc, sh * d[0], sw * d[1], sh * s[0], sw * s[1]), writeable=False)


def _im2col_np(x, k, d, pads, s):
    """[N, C, H, W] -> [N, C*kh*kw, L] (PyTorch's unfold layout: channel-major, then kernel row, column)."""
    n, c, h, w = x.shape
    oh = _out_len(h, pads[0], pads[1], k[0], d[0], s[0])
    ow = _out_len(w, pads[2], pads[3], k[1], d[1], s[1])
    _alloc((n, c * k[0] * k[1], oh * ow), _dt._FROM_NP[x.dtype])
    v = _windows(_padded(x, pads), k, d, s, oh, ow)
    return np.ascontiguousarray(v).reshape(n, c * k[0] * k[1], oh * ow), oh, ow


def _col2im_np(cols, c, h, w, k, d, pads, s):
    """Adjoint of _im2col_np: sum each block column back into its [C, H, W] positions."""
    n = cols.shape[0]
    kh, kw = k
    pt, pb, pl, pr = pads
    oh = _out_len(h, pt, pb, kh, d[0], s[0])
    ow = _out_len(w, pl, pr, kw, d[1], s[1])
    c6 = cols.reshape(n, c, kh, kw, oh, ow)
    out = np.zeros((n, c, h + pt + pb, w + pl + pr), dtype=cols.dtype)
    hs, ws = s[0] * (oh - 1) + 1, s[1] * (ow - 1) + 1
    for i in range(kh):
        r0 = i * d[0]
        for j in range(kw):
            c0 = j * d[1]
            out[:, :, r0:r0 + hs:s[0], c0:c0 + ws:s[1]] += c6[:, :, i, j]
    if pt or pb or pl or pr:
        out = np.ascontiguousarray(out[:, :, pt:pt + h, pl:pl + w])
    return out


def _conv_input_grad_s1(g, w, c, h, wd, d, pads):
    """Input gradient of a stride-1 convolution: W^T @ grad computed on rows of the padded width,
    so that scattering each kernel tap back is one contiguous add per tap (a flat shift)."""
    n, o, oh, ow = g.shape
    kh, kw = w.shape[2:]
    pt, pb, pl, pr = pads
    hp, wp = h + pt + pb, wd + pl + pr
    gw = np.zeros((n, o, oh, wp), dtype=g.dtype)
    gw[..., :ow] = g
    cols = np.matmul(w.reshape(o, -1).T, gw.reshape(n, o, oh * wp)).reshape(n, c, kh, kw, oh * wp)
    flat = np.zeros((n, c, hp * wp + (kw - 1) * d[1]), dtype=g.dtype)
    span = oh * wp
    for i in range(kh):
        for j in range(kw):
            sh = i * d[0] * wp + j * d[1]
            flat[:, :, sh:sh + span] += cols[:, :, i, j]
    out = flat[:, :, :hp * wp].reshape(n, c, hp, wp)
    if pt or pb or pl or pr:
        out = np.ascontiguousarray(out[:, :, pt:pt + h, pl:pl + wd])
    return out


class Im2ColBackward0(Op):
    @staticmethod
    def forward(ctx, input, k, d, pads, s):
        x = input._data
        batched = x.ndim == 4
        if not batched:
            x = x[None]
        ctx.meta = (x.shape[1], x.shape[2], x.shape[3], k, d, pads, s, batched)
        cols, _, _ = _im2col_np(x, k, d, pads, s)
        return cols if batched else cols[0]

    @staticmethod
    def backward(ctx, g):
        c, h, w, k, d, pads, s, batched = ctx.meta
        return Col2ImBackward0.apply(g, c, (h, w), k, d, pads, s)

    @staticmethod
    def backward_np(ctx, g):
        c, h, w, k, d, pads, s, batched = ctx.meta
        out = _col2im_np(g if batched else g[None], c, h, w, k, d, pads, s)
        return out if batched else out[0]


class Col2ImBackward0(Op):
    @staticmethod
    def forward(ctx, input, c, out_hw, k, d, pads, s):
        x = input._data
        batched = x.ndim == 3
        if not batched:
            x = x[None]
        ctx.meta = (k, d, pads, s)
        _alloc((x.shape[0], c) + tuple(out_hw), input.dtype)
        out = _col2im_np(x, c, out_hw[0], out_hw[1], k, d, pads, s)
        return out if batched else out[0]

    @staticmethod
    def backward(ctx, g):
        k, d, pads, s = ctx.meta
        return Im2ColBackward0.apply(g, k, d, pads, s)

    @staticmethod
    def backward_np(ctx, g):
        k, d, pads, s = ctx.meta
        if g.ndim == 3:
            return _im2col_np(g[None], k, d, pads, s)[0][0]
        return _im2col_np(g, k, d, pads, s)[0]


def _check_im2col_params(k, d, p, s):
    if k[0] <= 0 or k[1] <= 0:
        raise RuntimeError(f"kernel size should be greater than zero, but got kernel_height: {k[0]} "
                           f"kernel_width: {k[1]}")
    if s[0] <= 0 or s[1] <= 0:
        raise RuntimeError(f"stride should be greater than zero, but got stride_height: {s[0]} stride_width: {s[1]}")
    if d[0] <= 0 or d[1] <= 0:
        raise RuntimeError(f"dilation should be greater than zero, but got dilation_height: {d[0]} "
                           f"dilation_width: {d[1]}")
    if p[0] < 0 or p[1] < 0:
        raise RuntimeError(f"padding should be non-negative, but got pad_height: {p[0]} pad_width: {p[1]}")


def unfold(input, kernel_size, dilation=1, padding=0, stride=1):
    """Extract sliding blocks: [N, C, H, W] -> [N, C*kh*kw, L] (Im2ColBackward0); 3-D input is unbatched."""
    k, d, p, s = _pair(kernel_size), _pair(dilation), _pair(padding), _pair(stride)
    nd = input._data.ndim
    if nd < 3:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-max(nd, 1)}, {max(nd, 1) - 1}], "
                         f"but got {nd})")
    _check_im2col_params(k, d, p, s)
    shp = input._data.shape
    if nd > 4 or any(v == 0 for v in shp[-3:]):
        raise RuntimeError("Expected 3D or 4D (batch mode) tensor with possibly 0 batch size and other non-zero "
                           f"dimensions for input, but got: {_shape(shp)}")
    h, w = shp[-2:]
    oh = _out_len(h, p[0], p[0], k[0], d[0], s[0])
    ow = _out_len(w, p[1], p[1], k[1], d[1], s[1])
    if oh < 1 or ow < 1:
        raise RuntimeError(f"Given input with spatial size ({h}, {w}), kernel_size=({k[0]}, {k[1]}), "
                           f"dilation=({d[0]}, {d[1]}), padding=({p[0]}, {p[1]}), calculated shape of the array "
                           f"of sliding blocks as ({oh}, {ow}), but its components must be at least one.")
    return Im2ColBackward0.apply(input, k, d, (p[0], p[0], p[1], p[1]), s)


def fold(input, output_size, kernel_size, dilation=1, padding=0, stride=1):
    """Sum sliding blocks back into an image: [N, C*kh*kw, L] -> [N, C, H, W] (Col2ImBackward0)."""
    o, k, d, p, s = _pair(output_size), _pair(kernel_size), _pair(dilation), _pair(padding), _pair(stride)
    shp = input._data.shape
    nd = len(shp)
    if nd not in (2, 3) or any(v == 0 for v in shp[-2:]):
        raise RuntimeError("Expected 2D or 3D (batch mode) tensor for input with possibly 0 batch size and "
                           f"non-zero dimensions for input, but got: {_shape(shp)}")
    if o[0] <= 0 or o[1] <= 0:
        raise RuntimeError(f"Expected output spatial size to be positive, but got: output_size=({o[0]}, {o[1]}).")
    _check_im2col_params(k, d, p, s)
    cdim = shp[-2]
    if cdim % (k[0] * k[1]) != 0:
        raise RuntimeError("Expected size of input's dimension 1 to be divisible by the product of kernel_size, "
                           f"but got input.size(1)={cdim} and kernel_size=({k[0]}, {k[1]}).")
    oh = _out_len(o[0], p[0], p[0], k[0], d[0], s[0])
    ow = _out_len(o[1], p[1], p[1], k[1], d[1], s[1])
    if oh < 1 or ow < 1:
        raise RuntimeError(f"Given output_size=({o[0]}, {o[1]}), kernel_size=({k[0]}, {k[1]}), dilation=({d[0]}, "
                           f"{d[1]}), padding=({p[0]}, {p[1]}), stride=({s[0]}, {s[1]}), calculated shape of the "
                           f"array of sliding blocks as ({oh}, {ow}), which is invalid.")
    if shp[-1] != oh * ow:
        raise RuntimeError(f"Given output_size=({o[0]}, {o[1]}), kernel_size=({k[0]}, {k[1]}), dilation=({d[0]}, "
                           f"{d[1]}), padding=({p[0]}, {p[1]}), stride=({s[0]}, {s[1]}), expected size of input's "
                           f"dimension 2 to match the calculated number of sliding blocks {oh} * {ow} = {oh * ow}, "
                           f"but got input.size(2)={shp[-1]}.")
    return Col2ImBackward0.apply(input, cdim // (k[0] * k[1]), o, k, d, (p[0], p[0], p[1], p[1]), s)


# -- convolution -------------------------------------------------------------------------------------

class ConvolutionBackward0(Op):
    """2-D convolution as im2col + one batched matmul; groups split the channel axis."""

    grads_per_arg = True

    @staticmethod
    def forward(ctx, input, weight, bias, stride, pads, dilation, groups):
        x, w = input._data, weight._data
        n, c, h, wd = x.shape
        o, cg, kh, kw = w.shape
        k = (kh, kw)
        cols, oh, ow = _im2col_np(x, k, dilation, pads, stride)
        _alloc((n, o, oh, ow), input.dtype)
        kk = cg * kh * kw
        if groups == 1:
            out = np.matmul(w.reshape(o, kk), cols)
        else:
            out = np.matmul(w.reshape(groups, o // groups, kk), cols.reshape(n, groups, kk, oh * ow))
        out = out.reshape(n, o, oh, ow)
        if bias is not None:
            out += bias._data.reshape(o, 1, 1)
        ctx.save_for_backward(input, weight)
        ctx.meta = (stride, pads, dilation, groups, bias is not None)
        return out

    @staticmethod
    def backward(ctx, g):
        input, weight = ctx.saved_tensors
        stride, pads, dilation, groups, has_bias = ctx.meta
        need = ctx.needs_input_grad
        n, c, h, w = input.shape
        o, cg, kh, kw = weight.shape
        k = (kh, kw)
        oh, ow = g.shape[2], g.shape[3]
        kk = cg * kh * kw
        gm = g.reshape(n, groups, o // groups, oh * ow)
        gi = gw = gb = None
        if need[0]:
            wt = weight.reshape(groups, o // groups, kk).transpose(1, 2)
            gcols = wt.matmul(gm).reshape(n, groups * kk, oh * ow)
            gi = Col2ImBackward0.apply(gcols, c, (h, w), k, dilation, pads, stride)
        if need[1]:
            cols = Im2ColBackward0.apply(input, k, dilation, pads, stride).reshape(n, groups, kk, oh * ow)
            gw = gm.matmul(cols.transpose(2, 3)).sum(0).reshape(o, cg, kh, kw)
        if has_bias and len(need) > 2 and need[2]:
            gb = g.sum((0, 2, 3))
        return gi, gw, gb

    @staticmethod
    def backward_np(ctx, g):
        input, weight = ctx.saved_tensors
        stride, pads, dilation, groups, has_bias = ctx.meta
        need = ctx.needs_input_grad
        x, w = input._data, weight._data
        n, c, h, wd = x.shape
        o, cg, kh, kw = w.shape
        k = (kh, kw)
        oh, ow = g.shape[2], g.shape[3]
        kk, og, L = cg * kh * kw, o // groups, oh * ow
        gi = gw = gb = None
        if groups == 1:
            gm = g.reshape(n, o, L)
            if need[0]:
                if stride == (1, 1):
                    gi = _conv_input_grad_s1(g, w, c, h, wd, dilation, pads)
                else:
                    gi = _col2im_np(np.matmul(w.reshape(o, kk).T, gm), c, h, wd, k, dilation, pads, stride)
            if need[1]:
                cols = _im2col_np(x, k, dilation, pads, stride)[0]
                gw = (gm[0] @ cols[0].T if n == 1 else np.tensordot(gm, cols, axes=([0, 2], [0, 2])))
                gw = gw.reshape(o, cg, kh, kw)
        else:
            gm = g.reshape(n, groups, og, L)
            if need[0]:
                gcols = np.matmul(w.reshape(groups, og, kk).transpose(0, 2, 1), gm).reshape(n, groups * kk, L)
                gi = _col2im_np(gcols, c, h, wd, k, dilation, pads, stride)
            if need[1]:
                cols = _im2col_np(x, k, dilation, pads, stride)[0].reshape(n, groups, kk, L)
                gw = np.matmul(gm, cols.transpose(0, 1, 3, 2)).sum(0).reshape(o, cg, kh, kw)
        if has_bias and len(need) > 2 and need[2]:
            gb = g.sum((0, 2, 3))
        return gi, gw, gb


_CONV_SIGNATURES = (
    "conv2d() received an invalid combination of arguments - got ({}), but expected one of:\n"
    " * (Tensor input, Tensor weight, Tensor bias = None, tuple of ints stride = 1, tuple of ints padding = 0, "
    "tuple of ints dilation = 1, int groups = 1)\n"
    " * (Tensor input, Tensor weight, Tensor bias = None, tuple of ints stride = 1, str padding = \"valid\", "
    "tuple of ints dilation = 1, int groups = 1)\n")


def _argtype(a):
    if isinstance(a, Tensor):
        return type(a).__name__   # 'Tensor' or 'Parameter', as PyTorch's argument parser prints
    if isinstance(a, (tuple, list)):
        return f"{type(a).__name__} of ({', '.join(_argtype(x) for x in a)})"
    return type(a).__name__


def _int_or_ints(v):
    if isinstance(v, bool):
        return False
    if isinstance(v, (int, np.integer)):
        return True
    return isinstance(v, (tuple, list, Size)) and all(isinstance(x, (int, np.integer)) and not isinstance(x, bool)
                                                      for x in v)


def _conv2d_impl(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """conv2d's signature (conv2d binds its arguments by hand to report them like PyTorch's parser)."""


def _expand_param(name, v, k):
    vals = [int(v)] * 2 if isinstance(v, (int, np.integer)) else [int(x) for x in v]
    if len(vals) == 1:
        vals = vals * k
    if len(vals) != k:
        raise RuntimeError(f"expected {name} to be a single integer value or a list of {k} values to match the "
                           f"convolution dimensions, but got {name}=[{', '.join(map(str, vals))}]")
    return tuple(vals)


def conv2d(*args, **kwargs):
    """2-D cross-correlation of input [N, C, H, W] (or unbatched [C, H, W]) with weight [O, C/groups, kh, kw]
    (ConvolutionBackward0); padding may be an int, a pair, 'valid' or 'same'."""
    vals = dict(zip(_CONV_NAMES, args))
    for k, v in kwargs.items():
        if k in vals or k not in _CONV_DEFAULTS:
            raise TypeError(_CONV_SIGNATURES.format(_got(args, kwargs)))
        vals[k] = v
    if len(args) > len(_CONV_NAMES) or "input" not in vals or "weight" not in vals:
        raise TypeError(_CONV_SIGNATURES.format(_got(args, kwargs)))
    input, weight, bias, stride, padding, dilation, groups = (vals.get(k, _CONV_DEFAULTS[k]) for k in _CONV_NAMES)
    ok = (isinstance(input, Tensor) and isinstance(weight, Tensor) and (bias is None or isinstance(bias, Tensor))
          and _int_or_ints(stride) and (_int_or_ints(padding) or isinstance(padding, str)) and _int_or_ints(dilation)
          and isinstance(groups, (int, np.integer)) and not isinstance(groups, bool))
    if not ok:
        raise TypeError(_CONV_SIGNATURES.format(_got(args, kwargs)))
    nd = input._data.ndim
    if nd not in (3, 4):
        raise RuntimeError(f"Expected 3D (unbatched) or 4D (batched) input to conv2d, but got input of size: "
                           f"{_shape(input._data.shape)}")
    if nd == 3:
        return conv2d(input.unsqueeze(0), weight, bias, stride, padding, dilation, groups).squeeze(0)
    kdims = weight._data.ndim - 2
    stride = _expand_param("stride", stride, kdims)
    dilation = _expand_param("dilation", dilation, kdims)
    if isinstance(padding, str):
        if padding not in ("same", "valid"):
            raise RuntimeError(f"Invalid padding string: '{padding}'")
    else:
        padding = _expand_param("padding", padding, kdims)
    if any(s <= 0 for s in stride):
        raise RuntimeError("non-positive stride is not supported")
    if not isinstance(padding, str) and any(p < 0 for p in padding):
        raise RuntimeError("negative padding is not supported")
    if any(x <= 0 for x in dilation):
        raise RuntimeError("non-positive dilation is not supported")
    if groups <= 0:
        raise RuntimeError("non-positive groups is not supported")
    ws = weight._data.shape
    if kdims != 2:
        raise RuntimeError(f"expected stride to be a single integer value or a list of {kdims} values to match the "
                           f"convolution dimensions, but got stride=[{', '.join(map(str, stride))}]")
    if ws[0] % groups != 0:
        raise RuntimeError(f"Given groups={groups}, expected weight to be divisible by {groups} at dimension 0, but "
                           f"got weight of size [{_shape(ws)}] instead")
    c = input._data.shape[1]
    if c != ws[1] * groups:
        raise RuntimeError(f"Given groups={groups}, weight of size {_shape(ws)}, expected input"
                           f"{_shape(input._data.shape)} to have {ws[1] * groups} channels, but got {c} channels "
                           "instead")
    if bias is not None and (bias._data.ndim != 1 or bias._data.shape[0] != ws[0]):
        raise RuntimeError(f"Given weight of size {_shape(ws)}, expected bias to be 1-dimensional with {ws[0]} "
                           f"elements, but got bias of size {_shape(bias._data.shape)} instead")
    if isinstance(padding, str):
        if padding == "valid":
            pads = (0, 0, 0, 0)
        else:
            if any(s != 1 for s in stride):
                raise RuntimeError("padding='same' is not supported for strided convolutions")
            tot = [dilation[i] * (ws[2 + i] - 1) for i in range(2)]
            pads = (tot[0] // 2, tot[0] - tot[0] // 2, tot[1] // 2, tot[1] - tot[1] // 2)
    else:
        pads = (padding[0], padding[0], padding[1], padding[1])
    h, w = input._data.shape[2:]
    ph, pw = h + pads[0] + pads[1], w + pads[2] + pads[3]
    ekh, ekw = dilation[0] * (ws[2] - 1) + 1, dilation[1] * (ws[3] - 1) + 1
    if ph < ekh or pw < ekw:
        raise RuntimeError(f"Calculated padded input size per channel: ({ph} x {pw}). Kernel size: ({ekh} x {ekw}). "
                           "Kernel size can't be greater than actual input size")
    if input._data.dtype != weight._data.dtype:
        if input._data.dtype == np.float32 and input._data.shape[0] > 1:   # PyTorch's mkldnn path
            raise RuntimeError(f"Input type ({input.type()}) and weight type ({weight.type()}) should be the same or "
                               "input should be a MKLDNN tensor and weight is a dense tensor")
        raise RuntimeError(f"expected scalar type {_short(input.dtype)} but found {_short(weight.dtype)}")
    if bias is not None and bias._data.dtype != input._data.dtype:
        raise RuntimeError(f"Input type ({_cpp_name(input.dtype)}) and bias type ({_cpp_name(bias.dtype)}) should "
                           "be the same")
    return ConvolutionBackward0.apply(input, weight, bias, stride, pads, dilation, int(groups))


_CONV_SIG = inspect.signature(_conv2d_impl)
_CONV_NAMES = tuple(_CONV_SIG.parameters)
_CONV_DEFAULTS = {k: (None if p.default is inspect.Parameter.empty else p.default)
                  for k, p in _CONV_SIG.parameters.items()}
conv2d.__signature__ = _CONV_SIG


def _got(args, kwargs):
    return ", ".join([_argtype(a) for a in args] + [f"{k}={_argtype(v)}" for k, v in kwargs.items()])


# -- pooling -------------------------------------------------------------------------------------------

def _pool_out(size, k, pad, s, d, ceil_mode):
    """PyTorch's pooling_output_shape (the last window must start inside the input or left padding)."""
    num = size + 2 * pad - d * (k - 1) - 1 + (s - 1 if ceil_mode else 0)
    out = num // s + 1
    if ceil_mode and (out - 1) * s >= size + pad:
        out -= 1
    return out


def _pool_args(name, kernel_size, stride, padding, dilation=1):
    def pair(v, what):
        if isinstance(v, (list, tuple)):
            if len(v) not in (1, 2):
                raise RuntimeError(f"{name}: {what} must either be a single int, or a tuple of two ints")
            return (int(v[0]), int(v[0])) if len(v) == 1 else (int(v[0]), int(v[1]))
        return (int(v), int(v))
    k = pair(kernel_size, "kernel_size")
    if stride is None or (isinstance(stride, (list, tuple)) and len(stride) == 0):
        s = k
    else:
        if isinstance(stride, (list, tuple)) and len(stride) not in (1, 2):
            raise RuntimeError(f"{name}: stride must either be omitted, a single int, or a tuple of two ints")
        s = pair(stride, "stride")
    p = pair(padding, "padding")
    d = pair(dilation, "dilation")
    return k, s, p, d


def _pool_checks(input, k, s, p, d, ceil_mode, name):
    if s[0] == 0 or s[1] == 0:
        raise RuntimeError("stride should not be zero")
    if k[0] <= 0 or k[1] <= 0:
        raise RuntimeError(f"kernel size should be greater than zero, but got kH: {k[0]} kW: {k[1]}")
    if d[0] <= 0 or d[1] <= 0:
        raise RuntimeError(f"dilation should be greater than zero, but got dilationH: {d[0]} dilationW: {d[1]}")
    for i in range(2):
        if p[i] > ((k[i] - 1) * d[i] + 1) // 2:
            raise RuntimeError(f"pad should be at most half of effective kernel size, but got pad={p[i]}, "
                               f"kernel_size={k[i]} and dilation={d[i]}")
    shp = input._data.shape
    c, h, w = shp[-3:]
    oh = _pool_out(h, k[0], p[0], s[0], d[0], ceil_mode)
    ow = _pool_out(w, k[1], p[1], s[1], d[1], ceil_mode)
    if oh < 1 or ow < 1:
        raise RuntimeError(f"Given input size: ({c}x{h}x{w}). Calculated output size: ({c}x{oh}x{ow}). Output size "
                           "is too small")
    return oh, ow


def _pool_pads(h, w, k, s, p, d, oh, ow):
    """(top, bottom, left, right) so that every window of the output lies inside the padded array."""
    need_h = (oh - 1) * s[0] + d[0] * (k[0] - 1) + 1
    need_w = (ow - 1) * s[1] + d[1] * (k[1] - 1) + 1
    return (p[0], max(p[0], need_h - h - p[0]), p[1], max(p[1], need_w - w - p[1]))


def _kernel_slices(k, d, s, oh, ow):
    hs, ws = s[0] * (oh - 1) + 1, s[1] * (ow - 1) + 1
    for i in range(k[0]):
        for j in range(k[1]):
            r0, c0 = i * d[0], j * d[1]
            yield i, j, (slice(None), slice(None), slice(r0, r0 + hs, s[0]), slice(c0, c0 + ws, s[1]))


def _maxpool_scatter_np(gd, idx, in_shape, disjoint):
    """Add each pooled gradient into the input position its window's maximum came from."""
    h, w = in_shape[-2:]
    nc = int(np.prod(in_shape[:-2]))
    flat = (np.arange(nc).reshape((nc, 1)) * (h * w) + idx.reshape(nc, -1)).ravel()
    if disjoint:   # non-overlapping windows: no position is hit twice
        out = np.zeros(nc * h * w, dtype=gd.dtype)
        out[flat] = gd.ravel()
    else:
        out = np.bincount(flat, weights=gd.ravel(), minlength=nc * h * w).astype(gd.dtype, copy=False)
    return out.reshape(in_shape)


class MaxPool2DWithIndicesBackward0(Op):
    @staticmethod
    def forward(ctx, input, k, s, p, d, out_hw):
        x = input._data
        batched = x.ndim == 4
        if not batched:
            x = x[None]
        n, c, h, w = x.shape
        oh, ow = out_hw
        pads = _pool_pads(h, w, k, s, p, d, oh, ow)
        low = -np.inf if x.dtype.kind == "f" else np.iinfo(x.dtype).min
        xp = _padded(x, pads, fill=low)
        best = None
        arg = np.zeros((n, c, oh, ow), dtype=np.int64)
        for i, j, sl in _kernel_slices(k, d, s, oh, ow):
            v = xp[sl]
            if best is None:
                best = v.copy()
                continue
            take = v > best
            if x.dtype.kind == "f":
                take |= np.isnan(v)
            np.copyto(best, v, where=take)
            np.copyto(arg, i * k[1] + j, where=take)
        rows = np.arange(oh)[:, None] * s[0] - p[0] + (arg // k[1]) * d[0]
        cols = np.arange(ow)[None, :] * s[1] - p[1] + (arg % k[1]) * d[1]
        if p[0] or p[1] or x.dtype.kind == "f":
            # a window whose real values are all -inf: PyTorch reports its first real position
            bad = (rows < 0) | (cols < 0) | (rows >= h) | (cols >= w)
            if bad.any():
                r0 = np.arange(oh)[:, None] * s[0] - p[0]
                c0 = np.arange(ow)[None, :] * s[1] - p[1]
                r0 = np.where(r0 < 0, r0 + (-r0 + d[0] - 1) // d[0] * d[0], r0)
                c0 = np.where(c0 < 0, c0 + (-c0 + d[1] - 1) // d[1] * d[1], c0)
                rows = np.where(bad, np.broadcast_to(r0, rows.shape), rows)
                cols = np.where(bad, np.broadcast_to(c0, cols.shape), cols)
        idx = rows * w + cols
        ctx.save_for_backward(_make(idx))
        ctx.meta = (x.shape, batched, all(s[i] >= (k[i] - 1) * d[i] + 1 for i in range(2)))
        if not batched:
            return best[0], idx[0]
        return best, idx

    @staticmethod
    def backward(ctx, g, g_idx=None):
        (idx,) = ctx.saved_tensors
        shape, batched, disjoint = ctx.meta
        return MaxPool2DWithIndicesBackwardBackward0.apply(g, idx, shape if batched else shape[1:], disjoint)

    @staticmethod
    def backward_np(ctx, g, g_idx=None):
        (idx,) = ctx.saved_tensors
        shape, batched, disjoint = ctx.meta
        return _maxpool_scatter_np(g, idx._data, shape if batched else shape[1:], disjoint)


class MaxPool2DWithIndicesBackwardBackward0(Op):
    """Scatter pooled gradients to the arg-max positions (max-pool's backward); its adjoint gathers."""

    @staticmethod
    def forward(ctx, g, idx, in_shape, disjoint):
        ctx.save_for_backward(idx)
        return _maxpool_scatter_np(g._data, idx._data, in_shape, disjoint)

    @staticmethod
    def backward(ctx, gg):
        (idx,) = ctx.saved_tensors
        return MaxPoolGatherBackward0.apply(gg, idx), None


class MaxPoolGatherBackward0(Op):
    """out[n, c, i, j] = input[n, c].flatten()[indices[n, c, i, j]] (max-pool's double backward)."""

    @staticmethod
    def forward(ctx, input, idx):
        ctx.save_for_backward(idx)
        ctx.shape = input._data.shape
        x = input._data
        lead = x.shape[:-2]
        flat = x.reshape(lead + (-1,))
        return np.take_along_axis(flat, idx._data.reshape(lead + (-1,)), -1).reshape(idx._data.shape)

    @staticmethod
    def backward(ctx, g):
        (idx,) = ctx.saved_tensors
        return MaxPool2DWithIndicesBackwardBackward0.apply(g, idx, ctx.shape, False), None


def max_pool2d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
                            return_indices=True):
    """Max over sliding windows plus the flat (h*W + w) index of each maximum."""
    k, s, p, d = _pool_args("max_pool2d", kernel_size, stride, padding, dilation)
    nd = input._data.ndim
    if nd not in (3, 4) or any(v == 0 for v in input._data.shape[-3:]):
        raise RuntimeError("non-empty 3D or 4D (batch mode) tensor expected for input")
    oh, ow = _pool_checks(input, k, s, p, d, ceil_mode, "max_pool2d")
    out, idx = MaxPool2DWithIndicesBackward0.apply(input, k, s, p, d, (oh, ow))
    return out, idx


def max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    """Max over kh x kw windows (MaxPool2DWithIndicesBackward0); stride defaults to kernel_size."""
    out, idx = max_pool2d_with_indices(input, kernel_size, stride, padding, dilation, ceil_mode)
    return (out, idx) if return_indices else out


def _avg_divisor(h, w, k, s, p, oh, ow, count_include_pad, divisor_override):
    def axis(size, kk, ss, pp, o):
        start = np.arange(o) * ss - pp
        end = np.minimum(start + kk, size + pp)
        pool = end - start
        return pool, np.minimum(end, size) - np.maximum(start, 0)
    ph, ch = axis(h, k[0], s[0], p[0], oh)
    pw, cw = axis(w, k[1], s[1], p[1], ow)
    if divisor_override:
        return np.full((oh, ow), divisor_override, dtype=np.int64)
    if count_include_pad:
        return ph[:, None] * pw[None, :]
    return np.maximum(ch[:, None] * cw[None, :], 1)


def _avgpool_spread_np(gd, in_shape, k, s, p, divisor):
    """Spread each pooled gradient / divisor uniformly over its window (avg-pool's backward)."""
    batched = gd.ndim == 4
    if not batched:
        gd = gd[None]
    n, c, oh, ow = gd.shape
    h, w = in_shape[-2:]
    pads = _pool_pads(h, w, k, s, p, (1, 1), oh, ow)
    out = np.zeros((n, c, h + pads[0] + pads[1], w + pads[2] + pads[3]), dtype=gd.dtype)
    share = gd / divisor.astype(gd.dtype)
    for _, _, sl in _kernel_slices(k, (1, 1), s, oh, ow):
        out[sl] += share
    out = np.ascontiguousarray(out[:, :, pads[0]:pads[0] + h, pads[2]:pads[2] + w])
    return out if batched else out[0]


class AvgPool2DBackward0(Op):
    @staticmethod
    def forward(ctx, input, k, s, p, out_hw, divisor):
        x = input._data
        batched = x.ndim == 4
        if not batched:
            x = x[None]
        n, c, h, w = x.shape
        oh, ow = out_hw
        xp = _padded(x, _pool_pads(h, w, k, s, p, (1, 1), oh, ow))
        acc = np.zeros((n, c, oh, ow), dtype=np.float64 if x.dtype.kind != "f" else x.dtype)
        for _, _, sl in _kernel_slices(k, (1, 1), s, oh, ow):
            acc += xp[sl]
        if x.dtype.kind == "f":
            out = acc / divisor.astype(x.dtype)
        else:
            out = np.trunc(acc / divisor).astype(x.dtype)
        ctx.meta = (x.shape, batched, k, s, p, divisor)
        return out if batched else out[0]

    @staticmethod
    def backward(ctx, g):
        shape, batched, k, s, p, divisor = ctx.meta
        return AvgPool2DBackwardBackward0.apply(g, shape if batched else shape[1:], k, s, p, divisor)

    @staticmethod
    def backward_np(ctx, g):
        shape, batched, k, s, p, divisor = ctx.meta
        return _avgpool_spread_np(g, shape if batched else shape[1:], k, s, p, divisor)


class AvgPool2DBackwardBackward0(Op):
    """Spread each pooled gradient / divisor over its window (avg-pool's backward); its adjoint is avg-pool."""

    @staticmethod
    def forward(ctx, g, in_shape, k, s, p, divisor):
        ctx.meta = (k, s, p, tuple(g._data.shape[-2:]), divisor)
        return _avgpool_spread_np(g._data, in_shape, k, s, p, divisor)

    @staticmethod
    def backward(ctx, gg):
        k, s, p, out_hw, divisor = ctx.meta
        return AvgPool2DBackward0.apply(gg, k, s, p, out_hw, divisor)


def avg_pool2d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
               divisor_override=None):
    """Mean over kh x kw windows (AvgPool2DBackward0); padding counts in the divisor unless
    count_include_pad=False; divisor_override replaces the divisor."""
    nd = input._data.ndim
    if nd < 3:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-max(nd, 1)}, {max(nd, 1) - 1}], "
                         "but got -3)")
    if nd > 4:
        raise RuntimeError("Expected 3D or 4D (batch mode) tensor with optional 0 dim batch size for input, but got:"
                           f"{_shape(input._data.shape)}")
    k, s, p, d = _pool_args("avg_pool2d", kernel_size, stride, padding)
    if divisor_override is not None and divisor_override == 0:
        raise RuntimeError("divisor must be not zero")
    oh, ow = _pool_checks(input, k, s, p, d, ceil_mode, "avg_pool2d")
    h, w = input._data.shape[-2:]
    divisor = _avg_divisor(h, w, k, s, p, oh, ow, count_include_pad, divisor_override)
    return AvgPool2DBackward0.apply(input, k, s, p, (oh, ow), divisor)


# -- normalisation -------------------------------------------------------------------------------------

class NativeBatchNormBackward0(Op):
    """Batch norm over every dim but 1; training mode normalises with batch statistics and updates the
    running stats in place (momentum, unbiased variance), eval mode uses the running stats."""

    grads_per_arg = True

    @staticmethod
    def forward(ctx, input, weight, bias, running_mean=None, running_var=None, training=False, momentum=0.1,
                eps=1e-5):
        x = input._data
        c = x.shape[1]
        axes = (0,) + tuple(range(2, x.ndim))
        bshape = (1, c) + (1,) * (x.ndim - 2)
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
            invstd = 1.0 / np.sqrt(running_var._data.astype(np.float64) + eps)
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
        return out

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
    c = shp[1] if len(shp) > 1 else 0
    for name, t in (("weight", weight), ("bias", bias), ("running_mean", running_mean), ("running_var", running_var)):
        if t is not None and t.numel() != c:
            raise RuntimeError(f"{name} should contain {c} elements not {t.numel()}")
    if not training and (running_mean is None or running_var is None):
        raise RuntimeError(("running_mean" if running_mean is None else "running_var")
                           + " must be defined in evaluation mode")
    if input._data.dtype.kind != "f":
        raise RuntimeError(f"\"batch_norm\" not implemented for '{_short(input.dtype)}'")
    return NativeBatchNormBackward0.apply(input, weight, bias, running_mean=running_mean, running_var=running_var,
                                          training=bool(training), momentum=momentum, eps=eps)


class NativeLayerNormBackward0(Op):
    """Normalise over the last len(normalized_shape) dims, then scale and shift elementwise."""

    grads_per_arg = True

    @staticmethod
    def forward(ctx, input, weight, bias, ndim_norm=1, eps=1e-5):
        x = input._data
        axes = tuple(range(x.ndim - ndim_norm, x.ndim))
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
        return gi, gw, gb

    @staticmethod
    def backward_np(ctx, g):
        x, w, mean, rstd = ctx.saved_tensors
        axes, lead, eps = ctx.meta
        need = ctx.needs_input_grad
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


# -- losses -------------------------------------------------------------------------------------------

def _nll_parts(x, t, w, ignore_index):
    """(class index array, per-element weights) for input x [N, C, *] and target t [N, *]."""
    c = x.shape[1]
    valid = t != ignore_index
    tt = np.where(valid, t, 0).astype(np.int64, copy=False)
    bad = (tt < 0) | (tt >= c)
    if bad.any():
        raise IndexError(f"Target {int(t[bad].ravel()[0])} is out of bounds.")
    wt = (w[tt] if w is not None else np.ones(tt.shape, dtype=x.dtype)) * valid
    return tt, wt.astype(x.dtype, copy=False), valid


def _nll_grad_np(gd, t, w, reduction, ignore_index, in_shape, total):
    """d nll_loss / d input: -weight[t] * grad (divided by the total weight for 'mean') at the target class."""
    shape2 = in_shape if len(in_shape) > 1 else (1,) + tuple(in_shape)
    if len(in_shape) == 1:
        t = t.reshape(1)
    out = np.zeros(shape2, dtype=gd.dtype)
    tt, wt, valid = _nll_parts(out, t, w, ignore_index)
    if reduction == "none":
        scale = gd.reshape(tt.shape)
    elif reduction == "sum":
        scale = gd
    else:
        with np.errstate(invalid="ignore", divide="ignore"):
            scale = gd / gd.dtype.type(total)
    with np.errstate(invalid="ignore"):
        vals = np.where(valid, -wt * scale, 0)   # ignored targets get no gradient at all, as in PyTorch
    np.put_along_axis(out, np.expand_dims(tt, 1), np.expand_dims(vals, 1).astype(gd.dtype, copy=False), 1)
    return out.reshape(in_shape)


class NllLossBackward0(Op):
    """-input[n, target[n]] * weight[target[n]], reduced; ignore_index entries count zero."""

    @staticmethod
    def forward(ctx, input, target=None, weight=None, reduction="mean", ignore_index=-100):
        x, t = input._data, target._data
        if x.ndim == 1:
            x, t = x[None], t.reshape(1)
        tt, wt, _ = _nll_parts(x, t, None if weight is None else weight._data, ignore_index)
        picked = np.take_along_axis(x, np.expand_dims(tt, 1), 1).squeeze(1)
        losses = -picked * wt
        total = wt.sum(dtype=np.float64)
        ctx.save_for_backward(target, weight)
        ctx.meta = (input._data.shape, reduction, ignore_index, float(total))
        if reduction == "none":
            return losses.reshape(target._data.shape)
        s = losses.sum(dtype=np.float64)
        if reduction == "sum":
            return np.asarray(s, dtype=x.dtype)
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.asarray(s / total, dtype=x.dtype)

    @staticmethod
    def backward(ctx, g):
        target, weight = ctx.saved_tensors
        shape, reduction, ignore_index, total = ctx.meta
        return NllLossBackwardBackward0.apply(g, target=target, weight=weight, reduction=reduction,
                                              ignore_index=ignore_index, in_shape=shape, total=total)

    @staticmethod
    def backward_np(ctx, g):
        target, weight = ctx.saved_tensors
        shape, reduction, ignore_index, total = ctx.meta
        return _nll_grad_np(g, target._data, None if weight is None else weight._data, reduction, ignore_index,
                            shape, total)


class NllLoss2DBackward0(NllLossBackward0):
    pass


class NllLossBackwardBackward0(Op):
    """Dense gradient of nll_loss: -weight[t] * grad at the target class; its adjoint is nll_loss itself."""

    @staticmethod
    def forward(ctx, g, target=None, weight=None, reduction="mean", ignore_index=-100, in_shape=None, total=1.0):
        ctx.save_for_backward(target, weight)
        ctx.meta = (reduction, ignore_index, len(in_shape))
        return _nll_grad_np(g._data, target._data, None if weight is None else weight._data, reduction,
                            ignore_index, in_shape, total)

    @staticmethod
    def backward(ctx, gg):
        target, weight = ctx.saved_tensors
        reduction, ignore_index, nd = ctx.meta
        cls = NllLoss2DBackward0 if nd >= 3 else NllLossBackward0
        return cls.apply(gg, target=target, weight=weight, reduction=reduction, ignore_index=ignore_index)


def nll_loss(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None, reduction="mean"):
    """Negative log-likelihood of target classes given log-probabilities input [N, C, *] (or [C])
    (NllLossBackward0; NllLoss2DBackward0 for spatial inputs)."""
    reduction = _reduction(reduction, size_average, reduce)
    nd = input._data.ndim
    tshape = target._data.shape
    if nd < 1:
        raise ValueError(f"Expected 1 or more dimensions (got {nd})")
    if nd == 1 and len(tshape) == 1 and tshape[0] != 1:
        raise ValueError(f"For 1D input, 1D target must have size 1, but got target size: {tshape[0]}")
    if nd != 1 and len(tshape) >= 1 and input._data.shape[0] != tshape[0]:
        raise ValueError(f"Expected input batch_size ({input._data.shape[0]}) to match target batch_size "
                         f"({tshape[0]}).")
    shp = input._data.shape
    if nd <= 2:
        if len(tshape) > 1:
            raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
        if nd == 2 and (len(tshape) != 1 or tshape[0] != shp[0]):
            raise RuntimeError(f"size mismatch (got input: {_shape(shp)}, target: {_shape(tshape)})")
    elif nd == 4:
        if len(tshape) != 3:
            raise RuntimeError(f"only batches of spatial targets supported (3D tensors) but got targets of dimension: "
                               f"{len(tshape)}")
        if tuple(tshape) != (shp[0],) + tuple(shp[2:]):
            raise RuntimeError(f"size mismatch (got input: {_shape(shp)} , target: {_shape(tshape)}")
    else:
        if tuple(tshape[1:]) != tuple(shp[2:]):
            raise RuntimeError(f"Expected target size {_shape((shp[0],) + tuple(shp[2:]))}, got {_shape(tshape)}")
    if target._data.dtype not in (np.int64, np.uint8):
        raise RuntimeError(f"expected target dtype to be Long or Byte, but got {_short(target.dtype)}")
    c = shp[1] if nd > 1 else shp[0]
    if weight is not None:
        if weight._data.ndim != 1 or weight._data.shape[0] != c:
            raise RuntimeError(f"weight tensor should be defined either for all {c} classes or no classes but got "
                               f"weight tensor of shape: {_shape(weight._data.shape)}")
        if weight._requires_grad and STATE.grad_enabled:
            raise RuntimeError("The function 'nll_loss_forward' is not differentiable with respect to argument "
                               "'weight'. This input cannot have requires_grad True.")
    kw = dict(target=target, weight=weight, reduction=reduction, ignore_index=ignore_index)
    if nd <= 2:
        return NllLossBackward0.apply(input, **kw)
    if nd == 4:
        return NllLoss2DBackward0.apply(input, **kw)
    # 3-D and >4-D go through the 4-D kernel via views, as PyTorch does
    n = shp[0]
    x4 = input.reshape(n, c, 1, -1)
    kw["target"] = target.reshape(n, 1, -1)
    r = NllLoss2DBackward0.apply(x4, **kw)
    return r.view(tshape) if reduction == "none" else r


def cross_entropy(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None, reduction="mean",
                  label_smoothing=0.0):
    """log_softmax over the class dim followed by nll_loss (class-index targets), or the soft-label
    form -(target * log_softmax(input)).sum(class dim) when target has input's shape."""
    reduction = _reduction(reduction, size_average, reduce)
    if not 0.0 <= label_smoothing <= 1.0:
        raise RuntimeError(f"label_smoothing must be between 0.0 and 1.0. Got: {label_smoothing}")
    class_dim = 0 if input._data.ndim == 1 else 1
    n_classes = input._data.shape[class_dim] if input._data.ndim else 1
    if tuple(input._data.shape) == tuple(target._data.shape):
        if target._data.dtype.kind != "f":
            raise RuntimeError(f"Expected floating point type for target with class probabilities, got "
                               f"{_short(target.dtype)}")
        if weight is not None and (weight._data.ndim != 1 or weight._data.shape[0] != n_classes):
            raise RuntimeError(f"cross_entropy: weight tensor should be defined either for all {n_classes} classes "
                               f"or no classes but got weight tensor of shape: {_shape(weight._data.shape)}")
        logp = log_softmax(input, class_dim)
        if label_smoothing > 0:
            target = target * (1 - label_smoothing) + label_smoothing / n_classes
        prod = logp * target
        if weight is not None:
            wshape = [1] * input._data.ndim
            wshape[class_dim] = n_classes
            prod = prod * weight.view(wshape)
        if reduction == "mean":
            if input._data.size == 0:
                return -(prod.sum() * float("nan"))
            return -prod.sum() / (input._data.size / n_classes)
        if reduction == "sum":
            return -prod.sum()
        return -prod.sum(class_dim)
    logp = log_softmax(input, class_dim)
    nll = nll_loss(logp, target, weight, None, ignore_index, None, reduction)
    if label_smoothing <= 0:
        return nll
    ignore = Tensor._make((target._data == ignore_index))
    keep = Tensor._make((~ignore._data).astype(logp._data.dtype))
    if weight is not None:
        wshape = [1] * input._data.ndim
        wshape[class_dim] = n_classes
        smooth = -(logp * weight.view(wshape)).sum(class_dim)
    else:
        smooth = -logp.sum(class_dim)
    smooth = smooth.masked_fill(ignore, 0.0)   # masked, not multiplied: no 0 * inf in backward
    if reduction == "mean":
        if weight is not None:
            t = target._data[~ignore._data]
            ret = smooth.sum() / float(weight._data[t].sum())
        else:
            ret = smooth.sum() / float(keep._data.sum())
    elif reduction == "sum":
        ret = smooth.sum()
    else:
        ret = smooth
    return (1 - label_smoothing) * nll + ret * (label_smoothing / n_classes)


def _size_warning(input, target):
    if tuple(target.shape) != tuple(input.shape):
        warnings.warn(f"Using a target size ({target.size()}) that is different to the input size ({input.size()}). "
                      "This will likely lead to incorrect results due to broadcasting. Please ensure they have the "
                      "same size.", stacklevel=3)


def _broadcast_pair(input, target):
    if tuple(input.shape) == tuple(target.shape):
        return input, target
    try:
        shape = np.broadcast_shapes(input._data.shape, target._data.shape)
    except ValueError:
        from ..ops.pointwise import _broadcast_error
        raise _broadcast_error(input._data, target._data) from None
    return (input if input.shape == shape else input.expand(shape),
            target if target.shape == shape else target.expand(shape))


class MseLossBackward0(Op):
    @staticmethod
    def forward(ctx, input, target, reduction):
        ctx.save_for_backward(input, target)
        ctx.reduction = reduction
        dt = _dt.result_type(input, target).np
        diff = input._data.astype(dt, copy=False) - target._data.astype(dt, copy=False)
        return _reduce_np(diff * diff, reduction)

    @staticmethod
    def backward(ctx, g):
        input, target = ctx.saved_tensors
        scale = 2.0 / input.numel() if ctx.reduction == "mean" else 2.0
        gi = (input - target) * g * scale
        need = ctx.needs_input_grad
        return (gi if need[0] else None), (-gi if need[1] else None)

    @staticmethod
    def backward_np(ctx, g):
        input, target = ctx.saved_tensors
        scale = 2.0 / input.numel() if ctx.reduction == "mean" else 2.0
        gi = (input._data - target._data) * g * g.dtype.type(scale)
        need = ctx.needs_input_grad
        return (gi if need[0] else None), (-gi if need[1] else None)


def mse_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):
    """(input - target)^2, reduced (MseLossBackward0)."""
    _size_warning(input, target)
    reduction = _reduction(reduction, size_average, reduce)
    input, target = _broadcast_pair(input, target)
    if weight is not None:
        if tuple(weight.shape) != tuple(input.shape):
            raise ValueError("Weights and input must have the same size.")
        err = (input - target).pow(2) * weight
        if reduction == "none":
            return err
        return err.sum() if reduction == "sum" else err.sum() / weight.sum()
    if input._data.dtype.kind != "f" and target._data.dtype.kind != "f":
        raise NotImplementedError(f"\"mse_cpu\" not implemented for '{_short(input.dtype)}'")
    return MseLossBackward0.apply(input, target, reduction)


def l1_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):
    """|input - target|, reduced (composite, like PyTorch: AbsBackward0 then MeanBackward0/SumBackward0)."""
    _size_warning(input, target)
    reduction = _reduction(reduction, size_average, reduce)
    input, target = _broadcast_pair(input, target)
    err = (input - target).abs()
    if weight is not None:
        if tuple(weight.shape) != tuple(input.shape):
            raise ValueError("Weights and input must have the same size.")
        err = err * weight
        if reduction == "mean":
            return err.sum() / weight.sum()
    if reduction == "none":
        return err
    return err.sum() if reduction == "sum" else err.mean()


class BinaryCrossEntropyBackward0(Op):
    @staticmethod
    def forward(ctx, input, target, weight=None, reduction="mean"):
        x, t = input._data, target._data
        if ((x < 0) | (x > 1)).any():
            raise RuntimeError("all elements of input should be between 0 and 1")
        with np.errstate(divide="ignore", invalid="ignore"):
            lx = np.maximum(np.log(x), -100)
            l1x = np.maximum(np.log1p(-x), -100)
        loss = -(t * lx + (1 - t) * l1x)
        if weight is not None:
            loss = loss * weight._data
        ctx.save_for_backward(input, target, weight)
        ctx.reduction = reduction
        return _reduce_np(loss.astype(x.dtype, copy=False), reduction)

    @staticmethod
    def backward(ctx, g):
        x, t, w = ctx.saved_tensors
        need = ctx.needs_input_grad
        if ctx.reduction == "mean":
            g = g / x.numel()
        gi = gt = None
        if need[0]:
            gi = g * (x - t) / ((1 - x) * x).clamp_min(1e-12)
            if w is not None:
                gi = gi * w
        if len(need) > 1 and need[1]:
            gt = -g * (x / (1 - x)).log()
            if w is not None:
                gt = gt * w
        return gi, gt


def binary_cross_entropy(input, target, weight=None, size_average=None, reduce=None, reduction="mean"):
    """-(t log x + (1 - t) log(1 - x)), logs clamped at -100 (BinaryCrossEntropyBackward0)."""
    reduction = _reduction(reduction, size_average, reduce)
    if tuple(target.shape) != tuple(input.shape):
        raise ValueError(f"Using a target size ({target.size()}) that is different to the input size "
                         f"({input.size()}) is deprecated. Please ensure they have the same size.")
    if weight is not None:
        weight = weight.expand(np.broadcast_shapes(tuple(target.shape), tuple(weight.shape)))
    return BinaryCrossEntropyBackward0.apply(input, target, weight=weight, reduction=reduction)


# -- padding -------------------------------------------------------------------------------------------

class ConstantPadNdBackward0(Op):
    """Pad (or crop, for negative amounts) the trailing dims; pad is (last_lo, last_hi, prev_lo, ...)."""

    @staticmethod
    def forward(ctx, input, pad, value):
        x = input._data
        ctx.pad = pad
        nd = x.ndim
        shape = list(x.shape)
        src, dst = [slice(None)] * nd, [slice(None)] * nd
        for i in range(len(pad) // 2):
            dim = nd - 1 - i
            lo, hi = pad[2 * i], pad[2 * i + 1]
            size = shape[dim] + lo + hi
            if size < 0:
                raise RuntimeError("narrow(): length must be non-negative.")
            s0, s1 = max(-lo, 0), x.shape[dim] - max(-hi, 0)
            src[dim] = slice(s0, max(s1, s0))
            dst[dim] = slice(max(lo, 0), max(lo, 0) + max(s1 - s0, 0))
            shape[dim] = size
        _alloc(shape, input.dtype)
        out = np.full(shape, value, dtype=x.dtype)
        out[tuple(dst)] = x[tuple(src)]
        return out

    @staticmethod
    def backward(ctx, g):
        return ConstantPadNdBackward0.apply(g, tuple(-p for p in ctx.pad), 0)


class _PadGather(Op):
    """out = input indexed along each padded dim by an index map (reflect / replicate / circular)."""

    @staticmethod
    def forward(ctx, input, maps):
        x = input._data
        ctx.maps = maps
        ctx.in_shape = x.shape
        for dim, idx in maps:
            x = np.take(x, idx, axis=dim)
        return x

    @staticmethod
    def backward(ctx, g):
        return ctx.scatter.apply(g, ctx.maps, ctx.in_shape)


class _PadScatter(Op):
    """Adjoint of _PadGather: sums gradients of all output positions that read the same input position."""

    @staticmethod
    def forward(ctx, g, maps, in_shape):
        ctx.maps = maps
        x = g._data
        for dim, idx in reversed(maps):
            m = np.zeros((len(idx), in_shape[dim]), dtype=x.dtype)
            m[np.arange(len(idx)), idx] = 1
            x = np.moveaxis(np.moveaxis(x, dim, -1) @ m, -1, dim)
        return np.ascontiguousarray(x)

    @staticmethod
    def backward(ctx, gg):
        return ctx.gather.apply(gg, ctx.maps)


def _pad_pair(name):
    gather = type(name, (_PadGather,), {})
    scatter = type(name[:-1] + "Backward0" if name != "CopySlices" else "CopySlicesBackward0", (_PadScatter,), {})
    gather.scatter, scatter.gather = scatter, gather
    return gather


_PAD_OPS = {(mode, n): _pad_pair(f"{prefix}{n}DBackward0" if prefix else "CopySlices")
            for mode, prefix in (("reflect", "ReflectionPad"), ("replicate", "ReplicationPad"), ("circular", ""))
            for n in (1, 2, 3)}

_NP_PAD_MODE = {"reflect": "reflect", "replicate": "edge", "circular": "wrap"}


def pad(input, pad, mode="constant", value=None):
    """Pad the trailing dims: pad = (last_left, last_right, 2nd_last_left, ...). Modes: constant
    (ConstantPadNdBackward0; negative amounts crop), reflect, replicate, circular."""
    pad = tuple(int(p) for p in pad)
    nd = input._data.ndim
    if len(pad) % 2 != 0:
        raise RuntimeError("Padding length must be divisible by 2")
    if len(pad) // 2 > nd:
        raise RuntimeError(f"Padding length should be less than or equal to two times the input dimension but got "
                           f"padding length {len(pad)} and input of dimension {nd}")
    if mode == "constant":
        return ConstantPadNdBackward0.apply(input, pad, 0 if value is None else value)
    if mode not in _NP_PAD_MODE:
        raise NotImplementedError(f"Unrecognised padding mode {mode}")
    if value is not None and value != 0:
        raise RuntimeError(f"Padding mode \"{mode}\" doesn't take in value argument")
    n = len(pad) // 2
    if n not in (1, 2, 3) or nd not in (n + 1, n + 2):
        raise NotImplementedError(
            f"Padding size {len(pad)} is not supported for {nd}D input tensor.\n"
            "Supported combinations for non-constant padding:\n"
            "  - 2D or 3D input: padding size = 2 (pads last dimension)\n"
            "  - 3D or 4D input: padding size = 4 (pads last 2 dimensions)\n"
            "  - 4D or 5D input: padding size = 6 (pads last 3 dimensions)")
    maps = []
    shp = input._data.shape
    for i in range(n):
        dim = nd - 1 - i
        lo, hi = pad[2 * i], pad[2 * i + 1]
        size = shp[dim]
        if mode == "reflect" and (lo >= size or hi >= size):
            raise RuntimeError(f"Argument #{4 + 2 * i}: Padding size should be less than the corresponding input "
                               f"dimension, but got: padding ({lo}, {hi}) at dimension {dim} of input "
                               f"{_shape(shp)}")
        if mode == "circular" and (lo > size or hi > size):
            raise RuntimeError("Padding value causes wrapping around more than once.")
        if mode == "replicate" and size == 0:
            raise RuntimeError(f"input tensor must have a non-zero size at dimension {dim}")
        idx = np.pad(np.arange(size), (max(lo, 0), max(hi, 0)), mode=_NP_PAD_MODE[mode])
        idx = idx[max(-lo, 0):len(idx) - max(-hi, 0)]
        maps.append((dim, idx))
    return _PAD_OPS[(mode, n)].apply(input, tuple(maps))


# -- embedding / one_hot ------------------------------------------------------------------------------

class EmbeddingBackward0(Op):
    @staticmethod
    def forward(ctx, weight, indices=None, padding_idx=-1):
        ctx.save_for_backward(indices)
        ctx.meta = (weight._data.shape, padding_idx)
        return weight._data[indices._data]

    @staticmethod
    def backward(ctx, g):
        (indices,) = ctx.saved_tensors
        shape, padding_idx = ctx.meta
        return EmbeddingDenseBackward0.apply(g, indices=indices, shape=shape, padding_idx=padding_idx)


class EmbeddingDenseBackward0(Op):
    """Sum rows of grad into the embedding rows they were read from (padding_idx gets none)."""

    @staticmethod
    def forward(ctx, g, indices=None, shape=None, padding_idx=-1):
        ctx.save_for_backward(indices)
        ctx.padding_idx = padding_idx
        out = np.zeros(shape, dtype=g._data.dtype)
        idx = indices._data.ravel()
        rows = g._data.reshape(-1, shape[1])
        if padding_idx >= 0:
            keep = idx != padding_idx
            idx, rows = idx[keep], rows[keep]
        np.add.at(out, idx, rows)
        return out

    @staticmethod
    def backward(ctx, gg):
        (indices,) = ctx.saved_tensors
        r = EmbeddingBackward0.apply(gg, indices=indices, padding_idx=ctx.padding_idx)
        if ctx.padding_idx >= 0:
            r = r * Tensor._make((indices._data != ctx.padding_idx)[..., None].astype(gg._data.dtype))
        return r


def embedding(input, weight, padding_idx=None, max_norm=None, norm_type=2.0, scale_grad_by_freq=False, sparse=False):
    """Rows of weight selected by integer indices (EmbeddingBackward0); padding_idx rows get no gradient."""
    if padding_idx is not None:
        if padding_idx > 0:
            if padding_idx >= weight.size(0):
                raise AssertionError("Padding_idx must be within num_embeddings")
        elif padding_idx < 0:
            if padding_idx < -weight.size(0):
                raise AssertionError("Padding_idx must be within num_embeddings")
            padding_idx = weight.size(0) + padding_idx
    else:
        padding_idx = -1
    if input._data.dtype not in (np.int64, np.int32):
        raise RuntimeError("Expected tensor for argument #1 'indices' to have one of the following scalar types: "
                           f"Long, Int; but got {input.type()} instead (while checking arguments for embedding)")
    idx = input._data
    if idx.size and (idx.min() < 0 or idx.max() >= weight._data.shape[0]):
        raise IndexError("index out of range in self")
    if max_norm is not None:
        with no_grad():
            rows = np.unique(idx)
            norms = np.linalg.norm(weight._data[rows], ord=norm_type, axis=1)
            scale = np.where(norms > max_norm, max_norm / (norms + 1e-7), 1.0)
            weight._data[rows] *= scale[:, None].astype(weight._data.dtype)
            weight._vc[0] += 1
    return EmbeddingBackward0.apply(weight, indices=input, padding_idx=padding_idx)


def one_hot(tensor, num_classes=-1):
    """Long tensor with a trailing dim of size num_classes, 1 at each index (core.one_hot)."""
    from ..ops.registry import FUNCTIONS
    fn = FUNCTIONS.get("one_hot")
    if fn is not None:
        return fn(tensor, num_classes)
    return _one_hot_fallback(tensor, num_classes)


def _one_hot_fallback(tensor, num_classes=-1):
    if tensor._data.dtype != np.int64:
        raise RuntimeError("one_hot is only applicable to index tensor of type LongTensor.")
    x = tensor._data
    if x.size == 0:
        if num_classes == -1:
            raise RuntimeError("Can not infer total number of classes from empty tensor.")
    else:
        if x.min() < 0:
            raise RuntimeError("Class values must be non-negative.")
        if num_classes == -1:
            num_classes = int(x.max()) + 1
        elif x.max() >= num_classes:
            raise RuntimeError("Class values must be smaller than num_classes.")
    _alloc(x.shape + (num_classes,), _dt.int64)
    out = np.zeros(x.shape + (num_classes,), dtype=np.int64)
    if x.size:
        np.put_along_axis(out, x[..., None], 1, -1)
    return Tensor._make(out)
