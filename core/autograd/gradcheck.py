"""torch.autograd.gradcheck / gradgradcheck: analytical Jacobians (one vector-Jacobian product per output
element) against central finite differences computed as torch's slow mode computes them
((f(x + eps) - f(x - eps)) / (2 eps) in the output's dtype), with torch's errors, warnings and message
("Jacobian mismatch for output i with respect to input j, numerical: ... analytical: ...").
fast_mode and the batched / forward-AD checks run the slow check."""
from __future__ import annotations

import warnings

import numpy as np

from ..tensor import Tensor
from .engine import run_backward

__all__ = ["gradcheck", "gradgradcheck", "GradcheckError"]


class GradcheckError(RuntimeError):
    """Raised by gradcheck and gradgradcheck when raise_exception=True."""


def _as_tuple(x):
    return tuple(x) if isinstance(x, (tuple, list)) else (x,)


def _differentiable_outputs(x):
    return tuple(o for o in _as_tuple(x) if isinstance(o, Tensor) and o.requires_grad)


def _numerical_jacobians(func, inputs, outputs, eps):
    """{(input i, output j): [numel_in, numel_out] array}, perturbing one element of input i at a time."""
    jac = {}
    for i, x in enumerate(inputs):
        if not (isinstance(x, Tensor) and x.requires_grad):
            continue
        data = x._data   # written in place: the perturbation reaches x itself, as torch's entry.copy_
        cols = [np.zeros((data.size, o.numel()), o._data.dtype) for o in outputs]
        for k, idx in enumerate(np.ndindex(data.shape)):
            orig = data[idx].copy()
            data[idx] = orig - data.dtype.type(eps)
            outa = [o.detach()._data.copy() for o in _as_tuple(func(*inputs)) if isinstance(o, Tensor)]
            data[idx] = orig + data.dtype.type(eps)
            outb = [o.detach()._data.copy() for o in _as_tuple(func(*inputs)) if isinstance(o, Tensor)]
            data[idx] = orig
            for j, (a, b) in enumerate(zip(outa, outb)):
                if j < len(cols):
                    cols[j][k] = ((b - a) / b.dtype.type(2 * eps)).reshape(-1)
        for j, c in enumerate(cols):
            jac[(i, j)] = c
    return jac


def _grad(outputs, inputs, grad_outputs, retain_graph=None, create_graph=False):
    """torch.autograd.grad(outputs, inputs, grad_outputs, ..., allow_unused=True) (core.autograd.grad runs the
    same engine call; the package imports this module, so this module does not import the package)."""
    outputs = [outputs] if isinstance(outputs, Tensor) else list(outputs)
    grad_outputs = [grad_outputs] if isinstance(grad_outputs, Tensor) else list(grad_outputs)
    return run_backward(outputs, grad_outputs, retain_graph, create_graph, inputs=list(inputs), allow_unused=True,
                        accumulate=False)


def _analytical_jacobians(inputs, outputs):
    diff = [i for i, x in enumerate(inputs) if isinstance(x, Tensor) and x.requires_grad]
    jac = {}
    for j, o in enumerate(outputs):
        rows = {i: np.zeros((inputs[i].numel(), o.numel()), inputs[i]._data.dtype) for i in diff}
        for k in range(o.numel()):
            g = np.zeros(o._data.size, o._data.dtype)
            g[k] = 1
            grads = _grad(o, [inputs[i] for i in diff], Tensor._make(g.reshape(o._data.shape)), retain_graph=True)
            for i, gi in zip(diff, grads):
                if gi is not None:
                    rows[i][:, k] = gi.detach()._data.reshape(-1)
        for i in diff:
            jac[(i, j)] = rows[i]
    return jac


def gradcheck(func, inputs, *, eps=1e-6, atol=1e-5, rtol=1e-3, raise_exception=True, nondet_tol=0.0,
              check_undefined_grad=True, check_grad_dtypes=False, check_batched_grad=False,
              check_batched_forward_grad=False, check_forward_ad=False, check_backward_ad=True, fast_mode=False,
              masked=None):
    """True when every analytical Jacobian of func at inputs matches finite differences (torch.autograd.gradcheck)."""
    inputs = _as_tuple(inputs)
    if not any(isinstance(x, Tensor) and x.requires_grad for x in inputs):
        raise ValueError("gradcheck expects at least one input tensor to require gradient, but none of them have "
                         "requires_grad=True.")
    for i, x in enumerate(inputs):
        if isinstance(x, Tensor) and x.requires_grad and x.dtype.name != "float64":
            warnings.warn(f"Input #{i} requires gradient and is not a double precision floating point or complex. "
                          "This check will likely fail if all the inputs are not of double precision floating point "
                          "or complex. ", stacklevel=1)   # torch's is inside gradcheck.py too
    outputs = _differentiable_outputs(func(*inputs))
    if not check_backward_ad:
        return True
    numerical = _numerical_jacobians(func, inputs, outputs, eps)
    analytical = _analytical_jacobians(inputs, outputs)
    for (i, j), n in numerical.items():
        a = analytical[(i, j)]
        if not np.allclose(a, n, rtol=rtol, atol=atol):
            if not raise_exception:
                return False
            raise GradcheckError(f"Jacobian mismatch for output {j} with respect to input {i},\n"
                                 f"numerical:{Tensor._make(n)!r}\nanalytical:{Tensor._make(a)!r}\n")
    return True


def gradgradcheck(func, inputs, grad_outputs=None, *, eps=1e-6, atol=1e-5, rtol=1e-3,
                  gen_non_contig_grad_outputs=False, raise_exception=True, nondet_tol=0.0, check_undefined_grad=True,
                  check_grad_dtypes=False, check_batched_grad=False, check_fwd_over_rev=False,
                  check_rev_over_rev=True, fast_mode=False, masked=False):
    """gradcheck of the gradients of func (torch.autograd.gradgradcheck); random grad_outputs are drawn from
    the default generator in [-1, 1) as torch.testing.make_tensor draws them."""
    inputs = _as_tuple(inputs)
    if grad_outputs is None:
        grad_outputs = tuple(
            Tensor._make(np.empty(o._data.shape, o._data.dtype if o.is_floating_point() else np.float64))
            .uniform_(-1, 1).requires_grad_(True) for o in _differentiable_outputs(func(*inputs)))
    else:
        grad_outputs = _as_tuple(grad_outputs)
    n = len(grad_outputs)
    diff_in = {i for i, x in enumerate(inputs) if isinstance(x, Tensor) and x.requires_grad}

    def new_func(*args):
        input_args = tuple(x.requires_grad_() if i in diff_in else x for i, x in enumerate(args[:-n]))
        outputs = _differentiable_outputs(func(*input_args))
        grads = _grad(outputs, tuple(x for i, x in enumerate(input_args) if i in diff_in), args[-n:],
                      create_graph=True)
        return tuple(g for g in grads if g is not None)

    return gradcheck(new_func, inputs + tuple(grad_outputs), eps=eps, atol=atol, rtol=rtol,
                     raise_exception=raise_exception, nondet_tol=nondet_tol, fast_mode=fast_mode)
