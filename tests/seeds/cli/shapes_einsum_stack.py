# seed 002: einsum, stack, unsqueeze, repeat, chunk (random values: shapes printed)
import torch

q = torch.rand(4, 3, 8, 128)
v = torch.rand(4, 3, 8, 128)
q_dot_v = torch.einsum('b c i d, b c j d -> b c i j', q, v)
print(q_dot_v.shape)
ref = q @ v.transpose(-1, -2)
print(bool((q_dot_v - ref).abs().max() < 1e-4))

aa = torch.rand(3, 256, 128)
bb = []
bb.append(aa)
bb.append(aa)
print(torch.stack(bb).shape)

targets = torch.rand(128)
print(targets.shape)
targets_uns = targets.unsqueeze(1).data.cpu()
print(targets_uns.shape)

x = torch.Tensor([1, 2, 3])
print(x.repeat(4, 2))

a = torch.arange(9.).view(1, 1, 3, 3) / 10
print(a)
print('=' * 70)
chunk_list = a.chunk(3, 2)
for data in enumerate(chunk_list):
    print(data, '\n')
