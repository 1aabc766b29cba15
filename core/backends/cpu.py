"""torch.backends.cpu: core runs on NumPy, whose kernels are whatever NumPy was built with."""


def get_cpu_capability():
    """torch reports its vector ISA ('AVX512', 'AVX2', 'DEFAULT'); core claims none."""
    return "DEFAULT"
