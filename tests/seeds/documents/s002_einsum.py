import torch
q=torch.rand(4,3,8,128)
v=torch.rand(4,3,8,128)
q_dot_v = torch.einsum('b c i d, b c j d -> b c i j', q, k)
