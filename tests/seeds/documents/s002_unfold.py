import torch
import torch.nn as nn

### 1. Parameter ###
K=2 # kernel size
B=2 # batch size
C=2 # channel num
img_size=3 

### 2. Block Func ###
block_func = nn.Unfold( K, dilation=1, padding=0,stride=1)

### 3. Forward ###
inputs = torch.rand(B, C, img_size, img_size); print('\n')
out = block_func(inputs); print(out.shape) ## [B, C*k_h*k_w, L]; L是形状为k_h*k_w的窗口的个数。
out = out.view(B, C, -1, K*K)
out = out.permute(0,2,1,3) ## [B, L, C, K*K]
out = out.view(*out.shape[:3],2,2)
print(out[1])
