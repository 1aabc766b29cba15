"""torch.func on core: grad, grad_and_value, vjp, jacrev, jacfwd, hessian (core's reverse-mode autograd:
see _autodiff), jvp (reverse mode twice), vmap (a loop over the batch: see _vmap), functional_call and
stack_module_state."""
from ._autodiff import grad, grad_and_value, hessian, jacfwd, jacrev, jvp, vjp
from ._functional_call import functional_call, stack_module_state
from ._vmap import vmap


def functionalize(func, *, remove="mutations"):
    """torch.func.functionalize: func itself (core runs eagerly: the results are the same)."""
    return func


__all__ = ["functional_call", "functionalize", "grad", "grad_and_value", "hessian", "jacfwd", "jacrev", "jvp",
           "stack_module_state", "vjp", "vmap"]
