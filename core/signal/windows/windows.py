"""torch.signal.windows.windows: each window built from core ops exactly as PyTorch's Python source builds
it (linspace, then exp/sin/cos/i0 and a sum over cosine terms), so values match torch's to the last bit in
float32 and float64, and requires_grad=True gives the same graph leaves. Checks and messages are torch's:
ValueError for a negative M, a non-float dtype, a non-strided layout, or a bad shape parameter."""
from __future__ import annotations

import math
from collections.abc import Iterable

import core

__all__ = ["bartlett", "blackman", "cosine", "exponential", "gaussian", "general_cosine", "general_hamming",
           "hamming", "hann", "kaiser", "nuttall"]


def _checks(function_name, M, dtype, layout):
    """PyTorch's _window_function_checks (dtype already defaulted)."""
    if M < 0:
        raise ValueError(f"{function_name} requires non-negative window length, got M={M}")
    if layout is not None and str(layout) != "torch.strided":
        raise ValueError(f"{function_name} is implemented for strided tensors only, got: {layout}")
    if dtype not in (core.float32, core.float64):
        raise ValueError(f"{function_name} expects float32 or float64 dtypes, got: {dtype}")


def _empty_or_ones(M, dtype, requires_grad):
    """The M == 0 / M == 1 windows: torch.empty((0,)) / torch.ones((1,))."""
    fill = core.empty if M == 0 else core.ones
    return fill((M,), dtype=dtype, requires_grad=requires_grad)


def exponential(M, *, center=None, tau=1.0, sym=True, dtype=None, layout=None, device=None,
                requires_grad=False):
    """exp(-|n - center| / tau); center defaults to the window's middle."""
    dtype = dtype or core.get_default_dtype()
    _checks("exponential", M, dtype, layout)
    if tau <= 0:
        raise ValueError(f"Tau must be positive, got: {tau} instead.")
    if sym and center is not None:
        raise ValueError("Center must be None for symmetric windows")
    if M == 0:
        return _empty_or_ones(0, dtype, requires_grad)
    if center is None:
        center = (M if not sym and M > 1 else M - 1) / 2.0
    constant = 1 / tau
    k = core.linspace(-center * constant, (-center + (M - 1)) * constant, M, dtype=dtype,
                      requires_grad=requires_grad)
    return core.exp(-core.abs(k))


def cosine(M, *, sym=True, dtype=None, layout=None, device=None, requires_grad=False):
    """sin(pi (n + 0.5) / M) (M + 1 for the periodic window)."""
    dtype = dtype or core.get_default_dtype()
    _checks("cosine", M, dtype, layout)
    if M == 0:
        return _empty_or_ones(0, dtype, requires_grad)
    start = 0.5
    constant = math.pi / (M + 1 if not sym and M > 1 else M)
    k = core.linspace(start * constant, (start + (M - 1)) * constant, M, dtype=dtype, requires_grad=requires_grad)
    return core.sin(k)


def gaussian(M, *, std=1.0, sym=True, dtype=None, layout=None, device=None, requires_grad=False):
    """exp(-(n - (M - 1) / 2)^2 / (2 std^2))."""
    dtype = dtype or core.get_default_dtype()
    _checks("gaussian", M, dtype, layout)
    if std <= 0:
        raise ValueError(f"Standard deviation must be positive, got: {std} instead.")
    if M == 0:
        return _empty_or_ones(0, dtype, requires_grad)
    start = -(M if not sym and M > 1 else M - 1) / 2.0
    constant = 1 / (std * math.sqrt(2))
    k = core.linspace(start * constant, (start + (M - 1)) * constant, M, dtype=dtype, requires_grad=requires_grad)
    return core.exp(-(k ** 2))


def kaiser(M, *, beta=12.0, sym=True, dtype=None, layout=None, device=None, requires_grad=False):
    """i0(beta sqrt(1 - (2n / (M - 1) - 1)^2)) / i0(beta)."""
    dtype = dtype or core.get_default_dtype()
    _checks("kaiser", M, dtype, layout)
    if beta < 0:
        raise ValueError(f"beta must be non-negative, got: {beta} instead.")
    if M in (0, 1):
        return _empty_or_ones(M, dtype, requires_grad)
    beta = core.tensor(beta, dtype=dtype)
    start = -beta
    constant = 2.0 * beta / (M if not sym else M - 1)
    end = core.minimum(beta, start + (M - 1) * constant)
    k = core.linspace(start.item(), end.item(), M, dtype=dtype, requires_grad=requires_grad)
    return core.i0(core.sqrt(beta * beta - core.pow(k, 2))) / core.i0(beta)


def hamming(M, *, sym=True, dtype=None, layout=None, device=None, requires_grad=False):
    """general_hamming with alpha = 0.54."""
    return general_hamming(M, sym=sym, dtype=dtype, layout=layout, requires_grad=requires_grad)


def hann(M, *, sym=True, dtype=None, layout=None, device=None, requires_grad=False):
    """general_hamming with alpha = 0.5."""
    return general_hamming(M, alpha=0.5, sym=sym, dtype=dtype, layout=layout, requires_grad=requires_grad)


def blackman(M, *, sym=True, dtype=None, layout=None, device=None, requires_grad=False):
    """general_cosine with a = [0.42, 0.5, 0.08]."""
    dtype = dtype or core.get_default_dtype()
    _checks("blackman", M, dtype, layout)
    return general_cosine(M, a=[0.42, 0.5, 0.08], sym=sym, dtype=dtype, layout=layout, requires_grad=requires_grad)


def bartlett(M, *, sym=True, dtype=None, layout=None, device=None, requires_grad=False):
    """1 - |2n / (M - 1) - 1| (the triangular window)."""
    dtype = dtype or core.get_default_dtype()
    _checks("bartlett", M, dtype, layout)
    if M in (0, 1):
        return _empty_or_ones(M, dtype, requires_grad)
    start = -1
    constant = 2 / (M if not sym else M - 1)
    k = core.linspace(start, start + (M - 1) * constant, M, dtype=dtype, requires_grad=requires_grad)
    return 1 - core.abs(k)


def general_cosine(M, *, a, sym=True, dtype=None, layout=None, device=None, requires_grad=False):
    """sum_i (-1)^i a_i cos(2 pi i n / (M - 1)), summed over i as torch does (a tensor sum over dim 0)."""
    dtype = dtype or core.get_default_dtype()
    _checks("general_cosine", M, dtype, layout)
    if M in (0, 1):
        return _empty_or_ones(M, dtype, requires_grad)
    if not isinstance(a, Iterable):
        raise TypeError("Coefficients must be a list/tuple")
    if not a:
        raise ValueError("Coefficients cannot be empty")
    constant = 2 * math.pi / (M if not sym else M - 1)
    k = core.linspace(0, (M - 1) * constant, M, dtype=dtype, requires_grad=requires_grad)
    a_i = core.tensor([(-1) ** i * w for i, w in enumerate(a)], dtype=dtype, requires_grad=requires_grad)
    i = core.arange(a_i.shape[0], dtype=a_i.dtype, requires_grad=a_i.requires_grad)
    return (a_i.unsqueeze(-1) * core.cos(i.unsqueeze(-1) * k)).sum(0)


def general_hamming(M, *, alpha=0.54, sym=True, dtype=None, layout=None, device=None, requires_grad=False):
    """general_cosine with a = [alpha, 1 - alpha]."""
    return general_cosine(M, a=[alpha, 1.0 - alpha], sym=sym, dtype=dtype, layout=layout,
                          requires_grad=requires_grad)


def nuttall(M, *, sym=True, dtype=None, layout=None, device=None, requires_grad=False):
    """general_cosine with Nuttall's four coefficients."""
    return general_cosine(M, a=[0.3635819, 0.4891775, 0.1365995, 0.0106411], sym=sym, dtype=dtype,
                          layout=layout, requires_grad=requires_grad)
