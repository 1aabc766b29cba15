"""ChannelShuffle (torch/nn/modules/channelshuffle.py)."""
from __future__ import annotations

from .. import functional as F
from ..module import Module


class ChannelShuffle(Module):
    """Interleave the channels of `groups` groups: [N, g, C/g, *] -> [N, C/g, g, *]."""

    def __init__(self, groups):
        super().__init__()
        self.groups = groups

    def forward(self, input):
        return F.channel_shuffle(input, self.groups)

    def extra_repr(self):
        return f"groups={self.groups}"
