"""Module full backward hooks (torch/utils/hooks.py BackwardHook): the module's tensor inputs and outputs
pass through an identity autograd Function (BackwardHookFunctionBackward); a pre-hook on the outputs'
node captures grad_output (and runs the backward pre-hooks), a post hook on the inputs' node calls
hook(module, grad_input, grad_output) with the gradients of the inputs, None where an input is not a
tensor or needs none. Registered hooks only see calls made after they were registered, as in torch."""
from __future__ import annotations

import warnings

from ..autograd.function import Function
from ..autograd.grad_mode import is_grad_enabled
from ..tensor import Tensor


class BackwardHookFunction(Function):
    @staticmethod
    def forward(ctx, *args):
        ctx.mark_non_differentiable(*[a for a in args if not a.requires_grad])
        return args

    @staticmethod
    def backward(ctx, *args):
        return args


class BackwardHook:
    def __init__(self, module, user_hooks, user_pre_hooks):
        self.module, self.user_hooks, self.user_pre_hooks = module, user_hooks, user_pre_hooks
        self.grad_outputs = None
        self.n_outputs = self.n_inputs = -1
        self.output_tensors_index = self.input_tensors_index = None

    @staticmethod
    def _pack_with_none(indices, values, size):
        res = [None] * size
        for idx, val in zip(indices, values):
            res[idx] = val
        return tuple(res)

    @staticmethod
    def _unpack_none(indices, values):
        return tuple(values[idx] for idx in indices)

    def _set_user_hook(self, grad_fn):
        def hook(grad_input, _):
            if self.grad_outputs is None:   # no output received a gradient
                return None
            res = self._pack_with_none(self.input_tensors_index, grad_input, self.n_inputs)
            for user_hook in self.user_hooks:
                out = user_hook(self.module, res, self.grad_outputs)
                if out is None:
                    continue
                if len(out) != len(res):
                    raise RuntimeError("Backward hook returned an invalid number of grad_input, "
                                       f"got {len(out)}, but expected {len(res)}")
                res = out
            self.grad_outputs = None
            return self._unpack_none(self.input_tensors_index, res)
        grad_fn.register_hook(hook)

    def _apply_on_tensors(self, fn, args):
        tensors_idx = [i for i, a in enumerate(args) if isinstance(a, Tensor)]
        tensors = [args[i] for i in tensors_idx]
        if not (any(t.requires_grad for t in tensors) and is_grad_enabled()):
            return args, None
        new_tensors = BackwardHookFunction.apply(*tensors)
        if isinstance(new_tensors, Tensor):
            new_tensors = (new_tensors,)
        if len(new_tensors) == 0:
            raise RuntimeError("Cannot set Module backward hook for a Module with no input Tensors.")
        grad_fns = [t.grad_fn for t in new_tensors
                    if t.grad_fn is not None and t.grad_fn.name() == "BackwardHookFunctionBackward"]
        fn(grad_fns[0])
        arg_list = list(args)
        for idx, val in zip(tensors_idx, new_tensors):
            arg_list[idx] = val
        return (tuple(arg_list) if type(args) is tuple else type(args)(*arg_list)), tensors_idx

    def setup_input_hook(self, args):
        res, self.input_tensors_index = self._apply_on_tensors(self._set_user_hook, args)
        self.n_inputs = len(args)
        return res

    def setup_output_hook(self, args):
        def fn(grad_fn):
            def hook(grad_output):
                self.grad_outputs = self._pack_with_none(self.output_tensors_index, grad_output, self.n_outputs)
                for user_pre_hook in self.user_pre_hooks:
                    new = user_pre_hook(self.module, self.grad_outputs)
                    if new is None:
                        continue
                    if len(new) != len(self.grad_outputs):
                        raise RuntimeError("Backward pre hook returned an invalid number of grad_output, "
                                           f"got {len(new)}, but expected {len(self.grad_outputs)}")
                    self.grad_outputs = new
                local = self.grad_outputs
                if self.input_tensors_index is None:   # no input needs a gradient: call the hooks now
                    warnings.warn("Full backward hook is firing when gradients are computed with respect to module "
                                  "outputs since no inputs require gradients. See https://docs.pytorch.org/docs/"
                                  "main/generated/torch.nn.Module.html#torch.nn.Module.register_full_backward_hook "
                                  "for more details.", stacklevel=5)
                    grad_inputs = self._pack_with_none([], [], self.n_inputs)
                    for user_hook in self.user_hooks:
                        res = user_hook(self.module, grad_inputs, self.grad_outputs)
                        if res is not None and not (isinstance(res, tuple) and all(el is None for el in res)):
                            raise RuntimeError("Backward hook for Modules where no input requires gradient should "
                                               "always return None or None for all gradients.")
                    self.grad_outputs = None
                if self.user_pre_hooks:
                    return self._unpack_none(self.output_tensors_index, local)
                return None
            grad_fn.register_prehook(hook)
        is_tuple = isinstance(args, tuple)
        if not is_tuple:
            args = (args,)
        res, self.output_tensors_index = self._apply_on_tensors(fn, args)
        self.n_outputs = len(args)
        return res if is_tuple else res[0]
