# seed 002 snippet without its own import: `import torch` added
import torch
a = torch.rand([1,1,3,3])
print(a)
print('='*70)
############################################
###  .chunk([分成的份数]，[第几维上进行])  ###
############################################
chunk_list = a.chunk(3,2)
for data in enumerate(chunk_list):
    print(data,'\n')
