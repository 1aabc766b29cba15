"""torch.nn.utils.parameters_to_vector / vector_to_parameters."""
from __future__ import annotations

from ...ops.shape import cat
from ...tensor import Tensor

__all__ = ["parameters_to_vector", "vector_to_parameters"]


def _typename(obj):
    if isinstance(obj, Tensor):
        return obj.type()
    module = getattr(type(obj), "__module__", "builtins")
    name = type(obj).__qualname__
    return name if module == "builtins" else f"{module}.{name}"


def parameters_to_vector(parameters):
    """All parameters flattened and concatenated into one 1-D tensor (differentiable, like torch.cat)."""
    return cat([param.view(-1) for param in parameters])


def vector_to_parameters(vec, parameters):
    """Copy consecutive slices of vec into the parameters' .data (each parameter then views vec)."""
    if not isinstance(vec, Tensor):
        raise TypeError(f"expected torch.Tensor, but got: {_typename(vec)}")
    pointer = 0
    for param in parameters:
        num_param = param.numel()
        param.data = vec[pointer:pointer + num_param].view_as(param).data
        pointer += num_param
