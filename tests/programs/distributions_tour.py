"""A tour of torch.distributions: samples from a fixed seed, log_probs, entropies, moments and KL values of
many distributions, a VAE-style reparameterised loss, a policy-gradient step and a Beta-Bernoulli update."""
import torch
import torch.distributions as D
from torch.distributions import constraints, transforms

torch.manual_seed(0)

dists = {
    "Gamma": D.Gamma(torch.tensor([0.5, 2.0, 9.0]), torch.tensor([1.0, 0.5, 2.0])),
    "Beta": D.Beta(torch.tensor([0.5, 2.0]), torch.tensor([1.5, 0.7])),
    "Chi2": D.Chi2(torch.tensor([1.0, 4.0])),
    "Dirichlet": D.Dirichlet(torch.tensor([0.5, 2.0, 1.0])),
    "StudentT": D.StudentT(torch.tensor([3.0, 10.0])),
    "Laplace": D.Laplace(torch.tensor([0.0, 1.0]), torch.tensor([1.0, 2.0])),
    "LogNormal": D.LogNormal(torch.tensor([0.0]), torch.tensor([0.5])),
    "Binomial": D.Binomial(torch.tensor([5.0, 20.0]), torch.tensor([0.3, 0.8])),
    "Poisson": D.Poisson(torch.tensor([0.5, 4.0, 30.0])),
    "Geometric": D.Geometric(torch.tensor([0.2, 0.7])),
    "NegativeBinomial": D.NegativeBinomial(torch.tensor([3.0]), torch.tensor([0.4])),
    "OneHotCategorical": D.OneHotCategorical(torch.tensor([0.2, 0.3, 0.5])),
    "Multinomial": D.Multinomial(6, torch.tensor([0.2, 0.3, 0.5])),
    "Cauchy": D.Cauchy(torch.tensor([0.0]), torch.tensor([1.0])),
    "HalfNormal": D.HalfNormal(torch.tensor([1.0, 2.0])),
    "Gumbel": D.Gumbel(torch.tensor([0.0]), torch.tensor([2.0])),
    "Weibull": D.Weibull(torch.tensor([1.0]), torch.tensor([1.5])),
    "Pareto": D.Pareto(torch.tensor([1.0]), torch.tensor([3.0])),
    "VonMises": D.VonMises(torch.tensor([0.0, 1.0]), torch.tensor([0.5, 4.0])),
    "InverseGamma": D.InverseGamma(torch.tensor([2.0]), torch.tensor([1.0])),
    "FisherSnedecor": D.FisherSnedecor(torch.tensor([3.0]), torch.tensor([5.0])),
    "Kumaraswamy": D.Kumaraswamy(torch.tensor([1.5]), torch.tensor([2.0])),
    "ContinuousBernoulli": D.ContinuousBernoulli(torch.tensor([0.2, 0.9])),
    "LowRankMVN": D.LowRankMultivariateNormal(torch.zeros(3), torch.tensor([[1.0], [0.5], [0.2]]),
                                              torch.tensor([1.0, 2.0, 0.5])),
    "Mixture": D.MixtureSameFamily(D.Categorical(torch.tensor([0.3, 0.7])),
                                   D.Normal(torch.tensor([-1.0, 2.0]), torch.tensor([1.0, 0.5]))),
    "Independent": D.Independent(D.Normal(torch.zeros(2, 3), torch.ones(2, 3)), 1),
    "LKJCholesky": D.LKJCholesky(3, torch.tensor(2.0)),
    "Wishart": D.Wishart(torch.tensor(4.0), covariance_matrix=torch.tensor([[2.0, 0.5], [0.5, 1.0]])),
    "LogisticNormal": D.LogisticNormal(torch.zeros(2), torch.ones(2)),
}
for name, d in dists.items():
    x = d.sample((2,))
    print(name, d.batch_shape, d.event_shape, x.shape, x.dtype)
    print(x)
    print(d.log_prob(x))
    try:
        print("entropy", d.entropy())
    except NotImplementedError:
        print("entropy: not implemented")
    try:
        print("mean", d.mean, "variance", d.variance)
    except NotImplementedError:
        print("moments: not implemented")

print(dists["Gamma"])
print(dists["Beta"].support, dists["Binomial"].support, dists["Dirichlet"].arg_constraints)

pairs = [(D.Gamma(2.0, 1.0), D.Gamma(3.0, 2.0)), (D.Beta(2.0, 3.0), D.Beta(1.0, 1.0)),
         (D.Poisson(3.0), D.Poisson(1.0)), (D.Laplace(0.0, 1.0), D.Laplace(1.0, 2.0)),
         (D.Dirichlet(torch.tensor([1.0, 2.0])), D.Dirichlet(torch.tensor([2.0, 2.0]))),
         (D.Exponential(2.0), D.Gamma(1.0, 1.0)), (D.Normal(0.0, 1.0), D.Laplace(0.0, 1.0)),
         (D.Geometric(0.3), D.Geometric(0.6)), (D.Binomial(10, 0.3), D.Binomial(10, 0.5))]
for p, q in pairs:
    print("KL", type(p).__name__, type(q).__name__, D.kl_divergence(p, q))

# reparameterised samples: a VAE-style loss with a Gamma posterior and a Normal one
alpha = torch.tensor([1.5, 3.0], requires_grad=True)
mu = torch.tensor([0.3, -0.2], requires_grad=True)
log_sigma = torch.tensor([-0.5, 0.1], requires_grad=True)
q_z = D.Normal(mu, log_sigma.exp())
g = D.Gamma(alpha, torch.ones(2))
z = q_z.rsample((4,))
w = g.rsample((4,))
loss = (z ** 2).mean() + w.mean() + D.kl_divergence(q_z, D.Normal(0.0, 1.0)).sum()
loss.backward()
print(loss)
print(mu.grad, log_sigma.grad, alpha.grad)

conc = torch.tensor([0.7, 2.0, 1.2], requires_grad=True)
s = D.Dirichlet(conc).rsample()
(s * torch.tensor([1.0, 2.0, 3.0])).sum().backward()
print(s, conc.grad)

# policy gradient with a categorical policy
logits = torch.tensor([0.1, 0.5, -0.3], requires_grad=True)
pi = D.Categorical(logits=logits)
actions = pi.sample((5,))
reward = (actions == 1).float()
(-(pi.log_prob(actions) * reward).mean()).backward()
print(actions, logits.grad)

# transformed distributions and the constraint registry
base = D.Normal(torch.zeros(2), torch.ones(2))
flow = D.TransformedDistribution(base, [transforms.AffineTransform(1.0, 2.0), transforms.SigmoidTransform()])
y = flow.sample((3,))
print(y, flow.log_prob(y))
t = D.biject_to(constraints.simplex)
print(t, t(torch.tensor([0.1, -0.4])))
print(D.transform_to(constraints.positive), D.transform_to(constraints.interval(-1.0, 1.0)))
sb = transforms.StickBreakingTransform()
v = sb(torch.tensor([0.3, -0.2]))
print(v, sb.inv(v), sb.log_abs_det_jacobian(torch.tensor([0.3, -0.2]), v))

# Beta-Bernoulli: posterior after a few coin flips
flips = D.Bernoulli(torch.tensor(0.7)).sample((20,))
post = D.Beta(1.0 + flips.sum(), 1.0 + (1 - flips).sum())
print(flips.sum(), post.mean, post.stddev, post.sample((3,)))

try:
    D.Gamma(torch.tensor([-1.0]), torch.tensor([1.0]))
except ValueError as e:
    print("ValueError:", str(e).splitlines()[0])
try:
    D.Poisson(torch.tensor([2.0])).log_prob(torch.tensor([0.5]))
except ValueError as e:
    print("ValueError:", str(e).splitlines()[0])
