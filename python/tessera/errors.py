"""The exceptions of the tessera runtime."""

from __future__ import annotations

import dataclasses


@dataclasses.dataclass(frozen=True)
class Diagnostic:
    """One message of the compiler, located in the source it is about."""

    severity: str  # "error" | "warning" | "note" | "remark"
    file: str
    line: int  # 1-based; 0 when unknown
    col: int
    message: str
    notes: tuple["Diagnostic", ...] = ()

    @classmethod
    def from_native(cls, entry: dict) -> "Diagnostic":
        return cls(
            severity=entry["severity"],
            file=entry["file"],
            line=entry["line"],
            col=entry["col"],
            message=entry["message"],
            notes=tuple(cls.from_native(note) for note in entry["notes"]),
        )

    @property
    def location(self) -> str:
        """``file:line:col`` (shorter when a part is unknown)."""
        parts = [self.file or "<input>"]
        if self.line:
            parts.append(str(self.line))
            if self.col:
                parts.append(str(self.col))
        return ":".join(parts)


class CompileError(Exception):
    """A kernel did not compile for a call.

    ``str(error)`` is the compiler's report (``file:line:col: error: ...``
    with the source line and a caret); ``diagnostics`` holds each message
    with its location, ``signature`` the call it was compiled for.
    """

    def __init__(self, kernel: str, rendered: str, diagnostics=(), signature=None):
        self.kernel = kernel
        self.rendered = rendered
        self.diagnostics = tuple(diagnostics)
        self.signature = signature
        errors = [d for d in self.diagnostics if d.severity == "error"]
        self.file = errors[0].file if errors else ""
        self.line = errors[0].line if errors else 0
        self.col = errors[0].col if errors else 0
        header = f"kernel {kernel!r} does not compile"
        if signature is not None:
            header += f" for {signature.describe()}"
        super().__init__(f"{header}:\n{rendered.rstrip()}")


class InternalCompilerError(RuntimeError):
    """Tessera (or one of its plugins) failed without telling the user why:
    a bug to report, with the kernel and the call that caused it."""
