"""torch.distributions.transforms and constraint_registry on core against torch: each transform's values,
inverse, log|det J|, sign, shapes, reprs and equality; biject_to / transform_to for every constraint; and the
ValueError texts of argument / value validation."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import core
from tests.conftest import assert_same


def _t(m, x):
    return m.tensor(x, dtype=m.float64)


TRANSFORMS = {
    "Exp": lambda m: m.distributions.transforms.ExpTransform(),
    "Power": lambda m: m.distributions.transforms.PowerTransform(_t(m, 2.5)),
    "Sigmoid": lambda m: m.distributions.transforms.SigmoidTransform(),
    "Softplus": lambda m: m.distributions.transforms.SoftplusTransform(),
    "Tanh": lambda m: m.distributions.transforms.TanhTransform(),
    "Abs": lambda m: m.distributions.transforms.AbsTransform(),
    "Affine": lambda m: m.distributions.transforms.AffineTransform(_t(m, [1., -2., 0.5]), _t(m, [2., -0.5, 3.])),
    "AffineEvent": lambda m: m.distributions.transforms.AffineTransform(0.5, _t(m, [2., 3., 4.]), event_dim=1),
    "Softmax": lambda m: m.distributions.transforms.SoftmaxTransform(),
    "StickBreaking": lambda m: m.distributions.transforms.StickBreakingTransform(),
    "LowerCholesky": lambda m: m.distributions.transforms.LowerCholeskyTransform(),
    "CorrCholesky": lambda m: m.distributions.transforms.CorrCholeskyTransform(),
    "Compose": lambda m: m.distributions.transforms.ComposeTransform(
        [m.distributions.transforms.AffineTransform(1., 2.), m.distributions.transforms.ExpTransform()]),
    "Inverse": lambda m: m.distributions.transforms.ExpTransform().inv,
    "Independent": lambda m: m.distributions.transforms.IndependentTransform(
        m.distributions.transforms.ExpTransform(), 1),
    "Reshape": lambda m: m.distributions.transforms.ReshapeTransform((2, 3), (6,)),
    "Cat": lambda m: m.distributions.transforms.CatTransform(
        [m.distributions.transforms.ExpTransform(), m.distributions.transforms.AffineTransform(0., 2.)], 0, [2, 1]),
    "Stack": lambda m: m.distributions.transforms.StackTransform(
        [m.distributions.transforms.ExpTransform(), m.distributions.transforms.SigmoidTransform()], 0),
    "CDF": lambda m: m.distributions.transforms.CumulativeDistributionTransform(
        m.distributions.Normal(_t(m, 0.5), _t(m, 2.))),
}
INPUTS = {
    "StickBreaking": [[0.3, -0.2, 1.0], [0.0, 2.0, -1.0]],
    "LowerCholesky": [[[1.0, 0.5, 0.0], [0.2, -0.3, 0.7], [1.0, 2.0, 0.1]]],
    "CorrCholesky": [[0.3, -0.2, 1.0], [0.0, 0.5, -1.0]],
    "Reshape": [[0.3, -0.2, 1.0], [0.0, 2.0, -1.0]],
    "Stack": [[0.3, -0.2, 1.0], [0.0, 2.0, -1.0]],
}
DEFAULT_INPUT = [[0.3, -0.2, 1.0], [0.1, 2.0, -1.0], [1.5, 0.2, 0.4]]


def _run(torch, fn):
    out = []
    for m in (core, torch):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                out.append(("ok", fn(m)))
            except Exception as e:  # noqa: BLE001
                out.append(("err", e))
    (kc, c), (kt, t) = out
    assert kc == kt, f"core {c!r}, torch {t!r}"
    if kc == "err":
        assert type(c).__name__ == type(t).__name__ and str(c) == str(t), f"core {c!r}, torch {t!r}"
        return None
    return c, t


@pytest.mark.parametrize("name", list(TRANSFORMS))
def test_transform_values(torch, name):
    def run(m):
        tr = TRANSFORMS[name](m)
        x = _t(m, INPUTS.get(name, DEFAULT_INPUT))
        x = x.abs() + 0.1 if name == "Inverse" else x
        y = tr(x)
        out = [y, tr.inv(y)]
        try:
            out.append(tr.log_abs_det_jacobian(x, y))
        except NotImplementedError as e:      # Abs, Softmax, LowerCholesky: not bijective / no Jacobian
            out.append(repr(e))
        return out
    c, t = _run(torch, run)
    assert c[2] == t[2] if isinstance(t[2], str) else True
    for a, b in zip(c, t if not isinstance(t[2], str) else t[:2]):
        assert_same(a, b, rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("name", list(TRANSFORMS))
def test_transform_metadata(torch, name):
    def run(m):
        tr = TRANSFORMS[name](m)
        sign = tr.sign if name in ("Exp", "Sigmoid", "Tanh", "Compose", "Inverse", "Softplus") else None
        return (repr(tr), repr(tr.domain), repr(tr.codomain), tr.bijective, tr.domain.event_dim,
                tr.codomain.event_dim, sign, tr.forward_shape((2, 3)) if name not in ("Cat", "Stack") else None,
                tr == TRANSFORMS[name](m), tr.inv.inv is tr)
    c, t = _run(torch, run)
    assert c == t


def test_transform_cache_and_errors(torch):
    def run(m):
        T = m.distributions.transforms
        out = []
        for fn in (lambda: T.ExpTransform(cache_size=2), lambda: T.AbsTransform().inv(m.ones(2)),
                   lambda: T.ReshapeTransform((2, 3), (5,))):
            try:
                fn()
                out.append(None)
            except Exception as e:  # noqa: BLE001
                out.append(f"{type(e).__name__}: {e}")
        tr = T.ExpTransform(cache_size=1)
        x = m.tensor([1.0, 2.0])
        y = tr(x)
        out.append(tr.inv(y) is x)
        return out
    c, t = _run(torch, run)
    assert c == t


def _constraints(m):
    C = m.distributions.constraints
    return [C.real, C.positive, C.nonnegative, C.greater_than(1.5), C.greater_than_eq(-1.), C.less_than(2.),
            C.interval(0., 2.), C.half_open_interval(-1., 1.), C.unit_interval, C.simplex, C.real_vector,
            C.lower_cholesky, C.corr_cholesky, C.positive_definite, C.independent(C.positive, 1),
            C.cat([C.real, C.positive], 0, [1, 2]), C.stack([C.real, C.positive], 0), C.boolean,
            C.lower_triangular, C.positive_semidefinite, C.square, C.symmetric, C.integer_interval(0, 3),
            C.nonnegative_integer, C.positive_integer, C.one_hot, C.multinomial(3), C.softplus_positive
            if hasattr(C, "softplus_positive") else C.positive]


@pytest.mark.parametrize("registry", ["biject_to", "transform_to"])
@pytest.mark.parametrize("i", range(28))
def test_constraint_registry(torch, registry, i):
    def run(m):
        constraint = _constraints(m)[i]
        tr = getattr(m.distributions, registry)(constraint)
        return repr(constraint), repr(tr), constraint.event_dim, constraint.is_discrete
    res = _run(torch, run)
    if res is not None:
        assert res[0] == res[1]


@pytest.mark.parametrize("i", range(28))
def test_constraint_check(torch, i):
    def run(m):
        constraint = _constraints(m)[i]
        values = [[0.5, 1.0, -1.0], [2.0, 0.0, 3.0], [1.0, 0.0, 0.0]]
        x = m.tensor(values, dtype=m.float64)
        return constraint.check(x)
    res = _run(torch, run)
    if res is not None:
        c, t = res
        assert str(c.dtype) == str(t.dtype) and np.array_equal(c.numpy(), t.numpy())


BAD = {
    "gamma_param": lambda m: m.distributions.Gamma(_t(m, [-1., 2.]), _t(m, [1., 1.])),
    "beta_param": lambda m: m.distributions.Beta(_t(m, [0., 2.]), _t(m, [1., 1.])),
    "binomial_probs": lambda m: m.distributions.Binomial(_t(m, [5.]), probs=_t(m, [1.5])),
    "binomial_both": lambda m: m.distributions.Binomial(5, probs=_t(m, [0.5]), logits=_t(m, [0.])),
    "poisson_rate": lambda m: m.distributions.Poisson(_t(m, [-1.])),
    "studentt_df": lambda m: m.distributions.StudentT(_t(m, [-1.])),
    "multinomial_probs": lambda m: m.distributions.Multinomial(3, _t(m, [-0.1, 1.])),
    "laplace_scale": lambda m: m.distributions.Laplace(0., -1.),
    "pareto_alpha": lambda m: m.distributions.Pareto(1., 0.),
    "geometric_p0": lambda m: m.distributions.Geometric(_t(m, [0.])),
    "geometric_both": lambda m: m.distributions.Geometric(_t(m, [0.5]), _t(m, [0.1])),
    "wishart_df": lambda m: m.distributions.Wishart(_t(m, 0.5), covariance_matrix=_t(m, [[1., 0.], [0., 1.]])),
    "vonmises_kappa": lambda m: m.distributions.VonMises(_t(m, [0.]), _t(m, [-1.])),
    "lkj_dim": lambda m: m.distributions.LKJCholesky(1, _t(m, 1.)),
    "gamma_value": lambda m: m.distributions.Gamma(_t(m, [1.]), _t(m, [1.])).log_prob(_t(m, [-1.])),
    "beta_value": lambda m: m.distributions.Beta(_t(m, [1.]), _t(m, [1.])).log_prob(_t(m, [1.5])),
    "poisson_value": lambda m: m.distributions.Poisson(_t(m, [1.])).log_prob(_t(m, [1.5])),
    "dirichlet_shape": lambda m: m.distributions.Dirichlet(_t(m, [1., 1., 1.])).log_prob(_t(m, [0.5, 0.5])),
    "dirichlet_scalar": lambda m: m.distributions.Dirichlet(_t(m, 1.)),
    "independent_ndims": lambda m: m.distributions.Independent(m.distributions.Normal(0., 1.), 1),
    "mixture_sizes": lambda m: m.distributions.MixtureSameFamily(
        m.distributions.Categorical(_t(m, [0.5, 0.5])), m.distributions.Normal(_t(m, [0., 1., 2.]), 1.)),
    "mixture_type": lambda m: m.distributions.MixtureSameFamily(m.distributions.Normal(0., 1.),
                                                                m.distributions.Normal(0., 1.)),
    "transformed_domain": lambda m: m.distributions.TransformedDistribution(
        m.distributions.Normal(0., 1.), m.distributions.transforms.StickBreakingTransform()),
    "onehot_value": lambda m: m.distributions.OneHotCategorical(_t(m, [0.5, 0.5])).log_prob(_t(m, [0.5, 0.5])),
    "not_number": lambda m: m.distributions.Gamma("a", 1.),
    "kl_missing": lambda m: m.distributions.kl_divergence(m.distributions.Gamma(1., 1.),
                                                          m.distributions.VonMises(0., 1.)),
    "biject_missing": lambda m: m.distributions.biject_to(m.distributions.constraints.boolean),
    "sample_n": lambda m: m.distributions.Gamma(_t(m, [1.]), _t(m, [1.])).rsample_n
    if hasattr(m.distributions.Gamma, "rsample_n") else None,
}


@pytest.mark.parametrize("name", list(BAD))
def test_validation_errors(torch, name):
    res = _run(torch, lambda m: repr(BAD[name](m)))
    assert res is None or res[0] == res[1]


def test_validate_args_switch(torch):
    def run(m):
        m.distributions.Distribution.set_default_validate_args(False)
        try:
            d = m.distributions.Gamma(_t(m, [-1.]), _t(m, [1.]))
            return repr(d), d.log_prob(_t(m, [1.])).isnan().tolist()
        finally:
            m.distributions.Distribution.set_default_validate_args(True)
    c, t = _run(torch, run)
    assert c == t
