"""PyTorch tensors in and out, through DLPack: a CPU tensor becomes a JAX
array on the CPU (and the kernel runs in interpret mode there), a CUDA
tensor a JAX array on its GPU, without a copy where DLPack allows."""

from __future__ import annotations


def is_torch_tensor(value) -> bool:
    module = type(value).__module__
    return module.startswith("torch") and hasattr(value, "__dlpack__")


def torch_to_jax(tensor):
    import jax.dlpack

    if tensor.requires_grad:
        tensor = tensor.detach()
    if not tensor.is_contiguous():
        tensor = tensor.contiguous()
    return jax.dlpack.from_dlpack(tensor)


def jax_to_torch(value):
    import torch

    return torch.from_dlpack(value)


def map_arrays(result, convert):
    """`convert` applied to every array of a kernel's result (an array or
    a tuple / list of them)."""
    if isinstance(result, (tuple, list)):
        return type(result)(map_arrays(item, convert) for item in result)
    if hasattr(result, "shape") and hasattr(result, "dtype"):
        return convert(result)
    return result
