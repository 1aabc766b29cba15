"""core.memory: graph inventories and mode reports, checked against what PyTorch's graph saves
(counted with torch.autograd.graph.saved_tensors_hooks, deduplicated by storage)."""
from __future__ import annotations

import numpy as np
import pytest

import core
from core import memory


# -- the torch oracle ----------------------------------------------------------------------------

def torch_saved(torch, fn, params=()):
    """Run fn under saved_tensors_hooks; return (result, {'tensors', 'bytes', 'parameter_bytes'}),
    storages counted once by data_ptr, 'parameter' = storage of one of `params`."""
    storages = {}

    def pack(t):
        st = t.untyped_storage()
        storages[st.data_ptr()] = st.nbytes()
        return t

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        out = fn()
    pptrs = {p.untyped_storage().data_ptr() for p in params}
    return out, {"tensors": len(storages), "bytes": sum(storages.values()),
                 "parameter_bytes": sum(n for p, n in storages.items() if p in pptrs)}


def both(torch, core_fn, torch_fn, core_params=(), torch_params=()):
    """(core inventory of core_fn(), torch counts of torch_fn())."""
    out = core_fn()
    inv = memory.graph_inventory(out, params=core_params)
    _, t = torch_saved(torch, torch_fn, torch_params)
    return inv, t


# -- plain ops -------------------------------------------------------------------------------

def test_chain_saved_bytes_match_torch(torch):
    x = np.random.rand(4, 10).astype(np.float32)
    w = np.random.rand(10, 5).astype(np.float32)
    cw = core.tensor(w, requires_grad=True)
    tw = torch.tensor(w, requires_grad=True)
    # torch: mm saves only x (w's gradient needs x; x needs no gradient), relu and sigmoid their outputs
    inv, t = both(torch, lambda: (core.tensor(x) @ cw).relu().sigmoid(),
                  lambda: (torch.tensor(x) @ tw).relu().sigmoid(), [cw], [tw])
    assert (inv.saved_bytes, inv.parameter_bytes) == (t["bytes"], t["parameter_bytes"])


def test_views_of_one_buffer_count_once():
    a = core.randn(100, 10, requires_grad=True)
    x = core.randn(100, 10, requires_grad=True)
    z = (x[:50] * a[:50]).sum() + (x[50:] * a[50:]).sum()
    inv = memory.graph_inventory(z)
    assert inv.saved_records == 4
    # x's buffer once, a's buffer once (whole 4000-byte buffers), though four slices were saved
    assert [(b.shape, b.nbytes) for b in inv.buffers] == [([50, 10], 4000), ([50, 10], 4000)]
    assert inv.saved_bytes == inv.parameter_bytes == 8000


def test_view_of_caller_tensor_is_held_and_of_dropped_tensor_is_graph():
    w = core.randn(10, requires_grad=True)
    x = core.randn(100, 10)
    kept = memory.graph_inventory((x[:10] * w).sum())
    dropped = memory.graph_inventory((core.randn(100, 10)[:10] * w).sum())
    assert (kept.held_bytes, kept.graph_bytes) == (4000, 0)
    assert (dropped.held_bytes, dropped.graph_bytes) == (0, 4000)


def test_ctx_attribute_tensors_reported_apart_from_saved(torch):
    """A tensor kept as a ctx attribute (not via save_for_backward) is invisible to torch's
    saved_tensors_hooks; core reports it as ctx_attr_bytes, outside saved_bytes."""
    def make(lib):
        class Keep(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.copy = x * 3
                return x * 2

            @staticmethod
            def backward(ctx, g):
                return g * 2
        return Keep

    data = np.ones((25, 10), dtype=np.float32)
    cx, tx = core.tensor(data, requires_grad=True), torch.tensor(data, requires_grad=True)
    inv, t = both(torch, lambda: make(core).apply(cx), lambda: make(torch).apply(tx), [cx], [tx])
    assert inv.saved_bytes == t["bytes"] == 0
    assert inv.ctx_attr_bytes == 1000


def test_tensor_saved_by_two_nodes_counts_once():
    w = core.randn(8, 8, requires_grad=True)
    h = w + 1
    y = (h * h).sum() + h.relu().sum()
    inv = memory.graph_inventory(y)     # Mul saves h twice, Relu saves its output
    assert inv.saved_records == 3
    assert inv.saved_tensors == 2
    assert inv.saved_bytes == 2 * 256


def test_graph_only_vs_held_inputs():
    w = core.randn(10, 5, requires_grad=True)
    x_held = core.randn(4, 10)

    def fresh():
        return (core.randn(4, 10) @ w).sum()

    held = memory.graph_inventory((x_held @ w).sum())
    dropped = memory.graph_inventory(fresh())
    assert (held.held_bytes, held.graph_bytes) == (160, 0)
    assert (dropped.held_bytes, dropped.graph_bytes) == (0, 160)
    # like torch, x @ w saves only x (w's gradient needs x; x needs none, so w is not saved)
    assert held.parameter_bytes == dropped.parameter_bytes == 0


def test_backward_frees_saved_tensors():
    w = core.randn(10, 5, requires_grad=True)
    y = (core.randn(4, 10) @ w).relu().sum()
    before = memory.graph_inventory(y)
    y.backward()
    after = memory.graph_inventory(y)
    assert before.saved_bytes > 0
    assert (after.saved_tensors, after.saved_bytes, after.freed_nodes) == (0, 0, 2)


def test_del_result_frees_graph_and_saved_buffers():
    import weakref
    w = core.randn(10, 5, requires_grad=True)
    y = (core.randn(4, 10) @ w).relu()
    inv = memory.graph_inventory(y)
    assert (inv.nodes, inv.graph_bytes) == (2, 160)          # the input, kept only by MmBackward0
    graph_only = [b for b in inv.buffers if b.kind == "graph"]
    assert [b.node for b in graph_only] == ["MmBackward0"]
    node = weakref.ref(y.grad_fn)
    mm = y.grad_fn.next_functions[0][0]
    x_buf = weakref.ref(memory.buffer_owner(mm._saved_items()[0].data))
    del mm, inv, graph_only
    kept = y.detach()
    del y
    assert node() is None and x_buf() is None
    assert memory.graph_inventory(kept).nodes == 0


def test_retain_graph_keeps_saved_tensors():
    w = core.randn(10, 5, requires_grad=True)
    y = (core.randn(4, 10) @ w).relu().sum()
    before = memory.graph_inventory(y).saved_bytes
    y.backward(retain_graph=True)
    assert memory.graph_inventory(y).saved_bytes == before


def test_no_grad_and_inference_mode_save_nothing():
    w = core.randn(10, 5, requires_grad=True)
    for ctx in (core.no_grad, core.inference_mode):
        with ctx():
            y = (core.randn(4, 10) @ w).relu()
        inv = memory.graph_inventory(y)
        assert (inv.nodes, inv.saved_tensors, inv.saved_bytes) == (0, 0, 0)


def test_custom_function_saved_tensors_counted(torch):
    def make(lib):
        class Cube(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.save_for_backward(x)
                return x ** 3

            @staticmethod
            def backward(ctx, g):
                (x,) = ctx.saved_tensors
                return 3 * x ** 2 * g
        return Cube

    data = np.random.rand(50, 20).astype(np.float32)
    cc, tc = make(core), make(torch)
    cx = core.tensor(data, requires_grad=True)
    tx = torch.tensor(data, requires_grad=True)
    inv, t = both(torch, lambda: cc.apply(cx + 1), lambda: tc.apply(tx + 1), [cx], [tx])
    assert (inv.saved_bytes, inv.graph_bytes) == (t["bytes"], 4000)
    assert [b.node for b in inv.buffers] == ["CubeBackward"] * (len(inv.buffers))


def test_result_bytes_dedupe_views():
    a = core.randn(100, 100)
    assert memory.result_bytes([a, a[:10], a.t()]) == 40000


def test_buffer_owner_follows_view_chain():
    a = np.zeros((10, 10))
    v = a[2:][:, 3:].T
    assert memory.buffer_owner(v) is a
    s = np.lib.stride_tricks.as_strided(a, (3, 3), (8, 8))
    assert memory.buffer_owner(s) is a


# -- measure / compare without nn --------------------------------------------------------------

def test_measure_keep_outputs_grows_graph_per_batch():
    w = core.randn(200, 200, requires_grad=True)
    rep = memory.measure(lambda x: x @ w, inputs=lambda i: core.randn(50, 200), batches=4, keep_outputs=True)
    # each batch's fresh input (50*200*4 bytes) is kept only by its graph
    assert rep.graph_bytes == 4 * 40000
    assert rep.parameter_bytes == 0          # w is not saved: x needs no gradient
    assert rep.result_bytes == 4 * 50 * 200 * 4
    assert rep.per_batch_bytes[-1] > rep.per_batch_bytes[0]


def test_measure_without_keep_holds_only_last_graph():
    w = core.randn(200, 200, requires_grad=True)
    rep = memory.measure(lambda x: x @ w, inputs=lambda i: core.randn(50, 200), batches=4)
    assert rep.graph_bytes == 40000
    assert rep.result_bytes == 40000


def test_detach_mode_keeps_results_but_no_graph():
    w = core.randn(200, 200, requires_grad=True)
    rep = memory.measure(lambda x: x @ w, inputs=lambda i: core.randn(50, 200), batches=3, mode="detach",
                         keep_outputs=True)
    assert (rep.graph_nodes, rep.saved_bytes, rep.graph_bytes) == (0, 0, 0)
    assert rep.result_bytes == 3 * 40000


@pytest.mark.parametrize("mode", ["no_grad", "inference_mode"])
def test_no_grad_modes_report_zero_saved(mode):
    w = core.randn(200, 200, requires_grad=True)
    rep = memory.measure(lambda x: (x @ w).relu(), inputs=lambda i: core.randn(50, 200), batches=3,
                         mode=mode, keep_outputs=True)
    assert (rep.graph_nodes, rep.saved_tensors, rep.saved_bytes) == (0, 0, 0)
    assert rep.result_bytes == 3 * 40000


def test_measure_backward_frees_graph():
    w = core.randn(200, 200, requires_grad=True)
    rep = memory.measure(lambda x: (x @ w).relu(), inputs=lambda i: core.randn(50, 200), batches=2,
                         keep_outputs=True, backward=True)
    assert rep.backward
    assert (rep.saved_bytes, rep.freed_nodes) == (0, 4)
    assert w.grad is not None


def test_measure_backward_skipped_under_no_grad_is_noted():
    w = core.randn(20, 20, requires_grad=True)
    rep = memory.measure(lambda: core.randn(5, 20) @ w, mode="no_grad", backward=True)
    assert not rep.backward and "skipped" in rep.note


def test_measure_peak_traces_numpy_buffers():
    rep = memory.measure(lambda: (core.ones(1000, 1000) * 2).sum(), mode="no_grad")
    assert rep.peak_bytes >= 4_000_000          # the 4 MB temporaries were seen by tracemalloc
    assert rep.transient_bytes >= 4_000_000     # ...and were freed before the end


def test_compare_ratios_grad_over_no_grad():
    w = core.randn(300, 300, requires_grad=True)
    rep = memory.compare(lambda x: (x @ w).relu(), inputs=lambda i: core.randn(100, 300), batches=3,
                         keep_outputs=True)
    assert set(rep.modes) == {"grad", "no_grad", "inference_mode"}
    assert rep.ratios["retained_bytes"] > 1.5      # grad keeps inputs + relu outputs on top of results
    assert rep.ratios["saved_bytes"] is None       # no_grad saved 0 bytes
    d = rep.to_dict()
    assert d["modes"]["grad"]["saved_bytes"] == rep.modes["grad"].saved_bytes


def test_measure_stops_when_retained_bytes_exceed_limit():
    with pytest.raises(RuntimeError, match="stopped after batch 2 of 50"):
        memory.measure(lambda x: x * 2, inputs=lambda i: core.randn(100, 100), batches=50, keep_outputs=True,
                       mode="no_grad", max_retained=50_000)


def test_measure_rejects_unknown_mode():
    with pytest.raises(ValueError, match="unknown mode"):
        memory.measure(lambda: None, mode="fast")


def test_core_memory_is_reachable_as_attribute():
    assert core.memory is memory
