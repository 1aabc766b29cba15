"""nn toolbox: custom init, TransformerEncoderLayer, GroupNorm, clip_grad_norm_, parameters_to_vector,
losses with weights / label smoothing, Adagrad and NAdam, a custom Dataset collated into dicts."""
import numpy as np
import torch
import torch.nn as nn
from torch.nn.utils import clip_grad_norm_, parameters_to_vector
from torch.utils.data import DataLoader, Dataset

torch.manual_seed(123)


def init_weights(m):
    if isinstance(m, nn.Linear):
        nn.init.xavier_uniform_(m.weight)
        nn.init.zeros_(m.bias)


mlp = nn.Sequential(nn.Linear(4, 5), nn.GELU(), nn.Linear(5, 3))
mlp.apply(init_weights)
print(mlp[0].weight)
print(parameters_to_vector(mlp.parameters()).shape)
x = torch.randn(6, 4)
target = torch.tensor([0, 2, 1, 1, 0, 2])
loss = nn.CrossEntropyLoss(weight=torch.tensor([1.0, 2.0, 0.5]), label_smoothing=0.1)(mlp(x), target)
loss.backward()
print(f"{loss.item():.5f}", f"{clip_grad_norm_(mlp.parameters(), max_norm=0.5).item():.5f}")
print(nn.NLLLoss(ignore_index=1)(torch.log_softmax(mlp(x), dim=1), target))
print(nn.KLDivLoss(reduction="batchmean")(torch.log_softmax(mlp(x), 1), torch.softmax(torch.randn(6, 3), 1)))
print(nn.SmoothL1Loss()(x, torch.zeros_like(x)), nn.HuberLoss(delta=0.5)(x, torch.ones_like(x)))
for opt_cls in (torch.optim.Adagrad, torch.optim.NAdam):
    net = nn.Linear(4, 1)
    opt = opt_cls(net.parameters(), lr=0.05)
    for _ in range(3):
        opt.zero_grad()
        l = net(x).pow(2).mean()
        l.backward()
        opt.step()
    print(opt_cls.__name__, f"{l.item():.5f}")
layer = nn.TransformerEncoderLayer(d_model=8, nhead=2, dim_feedforward=16, dropout=0.0, batch_first=True)
seq = torch.randn(2, 5, 8)
print(layer(seq)[0, 0])
attn = nn.MultiheadAttention(8, 2, batch_first=True)
out, weights = attn(seq, seq, seq)
print(out.shape, weights.shape, weights[0, 0])
gn = nn.GroupNorm(2, 4)
print(gn(torch.randn(2, 4, 3))[0, :, 0])


class Squares(Dataset):
    def __len__(self):
        return 5

    def __getitem__(self, i):
        return {"x": np.array([i, i * i], dtype=np.float32), "y": i % 2, "name": f"item{i}"}


for batch in DataLoader(Squares(), batch_size=2):
    print(batch["x"], batch["y"], batch["name"])
