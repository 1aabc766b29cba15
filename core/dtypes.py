"""dtype objects and PyTorch's type-promotion rules (torch.result_type)."""
from __future__ import annotations

import numpy as np


class dtype:
    """Mirror of ``torch.dtype``: prints as ``torch.float32``; `type(x.dtype)` is <class 'torch.dtype'>."""
    __module__ = "torch"

    __slots__ = ("name", "np", "is_floating_point", "is_signed", "itemsize", "_rank", "_legacy")

    def __init__(self, name, np_dtype, rank, legacy):
        self.name = name
        self.np = np.dtype(np_dtype)
        self.is_floating_point = self.np.kind == "f"
        self.is_signed = self.np.kind in "fi"
        self.itemsize = self.np.itemsize
        self._rank = rank  # 0 bool, 1 integral, 2 floating
        self._legacy = legacy

    def __repr__(self):
        return "torch." + self.name

    def __reduce__(self):
        return (_by_name, (self.name,))

    @property
    def is_complex(self):
        return False

    def to_real(self):
        return self


bool_ = dtype("bool", np.bool_, 0, "BoolTensor")
uint8 = dtype("uint8", np.uint8, 1, "ByteTensor")
int8 = dtype("int8", np.int8, 1, "CharTensor")
int16 = dtype("int16", np.int16, 1, "ShortTensor")
int32 = dtype("int32", np.int32, 1, "IntTensor")
int64 = dtype("int64", np.int64, 1, "LongTensor")
float16 = dtype("float16", np.float16, 2, "HalfTensor")
float32 = dtype("float32", np.float32, 2, "FloatTensor")
float64 = dtype("float64", np.float64, 2, "DoubleTensor")

ALL = (bool_, uint8, int8, int16, int32, int64, float16, float32, float64)
_FROM_NP = {d.np: d for d in ALL}
ALIASES = {
    "bool": bool_, "uint8": uint8, "int8": int8, "int16": int16, "short": int16,
    "int32": int32, "int": int32, "int64": int64, "long": int64,
    "float16": float16, "half": float16, "float32": float32, "float": float32,
    "float64": float64, "double": float64,
}
_LEGACY = {d._legacy: d for d in ALL}

_default_float = [float32]


def _by_name(name):
    return ALIASES[name]


def get_default_dtype():
    return _default_float[0]


def set_default_dtype(d):
    d = as_dtype(d)
    if not d.is_floating_point:
        raise TypeError("only floating-point types are supported as the default type")
    _default_float[0] = d


def from_numpy_dtype(npd) -> dtype:
    """The core dtype of a NumPy dtype; TypeError for dtypes PyTorch has no match for."""
    d = _FROM_NP.get(np.dtype(npd))
    if d is None:
        raise TypeError(
            f"can't convert np.ndarray of type numpy.{np.dtype(npd)}. The only supported types are: "
            "float64, float32, float16, int64, int32, int16, int8, uint8, and bool.")
    return d


def as_dtype(d) -> dtype:
    """Accept a core dtype, a dtype name ('float32', 'long'), a NumPy dtype or the Python types float/int/bool."""
    if isinstance(d, dtype):
        return d
    if d is float:
        return get_default_dtype()
    if d is int:
        return int64
    if d is bool:
        return bool_
    if isinstance(d, str):
        name = d[6:] if d.startswith("torch.") else d
        if name in ALIASES:
            return ALIASES[name]
        if name in _LEGACY:
            return _LEGACY[name]
        raise TypeError(f"invalid dtype: {d!r}")
    if getattr(d, "__name__", None) in _LEGACY:   # legacy constructors: t.type(torch.IntTensor)
        return _LEGACY[d.__name__]
    try:
        return from_numpy_dtype(d)
    except TypeError:
        raise TypeError(f"invalid dtype object: {d!r}") from None


def legacy_type_name(d: dtype) -> str:
    return "torch." + d._legacy


# PyTorch's names for dtypes in error messages: ScalarType ("Float", "Long") and C++ ("float", "long int").
SCALAR_NAMES = {"float32": "Float", "float64": "Double", "float16": "Half", "int64": "Long", "int32": "Int",
                "int16": "Short", "int8": "Char", "uint8": "Byte", "bool": "Bool"}
CPP_NAMES = {"float32": "float", "float64": "double", "float16": "c10::Half", "int64": "long int", "int32": "int",
             "int16": "short int", "int8": "signed char", "uint8": "unsigned char", "bool": "bool"}


def scalar_name(d) -> str:
    """'Float', 'Long', ... for a core dtype or a NumPy dtype (PyTorch's ScalarType names)."""
    return SCALAR_NAMES[d.name if isinstance(d, dtype) else np.dtype(d).name]


def cpp_name(d) -> str:
    """'float', 'long int', ... for a core dtype or a NumPy dtype (c10::toString of a TypeMeta)."""
    return CPP_NAMES[d.name if isinstance(d, dtype) else np.dtype(d).name]


def promote_types(a: dtype, b: dtype) -> dtype:
    """torch.promote_types: floats win by width, ints follow C-like promotion, bool is the bottom."""
    if a is b:
        return a
    if a._rank != b._rank:
        return a if a._rank > b._rank else b
    if a._rank == 2:
        return a if a.itemsize >= b.itemsize else b
    return _FROM_NP[np.promote_types(a.np, b.np)]


def scalar_dtype(x) -> dtype:
    """dtype a Python number takes when wrapped (bool, int64, or the default float)."""
    if isinstance(x, (bool, np.bool_)):
        return bool_
    if isinstance(x, (int, np.integer)):
        return int64
    return get_default_dtype()


def _combine(higher, lower):
    if higher is None:
        return lower
    if lower is None:
        return higher
    if higher.is_floating_point:
        return higher
    if higher is bool_ or lower.is_floating_point:
        return promote_types(higher, lower)
    return higher


def result_type(*operands) -> dtype:
    """torch.result_type over tensors and Python scalars: dimensioned tensors outrank
    zero-dim tensors, which outrank Python numbers, unless a lower group brings a higher category."""
    dim = zero = wrapped = None
    for o in operands:
        d = getattr(o, "dtype", None)
        if isinstance(d, dtype):
            if o.ndim:
                dim = d if dim is None else promote_types(dim, d)
            else:
                zero = d if zero is None else promote_types(zero, d)
        else:
            d = scalar_dtype(o)
            wrapped = d if wrapped is None else promote_types(wrapped, d)
    return _combine(dim, _combine(zero, wrapped))


def can_cast(from_: dtype, to: dtype) -> bool:
    """torch.can_cast: same-kind casting (no float->int, no int->bool)."""
    return from_._rank <= to._rank
