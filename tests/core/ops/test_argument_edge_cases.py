"""Argument checks fixed at merge time, each side by side with torch."""
import pytest

import core


def test_hardtanh_refuses_min_above_max(torch):
    for lib in (torch, core):
        with pytest.raises(ValueError, match="min_val cannot be greater than max_val"):
            lib.nn.functional.hardtanh(lib.ones(2), 2.0, 1.0)


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "int32", "int16", "int8", "uint8"])
def test_masked_fill_with_a_complex_value_is_a_runtime_error_naming_the_type(torch, dtype):
    msgs = []
    for lib in (torch, core):
        with pytest.raises(RuntimeError) as e:
            lib.ones(2, dtype=getattr(lib, dtype)).masked_fill(lib.tensor([True, False]), 1 + 2j)
        msgs.append(str(e.value))
    assert msgs[0] == msgs[1]


def test_masked_fill_of_a_bool_tensor_with_a_complex_value_writes_value_ne_zero(torch):
    for v in (1 + 2j, 0j):
        want = torch.zeros(2, dtype=torch.bool).masked_fill(torch.tensor([True, False]), v)
        got = core.zeros(2, dtype=core.bool).masked_fill(core.tensor([True, False]), v)
        assert got.tolist() == want.tolist()


def test_index_select_refuses_an_expanded_out_before_resizing_it(torch):
    msgs = []
    for lib in (torch, core):
        with pytest.raises(RuntimeError) as e:
            lib.index_select(lib.arange(4.0), 0, lib.tensor([0, 1, 2]), out=lib.zeros(1).expand(3))
        msgs.append(str(e.value))
    assert msgs[0] == msgs[1]


def test_gather_allows_out_to_be_index_itself_but_not_part_of_it(torch):
    got = []
    for lib in (torch, core):
        index = lib.tensor([[0, 1], [1, 0]])
        got.append(lib.gather(lib.tensor([[1, 2], [3, 4]]), 1, index, out=index).tolist())
        flat = lib.tensor([0, 1, 1, 0, 0, 0])
        with pytest.raises(RuntimeError, match="unsupported operation"):
            lib.gather(lib.tensor([[1, 2], [3, 4]]), 1, flat[:4].view(2, 2), out=flat[1:5].view(2, 2))
    assert got[0] == got[1]


@pytest.mark.parametrize("n", [1, 2, 3, 4])
def test_polygamma_and_zeta_at_infinities_and_nan(torch, n):
    values = [float("inf"), -float("inf"), float("nan"), -3.0, 2.0]
    want = torch.polygamma(n, torch.tensor(values, dtype=torch.float64))
    got = core.polygamma(n, core.tensor(values, dtype=core.float64))
    torch.testing.assert_close(torch.from_numpy(got.numpy()), want, equal_nan=True)
    q = [-float("inf"), float("inf")]
    torch.testing.assert_close(torch.from_numpy(core.special.zeta(core.tensor([n + 1.0] * 2), core.tensor(q)).numpy()),
                               torch.special.zeta(torch.tensor([n + 1.0] * 2), torch.tensor(q)), equal_nan=True)


def test_diff_of_order_zero_ignores_prepend_and_append(torch):
    x, pre, app = [[1.0, 2], [3, 5]], [[0.0, 1]], [[7.0, 7], [8, 9]]
    want = torch.diff(torch.tensor(x), 0, 0, torch.tensor(pre), torch.tensor(app))
    got = core.diff(core.tensor(x), 0, 0, core.tensor(pre), core.tensor(app))
    assert got.tolist() == want.tolist()


@pytest.mark.parametrize("p", [1, 3, 5])
def test_mvlgamma_at_infinities_and_nan(torch, p):
    values = [float("inf"), -float("inf"), float("nan"), 2.5, 4.0]
    want = torch.mvlgamma(torch.tensor(values, dtype=torch.float64), p)
    got = core.mvlgamma(core.tensor(values, dtype=core.float64), p)
    torch.testing.assert_close(torch.from_numpy(got.numpy()), want, equal_nan=True)


def test_group_norm_of_an_empty_batch_is_empty_with_zero_parameter_grads(torch):
    got = []
    for lib in (torch, core):
        x = lib.zeros(0, 4, 3, requires_grad=True)
        w, b = lib.ones(4, requires_grad=True), lib.zeros(4, requires_grad=True)
        y = lib.nn.functional.group_norm(x, 2, w, b)
        y.sum().backward()
        got.append((list(y.shape), list(x.grad.shape), w.grad.tolist(), b.grad.tolist()))
    assert got[0] == got[1]


@pytest.mark.parametrize("bshape, vshape", [((0, 3), (0, 2)), ((2, 0), (2, 3)), ((3, 0, 4), (3, 0, 1))])
def test_searchsorted_with_empty_batched_boundaries(torch, bshape, vshape):
    want = torch.searchsorted(torch.zeros(bshape), torch.zeros(vshape))
    got = core.searchsorted(core.zeros(bshape), core.zeros(vshape))
    assert list(got.shape) == list(want.shape) and got.tolist() == want.tolist() and got.dtype == core.int64
