"""Shared test helpers: compare core results with PyTorch (values, dtypes, shapes, grads, errors)."""
from __future__ import annotations

import gc
import os
import sys

import numpy as np
import pytest

# The checkout first (core, tensorcli, tests.*), then this directory for the shared helpers (harness, paths, ...).
# tests/core and tests/tensorcli have no __init__.py: as namespace portions they never shadow the packages.
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(1, os.path.dirname(os.path.abspath(__file__)))
os.environ.setdefault("_TYPER_FORCE_DISABLE_TERMINAL", "1")



def _cache_click_conversion():
    """Typer's CliRunner converts the app to a click command on every invoke; with ~400 op
    commands that costs seconds per call, so tests convert each app object once."""
    import typer.main
    import typer.testing
    orig, cache = typer.main.get_command, {}

    def cached(app):
        hit = cache.get(id(app))
        if hit is None or hit[0] is not app:
            hit = cache[id(app)] = (app, orig(app))
        return hit[1]
    typer.testing._get_command = cached


_cache_click_conversion()


def pytest_collection_finish(session):
    """The collected suite (op_db alone is ~700k objects) lives until the end: freeze it, so that full garbage
    collections (gen-2 passes, and pytest's five at exit, ~1 s each otherwise) skip it."""
    gc.collect()
    gc.freeze()


@pytest.fixture(scope="session")
def program_servers():
    """(torch, core as torch) program servers (tests/program_server.py), started once per worker."""
    pytest.importorskip("torch")
    import program_server
    pair = (program_server.ProgramServer(program_server.TORCH_PRELOAD),
            program_server.ProgramServer(program_server.CORE_PRELOAD))
    yield pair
    for s in pair:
        s.close()


_APPS = {}


def cli_app_with(modules=("ops",)):
    """One tensorcli app per module set for the whole session, so that typer converts it to click once."""
    if modules not in _APPS:
        from tensorcli import app as cli_app
        _APPS[modules] = cli_app.build_app(modules=modules)
    return _APPS[modules]

try:
    import torch as _torch
    _torch.set_num_threads(1)
except Exception:  # pragma: no cover - torch absent
    _torch = None


@pytest.fixture
def torch():
    """The PyTorch oracle; tests using it skip cleanly when torch is not installed."""
    if _torch is None:
        pytest.skip("torch not installed")
    return _torch


def to_numpy(x):
    if hasattr(x, "detach") and hasattr(x, "numpy"):
        try:
            return x.detach().numpy()
        except Exception:
            return np.asarray(x._data)
    return np.asarray(x)


def assert_same(c, t, *, rtol=1e-5, atol=1e-6, grad=False):
    """Assert a core tensor equals a torch tensor in shape, dtype name and values."""
    assert tuple(c.shape) == tuple(t.shape), f"shape {tuple(c.shape)} != {tuple(t.shape)}"
    assert str(c.dtype) == str(t.dtype), f"dtype {c.dtype} != {t.dtype}"
    np.testing.assert_allclose(to_numpy(c).astype(np.float64) if to_numpy(c).dtype != bool else to_numpy(c),
                               to_numpy(t).astype(np.float64) if to_numpy(t).dtype != bool else to_numpy(t),
                               rtol=rtol, atol=atol, equal_nan=True)


def same_error(fn_core, fn_torch):
    """Run both; assert both raise the same exception class (or neither raises). Returns (core_exc, torch_exc)."""
    ec = et = None
    try:
        fn_core()
    except Exception as e:  # noqa: BLE001
        ec = e
    try:
        fn_torch()
    except Exception as e:  # noqa: BLE001
        et = e
    assert (ec is None) == (et is None), f"core raised {ec!r}, torch raised {et!r}"
    if ec is not None:
        assert type(ec).__name__ == type(et).__name__ or isinstance(ec, type(et)), \
            f"core raised {type(ec).__name__}: {ec}; torch raised {type(et).__name__}: {et}"
    return ec, et
