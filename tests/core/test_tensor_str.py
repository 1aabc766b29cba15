"""core._tensor_str must print exactly what PyTorch's repr(tensor) prints."""
import math

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from hypothesis import given, settings, HealthCheck, strategies as st  # noqa: E402
from hypothesis.extra import numpy as hnp  # noqa: E402

from core import dtypes  # noqa: E402
from core._tensor_str import (  # noqa: E402
    format_tensor,
    get_printoptions,
    printoptions,
    set_printoptions,
)

ALL_DTYPES = [d.name for d in dtypes.ALL]
FLOAT_DTYPES = ["float16", "float32", "float64"]
INT_DTYPES = ["uint8", "int8", "int16", "int32", "int64"]


def torch_repr(arr):
    # np.array(..., copy=True) keeps 0-d arrays 0-d and gives torch positive strides
    return repr(torch.from_numpy(np.array(arr, copy=True)))


def ours(arr, **kw):
    arr = np.asarray(arr)
    return format_tensor(arr, dtypes.from_numpy_dtype(arr.dtype), **kw)


def assert_same(arr):
    arr = np.asarray(arr)
    assert ours(arr) == torch_repr(arr)


@pytest.fixture
def reset_printoptions():
    """Restore PyTorch's and core's print options (and default dtypes) after a test."""
    yield
    set_printoptions(profile="default")
    torch.set_printoptions(profile="default")
    dtypes.set_default_dtype(dtypes.float32)
    torch.set_default_dtype(torch.float32)


def set_both(**kw):
    set_printoptions(**kw)
    torch.set_printoptions(**kw)


# ---------------------------------------------------------------- basic values

def test_int_matrix():
    assert ours(np.array([[1, 2], [3, 4]])) == "tensor([[1, 2],\n        [3, 4]])"


def test_fixed_point_floats():
    a = np.array([0.4, 4.0, 0.004], np.float32)
    assert ours(a) == "tensor([0.4000, 4.0000, 0.0040])" == torch_repr(a)


def test_sci_mode_when_ratio_is_10000():
    # max/min = 1e4 > 1000, so PyTorch switches to scientific notation here
    a = np.array([0.4, 4.0, 0.0004], np.float32)
    assert ours(a) == "tensor([4.0000e-01, 4.0000e+00, 4.0000e-04])" == torch_repr(a)


def test_sci_mode_when_min_below_1e_minus_4():
    a = np.array([1e-4, 1.0], np.float32)  # float32(1e-4) is just below 1e-4
    assert ours(a) == "tensor([1.0000e-04, 1.0000e+00])" == torch_repr(a)


def test_sci_mode_when_ratio_above_1000():
    assert_same(np.array([1.0, 1001.5], np.float32))


def test_sci_mode_when_max_above_1e8():
    assert_same(np.array([1.5e8, 2.5e8], np.float32))


def test_sci_mode_with_three_digit_exponent():
    assert_same(np.array([1e308, 1e-308, 5e-324], np.float64))


def test_zero_dim_float_int_mode():
    assert ours(np.array(3.0, np.float32)) == "tensor(3.)"


@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_zero_dim_every_dtype(dtype):
    assert_same(np.array(1, dtype=dtype))


def test_zero_dim_fractional_float():
    assert_same(np.array(-0.123456, np.float32))


@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_vector_every_dtype(dtype):
    assert_same(np.array([0, 1, 1, 0, 1], dtype=dtype))


def test_ints_of_mixed_widths_are_right_aligned():
    assert_same(np.array([[1, -200, 3], [40000, 5, -6]], np.int64))


@pytest.mark.parametrize("dtype", INT_DTYPES)
def test_integer_extremes(dtype):
    info = np.iinfo(dtype)
    assert_same(np.array([info.min, 0, info.max], dtype=dtype))


def test_negative_floats():
    assert_same(np.array([[-1.5, 2.25], [3.125, -4.0]], np.float32))


def test_bool_matrix():
    assert ours(np.array([True, False])) == "tensor([ True, False])"
    assert_same(np.array([[True, False], [False, True]]))


def test_all_true_bool():
    assert_same(np.array([True, True]))


def test_float_int_mode_with_large_ints():
    assert_same(np.array([1.0, 100.0, -12.0], np.float32))


def test_nan_inf_mix():
    assert_same(np.array([np.nan, np.inf, -np.inf, 1.5, -2.0], np.float32))


def test_nan_inf_with_int_mode():
    assert_same(np.array([np.nan, 1.0, -np.inf], np.float32))


def test_nan_inf_with_sci_mode():
    assert_same(np.array([np.nan, 1e-8, np.inf, 1.0], np.float32))


def test_only_nonfinite_and_zero():
    assert_same(np.array([np.nan, 0.0, np.inf], np.float32))


def test_negative_zero():
    assert_same(np.array([-0.0, 0.0, 1.0], np.float32))
    assert_same(np.array([-0.0, 0.5], np.float32))
    assert_same(np.array(-0.0, np.float32))


def test_all_zeros_float():
    assert_same(np.zeros((2, 3), np.float32))


def test_float16_values():
    assert_same(np.array([0.1, 65504, -3.0, 6e-8], np.float16))


def test_float64_has_dtype_suffix():
    a = np.array([1.0, 2.5], np.float64)
    assert ours(a) == "tensor([1.0000, 2.5000], dtype=torch.float64)" == torch_repr(a)


def test_int32_has_dtype_suffix():
    assert ours(np.array([1, 2], np.int32)) == "tensor([1, 2], dtype=torch.int32)"


def test_float32_precision_rounding():
    assert_same(np.array([1.00005, 2.99995, 0.33333334], np.float32))


def test_rounding_carries_into_extra_digit():
    assert_same(np.array([9.99996, 0.5], np.float32))


# ---------------------------------------------------------------- dimensions

@pytest.mark.parametrize("shape", [(2, 3), (2, 3, 4), (2, 1, 3, 2), (1, 1, 1, 1)])
def test_nested_dims_blank_lines(shape):
    rng = np.random.default_rng(0)
    assert_same(rng.standard_normal(shape).astype(np.float32))


@pytest.mark.parametrize("shape", [(2, 3), (2, 2, 2), (2, 1, 2, 3)])
def test_nested_dims_ints(shape):
    assert_same(np.arange(math.prod(shape)).reshape(shape) * 7 - 20)


def test_non_contiguous_input():
    a = np.arange(24, dtype=np.float32).reshape(4, 6)[::-1, ::2]
    assert ours(a) == repr(torch.tensor(a.copy()))


# ---------------------------------------------------------------- empty tensors

def test_empty_1d_float_has_no_suffix():
    assert ours(np.array([], np.float32)) == "tensor([])"


def test_empty_1d_int64_has_dtype_suffix():
    assert ours(np.array([], np.int64)) == "tensor([], dtype=torch.int64)"


@pytest.mark.parametrize("shape", [(0,), (0, 3), (3, 0), (2, 0, 4), (0, 0, 0, 1)])
@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "bool", "uint8"])
def test_empty_shapes_and_dtypes(shape, dtype):
    assert_same(np.zeros(shape, dtype=dtype))


def test_empty_size_suffix():
    assert ours(np.zeros((0, 3), np.float32)) == "tensor([], size=(0, 3))"


# ---------------------------------------------------------------- summarisation

def test_1000_elements_not_summarised():
    a = np.arange(1000)
    assert "..." not in ours(a)
    assert_same(a)


def test_1001_elements_summarised_1d():
    assert_same(np.arange(1001))


def test_summarised_2d():
    assert_same(np.arange(2000, dtype=np.float32).reshape(40, 50) / 7)


def test_summarised_3d_with_short_leading_dim():
    assert_same(np.arange(3 * 20 * 30).reshape(3, 20, 30))


def test_summarised_4d():
    rng = np.random.default_rng(1)
    assert_same(rng.standard_normal((8, 2, 9, 10)).astype(np.float32))


def test_summary_width_ignores_hidden_elements():
    a = np.zeros(2000, np.int64)
    a[1000] = 10 ** 12  # hidden by the summary: must not widen the columns
    assert ours(a) == torch_repr(a)
    assert "1000000000000" not in ours(a)


def test_summary_format_ignores_hidden_elements():
    a = np.ones(2000, np.float32)
    a[1000] = 0.5  # hidden: would switch off int_mode if it were considered
    assert_same(a)


# ---------------------------------------------------------------- line wrapping

def test_wide_row_wraps_at_80_columns():
    a = np.arange(40, dtype=np.float32) * 1.5
    out = ours(a)
    assert max(len(line) for line in out.splitlines()) <= 80
    assert out == torch_repr(a)


def test_wide_int_rows_wrap_in_matrix():
    assert_same(np.arange(3 * 45).reshape(3, 45) * 1001)


def test_wrapping_in_3d():
    rng = np.random.default_rng(2)
    assert_same(rng.standard_normal((2, 2, 20)).astype(np.float64))


def test_very_wide_elements_one_per_line():
    assert_same(np.array([1e30, -1e-30, 3.0] * 20, np.float64))


# ---------------------------------------------------------------- suffixes

def test_requires_grad_suffix():
    t = torch.tensor([1.0, 2.0], requires_grad=True)
    assert ours(t.detach().numpy(), suffixes=["requires_grad=True"]) == repr(t)


def test_grad_fn_suffix_on_multiline_tensor():
    t = torch.tensor([[1.5, 2.0], [3.0, 4.0]], requires_grad=True) * 2
    assert ours(t.detach().numpy(), suffixes=["grad_fn=<MulBackward0>"]) == repr(t)


def test_dtype_then_grad_suffix_order():
    t = torch.tensor([[1.5, 2.0], [3.0, 4.0]], dtype=torch.float64, requires_grad=True) * 2
    assert ours(t.detach().numpy(), suffixes=["grad_fn=<MulBackward0>"]) == repr(t)


def test_suffix_wraps_when_last_line_too_long():
    t = torch.arange(12.0).reshape(1, 12).to(torch.float64).requires_grad_() * 1.25
    out = ours(t.detach().numpy(), suffixes=["grad_fn=<MulBackward0>"])
    assert out == repr(t)
    assert "\n       grad_fn" in out


def test_suffix_wraps_on_wrapped_vector():
    t = torch.linspace(-3, 3, 30, dtype=torch.float64).requires_grad_()
    assert ours(t.detach().numpy(), suffixes=["requires_grad=True"]) == repr(t)


def test_parameter_prefix():
    p = torch.nn.Parameter(torch.tensor([[0.25, -1.0], [2.0, 3.5]]))
    out = ours(p.detach().numpy(), suffixes=["requires_grad=True"],
               prefix="Parameter containing:\ntensor(")
    assert out == repr(p)


def test_parameter_prefix_with_wrapped_suffix():
    p = torch.nn.Parameter(torch.arange(18.0, dtype=torch.float64).reshape(2, 9) / 3)
    out = ours(p.detach().numpy(), suffixes=["requires_grad=True"],
               prefix="Parameter containing:\ntensor(")
    assert out == repr(p)


def test_dtype_argument_accepts_name_and_casts():
    a = np.array([1, 2, 3])
    assert format_tensor(a, "float64") == repr(torch.tensor([1, 2, 3], dtype=torch.float64))
    assert format_tensor(a, dtypes.int16) == repr(torch.tensor([1, 2, 3], dtype=torch.int16))


# ---------------------------------------------------------------- print options

def test_default_printoptions_match_torch():
    assert get_printoptions() == torch._tensor_str.get_printoptions()


@pytest.mark.parametrize("profile", ["default", "short", "full"])
def test_profiles_match_torch(reset_printoptions, profile):
    set_both(profile=profile)
    assert get_printoptions() == torch._tensor_str.get_printoptions()
    assert_same(np.arange(1200, dtype=np.float32).reshape(30, 40) / 3)


def test_precision_option(reset_printoptions):
    set_both(precision=2)
    assert_same(np.array([1.12345, 2.5], np.float32))
    assert_same(np.array([1e-6, 2.5], np.float32))


def test_precision_zero(reset_printoptions):
    set_both(precision=0)
    assert_same(np.array([1.6, -2.4, 1e-6], np.float64))


@pytest.mark.parametrize("sci_mode", [True, False])
def test_sci_mode_option(reset_printoptions, sci_mode):
    set_both(sci_mode=sci_mode)
    assert_same(np.array([1e-6, 1.0, 3.0], np.float32))
    assert_same(np.array([1.0, 3.0], np.float32))
    assert_same(np.array([0.0, np.nan], np.float32))


def test_sci_mode_resets_when_omitted(reset_printoptions):
    set_printoptions(sci_mode=True)
    set_printoptions(precision=4)
    assert get_printoptions()["sci_mode"] is None


def test_threshold_option(reset_printoptions):
    set_both(threshold=5)
    assert ours(np.arange(10)) == "tensor([0, 1, 2,  ..., 7, 8, 9])" == torch_repr(np.arange(10))
    assert_same(np.arange(60).reshape(3, 4, 5))


def test_edgeitems_option(reset_printoptions):
    set_both(threshold=10, edgeitems=1)
    assert_same(np.arange(120.0).reshape(4, 5, 6))


def test_edgeitems_zero_adds_size_suffix(reset_printoptions):
    set_both(threshold=3, edgeitems=0)
    assert_same(np.arange(10))
    assert_same(np.arange(24).reshape(2, 3, 4))
    assert_same(np.array([1, 2]))


def test_linewidth_option(reset_printoptions):
    set_both(linewidth=30)
    assert_same(np.arange(20, dtype=np.float32) / 3)
    t = torch.arange(10.0, dtype=torch.float64).requires_grad_()
    assert ours(t.detach().numpy(), suffixes=["requires_grad=True"]) == repr(t)


def test_printoptions_context_manager_restores():
    before = get_printoptions()
    with printoptions(precision=1, threshold=3):
        assert get_printoptions()["precision"] == 1
    assert get_printoptions() == before


def test_float64_default_dtype_makes_float32_print_dtype(reset_printoptions):
    dtypes.set_default_dtype(dtypes.float64)
    torch.set_default_dtype(torch.float64)
    assert_same(np.array([1.5, 2.0], np.float32))
    assert_same(np.array([1.5, 2.0], np.float64))
    assert_same(np.array([], np.float32))
    assert_same(np.array([], np.float64))


# ---------------------------------------------------------------- property tests

_SHAPES = hnp.array_shapes(min_dims=0, max_dims=4, min_side=0, max_side=5)


@st.composite
def _arrays(draw):
    dtype = np.dtype(draw(st.sampled_from(ALL_DTYPES)))
    if dtype.kind == "f":
        # Mix a "typical" scale with fully arbitrary values (nan, inf, subnormals, -0.0).
        elements = draw(st.sampled_from([
            hnp.from_dtype(dtype),
            hnp.from_dtype(dtype, min_value=-1000, max_value=1000, allow_nan=False),
            st.integers(-50, 50).map(float),
        ]))
    else:
        elements = hnp.from_dtype(dtype)
    big = draw(st.integers(0, 9)) == 0
    shape = draw(st.sampled_from([(1001,), (3, 400), (11, 10, 10)]) if big else _SHAPES)
    return draw(hnp.arrays(dtype, shape, elements=elements))


@settings(max_examples=200, deadline=None, suppress_health_check=list(HealthCheck))
@given(_arrays())
def test_property_matches_torch_repr(arr):
    assert ours(arr) == torch_repr(arr)


@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(
    arr=_arrays(),
    precision=st.integers(0, 8),
    threshold=st.sampled_from([1, 5, 20, 1000]),
    edgeitems=st.integers(0, 4),
    linewidth=st.integers(10, 120),
    sci_mode=st.sampled_from([None, True, False]),
)
def test_property_matches_torch_repr_under_printoptions(
        arr, precision, threshold, edgeitems, linewidth, sci_mode):
    t = torch.from_numpy(np.array(arr, copy=True))
    suffixes = []
    if t.is_floating_point():
        t.requires_grad_()
        suffixes = ["requires_grad=True"]
    try:
        set_both(precision=precision, threshold=threshold, edgeitems=edgeitems,
                 linewidth=linewidth, sci_mode=sci_mode)
        assert ours(arr, suffixes=suffixes) == repr(t)
    finally:
        set_printoptions(profile="default")
        torch.set_printoptions(profile="default")
