"""A custom autograd.Function and a hook, as in the "extending autograd" tutorial."""
import torch


class MyExp(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        result = x.exp()
        ctx.save_for_backward(result)
        return result

    @staticmethod
    def backward(ctx, grad_output):
        (result,) = ctx.saved_tensors
        return grad_output * result


x = torch.tensor([0.0, 1.0, -1.0], requires_grad=True)
y = MyExp.apply(x)
print(y)
seen = []
x.register_hook(lambda g: seen.append(g.clone()))
(y * torch.tensor([1.0, 2.0, 3.0])).sum().backward()
print(x.grad)
print(seen[0])
print(type(y.grad_fn).__name__)
