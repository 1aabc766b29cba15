"""softmax / log_softmax and their gradients bit for bit with torch (one thread), float32 and float64, along every
dim of shapes whose sizes are not multiples of the vector width, contiguous and transposed (ATen's SoftMaxKernel
order with SLEEF's exp/log: core/ops/nn/_softmax_order.py)."""
import numpy as np
import pytest

import core

SHAPES = [(5, 7), (3, 13), (4, 6, 9), (2, 3, 33), (17,), (40, 2)]


def _bits(a):
    return np.ascontiguousarray(a).view(np.uint8)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("fn", ["softmax", "log_softmax"])
def test_values_and_grads_are_torchs(torch, dtype, fn):
    torch.set_num_threads(1)
    rng = np.random.default_rng(7)
    for shape in SHAPES:
        x = (rng.standard_normal(shape) * 3).astype(dtype)
        for transposed in (False, True):
            if transposed and len(shape) < 2:
                continue
            tx, cx = torch.from_numpy(x), core.tensor(x)
            if transposed:
                tx, cx = tx.transpose(0, -1), cx.transpose(0, -1)
            for dim in range(len(shape)):
                tx_ = tx.detach().requires_grad_()
                cx_ = cx.detach().requires_grad_()
                ty, cy = getattr(torch, fn)(tx_, dim), getattr(core, fn)(cx_, dim)
                g = rng.standard_normal(tuple(ty.shape)).astype(dtype)
                (tg,) = torch.autograd.grad(ty, tx_, torch.from_numpy(g))
                (cg,) = core.autograd.grad(cy, cx_, core.tensor(g))
                where = (shape, transposed, dim)
                assert np.array_equal(_bits(cy.detach().numpy()), _bits(ty.detach().numpy())), where
                assert np.array_equal(_bits(cg.numpy()), _bits(tg.numpy())), where


def test_no_graph_fast_path_gives_the_same_bits(torch):
    torch.set_num_threads(1)
    x = np.random.default_rng(3).standard_normal((6, 21)).astype(np.float32)
    assert np.array_equal(core.softmax(core.tensor(x), 1).numpy(), torch.softmax(torch.from_numpy(x), 1).numpy())
    assert np.array_equal(core.log_softmax(core.tensor(x), -1).numpy(),
                          torch.log_softmax(torch.from_numpy(x), -1).numpy())


_DEFAULT_ISA = r"""
import numpy as np, torch, core
torch.set_num_threads(1)
assert torch.backends.cpu.get_cpu_capability() == "DEFAULT"
rng = np.random.default_rng(2)
bad = []
for dt in (np.float32, np.float64):
    for shape, dim in (((5, 21), 1), ((21, 5), 0), ((3, 4, 9), 1)):
        x = rng.standard_normal(shape).astype(dt)
        g = rng.standard_normal(shape).astype(dt)
        for fn in ("softmax", "log_softmax"):
            tx, cx = torch.from_numpy(x).requires_grad_(), core.tensor(x, requires_grad=True)
            ty, cy = getattr(torch, fn)(tx, dim), getattr(core, fn)(cx, dim)
            (tg,) = torch.autograd.grad(ty, tx, torch.from_numpy(g))
            (cg,) = core.autograd.grad(cy, cx, core.tensor(g))
            if not (np.array_equal(ty.detach().numpy(), cy.detach().numpy())
                    and np.array_equal(tg.numpy(), cg.numpy())):
                bad.append((dt.__name__, shape, dim, fn))
print(bad)
"""


def test_the_default_isa_build_too(torch):
    """ATEN_CPU_CAPABILITY=default runs torch's DEFAULT kernels (8-float vectors whose exp/log are std::exp/log,
    generic lane order); core follows the same variable through core/_cpu.py."""
    import os
    import subprocess
    import sys
    env = dict(os.environ, ATEN_CPU_CAPABILITY="default")
    out = subprocess.run([sys.executable, "-c", _DEFAULT_ISA], env=env, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip() == "[]"
