#!/usr/bin/env bash
# The project's test command (README "Run the tests"): the pytest suite, then the example case files.
set -uo pipefail
cd "$(dirname "$0")/.."
python -m pytest "$@"
rc=$?
if [ "$rc" -ne 0 ]; then
  echo "pytest failed with exit code $rc" >&2
  exit "$rc"
fi
if [ -d examples ]; then
  tensorcli check examples/ || exit $?
fi
