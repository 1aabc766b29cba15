"""pytorch/examples siamese_network, with cosine similarity and a margin ranking loss: a shared encoder
embeds anchor / positive / negative inputs; the loss ranks sim(anchor, positive) above sim(anchor, negative)."""
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(42)


class SiameseNetwork(nn.Module):
    def __init__(self):
        super().__init__()
        self.cnn = nn.Sequential(nn.Conv2d(1, 4, 3), nn.BatchNorm2d(4), nn.ReLU(inplace=True), nn.MaxPool2d(2),
                                 nn.Conv2d(4, 8, 3), nn.ReLU(inplace=True), nn.AdaptiveAvgPool2d((2, 2)))
        self.fc = nn.Sequential(nn.Flatten(), nn.Linear(32, 16), nn.ReLU(inplace=True), nn.Linear(16, 8))

    def forward_once(self, x):
        return self.fc(self.cnn(x))

    def forward(self, a, b):
        return self.forward_once(a), self.forward_once(b)


def make_batch(n):
    base = torch.rand(n, 1, 12, 12)
    positive = base + 0.1 * torch.randn_like(base)
    negative = torch.rand(n, 1, 12, 12)
    return base, positive, negative


model = SiameseNetwork()
optimizer = torch.optim.Adadelta(model.parameters(), lr=1.0)
scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=2, gamma=0.7)
ranking = nn.MarginRankingLoss(margin=0.2)
for epoch in range(4):
    model.train()
    anchor, positive, negative = make_batch(6)
    optimizer.zero_grad()
    ea, ep = model(anchor, positive)
    _, en = model(anchor, negative)
    sim_pos = F.cosine_similarity(ea, ep)
    sim_neg = F.cosine_similarity(ea, en, dim=1, eps=1e-8)
    loss = ranking(sim_pos, sim_neg, torch.ones_like(sim_pos))
    loss.backward()
    optimizer.step()
    scheduler.step()
    print(f"epoch {epoch} loss {loss.item():.6f} lr {scheduler.get_last_lr()[0]:.4f} "
          f"pos {sim_pos.mean().item():.5f} neg {sim_neg.mean().item():.5f}")
model.eval()
with torch.no_grad():
    anchor, positive, negative = make_batch(4)
    ea, ep = model(anchor, positive)
    _, en = model(anchor, negative)
    d_pos = F.pairwise_distance(ea, ep)
    d_neg = F.pairwise_distance(ea, en, p=1.0)
    print(d_pos, d_neg)
    print(F.cosine_similarity(ea.unsqueeze(1), en.unsqueeze(0), dim=-1))
    print((d_pos < d_neg).float().mean(), F.margin_ranking_loss(d_neg, d_pos, torch.ones(4), margin=0.5,
                                                               reduction="none"))
    print(F.triplet_margin_loss(ea, ep, en), F.cosine_embedding_loss(ea, en, -torch.ones(4)))
print(model.cnn[1].running_mean, model.cnn[1].num_batches_tracked)
