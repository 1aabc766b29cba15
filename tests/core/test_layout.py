"""Memory layout as users observe it (stride(), is_contiguous(), whether view() works): PyTorch's
elementwise ops and *_like/clone keep a dense input's strides, other ops return contiguous results."""
import pytest

import core

OPS = {
    "mul": lambda l, x: x * 2, "exp": lambda l, x: x.exp(), "neg": lambda l, x: -x, "relu": lambda l, x: x.relu(),
    "clamp": lambda l, x: x.clamp(0, 1), "pow": lambda l, x: x ** 2, "where": lambda l, x: l.where(x > 3, x, 0.),
    "to_double": lambda l, x: x.double(), "clone": lambda l, x: x.clone(), "flip": lambda l, x: x.flip(0),
    "zeros_like": lambda l, x: l.zeros_like(x), "ones_like": lambda l, x: l.ones_like(x),
    "full_like": lambda l, x: l.full_like(x, 2.0), "empty_like": lambda l, x: l.empty_like(x),
    "rand_like": lambda l, x: l.rand_like(x),
    "roll": lambda l, x: x.roll(1, 0), "cumsum": lambda l, x: x.cumsum(1), "softmax": lambda l, x: x.softmax(1),
    "masked_fill": lambda l, x: x.masked_fill(x > 3, 0.0), "sum1": lambda l, x: x.sum(1),
    "mean_keepdim": lambda l, x: x.mean(1, keepdim=True), "repeat": lambda l, x: x.repeat(1, 1, 1),
    "cat": lambda l, x: l.cat([x, x]), "gather": lambda l, x: x.gather(0, l.zeros(2, 3, 3, dtype=l.long)),
    "index_select": lambda l, x: x.index_select(0, l.tensor([0, 1])), "tril": lambda l, x: x.tril(),
    "contiguous": lambda l, x: x.contiguous(), "max_dim": lambda l, x: x.max(1)[0],
    "transpose": lambda l, x: x.transpose(0, 1), "t_of_slice": lambda l, x: x[0].t(),
}


@pytest.mark.parametrize("name", sorted(OPS))
def test_result_strides_match_torch_for_permuted_input(torch, name):
    f = OPS[name]
    c = f(core, core.arange(18.0).reshape(3, 3, 2).permute(2, 1, 0))
    t = f(torch, torch.arange(18.0).reshape(3, 3, 2).permute(2, 1, 0))
    assert (c.stride(), c.is_contiguous()) == (t.stride(), t.is_contiguous())


@pytest.mark.parametrize("make", ["t_clone", "t_roll"])
def test_view_after_layout_changing_op_fails_or_works_like_torch(torch, make):
    from tests.conftest import same_error

    def run(lib):
        x = lib.arange(6.0).reshape(2, 3).t()
        y = x.clone() if make == "t_clone" else x.roll(1, 0)
        return y.view(-1)
    same_error(lambda: run(core), lambda: run(torch))
