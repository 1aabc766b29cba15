"""One call run in core and in torch side by side, agreeing in exception class and message or in result
tensors (values, dtype, shape, requires_grad): the helper of the op_db findings' tests (out=, argument
checks, forward corners)."""
from __future__ import annotations

import warnings

import numpy as np

import core


def _run(m, fn):
    """(result, exception) of fn(m) with warnings silenced."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return fn(m), None
        except Exception as e:  # noqa: BLE001
            return None, e


def _flat(x):
    return list(x) if isinstance(x, tuple) else [x]


def agree(torch, fn, outs=None):
    """fn(core) and fn(torch) raise the same class and message, or return equal tensors (values, dtype,
    shape); with `outs(m)` (the out tensors fn wrote into), those must match too."""
    rc, ec = _run(core, fn)
    rt, et = _run(torch, fn)
    assert (ec is None) == (et is None), f"core: {ec!r}; torch: {et!r}"
    if et is not None:
        assert type(ec) is type(et) or type(ec).__name__ == type(et).__name__, f"core {ec!r}; torch {et!r}"
        assert str(ec) == str(et).split("\n")[0] or str(ec) == str(et), f"core {ec}; torch {et}"
        return
    for c, t in zip(_flat(rc), _flat(rt)):
        assert tuple(c.shape) == tuple(t.shape) and str(c.dtype) == str(t.dtype), f"{c!r} vs {t!r}"
        np.testing.assert_allclose(np.asarray(c._data, np.float64), t.detach().numpy().astype(np.float64), rtol=1e-6)
        assert c.requires_grad == t.requires_grad
    assert type(rc).__name__ == type(rt).__name__


def same_object(torch, fn):
    """fn(m) -> (result, out): the result is the out tensor itself, in both."""
    for m in (core, torch):
        r, o = fn(m)
        for a, b in zip(_flat(r), _flat(o)):
            assert a is b


def out_pair(m, vdt, idt):
    """Empty (values, indices) out tensors of the given dtype names, for ops returning both."""
    return (m.empty(0, dtype=getattr(m, vdt)), m.empty(0, dtype=getattr(m, idt)))


def out_agrees(torch, call, dtype):
    """call(m, out) writes into an empty `out` of dtype (a name) and returns it, in core as in torch, with
    each op's dtype rule (exact or castable): the same tensor or the same error."""
    def fn(m):
        o = m.empty(0, dtype=getattr(m, dtype))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            r = call(m, o)
        assert r is o
        return o
    agree(torch, fn)


def tuple_out_agrees(torch, name, call, dtypes):
    """call(m, outs) writes into empty out tensors of the dtype names and returns them as torch's named
    tuple (`*_out` type). Eigenvectors, Q and U carry LAPACK's sign conventions: eigh, qr, svd and lu are
    compared through eigenvalues, R, S and L."""
    def run(m):
        o = tuple(m.empty(0, dtype=getattr(m, d)) for d in dtypes)
        r = call(m, o)
        assert all(a is b for a, b in zip(r, o)) and type(r).__name__.endswith("_out")
        return o[0] if name == "eigh" else o[1] if name in ("qr", "svd", "lu") else o
    agree(torch, run)


def bits_equal(ours, ref):
    """ours (core) and ref (torch) bit for bit: the same dtype, shape and bytes, zeros by their sign; NaNs only by
    position (their payload is the C library's, not an algorithm's)."""
    o, r = (np.ascontiguousarray(np.atleast_1d(t.detach().numpy() if hasattr(t, "detach") else t)) for t in (ours, ref))
    assert o.dtype == r.dtype and o.shape == r.shape, (o.dtype, r.dtype, o.shape, r.shape)
    if o.dtype.kind == "f":
        nan = np.isnan(o)
        assert np.array_equal(nan, np.isnan(r)), "NaN positions differ"
        o, r = o[~nan], r[~nan]
    assert np.array_equal(o.view(np.uint8), r.view(np.uint8))
