"""Attention: scaled_dot_product_attention and multi_head_attention_forward, composed of core ops in
torch/nn/functional.py's order (in-projection, masks merged into an additive float mask, softmax,
dropout, bmm, out-projection), so values and gradients match torch's slow path."""
from __future__ import annotations

import math
import warnings

import numpy as np

from ... import dtypes as _dt
from ...tensor import Tensor
from ..registry import register
from ..shape import cat
from .dropout import dropout
from .linear import linear
from .padding import pad
from ._util import _cpp_name
from .softmax import softmax


def _canonical_mask(mask, mask_name, other_type, other_name, target_type, check_other=True):
    """Bool masks become additive float masks (-inf where True), as torch's F._canonical_mask."""
    if mask is None:
        return None
    if mask.dtype != _dt.bool_ and not mask.is_floating_point():
        raise AssertionError(f"only bool and floating types of {mask_name} are supported")
    if check_other and other_type is not None and mask.dtype != other_type:
        warnings.warn(f"Support for mismatched {mask_name} and {other_name} is deprecated. Use same type for both "
                      "instead.", stacklevel=3)
    if not mask.is_floating_point():
        mask = Tensor._make(np.where(mask._data, -np.inf, 0).astype(target_type.np))
    return mask


def _none_or_dtype(input):
    if input is None:
        return None
    if isinstance(input, Tensor):
        return input.dtype
    raise RuntimeError("input to _none_or_dtype() must be None or torch.Tensor")


@register(category="nn", function=False)
def scaled_dot_product_attention(query, key, value, attn_mask=None, dropout_p=0.0, is_causal=False, scale=None,
                                 enable_gqa=False):
    """softmax(Q K^T * scale + mask) V over the last two dims (scale defaults to 1/sqrt(E)); a bool mask
    keeps True positions; is_causal masks the upper triangle; enable_gqa repeats key/value heads (dim -3)."""
    _check_sdpa(query, key, value, attn_mask)
    if enable_gqa:
        key, value = _repeat_heads(query, key), _repeat_heads(query, value)
    L, S = query.size(-2), key.size(-2)
    scale_factor = 1 / math.sqrt(query.size(-1)) if scale is None else scale
    bias = np.zeros((L, S), dtype=query._data.dtype)
    if is_causal:
        if attn_mask is not None:
            raise RuntimeError("_scaled_dot_product_attention: Explicit attn_mask should not be set when "
                               "is_causal=True")
        bias = np.where(np.tril(np.ones((L, S), dtype=bool)), 0, -np.inf).astype(bias.dtype)
    weights = query.matmul(key.transpose(-2, -1)) * scale_factor
    if attn_mask is not None:
        if attn_mask.dtype == _dt.bool_:
            weights = weights + Tensor._make(np.where(attn_mask._data, 0, -np.inf).astype(bias.dtype))
        else:
            weights = weights + attn_mask
    if is_causal:
        weights = weights + Tensor._make(bias)
    weights = _safe_softmax(weights)
    if dropout_p > 0.0:
        weights = dropout(weights, dropout_p, True)
    return weights.matmul(value)


def _check_sdpa(query, key, value, attn_mask):
    """ATen's validate_sdpa_input: one dtype for q, k, v; at least 2-D; a bool, float32 or query-dtype mask."""
    if not query.dtype == key.dtype == value.dtype:
        raise RuntimeError(f"Expected query, key, and value to have the same dtype, but got query.dtype: "
                           f"{_cpp_name(query.dtype)} key.dtype: {_cpp_name(key.dtype)} and value.dtype: "
                           f"{_cpp_name(value.dtype)} instead.")
    if min(query.dim(), key.dim(), value.dim()) < 2:
        raise RuntimeError(f"Expected query, key, and value to all be  at least 2 dimensional, but got query.dim: "
                           f"{query.dim()} key.dim: {key.dim()} and value.dim: {value.dim()} instead.")
    if attn_mask is not None and attn_mask.dtype not in (_dt.bool_, _dt.float32, query.dtype):
        raise RuntimeError(f"Expected attn_mask dtype to be bool or float or to match query dtype, but got "
                           f"attn_mask.dtype: {_cpp_name(attn_mask.dtype)} and  query.dtype: "
                           f"{_cpp_name(query.dtype)} instead.")


def _repeat_heads(query, kv):
    """enable_gqa: key / value heads (dim -3) repeated to the query's head count, as torch's math kernel."""
    hq, hkv = query.size(-3) if query.dim() > 2 else 1, kv.size(-3) if kv.dim() > 2 else 1
    if hkv == 0 or hq % hkv:
        raise RuntimeError("Number of heads in key and value must divide the number of heads in ")
    return kv.repeat_interleave(hq // hkv, -3) if hq != hkv else kv


def _safe_softmax(scores):
    """softmax over the last dim, 0 (not NaN) in rows whose every score is -inf: what torch's CPU attention
    kernels return for a query that may attend to nothing."""
    dead = np.all(scores._data == -np.inf, axis=-1, keepdims=True)
    if not dead.any():
        return softmax(scores, -1)
    dead = Tensor._make(dead)   # finite scores in those rows first, so no NaN reaches the gradient either
    return softmax(scores.masked_fill(dead, 0.0), -1).masked_fill(dead, 0.0)


def _in_projection(query, key, value, w, b, separate):
    """q, k, v projections from the packed [3E, E] weight (or three separate weights)."""
    if separate:
        (wq, wk, wv), bs = w, (b.chunk(3) if b is not None else (None, None, None))
        return linear(query, wq, bs[0]), linear(key, wk, bs[1]), linear(value, wv, bs[2])
    wq, wk, wv = w.chunk(3)
    bq, bk, bv = b.chunk(3) if b is not None else (None, None, None)
    if key is value and query is key:   # self-attention: one packed projection, as torch
        return tuple(t.contiguous() for t in linear(query, w, b).chunk(3, -1))
    return linear(query, wq, bq), linear(key, wk, bk), linear(value, wv, bv)


def _mha_shape_check(query, key, value, key_padding_mask, attn_mask, num_heads):
    """torch's F._mha_shape_check: whether the input is batched, AssertionErrors for inconsistent ranks."""
    if query.dim() not in (2, 3):
        raise AssertionError(f"query should be unbatched 2D or batched 3D tensor but received {query.dim()}-D query "
                             "tensor")
    batched = query.dim() == 3
    what, kpm_dim = ("batched (3-D)", 2) if batched else ("unbatched (2-D)", 1)
    if key.dim() != query.dim() or value.dim() != query.dim():
        raise AssertionError(f"For {what} `query`, expected `key` and `value` to be {query.dim()}-D but found "
                             f"{key.dim()}-D and {value.dim()}-D tensors respectively")
    if key_padding_mask is not None and key_padding_mask.dim() != kpm_dim:
        raise AssertionError(f"For {what} `query`, expected `key_padding_mask` to be `None` or {kpm_dim}-D but found "
                             f"{key_padding_mask.dim()}-D tensor instead")
    if attn_mask is not None:
        if attn_mask.dim() not in (2, 3):
            raise AssertionError(f"For {what} `query`, expected `attn_mask` to be `None`, 2-D or 3-D but found "
                                 f"{attn_mask.dim()}-D tensor instead")
        want = (num_heads, query.shape[0], key.shape[0])
        if not batched and attn_mask.dim() == 3 and tuple(attn_mask.shape) != want:
            raise AssertionError(f"Expected `attn_mask` shape to be {want} but got {attn_mask.shape}")
    return batched


def _check_projection_args(key, value, separate, in_proj_weight, q_proj_weight, k_proj_weight, v_proj_weight):
    """The key/value shape and projection weight checks of torch's multi_head_attention_forward."""
    if separate:
        if key.shape[:2] != value.shape[:2]:
            raise AssertionError(f"key's sequence and batch dims {key.shape[:2]} do not match value's "
                                 f"{value.shape[:2]}")
        for name, w in (("q", q_proj_weight), ("k", k_proj_weight), ("v", v_proj_weight)):
            if w is None:
                raise AssertionError(f"use_separate_proj_weight is True but {name}_proj_weight is None")
    else:
        if key.shape != value.shape:
            raise AssertionError(f"key shape {key.shape} does not match value shape {value.shape}")
        if in_proj_weight is None:
            raise AssertionError("use_separate_proj_weight is False but in_proj_weight is None")


def _check_mask_dtype(mask, q, k, need_weights):
    """The additive mask's dtype as torch's kernels check it: baddbmm (need_weights) or SDPA."""
    if need_weights and mask.dtype != q.dtype:
        raise RuntimeError(f"Input dtypes must be the same, got: input {_cpp_name(mask.dtype)}, batch1: "
                           f"{_cpp_name(q.dtype)}, batch2: {_cpp_name(k.dtype)}")
    if not need_weights:
        _check_sdpa(q, k, k, mask)


def _check_attn_mask(attn_mask, bsz, num_heads, tgt_len, src_len):
    """attn_mask as [1 or N*heads, L, S], with torch's shape errors."""
    if attn_mask is not None:
        if attn_mask.dim() == 2:
            if tuple(attn_mask.shape) != (tgt_len, src_len):
                raise RuntimeError(f"The shape of the 2D attn_mask is {attn_mask.shape}, but should be "
                                   f"{(tgt_len, src_len)}.")
            attn_mask = attn_mask.unsqueeze(0)
        elif attn_mask.dim() == 3:
            if tuple(attn_mask.shape) != (bsz * num_heads, tgt_len, src_len):
                raise RuntimeError(f"The shape of the 3D attn_mask is {attn_mask.shape}, but should be "
                                   f"{(bsz * num_heads, tgt_len, src_len)}.")
        else:
            raise RuntimeError(f"attn_mask's dimension {attn_mask.dim()} is not supported")
    return attn_mask


@register(category="nn", function=False)
def multi_head_attention_forward(query, key, value, embed_dim_to_check, num_heads, in_proj_weight, in_proj_bias,
                                 bias_k, bias_v, add_zero_attn, dropout_p, out_proj_weight, out_proj_bias,
                                 training=True, key_padding_mask=None, need_weights=True, attn_mask=None,
                                 use_separate_proj_weight=False, q_proj_weight=None, k_proj_weight=None,
                                 v_proj_weight=None, static_k=None, static_v=None, average_attn_weights=True,
                                 is_causal=False):
    """torch.nn.functional.multi_head_attention_forward's slow path on [L, N, E] (or unbatched [L, E])
    inputs; returns (attn_output, averaged or per-head attention weights or None). One piece, as torch's."""
    is_batched = _mha_shape_check(query, key, value, key_padding_mask, attn_mask, num_heads)
    if not is_batched:
        query, key, value = query.unsqueeze(1), key.unsqueeze(1), value.unsqueeze(1)
        if key_padding_mask is not None:
            key_padding_mask = key_padding_mask.unsqueeze(0)
    tgt_len, bsz, embed_dim = query.shape
    key_padding_mask = _canonical_mask(key_padding_mask, "key_padding_mask", _none_or_dtype(attn_mask), "attn_mask",
                                       query.dtype)
    if is_causal and attn_mask is None:
        raise RuntimeError("Need attn_mask if specifying the is_causal hint. You may use the Transformer module "
                           "method `generate_square_subsequent_mask` to create this mask.")
    if is_causal and key_padding_mask is None and not need_weights:
        attn_mask = None        # SDPA's own causal mask replaces it, as torch's
    else:
        attn_mask = _canonical_mask(attn_mask, "attn_mask", None, "", query.dtype, check_other=False)
        is_causal = is_causal and key_padding_mask is None
    if embed_dim != embed_dim_to_check:
        raise AssertionError(f"was expecting embedding dimension of {embed_dim_to_check}, but got {embed_dim}")
    head_dim = embed_dim // num_heads
    if head_dim * num_heads != embed_dim:
        raise AssertionError(f"embed_dim {embed_dim} not divisible by num_heads {num_heads}")
    _check_projection_args(key, value, use_separate_proj_weight, in_proj_weight, q_proj_weight, k_proj_weight,
                           v_proj_weight)
    weights = (q_proj_weight, k_proj_weight, v_proj_weight) if use_separate_proj_weight else in_proj_weight
    q, k, v = _in_projection(query, key, value, weights, in_proj_bias, use_separate_proj_weight)
    attn_mask = _check_attn_mask(attn_mask, bsz, num_heads, tgt_len, key.shape[0])
    if bias_k is not None and bias_v is not None:
        k = cat([k, bias_k.repeat(1, bsz, 1)])
        v = cat([v, bias_v.repeat(1, bsz, 1)])
        attn_mask = None if attn_mask is None else pad(attn_mask, (0, 1))
        key_padding_mask = None if key_padding_mask is None else pad(key_padding_mask, (0, 1))
    q = q.view(tgt_len, bsz * num_heads, head_dim).transpose(0, 1)
    k = k.view(k.shape[0], bsz * num_heads, head_dim).transpose(0, 1) if static_k is None else static_k
    v = v.view(v.shape[0], bsz * num_heads, head_dim).transpose(0, 1) if static_v is None else static_v
    if add_zero_attn:
        zeros = Tensor._make(np.zeros((bsz * num_heads, 1, head_dim), dtype=k._data.dtype))
        k, v = cat([k, zeros], 1), cat([v, zeros], 1)
        attn_mask = None if attn_mask is None else pad(attn_mask, (0, 1))
        key_padding_mask = None if key_padding_mask is None else pad(key_padding_mask, (0, 1))
    src_len = k.size(1)
    if key_padding_mask is not None:
        if key_padding_mask.shape[0] != bsz:
            raise AssertionError(f"Expected key_padded_mask.shape[0] to be {bsz}, but got {key_padding_mask.shape[0]}")
        if key_padding_mask.shape[1] != src_len:
            raise AssertionError(f"Expected key_padded_mask.shape[1] to be {src_len}, but got "
                                 f"{key_padding_mask.shape[1]}")
        kpm = key_padding_mask.view(bsz, 1, 1, src_len).expand(-1, num_heads, -1, -1).reshape(
            bsz * num_heads, 1, src_len)
        attn_mask = kpm if attn_mask is None else attn_mask + kpm
    if not training:
        dropout_p = 0.0
    scores = (q * math.sqrt(1.0 / float(head_dim))).matmul(k.transpose(-2, -1))
    if attn_mask is not None:
        _check_mask_dtype(attn_mask, q, k, need_weights)
        scores = scores + attn_mask
    if is_causal and attn_mask is None:   # need_weights=False only: SDPA's is_causal (top-left triangle)
        scores = scores + Tensor._make(np.where(np.tril(np.ones((tgt_len, src_len), dtype=bool)), 0, -np.inf)
                                       .astype(scores._data.dtype))
    # need_weights=False runs SDPA, whose CPU kernels give 0 for a query row with every key masked
    attn = softmax(scores, -1) if need_weights else _safe_softmax(scores)
    if dropout_p > 0.0:
        attn = dropout(attn, dropout_p)
    out = attn.matmul(v).transpose(0, 1).reshape(tgt_len * bsz, embed_dim)
    out = linear(out, out_proj_weight, out_proj_bias).view(tgt_len, bsz, -1)
    attn = attn.view(bsz, num_heads, tgt_len, src_len)
    if average_attn_weights:
        attn = attn.mean(1)
    if not is_batched:
        out, attn = out.squeeze(1), attn.squeeze(0)
    return out, (attn if need_weights else None)
