"""torch.distributions: densities, entropies and KL divergences (no sampling)."""
import torch
from torch.distributions import Bernoulli, Categorical, MultivariateNormal, Normal, Uniform, kl_divergence

p = Normal(torch.tensor([0.0, 1.0]), torch.tensor([1.0, 0.5]))
q = Normal(torch.tensor([0.5, 0.5]), torch.tensor([2.0, 1.0]))
print(p)
print(p.log_prob(torch.tensor([0.2, 0.9])))
print(p.entropy(), p.mean, p.variance)
print(kl_divergence(p, q))
c = Categorical(logits=torch.tensor([1.0, 2.0, 0.5]))
print(c.probs, c.entropy(), c.log_prob(torch.tensor(1)))
b = Bernoulli(probs=torch.tensor([0.2, 0.7]))
print(b.log_prob(torch.tensor([1.0, 0.0])), b.entropy())
u = Uniform(torch.tensor(0.0), torch.tensor(4.0))
print(u.log_prob(torch.tensor(1.0)), u.entropy(), u.mean, u.variance)
m = MultivariateNormal(torch.zeros(2), covariance_matrix=torch.tensor([[1.0, 0.3], [0.3, 2.0]]))
print(m.log_prob(torch.tensor([0.5, -0.5])), m.entropy())
mu = torch.tensor([0.0, 0.0], requires_grad=True)
loss = -Normal(mu, torch.ones(2)).log_prob(torch.tensor([1.0, -2.0])).sum()
loss.backward()
print(loss.item(), mu.grad)
try:
    Normal(0.0, -1.0)
except ValueError as e:
    print("ValueError:", str(e).splitlines()[0])
