"""How a registry signature becomes CLI parameters: the one place.

Every op with an `Op` entry in tensorcli/opspec/ becomes a command (`scatter_add` ->
`tensorcli scatter-add`) whose parameters come from the op's Python signature through the entry's
`params` (kinds: see `KINDS`), then the parameter-name table `opspec.NAMES` (PyTorch's parameter
names: `index` is a tensor, `dim` an int, `dims` a list of ints, `include_self` a flag, ...), then the
annotation or default (`Optional[int]` -> INT, `bool` -> FLAG, `Sequence[int]` -> INTS, ...). The
entry also gives the `--help` example(s), choices and the explain formula.

No Typer, no Rich, no core import here: `tensorcli.commands.op` builds Typer commands from these
specs, `tensorcli.services.run_op` turns parsed values into the op's arguments.
"""
from __future__ import annotations

import inspect
import re
from dataclasses import dataclass

from tensorcli import opspec

# -- option kinds (which parameter gets which: opspec.NAMES and the op's entry) ------------

TENSOR = "tensor"          # one tensor: JSON literal, .npy/.npz[:key]/.json path, or - (stdin)
TENSORS = "tensors"        # several tensors: repeatable option, or several positional arguments
OPERAND = "operand"        # a tensor or a plain number (e.g. `repeats`)
INT = "int"
INTS = "ints"              # '1,0,2'
DIM = "dim"                # an int, or ints '0,1' for ops taking several dims
NUMBER = "number"          # int / float / inf / nan / true / false
FLAG = "flag"
STR = "str"
SKIP = "skip"              # not exposed (out=, device=, ...)
EQUATION = "equation"      # einsum(*args): EQUATION then TENSORS, packed into the var-positional
KINDS = (TENSOR, TENSORS, OPERAND, INT, INTS, DIM, NUMBER, FLAG, STR, SKIP, EQUATION)

SCALAR_DATA = ("value", "fill_value")       # a number written into the output
OUT_NAMES = ("out", "self", "result", "output")   # names a formula uses for the output


def data_names(info) -> tuple:
    """The op's data parameters (opspec.NAMES' data ones plus its entry's `data`)."""
    return opspec.data_names(info.name)


# Options that cannot be combined (PyTorch overloads: scatter(src) / scatter(value)).
EXCLUSIVE = (("src", "value"),)

HELP = {
    "dim": "Dimension to work along (negative counts from the end).",
    "index": "Index tensor (int64).",
    "indices": "Index tensor(s); repeat the option for several.",
    "src": "Source tensor whose values are written.",
    "value": "A number to write (instead of --src).",
    "mask": "Boolean mask tensor.",
    "reduce": "Reduction to apply.",
    "dims": "Comma-separated dims, e.g. 1,0,2.",
    "sizes": "Comma-separated sizes, e.g. 2,3.",
    "shape": "Comma-separated shape, e.g. 3,-1.",
    "equation": "Einstein summation equation, e.g. 'ij,jk->ik'.",
    "keepdim": "Keep the reduced dims as size 1 (torch's keepdim=True).",
    "accumulate": "Add values into input instead of overwriting (torch's accumulate=True).",
    "stride": "Step of the window: one int for every spatial dim, or comma-separated, e.g. 2,1.",
    "padding": "Zeros added on both sides of each spatial dim: an int, comma-separated ints, 'valid' or 'same'.",
    "dilation": "Spacing between kernel elements: an int, or comma-separated per spatial dim.",
    "kernel_size": "Window size: an int, or comma-separated per spatial dim, e.g. 2,2.",
    "output_padding": "Extra size added to one side of each output dim (transposed convolution).",
    "groups": "Split the channels into this many groups, each with its own part of the weight.",
    "eps": "Added to the denominator for numerical stability.",
    "largest": "Take the largest elements (--no-largest: the smallest).",
    "sorted": "Return the elements sorted.",
    "descending": "Sort in descending order.",
    "stable": "A stable sort: equal elements keep their order.",
    "align_corners": "Treat the corner pixels' centres as the -1/+1 points (torch's align_corners=True).",
    "ceil_mode": "Round the output size up (torch's ceil_mode=True).",
    "return_indices": "Also return the indices of the chosen elements.",
    "training": "Training mode: dropout draws noise, batch norm uses batch statistics.",
    "unbiased": "Bessel's correction (divide by N - 1).",
    "correction": "Subtract this from N in the divisor (1: unbiased).",
    "p": "The probability or the norm's exponent, as the op's torch documentation says.",
    "min": "Lower bound (none when omitted).",
    "max": "Upper bound (none when omitted).",
    "rtol": "Relative tolerance.",
    "atol": "Absolute tolerance.",
    "upper": "Use the upper triangle.",
}
KIND_HELP = {
    TENSOR: "Tensor: JSON, .npy/.npz[:key]/.json path, or - for stdin.",
    TENSORS: "Tensors: JSON, .npy/.npz[:key]/.json paths, or - (once).",
    OPERAND: "A number or a tensor.",
    INTS: "Comma-separated integers, e.g. 2,3.",
    DIM: "An integer, or comma-separated integers.",
}


def param_help(spec) -> str:
    """An op option's --help text: the name's own (HELP), its kind's (KIND_HELP), or for plain
    integers, numbers, flags and words the torch argument it sets (every option has help)."""
    conventional = opspec.CONVENTIONS.get(spec.name)
    # a name's own text describes the name's conventional kind (`upper`: the triangle flag, not rrelu's bound)
    text = (HELP.get(spec.name) if conventional in (None, spec.kind) else None) or KIND_HELP.get(spec.kind)
    if text:
        return text
    arg = f"torch's {spec.name}= argument"
    if spec.kind == FLAG:
        on = spec.default is True
        return f"{spec.name}={'False with --no-' + spec.cli[2:] if on else 'True'} ({arg})."
    return {INT: f"An integer: {arg}.", NUMBER: f"A number (int, float, inf, nan, true, false): {arg}.",
            STR: f"A word: {arg}."}.get(spec.kind, f"Value of {arg}.")


TENSOR_HELP = "JSON literal ('[[1,2],[3,4]]'), a .npy/.npz[:key]/.json path, or - for stdin."

_P = inspect.Parameter


@dataclass
class ParamSpec:
    name: str            # op parameter name
    kind: str            # one of KINDS
    pkind: object        # inspect parameter kind
    default: object
    required: bool
    positional: bool     # a CLI argument rather than an option
    cli: str             # '--include-self', 'INPUT'
    pack: str | None = None   # the var-positional parameter this value goes into (einsum's *args)


def _annotation_text(ann) -> str:
    """An annotation as text without spaces ('Optional[int]', 'int|None', 'Sequence[int]')."""
    if ann is _P.empty:
        return ""
    text = ann if isinstance(ann, str) else ann.__name__ if isinstance(ann, type) else str(ann)
    return text.replace("typing.", "").replace(" ", "")


def annotation_kind(ann) -> str | None:
    """The kind an annotation asks for: Tensor, int, float, bool, str, int lists, tensor lists, and
    Optional[...] / `X | None` of those; None when the annotation says nothing usable."""
    text = _annotation_text(ann)
    m = re.fullmatch(r"Optional\[(.*)\]", text)
    optional = bool(m) or text.endswith("|None") or text.startswith("None|")
    text = m.group(1) if m else text.replace("|None", "").replace("None|", "")
    if text in ("Tensor", "core.Tensor", "torch.Tensor", "Number|Tensor", "Tensor|Number"):
        return OPERAND if "Number" in text else TENSOR
    if text in ("int", "SymInt"):
        return INT
    if text in ("float", "Number", "int|float", "float|int"):
        return NUMBER
    if text == "bool":
        return NUMBER if optional else FLAG      # Optional[bool]: unset, true or false
    if text == "str":
        return STR
    if re.fullmatch(r"(Sequence|List|list|Tuple|tuple)\[(Tensor|core\.Tensor)(,\.\.\.)?\]", text):
        return TENSORS
    if re.fullmatch(r"(Sequence|List|list|Tuple|tuple)\[int(,\.\.\.)?\]|_size|Size", text):
        return INTS
    if re.fullmatch(r"int\|(Sequence|List|list|Tuple|tuple)\[int(,\.\.\.)?\]|_int_or_tuple.*", text):
        return DIM
    return None


def _default_kind(d) -> str:
    """The kind a default value suggests (no convention, no usable annotation)."""
    if d is _P.empty:
        return TENSOR
    if isinstance(d, bool):
        return FLAG
    if isinstance(d, int):
        return INT
    if isinstance(d, float):
        return NUMBER
    if isinstance(d, str):
        return STR
    if isinstance(d, (tuple, list)):
        return INTS
    return NUMBER


def param_kind(info, p) -> str:
    """One parameter's kind: the op entry's `params`, then the naming conventions (opspec.NAMES), then
    the annotation, then the default. `_private` parameters are skipped."""
    if p.name.startswith("_"):
        return SKIP
    e = opspec.entry(info.name)
    kind = (e.params.get(p.name) if e is not None else None) or opspec.CONVENTIONS.get(p.name)
    if kind is None:
        kind = annotation_kind(p.annotation)
        if kind == FLAG and not isinstance(p.default, bool):
            kind = NUMBER
    if p.kind is _P.VAR_POSITIONAL:
        if kind in (None, INT, DIM):
            return INTS
        if kind == TENSOR:
            return TENSORS
    return kind or _default_kind(p.default)


def classify(info) -> list[ParamSpec]:
    """ParamSpecs for an op's signature (see `param_kind`), in signature order."""
    specs = []
    params = list(info.signature.parameters.values())
    for i, p in enumerate(params):
        if p.kind is _P.VAR_KEYWORD:
            continue
        kind = param_kind(info, p)
        if kind == SKIP:
            continue
        if kind == EQUATION:
            specs.append(ParamSpec("equation", STR, p.kind, _P.empty, True, True, "EQUATION", pack=p.name))
            specs.append(ParamSpec("operands", TENSORS, p.kind, _P.empty, True, True, "TENSORS", pack=p.name))
            continue
        required = p.default is _P.empty and p.kind is not _P.VAR_POSITIONAL
        if p.kind is _P.VAR_POSITIONAL and kind == INTS:
            required = True
        first = i == 0
        positional = (first and kind in (TENSOR, TENSORS, STR)) or (
            p.kind is _P.VAR_POSITIONAL and kind == TENSORS and specs and specs[0].positional)
        if positional:
            cli = "INPUT" if kind == TENSOR else ("TENSORS" if kind == TENSORS else p.name.upper())
        else:
            cli = "--" + p.name.replace("_", "-")
        specs.append(ParamSpec(p.name, kind, p.kind, p.default, required, positional, cli))
    return specs


# -- building commands ---------------------------------------------------------------------


def command_name(opname: str) -> str:
    return opspec.command_name(opname)


def rule_text(info, ndim=2, dim=1) -> str | None:
    """The op's formula for a representative call (2-D, dim=1), or None."""
    return opspec.rule_text(info.name, ndim, dim)


def examples(info) -> list[str]:
    """The op's runnable examples: its entry's `example` (a string or a list)."""
    return opspec.examples(info.name)
