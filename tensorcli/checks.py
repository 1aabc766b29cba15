"""TRANSITIONAL alias of tensorcli.services.checks for scripts/bench_check.py (not the CLI's file);
the lead points that script at tensorcli.services.checks and deletes this module."""
import sys

from .services import checks as _checks

sys.modules[__name__] = _checks
