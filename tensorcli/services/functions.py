"""Built-in example ``torch.autograd.Function`` subclasses callable from expressions.

The CLI never loads user code; these examples (from the seed documents) let ``tensorcli grad``
and ``tensorcli graph`` show custom Functions at work: ``ctx.save_for_backward``,
``ctx.saved_tensors`` and ``ctx.needs_input_grad``. Expressions call them through ``apply``:

    MultiplyAdd.apply(w, x, b)          # w * x + b
    GradientRescale.apply(x, 0.2)       # identity forward, backward scales the gradient by 0.2

``CALLABLES`` is what the commands pass to ``tensorcli.services.expr.evaluate(extra_callables=...)``
(exact dotted chains, so only ``.apply`` is reachable).
"""
from __future__ import annotations

import core
from core.autograd import Function

__all__ = ["MultiplyAdd", "GradientRescale", "FUNCTIONS", "CALLABLES"]


class MultiplyAdd(Function):
    """w * x + b; backward returns grad * x, grad * w, grad for the inputs that need it."""

    @staticmethod
    def forward(ctx, w, x, b):
        ctx.save_for_backward(w, x)
        return w * x + b

    @staticmethod
    def backward(ctx, grad_output):
        w, x = ctx.saved_tensors
        need_w, need_x, need_b = (tuple(ctx.needs_input_grad) + (False,) * 3)[:3]
        grad_w = grad_output * x if need_w else None
        grad_x = grad_output * w if need_x else None
        grad_b = grad_output * 1 if need_b else None
        return grad_w, grad_x, grad_b


class GradientRescale(Function):
    """Identity in forward; backward multiplies the incoming gradient by ``scale`` (default 0.2).

    The seed's GradientRescaleFunction saves its input and returns it unchanged, and its backward
    returns a 0.2-scaled gradient; ``scale`` is a Python number and gets no gradient.
    """

    @staticmethod
    def forward(ctx, input, scale=0.2):
        if isinstance(scale, core.Tensor) or isinstance(scale, bool) or not isinstance(scale, (int, float)):
            raise TypeError(f"GradientRescale.apply(): scale must be a Python number, "
                            f"not {type(scale).__name__}")
        ctx.save_for_backward(input)
        ctx.scale = float(scale)
        return input.view_as(input)

    @staticmethod
    def backward(ctx, grad_output):
        grad_input = grad_output * ctx.scale if ctx.needs_input_grad[0] else None
        return grad_input, None


FUNCTIONS = {"MultiplyAdd": MultiplyAdd, "GradientRescale": GradientRescale}
CALLABLES = {f"{name}.apply": cls.apply for name, cls in FUNCTIONS.items()}
