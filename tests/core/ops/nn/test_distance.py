"""cosine_similarity and pairwise_distance bit for bit with torch (one thread), values and gradients: both are
ATen composites over norm (its vectorised ord-2 kernel), div (div_tensor_other_backward's order) and sum."""
import numpy as np
import pytest

import core
from agreement import bits_equal as _bits_equal


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("transposed", [False, True])
def test_cosine_similarity_pairwise_distance_bits(torch, dtype, transposed):
    torch.set_num_threads(1)
    rng = np.random.default_rng(11)
    a, b = (rng.standard_normal((23, 37)).astype(dtype) for _ in range(2))
    cot = rng.standard_normal(37 if transposed else 23).astype(dtype)
    calls = [lambda F, x, y: F.cosine_similarity(x, y), lambda F, x, y: F.cosine_similarity(x, y, dim=0),
             lambda F, x, y: F.pairwise_distance(x, y), lambda F, x, y: F.pairwise_distance(x, y, p=1)]
    for call in calls:
        res = []
        for lib in (core, torch):
            x, y = (lib.from_numpy(v.copy()).requires_grad_(True) for v in (a, b))
            out = call(lib.nn.functional, x.t(), y.t()) if transposed else call(lib.nn.functional, x, y)
            c = lib.from_numpy(np.resize(cot, tuple(out.shape)).copy())
            res.append((out,) + lib.autograd.grad(out, (x, y), c))
        for o, r in zip(*res):
            _bits_equal(o, r)
