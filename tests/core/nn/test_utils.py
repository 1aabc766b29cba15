"""torch.nn extras against torch side by side: hook-based weight_norm / spectral_norm, BatchNorm fusion,
skip_init, stateless.functional_call, clip_grads_with_norm_, nn.Buffer, DataParallel without GPUs,
AdaptiveLogSoftmaxWithLoss, CrossMapLRN2d, nn.init.sparse_ and the deprecated init aliases, and the
Module state-dict hooks they rely on."""
from __future__ import annotations

import warnings

import pytest

from _nn_side_by_side import error_of, side_by_side


def test_hook_weight_norm(torch):
    def scenario(lib):
        lib.manual_seed(4)
        a = lib.nn.Linear(3, 2)
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            lib.nn.utils.weight_norm(a)
        rec = [[(x.category.__name__, str(x.message)) for x in w], repr(a),
               sorted(n for n, _ in a.named_parameters()), a.weight_g, a.weight_v, a.weight, list(a.state_dict())]
        a(lib.randn(2, 3)).sum().backward()
        rec += [a.weight_g.grad, a.weight_v.grad]
        rec.append(error_of(lambda: lib.nn.utils.weight_norm(a)))
        lib.nn.utils.remove_weight_norm(a)
        rec += [a.weight, type(a.weight).__name__, sorted(n for n, _ in a.named_parameters())]
        rec.append(error_of(lambda: lib.nn.utils.remove_weight_norm(a)))
        c = lib.nn.Conv2d(2, 3, 2)
        lib.nn.utils.weight_norm(c, dim=None)
        rec += [c.weight_g, c(lib.randn(1, 2, 3, 3))]
        return rec
    side_by_side(torch, scenario)


def test_hook_spectral_norm(torch):
    def scenario(lib):
        lib.manual_seed(5)
        b = lib.nn.Conv2d(2, 3, 2)
        lib.nn.utils.spectral_norm(b)
        sd = b.state_dict()
        rec = [sorted(sd), sd._metadata[""], b.weight_u, b.weight_v, b.weight]
        y = b(lib.randn(1, 2, 3, 3))
        y.sum().backward()
        rec += [y, b.weight_orig.grad, b.weight_u, b.weight_v]
        b.eval()
        rec.append(b(lib.ones(1, 2, 3, 3)))
        rec.append(repr(b.load_state_dict(sd)))
        rec.append(error_of(lambda: lib.nn.utils.spectral_norm(b)))
        lib.nn.utils.remove_spectral_norm(b)
        rec += [sorted(b.state_dict()), b.weight, error_of(lambda: lib.nn.utils.remove_spectral_norm(b))]
        rec.append(error_of(lambda: b.load_state_dict(b.state_dict())))    # torch keeps the wrapped load hook
        ct = lib.nn.ConvTranspose2d(2, 3, 2)
        lib.nn.utils.spectral_norm(ct, n_power_iterations=2)
        rec += [ct.weight_u, ct.weight_v]
        old = lib.nn.Linear(2, 3)           # weight_mat [3, 2]: W^T W is invertible, pinverse well defined
        lib.nn.utils.spectral_norm(old)
        v0 = old.state_dict()                    # a version-0 dict: weight present, no weight_v, no metadata
        v0 = {k: v for k, v in v0.items() if k != "weight_v"}
        v0["weight"] = old.weight.detach()
        rec.append(repr(old.load_state_dict(v0)))
        rec.append(old.weight_v)
        return rec
    side_by_side(torch, scenario, rtol=1e-4, atol=1e-5)


def test_fusion(torch):
    def scenario(lib):
        U = lib.nn.utils
        lib.manual_seed(6)
        conv, bn = lib.nn.Conv2d(2, 3, 2), lib.nn.BatchNorm2d(3)
        bn(conv(lib.randn(4, 2, 3, 3)))              # running statistics
        rec = [error_of(lambda: U.fuse_conv_bn_eval(conv, bn))]
        conv.eval(), bn.eval()
        fused = U.fuse_conv_bn_eval(conv, bn)
        x = lib.randn(1, 2, 4, 4)
        rec += [repr(fused), fused.weight, fused.bias, fused(x), bn(conv(x)), type(fused.weight).__name__]
        ct, bt = lib.nn.ConvTranspose2d(2, 3, 2, bias=False).eval(), lib.nn.BatchNorm2d(3, affine=False).eval()
        fused_t = U.fuse_conv_bn_eval(ct, bt, transpose=True)
        rec += [fused_t(x), bt(ct(x))]
        lin, bn1 = lib.nn.Linear(3, 4).eval(), lib.nn.BatchNorm1d(4).eval()
        bn1.running_mean.fill_(0.5)
        fl = U.fuse_linear_bn_eval(lin, bn1)
        xl = lib.randn(2, 3)
        rec += [fl(xl), bn1(lin(xl)), fl.weight.requires_grad]
        rec.append(error_of(lambda: U.fuse_linear_bn_eval(lin, lib.nn.BatchNorm1d(3).eval())))
        w, b = U.fuse_conv_bn_weights(conv.weight, None, bn.running_mean, bn.running_var, 1e-3, None, None)
        rec += [w, b, b.requires_grad]
        return rec
    side_by_side(torch, scenario)


def test_skip_init(torch):
    def scenario(lib):
        lib.manual_seed(7)
        m = lib.nn.utils.skip_init(lib.nn.Linear, 3, 2, bias=True)
        rec = [repr(m), tuple(m.weight.shape), m.weight.requires_grad, lib.rand(3)]   # no draw consumed
        rec.append(error_of(lambda: lib.nn.utils.skip_init(int)))
        rec.append(error_of(lambda: lib.nn.utils.skip_init(lib.nn.ReLU)))
        return rec
    side_by_side(torch, scenario)


def test_functional_call(torch):
    def scenario(lib):
        lib.manual_seed(8)
        m = lib.nn.Sequential(lib.nn.Linear(3, 3), lib.nn.BatchNorm1d(3))
        x = lib.randn(4, 3)
        w = lib.randn(3, 3, requires_grad=True)
        call = lib.nn.utils.stateless.functional_call
        out = call(m, {"0.weight": w}, (x,))
        out.sum().backward()
        rec = [out, w.grad, m[0].weight.grad, m[1].num_batches_tracked, type(m[0].weight).__name__]
        rec.append(call(m, {"1.running_mean": lib.ones(3)}, x, strict=False).sum())
        rec.append(error_of(lambda: call(m, {"0.weight": w}, (x,), strict=True)))
        rec.append(error_of(lambda: call(m, {"0.weight": w, "nope": w}, (x,), strict=True)))
        tied = lib.nn.Sequential(lib.nn.Linear(2, 2, bias=False), lib.nn.Linear(2, 2, bias=False))
        tied[1].weight = tied[0].weight
        rec.append(call(tied, {"0.weight": lib.eye(2)}, lib.ones(1, 2)))
        rec.append(call(tied, {"0.weight": lib.eye(2)}, lib.ones(1, 2), tie_weights=False))
        rec.append(error_of(lambda: call(tied, {"0.weight": lib.eye(2), "1.weight": lib.ones(2, 2)},
                                         lib.ones(1, 2))))
        rec.append(error_of(lambda: call(lib.nn.DataParallel(tied), {}, lib.ones(1, 2))))
        return rec
    side_by_side(torch, scenario)


def test_clip_grads_with_norm_(torch):
    def scenario(lib):
        lib.manual_seed(9)
        ps = [lib.nn.Parameter(lib.randn(3)), lib.nn.Parameter(lib.randn(2, 2))]
        for p in ps:
            p.grad = lib.randn(p.shape)
        before = [p.grad._version for p in ps]
        total = lib.nn.utils.get_total_norm([p.grad for p in ps])
        lib.nn.utils.clip_grads_with_norm_(ps, 0.5, total)
        rec = [total, [p.grad for p in ps], [p.grad._version - v for p, v in zip(ps, before)]]
        lib.nn.utils.clip_grads_with_norm_(ps[0], 100.0, lib.tensor(0.1))
        rec.append(ps[0].grad)
        return rec
    side_by_side(torch, scenario)


def test_buffer(torch):
    def scenario(lib):
        t = lib.ones(2, requires_grad=True)
        b = lib.nn.Buffer(t)
        np_ = lib.nn.Buffer(lib.zeros(3), persistent=False)
        m = lib.nn.Module()
        m.a = b
        m.c = np_
        m.a = lib.nn.Buffer(lib.full((2,), 3.0), persistent=False)    # re-assigned: now non-persistent
        rec = [type(b).__name__, isinstance(b, lib.nn.Buffer), isinstance(t, lib.nn.Buffer), b.requires_grad,
               b.persistent, list(m._buffers), list(m.state_dict()), m.a, repr(lib.nn.Buffer())]
        m.a = lib.ones(2)                           # a plain tensor keeps the buffer's persistence
        rec += [list(m.state_dict()), error_of(lambda: setattr(m, "c", 3))]
        return rec
    side_by_side(torch, scenario)


def test_data_parallel_without_gpus(torch):
    def scenario(lib):
        lib.manual_seed(10)
        inner = lib.nn.Linear(3, 2)
        dp = lib.nn.DataParallel(inner)
        x = lib.randn(4, 3)
        return [repr(dp), dp.module is inner, dp.device_ids, list(dp.state_dict()), dp(x), inner(x),
                isinstance(dp, lib.nn.Module), error_of(lambda: lib.nn.parallel.data_parallel(inner, x))]
    side_by_side(torch, scenario)


def test_adaptive_log_softmax(torch):
    def scenario(lib):
        lib.manual_seed(11)
        asm = lib.nn.AdaptiveLogSoftmaxWithLoss(8, 10, [3, 6], div_value=2.0, head_bias=True)
        x = lib.randn(5, 8, requires_grad=True)
        target = lib.tensor([0, 4, 9, 2, 7])
        out = asm(x, target)
        out.loss.backward()
        rec = [repr(asm), list(asm.state_dict()), type(out).__name__, out.output, out.loss, x.grad,
               asm.head.weight.grad, asm.log_prob(x), asm.predict(x), asm.predict(lib.zeros(2, 8))]
        single = asm(x[0], target[0])
        rec += [single.output, single.loss]
        rec.append(error_of(lambda: asm(x, lib.tensor([0, 1, 2, 3, 10]))))
        rec.append(error_of(lambda: asm(x, target[:3])))
        rec.append(error_of(lambda: lib.nn.AdaptiveLogSoftmaxWithLoss(8, 10, [6, 3])))
        rec.append(error_of(lambda: lib.nn.AdaptiveLogSoftmaxWithLoss(8, 10, [])))
        return rec
    side_by_side(torch, scenario, rtol=1e-4, atol=1e-6)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_cross_map_lrn2d(torch, dtype):
    def scenario(lib):
        lib.manual_seed(12)
        rec = []
        for size, c in [(3, 5), (4, 6), (5, 2), (2, 1)]:
            m = lib.nn.CrossMapLRN2d(size, alpha=0.1, beta=0.75, k=2)
            x = lib.randn(2, c, 3, 3, dtype=getattr(lib, dtype), requires_grad=True)
            y = m(x)
            y.backward(lib.randn(2, c, 3, 3, dtype=getattr(lib, dtype)))
            rec += [repr(m), y, x.grad, y.grad_fn.name()]
        rec.append(error_of(lambda: lib.nn.CrossMapLRN2d(3)(lib.randn(2, 3))))
        x = lib.randn(1, 3, 2, 2, requires_grad=True)
        rec.append(error_of(lambda: lib.nn.CrossMapLRN2d(1)(x).sum().backward()))   # torch's narrow fails
        return rec
    side_by_side(torch, scenario, rtol=1e-4, atol=1e-5)


def test_init_sparse_and_deprecated_aliases(torch):
    def scenario(lib):
        init = lib.nn.init
        lib.manual_seed(13)
        w = lib.empty(6, 4)
        init.sparse_(w, 0.5)
        rec = [w, error_of(lambda: init.sparse_(lib.empty(2, 2, 2), 0.1))]
        for name, args in [("sparse", (0.3,)), ("eye", ()), ("orthogonal", ()), ("uniform", ()),
                           ("normal", ()), ("constant", (0.5,)), ("xavier_uniform", ()), ("xavier_normal", ()),
                           ("kaiming_uniform", ()), ("kaiming_normal", ())]:
            lib.manual_seed(14)
            t = lib.empty(4, 4)
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                getattr(init, name)(t, *args)
            rec += [name, getattr(init, name).__name__, t,
                    [(c.category.__name__, str(c.message)) for c in caught]]
        d = lib.empty(4, 2, 3, 3)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            init.dirac(d, 2)
        rec.append(d)
        return rec
    side_by_side(torch, scenario, rtol=1e-4, atol=1e-6)


def test_module_state_dict_hooks(torch):
    def scenario(lib):
        m = lib.nn.Linear(2, 2)
        calls = []
        m.register_state_dict_pre_hook(lambda mod, prefix, keep_vars: calls.append(("pre", prefix)))
        m.register_state_dict_post_hook(lambda mod, sd, prefix, meta: calls.append(("post", sorted(sd))))

        def load_pre(mod, sd, prefix, meta, strict, missing, unexpected, errors):
            calls.append(("load_pre", sorted(sd)))
            sd[prefix + "bias"] = sd.pop(prefix + "b")

        def load_post(mod, keys):
            calls.append(("load_post", list(keys.missing_keys), list(keys.unexpected_keys)))
            keys.unexpected_keys.clear()
        m.register_load_state_dict_pre_hook(load_pre)
        m.register_load_state_dict_post_hook(load_post)
        sd = dict(m.state_dict())
        sd["b"] = sd.pop("bias") * 0 + 1
        sd["extra"] = lib.zeros(1)
        res = m.load_state_dict(sd)
        h = m.register_load_state_dict_post_hook(lambda mod, keys: 1)
        err = error_of(lambda: m.load_state_dict(dict(m.state_dict(), b=lib.ones(2))))
        h.remove()
        return [calls, repr(res), m.bias, err]
    side_by_side(torch, scenario)


def test_container_nllloss2d_syncbatchnorm(torch):
    def scenario(lib):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            c = lib.nn.Container(a=lib.nn.ReLU())
            n = lib.nn.NLLLoss2d(ignore_index=1)
        rec = [repr(c), repr(n), [(w.category.__name__, str(w.message)) for w in caught],
               isinstance(n, lib.nn.NLLLoss)]
        lib.manual_seed(15)
        s = lib.nn.SyncBatchNorm(3, momentum=None)
        x = lib.randn(4, 3, 2, requires_grad=True)
        y = s(x)
        y.pow(2).sum().backward()
        rec += [repr(s), y, x.grad, s.running_mean, s.running_var, s.num_batches_tracked]
        s.eval()
        rec.append(s(lib.ones(2, 3)))
        rec.append(error_of(lambda: s(lib.ones(3))))
        rec.append(error_of(lambda: lib.nn.SyncBatchNorm(0)(lib.ones(2, 0))))
        net = lib.nn.Sequential(lib.nn.Linear(2, 3), lib.nn.BatchNorm1d(3, affine=False),
                                lib.nn.Sequential(lib.nn.BatchNorm2d(3).eval()), lib.nn.InstanceNorm1d(3))
        conv = lib.nn.SyncBatchNorm.convert_sync_batchnorm(net)
        rec += [repr(conv), conv[2][0].training, conv[1].running_mean is net[1].running_mean]
        return rec
    side_by_side(torch, scenario)
