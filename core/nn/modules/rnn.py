"""Recurrent layers, ported from torch/nn/modules/rnn.py: RNN, LSTM, GRU (num_layers, bias,
batch_first, dropout between layers, bidirectional, LSTM's proj_size; a PackedSequence input runs
through rnn_packed.py) and RNNCell / LSTMCell / GRUCell. Parameters are named, shaped, ordered and
initialised as torch's (weight_ih_l0, weight_hh_l0, bias_ih_l0, bias_hh_l0, ..._reverse;
U(-1/sqrt(hidden), 1/sqrt(hidden))); the recurrence runs step by step with core ops (gate order
i, f, g, o for LSTM and r, z, n for GRU)."""
from __future__ import annotations

import math
import numbers
import warnings

from ... import creation as _creation
from ..._warn import warn_aten
from ...ops.pointwise import relu, sigmoid, tanh
from ...ops.shape import cat, stack
from ...ops.shape.join import StackBackward0
from .. import functional as F
from .. import init
from ..module import Module
from ..parameter import Parameter
from ..utils.rnn import PackedSequence
from .rnn_packed import forward_packed

__all__ = ["RNNBase", "RNN", "LSTM", "GRU", "RNNCellBase", "RNNCell", "LSTMCell", "GRUCell"]

_GATES = {"LSTM": 4, "GRU": 3, "RNN_TANH": 1, "RNN_RELU": 1}


class MkldnnRnnLayerBackward0(StackBackward0):
    """The stack of one LSTM layer-direction's outputs, named as torch's CPU path names that output:
    torch runs a float32 LSTM without projections through oneDNN's fused layer (mkldnn_rnn_layer), whose
    node is MkldnnRnnLayerBackward0. The values are the step-by-step recurrence's (same formulas); the
    node's edges go to the steps' outputs rather than to the layer's inputs and weights."""


def _uses_mkldnn(mode, proj_size, x) -> bool:
    """torch's use_mkldnn for LSTM on CPU (aten/src/ATen/native/RNN.cpp): float32, no projections
    (packed input takes the other path, see rnn_packed.py)."""
    return mode == "LSTM" and proj_size == 0 and x.dtype.itemsize == 4 and x.dtype.is_floating_point


def _rnn_step(x, h, w_ih, w_hh, b_ih, b_hh, act):
    return act(F.linear(x, w_ih, b_ih) + F.linear(h, w_hh, b_hh))


def _lstm_step(x, hc, w_ih, w_hh, b_ih, b_hh, w_hr=None):
    h, c = hc
    gates = F.linear(x, w_ih, b_ih) + F.linear(h, w_hh, b_hh)
    i, f, g, o = gates.chunk(4, 1)
    c = sigmoid(f) * c + sigmoid(i) * tanh(g)
    h = sigmoid(o) * tanh(c)
    return (h if w_hr is None else F.linear(h, w_hr)), c


def _gru_step(x, h, w_ih, w_hh, b_ih, b_hh):
    ir, iz, in_ = F.linear(x, w_ih, b_ih).chunk(3, 1)
    hr, hz, hn = F.linear(h, w_hh, b_hh).chunk(3, 1)
    r, z = sigmoid(ir + hr), sigmoid(iz + hz)
    n = tanh(in_ + r * hn)
    return (1 - z) * n + z * h


class RNNBase(Module):
    """Shared parameter layout, checks, repr and the layer/direction loop of RNN, LSTM and GRU."""

    def __init__(self, mode, input_size, hidden_size, num_layers=1, bias=True, batch_first=False, dropout=0.0,
                 bidirectional=False, proj_size=0, device=None, dtype=None):
        super().__init__()
        self.mode, self.input_size, self.hidden_size, self.num_layers = mode, input_size, hidden_size, num_layers
        self.bias, self.batch_first, self.bidirectional, self.proj_size = bias, batch_first, bidirectional, proj_size
        self.dropout = float(dropout) if isinstance(dropout, numbers.Number) else dropout
        _check_rnn_args(mode, input_size, hidden_size, num_layers, bias, batch_first, dropout, proj_size)
        gate_size = _GATES[mode] * hidden_size
        self._flat_weights_names, self._all_weights = [], []
        real_hidden = proj_size if proj_size > 0 else hidden_size
        for layer in range(num_layers):
            for direction in range(2 if bidirectional else 1):
                layer_in = input_size if layer == 0 else real_hidden * (2 if bidirectional else 1)
                shapes = {"weight_ih_l{}{}": (gate_size, layer_in), "weight_hh_l{}{}": (gate_size, real_hidden)}
                if bias:
                    shapes.update({"bias_ih_l{}{}": (gate_size,), "bias_hh_l{}{}": (gate_size,)})
                if proj_size > 0:
                    shapes["weight_hr_l{}{}"] = (proj_size, hidden_size)
                names = []
                for fmt, shape in shapes.items():
                    name = fmt.format(layer, "_reverse" if direction == 1 else "")
                    setattr(self, name, Parameter(_creation.empty(shape, dtype=dtype, device=device)))
                    names.append(name)
                self._flat_weights_names.extend(names)
                self._all_weights.append(names)
        self.reset_parameters()

    @property
    def _flat_weights(self):
        return [getattr(self, n) for n in self._flat_weights_names]

    @property
    def all_weights(self):
        return [[getattr(self, n) for n in names] for names in self._all_weights]

    def flatten_parameters(self):
        """No-op (there is no cuDNN weight buffer to compact)."""

    def reset_parameters(self):
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -stdv, stdv)

    def extra_repr(self):
        s = "{input_size}, {hidden_size}"
        if self.proj_size != 0:
            s += ", proj_size={proj_size}"
        if self.num_layers != 1:
            s += ", num_layers={num_layers}"
        if self.bias is not True:
            s += ", bias={bias}"
        if self.batch_first is not False:
            s += ", batch_first={batch_first}"
        if self.dropout != 0:
            s += ", dropout={dropout}"
        if self.bidirectional is not False:
            s += ", bidirectional={bidirectional}"
        return s.format(**self.__dict__)

    def _check_input(self, input, expected_dim=3):
        w = self._flat_weights[0]
        if input.dtype != w.dtype:
            raise ValueError(f"RNN input dtype ({input.dtype}) does not match weight dtype ({w.dtype}). Convert "
                             f"input: input.to({w.dtype}), or convert model: model.to({input.dtype})")
        if input.dim() != expected_dim:
            raise RuntimeError(f"input must have {expected_dim} dimensions, got {input.dim()}")
        if self.input_size != input.size(-1):
            raise RuntimeError(f"input.size(-1) must be equal to input_size. Expected {self.input_size}, got "
                               f"{input.size(-1)}")

    def _expected_hidden(self, input, size):
        batch = input.size(0) if self.batch_first else input.size(1)
        return (self.num_layers * (2 if self.bidirectional else 1), batch, size)

    def _check_hidden(self, hx, expected, msg="Expected hidden size {}, got {}"):
        if tuple(hx.size()) != expected:
            raise RuntimeError(msg.format(expected, list(hx.size())))

    def _zeros(self, input, size):
        return _creation.zeros(self._expected_hidden(input, size), dtype=input.dtype)

    def _run(self, input, hx):
        """The stacked (and reversed) recurrence on time-major input [T, N, H_in]; hx per layer*direction."""
        dirs = 2 if self.bidirectional else 1
        x = input.transpose(0, 1) if self.batch_first else input
        finals = []
        for layer in range(self.num_layers):
            outs = []
            for d in range(dirs):
                idx = layer * dirs + d
                ws = [getattr(self, n) for n in self._all_weights[idx]]
                out, final = self._direction(x, hx, idx, ws, reverse=d == 1)
                outs.append(out)
                finals.append(final)
            x = outs[0] if dirs == 1 else cat(outs, 2)
            if self.dropout and self.training and layer < self.num_layers - 1:
                x = F.dropout(x, self.dropout, True)
        if not self.batch_first:
            return x, finals
        if self.mode == "LSTM":
            return x.transpose(0, 1), finals     # torch's lstm: output.transpose(0, 1) (TransposeBackward0)
        return x.transpose_(0, 1), finals        # torch's _rnn_impl: std::get<0>(result).transpose_(0, 1)

    def _direction(self, x, hx, idx, ws, reverse):
        step = self._step(ws)
        state = tuple(h[idx] for h in hx) if isinstance(hx, tuple) else hx[idx]
        steps = range(x.size(0) - 1, -1, -1) if reverse else range(x.size(0))
        outs = []
        for t in steps:
            state = step(x[t], state)
            outs.append(state[0] if isinstance(state, tuple) else state)
        if reverse:
            outs.reverse()
        if _uses_mkldnn(self.mode, self.proj_size, x):
            return MkldnnRnnLayerBackward0.apply(outs, 0, outs[0]._data.dtype), state
        return stack(outs, 0), state

    def _step(self, ws):
        w_ih, w_hh = ws[0], ws[1]
        b_ih, b_hh = (ws[2], ws[3]) if self.bias else (None, None)
        if self.mode == "LSTM":
            w_hr = ws[-1] if self.proj_size > 0 else None
            return lambda x, hc: _lstm_step(x, hc, w_ih, w_hh, b_ih, b_hh, w_hr)
        if self.mode == "GRU":
            return lambda x, h: _gru_step(x, h, w_ih, w_hh, b_ih, b_hh)
        act = tanh if self.mode == "RNN_TANH" else relu
        return lambda x, h: _rnn_step(x, h, w_ih, w_hh, b_ih, b_hh, act)

    def _forward_single(self, input, hx, name):
        """RNN and GRU: one hidden state tensor."""
        if isinstance(input, PackedSequence):
            return forward_packed(self, input, hx)
        if input.dim() not in (2, 3):
            tail = " tensor instead" if name == "RNN" else " instead"
            raise ValueError(f"{name}: Expected input to be 2D or 3D, got {input.dim()}D{tail}")
        batched = input.dim() == 3
        if not batched:
            input = input.unsqueeze(0 if self.batch_first else 1)
            if hx is not None:
                if hx.dim() != 2:
                    raise RuntimeError(f"For unbatched 2-D input, hx should also be 2-D but got {hx.dim()}-D tensor")
                hx = hx.unsqueeze(1)
        elif hx is not None and hx.dim() != 3:
            raise RuntimeError(f"For batched 3-D input, hx should also be 3-D but got {hx.dim()}-D tensor")
        if hx is None:
            hx = self._zeros(input, self.hidden_size)
        self._check_input(input)
        self._check_hidden(hx, self._expected_hidden(input, self.hidden_size))
        out, finals = self._run(input, hx)
        h = stack(finals, 0)
        if not batched:
            out, h = out.squeeze(0 if self.batch_first else 1), h.squeeze(1)
        return out, h


def _check_rnn_args(mode, input_size, hidden_size, num_layers, bias, batch_first, dropout, proj_size):
    if not isinstance(dropout, numbers.Number) or not 0 <= dropout <= 1 or isinstance(dropout, bool):
        raise ValueError("dropout should be a number in range [0, 1] representing the probability of an element "
                         "being zeroed")
    if dropout > 0 and num_layers == 1:
        warnings.warn("dropout option adds dropout after all but last recurrent layer, so non-zero dropout expects "
                      f"num_layers greater than 1, but got dropout={dropout} and num_layers={num_layers}",
                      stacklevel=3)   # torch's: the RNN / LSTM / GRU __init__ calling RNNBase's
    for name, v, kind in (("bias", bias, bool), ("batch_first", batch_first, bool), ("input_size", input_size, int)):
        if not isinstance(v, kind):
            raise TypeError(f"{name} should be of type {kind.__name__}, got: {type(v).__name__}")
    if input_size <= 0:
        raise ValueError("input_size must be greater than zero")
    if not isinstance(hidden_size, int):
        raise TypeError(f"hidden_size should be of type int, got: {type(hidden_size).__name__}")
    if hidden_size <= 0:
        raise ValueError("hidden_size must be greater than zero")
    if num_layers <= 0:
        raise ValueError("num_layers must be greater than zero")
    if proj_size < 0:
        raise ValueError("proj_size should be a positive integer or zero to disable projections")
    if proj_size >= hidden_size:
        raise ValueError("proj_size has to be smaller than hidden_size")


class RNN(RNNBase):
    """Elman RNN: h_t = act(x_t W_ih^T + b_ih + h_{t-1} W_hh^T + b_hh), act = tanh or relu."""

    def __init__(self, *args, **kwargs):
        if "proj_size" in kwargs:
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        if len(args) > 3:
            self.nonlinearity = args[3]
            args = args[:3] + args[4:]
        else:
            self.nonlinearity = kwargs.pop("nonlinearity", "tanh")
        modes = {"tanh": "RNN_TANH", "relu": "RNN_RELU"}
        if self.nonlinearity not in modes:
            raise ValueError(f"Unknown nonlinearity '{self.nonlinearity}'. Select from 'tanh' or 'relu'.")
        super().__init__(modes[self.nonlinearity], *args, **kwargs)

    def forward(self, input, hx=None):
        return self._forward_single(input, hx, "RNN")


class GRU(RNNBase):
    """Gated recurrent unit: r, z = sigmoid(...), n = tanh(W_in x + b_in + r * (W_hn h + b_hn)), h' = (1-z) n + z h."""

    def __init__(self, *args, **kwargs):
        if "proj_size" in kwargs:
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        super().__init__("GRU", *args, **kwargs)

    def forward(self, input, hx=None):
        return self._forward_single(input, hx, "GRU")


class LSTM(RNNBase):
    """Long short-term memory: gates i, f, g, o; c' = f c + i g, h' = o tanh(c') (projected by W_hr if proj_size)."""

    def __init__(self, *args, **kwargs):
        super().__init__("LSTM", *args, **kwargs)

    def forward(self, input, hx=None):
        if isinstance(input, PackedSequence):
            return forward_packed(self, input, hx)
        if input.dim() not in (2, 3):
            raise ValueError(f"LSTM: Expected input to be 2D or 3D, got {input.dim()}D instead")
        batched = input.dim() == 3
        if not batched:
            input = input.unsqueeze(0 if self.batch_first else 1)
        real_hidden = self.proj_size if self.proj_size > 0 else self.hidden_size
        if hx is None:
            hx = (self._zeros(input, real_hidden), self._zeros(input, self.hidden_size))
        else:
            want = 3 if batched else 2
            if hx[0].dim() != want or hx[1].dim() != want:
                kind = "batched 3-D" if batched else "unbatched 2-D"
                raise RuntimeError(f"For {kind} input, hx and cx should also be {want}-D but got "
                                   f"({hx[0].dim()}-D, {hx[1].dim()}-D) tensors")
            if not batched:
                hx = (hx[0].unsqueeze(1), hx[1].unsqueeze(1))
        self._check_input(input)
        self._check_hidden(hx[0], self._expected_hidden(input, real_hidden), "Expected hidden[0] size {}, got {}")
        self._check_hidden(hx[1], self._expected_hidden(input, self.hidden_size),
                           "Expected hidden[1] size {}, got {}")
        if self.proj_size > 0 and _uses_mkldnn("LSTM", 0, input):
            warn_aten("LSTM with projections is not supported with oneDNN. Using default implementation.",
                      "aten/src/ATen/native/RNN.cpp:1512", once=True)
        out, finals = self._run(input, hx)
        h, c = stack([f[0] for f in finals], 0), stack([f[1] for f in finals], 0)
        if not batched:
            out, h, c = out.squeeze(0 if self.batch_first else 1), h.squeeze(1), c.squeeze(1)
        return out, (h, c)


class RNNCellBase(Module):
    """weight_ih [chunks*hidden, input], weight_hh [chunks*hidden, hidden], bias_ih, bias_hh ~ U(+-1/sqrt(hidden))."""

    def __init__(self, input_size, hidden_size, bias, num_chunks, device=None, dtype=None):
        super().__init__()
        self.input_size, self.hidden_size, self.bias = input_size, hidden_size, bias
        self.weight_ih = Parameter(_creation.empty((num_chunks * hidden_size, input_size), dtype=dtype, device=device))
        self.weight_hh = Parameter(_creation.empty((num_chunks * hidden_size, hidden_size), dtype=dtype, device=device))
        if bias:
            self.bias_ih = Parameter(_creation.empty((num_chunks * hidden_size,), dtype=dtype, device=device))
            self.bias_hh = Parameter(_creation.empty((num_chunks * hidden_size,), dtype=dtype, device=device))
        else:
            self.register_parameter("bias_ih", None)
            self.register_parameter("bias_hh", None)
        self.reset_parameters()

    def extra_repr(self):
        s = "{input_size}, {hidden_size}"
        if "bias" in self.__dict__ and self.bias is not True:
            s += ", bias={bias}"
        if "nonlinearity" in self.__dict__ and self.nonlinearity != "tanh":
            s += ", nonlinearity={nonlinearity}"
        return s.format(**self.__dict__)

    def reset_parameters(self):
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -stdv, stdv)

    def _prepare(self, input, hx, name):
        if input.dim() not in (1, 2):
            raise ValueError(f"{name}: Expected input to be 1D or 2D, got {input.dim()}D instead")
        if hx is not None and hx.dim() not in (1, 2):
            raise ValueError(f"{name}: Expected hidden to be 1D or 2D, got {hx.dim()}D instead")
        batched = input.dim() == 2
        if not batched:
            input = input.unsqueeze(0)
        if hx is None:
            hx = _creation.zeros((input.size(0), self.hidden_size), dtype=input.dtype)
        elif not batched:
            hx = hx.unsqueeze(0)
        return input, hx, batched

    def _weights(self):
        return self.weight_ih, self.weight_hh, self.bias_ih, self.bias_hh


class RNNCell(RNNCellBase):
    """One Elman RNN step: h' = act(x W_ih^T + b_ih + h W_hh^T + b_hh)."""

    def __init__(self, input_size, hidden_size, bias=True, nonlinearity="tanh", device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, num_chunks=1, device=device, dtype=dtype)
        self.nonlinearity = nonlinearity

    def forward(self, input, hx=None):
        input, hx, batched = self._prepare(input, hx, "RNNCell")
        if self.nonlinearity not in ("tanh", "relu"):
            raise RuntimeError(f"Unknown nonlinearity: {self.nonlinearity}")
        r = _rnn_step(input, hx, *self._weights(), tanh if self.nonlinearity == "tanh" else relu)
        return r if batched else r.squeeze(0)


class LSTMCell(RNNCellBase):
    """One LSTM step; returns (h', c')."""

    def __init__(self, input_size, hidden_size, bias=True, device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, num_chunks=4, device=device, dtype=dtype)

    def forward(self, input, hx=None):
        if input.dim() not in (1, 2):
            raise ValueError(f"LSTMCell: Expected input to be 1D or 2D, got {input.dim()}D instead")
        if hx is not None:
            for idx, value in enumerate(hx):
                if value.dim() not in (1, 2):
                    raise ValueError(f"LSTMCell: Expected hx[{idx}] to be 1D or 2D, got {value.dim()}D instead")
        batched = input.dim() == 2
        if not batched:
            input = input.unsqueeze(0)
        if hx is None:
            zeros = _creation.zeros((input.size(0), self.hidden_size), dtype=input.dtype)
            hx = (zeros, zeros)
        elif not batched:
            hx = (hx[0].unsqueeze(0), hx[1].unsqueeze(0))
        h, c = _lstm_step(input, hx, *self._weights())
        return (h, c) if batched else (h.squeeze(0), c.squeeze(0))


class GRUCell(RNNCellBase):
    """One GRU step."""

    def __init__(self, input_size, hidden_size, bias=True, device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, num_chunks=3, device=device, dtype=dtype)

    def forward(self, input, hx=None):
        input, hx, batched = self._prepare(input, hx, "GRUCell")
        r = _gru_step(input, hx, *self._weights())
        return r if batched else r.squeeze(0)
