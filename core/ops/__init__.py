"""The op families. Importing a family registers its ops (see registry.py); core/__init__ imports
them all, in order, before binding Tensor's methods (ops/families.py). This package's __init__ imports
nothing, so importing `core.ops.registry` never drags the families in (no import cycle)."""
