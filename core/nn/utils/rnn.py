"""torch.nn.utils.rnn: PackedSequence and the functions that pack, pad and unpad variable-length
batches (pad_sequence, pack_padded_sequence, pad_packed_sequence, pack_sequence, unpad_sequence,
unpack_sequence, invert_permutation), ported from torch/nn/utils/rnn.py and ATen's
PackedSequence.cpp: the same checks and messages, the same data layout (time-major, batch sizes per
step), PackPaddedSequenceBackward0 on packed data, CopySlices from padding, and torch's clamping when a
length exceeds the padded time dimension."""
from __future__ import annotations

from collections.abc import Iterable
from typing import NamedTuple

import numpy as np

from ... import creation
from ... import dtypes as _dtypes
from ...autograd.function import Op
from ...tensor import Tensor

__all__ = ["PackedSequence", "invert_permutation", "pack_padded_sequence", "pad_packed_sequence", "pad_sequence",
           "unpad_sequence", "pack_sequence", "unpack_sequence"]


class PackedSequence_(NamedTuple):
    data: Tensor
    batch_sizes: Tensor
    sorted_indices: Tensor | None
    unsorted_indices: Tensor | None


def bind(optional, fn):
    return None if optional is None else fn(optional)


class PackedSequence(PackedSequence_):
    """Holds the data and list of batch_sizes of a packed sequence (a namedtuple, as torch's): data is
    the time-major concatenation of every step's batch, batch_sizes a CPU int64 tensor."""

    def __new__(cls, data, batch_sizes=None, sorted_indices=None, unsorted_indices=None):
        return super().__new__(cls, *_packed_sequence_init_args(data, batch_sizes, sorted_indices,
                                                                 unsorted_indices))

    def pin_memory(self):
        return type(self)(self.data.pin_memory(), self.batch_sizes,
                          bind(self.sorted_indices, lambda t: t.pin_memory()),
                          bind(self.unsorted_indices, lambda t: t.pin_memory()))

    def to(self, *args, **kwargs):
        """Convert data (dtype and/or device); self when data is unchanged, indices follow data's device."""
        data = self.data.to(*args, **kwargs)
        if data is self.data:
            return self
        non_blocking = kwargs.get("non_blocking", False)

        def call_to(t):
            return t.to(data.device, non_blocking=non_blocking)

        return type(self)(data, self.batch_sizes, bind(self.sorted_indices, call_to),
                          bind(self.unsorted_indices, call_to))

    def cuda(self, *args, **kwargs):
        ex = creation.tensor((), dtype=self.data.dtype, device=self.data.device).to(*args, **kwargs)
        if ex.is_cuda:
            return self.to(*args, **kwargs)
        kwargs["device"] = "cuda"
        return self.to(*args, **kwargs)

    def cpu(self, *args, **kwargs):
        ex = creation.tensor((), dtype=self.data.dtype, device=self.data.device).to(*args, **kwargs)
        if ex.device.type == "cpu":
            return self.to(*args, **kwargs)
        kwargs["device"] = "cpu"
        return self.to(*args, **kwargs)

    def double(self):
        return self.to(dtype=_dtypes.float64)

    def float(self):
        return self.to(dtype=_dtypes.float32)

    def half(self):
        return self.to(dtype=_dtypes.float16)

    def long(self):
        return self.to(dtype=_dtypes.int64)

    def int(self):
        return self.to(dtype=_dtypes.int32)

    def short(self):
        return self.to(dtype=_dtypes.int16)

    def char(self):
        return self.to(dtype=_dtypes.int8)

    def byte(self):
        return self.to(dtype=_dtypes.uint8)

    @property
    def is_cuda(self):
        """True if data is stored on a GPU (never, on core)."""
        return self.data.is_cuda

    def is_pinned(self):
        """True if data is in pinned memory: core's tensors live in ordinary (pageable) host memory."""
        pinned = getattr(self.data, "is_pinned", None)
        return bool(pinned()) if pinned is not None else False


def _packed_sequence_init_args(data, batch_sizes=None, sorted_indices=None, unsorted_indices=None):
    if unsorted_indices is None:
        unsorted_indices = invert_permutation(sorted_indices)
    if batch_sizes is not None:
        if batch_sizes.device.type != "cpu":
            raise ValueError(
                "batch_sizes should always be on CPU. Instances of PackedSequence should never be created manually. "
                "They should be instantiated by functions like pack_sequence and pack_padded_sequences in nn.utils.rnn. "
                "https://pytorch.org/docs/stable/nn.html#torch.nn.utils.rnn.pack_sequence")
        return data, batch_sizes, sorted_indices, unsorted_indices
    if not (isinstance(data, (list, tuple)) and len(data) == 2):
        raise AssertionError("Expected data to be a list or tuple of length 2")
    return data[0], data[1], sorted_indices, unsorted_indices


def _packed_sequence_init(data, batch_sizes=None, sorted_indices=None, unsorted_indices=None):
    data, batch_sizes, sorted_indices, unsorted_indices = _packed_sequence_init_args(
        data, batch_sizes, sorted_indices, unsorted_indices)
    return PackedSequence(data, batch_sizes, sorted_indices, unsorted_indices)


def invert_permutation(permutation):
    """The inverse of a 1-D permutation (None stays None)."""
    if permutation is None:
        return None
    output = creation.empty_like(permutation)
    output.scatter_(0, permutation, creation.arange(0, permutation.numel(), device=permutation.device))
    return output


class PackPaddedSequenceBackward0(Op):
    """Gathers the valid (time, batch) rows of a time-major padded input; backward scatters them back."""

    @staticmethod
    def forward(ctx, input, rows, batch_first, steps):
        x = input._data.swapaxes(0, 1) if batch_first else input._data
        ctx.rows, ctx.batch_first, ctx.shape, ctx.steps = rows, batch_first, x.shape, steps
        return x.reshape((x.shape[0] * x.shape[1],) + x.shape[2:])[rows]

    @staticmethod
    def backward(ctx, g):
        shape = ctx.shape
        if ctx.steps > shape[0]:     # a length beyond the padded input: ATen's grad_input[i] fails
            raise IndexError(f"select(): index {shape[0]} out of range for tensor of size {list(shape)} at "
                             "dimension 0")
        flat = g.new_zeros((shape[0] * shape[1],) + tuple(shape[2:]))
        grad = flat.index_copy(0, creation.tensor(ctx.rows, dtype=_dtypes.int64), g).view(shape)
        return grad.transpose(0, 1) if ctx.batch_first else grad


def _check_long_tensor(t):
    if t.dim() != 1 or t.device.type != "cpu" or t.dtype != _dtypes.int64:
        name = {_dtypes.int64: "Long", _dtypes.int32: "Int"}.get(t.dtype, str(t.dtype))
        raise RuntimeError(f"'lengths' argument should be a 1D CPU int64 tensor, but got {t.dim()}D "
                           f"{t.device.type} {name} tensor")


def _pack_padded_sequence(input, lengths_t, batch_first):
    """ATen's _pack_padded_sequence: (data, batch_sizes) from a padded input and sorted lengths."""
    _check_long_tensor(lengths_t)
    batch_size = (input.transpose(0, 1) if batch_first else input).size(1)
    lengths = [int(v) for v in lengths_t.tolist()]
    if input.numel() <= 0:
        raise RuntimeError("Cannot pack empty tensors.")
    if len(lengths) != batch_size:
        raise RuntimeError(f"Expected `len(lengths)` to be equal to batch_size, but got {len(lengths)} "
                           f"(batch_size={batch_size})")
    if lengths[batch_size - 1] <= 0:
        raise RuntimeError("Length of all samples has to be greater than 0, but found an element in 'lengths' "
                           "that is <= 0")
    if any(lengths[i + 1] > lengths[i] for i in range(batch_size - 1)):
        raise RuntimeError("`lengths` array must be sorted in decreasing order when `enforce_sorted` is True. You "
                           "can pass `enforce_sorted=False` to pack_padded_sequence and/or pack_sequence to "
                           "sidestep this requirement if you do not need ONNX exportability.")
    steps = input.size(1) if batch_first else input.size(0)
    batch_sizes, rows, prev = [], [], 0
    for i in range(batch_size):        # as ATen: one block per distinct length, slices clamped to the input
        length = lengths[batch_size - 1 - i]
        if length > prev:
            current = batch_size - i
            t = np.arange(prev, min(length, steps), dtype=np.int64)
            rows.append((t[:, None] * batch_size + np.arange(current, dtype=np.int64)[None, :]).reshape(-1))
            batch_sizes += [current] * (length - prev)
            prev = length
    rows = np.concatenate(rows) if rows else np.zeros(0, np.int64)
    data = PackPaddedSequenceBackward0.apply(input, rows, bool(batch_first), len(batch_sizes))
    return data, creation.tensor(batch_sizes, dtype=_dtypes.int64)


def pack_padded_sequence(input, lengths, batch_first=False, enforce_sorted=True):
    """Pack a padded batch (T x B x * or B x T x *) of sequences with the given lengths (a list or a CPU
    tensor); enforce_sorted=False sorts by decreasing length and records sorted/unsorted indices."""
    if not isinstance(lengths, Tensor):
        lengths = creation.as_tensor(lengths, dtype=_dtypes.int64, device="cpu")
    else:
        lengths = lengths.to(dtype=_dtypes.int64)
    if enforce_sorted:
        sorted_indices = None
    else:
        lengths, sorted_indices = lengths.sort(descending=True)
        sorted_indices = sorted_indices.to(input.device)
        input = input.index_select(0 if batch_first else 1, sorted_indices)
    data, batch_sizes = _pack_padded_sequence(input, lengths, batch_first)
    return _packed_sequence_init(data, batch_sizes, sorted_indices, None)


def _pad_packed_sequence(data, batch_sizes_t, batch_first, padding_value, total_length):
    """ATen's _pad_packed_sequence: full(padding_value), each block of equal batch size copied in."""
    _check_long_tensor(batch_sizes_t)
    batch_sizes = [int(v) for v in batch_sizes_t.tolist()]
    max_batch, max_real = batch_sizes[0], len(batch_sizes)
    max_len = total_length if total_length > 0 else max_real
    rest = tuple(data.shape[1:])
    output = creation.full((max_len, max_batch) + rest, padding_value, dtype=data.dtype, device=data.device)
    lengths = np.empty(max_batch, dtype=np.int64)
    offset, prev_bs, prev_i, pos = 0, max_batch, 0, max_batch - 1
    for i in range(max_real + 1):
        bs = batch_sizes[i] if i != max_real else 0
        if bs != prev_bs:
            n = prev_bs * (i - prev_i)
            block = data.narrow(0, offset, n).view((i - prev_i, prev_bs) + rest)
            output.narrow(0, prev_i, i - prev_i).narrow(1, 0, prev_bs).copy_(block)
            offset += n
            prev_i = i
        for _ in range(prev_bs - bs):
            lengths[pos] = i
            pos -= 1
        prev_bs = bs
    if batch_first:
        output = output.transpose(0, 1)
    return output, creation.tensor(lengths, dtype=_dtypes.int64)


def pad_packed_sequence(sequence, batch_first=False, padding_value=0.0, total_length=None):
    """Inverse of pack_padded_sequence: (padded, lengths), batch back in the original order; total_length
    pads the time dimension further (ValueError when smaller than the longest sequence)."""
    max_seq_length = sequence.batch_sizes.size(0)
    if total_length is not None:
        if total_length < max_seq_length:
            raise ValueError("Expected total_length to be at least the length of the longest sequence in input, "
                             f"but got total_length={total_length} and max sequence length being {max_seq_length}")
        max_seq_length = total_length
    padded_output, lengths = _pad_packed_sequence(sequence.data, sequence.batch_sizes, batch_first, padding_value,
                                                  max_seq_length)
    unsorted_indices = sequence.unsorted_indices
    if unsorted_indices is not None:
        batch_dim = 0 if batch_first else 1
        return padded_output.index_select(batch_dim, unsorted_indices), lengths[unsorted_indices.cpu()]
    return padded_output, lengths


def pad_sequence(sequences, batch_first=False, padding_value=0.0, padding_side="right"):
    """Stack variable-length L x * tensors into T x B x * (B x T x * with batch_first), padded with
    padding_value on the right (or left); the result's grad_fn is CopySlices, as torch's."""
    if not isinstance(sequences, Iterable):
        raise RuntimeError(f"pad_sequence: Expected iterable for input sequences, but got arg of type: "
                           f"{type(sequences)}")
    sequences = tuple(sequences)
    if not sequences:
        raise RuntimeError("received an empty list of sequences")
    if padding_side not in ("left", "right"):
        raise RuntimeError(f"Expected padding_side to be one of left or right, but got {padding_side}.")
    max_len = max(s.size(0) for s in sequences)
    trailing = tuple(sequences[0].shape[1:])
    dims = (len(sequences), max_len) if batch_first else (max_len, len(sequences))
    first = sequences[0]
    out = creation.full(dims + trailing, padding_value, dtype=first.dtype, device=first.device)
    for i, seq in enumerate(sequences):
        length = seq.size(0)
        start = max_len - length if padding_side == "left" else 0
        if batch_first:
            out.select(0, i).narrow(0, start, length).copy_(seq)
        else:
            out.narrow(0, start, length).select(1, i).copy_(seq)
    return out


def unpad_sequence(padded_sequences, lengths, batch_first=False):
    """Split a padded batch back into a list of tensors of the given lengths (transposes a time-major
    input in place first, as torch does)."""
    unpadded_sequences = []
    if not batch_first:
        padded_sequences.transpose_(0, 1)
    max_length = padded_sequences.shape[1]
    idx = creation.arange(max_length, device=lengths.device)
    for seq, length in zip(padded_sequences, lengths, strict=True):
        mask = idx < length
        unpadded_sequences.append(seq[mask])
    return unpadded_sequences


def pack_sequence(sequences, enforce_sorted=True):
    """pad_sequence then pack_padded_sequence of a list of L x * tensors."""
    lengths = creation.as_tensor([v.size(0) for v in sequences])
    return pack_padded_sequence(pad_sequence(sequences), lengths, enforce_sorted=enforce_sorted)


def unpack_sequence(packed_sequences):
    """A PackedSequence back to the list of its sequences, in the original order."""
    padded_sequences, lengths = pad_packed_sequence(packed_sequences, batch_first=True)
    return unpad_sequence(padded_sequences, lengths, batch_first=True)
