"""pytorch/examples super_resolution: an ESPCN-style net (Conv2d + ReLU, then PixelShuffle) with orthogonal
init, trained with Adam on random low/high resolution pairs; PSNR per epoch, then an upscaled image."""
import math

import torch
import torch.nn as nn
import torch.nn.init as init
import torch.optim as optim

torch.manual_seed(123)


class Net(nn.Module):
    def __init__(self, upscale_factor):
        super().__init__()
        self.relu = nn.ReLU()
        self.conv1 = nn.Conv2d(1, 16, (5, 5), (1, 1), (2, 2))
        self.conv2 = nn.Conv2d(16, 16, (3, 3), (1, 1), (1, 1))
        self.conv3 = nn.Conv2d(16, 8, (3, 3), (1, 1), (1, 1))
        self.conv4 = nn.Conv2d(8, upscale_factor ** 2, (3, 3), (1, 1), (1, 1))
        self.pixel_shuffle = nn.PixelShuffle(upscale_factor)
        self._initialize_weights()

    def forward(self, x):
        x = self.relu(self.conv1(x))
        x = self.relu(self.conv2(x))
        x = self.relu(self.conv3(x))
        return self.pixel_shuffle(self.conv4(x))

    def _initialize_weights(self):
        init.orthogonal_(self.conv1.weight, init.calculate_gain("relu"))
        init.orthogonal_(self.conv2.weight, init.calculate_gain("relu"))
        init.orthogonal_(self.conv3.weight, init.calculate_gain("relu"))
        init.orthogonal_(self.conv4.weight)


upscale = 2
high = torch.rand(8, 1, 12, 12)
low = nn.functional.avg_pool2d(high, upscale)
dataset = torch.utils.data.TensorDataset(low, high)
loader = torch.utils.data.DataLoader(dataset, batch_size=4, shuffle=True)
model = Net(upscale)
print(model)
criterion = nn.MSELoss()
optimizer = optim.Adam(model.parameters(), lr=0.01)
for epoch in range(1, 4):
    epoch_loss = 0.0
    for iteration, (inp, target) in enumerate(loader, 1):
        optimizer.zero_grad()
        loss = criterion(model(inp), target)
        epoch_loss += loss.item()
        loss.backward()
        optimizer.step()
        print(f"===> Epoch[{epoch}]({iteration}/{len(loader)}): Loss: {loss.item():.6f}")
    with torch.no_grad():
        mse = criterion(model(low), high)
        psnr = 10 * math.log10(1 / mse.item())
    print(f"===> Epoch {epoch} Complete: Avg. Loss: {epoch_loss / len(loader):.6f} Avg. PSNR: {psnr:.4f} dB")
with torch.no_grad():
    out = model(low[:1]).clamp(0, 1)
print(out.shape, out[0, 0, :2, :4])
print(nn.PixelUnshuffle(upscale)(out).shape, torch.equal(nn.PixelUnshuffle(upscale)(out), model.conv4(
    model.relu(model.conv3(model.relu(model.conv2(model.relu(model.conv1(low[:1]))))))).clamp(0, 1)))
print(model.conv1.weight.flatten(1).matmul(model.conv1.weight.flatten(1).t()).diagonal()[:3])
