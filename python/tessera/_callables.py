"""Callables passed to a kernel at its call, as the compiler takes them: a
lambda's source (`lambda acc, tile: acc * 2`), with the constants it
captures written in. The kernel inlines it, as it inlines a lambda default.

Accepted: a lambda, or a function whose body is one `return` expression
(a docstring may precede it), whose free names are the kernel file's own
(torch, hl, ...) or captured numbers and booleans. Anything else is a
TypeError naming the callable and what is wrong with it.
"""

from __future__ import annotations

import ast
import inspect
import textwrap
import types


class _Constants(ast.NodeTransformer):
    """Replaces captured names by their (numeric or boolean) values, and
    captured tensors by the kernel parameters they are lifted to."""

    def __init__(self, values: dict, renamed: dict | None = None):
        self.values = values
        self.renamed = renamed or {}

    def visit_Name(self, node: ast.Name):
        if isinstance(node.ctx, ast.Load) and node.id in self.values:
            return ast.copy_location(ast.Constant(self.values[node.id]), node)
        if isinstance(node.ctx, ast.Load) and node.id in self.renamed:
            return ast.copy_location(ast.Name(self.renamed[node.id], ast.Load()), node)
        return node


def _is_array(value) -> bool:
    return (hasattr(value, "shape") and hasattr(value, "dtype")
            and not isinstance(value, (type, bool, int, float)))


def lifted_name(param: str, captured: str) -> str:
    """The kernel parameter a tensor captured by callable `param` becomes
    (Helion lifts such tensors to kernel arguments)."""
    return f"{param}__{captured}"


def captured_arrays(function) -> dict:
    """The tensors and arrays `function` captures from its enclosing scope,
    by captured name."""
    code = getattr(function, "__code__", None)
    if code is None:
        return {}
    found = {name: function.__globals__[name] for name in code.co_names
             if _is_array(function.__globals__.get(name))}
    found.update((name, cell.cell_contents)
                 for name, cell in zip(code.co_freevars, function.__closure__ or ())
                 if _is_array(cell.cell_contents))
    return found


def _describe(function) -> str:
    code = getattr(function, "__code__", None)
    where = f" ({code.co_filename}:{code.co_firstlineno})" if code else ""
    return f"{getattr(function, '__qualname__', repr(function))}{where}"


def _lambda_node(function) -> ast.Lambda:
    """The `lambda` node `function` was made from, out of its source."""
    try:
        lines, _ = inspect.getsourcelines(function)
    except (OSError, TypeError) as error:
        raise TypeError(f"the source of {_describe(function)} is not available: {error}") from None
    text = textwrap.dedent("".join(lines))
    tree = None
    # The lines holding a lambda may be part of a larger statement (an
    # argument list that goes on): trim from the end until it parses.
    for end in range(len(text), 0, -1):
        try:
            tree = ast.parse(text[:end])
            break
        except SyntaxError:
            continue
    if tree is None:
        raise TypeError(f"cannot read the lambda of {_describe(function)} from its source")
    code = function.__code__
    arguments = code.co_varnames[:code.co_argcount + code.co_kwonlyargcount]
    found = [node for node in ast.walk(tree) if isinstance(node, ast.Lambda)
             and tuple(a.arg for a in node.args.posonlyargs + node.args.args
                       + node.args.kwonlyargs) == arguments]
    if len(found) != 1:
        raise TypeError(f"cannot tell which lambda of its line {_describe(function)} is "
                        f"({len(found)} with these parameters); define it on a line of its own")
    return found[0]


def _function_as_lambda(function) -> ast.Lambda:
    try:
        source = textwrap.dedent(inspect.getsource(function))
        definition = ast.parse(source).body[0]
    except (OSError, TypeError, SyntaxError, IndexError) as error:
        raise TypeError(f"the source of {_describe(function)} is not available: {error}") from None
    body = list(definition.body)
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
        body = body[1:]  # the docstring
    if not (isinstance(definition, ast.FunctionDef) and len(body) == 1
            and isinstance(body[0], ast.Return) and body[0].value is not None):
        raise TypeError(f"{_describe(function)} is not one `return` expression; Tessera "
                        "inlines a callable from its source: pass a lambda")
    arguments = definition.args
    for argument in (arguments.posonlyargs + arguments.args + arguments.kwonlyargs
                     + [a for a in (arguments.vararg, arguments.kwarg) if a]):
        argument.annotation = None  # a lambda's parameters take none
    return ast.Lambda(args=arguments, body=body[0].value)


def resolve(value, depth: int = 0):
    """The function a callable argument stands for: itself, or for an
    object whose ``__call__`` only forwards its arguments to a callable
    attribute (``return self.fn(acc, tile)``, Helion's epilogue wrappers),
    that attribute, resolved in turn. Anything else is returned as it is
    (and rejected, with its name, when its source is read)."""
    if isinstance(value, types.FunctionType) or depth > 4:
        return value
    call = getattr(type(value), "__call__", None)
    if not isinstance(call, types.FunctionType):
        return value
    try:
        definition = ast.parse(textwrap.dedent(inspect.getsource(call))).body[0]
    except (OSError, TypeError, SyntaxError, IndexError):
        return value
    body = [node for node in definition.body
            if not (isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant))]
    params = [a.arg for a in definition.args.posonlyargs + definition.args.args]
    if not (len(body) == 1 and isinstance(body[0], ast.Return)
            and isinstance(body[0].value, ast.Call) and params):
        return value
    target = body[0].value
    forwards = (isinstance(target.func, ast.Attribute)
                and isinstance(target.func.value, ast.Name)
                and target.func.value.id == params[0] and not target.keywords
                and [getattr(a, "id", None) for a in target.args] == params[1:])
    if not forwards:
        return value
    return resolve(getattr(value, target.func.attr), depth + 1)


def lambda_source(function, lifted_as: str | None = None) -> str:
    """The source the compiler inlines for `function`; with `lifted_as`
    (the callable's parameter name), the tensors it captures are read from
    the kernel parameters ``lifted_name(lifted_as, name)``."""
    if not isinstance(function, types.FunctionType):
        raise TypeError(f"{_describe(function)} is not a Python function or lambda; Tessera "
                        "inlines a callable from its source")
    node = (_lambda_node(function) if function.__name__ == "<lambda>"
            else _function_as_lambda(function))
    captured = {}
    names = set(function.__code__.co_freevars)
    for name, cell in zip(function.__code__.co_freevars, function.__closure__ or ()):
        captured[name] = cell.cell_contents
    for name in function.__code__.co_names:
        if name in function.__globals__ and not isinstance(
                function.__globals__[name], types.ModuleType):
            captured.setdefault(name, function.__globals__[name])
            names.add(name)
    constants, renamed = {}, {}
    for name in names:
        value = captured.get(name)
        if isinstance(value, (bool, int, float)):
            constants[name] = value
        elif lifted_as is not None and _is_array(value):
            renamed[name] = lifted_name(lifted_as, name)
        elif name in function.__code__.co_freevars:
            raise TypeError(f"{_describe(function)} captures {name!r} "
                            f"({type(value).__name__}); only numbers, booleans and tensors "
                            "can be passed into the kernel")
    node = _Constants(constants, renamed).visit(node)
    return ast.unparse(ast.fix_missing_locations(node))


def key_of(function) -> tuple:
    """What distinguishes two callables for the memory cache: the code and
    the values it captures."""
    code = getattr(function, "__code__", None)
    cells = tuple(_cell_key(cell.cell_contents)
                  for cell in (getattr(function, "__closure__", None) or ()))
    return (id(code) if code is not None else id(function), cells,
            repr(getattr(function, "__defaults__", None)))


def _cell_key(value):
    # A captured tensor is an argument of the kernel: its shape and dtype
    # select the compile, not its values.
    if _is_array(value):
        return ("array", tuple(value.shape), str(value.dtype))
    return repr(value)
