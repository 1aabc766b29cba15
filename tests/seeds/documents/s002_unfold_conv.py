# seed 002 snippet without its own import: `import torch` added
import torch
inp = torch.randn(1, 3, 10, 12)  ## [B,C_in,H,W]
w = torch.randn(2, 3, 4, 5) ## [C_out,C_in,k_h,k_w]
inp_unf = torch.nn.functional.unfold(inp, (4, 5)); print(inp_unf.shape) ## [B, C_in*k_h*k_w, L]; L是形状为k_h*k_w的窗口的个数。

out_unf = inp_unf.transpose(1, 2).matmul(w.view(w.size(0), -1).t()).transpose(1, 2); print(out_unf.shape)  ## [B, L, C_in*k_h*k_w] matmul [C_in*k_h*k_w, C_out]

out = torch.nn.functional.fold(out_unf, (7, 8), (1, 1))
# or equivalently (and avoiding a copy),
# out = out_unf.view(1, 2, 7, 8)

(torch.nn.functional.conv2d(inp, w) - out).abs().max()
