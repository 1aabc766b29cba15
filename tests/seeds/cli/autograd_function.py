# seed 002: custom autograd.Function MultiplyAdd (rand values replaced by fixed ones)
import torch as t
from torch.autograd import Function



class MultiplyAdd(Function):

    @staticmethod
    def forward(ctx, w, x, b):
        print('type in forward', type(x))
        ctx.save_for_backward(w, x)
        output = w*x +b
        return output

    @staticmethod
    def backward(ctx, grad_output):
        w, x = ctx.saved_variables
        print('type in backward',type(x))
        grad_w = grad_output * x
        grad_x = grad_output * w
        grad_b = grad_output * 1
        return grad_w, grad_x, grad_b


from torch.autograd import Variable as V
x = V(t.ones(1))
w = V(t.tensor([0.3]),requires_grad=True)
b = V(t.tensor([0.7]),requires_grad=True)
print('开始前向传播')
z=MultiplyAdd.apply(w, x, b)
print('开始反向传播')
z.backward()
print((x.grad, w.grad, b.grad))
print(z, z.grad_fn.name())
