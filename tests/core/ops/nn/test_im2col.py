"""F.unfold and F.fold (core/ops/nn/im2col.py) against torch: batched and unbatched, kernel/dilation/padding/
stride forms, errors."""
from __future__ import annotations

import pytest

from tests.core.nn.test_functional import both_errors, f32, run


@pytest.mark.parametrize("kw", [dict(kernel_size=2),
                                dict(kernel_size=(2, 3), dilation=(1, 2), padding=1, stride=(2, 1))])
def test_unfold(torch, kw):
    run(torch, lambda T, F, x: F.unfold(x, **kw), f32(2, 3, 8, 9))


def test_unfold_unbatched(torch):
    run(torch, lambda T, F, x: F.unfold(x, 2), f32(3, 5, 5))


def test_fold(torch):
    run(torch, lambda T, F, x: F.fold(x, (6, 7), (2, 3), padding=1, stride=(2, 1)), f32(2, 24, 28))


def test_fold_unbatched(torch):
    run(torch, lambda T, F, x: F.fold(x, (4, 4), 2), f32(12, 9))


@pytest.mark.parametrize("case", [
    (lambda T, F, x: F.unfold(x, 9), (2, 3, 8, 8)),
    (lambda T, F, x: F.unfold(x, 0), (2, 3, 8, 8)),
    (lambda T, F, x: F.unfold(x, 2, stride=0), (2, 3, 8, 8)),
    (lambda T, F, x: F.unfold(x, 2, padding=-1), (2, 3, 8, 8)),
    (lambda T, F, x: F.unfold(x, 2), (8, 8)),
    (lambda T, F, x: F.unfold(x, 2), (1, 1, 1, 8, 8)),
    (lambda T, F, x: F.fold(x, (4, 4), 2), (1, 13, 9)),
    (lambda T, F, x: F.fold(x, (4, 4), 2), (1, 12, 8)),
    (lambda T, F, x: F.fold(x, (4, 4), 2), (1, 12, 9, 1)),
])
def test_unfold_fold_errors(torch, case):
    fn, shape = case
    both_errors(torch, fn, f32(*shape))

