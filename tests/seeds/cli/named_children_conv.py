# seed 002: model.named_children, custom convolution kernel
import torch
import torch.nn as nn
import torch.nn.functional as F


class Net(nn.Module):
    def __init__(self):
        super(Net, self).__init__()
        self.conv1 = nn.Conv2d(3, 6, 5)
        self.pool = nn.MaxPool2d(2, 2)
        self.conv2 = nn.Conv2d(6, 16, 5)
        self.fc1 = nn.Linear(16 * 5 * 5, 120)
        self.fc2 = nn.Linear(120, 84)
        self.fc3 = nn.Linear(84, 10)

    def forward(self, x):
        x = self.pool(F.relu(self.conv1(x)))
        x = self.pool(F.relu(self.conv2(x)))
        x = x.view(-1, 16 * 5 * 5)
        x = F.relu(self.fc1(x))
        x = F.relu(self.fc2(x))
        x = self.fc3(x)
        return x


net = Net()
for name, module in net.named_children():
    print('name:\t', name)
    print('module:\t', module)
print(net)
print(net(torch.zeros(2, 3, 32, 32)).shape)


class FreeDefineConV(nn.Module):
    def __init__(self, out_channel, in_channels):
        super(FreeDefineConV, self).__init__()
        kernel = [[-1.0, -2.0, -1.0],
                  [ 0.0,  0.0,  0.0],
                  [ 1.0,  2.0,  1.0]]
        kernel = torch.FloatTensor(kernel).expand(out_channel, in_channels, 3, 3)
        self.weight = nn.Parameter(data=kernel, requires_grad=False)

    def forward(self, x):
        out = F.conv2d(x, self.weight, None, 1, 1)
        return out


m = FreeDefineConV(2, 1)
print(m(torch.arange(16, dtype=torch.float32).view(1, 1, 4, 4)))
