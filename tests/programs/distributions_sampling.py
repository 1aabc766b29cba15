"""torch.distributions sampling with a seed: sample, rsample, log_prob of samples."""
import torch
from torch.distributions import Bernoulli, Categorical, MultivariateNormal, Normal, Uniform

torch.manual_seed(11)
n = Normal(torch.tensor(0.0), torch.tensor(2.0))
s = n.sample((5,))
print(s, n.log_prob(s))
loc = torch.tensor([1.0, -1.0], requires_grad=True)
r = Normal(loc, torch.ones(2)).rsample((3,))
r.sum().backward()
print(r, loc.grad)
print(Uniform(-1.0, 1.0).sample((4,)))
print(Bernoulli(probs=torch.tensor([0.2, 0.8, 0.5])).sample((2,)))
c = Categorical(probs=torch.tensor([0.1, 0.6, 0.3]))
print(c.sample((10,)))
mvn = MultivariateNormal(torch.zeros(2), torch.tensor([[2.0, 0.5], [0.5, 1.0]]))
print(mvn.sample((3,)))
print(torch.multinomial(torch.tensor([1.0, 2.0, 3.0]), 6, replacement=True))
print(torch.bernoulli(torch.full((5,), 0.5)), torch.normal(torch.zeros(3), 1.0))
print(torch.empty(4).uniform_(2, 3), torch.empty(3).exponential_())
