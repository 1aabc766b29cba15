"""torch.linalg: the namespace of the ops registered as "linalg.<name>" (core/ops/linalg, and linalg.cross
from core/ops/shape/cross.py), matrix_exp (registered once, as torch.matrix_exp) and LinAlgError."""

from ..ops.linalg._common import LinAlgError  # noqa: F401
from ..ops.registry import OPS as _OPS

_NAMES = {name.split(".", 1)[1]: info.fn for name, info in _OPS.items() if name.startswith("linalg.")}
_NAMES["matrix_exp"] = _OPS["matrix_exp"].fn     # torch.linalg.matrix_exp is torch.matrix_exp
globals().update(_NAMES)

__all__ = sorted(["LinAlgError", *_NAMES])
