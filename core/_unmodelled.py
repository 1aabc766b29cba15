"""torch's submodules that core does not model, importable all the same: programs import torch.onnx,
torch.distributed, torch.hub... at the top even when they never use them. Every public name torch 2.13 has
there (core/_unmodelled_names.py) is a placeholder class: importing it, isinstance checks (always False) and
attribute chains work; calling or instantiating it raises NotImplementedError naming it, as torch raises
NotImplementedError for what a build does not support. Names torch does not have raise AttributeError."""
from __future__ import annotations

from ._unmodelled_names import NAMES

WHY = "is not modelled by core (a NumPy, CPU-only model of PyTorch)"


class _Unmodelled(type):
    """Metaclass of the placeholders: a call raises NotImplementedError naming torch's object."""

    def __call__(cls, *args, **kwargs):
        raise NotImplementedError(f"{cls._torch_name} {WHY}")

    def __instancecheck__(cls, obj):
        return False

    def __subclasscheck__(cls, sub):
        return sub is cls

    def __getattr__(cls, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return placeholder(f"{cls._torch_name}.{name}")

    def __repr__(cls):
        return f"<{cls._torch_name}: {WHY}>"


def placeholder(torch_name: str):
    """A stand-in for torch's ``torch_name`` (class or function): NotImplementedError when used."""
    return _Unmodelled(torch_name.rsplit(".", 1)[-1], (), {"_torch_name": torch_name, "__doc__": f"{torch_name} {WHY}.",
                                                           "__module__": torch_name.rsplit(".", 1)[0]})


def stub_module(name: str, real: dict | None = None):
    """(``__getattr__``, ``__dir__``, ``__all__``) for core's stand-in of ``torch.<name>``; ``real``: members
    core does provide (e.g. ``is_available``), which the module defines itself."""
    real = real or {}
    names = tuple(n for n in NAMES[name] if n not in real)
    made: dict = {}
    full = f"torch.{name}"

    def __getattr__(attr):
        if attr in names:
            if attr not in made:
                made[attr] = placeholder(f"{full}.{attr}")
            return made[attr]
        raise AttributeError(f"module '{full}' has no attribute '{attr}'")

    def __dir__():
        return sorted(set(names) | set(real))

    return __getattr__, __dir__, sorted(set(names) | set(real))
