"""Fails when a nested function of a generated module rebinds a name that an
enclosing function also binds without declaring it `nonlocal` (the closure
bug class behind UnboundLocalError / stale loop state). Prints one line per
problem; exit status 1 when there is any."""
import ast
import sys


def own_bound_names(function):
    """Names bound directly in `function`, not in functions nested in it."""
    names = set(a.arg for a in function.args.args + function.args.kwonlyargs)
    stack = list(ast.iter_child_nodes(function))
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.FunctionDef, ast.Lambda)):
            if isinstance(node, ast.FunctionDef):
                names.add(node.name)
            continue
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
        stack.extend(ast.iter_child_nodes(node))
    return names


def nonlocals(function):
    declared = set()
    for node in ast.walk(function):
        if isinstance(node, ast.Nonlocal):
            declared.update(node.names)
    return declared


def check(function, enclosing, problems):
    mine = own_bound_names(function)
    clash = (mine & enclosing) - nonlocals(function)
    for name in sorted(clash):
        problems.append(f"{function.name}: rebinds '{name}' of an enclosing "
                        "function without nonlocal")
    for child in direct_functions(function):
        check(child, enclosing | mine, problems)


def direct_functions(node):
    found = []
    stack = list(ast.iter_child_nodes(node))
    while stack:
        child = stack.pop()
        if isinstance(child, ast.FunctionDef):
            found.append(child)
            continue
        stack.extend(ast.iter_child_nodes(child))
    return sorted(found, key=lambda f: f.lineno)


def main(path):
    tree = ast.parse(open(path).read(), path)
    problems = []
    for function in direct_functions(tree):
        for child in direct_functions(function):
            check(child, own_bound_names(function), problems)
    for problem in problems:
        print(problem)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
