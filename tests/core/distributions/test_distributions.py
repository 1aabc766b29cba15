"""core.distributions against torch.distributions: log_prob, entropy, moments, kl_divergence,
gradients through them, sample shapes/dtypes, validation errors."""
from __future__ import annotations

import pytest

import core
import core.distributions as cD
from tests.conftest import assert_same, same_error


def _params(m, name):
    f64 = m.float64
    cov = m.tensor([[2.0, 0.5, 0.1], [0.5, 1.0, 0.2], [0.1, 0.2, 0.7]], dtype=f64)
    return {
        "normal": lambda: m.distributions.Normal(m.tensor([0.0, 1.5, -2.0], dtype=f64, requires_grad=True),
                                                 m.tensor([1.0, 0.5, 2.0], dtype=f64, requires_grad=True)),
        "normal_scalar": lambda: m.distributions.Normal(0.5, 2.0),
        "bernoulli_probs": lambda: m.distributions.Bernoulli(probs=m.tensor([0.1, 0.5, 0.9], dtype=f64,
                                                                            requires_grad=True)),
        "bernoulli_logits": lambda: m.distributions.Bernoulli(logits=m.tensor([-3.0, 0.0, 25.0], requires_grad=True)),
        "categorical_probs": lambda: m.distributions.Categorical(probs=m.tensor([[0.2, 0.3, 0.5], [0.0, 0.4, 0.6]],
                                                                                dtype=f64, requires_grad=True)),
        "categorical_logits": lambda: m.distributions.Categorical(logits=m.tensor([[1.0, 2.0, 3.0], [0.0, -1.0, 4.0]],
                                                                                  requires_grad=True)),
        "uniform": lambda: m.distributions.Uniform(m.tensor([0.0, -1.0], dtype=f64, requires_grad=True),
                                                   m.tensor([2.0, 3.0], dtype=f64, requires_grad=True)),
        "exponential": lambda: m.distributions.Exponential(m.tensor([0.5, 2.0], dtype=f64, requires_grad=True)),
        "mvn_cov": lambda: m.distributions.MultivariateNormal(m.tensor([0.0, 1.0, -1.0], dtype=f64, requires_grad=True),
                                                              covariance_matrix=cov.clone().requires_grad_()),
        "mvn_tril": lambda: m.distributions.MultivariateNormal(m.zeros(2, 3, dtype=f64),
                                                               scale_tril=m.tensor([[1.0, 0, 0], [0.3, 2.0, 0],
                                                                                    [-0.2, 0.1, 0.5]], dtype=f64)),
        "mvn_prec": lambda: m.distributions.MultivariateNormal(m.zeros(3, dtype=f64), precision_matrix=cov),
    }[name]()


VALUES = {
    "normal": lambda m: m.tensor([0.3, 1.0, 5.0], dtype=m.float64),
    "normal_scalar": lambda m: m.tensor([0.0, 1.0]),
    "bernoulli_probs": lambda m: m.tensor([1.0, 0.0, 1.0], dtype=m.float64),
    "bernoulli_logits": lambda m: m.tensor([0.0, 1.0, 1.0]),
    "categorical_probs": lambda m: m.tensor([2, 1]),
    "categorical_logits": lambda m: m.tensor([[0, 2], [1, 1]]),
    "uniform": lambda m: m.tensor([1.0, 2.5], dtype=m.float64),
    "exponential": lambda m: m.tensor([0.1, 3.0], dtype=m.float64),
    "mvn_cov": lambda m: m.tensor([[0.5, 0.5, 0.5], [1.0, -1.0, 0.0]], dtype=m.float64),
    "mvn_tril": lambda m: m.tensor([0.2, -0.3, 1.0], dtype=m.float64),
    "mvn_prec": lambda m: m.tensor([0.2, -0.3, 1.0], dtype=m.float64),
}


def _both(torch, name, fn):
    return fn(core, _params(core, name)), fn(torch, _params(torch, name))


@pytest.mark.parametrize("name", list(VALUES))
def test_log_prob_entropy_moments(torch, name):
    for what in ("log_prob", "entropy", "mean", "variance", "stddev"):
        def run(m, d):
            if what == "log_prob":
                return d.log_prob(VALUES[name](m))
            return d.entropy() if what == "entropy" else getattr(d, what)
        c, t = _both(torch, name, run)
        assert_same(c.detach(), t.detach(), rtol=1e-5, atol=1e-6)
    c, t = _params(core, name), _params(torch, name)
    assert (tuple(c.batch_shape), tuple(c.event_shape)) == (tuple(t.batch_shape), tuple(t.event_shape))
    assert repr(c) == repr(t)


@pytest.mark.parametrize("name", ["normal", "bernoulli_probs", "bernoulli_logits", "categorical_probs",
                                  "categorical_logits", "uniform", "exponential", "mvn_cov"])
def test_log_prob_gradients(torch, name):
    def run(m, d):
        total = d.log_prob(VALUES[name](m)).sum() + d.entropy().sum()
        roots = _leaves(m, d)
        assert roots
        return m.autograd.grad(total, roots, allow_unused=True)
    cg, tg = _both(torch, name, run)
    assert len(cg) == len(tg)
    for a, b in zip(cg, tg):
        assert (a is None) == (b is None)
        if a is not None:
            assert_same(a, b, rtol=1e-5, atol=1e-6)


def _leaves(m, d):
    """The leaf parameters a distribution was built from (found through its graph inputs)."""
    seen, out = set(), []
    todo = [v for v in vars(d).values() if isinstance(v, m.Tensor) and v.requires_grad]
    while todo:
        v = todo.pop()
        if v.is_leaf:
            if id(v) not in seen:
                seen.add(id(v))
                out.append(v)
            continue
        for fn, _ in v.grad_fn.next_functions:
            if fn is not None and hasattr(fn, "variable"):
                todo.append(fn.variable)
    return sorted(out, key=lambda t: (t.shape, t.sum().item()))


@pytest.mark.parametrize("name", ["normal", "uniform", "exponential", "mvn_cov", "mvn_tril"])
def test_rsample_shapes_and_grad_flow(torch, name):
    for shape in [(), (4,), (2, 3)]:
        c, t = _both(torch, name, lambda m, d: d.rsample(shape))
        assert tuple(c.shape) == tuple(t.shape) and str(c.dtype) == str(t.dtype)
        assert c.requires_grad == t.requires_grad


@pytest.mark.parametrize("name", list(VALUES))
def test_sample_shapes(torch, name):
    for shape in [(), (5,), (2, 2)]:
        c, t = _both(torch, name, lambda m, d: d.sample(shape))
        assert tuple(c.shape) == tuple(t.shape) and str(c.dtype) == str(t.dtype) and not c.requires_grad


def test_samples_in_support():
    core.manual_seed(0)
    assert set(cD.Bernoulli(probs=core.tensor([0.0, 1.0])).sample((50,))[:, 1].tolist()) == {1.0}
    c = cD.Categorical(probs=core.tensor([0.0, 0.3, 0.7])).sample((200,))
    assert set(c.tolist()) <= {1, 2} and c.dtype == core.int64
    u = cD.Uniform(2.0, 3.0).sample((100,))
    assert float(u.min()) >= 2.0 and float(u.max()) < 3.0
    assert float(cD.Exponential(core.tensor(1.0)).sample((100,)).min()) >= 0
    x = cD.Normal(core.tensor(5.0), core.tensor(0.01)).sample((100,))
    assert abs(float(x.mean()) - 5.0) < 0.01


@pytest.mark.parametrize("name", ["normal", "uniform", "exponential", "bernoulli_probs", "categorical_probs",
                                  "mvn_cov"])
def test_sample_values(torch, name):
    def run(m, d):
        m.manual_seed(0)
        return d.sample((4,))
    c, t = _both(torch, name, run)
    assert_same(c, t)


KL_PAIRS = [("normal", "normal"), ("bernoulli_probs", "bernoulli_probs"), ("categorical_probs", "categorical_logits"),
            ("uniform", "uniform"), ("exponential", "exponential"), ("mvn_cov", "mvn_tril"), ("mvn_tril", "mvn_prec"),
            ("uniform", "normal_scalar"), ("exponential", "normal_scalar"), ("normal", "uniform"),
            ("bernoulli_logits", "bernoulli_probs"), ("uniform", "exponential"), ("exponential", "uniform"),
            ("normal", "exponential"), ("categorical_probs", "normal")]


@pytest.mark.parametrize("p,q", KL_PAIRS)
def test_kl_divergence(torch, p, q):
    def run(m):
        return m.distributions.kl_divergence(_params(m, p), _params(m, q))
    ec, et = same_error(lambda: run(core), lambda: run(torch))
    if ec is None:
        assert_same(run(core).detach(), run(torch).detach(), rtol=1e-5, atol=1e-6)
    else:
        assert str(ec) == str(et)


BAD = [
    lambda m: m.distributions.Normal(m.tensor([0.0, 1.0]), m.tensor([1.0, -1.0])),
    lambda m: m.distributions.Normal(0.0, 0.0),
    lambda m: m.distributions.Normal(m.tensor([0.0]), "a"),
    lambda m: m.distributions.Bernoulli(probs=m.tensor([1.5])),
    lambda m: m.distributions.Bernoulli(),
    lambda m: m.distributions.Bernoulli(probs=0.5, logits=0.0),
    lambda m: m.distributions.Categorical(probs=m.tensor(0.5)),
    lambda m: m.distributions.Categorical(probs=m.tensor([-0.1, 1.1])),
    lambda m: m.distributions.Uniform(m.tensor([1.0]), m.tensor([0.0])),
    lambda m: m.distributions.Exponential(m.tensor([-1.0])),
    lambda m: m.distributions.MultivariateNormal(m.zeros(2), m.eye(2), scale_tril=m.eye(2)),
    lambda m: m.distributions.MultivariateNormal(m.tensor(0.0), m.eye(2)),
    lambda m: m.distributions.MultivariateNormal(m.zeros(2), m.tensor([[1.0, 2.0], [2.0, 1.0]])),
    lambda m: m.distributions.MultivariateNormal(m.zeros(2), scale_tril=m.ones(2)),
    lambda m: m.distributions.Normal(0.0, 1.0).log_prob(0.5),
    lambda m: m.distributions.Normal(m.zeros(3), m.ones(3)).log_prob(m.zeros(2)),
    lambda m: m.distributions.Bernoulli(probs=m.tensor([0.5])).log_prob(m.tensor([0.5])),
    lambda m: m.distributions.Categorical(probs=m.tensor([0.5, 0.5])).log_prob(m.tensor(2)),
    lambda m: m.distributions.Uniform(0.0, 1.0).log_prob(m.tensor(2.0)),
    lambda m: m.distributions.kl_divergence(m.distributions.Bernoulli(probs=0.5), m.distributions.Normal(0.0, 1.0)),
]


@pytest.mark.parametrize("i", range(len(BAD)))
def test_validation_errors(torch, i):
    ec, et = same_error(lambda: BAD[i](core), lambda: BAD[i](torch))
    assert ec is not None and str(ec) == str(et)


def test_validate_args_false_and_lazy_params(torch):
    for m in (core, torch):
        d = m.distributions.Normal(m.tensor([0.0]), m.tensor([-1.0]), validate_args=False)
        assert d.scale.item() == -1.0
    c = cD.Bernoulli(logits=core.tensor([0.0, 2.0]))
    t = torch.distributions.Bernoulli(logits=torch.tensor([0.0, 2.0]))
    assert_same(c.probs, t.probs)
    c = cD.Categorical(probs=core.tensor([1.0, 3.0]))
    t = torch.distributions.Categorical(probs=torch.tensor([1.0, 3.0]))
    assert_same(c.logits, t.logits)
    assert_same(c.enumerate_support(), t.enumerate_support())


# -- Beta / Dirichlet: densities need core.lgamma / digamma / xlogy (pointwise branch) -------------

NEEDS_SPECIAL = pytest.mark.skipif(not all(hasattr(core, n) for n in ("lgamma", "digamma", "xlogy")),
                                   reason="core.lgamma/digamma/xlogy come from the pointwise branch")
BETAS = {
    "beta": lambda m: m.distributions.Beta(m.tensor([0.5, 2.0, 3.0], requires_grad=True), m.tensor([1.5, 2.0, 0.7])),
    "beta_scalar": lambda m: m.distributions.Beta(2.0, 3.0),
    "dirichlet": lambda m: m.distributions.Dirichlet(m.tensor([[0.5, 2.0, 3.0], [1.0, 1.0, 1.0]], dtype=m.float64,
                                                              requires_grad=True)),
}
BETA_VALUES = {"beta": lambda m: m.tensor([0.2, 0.5, 0.9]), "beta_scalar": lambda m: m.tensor(0.3),
               "dirichlet": lambda m: m.tensor([0.2, 0.3, 0.5], dtype=m.float64)}


@pytest.mark.parametrize("name", list(BETAS))
def test_beta_dirichlet_moments_and_shapes(torch, name):
    c, t = BETAS[name](core), BETAS[name](torch)
    assert repr(c) == repr(t) and tuple(c.batch_shape) == tuple(t.batch_shape)
    for what in ("mean", "variance"):
        assert_same(getattr(c, what).detach(), getattr(t, what).detach())
    for shape in [(), (4,)]:
        cs, ts = c.sample(shape), t.sample(shape)
        assert tuple(cs.shape) == tuple(ts.shape) and str(cs.dtype) == str(ts.dtype)


@NEEDS_SPECIAL
@pytest.mark.parametrize("name", list(BETAS))
def test_beta_dirichlet_densities(torch, name):
    c, t = BETAS[name](core), BETAS[name](torch)
    assert_same(c.log_prob(BETA_VALUES[name](core)).detach(), t.log_prob(BETA_VALUES[name](torch)).detach())
    assert_same(c.entropy().detach(), t.entropy().detach())


@NEEDS_SPECIAL
def test_beta_kl(torch):
    def run(m):
        return m.distributions.kl_divergence(m.distributions.Beta(m.tensor([0.5, 2.0]), m.tensor([1.5, 2.0])),
                                             m.distributions.Beta(m.tensor([1.0, 3.0]), m.tensor([1.0, 0.5])))
    assert_same(run(core), run(torch))


def test_beta_samples_moments():
    core.manual_seed(0)
    s = cD.Beta(core.tensor(2.0), core.tensor(5.0)).sample((20000,)).numpy()
    assert abs(s.mean() - 2 / 7) < 0.01 and abs(s.var() - 10 / 392) < 0.003
    s = cD.Dirichlet(core.tensor([0.3, 0.6, 2.0])).sample((20000,)).numpy()
    assert abs(s.sum(-1) - 1).max() < 1e-5 and abs(s.mean(0)[0] - 0.3 / 2.9) < 0.01


@pytest.mark.parametrize("i", range(3))
def test_beta_dirichlet_errors(torch, i):
    bad = [lambda m: m.distributions.Beta(m.tensor([-1.0]), m.tensor([1.0])),
           lambda m: m.distributions.Dirichlet(m.tensor(1.0)),
           lambda m: m.distributions.Beta(0.5, 0.5).log_prob(m.tensor(1.5))][i]
    ec, et = same_error(lambda: bad(core), lambda: bad(torch))
    assert ec is not None and str(ec) == str(et)
