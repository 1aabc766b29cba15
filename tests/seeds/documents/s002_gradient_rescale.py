# seed 002 snippet without its own import: `import torch` added
import torch
# ---- GradientRescale ---- #
class GradientRescaleFunction(torch.autograd.Function):

    @staticmethod
    def forward(ctx, input, weight):
        ctx.save_for_backward(input)
        output = input
        return output

    @staticmethod
    def backward(ctx, grad_output):
        input = ctx.saved_tensors
        grad_input = 0.2

        return grad_input   

##### 使用apply方法对自己定义的torch.autograd.Function方法取个别名
gradient_func = GradientFunction.apply
