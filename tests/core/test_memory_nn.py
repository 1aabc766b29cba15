"""core.memory on core.nn models vs PyTorch: bytes saved for backward, counted in torch with
torch.autograd.graph.saved_tensors_hooks (one count per storage), split the same way as core's
report: parameters, held (the caller's inputs, module buffers), graph (alive only for backward).
core follows PyTorch's save rules (addmm/mm save a matrix only when the other needs a gradient;
batch_norm saves the running stats by reference), so the figures are asserted equal.
"""
from __future__ import annotations

import numpy as np
import pytest

import core
from core import memory


def torch_counts(torch, model, inputs, keep=True):
    """Run model over inputs in torch grad mode; bytes saved per class, one count per storage."""
    storages = {}

    def pack(t):
        st = t.untyped_storage()
        storages[st.data_ptr()] = st.nbytes()
        return t

    outs = []
    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        for x in inputs:
            outs.append(model(x))
    params = {p.untyped_storage().data_ptr() for p in model.parameters()}
    held = {t.untyped_storage().data_ptr() for t in list(inputs) + list(model.buffers())}
    d = {"tensors": len(storages), "bytes": sum(storages.values()), "parameter": 0, "held": 0, "graph": 0}
    for ptr, n in storages.items():
        d["parameter" if ptr in params else "held" if ptr in held else "graph"] += n
    return d


def twin(torch, make, shape, batches=1, seed=0):
    """The same model in core and torch (core's seeded parameters copied), and shared inputs."""
    core.manual_seed(seed)
    cm, tm = make(core.nn), make(torch.nn)
    tm.load_state_dict({k: torch.from_numpy(np.array(v._data)) for k, v in cm.state_dict().items()})
    rng = np.random.default_rng(seed)
    xs = [rng.standard_normal(shape).astype(np.float32) for _ in range(batches)]
    return cm, tm, [core.tensor(x) for x in xs], [torch.tensor(x) for x in xs]


def core_report(cm, cx, keep=True):
    return memory.measure(cm, inputs=cx, keep_outputs=keep, module=cm)


def test_seed_example4_linear_1000_saves_five_inputs(torch):
    """Russian seed, Example 4: nn.Linear(1000, 1000) over 5 batches of 100x1000, outputs kept."""
    cm, tm, cx, tx = twin(torch, lambda nn: nn.Linear(1000, 1000), (100, 1000), batches=5)
    rep = core_report(cm, cx)
    t = torch_counts(torch, tm, tx)
    assert t["bytes"] == 5 * 100 * 1000 * 4                  # torch: the 5 inputs, 400 KB each
    assert rep.held_bytes + rep.graph_bytes == t["held"] + t["graph"] == 2_000_000
    assert rep.saved_bytes == t["bytes"]
    assert rep.result_bytes == 2_000_000


@pytest.mark.parametrize("mode", ["no_grad", "inference_mode"])
def test_seed_example4_no_grad_modes_save_nothing(torch, mode):
    cm, tm, cx, tx = twin(torch, lambda nn: nn.Linear(1000, 1000), (100, 1000), batches=5)
    rep = memory.measure(cm, inputs=cx, keep_outputs=True, module=cm, mode=mode)
    ctx = torch.no_grad if mode == "no_grad" else torch.inference_mode
    with ctx():
        t = torch_counts(torch, tm, tx)
    assert (rep.saved_bytes, rep.graph_nodes) == (t["bytes"], 0) == (0, 0)
    assert rep.result_bytes == 2_000_000


def test_seed_sequential_linear_relu_linear(torch):
    """Seed Example 3's model: Sequential(Linear(10,5), ReLU(), Linear(5,2)) on 5x10."""
    make = lambda nn: nn.Sequential(nn.Linear(10, 5), nn.ReLU(), nn.Linear(5, 2))  # noqa: E731
    cm, tm, cx, tx = twin(torch, make, (5, 10))
    rep = core_report(cm, cx)
    t = torch_counts(torch, tm, tx)
    assert (rep.graph_bytes, rep.held_bytes) == (t["graph"], t["held"]) == (100, 200)
    assert rep.parameter_bytes == t["parameter"]
    assert list(rep.per_layer) == ["0", "1", "2"]
    assert rep.per_layer["1"]["saved_bytes"] == 100          # ReLU's output, 5x5 float32


def test_small_cnn_matches_torch_exactly(torch):
    """Conv2d -> ReLU -> MaxPool2d -> Flatten -> Linear: every saved storage agrees with torch."""
    make = lambda nn: nn.Sequential(nn.Conv2d(3, 8, 3), nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(),  # noqa: E731
                                    nn.Linear(8 * 15 * 15, 10))
    cm, tm, cx, tx = twin(torch, make, (4, 3, 32, 32))
    rep = core_report(cm, cx)
    t = torch_counts(torch, tm, tx)
    assert (rep.saved_tensors, rep.saved_bytes) == (t["tensors"], t["bytes"])
    assert (rep.graph_bytes, rep.parameter_bytes, rep.held_bytes) == (t["graph"], t["parameter"], t["held"])
    assert rep.per_layer["2"]["type"] == "MaxPool2d"
    assert rep.per_layer["2"]["saved_bytes"] == 4 * 8 * 15 * 15 * 8   # int64 indices


def test_batchnorm1d_model(torch):
    make = lambda nn: nn.Sequential(nn.Linear(10, 6), nn.BatchNorm1d(6), nn.ReLU(), nn.Linear(6, 2))  # noqa: E731
    cm, tm, cx, tx = twin(torch, make, (8, 10))
    rep = core_report(cm, cx)
    t = torch_counts(torch, tm, tx)
    assert rep.graph_bytes == t["graph"]                       # BN input, mean, invstd, ReLU output
    assert (rep.held_bytes, rep.parameter_bytes) == (t["held"], t["parameter"])
    assert (rep.saved_tensors, rep.saved_bytes) == (t["tensors"], t["bytes"])


def test_batchnorm_backward_still_matches_torch(torch):
    """Saving fewer tensors than torch must not cost correctness: gradients agree."""
    make = lambda nn: nn.Sequential(nn.Linear(10, 6), nn.BatchNorm1d(6), nn.ReLU(), nn.Linear(6, 2))  # noqa: E731
    cm, tm, cx, tx = twin(torch, make, (8, 10))
    cm(cx[0]).sum().backward()
    tm(tx[0]).sum().backward()
    for (n, p), q in zip(cm.named_parameters(), tm.parameters()):
        np.testing.assert_allclose(p.grad._data, q.grad.numpy(), rtol=1e-4, atol=1e-5, err_msg=n)


def test_keep_outputs_grows_graph_linearly_with_batches(torch):
    cm, tm, cx, tx = twin(torch, lambda nn: nn.Linear(100, 50), (20, 100), batches=4)
    one = memory.measure(cm, inputs=lambda i: core.randn(20, 100), batches=1, keep_outputs=True)
    four = memory.measure(cm, inputs=lambda i: core.randn(20, 100), batches=4, keep_outputs=True)
    assert four.graph_bytes == 4 * one.graph_bytes == 4 * 20 * 100 * 4


def test_per_layer_names_follow_named_modules():
    core.manual_seed(0)
    nn = core.nn
    model = nn.Sequential(nn.Linear(4, 4), nn.ReLU(), nn.Sequential(nn.Linear(4, 2), nn.Sigmoid()))
    rep = memory.measure(model, inputs=[core.randn(3, 4)], module=model)
    assert list(rep.per_layer) == ["0", "1", "2.0", "2.1"]
    assert rep.per_layer["2.1"] == {"type": "Sigmoid", "nodes": 1, "saved_tensors": 1, "saved_bytes": 24}
    assert sum(d["saved_bytes"] for d in rep.per_layer.values()) == rep.saved_bytes


def test_module_call_is_restored_after_measure():
    Module = core.nn.Module
    before = Module.__call__
    model = core.nn.Linear(2, 2)
    memory.measure(model, inputs=[core.randn(1, 2)], module=model)
    assert Module.__call__ is before


def test_detach_feature_bank_keeps_features_not_graph():
    """Seed (Chinese notes): bank[targets] = feat.detach() keeps the features without the graph."""
    core.manual_seed(0)
    model = core.nn.Sequential(core.nn.Linear(5, 5), core.nn.ReLU())
    inputs = lambda i: core.randn(4, 5)   # noqa: E731
    grad = memory.measure(model, inputs=inputs, batches=10, keep_outputs=True, module=model)
    det = memory.measure(model, inputs=inputs, batches=10, keep_outputs=True, module=model, mode="detach")
    assert grad.graph_bytes > 0 and det.graph_bytes == 0
    assert det.result_bytes == grad.result_bytes == 10 * 4 * 5 * 4
    assert det.retained_bytes < grad.retained_bytes
