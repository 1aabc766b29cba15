"""torch.autograd.anomaly_mode: detect_anomaly / set_detect_anomaly and the flag the engine reads
(with check_nan, a backward function returning NaN raises "Function 'XBackward0' returned nan values in
its 0th output."; the in-place version error names the anomaly hint accordingly)."""
from __future__ import annotations

import re
import warnings

__all__ = ["detect_anomaly", "set_detect_anomaly"]

STATE = {"enabled": False, "check_nan": True}


def is_anomaly_enabled():
    """torch.is_anomaly_enabled()."""
    return STATE["enabled"]


def is_anomaly_check_nan_enabled():
    """torch.is_anomaly_check_nan_enabled()."""
    return STATE["check_nan"]


def set_anomaly_enabled(enabled, check_nan=True):
    """torch.set_anomaly_enabled(enabled, check_nan=True)."""
    STATE["enabled"], STATE["check_nan"] = bool(enabled), bool(check_nan)


class detect_anomaly:
    """Context manager (and decorator) enabling anomaly detection, with torch's warning on construction."""

    def __init__(self, check_nan=True):
        self.prev, self.prev_check_nan = is_anomaly_enabled(), is_anomaly_check_nan_enabled()
        self.check_nan = check_nan
        warnings.warn("Anomaly Detection has been enabled. This mode will increase the runtime and should only be "
                      "enabled for debugging.", stacklevel=2)

    def __enter__(self):
        set_anomaly_enabled(True, self.check_nan)

    def __exit__(self, *args):
        set_anomaly_enabled(self.prev, self.prev_check_nan)

    def __call__(self, fn):
        def wrapper(*args, **kwargs):
            with self.__class__(self.check_nan):
                return fn(*args, **kwargs)
        return wrapper


class set_detect_anomaly:
    """Turns anomaly detection on or off at once; as a context manager, restores the previous mode on exit."""

    def __init__(self, mode, check_nan=True):
        self.prev, self.prev_check_nan = is_anomaly_enabled(), is_anomaly_check_nan_enabled()
        set_anomaly_enabled(mode, check_nan)

    def __enter__(self):
        pass

    def __exit__(self, *args):
        set_anomaly_enabled(self.prev, self.prev_check_nan)


def modified_inplace_message(type_name, shape, producer, output_nr, version, expected):
    """SavedVariable::unpack's error: the tensor's producer named by its forward op (MulBackward0 -> Mul),
    no producer clause for a leaf, and the hint that depends on anomaly mode."""
    where = f", which is output {output_nr} of {re.sub(r'Backward[0-9]*$', '', producer)}," if producer else ""
    hint = (" Hint: the backtrace further above shows the operation that failed to compute its gradient. The "
            "variable in question was changed in there or anywhere later. Good luck!") if STATE["enabled"] else \
        (" Hint: enable anomaly detection to find the operation that failed to compute its gradient, with "
         "torch.autograd.set_detect_anomaly(True, check_nan=False).")
    return (f"one of the variables needed for gradient computation has been modified by an inplace operation: "
            f"[{type_name} {list(shape)}]{where} is at version {version}; expected version {expected} instead.{hint}")
