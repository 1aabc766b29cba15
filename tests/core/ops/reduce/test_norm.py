"""norm / linalg.vector_norm bit for bit with torch (one thread): norm_kernel_tensor_iterator_impl's vectorised
ord-2 path over a contiguous innermost reduced dim (its contracted tail included), the sequential NormOps folds
in TensorIterator's order otherwise, the 1-D shortcut, and norm_backward's formulas (ord 1, 2, 3, 0.5, inf)."""
import numpy as np
import pytest

import core
from agreement import bits_equal as _bits_equal

INF = float("inf")


def _layout(lib, a, layout):
    x = lib.from_numpy(a.copy())
    if layout == "transposed":
        return x.transpose(0, 2).contiguous().transpose(0, 2)
    if layout == "permuted":
        return x.permute(1, 2, 0).contiguous().permute(2, 0, 1)
    if layout == "sliced":
        return x[:, 1:, ::2]
    return x


# (3, 13, 21): reduced rows of 13 (a float tail of 5: its SSE product of four, then one FMA) and 21 (tail 5 /
# double tail 1), all of them at once (273 / 819 elements), a dim of size 3 (the whole row in the tail)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("layout", ["contiguous", "transposed", "permuted", "sliced"])
def test_vector_norm_bits_and_grads(torch, dtype, layout):
    torch.set_num_threads(1)
    rng = np.random.default_rng(7)
    a = rng.standard_normal((3, 13, 21)).astype(dtype)
    for ord in (2, 1, 3, 0.5, INF):
        for dim in (None, 0, 1, 2, (0, 2), (1, 2)):
            res = []
            for lib in (core, torch):
                x = _layout(lib, a, layout).requires_grad_(True)
                out = lib.linalg.vector_norm(x, ord, dim)
                cot = lib.from_numpy(np.linspace(-1, 2, out.numel()).astype(dtype).reshape(tuple(out.shape)))
                (g,) = lib.autograd.grad(out, x, cot)
                res.append((out, g))
            _bits_equal(res[0][0], res[1][0])
            _bits_equal(res[0][1], res[1][1])


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_norm_tails_and_shortcuts(torch, dtype):
    """Every tail length of the vectorised ord-2 rows (n = 1..19), one row and many; a reduction over
    size-1 dims is |x| (ord 3 too, where pow(pow(|x|, 3), 1/3) would differ); norm() and Tensor.norm."""
    torch.set_num_threads(1)
    rng = np.random.default_rng(8)
    for n in range(1, 20):
        a = rng.standard_normal((40, n)).astype(dtype)
        for lib_args in ((1,), ()):
            got = core.linalg.vector_norm(core.from_numpy(a), 2, *lib_args)
            _bits_equal(got, torch.linalg.vector_norm(torch.from_numpy(a), 2, *lib_args))
    a = rng.standard_normal((6, 1, 5)).astype(dtype)
    for ord in (2, 3, 0.5):
        _bits_equal(core.linalg.vector_norm(core.from_numpy(a), ord, 1),
                    torch.linalg.vector_norm(torch.from_numpy(a), ord, 1))
    a = rng.standard_normal((7, 19)).astype(dtype)      # broadcast (stride-0) dims: TensorIterator's order
    for expand, dim in (((3, 7, 19), (0, 2)), ((7, 19), 1)):
        src = (lambda lib: lib.from_numpy(a)[None].expand(*expand)) if len(expand) == 3 else \
            (lambda lib: lib.from_numpy(a)[:, :1].expand(*expand))
        _bits_equal(core.linalg.vector_norm(src(core), 2, dim), torch.linalg.vector_norm(src(torch), 2, dim))
    a = rng.standard_normal((32, 96)).astype(dtype)
    _bits_equal(core.from_numpy(a).norm(), torch.from_numpy(a).norm())
    _bits_equal(core.norm(core.from_numpy(a).t(), p=1, dim=0), torch.norm(torch.from_numpy(a).t(), p=1, dim=0))
    _bits_equal(core.norm(core.from_numpy(a), dim=(0, 1)), torch.norm(torch.from_numpy(a), dim=(0, 1)))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_dist_bits_and_grads(torch, dtype):
    """dist = norm(x - y, p): forward and both gradients (norm_backward, negated for y)."""
    torch.set_num_threads(1)
    rng = np.random.default_rng(9)
    a, b = (rng.standard_normal((17, 11)).astype(dtype) for _ in range(2))
    for p in (2, 1, 3, INF):
        res = []
        for lib in (core, torch):
            x, y = (lib.from_numpy(v.copy()).requires_grad_(True) for v in (a, b))
            out = lib.dist(x.t(), y.t(), p)
            res.append((out,) + lib.autograd.grad(out, (x, y), lib.tensor(0.75, dtype=out.dtype)))
        for o, r in zip(*res):
            _bits_equal(o, r)
