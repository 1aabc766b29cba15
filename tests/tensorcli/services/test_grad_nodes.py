"""--backward names the node torch's gradient has under create_graph=True (softmax:
SoftmaxBackwardDataBackward0, not the MulBackward0 core builds it from), checked against torch on a
representative sample of commands (pointwise, activations, reductions, softmax family, movement,
contractions, norms, losses); scripts/torch_grad_nodes.py regenerates the table for every command."""
from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from terminal import app, argv

X = "[[1.0,2],[3,1]]"
CASES = [   # (command, torch function of the data operands, data operands)
    (f"softmax '{X}' --dim 1", lambda T, x: T.softmax(x, dim=1), [X]),
    (f"log-softmax '{X}' --dim 1", lambda T, x: T.log_softmax(x, dim=1), [X]),
    (f"tanh '{X}'", lambda T, x: T.tanh(x), [X]),
    (f"sigmoid '{X}'", lambda T, x: T.sigmoid(x), [X]),
    (f"relu '[[1.0,-2],[3,-1]]'", lambda T, x: T.relu(x), ["[[1.0,-2],[3,-1]]"]),
    (f"sum '{X}' --dim 1", lambda T, x: T.sum(x, dim=1), [X]),
    (f"gather '{X}' --dim 1 --index '[[0,0],[1,0]]'",
     lambda T, x: T.gather(x, 1, T.tensor([[0, 0], [1, 0]])), [X]),
    (f"matmul '{X}' --other '[[1.0],[0]]'", lambda T, a, b: T.matmul(a, b), [X, "[[1.0],[0]]"]),
    (f"layer-norm '[[1.0,2,4]]' --normalized-shape 3",
     lambda T, x: T.nn.functional.layer_norm(x, (3,)), ["[[1.0,2,4]]"]),
    (f"mse-loss '[1.0,2]' --target '[0.0,0]'",
     lambda T, x: T.nn.functional.mse_loss(x, T.tensor([0.0, 0])), ["[1.0,2]"]),
    (f"gelu '{X}'", lambda T, x: T.nn.functional.gelu(x), [X]),
    (f"mean '{X}' --dim 0", lambda T, x: T.mean(x, dim=0), [X]),
]


def torch_nodes(torch, fn, operands):
    leaves = [torch.tensor(json.loads(o), requires_grad=True) for o in operands]
    out = fn(torch, *leaves)
    go = torch.ones_like(out).requires_grad_(True)
    grads = torch.autograd.grad(out, leaves, go, create_graph=True, allow_unused=True)
    return sorted({g.grad_fn.name() for g in grads if g is not None and g.grad_fn is not None})


@pytest.mark.parametrize("command, fn, operands", CASES, ids=[c[0].split()[0] for c in CASES])
def test_backward_names_torchs_gradient_node(torch, command, fn, operands):
    r = CliRunner().invoke(app(), argv(command) + ["--backward", "--json"], env={"NO_COLOR": "1"})
    assert r.exit_code == 0, r.stderr
    got = json.loads(r.stdout)
    assert sorted(got["grad_computed_by"]) == torch_nodes(torch, fn, operands), got
    text = CliRunner().invoke(app(), argv(command) + ["--backward"], env={"NO_COLOR": "1"}).stdout
    head = next(line for line in text.splitlines() if line.startswith("backward:"))
    for node in got["grad_computed_by"]:
        assert node in head, head


def test_softmax_is_not_mul():
    r = CliRunner().invoke(app(), argv(f"softmax '{X}' --dim 1 --backward --json"),
                           env={"NO_COLOR": "1"})
    got = json.loads(r.stdout)
    assert got["grad_computed_by"] == ["SoftmaxBackwardDataBackward0"]
    assert got["core_grad_computed_by"]          # what core itself built, said separately
