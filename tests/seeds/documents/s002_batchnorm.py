import torch
import torch.nn as nn

class modelfunc(nn.Module):

    def __init__(self, class_num):
        super(modelfunc, self).__init__()
        self.bn = nn.BatchNorm1d(1)
        self.bn2 = nn.BatchNorm1d(2)

    def forward(self,x):
        x1 = self.bn(x)
        print('\n--- BN1 ---')
        print(x1)
        print('Input Shape:\t', x1.shape)

        x2 = self.bn2(x.squeeze())
        print('\n--- BN2 ---')
        print(x2)
        print('Input Shape:\t', x2.shape)

        return x

# 模型实例化
model_object = modelfunc(3)

input = torch.FloatTensor([[2,1],[1,4]]).view(2, 1, 2)
print(input)
output = model_object(input)
