"""The indexing ops' command entries (tensorcli/opspec/indexing.py) and their --explain formulas
(tensorcli/opspec/rules_indexing.py), in the PyTorch-docs style."""
from __future__ import annotations

import pytest

from tensorcli import opspec

GATHER_KIND = ["gather", "index_select", "take_along_dim", "take", "masked_select", "diagonal", "triu", "tril"]
SCATTER_KIND = ["scatter", "scatter_add", "scatter_reduce", "index_put", "index_add", "index_fill", "masked_fill",
                "diag_embed"]
CLI = GATHER_KIND + SCATTER_KIND + ["one_hot", "nonzero", "argwhere", "diag"]


@pytest.mark.parametrize("name", CLI)
def test_op_is_a_command(name):
    assert opspec.is_command(name)


@pytest.mark.parametrize("name", GATHER_KIND + SCATTER_KIND + ["one_hot"])
@pytest.mark.parametrize("ndim", [1, 2, 3, 4])
def test_rule_returns_formula_for_every_dim(name, ndim):
    for dim in range(-ndim, ndim):
        r = opspec.entry(name).rule(ndim, dim)
        assert isinstance(r, str) and "=" in r


@pytest.mark.parametrize("dim,formula", [
    (0, "out[i][j][k] = input[index[i][j][k]][j][k]"),
    (1, "out[i][j][k] = input[i][index[i][j][k]][k]"),
    (2, "out[i][j][k] = input[i][j][index[i][j][k]]"),
    (-1, "out[i][j][k] = input[i][j][index[i][j][k]]"),
])
def test_gather_rule_is_the_seed_formula(dim, formula):
    assert opspec.entry("gather").rule(3, dim) == formula


def test_scatter_rules_follow_pytorch_docs():
    assert opspec.entry("scatter").rule(3, 0) == "self[index[i][j][k]][j][k] = src[i][j][k]"
    assert opspec.entry("scatter_add").rule(2, 0) == "self[index[i][j]][j] += src[i][j]"
    assert opspec.entry("index_select").rule(2, 1) == "out[i][j] = input[i][index[j]]"
    assert opspec.entry("index_add").rule(2, 0) == "self[index[i]][j] += source[i][j]"
    assert opspec.entry("index_add").rule(2, 0, alpha=2) == "self[index[i]][j] += 2 * source[i][j]"
    assert opspec.entry("scatter_reduce").rule(2, 1, reduce="sum") == "self[i][index[i][j]] += src[i][j]"
    assert opspec.entry("diagonal").rule(2, None) == "out[i] = input[i][i]"
    assert opspec.entry("diagonal").rule(3, None, offset=1, dim1=1, dim2=2) == "out[j][i] = input[j][i][i + 1]"
    assert opspec.entry("diag_embed").rule(2, None, offset=-1) == "out[i][j + 1][j] = input[i][j]"
    assert opspec.entry("take_along_dim").rule(2, None) == "out[i] = input.flatten()[indices.flatten()[i]]"


