"""default_collate / default_convert as torch/utils/data/_utils/collate.py: tensors are stacked,
NumPy arrays and scalars become tensors, floats float64, ints int64, strings stay lists, and
mappings / namedtuples / sequences are collated field by field."""
from __future__ import annotations

import collections.abc
import copy
import re

import numpy as np

import core

_NP_STR_OBJ = re.compile(r"[SaUO]")
_ERR = ("default_collate: batch must contain tensors, numpy arrays, numbers, dicts or lists; found {}")


def _collate_map(batch, elem):
    if isinstance(elem, collections.abc.MutableMapping):
        clone = copy.copy(elem)
        clone.update({key: default_collate([d[key] for d in batch]) for key in elem})
        return clone
    try:
        return type(elem)({key: default_collate([d[key] for d in batch]) for key in elem})
    except TypeError:
        return {key: default_collate([d[key] for d in batch]) for key in elem}


def _collate_sequence(batch, elem):
    it = iter(batch)
    elem_size = len(next(it))
    if not all(len(e) == elem_size for e in it):
        raise RuntimeError("each element in list of batch should be of equal size")
    transposed = list(zip(*batch))
    if isinstance(elem, tuple):
        return [default_collate(samples) for samples in transposed]
    try:
        if isinstance(elem, collections.abc.MutableSequence):
            clone = copy.copy(elem)
            for i, samples in enumerate(transposed):
                clone[i] = default_collate(samples)
            return clone
        return type(elem)([default_collate(samples) for samples in transposed])
    except TypeError:
        return [default_collate(samples) for samples in transposed]


def default_collate(batch):
    """Stack a list of samples into a batch, recursing into containers (torch's default_collate)."""
    elem = batch[0]
    if isinstance(elem, core.Tensor):
        return core.stack(list(batch), 0)
    if isinstance(elem, np.ndarray):
        if _NP_STR_OBJ.search(elem.dtype.str) is not None:
            raise TypeError(_ERR.format(elem.dtype))
        return default_collate([core.as_tensor(b) for b in batch])
    if isinstance(elem, (np.bool_, np.number, np.object_)):
        return core.as_tensor(np.asarray(batch))
    if isinstance(elem, float):
        return core.tensor(batch, dtype=core.float64)
    if isinstance(elem, int):
        return core.tensor(batch)
    if isinstance(elem, (str, bytes)):
        return batch
    if isinstance(elem, collections.abc.Mapping):
        return _collate_map(batch, elem)
    if isinstance(elem, tuple) and hasattr(elem, "_fields"):
        return type(elem)(*(default_collate(samples) for samples in zip(*batch)))
    if isinstance(elem, collections.abc.Sequence):
        return _collate_sequence(batch, elem)
    raise TypeError(_ERR.format(type(elem)))


def default_convert(data):
    """Without auto-batching: NumPy arrays/scalars become tensors, containers are converted inside."""
    if isinstance(data, core.Tensor):
        return data
    t = type(data)
    if t.__module__ == "numpy" and t.__name__ not in ("str_", "string_"):
        if t.__name__ == "ndarray" and _NP_STR_OBJ.search(data.dtype.str) is not None:
            return data
        return core.as_tensor(data)
    if isinstance(data, collections.abc.Mapping):
        try:
            return t({key: default_convert(data[key]) for key in data})
        except TypeError:
            return {key: default_convert(data[key]) for key in data}
    if isinstance(data, tuple) and hasattr(data, "_fields"):
        return t(*(default_convert(d) for d in data))
    if isinstance(data, tuple):
        return [default_convert(d) for d in data]
    if isinstance(data, collections.abc.Sequence) and not isinstance(data, (str, bytes)):
        try:
            return t([default_convert(d) for d in data])
        except TypeError:
            return [default_convert(d) for d in data]
    return data
