"""F.embedding (EmbeddingBackward0 <-> EmbeddingDenseBackward0)."""
from __future__ import annotations

import numpy as np

from ...autograd.function import Op
from ...autograd.grad_mode import no_grad
from ...tensor import Tensor
from ._util import _torch_name
from ..registry import export, register
from ..shape import stack


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


@register(category="nn", function=False, cli=True,
          cli_params={"input": "tensor", "padding_idx": "int", "max_norm": "number", "sparse": "skip"},
          cli_example="tensorcli embedding '[2,0]' --weight '[[0.0,1],[2,3],[4,5]]'")
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


@register(category="nn", function=False, cli=True,
          cli_params={"offsets": "tensor", "per_sample_weights": "tensor", "padding_idx": "int", "sparse": "skip",
                      "max_norm": "skip"},
          cli_example="tensorcli embedding-bag '[0,2,1,1]' --weight '[[0.0,1],[2,3],[4,5]]' --offsets '[0,2]'")
def embedding_bag(input, weight, offsets=None, max_norm=None, norm_type=2, scale_grad_by_freq=False, mode="mean",
                  sparse=False, per_sample_weights=None, include_last_offset=False, padding_idx=None):
    """Sum / mean / max of the embedding rows of each bag (bags: rows of 2-D input, or input[offsets[i]:
    offsets[i+1]]); padding_idx entries are left out (and not counted by mean); empty bags give zeros.
    Composite (embedding rows, then a bag matrix product or per-bag max), not torch's fused kernel."""
    input, offsets, psw = _bag_args(input, offsets, per_sample_weights, weight, mode)
    idx, off = input._data.astype(np.int64), offsets._data.astype(np.int64)
    ends = np.append(off[1:], len(idx)) if not include_last_offset else off[1:]
    starts = off if not include_last_offset else off[:-1]
    rows = embedding(input, weight, padding_idx, max_norm, norm_type, scale_grad_by_freq)
    keep = np.ones(len(idx), dtype=bool) if padding_idx is None else idx != padding_idx % weight.size(0)
    if mode == "max":
        d = weight.size(1)
        bags = [rows[int(s):int(e)][Tensor._make(keep[s:e])].max(0).values if keep[s:e].any()
                else Tensor._make(np.zeros(d, dtype=weight._data.dtype)) for s, e in zip(starts, ends)]
        return stack(bags, 0) if bags else Tensor._make(np.zeros((0, d), dtype=weight._data.dtype))
    m = np.zeros((len(starts), len(idx)), dtype=weight._data.dtype)
    for b, (s, e) in enumerate(zip(starts, ends)):
        m[b, s:e] = keep[s:e]
        if mode == "mean" and m[b].sum() > 0:
            m[b] /= m[b].sum()
    if psw is not None:
        rows = rows * psw.unsqueeze(1)
    return Tensor._make(m).matmul(rows)
