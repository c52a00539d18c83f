"""Kernels call kernels without literal numbers or flags.

numba types a literal argument (``0``, ``-1``, ``True``) as a type of its own
(``Literal[int](0)``), so a kernel that one caller passes ``0`` and another a
variable is compiled twice, with everything it calls: a user's first fit waits
for both. Kernels pass such constants as ``np.int64(0)`` or ``np.bool_(True)``
(or a module constant of that type). This reads the package's kernels and lists
every call of a compiled (not inlined) kernel with a literal int or bool
argument; the few literals that choose a specialised version on purpose are
named below.

(A variable that starts as a literal, ``m = 0`` then ``m += 1``, can have the
same effect while numba types it; this check does not see those:
``benchmarks/profile_compile.py`` lists every kernel a job compiled more than
once, with the argument types that differ.)
"""

import ast
import inspect

from _package import treelearn_modules
from numba.core.registry import CPUDispatcher

#: (module, callee, parameter) whose literal argument is a deliberate specialisation:
#: the histogram builders read the targets either gathered in node order or by row,
#: in their innermost loop, and are compiled for each.
DELIBERATE = {
    ("treelearn.stats._kernels", "_build_together", "node_order"),
    ("treelearn.stats._kernels", "_build_stack_part", "node_order"),
}


def _is_literal(node):
    """An int or bool constant, or a negated int constant."""
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        node = node.operand
    return isinstance(node, ast.Constant) and type(node.value) in (int, bool)


def _callee(module, func):
    """The object a call's function expression names in ``module``, or None."""
    if isinstance(func, ast.Name):
        return module.__dict__.get(func.id)
    if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
        owner = module.__dict__.get(func.value.id)
        return getattr(owner, func.attr, None) if owner is not None else None
    return None


def _literal_kernel_calls():
    """``(module, caller, line, callee, parameter)`` for every literal argument of a
    call from a kernel to a compiled, not inlined, kernel."""
    found = []
    for module in treelearn_modules():
        tree = ast.parse(inspect.getsource(module))
        for function in ast.walk(tree):
            if not isinstance(function, ast.FunctionDef):
                continue
            if not isinstance(module.__dict__.get(function.name), CPUDispatcher):
                continue
            for call in ast.walk(function):
                if not isinstance(call, ast.Call):
                    continue
                callee = _callee(module, call.func)
                if not isinstance(callee, CPUDispatcher):
                    continue
                if callee.targetoptions.get("inline", "never") == "always":
                    continue  # (typed in its caller: no compilation of its own)
                parameters = list(inspect.signature(callee.py_func).parameters)
                named = [(parameters[i], arg) for i, arg in enumerate(call.args)]
                named += [(keyword.arg, keyword.value) for keyword in call.keywords]
                for parameter, arg in named:
                    if _is_literal(arg):
                        found.append(
                            (
                                callee.py_func.__module__,
                                function.name,
                                call.lineno,
                                callee.py_func.__name__,
                                parameter,
                            )
                        )
    return found


def test_no_kernel_passes_a_literal_to_a_compiled_kernel():
    found = _literal_kernel_calls()
    seen = {(module, callee, parameter) for module, _, _, callee, parameter in found}
    # The reading sees calls: the deliberate specialisations are among what it finds.
    assert DELIBERATE.issubset(seen)
    unexpected = [
        f"{caller} (line {line}) passes a literal {parameter!r} to {module}.{callee}"
        for module, caller, line, callee, parameter in found
        if (module, callee, parameter) not in DELIBERATE
    ]
    assert not unexpected, (
        "numba compiles a kernel once more for each literal argument; pass np.int64(...) "
        "or np.bool_(...) instead:\n" + "\n".join(unexpected)
    )
