# seed 002 snippet without its own import: `import torch` added
import torch
x = torch.rand(2, 3)
print(x)
print('\n\n')
index = torch.LongTensor([[0, 1, 2],
                          [2, 0, 0]])

zeros = torch.zeros(3,4)
zeros.scatter_(0, index, x)
print(zeros)
