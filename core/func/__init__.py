"""torch.func on core: grad, grad_and_value, vjp, jacrev, jacfwd, hessian (core's reverse-mode autograd:
see _autodiff), vmap (a loop over the batch: see _vmap) and functional_call."""
from ._autodiff import grad, grad_and_value, hessian, jacfwd, jacrev, vjp
from ._functional_call import functional_call
from ._vmap import vmap

__all__ = ["functional_call", "grad", "grad_and_value", "hessian", "jacfwd", "jacrev", "vjp", "vmap"]
