"""The node tables of the numba growing loops, and the per-node steps they share.

A tree being grown is two growable tables, one row per node, numbered as the
nodes are created: ``node_int`` (:data:`N_INT` columns ``I_*``, of
:data:`~treelearn._dtypes.NODE_TABLE_INT_DTYPE`) and ``node_float`` (``F_*``,
then the node's value). Both loops over them (the
depth-first loop of :mod:`~treelearn.growing._loop_kernels` and the small
subtrees of :mod:`~treelearn.growing._local_kernels`) add nodes, apply the stop
rules and record splits through the functions here, as
:class:`~treelearn.growing.grower.Grower` does in Python.
"""

import numpy as np
from numba import njit

from treelearn._dtypes import NO_CHILD, NODE_LEAF, NODE_MULTIWAY, NODE_SUBSET, NODE_THRESHOLD
from treelearn.criteria._kernels import weighted_impurity
from treelearn.splitting._kernels import (
    OUT_FEATURE,
    OUT_GAIN,
    OUT_IS_SUBSET,
    OUT_LEFT_CODE,
    OUT_MISSING_LEFT,
    OUT_RIGHT_CODE,
)
from treelearn.stats._pairwise import numpy_sum

#: Columns of ``node_int``.
I_FEATURE, I_KIND, I_MISSING_CHILD, I_FIRST_CHILD, I_N_CHILDREN, I_CAT_START = 0, 1, 2, 3, 4, 5
I_CAT_LEN, I_N_SAMPLES, I_LEFT_CODE, I_RIGHT_CODE = 6, 7, 8, 9
N_INT = 10
#: Columns of ``node_float``; the node's value follows from ``F_VALUE`` on.
F_THRESHOLD, F_WEIGHT, F_IMPURITY, F_VALUE = 0, 1, 2, 3
#: Slots of the ``limits`` array (the stop rules; a negative max depth is None).
L_MAX_DEPTH, L_MIN_SAMPLES_SPLIT, L_MIN_SAMPLES_LEAF, L_MIN_WEIGHT_LEAF = 0, 1, 2, 3
L_MIN_BRANCH_WEIGHT, L_MIN_IMPURITY_DECREASE, L_MIN_GAIN, L_TOTAL_WEIGHT, L_EPSILON = 4, 5, 6, 7, 8
N_LIMITS = 9
#: ``threshold_kind`` per feature: nominal, exact codes (values, not in the
#: tables: see :func:`threshold_of`), bins (edges).
THRESHOLD_NONE, THRESHOLD_VALUES, THRESHOLD_EDGES = 0, 1, 2


@njit(cache=True, inline="always")
def weight_of(stats, is_classification):
    if is_classification:
        return numpy_sum(stats, 1, stats.shape[0] - 1)
    return stats[1]


@njit(cache=True, _nrt=False)
def weight_of_row(stats_rows, k, is_classification):
    """:func:`weight_of` of ``stats_rows[k]``, without reference counting (the view of
    the row, taken in a loop with counted references, would count one up and down)."""
    return weight_of(stats_rows[k], is_classification)


@njit(cache=True)
def grown(table, n_rows):
    """``table`` (2-D) with room for ``n_rows`` rows, its rows kept."""
    bigger = np.empty((n_rows, table.shape[1]), dtype=table.dtype)
    bigger[: table.shape[0]] = table
    return bigger


@njit(cache=True)
def threshold_of(kind, ptr, values, f, left_code, right_code):
    """``Dataset.threshold`` of a numeric split between two codes: +inf for "known
    left, missing right", the bin edge of a binned feature; NaN between two exact
    values, whose midpoint the grower puts in after the loop (the loop is not
    given the training values: their float64 copy would be as large as them)."""
    if right_code < 0:
        return np.inf
    if kind[f] == THRESHOLD_EDGES:
        return values[ptr[f] + left_code]
    return np.nan


@njit(cache=True)
def add_node(node_int, node_float, n_nodes, stats, n_rows, parent, is_classification, criterion):
    """Append a node with statistics ``stats`` (an empty multiway branch takes its
    parent's value). Returns the tables (maybe grown), its weight and impurity."""
    node_int, node_float = room_for(node_int, node_float, n_nodes, 1)
    weight = weight_of(stats, is_classification)
    impurity = write_node(node_int, node_float, n_nodes, stats.reshape((1, -1)), 0, weight,
                          n_rows, parent, is_classification, criterion)  # fmt: skip
    return node_int, node_float, weight, impurity


@njit(cache=True)
def room_for(node_int, node_float, n_nodes, n_more):
    """The tables, doubled if they have no room for ``n_more`` nodes after the first
    ``n_nodes``."""
    if n_nodes + n_more > node_int.shape[0]:
        size = max(2 * node_int.shape[0], n_nodes + n_more)
        node_int = grown(node_int, size)
        node_float = grown(node_float, size)
    return node_int, node_float


@njit(cache=True, _nrt=False)
def write_node(node_int, node_float, n_nodes, stats_rows, k, weight, n_rows, parent,
               is_classification, criterion):  # fmt: skip
    """Write node ``n_nodes`` (the tables have room for it), a leaf with the statistics
    ``stats_rows[k]`` and the weight ``weight`` (:func:`weight_of` them); returns its
    impurity. Without reference counting: the views it takes would each count a
    reference up and down (an atomic operation) for every node of the tree."""
    stats = stats_rows[k]
    row = node_float[n_nodes]
    if n_rows == 0 and parent >= 0:
        impurity = 0.0
        for c in range(F_VALUE, row.shape[0]):
            row[c] = node_float[parent, c]
    else:
        impurity = weighted_impurity(stats, criterion) / weight if weight > 0 else 0.0
        if is_classification:
            for c in range(1, stats.shape[0]):
                row[F_VALUE + c - 1] = stats[c]
        else:
            row[F_VALUE] = stats[2] / stats[1] if stats[1] > 0 else 0.0
    row[F_THRESHOLD] = np.nan
    row[F_WEIGHT] = weight
    row[F_IMPURITY] = impurity
    for c in range(node_int.shape[1]):  # (element by element: no temporaries)
        node_int[n_nodes, c] = 0
    node_int[n_nodes, I_FEATURE] = -1
    node_int[n_nodes, I_KIND] = NODE_LEAF
    node_int[n_nodes, I_MISSING_CHILD] = -1
    node_int[n_nodes, I_LEFT_CODE] = -1
    node_int[n_nodes, I_RIGHT_CODE] = -1
    node_int[n_nodes, I_N_SAMPLES] = n_rows
    return impurity


@njit(cache=True, _nrt=False)
def may_split(limits, depth, n_rows, weight, impurity):
    """``Grower.may_split``; without reference counting (not inlined: numba's
    inlining makes ``limits`` a counted reference at every call)."""
    return not (
        (limits[L_MAX_DEPTH] >= 0 and depth >= limits[L_MAX_DEPTH])
        or n_rows < limits[L_MIN_SAMPLES_SPLIT]
        or n_rows < 2 * limits[L_MIN_SAMPLES_LEAF]
        or weight < 2 * limits[L_MIN_WEIGHT_LEAF]
        or weight < 2 * limits[L_MIN_BRANCH_WEIGHT]
        or impurity <= limits[L_EPSILON]
    )


@njit(cache=True)
def missing_child(out, coc, missing_code, n_missing, child_weight, n_children):
    """``missing_child`` of a split node, as ``Grower._split`` chooses it."""
    if out[OUT_IS_SUBSET] != 0.0 and coc[missing_code] != NO_CHILD:
        return coc[missing_code]
    return threshold_missing_child(out.reshape((1, -1)), 0, n_missing, child_weight, n_children)


@njit(cache=True, _nrt=False)
def threshold_missing_child(out_rows, t, n_missing, child_weight, n_children):
    """``missing_child`` of a node split by a threshold ``out_rows[t]`` (or by a subset
    whose missing rows have no child of their own): the side the training rows
    missing the feature went to, or else the heaviest child (the first of equals, as
    ``np.argmax``). Without reference counting (see :func:`write_node`)."""
    if out_rows[t, OUT_IS_SUBSET] == 0.0 and n_missing:
        return 0 if out_rows[t, OUT_MISSING_LEFT] != 0.0 else 1
    heaviest = 0
    for k in range(1, n_children):
        if child_weight[k] > child_weight[heaviest]:
            heaviest = k
    return heaviest


@njit(cache=True, inline="always")
def _link_children(node_int, node, f, kind, missing_child, first, n_children):
    """The entries every split writes into ``node``'s row: its feature, its kind,
    its children ``first .. first + n_children - 1`` and the one missing values take."""
    node_int[node, I_FEATURE] = f
    node_int[node, I_KIND] = kind
    node_int[node, I_MISSING_CHILD] = missing_child
    node_int[node, I_FIRST_CHILD] = first
    node_int[node, I_N_CHILDREN] = n_children


@njit(cache=True)
def record_split(node_int, node_float, node, split, first, n_children, missing_child, multiway,
                  thresholds, coc, missing_code, category_pool, n_cat):  # fmt: skip
    """``TreeBuilder.set_split`` of ``node``, split by ``split`` (``OUT_*`` slots) into
    ``n_children`` nodes from ``first`` on; returns the category pool (maybe grown)
    and its length."""
    if split[OUT_IS_SUBSET] == 0.0:
        record_threshold_split(node_int, node_float, node, split.reshape((1, -1)), 0, first,
                               n_children, missing_child, thresholds)  # fmt: skip
        return category_pool, n_cat
    _link_children(node_int, node, int(split[OUT_FEATURE]),
                   NODE_MULTIWAY if multiway else NODE_SUBSET, missing_child, first,
                   n_children)  # fmt: skip
    if n_cat + missing_code > category_pool.shape[0]:
        bigger = np.empty(2 * (n_cat + missing_code), dtype=np.int64)
        bigger[:n_cat] = category_pool[:n_cat]
        category_pool = bigger
    category_pool[n_cat : n_cat + missing_code] = coc[:missing_code]
    node_int[node, I_CAT_START] = n_cat
    node_int[node, I_CAT_LEN] = missing_code
    return category_pool, n_cat + missing_code


@njit(cache=True, _nrt=False)
def record_threshold_split(node_int, node_float, node, split_rows, t, first, n_children,
                           missing_child, thresholds):  # fmt: skip
    """:func:`record_split` of a split by the threshold ``split_rows[t]``; without
    reference counting (see :func:`write_node`)."""
    split = split_rows[t]
    f = int(split[OUT_FEATURE])
    threshold_kind, threshold_ptr, threshold_values = thresholds
    _link_children(node_int, node, f, NODE_THRESHOLD, missing_child, first, n_children)
    node_int[node, I_LEFT_CODE] = int(split[OUT_LEFT_CODE])
    node_int[node, I_RIGHT_CODE] = int(split[OUT_RIGHT_CODE])
    node_float[node, F_THRESHOLD] = threshold_of(
        threshold_kind, threshold_ptr, threshold_values, f, int(split[OUT_LEFT_CODE]),
        int(split[OUT_RIGHT_CODE]),
    )  # fmt: skip


@njit(cache=True)
def split_admissible(out, limits, node_weight):
    """``Grower._search``'s last test: True when the node's best split ``out``
    (``OUT_*`` slots) exists and passes ``min_impurity_decrease`` and ``min_gain``."""
    gain = out[OUT_GAIN]
    epsilon = limits[L_EPSILON]
    return gain > -np.inf and not (
        gain / limits[L_TOTAL_WEIGHT] + epsilon < limits[L_MIN_IMPURITY_DECREASE]
        or (limits[L_MIN_GAIN] > 0 and gain / node_weight + epsilon < limits[L_MIN_GAIN])
    )
