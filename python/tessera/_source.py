"""Kernels of a source file, read with Python's own parser: their names and
parameters, so that a call can be bound to the kernel's signature before
the compiler sees it."""

from __future__ import annotations

import ast
import dataclasses
import inspect
import pathlib
import re

# Names a kernel decorator may end with: `helion.kernel`, `tessera.kernel`,
# `kernel` imported from either, with or without a call.
_KERNEL_DECORATORS = ("kernel",)


@dataclasses.dataclass(frozen=True)
class Param:
    name: str
    annotation: str  # as written ("" when none)
    default: object  # the literal default, or Param.NO_DEFAULT
    line: int

    NO_DEFAULT = object()

    @property
    def has_default(self) -> bool:
        return self.default is not Param.NO_DEFAULT

    @property
    def is_callable(self) -> bool:
        return "Callable" in self.annotation or isinstance(self.default, _Lambda)

    @property
    def is_compile_time(self) -> bool:
        """A value the kernel is compiled for (hl.constexpr, str, a list of
        ints such as layer_norm's normalized_shape)."""
        return ("constexpr" in self.annotation or self.annotation == "str"
                or self.annotation.split("[")[0].split(".")[-1]
                in ("list", "tuple", "List", "Tuple", "Sequence"))


class _Lambda:
    """A lambda default (the compiler inlines it)."""


@dataclasses.dataclass(frozen=True)
class KernelSource:
    name: str
    path: str
    text: str
    line: int
    params: tuple[Param, ...]
    specialized: frozenset[str]  # int params passed to hl.specialize
    static_shapes: bool  # the decorator's static_shapes= (Helion's default True)
    has_config: bool = False  # the decorator gives config= / configs= (blocks)

    def param(self, name: str) -> Param | None:
        return next((p for p in self.params if p.name == name), None)

    @property
    def where(self) -> str:
        return f"{self.path}:{self.line}"

    def with_leading_params(self, names: tuple[str, ...]) -> "KernelSource":
        """This kernel with tensor parameters `names` first (the runtime
        passes every argument by name). Only the `def` line changes, so
        every other line and column of a diagnostic stays the user's."""
        lines = self.text.splitlines(keepends=True)
        index = self.line - 1
        match = re.search(rf"\bdef\s+{re.escape(self.name)}\s*\(", lines[index])
        if match is None:
            raise ValueError(f"{self.where}: cannot find the `def {self.name}(` line")
        lines[index] = (lines[index][:match.end()] + "".join(f"{n}, " for n in names)
                        + lines[index][match.end():])
        params = tuple(Param(n, "", Param.NO_DEFAULT, self.line) for n in names) + self.params
        return dataclasses.replace(self, text="".join(lines), params=params)


def _dotted(node: ast.AST) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        base = _dotted(node.value)
        return f"{base}.{node.attr}" if base else ""
    return ""


def _is_kernel_decorator(node: ast.AST) -> ast.Call | bool:
    call = node if isinstance(node, ast.Call) else None
    name = _dotted(call.func if call else node)
    if name.split(".")[-1] not in _KERNEL_DECORATORS:
        return False
    return call or True


def _literal(node: ast.AST | None):
    if node is None:
        return Param.NO_DEFAULT
    if isinstance(node, ast.Lambda):
        return _Lambda()
    try:
        return ast.literal_eval(node)
    except (ValueError, SyntaxError, TypeError):
        return _Unevaluated(ast.unparse(node))


@dataclasses.dataclass(frozen=True)
class _Unevaluated:
    """A default the runtime cannot evaluate from the source (a name)."""

    text: str


def _params(function: ast.FunctionDef) -> tuple[Param, ...]:
    args = function.args
    positional = args.posonlyargs + args.args
    defaults = [None] * (len(positional) - len(args.defaults)) + list(args.defaults)
    params = []
    for arg, default in zip(positional, defaults):
        params.append(Param(arg.arg, ast.unparse(arg.annotation) if arg.annotation else "",
                            _literal(default), arg.lineno))
    for arg, default in zip(args.kwonlyargs, args.kw_defaults):
        params.append(Param(arg.arg, ast.unparse(arg.annotation) if arg.annotation else "",
                            _literal(default), arg.lineno))
    return tuple(params)


def _specialized(function: ast.FunctionDef) -> frozenset[str]:
    names = set()
    for node in ast.walk(function):
        if (isinstance(node, ast.Call) and _dotted(node.func).split(".")[-1] == "specialize"
                and len(node.args) == 1 and isinstance(node.args[0], ast.Name)):
            names.add(node.args[0].id)
    return frozenset(names)


def _has_config(call: ast.Call | bool) -> bool:
    return isinstance(call, ast.Call) and any(
        keyword.arg in ("config", "configs") for keyword in call.keywords)


def _static_shapes(call: ast.Call | bool) -> bool:
    if isinstance(call, ast.Call):
        for keyword in call.keywords:
            if keyword.arg == "static_shapes":
                value = _literal(keyword.value)
                if isinstance(value, bool):
                    return value
    return True


def kernels_in(path: str, text: str) -> dict[str, KernelSource]:
    """Every top-level kernel of the file, by name. Source Python rejects is
    left to the compiler, which reports it with its location."""
    try:
        tree = ast.parse(text, filename=path)
    except SyntaxError:
        return _kernels_by_pattern(path, text)
    found = {}
    for node in tree.body:
        if not isinstance(node, ast.FunctionDef):
            continue
        for decorator in node.decorator_list:
            call = _is_kernel_decorator(decorator)
            if call:
                found[node.name] = KernelSource(
                    node.name, path, text, node.lineno, _params(node),
                    _specialized(node), _static_shapes(call), _has_config(call))
                break
    return found


def source_of_function(function, decorator: str) -> KernelSource:
    """The kernel source of a decorated function of its file (`decorator`
    names the decorator in errors: "tessera.kernel", "helion.kernel")."""
    path = inspect.getsourcefile(function)
    if path is None:
        raise TypeError(f"{decorator}: the source of {function.__name__} is not available")
    source = kernels_in(path, pathlib.Path(path).read_text()).get(function.__name__)
    if source is None:
        raise TypeError(f"{path}: {decorator}: {function.__name__} must be a top-level "
                        f"function of its file, decorated with @{decorator}")
    return source


def _kernels_by_pattern(path: str, text: str) -> dict[str, KernelSource]:
    # A file Python cannot parse: the kernels' names, so that calling one
    # reaches the compiler and its located error.
    found = {}
    lines = text.splitlines()
    for number, line in enumerate(lines, 1):
        match = re.match(r"def\s+([A-Za-z_]\w*)\s*\(", line)
        if match and number > 1 and "kernel" in lines[number - 2]:
            found[match.group(1)] = KernelSource(match.group(1), path, text, number, (),
                                                 frozenset(), True)
    return found
