#!/usr/bin/env bash
# The project's test command (README "Run the tests"): the pytest suite, then the example case files.
# The suite runs on every core (pytest-xdist, `-n auto`); TENSORCLI_TEST_WORKERS=0 runs it in this process.
set -uo pipefail
cd "$(dirname "$0")/.."
# Bytecode is cached outside the tree for the run, as a user's machine caches it: with this machine's
# PYTHONDONTWRITEBYTECODE=1, every tensorcli subprocess of the suite compiled core from source (~15 s in all).
export PYTHONPYCACHEPREFIX="${PYTHONPYCACHEPREFIX:-${TMPDIR:-/tmp}/tensorcli-pycache}"
unset PYTHONDONTWRITEBYTECODE
python -m pytest -n "${TENSORCLI_TEST_WORKERS:-auto}" "$@"
rc=$?
if [ "$rc" -ne 0 ]; then
  echo "pytest failed with exit code $rc" >&2
  exit "$rc"
fi
if [ -d examples ]; then
  tensorcli check examples/ || exit $?
fi
