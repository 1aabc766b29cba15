"""torch.save / torch.load in torch's own file format (torch/serialization.py): a zip archive holding
`data.pkl` (pickle protocol 2, tensors as `torch._utils._rebuild_tensor_v2(storage, offset, size, stride,
requires_grad, OrderedDict())` with each storage a persistent id `('storage', torch.FloatStorage, key,
'cpu', numel)`), the raw little-endian storages `data/<key>` aligned to 64 bytes, `byteorder`, `version`
and the format records. Files written here load in torch and files torch writes load here.

`load` defaults to weights_only=True as torch 2.6+ does: only tensors, parameters, containers, numbers,
strings, dtypes, Size and device are rebuilt, anything else raises torch's UnpicklingError.
weights_only=False unpickles everything (arbitrary code, as torch warns), reading torch.* globals as
their core.* counterparts."""
from __future__ import annotations

import builtins
import collections
import io
import os
import pickle
import random
import struct
import zipfile

import numpy as np

from . import dtypes as _dt
from .device import device as _device
from .tensor import Size, Tensor

_STORAGES = {"float32": "FloatStorage", "float64": "DoubleStorage", "float16": "HalfStorage",
             "int64": "LongStorage", "int32": "IntStorage", "int16": "ShortStorage", "int8": "CharStorage",
             "uint8": "ByteStorage", "bool": "BoolStorage"}
_STORAGE_DTYPES = {v: k for k, v in _STORAGES.items()}
_ALIGN = 64


class _Global:
    """A torch global written by name (GLOBAL 'module name'), whatever is installed."""

    def __init__(self, module, name):
        self.module, self.name = module, name

    def __call__(self, *args):   # pickle's save_reduce wants a callable; only its name is ever written
        raise TypeError(f"{self.module}.{self.name} is a name written into torch files, not a function")


_REBUILD_TENSOR = _Global("torch._utils", "_rebuild_tensor_v2")
_REBUILD_PARAMETER = _Global("torch._utils", "_rebuild_parameter")
_SIZE = _Global("torch", "Size")
_DEVICE = _Global("torch", "device")
_ORDERED_DICT = collections.OrderedDict


class _StorageRef:
    def __init__(self, key, array):
        self.key, self.array = key, array


def _root(a):
    """The array that owns a's memory, when a is a plain strided view of it (same dtype, C-contiguous root)."""
    r = a
    while isinstance(r.base, np.ndarray):
        r = r.base
    if r.dtype != a.dtype or not r.flags.c_contiguous or isinstance(r, np.memmap):
        return None
    return r


def _layout(a, root):
    """(offset, stride) in elements of a inside root, or None when they are not whole elements."""
    size = a.dtype.itemsize
    off = a.__array_interface__["data"][0] - root.__array_interface__["data"][0]
    if off % size or off < 0 or any(s % size or s < 0 for s in a.strides):
        return None
    return off // size, tuple(s // size for s in a.strides)


class _Saver(pickle._Pickler):
    """Pickler writing torch's records: tensors by _rebuild_tensor_v2 over storages (persistent ids)."""

    dispatch = pickle._Pickler.dispatch.copy()

    def __init__(self, file):
        super().__init__(file, protocol=2)
        self.storages = {}      # id(root array) -> _StorageRef, in first-use order

    def _storage(self, a):
        if a.size == 0:   # torch keeps an empty tensor's contiguous strides
            ref = _StorageRef(str(len(self.storages)), np.zeros(0, a.dtype))
            self.storages[("empty", id(ref))] = ref
            return ref, (0, tuple(int(np.prod([max(d, 1) for d in a.shape[i + 1:]])) for i in range(a.ndim)))
        root = _root(a)
        layout = _layout(a, root) if root is not None else None
        if layout is None:      # not a view torch could share: its own contiguous storage
            root = np.ascontiguousarray(a)
            layout = (0, tuple(s // a.dtype.itemsize for s in root.strides))
            ref = _StorageRef(str(len(self.storages)), root)
            self.storages[("copy", id(ref))] = ref
            return ref, layout
        ref = self.storages.get(id(root))
        if ref is None:
            ref = self.storages[id(root)] = _StorageRef(str(len(self.storages)), root)
        return ref, layout

    def persistent_id(self, obj):
        if isinstance(obj, _StorageRef):
            name = _STORAGES[str(obj.array.dtype)]
            return ("storage", _Global("torch", name), obj.key, "cpu", obj.array.size)
        return None

    def reducer_override(self, obj):
        if isinstance(obj, Tensor):
            from .nn.parameter import Parameter   # core.nn imports this module's package: only when saving one
            if isinstance(obj, Parameter):
                plain = Tensor._make(obj._data)
                return _REBUILD_PARAMETER, (plain, obj.requires_grad, _ORDERED_DICT())
            a = obj._data
            ref, (offset, stride) = self._storage(a)
            return _REBUILD_TENSOR, (ref, offset, tuple(a.shape), stride, obj.requires_grad, _ORDERED_DICT())
        if isinstance(obj, Size):
            return _SIZE, (tuple(obj),)
        if isinstance(obj, _device):
            return _DEVICE, obj.__reduce__()[1]
        return NotImplemented

    def _save_global(self, obj):
        self.write(pickle.GLOBAL + f"{obj.module}\n{obj.name}\n".encode())
        self.memoize(obj)

    def _save_dtype(self, obj):
        self.write(pickle.GLOBAL + f"torch\n{obj.name}\n".encode())
        self.memoize(obj)

    dispatch[_Global] = _save_global
    dispatch[_dt.dtype] = _save_dtype


def _aligned_extra(fp_pos, name):
    """A local-header extra field (id 'FB', as torch's writer) that puts the entry's data on a 64-byte boundary."""
    start = fp_pos + 30 + len(name.encode()) + 4
    pad = (-start) % _ALIGN
    return b"FB" + struct.pack("<H", pad) + b"Z" * pad


def _write_zip(f, prefix, pickled, storages):
    with zipfile.ZipFile(f, "w", zipfile.ZIP_STORED) as z:
        def put(name, data):
            info = zipfile.ZipInfo(f"{prefix}/{name}", date_time=(1980, 1, 1, 0, 0, 0))
            info.extra = _aligned_extra(z.fp.tell(), info.filename)
            z.writestr(info, data)
        put("data.pkl", pickled)
        put(".format_version", b"1")
        put(".storage_alignment", b"64")
        put("byteorder", b"little")
        for ref in storages:
            put(f"data/{ref.key}", ref.array.astype(ref.array.dtype.newbyteorder("<"), copy=False).tobytes())
        put("version", b"3\n")
        put(".data/serialization_id", "".join(random.choice("0123456789") for _ in range(40)).encode())


def save(obj, f, pickle_module=pickle, pickle_protocol=2, _use_new_zipfile_serialization=True,
         _disable_byteorder_record=False):
    """torch.save(obj, f): obj pickled in torch's zip format to a path or a writable binary file."""
    buf = io.BytesIO()
    saver = _Saver(buf)
    saver.dump(obj)
    if isinstance(f, (str, os.PathLike)):
        prefix = os.path.splitext(os.path.basename(os.fspath(f)))[0] or "archive"
        with open(f, "wb") as fh:
            _write_zip(fh, prefix, buf.getvalue(), saver.storages.values())
    else:
        _write_zip(f, "archive", buf.getvalue(), saver.storages.values())


# -- loading -------------------------------------------------------------------------------------

def _rebuild_tensor_v2(storage, storage_offset, size, stride, requires_grad, backward_hooks, metadata=None):
    item = storage.dtype.itemsize
    a = np.lib.stride_tricks.as_strided(storage[storage_offset:], shape=tuple(size),
                                        strides=tuple(s * item for s in stride)) if storage.size else \
        np.zeros(tuple(size), storage.dtype)
    t = Tensor._make(a)
    if requires_grad:
        t.requires_grad_(True)
    return t


def _rebuild_parameter(data, requires_grad, backward_hooks, *extra):
    from .nn.parameter import Parameter   # core.nn imports this module's package: only when loading one
    return Parameter(data, requires_grad)


def _unsupported(module, name):
    return pickle.UnpicklingError(
        "Weights only load failed. This file can still be loaded, to do so you have two options, \x1b[1mdo those "
        "steps only if you trust the source of the checkpoint\x1b[0m. \n\t(1) In PyTorch 2.6, we changed the default "
        "value of the `weights_only` argument in `torch.load` from `False` to `True`. Re-running `torch.load` with "
        "`weights_only` set to `False` will likely succeed, but it can result in arbitrary code execution. Do it only "
        "if you got the file from a trusted source.\n\t(2) Alternatively, to load with `weights_only=True` please "
        "check the recommended steps in the following error message.\n\tWeightsUnpickler error: Unsupported global: "
        f"GLOBAL {module}.{name} was not an allowed global by default. Please use "
        f"`torch.serialization.add_safe_globals([{module}.{name}])` or the "
        f"`torch.serialization.safe_globals([{module}.{name}])` context manager to allowlist this global if you "
        "trust this class/function.\n\nCheck the documentation of torch.load to learn more about types accepted by "
        "default with weights_only https://pytorch.org/docs/stable/generated/torch.load.html.")


def _safe_global(module, name):
    """What weights_only=True rebuilds (a subset of torch's _weights_only_unpickler allowlist), else None."""
    if module == "collections" and name == "OrderedDict":
        return collections.OrderedDict
    if module == "torch._utils":
        return {"_rebuild_tensor_v2": _rebuild_tensor_v2, "_rebuild_parameter": _rebuild_parameter}.get(name)
    if module == "torch":
        if name in _STORAGE_DTYPES:
            return _STORAGE_DTYPES[name]
        if name == "Size":
            return Size
        if name == "device":
            return _device
        d = getattr(_dt, name, None) if name in _dt.__dict__ else None
        return d if isinstance(d, _dt.dtype) else None
    if module == "builtins" and name in ("set", "frozenset", "bytearray", "complex", "slice"):
        return getattr(builtins, name)
    return None


_PY2_MODULES = {"__builtin__": "builtins", "copy_reg": "copyreg"}   # protocol 2 writes Python 2's names


_USER_SAFE: dict = {}   # (module, qualified name) -> object, from add_safe_globals / safe_globals


def add_safe_globals(safe_globals):
    """Allow these classes/functions in weights_only loads (torch.serialization.add_safe_globals)."""
    for obj in safe_globals:
        obj, name = obj if isinstance(obj, tuple) else (obj, None)
        module, _, qual = name.rpartition(".") if name else (obj.__module__, None, obj.__qualname__)
        _USER_SAFE[(module, qual)] = obj


def get_safe_globals():
    return list(_USER_SAFE.values())


def clear_safe_globals():
    _USER_SAFE.clear()


class safe_globals:
    """Context manager: add_safe_globals for the duration of the block."""

    def __init__(self, safe_globals):
        self.safe_globals = safe_globals

    def __enter__(self):
        self.saved = dict(_USER_SAFE)
        add_safe_globals(self.safe_globals)

    def __exit__(self, *exc):
        _USER_SAFE.clear()
        _USER_SAFE.update(self.saved)


class _Loader(pickle.Unpickler):
    def __init__(self, file, archive, prefix, weights_only):
        super().__init__(file)
        self.archive, self.prefix, self.weights_only, self.cache = archive, prefix, weights_only, {}

    def find_class(self, module, name):
        found = _safe_global(_PY2_MODULES.get(module, module), name) or _USER_SAFE.get((module, name))
        if found is not None:
            return found
        if self.weights_only:
            raise _unsupported(module, name)
        if module == "torch" or module.startswith("torch."):   # torch's classes are core's under the same path
            module = "core" + module[len("torch"):]
        return super().find_class(module, name)

    def persistent_load(self, pid):
        kind, dtype_name, key, location, numel = pid
        if str(location).startswith("cuda"):
            raise RuntimeError("Attempting to deserialize object on a CUDA device but torch.cuda.is_available() is "
                               "False. If you are running on a CPU-only machine, please use torch.load with "
                               "map_location=torch.device('cpu') to map your storages to the CPU.")
        if key not in self.cache:
            npdt = np.dtype(np.bool_ if dtype_name == "bool" else dtype_name).newbyteorder("<")
            raw = self.archive.read(f"{self.prefix}/data/{key}")
            self.cache[key] = np.frombuffer(raw, dtype=npdt).astype(npdt.newbyteorder("="), copy=True)
        return self.cache[key]


def _check_map_location(map_location):
    loc = map_location
    if isinstance(loc, _device):
        loc = str(loc)
    if isinstance(loc, str) and loc.startswith("cuda"):
        raise RuntimeError("Attempting to deserialize object on a CUDA device but torch.cuda.is_available() is "
                           "False. If you are running on a CPU-only machine, please use torch.load with "
                           "map_location=torch.device('cpu') to map your storages to the CPU.")


def load(f, map_location=None, pickle_module=None, *, weights_only=None, mmap=None, **pickle_load_args):
    """torch.load(f): the object torch.save wrote to a path or a readable binary file (weights_only=True by
    default: tensors, containers and plain values only)."""
    _check_map_location(map_location)
    weights_only = True if weights_only is None else bool(weights_only)
    opened = isinstance(f, (str, os.PathLike))
    fh = open(f, "rb") if opened else f
    try:
        with zipfile.ZipFile(fh) as archive:
            names = archive.namelist()
            pkl = next(n for n in names if n.endswith("/data.pkl") or n == "data.pkl")
            prefix = pkl[:-len("/data.pkl")] if "/" in pkl else ""
            loader = _Loader(io.BytesIO(archive.read(pkl)), archive, prefix, weights_only)
            return loader.load()
    finally:
        if opened:
            fh.close()
