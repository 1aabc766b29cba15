"""`torch.device` as a CPU-only PyTorch build has it: every device type constructs (with torch's
parsing, repr, str, equality and errors), but only the CPU holds tensors. `check_device` raises
what torch raises when a tensor is moved to, or allocated on, a device this build lacks."""
from __future__ import annotations

import re

DEVICE_TYPES = ("cpu", "cuda", "ipu", "xpu", "mkldnn", "opengl", "opencl", "ideep", "hip", "ve", "fpga", "maia",
                "xla", "lazy", "vulkan", "mps", "meta", "hpu", "mtia", "privateuseone")
_NO_ACCELERATOR = "Cannot access accelerator device when none is available."
_INDEX = re.compile(r"(0|[1-9][0-9]*)")
_NOT_COMPILED = {
    "cuda": "Torch not compiled with CUDA enabled",
    "xpu": "Torch not compiled with XPU enabled",
    "mtia": ("Torch not compiled with MTIA enabled. Ensure you have `import mtia.host_runtime.torch_mtia."
             "dynamic_library` in your python src file and include `//mtia/host_runtime/torch_mtia:torch_mtia` "
             "as your target dependency!"),
}
_BACKEND = {"mps": "MPS", "hip": "HIP", "ipu": "IPU", "xla": "XLA", "lazy": "Lazy", "vulkan": "Vulkan",
            "ve": "VE", "fpga": "FPGA", "maia": "MAIA"}
_GRANDFATHERED = ("mkldnn", "opengl", "opencl", "ideep")


def _bad_args(got):
    return TypeError(f"device() received an invalid combination of arguments - got ({got}), but expected one of:\n"
                     " * (torch.device device)\n"
                     f"      didn't match because some of the arguments have invalid types: (!{got}!)\n"
                     " * (str type, int index = -1)\n")


def _parse(spec):
    """c10::Device(string): 'type' or 'type:index' with a canonical non-negative index."""
    name, sep, idx = spec.partition(":")
    if name not in DEVICE_TYPES:
        if not name.strip() or name != name.strip():
            raise RuntimeError(f"Invalid device string: '{spec}'")
        raise RuntimeError(f"Expected one of {', '.join(DEVICE_TYPES)} device type at start of device string: {spec}")
    if not sep:
        return name, None
    if not _INDEX.fullmatch(idx):
        raise RuntimeError(f"Invalid device string: '{spec}'")
    return name, int(idx)


class device:
    """torch.device(type, index=None) / torch.device('type:index') / torch.device(other_device).

    A bare int means "accelerator index", which a CPU-only build refuses as torch does."""

    __slots__ = ("_type", "_index")

    def __init__(self, type, index=None):  # noqa: A002 - torch's parameter name
        if isinstance(type, device):
            if index is not None:
                raise _bad_args("torch.device, int")
            self._type, self._index = type._type, type._index
            return
        if isinstance(type, int) and not isinstance(type, bool):
            raise RuntimeError("Device index must not be negative" if type < 0 else _NO_ACCELERATOR)
        if not isinstance(type, str):
            raise _bad_args(_typename(type))
        name, parsed = _parse(type)
        if index is not None:
            if not isinstance(index, int) or isinstance(index, bool):
                raise TypeError(f"device(): argument 'index' (position 2) must be int, not {_typename(index)}")
            if parsed is not None:
                raise RuntimeError(f"type (string) must not include an index because index was passed "
                                   f"explicitly: {type}")
            if index < 0:
                raise RuntimeError("Device index must not be negative")
            if index >= 2 ** 63:
                raise ValueError("Overflow when unpacking long long")
            parsed = index
        self._type, self._index = name, parsed

    @property
    def type(self):
        return self._type

    @property
    def index(self):
        return self._index

    def __repr__(self):
        if self._index is None:
            return f"device(type='{self._type}')"
        return f"device(type='{self._type}', index={self._index})"

    def __str__(self):
        return self._type if self._index is None else f"{self._type}:{self._index}"

    def __eq__(self, other):
        if not isinstance(other, device):
            return False
        return self._type == other._type and self._index == other._index

    def __ne__(self, other):
        return not self.__eq__(other)

    def __hash__(self):
        return hash((self._type, self._index))

    def __reduce__(self):
        return (device, (self._type,) if self._index is None else (self._type, self._index))

    def __enter__(self):
        """`with torch.device(d):` makes d the default device of factories inside the block."""
        _DEFAULT_STACK.append(_DEFAULT[0])
        _DEFAULT[0] = self
        return self

    def __exit__(self, *exc):
        _DEFAULT[0] = _DEFAULT_STACK.pop()
        return False


device.__module__ = "torch"


def _typename(obj):
    return "NoneType" if obj is None else type(obj).__name__


CPU = device("cpu")
_DEFAULT = [None]
_DEFAULT_STACK = []


def as_device(d):
    """A `device` from a str, int or device (torch accepts all three wherever `device=` is taken)."""
    return d if isinstance(d, device) else device(d)


def check_device(d, *, alloc=False):
    """Raise torch's error when `d` is not a device this CPU-only build holds tensors on.

    alloc=False is Tensor.to / Tensor.cuda / Module.to's error; alloc=True is a factory's
    (`torch.zeros(2, device=d)`), which differs for backends without kernels; alloc="empty_strided"
    names the allocating op (the *_like factories')."""
    if d is None:
        return
    t = as_device(d).type
    if t == "cpu":
        return
    if t in _NOT_COMPILED:
        raise AssertionError(_NOT_COMPILED[t])
    if t in ("hpu", "privateuseone"):
        raise ModuleNotFoundError(f"No module named 'torch.{t}'")
    if t == "meta":
        raise NotImplementedError("core has no meta tensors (torch would make a tensor without data)")
    if alloc and t in _GRANDFATHERED:
        raise RuntimeError(f'0 INTERNAL ASSERT FAILED at "/__w/pytorch/pytorch/c10/core/TensorOptions.h":663, '
                           f"please report a bug to PyTorch. This is a grandfathered Caffe2 device type {t}, it "
                           "shouldn't ever convert to a DispatchKey.  File a bug describing what you were doing if "
                           "you think this is in error.")
    if (alloc or t == "lazy") and t in _BACKEND:
        op = alloc if isinstance(alloc, str) else "empty.memory_format"
        raise NotImplementedError(f"Could not run 'aten::{op}' with arguments from the "
                                  f"'{_BACKEND[t]}' backend. This could be because the operator doesn't exist for "
                                  "this backend, or was omitted during the selective/custom build process (if using "
                                  "custom build).")
    raise RuntimeError(f"PyTorch is not linked with support for {t} devices")


def check_factory_device(d, *, alloc=True):
    """A factory's device check: an explicit `device=` or else the default device
    (`set_default_device` / `with torch.device(...)`), raising what torch raises on allocation.
    alloc=False for torch.tensor / as_tensor, whose error for kernel-less backends is Tensor.to's."""
    if d is None:
        d = _DEFAULT[0]
        if d is None:
            return
    check_device(d, alloc=alloc)


def set_default_device(d):
    """torch.set_default_device: None or a device spec; checked when read, as torch does."""
    _DEFAULT[0] = None if d is None else as_device(d)


def get_default_device():
    """torch.get_default_device: 'cpu' unless set; a CUDA default raises torch's AssertionError."""
    d = _DEFAULT[0]
    if d is None:
        return CPU
    check_device(d)
    return d
