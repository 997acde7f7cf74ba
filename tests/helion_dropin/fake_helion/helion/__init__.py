"""A stand-in for an installed `helion` package: the names the drop-in
takes over (kernel, jit, runtime.kernel), so that the tests can check that
install() replaces them and uninstall() gives them back, on a machine
without Helion."""

from . import language, runtime
from .runtime import Config, kernel

jit = kernel
__all__ = ["Config", "jit", "kernel", "language", "runtime"]
