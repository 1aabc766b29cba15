# seed 002: the snippet uses nn and F from the snippet before it: their imports added
import torch.nn as nn
import torch.nn.functional as F
import torch

class FreeDefineConV(nn.Module):
    def __init__(self, out_channel, in_channels):
        super(FreeDefineConV, self).__init__()
        kernel = [[-1.0, -2.0, -1.0],
                  [ 0.0,  0.0,  0.0],
                  [ 1.0,  2.0,  1.0]]
        kernel = torch.FloatTensor(kernel).expand(out_channel, in_channels,3,3)
        self.weight = nn.Parameter(data=kernel, requires_grad=False)
    
    def forward(self, x):
        out = F.conv2d(x, self.weight, 1, 1)
        return out
