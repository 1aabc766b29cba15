"""torch.distributions on core: Normal, Bernoulli, Categorical, Uniform, Exponential,
MultivariateNormal, Beta, Dirichlet, kl_divergence / register_kl, constraints."""
from . import constraints
from .bernoulli import Bernoulli
from .categorical import Categorical
from .dirichlet import Beta, Dirichlet
from .distribution import Distribution, ExponentialFamily
from .exponential import Exponential
from .kl import kl_divergence, register_kl
from .multivariate_normal import MultivariateNormal
from .normal import Normal
from .uniform import Uniform

__all__ = ["Bernoulli", "Beta", "Categorical", "Dirichlet", "Distribution", "Exponential", "ExponentialFamily",
           "MultivariateNormal", "Normal", "Uniform", "constraints", "kl_divergence", "register_kl"]
