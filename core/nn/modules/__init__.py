"""torch.nn.modules: the layer classes, one module per kind as in PyTorch (linear, conv, pooling,
batchnorm, normalization, rnn, sparse, loss, ...), so their qualified names (`core.nn.modules.linear.Linear`)
mirror torch's."""
from __future__ import annotations

from ..container import ModuleDict, ModuleList, ParameterDict, ParameterList, Sequential
from ..module import Module
from .activation import (ELU, GELU, Hardtanh, LeakyReLU, LogSigmoid, LogSoftmax, ReLU, Sigmoid, SiLU, Softmax, Softplus,
                         Tanh)
from .activation_attention import MultiheadAttention
from .batchnorm import BatchNorm1d, BatchNorm2d
from .conv import Conv1d, Conv2d, ConvTranspose2d
from .dropout import Dropout, Dropout2d
from .flatten import Flatten, Unflatten
from .fold import Fold, Unfold
from .instancenorm import InstanceNorm2d
from .lazy import LazyLinear, LazyModuleMixin
from .linear import Identity, Linear
from .loss import (BCELoss, BCEWithLogitsLoss, CrossEntropyLoss, HuberLoss, KLDivLoss, L1Loss, MSELoss, NLLLoss,
                   SmoothL1Loss)
from .normalization import GroupNorm, LayerNorm
from .pooling import AdaptiveAvgPool1d, AdaptiveAvgPool2d, AdaptiveMaxPool2d, AvgPool2d, MaxPool2d
from .rnn import GRU, GRUCell, LSTM, LSTMCell, RNN, RNNBase, RNNCell, RNNCellBase
from .sparse import Embedding, EmbeddingBag
from .transformer import (Transformer, TransformerDecoder, TransformerDecoderLayer, TransformerEncoder,
                          TransformerEncoderLayer)
# issue #14: activation, loss and small layers
from .activation import (CELU, GLU, SELU, Hardshrink, Hardsigmoid, Hardswish, Mish, PReLU, ReLU6, RReLU, Softmin,
                         Softshrink, Softsign, Tanhshrink, Threshold)
from .bilinear import Bilinear
from .channelshuffle import ChannelShuffle
from .distance import CosineSimilarity, PairwiseDistance
from .dropout_alpha_nd import AlphaDropout, Dropout1d, Dropout3d, FeatureAlphaDropout
from .loss import (CosineEmbeddingLoss, GaussianNLLLoss, HingeEmbeddingLoss, MarginRankingLoss, MultiLabelMarginLoss,
                   MultiLabelSoftMarginLoss, MultiMarginLoss, PoissonNLLLoss, SoftMarginLoss, TripletMarginLoss,
                   TripletMarginWithDistanceLoss)
from .loss import CTCLoss
from .normalization_rms_lrn import LocalResponseNorm, RMSNorm
from .pixelshuffle import PixelShuffle, PixelUnshuffle
# pooling, convolution and resampling layers (issue #14)
from .conv import Conv3d, ConvTranspose1d, ConvTranspose3d
from .pooling import (AdaptiveAvgPool3d, AdaptiveMaxPool1d, AdaptiveMaxPool3d, AvgPool1d, AvgPool3d,
                      FractionalMaxPool2d, FractionalMaxPool3d, LPPool1d, LPPool2d, LPPool3d, MaxPool1d, MaxPool3d,
                      MaxUnpool1d, MaxUnpool2d, MaxUnpool3d)
from .upsampling import Upsample, UpsamplingBilinear2d, UpsamplingNearest2d
# padding, 1d/3d normalisation layers, Softmax2d
from .activation import Softmax2d
from .batchnorm import BatchNorm3d
from .instancenorm import InstanceNorm1d, InstanceNorm3d
from .padding import (CircularPad1d, CircularPad2d, CircularPad3d, ConstantPad1d, ConstantPad2d, ConstantPad3d,
                      ReflectionPad1d, ReflectionPad2d, ReflectionPad3d, ReplicationPad1d, ReplicationPad2d,
                      ReplicationPad3d, ZeroPad1d, ZeroPad2d, ZeroPad3d)
# lazy layers, no-GPU DataParallel, adaptive softmax, CrossMapLRN2d
from ..parallel import DataParallel
from ..container import Container
from .adaptive import AdaptiveLogSoftmaxWithLoss
from .batchnorm import SyncBatchNorm
from .loss import NLLLoss2d
from .normalization_rms_lrn import CrossMapLRN2d
from .batchnorm import LazyBatchNorm1d, LazyBatchNorm2d, LazyBatchNorm3d
from .conv import (LazyConv1d, LazyConv2d, LazyConv3d, LazyConvTranspose1d, LazyConvTranspose2d,
                   LazyConvTranspose3d)
from .instancenorm import LazyInstanceNorm1d, LazyInstanceNorm2d, LazyInstanceNorm3d

__all__ = ["Module", "Sequential", "ModuleList", "ModuleDict", "ParameterList", "ParameterDict", "Identity",
           "Linear", "ReLU", "LeakyReLU", "Sigmoid", "Tanh", "GELU", "Softmax", "LogSoftmax", "Flatten",
           "Unflatten", "Dropout", "Conv2d", "MaxPool2d", "AvgPool2d", "BatchNorm1d", "BatchNorm2d", "LayerNorm",
           "Unfold", "Fold", "Embedding", "L1Loss", "MSELoss", "NLLLoss", "CrossEntropyLoss", "BCELoss", "RNNBase",
           "RNN", "LSTM", "GRU", "RNNCellBase", "RNNCell", "LSTMCell", "GRUCell", "SiLU", "ELU", "Softplus", "Hardtanh",
           "LogSigmoid", "Conv1d", "ConvTranspose2d", "Dropout2d", "InstanceNorm2d", "LazyLinear", "LazyModuleMixin",
           "BCEWithLogitsLoss", "SmoothL1Loss", "HuberLoss", "KLDivLoss", "GroupNorm", "AdaptiveAvgPool1d",
           "AdaptiveAvgPool2d", "AdaptiveMaxPool2d", "EmbeddingBag", "MultiheadAttention",
           "TransformerEncoderLayer", "TransformerEncoder", "Transformer", "TransformerDecoderLayer",
           "TransformerDecoder",
           # issue #14
           "Hardswish", "Hardsigmoid", "ReLU6", "SELU", "CELU", "GLU", "PReLU", "RReLU", "Mish", "Softsign",
           "Tanhshrink", "Threshold", "Softshrink", "Hardshrink", "Softmin", "SoftMarginLoss", "MarginRankingLoss",
           "HingeEmbeddingLoss", "CosineEmbeddingLoss", "MultiMarginLoss", "MultiLabelMarginLoss",
           "MultiLabelSoftMarginLoss", "TripletMarginLoss", "TripletMarginWithDistanceLoss", "GaussianNLLLoss",
           "PoissonNLLLoss", "PairwiseDistance", "CosineSimilarity", "PixelShuffle", "PixelUnshuffle",
           "ChannelShuffle", "Bilinear", "RMSNorm", "LocalResponseNorm", "AlphaDropout", "FeatureAlphaDropout",
           "Dropout1d", "Dropout3d",
           "Conv3d", "ConvTranspose1d", "ConvTranspose3d", "AdaptiveAvgPool3d", "AdaptiveMaxPool1d",
           "AdaptiveMaxPool3d", "AvgPool1d", "AvgPool3d", "FractionalMaxPool2d", "FractionalMaxPool3d", "LPPool1d",
           "LPPool2d", "LPPool3d", "MaxPool1d", "MaxPool3d", "MaxUnpool1d", "MaxUnpool2d", "MaxUnpool3d", "Upsample",
           "UpsamplingBilinear2d", "UpsamplingNearest2d",
           "Softmax2d", "BatchNorm3d", "InstanceNorm1d", "InstanceNorm3d", "CircularPad1d", "CircularPad2d",
           "CircularPad3d", "ConstantPad1d", "ConstantPad2d", "ConstantPad3d", "ReflectionPad1d", "ReflectionPad2d",
           "ReflectionPad3d", "ReplicationPad1d", "ReplicationPad2d", "ReplicationPad3d", "ZeroPad1d", "ZeroPad2d",
           "ZeroPad3d", "CTCLoss",
           "DataParallel", "LazyBatchNorm1d", "LazyBatchNorm2d", "LazyBatchNorm3d", "LazyConv1d", "LazyConv2d",
           "LazyConv3d", "LazyConvTranspose1d", "LazyConvTranspose2d", "LazyConvTranspose3d", "LazyInstanceNorm1d",
           "LazyInstanceNorm2d", "LazyInstanceNorm3d", "AdaptiveLogSoftmaxWithLoss", "CrossMapLRN2d",
           "Container", "NLLLoss2d", "SyncBatchNorm"]
