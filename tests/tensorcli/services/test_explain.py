"""--explain: rows derived by running the op on positions must match the op's formula (checked
against index arithmetic done here with NumPy) and torch's values, for every rank and dim."""
from __future__ import annotations

import itertools
import json

import numpy as np
import pytest
from typer.testing import CliRunner

from core.ops.registry import OPS
from conftest import cli_app_with
from tensorcli import app as cli_app
from tensorcli import opspec
from tensorcli import spec as cli_spec
from tensorcli.services import explain as ex, explain_rule as rules
from tensorcli.services.run_op import build_call


@pytest.fixture(scope="module")
def app():
    return cli_app_with(("ops", "show"))


def need(op):
    info = OPS.get(op)
    if info is None or not opspec.is_command(op) or not info.kind:
        pytest.skip(f"op {op} has no explainable command yet")
    return info


def run_json(app, *argv):
    r = CliRunner().invoke(app, [str(a) for a in argv] + ["--json", "--max-rows", "0"],
                           env={"NO_COLOR": "1"})
    assert r.exit_code == 0, r.stderr
    return json.loads(r.stdout)


def run_text(app, *argv):
    r = CliRunner().invoke(app, [str(a) for a in argv], env={"NO_COLOR": "1"})
    assert r.exit_code == 0, r.stderr
    return r.stdout


def js(a):
    return json.dumps(np.asarray(a).tolist())


def torch_value(torch_result, coords):
    v = torch_result[tuple(coords)].item()
    return v


# -- gather-like: out[cell] <- input[cell'] -----------------------------------------------------

X3 = np.arange(24).reshape(2, 3, 4) * 10


def gather_index(shape, dim, seed=0):
    rng = np.random.default_rng(seed)
    ishape = list(shape)
    ishape[dim] = 3
    ishape = [min(s, 2) if i != dim else s for i, s in enumerate(ishape)]
    return rng.integers(0, shape[dim], size=ishape)


@pytest.mark.parametrize("dim", [0, 1, 2, -1, -3])
def test_gather_rows_follow_the_formula_3d(torch, app, dim):
    info = need("gather")
    index = gather_index(X3.shape, dim % 3, seed=dim + 5)
    obj = run_json(app, "gather", js(X3), "--dim", dim, "--index", js(index), "--explain")
    ref = torch.tensor(X3).gather(dim, torch.tensor(index))
    rows = obj["explain"]
    assert len(rows) == index.size and obj["explain_left_out"] == 0
    d = dim % 3
    for row, cell in zip(rows, itertools.product(*map(range, index.shape))):
        assert row["out"] == list(cell)
        src = list(cell)
        src[d] = int(index[cell])
        assert row["from"]["input"] == src
        assert row["from"]["index"] == list(cell)
        assert row["value"] == torch_value(ref, cell) == X3[tuple(src)]
    assert obj["rule"] == opspec.entry(info.name).rule(3, d)


def test_gather_3d_dim2_formula_text(app):
    need("gather")
    index = gather_index(X3.shape, 2)
    text = run_text(app, "gather", js(X3), "--dim", 2, "--index", js(index), "--explain", "--at", "1,1,2")
    assert "rule: out[i][j][k] = input[i][j][index[i][j][k]]" in text
    k = int(index[1, 1, 2])
    assert f"out[1][1][2] = input[1][1][index[1][1][2]={k}] = input[1][1][{k}] = {X3[1, 1, k]}" in text


def test_gather_explain_example_line(app):
    need("gather")
    text = run_text(app, "gather", "[[1,2,3],[4,5,6]]", "--dim", 1, "--index", "[[0,2],[1,0]]", "--explain")
    assert "gather(dim=1): where each output element comes from" in text
    assert "rule: out[i][j] = input[i][index[i][j]]" in text
    assert "out[0][1] = input[0][index[0][1]=2] = input[0][2] = 3" in text.replace("  ", " ")


def test_negative_dim_is_named_in_the_header(app):
    need("gather")
    text = run_text(app, "gather", "[[1,2],[3,4]]", "--dim", -1, "--index", "[[1,0],[0,0]]", "--explain")
    assert "gather(dim=-1) (dim=-1 is dim 1 of 2)" in text


@pytest.mark.parametrize("dim", [0, 1, -1])
def test_index_select_rows(torch, app, dim):
    need("index_select")
    x = np.arange(12).reshape(3, 4)
    index = [2, 0, 2]
    obj = run_json(app, "index-select", js(x), "--dim", dim, "--index", js(index), "--explain")
    ref = torch.tensor(x).index_select(dim, torch.tensor(index))
    d = dim % 2
    for row in obj["explain"]:
        out = row["out"]
        src = list(out)
        src[d] = index[out[d]]
        assert row["from"]["input"] == src
        assert row["value"] == torch_value(ref, out)


def test_take_along_dim_rows(app):
    need("take_along_dim")
    x = np.arange(6).reshape(2, 3)
    idx = np.array([[2, 0], [1, 1]])
    obj = run_json(app, "take-along-dim", js(x), "--indices", js(idx), "--dim", 1, "--explain")
    for row in obj["explain"]:
        i, j = row["out"]
        assert row["from"]["input"] == [i, int(idx[i, j])]


def test_masked_fill_rows_name_the_value(app):
    need("masked_fill")
    obj = run_json(app, "masked-fill", "[[1,2],[3,4]]", "--mask", "[[true,false],[false,true]]", "--value", 9,
                   "--explain")
    froms = {tuple(r["out"]): r["from"] for r in obj["explain"]}
    assert froms[(0, 0)] == {"value": None} and froms[(1, 1)] == {"value": None}
    assert froms[(0, 1)] == {"input": [0, 1]}


def test_triu_zeros_are_constants(app):
    need("triu")
    obj = run_json(app, "triu", "[[1,2],[3,4]]", "--explain")
    froms = {tuple(r["out"]): r["from"] for r in obj["explain"]}
    assert froms[(1, 0)] == {"constant": 0} and froms[(0, 1)] == {"input": [0, 1]}


# -- shape ops: which input cell each output cell comes from ----------------------------------------

def _check_mapping(obj, expect):
    rows = obj["explain"]
    assert rows
    for row in rows:
        assert row["from"]["input"] == list(expect(tuple(row["out"]), row.get("output"))), row


def test_permute_3d(app):
    need("permute")
    dims = (2, 0, 1)
    obj = run_json(app, "permute", js(X3), "--dims", "2,0,1", "--explain")
    inv = np.argsort(dims)
    _check_mapping(obj, lambda o, _: [o[inv[k]] for k in range(3)])
    assert len(obj["explain"]) == X3.size


def test_transpose_negative_dims(app):
    need("transpose")
    obj = run_json(app, "transpose", js(X3), "--dim0", -1, "--dim1", 0, "--explain")
    _check_mapping(obj, lambda o, _: [o[2], o[1], o[0]])


def test_repeat(app):
    need("repeat")
    x = np.array([[1, 2, 3]])
    obj = run_json(app, "repeat", js(x), "--sizes", "2,2", "--explain")
    _check_mapping(obj, lambda o, _: [o[0] % 1, o[1] % 3])
    assert len(obj["explain"]) == 12


def test_expand(app):
    need("expand")
    obj = run_json(app, "expand", "[[1],[2]]", "--sizes", "2,3", "--explain")
    _check_mapping(obj, lambda o, _: [o[0], 0])


def test_chunk_names_the_output(app):
    need("chunk")
    x = np.arange(10).reshape(2, 5)
    obj = run_json(app, "chunk", js(x), "--chunks", 2, "--dim", 1, "--explain")
    _check_mapping(obj, lambda o, k: [o[0], o[1] + 3 * k])
    assert {r["output"] for r in obj["explain"]} == {0, 1}


def test_unfold(app):
    need("unfold")
    x = np.arange(7)
    obj = run_json(app, "unfold", js(x), "--dimension", 0, "--size", 3, "--step", 2, "--explain")
    _check_mapping(obj, lambda o, _: [o[0] * 2 + o[1]])


def test_cat_names_the_operand(app):
    need("cat")
    obj = run_json(app, "cat", "[[1,2]]", "[[3,4],[5,6]]", "--dim", 0, "--explain")
    froms = [r["from"] for r in obj["explain"]]
    assert froms[0] == {"tensors[0]": [0, 0]} and froms[5] == {"tensors[1]": [1, 1]}


# -- scatter-like: src cell -> out cell ---------------------------------------------------------

def _writers(index, dim, shape):
    """{out cell: [src cells]} by the scatter formula self[...index[c]...] = src[c]."""
    w = {}
    for c in itertools.product(*map(range, index.shape)):
        t = list(c)
        t[dim] = int(index[c])
        w.setdefault(tuple(t), []).append(list(c))
    return w


@pytest.mark.parametrize("dim", [0, 1, -1])
def test_scatter_rows_and_nondeterministic_collisions(torch, app, dim):
    need("scatter")
    x = np.zeros((2, 3), dtype=np.int64)
    index = np.array([[0, 1, 0], [0, 0, 1]]) if dim % 2 == 0 else np.array([[2, 2, 0], [1, 0, 1]])
    src = np.arange(1, 7).reshape(2, 3)
    obj = run_json(app, "scatter", js(x), "--dim", dim, "--index", js(index), "--src", js(src), "--explain")
    d = dim % 2
    writers = _writers(index, d, x.shape)
    for row in obj["explain"]:
        c = tuple(row["src"])
        t = list(c)
        t[d] = int(index[c])
        assert row["to"] == t
        assert row["value"] == src[c]
        many = writers[tuple(t)]
        if len(many) > 1:
            assert row["collision"]["mode"] == "nondeterministic"
            assert sorted(row["collision"]["with"] + [list(c)]) == sorted(many)
        else:
            assert "collision" not in row
    colls = {tuple(e["out"]): e for e in obj["collisions"]}
    assert set(colls) == {k for k, v in writers.items() if len(v) > 1}
    assert all(e["mode"] == "nondeterministic" for e in colls.values())
    assert sorted(map(tuple, obj["untouched"])) == sorted(
        set(itertools.product(range(2), range(3))) - set(writers))


def test_scatter_collision_text_warns(app):
    need("scatter")
    text = run_text(app, "scatter", "[0,0,0]", "--dim", 0, "--index", "[1,1]", "--src", "[5,6]", "--explain")
    assert "src[0] = 5 -> " in text and "collides with src[1]" in text
    assert "out[1] = src[0] or src[1] (PyTorch: undefined; core kept src[1]) = 6" in text


def test_scatter_3d_dim1(app):
    need("scatter")
    x = np.zeros((2, 3, 2), dtype=np.int64)
    index = np.array([[[0, 2]], [[1, 1]]])          # shape (2, 1, 2)
    src = np.arange(1, 13).reshape(2, 3, 2)
    obj = run_json(app, "scatter", js(x), "--dim", 1, "--index", js(index), "--src", js(src), "--explain")
    to = {tuple(r["src"]): r["to"] for r in obj["explain"]}
    for c in itertools.product(range(2), range(1), range(2)):
        assert to[c] == [c[0], int(index[c]), c[2]]
    unused = [r for r in obj["explain"] if r["to"] is None]
    assert {tuple(r["src"]) for r in unused} == {c for c in itertools.product(range(2), range(3), range(2))
                                                 if c[1] >= 1}


def test_scatter_add_accumulates(torch, app):
    need("scatter_add")
    x = np.ones((2, 3), dtype=np.int64)
    index = np.array([[0, 1, 0], [0, 0, 0]])
    src = np.arange(1, 7).reshape(2, 3)
    obj = run_json(app, "scatter-add", js(x), "--dim", 0, "--index", js(index), "--src", js(src), "--explain")
    colls = {tuple(e["out"]): e for e in obj["collisions"]}
    assert set(colls) == {(0, 0), (0, 2)}
    assert all(e["mode"] == "accumulate" for e in colls.values())
    ref = torch.tensor(x).scatter_add(0, torch.tensor(index), torch.tensor(src))
    assert obj["result"]["data"] == ref.tolist()
    assert "out[0][0] = input[0][0] + src[0][0] + src[1][0] = 6" in obj["notes"]


def test_scatter_reduce_amax_is_a_reduction_not_a_race(app):
    need("scatter_reduce")
    obj = run_json(app, "scatter-reduce", "[0,0]", "--dim", 0, "--index", "[1,1,0]", "--src", "[3,7,5]",
                   "--reduce", "amax", "--explain")
    colls = {tuple(e["out"]): e for e in obj["collisions"]}
    assert colls[(1,)]["mode"] == "reduce"


def test_index_put_accumulate(app):
    need("index_put")
    obj = run_json(app, "index-put", "[[0,0],[0,0]]", "--indices", "[0,0,1]", "--indices", "[1,1,0]",
                   "--values", "[1,2,3]", "--accumulate", "--explain")
    to = {tuple(r["src"]): r["to"] for r in obj["explain"]}
    assert to == {(0,): [0, 1], (1,): [0, 1], (2,): [1, 0]}
    assert obj["collisions"][0]["out"] == [0, 1] and obj["collisions"][0]["mode"] == "accumulate"


def test_index_add_rows(app):
    need("index_add")
    obj = run_json(app, "index-add", "[[0,0,0],[0,0,0]]", "--dim", 1, "--index", "[2,0]",
                   "--source", "[[1,2],[3,4]]", "--explain")
    to = {tuple(r["src"]): r["to"] for r in obj["explain"]}
    assert to == {(0, 0): [0, 2], (0, 1): [0, 0], (1, 0): [1, 2], (1, 1): [1, 0]}


# -- --at, --max-rows -----------------------------------------------------------------------------

def test_at_explains_one_element(app):
    need("gather")
    base = ["gather", js(X3), "--dim", 1, "--index", js(gather_index(X3.shape, 1)), "--explain"]
    full = {tuple(r["out"]): r for r in run_json(app, *base)["explain"]}
    one = run_json(app, *base, "--at", "1,2,0")["explain"]
    assert one == [full[(1, 2, 0)]]
    neg = run_json(app, *base, "--at", "-1,-1,0")["explain"]
    assert neg[0]["out"] == [1, 2, 0]


def test_at_on_scatter_lists_the_writers_of_that_cell(app):
    need("scatter_add")
    obj = run_json(app, "scatter-add", "[0,0,0]", "--dim", 0, "--index", "[2,2,1]", "--src", "[1,2,3]",
                   "--at", "2")
    assert sorted(tuple(r["src"]) for r in obj["explain"]) == [(0,), (1,)]


def test_max_rows_bounds_the_table(app):
    need("gather")
    r = CliRunner().invoke(app, ["gather", js(X3), "--dim", "2", "--index", js(gather_index(X3.shape, 2)),
                                 "--explain", "--max-rows", "5"], env={"NO_COLOR": "1"})
    rows = [ln for ln in r.stdout.splitlines() if ln.startswith("out[")]
    assert len(rows) == 5
    assert "... 7 more rows left out (--max-rows 0 shows all)" in r.stdout
    r = CliRunner().invoke(app, ["gather", js(X3), "--dim", "2", "--index", js(gather_index(X3.shape, 2)),
                                 "--explain", "--max-rows", "5", "--json"])
    obj = json.loads(r.stdout)
    assert len(obj["explain"]) == 5 and obj["explain_left_out"] == 7


def test_text_table_fits_80_columns_for_small_tensors(app):
    need("gather")
    text = run_text(app, "gather", "[[1,2,3],[4,5,6]]", "--dim", 1, "--index", "[[0,2],[1,0]]", "--explain")
    assert max(map(len, text.splitlines())) <= 80


# -- the machinery ------------------------------------------------------------------------------

@pytest.mark.parametrize("rule,ok", [
    ("out[i][j] = input[i][index[i][j]]", True),
    ("self[i][index[i][j]] += alpha * source[i][j]", True),
    ("out[i][j] = input[i * 2 + j]", True),
    ("self[index[i][j]][j] = reduce(self[index[i][j]][j], src[i][j])  (reduce: sum, prod)", True),
    ("out.flatten()[n] = input.flatten()[n]", False),
    ("out[...][i] = input[i % size(0)]", False),
])
def test_parse_rule(rule, ok):
    assert (rules.parse_rule(rule) is not None) == ok


def test_formula_substitution_text():
    lhs, rhs = rules.parse_rule("out[i][j] = input[i][index[i][j]]")
    index = np.array([[0, 2], [1, 0]])

    def lookup(name, coords):
        if name == "index":
            return int(index[tuple(coords)])
        return rules.Cell(name, coords)
    ev = rules.Eval({"i": 0, "j": 1}, lookup)
    assert ev.text(rhs) == "input[0][index[0][1]=2]"
    assert repr(ev.value(rhs)) == "input[0][2]"


def test_codes_tell_copies_from_sums_means_and_maxima():
    class Op:
        def __init__(self, n):
            self.n, self.shape = n, (n,)

        def unravel(self, flat):
            return (int(flat),)
    o = Op(4)
    cm = ex._Codes([o])
    c = cm.per_op[0]
    copy = cm.decode(c[2], -c[2])
    assert copy[0] == "op" and copy[2] == (2,)
    assert cm.decode(c[0] + c[1], -(c[0] + c[1])) is None                          # sum
    assert cm.decode((c[0] + c[3]) / 2, -(c[0] + c[3]) / 2) is None                # mean
    assert cm.decode(max(c[0], c[1]), max(-c[0], -c[1])) is None                   # amax
    assert cm.decode(ex.SENTINEL, ex.SENTINEL) == ("value",)
    assert cm.decode(0.0, 0.0) == ("const", 0)


# -- property: random ranks, shapes, dims ----------------------------------------------------------

from hypothesis import given, settings, strategies as st  # noqa: E402


@st.composite
def gather_case(draw):
    ndim = draw(st.integers(1, 3))
    shape = tuple(draw(st.lists(st.integers(1, 3), min_size=ndim, max_size=ndim)))
    dim = draw(st.integers(-ndim, ndim - 1))
    ishape = tuple(draw(st.integers(1, s if i != dim % ndim else 4)) for i, s in enumerate(shape))
    seed = draw(st.integers(0, 2 ** 16))
    index = np.random.default_rng(seed).integers(0, shape[dim % ndim], size=ishape)
    return shape, dim, index


def _explain(op, argv):
    info = OPS[op]
    specs = cli_spec.classify(info)
    values = {"p_" + k: v for k, v in argv.items()}
    values.update(cli_dtype=None)
    call = build_call(info, specs, values)
    return call, ex.explain(call, call.run())


@settings(max_examples=40, deadline=None)
@given(gather_case())
def test_gather_explain_property(case):
    need("gather")
    shape, dim, index = case
    x = np.arange(int(np.prod(shape))).reshape(shape) + 100
    _, e = _explain("gather", {"input": js(x), "dim": str(dim), "index": js(index)})
    assert e.total == index.size
    for (row, _), cell in zip(e.rows, itertools.product(*map(range, index.shape))):
        src = list(cell)
        src[dim % len(shape)] = int(index[cell])
        assert row["out"] == list(cell) and row["from"]["input"] == src and row["value"] == x[tuple(src)]


@settings(max_examples=40, deadline=None)
@given(gather_case(), st.booleans())
def test_scatter_explain_property(case, add):
    op = "scatter_add" if add else "scatter"
    need(op)
    shape, dim, index = case
    d = dim % len(shape)
    # scatter needs index.size(k) <= src.size(k) for all k and <= self.size(k) for k != dim
    src = np.arange(int(np.prod(index.shape))).reshape(index.shape) + 1
    x = np.zeros(shape, dtype=np.int64)
    _, e = _explain(op, {"input": js(x), "dim": str(dim), "index": js(index), "src": js(src)})
    writers = _writers(index, d, shape)
    for row, _ in e.rows:
        c = tuple(row["src"])
        t = list(c)
        t[d] = int(index[c])
        assert row["to"] == t
        assert ("collision" in row) == (len(writers[tuple(t)]) > 1)
        if "collision" in row:
            assert row["collision"]["mode"] == ("accumulate" if add else "nondeterministic")
