"""torch.distributions.MultivariateNormal (covariance_matrix, precision_matrix or scale_tril)."""
from __future__ import annotations

import math

import core

from . import constraints
from ._linalg import cholesky, solve_triangular
from .distribution import Distribution
from .utils import _standard_normal, lazy_property


def _batch_mv(bmat, bvec):
    return core.matmul(bmat, bvec.unsqueeze(-1)).squeeze(-1)


def _batch_mahalanobis(bL, bx):
    """|L^{-1} x|^2 over the last dim, broadcasting L's batch against x's."""
    return solve_triangular(bL, bx.unsqueeze(-1), upper=False).squeeze(-1).pow(2).sum(-1)


def _precision_to_scale_tril(P):
    Lf = cholesky(core.flip(P, (-2, -1)))
    L_inv = core.transpose(core.flip(Lf, (-2, -1)), -2, -1)
    Id = core.eye(P.shape[-1], dtype=P.dtype)
    return solve_triangular(L_inv, Id, upper=False)


class MultivariateNormal(Distribution):
    """N(loc, Sigma) parameterised by exactly one of covariance, precision or scale_tril."""
    arg_constraints = {"loc": constraints.real_vector, "covariance_matrix": constraints.positive_definite,
                       "precision_matrix": constraints.positive_definite, "scale_tril": constraints.lower_cholesky}
    support = constraints.real_vector
    has_rsample = True

    def __init__(self, loc, covariance_matrix=None, precision_matrix=None, scale_tril=None, validate_args=None):
        if loc.dim() < 1:
            raise ValueError("loc must be at least one-dimensional.")
        if (covariance_matrix is not None) + (scale_tril is not None) + (precision_matrix is not None) != 1:
            raise ValueError("Exactly one of covariance_matrix or precision_matrix or scale_tril may be specified.")
        given = [(n, m) for n, m in (("scale_tril", scale_tril), ("covariance_matrix", covariance_matrix),
                                     ("precision_matrix", precision_matrix)) if m is not None]
        name, matrix = given[0]
        if matrix.dim() < 2:
            prefix = "scale_tril matrix" if name == "scale_tril" else name
            raise ValueError(f"{prefix} must be at least two-dimensional, with optional leading batch dimensions")
        batch_shape = core.broadcast_shapes(matrix.shape[:-2], loc.shape[:-1])
        setattr(self, name, matrix.expand(batch_shape + (-1, -1)))
        self.loc = loc.expand(batch_shape + (-1,))
        super().__init__(batch_shape, self.loc.shape[-1:], validate_args=validate_args)
        if name == "scale_tril":
            self._unbroadcasted_scale_tril = scale_tril
        elif name == "covariance_matrix":
            self._unbroadcasted_scale_tril = cholesky(covariance_matrix)
        else:
            self._unbroadcasted_scale_tril = _precision_to_scale_tril(precision_matrix)

    def _full(self, t):
        return t.expand(self._batch_shape + self._event_shape + self._event_shape)

    @lazy_property
    def scale_tril(self):
        return self._full(self._unbroadcasted_scale_tril)

    @lazy_property
    def covariance_matrix(self):
        return self._full(core.matmul(self._unbroadcasted_scale_tril, self._unbroadcasted_scale_tril.mT))

    @lazy_property
    def precision_matrix(self):
        eye = core.eye(self._event_shape[0], dtype=self.loc.dtype)
        inv = solve_triangular(self._unbroadcasted_scale_tril, eye, upper=False)
        return self._full(inv.mT.matmul(inv))

    @property
    def mean(self):
        return self.loc

    @property
    def mode(self):
        return self.loc

    @property
    def variance(self):
        return self._unbroadcasted_scale_tril.pow(2).sum(-1).expand(self._batch_shape + self._event_shape)

    def rsample(self, sample_shape=core.Size()):
        shape = self._extended_shape(sample_shape)
        eps = _standard_normal(shape, dtype=self.loc.dtype)
        return self.loc + _batch_mv(self._unbroadcasted_scale_tril, eps)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        diff = value - self.loc
        M = _batch_mahalanobis(self._unbroadcasted_scale_tril, diff)
        half_log_det = self._unbroadcasted_scale_tril.diagonal(dim1=-2, dim2=-1).log().sum(-1)
        return -0.5 * (self._event_shape[0] * math.log(2 * math.pi) + M) - half_log_det

    def entropy(self):
        half_log_det = self._unbroadcasted_scale_tril.diagonal(dim1=-2, dim2=-1).log().sum(-1)
        H = 0.5 * self._event_shape[0] * (1.0 + math.log(2 * math.pi)) + half_log_det
        return H if len(self._batch_shape) == 0 else H.expand(self._batch_shape)
