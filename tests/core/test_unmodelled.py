"""torch's submodules that ordinary programs import at the top (torch.onnx, torch.hub, torch.distributed,
torch.multiprocessing, torch.fx, ...) import under core; every name is one torch 2.13 has there, and using one
raises NotImplementedError naming it (names torch lacks: AttributeError, as torch)."""
from __future__ import annotations

from paths import ROOT

import importlib
import os
import subprocess
import sys

import pytest

import core
from core._unmodelled_names import NAMES

MODULES = sorted(NAMES)


@pytest.mark.parametrize("name", MODULES)
def test_imports_with_torchs_names(torch, name):
    ours = importlib.import_module("core." + name)
    theirs = importlib.import_module("torch." + name)
    assert all(hasattr(theirs, n) for n in NAMES[name])
    assert set(NAMES[name]) <= set(dir(ours))
    for attr in NAMES[name][:5]:
        value = getattr(ours, attr)
        if getattr(value, "_torch_name", None) is None:     # core provides it (is_available, stdlib re-exports)
            continue
        with pytest.raises(NotImplementedError, match=f"torch\\.{name}\\.{attr} is not modelled by core"):
            value()
        assert not isinstance(object(), value)
    with pytest.raises(AttributeError, match=f"module 'torch.{name}' has no attribute 'no_such_name'"):
        getattr(ours, "no_such_name")


def test_core_attribute_access_and_honest_availability(torch):
    for name in core._UNMODELLED:
        assert getattr(core, name).__name__ == "core." + name
    assert core.distributed.is_available() is False and core.distributed.is_initialized() is False
    assert torch.distributed.is_initialized() is False
    assert core.xpu.is_available() == torch.xpu.is_available() and core.xpu.device_count() == torch.xpu.device_count()
    assert core.multiprocessing.cpu_count() == torch.multiprocessing.cpu_count()
    assert core.multiprocessing.Process is torch.multiprocessing.Process


def test_a_program_importing_them_at_the_top_runs_under_core():
    """As a program sees it: `import torch` is core (alias_as_torch), the imports succeed, the unused names
    cost nothing, the used one raises; tensorboard fails as torch's does without the package."""
    code = (
        "import core; core.alias_as_torch()\n"
        "import torch, torch.onnx, torch.hub, torch.fx, torch.export, torch.overrides\n"
        "import torch.distributed as dist, torch.multiprocessing as mp\n"
        "from torch.nn.parallel import DistributedDataParallel as DDP\n"
        "from torch.utils.data.distributed import DistributedSampler\n"
        "from torch.ao.quantization import QuantStub\n"
        "print(dist.is_available() and dist.is_initialized(), torch.ones(2).sum().item())\n"
        "try:\n    DDP(torch.nn.Linear(2, 2))\nexcept NotImplementedError as e:\n    print(e)\n"
        "try:\n    import torch.utils.tensorboard\nexcept ModuleNotFoundError as e:\n    print(e)\n")
    env = {**os.environ, "PYTHONPATH": ROOT}
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, env=env)
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines() == [
        "False 2.0",
        "torch.nn.parallel.DistributedDataParallel is not modelled by core (a NumPy, CPU-only model of PyTorch)",
        "No module named 'tensorboard'"]
