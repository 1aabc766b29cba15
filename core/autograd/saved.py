"""Tensors saved for backward (PyTorch's SavedVariable): the data and the version it had when saved, and the
errors for using them after release or after an in-place change."""
from __future__ import annotations

from ..tensor import Tensor
from .anomaly_mode import modified_inplace_message

FREED_MSG = (
    "Trying to backward through the graph a second time (or directly access saved tensors after "
    "they have already been freed). Saved intermediate values of the graph are freed when you call "
    ".backward() or autograd.grad(). Specify retain_graph=True if you need to backward through the "
    "graph a second time or if you need to access saved tensors after calling backward.")

INFERENCE_SAVE_MSG = (
    "Inference tensors cannot be saved for backward. Please do not use Tensors created in inference mode in "
    "computation tracked by autograd. To work around this, you can make a clone to get a normal tensor and use "
    "it in autograd, or use `torch.no_grad()` instead of `torch.inference_mode()`.")

# saved_tensors_hooks in force: (pack, unpack) pairs, innermost last; while any is, ops save HOOKED_SAVE[0]
# (torch.autograd.graph's HookedSavedTensor, put here when that module is imported) instead of SavedTensor
SAVED_TENSORS_HOOKS: list = []
HOOKED_SAVE: list = [None]


class SavedTensor:
    """A tensor saved for backward, with the version it had when saved.

    Outputs are stored as data + version counter (not the Tensor) so the graph holds no
    reference cycle; on unpack they are re-wrapped with this node as grad_fn, as PyTorch does.
    """

    __slots__ = ("tensor", "data", "vc", "version", "output_nr", "is_output", "dtype_name")

    def __init__(self, t, is_output=False, output_nr=0):
        self.is_output = is_output
        self.data = t._data
        self.vc = t._vc
        self.version = t._vc[0]
        self.output_nr = output_nr
        self.tensor = None if is_output else t

    def unpack(self, node):
        if self.vc[0] != self.version:
            t = self.tensor if self.tensor is not None else Tensor._make(self.data)
            producer = node if self.is_output else t.grad_fn   # an input: whatever made it last (None: a leaf)
            raise RuntimeError(modified_inplace_message(t.type(), self.data.shape, producer and producer.name(),
                                                        self.output_nr if self.is_output else t._output_nr,
                                                        self.vc[0], self.version))
        if self.is_output:
            t = Tensor._make(self.data, True, node, self.output_nr)
            t._vc = self.vc
            return t
        return self.tensor

