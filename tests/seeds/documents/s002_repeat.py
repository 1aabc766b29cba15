# seed 002 snippet without its own import: `import torch` added
import torch
x = torch.Tensor([1, 2, 3])
x.repeat(4, 2)
