"""F.embedding (EmbeddingBackward0 <-> EmbeddingDenseBackward0), F.embedding_bag / torch.embedding_bag
(EmbeddingBagBackward0) and torch.embedding_renorm_."""
from __future__ import annotations

import numpy as np

from ...autograd.function import Op
from ...autograd.grad_mode import STATE, no_grad
from ...tensor import Tensor
from ._util import _torch_name
from ..registry import export, register


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


@register(category="nn", function=False)
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
    if weight._data.ndim != 2:
        raise RuntimeError("'weight' must be 2-D")
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


@export(name="embedding")
@_torch_name
def torch_embedding(weight, indices, padding_idx=-1, scale_grad_by_freq=False, sparse=False):
    """torch.embedding(weight, indices, ...): F.embedding's kernel under torch's argument order."""
    return embedding(indices, weight, None if padding_idx < 0 else padding_idx)


# -- embedding_bag ----------------------------------------------------------------------------------------

_BAG_MODES = ("sum", "mean", "max")


def _bag_args(input, offsets, per_sample_weights, weight, mode):
    """torch.nn.functional.embedding_bag's checks; returns (flat indices, offsets, flat per-sample weights)."""
    if per_sample_weights is not None and tuple(input.shape) != tuple(per_sample_weights.shape):
        raise ValueError(f"embedding_bag: If per_sample_weights ({per_sample_weights.shape}) is not None, then it "
                         f"must have the same shape as the input ({input.shape})")
    if weight.dim() != 2:
        raise ValueError(f"weight has to be a 2D Tensor, but got Tensor of dimension {weight.dim()}")
    if input.dim() == 2:
        if offsets is not None:
            raise ValueError("if input is 2D, then offsets has to be None, as input is treated is a mini-batch of "
                             f"fixed length sequences. However, found offsets of type {type(offsets)}")
        offsets = Tensor._make(np.arange(0, input.numel(), input.size(1), dtype=input._data.dtype))
        input = input.reshape(-1)
        if per_sample_weights is not None:
            per_sample_weights = per_sample_weights.reshape(-1)
    elif input.dim() == 1:
        if offsets is None:
            raise ValueError("offsets has to be a 1D Tensor but got None")
        if offsets.dim() != 1:
            raise ValueError("offsets has to be a 1D Tensor")
    else:
        raise ValueError(f"input has to be 1D or 2D Tensor, but got Tensor of dimension {input.dim()}")
    if mode not in _BAG_MODES:
        raise ValueError("mode has to be one of sum, mean or max")
    if per_sample_weights is not None and mode != "sum":
        raise NotImplementedError(f"embedding_bag: per_sample_weights was not None. per_sample_weights is only "
                                  f"supported for mode='sum' (got mode='{mode}'). Please open a feature request on "
                                  "GitHub.")
    return input, offsets, per_sample_weights


class EmbeddingBagBackward0(Op):
    """torch's CPU embedding_bag: per bag the sum (times per_sample_weights), the mean (the sum over the bag's
    size, ATen's bag_size of the last bag running to the end of input) or the column-wise max of the rows;
    padding_idx rows are skipped. Outputs (result, offset2bag, bag_size, max_indices) as torch.embedding_bag."""

    grads_per_arg = True

    @staticmethod
    def forward(ctx, weight, idx, starts, ends, mode, psw, padding_idx, last_size):
        w, ix = weight._data, idx._data
        n_bags, dim, itype = len(starts), w.shape[1], ix.dtype
        keep = ix != padding_idx if padding_idx >= 0 else np.ones(len(ix), bool)
        out = np.zeros((n_bags, dim), w.dtype)
        bag_size = np.zeros(n_bags, np.int64)
        max_idx = np.zeros((n_bags, dim), np.int64)
        pw = psw._data if psw is not None else None
        for b, (s, e) in enumerate(zip(starts, ends)):
            rows = [j for j in range(s, e) if keep[j]]
            bag_size[b] = len(rows) if (mode == 0 or b < n_bags - 1 or last_size is None) else \
                last_size - int((~keep[s:]).sum())
            if mode == 2 and rows:
                block = w[ix[rows]]
                arg = np.argmax(block, axis=0)
                out[b], max_idx[b] = block[arg, np.arange(dim)], ix[rows][arg]
                continue
            acc = np.zeros(dim, w.dtype)
            for j in rows:      # sequential, as the kernel accumulates
                acc = acc + (w[ix[j]] * pw[j] if pw is not None else w[ix[j]])
            if mode == 1 and bag_size[b]:
                acc = acc / w.dtype.type(bag_size[b])
            out[b] = acc
        ctx.meta = (w.shape, ix, starts, ends, mode, keep, bag_size, max_idx, pw)
        if psw is not None:
            ctx.save_for_backward(weight)
        off2bag = (np.searchsorted(np.asarray(starts), np.arange(len(ix)), side="right") - 1).astype(itype)
        if mode == 0:   # sum: bag_size / max_indices are zero placeholders; float's fused kernel skips offset2bag
            fused = w.dtype != np.float64
            aux = (np.zeros(0, itype) if fused else off2bag,
                   np.zeros(n_bags + (last_size is not None and fused), itype), np.zeros(n_bags, itype))
        else:
            aux = (off2bag, bag_size.astype(itype), (max_idx if mode == 2 else bag_size).astype(itype))
        return (out,) + aux

    @staticmethod
    def backward(ctx, g, *unused):
        shape, ix, starts, ends, mode, keep, bag_size, max_idx, pw = ctx.meta
        gd = g._data
        gw = np.zeros(shape, gd.dtype)
        gp = np.zeros(len(ix), gd.dtype) if pw is not None else None
        for b, (s, e) in enumerate(zip(starts, ends)):
            if mode == 2:
                if bag_size[b]:
                    np.add.at(gw, (max_idx[b], np.arange(shape[1])), gd[b])
                continue
            scale = gd.dtype.type(1.0 / bag_size[b] if mode == 1 and bag_size[b] else 1.0)   # torch: g * (1/n)
            for j in range(s, e):
                if keep[j]:
                    gw[ix[j]] += gd[b] * (pw[j] if pw is not None else scale)
                    if gp is not None:
                        gp[j] = gd[b] @ ctx.saved_tensors[0]._data[ix[j]]
        return (Tensor._make(gw), None, None, None, None, None if gp is None else Tensor._make(gp), None, None)


def _bags(offsets, n, include_last_offset):
    """Bag ranges [start, end) from offsets, and the size ATen gives the last bag with include_last_offset
    (input's end minus its offset, whatever the last offset says)."""
    off = [int(o) for o in offsets._data.tolist()]
    if include_last_offset:
        starts = off[:-1]
        return starts, off[1:], (n - starts[-1]) if starts else None
    return off, off[1:] + [n], None


@export(name="embedding_bag")
@_torch_name
def torch_embedding_bag(weight, indices, offsets, scale_grad_by_freq=False, mode=0, sparse=False,
                        per_sample_weights=None, include_last_offset=False, padding_idx=None):
    """torch.embedding_bag(weight, indices, offsets, ...): (output, offset2bag, bag_size, max_indices), mode
    0 / 1 / 2 = sum / mean / max (EmbeddingBagBackward0)."""
    starts, ends, last = _bags(offsets, indices.numel(), include_last_offset)
    if last is not None and (weight.dtype.name == "float64" or mode == 2):
        ends[-1] = indices.numel()   # ATen's double and max kernels run the last bag to input's end (offset2bag)
    pad = -1 if padding_idx is None or padding_idx < 0 else padding_idx
    return EmbeddingBagBackward0.apply(weight, indices, starts, ends, int(mode), per_sample_weights, pad, last)


@register(category="nn", function=False)
def embedding_bag(input, weight, offsets=None, max_norm=None, norm_type=2, scale_grad_by_freq=False, mode="mean",
                  sparse=False, per_sample_weights=None, include_last_offset=False, padding_idx=None):
    """Sum / mean / max of the embedding rows of each bag (bags: rows of 2-D input, or input[offsets[i]:
    offsets[i+1]]); padding_idx entries are left out (and not counted by mean); empty bags give zeros
    (EmbeddingBagBackward0, torch's CPU kernel)."""
    input, offsets, psw = _bag_args(input, offsets, per_sample_weights, weight, mode)
    if padding_idx is not None:
        if not -weight.size(0) <= padding_idx < weight.size(0):
            raise AssertionError("padding_idx must be within the number of embeddings")
        padding_idx %= weight.size(0)
    if max_norm is not None:
        embedding_renorm_(weight, input, max_norm, norm_type)
    return torch_embedding_bag(weight, input, offsets, scale_grad_by_freq, _BAG_MODES.index(mode), sparse, psw,
                               include_last_offset, padding_idx)[0]


@export
def embedding_renorm_(input, indices, max_norm, norm_type):
    """torch.embedding_renorm_: rescale (in place, without grad) each row named in indices whose norm_type-norm
    exceeds max_norm to norm max_norm / (norm + 1e-7) * norm, as ATen's loop over the sorted unique rows."""
    if STATE.grad_enabled and input._requires_grad and input.grad_fn is None:
        raise RuntimeError("a view of a leaf Variable that requires grad is being used in an in-place operation.")
    w = input._data
    for r in np.unique(indices._data.astype(np.int64)).tolist():
        row = w[r]
        norm = float(np.sum(np.abs(row) ** norm_type) ** (1.0 / norm_type)) if norm_type != 2 else \
            float(np.sqrt(np.sum(row * row)))
        if norm > max_norm:
            row *= w.dtype.type(max_norm / (norm + 1e-7))
    input._vc[0] += 1
    return input
