"""torch.masked's functions on strided tensors (core.masked re-exports them): the reductions (sum, prod,
amax, amin, argmax, argmin, mean, median, norm, var, std, logsumexp) and the normalizations (cumsum,
cumprod, softmax, log_softmax, softmin, normalize) plus logaddexp, each as torch/masked/_ops.py composes it:
masked-out elements are replaced by the operation's identity (0 for sum, 1 for prod, -inf for amax, ...)
and the plain op runs on the result."""
from . import normalizations, reductions  # noqa: F401
