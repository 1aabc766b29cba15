"""Samplers as torch/utils/data/sampler.py defines them, drawing through core's public random
functions in torch's order, so indices match torch's once core's generator is bit-exact."""
from __future__ import annotations

import itertools

import core


def draw_seed(generator=None):
    """`torch.empty((), dtype=torch.int64).random_(generator=...).item()`: how torch's samplers and
    DataLoader iterators take a fresh 64-bit seed from a generator."""
    t = core.empty((), dtype=core.int64)
    random_ = getattr(t, "random_", None)
    if random_ is None:  # core without Tensor.random_ (the rng branch adds it): one int64 draw instead
        return int(core.randint(0, 2 ** 63 - 1, (), generator=generator).item())
    return int((random_() if generator is None else random_(generator=generator)).item())


class Sampler:
    """Base class: subclasses define __iter__ (indices) and usually __len__."""

    def __init__(self, data_source=None):
        pass

    def __iter__(self):
        raise NotImplementedError


class SequentialSampler(Sampler):
    """0, 1, ..., len(data_source) - 1."""

    def __init__(self, data_source):
        self.data_source = data_source

    def __iter__(self):
        return iter(range(len(self.data_source)))

    def __len__(self):
        return len(self.data_source)


class RandomSampler(Sampler):
    """A fresh Generator seeded from the default one (when none is given), then randperm(n) per
    pass (or randint batches of 32 with replacement), as torch's RandomSampler draws."""

    def __init__(self, data_source, replacement=False, num_samples=None, generator=None):
        self.data_source = data_source
        self.replacement = replacement
        self._num_samples = num_samples
        self.generator = generator
        if not isinstance(self.replacement, bool):
            raise TypeError(f"replacement should be a boolean value, but got replacement={self.replacement}")
        if not isinstance(self.num_samples, int) or self.num_samples <= 0:
            raise ValueError(f"num_samples should be a positive integer value, but got num_samples={self.num_samples}")

    @property
    def num_samples(self):
        return len(self.data_source) if self._num_samples is None else self._num_samples

    def __iter__(self):
        n = len(self.data_source)
        generator = self.generator
        if generator is None:
            generator = core.Generator()
            generator.manual_seed(draw_seed())
        if self.replacement:
            for _ in range(self.num_samples // 32):
                yield from core.randint(0, n, (32,), dtype=core.int64, generator=generator).tolist()
            yield from core.randint(0, n, (self.num_samples % 32,), dtype=core.int64, generator=generator).tolist()
        else:
            for _ in range(self.num_samples // n):
                yield from core.randperm(n, generator=generator).tolist()
            yield from core.randperm(n, generator=generator).tolist()[:self.num_samples % n]

    def __len__(self):
        return self.num_samples


class SubsetRandomSampler(Sampler):
    """The given indices in the order of randperm(len(indices))."""

    def __init__(self, indices, generator=None):
        self.indices = indices
        self.generator = generator

    def __iter__(self):
        for i in core.randperm(len(self.indices), generator=self.generator).tolist():
            yield self.indices[i]

    def __len__(self):
        return len(self.indices)


class WeightedRandomSampler(Sampler):
    """multinomial(weights as float64, num_samples, replacement)."""

    def __init__(self, weights, num_samples, replacement=True, generator=None):
        if not isinstance(num_samples, int) or isinstance(num_samples, bool) or num_samples <= 0:
            raise ValueError(f"num_samples should be a positive integer value, but got num_samples={num_samples}")
        if not isinstance(replacement, bool):
            raise ValueError(f"replacement should be a boolean value, but got replacement={replacement}")
        weights_tensor = core.as_tensor(weights, dtype=core.double)
        if len(weights_tensor.shape) != 1:
            raise ValueError("weights should be a 1d sequence but given "
                             f"weights have shape {tuple(weights_tensor.shape)}")
        self.weights = weights_tensor
        self.num_samples = num_samples
        self.replacement = replacement
        self.generator = generator

    def __iter__(self):
        multinomial = getattr(core, "multinomial", None)
        if multinomial is None:  # core without multinomial (the rng branch adds it)
            yield from _multinomial_fallback(self.weights, self.num_samples, self.replacement, self.generator)
            return
        yield from multinomial(self.weights, self.num_samples, self.replacement, generator=self.generator).tolist()

    def __len__(self):
        return self.num_samples


def _multinomial_fallback(weights, num_samples, replacement, generator):
    """Inverse-CDF draws from core.rand: right distribution, not torch's numbers."""
    w = [float(x) for x in weights.tolist()]
    if not replacement and num_samples > sum(1 for x in w if x > 0):
        raise RuntimeError("cannot sample n_sample > prob_dist.size(-1) samples without replacement")
    out = []
    for u in core.rand(num_samples, dtype=core.float64, generator=generator).tolist():
        total = sum(w)
        acc, pick = 0.0, max(i for i, x in enumerate(w) if x > 0)
        for i, x in enumerate(w):
            acc += x
            if u * total < acc and x > 0:
                pick = i
                break
        out.append(pick)
        if not replacement:
            w[pick] = 0.0
    return out


class BatchSampler(Sampler):
    """Groups a sampler's indices into lists of batch_size (the last one shorter unless drop_last)."""

    def __init__(self, sampler, batch_size, drop_last):
        if not isinstance(batch_size, int) or isinstance(batch_size, bool) or batch_size <= 0:
            raise ValueError(f"batch_size should be a positive integer value, but got batch_size={batch_size}")
        if not isinstance(drop_last, bool):
            raise ValueError(f"drop_last should be a boolean value, but got drop_last={drop_last}")
        self.sampler = sampler
        self.batch_size = batch_size
        self.drop_last = drop_last

    def __iter__(self):
        sampler_iter = iter(self.sampler)
        if self.drop_last:
            yield from ([*b] for b in zip(*[sampler_iter] * self.batch_size))
            return
        batch = [*itertools.islice(sampler_iter, self.batch_size)]
        while batch:
            yield batch
            batch = [*itertools.islice(sampler_iter, self.batch_size)]

    def __len__(self):
        if self.drop_last:
            return len(self.sampler) // self.batch_size
        return (len(self.sampler) + self.batch_size - 1) // self.batch_size
