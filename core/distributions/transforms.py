"""torch.distributions.transforms on core: every transform torch defines, from three modules (base and
combinators, elementwise bijections, event-shaped transforms). Ported from torch/distributions/transforms.py
(PyTorch 2.13, BSD-3-Clause)."""
from __future__ import annotations

from core.distributions._transform_base import (  # noqa: F401
    ComposeTransform, IndependentTransform, ReshapeTransform, Transform, _InverseTransform, identity_transform)
from core.distributions._transforms_elementwise import (  # noqa: F401
    AbsTransform, AffineTransform, CorrCholeskyTransform, ExpTransform, PowerTransform, SigmoidTransform,
    SoftplusTransform, TanhTransform, _clipped_sigmoid)
from core.distributions._transforms_structured import (  # noqa: F401
    CatTransform, CumulativeDistributionTransform, LowerCholeskyTransform, PositiveDefiniteTransform,
    SoftmaxTransform, StackTransform, StickBreakingTransform)

__all__ = [
    "AbsTransform",
    "AffineTransform",
    "CatTransform",
    "ComposeTransform",
    "CorrCholeskyTransform",
    "CumulativeDistributionTransform",
    "ExpTransform",
    "IndependentTransform",
    "LowerCholeskyTransform",
    "PositiveDefiniteTransform",
    "PowerTransform",
    "ReshapeTransform",
    "SigmoidTransform",
    "SoftplusTransform",
    "TanhTransform",
    "SoftmaxTransform",
    "StackTransform",
    "StickBreakingTransform",
    "Transform",
    "identity_transform",
]
