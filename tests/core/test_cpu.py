"""core._cpu names the vector ISA torch's CPU dispatch runs on this machine (the NaN lanes of some activation
kernels depend on it)."""
import os
import subprocess
import sys

import pytest

from core import _cpu


def test_capability_is_torchs(torch):
    assert _cpu.capability() == torch.backends.cpu.get_cpu_capability().lower()


def test_environment_lowers_it_as_torchs():
    pytest.importorskip("torch")
    code = ("import torch, core._cpu as c; print(c.capability(), torch.backends.cpu.get_cpu_capability().lower())")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                         env=dict(os.environ, ATEN_CPU_CAPABILITY="default")).stdout.split()
    assert out == ["default", "default"]
