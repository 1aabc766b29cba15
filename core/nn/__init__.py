"""core.nn: PyTorch's torch.nn over core tensors (`import core.nn as nn`)."""
from __future__ import annotations

from . import functional, init
from .container import ModuleDict, ModuleList, ParameterDict, ParameterList, Sequential
from .module import Module
from .modules import (AvgPool2d, BatchNorm1d, BatchNorm2d, BCELoss, Conv2d, CrossEntropyLoss, Dropout, Embedding,
                      Flatten, Fold, GELU, Identity, L1Loss, LayerNorm, LeakyReLU, Linear, LogSoftmax, MaxPool2d,
                      MSELoss, NLLLoss, ReLU, Sigmoid, Softmax, Tanh, Unflatten, Unfold)
from .parameter import Parameter
from .rnn import GRU, GRUCell, LSTM, LSTMCell, RNN, RNNBase, RNNCell, RNNCellBase

__all__ = ["functional", "init", "Module", "Sequential", "ModuleList", "ModuleDict", "ParameterList",
           "ParameterDict", "Parameter", "Identity", "Linear", "ReLU", "LeakyReLU", "Sigmoid", "Tanh", "GELU",
           "Softmax", "LogSoftmax", "Flatten", "Unflatten", "Dropout", "Conv2d", "MaxPool2d", "AvgPool2d",
           "BatchNorm1d", "BatchNorm2d", "LayerNorm", "Unfold", "Fold", "Embedding", "L1Loss", "MSELoss",
           "NLLLoss", "CrossEntropyLoss", "BCELoss", "RNNBase", "RNN", "LSTM", "GRU", "RNNCellBase", "RNNCell",
           "LSTMCell", "GRUCell"]
