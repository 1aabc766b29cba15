"""The one differential harness: run the same call in core and in torch and compare everything a user
can see: values (torch.testing's tolerances per dtype, NaN equal), dtype, shape, the exception class,
the grad_fn name, and gradients, both by `autograd.grad` (NumPy backward twins) and by
`autograd.grad(create_graph=True)` (the backward formulas written in core ops).

Arguments are given as torch objects (tensors, nested lists/tuples, numbers, dtypes...); the harness
makes the core twins (same values, dtype and requires_grad). `compare_call` returns a list of
`Disagreement`s instead of raising, so one report can count them; `assert_agree` raises on any.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

import core

# torch.testing.assert_close's defaults, per dtype
TOLERANCES = {"float16": (1e-3, 1e-5), "float32": (1.3e-6, 1e-5), "float64": (1e-7, 1e-7)}
# core computes with NumPy, whose summation order and libm differ from ATen's: a little slack
SLACK = 10.0
CORE_DTYPES = {"float16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8", "bool"}


class Unsupported(Exception):
    """The sample uses something core does not model (complex, bfloat16, sparse...)."""


@dataclass
class Disagreement:
    kind: str      # 'error' | 'value' | 'dtype' | 'shape' | 'grad_fn' | 'grad' | 'type'
    detail: str

    def __str__(self):
        return f"{self.kind}: {self.detail}"


def _dtype_name(d):
    return str(d).replace("torch.", "")


def to_core(x, torch):
    """The core twin of a torch value (tensors become leaves with the same values and requires_grad)."""
    if isinstance(x, torch.Tensor):
        name = _dtype_name(x.dtype)
        if name not in CORE_DTYPES or x.is_sparse or x.is_complex():
            raise Unsupported(f"dtype {name}")
        if x._base is not None and not x.requires_grad and x.numel():
            return _core_view(x, torch)
        try:
            arr = x.detach().numpy().copy(order="K")
        except (ValueError, RuntimeError, TypeError) as e:   # e.g. more dims than NumPy allows
            raise Unsupported(str(e)) from None
        t = core.from_numpy(arr)
        if x.requires_grad:
            t.requires_grad_(True)
        return t
    if isinstance(x, torch.dtype):
        name = _dtype_name(x)
        if name not in CORE_DTYPES:
            raise Unsupported(f"dtype {name}")
        return getattr(core, name if name != "bool" else "bool")
    if isinstance(x, (torch.memory_format, torch.layout)):   # torch.channels_last -> core.channels_last
        return getattr(core, str(x).split(".")[1])
    if isinstance(x, torch.Size):
        return core.Size(x)
    if isinstance(x, torch.device):
        return core.device(str(x))
    if isinstance(x, (list, tuple)):
        return type(x)(to_core(v, torch) for v in x) if type(x) in (list, tuple) else tuple(
            to_core(v, torch) for v in x)
    if isinstance(x, dict):
        return {k: to_core(v, torch) for k, v in x.items()}
    if isinstance(x, torch.Generator) or callable(x) and not isinstance(x, type):
        raise Unsupported(type(x).__name__)
    return x


def _core_view(x, torch):
    """A torch view as the same view in core: its whole storage copied, then as_strided with the view's
    size, stride and storage offset (op_db's partial views read outside the view's own elements)."""
    flat = torch.empty(0, dtype=x.dtype).set_(x.untyped_storage())
    base = to_core(flat.clone(), torch)
    return core.as_strided(base, tuple(x.shape), tuple(x.stride()), x.storage_offset())


def _leaves(x, out):
    if hasattr(x, "requires_grad") and hasattr(x, "grad_fn") and not isinstance(x, (list, tuple, dict)):
        if x.requires_grad and x.grad_fn is None:
            out.append(x)
    elif isinstance(x, (list, tuple)):
        for v in x:
            _leaves(v, out)
    elif isinstance(x, dict):
        for v in x.values():
            _leaves(v, out)
    return out


def _flat_tensors(x, out):
    if isinstance(x, (list, tuple)):
        for v in x:
            _flat_tensors(v, out)
    elif hasattr(x, "shape") and hasattr(x, "dtype") and hasattr(x, "grad_fn"):
        out.append(x)
    return out


def _close(c, t, dtype):
    rtol, atol = TOLERANCES.get(dtype, (0.0, 0.0))
    c = np.asarray(c)
    t = np.asarray(t)
    if c.dtype == bool or t.dtype == bool or dtype not in TOLERANCES:
        return np.array_equal(c, t)
    return np.allclose(c.astype(np.float64), t.astype(np.float64), rtol=rtol * SLACK, atol=atol * SLACK,
                       equal_nan=True)


def compare_values(c, t, torch, where="out", grad_fn=True, values=True):
    """Disagreements between a core result and a torch result (recursively for tuples/lists)."""
    if isinstance(t, torch.Tensor):
        if not isinstance(c, core.Tensor):
            return [Disagreement("type", f"{where}: core gave {type(c).__name__}, torch a Tensor")]
        if tuple(c.shape) != tuple(t.shape):
            return [Disagreement("shape", f"{where}: {list(c.shape)} vs torch {list(t.shape)}")]
        dt = _dtype_name(t.dtype)
        if _dtype_name(c.dtype) != dt:
            return [Disagreement("dtype", f"{where}: {c.dtype} vs torch {t.dtype}")]
        if values and not _close(c._data, t.detach().numpy(force=t._is_zerotensor()), dt):
            return [Disagreement("value", f"{where}: core {np.asarray(c._data).ravel()[:6]} vs torch "
                                          f"{t.detach().numpy(force=t._is_zerotensor()).ravel()[:6]}")]
        if grad_fn:
            tn = None if t.grad_fn is None else type(t.grad_fn).__name__
            cn = None if c.grad_fn is None else c.grad_fn.name().rsplit("::", 1)[-1]
            if tn != cn:
                return [Disagreement("grad_fn", f"{where}: {cn} vs torch {tn}")]
        return []
    if isinstance(t, (list, tuple)):
        if not isinstance(c, (list, tuple)) or len(c) != len(t):
            return [Disagreement("type", f"{where}: core {type(c).__name__} vs torch {type(t).__name__} "
                                         f"of {len(t)}")]
        out = []
        for i, (ci, ti) in enumerate(zip(c, t)):
            out += compare_values(ci, ti, torch, f"{where}[{i}]", grad_fn, values)
        return out
    if isinstance(t, (bool, int, float)):
        if isinstance(c, core.Tensor) or not isinstance(c, (bool, int, float, np.generic)):
            return [Disagreement("type", f"{where}: core {type(c).__name__} vs torch {type(t).__name__}")]
        same = (c == t) or (isinstance(t, float) and np.isclose(c, t, rtol=1e-6, equal_nan=True))
        return [] if same else [Disagreement("value", f"{where}: {c!r} vs torch {t!r}")]
    if isinstance(t, torch.dtype):
        return [] if str(c) == str(t) else [Disagreement("value", f"{where}: {c} vs torch {t}")]
    if isinstance(t, torch.Size):
        return [] if tuple(c) == tuple(t) else [Disagreement("value", f"{where}: {c} vs torch {t}")]
    return [] if t is None and c is None or c == t else [Disagreement("value", f"{where}: {c!r} vs {t!r}")]


def _call(fn, args, kwargs):
    try:
        return fn(*args, **kwargs), None
    except Exception as e:  # noqa: BLE001 - any exception is a result to compare
        return None, e


def _same_error_class(ec, et):
    return type(ec).__name__ == type(et).__name__ or isinstance(ec, type(et))


def compare_gradients(core_out, torch_out, core_args, torch_args, torch, seed=0):
    """Gradients of the float outputs w.r.t. every leaf requiring grad, with a fixed random
    cotangent: core's autograd.grad (create_graph False, then True) against torch's."""
    # torch gives no gradient for a leaf that is a view of another tensor (op_db's expanded samples):
    # such inputs are left out on both sides
    pairs = [(t, c) for t, c in zip(_leaves(torch_args, []), _leaves(core_args, [])) if t._base is None]
    t_in = [t for t, _ in pairs]
    c_in = [c for _, c in pairs]
    t_out = [o for o in _flat_tensors(torch_out, []) if o.requires_grad]
    c_out = [o for o in _flat_tensors(core_out, []) if o.requires_grad]
    if not t_in or not t_out:
        return []
    if len(c_out) != len(t_out):
        return [Disagreement("grad", f"{len(c_out)} differentiable outputs vs torch {len(t_out)}")]
    g = torch.Generator().manual_seed(seed)
    t_cot = [torch.randn(o.shape, generator=g, dtype=o.dtype) for o in t_out]
    c_cot = [core.from_numpy(c.numpy().copy()) for c in t_cot]
    t_grads, et = _call(lambda: torch.autograd.grad(t_out, t_in, t_cot, allow_unused=True, retain_graph=True),
                        (), {})
    out = []
    for create_graph in (False, True):
        c_grads, ec = _call(lambda: core.autograd.grad(c_out, c_in, c_cot, allow_unused=True, retain_graph=True,
                                                       create_graph=create_graph), (), {})
        tag = "create_graph" if create_graph else "grad"
        if et is not None or ec is not None:
            if et is None or ec is None or not _same_error_class(ec, et):
                out.append(Disagreement("grad", f"{tag}: core raised {ec!r}, torch raised {et!r}"))
            continue
        for i, (cg, tg) in enumerate(zip(c_grads, t_grads)):
            if (cg is None) != (tg is None):
                # torch returns None for inputs the graph does not reach; a zero tensor from core
                # is the same gradient
                z = tg if cg is None else cg
                if not (z is not None and np.all(np.asarray(z.detach().numpy() if hasattr(z, "numpy") else 0) == 0)):
                    out.append(Disagreement("grad", f"{tag} input {i}: core {cg is not None}, torch "
                                                    f"{tg is not None}"))
                continue
            if cg is not None:
                out += [Disagreement("grad", f"{tag} {d.detail}")
                        for d in compare_values(cg, tg, torch, f"grad[{i}]", grad_fn=False)]
    return out


def compare_call(core_fn, torch_fn, torch_args, torch_kwargs, torch, *, grads=True, grad_fn=True, values=True):
    """Run core_fn and torch_fn on the same arguments; return the disagreements. values=False compares
    only shapes and dtypes (ops whose values are undefined or random)."""
    core_args = to_core(list(torch_args), torch)
    core_kwargs = to_core(dict(torch_kwargs), torch)
    rt, et = _call(torch_fn, torch_args, torch_kwargs)
    rc, ec = _call(core_fn, core_args, core_kwargs)
    if et is not None or ec is not None:
        if et is None:
            return [Disagreement("error", f"core raised {type(ec).__name__}: {str(ec)[:200]}; torch did not")]
        if ec is None:
            return [Disagreement("error", f"torch raised {type(et).__name__}: {str(et)[:200]}; core did not")]
        if not _same_error_class(ec, et):
            return [Disagreement("error", f"core raised {type(ec).__name__}: {str(ec)[:150]}; torch raised "
                                          f"{type(et).__name__}: {str(et)[:150]}")]
        return []
    out = compare_values(rc, rt, torch, grad_fn=grad_fn, values=values)
    if grads and not out:
        out += compare_gradients(rc, rt, core_args + list(core_kwargs.values()),
                                 list(torch_args) + list(torch_kwargs.values()), torch)
    return out


def assert_agree(core_fn, torch_fn, args, kwargs, torch, **kw):
    d = compare_call(core_fn, torch_fn, args, kwargs, torch, **kw)
    assert not d, "; ".join(map(str, d))
