"""Allocation estimates for the expression evaluator: the bytes a call is about to allocate,
computed from its arguments BEFORE it runs (so `--max-bytes` refuses `torch.zeros(10**12)`
without allocating).

Most calls are covered generically (broadcasting tensor operands, tensors inside list arguments,
a `size=` keyword). The rest are ops whose output size depends on non-tensor arguments (factories,
repeat, one_hot, pad, ...): that is a fact about each op's arguments which the registry does not
record (many are factories, not registered ops), so it lives in the declarative table
`ESTIMATES` below, one small function per op.
"""
from __future__ import annotations

import math
import operator

def _index(value):
    """``operator.index(value)`` or None; never raises."""
    if type(value) in (int, bool):
        return int(value)
    try:
        return operator.index(value)
    except Exception:
        return None


def _dim(value):
    """A dimension as an int or None; finite floats count too, in case the op accepts them."""
    if type(value) is float:
        return int(value) if math.isfinite(value) else None
    return _index(value)


def _shape(value):
    """A shape given as an int or a sequence of ints, else None."""
    n = _dim(value)
    if n is not None:
        return [n]
    if isinstance(value, (list, tuple)):
        dims = [_dim(v) for v in value]
        if all(d is not None for d in dims):
            return dims
    return None


def _varargs_shape(args):
    if len(args) == 1 and isinstance(args[0], (list, tuple)):
        return _shape(args[0])
    dims = [_dim(a) for a in args]
    return dims if dims and all(d is not None for d in dims) else None


def _numel(dims) -> int:
    return math.prod(max(int(d), 0) for d in dims)


def _broadcast(shapes):
    """Broadcast shape of ``shapes`` or None if they do not broadcast."""
    ndim = max(len(s) for s in shapes)
    out = []
    for i in range(1, ndim + 1):
        sizes = {s[-i] for s in shapes if len(s) >= i} - {1}
        if len(sizes) > 1:
            return None
        out.append(sizes.pop() if sizes else 1)
    return out[::-1]


def _matmul_numel(a, b):
    if not a or not b:
        return None
    if len(a) == 1 and len(b) == 1:
        return 1
    a2 = [1, a[0]] if len(a) == 1 else a
    b2 = [b[0], 1] if len(b) == 1 else b
    batch = _broadcast([a2[:-2] or [1], b2[:-2] or [1]])
    if batch is None:
        return None
    return _numel(batch) * a2[-2] * b2[-1]


class _Args:
    """One call's arguments as the estimators see them: `base` is the tensor operated on (the
    receiver or the first positional tensor), `rest` the other positional arguments."""

    def __init__(self, alloc, name, args, kwargs, receiver):
        self.name, self.args, self.kwargs = name, list(args), kwargs
        self.base, self.rest = receiver, list(args)
        if self.base is None and args and alloc.is_tensor(args[0]):
            self.base, self.rest = args[0], list(args[1:])
        self.receiver = receiver
        self.base_dims = alloc.dims(self.base) if self.base is not None else None
        self.base_numel = _numel(self.base_dims) if self.base_dims is not None else None

    def arg(self, i, key, default=None):
        """Positional argument i (of all args), else keyword `key`."""
        return self.args[i] if len(self.args) > i else self.kwargs.get(key, default)

    def rest_arg(self, i, key, default=None):
        """Keyword `key` if given, else argument i after the base tensor."""
        return self.kwargs[key] if key in self.kwargs else (self.rest[i] if len(self.rest) > i else default)


def _numel_of(dims):
    return None if dims is None else _numel(dims)


def _size_args(a, alloc):
    return _numel_of(_varargs_shape(a.args) if a.args else _shape(a.kwargs.get("size")))


def _int_size_args(a, alloc):
    dims = a.args if a.args and all(type(x) is int for x in a.args) else None
    return None if not dims else _numel(dims)


def _size_first(a, alloc):
    return _numel_of(_shape(a.args[0] if a.args else a.kwargs.get("size")))


def _like(a, alloc):
    return a.base_numel


def _randint(a, alloc):
    size = a.kwargs.get("size", a.args[-1] if a.args else None)
    return _numel_of(_shape(size) if isinstance(size, (list, tuple)) else None)


def _randperm(a, alloc):
    return _dim(a.arg(0, "n"))


def _arange(a, alloc):
    """numel, and int64 for all-int arguments without dtype (as torch.arange)."""
    if len(a.args) == 1 and "end" not in a.kwargs:
        start, end, step = 0, a.args[0], a.kwargs.get("step", 1)
    else:
        given = dict(zip(("start", "end", "step"), a.args))
        given.update({k: a.kwargs[k] for k in ("start", "end", "step") if k in a.kwargs})
        start, end, step = given.get("start", 0), given.get("end"), given.get("step", 1)
    if not all(type(v) in (int, float, bool) for v in (start, end, step)):
        return None
    if not (step and all(math.isfinite(v) for v in (start, end, step))):
        return None
    numel = max(0, math.ceil((end - start) / step))
    if all(type(v) is int for v in (start, end, step)) and a.kwargs.get("dtype") is None:
        return numel, 8
    return numel


def _steps(a, alloc):
    return _dim(a.args[2] if len(a.args) > 2 else a.kwargs.get("steps"))


def _eye(a, alloc):
    n = _dim(a.arg(0, "n"))
    m = _dim(a.args[1] if len(a.args) > 1 else a.kwargs.get("m", n))
    return None if n is None or m is None else max(n, 0) * max(m, 0)


def _tri_indices(a, alloc):
    r, c = (_dim(x) for x in (a.args + [None, None])[:2])
    return None if r is None or c is None else 2 * max(r, 0) * max(c, 0)


def _repeat(a, alloc):
    dims = _varargs_shape(a.rest) if a.base_numel is not None else None
    return None if dims is None else a.base_numel * _numel(dims)


def _expand(a, alloc):
    if a.base_dims is None:
        return None
    dims = _varargs_shape(a.rest) if a.rest else _shape(a.kwargs.get("size"))
    if dims is None:
        return None
    aligned = [None] * (len(dims) - len(a.base_dims)) + a.base_dims
    return _numel(b if d == -1 and b is not None else d for d, b in zip(dims, aligned))


def _repeat_interleave(a, alloc):
    reps = _dim(a.rest[0] if a.rest else a.kwargs.get("repeats")) if a.base_numel is not None else None
    return None if reps is None else a.base_numel * max(reps, 0)


def _one_hot(a, alloc):
    classes = _dim(a.rest[0] if a.rest else a.kwargs.get("num_classes", -1)) if a.base_numel is not None else None
    return None if classes is None else a.base_numel * max(classes, 1)


def _bincount(a, alloc):
    return _dim(a.kwargs.get("minlength", a.rest[1] if len(a.rest) > 1 else None))


def _histc(a, alloc):
    return _dim(a.kwargs.get("bins", a.rest[0] if a.rest else None))


def _pad(a, alloc):
    if a.base_dims is None:
        return None
    pad = _shape(a.rest[0] if a.rest else a.kwargs.get("pad"))
    if pad is None or len(pad) // 2 > len(a.base_dims):
        return None
    dims = list(a.base_dims)
    for i in range(len(pad) // 2):
        dims[-1 - i] += pad[2 * i] + pad[2 * i + 1]
    return _numel(dims)


def _interpolate(a, alloc):
    if a.base_dims is None or len(a.base_dims) <= 2:
        return None
    lead, spatial = a.base_dims[:2], a.base_dims[2:]
    size = a.kwargs.get("size", a.rest[0] if a.rest else None)
    scale = a.kwargs.get("scale_factor", a.rest[1] if len(a.rest) > 1 else None)
    if size is not None:
        dims = _shape(size)
        if dims is not None and len(dims) == 1:
            dims = dims * len(spatial)
        return None if dims is None else _numel(lead) * _numel(dims)
    if type(scale) in (int, float) and math.isfinite(scale):
        return _numel(lead) * math.prod(math.floor(d * scale) for d in spatial)
    return None


def _operands(a):
    return ([a.receiver] if a.receiver is not None else []) + a.args


def _matmul(a, alloc):
    if len(_operands(a)) < 2:
        return None
    return alloc.elementwise(_operands(a), op="matmul")


def _product(a, alloc):
    """outer / kron / cdist...: the product of the operands' sizes."""
    tensors = alloc.tensors_in(_operands(a))
    shapes = [alloc.dims(t) for t in tensors]
    if not tensors or any(s is None for s in shapes):
        return None
    numel = math.prod(_numel(s) for s in shapes)
    if a.name == "cartesian_prod":
        numel *= len(shapes)
    return numel, max(alloc.itemsize(t) for t in tensors)


def _diag(a, alloc):
    if a.base_dims is None:
        return None
    if a.name == "diag_embed":
        return a.base_numel * a.base_dims[-1] if a.base_dims else None
    n = a.base_numel if a.name == "diagflat" or len(a.base_dims) == 1 else None
    return None if n is None else n * n


# Per-op output sizes from non-tensor arguments (see the module docstring for why a table).
def _layer_weights(a, alloc):
    """nn layers' parameters: Linear/Bilinear (in x out), Embedding (num x dim), Conv*d (out x in x kernel),
    RNN/LSTM/GRU (gates x hidden x (input + hidden), one layer)."""
    name = a.name
    if name in ("Linear", "LazyLinear"):
        return _product_of(a.arg(0, "in_features"), a.arg(1, "out_features"))
    if name == "Bilinear":
        return _product_of(a.arg(0, "in1_features"), a.arg(1, "in2_features"), a.arg(2, "out_features"))
    if name in ("Embedding", "EmbeddingBag"):
        return _product_of(a.arg(0, "num_embeddings"), a.arg(1, "embedding_dim"))
    if name.startswith(("Conv", "ConvTranspose")):
        k = _shape(a.arg(2, "kernel_size"))
        nd = int(name[-2]) if name[-2].isdigit() else 1
        if k is not None and len(k) == 1:
            k = k * nd
        n = _product_of(a.arg(0, "in_channels"), a.arg(1, "out_channels"))
        return None if n is None or k is None else n * _numel(k)
    gates = {"RNN": 1, "GRU": 3, "LSTM": 4}.get(name)
    if gates:
        i, h = _dim(a.arg(0, "input_size")), _dim(a.arg(1, "hidden_size"))
        return None if i is None or h is None else gates * h * (i + h)
    return None


def _product_of(*values):
    dims = [_dim(v) for v in values]
    return None if any(d is None for d in dims) else _numel(dims)


ESTIMATES = {
    **dict.fromkeys(("Linear", "LazyLinear", "Bilinear", "Embedding", "EmbeddingBag", "Conv1d", "Conv2d", "Conv3d",
                     "ConvTranspose1d", "ConvTranspose2d", "ConvTranspose3d", "RNN", "GRU", "LSTM"), _layer_weights),
    **dict.fromkeys(("zeros", "ones", "empty", "rand", "randn", "new_zeros", "new_ones", "new_empty",
                     "resize_", "resize", "empty_strided"), _size_args),
    **dict.fromkeys(("Tensor", "FloatTensor", "DoubleTensor", "LongTensor", "IntTensor", "BoolTensor",
                     "new"), _int_size_args),
    **dict.fromkeys(("full", "new_full"), _size_first),
    **dict.fromkeys(("zeros_like", "ones_like", "empty_like", "full_like", "rand_like", "randn_like",
                     "randint_like"), _like),
    "randint": _randint, "randperm": _randperm, "arange": _arange, "range": _arange,
    "linspace": _steps, "logspace": _steps, "eye": _eye,
    "tril_indices": _tri_indices, "triu_indices": _tri_indices,
    "repeat": _repeat, "tile": _repeat, "expand": _expand, "broadcast_to": _expand,
    "repeat_interleave": _repeat_interleave, "one_hot": _one_hot, "bincount": _bincount,
    "histc": _histc, "pad": _pad, "interpolate": _interpolate,
    "matmul": _matmul, "mm": _matmul, "bmm": _matmul,
    **dict.fromkeys(("outer", "ger", "kron", "cartesian_prod", "cdist", "block_diag"), _product),
    **dict.fromkeys(("diag", "diagflat", "diag_embed"), _diag),
}
# Results that are int64 whatever the inputs (the default itemsize when there is no base tensor).
INT_RESULTS = frozenset({"randint", "randperm", "tril_indices", "triu_indices", "one_hot", "bincount"})


class Alloc:
    """Estimates the bytes an operation is about to allocate, from its arguments."""

    def __init__(self, backend):
        self.tensor_types = backend.tensor_types
        self.backend = backend

    def is_tensor(self, value):
        return isinstance(value, self.tensor_types)

    @staticmethod
    def dims(t):
        try:
            return [int(d) for d in t.shape]
        except Exception:
            return None

    @staticmethod
    def itemsize(t, default=8):
        return getattr(getattr(t, "dtype", None), "itemsize", default) or default

    def tensors_in(self, values):
        return [v for v in values if self.is_tensor(v)]

    def elementwise(self, operands, op=None):
        """(numel, itemsize) of broadcasting (or ``@`` when op is MatMult) the tensors."""
        tensors = self.tensors_in(operands)
        if not tensors:
            return None
        shapes = [self.dims(t) for t in tensors]
        if any(s is None for s in shapes):
            return None
        itemsize = max(self.itemsize(t) for t in tensors)
        if any(type(v) is float for v in operands):
            itemsize = max(itemsize, 4)
        if op == "matmul":
            if len(shapes) != 2:
                return None
            numel = _matmul_numel(*shapes)
        else:
            out = _broadcast(shapes) if len(shapes) > 1 else None
            numel = None if out is None else _numel(out)
        return None if numel is None else (numel, itemsize)

    def call(self, name, args, kwargs, receiver):
        """Largest (numel, itemsize) estimate for a call; None when nothing is known."""
        estimates = []
        for estimate in (self.generic, self.specific):
            try:
                estimates.append(estimate(name, args, kwargs, receiver))
            except Exception:  # an estimate must never break a legitimate call
                pass
        estimates = [e for e in estimates if e is not None]
        return max(estimates, key=lambda e: e[0] * e[1]) if estimates else None

    def generic(self, name, args, kwargs, receiver):
        operands = ([receiver] if receiver is not None else []) + list(args) + list(kwargs.values())
        best = self.elementwise(operands)
        # cat/stack-style: tensors passed inside a list or tuple are all copied.
        for value in operands:
            if isinstance(value, (list, tuple)):
                inner = self.tensors_in(value)
                shapes = [self.dims(t) for t in inner]
                if inner and all(s is not None for s in shapes):
                    total = (sum(_numel(s) for s in shapes), max(self.itemsize(t) for t in inner))
                    if best is None or total[0] * total[1] > best[0] * best[1]:
                        best = total
        size = _shape(kwargs.get("size"))
        if size is not None:
            cand = (_numel(size), self.backend.default_itemsize())
            if best is None or cand[0] * cand[1] > best[0] * best[1]:
                best = cand
        return best

    def specific(self, name, args, kwargs, receiver):
        """The ESTIMATES entry for `name`: (numel, itemsize) or None."""
        estimate = ESTIMATES.get(name)
        if estimate is None:
            return None
        a = _Args(self, name, args, kwargs, receiver)
        default = self.itemsize(a.base) if a.base is not None else (
            8 if name in INT_RESULTS else self.backend.default_itemsize())
        itemsize = getattr(kwargs.get("dtype"), "itemsize", None)
        if not isinstance(itemsize, int) or not itemsize:   # None, or a NumPy scalar class's descriptor
            itemsize = default
        got = estimate(a, self)
        if got is None or isinstance(got, tuple):
            return got
        return got, itemsize
