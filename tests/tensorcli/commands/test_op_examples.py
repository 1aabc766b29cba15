"""The commands of these ops: their examples (tensorcli/opspec/) run with --json and agree with torch."""
from __future__ import annotations

import numpy as np


EXAMPLES = ["addcmul", "addcdiv", "hypot", "diff", "trapezoid", "bincount", "histc", "cov", "corrcoef",
                  "addmv", "addr", "trace", "kron", "cdist"]


def test_examples_run_and_match_torch(torch):
    """Run each op's command example with --json and compare with torch."""
    import json
    import shlex

    from typer.testing import CliRunner

    from tensorcli import app as cli_app
    from tensorcli import opspec, spec
    app = cli_app.build_app(only={spec.command_name(n) for n in EXAMPLES}, modules=())
    runner = CliRunner()
    for name in EXAMPLES:
        argv = shlex.split(opspec.examples(name)[0])[1:]
        r = runner.invoke(app, argv + ["--json"], env={"NO_COLOR": "1"})
        assert r.exit_code == 0, (name, r.output)
        got = json.loads(r.stdout)["result"]
        opts = {k[2:].replace("-", "_"): torch.tensor(json.loads(v)) if v.startswith("[") else
                float(v) if "." in v else int(v) for k, v in zip(argv, argv[1:]) if k.startswith("--")}
        want = getattr(torch, name)(torch.tensor(json.loads(argv[1])), **opts)
        assert got["shape"] == list(want.shape), name
        assert got["dtype"] == str(want.dtype).replace("torch.", ""), name
        np.testing.assert_allclose(np.array(got["data"], dtype=np.float64), want.double().numpy(), rtol=1e-5,
                                   atol=1e-6, err_msg=name)

