"""SparseAdam (torch.optim.SparseAdam): Adam for sparse gradients. core has no sparse tensors, so a step over
a parameter with a gradient raises torch's dense-gradient RuntimeError; construction checks as torch does."""
from __future__ import annotations

from ..autograd.grad_mode import no_grad
from .optimizer import Optimizer, _run_closure

__all__ = ["SparseAdam"]


class SparseAdam(Optimizer):
    """SparseAdam(params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, maximize=False)."""

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, maximize=False):
        if hasattr(lr, "numel") and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 < lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 < eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= betas[0] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 0: {betas[0]}")
        if not 0.0 <= betas[1] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 1: {betas[1]}")
        super().__init__(params, {"lr": lr, "betas": betas, "eps": eps, "maximize": maximize})
        complex_params = [[i, j] for i, group in enumerate(self.param_groups)
                          for j, p in enumerate(group["params"]) if p.is_complex()]
        if complex_params:
            raise ValueError(f"Complex params at indices {complex_params}: SparseAdam does not support complex "
                             "parameters")

    def step(self, closure=None):
        """Perform a single optimization step: every gradient here is dense, which SparseAdam rejects."""
        loss = _run_closure(closure)
        with no_grad():
            for group in self.param_groups:
                for p in group["params"]:
                    if p._grad is not None:
                        raise RuntimeError("SparseAdam does not support dense gradients, please consider Adam instead")
        return loss
