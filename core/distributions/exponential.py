"""torch.distributions.Exponential."""
from __future__ import annotations

import numbers

import core

from . import constraints
from .distribution import ExponentialFamily
from .utils import _standard_exponential, broadcast_all


class Exponential(ExponentialFamily):
    """Exp(rate): rsample as a standard exponential draw divided by rate."""
    arg_constraints = {"rate": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True

    def __init__(self, rate, validate_args=None):
        (self.rate,) = broadcast_all(rate)
        super().__init__(core.Size() if isinstance(rate, numbers.Number) else self.rate.size(),
                         validate_args=validate_args)

    @property
    def mean(self):
        return self.rate.reciprocal()

    @property
    def mode(self):
        return core.zeros_like(self.rate)

    @property
    def stddev(self):
        return self.rate.reciprocal()

    @property
    def variance(self):
        return self.rate.pow(-2)

    def rsample(self, sample_shape=core.Size()):
        shape = self._extended_shape(sample_shape)
        return _standard_exponential(shape, self.rate.dtype) / self.rate

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return self.rate.log() - self.rate * value

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return 1 - core.exp(-self.rate * value)

    def icdf(self, value):
        return -core.log1p(-value) / self.rate

    def entropy(self):
        return 1.0 - core.log(self.rate)
