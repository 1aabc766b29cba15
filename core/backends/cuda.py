"""torch.backends.cuda: not built; matmul precision flags kept as settable attributes."""


class _Matmul:
    allow_tf32 = False
    allow_fp16_reduced_precision_reduction = True
    allow_bf16_reduced_precision_reduction = True


matmul = _Matmul()


def is_built():
    return False


def is_flash_attention_available():
    return False
