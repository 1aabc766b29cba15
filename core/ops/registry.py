"""The op registry: each public op is registered once with its metadata; Tensor methods,
reflected dunders, in-place variants and the `core.X` namespace are attached from here,
and the CLI builds its commands from the same entries (signature + metadata)."""
from __future__ import annotations

import functools
import inspect
from dataclasses import dataclass, field

import numpy as np

from ..autograd.grad_mode import STATE
from ..tensor import Tensor


@dataclass
class OpInfo:
    """One registered op. `fn` is the public function (PyTorch's signature); `rule`
    gives the `out[i][j] = ...` formula for data-movement ops as a function of (ndim, dim)."""

    name: str
    fn: object
    category: str
    summary: str
    methods: tuple = ()
    inplace: str | None = None
    kind: str | None = None          # 'gather' | 'scatter' | 'view' | None: drives --explain
    rule: object = None
    cli: bool = False
    extras: dict = field(default_factory=dict)

    @property
    def signature(self):
        return inspect.signature(self.fn)


OPS: dict[str, OpInfo] = {}
FUNCTIONS: dict[str, object] = {}
# Every attribute Tensor gets beyond its class body: name -> function, property or descriptor.
# Op modules only record here; core/_bind.py attaches them, once, from core/__init__.
METHODS: dict[str, object] = {}


def method(name, value=None):
    """Record `Tensor.<name> = value` for the binding step (usable as a decorator:
    `@method("t_")`). Op modules never set attributes on Tensor themselves."""
    if value is None:
        return lambda v: method(name, v)
    METHODS[name] = value
    return value


def add_inplace(opname, name, fn):
    """Give the registered op `opname` the custom in-place variant `name` (e.g. a fast
    `scatter_` that writes straight into self), recorded for binding like any method."""
    OPS[opname].inplace = name
    METHODS[name] = fn
    return fn


def register(name=None, *, category, methods=(), inplace=None, function=True, summary=None,
             kind=None, rule=None, cli=False, **extras):
    """Register a public op function. `methods` are attached to Tensor (the function's
    first parameter is self); `inplace` is a method name (generic in-place variant built
    from the out-of-place function) or a (name, callable) pair for a custom in-place."""

    def deco(fn):
        opname = name or fn.__name__
        doc = summary or (inspect.getdoc(fn) or "").split("\n")[0]
        inplace_name = inplace[0] if isinstance(inplace, tuple) else inplace
        OPS[opname] = OpInfo(opname, fn, category, doc, tuple(methods), inplace_name, kind, rule, cli, extras)
        if function:
            FUNCTIONS[opname] = fn
        for m in methods:
            METHODS[m] = fn
            setattr(Tensor, m, fn)  # TRANSITIONAL: removed once every op module only records
        if inplace is not None:
            ip = inplace[1] if isinstance(inplace, tuple) else make_inplace(fn, inplace)
            METHODS[inplace_name] = ip
            setattr(Tensor, inplace_name, ip)  # TRANSITIONAL
        return fn

    return deco


def export(fn=None, *, name=None):
    """Expose a non-op helper (creation functions, utilities) as core.<name>."""
    def deco(f):
        FUNCTIONS[name or f.__name__] = f
        return f
    return deco(fn) if fn is not None else deco


# -- in-place machinery ------------------------------------------------------------------

LEAF_INPLACE_MSG = "a leaf Variable that requires grad is being used in an in-place operation."
VIEW_LEAF_INPLACE_MSG = ("a view of a leaf Variable that requires grad is being used in an in-place "
                         "operation.")
OVERLAP_INPLACE_MSG = ("unsupported operation: more than one element of the written-to tensor refers to a single "
                       "memory location. Please clone() the tensor before performing the operation.")
INFERENCE_INPLACE_MSG = ("Inplace update to inference tensor outside InferenceMode is not allowed."
                         "You can make a clone to get a normal tensor before doing inplace update."
                         "See https://github.com/pytorch/rfcs/pull/17 for more details.")


def check_inplace(t, *others):
    """PyTorch's checks before writing into `t`."""
    if t._inference and not STATE.inference:
        raise RuntimeError(INFERENCE_INPLACE_MSG)
    if not t._data.flags.writeable and any(st == 0 and n > 1 for st, n in zip(t._data.strides, t._data.shape)):
        raise RuntimeError(OVERLAP_INPLACE_MSG)
    if STATE.grad_enabled:
        if t._requires_grad and t.grad_fn is None:
            raise RuntimeError(LEAF_INPLACE_MSG)
        b = t._base
        if b is not None and b._requires_grad:
            if t._view_meta == "nograd":   # a view made in no_grad mode
                from .shape import NOGRAD_VIEW_MSG
                raise RuntimeError(NOGRAD_VIEW_MSG)
            if not t._requires_grad:       # made before its base required grad: PyTorch sees a leaf
                raise RuntimeError(LEAF_INPLACE_MSG)
            if b.grad_fn is None:
                raise RuntimeError(VIEW_LEAF_INPLACE_MSG)


def _any_requires_grad(args, kwargs):
    for a in args:
        if isinstance(a, Tensor) and a._requires_grad:
            return True
        if type(a) in (list, tuple):
            for x in a:
                if isinstance(x, Tensor) and x._requires_grad:
                    return True
    for a in kwargs.values():
        if isinstance(a, Tensor) and a._requires_grad:
            return True
    return False


def write_result(t, result, opname):
    """Copy an out-of-place result into t (in-place semantics: no broadcasting of t, same-kind cast)."""
    from .. import dtypes
    r = result._data
    if r.shape != t._data.shape:
        raise RuntimeError(f"output with shape {list(t._data.shape)} doesn't match the broadcast shape "
                           f"{list(r.shape)}")
    if r.dtype != t._data.dtype:
        rd, td = dtypes._FROM_NP[r.dtype], dtypes._FROM_NP[t._data.dtype]
        if not dtypes.can_cast(rd, td):
            raise RuntimeError(f"result type {_short(rd)} can't be cast to the desired output type {_short(td)}")
    np.copyto(t._data, r, casting="unsafe")
    if not t._inference:
        t._vc[0] += 1


def _short(d):
    from ..dtypes import scalar_name
    return scalar_name(d)


def snapshot(t):
    """A copy of t's data with t's place in the graph, so an op can save 'self' before t is overwritten."""
    if t._base is not None:
        from .shape import check_view_inplace
        check_view_inplace(t)
    return Tensor._make(t._data.copy(), t._requires_grad, t.grad_fn, t._output_nr)


def rebase(t, result):
    """Make t take result's place in the graph after an in-place write."""
    from ..autograd.function import SavedTensor
    node = result.grad_fn
    t.grad_fn = node
    t._output_nr = result._output_nr
    t._requires_grad = result._requires_grad
    if node is not None and node._saved:
        node._saved = [SavedTensor(t, True, s.output_nr) if (s is not None and s.is_output) else s
                       for s in node._saved]
    if t._base is not None:
        from .shape import rebase_view
        rebase_view(t, result)      # the base's grad_fn becomes CopySlices


# In-place arithmetic that NumPy can do straight into self's buffer (the optimizer-update case).
_UFUNC_INPLACE = {"add_": np.add, "sub_": np.subtract, "mul_": np.multiply, "div_": np.true_divide}


def _try_ufunc_inplace(self, ufunc, args, kwargs):
    """self op= other without a temporary, when it is exactly what the generic path would compute:
    a same-dtype tensor operand (or a number that keeps self's float dtype) broadcasting to self."""
    if kwargs or len(args) != 1:
        return False
    other = args[0]
    d = self._data
    if isinstance(other, Tensor):
        o = other._data
        if o.dtype != d.dtype or d.dtype.kind != "f" or o.ndim > d.ndim:
            return False
        try:
            if np.broadcast_shapes(o.shape, d.shape) != d.shape:
                return False
        except ValueError:
            return False
        if np.shares_memory(o, d) and o.shape != d.shape:
            return False
    elif type(other) in (int, float) and d.dtype.kind == "f":
        o = other
    else:
        return False
    if ufunc is np.true_divide:
        with np.errstate(all="ignore"):   # x / 0 gives inf/nan silently, as in PyTorch
            ufunc(d, o, out=d)
    else:
        ufunc(d, o, out=d)
    if not self._inference:
        self._vc[0] += 1
    return True


def make_inplace(fn, name):
    """Build `t.op_(...)` from the out-of-place `op(t, ...)`."""
    ufunc = _UFUNC_INPLACE.get(name)

    @functools.wraps(fn)
    def inplace_method(self, *args, **kwargs):
        check_inplace(self)
        if ufunc is not None and not (STATE.grad_enabled and (self._requires_grad or _any_requires_grad(args, kwargs))):
            if _try_ufunc_inplace(self, ufunc, args, kwargs):
                return self
        if STATE.grad_enabled and (self._requires_grad or _any_requires_grad(args, kwargs)):
            result = fn(snapshot(self), *args, **kwargs)
            write_result(self, result, name)
            rebase(self, result)
            return self
        result = fn(self, *args, **kwargs)
        write_result(self, result, name)
        return self

    inplace_method.__name__ = name
    inplace_method.__doc__ = f"In-place version of {fn.__name__}."
    return inplace_method


# -- Python operators ----------------------------------------------------------------------------

_BINARY_DUNDERS = ("add", "radd", "sub", "rsub", "mul", "rmul", "truediv", "rtruediv", "floordiv", "rfloordiv",
                   "mod", "rmod", "pow", "rpow", "and", "rand", "or", "ror", "xor", "rxor", "lshift", "rshift",
                   "eq", "ne", "lt", "le", "gt", "ge")


def install_operator_guards():
    """Tensor's binary operators return NotImplemented for operands that are neither tensors nor
    numbers (None, str, list, ...), as torch's do: Python then gives `==` -> False and
    `+` -> "TypeError: unsupported operand type(s) for +: 'Tensor' and 'NoneType'"."""
    operand_types = (Tensor, int, float, bool, np.number, np.bool_, np.ndarray)
    for name in _BINARY_DUNDERS:
        attr = f"__{name}__"
        fn = Tensor.__dict__.get(attr)
        if fn is None or getattr(fn, "_operator_guard", False):
            continue

        def method(self, other, _fn=fn):
            if not isinstance(other, operand_types):
                return NotImplemented
            return _fn(self, other)
        method._operator_guard = True
        method.__name__ = attr
        method.__doc__ = getattr(fn, "__doc__", None)
        setattr(Tensor, attr, method)
