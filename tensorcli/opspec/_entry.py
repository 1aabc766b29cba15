"""One op's command entry: `Op(example, ...)` for an op that is a command, `NoCommand(reason)` for one
that is not. Plain data (no core, Typer or Rich import): tensorcli/opspec/__init__.py collects them."""
from __future__ import annotations


class Op:
    """The op is the command `command_name(op)` (or `command=`).

    example: the runnable `tensorcli ...` line(s) of its --help (a string or a list of strings).
    params: {parameter: kind} where the name conventions (opspec.NAMES) or the annotation would guess
        wrong (kinds: tensorcli.spec.KINDS).
    choices: {parameter: (word, ...)} for a word-valued option.
    rule: the `out[i][j] = ...` formula as a function of (ndim, dim, **the op's own arguments), for
        --explain and `tensorcli ops` (tensorcli/opspec/rules_*.py).
    data / steer: tensor parameters beyond opspec.NAMES' that carry data into the output (traced by
        --explain) or select / steer it (kept as they are by --explain and --backward).
    explain / backward: False drops --explain (no element mapping) / --backward (no gradient).
    wording: how --explain words a row computed from autograd (tensorcli/services/explain_kinds.py):
        "sum", "mean", "max" / "min" (an extreme), "argmax" / "argmin" (rows from the values),
        "contraction", "softmax", "norm", "spread" (var / std), "logsumexp"; None: from the op's
        category and rows (elementwise, select, or the Jacobian).
    """

    __slots__ = ("examples", "params", "choices", "rule", "data", "steer", "explain", "backward", "command",
                 "wording")
    reason = None

    def __init__(self, example, *, params=None, choices=None, rule=None, data=(), steer=(), explain=True,
                 backward=True, command=None, wording=None):
        self.examples = [example] if isinstance(example, str) else list(example)
        self.params, self.choices, self.rule = dict(params or {}), dict(choices or {}), rule
        self.data, self.steer = tuple(data), frozenset(steer)
        self.explain, self.backward, self.command, self.wording = explain, backward, command, wording

    def __repr__(self):
        return f"Op({self.examples!r})"


class NoCommand:
    """The op has no command; `reason` says why (and what to use instead), shown by `tensorcli ops --all`."""

    __slots__ = ("reason",)
    examples, params, choices, rule, data, steer, command, wording = [], {}, {}, None, (), frozenset(), None, None
    explain = backward = False

    def __init__(self, reason):
        self.reason = reason

    def __repr__(self):
        return f"NoCommand({self.reason!r})"
