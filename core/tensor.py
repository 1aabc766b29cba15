"""`Tensor`: a NumPy array plus PyTorch's autograd metadata (requires_grad, grad,
grad_fn, version counter, view base). Imports only dtypes and the grad mode: every method that needs
a module above this one (ops, autograd entry points, factories, printing) is defined with its owner,
recorded in `core/_methods.py` and attached by `core/_bind.py`."""
from __future__ import annotations

import weakref

import numpy as np

from . import _copy
from . import dtypes as _dt
from . import _memory_format as _mf
from ._warn import warn_aten
from ._grad_mode import STATE
from ._tensor_str import format_tensor
from .device import CPU as _CPU, device  # noqa: F401  (core.device)

_FROM_NP = _dt._FROM_NP


class Size(tuple):
    """torch.Size: a tuple that prints as ``torch.Size([2, 3])``."""

    __module__ = "torch"

    def __repr__(self):
        return f"torch.Size([{', '.join(map(str, self))}])"

    __str__ = __repr__

    def numel(self):
        n = 1
        for s in self:
            n *= s
        return n

    def __getitem__(self, i):
        r = tuple.__getitem__(self, i)
        return Size(r) if isinstance(i, slice) else r

    def __add__(self, other):
        return Size(tuple(self) + tuple(other))


NON_LEAF_GRAD_WARNING = (
    "The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. Its .grad attribute "
    "won't be populated during autograd.backward(). If you indeed want the .grad field to be populated "
    "for a non-leaf Tensor, use .retain_grad() on the non-leaf Tensor. If you access the non-leaf Tensor "
    "by mistake, make sure you access the leaf Tensor instead. See github.com/pytorch/pytorch/pull/30531 "
    "for more information.")


class Tensor:
    """torch.Tensor over a NumPy array. `Tensor(data)` / `Tensor(*sizes)` is the legacy
    float32 constructor (torch.Tensor); use `core.tensor` for dtype inference."""

    __slots__ = ("_data", "_requires_grad", "grad_fn", "_output_nr", "_vc", "__weakref__", "__dict__")

    # rarely-set state lives in the instance __dict__ only when set (keeps op results cheap to create)
    _grad = None
    _base = None
    _view_meta = None    # PyTorch's CreationMeta for views: None, "multi" or "nograd" (see ops/inplace.py)
    _hooks = None
    _retains_grad = False
    _inference = False
    _accum = None

    __module__ = "torch"    # `print(type(x))` shows <class 'torch.Tensor'> as in PyTorch
    __array_priority__ = 1000  # so ndarray <op> Tensor defers to Tensor's reflected op

    def _init(self, data, requires_grad=False, grad_fn=None, output_nr=0):
        self._data = data
        self._requires_grad = requires_grad
        self.grad_fn = grad_fn
        self._output_nr = output_nr
        self._vc = [0]
        if STATE.inference:
            self._inference = True

    @classmethod
    def _make(cls, data, requires_grad=False, grad_fn=None, output_nr=0):
        """Fast constructor for op results (no copying, no checks beyond the dtype table)."""
        if type(data) is not np.ndarray:
            data = np.asarray(data)
        if data.dtype not in _FROM_NP:
            data = _coerce_foreign(data)
        t = object.__new__(cls)
        t._data = data
        t._requires_grad = requires_grad
        t.grad_fn = grad_fn
        t._output_nr = output_nr
        t._vc = [0]
        if STATE.inference:
            t._inference = True
        return t

    # -- metadata ---------------------------------------------------------------------
    @property
    def dtype(self):
        return _FROM_NP[self._data.dtype]

    @property
    def shape(self):
        return Size(self._data.shape)

    def size(self, dim=None):
        if dim is None:
            return Size(self._data.shape)
        return self._data.shape[_wrap_dim(dim, self._data.ndim)]

    def dim(self):
        return self._data.ndim

    ndimension = dim

    @property
    def ndim(self):
        return self._data.ndim

    def numel(self):
        return int(self._data.size)

    nelement = numel

    def element_size(self):
        return self._data.itemsize

    @property
    def itemsize(self):
        return self._data.itemsize

    @property
    def nbytes(self):
        return self._data.nbytes

    def stride(self, dim=None):
        st = tuple(s // self._data.itemsize for s in self._data.strides)
        if self._data.size == 0:  # NumPy reports 0 strides for empty arrays; PyTorch keeps contiguous ones
            st = tuple(int(np.prod([max(n, 1) for n in self._data.shape[i + 1:]])) for i in range(self._data.ndim))
        if dim is None:
            return st
        return st[_wrap_dim(dim, self._data.ndim)]

    def is_contiguous(self, memory_format=None):
        """Plain C-contiguity, or channels_last(_3d) strides when asked (torch's size-1 dims rule)."""
        if memory_format is None:
            return bool(self._data.flags.c_contiguous)
        return _mf.is_contiguous(self._data, _mf.check(memory_format, "is_contiguous"))

    def data_ptr(self):
        return self._data.__array_interface__["data"][0]

    def untyped_storage(self):
        base = self._data
        while isinstance(base.base, np.ndarray):
            base = base.base
        return _Storage(base)

    @property
    def device(self):
        return _CPU

    @property
    def is_cuda(self):
        return False

    is_sparse = False
    is_quantized = False
    is_meta = False
    layout = _mf.strided

    def is_floating_point(self):
        return self._data.dtype.kind == "f"

    def is_complex(self):
        return False

    def is_inference(self):
        return self._inference

    @property
    def _version(self):
        return self._vc[0]

    # -- autograd state ---------------------------------------------------------------
    @property
    def requires_grad(self):
        return self._requires_grad

    @requires_grad.setter
    def requires_grad(self, value):
        self.requires_grad_(value, _msg="only Tensors of floating point and complex dtype can require gradients")

    def requires_grad_(self, requires_grad=True, *, _msg="only Tensors of floating point dtype can require gradients"):
        """Set requires_grad on a leaf; only floating point leaves can require grad."""
        requires_grad = bool(requires_grad)
        if self.grad_fn is not None:
            if not requires_grad:
                raise RuntimeError("you can only change requires_grad flags of leaf variables. If you want "
                                   "to use a computed variable in a subgraph that doesn't require "
                                   "differentiation use var_no_grad = var.detach().")
            return self
        if requires_grad and self._data.dtype.kind != "f":
            raise RuntimeError(_msg)
        if requires_grad and self._inference and not STATE.inference:
            raise RuntimeError("Setting requires_grad=True on inference tensor outside InferenceMode "
                               "is not allowed.")
        self._requires_grad = requires_grad
        return self

    @property
    def is_leaf(self):
        return self.grad_fn is None

    @property
    def grad(self):
        if self.grad_fn is not None and not self._retains_grad and self._grad is None:
            warn_aten(NON_LEAF_GRAD_WARNING, "build/aten/src/ATen/core/TensorBody.h:493")
        return self._grad

    @grad.setter
    def grad(self, value):
        if value is not None:
            if not isinstance(value, Tensor):
                raise TypeError(f"assigned grad expected to be a Tensor or None but got grad of type "
                                f"{type(value).__name__}")
            if value._data.shape != self._data.shape:
                raise RuntimeError(f"attempting to assign a gradient of size '{list(value._data.shape)}' to a tensor "
                                   f"of size '{list(self._data.shape)}'. Please ensure that the gradient and the "
                                   "tensor are the same size")
            if value._data.dtype != self._data.dtype:
                raise RuntimeError(
                    f"attempting to assign a gradient with dtype '{_dt.cpp_name(value._data.dtype)}' to a tensor with "
                    f"grad_dtype '{_dt.scalar_name(self._data.dtype)}'. The gradient must match the tensor's "
                    "grad_dtype "
                    "(defaults to the tensor's dtype). You can set the tensor's grad_dtype attribute with a specific "
                    "dtype, or None to allow any dtype. Set grad_dtype with caution. Diverging the dtypes of a tensor "
                    "and its gradient may break downstream systems that assume they match.")
        self._grad = value

    @grad.deleter
    def grad(self):
        self._grad = None

    @property
    def retains_grad(self):
        return self._retains_grad

    @property
    def output_nr(self):
        return self._output_nr

    def retain_grad(self):
        """Make a non-leaf keep its .grad after backward (no-op on leaves)."""
        if not self._requires_grad:
            raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
        if self.grad_fn is None or self._retains_grad:
            return
        node = self.grad_fn
        if node._retain_hooks is None:
            node._retain_hooks = {}
        node._retain_hooks[self._output_nr] = weakref.ref(self)
        node._hooked = True
        self._retains_grad = True

    def detach(self):
        """A new tensor sharing storage, cut from the graph (requires_grad=False)."""
        t = Tensor._make(self._data)
        t._vc = self._vc
        t._inference = self._inference
        return t

    def detach_(self):
        if self._base is not None and self._base._requires_grad:
            raise RuntimeError("Can't detach views in-place. Use detach() instead.")
        self.grad_fn = None
        self._requires_grad = False
        self._output_nr = 0
        return self

    @property
    def data(self):
        t = Tensor._make(self._data)
        t._inference = self._inference
        t._vc = self._vc
        return t

    @data.setter
    def data(self, value):
        self._data = value._data

    # -- conversion -------------------------------------------------------------------
    def numpy(self, *, force=False):
        if self._requires_grad and not force:
            raise RuntimeError("Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead.")
        return self._data

    def __array__(self, dtype=None, copy=None):
        if dtype is not None:
            return self._data.astype(dtype)
        return self._data

    def tolist(self):
        return self._data.tolist()

    def item(self):
        if self._data.size != 1:
            raise RuntimeError(f"a Tensor with {self._data.size} elements cannot be converted to Scalar")
        return self._data.reshape(()).item()

    def __float__(self):
        return float(self.item())

    def __int__(self):
        return int(self.item())

    def __index__(self):
        if self._data.dtype.kind not in "iub" or self._data.size != 1:
            raise TypeError("only integer tensors of a single element can be converted to an index")
        return int(self.item())

    def __bool__(self):
        if self._data.size != 1:
            if self._data.size == 0:
                raise RuntimeError("Boolean value of Tensor with no values is ambiguous")
            raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous")
        return bool(self.item())

    def __complex__(self):
        return complex(self.item())

    def __len__(self):
        if self._data.ndim == 0:
            raise TypeError("len() of a 0-d tensor")
        return self._data.shape[0]

    def __iter__(self):
        if self._data.ndim == 0:
            raise TypeError("iteration over a 0-d tensor")
        return iter(self.unbind(0))

    def __hash__(self):
        return id(self)

    def __contains__(self, element):
        if isinstance(element, (Tensor, int, float, bool)):
            return bool((self == element).any().item())
        raise RuntimeError("Tensor.__contains__ only supports Tensor or scalar, but you passed in a "
                           f"{type(element)}.")

    def __format__(self, spec):
        if self._data.ndim == 0:
            return format(self.item(), spec)
        return object.__format__(self, spec)

    def __reduce_ex__(self, proto):
        raise TypeError("core tensors are not picklable")

    def __deepcopy__(self, memo):
        return _copy.deepcopy_tensor(self, memo)

    def cpu(self):
        return self

    def cuda(self, *a, **k):
        raise AssertionError("Torch not compiled with CUDA enabled")

    def pin_memory(self):
        return self

    def share_memory_(self):
        return self

    # -- printing ---------------------------------------------------------------------
    def __repr__(self, *, tensor_contents=None):
        return format_tensor(self._data, self.dtype, suffixes=self._repr_suffixes())

    def _repr_suffixes(self):
        suffixes = []
        if self.grad_fn is not None:
            # 'torch::autograd::CopySlices' prints as <CopySlices>, as in PyTorch
            suffixes.append(f"grad_fn=<{self.grad_fn.name().rsplit('::', 1)[-1]}>")
        elif self._requires_grad:
            suffixes.append("requires_grad=True")
        return suffixes

    def __str__(self):
        return self.__repr__()


class _Storage:
    def __init__(self, arr):
        self._arr = arr

    def data_ptr(self):
        return self._arr.__array_interface__["data"][0]

    def nbytes(self):
        return self._arr.nbytes

    def size(self):
        return self._arr.nbytes



def _coerce_foreign(data):
    """Bring NumPy results with dtypes PyTorch lacks back into the table (e.g. intc, longlong aliases)."""
    kind = data.dtype.kind
    if kind == "f":
        return data.astype(np.float64)
    if kind in "iu":
        return data.astype(np.int64)
    if kind == "b":
        return data.astype(np.bool_)
    raise TypeError(f"unsupported dtype {data.dtype}")


def _wrap_dim(dim, ndim):
    """PyTorch's maybe_wrap_dim: IndexError naming the valid range."""
    if type(dim) is int and 0 <= dim < ndim:    # the common case, without the checks below
        return dim
    if isinstance(dim, Tensor):
        dim = int(dim.item())
    if not isinstance(dim, (int, np.integer)) or isinstance(dim, bool):
        raise TypeError(f"dim must be an int, got {type(dim).__name__}")
    n = ndim if ndim > 0 else 1
    if dim < -n or dim >= n:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got {dim})")
    return dim + n if dim < 0 else dim


wrap_dim = _wrap_dim
