"""An optimizer with a StepLR scheduler, then state_dict() saved to a dict and loaded into a new model."""
import copy

import torch
import torch.nn as nn

torch.manual_seed(3)
model = nn.Sequential(nn.Linear(5, 6), nn.ReLU(), nn.Linear(6, 2))
opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.5)
sched = torch.optim.lr_scheduler.StepLR(opt, step_size=3, gamma=0.5)
X, y = torch.randn(16, 5), torch.randint(0, 2, (16,))
loss_fn = nn.CrossEntropyLoss()
for epoch in range(7):
    opt.zero_grad()
    loss = loss_fn(model(X), y)
    loss.backward()
    opt.step()
    sched.step()
    print(epoch, sched.get_last_lr(), f"{loss.item():.4f}")
saved = {"model": copy.deepcopy(model.state_dict()), "opt": copy.deepcopy(opt.state_dict()), "epoch": 7}
print(list(saved["model"].keys()))
print(saved["opt"]["param_groups"][0]["lr"], sorted(saved["opt"]["state"].keys()))
clone = nn.Sequential(nn.Linear(5, 6), nn.ReLU(), nn.Linear(6, 2))
print(clone.load_state_dict(saved["model"]))
clone.eval()
with torch.no_grad():
    a, b = model(X), clone(X)
print(torch.equal(a, b), a[:2])
print(all(torch.equal(p, q) for p, q in zip(model.parameters(), clone.parameters())))
