"""L-BFGS (torch.optim.LBFGS), a line-by-line port of torch/optim/lbfgs.py onto core tensors: a closure-driven
quasi-Newton step with fixed step or strong-Wolfe line search; history lives in the first parameter's state.
Dot products and sums are NumPy/BLAS reductions, so values agree with torch to rounding, not bit for bit."""
from __future__ import annotations

from .. import creation
from ..autograd.grad_mode import enable_grad, no_grad
from ..ops.shape import cat
from ._kernels import add_, bump
from .optimizer import Optimizer, _check_lr, _to_float

__all__ = ["LBFGS"]


def _axpy_(t, other, alpha):
    """t.add_(other, alpha=alpha) with alpha a number or a 0-dim tensor (torch takes its value)."""
    add_(t._data, other._data, float(alpha))
    bump(t)
    return t


def _cubic_interpolate(x1, f1, g1, x2, f2, g2, bounds=None):
    """Minimiser of the cubic through (x1, f1, g1), (x2, f2, g2), clamped to bounds (torch's formula)."""
    if bounds is not None:
        xmin_bound, xmax_bound = bounds
    else:
        xmin_bound, xmax_bound = (x1, x2) if x1 <= x2 else (x2, x1)
    d1 = g1 + g2 - 3 * (f1 - f2) / (x1 - x2)
    d2_square = d1 ** 2 - g1 * g2
    if d2_square >= 0:
        d2 = d2_square.sqrt()
        if x1 <= x2:
            min_pos = x2 - (x2 - x1) * ((g2 + d2 - d1) / (g2 - g1 + 2 * d2))
        else:
            min_pos = x1 - (x1 - x2) * ((g1 + d2 - d1) / (g1 - g2 + 2 * d2))
        return min(max(min_pos, xmin_bound), xmax_bound)
    return (xmin_bound + xmax_bound) / 2.0


def _clone(t):
    return t.clone()


class _Bracket:
    """The strong-Wolfe search interval: points t, losses f, flat grads g and directional derivatives gtd."""

    def __init__(self, t, f, g, gtd):
        self.t, self.f, self.g, self.gtd = t, f, g, gtd


def _strong_wolfe(obj_func, x, t, d, f, g, gtd, c1=1e-4, c2=0.9, tolerance_change=1e-9, max_ls=25):
    """torch.optim.lbfgs._strong_wolfe: bracketing phase, then zoom phase (same branches, same order)."""
    d_norm = d.abs().max()
    g = _clone(g)
    f_new, g_new = obj_func(x, t, d)
    ls_func_evals = 1
    gtd_new = g_new.dot(d)
    t_prev, f_prev, g_prev, gtd_prev = 0, f, g, gtd
    done = False
    ls_iter = 0
    br = None
    while ls_iter < max_ls:
        if f_new > (f + c1 * t * gtd) or (ls_iter > 1 and f_new >= f_prev):
            br = _Bracket([t_prev, t], [f_prev, f_new], [g_prev, _clone(g_new)], [gtd_prev, gtd_new])
            break
        if abs(gtd_new) <= -c2 * gtd:
            br = _Bracket([t], [f_new], [g_new], None)
            done = True
            break
        if gtd_new >= 0:
            br = _Bracket([t_prev, t], [f_prev, f_new], [g_prev, _clone(g_new)], [gtd_prev, gtd_new])
            break
        min_step = t + 0.01 * (t - t_prev)
        max_step = t * 10
        tmp = t
        t = _cubic_interpolate(t_prev, f_prev, gtd_prev, t, f_new, gtd_new, bounds=(min_step, max_step))
        t_prev, f_prev, g_prev, gtd_prev = tmp, f_new, _clone(g_new), gtd_new
        f_new, g_new = obj_func(x, t, d)
        ls_func_evals += 1
        gtd_new = g_new.dot(d)
        ls_iter += 1
    if ls_iter == max_ls:
        br = _Bracket([0, t], [f, f_new], [g, g_new], br.gtd if br is not None else None)
    return _zoom(obj_func, x, d, f, gtd, br, done, ls_iter, ls_func_evals, d_norm, c1, c2, tolerance_change,
                 max_ls)


def _zoom(obj_func, x, d, f, gtd, br, done, ls_iter, ls_func_evals, d_norm, c1, c2, tolerance_change, max_ls):
    """The zoom phase of _strong_wolfe: shrink the bracket until the strong Wolfe conditions hold."""
    insuf_progress = False
    low_pos, high_pos = (0, 1) if br.f[0] <= br.f[-1] else (1, 0)
    while not done and ls_iter < max_ls:
        if abs(br.t[1] - br.t[0]) * d_norm < tolerance_change:
            break
        t = _cubic_interpolate(br.t[0], br.f[0], br.gtd[0], br.t[1], br.f[1], br.gtd[1])
        eps = 0.1 * (max(br.t) - min(br.t))
        if min(max(br.t) - t, t - min(br.t)) < eps:
            if insuf_progress or t >= max(br.t) or t <= min(br.t):
                t = max(br.t) - eps if abs(t - max(br.t)) < abs(t - min(br.t)) else min(br.t) + eps
                insuf_progress = False
            else:
                insuf_progress = True
        else:
            insuf_progress = False
        f_new, g_new = obj_func(x, t, d)
        ls_func_evals += 1
        gtd_new = g_new.dot(d)
        ls_iter += 1
        if f_new > (f + c1 * t * gtd) or f_new >= br.f[low_pos]:
            br.t[high_pos], br.f[high_pos], br.g[high_pos], br.gtd[high_pos] = t, f_new, _clone(g_new), gtd_new
            low_pos, high_pos = (0, 1) if br.f[0] <= br.f[1] else (1, 0)
        else:
            if abs(gtd_new) <= -c2 * gtd:
                done = True
            elif gtd_new * (br.t[high_pos] - br.t[low_pos]) >= 0:
                br.t[high_pos], br.f[high_pos] = br.t[low_pos], br.f[low_pos]
                br.g[high_pos], br.gtd[high_pos] = br.g[low_pos], br.gtd[low_pos]
            br.t[low_pos], br.f[low_pos], br.g[low_pos], br.gtd[low_pos] = t, f_new, _clone(g_new), gtd_new
    return br.f[low_pos], br.g[low_pos], br.t[low_pos], ls_func_evals


class LBFGS(Optimizer):
    """LBFGS(params, lr=1, max_iter=20, max_eval=None, tolerance_grad=1e-7, tolerance_change=1e-9,
    history_size=100, line_search_fn=None): step(closure) runs up to max_iter iterations."""

    def __init__(self, params, lr=1, max_iter=20, max_eval=None, tolerance_grad=1e-7, tolerance_change=1e-9,
                 history_size=100, line_search_fn=None):
        _check_lr(lr)
        if max_eval is None:
            max_eval = max_iter * 5 // 4
        defaults = {"lr": lr, "max_iter": max_iter, "max_eval": max_eval, "tolerance_grad": tolerance_grad,
                    "tolerance_change": tolerance_change, "history_size": history_size,
                    "line_search_fn": line_search_fn}
        super().__init__(params, defaults)
        if len(self.param_groups) != 1:
            raise ValueError("LBFGS doesn't support per-parameter options (parameter groups)")
        self._params = self.param_groups[0]["params"]
        self._numel_cache = None

    def _numel(self):
        if self._numel_cache is None:
            self._numel_cache = sum(p.numel() for p in self._params)
        return self._numel_cache

    def _gather_flat_grad(self):
        views = [creation.zeros(p.numel(), dtype=p.dtype) if p._grad is None else p._grad.reshape(-1)
                 for p in self._params]
        return cat(views, 0)

    def _add_grad(self, step_size, update):
        offset = 0
        for p in self._params:
            numel = p.numel()
            add_(p._data, update._data[offset:offset + numel].reshape(p._data.shape), float(step_size))
            bump(p)
            offset += numel
        if offset != self._numel():
            raise AssertionError(f"Expected offset {offset} to equal {self._numel()}")

    def _clone_param(self):
        return [p.clone() for p in self._params]

    def _set_param(self, params_data):
        for p, pdata in zip(self._params, params_data):
            p.copy_(pdata)

    def _directional_evaluate(self, closure, x, t, d):
        self._add_grad(t, d)
        loss = float(closure())
        flat_grad = self._gather_flat_grad()
        self._set_param(x)
        return loss, flat_grad

    def step(self, closure):
        """Run up to max_iter L-BFGS iterations; closure() must recompute the loss and its gradients.
        Returns the loss of the first evaluation."""
        with no_grad():
            return self._step(closure)

    def _step(self, closure):
        """torch's LBFGS.step body (the line search and direction update are split out below)."""
        def closure_with_grad():
            with enable_grad():
                return closure()

        group = self.param_groups[0]
        lr = _to_float(group["lr"])
        max_iter, max_eval = group["max_iter"], group["max_eval"]
        tolerance_grad, tolerance_change = group["tolerance_grad"], group["tolerance_change"]
        line_search_fn, history_size = group["line_search_fn"], group["history_size"]

        state = self.state[self._params[0]]
        state.setdefault("func_evals", 0)
        state.setdefault("n_iter", 0)

        orig_loss = closure_with_grad()
        loss = float(orig_loss)
        current_evals = 1
        state["func_evals"] += 1

        flat_grad = self._gather_flat_grad()
        if flat_grad.abs().max() <= tolerance_grad:
            return orig_loss

        d, t = state.get("d"), state.get("t")
        old_dirs, old_stps, ro = state.get("old_dirs"), state.get("old_stps"), state.get("ro")
        H_diag, prev_flat_grad, prev_loss = state.get("H_diag"), state.get("prev_flat_grad"), state.get("prev_loss")

        n_iter = 0
        while n_iter < max_iter:
            n_iter += 1
            state["n_iter"] += 1
            if state["n_iter"] == 1:
                d = flat_grad.neg()
                old_dirs, old_stps, ro, H_diag = [], [], [], 1
            else:
                d, H_diag = self._direction(state, flat_grad, prev_flat_grad, d, t, old_dirs, old_stps, ro, H_diag,
                                            history_size)
            if prev_flat_grad is None:
                prev_flat_grad = flat_grad.clone()
            else:
                prev_flat_grad.copy_(flat_grad)
            prev_loss = loss
            t = min(1.0, 1.0 / flat_grad.abs().sum()) * lr if state["n_iter"] == 1 else lr
            gtd = flat_grad.dot(d)
            if gtd > -tolerance_change:
                break

            loss, flat_grad, t, ls_func_evals, opt_cond = self._move(
                closure_with_grad, line_search_fn, loss, flat_grad, t, d, gtd, max_eval - current_evals,
                n_iter != max_iter, tolerance_grad)
            current_evals += ls_func_evals
            state["func_evals"] += ls_func_evals

            if n_iter == max_iter or current_evals >= max_eval or opt_cond:
                break
            if d.mul(t).abs().max() <= tolerance_change:
                break
            if abs(loss - prev_loss) < tolerance_change:
                break

        state.update(d=d, t=t, old_dirs=old_dirs, old_stps=old_stps, ro=ro, H_diag=H_diag,
                     prev_flat_grad=prev_flat_grad, prev_loss=prev_loss)
        return orig_loss

    def _move(self, closure, line_search_fn, loss, flat_grad, t, d, gtd, max_ls, evaluate, tolerance_grad):
        """Step along d: strong-Wolfe line search, or a fixed step t followed (unless this is the last
        iteration) by one closure evaluation. Returns (loss, flat_grad, t, func_evals, opt_cond)."""
        if line_search_fn is not None:
            if line_search_fn != "strong_wolfe":
                raise RuntimeError("only 'strong_wolfe' is supported")
            x_init = self._clone_param()

            def obj_func(x, t, d):
                return self._directional_evaluate(closure, x, t, d)

            loss, flat_grad, t, ls_func_evals = _strong_wolfe(obj_func, x_init, t, d, loss, flat_grad, gtd,
                                                              max_ls=max_ls)
            self._add_grad(t, d)
            return loss, flat_grad, t, ls_func_evals, bool(flat_grad.abs().max() <= tolerance_grad)
        self._add_grad(t, d)
        if not evaluate:
            return loss, flat_grad, t, 0, False
        loss = float(closure())
        flat_grad = self._gather_flat_grad()
        return loss, flat_grad, t, 1, bool(flat_grad.abs().max() <= tolerance_grad)

    @staticmethod
    def _direction(state, flat_grad, prev_flat_grad, d, t, old_dirs, old_stps, ro, H_diag, history_size):
        """Update the curvature history and return (-H @ grad, H_diag) by the two-loop recursion."""
        y = flat_grad.sub(prev_flat_grad)
        s = d.mul(t)
        ys = y.dot(s)
        if ys > 1e-10:
            if len(old_dirs) == history_size:
                old_dirs.pop(0)
                old_stps.pop(0)
                ro.pop(0)
            old_dirs.append(y)
            old_stps.append(s)
            ro.append(1.0 / ys)
            H_diag = ys / y.dot(y)
        num_old = len(old_dirs)
        if "al" not in state:
            state["al"] = [None] * history_size
        al = state["al"]
        q = flat_grad.neg()
        for i in range(num_old - 1, -1, -1):
            al[i] = old_stps[i].dot(q) * ro[i]
            _axpy_(q, old_dirs[i], -al[i])
        d = r = q.mul(H_diag)
        for i in range(num_old):
            be_i = old_dirs[i].dot(r) * ro[i]
            _axpy_(r, old_stps[i], al[i] - be_i)
        return d, H_diag
