"""--timeout SECONDS (services/budget.py): evaluating commands stop with exit 2 "timed out after N s";
`check` fails a case that runs out of its time (console, JSON, JUnit say why) and goes on; a call
that cannot be interrupted is ended by the watchdog; Ctrl-C stays 130."""
from __future__ import annotations

from paths import ROOT

import os
import signal
import subprocess
import sys
import time

import pytest
import typer

from tensorcli.services import budget, check_report, checks

ENV = dict(os.environ, PYTHONPATH=ROOT, NO_COLOR="1", OPENBLAS_NUM_THREADS="1")
CLI = [sys.executable, "-m", "tensorcli"]


def test_every_evaluating_command_has_timeout():
    from tensorcli.app import build_app
    group = typer.main.get_command(build_app({"gather"}))
    full = typer.main.get_command(build_app())
    for name in ("eval", "grad", "graph", "modes", "memory", "check"):
        opts = {o for p in full.commands[name].params for o in p.opts}
        assert "--timeout" in opts, name
    assert "--timeout" in {o for p in group.commands["gather"].params for o in p.opts}


def test_a_long_expression_stops_with_one_line():
    p = subprocess.run(CLI + ["eval", "torch.zeros(500,500).matrix_power(2**600)", "--timeout", "1"],
                       capture_output=True, text=True, env=ENV, timeout=120)
    assert p.returncode == 2, p.stderr
    assert p.stderr == "tensorcli: error: timed out after 1 s\n"
    assert p.stdout == ""


def test_the_watchdog_ends_a_call_the_timer_cannot_interrupt():
    """SIGALRM blocked stands for a C call that never returns to the interpreter: the watchdog
    thread writes the line and exits 2 after GRACE."""
    code = ("import signal, time\n"
            "from tensorcli.services import budget\n"
            "signal.pthread_sigmask(signal.SIG_BLOCK, [signal.SIGALRM])\n"
            "budget.start_timer(0.2, 'case a.toml::\\x1b[32mPASS')\n"
            "time.sleep(30)\n")
    t0 = time.monotonic()
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=ENV, timeout=60)
    assert p.returncode == 2
    assert p.stderr == "tensorcli: error: case a.toml::\\x1b[32mPASS: timed out after 0.2 s\n"   # escaped
    assert time.monotonic() - t0 < 25


def test_bad_timeout_values_name_the_option():
    for bad in ("abc", "-1", "nan", "inf"):
        with pytest.raises(Exception) as e:
            budget.parse_timeout(bad)
        assert e.value.arg == "--timeout"
    assert budget.parse_timeout("0") is None and budget.parse_timeout("2.5") == 2.5


def test_the_timer_raises_in_the_block_and_is_gone_after():
    with pytest.raises(budget.TimedOut) as e:
        with budget.time_limit(0.05):
            while True:
                pass
    assert str(e.value) == "timed out after 0.05 s"
    assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)
    with budget.time_limit(5):   # finished in time: nothing raised, the timer stopped
        pass
    assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)


SLOW = """
[[case]]
name = "slow"
expr = "torch.zeros(200,200).matrix_power(2**4000)"
expect_shape = [200, 200]

[[case]]
name = "fast"
expr = "x + 1"
let = {x = [1.0]}
expect = [2.0]
"""


def test_check_fails_a_timed_out_case_and_goes_on(tmp_path):
    f = tmp_path / "slow.toml"
    f.write_text(SLOW)
    _, cases, _ = checks.load_paths([str(f)])
    rep = checks.run(cases, files=[str(f)], timeout=0.2)
    slow, fast = rep.results
    assert slow.status == "failed" and slow.message.startswith("timed out after 0.2 s")
    assert fast.status == "passed" and rep.exit_code == 1
    js = check_report.to_json(rep)
    assert js["cases"][0]["status"] == "failed" and "timed out after 0.2 s" in js["cases"][0]["message"]
    xml = check_report.to_junit(rep)
    assert 'type="Timeout"' in xml and "timed out after 0.2 s" in xml


def test_check_has_a_default_time_budget_per_case():
    import inspect
    assert inspect.signature(checks.run).parameters["timeout"].default == checks.DEFAULT_TIMEOUT > 0


def test_ctrl_c_stays_130_with_a_timeout():
    p = subprocess.Popen(CLI + ["eval", "x", "--let", "x=-", "--timeout", "60"], stdin=subprocess.PIPE,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=ENV)
    time.sleep(1.5)   # started and waiting for stdin (no CPU)
    p.send_signal(signal.SIGINT)
    out, err = p.communicate(timeout=60)
    assert p.returncode == 130, err
    assert b"Traceback" not in err
