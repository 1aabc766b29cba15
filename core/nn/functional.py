"""torch.nn.functional: layers as functions (`import core.nn.functional as F`).

The kernels live in the nn op family, core/ops/nn/ (one module per kind, each op registered with
category "nn"); this module is the public namespace: it re-exports them under PyTorch's names."""
from __future__ import annotations

from ..ops.indexing import one_hot
from ..ops.nn.activation import gelu, leaky_relu, relu, relu_, sigmoid, tanh
from ..ops.nn.conv import conv2d
from ..ops.nn.dropout import dropout
from ..ops.nn.embedding import embedding
from ..ops.nn.im2col import fold, unfold
from ..ops.nn.linear import linear, normalize
from ..ops.nn.loss import binary_cross_entropy, cross_entropy, l1_loss, mse_loss, nll_loss
from ..ops.nn.norm import batch_norm, layer_norm
from ..ops.nn.padding import pad
from ..ops.nn.pool import avg_pool2d, max_pool2d, max_pool2d_with_indices
from ..ops.nn.softmax import log_softmax, softmax

__all__ = ["linear", "relu", "relu_", "sigmoid", "tanh", "leaky_relu", "gelu", "softmax", "log_softmax",
           "nll_loss", "cross_entropy", "mse_loss", "l1_loss", "binary_cross_entropy", "dropout", "unfold",
           "fold", "conv2d", "max_pool2d", "max_pool2d_with_indices", "avg_pool2d", "batch_norm", "layer_norm",
           "one_hot", "pad", "embedding", "normalize"]
