"""core.nn.Module, Parameter, containers, layers, losses and init against torch.nn: registration,
traversal, state_dict, reprs, errors, and layer outputs/gradients with torch's weights copied in."""
from __future__ import annotations

import math
from collections import OrderedDict

import numpy as np
import pytest

import core
import core.nn as cnn
from tests.conftest import assert_same

RNG = np.random.default_rng(99)


def f32(*shape):
    return RNG.standard_normal(shape).astype(np.float32)


def copy_state(tmod, cmod):
    """Copy every parameter and buffer of a torch module into the core module (by name)."""
    cstate = dict(cmod.named_parameters())
    cstate.update(dict(cmod.named_buffers()))
    tstate = dict(tmod.named_parameters())
    tstate.update(dict(tmod.named_buffers()))
    assert sorted(cstate) == sorted(tstate)
    for k, v in tstate.items():
        cstate[k]._data[...] = v.detach().numpy()


def compare_layer(torch, make, x, *, train=True, rtol=1e-5, atol=1e-5, extra=()):
    """Build the layer in both libraries (make(nn)), copy weights, run forward + backward, compare
    outputs, input grads, parameter grads and buffers."""
    tm, cm = make(torch.nn), make(cnn)
    copy_state(tm, cm)
    tm.train(train)
    cm.train(train)
    xt = torch.from_numpy(x.copy()).requires_grad_(x.dtype.kind == "f")
    xc = core.from_numpy(x.copy()).requires_grad_(x.dtype.kind == "f")
    ot, oc = tm(xt, *[torch.from_numpy(e) for e in extra]), cm(xc, *[core.from_numpy(e) for e in extra])
    assert_same(oc, ot, rtol=rtol, atol=atol)
    assert type(oc.grad_fn).__name__ == type(ot.grad_fn).__name__
    if ot.requires_grad:
        g = RNG.standard_normal(tuple(ot.shape)).astype(x.dtype if x.dtype.kind == "f" else np.float32)
        ot.backward(torch.from_numpy(g))
        oc.backward(core.from_numpy(g))
        if x.dtype.kind == "f":
            assert_same(xc.grad, xt.grad, rtol=rtol, atol=atol)
        cp = dict(cm.named_parameters())
        for name, p in tm.named_parameters():
            if p.grad is None:
                assert cp[name].grad is None
            else:
                assert_same(cp[name].grad, p.grad, rtol=rtol, atol=atol)
    cb = dict(cm.named_buffers())
    for name, b in tm.named_buffers():
        assert_same(cb[name], b, rtol=rtol, atol=atol)
    return cm, tm


# -- Parameter --------------------------------------------------------------------------------------

def test_parameter_repr_like_torch(torch):
    x = f32(2, 3)
    assert repr(cnn.Parameter(core.from_numpy(x))) == repr(torch.nn.Parameter(torch.from_numpy(x)))
    assert repr(cnn.Parameter(core.from_numpy(x), requires_grad=False)) == \
        repr(torch.nn.Parameter(torch.from_numpy(x), requires_grad=False))
    assert repr(cnn.Parameter()) == repr(torch.nn.Parameter())


def test_parameter_is_leaf_tensor_sharing_data():
    t = core.tensor([1.0, 2.0])
    p = cnn.Parameter(t)
    assert isinstance(p, core.Tensor) and p.requires_grad and p.is_leaf
    t._data[0] = 7.0
    assert p[0].item() == 7.0
    assert type(p * 2) is core.Tensor and type(p.detach()) is core.Tensor and type(p.data) is core.Tensor


def test_parameter_of_integers_errors(torch):
    with pytest.raises(RuntimeError) as ec:
        cnn.Parameter(core.tensor([1, 2]))
    with pytest.raises(RuntimeError) as et:
        torch.nn.Parameter(torch.tensor([1, 2]))
    assert str(ec.value) == str(et.value)


def test_parameter_deepcopy():
    import copy
    p = cnn.Parameter(core.tensor([1.0, 2.0]))
    q = copy.deepcopy(p)
    assert type(q) is cnn.Parameter and q.requires_grad
    q._data[0] = 9
    assert p[0].item() == 1.0


# -- Module registration and traversal --------------------------------------------------------------

class _Net:
    """The seed's Net (conv/pool/linear), defined for either library."""

    @staticmethod
    def build(nn, F):
        class Net(nn.Module):
            def __init__(self):
                super(Net, self).__init__()
                self.conv1 = nn.Conv2d(3, 6, 5)
                self.pool = nn.MaxPool2d(2, 2)
                self.conv2 = nn.Conv2d(6, 16, 5)
                self.fc1 = nn.Linear(16 * 5 * 5, 120)
                self.fc2 = nn.Linear(120, 84)
                self.fc3 = nn.Linear(84, 10)

            def forward(self, x):
                x = self.pool(F.relu(self.conv1(x)))
                x = self.pool(F.relu(self.conv2(x)))
                x = x.view(-1, 16 * 5 * 5)
                x = F.relu(self.fc1(x))
                x = F.relu(self.fc2(x))
                x = self.fc3(x)
                return x
        return Net()


def _nets(torch):
    return _Net.build(torch.nn, torch.nn.functional), _Net.build(cnn, cnn.functional)


def test_named_children_and_reprs_match_torch(torch):
    tn, cn = _nets(torch)
    tl = [(n, repr(m)) for n, m in tn.named_children()]
    cl = [(n, repr(m)) for n, m in cn.named_children()]
    assert cl == tl
    assert repr(cn) == repr(tn)


def test_parameter_and_module_names_match_torch(torch):
    tn, cn = _nets(torch)
    assert [n for n, _ in cn.named_parameters()] == [n for n, _ in tn.named_parameters()]
    assert [n for n, _ in cn.named_modules()] == [n for n, _ in tn.named_modules()]
    assert [tuple(p.shape) for p in cn.parameters()] == [tuple(p.shape) for p in tn.parameters()]
    assert len(list(cn.children())) == 6 and len(list(cn.modules())) == 7


def test_net_forward_backward_matches_torch(torch):
    tn, cn = _nets(torch)
    copy_state(tn, cn)
    x = f32(2, 3, 32, 32)
    ot, oc = tn(torch.from_numpy(x)), cn(core.from_numpy(x))
    assert_same(oc, ot, atol=1e-4)
    ot.sum().backward()
    oc.sum().backward()
    cp = dict(cn.named_parameters())
    for name, p in tn.named_parameters():
        assert_same(cp[name].grad, p.grad, rtol=1e-4, atol=1e-4)


def test_setattr_registers_and_delattr_removes():
    m = cnn.Module()
    m.w = cnn.Parameter(core.ones(2))
    m.sub = cnn.Linear(2, 2)
    m.register_buffer("buf", core.zeros(2))
    m.plain = 3
    assert list(m._parameters) == ["w"] and list(m._modules) == ["sub"] and list(m._buffers) == ["buf"]
    assert m.plain == 3 and "plain" in m.__dict__
    m.w = None
    assert m._parameters["w"] is None
    del m.sub
    assert "sub" not in m._modules
    with pytest.raises(AttributeError, match="'Module' object has no attribute 'sub'"):
        m.sub


@pytest.mark.parametrize("action", [
    lambda m, M, P, T: setattr(m, "w", T.ones(2)),
    lambda m, M, P, T: setattr(m, "lin", 3),
    lambda m, M, P, T: setattr(m, "buf", 3),
    lambda m, M, P, T: m.register_buffer("w", T.ones(1)),
    lambda m, M, P, T: m.register_buffer("a.b", T.ones(1)),
    lambda m, M, P, T: m.register_buffer("", T.ones(1)),
    lambda m, M, P, T: m.register_buffer("x", 3),
    lambda m, M, P, T: m.register_buffer(1, T.ones(1)),
    lambda m, M, P, T: m.register_parameter("buf", P(T.ones(1))),
    lambda m, M, P, T: m.register_parameter("q", T.ones(1)),
    lambda m, M, P, T: m.register_parameter("q", P(T.ones(1)) * 2),
    lambda m, M, P, T: m.add_module("a.b", M()),
    lambda m, M, P, T: m.add_module("z", 3),
    lambda m, M, P, T: m.add_module("w", M()),
])
def test_registration_errors_match_torch(torch, action):
    def make(nn, T):
        m = nn.Module()
        m.w = nn.Parameter(T.ones(2))
        m.lin = nn.Linear(2, 2)
        m.register_buffer("buf", T.zeros(1))
        return m
    errs = []
    for nn, T in ((cnn, core), (torch.nn, torch)):
        m = make(nn, T)
        with pytest.raises(Exception) as e:
            action(m, nn.Module, nn.Parameter, T)
        errs.append(e.value)
    assert type(errs[0]) is type(errs[1])
    # core's type names are torch's with "core." for "torch." (core.nn.modules.linear.Linear)
    norm = [str(e).replace("core.nn.", "torch.nn.") for e in errs]
    assert norm[0] == norm[1]


def test_assign_before_init_errors(torch):
    for nn, T in ((cnn, core), (torch.nn, torch)):
        class Bad(nn.Module):
            def __init__(self):
                self.w = nn.Parameter(T.ones(1))
        with pytest.raises(AttributeError, match="cannot assign parameters before Module.__init__"):
            Bad()


def test_train_eval_propagate():
    m = cnn.Sequential(cnn.Linear(2, 2), cnn.Sequential(cnn.Dropout()))
    assert m.training and m[1][0].training
    m.eval()
    assert not m.training and not m[1][0].training
    m.train()
    assert m[1][0].training
    with pytest.raises(ValueError, match="training mode is expected to be boolean"):
        m.train(1)


def test_zero_grad_and_requires_grad_():
    m = cnn.Linear(3, 2)
    m(core.randn(4, 3)).sum().backward()
    assert m.weight.grad is not None
    m.zero_grad(set_to_none=False)
    assert (m.weight.grad == 0).all().item()
    m.zero_grad()
    assert m.weight.grad is None and m.bias.grad is None
    m.requires_grad_(False)
    assert not any(p.requires_grad for p in m.parameters())


def test_apply_visits_children_first():
    seen = []
    m = cnn.Sequential(cnn.Linear(1, 1), cnn.ReLU())
    m.apply(lambda mod: seen.append(type(mod).__name__))
    assert seen == ["Linear", "ReLU", "Sequential"]


def test_forward_hooks():
    m = cnn.Linear(2, 2)
    calls = []
    h1 = m.register_forward_pre_hook(lambda mod, args: calls.append("pre"))
    h2 = m.register_forward_hook(lambda mod, args, out: out * 0)
    y = m(core.ones(1, 2))
    assert calls == ["pre"] and (y == 0).all().item()
    h1.remove()
    h2.remove()
    assert not (m(core.ones(1, 2)) == 0).all().item()


def test_module_to_double_and_float(torch):
    m = cnn.Sequential(cnn.Linear(2, 3), cnn.BatchNorm1d(3))
    m.double()
    assert all(p.dtype == core.float64 for p in m.parameters())
    assert m[1].running_mean.dtype == core.float64 and m[1].num_batches_tracked.dtype == core.int64
    m.to(core.float32)
    assert all(p.dtype == core.float32 for p in m.parameters())
    assert isinstance(m[0].weight, cnn.Parameter)
    with pytest.raises(TypeError, match="nn.Module.to only accepts floating point"):
        m.to(core.int64)


def test_missing_forward_raises():
    with pytest.raises(NotImplementedError, match='missing the required "forward" function'):
        cnn.Module()(1)


# -- state_dict -------------------------------------------------------------------------------------------

def test_state_dict_keys_match_torch(torch):
    def make(nn):
        return nn.Sequential(nn.Conv2d(1, 2, 3), nn.BatchNorm2d(2), nn.ReLU(), nn.Flatten(), nn.Linear(8, 3))
    tsd, csd = make(torch.nn).state_dict(), make(cnn).state_dict()
    assert list(csd) == list(tsd)
    assert type(csd) is OrderedDict
    assert all(not v.requires_grad for v in csd.values())
    assert csd._metadata.keys() == tsd._metadata.keys()


def test_load_state_dict_round_trip(torch):
    tm = torch.nn.Sequential(torch.nn.Linear(3, 2), torch.nn.BatchNorm1d(2))
    cm = cnn.Sequential(cnn.Linear(3, 2), cnn.BatchNorm1d(2))
    tm.train()(torch.randn(5, 3))
    res = cm.load_state_dict({k: core.from_numpy(v.numpy().copy()) for k, v in tm.state_dict().items()})
    assert repr(res) == "<All keys matched successfully>"
    for k, v in tm.state_dict().items():
        assert_same(cm.state_dict()[k], v)


def test_load_state_dict_strict_errors_match_torch(torch):
    def make(nn):
        return nn.Sequential(nn.Linear(3, 2), nn.Linear(2, 1))
    tsd = make(torch.nn).state_dict()
    bad_t = {k: v for k, v in tsd.items() if k != "1.bias"}
    bad_t["extra"] = torch.zeros(1)
    bad_t["0.weight"] = torch.zeros(4, 4)
    bad_c = {k: core.from_numpy(v.numpy().copy()) for k, v in bad_t.items()}
    with pytest.raises(RuntimeError) as et:
        make(torch.nn).load_state_dict(bad_t)
    with pytest.raises(RuntimeError) as ec:
        make(cnn).load_state_dict(bad_c)
    assert str(ec.value) == str(et.value)
    rc = make(cnn).load_state_dict({k: v for k, v in bad_c.items() if k != "0.weight"}, strict=False)
    rt = make(torch.nn).load_state_dict({k: v for k, v in bad_t.items() if k != "0.weight"}, strict=False)
    assert repr(rc) == repr(rt)


def test_batchnorm_state_dict_without_num_batches_tracked_loads(torch):
    sd = {k: core.from_numpy(v.numpy().copy()) for k, v in torch.nn.BatchNorm1d(2).state_dict().items()
          if k != "num_batches_tracked"}
    assert repr(cnn.BatchNorm1d(2).load_state_dict(sd)) == "<All keys matched successfully>"


def test_non_persistent_buffer_not_in_state_dict():
    m = cnn.Module()
    m.register_buffer("a", core.ones(1))
    m.register_buffer("b", core.ones(1), persistent=False)
    assert list(m.state_dict()) == ["a"]
    assert [n for n, _ in m.named_buffers()] == ["a", "b"]


# -- containers --------------------------------------------------------------------------------------------

def test_sequential_indexing_len_iter_append(torch):
    s = cnn.Sequential(cnn.Linear(2, 3), cnn.ReLU(), cnn.Linear(3, 1))
    assert len(s) == 3 and isinstance(s[0], cnn.Linear) and isinstance(s[-1], cnn.Linear)
    assert isinstance(s[1:], cnn.Sequential) and len(s[1:]) == 2
    assert [type(m).__name__ for m in s] == ["Linear", "ReLU", "Linear"]
    s.append(cnn.Sigmoid())
    assert len(s) == 4 and list(s._modules) == ["0", "1", "2", "3"]
    del s[1]
    assert list(s._modules) == ["0", "1", "2"]
    with pytest.raises(IndexError, match="index 5 is out of range"):
        s[5]
    ts = torch.nn.Sequential(OrderedDict(a=torch.nn.Linear(2, 3), b=torch.nn.Tanh()))
    cs = cnn.Sequential(OrderedDict(a=cnn.Linear(2, 3), b=cnn.Tanh()))
    assert repr(cs) == repr(ts)


def test_module_list_repr_groups_repeats(torch):
    def make(nn):
        return nn.ModuleList([nn.Linear(2, 2) for _ in range(3)] + [nn.ReLU(), nn.Sequential(nn.Linear(2, 2))])
    assert repr(make(cnn)) == repr(make(torch.nn))
    ml = make(cnn)
    assert len(ml) == 5 and len(list(ml.parameters())) == 8
    ml.append(cnn.Tanh())
    assert isinstance(ml[-1], cnn.Tanh)


def test_module_dict(torch):
    def make(nn):
        return nn.ModuleDict({"act": nn.ReLU(), "lin": nn.Linear(2, 2)})
    assert repr(make(cnn)) == repr(make(torch.nn))
    md = make(cnn)
    assert list(md.keys()) == ["act", "lin"] and "act" in md and isinstance(md["lin"], cnn.Linear)
    md["x"] = cnn.Tanh()
    assert len(md) == 3


def test_parameter_list_and_dict():
    pl = cnn.ParameterList([cnn.Parameter(core.ones(2)), core.zeros(3)])
    assert len(pl) == 2 and isinstance(pl[1], cnn.Parameter)
    m = cnn.Module()
    m.pl = pl
    assert [n for n, _ in m.named_parameters()] == ["pl.0", "pl.1"]
    pd = cnn.ParameterDict({"a": core.ones(1)})
    assert isinstance(pd["a"], cnn.Parameter) and list(pd) == ["a"]


# -- layers vs torch ------------------------------------------------------------------------------------------

@pytest.mark.parametrize("make,shape", [
    (lambda nn: nn.Linear(5, 3), (4, 5)),
    (lambda nn: nn.Linear(5, 3, bias=False), (2, 4, 5)),
    (lambda nn: nn.Conv2d(3, 4, 3, stride=2, padding=1), (2, 3, 7, 7)),
    (lambda nn: nn.Conv2d(4, 4, (3, 2), padding="same", groups=2, bias=False), (1, 4, 5, 6)),
    (lambda nn: nn.Conv2d(2, 3, 3, padding=1, padding_mode="reflect"), (1, 2, 5, 5)),
    (lambda nn: nn.Conv2d(2, 3, 3, padding=(1, 2), padding_mode="circular"), (1, 2, 5, 5)),
    (lambda nn: nn.MaxPool2d(2), (2, 3, 6, 6)),
    (lambda nn: nn.MaxPool2d(3, 2, 1, ceil_mode=True), (2, 3, 7, 7)),
    (lambda nn: nn.AvgPool2d(2, 1, 1, count_include_pad=False), (2, 3, 6, 6)),
    (lambda nn: nn.LayerNorm(6), (2, 3, 6)),
    (lambda nn: nn.LayerNorm((3, 6), elementwise_affine=False), (2, 3, 6)),
    (lambda nn: nn.Unfold(2, dilation=1, padding=0, stride=1), (2, 2, 3, 3)),
    (lambda nn: nn.Fold((4, 4), 2), (2, 8, 9)),
    (lambda nn: nn.Flatten(), (2, 3, 4)),
    (lambda nn: nn.Unflatten(1, (2, 6)), (2, 12)),
    (lambda nn: nn.Identity(54), (2, 3)),
    (lambda nn: nn.ReLU(), (2, 3)),
    (lambda nn: nn.LeakyReLU(0.3), (2, 3)),
    (lambda nn: nn.GELU(), (2, 3)),
    (lambda nn: nn.Sigmoid(), (2, 3)),
    (lambda nn: nn.Tanh(), (2, 3)),
    (lambda nn: nn.Softmax(dim=1), (2, 3)),
    (lambda nn: nn.LogSoftmax(dim=1), (2, 3)),
    (lambda nn: nn.Dropout(0.3), (2, 3)),
])
def test_layer_matches_torch(torch, make, shape):
    train = not isinstance(make(cnn), cnn.Dropout)
    cm, tm = compare_layer(torch, make, f32(*shape), train=train, rtol=1e-4, atol=1e-4)
    assert repr(cm) == repr(tm)


def test_relu_inplace_repr_and_effect(torch):
    assert repr(cnn.ReLU(True)) == repr(torch.nn.ReLU(True))
    x = core.tensor([-1.0, 2.0])
    cnn.ReLU(inplace=True)(x)
    assert x.tolist() == [0.0, 2.0]


def test_embedding_layer(torch):
    cm, tm = compare_layer(torch, lambda nn: nn.Embedding(10, 3, padding_idx=2), np.array([[1, 2], [2, 9]]))
    assert repr(cm) == repr(tm)
    assert (cnn.Embedding(5, 2, padding_idx=-1).weight[4] == 0).all().item()


@pytest.mark.parametrize("make", [
    lambda nn: nn.BatchNorm1d(3),
    lambda nn: nn.BatchNorm1d(3, momentum=None),
    lambda nn: nn.BatchNorm1d(3, affine=False),
    lambda nn: nn.BatchNorm1d(3, track_running_stats=False),
])
@pytest.mark.parametrize("shape", [(5, 3), (4, 3, 6)])
def test_batchnorm1d_training_steps_and_eval(torch, make, shape):
    tm, cm = make(torch.nn), make(cnn)
    assert repr(cm) == repr(tm)
    for step in range(3):
        x = f32(*shape) + step
        ot, oc = tm(torch.from_numpy(x)), cm(core.from_numpy(x))
        assert_same(oc, ot, atol=1e-5)
    for name, b in tm.named_buffers():
        assert_same(dict(cm.named_buffers())[name], b, atol=1e-6)
    tm.eval()
    cm.eval()
    x = f32(*shape)
    assert_same(cm(core.from_numpy(x)), tm(torch.from_numpy(x)), atol=1e-5)


def test_batchnorm2d_layer_grads_and_running_stats(torch):
    compare_layer(torch, lambda nn: nn.BatchNorm2d(3), f32(2, 3, 4, 5), atol=1e-4)
    compare_layer(torch, lambda nn: nn.BatchNorm2d(3), f32(2, 3, 4, 5), train=False, atol=1e-4)


def test_batchnorm_input_rank_errors(torch):
    for nn, T in ((cnn, core), (torch.nn, torch)):
        with pytest.raises(ValueError, match=r"expected 2D or 3D input \(got 4D input\)"):
            nn.BatchNorm1d(2)(T.zeros(2, 2, 2, 2))
        with pytest.raises(ValueError, match=r"expected 4D input \(got 3D input\)"):
            nn.BatchNorm2d(2)(T.zeros(2, 2, 2))


@pytest.mark.parametrize("make,target", [
    (lambda nn: nn.CrossEntropyLoss(), np.array([0, 2, 1, 3])),
    (lambda nn: nn.CrossEntropyLoss(label_smoothing=0.1, reduction="sum"), np.array([0, 2, 1, 3])),
    (lambda nn: nn.NLLLoss(ignore_index=1), np.array([0, 1, 1, 3])),
    (lambda nn: nn.MSELoss(reduction="none"), None),
    (lambda nn: nn.L1Loss(), None),
])
def test_loss_modules(torch, make, target):
    x = f32(4, 4)
    t = target if target is not None else f32(4, 4)
    cm, tm = compare_layer(torch, make, x, extra=(t,))
    assert repr(cm) == repr(tm)


def test_bce_loss_module_with_weight_buffer(torch):
    w = np.abs(f32(3))
    x = RNG.uniform(0.1, 0.9, (2, 3)).astype(np.float32)
    tm, cm = torch.nn.BCELoss(weight=torch.from_numpy(w)), cnn.BCELoss(weight=core.from_numpy(w))
    assert list(cm.state_dict()) == list(tm.state_dict()) == ["weight"]
    t = RNG.uniform(0, 1, (2, 3)).astype(np.float32)
    assert_same(cm(core.from_numpy(x), core.from_numpy(t)), tm(torch.from_numpy(x), torch.from_numpy(t)))


def test_conv2d_module_errors_match_torch(torch):
    for kw in (dict(groups=0), dict(groups=2), dict(padding="foo"), dict(padding="same", stride=2),
               dict(padding_mode="bar")):
        with pytest.raises(ValueError) as et:
            torch.nn.Conv2d(3, 4, 3, **kw)
        with pytest.raises(ValueError) as ec:
            cnn.Conv2d(3, 4, 3, **kw)
        if kw.get("padding") == "foo" or "padding_mode" in kw:   # set ordering inside the message may differ
            assert str(ec.value).split("{")[0] == str(et.value).split("{")[0]
            assert sorted(str(ec.value)) == sorted(str(et.value))
        else:
            assert str(ec.value) == str(et.value)


def test_dropout_module_eval_is_identity():
    d = cnn.Dropout(0.9)
    x = core.ones(10)
    d.eval()
    assert d(x) is x
    with pytest.raises(ValueError, match="dropout probability has to be between 0 and 1, but got 2"):
        cnn.Dropout(2)


# -- init -------------------------------------------------------------------------------------------------------

def test_default_linear_and_conv_init_bounds():
    core.manual_seed(0)
    lin = cnn.Linear(400, 300)
    bound = 1 / math.sqrt(400)   # kaiming_uniform(a=sqrt(5)) gives the same bound as the bias
    w = lin.weight.detach().numpy()
    assert w.min() >= -bound and w.max() <= bound and w.max() > 0.95 * bound and w.min() < -0.95 * bound
    assert abs(w.std() - bound / math.sqrt(3)) < 0.01 * bound
    b = lin.bias.detach().numpy()
    assert b.min() >= -bound and b.max() <= bound
    conv = cnn.Conv2d(8, 16, 3)
    cb = 1 / math.sqrt(8 * 9)
    assert np.abs(conv.weight.detach().numpy()).max() <= cb and np.abs(conv.bias.detach().numpy()).max() <= cb


def test_init_is_seeded():
    core.manual_seed(3)
    a = cnn.Linear(4, 4).weight.detach().numpy().copy()
    core.manual_seed(3)
    b = cnn.Linear(4, 4).weight.detach().numpy()
    np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("name,args", [
    ("linear", ()), ("conv2d", ()), ("sigmoid", ()), ("tanh", ()), ("relu", ()), ("leaky_relu", ()),
    ("leaky_relu", (0.2,)), ("selu", ()),
])
def test_calculate_gain(torch, name, args):
    assert cnn.init.calculate_gain(name, *args) == torch.nn.init.calculate_gain(name, *args)


def test_calculate_gain_errors(torch):
    for args in (("foo",), ("leaky_relu", "x")):
        with pytest.raises(ValueError) as ec:
            cnn.init.calculate_gain(*args)
        with pytest.raises(ValueError) as et:
            torch.nn.init.calculate_gain(*args)
        assert str(ec.value) == str(et.value)


def test_fan_in_fan_out(torch):
    for shape in ((3, 4), (5, 3, 2, 2), (2, 3, 4)):
        assert cnn.init._calculate_fan_in_and_fan_out(core.zeros(*shape)) == \
            torch.nn.init._calculate_fan_in_and_fan_out(torch.zeros(*shape))
    with pytest.raises(ValueError, match="Fan in and fan out can not be computed"):
        cnn.init._calculate_fan_in_and_fan_out(core.zeros(3))


def test_init_functions_distributions():
    core.manual_seed(1)
    t = core.zeros(200, 300, requires_grad=True)
    init = cnn.init
    init.uniform_(t, -2, 3)
    d = t.detach().numpy()
    assert d.min() >= -2 and d.max() <= 3 and abs(d.mean() - 0.5) < 0.05
    assert t.is_leaf and t.requires_grad and t._version > 0
    init.normal_(t, 1.0, 2.0)
    assert abs(t.detach().numpy().mean() - 1) < 0.05 and abs(t.detach().numpy().std() - 2) < 0.05
    init.constant_(t, 0.25)
    assert (t.detach().numpy() == 0.25).all()
    init.ones_(t)
    assert (t.detach().numpy() == 1).all()
    init.zeros_(t)
    assert (t.detach().numpy() == 0).all()
    init.xavier_uniform_(t, gain=2.0)
    a = 2.0 * math.sqrt(6.0 / 500)
    assert np.abs(t.detach().numpy()).max() <= a
    init.xavier_normal_(t)
    assert abs(t.detach().numpy().std() - math.sqrt(2.0 / 500)) < 0.003
    init.kaiming_uniform_(t, mode="fan_out", nonlinearity="relu")
    assert np.abs(t.detach().numpy()).max() <= math.sqrt(2.0) * math.sqrt(3.0 / 200)
    init.kaiming_normal_(t, nonlinearity="relu")
    assert abs(t.detach().numpy().std() - math.sqrt(2.0 / 300)) < 0.002
    with pytest.raises(ValueError, match=r"Mode fan_x not supported, please use one of \['fan_in', 'fan_out'\]"):
        init.kaiming_uniform_(t, mode="fan_x")


def test_init_eye_dirac_orthogonal(torch):
    t = core.zeros(3, 4)
    cnn.init.eye_(t)
    assert_same(t, torch.nn.init.eye_(torch.zeros(3, 4)))
    w = core.zeros(4, 2, 3, 3)
    cnn.init.dirac_(w, groups=2)
    assert_same(w, torch.nn.init.dirac_(torch.zeros(4, 2, 3, 3), groups=2))
    q = core.zeros(3, 5)
    cnn.init.orthogonal_(q)
    np.testing.assert_allclose(q.numpy() @ q.numpy().T, np.eye(3), atol=1e-5)


def test_mlp_sgd_training_steps_match_torch(torch):
    """forward, cross_entropy, zero_grad, backward and an in-place SGD update under no_grad, three times."""
    tm = torch.nn.Sequential(torch.nn.Linear(20, 16), torch.nn.ReLU(), torch.nn.Linear(16, 4))
    cm = cnn.Sequential(cnn.Linear(20, 16), cnn.ReLU(), cnn.Linear(16, 4))
    copy_state(tm, cm)
    x, t = f32(8, 20), RNG.integers(0, 4, 8)
    for lib, m in ((torch, tm), (core, cm)):
        xi, ti = lib.from_numpy(x.copy()), lib.from_numpy(t.copy())
        for _ in range(3):
            loss = lib.nn.functional.cross_entropy(m(xi), ti)
            m.zero_grad()
            loss.backward()
            with lib.no_grad():
                for p in m.parameters():
                    p -= 0.1 * p.grad
    cp = dict(cm.named_parameters())
    for name, p in tm.named_parameters():
        assert isinstance(cp[name], cnn.Parameter) and cp[name].is_leaf
        assert_same(cp[name], p, rtol=1e-5, atol=1e-6)
