"""torch's CPU generator, bit for bit: an mt19937 (NumPy's MT19937 holds the same state) seeded as
at::mt19937 seeds, with CPUGeneratorImpl's state layout (5056 bytes) and Box-Muller normal cache.
Also the `torch.random` module API: manual_seed, seed, initial_seed, get/set_rng_state, fork_rng."""
from __future__ import annotations

import contextlib
import os

import numpy as np

from . import dtypes as _dt
from .ops.registry import export
from .device import as_device as _as_device
from .tensor import Tensor, device as _device

_N = 624
_DEFAULT_SEED = 67280421310721          # c10::detail::default_rng_seed_val
_STATE_BYTES = 5056                     # sizeof(at::CPUGeneratorImplState)
_SHIFT32 = np.uint64(32)

# byte offsets of CPUGeneratorImplStateLegacy / StateNew (x86-64 alignment)
_OFF_SEED, _OFF_LEFT, _OFF_SEEDED, _OFF_NEXT, _OFF_STATE = 0, 8, 12, 16, 24
_OFF_NORMAL_Y, _OFF_NORMAL_VALID, _OFF_FLOAT, _OFF_FLOAT_VALID = 5024, 5040, 5048, 5052


_NO_GENERATOR = {
    "cuda": ("Cannot get CUDA generator without ATen_cuda library. PyTorch splits its backend into two shared "
             "libraries: a CPU library and a CUDA library; this error has occurred because you are trying to use "
             "some CUDA functionality, but the CUDA library has not been loaded by the dynamic linker for some "
             "reason.  The CUDA library MUST be loaded, EVEN IF you don't directly use any symbols from the CUDA "
             "library! One common culprit is a lack of -Wl,--no-as-needed in your link arguments; many dynamic "
             "linkers will delete dynamic library dependencies if you don't depend on any of their symbols.  You can "
             "check if this has occurred by using ldd on your binary to see if there is a dependency on *_cuda.so "
             "library."),
    "xla": ("Cannot get XLA generator without torch_xla library. This error has occurred because you are trying to "
            "use some XLA functionality, but the XLA library has not been loaded by the dynamic linker. You must "
            "load xla libraries by `import torch_xla`"),
    "xpu": "Cannot get XPU generator without ATen_xpu library.",
    "mps": "Cannot execute getNewGenerator() without MPS backend.",
    "mtia": "Cannot execute getNewGenerator() without MTIA backend.",
    "hip": "Backend doesn`t support getNewGenerator()",
    "hpu": "Backend doesn`t support getNewGenerator()",
    "privateuseone": "Please register PrivateUse1HooksInterface by `RegisterPrivateUse1HooksInterface` first.",
}


class Generator:
    """torch.Generator for the CPU: mt19937 words, `random()` = one 32-bit draw, `random64()` = two
    (first draw in the high half), and the cached second Box-Muller value of normal_distribution."""

    def __init__(self, device="cpu"):
        t = _as_device(device).type
        if t != "cpu":
            raise RuntimeError(_NO_GENERATOR.get(t, f"{t.upper()} device type not an accelerator."))
        self._bg = None
        self.manual_seed(_DEFAULT_SEED)

    @property
    def _bitgen(self):
        """NumPy's MT19937, made on first use: `import core` then skips numpy.random (~7 ms)."""
        bg = self._bg
        if bg is None:
            bg = self._bg = np.random.MT19937()
            bg._legacy_seeding(self._seed & 0xFFFFFFFF)    # key = init_genrand(seed), pos = 624
        return bg

    @property
    def device(self):
        return _device("cpu")

    def manual_seed(self, seed):
        """mt19937(seed): init_genrand on the low 32 bits; initial_seed() keeps all 64 bits."""
        seed = _as_seed(seed)
        self._seed = seed
        if self._bg is not None:    # otherwise seeded when first used (_bitgen)
            self._bg._legacy_seeding(seed & 0xFFFFFFFF)    # key = init_genrand(seed), pos = 624
        self._next_override = 0     # torch reports next_ = 0 until the first draw after seeding
        self._normal_double = None
        self._normal_float = None
        return self

    def seed(self):
        """Seed from the OS and return the seed (torch.Generator.seed)."""
        s = int.from_bytes(os.urandom(8), "little") & ((1 << 63) - 1)
        self.manual_seed(s)
        return s

    def initial_seed(self):
        return self._seed

    # -- raw words ---------------------------------------------------------------------------
    def words(self, n):
        """n consecutive random() draws (uint64 array holding 32-bit values)."""
        if n:
            self._next_override = None
        return self._bitgen.random_raw(int(n))

    def words64(self, n):
        """n consecutive random64() draws: (first << 32) | second."""
        w = self.words(2 * int(n))
        return (w[0::2] << _SHIFT32) | w[1::2]

    # -- state -------------------------------------------------------------------------------
    def get_state(self):
        """A uint8 tensor of 5056 bytes laid out as torch's CPUGeneratorImplStateNew."""
        st = self._bitgen.state["state"]
        pos = int(st["pos"])
        buf = np.zeros(_STATE_BYTES, dtype=np.uint8)
        _put(buf, _OFF_SEED, np.uint64(self._seed))
        _put(buf, _OFF_LEFT, np.int32(_N + 1 - pos))
        _put(buf, _OFF_SEEDED, np.int32(1))
        _put(buf, _OFF_NEXT, np.uint64(pos if self._next_override is None else self._next_override))
        buf[_OFF_STATE:_OFF_STATE + 8 * _N] = np.asarray(st["key"], dtype=np.uint64).view(np.uint8)
        if self._normal_double is not None:
            _put(buf, _OFF_NORMAL_Y, np.float64(self._normal_double))
            _put(buf, _OFF_NORMAL_VALID, np.int32(1))
        if self._normal_float is not None:
            _put(buf, _OFF_FLOAT, np.float32(self._normal_float))
            buf[_OFF_FLOAT_VALID] = 1
        return Tensor._make(buf)

    def set_state(self, new_state):
        """Restore a state from get_state (torch's 5056-byte layout; torch 2.13 refuses the legacy 5048)."""
        if not isinstance(new_state, Tensor) or new_state.dtype is not _dt.uint8:
            raise TypeError("RNG state must be a torch.ByteTensor")
        buf = np.ascontiguousarray(new_state._data).reshape(-1)
        if buf.size != _STATE_BYTES:
            raise RuntimeError(f"Expected a CPUGeneratorImplState of size {_STATE_BYTES} but found the input RNG "
                               f"state size to be {buf.size}")
        left = int(_get(buf, _OFF_LEFT, np.int32))
        nxt = int(_get(buf, _OFF_NEXT, np.uint64)) & 0xFFFFFFFF
        if not (_get(buf, _OFF_SEEDED, np.int32) and 0 < left <= _N and nxt <= _N):
            raise RuntimeError("Invalid mt19937 state")
        key = buf[_OFF_STATE:_OFF_STATE + 8 * _N].view(np.uint64).astype(np.uint32)
        self._bitgen.state = {"bit_generator": "MT19937", "state": {"key": key, "pos": _N + 1 - left}}
        self._seed = int(_get(buf, _OFF_SEED, np.uint64))
        self._next_override = nxt if nxt != _N + 1 - left else None
        valid = int(_get(buf, _OFF_NORMAL_VALID, np.int32))
        self._normal_double = float(_get(buf, _OFF_NORMAL_Y, np.float64)) if valid else None
        self._normal_float = float(_get(buf, _OFF_FLOAT, np.float32)) if buf[_OFF_FLOAT_VALID] else None
        return self

    def __repr__(self):
        return f"<torch._C.Generator object at {id(self):#x}>"


Generator.__module__ = "torch._C"     # type(g) prints <class 'torch._C.Generator'>, as torch's


def _put(buf, off, value):
    b = np.asarray(value).tobytes()
    buf[off:off + len(b)] = np.frombuffer(b, dtype=np.uint8)


def _get(buf, off, npdt):
    return buf[off:off + np.dtype(npdt).itemsize].view(npdt)[0]


def _as_seed(seed):
    """torch's seed parsing: any int in [-2**63, 2**64); negatives wrap to uint64."""
    if isinstance(seed, Tensor):
        seed = seed.item()
    seed = int(seed)
    if not -(1 << 63) <= seed < 1 << 64:
        raise ValueError("Overflow when unpacking long long")
    return seed & ((1 << 64) - 1)


default_generator = Generator()


def gen_or_default(generator):
    """The generator to draw from (torch's get_generator_or_default)."""
    if generator is None:
        return default_generator
    if not isinstance(generator, Generator):
        raise TypeError(f"expected a torch.Generator, got {type(generator).__name__}")
    return generator


# -- torch.random module API ----------------------------------------------------------------------

@export
def manual_seed(seed):
    """Seed the default generator; returns it (torch.manual_seed)."""
    return default_generator.manual_seed(seed)


@export
def seed():
    return default_generator.seed()


@export
def initial_seed():
    return default_generator.initial_seed()


@export
def get_rng_state():
    return default_generator.get_state()


@export
def set_rng_state(new_state):
    default_generator.set_state(new_state)


@contextlib.contextmanager
def fork_rng(devices=None, enabled=True, _caller="fork_rng", _devices_kw="devices", device_type="cuda"):
    """Restore the default generator's state on exit (CPU only, like torch without CUDA)."""
    if not enabled:
        yield
        return
    state = default_generator.get_state()
    try:
        yield
    finally:
        default_generator.set_state(state)
