"""Bilinear (torch/nn/modules/linear.py's Bilinear; kept in its own file here, see core/nn/modules/__init__)."""
from __future__ import annotations

import math

from .. import functional as F
from .. import init
from ..module import Module
from ..parameter import Parameter
from .utils import _empty


class Bilinear(Module):
    """y = x1^T W x2 + b; W [out, in1, in2] and b ~ U(-1/sqrt(in1), 1/sqrt(in1)) drawn from core's generator
    (weight first, then bias: the same values as torch's under the same seed)."""

    def __init__(self, in1_features, in2_features, out_features, bias=True, device=None, dtype=None):
        super().__init__()
        self.in1_features = in1_features
        self.in2_features = in2_features
        self.out_features = out_features
        self.weight = Parameter(_empty((out_features, in1_features, in2_features), dtype, device))
        if bias:
            self.bias = Parameter(_empty((out_features,), dtype, device))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self):
        if self.in1_features <= 0:
            raise ValueError(f"in1_features must be > 0, but got (in1_features={self.in1_features})")
        bound = 1 / math.sqrt(self.weight.size(1))
        init.uniform_(self.weight, -bound, bound)
        if self.bias is not None:
            init.uniform_(self.bias, -bound, bound)

    def forward(self, input1, input2):
        return F.bilinear(input1, input2, self.weight, self.bias)

    def extra_repr(self):
        return (f"in1_features={self.in1_features}, in2_features={self.in2_features}, "
                f"out_features={self.out_features}, bias={self.bias is not None}")
