"""A small classifier trained with SGD + CosineAnnealingLR, then stochastic weight averaging (SWALR, an
AveragedModel of the weights, update_bn for its BatchNorm) next to an EMA copy; losses and lrs per epoch."""
import torch
import torch.nn as nn
from torch.optim.swa_utils import SWALR, AveragedModel, get_ema_multi_avg_fn, update_bn

torch.manual_seed(0)
X = torch.randn(64, 6)
y = (X[:, 0] + 0.5 * X[:, 1] > 0).long()
batches = [(X[i:i + 16], y[i:i + 16]) for i in range(0, 64, 16)]

model = nn.Sequential(nn.Linear(6, 12), nn.BatchNorm1d(12), nn.ReLU(), nn.Linear(12, 2))
opt = torch.optim.SGD(model.parameters(), lr=0.2, momentum=0.9, weight_decay=1e-4)
cosine = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=6)
swa_model = AveragedModel(model)
ema_model = AveragedModel(model, multi_avg_fn=get_ema_multi_avg_fn(0.9))
swa_sched = SWALR(opt, swa_lr=0.05, anneal_epochs=3, anneal_strategy="cos")
loss_fn = nn.CrossEntropyLoss()
swa_start = 5

for epoch in range(10):
    total = 0.0
    for xb, yb in batches:
        opt.zero_grad()
        loss = loss_fn(model(xb), yb)
        loss.backward()
        opt.step()
        ema_model.update_parameters(model)
        total += loss.item()
    if epoch >= swa_start:
        swa_model.update_parameters(model)
        swa_sched.step()
    else:
        cosine.step()
    print(epoch, f"loss={total / len(batches):.4f}", f"lr={opt.param_groups[0]['lr']:.6f}",
          [round(lr, 6) for lr in swa_sched.get_last_lr()],
          int(swa_model.n_averaged), int(ema_model.n_averaged))

update_bn(batches, swa_model)
print(sorted(swa_model.state_dict())[:3], swa_model.n_averaged.dtype)
print(swa_sched.state_dict()["_anneal_strategy"], sorted(k for k in opt.param_groups[0] if "lr" in k))
for name, m in (("model", model), ("swa", swa_model), ("ema", ema_model)):
    m.eval()
    with torch.no_grad():
        out = m(X)
        acc = (out.argmax(1) == y).float().mean().item()
        print(name, f"loss={loss_fn(out, y).item():.4f}", f"acc={acc:.3f}")
