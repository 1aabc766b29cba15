"""torch.distributions.Dirichlet and Beta (Beta is a two-category Dirichlet, as in torch).
log_prob / entropy / KL use core.lgamma, core.digamma and core.xlogy; sampling uses
core._sample_dirichlet when core has it, else a Marsaglia-Tsang gamma sampler fed by core.randn /
core.rand (right distribution, not torch's numbers, and not reparameterised: no gradient)."""
from __future__ import annotations

import numbers

import numpy as np

import core

from . import constraints
from .distribution import ExponentialFamily
from .utils import broadcast_all


def _standard_gamma(alpha):
    """Gamma(alpha, 1) draws of an ndarray of shapes alpha, by Marsaglia-Tsang with core's generator."""
    boost = alpha < 1                       # Gamma(a) = Gamma(a + 1) * U^(1/a)
    a = np.where(boost, alpha + 1.0, alpha)
    d = a - 1.0 / 3.0
    c = 1.0 / np.sqrt(9.0 * d)
    out = np.empty_like(a)
    todo = np.ones(a.shape, dtype=bool)
    while todo.any():
        n = int(todo.sum())
        x = core.randn(n, dtype=core.float64).numpy()
        u = core.rand(n, dtype=core.float64).numpy()
        dd, cc = d[todo], c[todo]
        v = (1.0 + cc * x) ** 3
        with np.errstate(invalid="ignore", divide="ignore"):
            ok = (v > 0) & (np.log(u) < 0.5 * x * x + dd - dd * v + dd * np.log(np.where(v > 0, v, 1.0)))
        idx = np.flatnonzero(todo)[ok]
        out.flat[idx] = (dd * v)[ok]
        todo.flat[idx] = False
    if boost.any():
        u = core.rand(int(boost.sum()), dtype=core.float64).numpy()
        out[boost] *= u ** (1.0 / alpha[boost])
    return out


def _sample_dirichlet(concentration):
    fn = getattr(core, "_sample_dirichlet", None)
    if fn is not None:
        return fn(concentration)
    g = _standard_gamma(concentration.detach().numpy().astype(np.float64))
    g = g / g.sum(-1, keepdims=True)
    return core.tensor(g, dtype=concentration.dtype)


class Dirichlet(ExponentialFamily):
    """Dirichlet(concentration) over the last dimension."""
    arg_constraints = {"concentration": constraints.independent(constraints.positive, 1)}
    support = constraints.simplex
    has_rsample = True

    def __init__(self, concentration, validate_args=None):
        if concentration.dim() < 1:
            raise ValueError("`concentration` parameter must be at least one-dimensional.")
        self.concentration = concentration
        super().__init__(concentration.shape[:-1], concentration.shape[-1:], validate_args=validate_args)

    def rsample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        return _sample_dirichlet(self.concentration.expand(shape))

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return (core.xlogy(self.concentration - 1.0, value).sum(-1) + core.lgamma(self.concentration.sum(-1))
                - core.lgamma(self.concentration).sum(-1))

    @property
    def mean(self):
        return self.concentration / self.concentration.sum(-1, True)

    @property
    def variance(self):
        con0 = self.concentration.sum(-1, True)
        return self.concentration * (con0 - self.concentration) / (con0.pow(2) * (con0 + 1))

    def entropy(self):
        k = self.concentration.size(-1)
        a0 = self.concentration.sum(-1)
        return (core.lgamma(self.concentration).sum(-1) - core.lgamma(a0) - (k - a0) * core.digamma(a0)
                - ((self.concentration - 1.0) * core.digamma(self.concentration)).sum(-1))


class Beta(ExponentialFamily):
    """Beta(concentration1, concentration0) as Dirichlet([c1, c0]) read at category 0."""
    arg_constraints = {"concentration1": constraints.positive, "concentration0": constraints.positive}
    support = constraints.unit_interval
    has_rsample = True

    def __init__(self, concentration1, concentration0, validate_args=None):
        if isinstance(concentration1, numbers.Number) and isinstance(concentration0, numbers.Number):
            both = core.tensor([float(concentration1), float(concentration0)])
        else:
            concentration1, concentration0 = broadcast_all(concentration1, concentration0)
            both = core.stack([concentration1, concentration0], -1)
        self._dirichlet = Dirichlet(both, validate_args=validate_args)
        super().__init__(self._dirichlet._batch_shape, validate_args=validate_args)

    @property
    def mean(self):
        return self.concentration1 / (self.concentration1 + self.concentration0)

    @property
    def variance(self):
        total = self.concentration1 + self.concentration0
        return self.concentration1 * self.concentration0 / (total.pow(2) * (total + 1))

    def rsample(self, sample_shape=()):
        return self._dirichlet.rsample(sample_shape).select(-1, 0)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        heads_tails = core.stack([value, 1.0 - value], -1)
        return self._dirichlet.log_prob(heads_tails)

    def entropy(self):
        return self._dirichlet.entropy()

    @property
    def concentration1(self):
        return self._dirichlet.concentration[..., 0]

    @property
    def concentration0(self):
        return self._dirichlet.concentration[..., 1]
