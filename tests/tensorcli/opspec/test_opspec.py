"""tensorcli/opspec/: one entry per registered op (a command, or the reason it has none), no entry
without its op, and every entry consistent with the op's signature and its command's name."""
from __future__ import annotations

import shlex

import pytest

from core.ops.registry import OPS
from tensorcli import opspec, spec
from tensorcli.commands import op_table


def test_every_registered_op_has_its_entry():
    missing = sorted(set(OPS) - set(opspec.ENTRIES))
    assert missing == [], f"registered ops without an entry in tensorcli/opspec/: {missing}"


def test_every_entry_names_a_registered_op():
    orphans = sorted(set(opspec.ENTRIES) - set(OPS))
    assert orphans == [], f"entries in tensorcli/opspec/ for no registered op: {orphans}"


def test_every_op_command_has_its_entry():
    """The commands `tensorcli --help` lists (the generated table) are exactly the ops with an Op entry."""
    listed = {row[0] for row in op_table.COMMANDS}
    assert listed == {opspec.command_name(n) for n in OPS if opspec.is_command(n)}


def test_an_op_without_a_command_says_why():
    silent = sorted(n for n, e in opspec.ENTRIES.items()
                    if isinstance(e, opspec.NoCommand) and not (e.reason or "").strip())
    assert silent == []


def test_every_example_runs_its_own_command():
    """The example names the command, never the registry name (`segment-reduce`, not `segment_reduce`)."""
    wrong = []
    for name, e in opspec.ENTRIES.items():
        if not isinstance(e, opspec.Op):
            continue
        if not e.examples:
            wrong.append((name, "no example"))
        for example in e.examples:
            argv = shlex.split(example)
            if argv[:2] != ["tensorcli", opspec.command_name(name)]:
                wrong.append((name, example))
    assert wrong == []


def test_every_refinement_names_a_parameter_of_the_op():
    """params and choices name the op's own parameters, with a known kind (a typo would be ignored)."""
    wrong = []
    for name, e in opspec.ENTRIES.items():
        if not isinstance(e, opspec.Op) or not (e.params or e.choices or e.data or e.steer):
            continue
        params = OPS[name].signature.parameters
        wrong += [(name, p) for p in [*e.params, *e.choices, *e.data, *e.steer] if p not in params]
        wrong += [(name, p, k) for p, k in e.params.items() if k not in spec.KINDS]
    assert wrong == []


def test_the_name_table_gives_each_name_one_kind_and_one_role():
    assert set(opspec.DATA_NAMES).isdisjoint(opspec.STEERING)
    assert {k for k, _ in opspec.NAMES.values()} - {None} <= set(spec.KINDS)
    assert opspec.STEERING >= {"index", "indices", "mask", "target", "running_mean"}
    assert {"input", "src", "source", "other", "tensors"} <= set(opspec.DATA_NAMES)


def test_an_entry_adds_to_the_name_table_for_its_own_op_only(monkeypatch):
    gather = opspec.ENTRIES["gather"]
    monkeypatch.setitem(opspec.ENTRIES, "gather", opspec.Op(gather.examples, rule=gather.rule, steer=("lengths",),
                                                             data=("weights",)))
    assert "lengths" in opspec.steering("gather") and "lengths" not in opspec.steering("scatter")
    assert "weights" in opspec.data_names("gather") and "weights" not in opspec.data_names("scatter")


@pytest.mark.parametrize("name", ["gather", "rot90", "einsum"])
def test_the_listing_formula_comes_from_the_entry(name):
    assert opspec.rule_text(name) == opspec.entry(name).rule(2, 1)
    assert opspec.rule_text("add") is None and opspec.rule_text("not_an_op") is None


def test_every_wording_is_one_explain_knows():
    known = {None, "sum", "mean", "max", "min", "argmax", "argmin", "contraction", "softmax", "norm", "spread",
             "logsumexp"}
    assert {n: e.wording for n, e in opspec.ENTRIES.items() if e.wording not in known} == {}


def test_an_option_kind_agrees_with_the_parameter_default():
    """A name convention must not override what the signature says: rrelu's `upper` is a float bound (not the
    triangle flag of `upper`), local_response_norm's `k` a float (not an int): a flag has a bool default,
    an int option no float default."""
    wrong = []
    for name in list(OPS):
        if not opspec.is_command(name):
            continue
        for s in spec.classify(OPS[name]):
            d = s.default
            if (s.kind == spec.FLAG and isinstance(d, (int, float)) and not isinstance(d, bool)) or (
                    s.kind == spec.INT and isinstance(d, float)) or (
                    s.kind == spec.NUMBER and isinstance(d, bool)):
                wrong.append((name, s.name, s.kind, d))
    assert wrong == []
