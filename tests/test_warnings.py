"""Warnings as PyTorch gives them: ATen's UserWarnings with torch's text."""
from __future__ import annotations

import warnings

import pytest

import core

def _warnings_of(fn, L):
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        fn(L)
    return [(w.category.__name__, str(w.message)) for w in seen]


DOF_CASES = {
    "var of one": lambda L: L.ones(1).var(),
    "std over a dim of one": lambda L: L.ones(3, 1).std(1),
    "var_mean": lambda L: L.var_mean(L.ones(3, 1), 1),
    "std_mean": lambda L: L.std_mean(L.ones(3, 1), 1),
    "empty var": lambda L: L.tensor([]).var(),
    "correction = n": lambda L: L.ones(2, 3).var(0, correction=2),
    "enough degrees": lambda L: L.ones(2, 3).var(0),
}


@pytest.mark.parametrize("name", sorted(DOF_CASES))
def test_degrees_of_freedom_warning_is_atens(torch, name):
    assert _warnings_of(DOF_CASES[name], core) == _warnings_of(DOF_CASES[name], torch)
