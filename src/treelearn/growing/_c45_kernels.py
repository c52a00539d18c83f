"""C4.5's growing loop in numba: the tree of :class:`~treelearn.growing.grower.Grower`'s
fractional path (``missing="fractional"``, ``selection="gain_ratio"``), bit for bit.

The Python path (``Grower._make_node``, ``_search_gain_ratio``,
``_split_fractional``) is the reference; this loop does the same steps in the
same order, without a Python call per node:

- nodes are numbered as they are created: a node's children together, right
  after it is split, each searched as soon as it exists; nodes are split
  depth-first, the first child first;
- every node holds its own rows and their weights; a row missing the split's
  feature goes down every branch with its weight times the branch's share of
  the known weight (:mod:`treelearn.splitting.fractional`); a branch with no
  known row is an empty leaf with its parent's class distribution;
- at each node searched, every attribute is evaluated
  (:func:`~treelearn.splitting._gain_ratio_kernels.evaluate_candidates`), the
  thresholds of the numeric ones are placed (:meth:`Dataset.threshold` and
  :meth:`Dataset.data_threshold`), and C4.5's choice is made
  (:func:`~treelearn.splitting.gain_ratio.choose_gain_ratio`);
- sums that numpy takes in the reference (a node's weight, the branches'
  known weight, the average gain) are taken in numpy's order
  (:func:`~treelearn.stats._pairwise.numpy_sum`), so every number is the reference's.

The candidate table of every node searched is returned with C4.5's choice and
average gain, from which the grower makes its split records.
"""

import numpy as np
from numba import njit

from treelearn.criteria._kernels import ENTROPY, weighted_impurity
from treelearn.splitting._gain_ratio_kernels import (
    CAND_GAIN,
    CAND_LEFT_CODE,
    CAND_RIGHT_CODE,
    CAND_SPLIT_INFO,
    CAND_STATUS,
    CAND_THRESHOLD,
    GAIN_TOLERANCE,
    N_CAND,
    STATUS_SPLIT,
    evaluate_candidates,
)
from treelearn.stats._pairwise import numpy_sum

#: Node kinds and the missing-value sentinel (:mod:`treelearn._dtypes`).
NODE_LEAF = 0
NODE_THRESHOLD = 1
NODE_MULTIWAY = 2
MISSING_BY_WEIGHT = -2
#: How far above the midpoint a training value may lie and still be C4.5's threshold
#: (:data:`treelearn.data.dataset.DATA_THRESHOLD_TOLERANCE`).
DATA_THRESHOLD_TOLERANCE = 1e-6


@njit(cache=True)
def threshold_between(values, left_code, right_code, at_data):
    """:meth:`Dataset.threshold` (midpoint) or :meth:`Dataset.data_threshold` (the
    largest training value not above it) between two codes of an exact numeric feature."""
    low = values[left_code]
    high = values[right_code]
    cut = low / 2.0 + high / 2.0
    if cut == high or not np.isfinite(cut):
        cut = low
    if not at_data:
        return cut
    # np.searchsorted(values, cut + tolerance, side="right") - 1
    key = cut + DATA_THRESHOLD_TOLERANCE
    lo = 0
    hi = values.shape[0]
    while lo < hi:
        mid = (lo + hi) // 2
        if values[mid] <= key:
            lo = mid + 1
        else:
            hi = mid
    index = lo - 1
    if index < left_code:
        index = left_code
    if index > right_code - 1:
        index = right_code - 1
    return values[index]


@njit(cache=True)
def choose_gain_ratio(table, excluded_from_average, scratch):
    """:func:`treelearn.splitting.gain_ratio.choose_gain_ratio` on one table:
    returns (feature or -1, average gain). ``scratch``: n_features floats."""
    eps = 1e-3  # treelearn.splitting.gain_ratio.EPSILON
    n_features = table.shape[0]
    m = np.int64(0)  # (a literal 0 would compile numpy_sum for it too, while typing)
    for f in range(n_features):
        if table[f, CAND_STATUS] == STATUS_SPLIT and not excluded_from_average[f]:
            scratch[m] = table[f, CAND_GAIN]
            m += 1
    average = numpy_sum(scratch, np.int64(0), m) / m if m > 0 else 1e6  # gain_ratio.NO_AVERAGE
    feature = -1
    best = 0.0
    for f in range(n_features):
        if table[f, CAND_STATUS] != STATUS_SPLIT:
            continue
        gain = table[f, CAND_GAIN]
        info = table[f, CAND_SPLIT_INFO]
        if not (gain >= average - eps and info > eps):
            continue
        ratio = gain / info
        if not ratio > -eps:
            continue
        if feature < 0 or ratio - best > GAIN_TOLERANCE:
            feature = f
            best = ratio
    return feature, average


@njit(cache=True)
def _grow1(a, size):
    if size <= a.shape[0]:
        return a
    out = np.empty(max(size, 2 * a.shape[0]), dtype=a.dtype)
    out[: a.shape[0]] = a
    return out


@njit(cache=True)
def _grow2(a, size):
    if size <= a.shape[0]:
        return a
    out = np.empty((max(size, 2 * a.shape[0]), a.shape[1]), dtype=a.dtype)
    out[: a.shape[0]] = a
    return out


@njit(cache=True)
def _grow3(a, size):
    if size <= a.shape[0]:
        return a
    out = np.empty((max(size, 2 * a.shape[0]), a.shape[1], a.shape[2]), dtype=a.dtype)
    out[: a.shape[0]] = a
    return out


@njit(cache=True)
def _class_weights(rows, row_weight, y_class, out):
    """``np.bincount(y_class[rows], weights=row_weight)`` into ``out`` (zeroed first)."""
    out[:] = 0.0
    for i in range(rows.shape[0]):
        out[y_class[rows[i]]] += row_weight[i]


@njit(cache=True)
def _make_node(
    node, parent, depth, rows, row_weight, used, node_sorted, nodes, value, search, table,
    weight_of_row, scratch,
):  # fmt: skip
    """Record node ``node`` (its statistics) and, if it may split, search it into
    ``table``. Returns (searched, feature chosen or -1, average gain)."""
    feature, kind, threshold, left_code, first_child, n_children, n_samples, weight, impurity = (
        nodes
    )
    (
        feature_codes, y_class, n_classes, n_codes, is_nominal, code_values, code_value_ptr,
        excluded_from_average, limits, threshold_cost, at_data, hist_ratio, scratch_hist,
        scratch_codes, sorted_slot,
    ) = search  # fmt: skip
    stats, usable, choose_scratch = scratch
    feature[node] = -1
    kind[node] = NODE_LEAF
    threshold[node] = np.nan
    left_code[node] = -1
    first_child[node] = 0
    n_children[node] = 0
    n = rows.shape[0]
    _class_weights(rows, row_weight, y_class, stats[1:])
    stats[0] = n
    node_weight = numpy_sum(stats, np.int64(1), n_classes)
    n_samples[node] = n
    weight[node] = node_weight
    if n == 0 and parent >= 0:
        # A branch with no known row: its parent's class distribution.
        impurity[node] = 0.0
        value[node] = value[parent]
    else:
        impurity[node] = (
            weighted_impurity(stats, ENTROPY) / node_weight if node_weight > 0.0 else 0.0
        )
        value[node] = stats[1:]
    max_depth = limits[0]
    if (
        (max_depth >= 0 and depth >= max_depth)
        or n < limits[1]
        or n < 2 * limits[2]
        or node_weight < 2 * limits[3]
        or node_weight < 2 * limits[4]
        or impurity[node] <= limits[5]
    ):
        return False, -1, np.nan
    for i in range(n):
        weight_of_row[rows[i]] = row_weight[i]
    for f in range(usable.shape[0]):
        usable[f] = 0 if used[f] else 1
    # (np.int64 and np.bool_, not the literals 0 and True: numba would compile
    # evaluate_candidates and its callees once more for them, besides the version the
    # grower's Python calls and searched_node_tables use.)
    evaluate_candidates(
        feature_codes, rows, np.int64(0), n, y_class, weight_of_row, n_classes, n_codes, is_nominal,
        usable, code_values, code_value_ptr, limits[4], np.bool_(True), threshold_cost,
        hist_ratio, scratch_hist, scratch_codes, table, node_sorted, sorted_slot,
    )  # fmt: skip
    for f in range(usable.shape[0]):
        if not is_nominal[f] and not np.isnan(table[f, CAND_LEFT_CODE]):
            table[f, CAND_THRESHOLD] = threshold_between(
                code_values[code_value_ptr[f] : code_value_ptr[f + 1]],
                int(table[f, CAND_LEFT_CODE]),
                int(table[f, CAND_RIGHT_CODE]),
                at_data,
            )
    chosen, average = choose_gain_ratio(table, excluded_from_average, choose_scratch)
    if chosen >= 0:
        feature[node] = chosen
        if not is_nominal[chosen]:
            threshold[node] = table[chosen, CAND_THRESHOLD]
            left_code[node] = int(table[chosen, CAND_LEFT_CODE])
    return True, chosen, average


@njit(cache=True)
def split_fractional_rows(
    rows, row_weight, feature_codes, feature, missing_code, left_code, n_branches, node_sorted,
    sorted_features, branch_of_row,
):  # fmt: skip
    """:func:`treelearn.splitting.fractional.split_fractional_rows` for one split:
    a nominal split (``left_code`` -1: one branch per code) or ``x <= left_code``.

    Returns the children's rows, their weights and their rows in code order of
    each feature of ``sorted_features`` (all empty for a branch with no known
    row). ``node_sorted[s]``: the node's rows stably sorted by the codes of
    ``sorted_features[s]``; the children's are too (see :func:`grow_c45`).
    ``branch_of_row``: scratch, one entry per training row.
    """
    n = rows.shape[0]
    codes_f = feature_codes[feature]
    known_weight = np.zeros(n_branches)
    counts = np.zeros(n_branches, dtype=np.int64)
    n_missing = 0
    for i in range(n):
        code = np.int64(codes_f[rows[i]])
        if code == missing_code:
            branch_of_row[rows[i]] = -1
            n_missing += 1
            continue
        b = code if left_code < 0 else (1 if code > left_code else 0)
        branch_of_row[rows[i]] = b
        known_weight[b] += row_weight[i]
        counts[b] += 1
    total_known = numpy_sum(known_weight, np.int64(0), n_branches)
    n_sorted = sorted_features.shape[0]
    child_rows = []
    child_weight = []
    child_sorted = []
    sizes = np.zeros(n_branches, dtype=np.int64)
    for v in range(n_branches):
        if known_weight[v] > 0.0:
            sizes[v] = counts[v] + n_missing
        child_rows.append(np.empty(sizes[v], dtype=np.int64))
        child_weight.append(np.empty(sizes[v]))
        child_sorted.append(np.empty((n_sorted, sizes[v]), dtype=np.int64))
    # Known rows to their branch, in the node's order; then the missing rows to every
    # branch with known weight, with their weight times its share.
    fill = np.zeros(n_branches, dtype=np.int64)
    for i in range(n):
        b = branch_of_row[rows[i]]
        if b >= 0 and sizes[b] > 0:
            child_rows[b][fill[b]] = rows[i]
            child_weight[b][fill[b]] = row_weight[i]
            fill[b] += 1
    if n_missing:
        for v in range(n_branches):
            if sizes[v] == 0:
                continue
            share = known_weight[v] / total_known
            k = fill[v]
            for i in range(n):
                if branch_of_row[rows[i]] < 0:
                    child_rows[v][k] = rows[i]
                    child_weight[v][k] = row_weight[i] * share
                    k += 1
    # A child's rows stably sorted by a feature's codes: within one code, its
    # known rows (in the node's order) before its missing rows (idem), as a stable
    # sort of the child's rows (known rows first, then missing ones) orders them.
    for s in range(n_sorted):
        codes_g = feature_codes[sorted_features[s]]
        order = node_sorted[s]
        fill[:] = 0
        i = 0
        while i < n:
            code = codes_g[order[i]]
            j = i
            while j < n and codes_g[order[j]] == code:
                j += 1
            for t in range(i, j):
                r = order[t]
                b = branch_of_row[r]
                if b >= 0 and sizes[b] > 0:
                    child_sorted[b][s, fill[b]] = r
                    fill[b] += 1
            if n_missing:
                for t in range(i, j):
                    r = order[t]
                    if branch_of_row[r] < 0:
                        for v in range(n_branches):
                            if sizes[v] > 0:
                                child_sorted[v][s, fill[v]] = r
                                fill[v] += 1
            i = j
    return child_rows, child_weight, child_sorted


@njit(cache=True)
def grow_c45(
    feature_codes,
    y_class,
    sample_weight,
    n_classes,
    n_codes,
    is_nominal,
    code_values,
    code_value_ptr,
    excluded_from_average,
    limits,
    threshold_cost,
    at_data,
    hist_ratio,
    scratch_hist,
    scratch_codes,
    sorted_features,
):
    """Grow C4.5's tree (see the module docstring).

    The rows of every node are kept in code order of each feature of
    ``sorted_features`` (numeric features with many codes): the root's by a
    counting sort, a child's from its parent's (:func:`split_fractional_rows`),
    so that no node sorts them; the order is that of a stable sort of the node's
    rows, the one :func:`~treelearn.splitting._gain_ratio_kernels.c45_histogram`
    sorts in, so the numbers are the same either way.

    ``limits``: max_depth (-1: none), min_samples_split, min_samples_leaf,
    min_weight_leaf, min_branch_weight (C4.5's ``m``), EPSILON (a node whose
    impurity is at most this is pure). Scratch sizes as the grower's.

    Returns the node arrays (feature, kind, threshold, first child, number of
    children, value, n_samples, weight, impurity) and the records of the nodes
    searched (node, candidate table, feature chosen or -1, average gain).
    """
    n_features, n_rows = feature_codes.shape
    capacity = 64
    feature = np.empty(capacity, dtype=np.int64)
    kind = np.empty(capacity, dtype=np.int8)
    threshold = np.empty(capacity)
    left_code = np.empty(capacity, dtype=np.int64)
    first_child = np.empty(capacity, dtype=np.int64)
    n_children = np.empty(capacity, dtype=np.int64)
    value = np.empty((capacity, n_classes))
    n_samples = np.empty(capacity, dtype=np.int64)
    weight = np.empty(capacity)
    impurity = np.empty(capacity)
    rec_node = np.empty(16, dtype=np.int64)
    rec_table = np.empty((16, n_features, N_CAND))
    rec_feature = np.empty(16, dtype=np.int64)
    rec_average = np.empty(16)
    n_records = 0
    scratch = (np.empty(n_classes + 1), np.empty(n_features, dtype=np.uint8), np.empty(n_features))
    weight_of_row = np.zeros(n_rows)
    branch_of_row = np.zeros(n_rows, dtype=np.int64)
    sorted_slot = np.full(n_features, -1, dtype=np.int64)
    n_sorted = sorted_features.shape[0]
    root_sorted = np.empty((n_sorted, n_rows), dtype=np.int64)
    for s in range(n_sorted):
        f = sorted_features[s]
        sorted_slot[f] = s
        # Counting sort of the rows by code (stable).
        counts = np.zeros(n_codes[f] + 2, dtype=np.int64)
        for r in range(n_rows):
            counts[feature_codes[f, r] + 1] += 1
        for k in range(n_codes[f] + 1):
            counts[k + 1] += counts[k]
        for r in range(n_rows):
            code = feature_codes[f, r]
            root_sorted[s, counts[code]] = r
            counts[code] += 1

    search = (
        feature_codes, y_class, n_classes, n_codes, is_nominal, code_values, code_value_ptr,
        excluded_from_average, limits, threshold_cost, at_data, hist_ratio, scratch_hist,
        scratch_codes, sorted_slot,
    )  # fmt: skip
    root_rows = np.arange(n_rows).astype(np.int64)
    root_weight = sample_weight.copy()
    root_used = np.zeros(n_features, dtype=np.bool_)
    nodes = (
        feature, kind, threshold, left_code, first_child, n_children, n_samples, weight, impurity
    )  # fmt: skip
    # (The root's numbers as np.int64: literals would compile _make_node, and all it
    # calls, once more than for the children's.)
    searched, chosen, average = _make_node(
        np.int64(0), np.int64(-1), np.int64(0), root_rows, root_weight, root_used, root_sorted,
        nodes, value, search, rec_table[0], weight_of_row, scratch,
    )  # fmt: skip
    n_nodes = 1
    if searched:
        rec_node[0] = 0
        rec_feature[0] = chosen
        rec_average[0] = average
        n_records = 1
    # Nodes waiting to be split, last in first out: node, depth, rows, weights, the
    # nominal features tested above, rows in code order.
    stack = [(0, 0, root_rows, root_weight, root_used, root_sorted)]
    if chosen < 0:
        stack.pop()
    while len(stack):
        node, depth, rows, row_weight, used, node_sorted = stack.pop()
        f = feature[node]
        nominal = is_nominal[f]
        missing_code = n_codes[f]
        n_branches = missing_code if nominal else 2
        child_rows, child_weight, child_sorted = split_fractional_rows(
            rows, row_weight, feature_codes, f, missing_code, -1 if nominal else left_code[node],
            n_branches, node_sorted, sorted_features, branch_of_row,
        )  # fmt: skip
        child_used = used
        if nominal:
            child_used = used.copy()
            child_used[f] = True
        size = n_nodes + n_branches
        if size > feature.shape[0]:
            feature = _grow1(feature, size)
            kind = _grow1(kind, size)
            threshold = _grow1(threshold, size)
            left_code = _grow1(left_code, size)
            first_child = _grow1(first_child, size)
            n_children = _grow1(n_children, size)
            value = _grow2(value, size)
            n_samples = _grow1(n_samples, size)
            weight = _grow1(weight, size)
            impurity = _grow1(impurity, size)
            nodes = (
        feature, kind, threshold, left_code, first_child, n_children, n_samples, weight, impurity
    )  # fmt: skip
        kind[node] = NODE_MULTIWAY if nominal else NODE_THRESHOLD
        first = n_nodes
        first_child[node] = first
        n_children[node] = n_branches
        to_split = np.zeros(n_branches, dtype=np.bool_)
        for k in range(n_branches):
            if n_records == rec_node.shape[0]:
                rec_node = _grow1(rec_node, n_records + 1)
                rec_table = _grow3(rec_table, n_records + 1)
                rec_feature = _grow1(rec_feature, n_records + 1)
                rec_average = _grow1(rec_average, n_records + 1)
            searched, chosen, average = _make_node(
                first + k, node, depth + 1, child_rows[k], child_weight[k], child_used,
                child_sorted[k], nodes, value, search, rec_table[n_records], weight_of_row,
                scratch,
            )  # fmt: skip
            n_nodes += 1
            if searched:
                rec_node[n_records] = first + k
                rec_feature[n_records] = chosen
                rec_average[n_records] = average
                n_records += 1
            to_split[k] = chosen >= 0
        for k in range(n_branches - 1, -1, -1):
            if to_split[k]:
                stack.append(
                    (first + k, depth + 1, child_rows[k], child_weight[k], child_used,
                     child_sorted[k])
                )  # fmt: skip
    return (
        feature[:n_nodes],
        kind[:n_nodes],
        threshold[:n_nodes],
        first_child[:n_nodes],
        n_children[:n_nodes],
        value[:n_nodes],
        n_samples[:n_nodes],
        weight[:n_nodes],
        impurity[:n_nodes],
        rec_node[:n_records],
        rec_table[:n_records],
        rec_feature[:n_records],
        rec_average[:n_records],
    )
