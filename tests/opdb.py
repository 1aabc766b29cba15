"""PyTorch's operator database (`torch.testing._internal.common_methods_invocations.op_db`) run
against core through the one harness (tests/harness.py).

For every OpInfo with a core counterpart, its sample inputs, reference inputs and error inputs are
converted to core and compared: forward results (values, dtype, shape, exception class), the method
and in-place variants, and gradients (float64, a fixed random cotangent). Used by tests/test_opdb.py
(capped, in CI) and scripts/opdb_report.py (uncapped, figures per family).
"""
from __future__ import annotations

import re
import types
import warnings
from collections import Counter
from dataclasses import dataclass, field

import core
from harness import Unsupported, compare_call, compare_values, to_core

DTYPES = ("float32", "float64", "int64", "bool")
# not modelled by core: complex, sparse layouts, CUDA-only and jiterator ops
OUT_OF_SCOPE = re.compile(r"^(_|sparse|jiterator|cuda|fft\.|.*_copy$|nn\.functional\.(ctc|multi_head))")


# outputs whose values are undefined (empty) or random: compared by shape and dtype only
UNDEFINED_VALUES = re.compile(r"^(empty|new_empty|empty_like|empty_strided|empty_permuted|new_empty_strided|"
                              r"bernoulli|multinomial|normal|rand_like|randn_like|randint_like|randint|"
                              r"uniform|cauchy|exponential|geometric|log_normal|nn\.functional\.dropout.*|"
                              r"nn\.functional\.(feature_)?alpha_dropout.*|nn\.functional\.rrelu)$")


def load_op_db():
    """op_db, or None when torch/expecttest are absent."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            from torch.testing._internal import common_utils
            from torch.testing._internal.opinfo import core as opinfo_core
            from torch.testing._internal.common_methods_invocations import op_db
    except Exception:  # noqa: BLE001 - torch or expecttest missing
        return None
    _skip_test_fn_lookup(common_utils, opinfo_core)
    return op_db


def _skip_test_fn_lookup(*modules):
    """op_db's sample iterators look for the running unittest.TestCase by walking `inspect.stack()`
    (for its per-test seed and sample tracking), which took ~85% of this suite's op_db time. These
    tests are pytest functions, so the walk always finds none: answer None at once, as it would."""
    for m in modules:
        if hasattr(m, "extract_test_fn"):
            m.extract_test_fn = lambda: None


def opinfo_id(op):
    return op.name + (f".{op.variant_test_name}" if op.variant_test_name else "")


def _resolve(path):
    obj = core
    for part in path.split("."):
        try:
            obj = getattr(obj, part)
        except AttributeError:
            return None
    return obj


def _core_wrapper_set_seed(op, *args, **kwargs):
    """op_db's wrapper_set_seed (random ops run from seed 42, the generator state restored after) on core."""
    state = core.get_rng_state()
    try:
        core.manual_seed(42)
        return op(*args, **kwargs)
    finally:
        core.set_rng_state(state)


def _rebound(fn):
    """torch's own Python wrapper (op_db writes many ops as lambdas: `torch.where(cond, self, other)`,
    `F.embedding(idx, weight)`) with core in place of torch, so the same call runs on core."""
    g = dict(fn.__globals__)
    g.update(torch=core, F=core.nn.functional)
    if "wrapper_set_seed" in g:   # its own globals seed torch's generator: seed core's instead
        g["wrapper_set_seed"] = _core_wrapper_set_seed
    return types.FunctionType(fn.__code__, g, fn.__name__, fn.__defaults__, fn.__closure__)


def core_counterpart(op):
    """core's callable for an OpInfo (function, nn.functional, linalg, special...), a Tensor method
    when torch only has it as one, or None. When op_db wraps the op in a Python function, that
    function is run with core in place of torch."""
    fn = _core_callable(op)
    wrapper = op.op
    if fn is None or not isinstance(wrapper, types.FunctionType) or \
            not getattr(wrapper, "__module__", "").startswith("torch.testing._internal"):
        return fn
    rebound = _rebound(wrapper)

    def call(*args, **kwargs):
        try:
            return rebound(*args, **kwargs)
        except AttributeError as e:   # the wrapper reaches for torch internals core does not model
            if "module 'core" not in str(e):
                raise
            return fn(*args, **kwargs)
    return call


RANDOM_FILLS = {"cauchy", "exponential", "geometric", "log_normal", "uniform"}


def _core_callable(op):
    name = op.name
    if name.startswith("__") and name.endswith("__"):
        return (lambda x, *a, **k: getattr(x, name)(*a, **k)) if name in core.Tensor.__dict__ else None
    if name in RANDOM_FILLS:   # op_db's OpInfo is the Tensor method `name_` under wrapper_set_seed
        return lambda x, *a, **k: getattr(x, name + "_")(*a, **k)
    fn = _resolve(name)
    if fn is not None and callable(fn) and not isinstance(fn, type):
        return fn
    if "." not in name and name in dir(core.Tensor):
        attr = getattr(core.Tensor, name)
        if isinstance(attr, property):
            return lambda x: getattr(x, name)
        return lambda x, *a, **k: getattr(x, name)(*a, **k)
    return None


@dataclass
class OpResult:
    id: str
    counts: Counter = field(default_factory=Counter)     # '<kind>_total' / '<kind>_agree'
    failures: list = field(default_factory=list)         # (kind, dtype, detail)

    def add(self, kind, ok, dtype="", detail=""):
        self.counts[kind + "_total"] += 1
        if ok:
            self.counts[kind + "_agree"] += 1
        else:
            self.failures.append((kind, dtype, detail))


def _samples(op, dtype, torch, requires_grad, cap):
    gens = [op.sample_inputs("cpu", dtype, requires_grad=requires_grad)]
    if getattr(op, "reference_inputs_func", None) is not None:
        gens.append(op.reference_inputs("cpu", dtype, requires_grad=requires_grad))
    n = 0
    for gen in gens:
        try:
            for s in gen:
                if cap is not None and n >= cap:
                    return
                n += 1
                yield s
        except Exception:  # noqa: BLE001 - a generator torch itself cannot run here
            return


def _forward(res, op, fn, s, dtype, torch, grads):
    args, kwargs = (s.input, *s.args), s.kwargs
    values = not UNDEFINED_VALUES.match(op.name)
    d = compare_call(fn, op.op, args, kwargs, torch, grads=grads and values, grad_fn=False, values=values)
    fwd = [x for x in d if x.kind != "grad"]
    res.add("forward", not fwd, dtype, "; ".join(map(str, fwd)))
    if grads and not fwd:
        g = [x for x in d if x.kind == "grad"]
        res.add("grad", not g, dtype, "; ".join(map(str, g)))


def _method(res, op, s, dtype, torch):
    mv = op.method_variant
    name = getattr(mv, "__name__", None)
    if mv is None or name is None or not hasattr(core.Tensor, name) or not hasattr(s.input, "detach"):
        return
    d = compare_call(lambda x, *a, **k: getattr(x, name)(*a, **k), mv, (s.input, *s.args), s.kwargs, torch,
                     grads=False, grad_fn=False, values=not UNDEFINED_VALUES.match(op.name))
    res.add("method", not d, dtype, "; ".join(map(str, d)))


def _inplace(res, op, s, dtype, torch):
    iv = op.inplace_variant
    name = getattr(iv, "__name__", None)
    if iv is None or name is None or not hasattr(core.Tensor, name) or not hasattr(s.input, "detach"):
        return
    t_in = s.input.detach().clone()
    t_args = tuple(a.detach() if hasattr(a, "detach") else a for a in s.args)
    d = compare_call(lambda x, *a, **k: getattr(x, name)(*a, **k), iv, (t_in, *t_args), s.kwargs, torch,
                     grads=False, grad_fn=False, values=not UNDEFINED_VALUES.match(op.name))
    res.add("inplace", not d, dtype, "; ".join(map(str, d)))


def _storage_key(x, torch):
    if isinstance(x, torch.Tensor) and x.layout == torch.strided and not x.requires_grad:
        st = x.untyped_storage()
        if st.nbytes():
            return st.data_ptr(), x.dtype
    return None


def _error_args_to_core(s, torch):
    """An error input's (args, kwargs) in core. Tensors that share a storage in torch (op_db passes the
    input itself, or a view of another argument, as `out=` to test ATen's overlap checks) share one in
    core too: each becomes an as_strided view of one copy of that storage. Others convert as usual."""
    flat = []
    _flat_tensors([s.input, *s.args, *s.kwargs.values()], flat)
    seen = Counter(k for k in (_storage_key(t, torch) for t in flat) if k is not None)
    bases, same = {}, {}

    def conv(x):
        if id(x) in same:            # the same tensor object twice (`out=x`): the same core tensor
            return same[id(x)]
        key = _storage_key(x, torch)
        if key is None or seen[key] < 2:
            same[id(x)] = to_core(x, torch)
            return same[id(x)]
        if key not in bases:
            whole = torch.empty(0, dtype=x.dtype).set_(x.untyped_storage())
            bases[key] = to_core(whole.clone(), torch)
        same[id(x)] = core.as_strided(bases[key], tuple(x.shape), tuple(x.stride()), x.storage_offset())
        return same[id(x)]

    def walk(x):
        if isinstance(x, torch.Tensor):
            return conv(x)
        if type(x) in (list, tuple):
            return type(x)(walk(v) for v in x)
        if isinstance(x, dict):
            return {k: walk(v) for k, v in x.items()}
        return to_core(x, torch)
    return walk([s.input, *s.args]), walk(dict(s.kwargs))


def _flat_tensors(x, out):
    if isinstance(x, (list, tuple)):
        for v in x:
            _flat_tensors(v, out)
    elif hasattr(x, "untyped_storage"):
        out.append(x)
    return out


def _torch_raises(op, s):
    """Whether torch itself raises on an error input."""
    try:
        op.op(s.input, *s.args, **s.kwargs)
    except Exception:  # noqa: BLE001 - any exception counts; its class is compared afterwards
        return True
    return False


def _errors(res, op, fn, torch):
    try:
        errs = list(op.error_inputs("cpu"))
    except Exception:  # noqa: BLE001
        return
    for e in errs:
        s = e.sample_input
        try:
            args, kwargs = _error_args_to_core(s, torch)   # first: torch may resize an out= before raising
        except Unsupported:
            continue
        if not _torch_raises(op, s):
            continue    # an error input this torch build does not raise on (clamp_max(int tensor, 2)): no claim
        try:
            fn(*args, **kwargs)
            ok, detail = False, f"no error; torch raises {e.error_type.__name__}: {e.error_regex}"
        except Exception as exc:  # noqa: BLE001
            ok = type(exc).__name__ == e.error_type.__name__ or isinstance(exc, e.error_type)
            detail = f"{type(exc).__name__}: {str(exc)[:120]}; torch {e.error_type.__name__}: {e.error_regex}"
        res.add("error", ok, "", detail)


def run_opinfo(op, torch, cap=None, dtypes=DTYPES):
    """Compare one OpInfo's samples between core and torch; None when core has no counterpart."""
    fn = core_counterpart(op)
    if fn is None:
        return None
    res = OpResult(opinfo_id(op))
    supported = {str(d).replace("torch.", "") for d in op.supported_dtypes("cpu")}
    torch.manual_seed(0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for name in dtypes:
            if name not in supported:
                continue
            dtype = getattr(torch, name)
            grads = name == "float64" and op.supports_autograd
            for s in _samples(op, dtype, torch, grads, cap):
                try:
                    _forward(res, op, fn, s, name, torch, grads)
                    _method(res, op, s, name, torch)
                    _inplace(res, op, s, name, torch)
                except Unsupported:
                    continue
        _errors(res, op, fn, torch)
    return res


__all__ = ["load_op_db", "run_opinfo", "core_counterpart", "opinfo_id", "OUT_OF_SCOPE", "compare_values"]
