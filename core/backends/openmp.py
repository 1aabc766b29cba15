"""torch.backends.openmp: core is single-threaded NumPy."""


def is_available():
    return False
