"""Process-wide switches of torch/__init__.py that a CPU build reports or accepts: float32 matmul
precision, interop threads, the deprecated default tensor type, flush-denormal, build flags.

They change nothing in core's arithmetic (NumPy computes float32 matmul at full precision, as torch's
"highest"; denormals are kept, as torch's CPU build with set_flush_denormal(False)); the values read back
and the errors and warnings are torch's."""
from __future__ import annotations

import builtins
import os
import sys
import warnings

from . import dtypes as _dt

_STATE = {"matmul_precision": "highest", "interop_threads": None, "default_type_warned": False}

# Build flags as torch 2.13's CPU wheel reports them (torch.has_mkl ...: plain bools, no warning).
has_mkl = True
has_lapack = True
has_openmp = True
has_spectral = True


def compiled_with_cxx11_abi():
    """Whether PyTorch was built with _GLIBCXX_USE_CXX11_ABI=1: True, as torch 2.13's wheels."""
    return True


def get_float32_matmul_precision():
    """'highest' until set_float32_matmul_precision changes it."""
    return _STATE["matmul_precision"]


def set_float32_matmul_precision(precision):
    """Record 'highest', 'high' or 'medium'; another string warns (ATen's TORCH_WARN) and changes nothing."""
    if not isinstance(precision, str):
        raise RuntimeError(f"set_float32_matmul_precision expects a str, but got {type(precision).__name__}")
    if precision in ("highest", "high", "medium"):
        _STATE["matmul_precision"] = precision
        return
    warnings.warn(f"{precision} is not one of 'highest', 'high', or 'medium'; the current"
                  f"setFloat32MatmulPrecision call has no effect. (Triggered internally at "
                  f"/__w/pytorch/pytorch/aten/src/ATen/Context.cpp:458.)", UserWarning, stacklevel=2)


def get_num_interop_threads():
    """The inter-op pool size: the hardware's thread count until set (core runs one thread regardless)."""
    n = _STATE["interop_threads"]
    return n if n is not None else (os.cpu_count() or 1)


def set_num_interop_threads(num):
    """Once per process, and only a positive int (ATen's errors)."""
    if not isinstance(num, builtins.int) or isinstance(num, builtins.bool) or num <= 0:
        raise RuntimeError("set_num_interop_threads expects a positive integer")
    if _STATE["interop_threads"] is not None:
        raise RuntimeError("Error: cannot set number of interop threads after parallel work has started or "
                           "set_num_interop_threads called")
    _STATE["interop_threads"] = num


def set_flush_denormal(mode):
    """True: the CPU supports flushing denormals (x86 with SSE3), as torch reports; core keeps them."""
    return True


def set_default_tensor_type(t):
    """Deprecated (a UserWarning, once per process): the floating legacy type's dtype becomes the default
    dtype. `t` is a legacy constructor (torch.DoubleTensor) or its dotted name ('torch.DoubleTensor')."""
    if not _STATE["default_type_warned"]:
        _STATE["default_type_warned"] = True
        warnings.warn("torch.set_default_tensor_type() is deprecated as of PyTorch 2.1, please use "
                      "torch.set_default_dtype() and torch.set_default_device() as alternatives. (Triggered "
                      "internally at /__w/pytorch/pytorch/torch/csrc/tensor/python_tensor.cpp:434.)",
                      UserWarning, stacklevel=2)
    if isinstance(t, str):
        if t.startswith("torch.cuda."):
            raise TypeError(f"type {t} not available. Torch not compiled with CUDA enabled.")
        head, *rest = t.split(".")
        obj = sys.modules[__package__] if head == "torch" else __import__(head)   # torch: this package
        for part in rest:
            obj = getattr(obj, part)
        t = obj
    dtype = _legacy_names().get(getattr(t, "__name__", None)) if callable(t) else None
    if dtype is None:
        raise TypeError("invalid type object: only floating-point types are supported as the default type")
    if not dtype.is_floating_point:
        raise TypeError("only floating-point types are supported as the default type")
    _dt.set_default_dtype(dtype)


def _legacy_names():
    return {d._legacy: d for d in (_dt.float16, _dt.float32, _dt.float64, _dt.int8, _dt.int16, _dt.int32,
                                   _dt.int64, _dt.uint8, _dt.bool_)}
