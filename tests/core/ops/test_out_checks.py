"""`out=` disagreements PyTorch's op_db found (error inputs) and their neighbours, each run in core and
in torch side by side: ATen's overlap checks (an expanded `out`, an `out` aliasing an input, before or
after its resize), the exact dtypes structured ops demand of `out`, and ops that ignored `out`."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

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


def _same_object(torch, fn):
    """fn(m) -> (result, out): the result is the out tensor itself, in both."""
    for m in (core, torch):
        r, o = fn(m)
        for a, b in zip(_flat(r), _flat(o)):
            assert a is b


# -- overlap ---------------------------------------------------------------------------------------

OVERLAP = {
    "cat_expanded_out": lambda m: m.cat([m.ones(2, 5), m.ones(3, 5)], out=m.zeros(1, 5).expand(5, 5)),
    "cat_out_is_input": lambda m: (lambda a: m.cat([a, a], out=a))(m.ones(2, 3)),
    "cat_out_view_of_input": lambda m: (lambda c: m.cat([c[:2], c[2:]], out=c))(m.arange(12.).reshape(4, 3)),
    "cat_resized_view_overlaps": lambda m: (lambda a, b: m.cat([a, b], out=b[:2]))(m.ones(4, 6), m.zeros(4, 6)),
    "cat_empty_out_is_input": lambda m: (lambda e: m.cat([e, m.ones(4, 6)], 0, out=e))(m.empty(0)),
    "cat_disjoint_view_ok": lambda m: (lambda s: m.cat([s[:2], s[2:4]], out=s[4:8]))(m.arange(8.)),
    "stack_out_view_of_input": lambda m: (lambda c: m.stack([c[:2], c[2:]], out=c.view(2, 2, 3)))(m.zeros(4, 3)),
    "stack_expanded_out": lambda m: m.stack([m.ones(2, 3)] * 2, out=m.zeros(2, 3).expand(2, 2, 3)),
    "gather_expanded_out": lambda m: m.gather(m.arange(6.), 0, m.tensor([0, 1, 2]), out=m.zeros(1).expand(3)),
    "take_expanded_out": lambda m: m.take(m.arange(6.), m.tensor([0, 1, 2]), out=m.zeros(1).expand(3)),
    "kthvalue_out_is_input": lambda m: (lambda x: m.kthvalue(x, 2, out=(x, m.empty((), dtype=m.long))))(
        m.arange(5.)),
    "mode_out_view_of_input": lambda m: (lambda y: m.mode(y, 0, out=(y[0], m.empty(3, dtype=m.long))))(
        m.ones(4, 3)),
    "max_out_view_of_input": lambda m: (lambda y: m.max(y, 0, out=(y[0], m.empty(3, dtype=m.long))))(m.ones(4, 3)),
    "sort_out_is_input_allowed": lambda m: (lambda y: m.sort(y, 0, out=(y, m.empty((4, 3), dtype=m.long))))(
        m.tensor([[3., 1, 2], [0, 5, 4], [7, 6, 8], [9, -1, 2]])),
    "bernoulli_expanded_out": lambda m: m.bernoulli(m.full((6,), 0.5), out=m.zeros(1).expand(6)),
}


@pytest.mark.parametrize("name", sorted(OVERLAP))
def test_out_overlap_checks(torch, name):
    agree(torch, OVERLAP[name])


# -- exact out dtypes --------------------------------------------------------------------------------

def _pair(m, vdt, idt):
    return (m.empty(0, dtype=getattr(m, vdt)), m.empty(0, dtype=getattr(m, idt)))


TUPLE_OPS = {
    "kthvalue": lambda m, o: m.kthvalue(m.arange(12.).reshape(4, 3), 2, 0, out=o),
    "sort": lambda m, o: m.sort(m.arange(12.).reshape(4, 3), 0, out=o),
    "topk": lambda m, o: m.topk(m.arange(12.).reshape(4, 3), 2, 0, out=o),
    "mode": lambda m, o: m.mode(m.arange(12.).reshape(4, 3), 0, out=o),
    "median": lambda m, o: m.median(m.arange(12.).reshape(4, 3), 0, out=o),
    "nanmedian": lambda m, o: m.nanmedian(m.arange(12.).reshape(4, 3), 0, out=o),
    "cummax": lambda m, o: m.cummax(m.arange(12.).reshape(4, 3), 0, out=o),
    "cummin": lambda m, o: m.cummin(m.arange(12.).reshape(4, 3), 0, out=o),
    "aminmax": lambda m, o: m.aminmax(m.arange(12.).reshape(4, 3), dim=0, out=o),
    "max": lambda m, o: m.max(m.arange(12.).reshape(4, 3), 0, out=o),
    "min": lambda m, o: m.min(m.arange(12.).reshape(4, 3), 0, out=o),
}


@pytest.mark.parametrize("dts", [("float64", "int64"), ("float32", "int32"), ("float32", "int64")])
@pytest.mark.parametrize("name", sorted(TUPLE_OPS))
def test_out_tuple_dtypes(torch, name, dts):
    """Wrong values/indices dtypes raise each op's own message; the right ones are written and returned."""
    fn = TUPLE_OPS[name]
    second = "float32" if name == "aminmax" else dts[1]
    agree(torch, lambda m: fn(m, _pair(m, dts[0], second)))
    if dts == ("float32", "int64"):
        _same_object(torch, lambda m: (lambda o: (fn(m, o), o))(_pair(m, "float32", second)))


def test_out_tuple_arity(torch):
    agree(torch, lambda m: m.max(m.ones(4, 3), 0, out=(m.empty(3),)))


@pytest.mark.parametrize("name", ["amax", "amin"])
@pytest.mark.parametrize("dtype", ["int32", "float64", "float32"])
def test_amax_amin_out(torch, name, dtype):
    """amax/amin demand out's dtype equal input's (no casting) and write into out (core ignored out)."""
    agree(torch, lambda m: getattr(m, name)(m.arange(12.).reshape(4, 3), 0, out=m.empty(3, dtype=getattr(m, dtype))))
    if dtype == "float32":
        _same_object(torch, lambda m: (lambda o: (getattr(m, name)(m.arange(12.).reshape(4, 3), 0, out=o), o))(
            m.empty(7)))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_max_min_all_out(torch, dtype):
    """max()/min() over all elements write into out (which may be of a wider dtype)."""
    for name in ("max", "min"):
        fn = (lambda m, name=name: (lambda o: (getattr(m, name)(m.tensor([[1., 5], [4, -2]]), out=o), o))(
            m.empty((), dtype=getattr(m, dtype))))
        agree(torch, lambda m: fn(m)[1])
        _same_object(torch, fn)


# -- random ops' out= -------------------------------------------------------------------------------

def test_bernoulli_out_written_like_torch(torch):
    """bernoulli(p, out=o): o resized to p's shape and filled with the draws torch makes (same generator)."""
    def fn(m):
        m.manual_seed(5)
        o = m.zeros(2, 3, dtype=m.int64)
        r = m.bernoulli(m.full((6,), 0.5, dtype=m.float64), out=o)
        assert r is o
        return o
    agree(torch, fn)


@pytest.mark.parametrize("dtype", ["float64", "int32", "int64"])
def test_multinomial_out(torch, dtype):
    def fn(m):
        m.manual_seed(1)
        o = m.empty(3, dtype=getattr(m, dtype))
        r = m.multinomial(m.tensor([[0.2, 0.3, 0.5], [0.9, 0.05, 0.05]], dtype=m.float64), 2, out=o)
        assert r is o
        return o
    agree(torch, fn)


# -- ops that ignored out= -------------------------------------------------------------------------

FACTORIES = {
    "zeros": lambda m, o: m.zeros(2, 3, out=o),
    "ones": lambda m, o: m.ones(4, out=o),
    "full": lambda m, o: m.full((2,), 3.5, out=o),
    "linspace": lambda m, o: m.linspace(0, 1, 5, out=o),
    "logspace": lambda m, o: m.logspace(0, 1, 3, out=o),
    "eye": lambda m, o: m.eye(3, out=o),
    "zeros_same_numel": lambda m, o: m.zeros((5,), out=o),
    "arange_requires_grad": lambda m, o: m.arange(5, out=o, requires_grad=True),
}


@pytest.mark.parametrize("dtype", ["float32", "int64"])
@pytest.mark.parametrize("name", sorted(FACTORIES))
def test_factories_write_into_out(torch, name, dtype):
    """Factories with out=: out's dtype, resized without a warning, written and returned."""
    def fn(m):
        o = m.zeros(5, dtype=getattr(m, dtype))
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            r = FACTORIES[name](m, o)
        assert r is o
        return o
    agree(torch, fn)


@pytest.mark.parametrize("case", ["out_requires_grad", "dtype_mismatch"])
def test_factories_out_errors(torch, case):
    if case == "out_requires_grad":
        agree(torch, lambda m: m.zeros(2, out=m.empty(0, requires_grad=True)))
    else:
        agree(torch, lambda m: m.linspace(0, 1, 3, out=m.empty(0, dtype=m.long), dtype=m.float32))


REDUCE_OUT = {
    "mean": lambda m, o: m.mean(m.arange(12.).reshape(4, 3), 0, out=o),
    "logsumexp": lambda m, o: m.logsumexp(m.arange(12.).reshape(4, 3), 0, out=o),
}


@pytest.mark.parametrize("dtype,shape", [("float32", (3,)), ("float64", (3,)), ("int64", (3,)), ("float32", (5,))])
@pytest.mark.parametrize("name", sorted(REDUCE_OUT))
def test_mean_logsumexp_out(torch, name, dtype, shape):
    def fn(m):
        o = m.empty(shape, dtype=getattr(m, dtype))
        r = REDUCE_OUT[name](m, o)
        assert r is o
        return o
    agree(torch, fn)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_mean_out_with_dtype(torch, dtype):
    """mean(dtype=...) demands out of exactly that dtype."""
    agree(torch, lambda m: m.mean(m.arange(3.), dtype=m.float64, out=m.empty((), dtype=getattr(m, dtype))))


@pytest.mark.parametrize("dts", [("float32", "int32"), ("float64", "int32"), ("float32", "int64")])
def test_frexp_out(torch, dts):
    def fn(m):
        o = (m.empty(3, dtype=getattr(m, dts[0])), m.empty(3, dtype=getattr(m, dts[1])))
        r = m.frexp(m.tensor([1.0, 2.0, 3.0]), out=o)
        assert r[0] is o[0] and r[1] is o[1] and type(r).__name__ == "frexp_out"
        return o
    agree(torch, fn)


_A = [[4.0, 1.0], [1.0, 3.0]]
LINALG_OUT = {
    "det": lambda m, o: m.linalg.det(m.tensor(_A), out=o),
    "inv": lambda m, o: m.linalg.inv(m.tensor(_A), out=o),
    "inverse": lambda m, o: m.inverse(m.tensor(_A), out=o),
    "matrix_power": lambda m, o: m.linalg.matrix_power(m.tensor(_A), 2, out=o),
    "norm": lambda m, o: m.linalg.norm(m.tensor(_A), out=o),
    "vector_norm": lambda m, o: m.linalg.vector_norm(m.tensor(_A), out=o),
    "matrix_norm": lambda m, o: m.linalg.matrix_norm(m.tensor(_A), out=o),
    "solve": lambda m, o: m.linalg.solve(m.tensor(_A), m.tensor(_A), out=o),
    "cholesky": lambda m, o: m.linalg.cholesky(m.tensor(_A), out=o),
    "pinv": lambda m, o: m.linalg.pinv(m.tensor(_A), out=o),
    "svdvals": lambda m, o: m.linalg.svdvals(m.tensor(_A), out=o),
    "eigvalsh": lambda m, o: m.linalg.eigvalsh(m.tensor(_A), out=o),
    "multi_dot": lambda m, o: m.linalg.multi_dot([m.tensor(_A), m.tensor(_A)], out=o),
    "matrix_rank": lambda m, o: m.linalg.matrix_rank(m.tensor(_A), out=o),
    "cond": lambda m, o: m.linalg.cond(m.tensor(_A), out=o),
    "vecdot": lambda m, o: m.linalg.vecdot(m.tensor(_A), m.tensor(_A), out=o),
    "solve_triangular": lambda m, o: m.linalg.solve_triangular(m.tensor(_A), m.tensor(_A), upper=True, out=o),
    "tensorinv": lambda m, o: m.linalg.tensorinv(m.tensor(_A), ind=1, out=o),
    "tensorsolve": lambda m, o: m.linalg.tensorsolve(m.tensor(_A), m.ones(2), out=o),
    "cholesky_solve": lambda m, o: m.cholesky_solve(m.tensor(_A), m.tensor(_A), out=o),
    "cholesky_inverse": lambda m, o: m.cholesky_inverse(m.tensor(_A), out=o),
    "torch.cholesky": lambda m, o: m.cholesky(m.tensor(_A), out=o),
}


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64"])
@pytest.mark.parametrize("name", sorted(LINALG_OUT))
def test_linalg_out(torch, name, dtype):
    """linalg ops write into out= (core ignored it) with each op's dtype rule: exact or castable."""
    def fn(m):
        o = m.empty(0, dtype=getattr(m, dtype))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            r = LINALG_OUT[name](m, o)
        assert r is o
        return o
    agree(torch, fn)


LINALG_TUPLE_OUT = {
    "slogdet": (lambda m, o: m.linalg.slogdet(m.tensor(_A), out=o), [("float32",) * 2, ("float64", "float32")]),
    "eigh": (lambda m, o: m.linalg.eigh(m.tensor(_A), out=o), [("float32",) * 2, ("float32", "float64")]),
    "qr": (lambda m, o: m.linalg.qr(m.tensor(_A), out=o), [("float32",) * 2, ("float64", "float32")]),
    "inv_ex": (lambda m, o: m.linalg.inv_ex(m.tensor(_A), out=o), [("float32", "int32"), ("float32", "int64")]),
    "solve_ex": (lambda m, o: m.linalg.solve_ex(m.tensor(_A), m.tensor(_A), out=o),
                 [("float32", "int32"), ("float64", "int32")]),
    "cholesky_ex": (lambda m, o: m.linalg.cholesky_ex(m.tensor(_A), out=o), [("float32", "int32"), ("float32", "int64")]),
    "lu_factor": (lambda m, o: m.linalg.lu_factor(m.tensor(_A), out=o), [("float32", "int32"), ("float32", "int64")]),
    "svd": (lambda m, o: m.linalg.svd(m.tensor(_A), out=o), [("float32",) * 3, ("float32", "float64", "float32")]),
    "lu": (lambda m, o: m.linalg.lu(m.tensor(_A), out=o), [("float32",) * 3, ("float64", "float32", "float32")]),
    "geqrf": (lambda m, o: m.geqrf(m.tensor(_A), out=o), [("float32",) * 2, ("float64", "float32")]),
}


@pytest.mark.parametrize("which", [0, 1])
@pytest.mark.parametrize("name", sorted(LINALG_TUPLE_OUT))
def test_linalg_tuple_out(torch, name, which):
    fn, dts = LINALG_TUPLE_OUT[name]

    def run(m):
        o = tuple(m.empty(0, dtype=getattr(m, d)) for d in dts[which])
        r = fn(m, o)
        assert all(a is b for a, b in zip(r, o)) and type(r).__name__.endswith("_out")
        # eigenvectors, Q and U carry LAPACK's sign conventions: compared through eigenvalues, R, S, L
        return o[0] if name == "eigh" else o[1] if name in ("qr", "svd", "lu") else o
    agree(torch, run)
