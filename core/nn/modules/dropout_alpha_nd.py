"""AlphaDropout, FeatureAlphaDropout, Dropout1d, Dropout3d (torch/nn/modules/dropout.py's; kept apart from
Dropout/Dropout2d)."""
from __future__ import annotations

from .. import functional as F
from ..module import Module


class _DropoutNd(Module):
    def __init__(self, p=0.5, inplace=False):
        super().__init__()
        if p < 0 or p > 1:
            raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
        self.p = p
        self.inplace = inplace

    def extra_repr(self):
        return f"p={self.p}, inplace={self.inplace}"


class Dropout1d(_DropoutNd):
    """Zeroes whole channels of [N, C, L] (or [C, L]) input with probability p in training mode; identity in eval."""

    def forward(self, input):
        return F.dropout1d(input, self.p, self.training, self.inplace)


class Dropout3d(_DropoutNd):
    """Zeroes whole channels of [N, C, D, H, W] input with probability p in training mode; identity in eval."""

    def forward(self, input):
        return F.dropout3d(input, self.p, self.training, self.inplace)


class AlphaDropout(_DropoutNd):
    """Dropout that keeps SELU's zero mean and unit variance; identity in eval."""

    def forward(self, input):
        return F.alpha_dropout(input, self.p, self.training)


class FeatureAlphaDropout(_DropoutNd):
    """Alpha dropout of whole channels; identity in eval."""

    def forward(self, input):
        return F.feature_alpha_dropout(input, self.p, self.training)
