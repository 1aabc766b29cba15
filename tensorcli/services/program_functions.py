"""The program's own functions and the interpreter's frames.

A ``def`` or ``lambda`` becomes a UserFunction: a callable that runs its body through the
interpreter (never compiled), so core can call it back (hooks, ``saved_tensors_hooks``, a
Function's forward/backward, a Module's forward) like any Python function. It is a descriptor,
so in a class body it binds like a method. It keeps its internals in slots, out of reach of the
program (no attribute of a function value can be read).
"""
from __future__ import annotations

import types


class Frame:
    """Variables of one scope; ``parent`` is the enclosing scope (closures), None for globals."""

    __slots__ = ("vars", "parent", "function", "args", "handling", "declared")

    def __init__(self, vars, parent=None, function=None, args=()):
        self.vars = vars
        self.parent = parent
        self.function = function
        self.args = args
        self.handling = None     # the exception an `except` block of this frame is handling
        self.declared = None     # name -> "global" / "nonlocal" (global and nonlocal statements)


class ControlFlow(BaseException):
    """return / break / continue: never caught by a program's `except`."""


class Return(ControlFlow):
    def __init__(self, value):
        self.value = value


class Break(ControlFlow):
    pass


class Continue(ControlFlow):
    pass


class UserFunction:
    """A function defined by the program (``def`` or ``lambda``)."""

    __slots__ = ("interp", "node", "name", "qualname", "closure", "defaults", "kw_defaults", "owner",
                 "is_lambda", "__weakref__")
    __module__ = "__main__"

    def __init__(self, interp, node, name, closure, defaults, kw_defaults, is_lambda=False, qualname=None):
        self.interp = interp
        self.node = node
        self.name = name
        self.qualname = qualname or name
        self.closure = closure
        self.defaults = defaults
        self.kw_defaults = kw_defaults
        self.owner = None
        self.is_lambda = is_lambda

    @property
    def __name__(self):
        return self.name

    def __getattr__(self, name):    # __qualname__ (a class body cannot define it as a property)
        if name == "__qualname__":
            return self.qualname
        raise AttributeError(name)

    @property
    def __doc__(self):
        return None

    def __call__(self, *args, **kwargs):
        return self.interp.call_user(self, args, kwargs)

    def __get__(self, obj, objtype=None):
        return self if obj is None else types.MethodType(self, obj)

    def __repr__(self):
        return f"<function {self.qualname} at {hex(id(self))}>"


def bind_arguments(fn: UserFunction, args, kwargs) -> dict:
    """Python's argument binding for ``fn``'s signature, with Python's TypeError messages."""
    spec = fn.node.args
    name = fn.name
    positional = [a.arg for a in (*spec.posonlyargs, *spec.args)]
    out = {}
    n_pos = len(positional)
    for pname, value in zip(positional, args):
        out[pname] = value
    extra = list(args[n_pos:])
    if extra:
        if spec.vararg is None:
            given = len(args)
            raise TypeError(f"{name}() takes {n_pos} positional argument{'s' if n_pos != 1 else ''} "
                            f"but {given} {'were' if given != 1 else 'was'} given")
    if spec.vararg is not None:
        out[spec.vararg.arg] = tuple(extra)
    kwonly = [a.arg for a in spec.kwonlyargs]
    rest = {}
    posonly = {a.arg for a in spec.posonlyargs}
    for key, value in kwargs.items():
        if (key in positional and key not in posonly) or key in kwonly:
            if key in out:
                raise TypeError(f"{name}() got multiple values for argument '{key}'")
            out[key] = value
        elif spec.kwarg is not None:
            rest[key] = value
        else:
            raise TypeError(f"{name}() got an unexpected keyword argument '{key}'")
    defaults = dict(zip(positional[n_pos - len(fn.defaults):], fn.defaults)) if fn.defaults else {}
    missing = []
    for pname in positional:
        if pname not in out:
            if pname in defaults:
                out[pname] = defaults[pname]
            else:
                missing.append(pname)
    if missing:
        q = [repr(m) for m in missing]
        names = q[0] if len(q) == 1 else f"{q[0]} and {q[1]}" if len(q) == 2 else ", ".join(q[:-1]) + f", and {q[-1]}"
        raise TypeError(f"{name}() missing {len(missing)} required positional argument"
                        f"{'s' if len(missing) != 1 else ''}: {names}")
    for pname, default in zip(kwonly, fn.kw_defaults):
        if pname not in out:
            if default is _NO_DEFAULT:
                raise TypeError(f"{name}() missing 1 required keyword-only argument: '{pname}'")
            out[pname] = default
    if spec.kwarg is not None:
        out[spec.kwarg.arg] = rest
    return out


class _NoDefault:
    def __repr__(self):
        return "<no default>"


_NO_DEFAULT = _NoDefault()
NO_DEFAULT = _NO_DEFAULT


class SuperProxy:
    """``super()`` / ``super(Cls, self)`` in a method of the program's nn.Module class: only
    ``__init__`` and public methods of the classes after Cls."""

    __slots__ = ("cls", "obj")

    def __init__(self, cls, obj):
        self.cls = cls
        self.obj = obj

    def __repr__(self):
        return f"<super: <class '{self.cls.__name__}'>, <{type(self.obj).__name__} object>>"
