"""Questions a program asks of a tensor or of torch's global state, answered as CPU PyTorch answers them:
Tensor.is_cpu / get_device / is_signed / is_nonzero / is_same_size / is_pinned / is_shared / dim_order,
torch.is_signed / is_complex / is_conj / is_neg / is_inference / is_same_size / is_nonzero / detach, the
flags torch keeps (deterministic algorithms, warn-always, anomaly mode), typename,
init_num_threads, and Tensor.register_post_accumulate_grad_hook."""
from __future__ import annotations

from collections import OrderedDict

from .. import _warn
from ..autograd.anomaly_mode import is_anomaly_check_nan_enabled, is_anomaly_enabled
from ..autograd.node import RemovableHandle
from ..tensor import Tensor
from .registry import export, method

# -- Tensor predicates -------------------------------------------------------------------------------


@property
def is_cpu(self):
    """Tensor.is_cpu: always True (core is CPU only)."""
    return True


method("is_cpu", is_cpu)


@method("get_device")
def get_device(self):
    """Tensor.get_device(): -1 for a CPU tensor."""
    return -1


@method("is_pinned")
def is_pinned(self, device=None):
    """Tensor.is_pinned(): False (no pinned host memory on a CPU-only build)."""
    return False


@method("is_shared")
def is_shared(self):
    """Tensor.is_shared(): False (a NumPy buffer is never in shared memory)."""
    return False


@method("is_signed")
def is_signed(input):
    """True for floating and signed integer dtypes, False for uint8 and bool (torch.is_signed)."""
    return input.dtype.is_signed


@method("is_nonzero")
def is_nonzero(input):
    """bool of a one-element tensor; RuntimeError for zero or several elements (torch.is_nonzero)."""
    n = input._data.size
    if n == 0:
        raise RuntimeError("Boolean value of Tensor with no values is ambiguous")
    if n > 1:
        raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous")
    return bool(input._data.reshape(()))


@method("is_same_size")
def is_same_size(input, other):
    """Whether both tensors have the same shape (torch.is_same_size)."""
    return input._data.shape == other._data.shape


def _channels_last(t):
    """Tensor.is_contiguous(memory_format=torch.channels_last): NHWC strides (size-1 dims skipped)."""
    if t.ndim != 4:
        return False
    expected, sizes, strides = 1, t.shape, t.stride()
    for d in (1, 3, 2, 0):
        if sizes[d] != 1:
            if strides[d] != expected:
                return False
            expected *= sizes[d]
    return True


def _should_swap(shape, strides, a, b):
    """torch._prims_common's comparison of two dims for the logical-to-physical order."""
    sa, sb = strides[a], strides[b]
    if sa == 0 or sb == 0:
        return 0
    if sa == sb:
        return 0 if (shape[a] == 0 or shape[b] >= shape[a]) else 1
    return -1 if sb > sa else 1


def _physical_order(t, check):
    """compute_elementwise_output_logical_to_physical_perm for one tensor (an insertion sort), and
    whether `check` finds two neighbouring dims the comparison cannot order."""
    nd = t.ndim
    if nd <= 1:
        return list(range(nd)), False
    contiguous, cl = t.is_contiguous(), _channels_last(t)
    if contiguous and not cl:
        return list(range(nd)), False
    if cl and not contiguous:
        return [0, *range(2, nd), 1], False
    shape, strides = t.shape, t.stride()
    perm = list(reversed(range(nd)))
    for i in range(1, nd):
        d1 = i
        for d0 in reversed(range(i)):
            c = _should_swap(shape, strides, perm[d0], perm[d1])
            if c > 0:
                perm[d0], perm[d1] = perm[d1], perm[d0]
                d1 = d0
            elif c < 0:
                break
    ambiguous = bool(check) and any(_should_swap(shape, strides, perm[i], perm[i + 1]) != -1
                                    for i in range(nd - 1))
    return list(reversed(perm)), ambiguous


@method("dim_order")
def dim_order(self, *, ambiguity_check=False):
    """Tensor.dim_order(): dims from outermost to innermost in memory; with ambiguity_check, torch's
    RuntimeError when equal strides or size-1 dims make the order ambiguous."""
    if not isinstance(ambiguity_check, (bool, list)):
        raise TypeError("The ambiguity_check argument must be a bool or a list of memory formats.")
    formats = ambiguity_check if isinstance(ambiguity_check, list) else []
    if ambiguity_check is not False:
        strides = self.stride()
        multiple = any(a == b for a, b in zip(strides, strides[1:])) or any(s == 1 for s in self.shape)
        legal = sum(1 for f in formats if (_channels_last(self) if "channels_last" in str(f) else self.is_contiguous()))
        if multiple and legal != 1:
            raise RuntimeError("The tensor does not have unique dim order, or cannot map to exact one of the "
                               "given memory formats.")
    perm, ambiguous = _physical_order(self, ambiguity_check)
    if ambiguous:
        raise RuntimeError("The tensor does not have unique dim order.")
    return tuple(perm)


@method("register_post_accumulate_grad_hook")
def register_post_accumulate_grad_hook(self, hook):
    """Call hook(tensor) after backward has accumulated this leaf's .grad (the engine runs
    `_post_accumulate_grad_hooks`); RuntimeError on tensors without grad or non-leaves, as torch."""
    if not self._requires_grad:
        raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
    if self.grad_fn is not None:
        raise RuntimeError("post accumulate grad hooks cannot be registered on non-leaf tensors")
    hooks = self.__dict__.get("_post_accumulate_grad_hooks")
    if hooks is None:
        hooks = self.__dict__["_post_accumulate_grad_hooks"] = OrderedDict()
    handle = RemovableHandle(hooks)
    hooks[handle.id] = hook
    return handle


# -- torch.* predicates ------------------------------------------------------------------------------

export(is_signed)
export(is_nonzero)
export(is_same_size)


@export
def is_complex(input):
    """torch.is_complex: False (core has no complex dtypes)."""
    return input.is_complex()


@export
def is_conj(input):
    """torch.is_conj: False for real tensors."""
    return False


@export
def is_neg(input):
    """torch.is_neg: False for real tensors."""
    return False


@export
def is_inference(input):
    """torch.is_inference: whether the tensor was created in inference mode."""
    return input.is_inference()


@export
def detach(input):
    """torch.detach: Tensor.detach as a function."""
    return input.detach()


# -- global flags --------------------------------------------------------------------------------------

_FLAGS = {"deterministic": False, "deterministic_warn_only": False}


@export
def use_deterministic_algorithms(mode, *, warn_only=False):
    """torch.use_deterministic_algorithms: records the flags (every core kernel is deterministic)."""
    if not isinstance(mode, bool):
        raise TypeError(f"use_deterministic_algorithms(): argument 'mode' (position 1) must be bool, not "
                        f"{type(mode).__name__}")
    _FLAGS["deterministic"], _FLAGS["deterministic_warn_only"] = mode, bool(warn_only)


@export
def are_deterministic_algorithms_enabled():
    return _FLAGS["deterministic"]


@export
def is_deterministic_algorithms_warn_only_enabled():
    return _FLAGS["deterministic_warn_only"]


@export
def set_warn_always(b):
    """torch.set_warn_always: warn-once warnings (TORCH_WARN_ONCE) warn on every call while set."""
    _warn.set_warn_always(b)


@export
def is_warn_always_enabled():
    return _warn.FLAGS["warn_always"]


export(is_anomaly_enabled)                  # torch.is_anomaly_enabled / is_anomaly_check_nan_enabled:
export(is_anomaly_check_nan_enabled)        # the switches of core/autograd/anomaly_mode.py


@export
def init_num_threads():
    """torch.init_num_threads: nothing to initialise."""
    return None


@export
def typename(obj):
    """torch.typename: 'torch.FloatTensor' for a tensor, else the object's module-qualified name
    (core's modules spelled as torch's)."""
    if isinstance(obj, Tensor):
        return obj.type()
    module = getattr(obj, "__module__", "") or ""
    if hasattr(obj, "__qualname__"):
        qualname = obj.__qualname__
    elif hasattr(obj, "__name__"):
        qualname = obj.__name__
    else:
        module = obj.__class__.__module__ or ""
        qualname = obj.__class__.__qualname__
    if module == "core" or module.startswith("core."):
        module = "torch" + module[4:]
    if module in {"", "builtins"}:
        return qualname
    return f"{module}.{qualname}"
