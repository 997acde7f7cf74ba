"""Helion's own Triton output for an example kernel, as a bench_gpu candidate.

The kernel source is the same file tessera compiles (examples/<kernel>.py,
Helion syntax), so the column compares the two compilers on one program at
one launch configuration: Helion compiles it with the block sizes, num_warps
and num_stages of the tessera module it stands next to (the other fields of
its Config are Helion's defaults). Needs PyTorch with CUDA and the helion
package (on the GPU machine: carried as a wheel, see README.md).
"""
import importlib.util


def unavailable_reason():
    """Why the Helion column cannot run here, or None."""
    try:
        import torch
    except ImportError:
        return "needs PyTorch with CUDA"
    if not torch.cuda.is_available():
        return "needs PyTorch with CUDA (no CUDA device)"
    if importlib.util.find_spec("helion") is None:
        return "needs the helion package"
    return None


def _to_torch(array):
    import numpy as np
    import torch
    dtype = {"bfloat16": torch.bfloat16, "float16": torch.float16,
             "float32": torch.float32}[str(array.dtype)]
    return torch.from_numpy(np.asarray(array, np.float32)).to(device="cuda", dtype=dtype)


class HelionKernel:
    """One example kernel bound to one set of arguments."""

    def __init__(self, example_path, name, arrays):
        spec = importlib.util.spec_from_file_location(f"helion_{name}", example_path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        self.args = tuple(_to_torch(a) for a in arrays)
        self.bound = getattr(module, name).bind(self.args)

    def compile(self, block_sizes, num_warps, num_stages):
        """A callable running the kernel at this launch configuration
        (None: Helion's default for that field)."""
        import helion
        fields = dict(self.bound.config_spec.default_config())
        for key, value in (("block_sizes", block_sizes), ("num_warps", num_warps),
                           ("num_stages", num_stages)):
            if value:
                fields[key] = list(value) if key == "block_sizes" else value
        compiled = self.bound.compile_config(helion.Config(**fields), allow_print=False)
        return lambda: compiled(*self.args)

    @staticmethod
    def synchronize(_result):
        import torch
        torch.cuda.synchronize()


def result_as_numpy(result):
    import numpy as np
    import torch
    return np.asarray(result.detach().to(torch.float32).cpu().numpy())
