"""Parametrizations and their neighbours: a small classifier whose layers use weight_norm and spectral_norm
(parametrizations and the old hooks), an orthogonal recurrent matrix, a custom parametrization, lazy
layers, BatchNorm fusion for inference and functional_call; a few Adam steps print losses and parameters."""
import warnings

import torch
import torch.nn as nn
import torch.nn.utils.parametrize as parametrize
from torch.nn.utils import parametrizations

warnings.simplefilter("ignore", FutureWarning)
torch.manual_seed(2024)


class Symmetric(nn.Module):
    def forward(self, X):
        return X.triu() + X.triu(1).transpose(-1, -2)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.LazyConv2d(4, 3, padding=1)
        self.bn = nn.LazyBatchNorm2d()
        self.proj = parametrizations.weight_norm(nn.Linear(16, 8))
        self.mix = parametrizations.orthogonal(nn.Linear(8, 8))
        self.sym = nn.Linear(8, 8, bias=False)
        parametrize.register_parametrization(self.sym, "weight", Symmetric())
        self.head = parametrizations.spectral_norm(nn.Linear(8, 3))
        self.old = nn.utils.spectral_norm(nn.Linear(3, 3))
        self.gain = nn.utils.weight_norm(nn.Linear(3, 3))

    def forward(self, x):
        h = torch.relu(self.bn(self.conv(x)))
        h = torch.nn.functional.adaptive_avg_pool2d(h, 2).flatten(1)
        h = torch.tanh(self.mix(self.proj(h)))
        h = self.sym(h)
        return self.gain(self.old(self.head(h)))


net = Net()
x = torch.randn(6, 2, 5, 5)
y = torch.tensor([0, 1, 2, 1, 0, 2])
print(net(x).shape)
print(net)
print(sorted(net.state_dict().keys()))
opt = torch.optim.Adam(net.parameters(), lr=0.05)
for step in range(4):
    opt.zero_grad()
    loss = nn.functional.cross_entropy(net(x), y)
    loss.backward()
    opt.step()
    print(step, f"{loss.item():.5f}")
print(net.proj.parametrizations.weight.original0.view(-1)[:4])
w = net.mix.weight
print(torch.allclose(w @ w.T, torch.eye(8), atol=1e-5), net.sym.weight[0, :4])
print(net.head.parametrizations.weight[0]._u, net.old.weight_u)
print(net.gain.weight_g.view(-1))
with parametrize.cached():
    print(net.mix.weight is net.mix.weight)
parametrize.remove_parametrizations(net.sym, "weight")
nn.utils.remove_weight_norm(net.gain)
print(type(net.sym).__name__, type(net.gain.weight).__name__)

net.eval()
fused = nn.utils.fuse_conv_bn_eval(net.conv, net.bn)
probe = torch.randn(1, 2, 5, 5)
print(torch.allclose(fused(probe), net.bn(net.conv(probe)), atol=1e-5), fused)
params = {k: v.detach() * 0.5 for k, v in net.named_parameters() if k.startswith("conv")}
out = nn.utils.stateless.functional_call(net, params, (x,))
print(out.argmax(1), net(x).argmax(1))
print(nn.DataParallel(net.head).module is net.head)
