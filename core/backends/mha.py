"""torch.backends.mha: the switch of the fast paths of nn.MultiheadAttention and nn.TransformerEncoder
(core/nn/modules/transformer.py consults it)."""

_is_fastpath_enabled = True


def get_fastpath_enabled():
    """Whether the fast paths may run (they also need every condition on their inputs)."""
    return _is_fastpath_enabled


def set_fastpath_enabled(value):
    global _is_fastpath_enabled
    _is_fastpath_enabled = value
