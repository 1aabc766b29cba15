"""F.embedding (EmbeddingBackward0 <-> EmbeddingDenseBackward0)."""
from __future__ import annotations

import numpy as np

from ...autograd.function import Op
from ...autograd.grad_mode import no_grad
from ...tensor import Tensor
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


@register(category="nn", function=False, cli=True,
          cli_params={"input": "tensor", "padding_idx": "int", "sparse": "skip"},
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
def torch_embedding(weight, indices, padding_idx=-1, scale_grad_by_freq=False, sparse=False):
    """torch.embedding(weight, indices, ...): F.embedding's kernel under torch's argument order."""
    return embedding(indices, weight, None if padding_idx < 0 else padding_idx)
