"""Every torch.optim.lr_scheduler class against torch: learning rates after each step (with and without the
deprecated epoch argument), get_lr() outside step, state_dict keys, the warnings raised, a user subclass of
LRScheduler, LambdaLR's state of callable objects, and the deprecated _LRScheduler name."""
from __future__ import annotations

import warnings

import pytest

import core


class Mul:
    """A picklable lr_lambda object (LambdaLR saves its __dict__)."""

    def __init__(self, f):
        self.f = f

    def __call__(self, epoch):
        return self.f ** epoch


SCHEDULERS = {
    "LambdaLR": lambda L, o: L.LambdaLR(o, lambda e: 0.9 ** e),
    "LambdaLR-list": lambda L, o: L.LambdaLR(o, [lambda e: 1 / (e + 1), Mul(0.8)]),
    "MultiplicativeLR": lambda L, o: L.MultiplicativeLR(o, lambda e: 0.95),
    "StepLR": lambda L, o: L.StepLR(o, 3, gamma=0.3),
    "MultiStepLR": lambda L, o: L.MultiStepLR(o, [2, 5, 5, 9], gamma=0.5),
    "ExponentialLR": lambda L, o: L.ExponentialLR(o, 0.7),
    "CosineAnnealingLR": lambda L, o: L.CosineAnnealingLR(o, T_max=4, eta_min=0.001),
    "ConstantLR": lambda L, o: L.ConstantLR(o),
    "LinearLR": lambda L, o: L.LinearLR(o),
    "PolynomialLR": lambda L, o: L.PolynomialLR(o),
    "CyclicLR": lambda L, o: L.CyclicLR(o, 0.01, 0.1, step_size_up=2, scale_fn=lambda x: 0.5 ** x,
                                        scale_mode="iterations"),
    "OneCycleLR": lambda L, o: L.OneCycleLR(o, max_lr=0.5, total_steps=20, cycle_momentum=False),
    "CosineAnnealingWarmRestarts": lambda L, o: L.CosineAnnealingWarmRestarts(o, T_0=3),
    "ReduceLROnPlateau": lambda L, o: L.ReduceLROnPlateau(o, patience=1),
}
WITH_EPOCH = [n for n in SCHEDULERS if n not in ("ReduceLROnPlateau", "OneCycleLR", "CyclicLR")]


def _run(lib, name, epochs):
    w = lib.ones(2, requires_grad=True)
    opt = lib.optim.SGD([{"params": [w]}, {"params": [lib.ones(1, requires_grad=True)], "lr": 0.3}], lr=0.1,
                        momentum=0.9)
    out = []
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        s = SCHEDULERS[name](lib.optim.lr_scheduler, opt)
        out.append(s.get_last_lr())
        for e in range(12):
            w.grad = lib.ones(2)
            opt.step()
            if name == "ReduceLROnPlateau":
                s.step(1.0)
            elif epochs:
                s.step(e + 1)
            else:
                s.step()
            out.append(s.get_last_lr())
        if name != "ReduceLROnPlateau":
            out.append(s.get_lr())                         # outside step(): warns, as torch does
        out.append((sorted(s.state_dict()), s.last_epoch, getattr(s, "_step_count", None)))
    out.append([(c.category.__name__, str(c.message)) for c in caught])
    return out


@pytest.mark.parametrize("name", list(SCHEDULERS))
def test_scheduler_steps_and_warns_like_torch(torch, name):
    assert _run(core, name, False) == _run(torch, name, False)


@pytest.mark.parametrize("name", WITH_EPOCH)
def test_scheduler_step_with_epoch_argument_like_torch(torch, name):
    assert _run(core, name, True) == _run(torch, name, True)


def test_every_torch_scheduler_class_exists(torch):
    tl, cl = torch.optim.lr_scheduler, core.optim.lr_scheduler
    names = [n for n in tl.__all__]
    assert [n for n in names if not hasattr(cl, n)] == []
    for n in names:
        assert isinstance(getattr(cl, n), type) == isinstance(getattr(tl, n), type), n


def _compose(lib):
    out = []
    L = lib.optim.lr_scheduler
    w = lib.ones(2, requires_grad=True)
    opt = lib.optim.SGD([w], lr=0.1)

    class Warmup(L.LRScheduler):
        def __init__(self, optimizer, n, last_epoch=-1):
            self.n = n
            super().__init__(optimizer, last_epoch)

        def get_lr(self):
            return [b * min(1, (self.last_epoch + 1) / self.n) for b in self.base_lrs]

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        s = Warmup(opt, 4)
        for _ in range(6):
            opt.step()
            s.step()
            out.append(s.get_last_lr())
        out.append(sorted(s.state_dict()))
        lam = L.LambdaLR(opt, [Mul(0.5)])
        sd = lam.state_dict()
        out.append(sd["lr_lambdas"])
        lam2 = L.LambdaLR(opt, [Mul(0.9)])
        lam2.load_state_dict(sd)
        out.append(lam2.lr_lambdas[0].f)
        out.append(L.LambdaLR(opt, lambda e: 1.0).state_dict()["lr_lambdas"])
        out.append((isinstance(lam, L._LRScheduler), issubclass(L._LRScheduler, L.LRScheduler)))
        try:
            L.StepLR(lib.optim.SGD([w], lr=0.1), 2, last_epoch=3)
        except KeyError as e:
            out.append(str(e))
        chained = L.ChainedScheduler([L.StepLR(opt, 2), L.ExponentialLR(opt, 0.9)], optimizer=opt)
        opt.step()
        chained.step()
        out.append((chained.get_last_lr(), sorted(chained.state_dict())))
        seq = L.SequentialLR(opt, [L.ConstantLR(opt, 0.5, 2), L.StepLR(opt, 2)], [3])
        for _ in range(5):
            opt.step()
            seq.step()
            out.append(seq.get_last_lr())
        out.append(sorted(seq.state_dict()))
    out.append([str(c.message) for c in caught])
    return out


def test_subclass_lambda_state_chained_and_sequential_like_torch(torch):
    assert _compose(core) == _compose(torch)
