"""InstanceNorm1d/2d/3d (torch/nn/modules/instancenorm.py): batch_norm's buffers and repr, statistics per
(sample, channel); affine and running statistics off by default; unbatched input is taken as one sample."""
from __future__ import annotations

import warnings

from .. import functional as F
from .batchnorm import _BatchNorm, _LazyNormBase


class _InstanceNorm(_BatchNorm):
    _NO_BATCH_DIM = 3   # the rank of an unbatched input ([C, L] for 1d: 2, [C, H, W] for 2d: 3, ...)

    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=False, track_running_stats=False, device=None,
                 dtype=None, *, bias=True):
        super().__init__(num_features, eps, momentum, affine, track_running_stats, device, dtype, bias=bias)

    def _check_input_dim(self, input):
        nb = self._NO_BATCH_DIM
        if input.dim() not in (nb, nb + 1):
            raise ValueError(f"expected {nb}D or {nb + 1}D input (got {input.dim()}D input)")

    def forward(self, input):
        self._check_input_dim(input)
        feature_dim = input.dim() - self._NO_BATCH_DIM
        if input.size(feature_dim) != self.num_features:
            if self.affine:
                raise ValueError(f"expected input's size at dim={feature_dim} to match num_features "
                                 f"({self.num_features}), but got: {input.size(feature_dim)}.")
            warnings.warn(f"input's size at dim={feature_dim} does not match num_features. You can silence this "
                          "warning by not passing in num_features, which is not used because affine=False",
                          stacklevel=2)
        if input.dim() == self._NO_BATCH_DIM:
            return self._apply_instance_norm(input.unsqueeze(0)).squeeze(0)
        return self._apply_instance_norm(input)

    def _apply_instance_norm(self, input):
        return F.instance_norm(input, self.running_mean, self.running_var, self.weight, self.bias,
                               self.training or not self.track_running_stats,
                               self.momentum if self.momentum is not None else 0.0, self.eps)


class InstanceNorm1d(_InstanceNorm):
    """Normalise each channel of each sample of [N, C, L] (or [C, L]) input over L."""
    _NO_BATCH_DIM = 2


class InstanceNorm2d(_InstanceNorm):
    """Normalise each channel of each sample of [N, C, H, W] (or [C, H, W]) input over H, W."""
    _NO_BATCH_DIM = 3


class InstanceNorm3d(_InstanceNorm):
    """Normalise each channel of each sample of [N, C, D, H, W] (or [C, D, H, W]) input over D, H, W."""
    _NO_BATCH_DIM = 4


class LazyInstanceNorm1d(_LazyNormBase, _InstanceNorm):
    """InstanceNorm1d whose num_features is inferred from the first input (affine and running stats on)."""
    cls_to_become = InstanceNorm1d
    _NO_BATCH_DIM = 2


class LazyInstanceNorm2d(_LazyNormBase, _InstanceNorm):
    """InstanceNorm2d whose num_features is inferred from the first input (affine and running stats on)."""
    cls_to_become = InstanceNorm2d
    _NO_BATCH_DIM = 3


class LazyInstanceNorm3d(_LazyNormBase, _InstanceNorm):
    """InstanceNorm3d whose num_features is inferred from the first input (affine and running stats on)."""
    cls_to_become = InstanceNorm3d
    _NO_BATCH_DIM = 4
