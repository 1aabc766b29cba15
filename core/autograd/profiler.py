"""torch.autograd.profiler / torch.profiler on core: `profile` records, while active, every call of
a registered op ('aten::<name>'), every backward of an autograd node (its class name) and every
`record_function` block, with wall times; `key_averages().table()` prints torch's table layout.
Calls are observed with sys.setprofile, so nothing is installed while no profiler runs."""
from __future__ import annotations

import enum
import functools
import inspect
import sys
import time

from ..ops import registry
from . import function as _function

_ACTIVE = []          # the running profilers (innermost last)
_CODE_NAMES = {}      # code object -> event name, built on first use


class ProfilerActivity(enum.Enum):
    CPU = 0
    CUDA = 1
    XPU = 2
    MTIA = 3


def _op_subclasses():
    todo, seen = [_function.Op], []
    while todo:
        for sub in todo.pop().__subclasses__():
            seen.append(sub)
            todo.append(sub)
    return seen


def _aten_name(name):
    """'__rmul__' -> 'aten::mul', '__iadd__' -> 'aten::add_', 'add' -> 'aten::add'."""
    if name.startswith("__") and name.endswith("__"):
        base = name[2:-2]
        if base.startswith("i") and base[1:] in registry.OPS:
            return f"aten::{base[1:]}_"
        if base.startswith("r") and base[1:] in registry.OPS:
            base = base[1:]
        return f"aten::{base}"
    return f"aten::{name}"


def _code_names():
    """Map the code of each registered function / method / node backward to its torch event name.
    Aliases keep the op's own name; code shared by several distinct functions (generic
    wrappers such as the in-place maker) is left out, as its name is ambiguous."""
    if _CODE_NAMES:
        return _CODE_NAMES
    import core  # the package namespace (factories are plain functions there); core is imported by now
    pairs = sorted(registry.OPS.items(), key=lambda kv: kv[0] != getattr(kv[1].fn, "__name__", None))
    pairs = [(info.fn, f"aten::{name}") for name, info in pairs]
    pairs += [(fn, _aten_name(name)) for name, fn in registry.METHODS.items()]
    pairs += [(fn, f"aten::{name}") for name, fn in vars(core).items()
              if callable(fn) and getattr(fn, "__module__", "").startswith(("core.creation", "core.ops."))
              and not isinstance(fn, type)]
    for cls in _op_subclasses():
        pairs += [(cls.__dict__[k], cls.__name__) for k in ("backward", "backward_np") if k in cls.__dict__]
    owners, names = {}, {}
    for fn, name in pairs:
        fn = getattr(fn, "__func__", fn)
        fn = inspect.unwrap(fn) if callable(fn) else fn    # the op under a keyword-alias wrapper
        code = getattr(fn, "__code__", None)
        if code is not None:
            owners.setdefault(code, set()).add(id(fn))
            names.setdefault(code, name)
    _CODE_NAMES.update({code: name for code, name in names.items() if len(owners[code]) == 1})
    return _CODE_NAMES


class FunctionEvent:
    """One recorded call: name (`key`), start/end in microseconds, children for self time."""

    def __init__(self, name, start_us, parent):
        self.name = self.key = name
        self.start_us, self.end_us = start_us, start_us
        self.cpu_children = []
        self.cpu_parent = parent
        if parent is not None:
            parent.cpu_children.append(self)

    @property
    def cpu_time_total(self):
        return self.end_us - self.start_us

    @property
    def self_cpu_time_total(self):
        return self.cpu_time_total - sum(c.cpu_time_total for c in self.cpu_children)

    def __repr__(self):
        return f"<FunctionEvent name={self.name} cpu_time_total={_format_time(self.cpu_time_total)}>"


class FunctionEventAvg:
    """Events of one name aggregated: count, totals, average."""

    def __init__(self, key):
        self.key = key
        self.count = 0
        self.cpu_time_total = self.self_cpu_time_total = 0.0

    def add(self, evt):
        self.count += 1
        self.cpu_time_total += evt.cpu_time_total
        self.self_cpu_time_total += evt.self_cpu_time_total
        return self

    @property
    def cpu_time(self):
        return self.cpu_time_total / max(self.count, 1)

    def __repr__(self):
        return f"<FunctionEventAvg key={self.key} self_cpu_time={_format_time(self.self_cpu_time_total)} " \
               f"cpu_time={_format_time(self.cpu_time_total)} count={self.count}>"


def _format_time(us):
    if us >= 1e6:
        return f"{us / 1e6:.3f}s"
    if us >= 1e3:
        return f"{us / 1e3:.3f}ms"
    return f"{us:.3f}us"


def _format_share(us, total):
    return "NaN" if total == 0 else f"{us * 100.0 / total:.2f}%"


class EventList(list):
    """A list of events with torch's summaries: key_averages(), table(), total_average()."""

    def key_averages(self, group_by_input_shape=False, group_by_stack_n=0):
        groups = {}
        for evt in self:
            groups.setdefault(evt.key, FunctionEventAvg(evt.key)).add(evt)
        return EventList(groups.values())

    def total_average(self):
        total = FunctionEventAvg("Total")
        for evt in self:
            total.count += evt.count if isinstance(evt, FunctionEventAvg) else 1
            total.cpu_time_total += evt.cpu_time_total
            total.self_cpu_time_total += evt.self_cpu_time_total
        return total

    def table(self, sort_by=None, row_limit=100, max_src_column_width=75, max_name_column_width=55, header=None,
              top_level_events_only=False, **kwargs):
        """torch's table: Name, Self CPU %, Self CPU, CPU total %, CPU total, CPU time avg, # of Calls."""
        events = list(self)
        if sort_by is not None:
            attr = {"cpu_time_total": "cpu_time_total", "self_cpu_time_total": "self_cpu_time_total",
                    "count": "count", "cpu_time": "cpu_time"}.get(sort_by, sort_by)
            events.sort(key=lambda e: getattr(e, attr, 0), reverse=True)
        events = events[:row_limit] if row_limit and row_limit > 0 else events
        if not events:
            return ""
        name_w = min(max(len(e.key) for e in events) + 4, max_name_column_width)
        widths = [name_w] + [12] * 6
        headers = ["Name", "Self CPU %", "Self CPU", "CPU total %", "CPU total", "CPU time avg", "# of Calls"]
        sep = "".join("-" * w + "  " for w in widths)
        row = "".join("{: >" + str(w) + "}  " for w in widths)
        total_self = sum(e.self_cpu_time_total for e in self)
        lines = ([header, "=" * len(sep)] if header else []) + [sep, row.format(*headers), sep]
        for e in events:
            name = e.key if len(e.key) < name_w - 3 else e.key[:name_w - 6] + "..."
            count = getattr(e, "count", 1)
            lines.append(row.format(name, _format_share(e.self_cpu_time_total, total_self),
                                    _format_time(e.self_cpu_time_total), _format_share(e.cpu_time_total, total_self),
                                    _format_time(e.cpu_time_total), _format_time(e.cpu_time_total / count), count))
        lines += [sep, f"Self CPU time total: {_format_time(total_self)}", ""]
        return "\n".join(lines)

    def __str__(self):
        return self.table()


def _now_us():
    return time.perf_counter_ns() / 1000.0


class profile:
    """Context manager recording core's op calls (torch.autograd.profiler.profile and
    torch.profiler.profile share it; CUDA/memory/shape options are accepted and ignored)."""

    def __init__(self, enabled=True, *args, activities=None, schedule=None, on_trace_ready=None,
                 record_shapes=False, profile_memory=False, with_stack=False, with_flops=False, with_modules=False,
                 **kwargs):
        self.enabled = enabled
        self.record_shapes, self.profile_memory = record_shapes, profile_memory
        self.on_trace_ready = on_trace_ready
        self.function_events = EventList()
        self._stack = []
        self._prev = None

    def __enter__(self):
        if self.enabled:
            self._names = _code_names()
            self._prev = sys.getprofile()
            _ACTIVE.append(self)
            sys.setprofile(self._observe)
        return self

    def __exit__(self, *exc):
        if self.enabled:
            sys.setprofile(self._prev)
            _ACTIVE.remove(self)
            if self.on_trace_ready is not None:
                self.on_trace_ready(self)
        return False

    def start(self):
        return self.__enter__()

    def stop(self):
        self.__exit__(None, None, None)

    def step(self):
        pass

    def _push(self, name, frame):
        evt = FunctionEvent(name, _now_us(), self._stack[-1][0] if self._stack else None)
        self.function_events.append(evt)
        self._stack.append((evt, frame))
        return evt

    def _pop(self, evt):
        evt.end_us = _now_us()
        while self._stack:
            top, _ = self._stack.pop()
            if top is evt:
                break

    def _observe(self, frame, event, arg):
        if event == "call":
            name = self._names.get(frame.f_code)
            if name is not None:
                self._push(name, frame)
        elif event == "return" and self._stack and self._stack[-1][1] is frame:
            self._pop(self._stack[-1][0])

    def events(self):
        return self.function_events

    def key_averages(self, group_by_input_shape=False, group_by_stack_n=0, **kwargs):
        return self.function_events.key_averages()

    def total_average(self):
        return self.function_events.total_average()

    def table(self, *args, **kwargs):
        return self.function_events.table(*args, **kwargs)

    def __str__(self):
        return self.table()


class record_function:
    """Label a block (or, as a decorator, a function) in the running profilers' events."""

    def __init__(self, name, args=None):
        self.name = name
        self._events = []

    def __enter__(self):
        self._events = [(p, p._push(self.name, None)) for p in _ACTIVE]
        return self

    def __exit__(self, *exc):
        for p, evt in self._events:
            p._pop(evt)
        self._events = []
        return False

    def __call__(self, fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with record_function(self.name):
                return fn(*args, **kwargs)
        return wrapper
