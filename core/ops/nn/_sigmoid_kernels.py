"""ATen's CPU sigmoid and log_sigmoid kernels bit for bit (AVX2 / AVX512 builds), for the losses built on them.

- log_sigmoid_cpu_kernel (Activation.cpp): every element, the partial last vector too (loadu with a count), through
  `min(x, 0) - Vectorized::log1p(b)` with the buffer `b = Vectorized::exp(-|x|)` (SLEEF's expf / exp and log1pf /
  log1p); the backward (log_sigmoid_backward_cpu_kernel) is `(max_deriv - sign * (b / (1 + b))) * grad` with
  max_deriv, sign = 1, 1 where x < 0 and 0, -1 elsewhere (the same in the vector and scalar lambdas).
- sigmoid_kernel (UnaryOpsKernel.cpp) through cpu_kernel_vec: whole pairs of vectors `1 / (exp(0 - x) + 1)` with
  SLEEF's exp, the last numel % (2 * lanes) elements of the loop the scalar lambda `1 / (1 + std::exp(-x))`
  (glibc). The loop walks memory order (TensorIterator sorts dims by stride), so the tail is the last elements in
  memory of a dense (contiguous or permuted) tensor.
ATen's DEFAULT build (no AVX2) maps Vectorized exp to std::exp and log1p to std::log1p: the latter is NumPy's
log1p here (not glibc's; not modelled)."""
from __future__ import annotations

import numpy as np

from ... import _cpu, _vec_math as vm
from ._vec_log1p import log1pd, log1pf


def _vlog1p(b):
    if _cpu.capability() == "default":
        return np.log1p(b)
    return log1pf(b) if b.dtype == np.float32 else log1pd(b)


def log_sigmoid(x):
    """(output, buffer) of log_sigmoid_forward for a float32 / float64 array (contiguous, as ATen's)."""
    if not x.size:
        return np.empty(x.shape, x.dtype), np.empty(x.shape, x.dtype)
    flat = np.ascontiguousarray(x).reshape(-1)      # 0-d too
    with np.errstate(all="ignore"):
        b = vm.vexp(-np.abs(flat))
        out = np.minimum(flat, x.dtype.type(0)) - _vlog1p(b)
    return out.reshape(x.shape), b.reshape(x.shape)


def log_sigmoid_backward(x, b, g):
    """log_sigmoid_backward_cpu_kernel's (max_deriv - sign * (b / (1 + b))) * grad."""
    one = x.dtype.type(1)
    with np.errstate(all="ignore"):
        q = b / (one + b)
        return np.where(x < 0, one - q, q) * g        # 1 - 1 * q, or 0 - (-1) * q


def _memory_order(x):
    """(the dims' permutation to memory order, its inverse) of a dense array; None when not dense."""
    if x.flags.c_contiguous:
        return None, None
    perm = tuple(int(i) for i in np.argsort([-abs(s) for s in x.strides], kind="stable"))
    if not x.transpose(perm).flags.c_contiguous:
        return False, None
    return perm, tuple(int(i) for i in np.argsort(perm))


def sigmoid(x):
    """torch.sigmoid's CPU bits for a float32 / float64 array (dense layouts; others in C order)."""
    if not x.size or not x.ndim:
        return sigmoid(x.reshape(-1)).reshape(x.shape) if x.size else np.empty(x.shape, x.dtype)
    perm, inv = _memory_order(x)
    xm = x if perm is None or perm is False else x.transpose(perm)
    flat = np.ascontiguousarray(xm).ravel()
    n = flat.size
    one = x.dtype.type(1)
    split = n if _cpu.capability() == "default" else n - n % (_cpu.unroll_bytes(False) // x.dtype.itemsize)
    out = np.empty(n, x.dtype)
    with np.errstate(all="ignore"):
        if split:
            e = vm.vexp(np.negative(flat[:split]))
            e += one
            np.divide(one, e, out=out[:split])
        if split < n:
            e = vm.cexp(np.negative(flat[split:]))
            out[split:] = one / (one + e)
    out = out.reshape(xm.shape)
    return out if perm is None or perm is False else out.transpose(inv)
