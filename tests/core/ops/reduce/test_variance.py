"""var / std / var_mean / std_mean bit for bit with torch: std_var_all_cpu for one output, Welford in double
otherwise (core/ops/reduce/_moments.py), and FunctionsManual's var_backward / std_backward / var_mean_backward."""
import numpy as np
import pytest

import core
from agreement import bits_equal as _bits_equal


CALLS = [("var", {}), ("var", {"dim": 0}), ("var", {"dim": 1, "keepdim": True}), ("var", {"dim": (0, 1), "correction": 0}),
         ("std", {}), ("std", {"dim": 1}), ("std", {"dim": 0, "correction": 0}), ("var_mean", {"dim": 1}),
         ("var_mean", {}), ("std_mean", {"dim": 0}), ("std_mean", {"dim": (0, 2)}), ("var", {"dim": (0, 2)})]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("transposed", [False, True])
def test_moments_bits_and_grads(torch, dtype, transposed):
    rng = np.random.default_rng(7)
    a = (rng.standard_normal((6, 37, 5)) * 3 + 0.01).astype(dtype)
    for name, kw in CALLS:
        res = []
        for lib in (core, torch):
            x = lib.from_numpy(a.copy())
            x = (x.transpose(0, 2).contiguous().transpose(0, 2) if transposed else x).requires_grad_(True)
            out = getattr(lib, name)(x, **kw)
            outs = out if isinstance(out, tuple) else (out,)
            cots = [lib.from_numpy(np.random.default_rng(1).standard_normal(tuple(o.shape)).astype(dtype)) for o in outs]
            (g,) = lib.autograd.grad(outs, x, cots)
            res.append((outs, g))
        for o, r in zip(res[0][0], res[1][0]):
            _bits_equal(o, r)
        _bits_equal(res[0][1], res[1][1])


def test_var_mean_one_gradient_and_degenerate(torch):
    a = np.random.default_rng(2).standard_normal((4, 9)).astype(np.float32)
    for lib_grads in ("mean", "var"):
        res = []
        for lib in (core, torch):
            x = lib.from_numpy(a.copy()).requires_grad_(True)
            v, m = lib.var_mean(x, 1)
            (g,) = lib.autograd.grad(m.sum() if lib_grads == "mean" else v.sum(), x)
            res.append(g)
        _bits_equal(*res)
    with pytest.warns(UserWarning):
        ours = core.var(core.tensor([[1.0], [2.0]]), 1)
    ref = torch.var(torch.tensor([[1.0], [2.0]]), 1)
    _bits_equal(ours, ref)
    for v in ([1.0, float("inf"), 2.0], [float("nan"), 1.0], [3.0, 3.0, 3.0]):
        _bits_equal(core.var(core.tensor(v)), torch.var(torch.tensor(v)))
        _bits_equal(core.std(core.tensor([v, v]), 1), torch.std(torch.tensor([v, v]), 1))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape,dim", [((70, 60), None), ((4100, 3), 0), ((3, 2100, 2), (1, 2)), ((2100, 30), 0)])
def test_var_mean_past_2048_elements_bits(torch, dtype, shape, dim):
    """WelfordOps over more than 2048 elements: float64 walks every step (Python floats for few outputs), float32
    checks the two-pass' error bound and walks the outputs it cannot decide."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        x = np.random.default_rng(len(shape)).standard_normal(shape).astype(dtype) + 3
        for name in ("var_mean", "std_mean"):
            outs = []
            for lib in (core, torch):
                t = lib.from_numpy(x)
                r = getattr(lib, name)(t) if dim is None else getattr(lib, name)(t, dim)
                outs.append([a.numpy().tobytes() for a in r])
            assert outs[0] == outs[1], name
    finally:
        torch.set_num_threads(threads)
