"""`Parameter`: a Tensor subclass that a Module registers as a learnable weight
(PyTorch's torch.nn.Parameter: requires_grad=True by default, shares the data and
version counter of the tensor it wraps, prints as "Parameter containing:\\n...")."""
from __future__ import annotations

import numpy as np

from .. import dtypes
from ..device import check_factory_device
from ..tensor import Tensor


class Parameter(Tensor):
    """Parameter(data=None, requires_grad=True): a leaf tensor that Modules collect in parameters()."""

    def __new__(cls, data=None, requires_grad=True):
        if data is None:
            data = Tensor._make(np.zeros((0,), dtype=dtypes.get_default_dtype().np))
        if not isinstance(data, Tensor):
            raise TypeError(f"_make_subclass(): argument 'data' (position 2) must be Tensor, not "
                            f"{type(data).__name__}")
        t = cls._make(data._data)
        t._vc = data._vc            # like data.detach(): same storage, same version counter
        t._inference = data._inference
        if requires_grad:
            if data._data.dtype.kind != "f":
                raise RuntimeError("Only Tensors of floating point and complex dtype can require gradients")
            t._requires_grad = True
        return t

    def __init__(self, data=None, requires_grad=True):
        pass

    def __repr__(self, *, tensor_contents=None):
        return "Parameter containing:\n" + super().__repr__()

    def __deepcopy__(self, memo):
        if id(self) in memo:
            return memo[id(self)]
        result = type(self)(Tensor._make(self._data.copy()), self._requires_grad)
        memo[id(self)] = result
        return result

    def __reduce_ex__(self, proto):
        raise TypeError("core tensors are not picklable")


class UninitializedParameter(Parameter):
    """A parameter whose shape is not known yet (lazy modules): no data until `materialize(shape)`, which
    turns it into a plain Parameter, as torch.nn.parameter.UninitializedParameter does."""

    cls_to_become = Parameter

    def __new__(cls, requires_grad=True, device=None, dtype=None):
        check_factory_device(device)    # torch allocates torch.empty(0, device=device) here
        dt = (dtype or dtypes.get_default_dtype()).np
        return Parameter.__new__(cls, Tensor._make(np.zeros((0,), dtype=dt)), requires_grad)

    def __init__(self, requires_grad=True, device=None, dtype=None):
        pass

    def materialize(self, shape, device=None, dtype=None):
        """Allocate storage of `shape` (values are then set by the module's reset_parameters)."""
        dt = dtype.np if dtype is not None else self._data.dtype
        self._data = np.zeros(tuple(shape), dtype=dt)
        self.__class__ = self.cls_to_become

    @property
    def shape(self):
        raise RuntimeError("Can't access the shape of an uninitialized parameter or buffer. This error usually "
                           "happens in `load_state_dict` when trying to load an uninitialized parameter into an "
                           "initialized one. Call `forward` to initialize the parameters before accessing their "
                           "attributes.")

    def __repr__(self, *, tensor_contents=None):
        return "<UninitializedParameter>"
