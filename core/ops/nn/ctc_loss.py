"""F.ctc_loss (the Connectionist Temporal Classification loss) as ATen composes it: the per-sample negative
log-likelihood from the CPU kernel's alpha recursion (CtcLossBackward0, gradient from the alpha-beta
products as ATen's ctc_loss_backward_cpu), zero_infinity by `where`, then the reduction ('mean': each loss
over its clamped target length, then the batch mean)."""
from __future__ import annotations

import numpy as np

from ...autograd.function import Op
from ...tensor import Tensor
from ..pointwise import where
from ..registry import export, register

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


def _lengths(v, name):
    if isinstance(v, Tensor):
        return [int(x) for x in np.atleast_1d(v._data).tolist()]
    return [int(x) for x in (v if isinstance(v, (list, tuple)) else [v])]


@register(category="nn", function=False,
          cli_reason="four tensors with length bookkeeping (targets padded or concatenated): call F.ctc_loss in an "
                     "expression")
def ctc_loss(log_probs, targets, input_lengths, target_lengths, blank=0, reduction="mean", zero_infinity=False):
    """CTC loss of (T, N, C) or (T, C) log-probabilities against padded (N, S) or concatenated targets:
    reduction 'mean' divides each loss by its target length (at least 1) and averages, 'sum' adds, 'none'
    keeps one per sample; zero_infinity zeroes impossible alignments and their gradients."""
    unbatched = log_probs.dim() == 2
    if unbatched:
        log_probs = log_probs.unsqueeze(1)
        targets = targets.unsqueeze(0) if targets.dim() == 1 else targets
    il, tl = _lengths(input_lengths, "input_lengths"), _lengths(target_lengths, "target_lengths")
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
def torch_ctc_loss(log_probs, targets, input_lengths, target_lengths, blank=0, reduction=0, zero_infinity=False):
    """torch.ctc_loss: F.ctc_loss with ATen's integer reduction (0 none, 1 mean, 2 sum); called without one,
    torch 2.13 returns the per-sample losses, and so does this."""
    return ctc_loss(log_probs, targets, input_lengths, target_lengths, blank,
                    ("none", "mean", "sum")[reduction] if isinstance(reduction, int) else reduction, zero_infinity)
