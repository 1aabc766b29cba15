"""torch.linalg: the namespace of the ops registered as "linalg.<name>" (core/ops/linalg, and linalg.cross
from core/ops/shape/cross.py), plus LinAlgError."""

from ..ops.linalg._common import LinAlgError  # noqa: F401
from ..ops.registry import OPS as _OPS

globals().update({name.split(".", 1)[1]: info.fn for name, info in _OPS.items() if name.startswith("linalg.")})

__all__ = sorted(["LinAlgError"] + [n.split(".", 1)[1] for n in _OPS if n.startswith("linalg.")])
