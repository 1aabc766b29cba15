"""torch.nn.functional: layers as functions (`import core.nn.functional as F`).

The kernels live in the nn op family, core/ops/nn/ (one module per kind, each op registered with
category "nn"); this module is the public namespace: it re-exports them under PyTorch's names."""
from __future__ import annotations

from ..ops.indexing import one_hot
from ..ops.nn.activation import (elu, gelu, hardtanh, leaky_relu, logsigmoid, relu, relu_, sigmoid, silu, softplus,
                                 tanh)
from ..ops.nn.adaptive import adaptive_avg_pool1d, adaptive_avg_pool2d, adaptive_max_pool1d, adaptive_max_pool2d
from ..ops.nn.attention import multi_head_attention_forward, scaled_dot_product_attention
from ..ops.nn.conv import conv1d, conv2d
from ..ops.nn.conv_transpose import conv_transpose2d
from ..ops.nn.distance import cosine_similarity, pairwise_distance
from ..ops.nn.dropout import dropout, dropout2d
from ..ops.nn.embedding import embedding, embedding_bag
from ..ops.nn.im2col import fold, unfold
from ..ops.nn.linear import linear, normalize
from ..ops.nn.loss import (binary_cross_entropy, cross_entropy, huber_loss, kl_div, l1_loss, mse_loss, nll_loss,
                           smooth_l1_loss)
from ..ops.nn.loss_logits import binary_cross_entropy_with_logits
from ..ops.nn.norm import batch_norm, group_norm, instance_norm, layer_norm
from ..ops.nn.padding import pad
from ..ops.nn.pool import avg_pool2d, max_pool2d, max_pool2d_with_indices
from ..ops.nn.softmax import log_softmax, softmax
# activations, losses and small layers of issue #14
from ..ops.nn.activation_variants import (celu, glu, gumbel_softmax, hardshrink, hardsigmoid, hardswish, mish, relu6,
                                      selu, softmin, softshrink, softsign, tanhshrink, threshold, threshold_)
from ..ops.nn.activation_variants import torch_celu_ as celu_, torch_selu_ as selu_
from ..ops.nn.activation_param import prelu, rrelu, rrelu_
from ..ops.nn.bilinear import bilinear
from ..ops.nn.dropout_alpha import alpha_dropout, dropout1d, dropout3d, feature_alpha_dropout
from ..ops.nn.loss_composite import (cosine_embedding_loss, gaussian_nll_loss, hinge_embedding_loss,
                                     margin_ranking_loss, multilabel_soft_margin_loss, poisson_nll_loss,
                                     triplet_margin_loss, triplet_margin_with_distance_loss)
from ..ops.nn.loss_margin import multi_margin_loss, multilabel_margin_loss, soft_margin_loss
from ..ops.nn.norm_composite import local_response_norm, rms_norm
from ..ops.nn.pdist import pdist
from ..ops.nn.pixel_shuffle import channel_shuffle, pixel_shuffle, pixel_unshuffle

# pooling, convolution and resampling (issue #14)
from ..ops.nn.adaptive import adaptive_avg_pool3d, adaptive_max_pool3d, adaptive_max_pool3d_with_indices
from ..ops.nn.conv3d import conv3d
from ..ops.nn.conv_transpose import conv_transpose1d, conv_transpose3d
from ..ops.nn.fractional import (fractional_max_pool2d, fractional_max_pool2d_with_indices, fractional_max_pool3d,
                                 fractional_max_pool3d_with_indices)
from ..ops.nn.affine_grid import affine_grid
from ..ops.nn.grid_sample import grid_sample
from ..ops.nn.interpolate import interpolate, upsample, upsample_bilinear, upsample_nearest
from ..ops.nn.pool_nd import (avg_pool1d, avg_pool3d, lp_pool1d, lp_pool2d, lp_pool3d, max_pool1d,
                              max_pool1d_with_indices, max_pool3d, max_pool3d_with_indices)
from ..ops.nn.unpool import max_unpool1d, max_unpool2d, max_unpool3d
from ..ops.nn.ctc_loss import ctc_loss
from ..ops.nn.convolution import conv_tbc
__all__ = ["linear", "relu", "relu_", "sigmoid", "tanh", "leaky_relu", "gelu", "softmax", "log_softmax",
           "nll_loss", "cross_entropy", "mse_loss", "l1_loss", "binary_cross_entropy", "dropout", "unfold",
           "fold", "conv2d", "max_pool2d", "max_pool2d_with_indices", "avg_pool2d", "batch_norm", "layer_norm",
           "one_hot", "pad", "embedding", "normalize", "silu", "elu", "softplus", "hardtanh", "logsigmoid",
           "adaptive_avg_pool1d", "adaptive_avg_pool2d", "adaptive_max_pool1d", "adaptive_max_pool2d", "conv1d",
           "conv_transpose2d",
           "max_pool1d", "max_pool1d_with_indices", "max_pool3d", "max_pool3d_with_indices", "avg_pool1d",
           "avg_pool3d", "adaptive_avg_pool3d", "adaptive_max_pool3d", "adaptive_max_pool3d_with_indices",
           "max_unpool1d", "max_unpool2d", "max_unpool3d", "conv3d",
           "conv_transpose1d", "conv_transpose3d", "interpolate", "upsample", "upsample_bilinear", "upsample_nearest",
           "fractional_max_pool2d", "fractional_max_pool2d_with_indices", "fractional_max_pool3d",
           "fractional_max_pool3d_with_indices", "lp_pool1d", "lp_pool2d", "lp_pool3d",
           "grid_sample", "affine_grid",
           "binary_cross_entropy_with_logits", "smooth_l1_loss", "huber_loss", "kl_div",
           "group_norm", "instance_norm", "cosine_similarity", "pairwise_distance", "dropout2d", "embedding_bag",
           "scaled_dot_product_attention", "multi_head_attention_forward",
           # issue #14: activations, losses, small layers
           "hardswish", "hardsigmoid", "relu6", "selu", "celu", "glu", "prelu", "rrelu", "rrelu_", "mish",
           "softsign", "tanhshrink", "threshold", "threshold_", "softshrink", "hardshrink", "softmin", "gumbel_softmax",
           "soft_margin_loss", "margin_ranking_loss", "multi_margin_loss", "multilabel_margin_loss",
           "multilabel_soft_margin_loss", "triplet_margin_loss", "triplet_margin_with_distance_loss",
           "cosine_embedding_loss", "gaussian_nll_loss", "hinge_embedding_loss", "poisson_nll_loss", "pdist",
           "pixel_shuffle", "pixel_unshuffle", "channel_shuffle", "bilinear", "rms_norm", "local_response_norm",
           "alpha_dropout", "feature_alpha_dropout", "dropout1d", "dropout3d", "selu_", "celu_", "ctc_loss", "conv_tbc"]
