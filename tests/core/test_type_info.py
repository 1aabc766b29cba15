"""torch.finfo / torch.iinfo against torch: every attribute, reprs and errors."""
from __future__ import annotations

import pytest

import core


@pytest.mark.parametrize("name", ["float32", "float64", "float16", None])
def test_finfo_equals_torchs(torch, name):
    got = core.finfo(getattr(core, name)) if name else core.finfo()
    want = torch.finfo(getattr(torch, name)) if name else torch.finfo()
    assert repr(got) == repr(want)
    for attr in ("bits", "eps", "max", "min", "tiny", "smallest_normal", "resolution", "dtype"):
        assert getattr(got, attr) == getattr(want, attr) and type(getattr(got, attr)) is type(getattr(want, attr))


@pytest.mark.parametrize("name", ["int64", "int32", "int16", "int8", "uint8"])
def test_iinfo_equals_torchs(torch, name):
    got, want = core.iinfo(getattr(core, name)), torch.iinfo(getattr(torch, name))
    assert repr(got) == repr(want)
    for attr in ("bits", "max", "min", "dtype"):
        assert getattr(got, attr) == getattr(want, attr)


@pytest.mark.parametrize("call", [lambda L: L.finfo(L.int32), lambda L: L.iinfo(L.float32), lambda L: L.iinfo(L.bool)])
def test_wrong_kind_of_dtype_is_torchs_error(torch, call):
    msgs = []
    for L in (core, torch):
        with pytest.raises(TypeError) as e:
            call(L)
        msgs.append(str(e.value))
    assert msgs[0] == msgs[1]


@pytest.mark.parametrize("dtype", ["int64", "int32", "int16", "int8", "uint8"])
@pytest.mark.parametrize("value", [1e10, float("inf"), float("-inf"), float("nan"), 40000, -300, 2 ** 63, -1, 3.7])
def test_full_checks_the_integer_conversion_as_torch(torch, dtype, value):
    """c10's checked_convert: a fill value an integer dtype cannot hold is torch's RuntimeError."""
    res = []
    for L in (core, torch):
        try:
            res.append(L.full((2,), value, dtype=getattr(L, dtype)).tolist())
        except RuntimeError as e:
            res.append(str(e))
    assert res[0] == res[1]
