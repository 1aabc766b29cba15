"""Registry metadata of the indexing ops: kind (gather / scatter, which --explain reads), function /
method / in-place forms, one-line summaries."""
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
def test_op_has_a_one_line_summary(name):
    info = OPS[name]
    assert info.summary and not info.summary.endswith(" ")


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
