"""Tensor printing, ported from PyTorch's ``torch/_tensor_str.py`` onto NumPy arrays.

``format_tensor(arr, dtype)`` returns exactly what ``repr(t)`` gives for a CPU,
strided, dense PyTorch tensor ``t`` holding the same values: PyTorch's element
formatter (int / fixed / scientific mode chosen from the non-zero finite values),
summarisation with ``...`` past ``threshold`` elements, wrapping at ``linewidth``,
and the ``size=`` / ``dtype=`` / caller-supplied suffixes.  Print options mirror
``torch.set_printoptions`` (same defaults and profiles).

Only NumPy and ``core.dtypes`` are imported: this module is loaded at CLI start-up.
"""
from __future__ import annotations

import math
from contextlib import contextmanager

import numpy as np

from .dtypes import as_dtype, from_numpy_dtype, get_default_dtype

__all__ = ["format_tensor", "set_printoptions", "get_printoptions", "printoptions", "PRINT_OPTS"]


class _PrinterOptions:
    """Mirror of ``torch._tensor_str.__PrinterOptions`` (same fields and defaults)."""

    __slots__ = ("precision", "threshold", "edgeitems", "linewidth", "sci_mode")

    def __init__(self):
        self.precision = 4
        self.threshold = 1000
        self.edgeitems = 3
        self.linewidth = 80
        self.sci_mode = None

    def __repr__(self):
        return f"_PrinterOptions({get_printoptions()!r})"


PRINT_OPTS = _PrinterOptions()


def set_printoptions(precision=None, threshold=None, edgeitems=None, linewidth=None,
                     profile=None, sci_mode=None):
    """Mirror of ``torch.set_printoptions``.

    ``profile`` ("default", "short", "full") first resets precision/threshold/
    edgeitems/linewidth, then any explicit option overrides it.  As in PyTorch,
    ``sci_mode`` is always assigned, so omitting it resets it to ``None`` (automatic).
    """
    if profile is not None:
        if profile == "default":
            PRINT_OPTS.precision = 4
            PRINT_OPTS.threshold = 1000
            PRINT_OPTS.edgeitems = 3
            PRINT_OPTS.linewidth = 80
        elif profile == "short":
            PRINT_OPTS.precision = 2
            PRINT_OPTS.threshold = 1000
            PRINT_OPTS.edgeitems = 2
            PRINT_OPTS.linewidth = 80
        elif profile == "full":
            PRINT_OPTS.precision = 4
            PRINT_OPTS.threshold = math.inf
            PRINT_OPTS.edgeitems = 3
            PRINT_OPTS.linewidth = 80

    if precision is not None:
        PRINT_OPTS.precision = precision
    if threshold is not None:
        PRINT_OPTS.threshold = threshold
    if edgeitems is not None:
        PRINT_OPTS.edgeitems = edgeitems
    if linewidth is not None:
        PRINT_OPTS.linewidth = linewidth
    PRINT_OPTS.sci_mode = sci_mode


def get_printoptions() -> dict:
    """Mirror of ``torch._tensor_str.get_printoptions``: the options as a dict
    usable as ``**kwargs`` for :func:`set_printoptions`."""
    return {name: getattr(PRINT_OPTS, name) for name in _PrinterOptions.__slots__}


@contextmanager
def printoptions(**kwargs):
    """Mirror of ``torch._tensor_str.printoptions``: temporarily change print options."""
    old = get_printoptions()
    set_printoptions(**kwargs)
    try:
        yield
    finally:
        set_printoptions(**old)


class _Formatter:
    """Mirror of ``torch._tensor_str._Formatter``.

    Integers and bools are right-aligned to the widest ``str(value)``.  Floats look
    only at non-zero finite values (in float64): all integral -> ``int_mode``
    (``"3."``); ``max/min > 1000``, ``max > 1e8`` or ``min < 1e-4`` -> scientific
    (unless ``sci_mode`` is forced); otherwise fixed with ``precision`` decimals.
    """

    def __init__(self, data: np.ndarray, floating: bool):
        self.floating_dtype = floating
        self.int_mode = True
        self.sci_mode = False
        self.max_width = 1

        flat = data.reshape(-1)

        if not floating:
            if flat.size:
                if flat.dtype == np.bool_:
                    widths = [len(str(v)) for v in {bool(flat.min()), bool(flat.max())}]
                else:
                    # len(str(int)) is monotone in |v| on each sign, so min/max suffice.
                    widths = [len(str(int(flat.min()))), len(str(int(flat.max())))]
                self.max_width = max(self.max_width, *widths)
            return

        nonzero_finite_vals = flat[np.isfinite(flat) & (flat != 0)]
        if nonzero_finite_vals.size == 0:
            # no valid number, do nothing
            return

        # PyTorch converts to double for these computations (half overflows at 1e8).
        nonzero_finite_abs = np.abs(nonzero_finite_vals).astype(np.float64)
        nonzero_finite_min = float(nonzero_finite_abs.min())
        nonzero_finite_max = float(nonzero_finite_abs.max())

        if not np.all(nonzero_finite_vals == np.ceil(nonzero_finite_vals)):
            self.int_mode = False

        if PRINT_OPTS.sci_mode is None:
            self.sci_mode = (
                nonzero_finite_max / nonzero_finite_min > 1000.0
                or nonzero_finite_max > 1.0e8
                or nonzero_finite_min < 1.0e-4
            )
        else:
            self.sci_mode = PRINT_OPTS.sci_mode

        values = nonzero_finite_vals.tolist()
        precision = PRINT_OPTS.precision
        if self.sci_mode:
            fmt = f"{{:.{precision}e}}".format
            width = max(len(fmt(v)) for v in values)
        elif self.int_mode:
            # floats in int_mode get a trailing "." to mark them as floating point
            width = max(len(f"{v:.0f}") for v in values) + 1
        else:
            fmt = f"{{:.{precision}f}}".format
            width = max(len(fmt(v)) for v in values)
        self.max_width = max(self.max_width, width)

    def width(self):
        return self.max_width

    def format(self, value):
        if self.floating_dtype:
            if self.sci_mode:
                ret = f"{{:{self.max_width}.{PRINT_OPTS.precision}e}}".format(value)
            elif self.int_mode:
                ret = f"{value:.0f}"
                if not (math.isinf(value) or math.isnan(value)):
                    ret += "."
            else:
                ret = f"{{:.{PRINT_OPTS.precision}f}}".format(value)
        else:
            ret = f"{value}"
        return (self.max_width - len(ret)) * " " + ret


def _vector_str(data, indent, summarize, formatter):
    """Mirror of ``torch._tensor_str._vector_str`` (1-d rows, wrapped at linewidth)."""
    # length includes spaces and comma between elements
    element_length = formatter.width() + 2
    elements_per_line = max(1, math.floor((PRINT_OPTS.linewidth - indent) / element_length))
    edge = PRINT_OPTS.edgeitems

    if summarize and not edge:
        items = ["..."]
    elif summarize and data.shape[0] > 2 * edge:
        items = ([formatter.format(v) for v in data[:edge].tolist()]
                 + [" ..."]
                 + [formatter.format(v) for v in data[-edge:].tolist()])
    else:
        items = [formatter.format(v) for v in data.tolist()]

    lines = [", ".join(items[i:i + elements_per_line])
             for i in range(0, len(items), elements_per_line)]
    return "[" + ("," + "\n" + " " * (indent + 1)).join(lines) + "]"


def _tensor_str_with_formatter(data, indent, summarize, formatter):
    """Mirror of ``torch._tensor_str._tensor_str_with_formatter`` (recursive nesting;
    sub-tensors of a k-d tensor are separated by k-1 newlines)."""
    dim = data.ndim
    if dim == 0:
        return formatter.format(data.item())
    if dim == 1:
        return _vector_str(data, indent, summarize, formatter)

    edge = PRINT_OPTS.edgeitems
    n = data.shape[0]
    if summarize and n > 2 * edge:
        slices = ([_tensor_str_with_formatter(data[i], indent + 1, summarize, formatter)
                   for i in range(edge)]
                  + ["..."]
                  + [_tensor_str_with_formatter(data[i], indent + 1, summarize, formatter)
                     for i in range(n - edge, n)])
    else:
        slices = [_tensor_str_with_formatter(data[i], indent + 1, summarize, formatter)
                  for i in range(n)]

    return "[" + ("," + "\n" * (dim - 1) + " " * (indent + 1)).join(slices) + "]"


def _get_summarized_data(data):
    """Mirror of ``torch._tensor_str.get_summarized_data``: the elements that will be
    shown (edgeitems from each end of every dimension), used to size the formatter."""
    dim = data.ndim
    edge = PRINT_OPTS.edgeitems
    if dim == 0:
        return data
    if dim == 1:
        if data.shape[0] > 2 * edge:
            # NB: with edgeitems == 0, data[-0:] is the whole vector, as in PyTorch.
            return np.concatenate((data[:edge], data[-edge:]))
        return data
    if not edge:
        return np.empty((0,) * dim, dtype=data.dtype)
    n = data.shape[0]
    if n > 2 * edge:
        rows = [data[i] for i in range(edge)] + [data[i] for i in range(n - edge, n)]
    else:
        rows = [data[i] for i in range(n)]
    return np.stack([_get_summarized_data(x) for x in rows])


def _tensor_str(data, indent, floating):
    """Mirror of ``torch._tensor_str._tensor_str``: the bracketed body only."""
    if data.size == 0:
        return "[]"
    summarize = data.size > PRINT_OPTS.threshold
    formatter = _Formatter(_get_summarized_data(data) if summarize else data, floating)
    return _tensor_str_with_formatter(data, indent, summarize, formatter)


def _add_suffixes(tensor_str, suffixes, indent, force_newline=False):
    """Mirror of ``torch._tensor_str._add_suffixes``: ", "-joined suffixes, moved to a new
    line indented by ``indent`` when the current last line would exceed linewidth."""
    tensor_strs = [tensor_str]
    # NB: PyTorch's formula (it over-counts the last line by 2); kept for fidelity.
    last_line_len = len(tensor_str) - tensor_str.rfind("\n") + 1
    for suffix in suffixes:
        suffix_len = len(suffix)
        if force_newline or last_line_len + suffix_len + 2 > PRINT_OPTS.linewidth:
            tensor_strs.append(",\n" + " " * indent + suffix)
            last_line_len = indent + suffix_len
            force_newline = False
        else:
            tensor_strs.append(", " + suffix)
            last_line_len += suffix_len + 2
    tensor_strs.append(")")
    return "".join(tensor_strs)


def format_tensor(data, dtype=None, *, suffixes=(), prefix="tensor("):
    """Return ``repr(t)`` for a CPU PyTorch tensor ``t`` of ``dtype`` holding ``data``.

    Mirrors ``torch._tensor_str._str_intern`` for dense strided tensors:

    * empty tensors print ``[]`` plus ``size=(...)`` unless 1-d, and ``dtype=...``
      unless the dtype is the default float dtype;
    * otherwise ``size=`` is added only when ``edgeitems == 0``, and ``dtype=`` unless
      the dtype is the default float dtype, int64 or bool;
    * ``suffixes`` (e.g. ``"grad_fn=<MulBackward0>"``, ``"requires_grad=True"``) follow,
      joined as PyTorch joins them.

    ``prefix`` may contain newlines (``"Parameter containing:\\ntensor("``); only its
    last line counts for indentation, exactly as ``torch.nn.Parameter.__repr__`` does.
    ``dtype`` may be a ``core.dtypes.dtype`` or anything ``as_dtype`` accepts; ``None``
    infers it from ``data``.  ``data`` is cast to the dtype's NumPy type if needed.
    """
    data = np.asarray(data)
    dtype = from_numpy_dtype(data.dtype) if dtype is None else as_dtype(dtype)
    if data.dtype != dtype.np:
        data = data.astype(dtype.np)

    head, sep, prefix = prefix.rpartition("\n")
    head += sep
    indent = len(prefix)
    default_dtype = get_default_dtype()
    auto = []

    if data.size == 0:
        # Explicitly print the shape if it is not (0,), to match NumPy behavior
        if data.ndim != 1:
            auto.append("size=" + str(tuple(int(s) for s in data.shape)))
        # In an empty tensor there are no elements to infer the dtype from.
        if dtype.name != default_dtype.name:
            auto.append("dtype=" + repr(dtype))
        tensor_str = "[]"
    else:
        if not PRINT_OPTS.edgeitems:
            auto.append("size=" + str(tuple(int(s) for s in data.shape)))
        if dtype.name not in (default_dtype.name, "int64", "bool"):
            auto.append("dtype=" + repr(dtype))
        tensor_str = _tensor_str(data, indent, dtype.is_floating_point)

    return head + _add_suffixes(prefix + tensor_str, auto + list(suffixes), indent)
