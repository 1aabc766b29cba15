"""Everything tensorcli knows about the op commands, in one place keyed by the registry's op name.

core registers an op's semantics (category, kind, methods, in-place variant, signature, gradient);
this package says how the CLI offers it:

* `NAMES`: PyTorch's parameter names, each with the option kind it becomes (`index` a tensor, `dim`
  an int, `dims` a list of ints, `keepdim` a flag, `out` skipped, ...) and its role for --explain and
  --backward: DATA (its elements flow into the output and are traced) or STEER (it selects or steers:
  index, mask, target, ...; kept as it is).
* `ENTRIES`: op name -> `Op(example, params=, choices=, rule=, data=, steer=, ...)` when the op is a
  command, `NoCommand(reason)` when it is not (tensorcli/opspec/_entry.py); one module per category
  (pointwise.py, nn.py, shape.py, ...), the explain formulas in rules_indexing.py and rules_shape.py.

An op with no entry has no command (tests/tensorcli/opspec/test_opspec.py: every registered op has its entry,
every entry names a registered op, every example runs its own command). Python rather than a data
file: the formulas are functions of the call's arguments, and no parser is needed. No core, Typer or
Rich import here.
"""
from __future__ import annotations

from ._entry import NoCommand, Op
from . import indexing, linalg, logical, masked, nn, pointwise, reduction, shape, sorting

__all__ = ["NAMES", "ENTRIES", "Op", "NoCommand", "entry", "is_command", "command_name", "examples",
           "data_names", "steering", "rule_text", "wording"]

DATA, STEER = "data", "steer"

# parameter name -> (option kind or None to read the annotation / default, role or None)
NAMES = {
    # tensors whose elements flow into the result
    **dict.fromkeys(("input", "self", "src", "source", "values", "other"), ("tensor", DATA)),
    **dict.fromkeys(("tensors", "operands"), ("tensors", DATA)),
    **dict.fromkeys(("x", "y"), (None, DATA)),
    # tensors that select or steer
    **dict.fromkeys(("index", "mask", "condition", "target"), ("tensor", STEER)),
    "indices": ("tensors", STEER),
    "repeats": ("operand", STEER),
    **dict.fromkeys(("offsets", "boundaries", "sorted_sequence", "weight_index", "labels", "running_mean",
                     "running_var", "per_sample_weights", "attn_mask"), (None, STEER)),
    # other tensors (their role comes from the op's entry, or autograd's view of them)
    **dict.fromkeys(("tensor", "weight", "bias", "mat2", "vec", "end", "exponent"), ("tensor", None)),
    **dict.fromkeys(("dim0", "dim1", "dim2", "dimension", "start", "length", "step", "chunks", "sections",
                     "diagonal", "offset", "num_classes", "k", "output_size", "start_dim", "end_dim",
                     "n", "num_samples", "storage_offset"), ("int", None)),
    **dict.fromkeys(("dim", "split_size_or_sections", "shifts", "destination"), ("dim", None)),
    **dict.fromkeys(("dims", "sizes", "shape", "size", "stride", "split_sizes"), ("ints", None)),
    **dict.fromkeys(("value", "alpha", "min", "max", "fill_value", "beta", "p", "eps", "scalar"), ("number", None)),
    **dict.fromkeys(("reduce", "equation", "mode", "rounding_mode", "indexing", "side"), ("str", None)),
    **dict.fromkeys(("accumulate", "include_self", "keepdim", "largest", "sorted", "descending", "stable",
                     "unbiased", "return_inverse", "return_counts", "right", "upper"), ("flag", None)),
    **dict.fromkeys(("out", "dtype", "sparse_grad", "layout", "device", "pin_memory", "requires_grad",
                     "memory_format", "generator", "names", "unsafe"), ("skip", None)),
}
CONVENTIONS = {name: kind for name, (kind, _) in NAMES.items() if kind is not None}
DATA_NAMES = tuple(name for name, (_, role) in NAMES.items() if role == DATA)
STEERING = frozenset(name for name, (_, role) in NAMES.items() if role == STEER)

ENTRIES: dict = {}
for _module in (pointwise, logical, reduction, indexing, shape, linalg, nn, sorting, masked):
    ENTRIES.update(_module.ENTRIES)
del _module


def command_name(opname: str) -> str:
    """`scatter_add` -> `scatter-add` (`special.airy_ai` -> `special.airy-ai`)."""
    e = ENTRIES.get(opname)
    return e.command if e is not None and e.command else opname.replace("_", "-")


def entry(opname: str):
    """The op's Op / NoCommand entry, or None."""
    return ENTRIES.get(opname)


def is_command(opname: str) -> bool:
    return isinstance(ENTRIES.get(opname), Op)


def examples(opname: str) -> list[str]:
    e = ENTRIES.get(opname)
    return list(e.examples) if e is not None else []


def data_names(opname: str) -> tuple:
    """The op's data parameters: NAMES' DATA ones plus its entry's `data`."""
    e = ENTRIES.get(opname)
    return DATA_NAMES + (e.data if e is not None else ())


def steering(opname: str) -> frozenset:
    """The op's steering parameters: NAMES' STEER ones plus its entry's `steer`."""
    e = ENTRIES.get(opname)
    return STEERING | e.steer if e is not None and e.steer else STEERING


def wording(opname: str) -> str | None:
    """How --explain words the op's autograd rows (`Op.wording`), or None."""
    e = ENTRIES.get(opname)
    return e.wording if e is not None else None


def rule_text(opname: str, ndim=2, dim=1) -> str | None:
    """The op's formula for a representative call (2-D, dim=1 by default), or None."""
    e = ENTRIES.get(opname)
    if e is None or e.rule is None:
        return None
    try:
        r = e.rule(ndim, dim)
    except Exception:  # noqa: BLE001 - a rule that needs more arguments: no formula in the listing
        return None
    return r if isinstance(r, str) else None
