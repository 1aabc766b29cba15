"""Registry metadata of the indexing ops (used by the CLI and --explain): kind, rule formulas in the
PyTorch-docs style, cli flag, function / method / in-place forms, one-line summaries."""
from __future__ import annotations

import pytest

import core
from core.ops.registry import OPS

GATHER_KIND = ["gather", "index_select", "take_along_dim", "take", "masked_select", "diagonal", "triu", "tril"]
SCATTER_KIND = ["scatter", "scatter_add", "scatter_reduce", "index_put", "index_add", "index_fill", "masked_fill",
                "diag_embed"]
CLI = GATHER_KIND + SCATTER_KIND + ["one_hot", "nonzero", "argwhere", "diag"]
INPLACE = {"scatter": "scatter_", "scatter_add": "scatter_add_", "scatter_reduce": "scatter_reduce_",
           "index_put": "index_put_", "index_add": "index_add_", "index_fill": "index_fill_",
           "masked_fill": "masked_fill_", "triu": "triu_", "tril": "tril_"}


@pytest.mark.parametrize("name", GATHER_KIND)
def test_gather_like_ops_have_kind_gather(name):
    assert OPS[name].kind == "gather" and OPS[name].category == "indexing"


@pytest.mark.parametrize("name", SCATTER_KIND)
def test_scatter_like_ops_have_kind_scatter(name):
    assert OPS[name].kind == "scatter" and OPS[name].category == "indexing"


@pytest.mark.parametrize("name", CLI)
def test_op_is_a_cli_command_with_summary(name):
    info = OPS[name]
    assert info.cli is True
    assert info.summary and not info.summary.endswith(" ")


@pytest.mark.parametrize("name", GATHER_KIND + SCATTER_KIND + ["one_hot"])
@pytest.mark.parametrize("ndim", [1, 2, 3, 4])
def test_rule_returns_formula_for_every_dim(name, ndim):
    for dim in range(-ndim, ndim):
        r = OPS[name].rule(ndim, dim)
        assert isinstance(r, str) and "=" in r


@pytest.mark.parametrize("dim,formula", [
    (0, "out[i][j][k] = input[index[i][j][k]][j][k]"),
    (1, "out[i][j][k] = input[i][index[i][j][k]][k]"),
    (2, "out[i][j][k] = input[i][j][index[i][j][k]]"),
    (-1, "out[i][j][k] = input[i][j][index[i][j][k]]"),
])
def test_gather_rule_is_the_seed_formula(dim, formula):
    assert OPS["gather"].rule(3, dim) == formula


def test_scatter_rules_follow_pytorch_docs():
    assert OPS["scatter"].rule(3, 0) == "self[index[i][j][k]][j][k] = src[i][j][k]"
    assert OPS["scatter_add"].rule(2, 0) == "self[index[i][j]][j] += src[i][j]"
    assert OPS["index_select"].rule(2, 1) == "out[i][j] = input[i][index[j]]"
    assert OPS["index_add"].rule(2, 0) == "self[index[i]][j] += source[i][j]"
    assert OPS["index_add"].rule(2, 0, alpha=2) == "self[index[i]][j] += 2 * source[i][j]"
    assert OPS["scatter_reduce"].rule(2, 1, reduce="sum") == "self[i][index[i][j]] += src[i][j]"
    assert OPS["diagonal"].rule(2, None) == "out[i] = input[i][i]"
    assert OPS["diagonal"].rule(3, None, offset=1, dim1=1, dim2=2) == "out[j][i] = input[j][i][i + 1]"
    assert OPS["diag_embed"].rule(2, None, offset=-1) == "out[i][j + 1][j] = input[i][j]"
    assert OPS["take_along_dim"].rule(2, None) == "out[i] = input.flatten()[indices.flatten()[i]]"


@pytest.mark.parametrize("op,method", sorted(INPLACE.items()))
def test_inplace_variant_is_attached(op, method):
    assert OPS[op].inplace == method
    assert callable(getattr(core.Tensor, method))


@pytest.mark.parametrize("name", GATHER_KIND + SCATTER_KIND + ["nonzero", "argwhere", "diag", "one_hot",
                                                              "triu_indices", "tril_indices", "index_put_"])
def test_function_form_in_core_namespace(name):
    assert callable(getattr(core, name))


@pytest.mark.parametrize("name", ["gather", "scatter", "scatter_add", "scatter_reduce", "index_select", "index_add",
                                  "index_fill", "index_put", "masked_fill", "masked_select", "take",
                                  "take_along_dim", "nonzero", "argwhere", "triu", "tril", "diagonal", "diag",
                                  "diag_embed"])
def test_method_form_exists(name):
    assert callable(getattr(core.Tensor, name))


def test_explain_can_run_gather_on_positions():
    # the CLI derives index-mapping rows by running the op on position tensors
    pos = core.arange(12.).view(3, 4)
    out = core.gather(pos, 1, core.tensor([[3, 0], [1, 1], [2, 0]]))
    assert out.tolist() == [[3.0, 0.0], [5.0, 5.0], [10.0, 8.0]]
