"""Random ops with torch's CPU values bit for bit: factories (rand, randn, randint, randperm,
normal, *_like), bernoulli, multinomial, poisson and the in-place samplers (uniform_, normal_,
random_, exponential_, bernoulli_, geometric_, log_normal_, cauchy_). Each factory is
`empty(...).<sampler>_(...)` as in ATen; the samplers are in random_kernels.py."""
from __future__ import annotations

import numpy as np

from .. import dtypes as _dt
from .._alloc import _check_alloc, _dense, _parse_size, _set_requires_grad
from ..device import check_device, check_factory_device
from ..random import gen_or_default
from ..tensor import Tensor
from . import random_gamma  # noqa: F401  (_standard_gamma & co. join the random family)
from . import random_kernels as K
from ..autograd.function import Op
from .inplace import check_inplace
from .pointwise import _out
from .registry import export, method, register

_LONG = {"int64": "Long", "int32": "Int", "int16": "Short", "int8": "Char", "uint8": "Byte", "bool": "Bool",
         "float16": "Half", "float32": "Float", "float64": "Double"}
_C_NAME = {"int64": "long", "int32": "int", "int16": "short", "int8": "signed char", "uint8": "unsigned char",
           "bool": "bool", "float16": "c10::Half", "float32": "float", "float64": "double"}


def _not_implemented(kernel, dt):
    return NotImplementedError(f"\"{kernel}\" not implemented for '{_LONG[dt.name]}'")


def _require_float(t, kernel):
    if not t.dtype.is_floating_point:
        raise _not_implemented(kernel, t.dtype)


# -- writing samples into a tensor -----------------------------------------------------------------

def _memory_order(a):
    """A view of `a` whose C order is a's memory order (TensorIterator's iteration order)."""
    if a.flags.c_contiguous or a.ndim < 2:
        return a
    perm = sorted(range(a.ndim), key=lambda d: -abs(a.strides[d]))
    return a.transpose(perm)


def _fill(t, values):
    """Write the kernel's values (in memory order) into t as an in-place op (bumps the version);
    values None: the kernel already wrote into t (see _direct)."""
    if values is None:
        t._vc[0] += 1
        return t
    check_inplace(t)
    view = _memory_order(t._data)
    with np.errstate(all="ignore"):
        view[...] = values.reshape(view.shape) if values.size else values.reshape(view.shape)
    t._vc[0] += 1
    return t


def _direct(t):
    """t's storage as a flat array the kernels can write into (C-contiguous t only), after
    torch's in-place checks; None otherwise."""
    check_inplace(t)
    a = t._data
    return a.reshape(-1) if a.flags.c_contiguous and a.flags.writeable else None


def _empty(size, dtype, default, fn):
    shape = _parse_size(size, fn)
    dt = _dt.as_dtype(dtype) if dtype is not None else default
    _check_alloc(shape, dt)
    return Tensor._make(np.empty(shape, dt.np))


def _empty_like(t, dtype):
    """empty_like with preserve_format: a dense non-contiguous t's strides are kept."""
    dt = _dt.as_dtype(dtype) if dtype is not None else t.dtype
    _check_alloc(t._data.shape, dt)
    src = t._data
    keep = not src.flags.c_contiguous and src.ndim > 1 and _dense(src)
    return Tensor._make(np.empty_like(src, dtype=dt.np) if keep else np.empty(src.shape, dt.np))


def _finish(t, requires_grad):
    """A fresh factory result: filled below autograd in ATen, so its version counter is still 0."""
    t._vc[0] = 0
    return _set_requires_grad(t) if requires_grad else t


def _factory_out(out, size, dtype, fn):
    """A factory's `out=`: dtype= must be out's own; out is resized to the size (no warning) for the kernel."""
    if dtype is not None and _dt.as_dtype(dtype) is not out.dtype:
        raise RuntimeError(f"dtype {_dt.SCALAR_NAMES[_dt.as_dtype(dtype).name]} does not match dtype of out parameter "
                           f"({_dt.SCALAR_NAMES[out.dtype.name]})")
    return _resize_out(out, _parse_size(size, fn))


def _factory_size(size, kw_size, fn):
    if kw_size is not None:
        if size:
            raise _arg_error(fn, size, {"size": kw_size})
        return (kw_size,)
    if not size:
        raise _arg_error(fn, size, {})
    return size


_FACTORY_SIGS = ("(tuple of ints size, *, torch.Generator generator, Tensor out = None, torch.dtype dtype = None, "
                 "torch.layout layout = None, torch.device device = None, bool pin_memory = False, "
                 "bool requires_grad = False)",
                 "(tuple of ints size, *, Tensor out = None, torch.dtype dtype = None, torch.layout layout = None, "
                 "torch.device device = None, bool pin_memory = False, bool requires_grad = False)")


def _arg_error(fn, args, kwargs):
    """torch's argument-parser TypeError for rand/randn's two signatures."""
    got = [type(a).__name__ for a in args] + [f"{k}={type(v).__name__}" for k, v in kwargs.items()]
    sigs = "".join(f" * {s}\n" for s in _FACTORY_SIGS)
    return TypeError(f"{fn}() received an invalid combination of arguments - got ({', '.join(got)}), but expected "
                     f"one of:\n{sigs}")


# -- in-place samplers (Tensor methods) ------------------------------------------------------------

_UNSET = object()


def _from_keyword(kw, default, fn):
    """`from` is a Python keyword: torch's `from=` argument arrives in **kw."""
    value = kw.pop("from", default)
    if kw:
        raise TypeError(f"{fn}() got an unexpected keyword argument '{next(iter(kw))}'")
    return value


def uniform_(self, from_=0.0, to=1.0, *, generator=None, **kw):
    """Tensor.uniform_(from=0, to=1): (random() bits * 2**-digits) * (to - from) + from."""
    from_ = _from_keyword(kw, from_, "uniform_")
    _require_float(self, "check_uniform_bounds")
    if from_ > to:
        raise RuntimeError(f"uniform_ expects to return a [from, to) range, but found from={_num(from_)} > to={_num(to)}")
    gen = gen_or_default(generator)
    out = _direct(self)
    values = K.uniform(gen, self._data.size, self.dtype, from_, to, out=out)
    return _fill(self, None if out is not None else values)


def normal_(self, mean=0.0, std=1.0, *, generator=None):
    """Tensor.normal_(mean=0, std=1): torch's normal_kernel (vectorised Box-Muller for contiguous
    tensors of >= 16 elements, the cached scalar Box-Muller otherwise)."""
    if std < 0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {_num(std)}")
    _require_float(self, "normal_kernel_cpu")
    gen = gen_or_default(generator)
    out = _direct(self)
    values = K.normal(gen, self._data.size, self.dtype, mean, std, self.is_contiguous(), out=out)
    return _fill(self, None if values is out else values)


def random_(self, from_=None, to=_UNSET, *, generator=None, **kw):
    """Tensor.random_(), random_(to), random_(from, to): integers drawn as torch does
    (random_(from, None) runs to the dtype's maximum)."""
    keyword_from = "from" in kw
    from_ = _from_keyword(kw, from_, "random_")
    if to is _UNSET and keyword_from:
        raise TypeError("random_() received an invalid combination of arguments - got (from=int, ), but expected "
                        "one of:\n * (*, torch.Generator generator = None)\n * (int from, int to, *, torch.Generator "
                        "generator = None)\n * (int to, *, torch.Generator generator = None)\n")
    if to is _UNSET:
        from_, to = (None, None) if from_ is None else (0, from_)   # random_() / random_(to)
    gen = gen_or_default(generator)
    dt, n = self.dtype, self._data.size
    if from_ is None and to is None:
        return _fill(self, K.random_default(gen, n, dt))
    from_ = 0 if from_ is None else int(from_)
    if to is None:
        to = _max_plus_one(dt)
        if dt is _dt.int64 and from_ == -(1 << 63):
            return _fill(self, K.random_full(gen, n, dt))
    to = int(to)
    if from_ >= to:
        raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got from={from_} >= to={to}")
    _check_bounds(dt, from_, to)
    return _fill(self, K.random_from_to(gen, n, dt, to - from_, from_))


def _max_plus_one(dt):
    if dt.is_floating_point:
        return (1 << _DIGITS_OF[dt.name]) + 1
    if dt is _dt.bool_:
        return 2
    return int(np.iinfo(dt.np).max) + 1


_DIGITS_OF = {"float16": 11, "float32": 24, "float64": 53}


def _check_bounds(dt, from_, to):
    """check_from_to_in_range: from and to - 1 must fit the dtype (mantissa range for floats)."""
    if dt is _dt.bool_:
        lo, hi = 0, 1
    elif dt.is_floating_point:
        lo, hi = -(1 << _DIGITS_OF[dt.name]), 1 << _DIGITS_OF[dt.name]
    else:
        info = np.iinfo(dt.np)
        lo, hi = int(info.min), int(info.max)
    if not lo <= from_ <= hi:
        raise RuntimeError(f"from is out of bounds for {_C_NAME[dt.name]}")
    if not lo <= to - 1 <= hi:
        raise RuntimeError(f"to - 1 is out of bounds for {_C_NAME[dt.name]}")


def exponential_(self, lambd=1.0, *, generator=None):
    """Tensor.exponential_(lambd): -1/lambd * log(1 - u), u a uniform double."""
    if not self.dtype.is_floating_point:
        raise RuntimeError("Exponential distribution is a continuous probability distribution. dtype must be a "
                           f"floating point but you specified {_LONG[self.dtype.name]}")
    if not lambd > 0.0:
        raise RuntimeError(f"exponential_ expects lambda > 0.0, but found lambda={_num(lambd)}")
    gen = gen_or_default(generator)
    return _fill(self, K.exponential(gen, self._data.size, lambd))


def geometric_(self, p, *, generator=None):
    """Tensor.geometric_(p): ceil(log(u) / log(1 - p))."""
    if not 0 < p < 1:
        raise RuntimeError(f"geometric_ expects p to be in (0, 1), but got p={_num(p)}")
    gen = gen_or_default(generator)
    return _fill(self, K.geometric(gen, self._data.size, p))


def log_normal_(self, mean=1.0, std=2.0, *, generator=None):
    """Tensor.log_normal_(mean, std): exp of a cached-Box-Muller normal draw."""
    if not std > 0.0:
        raise RuntimeError(f"log_normal_ expects std > 0.0, but found std={_num(std)}")
    _require_float(self, "log_normal_cpu")
    gen = gen_or_default(generator)
    return _fill(self, K.log_normal(gen, self._data.size, mean, std))


_CPP_NAMES = {"int64": "long int", "int32": "int", "int16": "short int", "int8": "signed char",
              "uint8": "unsigned char", "bool": "bool"}   # C++ type names in torch's cauchy_ message


def cauchy_(self, median=0.0, sigma=1.0, *, generator=None):
    """Tensor.cauchy_(median, sigma): median + sigma * tan(pi * (u - 0.5))."""
    if not self.dtype.is_floating_point:
        raise RuntimeError("Cauchy distribution is a continuous probability distribution. dtype must be a floating "
                           f"point but you specified {_CPP_NAMES.get(self.dtype.name, self.dtype.name)}")
    if not sigma > 0.0:
        raise RuntimeError(f"cauchy_ expects sigma > 0.0, but found sigma={_num(sigma)}")
    gen = gen_or_default(generator)
    return _fill(self, K.cauchy(gen, self._data.size, median, sigma))


def bernoulli_(self, p=0.5, *, generator=None):
    """Tensor.bernoulli_(p): u < p with u a uniform double (float p) or, for a tensor p, a uniform
    of p's precision (float32 p: 24-bit float)."""
    gen = gen_or_default(generator)
    if isinstance(p, Tensor):
        pa = np.broadcast_to(p._data, self._data.shape)
        if pa.dtype not in (np.float32, np.float64, np.float16):
            raise _not_implemented("bernoulli_tensor_cpu_p_", p.dtype)
        pa = pa.astype(np.float32) if pa.dtype == np.float16 else pa
        return _fill(self, K.bernoulli_tensor(gen, np.ascontiguousarray(_memory_order_like(pa, self._data))))
    if not 0 <= p <= 1:
        raise RuntimeError(f"bernoulli_ expects p to be in [0, 1], but got p={_num(p)}")
    return _fill(self, K.bernoulli_scalar(gen, self._data.size, p))


def _memory_order_like(a, like):
    """`a` (broadcast to like's shape) read in like's memory order."""
    if like.flags.c_contiguous or like.ndim < 2:
        return a
    perm = sorted(range(like.ndim), key=lambda d: -abs(like.strides[d]))
    return a.transpose(perm)


def _num(x):
    """A number as torch prints it in these messages (integers without a trailing .0)."""
    return int(x) if float(x).is_integer() and not isinstance(x, bool) else x


for _name, _fn in [("uniform_", uniform_), ("normal_", normal_), ("random_", random_),
                   ("exponential_", exponential_), ("geometric_", geometric_), ("log_normal_", log_normal_),
                   ("cauchy_", cauchy_), ("bernoulli_", bernoulli_)]:
    method(_name, _fn)


# -- factories --------------------------------------------------------------------------------------

def _float_factory(size, kw_size, dtype, fn, kernel):
    dt = _dt.as_dtype(dtype) if dtype is not None else _dt.get_default_dtype()
    if not dt.is_floating_point:
        raise _not_implemented(kernel, dt)
    return _empty(_factory_size(size, kw_size, fn), dt, dt, fn)


@export
def rand(*size_args, size=None, generator=None, out=None, dtype=None, layout=None, device=None,
         requires_grad=False, pin_memory=False):
    """torch.rand: empty(size).uniform_(0, 1)."""
    check_factory_device(device)
    if out is not None:
        return uniform_(_factory_out(out, _factory_size(size_args, size, "rand"), dtype, "rand"), 0.0, 1.0,
                        generator=generator)
    t = _float_factory(size_args, size, dtype, "rand", "check_uniform_bounds")
    return _finish(uniform_(t, 0.0, 1.0, generator=generator), requires_grad)


@export
def randn(*size_args, size=None, generator=None, out=None, dtype=None, layout=None, device=None,
          requires_grad=False, pin_memory=False):
    """torch.randn: empty(size).normal_(0, 1)."""
    check_factory_device(device)
    if out is not None:     # randn_out's resize_ is seen by autograd (unlike rand's): one more version
        resized = out._data.shape != tuple(_parse_size(_factory_size(size_args, size, "randn"), "randn"))
        normal_(_factory_out(out, _factory_size(size_args, size, "randn"), dtype, "randn"), 0.0, 1.0,
                generator=generator)
        out._vc[0] += resized
        return out
    t = _float_factory(size_args, size, dtype, "randn", "normal_kernel_cpu")
    return _finish(normal_(t, 0.0, 1.0, generator=generator), requires_grad)


@export
def randint(*args, size=None, generator=None, dtype=None, layout=None, device=None, requires_grad=False,
            out=None, pin_memory=False, low=None, high=None):
    """torch.randint(high, size) / randint(low, high, size): empty(size, dtype=int64).random_(low, high)."""
    check_factory_device(device)
    args = list(args)
    if size is None:
        if not args:
            raise TypeError("randint() missing required argument 'size' (pos 2)")
        size = args.pop()
    if high is None:
        if not args:
            raise TypeError("randint() missing required argument 'high' (pos 1)")
        high = args.pop()
    if low is None:
        low = args.pop() if args else 0
    if args:
        raise TypeError("randint() received an invalid combination of arguments")
    if out is not None:
        return random_(_factory_out(out, (size,), dtype, "randint"), _as_int(low), _as_int(high), generator=generator)
    t = _empty((size,), dtype, _dt.int64, "randint")
    random_(t, _as_int(low), _as_int(high), generator=generator)
    return _finish(t, requires_grad)


def _as_int(x):
    return x.item() if isinstance(x, Tensor) else int(x)


@export
def randperm(n, *, generator=None, out=None, dtype=None, layout=None, device=None, requires_grad=False,
             pin_memory=False):
    """torch.randperm: Fisher-Yates with random() % (n - i), as randperm_cpu."""
    check_factory_device(device)
    n = _as_int(n)
    if n < 0:
        raise RuntimeError(f"Trying to create tensor with negative dimension {n}: [{n}]")
    dt = _dt.as_dtype(dtype) if dtype is not None else _dt.int64
    _check_alloc((n,), dt)
    if n >= (1 << 32) // 20:
        raise RuntimeError("core's randperm supports n < 2**32 / 20")
    if not dt.is_floating_point and dt is not _dt.bool_ and n > 0 and n - 1 > np.iinfo(dt.np).max:
        raise RuntimeError(f"n is too large for result tensor type: '{dt.name}'")
    perm = K.randperm(gen_or_default(generator), n)
    if out is not None:
        o = _factory_out(out, (n,), dtype, "randperm")
        o._data[...] = perm.astype(o._data.dtype)
        o._vc[0] += 1
        return o
    return _finish(Tensor._make(perm.astype(dt.np)), requires_grad)


@export
def rand_like(input, *, dtype=None, layout=None, device=None, requires_grad=False, memory_format=None,
              generator=None):
    """torch.rand_like: empty_like(input).uniform_(0, 1) (values in input's memory order)."""
    if device is not None:
        check_device(device, alloc="empty_strided")
    t = _empty_like(input, dtype)
    return _finish(uniform_(t, generator=generator), requires_grad)


@export
def randn_like(input, *, dtype=None, layout=None, device=None, requires_grad=False, memory_format=None,
               generator=None):
    """torch.randn_like: empty_like(input).normal_(0, 1)."""
    if device is not None:
        check_device(device, alloc="empty_strided")
    t = _empty_like(input, dtype)
    return _finish(normal_(t, generator=generator), requires_grad)


@export
def randint_like(input, low=0, high=None, *, dtype=None, layout=None, device=None, requires_grad=False,
                 memory_format=None, generator=None):
    """torch.randint_like(input, high) / (input, low, high): empty_like(input).random_(low, high)."""
    if device is not None:
        check_device(device, alloc="empty_strided")
    if high is None:
        low, high = 0, low
    t = _empty_like(input, dtype)
    random_(t, _as_int(low), _as_int(high), generator=generator)
    return _finish(t, requires_grad)


@export
def normal(mean=0.0, std=1.0, size=None, *, generator=None, out=None, dtype=None, layout=None, device=None,
           requires_grad=False, pin_memory=False):
    """torch.normal's four overloads: (float, float, size) = empty(size).normal_(mean, std);
    (Tensor, float) = normal_(0, std) + mean; (float, Tensor) and (Tensor, Tensor) =
    normal_(0, 1) * std + mean, in the output dtype."""
    check_factory_device(device)
    tm, ts = isinstance(mean, Tensor), isinstance(std, Tensor)
    if not tm and not ts:
        if size is None:
            raise TypeError("normal() received an invalid combination of arguments - got (float, float), but "
                            "expected size for scalar mean and std")
        if std < 0:
            raise RuntimeError(f"normal expects std >= 0.0, but found std {_num(std)}")
        if out is not None:     # out.resize_(size) (no warning), then out.normal_(mean, std)
            return normal_(_resize_out(out, _parse_size((size,), "normal")), mean, std, generator=generator)
        t = _float_factory((size,), None, dtype, "normal", "normal_kernel_cpu")
        return _finish(normal_(t, mean, std, generator=generator), requires_grad)
    r = _normal_tensor(mean, std, tm, ts, generator)
    return r if out is None else _out(r, out)


class _NormalBackward(Op):
    """torch.normal with Tensor mean and/or std: the draws (made before) as the output; the gradient of
    every Tensor argument is zero (derivatives.yaml: normal is not reparameterised)."""

    @staticmethod
    def forward(ctx, *tensors, res):
        ctx.shapes = [(t._data.shape, t._data.dtype) for t in tensors]
        return res

    @staticmethod
    def backward(ctx, g):
        grads = tuple(Tensor._make(np.zeros(shape, dt)) for shape, dt in ctx.shapes)
        return grads if len(grads) > 1 else grads[0]


NormalBackward1 = type("NormalBackward1", (_NormalBackward,), {})   # normal(Tensor mean, float std)
NormalBackward2 = type("NormalBackward2", (_NormalBackward,), {})   # normal(float mean, Tensor std)
NormalBackward3 = type("NormalBackward3", (_NormalBackward,), {})   # normal(Tensor mean, Tensor std)


def _normal_tensor(mean, std, tm, ts, generator):
    if ts and std._data.size and (std._data < 0).any():
        raise RuntimeError("normal expects all elements of std >= 0.0")
    if tm and not ts and std < 0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {_num(std)}")
    ref = mean if tm else std
    shape = np.broadcast_shapes(mean._data.shape if tm else (), std._data.shape if ts else ())
    dt = ref.dtype
    _require_float(ref, "normal_kernel_cpu")
    out = Tensor._make(np.empty(shape, dt.np))
    gen = gen_or_default(generator)
    if tm and not ts:
        normal_(out, 0.0, std, generator=gen)
        res = out._data + mean._data
    else:
        normal_(out, 0.0, 1.0, generator=gen)
        s = std._data.astype(dt.np)
        res = out._data * s + (mean._data if tm else np.asarray(mean, dtype=dt.np))
    res = np.asarray(res, dtype=dt.np, order="C")
    if tm and ts:
        return NormalBackward3.apply(mean, std, res=res)
    return NormalBackward1.apply(mean, res=res) if tm else NormalBackward2.apply(std, res=res)


@register(category="random", methods=("bernoulli",))
def bernoulli(input, p=None, *, generator=None, out=None):
    """torch.bernoulli(input): 1 with probability input[i] (empty_like(input).bernoulli_(input));
    bernoulli(input, p) draws with the scalar p."""
    if p is None:
        if not input.dtype.is_floating_point:
            raise _not_implemented("bernoulli_tensor_cpu_p_", input.dtype)
        if input._data.size and ((input._data < 0) | (input._data > 1)).any():
            raise RuntimeError("Expected p_in >= 0 && p_in <= 1 to be true, but got false.  (Could this error "
                               "message be improved?  If so, please report an enhancement request to PyTorch.)")
        if out is not None:     # ATen's bernoulli_out: out.resize_(input.shape), then out.bernoulli_(input)
            return bernoulli_(_resize_out(out, input._data.shape), input, generator=generator)
        return bernoulli_(_empty_like(input, None), input, generator=generator)
    return bernoulli_(_empty_like(input, None), p, generator=generator)


def _resize_out(out, shape):
    """`out.resize_(shape)` (no warning, unlike structured ops' out=), then PyTorch's checks before writing
    (an expanded `out` raises the internal-overlap RuntimeError) before any number is drawn."""
    if out._data.shape != tuple(shape):
        out._data = np.empty(shape, out._data.dtype)
    check_inplace(out)
    return out


@register(category="random", methods=("multinomial",))
def multinomial(input, num_samples, replacement=False, *, generator=None, out=None):
    """torch.multinomial: without replacement (or one sample) argmax / topk of p / q with
    q = empty_like(p).exponential_(1); with replacement, a uniform double per sample looked up in
    the row's normalised running sum."""
    d = input._data
    if not 1 <= d.ndim <= 2:
        raise RuntimeError("prob_dist must be 1 or 2 dim")
    if not input.dtype.is_floating_point:
        raise RuntimeError(f"multinomial only supports floating-point dtypes for input, got: {_LONG[input.dtype.name]}")
    if out is not None and out._data.dtype != np.int64:
        raise RuntimeError(f"multinomial expects Long tensor out, got: {_LONG[out.dtype.name]}")
    if num_samples <= 0:
        raise RuntimeError("cannot sample n_sample <= 0 samples")
    n_cat = d.shape[-1]
    if not replacement and num_samples > n_cat:
        raise RuntimeError("cannot sample n_sample > prob_dist.size(-1) samples without replacement")
    if n_cat > 1 << 24:
        raise RuntimeError("number of categories cannot exceed 2^24")
    gen = gen_or_default(generator)
    rows = d.reshape(-1, n_cat)
    if not replacement or num_samples == 1:
        _check_probs(d)
        q = exponential_(_empty_like(input, None), 1.0, generator=gen)._data.reshape(rows.shape)
        with np.errstate(divide="ignore", invalid="ignore"):
            ratio = (rows / q).astype(d.dtype)
        res = np.argsort(-ratio, axis=-1, kind="stable")[:, :num_samples]
    else:
        _check_rows(rows)
        res = K.multinomial_with_replacement(gen, rows, num_samples)
    res = res.reshape(d.shape[:-1] + (num_samples,))
    if out is not None:     # ATen's multinomial_out: out resized (no warning), then written
        _resize_out(out, res.shape)._data[...] = res
        out._vc[0] += 1
        return out
    return Tensor._make(res)


def _check_probs(d):
    if d.size and not ((d.max() < np.inf) & (d.min() >= 0)):
        raise RuntimeError("probability tensor contains either `inf`, `nan` or element < 0")
    if (d.sum(axis=-1) == 0).any():
        raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")


def _check_rows(rows):
    if (rows < 0).any():
        raise RuntimeError("invalid multinomial distribution (encountering probability entry < 0)")
    if not np.isfinite(rows).all():
        raise RuntimeError("invalid multinomial distribution (encountering probability entry = infinity or NaN)")
    if (rows.sum(axis=-1) <= 0).any():
        raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")


@register(category="random")
def poisson(input, generator=None):
    """torch.poisson(rates): one Poisson draw per rate, as ATen's sample_poisson."""
    if not input.dtype.is_floating_point:
        raise _not_implemented("poisson_cpu", input.dtype)
    if input._data.size and (input._data < 0).any():
        raise RuntimeError("invalid Poisson rate, expected rate to be non-negative")
    gen = gen_or_default(generator)     # a contiguous output, drawn in its C order whatever input's layout
    src = np.ascontiguousarray(input._data)
    return Tensor._make(K.poisson(gen, src).reshape(src.shape).astype(src.dtype, copy=False))


@register(category="random")
def binomial(count, prob, generator=None):
    """torch.binomial(count, prob): one Binomial(count, prob) draw per element, as ATen's CPU kernel
    (same generator stream: BTRS or geometric inversion per element, in memory order)."""
    if not count.dtype.is_floating_point:
        raise ValueError(f"binomial only supports floating-point dtypes for count, got: "
                         f"{_dt.scalar_name(count.dtype)}")
    if prob.dtype is not count.dtype:
        raise RuntimeError(f"Found dtype {_dt.scalar_name(prob.dtype)} but expected {_dt.scalar_name(count.dtype)}")
    gen = gen_or_default(generator)
    shape = count._data.shape   # the output is a fresh contiguous tensor: the kernel runs in its C order
    p = np.ascontiguousarray(np.broadcast_to(prob._data, shape))
    out = K.binomial(gen, np.ascontiguousarray(count._data), p).reshape(shape)
    return Tensor._make(out.astype(count._data.dtype))


def bernoulli_mask(shape, p, dtype=None, generator=None):
    """The keep mask of F.dropout: `empty(shape, dtype).bernoulli_(p)` (p = 1 - dropout p), 0/1
    values in dtype, drawn from the generator exactly as torch's dropout draws them."""
    dt = _dt.as_dtype(dtype) if dtype is not None else _dt.get_default_dtype()
    t = _empty((tuple(shape),), dt, dt, "bernoulli_mask")
    return bernoulli_(t, p, generator=generator)
