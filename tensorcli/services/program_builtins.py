"""The Python built-ins a program may call, bounded: whatever consumes an iterable (list, tuple,
dict, set, sum, min, max, sorted, any, all) counts its items against the iteration budget and the
length limit before building anything; ``print`` writes to the run's output (size-limited);
``type`` / ``isinstance`` / ``hasattr`` / ``super`` follow the interpreter's attribute rules."""
from __future__ import annotations

import builtins
import math

from .expr_parse import expr_error
from .program_functions import SuperProxy

EXCEPTIONS = ("Exception", "RuntimeError", "ValueError", "TypeError", "IndexError", "KeyError",
              "AssertionError", "ZeroDivisionError", "AttributeError", "NotImplementedError",
              "StopIteration", "ArithmeticError", "LookupError", "NameError", "OverflowError",
              "UnboundLocalError")
# Lazy or scalar built-ins that allocate nothing in proportion to their arguments.
PLAIN = ("range", "len", "abs", "round", "int", "bool", "str", "repr", "zip", "enumerate", "map",
         "filter", "reversed", "iter", "next", "divmod", "callable", "chr", "ord", "hex", "bin", "oct",
         "hash")


class BoundedType:
    """A built-in type (list, tuple, dict, set) called through its bounded constructor; compares
    equal to the type, and isinstance() accepts it."""

    __slots__ = ("pytype", "impl")

    def __init__(self, pytype, impl):
        self.pytype, self.impl = pytype, impl

    def __call__(self, *args, **kwargs):
        return self.impl(*args, **kwargs)

    def __eq__(self, other):
        return other is self.pytype or (isinstance(other, BoundedType) and other.pytype is self.pytype)

    def __hash__(self):
        return hash(self.pytype)

    def __repr__(self):
        return repr(self.pytype)


def make_builtins(interp) -> dict:
    """name -> callable for one interpreter run. Kept in one piece: every built-in closes over the
    run's interpreter (budget, output, attribute rules), and they read best side by side."""
    limits = interp.limits

    def collect(iterable, what):
        out = []
        for item in interp.iterate(iterable, interp.current_node):
            out.append(item)
            if len(out) > limits.max_seq_len:
                raise expr_error(f"{what}() of more than {limits.max_seq_len} items", interp.current_node)
        return out

    def b_list(iterable=()):
        return collect(iterable, "list")

    def b_tuple(iterable=()):
        return tuple(collect(iterable, "tuple"))

    def b_set(iterable=()):
        return set(collect(iterable, "set"))

    def b_dict(iterable=(), **kwargs):
        if isinstance(iterable, dict):
            out = dict(iterable)
        else:
            out = dict(collect(iterable, "dict"))
        out.update(kwargs)
        return out

    def b_sum(iterable, start=0):
        return builtins.sum(collect(iterable, "sum"), start)

    def b_min(*args, **kwargs):
        return builtins.min(*(args if len(args) != 1 else [collect(args[0], "min")]), **kwargs)

    def b_max(*args, **kwargs):
        return builtins.max(*(args if len(args) != 1 else [collect(args[0], "max")]), **kwargs)

    def b_sorted(iterable, *, key=None, reverse=False):
        return builtins.sorted(collect(iterable, "sorted"), key=key, reverse=reverse)

    def b_any(iterable):
        return builtins.any(collect(iterable, "any"))

    def b_all(iterable):
        return builtins.all(collect(iterable, "all"))

    def b_print(*args, sep=" ", end="\n", file=None, flush=False):
        if file is not None:
            raise expr_error("print(file=...) is not allowed: a program prints to standard output",
                             interp.current_node)
        for what, value in (("sep", sep), ("end", end)):
            if value is not None and not isinstance(value, str):
                raise TypeError(f"{what} must be None or a string, not {type(value).__name__}")
        text = (" " if sep is None else sep).join(str(a) for a in args) + ("\n" if end is None else end)
        interp.write(text)

    def b_type(*args):
        if len(args) != 1:
            raise expr_error("type() takes one argument here (classes are made with 'class')",
                             interp.current_node)
        cls = type(args[0])
        return bounded.get(cls, cls)

    def unwrap(classes):
        if isinstance(classes, BoundedType):
            return classes.pytype
        if isinstance(classes, tuple):
            return tuple(unwrap(c) for c in classes)
        return classes

    def b_isinstance(obj, classes):
        return builtins.isinstance(obj, unwrap(classes))

    def b_issubclass(cls, classes):
        return builtins.issubclass(unwrap(cls), unwrap(classes))

    def b_hasattr(obj, name):
        if not isinstance(name, str):
            raise TypeError("attribute name must be string")
        try:
            interp.get_attr(obj, name, interp.current_node)
        except (AttributeError, ValueError):
            return False
        return True

    def b_super(*args):
        if args:
            if len(args) != 2:
                raise expr_error("super() takes no arguments or (Class, self)", interp.current_node)
            cls, obj = args
        else:
            cls, obj = interp.super_context()
        if cls not in interp.policy.user_classes or not isinstance(obj, cls):
            raise TypeError("super(type, obj): obj must be an instance or subtype of type")
        return SuperProxy(cls, obj)

    def b_pow(base, exp, mod=None):
        if mod is None:
            interp.guard_pow(base, exp, interp.current_node)
            return base ** exp
        return builtins.pow(base, exp, mod)

    bounded = {list: BoundedType(list, b_list), tuple: BoundedType(tuple, b_tuple),
               dict: BoundedType(dict, b_dict), set: BoundedType(set, b_set)}
    table = {name: getattr(builtins, name) for name in PLAIN}
    table.update({name: getattr(builtins, name) for name in EXCEPTIONS})
    table.update({
        "list": bounded[list], "tuple": bounded[tuple], "dict": bounded[dict], "set": bounded[set],
        "sum": b_sum, "min": b_min, "max": b_max, "sorted": b_sorted, "any": b_any, "all": b_all,
        "print": b_print, "type": b_type, "isinstance": b_isinstance, "issubclass": b_issubclass,
        "hasattr": b_hasattr, "super": b_super, "pow": b_pow, "float": interp.float_builtin,
        "__name__": "__main__",
    })
    return table


MATH_CONSTANTS = {"pi": math.pi, "e": math.e, "tau": math.tau, "inf": math.inf, "nan": math.nan}
