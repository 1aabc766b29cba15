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


class UninitializedTensorMixin:
    """Shared by UninitializedParameter / UninitializedBuffer (torch.nn.parameter): no shape until
    `materialize(shape)`, which allocates storage and turns the object into `cls_to_become`."""

    def materialize(self, shape, device=None, dtype=None):
        """Allocate storage of `shape` (values are then set by the module's reset_parameters)."""
        check_factory_device(device)
        dt = dtype.np if dtype is not None else self._data.dtype
        self._data = np.zeros(tuple(shape), dtype=dt)   # torch.empty; zeros keep runs deterministic
        self.__class__ = self.cls_to_become

    @property
    def shape(self):
        raise RuntimeError("Can't access the shape of an uninitialized parameter or buffer. This error usually "
                           "happens in `load_state_dict` when trying to load an uninitialized parameter into an "
                           "initialized one. Call `forward` to initialize the parameters before accessing their "
                           "attributes.")

    def share_memory_(self):
        raise RuntimeError("Can't share memory on an uninitialized parameter or buffer. Call `forward` to "
                           "initialize the parameters before calling `module.share_memory()`.")

    def __repr__(self, *, tensor_contents=None):
        return f"<{self.__class__.__name__}>"


def is_lazy(param):
    """True for an uninitialized parameter or buffer (torch.nn.parameter.is_lazy)."""
    return isinstance(param, UninitializedTensorMixin)


def _empty(device, dtype):
    check_factory_device(device)    # torch allocates torch.empty(0, device=device) here
    return Tensor._make(np.zeros((0,), dtype=(dtype or dtypes.get_default_dtype()).np))


class UninitializedParameter(UninitializedTensorMixin, Parameter):
    """A parameter whose shape is not known yet (lazy modules): no data until `materialize(shape)`, which
    turns it into a plain Parameter, as torch.nn.parameter.UninitializedParameter does."""

    cls_to_become = Parameter

    def __new__(cls, requires_grad=True, device=None, dtype=None):
        return Parameter.__new__(cls, _empty(device, dtype), requires_grad)

    def __init__(self, requires_grad=True, device=None, dtype=None):
        pass

    def __deepcopy__(self, memo):
        if id(self) not in memo:
            memo[id(self)] = type(self)(self._requires_grad, None, dtypes.from_numpy_dtype(self._data.dtype))
        return memo[id(self)]


class _BufferMeta(type):
    """isinstance(t, Buffer) is True for any tensor made by Buffer(...) (it is a plain Tensor, marked)."""

    def __instancecheck__(cls, instance):
        if cls is Buffer and isinstance(instance, Tensor) and getattr(instance, "_is_buffer", False):
            return True
        return super().__instancecheck__(instance)


class Buffer(Tensor, metaclass=_BufferMeta):
    """Buffer(data=None, *, persistent=True): marks a tensor so that assigning it to a Module attribute
    registers a buffer (torch.nn.Buffer); the result is `data.detach()`, a plain Tensor."""

    def __new__(cls, data=None, *, persistent=True):
        if data is None:
            data = Tensor._make(np.zeros((0,), dtype=dtypes.get_default_dtype().np))
        t = data.detach().requires_grad_(data.requires_grad)
        t.persistent = persistent
        t._is_buffer = True
        return t


class UninitializedBuffer(UninitializedTensorMixin, Tensor):
    """A buffer whose shape is not known yet (lazy modules' running stats): becomes a Tensor on
    `materialize(shape)`, as torch.nn.parameter.UninitializedBuffer."""

    cls_to_become = Tensor

    def __new__(cls, requires_grad=False, device=None, dtype=None, persistent=True):
        data = _empty(device, dtype)
        ret = cls._make(data._data)
        ret._requires_grad = bool(requires_grad)
        ret.persistent = persistent
        ret._is_buffer = True
        return ret

    def __init__(self, requires_grad=False, device=None, dtype=None, persistent=True):
        pass
