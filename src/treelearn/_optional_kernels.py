"""Kernel helpers for arguments that are None where a kind of work cannot arise.

numba compiles a kernel once per combination of its arguments' types, and before
typing it drops every branch that an argument's being None decides (``if arg is
None``): whatever such a branch calls is then not compiled at all. The split finders
take the buffers of a kind of feature as None when the data has no feature of that
kind (:func:`treelearn.splitting._kernels.find_best_split`): a table of numeric
features only never compiles the search of nominal ones, nor a table of nominal
features the numeric scans (the CLI's main job, on nominal features, compiled 42% less).

The helpers here pass the None on by type, as numba types them: a kernel that
returned ``None`` in one branch and an array in another would return an optional
array, and its callers would compile both branches again.
"""

from numba import types
from numba.extending import overload


def if_present(marker, value):
    """``value``, or None when ``marker`` is None (decided when numba compiles the
    caller, by the type of ``marker``). Callable only from kernels."""
    raise NotImplementedError("if_present is called from numba kernels only")


@overload(if_present)
def _if_present(marker, value):
    if isinstance(marker, types.NoneType):
        return lambda marker, value: None
    return lambda marker, value: value


def row_of(matrix, i):
    """``matrix[i]``, or None when ``matrix`` is None (decided when numba compiles the
    caller). Callable only from kernels."""
    raise NotImplementedError("row_of is called from numba kernels only")


@overload(row_of)
def _row_of(matrix, i):
    if isinstance(matrix, types.NoneType):
        return lambda matrix, i: None
    return lambda matrix, i: matrix[i]
