"""torch.nn.utils.parametrize and parametrizations (orthogonal, weight_norm, spectral_norm) against torch:
reprs, class names, state_dict keys, values after the same seed, gradients, errors."""
from __future__ import annotations

from _nn_side_by_side import error_of, side_by_side


def _symmetric(lib):
    class Symmetric(lib.nn.Module):
        def forward(self, X):
            return X.triu() + X.triu(1).transpose(-1, -2)
    return Symmetric


def test_register_and_remove_parametrization(torch):
    def scenario(lib):
        P = lib.nn.utils.parametrize
        lib.manual_seed(0)
        m = lib.nn.Linear(3, 3)
        P.register_parametrization(m, "weight", _symmetric(lib)())
        rec = [repr(m), type(m).__name__, P.is_parametrized(m), P.is_parametrized(m, "weight"),
               P.is_parametrized(m, "bias"), P.type_before_parametrizations(m).__name__, m.weight,
               list(m.state_dict()), [n for n, _ in m.named_parameters()]]
        m(lib.randn(2, 3)).sum().backward()
        rec.append(m.parametrizations.weight.original.grad)
        with P.cached():
            rec.append(m.weight is m.weight)
        rec.append(m.weight is m.weight)
        P.remove_parametrizations(m, "weight")
        rec += [repr(m), type(m).__name__, m.weight, type(m.weight).__name__, P.is_parametrized(m)]
        return rec
    side_by_side(torch, scenario)


def test_chained_parametrizations_and_leave_unparametrized(torch):
    def scenario(lib):
        P = lib.nn.utils.parametrize

        class Double(lib.nn.Module):
            def forward(self, X):
                return 2 * X

            def right_inverse(self, X):
                return X / 2
        lib.manual_seed(1)
        m = lib.nn.Linear(3, 3)
        w0 = m.weight.detach().clone()
        P.register_parametrization(m, "weight", Double())
        P.register_parametrization(m, "weight", _symmetric(lib)())
        rec = [repr(m), m.weight, m.parametrizations.weight.original, w0]
        with lib.no_grad():
            m.weight = lib.eye(3)           # the setter runs right_inverse (Symmetric has none)
        return rec
    err = error_of(lambda: scenario(__import__("core")))
    assert err == ("RuntimeError", "parametrization Symmetric does not implement right_inverse.")
    assert error_of(lambda: scenario(torch)) == err

    def scenario2(lib):
        P = lib.nn.utils.parametrize
        lib.manual_seed(1)
        m = lib.nn.Linear(3, 3)
        P.register_parametrization(m, "weight", _symmetric(lib)())
        P.remove_parametrizations(m, "weight", leave_parametrized=False)
        return [m.weight, repr(m)]
    side_by_side(torch, scenario2)


def test_parametrize_errors(torch):
    def scenario(lib):
        P = lib.nn.utils.parametrize

        class Rows(lib.nn.Module):
            def forward(self, X):
                return X[:1]
        m = lib.nn.Linear(2, 2)
        return [error_of(lambda: P.register_parametrization(m, "nope", Rows())) is not None,
                error_of(lambda: P.register_parametrization(m, "weight", Rows())),
                error_of(lambda: P.remove_parametrizations(m, "weight"))[0],
                error_of(lambda: lib.nn.utils.parametrizations.orthogonal(lib.nn.Linear(2, 2), "bias")),
                error_of(lambda: lib.nn.utils.parametrizations.orthogonal(m, orthogonal_map="qr")),
                error_of(lambda: lib.nn.utils.parametrize.ParametrizationList([], m.weight))]
    side_by_side(torch, scenario)


def test_weight_norm_parametrization(torch):
    def scenario(lib):
        lib.manual_seed(1)
        m = lib.nn.Linear(4, 3)
        lib.nn.utils.parametrizations.weight_norm(m)
        rec = [repr(m), {k: v for k, v in m.state_dict().items()}, m.weight]
        (m(lib.randn(2, 4)) ** 2).sum().backward()
        rec += [m.parametrizations.weight.original0.grad, m.parametrizations.weight.original1.grad]
        old = lib.nn.Linear(4, 3)
        lib.nn.utils.weight_norm(old)        # hook-based: weight_g / weight_v keys load into the new one
        rec.append(repr(m.load_state_dict(old.state_dict())))
        rec.append(m.weight)
        c = lib.nn.Conv1d(2, 3, 2)
        lib.nn.utils.parametrizations.weight_norm(c, dim=None)
        rec += [c.parametrizations.weight.original0, c.weight]
        return rec
    side_by_side(torch, scenario)


def test_spectral_norm_parametrization(torch):
    def scenario(lib):
        lib.manual_seed(2)
        s = lib.nn.Linear(5, 4)
        lib.nn.utils.parametrizations.spectral_norm(s)
        sn = s.parametrizations.weight[0]
        rec = [repr(s), sn._u, sn._v, s.weight, list(s.state_dict())]
        s(lib.randn(3, 5)).sum().backward()
        rec.append(s.parametrizations.weight.original.grad)
        s.eval()
        rec += [s.weight, s.weight]            # eval: no power iteration, same value twice
        ct = lib.nn.ConvTranspose2d(2, 3, 2)
        lib.nn.utils.parametrizations.spectral_norm(ct, n_power_iterations=3)
        rec += [ct.parametrizations.weight[0]._u, ct.parametrizations.weight[0]._v, ct.weight]
        b = lib.nn.Module()
        b.register_buffer("v", lib.randn(3))
        lib.nn.utils.parametrizations.spectral_norm(b, "v")      # 1-D: plain normalisation
        rec += [b.v, list(b.state_dict())]
        rec.append(error_of(lambda: lib.nn.utils.parametrizations.spectral_norm(lib.nn.Linear(2, 2), dim=3)))
        rec.append(error_of(lambda: lib.nn.utils.parametrizations.spectral_norm(lib.nn.Linear(2, 2),
                                                                                n_power_iterations=0)))
        return rec
    side_by_side(torch, scenario)


def test_orthogonal_maps(torch):
    def scenario(lib):
        rec = []
        for mp, shape in [("matrix_exp", (4, 4)), ("cayley", (4, 4)), ("householder", (3, 4)),
                          ("matrix_exp", (3, 5)), ("cayley", (5, 3)), (None, (4, 2))]:
            lib.manual_seed(3)
            o = lib.nn.Linear(shape[1], shape[0])
            lib.nn.utils.parametrizations.orthogonal(o, orthogonal_map=mp)
            w = o.weight
            rec += [repr(o), w, list(o.state_dict())]
            o(lib.randn(2, shape[1])).sum().backward()
            rec.append(o.parametrizations.weight.original.grad)
        lib.manual_seed(4)
        h = lib.nn.Linear(3, 3)
        lib.nn.utils.parametrizations.orthogonal(h, orthogonal_map="householder", use_trivialization=False)
        rec += [h.weight, list(h.state_dict())]
        q = lib.linalg.qr(lib.randn(3, 3))[0]
        h.weight = q                     # right_inverse without trivialization: geqrf
        rec += [h.weight, h.parametrizations.weight.original]
        return rec
    side_by_side(torch, scenario, rtol=1e-4, atol=1e-5)


def test_weight_norm_node_and_double_backward(torch):
    """dim 0 / last dim: ATen's fused WeightNormInterfaceBackward0; other dims: the composite (MulBackward0);
    first and second derivatives as torch's."""
    def scenario(lib):
        rec = []
        for dim, shape in [(0, (3, 4)), (1, (3, 4)), (1, (2, 3, 2)), (None, (3, 4)), (2, (2, 3, 2))]:
            lib.manual_seed(5)
            c = lib.nn.Conv1d(shape[1], shape[0], shape[2]) if len(shape) == 3 else lib.nn.Linear(shape[1], shape[0])
            lib.nn.utils.parametrizations.weight_norm(c, dim=dim)
            w = c.weight
            rec += [w.grad_fn.name(), w]
            g0, v0 = c.parametrizations.weight.original0, c.parametrizations.weight.original1
            probe = lib.randn(*w.shape)
            gg, gv = lib.autograd.grad((w * probe).sum() ** 2, (g0, v0), create_graph=True)
            rec += [gg, gv]
            rec += list(lib.autograd.grad(gg.sum() + (gv ** 2).sum(), (g0, v0)))
        return rec
    side_by_side(torch, scenario, rtol=1e-4, atol=1e-5)


def test_parametrized_module_copy_convert_reload_transfer(torch):
    def scenario(lib):
        import copy
        import pickle
        P, PS = lib.nn.utils.parametrize, lib.nn.utils.parametrizations
        lib.manual_seed(0)
        m = PS.weight_norm(lib.nn.Linear(3, 2))
        m2 = copy.deepcopy(m)
        rec = [type(m2).__name__, type(m2) is type(m), m2.weight,
               m2.parametrizations.weight.original0 is m.parametrizations.weight.original0]
        m.double()
        rec += [m.weight.dtype, m.parametrizations.weight.original1.dtype]
        m3 = PS.weight_norm(lib.nn.Linear(3, 2)).double()
        rec += [repr(m3.load_state_dict(m.state_dict())), m3.weight]
        rec.append(error_of(lambda: pickle.dumps(m)))

        class Square(lib.nn.Module):
            def forward(self, x):
                return x * x
        buf = lib.nn.Module()
        buf.register_buffer("b", lib.randn(3, 3))
        P.register_parametrization(buf, "b", Square())
        rec += [repr(buf), list(buf.state_dict()), buf.b, type(buf.parametrizations.b.original).__name__]
        o = PS.orthogonal(lib.nn.Linear(5, 3))
        with lib.no_grad():
            o.weight = lib.linalg.qr(lib.randn(5, 3))[0].T      # trivialization: base = the new matrix
        rec += [o.weight, o.parametrizations.weight[0].base, o.parametrizations.weight.original]
        P.remove_parametrizations(o, "weight", leave_parametrized=True)
        rec += [repr(o), o.weight]
        src = lib.nn.Linear(3, 3)
        P.register_parametrization(src, "weight", Square())
        dst = P.transfer_parametrizations_and_params(src, lib.nn.Linear(3, 3))
        rec += [repr(dst), dst.parametrizations.weight.original is src.parametrizations.weight.original,
                dst.weight]
        return rec
    side_by_side(torch, scenario, rtol=1e-4, atol=1e-5)
