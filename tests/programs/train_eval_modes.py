"""model.train() / model.eval() with Dropout and BatchNorm1d, and torch.no_grad() evaluation."""
import torch
import torch.nn as nn

torch.manual_seed(7)
model = nn.Sequential(nn.Linear(4, 6), nn.BatchNorm1d(6), nn.ReLU(), nn.Dropout(0.5), nn.Linear(6, 1))
x = torch.randn(8, 4)
print(model.training, model[3].training)
out1 = model(x)
print(out1.squeeze())
print(model[1].running_mean, model[1].running_var, model[1].num_batches_tracked)
model.eval()
print(model.training, model[3].training)
with torch.no_grad():
    e1, e2 = model(x), model(x)
print(torch.equal(e1, e2), e1.requires_grad)
print(e1.squeeze())
model.train()
print(model(x).squeeze())
drop = nn.Dropout(p=0.25)
print(drop(torch.ones(3, 5)))
print(nn.functional.dropout(torch.ones(8), 0.5, training=False))
bn = nn.BatchNorm2d(2)
y = bn(torch.randn(3, 2, 2, 2))
print(y.mean(dim=(0, 2, 3)).abs().max() < 1e-6, bn.running_mean)
