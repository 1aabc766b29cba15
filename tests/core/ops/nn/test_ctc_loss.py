"""F.ctc_loss / nn.CTCLoss side by side with torch: values per reduction, padded and concatenated targets,
unbatched input, impossible alignments (inf, zero_infinity), grad_fn names and gradients."""
from __future__ import annotations

import pytest

import core
from conftest import assert_same, same_error


def _env(lib, dtype="float64"):
    g = lib.Generator().manual_seed(0)
    lp = lib.randn(6, 2, 5, generator=g, dtype=getattr(lib, dtype)).log_softmax(2).detach().requires_grad_()
    return {"lib": lib, "F": lib.nn.functional, "lp": lp, "tg": lib.tensor([[1, 2, 2], [3, 1, 0]]),
            "il": lib.tensor([6, 5]), "tl": lib.tensor([3, 2])}


CASES = [
    "F.ctc_loss(lp, tg, il, tl)", "F.ctc_loss(lp, tg, il, tl, reduction='sum')",
    "F.ctc_loss(lp, tg, il, tl, reduction='none')", "F.ctc_loss(lp, tg, il, tl, reduction='none', zero_infinity=True)",
    "F.ctc_loss(lp, tg, (6, 5), (3, 2))", "F.ctc_loss(lp[:, 0], tg[0], lib.tensor(6), lib.tensor(3))",
    "F.ctc_loss(lp[:, 0], tg[0], lib.tensor(6), lib.tensor(3), reduction='none')",
    "F.ctc_loss(lp, lib.tensor([1, 2, 2, 3, 1]), il, tl)",
    "F.ctc_loss(lp[:2], tg, lib.tensor([2, 2]), tl, reduction='none')",
    "F.ctc_loss(lp[:2], tg, lib.tensor([2, 2]), tl, reduction='none', zero_infinity=True)",
    "F.ctc_loss(lp, tg, il, lib.tensor([0, 1]), reduction='none')", "lib.nn.CTCLoss(blank=4)(lp, tg, il, tl)",
    "lib.nn.CTCLoss(reduction='sum', zero_infinity=True)(lp[:2], tg, lib.tensor([2, 2]), tl)",
    "F.ctc_loss(lp, tg, il, tl, blank=2, reduction='none')", "lib.ctc_loss(lp, tg, il, tl)",
    "lib.ctc_loss(lp, tg, [6, 5], [3, 2], 0, 1)", "lib.ctc_loss(lp, tg, il, tl, 0, 2, True)"]


@pytest.mark.parametrize("expr", CASES)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_ctc_loss_values(torch, expr, dtype):
    ec, et = same_error(lambda: eval(expr, _env(core, dtype)), lambda: eval(expr, _env(torch, dtype)))
    if ec is not None:
        assert str(ec) == str(et)
        return
    c, t = eval(expr, _env(core, dtype)), eval(expr, _env(torch, dtype))
    assert_same(c, t, rtol=1e-5 if dtype == "float32" else 1e-10, atol=1e-5 if dtype == "float32" else 1e-10)
    assert c.grad_fn.name() == t.grad_fn.name()


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("short", [False, True])
def test_ctc_loss_gradients(torch, reduction, short):
    def grad(lib):
        env = _env(lib)
        lp, il = (env["lp"][:3], lib.tensor([3, 3])) if short else (env["lp"], env["il"])
        r = env["F"].ctc_loss(lp, env["tg"], il, env["tl"], reduction=reduction, zero_infinity=short)
        (r.sum() if reduction == "none" else r).backward()
        return env["lp"].grad
    assert_same(grad(core), grad(torch), rtol=1e-9, atol=1e-10)


ERROR_CASES = [
    "F.ctc_loss(lp, tg, il, tl, blank=-1)", "F.ctc_loss(lp, tg, il, tl, blank=5)",
    "F.ctc_loss(lp, tg, [6], [3, 2])", "F.ctc_loss(lp, tg, [6, 5], [3, 2, 1])",
    "F.ctc_loss(lp, tg, [6, -1], [3, 2])", "F.ctc_loss(lp, tg, [6, 7], [3, 2])",
    "F.ctc_loss(lp, tg, il, lib.tensor([3, -1]))", "F.ctc_loss(lp, tg, il, lib.tensor([3, 4]))",
    "F.ctc_loss(lp, lib.tensor([1, 2, 2, 3]), il, tl)", "F.ctc_loss(lp, lib.tensor([1, 2, 2, 3, 1]), il, [3, -1])",
    "F.ctc_loss(lp, tg[:1], il, tl)", "F.ctc_loss(lp, tg.unsqueeze(0), il, tl)", "F.ctc_loss(lp, lib.tensor(1), il, tl)",
    "F.ctc_loss(lp.long(), tg, il, tl)", "F.ctc_loss(lp.half(), tg, il, tl)", "F.ctc_loss(lp[:0], tg, [0, 0], tl)",
    "F.ctc_loss(lp[:0].long(), tg, [0, 0], tl)", "F.ctc_loss(lp.unsqueeze(0)[:, :0], tg, il, tl)",
    "F.ctc_loss(lp.unsqueeze(0), tg, il, tl, blank=9)", "F.ctc_loss(lp[:, 0, 0], tg, il, tl)",
    "F.ctc_loss(lp, tg, il.double(), tl)", "F.ctc_loss(lp, tg, il, tl.double())", "F.ctc_loss(lp, tg, il.bool(), tl)",
    "F.ctc_loss(lp, tg, il, [3, 2])", "F.ctc_loss(lp, tg, [6, 5], tl)", "F.ctc_loss(lp[:, :1], tg[:1], 6, 3)",
    "F.ctc_loss(lp, tg, [6.0, 5], [3, 2])", "F.ctc_loss(lp, tg, [6, 5.0], [3, 2])", "F.ctc_loss(lp, tg, (6, 5), None)",
    "F.ctc_loss(lp, tg, il, tl, blank=1.5)", "F.ctc_loss(lp, tg, il, tl, blank=True)",
    "F.ctc_loss(lp, tg, il, tl, zero_infinity=1)", "F.ctc_loss(lp, [[1, 2, 2], [3, 1, 0]], il, tl)",
    "F.ctc_loss(lp, tg, il, tl, reduction='avg')", "F.ctc_loss(lp[:, 0], tg[0], [6, 5], [3, 2])",
    "F.ctc_loss(lp, tg, [6, lib.tensor(5)], [3, True])", "F.ctc_loss(lp, tg.float(), il, tl)",
    "F.ctc_loss(lp, tg.int(), il.int(), tl.int(), reduction='sum')", "F.ctc_loss(lp[:, 0], tg[:1], [6], [3])",
    "F.ctc_loss(lp, tg, il.view(1, 2), tl)", "lib.ctc_loss(lp, tg, il, [3, 2])", "lib.ctc_loss(lp, tg, il, tl, 0, 'mean')",
]


@pytest.mark.parametrize("expr", ERROR_CASES)
def test_ctc_loss_validation_like_torch(torch, expr):
    """ATen's argument parsing (two overloads), dtype dispatch and ctc_loss_allocate_outputs checks, in its order:
    the same class and text (or the same values when torch accepts the input)."""
    ec, et = same_error(lambda: eval(expr, _env(core, "float32")), lambda: eval(expr, _env(torch, "float32")))
    if et is not None:
        assert str(ec) == str(et)
    else:
        assert_same(eval(expr, _env(core, "float32")), eval(expr, _env(torch, "float32")), rtol=1e-5, atol=1e-5)
