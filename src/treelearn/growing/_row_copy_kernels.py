"""Copies of a node's rows for the numba growing loop: a subtree grown from a copy of its
rows (codes, row index, targets and weights; at most
:data:`~treelearn.growing._loop_kernels.COPY_MAX_BYTES`) reads them from cache instead
of a cache line a row and feature of the whole code matrix. The copy keeps the rows'
order and the arrays' types, so the loop grows the same splits from it, every sum added
in the same order.
"""

import numpy as np
from numba import njit

from treelearn.growing._local_kernels import copy_node_codes


@njit(cache=True, inline="always")
def _per_row(values, rows):
    """Whether ``values`` (a target or weights) has an entry a row of ``rows``, and so
    is copied with them (:func:`copied_rows`); otherwise it is a placeholder (the
    other task's target, no weights), kept as it is."""
    return values.shape[0] == rows.shape[0]


@njit(cache=True, inline="always")
def copy_row_bytes(data):
    """Bytes a row of ``data`` takes in a copy (:func:`copied_rows`): its codes, its
    index, and those of its targets and weight that have an entry a row."""
    feature_codes, rows, y_class, y_value, weight = data[:5]
    row_bytes = feature_codes.shape[0] * feature_codes.itemsize + rows.itemsize
    for values_itemsize, per_row in (
        (y_class.itemsize, _per_row(y_class, rows)),
        (y_value.itemsize, _per_row(y_value, rows)),
        (weight.itemsize, _per_row(weight, rows)),
    ):
        if per_row:
            row_bytes += values_itemsize
    return row_bytes


@njit(cache=True)
def new_copy_space(data, n_rows):
    """Flat arrays for :func:`copied_rows` of up to ``n_rows`` rows of ``data``."""
    feature_codes, rows, y_class, y_value, weight = data[:5]
    return (
        np.empty(n_rows * feature_codes.shape[0], dtype=feature_codes.dtype),
        np.empty(n_rows, dtype=rows.dtype),
        np.empty(n_rows if _per_row(y_class, rows) else 0, dtype=y_class.dtype),
        np.empty(n_rows if _per_row(y_value, rows) else 0, dtype=y_value.dtype),
        np.empty(n_rows if _per_row(weight, rows) else 0, dtype=weight.dtype),
    )


@njit(cache=True, inline="always")
def _copied_entries(values, rows, start, end, space):
    """``values[rows[start:end]]`` in ``space``, where ``values`` has an entry a row of
    ``rows`` (a target or weights); ``values`` as it is otherwise (a placeholder)."""
    if not _per_row(values, rows):
        return values
    copy = space[: end - start]
    for i in range(end - start):
        copy[i] = values[np.uint64(rows[start + i])]
    return copy


@njit(cache=True)
def copied_rows(data, start, end, space):
    """``data`` of the rows ``rows[start:end]`` only, in that order (the row
    ``rows[start + i]`` as row ``i``), in the arrays of ``space``
    (:func:`new_copy_space`): the same types, so the loop grows a node from the copy
    as from ``data``, the same splits. A target or weight array without an entry a
    row (the other task's placeholder; no weights) stays as it is."""
    feature_codes, rows, y_class, y_value, weight = data[:5]
    flat_codes, space_rows, space_class, space_value, space_weight = space
    n = end - start
    by_feature = flat_codes[: n * feature_codes.shape[0]].reshape((feature_codes.shape[0], n))
    copy_node_codes(feature_codes, rows, start, end, by_feature)
    copy_class = _copied_entries(y_class, rows, start, end, space_class)
    copy_value = _copied_entries(y_value, rows, start, end, space_value)
    copy_weight = _copied_entries(weight, rows, start, end, space_weight)
    copy_rows = space_rows[:n]
    for i in range(n):
        copy_rows[i] = i
    is_classification, criterion, n_classes = data[5:]
    return (by_feature, copy_rows, copy_class, copy_value, copy_weight, is_classification,
            criterion, n_classes)  # fmt: skip
