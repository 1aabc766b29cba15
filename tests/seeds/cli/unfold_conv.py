# seed 002: nn.Unfold blocks and convolution by unfold + matmul + fold (random data: compare, print shapes)
import torch
import torch.nn as nn

K = 2
B = 2
C = 2
img_size = 3
block_func = nn.Unfold(K, dilation=1, padding=0, stride=1)
inputs = torch.arange(B * C * img_size * img_size, dtype=torch.float32).view(B, C, img_size, img_size)
out = block_func(inputs); print(out.shape)
out = out.view(B, C, -1, K * K)
out = out.permute(0, 2, 1, 3)
out = out.view(*out.shape[:3], 2, 2)
print(out[1])

inp = torch.randn(1, 3, 10, 12)
w = torch.randn(2, 3, 4, 5)
inp_unf = torch.nn.functional.unfold(inp, (4, 5)); print(inp_unf.shape)
out_unf = inp_unf.transpose(1, 2).matmul(w.view(w.size(0), -1).t()).transpose(1, 2); print(out_unf.shape)
out = torch.nn.functional.fold(out_unf, (7, 8), (1, 1))
print(bool((torch.nn.functional.conv2d(inp, w) - out).abs().max() < 1e-4))
