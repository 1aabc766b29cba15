"""F.ctc_loss (the Connectionist Temporal Classification loss) as ATen composes it: the per-sample negative
log-likelihood from the CPU kernel's alpha recursion (CtcLossBackward0, gradient from the alpha-beta
products as ATen's ctc_loss_backward_cpu), zero_infinity by `where`, then the reduction ('mean': each loss
over its clamped target length, then the batch mean)."""
from __future__ import annotations

import numpy as np

from ... import dtypes as _dt
from ...autograd.function import Op
from ...tensor import Tensor
from ..pointwise import where
from ..registry import export, register
from ._util import _REDUCTIONS, _reduction, _short

_NEG_INF = -np.inf


def _lse(*xs):
    """log(sum(exp(x))) of the candidates, ATen's max-shifted form (max -inf -> shift 0)."""
    m = np.max(np.stack(xs), axis=0)
    m = np.where(m == _NEG_INF, 0, m)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.log(sum(np.exp(x - m) for x in xs)) + m


def _extended(target, blank):
    """l': blank, t1, blank, t2, ..., blank; and where l'[s] may come from l'[s-2] (a different label)."""
    ext = np.full(2 * len(target) + 1, blank, np.int64)
    ext[1::2] = target
    skip = np.zeros(len(ext), bool)
    skip[2:] = ext[2:] != ext[:-2]
    return ext, skip


def _shift(v, k):
    """v moved k places right (k < 0: left), -inf shifted in."""
    pad = np.full(abs(k), _NEG_INF, v.dtype)
    return np.concatenate([pad, v])[:len(v)] if k > 0 else np.concatenate([v, pad])[-k:]


def _alpha(lp, ext, skip, il):
    """log_alpha (il x 2L+1) in lp's dtype."""
    la = np.full((il, len(ext)), _NEG_INF, lp.dtype)
    la[0, 0] = lp[0, ext[0]]
    if len(ext) > 1:
        la[0, 1] = lp[0, ext[1]]
    for t in range(1, il):
        prev = la[t - 1]
        a2 = _shift(prev, 1)
        a3 = np.where(skip, _shift(prev, 2), _NEG_INF).astype(lp.dtype)
        la[t] = _lse(prev, a2, a3) + lp[t, ext]
    return la


def _beta(lp, ext, skip, il):
    """log_beta (il x 2L+1): the backward recursion from the last two states."""
    n = len(ext)
    lb = np.full((il, n), _NEG_INF, lp.dtype)
    lb[il - 1, n - 1] = lp[il - 1, ext[n - 1]]
    if n > 1:
        lb[il - 1, n - 2] = lp[il - 1, ext[n - 2]]
    skip_next = np.zeros(n, bool)
    skip_next[:-2] = skip[2:]
    for t in range(il - 2, -1, -1):
        nxt = lb[t + 1]
        b2 = _shift(nxt, -1)
        b3 = np.where(skip_next, _shift(nxt, -2), _NEG_INF).astype(lp.dtype)
        lb[t] = _lse(nxt, b2, b3) + lp[t, ext]
    return lb


def _nll(la, ext_len, il):
    if ext_len == 1:
        return -la[il - 1, 0]
    return -_lse(la[il - 1, ext_len - 1], la[il - 1, ext_len - 2])


class CtcLossBackward0(Op):
    grads_per_arg = True

    @staticmethod
    def forward(ctx, log_probs, targets, input_lengths, target_lengths, blank, zero_infinity):
        lp_all, tg = log_probs._data, targets._data
        n_batch = lp_all.shape[1]
        nll = np.zeros(n_batch, lp_all.dtype)
        per_sample, offset = [], 0
        for b in range(n_batch):
            il, tl = input_lengths[b], target_lengths[b]
            if tg.ndim == 2:
                target = tg[b, :tl]
            else:
                target, offset = tg[offset:offset + tl], offset + tl
            ext, skip = _extended(target, blank)
            lp = lp_all[:il, b]
            la = _alpha(lp, ext, skip, il) if il else np.full((0, len(ext)), _NEG_INF, lp.dtype)
            nll[b] = _nll(la, len(ext), il) if il else (0.0 if tl == 0 else np.inf)
            per_sample.append((ext, skip, la, il))
        ctx.meta = (per_sample, nll, zero_infinity, lp_all)
        return nll

    @staticmethod
    def backward(ctx, g):
        per_sample, nll, zero_infinity, lp_all = ctx.meta
        grad = np.zeros_like(lp_all)
        gd = g._data
        for b, (ext, skip, la, il) in enumerate(per_sample):
            if il == 0 or (zero_infinity and np.isinf(nll[b])):
                continue
            lp = lp_all[:il, b]
            lb = _beta(lp, ext, skip, il)
            lcab = np.full(lp.shape, _NEG_INF, lp.dtype)
            for s, c in enumerate(ext):         # log sum over the states labelled c of alpha * beta
                lcab[:, c] = _lse(lcab[:, c], la[:, s] + lb[:, s])
            with np.errstate(over="ignore", invalid="ignore"):
                grad[:il, b] = (np.exp(lp) - np.exp(lcab + nll[b] - lp)) * gd[b]
        return Tensor._make(grad), None, None, None, None, None


_SIGNATURES = ("(Tensor log_probs, Tensor targets, tuple of ints input_lengths, tuple of ints target_lengths, "
               "int blank = 0, int reduction = at::Reduction::Mean, bool zero_infinity = False)",
               "(Tensor log_probs, Tensor targets, Tensor input_lengths, Tensor target_lengths, "
               "int blank = 0, int reduction = at::Reduction::Mean, bool zero_infinity = False)")


def _is_int(v):
    """An int argument as torch's parser takes it: int (not bool), or a 0-d integral Tensor."""
    if isinstance(v, Tensor):
        return v.dim() == 0 and not v.is_floating_point() and v.dtype != _dt.bool_
    return isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_))


def _matches(kind, v):
    if kind == "Tensor":
        return isinstance(v, Tensor)
    if kind == "ints":     # the parser looks at the first element only; unpacking checks the rest
        return isinstance(v, (list, tuple)) and (not v or _is_int(v[0]) or isinstance(v[0], bool))
    if kind == "int":
        return _is_int(v)
    return isinstance(v, (bool, np.bool_))


def _type_name(v):
    return "Tensor" if isinstance(v, Tensor) else type(v).__name__


def _describe(v):
    """An argument as format_invalid_args shows it: a sequence with its elements' type names."""
    if isinstance(v, list):
        return "list of [" + ", ".join(_type_name(x) for x in v) + "]"
    if isinstance(v, tuple):
        return "tuple of (" + ", ".join(_type_name(x) for x in v) + ")"
    return _type_name(v)


def _parse(args, n_passed=7):
    """torch.ctc_loss's two overloads (int lists or Tensors for the lengths), with PythonArgParser's errors
    (n_passed: how many arguments the caller gave); returns the lengths as two lists of ints."""
    kinds = (("Tensor", "Tensor", "ints", "ints", "int", "int", "bool"),
             ("Tensor", "Tensor", "Tensor", "Tensor", "int", "int", "bool"))
    firsts = [next((i for i, (k, v) in enumerate(zip(ks, args)) if not _matches(k, v)), None) for ks in kinds]
    if firsts[0] is None:
        lengths = []
        for name, v in (("input_lengths", args[2]), ("target_lengths", args[3])):
            for pos, x in enumerate(v):
                if not (_is_int(x) or isinstance(x, bool)):
                    raise TypeError(f"ctc_loss(): argument '{name}' failed to unpack the object at pos {pos + 1} "
                                    f"with error \"type must be tuple of ints,but got {type(x).__name__}\"")
            lengths.append([int(x) for x in v])
        return lengths
    if firsts[1] is None:
        for name, v in (("input_lengths", args[2]), ("target_lengths", args[3])):
            if v.is_floating_point() or v.dtype == _dt.bool_:
                raise RuntimeError(f"{name} must be integral")
        return [[int(x) for x in np.ravel(v._data)] for v in args[2:4]]
    passed = args[:n_passed]
    lines = [f"ctc_loss() received an invalid combination of arguments - got "
             f"({', '.join(_type_name(a) for a in passed)}), "
             "but expected one of:"]
    for sig, ks in zip(_SIGNATURES, kinds):
        lines.append(f" * {sig}")
        if n_passed == len(ks):   # torch's format_invalid_args: only a Tensor parameter can match a value there
            marked = [_describe(a) if k == "Tensor" and isinstance(a, Tensor) else f"!{_describe(a)}!"
                      for k, a in zip(ks, args)]
            lines.append(f"      didn't match because some of the arguments have invalid types: ({', '.join(marked)})")
    raise TypeError("\n".join(lines) + "\n")


def _check(log_probs, targets, il, tl, blank):
    """ATen's checks, in its order (the dtype dispatch, ctc_loss_allocate_outputs); log_probs is 3-D or the
    unbatched input unsqueezed. Target values are not checked (torch's CPU kernel reads whatever they index)."""
    if log_probs.dtype not in (_dt.float32, _dt.float64):
        raise NotImplementedError(f"\"ctc_loss_cpu\" not implemented for '{_short(log_probs.dtype)}'")
    if log_probs.numel() == 0:
        raise RuntimeError("log_probs tensor must not be empty")
    where = " (while checking arguments for ctc_loss_allocate_outputs)"
    if log_probs.dim() != 3:
        raise RuntimeError(f"Expected 3-dimensional tensor, but got {log_probs.dim()}-dimensional tensor for "
                           f"argument #1 'log_probs'{where}")
    if not 1 <= targets.dim() <= 2:
        raise RuntimeError(f"Expected 1 to 2 dimensions, but got {targets.dim()}-dimensional tensor for argument #2 "
                           f"'targets'{where}")
    _, batch, labels = log_probs.shape
    if not 0 <= blank < labels:
        raise RuntimeError("blank must be in label range")
    for name, v in (("input_lengths", il), ("target_lengths", tl)):
        if len(v) != batch:
            raise RuntimeError(f"{name} must be of size batch_size")
    for n in tl:
        if n < 0:
            raise RuntimeError(f"Expected target_lengths to have value at least 0, but got value {n}{where}")
    want = sum(tl) if targets.dim() == 1 else batch
    if targets.shape[0] != want:
        raise RuntimeError(f"Expected tensor to have size {want} at dimension 0, but got size {targets.shape[0]} for "
                           f"argument #2 'targets'{where}")
    if targets.dim() == 2 and targets.shape[1] < max(tl, default=0):
        raise RuntimeError(f"Expected tensor to have size at least {max(tl)} at dimension 1, but got size "
                           f"{targets.shape[1]} for argument #2 'targets'{where}")
    for n in il:
        if not 0 <= n <= log_probs.shape[0]:
            bound = ("at least", 0) if n < 0 else ("at most", log_probs.shape[0])
            raise RuntimeError(f"Expected input_lengths to have value {bound[0]} {bound[1]}, but got value {n}{where}")


@register(category="nn", function=False)
def ctc_loss(log_probs, targets, input_lengths, target_lengths, blank=0, reduction="mean", zero_infinity=False):
    """CTC loss of (T, N, C) or (T, C) log-probabilities against padded (N, S) or concatenated targets:
    reduction 'mean' divides each loss by its target length (at least 1) and averages, 'sum' adds, 'none'
    keeps one per sample; zero_infinity zeroes impossible alignments and their gradients."""
    return _ctc_loss(log_probs, targets, input_lengths, target_lengths, blank, _reduction(reduction),
                     zero_infinity)


def _ctc_loss(log_probs, targets, input_lengths, target_lengths, blank, reduction, zero_infinity):
    il, tl = _parse((log_probs, targets, input_lengths, target_lengths, blank, _REDUCTIONS[reduction],
                     zero_infinity))
    unbatched = log_probs.dim() != 3
    if unbatched:
        log_probs = log_probs.unsqueeze(1)
    _check(log_probs, targets, il, tl, int(blank))
    if unbatched and targets.dim() == 1:
        targets = targets.unsqueeze(0)
    res = CtcLossBackward0.apply(log_probs, targets, il, tl, int(blank), bool(zero_infinity))
    if zero_infinity:
        res = where(res == float("inf"), Tensor._make(np.zeros((), res._data.dtype)), res)
    if reduction == "mean":
        lengths = Tensor._make(np.maximum(np.asarray(tl, res._data.dtype), 1))
        return (res / lengths).mean()
    if reduction == "sum":
        return res.sum()
    return res.squeeze(0) if unbatched else res


@export(name="ctc_loss")
def torch_ctc_loss(log_probs, targets, input_lengths, target_lengths, *args, **kwargs):
    """torch.ctc_loss(log_probs, targets, input_lengths, target_lengths, blank=0, reduction=0,
    zero_infinity=False): F.ctc_loss with ATen's integer reduction (0 none, 1 mean, 2 sum); called without
    one, torch 2.13 returns the per-sample losses, and so does this."""
    n_passed = 4 + len(args) + len(kwargs)
    extra = dict(zip(("blank", "reduction", "zero_infinity"), args), **kwargs)
    blank, reduction, zero_infinity = extra.get("blank", 0), extra.get("reduction", 0), extra.get("zero_infinity", False)
    _parse((log_probs, targets, input_lengths, target_lengths, blank, reduction, zero_infinity), n_passed)
    return _ctc_loss(log_probs, targets, input_lengths, target_lengths, blank, ("none", "mean", "sum")[reduction],
                     zero_infinity)
