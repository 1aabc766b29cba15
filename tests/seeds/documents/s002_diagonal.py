# seed 002 snippet without its own import: `import torch` and Variable's import added
import torch
from torch.autograd import Variable
mat = Variable(torch.randn(3, 4))
res = Variable(torch.zeros(3, 4, 4))
res.as_strided(mat.size(), [res.stride(0), res.size(2) + 1]).copy_(mat)
