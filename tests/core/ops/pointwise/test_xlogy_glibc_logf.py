"""glibc's logf emulated in NumPy, checked against the C library's own logf (ctypes) and torch's xlogy kernel."""
import numpy as np

from core import _vec_math as vm
from core.ops.pointwise._glibc_logf import logf


def test_logf_is_the_c_librarys():
    rng = np.random.default_rng(11)
    x = np.concatenate([rng.integers(0, 0x7F800000, 20000, dtype=np.uint32).view(np.float32),
                        np.array([0, -0.0, 1, -1, np.inf, -np.inf, np.nan, 1e-45, 3e-39], np.float32)])
    ours, ref = logf(x), vm.clog(x)
    assert np.array_equal(ours, ref, equal_nan=True)
    assert np.array_equal(np.signbit(ours), np.signbit(ref))


def test_xlogy_kernel_is_torchs(torch):
    rng = np.random.default_rng(12)
    x, y = rng.standard_normal((2, 300)).astype(np.float32)
    y = np.abs(y)
    ref = torch.xlogy(torch.from_numpy(x), torch.from_numpy(y)).numpy()
    assert np.array_equal(x * logf(y), ref)
