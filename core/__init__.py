"""core: a NumPy tensor package with PyTorch's names and semantics (`import core as torch`)."""
from __future__ import annotations

import builtins as _builtins
import importlib as _importlib
import os as _os
import sys as _sys
import warnings as _warnings

import numpy as _np

# NumPy's floating-point warnings from core's own kernels ("overflow encountered in multiply"): ATen computes
# the same inf/nan in silence. A filter costs nothing per op, where np.errstate would cost ~0.7 us.
_warnings.filterwarnings("ignore", r"(overflow|invalid value|divide by zero|underflow) encountered",
                         RuntimeWarning, r"core(\.|$)")

from . import _cpu  # noqa: F401  (tiny; an op module may import it, so dir(torch) is the same either way)
from . import _vec_math  # noqa: F401  (constants only; softmax imports it, so dir(torch) is the same either way)
from . import dtypes as _dtypes
from .dtypes import (bool_ as bool, can_cast, dtype, float16, float32, float64, get_default_dtype, int8, int16,
                     int32, int64, promote_types, set_default_dtype, uint8)
from .tensor import Size, Tensor, device
from ._memory_format import (channels_last, channels_last_3d, contiguous_format, layout, memory_format,
                            preserve_format, sparse_coo, strided)
from .device import get_default_device, set_default_device
from .autograd.grad_mode import (enable_grad, inference_mode, is_grad_enabled, is_inference_mode_enabled,
                                 no_grad, set_grad_enabled)
from . import autograd
from .autograd.anomaly_mode import is_anomaly_check_nan_enabled, is_anomaly_enabled, set_anomaly_enabled
from . import creation as _creation
from .ops import families as _families  # noqa: F401
from .creation import Generator, default_generator
from .amp.autocast_mode import bfloat16  # a stand-in: autocast's dtype name; tensors of it raise TypeError
from .amp.autocast_mode import (autocast, clear_autocast_cache, get_autocast_cpu_dtype, get_autocast_dtype,
                                is_autocast_cpu_enabled, is_autocast_enabled, set_autocast_dtype, set_autocast_enabled)
from . import return_types
from ._tensor_str import get_printoptions, printoptions, set_printoptions
from .type_info import finfo, iinfo
from ._settings import (compiled_with_cxx11_abi, get_float32_matmul_precision, get_num_interop_threads, has_lapack,
                        has_mkl, has_openmp, has_spectral, set_default_tensor_type, set_float32_matmul_precision,
                        set_flush_denormal, set_num_interop_threads)
from .ops.registry import FUNCTIONS as _FUNCTIONS, LAZY as _LAZY, OPS as _OPS, load_family as _load_family
from ._bind import bind as _bind_tensor

_bind_tensor()

__version__ = "2.13.0+core"

pi = _np.pi      # torch.pi, torch.e, torch.inf, torch.nan: plain Python floats, as torch's
e = _np.e
inf = _builtins.float("inf")
nan = _builtins.float("nan")

float = float32
double = float64
half = float16
long = int64
int = int32
short = int16

globals().update({k: v for k, v in _FUNCTIONS.items() if k not in _LAZY})  # lazy ones: __getattr__


def result_type(tensor1, tensor2):
    """torch.result_type of two tensors/numbers."""
    return _dtypes.result_type(tensor1, tensor2)


def is_tensor(obj):
    return isinstance(obj, Tensor)


def is_floating_point(input):
    return input.is_floating_point()


def numel(input):
    return input.numel()


def broadcast_shapes(*shapes):
    try:
        return Size(_np.broadcast_shapes(*[tuple(s) if not isinstance(s, _builtins.int) else (s,) for s in shapes]))
    except ValueError:
        raise RuntimeError(f"Shape mismatch: objects cannot be broadcast to a single shape.  Mismatch is between "
                           f"{list(shapes[0])} and {list(shapes[1])}.") from None


def broadcast_tensors(*tensors):
    """ATen's expand_outplace: a tensor already of the broadcast shape comes back as itself (a leaf stays a
    leaf), the others as expanded views."""
    shape = broadcast_shapes(*[t.shape for t in tensors])
    return tuple(t if t.shape == shape else t.expand(shape) for t in tensors)


_NUM_THREADS = [len(_os.sched_getaffinity(0)) if hasattr(_os, "sched_getaffinity") else (_os.cpu_count() or 1)]


def set_num_threads(n):
    """torch.set_num_threads: recorded (core's kernels are NumPy's); torch's check on the value."""
    if not isinstance(n, _builtins.int) or n <= 0:
        raise RuntimeError("set_num_threads expects a positive integer")
    _NUM_THREADS[0] = n


def get_num_threads():
    """torch.get_num_threads: the cores this process may use, until set_num_threads."""
    return _NUM_THREADS[0]


# torch's submodules core does not model, importable all the same (core/_unmodelled.py: placeholders that
# raise NotImplementedError when used), imported on first access as torch imports them with `import torch`
_UNMODELLED = ("onnx", "hub", "distributed", "fx", "export", "overrides", "package", "quantization", "ao",
               "library", "compiler", "xpu", "mps", "mtia", "nested", "monitor", "futures", "sparse", "quasirandom",
               "storage", "types", "fft", "multiprocessing")


# torch's deprecated build flags: a UserWarning naming the replacement, then its value
_DEPRECATED_FLAGS = {"has_mps": ("backends.mps", "is_built"), "has_cuda": ("backends.cuda", "is_built"),
                     "has_cudnn": ("backends.cudnn", "is_available"), "has_mkldnn": ("backends.mkldnn", "is_available")}


def __getattr__(name):
    if name in _DEPRECATED_FLAGS:
        where, fn = _DEPRECATED_FLAGS[name]
        _warnings.warn(f"'{name}' is deprecated, please use 'torch.{where}.{fn}()'", stacklevel=2)
        return getattr(_importlib.import_module(f"{__name__}.{where}"), fn)()
    if name == "compile":   # torch.compile (core/_compile.py): imports nn, so on first use
        from ._compile import compile
        globals()["compile"] = compile
        return compile
    if name == "vmap":      # torch.vmap is torch.func.vmap
        globals()["vmap"] = _importlib.import_module(f"{__name__}.func").vmap
        return globals()["vmap"]
    if name in ("save", "load"):    # torch.save / torch.load (core/serialization.py): imported on first use
        from . import serialization
        globals().update(save=serialization.save, load=serialization.load)
        return globals()[name]
    if name in ("nn", "memory", "optim", "cuda", "backends", "accelerator", "utils", "distributions", "profiler",
                "functional", "linalg", "special", "signal", "masked", "serialization", "testing", "jit",
                "func", "amp", "cpu") or name in _UNMODELLED:
        mod = _importlib.import_module(f"{__name__}.{name}")
        globals()[name] = mod
        return mod
    if name in _LAZY and name in _FUNCTIONS:   # a function of a lazy op family: import it now
        _load_family(_LAZY[name])
        value = _FUNCTIONS[name]
        if not hasattr(value, "lazy_family"):
            globals()[name] = value
            return value
    raise AttributeError(f"module 'core' has no attribute '{name}'")


def __dir__():
    return sorted(set(globals()) | {n for n in _LAZY if n in _FUNCTIONS})


__all__ = sorted(set(_FUNCTIONS) | {
    "Tensor", "Size", "dtype", "device", "bool", "float16", "float32", "float64", "int8", "int16", "int32",
    "int64", "uint8", "float", "double", "half", "long", "int", "short", "get_default_dtype",
    "set_default_dtype", "promote_types", "can_cast", "result_type", "is_tensor", "is_floating_point",
    "is_nonzero", "numel", "broadcast_shapes", "broadcast_tensors", "no_grad", "enable_grad",
    "set_grad_enabled", "inference_mode", "is_grad_enabled", "is_inference_mode_enabled", "autograd", "nn",
    "set_printoptions", "get_printoptions", "Generator", "return_types", "set_num_threads", "get_num_threads",
    "memory_format", "layout", "autocast", "is_autocast_enabled", "get_autocast_dtype", "set_autocast_enabled", "set_autocast_dtype",
    "set_float32_matmul_precision", "get_float32_matmul_precision", "set_num_interop_threads",
    "get_num_interop_threads", "set_default_tensor_type", "set_flush_denormal", "compile", "vmap",
})


# torch's submodules that core also has (tests/core/test_programs.py checks each one against torch)
_TORCH_SUBMODULES = (
    "accelerator", "autograd", "autograd.anomaly_mode", "autograd.function", "autograd.functional",
    "autograd.gradcheck", "autograd.grad_mode", "autograd.graph", "autograd.profiler", "backends", "backends.cpu",
    "backends.cuda", "backends.cudnn", "backends.mha", "backends.mkldnn", "backends.mps", "backends.openmp", "cuda",
    "distributions", "distributions.bernoulli", "distributions.categorical", "distributions.constraints",
    "distributions.dirichlet", "distributions.distribution", "distributions.exponential", "distributions.kl",
    "distributions.multivariate_normal", "distributions.normal", "distributions.uniform", "distributions.utils",
    "distributions.beta", "distributions.binomial", "distributions.cauchy", "distributions.chi2",
    "distributions.constraint_registry", "distributions.continuous_bernoulli", "distributions.exp_family",
    "distributions.fishersnedecor", "distributions.gamma", "distributions.generalized_pareto",
    "distributions.geometric", "distributions.gumbel", "distributions.half_cauchy", "distributions.half_normal",
    "distributions.independent", "distributions.inverse_gamma", "distributions.kumaraswamy",
    "distributions.laplace", "distributions.lkj_cholesky", "distributions.log_normal",
    "distributions.logistic_normal", "distributions.lowrank_multivariate_normal",
    "distributions.mixture_same_family", "distributions.multinomial", "distributions.negative_binomial",
    "distributions.one_hot_categorical", "distributions.pareto", "distributions.poisson",
    "distributions.relaxed_bernoulli", "distributions.relaxed_categorical", "distributions.studentT",
    "distributions.transformed_distribution", "distributions.transforms", "distributions.von_mises",
    "distributions.weibull", "distributions.wishart",
    "functional", "nn", "nn.functional", "nn.init", "nn.modules", "nn.modules.activation", "nn.modules.batchnorm",
    "nn.modules.conv", "nn.modules.dropout", "nn.modules.flatten", "nn.modules.fold", "nn.modules.instancenorm",
    "nn.modules.lazy", "nn.modules.linear", "nn.modules.loss", "nn.modules.normalization", "nn.modules.pooling",
    "nn.modules.rnn", "nn.modules.sparse", "nn.modules.transformer", "nn.modules.utils", "nn.parameter", "nn.utils",
    "nn.utils.clip_grad", "nn.utils.convert_parameters", "nn.utils.rnn", "optim", "optim.adadelta", "optim.adagrad",
    "nn.utils.parametrize", "nn.utils.parametrizations", "nn.utils.stateless", "nn.utils.weight_norm",
    "nn.utils.spectral_norm", "nn.utils.fusion", "nn.utils.init", "nn.parallel", "nn.parallel.data_parallel",
    "nn.modules.adaptive",
    "optim.adam", "optim.adamax", "optim.asgd", "optim.lbfgs", "optim.lr_scheduler", "optim.nadam",
    "optim.optimizer", "optim.radam", "optim.rmsprop", "optim.rprop", "optim.sgd", "optim.sparse_adam",
    "optim.swa_utils", "profiler", "random", "return_types", "utils", "utils.data",
    "utils.data.dataloader", "utils.data.dataset", "utils.data.sampler", "utils.checkpoint", "linalg", "special",
    "serialization", "amp", "amp.autocast_mode", "amp.grad_scaler", "cpu", "cpu.amp", "func", "jit", "testing",
    *_UNMODELLED, "ao.quantization", "distributed.elastic", "utils.data.distributed", "utils.model_zoo",
    "utils.cpp_extension", "nn.utils.prune", "nn.attention", "autograd.forward_ad")
# torch's module name -> core's, where they differ
_TORCH_RENAMED = {"nn.modules.module": "nn.module", "nn.modules.container": "nn.container"}


def alias_as_torch():
    """Register core under the module names `torch`, `torch.nn`, ... so unchanged PyTorch
    snippets (`from torch.autograd import Function`) run on core. For scripts and tests only."""
    _sys.modules["torch"] = _sys.modules[__name__]
    pairs = [(sub, sub) for sub in _TORCH_SUBMODULES] + list(_TORCH_RENAMED.items())
    for sub, ours in pairs:
        _sys.modules["torch." + sub] = _importlib.import_module(f"{__name__}.{ours}")
