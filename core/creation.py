"""Tensor creation: core.tensor with PyTorch's dtype inference, factories, random numbers,
legacy constructors, and the allocation guard that refuses absurd sizes before NumPy tries."""
from __future__ import annotations

import math
import os

import numpy as np

from . import dtypes as _dt
from .ops.registry import export
from .tensor import Size, Tensor

# Refuse allocations above this many bytes (PyTorch would try and fail with "not enough memory").
_MAX_ALLOC = [int(os.environ.get("CORE_MAX_ALLOC_BYTES", 16 * 1024 ** 3))]


@export
def set_allocation_limit(nbytes: int | None):
    """Set the largest single tensor allocation core will attempt (None: no limit). Returns the old limit."""
    old = _MAX_ALLOC[0]
    _MAX_ALLOC[0] = int(nbytes) if nbytes is not None else 1 << 62
    return old


@export
def get_allocation_limit() -> int:
    return _MAX_ALLOC[0]


def _check_alloc(shape, dtype, what="tensor"):
    """Raise RuntimeError (PyTorch's class for allocation failures) before allocating
    more than the limit, or for negative dimensions."""
    n = 1
    for s in shape:
        s = int(s)
        if s < 0:
            raise RuntimeError(f"Trying to create tensor with negative dimension {s}: {list(map(int, shape))}")
        n *= s
    nbytes = n * _dt.as_dtype(dtype).itemsize
    if nbytes > _MAX_ALLOC[0]:
        raise RuntimeError(f"[enforce fail at alloc_cpu.cpp:118] data. DefaultCPUAllocator: not enough memory: "
                           f"you tried to allocate {nbytes} bytes. (core refuses allocations above "
                           f"{_MAX_ALLOC[0]} bytes; see core.set_allocation_limit)")
    return n


def check_alloc(shape, dtype):
    return _check_alloc(shape, dtype)


def _parse_size(size):
    """Accept f(2, 3), f((2, 3)), f([2, 3]) and f(torch.Size([2, 3]))."""
    if len(size) == 1 and isinstance(size[0], (tuple, list, Size)):
        size = size[0]
    out = []
    for s in size:
        if isinstance(s, Tensor):
            s = s.item()
        if isinstance(s, bool) or not isinstance(s, (int, np.integer)):
            raise TypeError(f"zeros(): argument 'size' must be tuple of ints, but found element of type "
                            f"{type(s).__name__} at pos {len(out)}")
        out.append(int(s))
    return tuple(out)


# -- inference from Python data ----------------------------------------------------------

def _infer(data):
    """(shape, category) of nested Python data: category 0 bool, 1 int, 2 float, or a numpy/core dtype."""
    if isinstance(data, Tensor):
        return data._data.shape, data.dtype
    if isinstance(data, np.ndarray):
        return data.shape, _dt.from_numpy_dtype(data.dtype)
    if isinstance(data, (bool, np.bool_)):
        return (), 0
    if isinstance(data, (int, np.integer)):
        return (), 1 if not isinstance(data, np.integer) else _dt.from_numpy_dtype(data.dtype)
    if isinstance(data, (float, np.floating)):
        return (), 2 if not isinstance(data, np.floating) else _dt.from_numpy_dtype(data.dtype)
    if isinstance(data, (list, tuple)):
        if len(data) == 0:
            return (0,), None
        shapes = []
        cat = None
        for item in data:
            if isinstance(item, Tensor) and item._data.ndim > 0 and item._data.size != 1:
                raise ValueError("only one element tensors can be converted to Python scalars")
            if isinstance(item, (str, bytes)):
                raise TypeError(f"new(): invalid data type '{type(item).__name__}'")
            if item is None:
                raise TypeError("must be real number, not NoneType")
            s, c = _infer(item)
            shapes.append(s)
            cat = _merge_cat(cat, c)
        first = shapes[0]
        for s in shapes[1:]:
            if s != first:
                dim = 1
                for a, b in zip(first, s):
                    if a != b:
                        break
                    dim += 1
                got = s[dim - 1] if dim - 1 < len(s) else 0
                exp = first[dim - 1] if dim - 1 < len(first) else 0
                if len(s) != len(first) and (dim - 1 >= len(s) or dim - 1 >= len(first)):
                    raise ValueError(f"expected sequence of length {exp} at dim {dim} (got {got})")
                raise ValueError(f"expected sequence of length {exp} at dim {dim} (got {got})")
        return (len(data),) + tuple(first), cat
    if isinstance(data, (str, bytes)):
        raise TypeError(f"new(): invalid data type '{type(data).__name__}'")
    raise RuntimeError(f"Could not infer dtype of {type(data).__name__}")


def _merge_cat(a, b):
    if a is None:
        return b
    if b is None:
        return a
    ra = a if isinstance(a, int) else a._rank
    rb = b if isinstance(b, int) else b._rank
    if isinstance(a, _dt.dtype) and isinstance(b, _dt.dtype):
        return _dt.promote_types(a, b)
    if ra == rb:
        return a if isinstance(a, _dt.dtype) else b
    return a if ra > rb else b


def _default_for(cat):
    if cat is None:
        return _dt.get_default_dtype()
    if isinstance(cat, _dt.dtype):
        return cat
    return (_dt.bool_, _dt.int64, _dt.get_default_dtype())[cat]


def _to_plain(data):
    if isinstance(data, Tensor):
        return data._data
    if isinstance(data, (list, tuple)):
        return [_to_plain(x) for x in data]
    return data


def _array_from_data(data, dtype=None):
    shape, cat = _infer(data)
    dt = _dt.as_dtype(dtype) if dtype is not None else _default_for(cat)
    _check_alloc(shape, dt)
    if isinstance(data, np.ndarray):
        return np.array(data, dtype=dt.np, copy=True)
    if isinstance(data, Tensor):
        return np.array(data._data, dtype=dt.np, copy=True)
    plain = _to_plain(data)
    try:
        arr = np.array(plain, dtype=dt.np)
    except OverflowError:
        raise RuntimeError(f"value cannot be converted to type {dt.name} without overflow") from None
    if arr.shape != shape:
        arr = arr.reshape(shape)
    return arr


@export
def tensor(data, dtype=None, device=None, requires_grad=False, pin_memory=False):
    """torch.tensor: copy `data` into a new leaf; ints -> int64, any float -> float32, bools -> bool."""
    if isinstance(data, Tensor):
        import warnings
        warnings.warn("To copy construct from a tensor, it is recommended to use sourceTensor.clone().detach() "
                      "or sourceTensor.clone().detach().requires_grad_(True), rather than "
                      "torch.tensor(sourceTensor).", UserWarning, stacklevel=2)
    if device is not None:
        from .tensor import _check_device
        _check_device(device)
    t = Tensor._make(_array_from_data(data, dtype))
    if requires_grad:
        if t._data.dtype.kind != "f":
            raise RuntimeError(_FACTORY_GRAD_MSG)
        t.requires_grad_(True)
    return t


@export
def as_tensor(data, dtype=None, device=None):
    if isinstance(data, Tensor):
        return data if dtype is None else data.to(dtype)
    if isinstance(data, np.ndarray) and (dtype is None or _dt.as_dtype(dtype).np == data.dtype):
        return from_numpy(data)
    return tensor(data, dtype=dtype)


@export
def asarray(obj, dtype=None, device=None, copy=None, requires_grad=False):
    t = as_tensor(obj, dtype=dtype)
    if copy:
        t = t.clone()
    if requires_grad:
        t.requires_grad_(True)
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
    return Tensor._make(ndarray)


_FACTORY_GRAD_MSG = "Only Tensors of floating point and complex dtype can require gradients"


def _factory(size, dtype, default, requires_grad, fill):
    shape = _parse_size(size)
    dt = _dt.as_dtype(dtype) if dtype is not None else default
    if requires_grad and not dt.is_floating_point:
        raise RuntimeError(_FACTORY_GRAD_MSG)
    _check_alloc(shape, dt)
    t = Tensor._make(fill(shape, dt.np))
    if requires_grad:
        t.requires_grad_(True)
    return t


@export
def zeros(*size, out=None, dtype=None, layout=None, device=None, requires_grad=False):
    return _factory(size, dtype, _dt.get_default_dtype(), requires_grad, np.zeros)


@export
def ones(*size, out=None, dtype=None, layout=None, device=None, requires_grad=False):
    return _factory(size, dtype, _dt.get_default_dtype(), requires_grad, np.ones)


@export
def empty(*size, out=None, dtype=None, layout=None, device=None, requires_grad=False, memory_format=None):
    return _factory(size, dtype, _dt.get_default_dtype(), requires_grad, np.zeros)


@export
def full(size, fill_value, *, out=None, dtype=None, layout=None, device=None, requires_grad=False):
    """torch.full: dtype inferred from fill_value (bool, int64 or the default float)."""
    if isinstance(fill_value, Tensor):
        fill_value = fill_value.item()
    default = _dt.scalar_dtype(fill_value)
    return _factory((size,) if not isinstance(size, (int, np.integer)) else (size,), dtype, default,
                    requires_grad, lambda s, d: np.full(s, fill_value, dtype=d))


def _like(t, dtype, requires_grad, fill):
    dt = _dt.as_dtype(dtype) if dtype is not None else t.dtype
    return _factory((t._data.shape,), dt, dt, requires_grad, fill)


@export
def zeros_like(input, *, dtype=None, layout=None, device=None, requires_grad=False, memory_format=None):
    return _like(input, dtype, requires_grad, np.zeros)


@export
def ones_like(input, *, dtype=None, layout=None, device=None, requires_grad=False, memory_format=None):
    return _like(input, dtype, requires_grad, np.ones)


@export
def empty_like(input, *, dtype=None, layout=None, device=None, requires_grad=False, memory_format=None):
    return _like(input, dtype, requires_grad, np.zeros)


@export
def full_like(input, fill_value, *, dtype=None, layout=None, device=None, requires_grad=False, memory_format=None):
    return _like(input, dtype, requires_grad, lambda s, d: np.full(s, fill_value, dtype=d))


@export
def arange(start=0, end=None, step=1, *, out=None, dtype=None, layout=None, device=None, requires_grad=False):
    """torch.arange: int64 when start/end/step are all integers, else the default float."""
    if end is None:
        start, end = 0, start
    vals = [v.item() if isinstance(v, Tensor) else v for v in (start, end, step)]
    start, end, step = vals
    if step == 0:
        raise RuntimeError("step must be nonzero")
    if (end - start) / step < 0:
        raise RuntimeError("upper bound and larger bound inconsistent with step sign")
    allint = all(isinstance(v, (int, np.integer)) and not isinstance(v, bool) for v in vals)
    dt = _dt.as_dtype(dtype) if dtype is not None else (_dt.int64 if allint else _dt.get_default_dtype())
    n = max(0, math.ceil((end - start) / step))
    _check_alloc((n,), dt)
    if allint or not dt.is_floating_point:
        data = np.arange(start, end, step).astype(dt.np)[:n]
    else:
        data = (start + np.arange(n, dtype=np.float64) * step).astype(dt.np)
    t = Tensor._make(data)
    if requires_grad:
        t.requires_grad_(True)
    return t


@export
def linspace(start, end, steps, *, out=None, dtype=None, layout=None, device=None, requires_grad=False):
    """torch.linspace: computed from both ends like PyTorch, so values match to the last bit."""
    if not isinstance(steps, (int, np.integer)) or steps < 0:
        raise RuntimeError("number of steps must be non-negative")
    dt = _dt.as_dtype(dtype) if dtype is not None else _dt.get_default_dtype()
    _check_alloc((steps,), dt)
    if steps == 1:
        data = np.array([start], dtype=np.float64)
    else:
        step = (end - start) / (steps - 1)
        i = np.arange(steps, dtype=np.float64)
        half = steps // 2
        data = np.where(i < half, start + step * i, end - step * (steps - i - 1))
    if dt.is_floating_point:
        w = np.float32 if dt.np == np.float32 else dt.np
        if w == np.float32:
            s32, e32 = np.float32(start), np.float32(end)
            st32 = (e32 - s32) / np.float32(max(steps - 1, 1))
            i = np.arange(steps, dtype=np.float32)
            half = steps // 2
            data = np.where(i < half, s32 + st32 * i, e32 - st32 * (np.float32(steps) - i - 1)) if steps > 1 \
                else np.array([start], dtype=np.float32)
        data = data.astype(dt.np)
    else:
        data = data.astype(dt.np)
    t = Tensor._make(data)
    if requires_grad:
        t.requires_grad_(True)
    return t


@export
def logspace(start, end, steps, base=10.0, *, dtype=None, requires_grad=False):
    t = linspace(start, end, steps, dtype=_dt.float64)
    dt = _dt.as_dtype(dtype) if dtype is not None else _dt.get_default_dtype()
    r = Tensor._make((base ** t._data).astype(dt.np))
    return r.requires_grad_(True) if requires_grad else r


@export
def eye(n, m=None, *, out=None, dtype=None, layout=None, device=None, requires_grad=False):
    if m is None:
        m = n
    if n < 0:
        raise RuntimeError(f"n must be greater or equal to 0, got {n}")
    if m < 0:
        raise RuntimeError(f"m must be greater or equal to 0, got {m}")
    dt = _dt.as_dtype(dtype) if dtype is not None else _dt.get_default_dtype()
    _check_alloc((n, m), dt)
    t = Tensor._make(np.eye(n, m, dtype=dt.np))
    if requires_grad:
        t.requires_grad_(True)
    return t


# -- random numbers ----------------------------------------------------------------------

class Generator:
    """A seeded NumPy PCG64 stream (core's values differ from PyTorch's Philox/MT; seeding is reproducible)."""

    def __init__(self, device="cpu"):
        self._seed = 67280421310721
        self._rng = np.random.Generator(np.random.PCG64(self._seed))

    def manual_seed(self, seed):
        self._seed = int(seed)
        self._rng = np.random.Generator(np.random.PCG64(self._seed & ((1 << 64) - 1)))
        return self

    def initial_seed(self):
        return self._seed

    def seed(self):
        s = int.from_bytes(os.urandom(8), "little")
        self.manual_seed(s)
        return s

    def get_state(self):
        return self._rng.bit_generator.state

    def set_state(self, state):
        self._rng.bit_generator.state = state


default_generator = Generator()


@export
def manual_seed(seed):
    return default_generator.manual_seed(seed)


@export
def initial_seed():
    return default_generator.initial_seed()


@export
def seed():
    return default_generator.seed()


def _rng(generator):
    return (generator or default_generator)._rng


def _float_dtype(dtype, fn):
    dt = _dt.as_dtype(dtype) if dtype is not None else _dt.get_default_dtype()
    if not dt.is_floating_point:
        raise RuntimeError(f"\"{fn}\" not implemented for '{_long_name(dt)}'")
    return dt


def _long_name(dt):
    return {"int64": "Long", "int32": "Int", "int16": "Short", "int8": "Char", "uint8": "Byte",
            "bool": "Bool"}.get(dt.name, dt.name)


@export
def rand(*size, generator=None, out=None, dtype=None, layout=None, device=None, requires_grad=False):
    dt = _float_dtype(dtype, "check_uniform_bounds")
    return _factory(size, dt, dt, requires_grad,
                    lambda s, d: _rng(generator).random(s, dtype=np.float64).astype(d))


@export
def randn(*size, generator=None, out=None, dtype=None, layout=None, device=None, requires_grad=False):
    dt = _float_dtype(dtype, "normal_kernel_cpu")
    return _factory(size, dt, dt, requires_grad,
                    lambda s, d: _rng(generator).standard_normal(s).astype(d))


@export
def randint(*args, size=None, generator=None, dtype=None, layout=None, device=None, requires_grad=False, out=None):
    """randint(high, size) or randint(low, high, size); int64 by default."""
    args = list(args)
    if size is None:
        size = args.pop()
    if len(args) == 1:
        low, high = 0, args[0]
    elif len(args) == 2:
        low, high = args
    else:
        raise TypeError("randint() missing required argument 'high'")
    if low >= high:
        raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got from={low} >= to={high}")
    dt = _dt.as_dtype(dtype) if dtype is not None else _dt.int64
    return _factory((size,), dt, dt, requires_grad,
                    lambda s, d: _rng(generator).integers(low, high, size=s).astype(d))


@export
def rand_like(input, *, dtype=None, requires_grad=False, **kw):
    return rand(input.shape, dtype=dtype or input.dtype, requires_grad=requires_grad)


@export
def randn_like(input, *, dtype=None, requires_grad=False, **kw):
    return randn(input.shape, dtype=dtype or input.dtype, requires_grad=requires_grad)


@export
def randint_like(input, low=0, high=None, *, dtype=None, requires_grad=False, **kw):
    if high is None:
        low, high = 0, low
    return randint(low, high, input.shape, dtype=dtype or input.dtype, requires_grad=requires_grad)


@export
def randperm(n, *, generator=None, dtype=None, requires_grad=False, **kw):
    dt = _dt.as_dtype(dtype) if dtype is not None else _dt.int64
    _check_alloc((n,), dt)
    return Tensor._make(_rng(generator).permutation(n).astype(dt.np))


@export
def normal(mean=0.0, std=1.0, size=None, *, generator=None, out=None, dtype=None, requires_grad=False):
    if isinstance(mean, Tensor) or isinstance(std, Tensor):
        m = mean._data if isinstance(mean, Tensor) else mean
        s = std._data if isinstance(std, Tensor) else std
        shape = np.broadcast(m, s).shape
        dt = (mean if isinstance(mean, Tensor) else std).dtype
        return Tensor._make((m + s * _rng(generator).standard_normal(shape)).astype(dt.np))
    dt = _float_dtype(dtype, "normal")
    return _factory((size,), dt, dt, requires_grad,
                    lambda sh, d: (mean + std * _rng(generator).standard_normal(sh)).astype(d))


# -- legacy constructors -------------------------------------------------------------------

def _legacy(dtype):
    def ctor(*args):
        if len(args) == 1 and not isinstance(args[0], (int, np.integer)):
            src = args[0]
            if isinstance(src, Tensor):
                if src.dtype is not dtype:
                    raise TypeError(f"expected {_dt.legacy_type_name(dtype)} (got {src.type()})")
                return src
            return Tensor._make(_array_from_data(src, dtype))
        shape = _parse_size(args)
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
