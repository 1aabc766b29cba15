"""torch.nn.modules: the layer classes, one module per kind as in PyTorch (linear, conv, pooling,
batchnorm, normalization, rnn, sparse, loss, ...), so their qualified names (`core.nn.modules.linear.Linear`)
mirror torch's."""
from __future__ import annotations

from ..container import ModuleDict, ModuleList, ParameterDict, ParameterList, Sequential
from ..module import Module
from .activation import GELU, LeakyReLU, LogSoftmax, ReLU, Sigmoid, Softmax, Tanh
from .batchnorm import BatchNorm1d, BatchNorm2d
from .conv import Conv2d
from .dropout import Dropout
from .flatten import Flatten, Unflatten
from .fold import Fold, Unfold
from .linear import Identity, Linear
from .loss import BCELoss, CrossEntropyLoss, L1Loss, MSELoss, NLLLoss
from .normalization import LayerNorm
from .pooling import AvgPool2d, MaxPool2d
from .rnn import GRU, GRUCell, LSTM, LSTMCell, RNN, RNNBase, RNNCell, RNNCellBase
from .sparse import Embedding

__all__ = ["Module", "Sequential", "ModuleList", "ModuleDict", "ParameterList", "ParameterDict", "Identity",
           "Linear", "ReLU", "LeakyReLU", "Sigmoid", "Tanh", "GELU", "Softmax", "LogSoftmax", "Flatten",
           "Unflatten", "Dropout", "Conv2d", "MaxPool2d", "AvgPool2d", "BatchNorm1d", "BatchNorm2d", "LayerNorm",
           "Unfold", "Fold", "Embedding", "L1Loss", "MSELoss", "NLLLoss", "CrossEntropyLoss", "BCELoss", "RNNBase",
           "RNN", "LSTM", "GRU", "RNNCellBase", "RNNCell", "LSTMCell", "GRUCell"]
