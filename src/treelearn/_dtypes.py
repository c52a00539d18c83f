"""Every dtype and sentinel of the engine, in one place.

Codes
    A column is turned once, at fit time, into small non-negative integer *codes*
    (see :mod:`treelearn.data.encoding`). A feature with ``n`` known codes uses
    ``0 .. n-1`` for its values and the code ``n`` (one past the last) for a
    missing value, so a feature's histogram has ``n + 1`` bins and the missing
    bin is always the last one. The code matrix uses the narrowest unsigned
    dtype that holds every feature's missing code (:func:`code_dtype_for`).

Node kinds
    The kinds of node a :class:`~treelearn.tree.Tree` holds (``NODE_*``).

Child sentinels
    ``NO_CHILD`` in a node's category map means "this category was not seen at
    the node during training; route the row as a missing value".
    ``MISSING_BY_WEIGHT`` as a node's ``missing_child`` means "send a row with
    a missing value down every branch, weighted by the branch weights"
    (C4.5's fractional cases).
"""

import numpy as np

#: dtype of every floating-point statistic, threshold and value.
FLOAT_DTYPE = np.float64
#: dtype of the Tree's node and feature indices (``feature``, ``child_ptr``,
#: ``children``, ``category_child``, ``missing_child``): a tree has far fewer than
#: 2**31 nodes (each takes tens of bytes), and int32 takes 16 bytes a node off
#: every tree, fitted or loaded, and off the fit's peak memory.
NODE_INDEX_DTYPE = np.int32
#: dtype of the node links the numba growing loops keep beside the Tree's columns
#: (children, category maps and split codes of each node): half the memory of int64
#: while a tree is grown. The loops run only where every entry fits (:data:`NODE_TABLE_MAX`).
NODE_TABLE_INT_DTYPE = np.int32
NODE_TABLE_MAX = np.iinfo(NODE_TABLE_INT_DTYPE).max

NODE_LEAF = 0
NODE_THRESHOLD = 1
NODE_MULTIWAY = 2
NODE_SUBSET = 3
NODE_KIND_NAMES = {
    NODE_LEAF: "leaf",
    NODE_THRESHOLD: "threshold",
    NODE_MULTIWAY: "multiway",
    NODE_SUBSET: "subset",
}

NO_CHILD = -1
MISSING_BY_WEIGHT = -2

#: The two learning tasks the statistics layout distinguishes.
TASK_CLASSIFICATION = 0
TASK_REGRESSION = 1

#: Channel 0 of every statistics row is the (unweighted) number of rows.
#: Classification: channels 1..K are the weights of each class.
#: Regression: channels 1, 2, 3 are sum(w), sum(w*y), sum(w*y*y).
COUNT_CHANNEL = 0
N_REGRESSION_CHANNELS = 4


def code_dtype_for(max_code):
    """Narrowest unsigned integer dtype that holds codes ``0 .. max_code``."""
    for dtype in (np.uint8, np.uint16, np.uint32):
        if max_code <= np.iinfo(dtype).max:
            return np.dtype(dtype)
    return np.dtype(np.uint64)


def row_index_dtype(n_rows):
    """dtype of the growing loops' row indices (and of anything below the row count,
    such as a column's codes sorted beside its rows): int32 while every row index
    fits, the half of int64's memory (3.2 MB less at 800,000 rows)."""
    return np.dtype(np.int32 if n_rows <= np.iinfo(np.int32).max else np.int64)


def n_channels(task, n_classes):
    """Width of a statistics row for ``task`` (see the module docstring)."""
    return 1 + n_classes if task == TASK_CLASSIFICATION else N_REGRESSION_CHANNELS
