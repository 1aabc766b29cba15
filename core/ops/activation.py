"""torch.softmax / torch.log_softmax and their Tensor methods; the Ops live in core.nn.functional
(imported on first call, so `import core` stays light)."""
from __future__ import annotations

from .registry import register


@register(category="nn", methods=("softmax",))
def softmax(input, dim, dtype=None):
    """exp(x) / sum(exp(x)) along dim."""
    from ..nn import functional as F   # lazy: importing core.nn on `import core` costs start-up time
    return F.softmax(input, dim, dtype=dtype)


@register(category="nn", methods=("log_softmax",))
def log_softmax(input, dim, dtype=None):
    """x - logsumexp(x) along dim, computed stably."""
    from ..nn import functional as F   # lazy: importing core.nn on `import core` costs start-up time
    return F.log_softmax(input, dim, dtype=dtype)
