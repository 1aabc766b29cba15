"""Transformer, TransformerEncoder(Layer) and TransformerDecoder(Layer) (torch/nn/modules/transformer.py):
self-attention (+ cross-attention in the decoder) and feed-forward blocks, each with dropout, residual and
LayerNorm (post-norm, or pre-norm with norm_first); same submodule names, init order and masks as torch's."""
from __future__ import annotations

import copy
import warnings

from ...backends import mha as _mha
from ... import creation as _creation
from ..._grad_mode import is_grad_enabled
from ...ops.indexing.tri_diag import triu
from .. import functional as F
from ..init import xavier_uniform_
from ..container import ModuleList
from ..module import Module
from ...ops.nn.attention import _canonical_mask, _none_or_dtype
from .activation import GELU, ReLU
from .activation_attention import MultiheadAttention
from .dropout import Dropout
from .linear import Linear
from .normalization import LayerNorm

__all__ = ["Transformer", "TransformerEncoder", "TransformerDecoder", "TransformerEncoderLayer",
           "TransformerDecoderLayer"]


def _generate_square_subsequent_mask(sz, device=None, dtype=None):
    """The (sz, sz) causal mask: -inf above the diagonal, 0.0 elsewhere (float32 unless dtype)."""
    return triu(_creation.full((sz, sz), float("-inf"), dtype=dtype, device=device), diagonal=1)


def _get_seq_len(src, batch_first):
    """Sequence length of an unbatched (S, E) or batched input."""
    size = src.size()
    if len(size) == 2:
        return size[0]
    return size[1 if batch_first else 0]


def _detect_is_causal_mask(mask, is_causal=None, size=None):
    """is_causal when given; otherwise whether mask equals the causal mask of size (torch's detection)."""
    make_causal = is_causal is True
    if is_causal is None and mask is not None:
        sz = size if size is not None else mask.size(-2)
        causal = _generate_square_subsequent_mask(sz, device=mask.device, dtype=mask.dtype)
        make_causal = mask.size() == causal.size() and bool((mask == causal).all())
    return make_causal


def _get_clones(module, n):
    return ModuleList([copy.deepcopy(module) for _ in range(n)])


def _get_activation_fn(activation):
    if activation == "relu":
        return F.relu
    if activation == "gelu":
        return F.gelu
    raise RuntimeError(f"activation should be relu/gelu, not {activation}")


class TransformerEncoderLayer(Module):
    """x + SA(x) -> norm1 -> + FF -> norm2 (or the pre-norm order when norm_first)."""

    def __init__(self, d_model, nhead, dim_feedforward=2048, dropout=0.1, activation=F.relu, layer_norm_eps=1e-5,
                 batch_first=False, norm_first=False, bias=True, device=None, dtype=None):
        super().__init__()
        self.self_attn = MultiheadAttention(d_model, nhead, dropout=dropout, bias=bias, batch_first=batch_first,
                                            device=device, dtype=dtype)
        self.linear1 = Linear(d_model, dim_feedforward, bias=bias, device=device, dtype=dtype)
        self.dropout = Dropout(dropout)
        self.linear2 = Linear(dim_feedforward, d_model, bias=bias, device=device, dtype=dtype)
        self.norm_first = norm_first
        self.norm1 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, device=device, dtype=dtype)
        self.norm2 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, device=device, dtype=dtype)
        self.dropout1 = Dropout(dropout)
        self.dropout2 = Dropout(dropout)
        if isinstance(activation, str):
            activation = _get_activation_fn(activation)
        if activation is F.relu or isinstance(activation, ReLU):
            self.activation_relu_or_gelu = 1
        elif activation is F.gelu or isinstance(activation, GELU):
            self.activation_relu_or_gelu = 2
        else:
            self.activation_relu_or_gelu = 0
        self.activation = activation

    def __setstate__(self, state):
        super().__setstate__(state)
        if not hasattr(self, "activation"):
            self.activation = F.relu

    def forward(self, src, src_mask=None, src_key_padding_mask=None, is_causal=False):
        src_key_padding_mask = _canonical_mask(src_key_padding_mask, "src_key_padding_mask", _none_or_dtype(src_mask),
                                               "src_mask", src.dtype)
        src_mask = _canonical_mask(src_mask, "src_mask", None, "", src.dtype, check_other=False)
        fast = self._uses_fast_path(src)
        if fast:
            src_mask, src_key_padding_mask, is_causal = self._fast_path_masks(src, src_mask, src_key_padding_mask)
        x = src
        if self.norm_first:
            x = x + self._sa_block(self.norm1(x), src_mask, src_key_padding_mask, is_causal=is_causal, fast=fast)
            x = x + self._ff_block(self.norm2(x))
        else:
            x = self.norm1(x + self._sa_block(x, src_mask, src_key_padding_mask, is_causal=is_causal, fast=fast))
            x = self.norm2(x + self._ff_block(x))
        return x

    def _uses_fast_path(self, src):
        """Whether torch would run torch._transformer_encoder_layer_fwd (eval, batched, batch_first, ...)."""
        attn = self.self_attn
        if (not _mha.get_fastpath_enabled() or src.dim() != 3 or self.training or not attn.batch_first
                or attn.in_proj_bias is None
                or not attn._qkv_same_embed_dim or not self.activation_relu_or_gelu or self.norm1.eps != self.norm2.eps
                or attn.num_heads % 2 == 1 or any(m._forward_hooks or m._forward_pre_hooks for m in self.modules())):
            return False
        args = (src, attn.in_proj_weight, attn.in_proj_bias, attn.out_proj.weight, attn.out_proj.bias,
                self.norm1.weight, self.norm1.bias, self.norm2.weight, self.norm2.bias, self.linear1.weight,
                self.linear1.bias, self.linear2.weight, self.linear2.bias)
        return not (is_grad_enabled() and any(x is not None and x.requires_grad for x in args))

    def _fast_path_masks(self, src, src_mask, key_padding_mask):
        """torch's fast path merges the masks as MultiheadAttention.merge_masks does (a sum of the float masks)
        and then masks every position where the merged value is non-zero: the same masks for the slow path."""
        def masked(m):
            return m.new_zeros(m.shape).masked_fill(m != 0, float("-inf"))
        if src_mask is None:
            return None, None if key_padding_mask is None else masked(key_padding_mask), False
        n, length, _ = src.shape
        merged = src_mask.view(n, -1, length, length) if src_mask.dim() == 3 else \
            src_mask.view(1, 1, length, length).expand(n, self.self_attn.num_heads, -1, -1)
        if key_padding_mask is not None:
            merged = merged + key_padding_mask.view(n, 1, 1, length).expand(-1, self.self_attn.num_heads, -1, -1)
        return masked(merged.reshape(-1, length, length)), None, False

    def _sa_block(self, x, attn_mask, key_padding_mask, is_causal=False, fast=False):
        """fast: torch._transformer_encoder_layer_fwd, whose attention gives NaN (not SDPA's 0) in a query row
        with every key masked: the need_weights=True softmax."""
        x = self.self_attn(x, x, x, attn_mask=attn_mask, key_padding_mask=key_padding_mask, need_weights=fast,
                           is_causal=is_causal)[0]
        return self.dropout1(x)

    def _ff_block(self, x):
        return self.dropout2(self.linear2(self.dropout(self.activation(self.linear1(x)))))


def _why_not_sparsity_fast_path(layer):
    """torch's reason for not using nested tensors (it then warns when enable_nested_tensor is set)."""
    name = "encoder_layer"
    if not isinstance(layer, TransformerEncoderLayer):
        return f"{name} was not TransformerEncoderLayer"
    if layer.norm_first:
        return f"{name}.norm_first was True"
    if not layer.self_attn.batch_first:
        return f"{name}.self_attn.batch_first was not True(use batch_first for better inference performance)"
    if not layer.self_attn._qkv_same_embed_dim:
        return f"{name}.self_attn._qkv_same_embed_dim was not True"
    if layer.self_attn.in_proj_bias is None:
        return f"{name}.self_attn was passed bias=False"
    if not layer.activation_relu_or_gelu:
        return f"{name}.activation_relu_or_gelu was not True"
    if not layer.norm1.eps == layer.norm2.eps:
        return f"{name}.norm1.eps was not equal to {name}.norm2.eps"
    if layer.self_attn.num_heads % 2 == 1:
        return f"{name}.self_attn.num_heads is odd"
    return ""


class TransformerEncoder(Module):
    """num_layers deep copies of encoder_layer applied in turn, then the optional final norm."""

    def __init__(self, encoder_layer, num_layers, norm=None, enable_nested_tensor=True, mask_check=True):
        super().__init__()
        self.layers = ModuleList([copy.deepcopy(encoder_layer) for _ in range(num_layers)])
        self.num_layers = num_layers
        self.norm = norm
        self.enable_nested_tensor = self.use_nested_tensor = enable_nested_tensor
        self.mask_check = mask_check
        why = _why_not_sparsity_fast_path(encoder_layer)
        if enable_nested_tensor and why:
            warnings.warn(f"enable_nested_tensor is True, but self.use_nested_tensor is False because {why}",
                          stacklevel=2)
            self.use_nested_tensor = False

    def forward(self, src, mask=None, src_key_padding_mask=None, is_causal=None):
        src_key_padding_mask = _canonical_mask(src_key_padding_mask, "src_key_padding_mask", _none_or_dtype(mask),
                                               "mask", src.dtype)
        mask = _canonical_mask(mask, "mask", None, "", src.dtype, check_other=False)
        valid = self._nested_valid(src, mask, src_key_padding_mask)
        is_causal = _detect_is_causal_mask(mask, is_causal, _get_seq_len(src, self.layers[0].self_attn.batch_first))
        output = src
        for mod in self.layers:
            output = mod(output, src_mask=mask, is_causal=is_causal, src_key_padding_mask=src_key_padding_mask)
        if valid is not None:   # torch ran a nested tensor (the padding as masked keys) and padded it with zeros
            if not bool(valid.any()):
                raise RuntimeError("to_padded_tensor: at least one constituent tensor should have non-zero numel")
            output = output.masked_fill(valid.logical_not().unsqueeze(-1), 0.0)
        return self.norm(output) if self.norm is not None else output

    def _nested_valid(self, src, mask, key_padding_mask):
        """The (N, S) non-padding mask when torch's eval fast path turns src into a nested tensor (its padded
        positions then come out as zeros), else None."""
        first = self.layers[0]
        if (not _mha.get_fastpath_enabled() or not getattr(self, "use_nested_tensor", False) or first.training
                or src.dim() != 3
                or key_padding_mask is None or mask is not None):
            return None
        valid = key_padding_mask.logical_not()
        if getattr(self, "mask_check", True) and not _left_aligned(valid):
            return None
        attn = first.self_attn
        args = (src, attn.in_proj_weight, attn.in_proj_bias, attn.out_proj.weight, attn.out_proj.bias,
                first.norm1.weight, first.norm1.bias, first.norm2.weight, first.norm2.bias, first.linear1.weight,
                first.linear1.bias, first.linear2.weight, first.linear2.bias)
        if is_grad_enabled() and any(x.requires_grad for x in args):
            return None
        global _NESTED_WARNED
        if not _NESTED_WARNED:   # torch's TORCH_WARN_ONCE from NestedTensorImpl.cpp
            _NESTED_WARNED = True
            warnings.warn(_NESTED_WARNING, UserWarning, stacklevel=2)   # at the forward that asks, as torch
        return valid


_NESTED_WARNED = False
_NESTED_WARNING = ("The PyTorch API of nested tensors is in prototype stage and will change in the near future. We "
                   "recommend specifying layout=torch.jagged when constructing a nested tensor, as this layout "
                   "receives active development, has better operator coverage, and works with torch.compile. "
                   "(Triggered internally at /__w/pytorch/pytorch/aten/src/ATen/NestedTensorImpl.cpp:177.)")


def _left_aligned(valid):
    """Every row of the (N, S) bool mask is True then False (torch._nested_tensor_from_mask_left_aligned)."""
    v = valid.numpy()
    return bool((v[:, 1:] <= v[:, :-1]).all())


class TransformerDecoderLayer(Module):
    """x + SA(x) -> norm1 -> + MHA(x, memory) -> norm2 -> + FF -> norm3 (or the pre-norm order when norm_first);
    the masks are canonicalised by the attention modules, as torch's."""

    __constants__ = ["norm_first"]

    def __init__(self, d_model, nhead, dim_feedforward=2048, dropout=0.1, activation=F.relu, layer_norm_eps=1e-5,
                 batch_first=False, norm_first=False, bias=True, device=None, dtype=None):
        super().__init__()
        factory = {"device": device, "dtype": dtype}
        self.self_attn = MultiheadAttention(d_model, nhead, dropout=dropout, batch_first=batch_first, bias=bias,
                                            **factory)
        self.multihead_attn = MultiheadAttention(d_model, nhead, dropout=dropout, batch_first=batch_first, bias=bias,
                                                 **factory)
        self.linear1 = Linear(d_model, dim_feedforward, bias=bias, **factory)
        self.dropout = Dropout(dropout)
        self.linear2 = Linear(dim_feedforward, d_model, bias=bias, **factory)
        self.norm_first = norm_first
        self.norm1 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **factory)
        self.norm2 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **factory)
        self.norm3 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **factory)
        self.dropout1 = Dropout(dropout)
        self.dropout2 = Dropout(dropout)
        self.dropout3 = Dropout(dropout)
        self.activation = _get_activation_fn(activation) if isinstance(activation, str) else activation

    def __setstate__(self, state):
        if "activation" not in state:
            state["activation"] = F.relu
        super().__setstate__(state)

    def forward(self, tgt, memory, tgt_mask=None, memory_mask=None, tgt_key_padding_mask=None,
                memory_key_padding_mask=None, tgt_is_causal=False, memory_is_causal=False):
        x = tgt
        if self.norm_first:
            x = x + self._sa_block(self.norm1(x), tgt_mask, tgt_key_padding_mask, tgt_is_causal)
            x = x + self._mha_block(self.norm2(x), memory, memory_mask, memory_key_padding_mask, memory_is_causal)
            x = x + self._ff_block(self.norm3(x))
        else:
            x = self.norm1(x + self._sa_block(x, tgt_mask, tgt_key_padding_mask, tgt_is_causal))
            x = self.norm2(x + self._mha_block(x, memory, memory_mask, memory_key_padding_mask, memory_is_causal))
            x = self.norm3(x + self._ff_block(x))
        return x

    def _sa_block(self, x, attn_mask, key_padding_mask, is_causal=False):
        x = self.self_attn(x, x, x, attn_mask=attn_mask, key_padding_mask=key_padding_mask, is_causal=is_causal,
                           need_weights=False)[0]
        return self.dropout1(x)

    def _mha_block(self, x, mem, attn_mask, key_padding_mask, is_causal=False):
        x = self.multihead_attn(x, mem, mem, attn_mask=attn_mask, key_padding_mask=key_padding_mask,
                                is_causal=is_causal, need_weights=False)[0]
        return self.dropout2(x)

    def _ff_block(self, x):
        return self.dropout3(self.linear2(self.dropout(self.activation(self.linear1(x)))))


class TransformerDecoder(Module):
    """num_layers deep copies of decoder_layer applied in turn, then the optional final norm; tgt_is_causal=None
    detects a causal tgt_mask."""

    __constants__ = ["norm"]

    def __init__(self, decoder_layer, num_layers, norm=None):
        super().__init__()
        self.layers = _get_clones(decoder_layer, num_layers)
        self.num_layers = num_layers
        self.norm = norm

    def forward(self, tgt, memory, tgt_mask=None, memory_mask=None, tgt_key_padding_mask=None,
                memory_key_padding_mask=None, tgt_is_causal=None, memory_is_causal=False):
        output = tgt
        seq_len = _get_seq_len(tgt, self.layers[0].self_attn.batch_first)
        tgt_is_causal = _detect_is_causal_mask(tgt_mask, tgt_is_causal, seq_len)
        for mod in self.layers:
            output = mod(output, memory, tgt_mask=tgt_mask, memory_mask=memory_mask,
                         tgt_key_padding_mask=tgt_key_padding_mask, memory_key_padding_mask=memory_key_padding_mask,
                         tgt_is_causal=tgt_is_causal, memory_is_causal=memory_is_causal)
        return self.norm(output) if self.norm is not None else output


class Transformer(Module):
    """Encoder (num_encoder_layers, final LayerNorm) + decoder (num_decoder_layers, final LayerNorm), or the
    custom ones given; then xavier_uniform_ on every parameter of dim > 1, in parameters() order."""

    def __init__(self, d_model=512, nhead=8, num_encoder_layers=6, num_decoder_layers=6, dim_feedforward=2048,
                 dropout=0.1, activation=F.relu, custom_encoder=None, custom_decoder=None, layer_norm_eps=1e-5,
                 batch_first=False, norm_first=False, bias=True, device=None, dtype=None):
        super().__init__()
        factory = {"device": device, "dtype": dtype}
        layer_args = (d_model, nhead, dim_feedforward, dropout, activation, layer_norm_eps, batch_first, norm_first,
                      bias)
        if custom_encoder is not None:
            self.encoder = custom_encoder
        else:
            encoder_layer = TransformerEncoderLayer(*layer_args, **factory)
            encoder_norm = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **factory)
            self.encoder = TransformerEncoder(encoder_layer, num_encoder_layers, encoder_norm)
        if custom_decoder is not None:
            self.decoder = custom_decoder
        else:
            decoder_layer = TransformerDecoderLayer(*layer_args, **factory)
            decoder_norm = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **factory)
            self.decoder = TransformerDecoder(decoder_layer, num_decoder_layers, decoder_norm)
        self._reset_parameters()
        self.d_model = d_model
        self.nhead = nhead
        self.batch_first = batch_first

    def forward(self, src, tgt, src_mask=None, tgt_mask=None, memory_mask=None, src_key_padding_mask=None,
                tgt_key_padding_mask=None, memory_key_padding_mask=None, src_is_causal=None, tgt_is_causal=None,
                memory_is_causal=False):
        is_batched = src.dim() == 3
        batch_dim = 0 if self.batch_first else 1   # sizes read before is_batched, as torch (IndexError on 1-D)
        if src.size(batch_dim) != tgt.size(batch_dim) and is_batched:
            raise RuntimeError("the batch number of src and tgt must be equal")
        if src.size(-1) != self.d_model or tgt.size(-1) != self.d_model:
            raise RuntimeError("the feature number of src and tgt must be equal to d_model")
        memory = self.encoder(src, mask=src_mask, src_key_padding_mask=src_key_padding_mask, is_causal=src_is_causal)
        return self.decoder(tgt, memory, tgt_mask=tgt_mask, memory_mask=memory_mask,
                            tgt_key_padding_mask=tgt_key_padding_mask,
                            memory_key_padding_mask=memory_key_padding_mask, tgt_is_causal=tgt_is_causal,
                            memory_is_causal=memory_is_causal)

    @staticmethod
    def generate_square_subsequent_mask(sz, device=None, dtype=None):
        """The (sz, sz) causal mask: -inf above the diagonal, 0.0 elsewhere."""
        return _generate_square_subsequent_mask(sz, dtype=dtype, device=device)

    def _reset_parameters(self):
        for p in self.parameters():
            if p.dim() > 1:
                xavier_uniform_(p)
