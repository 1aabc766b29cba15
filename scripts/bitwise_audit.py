#!/usr/bin/env python
"""Bitwise audit: core against torch (one thread) on random normal inputs, element by element.

Every registered op that accepts float tensors is called the same way on core and on torch with three
random normal inputs (x, y, z) of several shapes, contiguous and transposed; ops that need other
arguments (dims, targets, weights, normalized shapes) have their calls in CASES. Per op it prints the
share of output elements whose bits differ, the largest distance in units in the last place (ulp), and
whether the op is bit-exact on every call; with --grad it also compares the gradients of the inputs
(a fixed random cotangent).

    python scripts/bitwise_audit.py                    # every op, float32, the issue's shapes
    python scripts/bitwise_audit.py --dtype float64 cumsum var layer_norm
    python scripts/bitwise_audit.py --grad --markdown  # the table docs/bitwise.md keeps

tests/test_bitwise_audit.py runs `audit` for the ops pinned in tests/bitwise_exact.json on small shapes.
"""
from __future__ import annotations

import argparse
import math
import os
import sys
import warnings

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import numpy as np  # noqa: E402

SHAPES = ((32, 96), (256, 257))
SMALL_SHAPES = ((5, 7), (33, 20))
LAYOUTS = ("contiguous", "transposed")


def _f(T):
    return T.nn.functional


# Calls of ops that need more than tensors: name -> [(label, call(T, x, y, z))]; the call runs unchanged on
# torch and on core (`import core as torch`). Ops not listed are tried as f(x), f(x, y), f(x, y, z).
CASES = {
    "cumsum": [("dim0", lambda T, x, y, z: T.cumsum(x, 0)), ("dim1", lambda T, x, y, z: T.cumsum(x, 1))],
    "cumprod": [("dim0", lambda T, x, y, z: T.cumprod(x, 0)), ("dim1", lambda T, x, y, z: T.cumprod(x, 1))],
    "logcumsumexp": [("dim0", lambda T, x, y, z: T.logcumsumexp(x, 0)),
                     ("dim1", lambda T, x, y, z: T.logcumsumexp(x, 1))],
    "cummax": [("dim0", lambda T, x, y, z: T.cummax(x.round(), 0)), ("dim1", lambda T, x, y, z: T.cummax(x.round(), 1))],
    "cummin": [("dim0", lambda T, x, y, z: T.cummin(x.round(), 0)), ("dim1", lambda T, x, y, z: T.cummin(x.round(), 1))],
    "prod": [("all", lambda T, x, y, z: T.prod(x[:4] + 1)), ("dim0", lambda T, x, y, z: T.prod(x + 1, 0)),
             ("dim1", lambda T, x, y, z: T.prod(x + 1, 1))],
    "var": [("all", lambda T, x, y, z: T.var(x)), ("dim0", lambda T, x, y, z: T.var(x, 0)),
            ("dim1", lambda T, x, y, z: T.var(x, 1)), ("dims", lambda T, x, y, z: T.var(x, (0, 1), correction=0))],
    "std": [("all", lambda T, x, y, z: T.std(x)), ("dim0", lambda T, x, y, z: T.std(x, 0)),
            ("dim1", lambda T, x, y, z: T.std(x, 1))],
    "var_mean": [("all", lambda T, x, y, z: T.var_mean(x)), ("dim0", lambda T, x, y, z: T.var_mean(x, 0)),
                 ("dim1", lambda T, x, y, z: T.var_mean(x, 1))],
    "std_mean": [("all", lambda T, x, y, z: T.std_mean(x)), ("dim0", lambda T, x, y, z: T.std_mean(x, 0)),
                 ("dim1", lambda T, x, y, z: T.std_mean(x, 1))],
    "lerp": [("scalar", lambda T, x, y, z: T.lerp(x, y, 0.3)), ("scalar_hi", lambda T, x, y, z: T.lerp(x, y, 0.7)),
             ("tensor", lambda T, x, y, z: T.lerp(x, y, z))],
    "addcmul": [("v1", lambda T, x, y, z: T.addcmul(x, y, z)), ("v", lambda T, x, y, z: T.addcmul(x, y, z, value=0.3))],
    "addcdiv": [("v1", lambda T, x, y, z: T.addcdiv(x, y, z)), ("v", lambda T, x, y, z: T.addcdiv(x, y, z, value=0.3))],
    "softmax": [("dim0", lambda T, x, y, z: T.softmax(x, 0)), ("dim1", lambda T, x, y, z: T.softmax(x, 1))],
    "log_softmax": [("dim0", lambda T, x, y, z: T.log_softmax(x, 0)), ("dim1", lambda T, x, y, z: T.log_softmax(x, 1))],
    "layer_norm": [("plain", lambda T, x, y, z: _f(T).layer_norm(x, x.shape[-1:])),
                   ("affine", lambda T, x, y, z: _f(T).layer_norm(x, x.shape[-1:], y[0], z[0]))],
    "group_norm": [("g", lambda T, x, y, z: _f(T).group_norm(x.reshape(x.shape[0], 4, -1) if x.shape[1] % 4 == 0
                                                           else x.reshape(x.shape[0], 1, -1), 1))],
    "batch_norm": [("train", lambda T, x, y, z: _f(T).batch_norm(x, None, None, training=True)),
                   ("affine", lambda T, x, y, z: _f(T).batch_norm(x, None, None, y[0], z[0], training=True))],
    "instance_norm": [("plain", lambda T, x, y, z: _f(T).instance_norm(x[None]))],
    "mse_loss": [(r, lambda T, x, y, z, r=r: _f(T).mse_loss(x, y, reduction=r)) for r in ("mean", "sum", "none")],
    "l1_loss": [(r, lambda T, x, y, z, r=r: _f(T).l1_loss(x, y, reduction=r)) for r in ("mean", "sum")],
    "smooth_l1_loss": [(r, lambda T, x, y, z, r=r: _f(T).smooth_l1_loss(x, y, reduction=r)) for r in ("mean", "sum")],
    "huber_loss": [(r, lambda T, x, y, z, r=r: _f(T).huber_loss(x, y, reduction=r)) for r in ("mean", "sum")],
    "binary_cross_entropy": [(r, lambda T, x, y, z, r=r: _f(T).binary_cross_entropy(x.sigmoid(), y.sigmoid(),
                                                                                     reduction=r))
                             for r in ("mean", "sum")],
    "cross_entropy": [(r, lambda T, x, y, z, r=r: _f(T).cross_entropy(x, (y.abs() * 7).long()[:, 0] % x.shape[1],
                                                                      reduction=r)) for r in ("mean", "sum")],
    "nll_loss": [(r, lambda T, x, y, z, r=r: _f(T).nll_loss(x, (y.abs() * 7).long()[:, 0] % x.shape[1], reduction=r))
                 for r in ("mean", "sum")],
    "binary_cross_entropy_with_logits": [(r, lambda T, x, y, z, r=r: _f(T).binary_cross_entropy_with_logits(
        x, y, reduction=r)) for r in ("none", "mean", "sum")] + [
        ("pos_weight", lambda T, x, y, z: _f(T).binary_cross_entropy_with_logits(x, y, pos_weight=z[0].detach().abs())),
        ("weight", lambda T, x, y, z: _f(T).binary_cross_entropy_with_logits(x, y, weight=z.detach(), reduction="sum"))],
    "kl_div": [(r, lambda T, x, y, z, r=r: _f(T).kl_div(x, y, reduction=r)) for r in ("none", "mean", "sum", "batchmean")]
    + [("log_target", lambda T, x, y, z: _f(T).kl_div(x, y, reduction="sum", log_target=True))],
    "multilabel_soft_margin_loss": [(r, lambda T, x, y, z, r=r: _f(T).multilabel_soft_margin_loss(
        x, y.detach().sign().clamp_min(0), reduction=r)) for r in ("none", "mean", "sum")],
    "soft_margin_loss": [(r, lambda T, x, y, z, r=r: _f(T).soft_margin_loss(x, y.detach().sign(), reduction=r))
                         for r in ("none", "mean", "sum")],
    "poisson_nll_loss": [(r, lambda T, x, y, z, r=r: _f(T).poisson_nll_loss(x, y.detach().abs(), reduction=r))
                         for r in ("none", "mean", "sum")]
    + [("full", lambda T, x, y, z: _f(T).poisson_nll_loss(x.abs(), y.detach().abs() * 3, log_input=False, full=True))],
    "gaussian_nll_loss": [(r, lambda T, x, y, z, r=r: _f(T).gaussian_nll_loss(x, y, z.detach().abs(), reduction=r))
                          for r in ("none", "mean", "sum")],
}

# never compared: random, uninitialised or data-dependent-shape outputs
SKIP = {"empty", "empty_like", "dropout", "alpha_dropout", "feature_alpha_dropout", "dropout1d", "dropout2d",
        "dropout3d", "rrelu", "bernoulli", "multinomial", "normal", "rand_like", "randn_like", "randint_like",
        "poisson", "nonzero", "unique", "unique_consecutive", "masked_select", "argwhere", "empty_strided"}


def _ordered(a):
    """Float bits as integers ordered like the values (so |i - j| is the ulp distance)."""
    if a.dtype == np.float32:
        i = a.view(np.int32).astype(np.int64)
        return np.where(i < 0, np.int64(-2 ** 31) - i, i)
    i = a.view(np.int64)
    return np.where(i < 0, np.int64(-2 ** 63) - i, i)


def compare_arrays(ours, ref):
    """(elements, differing elements, max ulp) of two float arrays of one shape (NaNs equal)."""
    ours = np.ascontiguousarray(ours)
    ref = np.ascontiguousarray(ref)
    if ours.shape != ref.shape or ours.dtype != ref.dtype:
        return ref.size, ref.size, math.inf
    if ref.dtype.kind != "f":
        diff = int(np.count_nonzero(ours != ref))
        return ref.size, diff, (math.inf if diff else 0)
    same = (ours.view(np.uint8).reshape(ours.shape + (-1,)) == ref.view(np.uint8).reshape(ref.shape + (-1,))).all(-1)
    both_nan = np.isnan(ours) & np.isnan(ref)
    bad = ~(same | both_nan)
    diff = int(np.count_nonzero(bad))
    if not diff:
        return ref.size, 0, 0
    o, r = ours[bad], ref[bad]
    if np.isnan(o).any() or np.isnan(r).any():
        return ref.size, diff, math.inf
    if o.dtype == np.float64:   # differences of int64 orderings can overflow: go through Python ints
        ulp = max(abs(int(a) - int(b)) for a, b in zip(_ordered(o).tolist(), _ordered(r).tolist()))
    else:
        ulp = int(np.abs(_ordered(o) - _ordered(r)).max())
    return ref.size, diff, ulp


def _flat_tensors(out):
    if isinstance(out, (tuple, list)):
        return [t for o in out for t in _flat_tensors(o)]
    return [out] if hasattr(out, "shape") and hasattr(out, "dtype") else []


def _inputs(shape, layout, dtype, seed):
    rng = np.random.default_rng(seed)
    arrays = []
    for _ in range(3):
        if layout == "transposed":
            arrays.append(rng.standard_normal(shape[::-1]).astype(dtype).T)
        else:
            arrays.append(rng.standard_normal(shape).astype(dtype))
    return arrays


def _wrap(T, arrays, layout, grad):
    out = []
    for a in arrays:
        t = T.from_numpy(np.ascontiguousarray(a.T)).t() if layout == "transposed" else T.from_numpy(a.copy())
        if grad:
            t = t.detach().requires_grad_(True)
        out.append(t)
    return out


def _resolve(T, name):
    for ns in (T, T.nn.functional, T.special, T.linalg):
        obj = getattr(ns, name, None)
        if callable(obj):
            return obj
    return None


def _generic_calls(name, torch, core):
    ft, fc = _resolve(torch, name), _resolve(core, name)
    if ft is None or fc is None:
        return []
    calls = []
    for k in (1, 2, 3):
        calls.append((f"{k}arg", (lambda f_t, f_c, k: lambda T, x, y, z: (f_t if T is torch else f_c)(*(x, y, z)[:k]))(
            ft, fc, k)))
    return calls


def _run(T, call, arrays, layout, grad, seed):
    T.manual_seed(seed)
    xs = _wrap(T, arrays, layout, grad)
    out = call(T, *xs)
    outs = [o.detach().numpy() if hasattr(o, "detach") else np.asarray(o) for o in _flat_tensors(out)]
    grads = []
    if grad:
        fl = [o for o in _flat_tensors(out) if o.dtype.is_floating_point and o.requires_grad]
        if fl:
            rng = np.random.default_rng(seed + 1)
            cot = [T.from_numpy(rng.standard_normal(tuple(o.shape)).astype(np.dtype(str(o.dtype).split(".")[-1])))
                   for o in fl]
            gs = T.autograd.grad(fl, xs, cot, allow_unused=True)
            grads = [g.numpy() if g is not None else None for g in gs]
    return outs, grads


def audit_op(name, torch, core, dtype="float32", shapes=SHAPES, layouts=LAYOUTS, grad=False, seeds=(0,)):
    """Audit one op: dict(name, calls, elements, differ, max_ulp, exact, grad_*) or None when no call of
    it works on torch and core alike."""
    calls = CASES.get(name) or _generic_calls(name, torch, core)
    row = {"name": name, "calls": 0, "elements": 0, "differ": 0, "max_ulp": 0,
           "grad_elements": 0, "grad_differ": 0, "grad_max_ulp": 0}
    generic = name not in CASES
    for label, call in calls:
        ok = False
        for shape in shapes:
            for layout in layouts:
                for seed in seeds:
                    arrays = _inputs(shape, layout, np.dtype(dtype), seed)
                    try:
                        ref, ref_g = _run(torch, call, arrays, layout, grad, seed)
                    except Exception:  # noqa: BLE001 - torch refuses this call: not a comparison
                        if generic:
                            break
                        continue
                    if not any(r.dtype.kind == "f" for r in ref):
                        break
                    try:
                        ours, ours_g = _run(core, call, arrays, layout, grad, seed)
                    except Exception as e:  # noqa: BLE001 - core fails where torch succeeds: every element differs
                        ours, ours_g = None, None
                        row["error"] = f"{type(e).__name__}: {e}"[:80]
                    ok = True
                    row["calls"] += 1
                    for i, r in enumerate(ref):
                        n, d, u = (r.size, r.size, math.inf) if ours is None or i >= len(ours) else \
                            compare_arrays(ours[i], r)
                        row["elements"] += n
                        row["differ"] += d
                        row["max_ulp"] = max(row["max_ulp"], u)
                    for i, r in enumerate(ref_g):
                        if r is None:
                            continue
                        o = None if ours_g is None or i >= len(ours_g) else ours_g[i]
                        n, d, u = (r.size, r.size, math.inf) if o is None else compare_arrays(o, r)
                        row["grad_elements"] += n
                        row["grad_differ"] += d
                        row["grad_max_ulp"] = max(row["grad_max_ulp"], u)
        if generic and ok:
            break            # the first arity that works is the op's call
    if not row["calls"]:
        return None
    row["exact"] = row["differ"] == 0 and (not grad or row["grad_differ"] == 0)
    return row


def op_names(core):
    from core.ops import registry
    names = [n for n, info in registry.OPS.items()
             if info.category not in ("random",) and n not in SKIP and not n.endswith("_")]
    return sorted(set(names) | set(CASES))


def audit(names, dtype="float32", shapes=SHAPES, layouts=LAYOUTS, grad=False, seeds=(0,)):
    import torch

    import core
    torch.set_num_threads(1)
    rows = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for name in names:
            r = audit_op(name, torch, core, dtype, shapes, layouts, grad, seeds)
            if r is not None:
                rows.append(r)
    return rows


def _fmt_ulp(u):
    return "inf" if u == math.inf else str(u)


def render(rows, markdown=False, grad=False):
    head = ["op", "calls", "differ %", "max ulp"] + (["grad differ %", "grad max ulp"] if grad else []) + ["exact"]
    lines = []
    for r in rows:
        share = 100.0 * r["differ"] / max(r["elements"], 1)
        cells = [r["name"], str(r["calls"]), f"{share:.2f}", _fmt_ulp(r["max_ulp"])]
        if grad:
            gshare = 100.0 * r["grad_differ"] / r["grad_elements"] if r["grad_elements"] else 0.0
            cells += [f"{gshare:.2f}" if r["grad_elements"] else "-",
                      _fmt_ulp(r["grad_max_ulp"]) if r["grad_elements"] else "-"]
        cells.append("yes" if r["exact"] else "no")
        lines.append(cells)
    if markdown:
        out = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
        out += ["| " + " | ".join(c) + " |" for c in lines]
        return "\n".join(out)
    widths = [max(len(h), *(len(c[i]) for c in lines)) if lines else len(h) for i, h in enumerate(head)]
    out = ["  ".join(h.ljust(w) for h, w in zip(head, widths))]
    out += ["  ".join(c.ljust(w) for c, w in zip(cells, widths)) for cells in lines]
    return "\n".join(out)


PIN_FILE = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "tests", "bitwise_exact.json")
PIN_SHAPES = ((6, 5),)


def pin_rows(names, dtype):
    """The audit tests/test_bitwise_audit.py runs: small shapes, both layouts, one seed, gradients."""
    return audit(names, dtype, PIN_SHAPES, LAYOUTS, grad=True, seeds=(0,))


def write_pins(names):
    """Add the ops bit-exact in pin_rows (per dtype) to tests/bitwise_exact.json; pinned ops are kept."""
    import json
    pins = {}
    if os.path.exists(PIN_FILE):
        with open(PIN_FILE) as f:
            pins = json.load(f)
    for dtype in ("float32", "float64"):
        exact = {r["name"] for r in pin_rows(names, dtype) if r["exact"]}
        pins[dtype] = sorted(exact | set(pins.get(dtype, ())))
    with open(PIN_FILE, "w") as f:
        json.dump(pins, f, indent=1)
        f.write("\n")
    return pins


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("ops", nargs="*", help="op names (default: every registered op)")
    p.add_argument("--dtype", default="float32", choices=("float32", "float64"))
    p.add_argument("--grad", action="store_true", help="compare input gradients too")
    p.add_argument("--small", action="store_true", help="small shapes (fast)")
    p.add_argument("--seeds", type=int, default=3, help="random inputs per shape and layout")
    p.add_argument("--markdown", action="store_true")
    p.add_argument("--write-pins", action="store_true",
                   help="add the ops bit-exact on the pin audit to tests/bitwise_exact.json")
    a = p.parse_args(argv)
    try:    # a call whose output explodes (kron of two 256x257 inputs: 17 GB) raises instead of being OOM-killed
        import resource
        resource.setrlimit(resource.RLIMIT_AS, (6 << 30, resource.getrlimit(resource.RLIMIT_AS)[1]))
    except (ImportError, ValueError, OSError):
        pass
    import core
    names = a.ops or op_names(core)
    if a.write_pins:
        pins = write_pins(names)
        print(", ".join(f"{k}: {len(v)} ops" for k, v in pins.items()), "pinned in", PIN_FILE)
        return
    rows = audit(names, a.dtype, SMALL_SHAPES if a.small else SHAPES, LAYOUTS, a.grad, tuple(range(a.seeds)))
    print(render(rows, a.markdown, a.grad))
    exact = sum(r["exact"] for r in rows)
    print(f"\n{exact} of {len(rows)} ops bit-exact ({a.dtype}, shapes {SMALL_SHAPES if a.small else SHAPES}, "
          f"{', '.join(LAYOUTS)}, {a.seeds} seed(s))")


if __name__ == "__main__":
    main()
