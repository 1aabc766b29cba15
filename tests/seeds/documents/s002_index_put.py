# seed 002 snippet without its own import: `import torch` added
import torch
a = torch.zeros([2, 3, 3])
index = [torch.LongTensor([0, 1]), torch.LongTensor([0, 0]), torch.LongTensor([0, 1])]
a = torch.index_put(a, index, torch.Tensor([1, 5]))
print(a)
