"""torch.utils.checkpoint: checkpoint / checkpoint_sequential with torch's results, gradients, random
streams and warnings.

use_reentrant=True is torch's CheckpointFunction: the forward runs under no_grad, the backward re-runs it
with the forward's random state restored (fork_rng) and back-propagates through the re-run
(grad_fn CheckpointFunctionBackward). use_reentrant=False records the function's own graph once, as
torch's non-reentrant variant appears to a program (same values, gradients, grad_fn and random stream);
core keeps its activations instead of recomputing them, so it saves no memory."""
from __future__ import annotations

import contextlib
import warnings

from .. import random as _random
from ..autograd.function import Function
from ..autograd.grad_mode import enable_grad, no_grad
from ..tensor import Tensor

__all__ = ["checkpoint", "checkpoint_sequential", "CheckpointFunction", "check_backward_validity",
           "detach_variable", "noop_context_fn"]


def noop_context_fn():
    return contextlib.nullcontext(), contextlib.nullcontext()


def detach_variable(inputs):
    """Each tensor detached, keeping its requires_grad (a new leaf of the re-run)."""
    if not isinstance(inputs, tuple):
        raise RuntimeError("Only tuple of tensors is supported. Got Unsupported input type: ",
                           type(inputs).__name__)
    out = []
    for inp in inputs:
        if not isinstance(inp, Tensor):
            out.append(inp)
            continue
        x = inp.detach()
        x.requires_grad = inp.requires_grad
        out.append(x)
    return tuple(out)


def check_backward_validity(inputs):
    if not any(isinstance(inp, Tensor) and inp.requires_grad for inp in inputs):
        warnings.warn("None of the inputs have requires_grad=True. Gradients will be None", stacklevel=2)


class CheckpointFunction(Function):
    @staticmethod
    def forward(ctx, run_function, preserve_rng_state, *args):
        check_backward_validity(args)
        ctx.run_function, ctx.preserve_rng_state = run_function, preserve_rng_state
        if preserve_rng_state:
            ctx.fwd_cpu_state = _random.get_rng_state()
        ctx.inputs, ctx.tensor_indices, tensor_inputs = [], [], []
        for i, arg in enumerate(args):
            if isinstance(arg, Tensor):
                tensor_inputs.append(arg)
                ctx.tensor_indices.append(i)
                ctx.inputs.append(None)
            else:
                ctx.inputs.append(arg)
        ctx.save_for_backward(*tensor_inputs)
        with no_grad():
            outputs = run_function(*args)
        return outputs

    @staticmethod
    def backward(ctx, *args):
        inputs = list(ctx.inputs)
        for i, idx in enumerate(ctx.tensor_indices):
            inputs[idx] = ctx.saved_tensors[i]
        with _random.fork_rng(devices=[], enabled=ctx.preserve_rng_state):
            if ctx.preserve_rng_state:
                _random.set_rng_state(ctx.fwd_cpu_state)
            detached = detach_variable(tuple(inputs))
            with enable_grad():
                outputs = ctx.run_function(*detached)
        if isinstance(outputs, Tensor):
            outputs = (outputs,)
        pairs = [(o, g) for o, g in zip(outputs, args) if isinstance(o, Tensor) and o.requires_grad]
        if not pairs:
            raise RuntimeError("none of output has requires_grad=True, this checkpoint() is not necessary")
        from ..autograd import backward   # core.autograd imports this package's siblings: resolved at call time
        backward([o for o, _ in pairs], [g for _, g in pairs])
        return (None, None) + tuple(inp.grad if isinstance(inp, Tensor) else None for inp in detached)


def checkpoint(function, *args, use_reentrant=None, context_fn=noop_context_fn, determinism_check="default",
               debug=False, early_stop=True, **kwargs):
    """function(*args, **kwargs) whose activations torch would recompute in the backward pass."""
    if use_reentrant is None:
        warnings.warn("torch.utils.checkpoint: the use_reentrant parameter should be passed explicitly. Starting in "
                      "PyTorch 2.9, calling checkpoint without use_reentrant will raise an exception. "
                      "use_reentrant=False is recommended, but if you need to preserve the current default behavior, "
                      "you can pass use_reentrant=True. Refer to docs for more details on the differences between "
                      "the two variants.", stacklevel=1)   # torch: inside its dynamo wrapper
        use_reentrant = True
    preserve = kwargs.pop("preserve_rng_state", True)
    if kwargs and use_reentrant:
        raise ValueError("Unexpected keyword arguments: " + ",".join(arg for arg in kwargs))
    if use_reentrant:
        if context_fn is not noop_context_fn or debug is not False:
            raise ValueError("Passing `context_fn` or `debug` is only supported when use_reentrant=False.")
        return CheckpointFunction.apply(function, preserve, *args)
    return function(*args, **kwargs)


def checkpoint_sequential(functions, segments, input, use_reentrant=None, **kwargs):
    """Run the modules/functions in `segments` chunks, each but the last checkpointed (torch's split)."""
    if use_reentrant is None:
        warnings.warn("torch.utils.checkpoint.checkpoint_sequential: the use_reentrant parameter should be passed "
                      "explicitly. In version 2.9 we will raise an exception if use_reentrant is not passed. "
                      "use_reentrant=False is recommended, but if you need to preserve the current default behavior, "
                      "you can pass use_reentrant=True. Refer to docs for more details on the differences between "
                      "the two variants.", stacklevel=2)
        use_reentrant = True
    preserve = kwargs.pop("preserve_rng_state", True)
    if kwargs:
        raise ValueError("Unexpected keyword arguments: " + ",".join(arg for arg in kwargs))

    def run_function(start, end, functions):
        def forward(input):
            for j in range(start, end + 1):
                input = functions[j](input)
            return input
        return forward

    if hasattr(functions, "children") and type(functions).__name__ == "Sequential":
        functions = list(functions.children())
    segment_size = len(functions) // segments
    end = -1
    for start in range(0, segment_size * (segments - 1), segment_size):
        end = start + segment_size - 1
        input = checkpoint(run_function(start, end, functions), input, use_reentrant=use_reentrant,
                           preserve_rng_state=preserve)
    return run_function(end + 1, len(functions) - 1, functions)(input)
