"""MultiheadAttention (torch/nn/modules/activation.py): packed or separate q/k/v projections,
xavier_uniform_ init with zero biases, bias_k / bias_v, add_zero_attn, batch_first; forward runs
F.multi_head_attention_forward's slow path (torch's fused fast path computes the same values)."""
from __future__ import annotations

from ..._grad_mode import is_grad_enabled
from ...backends import mha as _mha
from .. import functional as F
from .. import init
from ..module import Module
from ..parameter import Parameter
from ...ops.nn.attention import _canonical_mask, _none_or_dtype
from .linear import Linear
from .utils import _empty


class NonDynamicallyQuantizableLinear(Linear):
    """Linear under the name torch gives MultiheadAttention's out_proj."""


class MultiheadAttention(Module):
    """Attention over num_heads heads of embed_dim / num_heads features each."""

    def __init__(self, embed_dim, num_heads, dropout=0.0, bias=True, add_bias_kv=False, add_zero_attn=False,
                 kdim=None, vdim=None, batch_first=False, device=None, dtype=None):
        if embed_dim <= 0 or num_heads <= 0:
            raise ValueError(f"embed_dim and num_heads must be greater than 0, got embed_dim={embed_dim} and "
                             f"num_heads={num_heads} instead")
        super().__init__()
        self.embed_dim = embed_dim
        self.kdim = kdim if kdim is not None else embed_dim
        self.vdim = vdim if vdim is not None else embed_dim
        self._qkv_same_embed_dim = self.kdim == embed_dim and self.vdim == embed_dim
        self.num_heads, self.dropout, self.batch_first = num_heads, dropout, batch_first
        self.head_dim = embed_dim // num_heads
        if self.head_dim * num_heads != self.embed_dim:
            raise AssertionError("embed_dim must be divisible by num_heads")
        if not self._qkv_same_embed_dim:
            self.q_proj_weight = Parameter(_empty((embed_dim, embed_dim), dtype, device))
            self.k_proj_weight = Parameter(_empty((embed_dim, self.kdim), dtype, device))
            self.v_proj_weight = Parameter(_empty((embed_dim, self.vdim), dtype, device))
            self.register_parameter("in_proj_weight", None)
        else:
            self.in_proj_weight = Parameter(_empty((3 * embed_dim, embed_dim), dtype, device))
            for name in ("q_proj_weight", "k_proj_weight", "v_proj_weight"):
                self.register_parameter(name, None)
        if bias:
            self.in_proj_bias = Parameter(_empty((3 * embed_dim,), dtype, device))
        else:
            self.register_parameter("in_proj_bias", None)
        self.out_proj = NonDynamicallyQuantizableLinear(embed_dim, embed_dim, bias=bias, device=device, dtype=dtype)
        if add_bias_kv:
            self.bias_k = Parameter(_empty((1, 1, embed_dim), dtype, device))
            self.bias_v = Parameter(_empty((1, 1, embed_dim), dtype, device))
        else:
            self.bias_k = self.bias_v = None
        self.add_zero_attn = add_zero_attn
        self._reset_parameters()

    def _reset_parameters(self):
        if self._qkv_same_embed_dim:
            init.xavier_uniform_(self.in_proj_weight)
        else:
            init.xavier_uniform_(self.q_proj_weight)
            init.xavier_uniform_(self.k_proj_weight)
            init.xavier_uniform_(self.v_proj_weight)
        if self.in_proj_bias is not None:
            init.constant_(self.in_proj_bias, 0.0)
            init.constant_(self.out_proj.bias, 0.0)
        if self.bias_k is not None:
            init.xavier_normal_(self.bias_k)
        if self.bias_v is not None:
            init.xavier_normal_(self.bias_v)

    def forward(self, query, key, value, key_padding_mask=None, need_weights=True, attn_mask=None,
                average_attn_weights=True, is_causal=False):
        is_batched = query.dim() == 3
        fast = self._takes_fast_path(query, key, value, key_padding_mask, attn_mask)
        key_padding_mask = _canonical_mask(key_padding_mask, "key_padding_mask", _none_or_dtype(attn_mask),
                                           "attn_mask", query.dtype)
        attn_mask = _canonical_mask(attn_mask, "attn_mask", None, "", query.dtype, check_other=False)
        if self.batch_first and is_batched:
            if key is value:
                if query is key:
                    query = key = value = query.transpose(1, 0)
                else:
                    query, key = (x.transpose(1, 0) for x in (query, key))
                    value = key
            else:
                query, key, value = (x.transpose(1, 0) for x in (query, key, value))
        separate = not self._qkv_same_embed_dim
        out, weights = F.multi_head_attention_forward(
            query, key, value, self.embed_dim, self.num_heads, self.in_proj_weight, self.in_proj_bias, self.bias_k,
            self.bias_v, self.add_zero_attn, self.dropout, self.out_proj.weight, self.out_proj.bias,
            training=self.training, key_padding_mask=key_padding_mask,
            attn_mask=attn_mask, use_separate_proj_weight=separate, q_proj_weight=self.q_proj_weight,
            k_proj_weight=self.k_proj_weight, v_proj_weight=self.v_proj_weight,
            average_attn_weights=average_attn_weights, is_causal=is_causal and not fast,   # the fast path ignores it
            need_weights=need_weights or fast)
        weights = weights if need_weights else None   # the fast path: the need_weights=True values (NaN rows)
        return (out.transpose(1, 0), weights) if self.batch_first and is_batched else (out, weights)

    def _takes_fast_path(self, query, key, value, key_padding_mask, attn_mask):
        """Whether torch's forward would run torch._native_multi_head_attention (its why_not_fast_path
        checks, on the masks as given: floating-point masks keep the slow path)."""
        if any(m is not None and m.is_floating_point() for m in (attn_mask, key_padding_mask)):
            return False
        if (not _mha.get_fastpath_enabled() or query.dim() != 3 or query is not key or key is not value
                or self.in_proj_weight is None or self.in_proj_bias is None or self.training
                or query.dtype != self.in_proj_bias.dtype or query.dtype != self.in_proj_weight.dtype
                or self.num_heads % 2 or not self.batch_first or self.bias_k is not None or self.bias_v is not None
                or self.add_zero_attn or not self._qkv_same_embed_dim):
            return False
        args = (query, self.in_proj_weight, self.in_proj_bias, self.out_proj.weight, self.out_proj.bias)
        return not (is_grad_enabled() and any(x is not None and x.requires_grad for x in args))
