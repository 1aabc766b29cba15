"""DataLoader as torch/utils/data/dataloader.py, in one process: the same argument checks, default
samplers, auto-batching and collation, and the same draws from the generator per epoch (the
iterator's base seed, then the RandomSampler's seed), so shuffled batches follow torch's order once
core's generator is bit-exact. num_workers > 0 is accepted and runs in-process (said once)."""
from __future__ import annotations

import itertools
import sys

from .collate import default_collate, default_convert
from .dataset import IterableDataset
from .sampler import BatchSampler, RandomSampler, SequentialSampler, draw_seed

_WORKERS_NOTE = [False]


def get_worker_info():
    """None: loading happens in the main process."""
    return None


def _infinite_none():
    return itertools.repeat(None)


def _check_options(num_workers, timeout, prefetch_factor, persistent_workers):
    if num_workers < 0:
        raise ValueError("num_workers option should be non-negative; use num_workers=0 to disable multiprocessing.")
    if timeout < 0:
        raise ValueError("timeout option should be non-negative")
    if num_workers == 0 and prefetch_factor is not None:
        raise ValueError("prefetch_factor option could only be specified in multiprocessing."
                         "let num_workers > 0 to enable multiprocessing, otherwise set prefetch_factor to None.")
    if prefetch_factor is not None and prefetch_factor < 0:
        raise ValueError("prefetch_factor option should be non-negative")
    if persistent_workers and num_workers == 0:
        raise ValueError("persistent_workers option needs num_workers > 0")


class DataLoader:
    """Iterate a dataset in (optionally shuffled) batches, collated by `collate_fn`."""

    def __init__(self, dataset, batch_size=1, shuffle=None, sampler=None, batch_sampler=None, num_workers=0,
                 collate_fn=None, pin_memory=False, drop_last=False, timeout=0, worker_init_fn=None,
                 multiprocessing_context=None, generator=None, *, prefetch_factor=None, persistent_workers=False,
                 pin_memory_device="", in_order=True):
        _check_options(num_workers, timeout, prefetch_factor, persistent_workers)
        self.dataset, self.num_workers, self.pin_memory, self.timeout = dataset, num_workers, pin_memory, timeout
        self.worker_init_fn, self.persistent_workers, self.in_order = worker_init_fn, persistent_workers, in_order
        self.prefetch_factor = 2 if num_workers > 0 and prefetch_factor is None else prefetch_factor
        self._iterable = isinstance(dataset, IterableDataset)
        if self._iterable:
            if shuffle not in {False, None}:
                raise ValueError(f"DataLoader with IterableDataset: expected unspecified shuffle option, "
                                 f"but got shuffle={shuffle}")
            if sampler is not None:
                raise ValueError(f"DataLoader with IterableDataset: expected unspecified sampler option, "
                                 f"but got sampler={sampler}")
            if batch_sampler is not None:
                raise ValueError("DataLoader with IterableDataset: expected unspecified "
                                 f"batch_sampler option, but got batch_sampler={batch_sampler}")
        else:
            shuffle = bool(shuffle)
        if sampler is not None and shuffle:
            raise ValueError("sampler option is mutually exclusive with shuffle")
        if batch_sampler is not None:
            if batch_size != 1 or shuffle or sampler is not None or drop_last:
                raise ValueError("batch_sampler option is mutually exclusive with batch_size, shuffle, sampler, "
                                 "and drop_last")
            batch_size, drop_last = None, False
        elif batch_size is None and drop_last:
            raise ValueError("batch_size=None option disables auto-batching and is mutually exclusive with drop_last")
        if sampler is None and not self._iterable:
            sampler = RandomSampler(dataset, generator=generator) if shuffle else SequentialSampler(dataset)
        if batch_size is not None and batch_sampler is None and sampler is not None:
            batch_sampler = BatchSampler(sampler, batch_size, drop_last)
        self.batch_size, self.drop_last = batch_size, drop_last
        self.sampler, self.batch_sampler = sampler, batch_sampler
        self.generator = generator
        if collate_fn is None:
            collate_fn = default_collate if self._auto_collation else default_convert
        self.collate_fn = collate_fn

    @property
    def _auto_collation(self):
        return self.batch_sampler is not None or (self._iterable and self.batch_size is not None)

    @property
    def _index_sampler(self):
        if self._iterable:
            if self.batch_size is not None:
                return BatchSampler(_InfiniteNone(), self.batch_size, self.drop_last)
            return _InfiniteNone()
        return self.batch_sampler if self._auto_collation else self.sampler

    def __iter__(self):
        if self.num_workers > 0 and not _WORKERS_NOTE[0]:
            _WORKERS_NOTE[0] = True
            print(f"core: DataLoader(num_workers={self.num_workers}) loads in the main process", file=sys.stderr)
        sampler_iter = iter(self._index_sampler)
        draw_seed(self.generator)  # torch's _BaseDataLoaderIter takes its _base_seed here, every epoch
        return _Iterator(self, sampler_iter)

    def __len__(self):
        if self._iterable:
            length = len(self.dataset)
            if self.batch_size is not None:
                length = length // self.batch_size if self.drop_last else -(-length // self.batch_size)
            return length
        return len(self._index_sampler)


class _InfiniteNone:
    def __iter__(self):
        return _infinite_none()


class _Iterator:
    """One epoch: fetch the next (batched) index from the sampler, then collate."""

    def __init__(self, loader, sampler_iter):
        self._loader, self._sampler_iter = loader, sampler_iter
        self._dataset_iter = iter(loader.dataset) if loader._iterable else None
        self._ended = False

    def __iter__(self):
        return self

    def __len__(self):
        return len(self._loader)

    def __next__(self):
        index = next(self._sampler_iter)
        loader = self._loader
        if loader._iterable:
            return loader.collate_fn(self._fetch_iterable(index))
        if not loader._auto_collation:
            return loader.collate_fn(loader.dataset[index])
        getitems = getattr(loader.dataset, "__getitems__", None)
        data = getitems(index) if getitems else [loader.dataset[i] for i in index]
        return loader.collate_fn(data)

    def _fetch_iterable(self, index):
        if self._ended:
            raise StopIteration
        if not self._loader._auto_collation:
            return next(self._dataset_iter)
        data = []
        for _ in index:
            try:
                data.append(next(self._dataset_iter))
            except StopIteration:
                self._ended = True
                break
        if len(data) == 0 or (self._loader.drop_last and len(data) < len(index)):
            raise StopIteration
        return data
