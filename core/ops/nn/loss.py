"""Losses: nll_loss, cross_entropy, mse_loss, l1_loss, binary_cross_entropy, smooth_l1_loss, huber_loss, kl_div."""
from __future__ import annotations

import warnings

import numpy as np

from ... import _cpu, dtypes as _dt
from ...autograd.function import Op
from ...autograd.grad_mode import STATE
from ...tensor import Tensor
from ..pointwise import _broadcast_error, quietly
from ..pointwise.binary_math import xlogy
from ..pointwise._common import _ERRSTATE, _IGNORE
from ..registry import export, register
from ._util import _reduce_np, _reduction, _shape, _short, _torch_name
from .softmax import LogSoftmaxBackward0, _log_softmax_at, log_softmax

_F32, _F64, _I64 = np.dtype(np.float32), np.dtype(np.float64), np.dtype(np.int64)
_maxat, _WHOLE = np.maximum.reduceat, np.zeros(1, np.intp)


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


def _class_targets(x, t, ignore_index):
    """True when t holds one int64 class index in [0, C) per row of a 2-D x and no ignore_index can match (else the
    general path runs and raises PyTorch's errors). Viewed as unsigned, a negative target is out of range too, so
    one max is the range check; a negative ignore_index cannot match any such target."""
    if ignore_index >= 0 or x.ndim != 2 or t.dtype is not _I64 or t.shape != x.shape[:1] or not t.size:
        return False
    return _maxat(t.view(np.uint64), _WHOLE)[0] < x.shape[1]   # one-segment reduceat: the cheapest 1-D max


def _picked(x, t, ignore_index):
    """x[n, t[n]] when _class_targets(x, t, ignore_index), else None."""
    return x[np.arange(t.shape[0]), t] if _class_targets(x, t, ignore_index) else None


def _cascade_level(items, step, depth):
    """nll_loss_out_frame's cascade from level `depth` up: items are added to the level one by one and the level
    is passed up (and reset) after item 0 and after every `step` items more; level 3 keeps all. Returns the
    levels' final values, lowest first, each summed in order from 0 in items' dtype."""
    zero = items.dtype.type(0)

    def fold(a):
        return np.add.accumulate(a)[-1] + zero if a.size else zero
    if depth == 3:
        return [fold(items)]
    if not items.size:
        return [zero] * (4 - depth)
    full = (items.size - 1) // step
    body = items[1:1 + full * step].reshape(full, step)
    pushed = np.concatenate((items[:1] + zero, np.add.accumulate(body, 1)[:, -1] + zero if full else body[:, 0]))
    return [fold(items[1 + full * step:])] + _cascade_level(pushed, step, depth + 1)


def _cascade_rows(items, rows, step, depth):
    """_cascade_level when some rows are skipped (ignore_index): items of the batch rows `rows`; a skipped row
    adds nothing and passes nothing up, so level j passes up after row b when b % step ** (j + 1) == 0."""
    zero = items.dtype.type(0)

    def fold(a):
        return np.add.accumulate(a)[-1] + zero if a.size else zero
    if depth == 3:
        return [fold(items)]
    ends = np.flatnonzero(rows % step ** (depth + 1) == 0) + 1
    starts = np.concatenate(([0], ends[:-1]))
    pushed = np.array([fold(items[a:e]) for a, e in zip(starts, ends)], items.dtype)
    rest = items[ends[-1]:] if ends.size else items
    return [fold(rest)] + _cascade_rows(pushed, rows[ends - 1], step, depth + 1)


def _nll_cascade_sum(terms, rows=None, n=None):
    """ATen's nll_loss_out_frame sum of the (negated) picked terms over the batch: a 4-level cascade with chunks
    of 2 ** max(4, ceil_log2(N) // 4) rows, the levels added 0 + l0 + l1 + l2 + l3. rows: the batch rows of the
    terms when some are ignored (N = n rows in all)."""
    n = terms.size if n is None else n
    power = max(4, (0 if n <= 1 else (n - 1).bit_length()) // 4)
    total = terms.dtype.type(0)
    if rows is None and 1 < n <= 1 << power:
        # one chunk: row 0 went to the top level, the others stay in level 0: (0 + l0) + row 0
        return (total + np.add.accumulate(terms[1:])[-1]) + terms[0]
    levels = _cascade_level(terms, 1 << power, 0) if rows is None else _cascade_rows(terms, rows, 1 << power, 0)
    for level in levels:
        total = total + level
    return total


def _nll_reduce(picked, reduction, dtype):
    """nll_loss's sum / mean of -picked with unit weights and no ignored target: the cascade sum in the input's
    dtype, divided by the batch size (in that dtype) for the mean."""
    with np.errstate(all="ignore"):
        s = _nll_cascade_sum(np.negative(picked).astype(dtype, copy=False))
        if reduction == "sum":
            return np.asarray(s, dtype=dtype)
        return np.asarray(s / dtype.type(picked.shape[0]), dtype=dtype)


def _nll_grad_np(gd, t, w, reduction, ignore_index, in_shape, total):
    """d nll_loss / d input: -weight[t] * grad (divided by the total weight for 'mean') at the target class."""
    shape2 = in_shape if len(in_shape) > 1 else (1,) + tuple(in_shape)
    if (w is None and reduction != "none" and len(in_shape) == 2 and ignore_index < 0 and t.dtype == np.int64
            and t.shape == in_shape[:1] and t.size and gd.ndim == 0):
        # unit weights, every target a class (checked by the forward): -grad (/ total) at [n, t[n]]
        out = np.zeros(in_shape, dtype=gd.dtype)
        scale = gd if reduction == "sum" else quietly(np.divide, gd, gd.dtype.type(total))
        if np.maximum.reduce(t.view(np.uint64)) < in_shape[1]:
            out[np.arange(t.shape[0]), t] = np.negative(scale)
            return out
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
        if weight is None and reduction != "none":
            picked = _picked(x, t, ignore_index)
            if picked is not None:      # the common case, the same numbers with no weight arrays
                ctx.save_for_backward(target, weight)
                ctx.meta = (x.shape, reduction, ignore_index, float(t.shape[0]))
                return _nll_reduce(picked, reduction, x.dtype)
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
        with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
            if x.ndim == 2 and x.dtype.kind == "f":
                # nll_loss_out_frame: the same cascade for -(data * weight) and for the weights
                kept = np.flatnonzero(t != ignore_index)
                rows = None if kept.size == t.shape[0] else kept
                s = _nll_cascade_sum(np.negative(picked[kept] * wt[kept]), rows, t.shape[0])
                total = _nll_cascade_sum(wt[kept], rows, t.shape[0]) if weight is not None else \
                    x.dtype.type(kept.size)
            else:
                s = losses.sum(dtype=np.float64)
            if reduction == "sum":
                return np.asarray(s, dtype=x.dtype)
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


@register(category="nn", function=False)
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


@register(category="nn", function=False)
def cross_entropy(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None, reduction="mean",
                  label_smoothing=0.0):
    """log_softmax over the class dim followed by nll_loss (class-index targets), or the soft-label
    form -(target * log_softmax(input)).sum(class dim) when target has input's shape."""
    if size_average is None and reduce is None and weight is None and label_smoothing == 0.0:
        r = _cross_entropy_fast(input, target, ignore_index, reduction)
        if r is not None:
            return r
        r = _cross_entropy_graph(input, target, ignore_index, reduction)
        if r is not None:
            return r
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


def _cross_entropy_fast(input, target, ignore_index, reduction):
    """Without a graph, 2-D float32/float64 input and class-index targets (mean or sum): log_softmax at the targets
    and the reduction in NumPy directly, the same operations as the general path (same bits), none of its Tensors
    or full-size log_softmax. None: not this case."""
    if (type(input) is not Tensor or type(target) is not Tensor or (reduction != "mean" and reduction != "sum")
            or (input._requires_grad and STATE.grad_enabled) or _ERRSTATE is None):
        return None
    x, t = input._data, target._data
    if (x.dtype is not _F32 and x.dtype is not _F64) or not _class_targets(x, t, ignore_index):
        return None     # (a class in [0, C) exists, so C > 0)
    token = _ERRSTATE.set(_IGNORE)
    try:
        return Tensor._make(_ce_reduce(_log_softmax_at(x, np.arange(t.shape[0]), t), reduction, x.dtype))
    finally:
        _ERRSTATE.reset(token)


def _cross_entropy_graph(input, target, ignore_index, reduction):
    """With a graph, the same case as _cross_entropy_fast: torch's two nodes (NllLossBackward0 over
    LogSoftmaxBackward0, the log_softmax kernel of softmax.py), with nll_loss's forward fused here: the picked
    log-probabilities reduced by _ce_reduce (nll_loss's cascade, fewer NumPy calls), without nll_loss's argument
    checks (this case passes them all). The node's ctx is nll_loss's, so its backward is nll_loss's. None: not
    this case."""
    if (type(input) is not Tensor or type(target) is not Tensor or (reduction != "mean" and reduction != "sum")
            or not STATE.grad_enabled or _ERRSTATE is None):
        return None
    x, t = input._data, target._data
    if (x.dtype is not _F32 and x.dtype is not _F64) or not x.flags.c_contiguous or not _class_targets(
            x, t, ignore_index):
        return None
    logp = LogSoftmaxBackward0.apply(input, 1)
    kw = {"target": target, "weight": None, "reduction": reduction, "ignore_index": ignore_index}
    if not logp._requires_grad:
        return NllLossBackward0.apply(logp, **kw)
    return NllLossBackward0._record((logp,), (logp,), kw, forward=_nll_fused_forward)


def _nll_fused_forward(ctx, input, target=None, weight=None, reduction="mean", ignore_index=-100):
    """NllLossBackward0.forward's common case (unit weights, every target a class, checked by the caller): the
    same ctx, the same value through _ce_reduce."""
    x, t = input._data, target._data
    ctx.save_for_backward(target, weight)
    ctx.meta = (x.shape, reduction, ignore_index, float(t.shape[0]))
    return _ce_reduce(x[np.arange(t.shape[0]), t], reduction, x.dtype)


def _ce_reduce(picked, reduction, dtype):
    """_nll_reduce(picked, reduction, dtype) bit for bit, under the caller's ignored floating-point errors:
    the cascade of _nll_cascade_sum written out for 16 < N <= 256 (the levels above the first then hold the
    first row and one run of chunk sums), three NumPy folds where the general form makes a dozen calls."""
    terms = np.negative(picked)
    n = terms.size
    if n <= 16 or n > 256:
        s = _nll_cascade_sum(terms)
    else:
        # levels: l0 = the rows after the last chunk, l1 = the chunks' sums, l2 = 0, l3 = row 0, each a fold
        # from 0 and added up from 0. A sum that starts at +0.0 is never -0.0, so the inner additions of 0
        # (which only turn -0.0 into +0.0) change no bit of it and are left out.
        zero = dtype.type(0)
        full = (n - 1) >> 4                     # whole 16-row chunks after row 0 (1 <= full < 16)
        end = 1 + (full << 4)
        acc = np.add.accumulate
        l1 = acc(acc(terms[1:end].reshape(full, 16), 1)[:, -1])[-1]
        s = ((zero + acc(terms[end:])[-1]) if end < n else zero) + l1 + terms[0]
    if reduction == "sum":
        return np.asarray(s, dtype=dtype)
    return np.asarray(s / dtype.type(n), dtype=dtype)


def _size_warning(input, target, stacklevel=3):
    if tuple(target.shape) != tuple(input.shape):
        warnings.warn(f"Using a target size ({target.size()}) that is different to the input size ({input.size()}). "
                      "This will likely lead to incorrect results due to broadcasting. Please ensure they have the "
                      "same size.", stacklevel=stacklevel)


def _broadcast_pair(input, target):
    if tuple(input.shape) == tuple(target.shape):
        return input, target
    try:
        shape = np.broadcast_shapes(input._data.shape, target._data.shape)
    except ValueError:
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
        gi = (input - target) * scale * g       # mse_backward_cpu_kernel: norm * (self - target) * grad
        need = ctx.needs_input_grad
        return (gi if need[0] else None), (-gi if need[1] else None)

    @staticmethod
    def backward_np(ctx, g):
        input, target = ctx.saved_tensors
        scale = 2.0 / input.numel() if ctx.reduction == "mean" else 2.0
        gi = (input._data - target._data) * g.dtype.type(scale) * g
        need = ctx.needs_input_grad
        return (gi if need[0] else None), (-gi if need[1] else None)


@register(category="nn", function=False)
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


@register(category="nn", function=False)
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
            lx = np.maximum(np.log(x), x.dtype.type(-100))
            l1x = np.maximum(np.log1p(-x), x.dtype.type(-100))
            loss = (t - 1) * l1x - t * lx     # binary_cross_entropy_out_cpu's order
        if weight is not None:
            loss = loss * weight._data
        ctx.save_for_backward(input, target, weight)
        ctx.reduction = reduction
        return _reduce_np(loss.astype(x.dtype, copy=False), reduction)

    @staticmethod
    def backward(ctx, g):
        """binary_cross_entropy_backward: grad * (x - t) / max((1 - x) * x, 1e-12), times weight, then / numel
        for 'mean' (in that order, as ATen); the target's: -logit(x) * grad, times weight, / numel."""
        x, t, w = ctx.saved_tensors
        need = ctx.needs_input_grad
        if ctx.reduction != "none":
            g = g.expand(x.shape)
        gi = gt = None
        if need[0]:
            gi = g * (x - t) / ((1 - x) * x).clamp_min(1e-12)
            if w is not None:
                gi = gi * w
            if ctx.reduction == "mean":
                gi = gi / x.numel()
        if len(need) > 1 and need[1]:
            gt = -(x / (1 - x)).log() * g
            if w is not None:
                gt = gt * w
            if ctx.reduction == "mean":
                gt = gt / x.numel()
        return gi, gt


@register(category="nn", function=False)
def binary_cross_entropy(input, target, weight=None, size_average=None, reduce=None, reduction="mean"):
    """-(t log x + (1 - t) log(1 - x)), logs clamped at -100 (BinaryCrossEntropyBackward0)."""
    reduction = _reduction(reduction, size_average, reduce)
    if tuple(target.shape) != tuple(input.shape):
        raise ValueError(f"Using a target size ({target.size()}) that is different to the input size "
                         f"({input.size()}) is deprecated. Please ensure they have the same size.")
    if weight is not None:
        weight = weight.expand(np.broadcast_shapes(tuple(target.shape), tuple(weight.shape)))
    return BinaryCrossEntropyBackward0.apply(input, target, weight=weight, reduction=reduction)


# -- smooth_l1_loss, huber_loss, kl_div -----------------------------------------------------------------

# binary_cross_entropy_with_logits lives in loss_logits.py; imported here so that it registers in its place among the
# losses (the op tables' order)
from .loss_logits import binary_cross_entropy_with_logits  # noqa: E402,F401

_REDUCTION_ENUM = ("none", "mean", "sum")


class _PiecewiseLoss(Op):
    """Shared by SmoothL1Loss / HuberLoss: quadratic for |d| < k, linear beyond; grad = clamp(d, -k, k) * scale."""

    @staticmethod
    def forward(ctx, input, target, reduction, k):
        ctx.save_for_backward(input, target)
        ctx.reduction, ctx.k = reduction, k
        x, t = input._data, target._data
        d = x - t
        z = np.abs(d)
        return _reduce_np(ctx.loss_np(z, k).astype(x.dtype, copy=False), reduction)

    @staticmethod
    def backward(ctx, g):
        x, t = ctx.saved_tensors
        if ctx.reduction == "mean":
            g = g / x.numel()
        gi = (x - t).clamp(-ctx.k, ctx.k) * (g * ctx.grad_scale(ctx.k))
        need = ctx.needs_input_grad
        return (gi if need[0] else None), (-gi if len(need) > 1 and need[1] else None)

    @staticmethod
    def backward_np(ctx, g):
        x, t = ctx.saved_tensors
        gi = _piecewise_grad(x._data, t._data, g, ctx.reduction, ctx.k, ctx.kernel_formulas)
        if gi is None:
            n = x.numel()
            gs = g / n if ctx.reduction == "mean" else g
            with np.errstate(invalid="ignore", over="ignore"):
                gi = np.clip(x._data - t._data, -ctx.k, ctx.k) * (gs * ctx.grad_scale(ctx.k))
            gi = gi.astype(x._data.dtype, copy=False)
        need = ctx.needs_input_grad
        return (gi if need[0] else None), (-gi if len(need) > 1 and need[1] else None)


def _piecewise_grad(x, t, g, reduction, k, formulas):
    """smooth_l1 / huber backward as cpu_kernel_vec runs it into a C-contiguous grad_input: when input, target and
    the gradient (or a scalar gradient) are C-contiguous, the elements in order, whole pairs of vectors (16 floats /
    8 doubles on AVX2) through the vectorised formula and the last numel % (2 * width) through the scalar one;
    when the input's or target's or gradient's last dim is not contiguous, every element through the scalar one;
    norm = (T)(1 / numel) for 'mean'. Other layouts (broadcast operands): None."""
    dt = x.dtype
    g = np.asarray(g)
    if dt not in (np.float32, np.float64) or t.dtype != dt or g.dtype != dt or not x.size \
            or _cpu.capability() == "default" or 0 in x.strides or 0 in t.strides or (g.ndim and 0 in g.strides):
        return None
    norm = dt.type(1.0 / x.size if reduction == "mean" else 1.0)
    vec, tail = formulas
    inner = [a.strides[-1] == dt.itemsize for a in ((x, t, g) if g.ndim else (x, t)) if a.ndim]
    flat = x.flags.c_contiguous and t.flags.c_contiguous and (not g.ndim or g.flags.c_contiguous)
    with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
        d = x - t
        if not flat:
            if all(inner):
                return None         # rows vectorised one by one (not modelled)
            return tail(d, norm, k, g).astype(dt, copy=False)
        d = d.reshape(-1)
        gf = g.reshape(-1) if g.ndim else g
        split = x.size - x.size % (_cpu.unroll_bytes(False) // dt.itemsize)
        out = np.empty(x.size, dt)
        out[:split] = vec(d[:split], norm, dt.type(k), gf[:split] if g.ndim else gf)
        if split < x.size:
            out[split:] = tail(d[split:], norm, k, gf[split:] if g.ndim else gf)
    return out.reshape(x.shape)


def _sign1(d):
    return np.where(d > 0, 1, -1).astype(d.dtype)


def _smooth_vec(d, norm, b, g):      # blendv(x / beta, +-1, |x| >= beta), then norm * out * grad
    return (norm * np.where(np.abs(d) >= b, _sign1(d), d / b)) * g


def _smooth_tail(d, norm, b, g):     # the scalar lambda (beta a double): +-norm * grad, or norm * x * grad / beta
    dt = d.dtype.type
    return np.where(d <= -dt(b), -norm * g, np.where(d >= dt(b), norm * g,
                                                     (((norm * d) * g) / np.float64(b)).astype(d.dtype)))


def _huber_vec(d, norm, dl, g):      # blendv(x, +-1 * delta, |x| >= delta), then norm * out * grad
    return (norm * np.where(np.abs(d) >= dl, _sign1(d) * dl, d)) * g


def _huber_tail(d, norm, dl, g):     # the scalar lambda (delta a double): +-norm * grad * delta, or norm * x * grad
    dt = d.dtype.type
    lin = ((norm * g) * np.float64(dl)).astype(d.dtype)
    neg = ((-norm * g) * np.float64(dl)).astype(d.dtype)
    return np.where(d <= -dt(dl), neg, np.where(d >= dt(dl), lin, (norm * d) * g))


class SmoothL1LossBackward0(_PiecewiseLoss):
    kernel_formulas = (_smooth_vec, _smooth_tail)

    @staticmethod
    def forward(ctx, input, target, reduction, k):
        ctx.loss_np = lambda z, b: np.where(z < b, 0.5 * z * z / b, z - 0.5 * b)
        ctx.grad_scale = lambda b: 1.0 / b
        return _PiecewiseLoss.forward(ctx, input, target, reduction, k)


class HuberLossBackward0(_PiecewiseLoss):
    kernel_formulas = (_huber_vec, _huber_tail)

    @staticmethod
    def forward(ctx, input, target, reduction, k):
        ctx.loss_np = lambda z, dl: np.where(z < dl, 0.5 * z * z, dl * (z - 0.5 * dl))
        ctx.grad_scale = lambda dl: 1.0
        return _PiecewiseLoss.forward(ctx, input, target, reduction, k)


def _robust_args(input, target, kernel):
    _size_warning(input, target, stacklevel=4)
    input, target = _broadcast_pair(input, target)
    if input._data.dtype.kind != "f" and target._data.dtype.kind != "f":
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{_short(input.dtype)}'")
    return input, target


@register(category="nn", function=False)
def smooth_l1_loss(input, target, size_average=None, reduce=None, reduction="mean", beta=1.0):
    """0.5 d^2 / beta where |d| < beta, else |d| - 0.5 beta, reduced (SmoothL1LossBackward0; l1_loss if beta=0)."""
    reduction = _reduction(reduction, size_average, reduce)
    if beta < 0:
        raise RuntimeError("smooth_l1_loss does not support negative values for beta.")
    if beta == 0.0:
        return l1_loss(input, target, reduction=reduction)
    input, target = _robust_args(input, target, "smooth_l1_cpu")
    return SmoothL1LossBackward0.apply(input, target, reduction, float(beta))


@register(category="nn", function=False)
def huber_loss(input, target, reduction="mean", delta=1.0, weight=None):
    """0.5 d^2 where |d| < delta, else delta (|d| - 0.5 delta), reduced (HuberLossBackward0)."""
    reduction = _reduction(reduction)
    if delta <= 0:
        raise RuntimeError("huber_loss does not support non-positive values for delta.")
    if weight is not None:
        _size_warning(input, target)
        input, target = _broadcast_pair(input, target)
        loss = HuberLossBackward0.apply(input, target, "none", float(delta)) * weight
        return loss if reduction == "none" else (loss.sum() if reduction == "sum" else loss.mean())
    input, target = _robust_args(input, target, "huber_cpu")
    return HuberLossBackward0.apply(input, target, reduction, float(delta))


@register(category="nn", function=False)
def kl_div(input, target, size_average=None, reduce=None, reduction="mean", log_target=False):
    """target * (log(target) - input) (or exp(target) * (target - input) with log_target), reduced;
    'batchmean' divides the sum by the batch size. Composite, as in PyTorch."""
    if size_average is not None or reduce is not None:
        reduction = _reduction(reduction, size_average, reduce)
    elif reduction == "mean":
        warnings.warn("reduction: 'mean' divides the total loss by both the batch size and the support size."
                      "'batchmean' divides only by the batch size, and aligns with the KL div math definition."
                      "'mean' will be changed to behave the same as 'batchmean' in the next major release.",
                      stacklevel=2)
    elif reduction != "batchmean":
        _reduction(reduction)
    return _kl_div(input, target, reduction, log_target)


def _kl_div(input, target, reduction, log_target):
    if log_target:
        out = target.exp() * (target - input)
    else:   # Loss.cpp: at::xlogy(target, target) - target * input; torch's build evaluates the product first, so
        # the engine (later nodes first) runs xlogy's backward first: target's gradient is (xlogy's two) + product's
        prod = target * input
        out = xlogy(target, target) - prod
    if reduction == "batchmean":
        s = out.sum()
        return s / input.size(0) if input.dim() != 0 else s
    if reduction == "none":
        return out
    return out.sum() if reduction == "sum" else out.mean()


@export(name="kl_div")
@_torch_name
def torch_kl_div(input, target, reduction=0, *, log_target=False):
    """torch.kl_div: reduction as an enum (0 none, 1 mean, 2 sum; omitted: 0, as torch 2.13's binding), no
    batchmean and no warning."""
    return _kl_div(input, target, _REDUCTION_ENUM[reduction], log_target)
