"""core.utils.data against torch.utils.data: datasets, samplers, default_collate, DataLoader."""
from __future__ import annotations

import collections

import numpy as np
import pytest

import core
import core.utils.data as cdata
from tests.conftest import assert_same, same_error


def _same_tree(c, t):
    """Equal structure, and tensors equal in shape, dtype and values."""
    if isinstance(t, (list, tuple)):
        assert type(c).__name__ == type(t).__name__ and len(c) == len(t)
        for a, b in zip(c, t):
            _same_tree(a, b)
    elif isinstance(t, dict):
        assert list(c) == list(t)
        for k in t:
            _same_tree(c[k], t[k])
    elif hasattr(t, "dtype") and hasattr(t, "numpy"):
        assert_same(c, t, rtol=0, atol=0)
    else:
        assert c == t


def _both(torch, fn):
    import torch.utils.data as tdata
    return fn(core, cdata), fn(torch, tdata)


Point = collections.namedtuple("Point", "x y")
BATCHES = [
    lambda m: [m.tensor([1., 2.]), m.tensor([3., 4.])],
    lambda m: [1, 2, 3],
    lambda m: [1.5, 2.5],
    lambda m: [True, False],
    lambda m: ["a", "b"],
    lambda m: [(m.tensor(1), 2.0, "x"), (m.tensor(3), 4.0, "y")],
    lambda m: [{"a": m.ones(2), "b": 1}, {"a": m.zeros(2), "b": 2}],
    lambda m: [np.arange(3, dtype=np.float32), np.ones(3, dtype=np.float32)],
    lambda m: [np.int32(3), np.int32(4)],
    lambda m: [np.float64(1.5), np.float64(2.5)],
    lambda m: [[1, 2], [3, 4]],
    lambda m: [Point(1, m.tensor([1.])), Point(2, m.tensor([2.]))],
]


@pytest.mark.parametrize("make", BATCHES)
def test_default_collate(torch, make):
    c, t = _both(torch, lambda m, d: d.default_collate(make(m)))
    _same_tree(c, t)


@pytest.mark.parametrize("batch", [[object(), object()], [[1, 2], [3]], [np.array(["a"]), np.array(["b"])]])
def test_default_collate_errors(torch, batch):
    import torch.utils.data as tdata
    ec, et = same_error(lambda: cdata.default_collate(batch), lambda: tdata.default_collate(batch))
    assert str(ec).split(" <")[0] == str(et).split(" <")[0]


def _dataset(m, d):
    return d.TensorDataset(m.arange(14.).reshape(7, 2), m.arange(7) * 10)


@pytest.mark.parametrize("kw", [{}, {"batch_size": 3}, {"batch_size": 3, "drop_last": True}, {"batch_size": None},
                                {"batch_size": 7}, {"batch_size": 10}])
def test_dataloader_sequential(torch, kw):
    c, t = _both(torch, lambda m, d: (list(d.DataLoader(_dataset(m, d), **kw)),
                                      len(d.DataLoader(_dataset(m, d), **kw))))
    _same_tree(c, t)


def test_dataloader_collate_fn_and_samplers(torch):
    def run(m, d):
        ds = _dataset(m, d)
        out = [list(d.DataLoader(ds, batch_size=2, collate_fn=lambda b: [y.item() for _, y in b]))]
        out.append(list(d.DataLoader(ds, sampler=[6, 0, 3], batch_size=2)))
        out.append(list(d.DataLoader(ds, batch_sampler=[[1, 2], [5]])))
        out.append(list(d.BatchSampler(d.SequentialSampler(range(10)), 3, False)))
        out.append(list(d.BatchSampler(d.SequentialSampler(range(10)), 3, True)))
        out.append(len(d.BatchSampler(range(10), 4, False)))
        return out
    _same_tree(*_both(torch, run))


def test_dataloader_num_workers_in_process(torch, capfd):
    c, t = _both(torch, lambda m, d: list(d.DataLoader(_dataset(m, d), batch_size=4, num_workers=2)))
    _same_tree(c, t)
    assert "in the main process" in capfd.readouterr().err


def test_iterable_dataset(torch):
    def run(m, d):
        class Stream(d.IterableDataset):
            def __iter__(self):
                return iter(range(7))
        return [list(d.DataLoader(Stream(), batch_size=3)), list(d.DataLoader(Stream(), batch_size=3, drop_last=True)),
                list(d.DataLoader(Stream(), batch_size=None))]
    _same_tree(*_both(torch, run))


ERRORS = [dict(shuffle=True, sampler=[0]), dict(batch_sampler=[[0]], batch_size=2),
          dict(batch_size=None, drop_last=True),
          dict(num_workers=-1), dict(timeout=-1), dict(prefetch_factor=2), dict(persistent_workers=True),
          dict(batch_size=0), dict(batch_size=2, drop_last=1)]


@pytest.mark.parametrize("kw", ERRORS, ids=str)
def test_dataloader_errors(torch, kw):
    import torch.utils.data as tdata
    ec, et = same_error(lambda: cdata.DataLoader(_dataset(core, cdata), **kw),
                        lambda: tdata.DataLoader(_dataset(torch, tdata), **kw))
    assert str(ec) == str(et)


def test_subset_concat_tensor_dataset(torch):
    def run(m, d):
        ds = _dataset(m, d)
        cat = d.ConcatDataset([ds, d.Subset(ds, [4, 2])]) + ds
        return [len(cat), cat[8], cat[-1], cat[7], d.Subset(ds, [3, 1])[1], len(ds), ds[2:4]]
    _same_tree(*_both(torch, run))
    import torch.utils.data as tdata
    same_error(lambda: cdata.TensorDataset(core.ones(2), core.ones(3)),
               lambda: tdata.TensorDataset(torch.ones(2), torch.ones(3)))
    same_error(lambda: cdata.ConcatDataset([]), lambda: tdata.ConcatDataset([]))


@pytest.mark.parametrize("lengths", [[3, 7], [0.3, 0.7], [0.25, 0.25, 0.5], [0.5, 0.5], [1, 2]])
def test_random_split_lengths(torch, lengths):
    def run(m, d):
        try:
            return [len(s) for s in d.random_split(range(10), lengths, generator=m.Generator().manual_seed(0))]
        except ValueError as e:
            return str(e)
    c, t = _both(torch, run)
    assert c == t


def test_random_split_is_a_partition():
    parts = cdata.random_split(range(10), [0.3, 0.7])
    assert sorted(list(parts[0]) + list(parts[1])) == list(range(10))


def test_random_split_order(torch):
    c, t = _both(torch, lambda m, d: [list(s) for s in d.random_split(range(10), [3, 7],
                                                                       generator=m.Generator().manual_seed(42))])
    assert c == t


def test_shuffle_order(torch):
    def run(m, d):
        m.manual_seed(0)
        loader = d.DataLoader(_dataset(m, d), batch_size=3, shuffle=True)
        return [[y.tolist() for _, y in loader] for _ in range(2)]
    c, t = _both(torch, run)
    assert c == t


def test_random_samplers_order(torch):
    def run(m, d):
        g = m.Generator().manual_seed(3)
        return [list(d.RandomSampler(range(9), generator=g)), list(d.RandomSampler(range(5), True, 40, generator=g)),
                list(d.SubsetRandomSampler([5, 6, 7, 8], generator=g)),
                list(d.WeightedRandomSampler([0.1, 0.9, 0.4, 0.7], 6, generator=g))]
    c, t = _both(torch, run)
    assert c == t


def test_shuffle_is_a_permutation_per_epoch():
    loader = cdata.DataLoader(range(10), batch_size=4, shuffle=True)
    for _ in range(2):
        assert sorted(sum((b.tolist() for b in loader), [])) == list(range(10))
    assert len(list(cdata.RandomSampler(range(5), True, 40))) == 40
    w = list(cdata.WeightedRandomSampler([0.0, 1.0, 0.0], 5))
    assert w == [1] * 5


@pytest.mark.parametrize("args", [dict(replacement=1), dict(num_samples=0)], ids=str)
def test_sampler_errors(torch, args):
    import torch.utils.data as tdata
    ec, et = same_error(lambda: cdata.RandomSampler(range(3), **args), lambda: tdata.RandomSampler(range(3), **args))
    assert str(ec) == str(et)
    ec, et = same_error(lambda: cdata.WeightedRandomSampler([[1.0]], 2),
                        lambda: tdata.WeightedRandomSampler([[1.0]], 2))
    assert str(ec) == str(et)
