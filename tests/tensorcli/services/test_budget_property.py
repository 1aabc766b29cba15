"""Property: under a 64 MiB budget, random op commands and expressions with random shapes either run
or stop with exit 2 and one line, and resident memory grows by at most the budget + SLACK.

Random shapes range from empty to far past the budget (a 20,000 x 20,000 result is 1.5 GiB), so both
outcomes occur. Each example runs its commands in one child process (tests/budget_child.py)."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from tensorcli.services import budget
from tests.tensorcli.services.test_budget import MiB, assert_bounded, run_child

pytestmark = pytest.mark.skipif(budget.vm_data() is None, reason="RLIMIT_DATA and /proc/self/status are Linux's")

BUDGET = "64MiB"
SIZE_VALUES = (0, 1, 7, 300, 4000, 20000, 10 ** 6)
SIZES = st.sampled_from(SIZE_VALUES)

EXPRESSIONS = [
    "torch.zeros({a}, {b}).sum({d})",
    "torch.ones({a}).outer(torch.ones({b}))",
    "torch.arange({a}.).reshape(-1, 1) * torch.ones({b})",
    "torch.zeros({a}, {b}).tolist()",
    "torch.zeros({a}, {b}).unbind({d})",
    "torch.kron(torch.ones({a}), torch.ones({b}))",
    "torch.zeros({a}, {b}).cumsum({d}).exp()",
    "torch.zeros({a}, {b}).T.contiguous().double()",
    "torch.zeros({a}).repeat({b})",
    "torch.cdist(torch.zeros({a}, 2), torch.zeros({b}, 2))",
    "torch.combinations(torch.arange({a} * 1.))",
    "torch.zeros(1).expand({a}, {b}) + 1",
    "torch.einsum('i,j->ij', torch.ones({a}), torch.ones({b})).sum()",
    "torch.nn.functional.embedding(torch.zeros({a}, dtype=torch.long), torch.zeros(1, {b}))",
]

# op commands over .npy files: col{a} is (a, 1), row{b} (1, b), v{a} a vector (sizes capped at 20,000)
OPS = [
    ["outer", "v{a}.npy", "--vec2", "v{b}.npy"],
    ["kron", "v{a}.npy", "--other", "v{b}.npy"],
    ["cartesian-prod", "v{a}.npy", "v{b}.npy"],
    ["add", "col{a}.npy", "--other", "row{b}.npy"],
    ["matmul", "col{a}.npy", "--other", "row{b}.npy"],
    ["cdist", "col{a}.npy", "--x2", "col{b}.npy"],
    ["cumsum", "v{a}.npy", "--dim", "0"],
    ["sum", "col{a}.npy", "--dim", "1"],
    ["diag", "v{a}.npy"],
]
CAP = 20000


@st.composite
def command(draw):
    a, b, d = draw(SIZES), draw(SIZES), draw(st.integers(0, 1))
    if draw(st.booleans()):
        return ["eval", draw(st.sampled_from(EXPRESSIONS)).format(a=a, b=b, d=d), "--max-bytes", BUDGET]
    op = draw(st.sampled_from(OPS))
    return [w.format(a=min(a, CAP), b=min(b, CAP)) for w in op] + ["--max-bytes", BUDGET]


@settings(max_examples=3, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(st.lists(command(), min_size=8, max_size=8))
def test_random_commands_stay_within_the_budget(tmp_path, cmds):
    for n in {min(n, CAP) for n in SIZE_VALUES}:
        np.save(tmp_path / f"v{n}.npy", np.ones(n, np.float32))          # at most 80 KB each
        np.save(tmp_path / f"col{n}.npy", np.ones((n, 1), np.float32))
        np.save(tmp_path / f"row{n}.npy", np.ones((1, n), np.float32))
    for r in run_child(cmds, tmp_path):
        assert_bounded(r, 64 * MiB)
