"""A call's signature: what of its arguments a kernel is compiled for.

Each tensor's dtype and shape (every dim with ``static_shapes=True``,
Helion's default; otherwise its rank, the sizes left symbolic), each value
the kernel is compiled for (``hl.constexpr``, ``str``, ``hl.specialize``d
ints, ``None`` for an optional tensor) and each plain scalar's type. The
signature spells these as ``--arg`` does, so the CLI and the runtime compile
the same thing for the same facts.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from ._callables import lambda_source, lifted_name
from ._source import KernelSource, Param

# NumPy / JAX dtype names -> the compiler's spelling.
_DTYPE_SPELLING = {
    "bool": "bool", "int8": "i8", "int16": "i16", "int32": "i32", "int64": "i64",
    "float16": "f16", "bfloat16": "bf16", "float32": "f32",
    "float8_e4m3fn": "f8e4m3", "float8_e5m2": "f8e5m2",
}
_SCALAR_ANNOTATION = {"float": "f32", "int": "i64", "bool": "bool"}


@dataclasses.dataclass(frozen=True)
class Signature:
    """The facts of a call, one ``(parameter, spelling)`` per argument."""

    kernel: str
    facts: tuple[tuple[str, str], ...]

    def args(self) -> dict[str, str]:
        """The facts as the compiler's ``--arg`` map (None-valued optional
        tensors are left out: the kernel compiles for None by default)."""
        return {name: spelling for name, spelling in self.facts if spelling != "<none>"}

    def describe(self) -> str:
        return ", ".join(f"{name}={spelling}" for name, spelling in self.facts) or "no arguments"


def dtype_spelling(dtype, where: str) -> str:
    import jax  # deferred: importing tessera does not start JAX

    canonical = np.dtype(jax.dtypes.canonicalize_dtype(dtype))
    spelling = _DTYPE_SPELLING.get(canonical.name)
    if spelling is None:
        raise TypeError(f"{where}: dtype {canonical.name} is not one Tessera compiles for "
                        f"(supported: {', '.join(sorted(_DTYPE_SPELLING))})")
    return spelling


def _python_literal(value) -> str:
    if isinstance(value, str):
        return repr(value)
    if isinstance(value, float):
        return repr(value)
    return str(value)


def is_array(value) -> bool:
    return hasattr(value, "shape") and hasattr(value, "dtype") and not isinstance(value, type)


def fact(kernel: KernelSource, param: Param, value, static_shapes: bool) -> str:
    """The spelling of one argument of the call."""
    where = f"{kernel.where}: kernel {kernel.name!r}, argument {param.name!r}"
    compile_time = param.is_compile_time or param.name in kernel.specialized
    if value is None:
        return "<none>"
    if compile_time:
        if isinstance(value, (bool, int, float, str)):
            return _python_literal(value)
        if isinstance(value, (list, tuple)) and all(
                isinstance(v, int) and not isinstance(v, bool) for v in value):
            return repr(tuple(int(v) for v in value))
        raise TypeError(f"{where}: a compile-time argument takes a bool, int, float "
                        f"or str, got {type(value).__name__}")
    if is_array(value) and not isinstance(value, np.generic):
        dtype = dtype_spelling(value.dtype, where)
        if static_shapes:
            dims = ", ".join(str(int(d)) for d in value.shape)
        else:
            dims = ", ".join(f"{param.name}_d{i}" for i in range(len(value.shape)))
        return f"{dtype}[{dims}]"
    if isinstance(value, (bool, int, float, np.number)):
        scalar = _SCALAR_ANNOTATION.get(param.annotation)
        if scalar is None:
            if isinstance(value, bool):
                scalar = "bool"
            elif isinstance(value, (int, np.integer)):
                scalar = "i64"
            else:
                scalar = "f32"
        return scalar
    if isinstance(value, (list, tuple)):
        raise TypeError(f"{where}: list and tuple arguments are not supported by the "
                        "compiler yet; pass the sizes as ints or read them from a tensor")
    if callable(value):
        try:
            lifted = lifted_name(param.name, "")
            lifts = any(p.name.startswith(lifted) for p in kernel.params)
            return lambda_source(value, lifted_as=param.name if lifts else None)
        except TypeError as error:
            raise TypeError(f"{where}: {error}") from None
    raise TypeError(f"{where}: cannot pass a {type(value).__name__} to a kernel")

