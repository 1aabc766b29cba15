"""Tensor creation: core.tensor with PyTorch's dtype inference, factories and legacy constructors.
Random factories live in core/ops/random.py (on core/random.py's generator, torch's mt19937);
the allocation guard in core/_alloc.py (re-exported here)."""
from __future__ import annotations

import itertools
import math
import weakref

import numpy as np

from . import _memory_format as _mf
from . import dtypes as _dt
from ._warn import warn_aten
from .ops.registry import export
from .tensor import Size, Tensor
from .random import Generator, default_generator  # noqa: F401  (torch.Generator; core/__init__ imports it here)
from ._rng_math import _two_sum, fma64 as _fma64
from .device import CPU as _CPU, check_device, check_factory_device
from ._alloc import (_FACTORY_RG_MSG, _MAX_ALLOC, _check_alloc, _dense, _is_int, _parse_size,  # noqa: F401
                     _set_requires_grad, check_alloc, get_allocation_limit, set_allocation_limit)

# -- inference from Python data (a port of torch/csrc/utils/tensor_new.cpp) -----------------
#
# PyTorch works in three passes, and the order decides which error a bad input gets:
# compute_sizes (follow the first element down), infer_scalar_type (promote over every
# element), recursive_store (check every sequence's length, convert each scalar).

_MAX_DIMS = 64
_SEQ_TYPES = (list, tuple, range)


def _is_sequence(obj):
    """Any other object torch reads as a sequence (PySequence_Check: deque, array.array, a class with
    __len__ and __getitem__), but not a mapping, string, tensor or array."""
    t = type(obj)
    return hasattr(t, "__getitem__") and hasattr(t, "__len__") and \
        not isinstance(obj, (dict, str, bytes, Tensor, np.ndarray, np.generic))


def _compute_sizes(data):
    sizes = []
    obj = data
    while True:
        if isinstance(obj, _SEQ_TYPES) or _is_sequence(obj):
            n = len(obj)
            sizes.append(n)
            if n == 0:
                break
            obj = obj[0]
        elif isinstance(obj, np.ndarray):
            if obj.ndim == 0:
                raise TypeError("len() of unsized object")
            for s in obj.shape:
                sizes.append(int(s))
                if s == 0:
                    break
            break
        elif isinstance(obj, str):
            raise ValueError("too many dimensions 'str'")
        else:
            break
        if len(sizes) > _MAX_DIMS:
            raise ValueError(f"too many dimensions '{type(obj).__name__}'")
    return tuple(sizes)


_PY_SCALAR = {bool: _dt.bool_, int: _dt.int64}


def _infer_dtype(obj):
    """PyTorch's infer_scalar_type: Python int -> int64, float -> default float, bool -> bool,
    NumPy arrays/scalars and tensors keep their dtype; sequences promote over their items."""
    t = type(obj)
    if t is float:
        return _dt.get_default_dtype()
    d = _PY_SCALAR.get(t)
    if d is not None:
        return d
    if isinstance(obj, Tensor):
        return obj.dtype
    if isinstance(obj, (np.ndarray, np.generic)):
        return _dt.from_numpy_dtype(obj.dtype)
    if isinstance(obj, (str, bytes)):
        raise TypeError(f"new(): invalid data type '{type(obj).__name__}'")
    if isinstance(obj, _SEQ_TYPES):
        if len(obj) == 0:
            return _dt.get_default_dtype()
        if isinstance(obj, range):
            return _dt.int64
        kinds = set(map(type, obj))
        if kinds <= {bool, int, float}:   # fast path for flat lists of Python numbers
            if float in kinds:
                return _dt.get_default_dtype()
            return _dt.int64 if int in kinds else _dt.bool_
        res = None
        for item in obj:
            if item is obj:
                raise TypeError("new(): self-referential lists are incompatible")
            d = _infer_dtype(item)
            res = d if res is None else _dt.promote_types(res, d)
        return res
    if isinstance(obj, (bool, int, float)):  # subclasses of Python numbers
        return _infer_dtype(t.__mro__[-2](obj))
    if _is_sequence(obj):
        return _infer_dtype(list(obj))
    raise RuntimeError(f"Could not infer dtype of {type(obj).__name__}")


def _to_plain(data):
    if isinstance(data, Tensor):
        return data._data if data._data.ndim else data._data[()]
    if isinstance(data, (list, tuple)):
        return [_to_plain(x) for x in data]
    if _is_sequence(data):
        return [_to_plain(x) for x in list(data)]
    return data


def _leaf_value(obj, dt):
    """store_scalar: one element as a Python/NumPy number, with PyTorch's errors."""
    if isinstance(obj, Tensor):
        if obj._data.size != 1:
            if dt.is_floating_point:
                raise ValueError("only one element tensors can be converted to Python scalars")
            raise TypeError("only integer tensors of a single element can be converted to an index")
        return obj._data.reshape(()).item()
    if isinstance(obj, (bool, int, float, np.number, np.bool_)):
        return obj
    if dt.is_floating_point:
        raise TypeError(f"must be real number, not {type(obj).__name__}")
    raise TypeError(f"'{type(obj).__name__}' object cannot be interpreted as an integer")


def _store(obj, sizes, dim, dt, out):
    """recursive_store: validate lengths dim by dim, collecting leaf values in order."""
    if dim == len(sizes):
        out.append(_leaf_value(obj, dt))
        return
    if isinstance(obj, Tensor) and obj._data.ndim:
        obj = list(obj._data)
    elif isinstance(obj, np.ndarray) and obj.ndim:
        obj = list(obj)
    elif not isinstance(obj, _SEQ_TYPES):
        if not _is_sequence(obj):
            raise TypeError("not a sequence")
        obj = list(obj)
    n = sizes[dim]
    if len(obj) != n:
        raise ValueError(f"expected sequence of length {n} at dim {dim} (got {len(obj)})")
    for item in obj:
        _store(item, sizes, dim + 1, dt, out)


def _has_big_int(obj):
    if type(obj) is int:
        return not (-2 ** 63 <= obj < 2 ** 63)
    if isinstance(obj, (list, tuple)):
        return any(_has_big_int(x) for x in obj)
    return False


def _has_int_beyond(obj, bound):
    if type(obj) is int:
        return abs(obj) > bound
    if isinstance(obj, (list, tuple)):
        return any(_has_int_beyond(x, bound) for x in obj)
    return False


def _flat_leaves(obj):
    if isinstance(obj, (list, tuple)):
        return [v for x in obj for v in _flat_leaves(x)]
    return [obj]


def _cast_checked(arr, dt, data):
    """Convert to dt like PyTorch's store_scalar: floats -> ints truncate but must fit,
    Python ints must fit int64 (and the target; uint8 also takes -255..-1 and wraps)."""
    if dt.is_floating_point or dt is _dt.bool_:
        with np.errstate(all="ignore"):
            return arr.astype(np.float64 if arr.dtype == object else arr.dtype).astype(dt.np)
    if arr.dtype.kind in "Ouf" and _has_big_int(data):
        raise ValueError("Overflow when unpacking long long")
    info = np.iinfo(dt.np)
    if arr.dtype.kind == "f" and _has_int_beyond(data, 2 ** 53):
        # ints mixed with floats: torch stores each element from its own Python value, not via a double
        return np.array([_cast_checked(np.array(v), dt, v)[()] for v in _flat_leaves(data)],
                        dtype=dt.np).reshape(arr.shape)
    if arr.dtype.kind == "f":
        with np.errstate(invalid="ignore"):
            bad = ~np.isfinite(arr) | (arr < info.min) | (arr >= float(int(info.max) + 1))
        if bad.any():
            raise RuntimeError(f"value cannot be converted to type {dt.name} without overflow")
        return np.trunc(arr).astype(dt.np)
    if arr.dtype.kind in "iu" and arr.dtype != dt.np:
        lo = -int(info.max) if info.min == 0 else int(info.min)
        if (arr < lo).any() or (arr > info.max).any():
            raise RuntimeError(f"value cannot be converted to type {dt.name} without overflow")
    return arr.astype(dt.np)


def _array_from_data(data, dtype=None):
    """NumPy array for torch.tensor(data, dtype): PyTorch's inference, shapes and errors."""
    if isinstance(data, (str, bytes)):
        raise TypeError(f"new(): invalid data type '{type(data).__name__}'")
    if isinstance(data, Tensor):
        dt = _dt.as_dtype(dtype) if dtype is not None else data.dtype
        _check_alloc(data._data.shape, dt)
        return np.array(data._data, dtype=dt.np, copy=True)
    if isinstance(data, np.ndarray):
        src = _dt.from_numpy_dtype(data.dtype)
        dt = _dt.as_dtype(dtype) if dtype is not None else src
        _check_alloc(data.shape, dt)
        return np.array(data, dtype=dt.np, copy=True)
    sizes = _compute_sizes(data)
    dt = _dt.as_dtype(dtype) if dtype is not None else _infer_dtype(data)
    _check_alloc(sizes, dt)
    if 0 in sizes:
        return np.zeros(sizes, dtype=dt.np)
    arr = None
    try:
        with np.errstate(all="ignore"):
            arr = np.array(_to_plain(data))
    except (ValueError, TypeError, OverflowError):
        arr = None
    if arr is None or arr.shape != sizes or arr.dtype.kind not in "biufO" or \
            (arr.dtype == object and not _all_numbers(arr)):
        flat = []
        _store(data, sizes, 0, dt, flat)
        arr = np.array(flat).reshape(sizes)
    return _cast_checked(arr, dt, data)


def _all_numbers(arr):
    return all(isinstance(x, (int, float, np.number)) for x in arr.flat)


def _warn_ndarray_list(data):
    """tensor_new.cpp's TORCH_WARN_ONCE for each ndarray in a (nested) list: one warning per process, one per
    ndarray under set_warn_always(True). Scanned a nesting level at a time, the leaves in C (map/set): ~3% of
    torch.tensor of a 1,000-float list."""
    level = [data]
    while level:
        items = level[0] if len(level) == 1 else list(itertools.chain.from_iterable(level))
        kinds = set(map(type, items))
        if np.ndarray in kinds:
            for _ in range(sum(type(x) is np.ndarray for x in items)):
                warn_aten("Creating a tensor from a list of numpy.ndarrays is extremely slow. Please consider "
                          "converting the list to a single numpy.ndarray with numpy.array() before converting to a "
                          "tensor.", "torch/csrc/utils/tensor_new.cpp:252", once=True)
        level = [x for x in items if type(x) is list or type(x) is tuple] if list in kinds or tuple in kinds else ()


@export
def tensor(data, dtype=None, device=None, requires_grad=False, pin_memory=False):
    """torch.tensor: copy `data` into a new leaf; ints -> int64, any float -> float32, bools -> bool."""
    if isinstance(data, Tensor):
        warn_aten("To copy construct from a tensor, it is recommended to use sourceTensor.detach().clone() or "
                  "sourceTensor.detach().clone().requires_grad_(True), rather than torch.tensor(sourceTensor).")
    elif type(data) is list or type(data) is tuple:
        _warn_ndarray_list(data)
    check_factory_device(device, alloc=False)
    t = Tensor._make(_array_from_data(data, dtype))
    if requires_grad:
        if t._data.dtype.kind != "f":
            raise RuntimeError(_FACTORY_GRAD_MSG)
        _set_requires_grad(t)
    return t


@export
def as_tensor(data, dtype=None, device=None):
    """torch.as_tensor: shares memory with a tensor or NumPy array of the same dtype, else copies."""
    if isinstance(data, Tensor):
        if device is not None:
            check_device(device)
        return data if dtype is None else data.to(dtype)
    if isinstance(data, np.ndarray) and (dtype is None or _dt.as_dtype(dtype).np == data.dtype):
        check_factory_device(device, alloc=False)
        return from_numpy(data)
    return tensor(data, dtype=dtype, device=device)


@export
def asarray(obj, dtype=None, device=None, copy=None, requires_grad=False):
    """torch.asarray: as_tensor, copied when copy=True."""
    t = as_tensor(obj, dtype=dtype, device=device)
    if copy:
        t = t.clone()
    if requires_grad:
        _set_requires_grad(t)
    return t


@export
def from_numpy(ndarray):
    """Share memory with a NumPy array (PyTorch's dtypes only)."""
    if not isinstance(ndarray, np.ndarray):
        raise TypeError(f"expected np.ndarray (got {type(ndarray).__name__})")
    _dt.from_numpy_dtype(ndarray.dtype)
    if not ndarray.dtype.isnative:
        raise ValueError("given numpy array has byte order different from the native byte order. "
                         "Conversion between byte orders is currently not supported.")
    root = ndarray
    while isinstance(root.base, np.ndarray):
        root = root.base
    _NOT_RESIZABLE[id(root)] = root
    return Tensor._make(ndarray)


# storages torch cannot resize: memory borrowed from a NumPy array (id -> the array, weakly held)
_NOT_RESIZABLE = weakref.WeakValueDictionary()


def _resizable(root):
    """Whether resize_ may grow the storage whose root ndarray is root."""
    return _NOT_RESIZABLE.get(id(root)) is not root


def _size_kw(fn, kw):
    """The `size=` keyword out of **kw (a named keyword-only parameter would change the op's public
    signature); any other keyword is Python's TypeError, as torch's."""
    size = kw.pop("size", _NO_SIZE)
    if kw:
        raise TypeError(f"{fn}() got an unexpected keyword argument {next(iter(kw))!r}")
    return size


_FACTORY_GRAD_MSG = "Only Tensors of floating point and complex dtype can require gradients"


_NO_SIZE = object()   # `size=` not given (torch refuses size=None)


def size_keyword(fn, size_args, size):
    """torch's `*size` or `size=` (every factory has both spellings): the positional form, or
    ``(size,)`` for the keyword; torch's TypeErrors for both at once or a keyword that is no sequence."""
    if size is _NO_SIZE:
        return size_args
    if size_args:
        raise TypeError(f"{fn}() got multiple values for argument 'size'")
    if not isinstance(size, (tuple, list, Size)) or (
            not isinstance(size, Size) and not all(_size_element(d) for d in size)):
        raise TypeError(f"{fn}(): argument 'size' must be tuple of ints, not {type(size).__name__}")
    return (size,)


def _size_element(d):
    if isinstance(d, Tensor):
        return d._data.size == 1 and d._data.dtype.kind in "iu"
    return isinstance(d, (int, np.integer)) and not isinstance(d, (bool, np.bool_))


def _factory(size, dtype, default, requires_grad, fill, fn="zeros", device=None):
    check_factory_device(device)
    shape = _parse_size(size, fn)
    dt = _dt.as_dtype(dtype) if dtype is not None else default
    _check_alloc(shape, dt)
    t = Tensor._make(fill(shape, dt.np))
    if requires_grad:
        _set_requires_grad(t)
    return t


@export
def zeros(*size, out=None, dtype=None, layout=None, device=None, requires_grad=False, **kw):
    """Tensor of zeros (default float dtype); size given as zeros(2, 3), zeros((2, 3)) or zeros(size=(2, 3))."""
    size = size_keyword("zeros", size, _size_kw("zeros", kw))
    if out is not None:
        return _factory_out("zeros", out, dtype, lambda dt: zeros(*size, dtype=dt), requires_grad)
    shape = _parse_size(size, "zeros")
    if any(d < 0 for d in shape):
        raise RuntimeError("zeros: Dimension size must be non-negative.")
    return _factory((shape,), dtype, _dt.get_default_dtype(), requires_grad, np.zeros, device=device)


@export
def ones(*size, out=None, dtype=None, layout=None, device=None, requires_grad=False, **kw):
    """Tensor of ones (default float dtype); size positional or size=."""
    size = size_keyword("ones", size, _size_kw("ones", kw))
    if out is not None:
        return _factory_out("ones", out, dtype, lambda dt: ones(*size, dtype=dt), requires_grad)
    return _factory(size, dtype, _dt.get_default_dtype(), requires_grad, np.ones, "ones", device)


@export
def empty(*size, out=None, dtype=None, layout=None, device=None, requires_grad=False, memory_format=None,
          pin_memory=False, **kw):
    """Uninitialised tensor (zeros here); size positional or size=."""
    size = size_keyword("empty", size, _size_kw("empty", kw))
    if out is not None:
        return _factory_out("empty", out, dtype, lambda dt: empty(*size, dtype=dt), requires_grad)
    return _factory(size, dtype, _dt.get_default_dtype(), requires_grad, np.zeros, "empty", device)


@export
def full(size, fill_value, *, out=None, dtype=None, layout=None, device=None, requires_grad=False):
    """torch.full: dtype inferred from fill_value (bool, int64 or the default float); fill_value converted
    with c10's overflow check (_checked_fill)."""
    if not isinstance(size, (tuple, list, Size)):
        raise TypeError(f"full(): argument 'size' (position 1) must be tuple of ints, not {type(size).__name__}")
    fill_value = _fill_scalar(fill_value, "full", dtype)
    if out is not None:
        return _factory_out("full", out, dtype, lambda dt: full(size, fill_value, dtype=dt), requires_grad)
    default = _dt.scalar_dtype(fill_value)
    return _factory((size,), dtype, default, requires_grad, lambda s, d: _fill(s, fill_value, d), "full",
                    device)


def _fill_scalar(v, fn, dtype=None):
    """fill_value as a Python number, unpacked as torch's Scalar argument: an int beyond int64 is a uint64
    Scalar up to 2**64 - 1, OverflowError beyond; complex only with a real dtype (core has no complex)."""
    if isinstance(v, Tensor) and v._data.ndim == 0:
        return v.item()
    if isinstance(v, complex) and dtype is not None:
        return v
    if not isinstance(v, (bool, int, float, np.number, np.bool_)) or isinstance(v, np.complexfloating):
        raise TypeError(f"{fn}(): argument 'fill_value' (position 2) must be Number, not {type(v).__name__}")
    if type(v) is int and not -2 ** 63 <= v < 2 ** 64:
        raise OverflowError("can't convert negative int to unsigned" if v < 0 else "int too big to convert")
    if isinstance(v, np.bool_):   # not a Python bool to torch's parser: a number of the default dtype
        return float(v)
    if isinstance(v, np.unsignedinteger) and v >= 2 ** 63:
        raise TypeError("an integer is required")
    return v


_C_TYPE_NAMES = {"int64": "int64_t", "int32": "int", "int16": "int16_t", "int8": "int8_t", "uint8": "uint8_t",
                 "float16": "c10::Half", "float32": "float", "float64": "double"}


def _checked_fill(value, npdt, numel):
    """value as c10's checked_convert makes it for a fill of dtype npdt: bool takes anything; an integer
    dtype takes floats in [lowest, max] (truncated; no inf/NaN) and ints in range (an unsigned dtype also
    -max..-1, wrapping); a floating dtype takes inf/NaN and finite values within +-max. A one-element
    float16 fill is not checked (torch's scalar_fill; the value rounds to inf)."""
    if npdt == np.bool_:
        return bool(value)
    if isinstance(value, (bool, np.bool_)):
        return value
    if isinstance(value, complex):
        if value.imag != 0:   # the unchecked one-element float16 fill still converts to double first
            name = "double" if npdt == np.float16 and numel == 1 else _C_TYPE_NAMES[npdt.name]
            raise RuntimeError(f"value cannot be converted to type {name} without overflow")
        value = value.real
    is_float = isinstance(value, (float, np.floating))
    v = float(value) if is_float else int(value)
    if npdt.kind in "iu":
        info = np.iinfo(npdt)
        lo = int(info.min) if info.min or is_float else -int(info.max)
        bad = (not math.isfinite(v) or v < lo or v > int(info.max)) if is_float else not lo <= v <= int(info.max)
    else:
        big = float(np.finfo(npdt).max)
        bad = math.isfinite(v) and abs(v) > big and not (npdt == np.float16 and numel == 1)
    if bad:
        raise RuntimeError(f"value cannot be converted to type {_C_TYPE_NAMES[npdt.name]} without overflow")
    return v


def _fill(shape, value, npdt):
    """np.full of the checked value (uint8 wraps -255..-1 as two's complement)."""
    return np.full(shape, fill_value(value, npdt, math.prod(shape)), dtype=npdt)


def fill_value(value, npdt, numel):
    """The value a fill of numel elements of npdt writes, as a 0-d array: c10's checked conversion of the
    Scalar (torch's overflow errors), uint wrapping of negative ints, float to int truncation."""
    v = _checked_fill(value, npdt, numel)
    with np.errstate(all="ignore"):
        if isinstance(v, float) and npdt.kind in "iu":
            v = math.trunc(v)
        if isinstance(v, int) and not isinstance(v, bool) and npdt.kind == "u" and v < 0:
            return np.asarray(np.int64(v)).astype(npdt)
        return np.asarray(v if npdt.kind == "f" or not isinstance(v, int) or v < 2 ** 63 else float(v), dtype=npdt)


def _like(t, dtype, requires_grad, fill, device=None, memory_format=None):
    """A new tensor shaped like t, laid out in memory_format; with preserve_format (the default), a dense t's
    strides are kept and another t gets its suggested format. The default device does not apply (the result
    is on t's device unless `device=` is given)."""
    if device is not None:
        check_device(device, alloc="empty_strided")
    dt = _dt.as_dtype(dtype) if dtype is not None else t.dtype
    r = _factory((t._data.shape,), dt, dt, requires_grad, fill, device=_CPU)
    src = t._data
    fmt = _mf.check(memory_format, "empty_like") if memory_format is not None else _mf.preserve_format
    if fmt is _mf.preserve_format and not src.flags.c_contiguous and src.ndim > 1 and _dense(src):
        kept = np.empty_like(src, dtype=dt.np)   # order='K' copies src's layout
        kept[...] = r._data
        r._data = kept
    elif fmt is _mf.preserve_format and src.ndim > 1 and not _dense(src):
        r._data = _mf.laid_out(r._data, _mf.suggest(src))
    elif fmt is not _mf.preserve_format:
        r._data = _mf.laid_out(r._data, fmt)
    return r


@export
def zeros_like(input, *, dtype=None, layout=None, device=None, requires_grad=False, memory_format=None):
    return _like(input, dtype, requires_grad, np.zeros, device, memory_format)


@export
def ones_like(input, *, dtype=None, layout=None, device=None, requires_grad=False, memory_format=None):
    return _like(input, dtype, requires_grad, np.ones, device, memory_format)


@export
def empty_like(input, *, dtype=None, layout=None, device=None, requires_grad=False, memory_format=None):
    return _like(input, dtype, requires_grad, np.zeros, device, memory_format)


@export
def full_like(input, fill_value, *, dtype=None, layout=None, device=None, requires_grad=False, memory_format=None):
    """Tensor shaped like input filled with fill_value, in input's dtype unless dtype is given."""
    fill_value = _fill_scalar(fill_value, "full_like", dtype if dtype is not None else input.dtype)
    return _like(input, dtype, requires_grad, lambda s, d: _fill(s, fill_value, d), device, memory_format)


@export
def arange(start=0, end=None, step=1, *, out=None, dtype=None, layout=None, device=None, requires_grad=False):
    """torch.arange: int64 when start/end/step are all integers, else the default float (or out's dtype).

    As ATen's arange_out: the checks use the numbers as given (step 0 and the sign check are RuntimeErrors);
    an integral result truncates start/end/step to int64 first (int64: the size too, and a step that
    truncates to 0 is a ValueError; other ints keep the size from the doubles)."""
    check_factory_device(device)
    if end is None:
        start, end = 0, start
    vals = [v.item() if isinstance(v, Tensor) else v for v in (start, end, step)]
    start, end, step = vals
    for v in (start, end):
        if isinstance(v, float) and not math.isfinite(v):
            raise RuntimeError(f"unsupported range: {start} -> {end}")
    if step == 0:
        raise RuntimeError("step must be nonzero")
    if (end - start) / step < 0:
        raise RuntimeError("upper bound and lower bound inconsistent with step sign")
    allint = all(isinstance(v, (int, np.integer)) and not isinstance(v, bool) for v in vals)
    dt = _dt.as_dtype(dtype) if dtype is not None else (_dt.int64 if allint else _dt.get_default_dtype())
    if out is not None:
        dt = _out_dtype("arange", out, dtype)
    if dt == _dt.bool_:
        raise NotImplementedError("\"arange_cpu\" not implemented for 'Bool'")
    if dt.is_floating_point:
        n = max(0, math.ceil((end - start) / step))
        _check_alloc((n,), dt)
        data = (start + np.arange(n, dtype=np.float64) * step).astype(dt.np)
    else:
        xs, xe, xst = int(start), int(end), int(step)     # Scalar.to<int64_t>(): truncation
        if dt == _dt.int64:
            if xst == 0:
                raise ValueError("step must be nonzero")
            num = xe - xs + xst - ((xst > 0) - (xst < 0))
            n = max(0, abs(num) // abs(xst) * (1 if (num >= 0) == (xst > 0) else -1))   # C++ division
        else:
            n = max(0, math.ceil((end - start) / step))
        _check_alloc((n,), dt)
        with np.errstate(over="ignore"):
            data = (xs + np.arange(n, dtype=np.int64) * xst).astype(dt.np)
    if out is not None:
        _arange_into(out, data)
        return _set_requires_grad(out) if requires_grad else out
    t = Tensor._make(data)
    if requires_grad:
        _set_requires_grad(t)
    return t


def _out_dtype(name, out, dtype):
    """The factories' out=: the result dtype is out's (a different dtype= is the binding's RuntimeError)."""
    if out._requires_grad:
        raise RuntimeError(f"aten::{name}(): functions with out=... arguments don't support automatic "
                           "differentiation, but one of the arguments requires grad.")
    if dtype is not None and _dt.as_dtype(dtype) != out.dtype:
        raise RuntimeError(f"dtype {_dt.scalar_name(_dt.as_dtype(dtype))} does not match dtype of out parameter "
                           f"({_dt.scalar_name(out.dtype)})")
    return out.dtype


def _factory_out(name, out, dtype, make, requires_grad=False):
    """zeros/ones/full/linspace/logspace/eye... with out=: computed as with dtype=out.dtype, then `out`
    resized (no warning, as their ATen out variants) and written; returns out."""
    r = make(_out_dtype(name, out, dtype))._data
    if out._data.shape != r.shape:
        out._data = np.empty(r.shape, out._data.dtype)
    out._data[...] = r
    out._vc[0] += 1
    return _set_requires_grad(out) if requires_grad else out


def _arange_into(out, data):
    """arange's out=: resized to 1-D (with ATen's warning when it held elements) unless its numel fits."""
    n = data.shape[0]
    if out._data.size != n:
        if out._data.size:
            warn_aten(f"The number of elements in the out tensor of shape {list(out._data.shape)} is "
                      f"{out._data.size} which does not match the computed number of elements {n}. Note that "
                      "this may occur as a result of rounding error. The out tensor will be resized to a tensor "
                      f"of shape ({n},).", "aten/src/ATen/native/RangeFactories.cpp:199")
        out._data = np.empty((n,), out._data.dtype)
    out._data[...] = data.reshape(out._data.shape)
    out._vc[0] += 1
    return out


def _fma32(a, b, c):
    """float32 a * b + c with one rounding: the product is exact in float64, the sum is kept as hi + lo."""
    with np.errstate(all="ignore"):
        hi, lo = _two_sum(a.astype(np.float64) * b.astype(np.float64), c.astype(np.float64))
        r = hi.astype(np.float32)
        diff = hi - r.astype(np.float64)
        up = np.nextafter(r, np.float32(np.inf))
        dn = np.nextafter(r, np.float32(-np.inf))
        # hi sits exactly half-way between two floats: lo decides which one the exact value is nearer
        tie = (lo != 0) & ((diff == (up.astype(np.float64) - r) / 2) | (diff == (dn.astype(np.float64) - r) / 2)) \
            & (diff != 0)
        fix = tie & (np.sign(lo) == np.sign(diff))
        return np.where(fix, np.where(diff > 0, up, dn), r)


def _linspace_np(start, end, steps, dt):
    """PyTorch's CPU linspace kernel: start + step * i for the first half, end - step * (steps - i - 1)
    for the rest, with the multiply-add fused (float32/float64/int) or rounded per op (float16)."""
    if steps == 0:
        return np.zeros(0, dt.np)
    if steps == 1:
        return np.array([start], dtype=np.float64).astype(dt.np)
    idx = np.arange(steps, dtype=np.int64)
    half = steps // 2
    first = idx < half
    k = np.where(first, idx, steps - idx - 1)
    if dt is _dt.float16:
        T = np.float16
        s, e = T(start), T(end)
        step = (e - s) / T(steps - 1)
        kt = k.astype(T)
        return np.where(first, s + step * kt, e - step * kt).astype(T)
    if dt is _dt.float32:
        s, e = np.float32(start), np.float32(end)
        step = np.float32((e - s) / np.float32(steps - 1))
        kt = k.astype(np.float32)
        sgn = np.where(first, step, -step).astype(np.float32)
        return _fma32(sgn, kt, np.where(first, s, e).astype(np.float32))
    if dt.is_floating_point:
        s, e = float(start), float(end)
    else:
        s, e = float(int(start)), float(int(end))
    step = (e - s) / (steps - 1)
    sgn = np.where(first, step, -step)
    r = _fma64(sgn, k.astype(np.float64), np.where(first, s, e))
    if dt.is_floating_point:
        return r
    with np.errstate(all="ignore"):
        return np.trunc(r).astype(dt.np)


@export
def linspace(start, end, steps, *, out=None, dtype=None, layout=None, device=None, requires_grad=False):
    """torch.linspace: bit-identical to PyTorch's CPU kernel (fused multiply-add from either end)."""
    check_factory_device(device)
    start = start.item() if isinstance(start, Tensor) else start
    end = end.item() if isinstance(end, Tensor) else end
    if isinstance(steps, bool) or not isinstance(steps, (int, np.integer)):
        raise TypeError(f"linspace(): argument 'steps' (position 3) must be int, not {type(steps).__name__}")
    if steps < 0:
        raise RuntimeError("number of steps must be non-negative")
    if out is not None:
        return _factory_out("linspace", out, dtype, lambda dt: linspace(start, end, steps, dtype=dt), requires_grad)
    dt = _dt.as_dtype(dtype) if dtype is not None else _dt.get_default_dtype()
    _check_alloc((steps,), dt)
    t = Tensor._make(_linspace_np(start, end, int(steps), dt))
    if requires_grad:
        _set_requires_grad(t)
    return t


@export
def logspace(start, end, steps, base=10.0, *, out=None, dtype=None, layout=None, device=None, requires_grad=False):
    """torch.logspace: base ** linspace(start, end, steps). An integral dtype follows ATen's kernel: start
    and end truncated to the dtype, base as a float32, powers in double from both ends, truncated."""
    check_factory_device(device)
    if out is not None:
        return _factory_out("logspace", out, dtype, lambda dt: logspace(start, end, steps, base, dtype=dt), requires_grad)
    dt = _dt.as_dtype(dtype) if dtype is not None else _dt.get_default_dtype()
    if dt.is_floating_point or dt == _dt.bool_ or steps == 1:
        t = linspace(start, end, steps, dtype=_dt.float64)
        r = Tensor._make((base ** t._data).astype(dt.np))
    else:
        r = Tensor._make(_logspace_int(start, end, steps, base, dt))
    return r.requires_grad_(True) if requires_grad else r


def _logspace_int(start, end, steps, base, dt):
    s, e = (int(v.item() if isinstance(v, Tensor) else v) for v in (start, end))   # Scalar.to<int>()
    s, e = (int(np.array(v).astype(dt.np)) for v in (s, e))
    _check_alloc((steps,), dt)
    i = np.arange(steps, dtype=np.float64)
    step = float(e - s) / (steps - 1)
    expo = np.where(i < steps // 2, s + step * i, e - step * (steps - i - 1))
    with np.errstate(all="ignore"):
        return np.power(np.float64(np.float32(base)), expo).astype(dt.np)


@export
def eye(n, m=None, *, out=None, dtype=None, layout=None, device=None, requires_grad=False):
    check_factory_device(device)
    if m is None:
        m = n
    if n < 0:
        raise RuntimeError(f"n must be greater or equal to 0, got {n}")
    if m < 0:
        raise RuntimeError(f"m must be greater or equal to 0, got {m}")
    if out is not None:
        return _factory_out("eye", out, dtype, lambda dt: eye(n, m, dtype=dt), requires_grad)
    dt = _dt.as_dtype(dtype) if dtype is not None else _dt.get_default_dtype()
    _check_alloc((n, m), dt)
    t = Tensor._make(np.eye(n, m, dtype=dt.np))
    if requires_grad:
        _set_requires_grad(t)
    return t


# -- legacy constructors -------------------------------------------------------------------

def _legacy(dtype):
    def ctor(*args):
        if len(args) == 1 and not isinstance(args[0], (int, np.integer, Size)):
            src = args[0]
            if isinstance(src, Tensor):
                if src.dtype is not dtype:
                    raise TypeError(f"expected {_dt.legacy_type_name(dtype)} (got {src.type()})")
                return src
            if not isinstance(src, (list, tuple, range, np.ndarray)):
                raise TypeError(f"new(): data must be a sequence (got {type(src).__name__})")
            return Tensor._make(_array_from_data(src, dtype))
        shape = _parse_size(args, "new")
        _check_alloc(shape, dtype)
        return Tensor._make(np.zeros(shape, dtype=dtype.np))
    ctor.__name__ = dtype._legacy
    ctor.__doc__ = f"Legacy constructor: {dtype._legacy}(data) or {dtype._legacy}(*sizes) -> {dtype!r} tensor."
    return ctor


FloatTensor = export(_legacy(_dt.float32), name="FloatTensor")
DoubleTensor = export(_legacy(_dt.float64), name="DoubleTensor")
HalfTensor = export(_legacy(_dt.float16), name="HalfTensor")
LongTensor = export(_legacy(_dt.int64), name="LongTensor")
IntTensor = export(_legacy(_dt.int32), name="IntTensor")
ShortTensor = export(_legacy(_dt.int16), name="ShortTensor")
CharTensor = export(_legacy(_dt.int8), name="CharTensor")
ByteTensor = export(_legacy(_dt.uint8), name="ByteTensor")
BoolTensor = export(_legacy(_dt.bool_), name="BoolTensor")
