"""Resampling of issue #14 vs torch: F.interpolate in every mode (sizes, scale factors, align_corners,
recompute_scale_factor, antialias, float32 and float64, large downscales where ATen's float32 index
arithmetic matters), upsample / upsample_nearest / upsample_bilinear, grid_sample and
torch.grid_sampler_2d/3d in every mode and padding (input and grid gradients), error classes and
messages, the Upsample modules, and the commands' examples."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import core
from core.ops.registry import OPS
from harness import assert_agree

RNG = np.random.default_rng(1414)
SHAPES = {1: (2, 3, 7), 2: (2, 3, 6, 7), 3: (2, 2, 4, 5, 6)}
MODE_DIMS = {"nearest": (1, 2, 3), "nearest-exact": (1, 2, 3), "linear": (1,), "bilinear": (2,), "bicubic": (2,),
             "trilinear": (3,), "area": (1, 2, 3)}

# (id, mode, kwargs builder(nd))
CASES = []
for _mode, _dims in MODE_DIMS.items():
    _ac = [None] if _mode in ("nearest", "nearest-exact", "area") else [False, True]
    for _nd in _dims:
        for _a in _ac:
            CASES += [(f"{_mode}-{_nd}d-size-ac{_a}", _mode, _nd, {"size": (5, 9, 4)[:_nd], "align_corners": _a}),
                      (f"{_mode}-{_nd}d-scale-ac{_a}", _mode, _nd, {"scale_factor": 1.7, "align_corners": _a}),
                      (f"{_mode}-{_nd}d-down-ac{_a}", _mode, _nd, {"scale_factor": (0.6, 0.45, 0.8)[:_nd],
                                                                     "align_corners": _a}),
                      (f"{_mode}-{_nd}d-recompute-ac{_a}", _mode, _nd, {"scale_factor": 1.3, "align_corners": _a,
                                                                          "recompute_scale_factor": True})]
CASES += [(f"{m}-antialias-{k}", m, 2, dict(kw, antialias=True, align_corners=a))
          for m in ("bilinear", "bicubic") for a in (False, True)
          for k, kw in (("down", {"size": (3, 4)}), ("up", {"scale_factor": 1.6}), ("mixed", {"size": (2, 11)}))]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_interpolate_matches_torch(torch, case, dtype):
    _, mode, nd, kw = case
    kw = {k: v for k, v in kw.items() if v is not None}
    x = torch.tensor(RNG.standard_normal(SHAPES[nd]), dtype=getattr(torch, dtype), requires_grad=True)
    assert_agree(core.nn.functional.interpolate, torch.nn.functional.interpolate, (x,), dict(kw, mode=mode), torch)


@pytest.mark.parametrize("mode", ["nearest", "nearest-exact", "bilinear", "bicubic"])
def test_interpolate_large_downscale_float32_indices(torch, mode):
    """345 -> 270 rows: ATen computes float32 source indices with a fused multiply-add; so does core."""
    x = torch.tensor(RNG.standard_normal((1, 2, 345, 97)), dtype=torch.float32)
    assert_agree(core.nn.functional.interpolate, torch.nn.functional.interpolate, (x, (270, 61)), {"mode": mode},
                 torch)


def test_interpolate_nearest_uint8(torch):
    x = torch.tensor(RNG.integers(0, 255, (1, 2, 5, 6)), dtype=torch.uint8)
    for kw in ({"size": (7, 4)}, {"scale_factor": 2.5}):
        for mode in ("nearest", "nearest-exact"):
            assert_agree(core.nn.functional.interpolate, torch.nn.functional.interpolate, (x,), dict(kw, mode=mode),
                         torch)


def test_upsample_functions_match_torch(torch):
    x = torch.tensor(RNG.standard_normal((1, 2, 3, 4)), requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for name, args in (("upsample_nearest", (None, 2)), ("upsample_bilinear", ((5, 7),)),
                           ("upsample", (None, 1.5, "bicubic", True))):
            assert_agree(getattr(core.nn.functional, name), getattr(torch.nn.functional, name), (x,) + args, {},
                         torch)


INTERP_ERRORS = [
    lambda F, L: F.interpolate(L.zeros(1, 2, 3), size=0),
    lambda F, L: F.interpolate(L.zeros(1, 2, 3, 4), size=(0, 2), mode="bilinear"),
    lambda F, L: F.interpolate(L.zeros(1, 2, 3, 4, 5), size=(0, 2, 1)),
    lambda F, L: F.interpolate(L.zeros(2, 0, 3, 4), size=(3, 2)),
    lambda F, L: F.interpolate(L.zeros(2, 1, 0, 4), size=(3, 2)),
    lambda F, L: F.interpolate(L.arange(12).reshape(1, 1, 3, 4), size=(3, 2)),
    lambda F, L: F.interpolate(L.arange(12).reshape(1, 1, 3, 4), size=(3, 2), mode="bilinear"),
    lambda F, L: F.interpolate(L.zeros(1, 2, 3), size=4, mode="bilinear"),
    lambda F, L: F.interpolate(L.zeros(1, 2, 3, 4), size=4, mode="trilinear"),
    lambda F, L: F.interpolate(L.zeros(1, 2, 3, 4, 5), size=4, mode="linear"),
    lambda F, L: F.interpolate(L.zeros(1, 2, 3), size=4, mode="foo"),
    lambda F, L: F.interpolate(L.zeros(2, 3), size=4),
    lambda F, L: F.interpolate(L.zeros(1, 2, 3), size=4, scale_factor=2.0),
    lambda F, L: F.interpolate(L.zeros(1, 2, 3), scale_factor=-2.0),
    lambda F, L: F.interpolate(L.zeros(1, 2, 3), size=4, align_corners=True),
    lambda F, L: F.interpolate(L.zeros(1, 2, 3), size=(4, 4)),
    lambda F, L: F.interpolate(L.zeros(1, 2, 3), size=[4.0]),
    lambda F, L: F.interpolate(L.zeros(1, 2, 3), scale_factor=(2, 2)),
    lambda F, L: F.interpolate(L.zeros(1, 2, 3), size=4, recompute_scale_factor=True),
    lambda F, L: F.interpolate(L.zeros(1, 2, 3)),
    lambda F, L: F.interpolate(L.zeros(1, 2, 3), size=4, mode="linear", antialias=True),
]


def _same_error(fn, torch):
    ec = et = None
    try:
        fn(core.nn.functional, core)
    except Exception as e:  # noqa: BLE001
        ec = e
    try:
        fn(torch.nn.functional, torch)
    except Exception as e:  # noqa: BLE001
        et = e
    assert et is not None and ec is not None, (ec, et)
    assert type(ec) is type(et) and str(ec) == str(et), (ec, et)


@pytest.mark.parametrize("i", range(len(INTERP_ERRORS)))
def test_interpolate_errors_match_torch(torch, i):
    _same_error(INTERP_ERRORS[i], torch)


GRID_CASES = [(nd, mode, pad, ac) for nd in (2, 3) for mode in ("bilinear", "nearest", "bicubic")
              for pad in ("zeros", "border", "reflection") for ac in (False, True)
              if not (nd == 3 and mode == "bicubic")]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("nd,mode,pad,ac", GRID_CASES)
def test_grid_sample_matches_torch(torch, nd, mode, pad, ac, dtype):
    dt = getattr(torch, dtype)
    x = torch.tensor(RNG.standard_normal(SHAPES[nd]), dtype=dt, requires_grad=True)
    gshape = (2, 4, 5, 2) if nd == 2 else (2, 3, 2, 4, 3)
    grid = torch.tensor(RNG.uniform(-1.4, 1.4, gshape), dtype=dt, requires_grad=True)
    assert_agree(core.nn.functional.grid_sample, torch.nn.functional.grid_sample, (x, grid, mode, pad, ac), {},
                 torch)
    name = f"grid_sampler_{nd}d"
    modes, pads = {"bilinear": 0, "nearest": 1, "bicubic": 2}, {"zeros": 0, "border": 1, "reflection": 2}
    assert_agree(getattr(core, name), getattr(torch, name), (x, grid, modes[mode], pads[pad], ac), {}, torch)


def test_grid_sample_large_float32(torch):
    """ATen unnormalizes float32 coordinates with a fused multiply-add; core's indices and weights agree."""
    x = torch.tensor(RNG.uniform(0, 255, (1, 2, 300, 400)), dtype=torch.float32)
    grid = torch.tensor(RNG.uniform(-1, 1, (1, 50, 60, 2)), dtype=torch.float32)
    assert_agree(core.nn.functional.grid_sample, torch.nn.functional.grid_sample, (x, grid), {"align_corners": False},
                 torch)


GRID_ERRORS = [
    lambda F, L: F.grid_sample(L.zeros(2, 3, 4, 5), L.zeros(2, 6, 7, 2, dtype=L.float64), align_corners=False),
    lambda F, L: F.grid_sample(L.zeros(2, 3, 4, 5), L.zeros(1, 6, 7, 2), align_corners=False),
    lambda F, L: F.grid_sample(L.zeros(2, 3, 4, 5), L.zeros(2, 6, 7, 3), align_corners=False),
    lambda F, L: F.grid_sample(L.zeros(2, 3, 0, 5), L.zeros(2, 6, 7, 2), align_corners=False),
    lambda F, L: F.grid_sample(L.zeros(2, 3, 4, 5), L.zeros(2, 6, 7, 2), mode="foo", align_corners=False),
    lambda F, L: F.grid_sample(L.zeros(2, 3, 4, 5), L.zeros(2, 6, 7, 2), padding_mode="foo", align_corners=False),
    lambda F, L: F.grid_sample(L.zeros(2, 3, 4, 5, 6), L.zeros(2, 1, 6, 7, 3), mode="bicubic", align_corners=False),
    lambda F, L: F.grid_sample(L.zeros(2, 3, 4, 5).long(), L.zeros(2, 6, 7, 2).long(), align_corners=False),
    lambda F, L: F.grid_sample(L.zeros(2, 3, 4, 5), L.zeros(2, 1, 6, 7, 2), align_corners=False),
    lambda F, L: L.grid_sampler_3d(L.zeros(2, 3, 4, 5), L.zeros(2, 6, 7, 2), 0, 0, False),
]


@pytest.mark.parametrize("i", range(len(GRID_ERRORS)))
def test_grid_sample_errors_match_torch(torch, i):
    _same_error(GRID_ERRORS[i], torch)


MODULES = [("Upsample(scale_factor=2, mode='bilinear')", (1, 2, 3, 4)), ("Upsample(size=(3, 4))", (1, 2, 5, 6)),
           ("Upsample(scale_factor=(1.5, 2.0), mode='bicubic', align_corners=True)", (1, 2, 3, 4)),
           ("Upsample(size=7, mode='linear')", (1, 2, 5)),
           ("Upsample(scale_factor=0.5, mode='area')", (1, 2, 4, 6, 8)),
           ("UpsamplingNearest2d(scale_factor=2)", (1, 2, 3, 4)), ("UpsamplingBilinear2d(size=5)", (1, 2, 3, 4))]


@pytest.mark.parametrize("spec,shape", MODULES, ids=[m[0] for m in MODULES])
def test_upsampling_modules_match_torch(torch, spec, shape):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        tm, cm = eval("torch.nn." + spec), eval("core.nn." + spec)   # noqa: S307 - literals above
        assert repr(cm) == repr(tm)
        x = torch.tensor(RNG.standard_normal(shape), requires_grad=True)
        assert_agree(cm, tm, (x,), {}, torch)


COMMANDS = {   # each command's cli_example as torch computes it: tests/core/ops/nn/test_nn_commands.py runs them
    "interpolate": lambda T: T.nn.functional.interpolate(T.tensor([[[1.0, 2, 4]]]), scale_factor=2, mode="linear"),
    "upsample_nearest": lambda T: T.nn.functional.interpolate(T.tensor([[[[1.0, 2], [3, 4]]]]), scale_factor=2),
    "upsample_bilinear": lambda T: T.nn.functional.interpolate(T.tensor([[[[1.0, 2], [3, 4]]]]), scale_factor=2,
                                                               mode="bilinear", align_corners=True),
}
