"""F.dropout: input * noise (MulBackward0), the mask drawn from core's default generator."""
from __future__ import annotations

import numpy as np

from ... import creation as _creation
from ..registry import export, register
from ._util import _make


@register(category="nn", function=False, cli=True, cli_params={"inplace": "skip"},
          cli_example="tensorcli dropout '[[1.0,2,3,4]]' --p 0.5 --no-training")
def dropout(input, p=0.5, training=True, inplace=False):
    """Zero each element with probability p and scale the rest by 1/(1-p) (input * noise: MulBackward0);
    returns input itself when not training or p == 0."""
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if p == 0 or not training or input._data.size == 0:
        return input
    dt = input._data.dtype
    if p == 1:
        noise = _make(np.zeros((), dtype=dt))
    else:
        keep = _creation.default_generator._rng.random(input._data.shape) < (1 - p)
        noise = _make((keep.astype(dt) / dt.type(1 - p)).astype(dt, copy=False))
    return input.mul_(noise) if inplace else input * noise


@export(name="dropout")
def torch_dropout(input, p, train):
    """torch.dropout(input, p, train): F.dropout's kernel under torch's positional signature."""
    return dropout(input, p, train)
