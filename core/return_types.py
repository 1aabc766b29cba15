"""torch.return_types: named tuples such as `max(values=..., indices=...)`."""
from __future__ import annotations


def _make(name, fields):
    def __new__(cls, *values):
        return tuple.__new__(cls, values)

    def __repr__(self):
        body = ",\n".join(f"{f}={v!r}" for f, v in zip(fields, self))
        return f"torch.return_types.{name}(\n{body})"

    ns = {"__new__": __new__, "__repr__": __repr__, "__slots__": (), "_fields": fields}
    for i, f in enumerate(fields):
        ns[f] = property(lambda self, i=i: tuple.__getitem__(self, i))
    return type(name, (tuple,), ns)


max = _make("max", ("values", "indices"))
min = _make("min", ("values", "indices"))
sort = _make("sort", ("values", "indices"))
topk = _make("topk", ("values", "indices"))
mode = _make("mode", ("values", "indices"))
median = _make("median", ("values", "indices"))
nanmedian = _make("nanmedian", ("values", "indices"))
kthvalue = _make("kthvalue", ("values", "indices"))
cummax = _make("cummax", ("values", "indices"))
cummin = _make("cummin", ("values", "indices"))
var_mean = _make("var_mean", ("var", "mean"))
std_mean = _make("std_mean", ("std", "mean"))
aminmax = _make("aminmax", ("min", "max"))
