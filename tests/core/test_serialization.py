"""torch.save / torch.load in torch's file format: files cross between core and torch both ways."""
from __future__ import annotations

import io
import pickle

import numpy as np
import pytest

import core
from core import serialization


def _objects(L):
    x = L.arange(6.0).reshape(2, 3)
    return {"x": x, "view": x[:, 1:], "t": x.t(), "long": L.tensor([1, -2]), "bool": L.tensor([True, False]),
            "half": L.ones(2, dtype=L.float16), "double": L.tensor([0.1], dtype=L.float64), "empty": L.zeros(0, 3), "empty3": L.zeros(2, 0, 3),
            "scalar": L.tensor(2.5), "n": 3, "size": L.Size([2, 3]), "dtype": L.float16,
            "param": L.nn.Parameter(L.ones(2)), "grad": L.ones(2, requires_grad=True),
            "list": [1.5, "a", None, (1, 2)], "nested": {"a": [L.tensor([7])]}}


def _same(a, b):
    if hasattr(a, "shape") and not isinstance(a, tuple) and hasattr(a, "dtype"):
        assert type(a).__name__ == type(b).__name__ and repr(a) == repr(b)
        assert tuple(a.stride()) == tuple(b.stride()) and a.requires_grad == b.requires_grad
    elif isinstance(a, dict):
        assert a.keys() == b.keys()
        for k in a:
            _same(a[k], b[k])
    elif isinstance(a, (list, tuple)) and not hasattr(a, "numel"):
        assert len(a) == len(b)
        for u, v in zip(a, b):
            _same(u, v)
    else:
        assert repr(a) == repr(b)


def test_a_file_core_writes_loads_in_torch(torch):
    buf = io.BytesIO()
    core.save(_objects(core), buf)
    buf.seek(0)
    _same(torch.load(buf), _objects(torch))


def test_a_file_torch_writes_loads_in_core(torch):
    buf = io.BytesIO()
    torch.save(_objects(torch), buf)
    buf.seek(0)
    _same(core.load(buf), _objects(core))


def test_views_keep_sharing_their_storage(torch):
    for save, load, lib in ((core.save, torch.load, torch), (torch.save, core.load, core)):
        buf = io.BytesIO()
        x = (core if save is core.save else torch).arange(6.0).reshape(2, 3)
        save({"x": x, "v": x[:, 1:]}, buf)
        buf.seek(0)
        got = load(buf)
        got["x"][0, 1] = 100
        assert float(got["v"][0, 0]) == 100.0


def test_state_dict_from_torch_loads_into_a_core_model(torch, tmp_path):
    torch.manual_seed(0)
    tm = torch.nn.Sequential(torch.nn.Linear(3, 2), torch.nn.ReLU(), torch.nn.Linear(2, 1))
    torch.save(tm.state_dict(), tmp_path / "model.pth")
    cm = core.nn.Sequential(core.nn.Linear(3, 2), core.nn.ReLU(), core.nn.Linear(2, 1))
    assert repr(cm.load_state_dict(core.load(tmp_path / "model.pth", weights_only=True))) == \
        "<All keys matched successfully>"
    x = np.linspace(-1, 1, 6, dtype=np.float32).reshape(2, 3)
    np.testing.assert_array_equal(cm(core.tensor(x)).detach().numpy(), tm(torch.tensor(x)).detach().numpy())


def test_optimizer_state_dict_crosses_both_ways(torch, tmp_path):
    m = core.nn.Linear(3, 2)
    opt = core.optim.Adam(m.parameters(), lr=0.01)
    m(core.ones(1, 3)).sum().backward()
    opt.step()
    core.save(opt.state_dict(), tmp_path / "opt.pt")
    assert repr(torch.load(tmp_path / "opt.pt")) == repr(core.load(tmp_path / "opt.pt"))


def test_a_whole_core_module_round_trips_with_weights_only_false(tmp_path):
    core.manual_seed(0)
    m = core.nn.Sequential(core.nn.Linear(3, 2), core.nn.Tanh())
    core.save(m, tmp_path / "m.pt")
    again = core.load(tmp_path / "m.pt", weights_only=False)
    assert repr(again) == repr(m)
    np.testing.assert_array_equal(again(core.ones(1, 3)).detach().numpy(), m(core.ones(1, 3)).detach().numpy())


class Custom:
    pass


def test_weights_only_refuses_other_globals_with_torchs_error(torch):
    msgs = []
    for lib in (core, torch):
        buf = io.BytesIO()
        torch.save({"a": Custom()}, buf)
        buf.seek(0)
        with pytest.raises(pickle.UnpicklingError) as e:
            lib.load(buf)
        msgs.append(str(e.value))
    assert msgs[0] == msgs[1]


def test_safe_globals_allow_a_class(torch):
    buf = io.BytesIO()
    torch.save({"a": Custom()}, buf)
    buf.seek(0)
    with core.serialization.safe_globals([Custom]):
        assert isinstance(core.load(buf)["a"], Custom)
    assert Custom not in serialization.get_safe_globals()


def test_cuda_map_location_is_torchs_error(torch):
    msgs = []
    for lib in (core, torch):
        buf = io.BytesIO()
        lib.save(lib.ones(2), buf)
        buf.seek(0)
        with pytest.raises(RuntimeError) as e:
            lib.load(buf, map_location="cuda")
        msgs.append(str(e.value))
    assert msgs[0] == msgs[1]


def test_cpu_map_location_loads(torch):
    buf = io.BytesIO()
    core.save(core.ones(2), buf)
    buf.seek(0)
    assert repr(core.load(buf, map_location=core.device("cpu"))) == repr(torch.ones(2))
