"""torch.autocast / torch.amp.autocast on core: the autocast state as torch keeps it, without the casts.

Mirrored: the per-device state (`is_autocast_enabled(device)`, `get_autocast_dtype(device)`: CPU's default
is bfloat16, set and restored on enter/exit, nesting, use as a decorator), the argument checks and the
warnings that disable autocast (an unsupported CPU dtype, CUDA absent), `enabled=False` as a faithful no-op.
Not mirrored: the op casts themselves (CPU autocast runs matmul/linear/conv... in the autocast dtype and
some ops in float32): core's ops have no dispatch hook for them, so under an enabled autocast every op
runs in its inputs' dtypes; core warns once when that happens. core has no bfloat16 dtype:
`get_autocast_dtype("cpu")` returns a stand-in that prints `torch.bfloat16` and compares equal only to itself."""
from __future__ import annotations

import functools
import warnings

from .. import dtypes as _dt


class _NamedDtype:
    """A dtype core lacks (bfloat16), as autocast reports it; not usable to make tensors."""

    def __init__(self, name):
        self._name = name

    def __repr__(self):
        return f"torch.{self._name}"

    is_floating_point = True


bfloat16 = _NamedDtype("bfloat16")
_DEVICES = ("cpu", "cuda", "ipu", "xpu", "mkldnn", "opengl", "opencl", "ideep", "hip", "ve", "fpga", "maia", "xla",
            "lazy", "vulkan", "mps", "meta", "hpu", "mtia", "privateuseone")
# device -> [enabled, dtype], torch's defaults (thread-local in torch; core runs one thread)
_STATE = {"cpu": [False, bfloat16], "cuda": [False, _dt.float16], "mps": [False, _dt.float16],
          "xpu": [False, bfloat16], "hpu": [False, bfloat16]}
_WARNED = []


def _state(device_type):
    if device_type.split(":")[0] not in _DEVICES:
        raise RuntimeError(f"Expected one of {', '.join(_DEVICES)} device type at start of device string: "
                           f"{device_type}")
    if not is_autocast_available(device_type):
        raise RuntimeError("unsupported scalarType")   # ATen's error for a device without autocast state
    return _STATE.setdefault(device_type, [False, _dt.float16])


def is_autocast_enabled(device_type=None):
    """Whether autocast is on for device_type (no argument: CUDA's, as torch's)."""
    return _state("cuda" if device_type is None else device_type)[0]


def get_autocast_dtype(device_type):
    return _state(device_type)[1]


def set_autocast_enabled(device_type, enabled=None):
    if enabled is None:   # the deprecated one-argument form: CUDA's
        device_type, enabled = "cuda", device_type
    _state(device_type)[0] = bool(enabled)


def set_autocast_dtype(device_type, dtype):
    _state(device_type)[1] = dtype


def is_autocast_cpu_enabled():
    warnings.warn("torch.is_autocast_cpu_enabled() is deprecated. Please use torch.is_autocast_enabled('cpu') "
                  "instead. (Triggered internally at /__w/pytorch/pytorch/torch/csrc/autograd/init.cpp:883.)",
                  DeprecationWarning, stacklevel=2)
    return is_autocast_enabled("cpu")


def get_autocast_cpu_dtype():
    warnings.warn("torch.get_autocast_cpu_dtype() is deprecated. Please use torch.get_autocast_dtype('cpu') "
                  "instead. (Triggered internally at /__w/pytorch/pytorch/torch/csrc/autograd/init.cpp:1016.)",
                  DeprecationWarning, stacklevel=2)
    return get_autocast_dtype("cpu")


def clear_autocast_cache():
    """Nothing to clear: core caches no casts."""


def is_autocast_available(device_type):
    return device_type in ("cpu", "cuda", "xpu", "mps", "hpu", "mtia", "maia", "privateuseone")


class autocast:
    """torch.autocast(device_type, dtype=None, enabled=True, cache_enabled=None): a context manager
    (and decorator) that sets the device's autocast state and restores it on exit."""

    def __init__(self, device_type, dtype=None, enabled=True, cache_enabled=None):
        if not isinstance(device_type, str):
            raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
        self.device = device_type
        self.fast_dtype = get_autocast_dtype(device_type) if dtype is None else dtype
        if not is_autocast_available(device_type):
            raise RuntimeError(f"User specified an unsupported autocast device_type '{device_type}'")
        self._cache_enabled = True if cache_enabled is None else cache_enabled
        if enabled and device_type == "cuda":
            warnings.warn("CUDA is not available or torch_xla is imported. Disabling autocast.", stacklevel=2)
            enabled = False
        elif enabled and self.fast_dtype not in (bfloat16, _dt.float16):
            name = device_type.upper()
            warnings.warn(f"In {name} autocast, but the target dtype is not supported. Disabling autocast.\n"
                          f"{name} Autocast only supports dtypes of torch.bfloat16, torch.float16 currently.",
                          stacklevel=2)
            enabled = False
        self._enabled = enabled

    def __enter__(self):
        state = _state(self.device)
        self.prev, self.prev_fastdtype = state[0], state[1]
        state[0], state[1] = self._enabled, self.fast_dtype
        if self._enabled and not _WARNED:
            _WARNED.append(True)
            warnings.warn("core's autocast records the state only: ops run in their inputs' dtypes (no casts to "
                          f"{self.fast_dtype!r})", UserWarning, stacklevel=2)
        return self

    def __exit__(self, exc_type, exc_val, exc_tb):
        state = _state(self.device)
        state[0], state[1] = self.prev, self.prev_fastdtype
        return False

    def __call__(self, func):
        @functools.wraps(func)
        def decorate_autocast(*args, **kwargs):
            with self:
                return func(*args, **kwargs)
        return decorate_autocast


def custom_fwd(fwd=None, *, device_type, cast_inputs=None):
    """torch.amp.custom_fwd: forward of a custom Function runs with the caller's autocast state
    (cast_inputs: with autocast off; core does not cast the inputs)."""
    if fwd is None:
        return functools.partial(custom_fwd, device_type=device_type, cast_inputs=cast_inputs)

    @functools.wraps(fwd)
    def decorate_fwd(*args, **kwargs):
        args[0]._dtype = get_autocast_dtype(device_type)
        args[0]._fwd_used_autocast = is_autocast_enabled(device_type)
        if cast_inputs is None or not is_autocast_enabled(device_type):
            return fwd(*args, **kwargs)
        with autocast(device_type=device_type, enabled=False):
            return fwd(*args, **kwargs)
    return decorate_fwd


def custom_bwd(bwd=None, *, device_type):
    """torch.amp.custom_bwd: backward runs with the autocast state forward saw."""
    if bwd is None:
        return functools.partial(custom_bwd, device_type=device_type)

    @functools.wraps(bwd)
    def decorate_bwd(*args, **kwargs):
        with autocast(device_type=device_type, enabled=args[0]._fwd_used_autocast, dtype=args[0]._dtype):
            return bwd(*args, **kwargs)
    return decorate_bwd
