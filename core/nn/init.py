"""torch.nn.init: in-place initialisers run under no_grad, with PyTorch's bounds, gains and
fan computations. They draw exactly as torch's do (`tensor.uniform_(-bound, bound)`,
`tensor.normal_(0, std)`, ...) from core's mt19937 generator, in the tensor's own dtype, so a
layer's default initialisation equals torch's after the same manual_seed."""
from __future__ import annotations

import math
import warnings

import numpy as np

from ..autograd.grad_mode import no_grad
from ..ops import random as _R
from ..ops.inplace import check_inplace
from ..tensor import Tensor

__all__ = ["calculate_gain", "uniform_", "normal_", "trunc_normal_", "constant_", "ones_", "zeros_", "eye_",
           "dirac_", "xavier_uniform_", "xavier_normal_", "kaiming_uniform_", "kaiming_normal_", "orthogonal_",
           "sparse_"]


def _write(tensor, values):
    """Write `values` into tensor's storage as an in-place op under no_grad (bumps the version)."""
    with no_grad():
        check_inplace(tensor)
    np.copyto(tensor._data, values, casting="unsafe")
    tensor._vc[0] += 1
    return tensor


def calculate_gain(nonlinearity, param=None):
    """Recommended gain for a nonlinearity (PyTorch's table: relu sqrt(2), tanh 5/3, selu 3/4, ...)."""
    linear_fns = ["linear", "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d",
                  "conv_transpose3d"]
    if nonlinearity in linear_fns or nonlinearity == "sigmoid":
        return 1
    elif nonlinearity == "tanh":
        return 5.0 / 3
    elif nonlinearity == "relu":
        return math.sqrt(2.0)
    elif nonlinearity == "leaky_relu":
        if param is None:
            negative_slope = 0.01
        elif not isinstance(param, bool) and isinstance(param, int) or isinstance(param, float):
            negative_slope = param
        else:
            raise ValueError(f"negative_slope {param} not a valid number")
        return math.sqrt(2.0 / (1 + negative_slope ** 2))
    elif nonlinearity == "selu":
        return 3.0 / 4
    else:
        raise ValueError(f"Unsupported nonlinearity {nonlinearity}")


def uniform_(tensor, a=0.0, b=1.0, generator=None):
    """Fill with U(a, b): tensor.uniform_(a, b) under no_grad."""
    with no_grad():
        return _R.uniform_(tensor, a, b, generator=generator)


def normal_(tensor, mean=0.0, std=1.0, generator=None):
    """Fill with N(mean, std^2): tensor.normal_(mean, std) under no_grad."""
    with no_grad():
        return _R.normal_(tensor, mean, std, generator=generator)


def trunc_normal_(tensor, mean=0.0, std=1.0, a=-2.0, b=2.0, generator=None):
    """N(mean, std^2) truncated to [a, b], by torch 2.13's rejection sampling: when [a, b] holds more
    than 30% of the mass, normal_ then redraw a whole normal_ tensor for the rejected entries until
    none is left; otherwise uniform proposals on [a, b] accepted by log(u) <= log density ratio."""
    def norm_cdf(x):
        return (1.0 + math.erf(x / math.sqrt(2.0))) / 2.0

    if (mean < a - 2 * std) or (mean > b + 2 * std):
        warnings.warn("mean is more than 2 std from [a, b] in nn.init.trunc_normal_. The distribution of values "
                      "may be incorrect.", stacklevel=1)   # torch's is inside its trunc_normal_ too
    with no_grad():
        p = norm_cdf((b - mean) / std) - norm_cdf((a - mean) / std)
        if p > 0.3:
            return _trunc_by_normal(tensor, mean, std, a, b, generator)
        return _trunc_by_uniform(tensor, mean, std, a, b, generator)


def _trunc_by_normal(tensor, mean, std, a, b, generator):
    npdt = tensor._data.dtype
    lo, hi = npdt.type(a).item(), npdt.type(b).item()
    result = _R.normal_(tensor, mean, std, generator=generator)._data
    while True:
        mask = (result < lo) | (result > hi)
        if not mask.any():
            break
        fresh = _R.normal_(Tensor._make(np.empty(result.shape, npdt)), mean, std, generator=generator)._data
        result = np.where(mask, fresh, result)
    return _write(tensor, result)


def _trunc_by_uniform(tensor, mean, std, a, b, generator):
    """The low-mass branch (float ops in the tensor's dtype, NumPy's log)."""
    npdt = tensor._data.dtype
    mode = max(a, min(mean, b))
    log_peak = -0.5 * ((mode - mean) / std) ** 2

    def log_ratio(x):
        return ((((x - npdt.type(mean)) / npdt.type(std)) ** 2) * npdt.type(-0.5) - npdt.type(log_peak)).astype(npdt)

    def log_u():
        buf = Tensor._make(np.empty(tensor._data.shape, npdt))
        return np.log(_R.uniform_(buf, generator=generator)._data)

    result = _R.uniform_(tensor, a, b, generator=generator)._data.copy()
    pending = log_u() > log_ratio(result)
    while pending.any():
        cand = _R.uniform_(Tensor._make(np.empty(result.shape, npdt)), a, b, generator=generator)._data
        result = np.where(pending, cand, result)
        pending = np.where(pending, log_u() > log_ratio(cand), pending)
    return _write(tensor, result)


def constant_(tensor, val):
    """Fill with val."""
    return _write(tensor, val)


def ones_(tensor):
    return _write(tensor, 1.0)


def zeros_(tensor):
    return _write(tensor, 0.0)


def eye_(tensor):
    """Identity matrix (2-D tensors only)."""
    if tensor.ndimension() != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    return _write(tensor, np.eye(*tensor._data.shape, dtype=tensor._data.dtype))


def dirac_(tensor, groups=1):
    """Dirac delta kernels (identity convolution) for 3-, 4- and 5-D weights."""
    dimensions = tensor.ndimension()
    if dimensions not in [3, 4, 5]:
        raise ValueError("Only tensors with 3, 4, or 5 dimensions are supported")
    sizes = tensor.size()
    if sizes[0] % groups != 0:
        raise ValueError("dim 0 must be divisible by groups")
    out_chans_per_grp = sizes[0] // groups
    min_dim = min(out_chans_per_grp, sizes[1])
    arr = np.zeros(tensor._data.shape, dtype=tensor._data.dtype)
    centre = tuple(s // 2 for s in sizes[2:])
    for g in range(groups):
        for d in range(min_dim):
            arr[(g * out_chans_per_grp + d, d) + centre] = 1
    return _write(tensor, arr)


def _calculate_fan_in_and_fan_out(tensor):
    dimensions = tensor.dim()
    if dimensions < 2:
        raise ValueError("Fan in and fan out can not be computed for tensor with fewer than 2 dimensions")
    num_input_fmaps = tensor.size(1)
    num_output_fmaps = tensor.size(0)
    receptive_field_size = 1
    if tensor.dim() > 2:
        for s in tensor.shape[2:]:
            receptive_field_size *= s
    return num_input_fmaps * receptive_field_size, num_output_fmaps * receptive_field_size


def _calculate_correct_fan(tensor, mode):
    mode = mode.lower()
    valid_modes = ["fan_in", "fan_out"]
    if mode not in valid_modes:
        raise ValueError(f"Mode {mode} not supported, please use one of {valid_modes}")
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return fan_in if mode == "fan_in" else fan_out


def xavier_uniform_(tensor, gain=1.0, generator=None):
    """U(-a, a) with a = gain * sqrt(6 / (fan_in + fan_out))."""
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    std = gain * math.sqrt(2.0 / float(fan_in + fan_out))
    a = math.sqrt(3.0) * std
    return uniform_(tensor, -a, a, generator)


def xavier_normal_(tensor, gain=1.0, generator=None):
    """N(0, std^2) with std = gain * sqrt(2 / (fan_in + fan_out))."""
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    std = gain * math.sqrt(2.0 / float(fan_in + fan_out))
    return normal_(tensor, 0.0, std, generator)


def kaiming_uniform_(tensor, a=0, mode="fan_in", nonlinearity="leaky_relu", generator=None):
    """U(-bound, bound) with bound = gain * sqrt(3 / fan) (He et al.)."""
    if 0 in tensor.shape:
        warnings.warn("Initializing zero-element tensors is a no-op", stacklevel=2)
        return tensor
    fan = _calculate_correct_fan(tensor, mode)
    gain = calculate_gain(nonlinearity, a)
    std = gain / math.sqrt(fan)
    bound = math.sqrt(3.0) * std
    with no_grad():
        return _R.uniform_(tensor, -bound, bound, generator=generator)


def kaiming_normal_(tensor, a=0, mode="fan_in", nonlinearity="leaky_relu", generator=None):
    """N(0, std^2) with std = gain / sqrt(fan) (He et al.)."""
    if 0 in tensor.shape:
        warnings.warn("Initializing zero-element tensors is a no-op", stacklevel=2)
        return tensor
    fan = _calculate_correct_fan(tensor, mode)
    gain = calculate_gain(nonlinearity, a)
    std = gain / math.sqrt(fan)
    with no_grad():
        return _R.normal_(tensor, 0, std, generator=generator)


def orthogonal_(tensor, gain=1, generator=None):
    """A (semi-)orthogonal matrix: Q of the QR decomposition of a normal_ sample (drawn as torch
    draws it) times sign(diag(R)). NumPy's LAPACK QR may differ from torch's in the last bits."""
    if tensor.ndimension() < 2:
        raise ValueError("Only tensors with 2 or more dimensions are supported")
    if tensor.numel() == 0:
        return tensor
    rows = tensor.size(0)
    cols = tensor.numel() // rows
    flat = _R.normal_(Tensor._make(np.empty((rows, cols), tensor._data.dtype)), 0, 1, generator=generator)._data
    if rows < cols:
        flat = flat.T
    q, r = np.linalg.qr(flat)
    q = q * np.sign(np.diag(r))
    if rows < cols:
        q = q.T
    dt = tensor._data.dtype
    return _write(tensor, q.reshape(tensor._data.shape).astype(dt) * dt.type(gain))


def sparse_(tensor, sparsity, std=0.01, generator=None):
    """A 2-D sparse matrix: normal_(0, std), then ceil(sparsity * rows) entries of each column set to zero
    (rows chosen by a randperm per column, drawn from the default generator as torch does)."""
    if tensor.ndimension() != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    rows, cols = tensor.shape
    num_zeros = math.ceil(sparsity * rows)
    with no_grad():
        _R.normal_(tensor, 0, std, generator=generator)
        for col_idx in range(cols):
            zero_indices = _R.randperm(rows)[:num_zeros]
            tensor[zero_indices, col_idx] = 0
    return tensor


def _deprecated(new):
    def deprecated_init(*args, **kwargs):
        warnings.warn(f"`nn.init.{new.__name__[:-1]}` is now deprecated in favor of `nn.init.{new.__name__}`.",
                      FutureWarning, stacklevel=2)
        return new(*args, **kwargs)
    deprecated_init.__name__ = new.__name__[:-1]
    return deprecated_init


uniform = _deprecated(uniform_)
normal = _deprecated(normal_)
constant = _deprecated(constant_)
xavier_uniform = _deprecated(xavier_uniform_)
xavier_normal = _deprecated(xavier_normal_)
kaiming_uniform = _deprecated(kaiming_uniform_)
kaiming_normal = _deprecated(kaiming_normal_)
eye = _deprecated(eye_)
dirac = _deprecated(dirac_)
orthogonal = _deprecated(orthogonal_)
sparse = _deprecated(sparse_)
