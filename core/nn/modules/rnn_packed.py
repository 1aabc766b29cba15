"""RNN / LSTM / GRU on a PackedSequence, as torch's CPU kernels (ATen RNN.cpp PackedLayer and
ReversedPackedLayer): the input projection of every step at once (linear_ih on the packed data), then
one cell per time step on that step's batch; when the batch shrinks, the finished sequences' hidden
states are set aside and become their final states (the reverse direction starts from the shortest
batch and grows it). Cells are ATen's formulas (linear_hh(h) + x_w; GRU's (h - n) * z + n). Layers
stack with dropout on the packed data between them in training; batch_first does not apply; a given
hx is permuted into the sorted order and the final states are permuted back, as torch.nn.RNNBase."""
from __future__ import annotations

from ... import creation as _creation
from ... import dtypes as _dtypes
from ...backends import mkldnn as _mkldnn
from ...ops.pointwise import relu, sigmoid, tanh
from ...ops.shape import cat, stack
from .. import functional as F
from ..utils.rnn import PackedSequence

__all__ = ["forward_packed"]


def _lstm_cell(x_w, hc, w_hh, b_hh, w_hr):
    h, c = hc
    i, f, g, o = (F.linear(h, w_hh, b_hh) + x_w).chunk(4, 1)
    cy = sigmoid(f) * c + sigmoid(i) * tanh(g)
    hy = sigmoid(o) * tanh(cy)
    return (hy if w_hr is None else hy.matmul(w_hr.t())), cy


def _gru_cell(x_w, h, w_hh, b_hh):
    ir, iz, in_ = x_w.chunk(3, 1)
    hr, hz, hn = F.linear(h, w_hh, b_hh).chunk(3, 1)
    r, z = sigmoid(hr + ir), sigmoid(hz + iz)
    n = tanh(in_ + hn * r)
    return (h - n) * z + n


def _cell(mode, ws, bias, proj):
    """The step function (precomputed input projection, state) -> state, and linear_ih's weights."""
    w_hh, b_hh = ws[1], (ws[3] if bias else None)
    if mode == "LSTM":
        w_hr = ws[-1] if proj else None
        return (lambda x, s: _lstm_cell(x, s, w_hh, b_hh, w_hr)), ws[0], (ws[2] if bias else None)
    if mode == "GRU":
        return (lambda x, s: _gru_cell(x, s, w_hh, b_hh)), ws[0], (ws[2] if bias else None)
    act = tanh if mode == "RNN_TANH" else relu
    return (lambda x, s: act(F.linear(s, w_hh, b_hh) + x)), ws[0], (ws[2] if bias else None)


def _slice(state, start, end):
    if isinstance(state, tuple):
        return tuple(s.narrow(0, start, end - start) for s in state)
    return state.narrow(0, start, end - start)


def _concat(states):
    if isinstance(states[0], tuple):
        return tuple(cat([s[k] for s in states], 0) for k in range(len(states[0])))
    return cat(states, 0)


def _output(state):
    return state[0] if isinstance(state, tuple) else state


def _forward_layer(cell, x_w, batch_sizes, hidden):
    """PackedLayer: hidden states of finished sequences are set aside as the batch shrinks."""
    outputs, finals, offset, last = [], [], 0, batch_sizes[0]
    for bs in batch_sizes:
        step = x_w.narrow(0, offset, bs)
        offset += bs
        if last > bs:
            finals.append(_slice(hidden, bs, last))
            hidden = _slice(hidden, 0, bs)
        last = bs
        hidden = cell(step, hidden)
        outputs.append(_output(hidden))
    finals.append(hidden)
    finals.reverse()
    return cat(outputs, 0), _concat(finals)


def _reverse_layer(cell, x_w, batch_sizes, input_hidden):
    """ReversedPackedLayer: from the last (smallest) step back, the batch grows with fresh initial states."""
    outputs, offset, last = [], x_w.size(0), batch_sizes[-1]
    hidden = _slice(input_hidden, 0, last)
    for bs in reversed(batch_sizes):
        if bs > last:
            hidden = _concat([hidden, _slice(input_hidden, last, bs)])
        step = x_w.narrow(0, offset - bs, bs)
        offset -= bs
        last = bs
        hidden = cell(step, hidden)
        outputs.append(_output(hidden))
    outputs.reverse()
    return cat(outputs, 0), hidden


def _run_packed(module, data, batch_sizes, hx):
    """The layer stack: returns the packed output data and the final state per layer*direction."""
    dirs = 2 if module.bidirectional else 1
    finals = []
    for layer in range(module.num_layers):
        outs = []
        for d in range(dirs):
            idx = layer * dirs + d
            ws = [getattr(module, n) for n in module._all_weights[idx]]
            cell, w_ih, b_ih = _cell(module.mode, ws, module.bias, module.proj_size > 0)
            x_w = F.linear(data, w_ih, b_ih)
            state = tuple(h[idx] for h in hx) if isinstance(hx, tuple) else hx[idx]
            run = _reverse_layer if d == 1 else _forward_layer
            out, final = run(cell, x_w, batch_sizes, state)
            outs.append(out)
            finals.append(final)
        data = outs[0] if dirs == 1 else cat(outs, 1)
        if module.dropout and module.training and layer < module.num_layers - 1:
            data = F.dropout(data, module.dropout, True)
    return data, finals


def _permute(hx, permutation):
    if permutation is None:
        return hx
    if isinstance(hx, tuple):
        return tuple(h.index_select(1, permutation) for h in hx)
    return hx.index_select(1, permutation)


def _mkldnn_path(module, data, batch_sizes):
    """torch runs a float32 LSTM (no projection) on one packed sequence through oneDNN as a padded batch
    of one: same values, but the output data is a view (grad_fn ViewBackward0)."""
    return (module.proj_size == 0 and data.dtype == _dtypes.float32 and data.numel() != 0 and _mkldnn.enabled
            and all(b == 1 for b in batch_sizes))


def forward_packed(module, packed, hx):
    """torch.nn.RNN / LSTM / GRU forward on a PackedSequence: (PackedSequence output, final state(s))."""
    data, batch_sizes_t, sorted_indices, unsorted_indices = packed
    batch_sizes = [int(b) for b in batch_sizes_t.tolist()]
    dirs = 2 if module.bidirectional else 1
    lstm = module.mode == "LSTM"
    real_hidden = module.proj_size if module.proj_size > 0 else module.hidden_size
    if hx is None:
        shape = (module.num_layers * dirs, batch_sizes[0])
        hx = _creation.zeros(shape + (real_hidden,), dtype=data.dtype, device=data.device)
        if lstm:
            hx = (hx, _creation.zeros(shape + (module.hidden_size,), dtype=data.dtype, device=data.device))
    else:
        hx = _permute(tuple(hx) if lstm else hx, sorted_indices)
    if not lstm:      # torch's LSTM leaves packed-input checks to its kernel
        module._check_input(data, 2)
        module._check_hidden(hx, (module.num_layers * dirs, batch_sizes[0], module.hidden_size))
    out, finals = _run_packed(module, data, batch_sizes, hx)
    if lstm and _mkldnn_path(module, data, batch_sizes):
        out = out.view(out.shape)
    if lstm:
        hidden = (stack([f[0] for f in finals], 0), stack([f[1] for f in finals], 0))
    else:
        hidden = stack(finals, 0)
    return PackedSequence(out, batch_sizes_t, sorted_indices, unsorted_indices), _permute(hidden, unsorted_indices)
