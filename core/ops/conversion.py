"""Tensor methods that convert or create from a tensor: `to` / `type` / `float()`..., the `new_*`
factories, the legacy `x.new(...)` and `torch.Tensor(...)` constructors (float32 of the default dtype)."""
from __future__ import annotations

import numpy as np

from .. import _memory_format as _mf
from .. import _methods
from .. import dtypes as _dt
from ..creation import _array_from_data, _check_alloc, _size_kw, empty, full, ones, size_keyword, tensor, zeros
from ..device import check_device
from ..device import device as Device
from ..tensor import Size, Tensor
from .pointwise import _to_dtype


@_methods.method("__init__")
def legacy_init(self, *args, requires_grad=False):
    """torch.Tensor(data) / torch.Tensor(*sizes): the legacy constructor, in the default dtype."""
    default = _dt.get_default_dtype()
    if len(args) == 1 and not isinstance(args[0], (int, np.integer)):
        src = args[0]
        if isinstance(src, Tensor):
            data = src._data.astype(default.np)
        else:
            data = _array_from_data(src, default)
    else:
        sizes = args[0] if len(args) == 1 and isinstance(args[0], (tuple, list, Size)) else args
        _check_alloc(sizes, default)
        data = np.zeros(tuple(int(s) for s in sizes), dtype=default.np)
    self._init(data, requires_grad)


def _parse_to(args, kwargs):
    """PyTorch's three `to` overloads: (dtype, ...), (device, dtype, ...), (other, ...); positional
    non_blocking and copy follow."""
    dtype = kwargs.pop("dtype", None)
    device = kwargs.pop("device", None)
    non_blocking = kwargs.pop("non_blocking", False)
    copy = kwargs.pop("copy", False)
    memory_format = kwargs.pop("memory_format", None)
    if kwargs:
        raise TypeError(f"to() received an invalid combination of arguments - got unexpected keyword "
                        f"'{next(iter(kwargs))}'")
    rest = list(args)
    if rest and isinstance(rest[0], Tensor):
        dtype = rest.pop(0).dtype
    elif rest and isinstance(rest[0], (str, int, Device)) and not isinstance(rest[0], bool):
        device = rest.pop(0)
        if rest and (isinstance(rest[0], _dt.dtype) or rest[0] is None):
            dtype = rest.pop(0)
    elif rest and rest[0] is not None and not isinstance(rest[0], bool):
        dtype = _dt.as_dtype(rest.pop(0))
    elif rest and rest[0] is None:
        rest.pop(0)
    if rest:
        non_blocking = rest.pop(0)
    if rest:
        copy = rest.pop(0)
    return device, dtype, bool(copy), memory_format


@_methods.method("to")
def to(self, *args, **kwargs):
    """Tensor.to(dtype) / to(device, dtype) / to(other); copy=False returns self when nothing changes."""
    device, dtype, copy, memory_format = _parse_to(args, kwargs)
    if device is not None:
        check_device(device)
    fmt = _mf.check(memory_format, "to") if memory_format is not None else _mf.preserve_format
    if fmt is not _mf.preserve_format and not copy and (dtype is None or _dt.as_dtype(dtype) is self.dtype) \
            and _mf.suggest(self._data) is not fmt:
        r = _to_dtype(self, self.dtype)      # torch's _to_copy (ToCopyBackward0), in the asked layout
        r._data = _mf.laid_out(r._data, fmt)
        return r
    if dtype is None or _dt.as_dtype(dtype) is self.dtype:
        return self.clone() if copy else self
    r = _to_dtype(self, _dt.as_dtype(dtype))
    if fmt is not _mf.preserve_format:
        r._data = _mf.laid_out(r._data, fmt)
    return r


@_methods.method("type")
def type_(self, dtype=None, non_blocking=False, **kw):
    """No argument: the legacy type string ('torch.FloatTensor'); otherwise a cast."""
    if dtype is None:
        return _dt.legacy_type_name(self.dtype)
    return to(self, _dt.as_dtype(dtype))


@_methods.method("type_as")
def type_as(self, other):
    return to(self, other.dtype)


def _caster(dt):
    def cast(self, memory_format=None):
        return to(self, dt)
    cast.__doc__ = f"self.to({dt!r})"
    return cast


for _name, _dtype in (("long", _dt.int64), ("int", _dt.int32), ("short", _dt.int16), ("char", _dt.int8),
                      ("byte", _dt.uint8), ("float", _dt.float32), ("double", _dt.float64),
                      ("half", _dt.float16), ("bool", _dt.bool_)):
    _methods.method(_name, _caster(_dtype))


def _factory_kwargs(self, dtype, device):
    """new_* follow self's device (CPU) unless given one; the factory checks it as torch's does."""
    return {"dtype": dtype or self.dtype, "device": device if device is not None else "cpu"}


@_methods.method("new_tensor")
def new_tensor(self, data, dtype=None, device=None, requires_grad=False, layout=None, pin_memory=False):
    return tensor(data, **_factory_kwargs(self, dtype, device), requires_grad=requires_grad)


@_methods.method("new_zeros")
def new_zeros(self, *size, dtype=None, device=None, requires_grad=False, layout=None, pin_memory=False, **kw):
    """Tensor.new_zeros(size) / new_zeros(*size) / new_zeros(size=...): zeros in self's dtype and device."""
    size = size_keyword("new_zeros", size, _size_kw("new_zeros", kw))
    return zeros(*size, **_factory_kwargs(self, dtype, device), requires_grad=requires_grad)


@_methods.method("new_ones")
def new_ones(self, *size, dtype=None, device=None, requires_grad=False, layout=None, pin_memory=False, **kw):
    """Tensor.new_ones(size) / new_ones(*size) / new_ones(size=...): ones in self's dtype and device."""
    size = size_keyword("new_ones", size, _size_kw("new_ones", kw))
    return ones(*size, **_factory_kwargs(self, dtype, device), requires_grad=requires_grad)


@_methods.method("new_full")
def new_full(self, size, fill_value, dtype=None, device=None, requires_grad=False, layout=None,
             pin_memory=False):
    return full(size, fill_value, **_factory_kwargs(self, dtype, device), requires_grad=requires_grad)


@_methods.method("new_empty")
def new_empty(self, *size, dtype=None, device=None, requires_grad=False, layout=None, pin_memory=False, **kw):
    """Tensor.new_empty(size) / new_empty(*size) / new_empty(size=...): empty in self's dtype and device."""
    size = size_keyword("new_empty", size, _size_kw("new_empty", kw))
    return empty(*size, **_factory_kwargs(self, dtype, device), requires_grad=requires_grad)


_NEW_SIGNATURES = (" * (*, torch.device device = None)\n * (torch.Storage storage)\n * (Tensor other)\n"
                   " * (tuple of ints size, *, torch.device device = None)\n"
                   " * (object data, *, torch.device device = None)\n")


def _is_size(args):
    return all(isinstance(a, (int, np.integer)) and not isinstance(a, bool) for a in args)


@_methods.method("new")
def new(self, *args, device=None, **kwargs):
    """Tensor.new: the legacy constructor in self's dtype: new() is empty, new(2, 3) / new(Size) allocate
    (uninitialised in torch), new(list) copies data, new(tensor of the same dtype) aliases it;
    new(size=...) is the size overload."""
    if "size" in kwargs and not args and len(kwargs) == 1 and isinstance(kwargs["size"], (tuple, list, Size)):
        return empty(Size(kwargs["size"]), dtype=self.dtype)
    if kwargs:
        got = ", ".join([_arg_type(a) for a in args] + [f"{k}={_arg_type(v)}" for k, v in kwargs.items()])
        raise TypeError(f"new() received an invalid combination of arguments - got ({got}), but expected one of:\n"
                        + _NEW_SIGNATURES)
    if device is not None:
        check_device(device)
    if not args:
        return empty(0, dtype=self.dtype)
    if len(args) == 1 and isinstance(args[0], Tensor):
        other = args[0]
        if other.dtype is not self.dtype:
            raise TypeError(f"expected {_options(self.dtype)} (got {_options(other.dtype)})")
        return other.detach() if not other._requires_grad else _alias(other)
    if len(args) == 1 and isinstance(args[0], Size) or _is_size(args):
        return empty(*args, dtype=self.dtype)
    if len(args) == 1 and isinstance(args[0], (list, tuple)):
        return tensor(args[0], dtype=self.dtype)
    if len(args) == 1:
        raise TypeError(f"new(): data must be a sequence (got {type(args[0]).__name__})")
    if isinstance(args[0], (int, np.integer)):
        pos = next(i for i, a in enumerate(args) if not isinstance(a, (int, np.integer)) or isinstance(a, bool))
        raise TypeError(f"new(): argument 'size' failed to unpack the object at pos {pos + 1} with error "
                        f"\"type must be tuple of ints,but got {type(args[pos]).__name__}\"")
    got = ", ".join(_arg_type(a) for a in args)
    raise TypeError(f"new() received an invalid combination of arguments - got ({got}), but expected one of:\n"
                    + _NEW_SIGNATURES)


def _arg_type(v):
    """An argument's type as torch's parser names it in errors (torch.dtype, Tensor, int...)."""
    return {"dtype": "torch.dtype", "Tensor": "Tensor", "device": "torch.device"}.get(type(v).__name__,
                                                                                     type(v).__name__)


def _options(dt):
    return (f"TensorOptions(dtype={_dt.CPP_NAMES[dt.name]}, device=cpu, layout=Strided, requires_grad=false "
            "(default), pinned_memory=false (default), memory_format=(nullopt))")


def _alias(t):
    """x.new(t): t itself as a new leaf-less alias sharing storage and version counter (torch's alias)."""
    r = Tensor._make(t._data)
    r._vc = t._vc
    return r


from . import queries  # noqa: E402,F401  torch's predicates and flags (families.ORDER does not list it yet)
