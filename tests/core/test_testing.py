"""torch.testing.assert_close / assert_allclose / make_tensor: core and torch side by side (outcome,
exception class and full message text; make_tensor's values, dtypes, strides after the same seed)."""
from __future__ import annotations

import warnings

import pytest

import core

NAN, INF = float("nan"), float("inf")

# each case builds (actual, expected, kwargs) from a module (core or torch)
CASES = {
    "close_float": lambda m: (m.tensor([1., 2., 3.]), m.tensor([1., 2.5, 3.]), {}),
    "equal_int": lambda m: (m.tensor([1, 2, 3]), m.tensor([1, 4, 3]), {}),
    "msg_str": lambda m: (m.tensor([[1., 2.], [3., 4.]]), m.tensor([[1., 2.], [3., 5.]]), {"msg": "custom"}),
    "msg_callable": lambda m: (m.tensor([[1., 2.], [3., 4.]]), m.tensor([[1., 2.], [3., 5.]]),
                               {"msg": lambda s: "Header\n\n" + s + "\n\nFooter"}),
    "nan": lambda m: (m.tensor([1., NAN]), m.tensor([1., NAN]), {}),
    "equal_nan": lambda m: (m.tensor([1., NAN]), m.tensor([1., NAN]), {"equal_nan": True}),
    "inf": lambda m: (m.tensor([INF, 1.]), m.tensor([INF, 2.]), {}),
    "dtype": lambda m: (m.tensor([1.]), m.tensor([1.], dtype=m.float64), {}),
    "no_check_dtype": lambda m: (m.tensor([1.]), m.tensor([1.0000001], dtype=m.float64), {"check_dtype": False}),
    "shape": lambda m: (m.tensor([1.]), m.tensor([1., 2.]), {}),
    "scalars": lambda m: (1.0, 1.1, {}),
    "ints": lambda m: (1, 2, {}),
    "scalar_types": lambda m: (1, 1.0, {"check_dtype": True}),
    "tensor_vs_list": lambda m: (m.tensor([1., 2.]), [1., 2.], {}),
    "zero_dim": lambda m: (m.tensor(0.), m.tensor(1e-3), {}),
    "rel_inf": lambda m: (m.tensor([1., 2.]), m.tensor([0., 0.]), {}),
    "nested": lambda m: ([m.tensor(1.), {"a": m.tensor([1., 3.])}], [m.tensor(1.), {"a": m.tensor([1., 2.])}], {}),
    "keys": lambda m: ({"a": 1}, {"b": 1}, {}),
    "lengths": lambda m: ([1, 2], [1], {}),
    "none": lambda m: (None, 1, {}),
    "bools": lambda m: (True, False, {}),
    "only_rtol": lambda m: (m.tensor([1.]), m.tensor([1.5]), {"rtol": 0.1}),
    "rtol_atol": lambda m: (m.tensor([1.]), m.tensor([1.5]), {"rtol": 0.1, "atol": 0.5}),
    "float16": lambda m: (m.tensor([1., 2.], dtype=m.float16), m.tensor([1.001, 2.], dtype=m.float16), {}),
    "float16_far": lambda m: (m.tensor([1., 2.], dtype=m.float16), m.tensor([1.1, 2.], dtype=m.float16), {}),
    "float64": lambda m: (m.tensor([1., 2.], dtype=m.float64), m.tensor([1., 2.000001], dtype=m.float64), {}),
    "uint8_2d": lambda m: (m.tensor([[1, 2], [3, 4]], dtype=m.uint8), m.tensor([[1, 2], [9, 4]], dtype=m.uint8), {}),
    "bool_tensor": lambda m: (m.tensor([True, False]), m.tensor([True, True]), {}),
    "stride": lambda m: (m.tensor([[1., 2.]]).t(), m.tensor([[1.], [2.]]), {"check_stride": True}),
    "grad_tensor": lambda m: (m.tensor([1., 2.], requires_grad=True) * 2, m.tensor([2., 4.1]), {}),
    "ok_within_tol": lambda m: (m.tensor([1., 2.]), m.tensor([1.000001, 2.]), {}),
    "no_subclasses": lambda m: (m.nn.Parameter(m.tensor([1.])), m.tensor([1.]), {"allow_subclasses": False}),
}


def _outcome(fn):
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", FutureWarning)
            fn()
    except Exception as e:  # noqa: BLE001 - the class and text are what is compared
        return type(e).__name__, str(e), _future(caught)
    return "ok", "", _future(caught)


def _future(caught):
    """The deprecation warnings torch.testing gives (pytest's own filters may let NumPy's through)."""
    return [(w.category.__name__, str(w.message)) for w in caught if w.category is FutureWarning]


@pytest.mark.parametrize("case", sorted(CASES))
def test_assert_close_as_torch(torch, case):
    def run(m):
        a, b, kw = CASES[case](m)
        return _outcome(lambda: m.testing.assert_close(a, b, **kw))
    c = run(core)   # core.nn's Parameter class is named core.nn.parameter.Parameter (core.Tensor: torch.Tensor)
    assert (c[0], c[1].replace("'core.nn.", "'torch.nn."), c[2]) == run(torch)


@pytest.mark.parametrize("pair", [
    lambda m: (m.tensor([1., 2.]), [1., 2.00001]), lambda m: (m.tensor([1., 2.]), [1., 2.1]),
    lambda m: ([1, 2], [1, 3]), lambda m: (m.tensor([1., NAN]), m.tensor([1., NAN])),
    lambda m: (m.tensor([1.], dtype=m.float64), m.tensor([1.000001], dtype=m.float64)),
])
def test_assert_allclose_deprecated_as_torch(torch, pair):
    def run(m):
        a, b = pair(m)
        return _outcome(lambda: m.testing.assert_allclose(a, b))
    assert run(core) == run(torch)


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "int64", "int32", "int8", "uint8", "bool"])
@pytest.mark.parametrize("kwargs", [{}, {"low": -1, "high": 1}, {"noncontiguous": True}, {"exclude_zero": True,
                                                                                         "low": 0, "high": 2}])
def test_make_tensor_draws_as_torch(torch, dtype, kwargs):
    def run(m):
        m.manual_seed(3)
        t = m.testing.make_tensor(3, 4, dtype=getattr(m, dtype), device="cpu", **kwargs)
        return str(t.dtype), tuple(t.shape), t.stride(), t.tolist(), t.requires_grad
    assert run(core) == run(torch)


def test_make_tensor_requires_grad_and_shape_forms(torch):
    def run(m):
        m.manual_seed(0)
        t = m.testing.make_tensor((2, 3), dtype=m.float32, device="cpu", requires_grad=True)
        u = m.testing.make_tensor([4], dtype=m.float64, device="cpu", low=-100, high=100)
        return t.requires_grad, t.is_leaf, t.tolist(), u.tolist()
    assert run(core) == run(torch)


@pytest.mark.parametrize("kwargs", [
    {"low": 3, "high": 1}, {"low": NAN}, {"requires_grad": True, "dtype": "int64"}, {"low": 1, "high": 1},
    {"noncontiguous": True, "memory_format": "contiguous_format"}, {"dtype": "uint8", "low": 300, "high": 400},
    {"dtype": "complex64"},
])
def test_make_tensor_errors_as_torch(torch, kwargs):
    def run(m):
        kw = {"dtype": "float32", "device": "cpu", **kwargs}
        kw["dtype"] = getattr(m, kw["dtype"], None)
        if "memory_format" in kw:
            kw["memory_format"] = getattr(m, kw["memory_format"])
        return _outcome(lambda: m.testing.make_tensor(2, **kw))
    c, t = run(core), run(torch)
    if kwargs.get("dtype") == "complex64":   # core has no complex dtypes: both refuse the request
        assert c[0] == "TypeError" and t[0] in ("ok", "TypeError")
        return
    assert c == t
