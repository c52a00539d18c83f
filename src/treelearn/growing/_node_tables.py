"""The node table of the numba growing loops, and the per-node steps they share.

A tree being grown is a growable table, one entry per node, numbered as the
nodes are created: ``nodes``, a tuple of arrays (:data:`NODE_COLUMNS`), each
of the dtype the :class:`~treelearn.tree.Tree` keeps (its ``feature``,
``kind``, ``missing_child``, ``n_samples``, ``threshold``, ``weight``,
``impurity`` and ``value``), then ``links``, int32 columns ``K_*`` (children,
category maps, split codes) that only growing reads. The Tree takes the
columns as they are (:func:`tree_arrays`): no second table of the whole tree
while it is made. Both loops over the table (the depth-first loop of
:mod:`~treelearn.growing._loop_kernels` and the small subtrees of
:mod:`~treelearn.growing._local_kernels`) add nodes, apply the stop rules and
record splits through the functions here, as
:class:`~treelearn.growing.grower.Grower` does in Python.
"""

import numpy as np
from numba import literal_unroll, njit

from treelearn._copy_kernels import copy_flat
from treelearn._dtypes import (
    NO_CHILD,
    NODE_INDEX_DTYPE,
    NODE_LEAF,
    NODE_MULTIWAY,
    NODE_SUBSET,
    NODE_TABLE_INT_DTYPE,
    NODE_THRESHOLD,
)
from treelearn.criteria._kernels import weighted_impurity
from treelearn.splitting._cut_kernels import (
    OUT_FEATURE,
    OUT_GAIN,
    OUT_IS_SUBSET,
    OUT_LEFT_CODE,
    OUT_MISSING_LEFT,
    OUT_RIGHT_CODE,
)
from treelearn.stats._pairwise import numpy_sum

#: The arrays of a node table ``nodes``, in order (the Tree's names; then ``links``).
NODE_COLUMNS = (
    "feature", "kind", "missing_child", "n_samples", "threshold", "weight", "impurity", "value",
    "links",
)  # fmt: skip
#: Columns of ``links``: a split node's first child and number of children (its
#: children are numbered consecutively); a threshold split's left and right codes
#: (only in a table made with :data:`CODE_LINKS` columns or more); where its
#: category map starts in the category pool and its length (only in a table of
#: :data:`CATEGORY_LINKS` columns). A table has only the columns its tree needs
#: (:func:`links_width`): a binned tree of numeric features, the first two.
K_FIRST_CHILD, K_N_CHILDREN, K_LEFT_CODE, K_RIGHT_CODE, K_CAT_START, K_CAT_LEN = 0, 1, 2, 3, 4, 5
CHILD_LINKS, CODE_LINKS, CATEGORY_LINKS = 2, 4, 6
#: Slots of the ``limits`` array (the stop rules; a negative max depth is None).
L_MAX_DEPTH, L_MIN_SAMPLES_SPLIT, L_MIN_SAMPLES_LEAF, L_MIN_WEIGHT_LEAF = 0, 1, 2, 3
L_MIN_BRANCH_WEIGHT, L_MIN_IMPURITY_DECREASE, L_MIN_GAIN, L_TOTAL_WEIGHT, L_EPSILON = 4, 5, 6, 7, 8
N_LIMITS = 9
#: ``threshold_kind`` per feature: nominal, exact codes whose values are not in the
#: tables (see :func:`threshold_of`), bins (edges), exact codes whose values are
#: (the dataset keeps them, and they are few enough to copy).
THRESHOLD_NONE, THRESHOLD_VALUES, THRESHOLD_EDGES, THRESHOLD_MIDPOINTS = 0, 1, 2, 3


@njit(cache=True, inline="always")
def weight_of(stats, is_classification):
    if is_classification:
        return numpy_sum(stats, np.int64(1), stats.shape[0] - 1)
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
    copy_flat(table, bigger[: table.shape[0]])
    return bigger


@njit(cache=True)
def _grown_column(column, n_rows):
    """``column`` (1-D) with room for ``n_rows`` entries, its entries kept."""
    bigger = np.empty(n_rows, dtype=column.dtype)
    copy_flat(column, bigger[: column.shape[0]])
    return bigger


def links_width(keep_codes, has_categories):
    """Columns of ``links`` (``K_*``) for a tree whose split codes are kept
    (``keep_codes``: the grower reads them after the loop) and whose nodes may have
    category maps (``has_categories``: a nominal feature is searched)."""
    if has_categories:
        return CATEGORY_LINKS
    return CODE_LINKS if keep_codes else CHILD_LINKS


@njit(cache=True)
def new_nodes(capacity, n_values, n_links):
    """An empty node table (:data:`NODE_COLUMNS`) with room for ``capacity`` nodes
    of ``n_values`` values and ``n_links`` link columns (:func:`links_width`).
    Nothing is written: a page of it costs memory only once a node is written there."""
    return (
        np.empty(capacity, dtype=NODE_INDEX_DTYPE),  # feature
        np.empty(capacity, dtype=np.int8),  # kind
        np.empty(capacity, dtype=NODE_INDEX_DTYPE),  # missing_child
        np.empty(capacity, dtype=np.int64),  # n_samples
        np.empty(capacity),  # threshold
        np.empty(capacity),  # weight
        np.empty(capacity),  # impurity
        np.empty((capacity, n_values)),  # value
        np.empty((capacity, n_links), dtype=NODE_TABLE_INT_DTYPE),  # links
    )


@njit(cache=True)
def node_bytes(n_values, n_links):
    """Bytes a node takes in a node table of ``n_values`` values and ``n_links`` link
    columns (:func:`new_nodes`)."""
    return 4 + 1 + 4 + 8 * 4 + 8 * n_values + 4 * n_links


@njit(cache=True)
def initial_capacity(n_rows, n_values, n_links, max_bytes):
    """The room a node table is made with for a tree of ``n_rows`` rows: a binary
    tree's most nodes (every split leaves a row or more on each side: ``2 n - 1``),
    in at most ``max_bytes`` (a multiway tree, or a larger one, grows it)."""
    return max(min(2 * n_rows - 1, max_bytes // node_bytes(n_values, n_links)), 1)


def trim_columns(arrays, n_nodes, capacity):
    """Replace in ``arrays`` (:func:`tree_arrays`' arrays by name, the table of
    ``capacity`` nodes let go of) each of the table's columns by a copy of its
    ``n_nodes`` nodes where they fill less than half of it, one column at a time:
    so a small tree does not hold a large table's room (never written: address
    space, not memory), and a column and its copy are the only ones held twice
    (where all were copied while the whole table was held, a tree of 10 classes and
    289k nodes, in a table of 1.6M, held 25 MB of copies at once)."""
    if 2 * n_nodes >= capacity:
        return arrays
    for name in NODE_COLUMNS:
        if name in arrays:
            arrays[name] = arrays[name].copy()  # (the view let go of: its column freed)
    return arrays


@njit(cache=True)
def tree_arrays(nodes, n_nodes, category_pool, keep_codes):
    """The Tree's arrays (:data:`TREE_ARRAY_NAMES`) from the first ``n_nodes`` nodes of
    the table ``nodes``: its columns (views, see :func:`trim_columns`), children and
    category maps in node order (``category_ptr`` empty where no node has a map: all
    zeros), then each threshold split's left and right codes (-1 elsewhere; int32,
    for the grower only; none unless ``keep_codes``, which the table's columns must
    then hold: :func:`links_width`)."""
    feature, kind, missing, n_samples, threshold, weight, impurity, value, links = nodes
    child_ptr = np.empty(n_nodes + 1, dtype=NODE_INDEX_DTYPE)
    child_ptr[0] = 0
    for i in range(n_nodes):
        child_ptr[i + 1] = child_ptr[i] + links[i, K_N_CHILDREN]
    n_categories = 0
    if links.shape[1] >= CATEGORY_LINKS:
        for i in range(n_nodes):
            n_categories += links[i, K_CAT_LEN]
    children = np.empty(child_ptr[n_nodes], dtype=NODE_INDEX_DTYPE)
    for i in range(n_nodes):
        for j in range(links[i, K_N_CHILDREN]):
            children[child_ptr[i] + j] = links[i, K_FIRST_CHILD] + j
    # Without category maps, no category_ptr (the caller's np.zeros: pages of zeros,
    # no memory until written, where numba's would write every one).
    category_ptr = np.zeros(n_nodes + 1 if n_categories else 0, dtype=np.int64)
    category_child = np.empty(n_categories, dtype=NODE_INDEX_DTYPE)
    for i in range(n_nodes if n_categories else 0):
        category_ptr[i + 1] = category_ptr[i] + links[i, K_CAT_LEN]
        start = links[i, K_CAT_START]
        for j in range(links[i, K_CAT_LEN]):
            category_child[category_ptr[i] + j] = category_pool[start + j]
    n_codes = n_nodes if keep_codes else 0
    left_code = np.empty(n_codes, dtype=links.dtype)
    right_code = np.empty(n_codes, dtype=links.dtype)
    for i in range(n_codes):
        left_code[i] = links[i, K_LEFT_CODE]
        right_code[i] = links[i, K_RIGHT_CODE]
    return (
        feature[:n_nodes], kind[:n_nodes], threshold[:n_nodes],
        child_ptr, children, category_ptr, category_child, missing[:n_nodes],
        value[:n_nodes], n_samples[:n_nodes], weight[:n_nodes],
        impurity[:n_nodes], left_code, right_code,
    )  # fmt: skip


#: Names of :func:`tree_arrays`' arrays: the Tree's, then the grower's two.
TREE_ARRAY_NAMES = (
    "feature", "kind", "threshold", "child_ptr", "children", "category_ptr", "category_child",
    "missing_child", "value", "n_samples", "weight", "impurity", "left_code", "right_code",
)  # fmt: skip


@njit(cache=True)
def threshold_of(kind, ptr, values, f, left_code, right_code):
    """``Dataset.threshold`` of a numeric split between two codes: +inf for "known
    left, missing right", midway across the bins between them for a binned feature
    (:func:`~treelearn.data.binning.bin_threshold`), midway between the two values
    of an exact feature whose values the tables hold
    (:func:`~treelearn.data.encoding.midpoint_thresholds`' rule, for one pair); NaN between
    two other exact values, whose midpoint the grower puts in after the loop (the
    loop is not given many values: their float64 copy would add to the fit's peak
    memory)."""
    if right_code < 0:
        return np.inf
    if kind[f] == THRESHOLD_EDGES:
        return values[ptr[f] + left_code] / 2.0 + values[ptr[f] + right_code - 1] / 2.0
    if kind[f] == THRESHOLD_MIDPOINTS:
        low = values[ptr[f] + left_code]
        high = values[ptr[f] + right_code]
        cut = low / 2.0 + high / 2.0
        # Adjacent floats: the midpoint rounds up to the right value; keep the left.
        return low if cut == high or not np.isfinite(cut) else cut
    return np.nan


@njit(cache=True)
def room_for(nodes, n_nodes, n_more):
    """The table ``nodes``, doubled if it has no room for ``n_more`` nodes after the
    first ``n_nodes``."""
    feature, kind, missing, n_samples, threshold, weight, impurity, value, links = nodes
    if n_nodes + n_more <= feature.shape[0]:
        return nodes
    size = max(2 * feature.shape[0], n_nodes + n_more)
    return (
        _grown_column(feature, size), _grown_column(kind, size), _grown_column(missing, size),
        _grown_column(n_samples, size), _grown_column(threshold, size),
        _grown_column(weight, size), _grown_column(impurity, size), grown(value, size),
        grown(links, size),
    )  # fmt: skip


@njit(cache=True, _nrt=False)
def write_node(nodes, n_nodes, stats_rows, k, weight, n_rows, parent, is_classification,
               criterion):  # fmt: skip
    """Write node ``n_nodes`` (the table has room for it), a leaf with the statistics
    ``stats_rows[k]`` and the weight ``weight`` (:func:`weight_of` them); returns its
    impurity. Without reference counting: the views it takes would each count a
    reference up and down (an atomic operation) for every node of the tree."""
    feature, kind, missing, n_samples, threshold, weights, impurities, value, links = nodes
    stats = stats_rows[k]
    if n_rows == 0 and parent >= 0:
        impurity = 0.0
        for c in range(value.shape[1]):
            value[n_nodes, c] = value[parent, c]
    else:
        impurity = weighted_impurity(stats, criterion) / weight if weight > 0 else 0.0
        if is_classification:
            for c in range(1, stats.shape[0]):
                value[n_nodes, c - 1] = stats[c]
        else:
            value[n_nodes, 0] = stats[2] / stats[1] if stats[1] > 0 else 0.0
    threshold[n_nodes] = np.nan
    weights[n_nodes] = weight
    impurities[n_nodes] = impurity
    feature[n_nodes] = -1
    kind[n_nodes] = NODE_LEAF
    missing[n_nodes] = -1
    n_samples[n_nodes] = n_rows
    for c in range(links.shape[1]):  # (element by element: no temporaries)
        links[n_nodes, c] = 0
    if links.shape[1] >= CODE_LINKS:
        links[n_nodes, K_LEFT_CODE] = -1
        links[n_nodes, K_RIGHT_CODE] = -1
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
    # (np.int64: a literal 0 would compile it apart from local mode's calls.)
    return threshold_missing_child(
        out.reshape((1, -1)), np.int64(0), n_missing, child_weight, n_children
    )


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
def _link_children(nodes, node, f, kind, missing_child, first, n_children):
    """The entries every split writes for ``node``: its feature, its kind, its
    children ``first .. first + n_children - 1`` and the one missing values take."""
    feature, kinds, missing, _, _, _, _, _, links = nodes
    feature[node] = f
    kinds[node] = kind
    missing[node] = missing_child
    links[node, K_FIRST_CHILD] = first
    links[node, K_N_CHILDREN] = n_children


@njit(cache=True)
def category_pool_for(split, category_pool, n_cat, missing_code):
    """The category pool (``n_cat`` entries in use), doubled if the split ``split``
    (``OUT_*`` slots) maps categories (a subset or multiway split: ``missing_code``
    of them) and it has no room for them; else the pool as it is."""
    if split[OUT_IS_SUBSET] == 0.0 or n_cat + missing_code <= category_pool.shape[0]:
        return category_pool
    bigger = np.empty(2 * (n_cat + missing_code), dtype=np.int64)
    copy_flat(category_pool[:n_cat], bigger[:n_cat])
    return bigger


@njit(cache=True, _nrt=False)
def record_split(nodes, node, split, first, n_children, missing_child, multiway, thresholds,
                 coc, missing_code, category_pool, n_cat):  # fmt: skip
    """``TreeBuilder.set_split`` of ``node``, split by ``split`` (``OUT_*`` slots) into
    ``n_children`` nodes from ``first`` on; returns the category pool's new length
    (it has room: :func:`category_pool_for`; a category map needs a table of
    :data:`CATEGORY_LINKS` columns). Without reference counting (see
    :func:`write_node`: a call with counted references counts each of the table's
    nine arrays up and down)."""
    if split[OUT_IS_SUBSET] == 0.0:
        record_threshold_split(nodes, node, split.reshape((1, -1)), np.int64(0), first,
                               n_children, missing_child, thresholds)  # fmt: skip
        return n_cat
    _link_children(nodes, node, int(split[OUT_FEATURE]),
                   NODE_MULTIWAY if multiway else NODE_SUBSET, missing_child, first,
                   n_children)  # fmt: skip
    for c in range(missing_code):  # (element by element: no temporaries)
        category_pool[n_cat + c] = coc[c]
    links = nodes[8]  # (NODE_COLUMNS)
    links[node, K_CAT_START] = n_cat
    links[node, K_CAT_LEN] = missing_code
    return n_cat + missing_code


@njit(cache=True, _nrt=False)
def record_threshold_split(nodes, node, split_rows, t, first, n_children, missing_child,
                           thresholds):  # fmt: skip
    """:func:`record_split` of a split by the threshold ``split_rows[t]``; without
    reference counting (see :func:`write_node`)."""
    split = split_rows[t]
    f = int(split[OUT_FEATURE])
    threshold_kind, threshold_ptr, threshold_values = thresholds
    _link_children(nodes, node, f, NODE_THRESHOLD, missing_child, first, n_children)
    threshold, links = nodes[4], nodes[8]
    if links.shape[1] >= CODE_LINKS:
        links[node, K_LEFT_CODE] = int(split[OUT_LEFT_CODE])
        links[node, K_RIGHT_CODE] = int(split[OUT_RIGHT_CODE])
    threshold[node] = threshold_of(
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


@njit(cache=True, _nrt=False)
def copy_nodes(nodes, i, target, t, count):
    """Nodes ``i .. i + count - 1`` of the table ``nodes`` written as nodes ``t ..
    t + count - 1`` of ``target`` (which has room for them), their links as they
    are: column by column, each a run of memory. (Node by node, the nine columns at
    once, stitching 1.6 million nodes took 84 ms of two threads' time; now 47.)"""
    # (Unsigned positions: see treelearn.splitting._partition_kernels.partition_threshold.
    # Slices, ``out[t : t + count] = column[i : i + count]``, took 36 ms to stitch the
    # 1.6 million nodes against these loops' 28.)
    source, to, n = np.uint64(i), np.uint64(t), np.uint64(count)
    pairs = _column_pairs(nodes, target)
    for pair in literal_unroll(pairs):
        column, out = pair
        # (Entries a node: 1 in a column, the width of a table such as ``value``.)
        width = np.uint64(column.size // column.shape[0]) if column.shape[0] else np.uint64(0)
        flat, out_flat = column.reshape(-1), out.reshape(-1)
        first, out_first = source * width, to * width
        for k in range(n * width):
            out_flat[out_first + k] = flat[first + k]


@njit(cache=True, _nrt=False, inline="always")
def _column_pairs(nodes, target):
    """The nine columns of two node tables, side by side."""
    a, b = nodes, target
    return (
        (a[0], b[0]), (a[1], b[1]), (a[2], b[2]), (a[3], b[3]), (a[4], b[4]), (a[5], b[5]),
        (a[6], b[6]), (a[7], b[7]), (a[8], b[8]),
    )  # fmt: skip
