"""Small subtrees grown on node-local copies of their rows (the numba loop's local mode).

When the depth-first loop of :mod:`~treelearn.growing._loop_kernels` pops a
node of at most :data:`LOCAL_MAX_ROWS` rows (all features numeric), it grows
that node's whole subtree here, before it pops anything else, as it would
have grown it itself:

- the node's codes, weights and targets are copied once into small local
  arrays (feature by feature: ``local_codes[f, i]`` is the code of the node's
  ``i``-th row), and each feature's rows are ordered by code once (a counting
  sort, or the feature's presorted rows);
- below, every split partitions these orders stably, so each node has its rows
  in code order for every feature without sorting, and is searched by
  :func:`~treelearn.splitting._kernels.scan_sorted_rows` straight from them:
  no histogram, no 255-bin scan of a node of 40 rows, no reads of the large
  code matrix at scattered rows. A child that will not be searched (a leaf)
  or that holds two or three rows (searched from their codes, by
  :func:`_search_few`) is left out of the partition.

Rows of one code are summed in node order (the row order of the depth-first
loop, kept by every stable partition), as the histogram paths sum them, so
the gains, the splits and the node statistics are the same to the bit; the
nodes are numbered and ``rng`` is drawn in the same order. The Tree is the
one the loop would grow without local mode, bit for bit.
"""

import numpy as np
from numba import njit

from treelearn._copy_kernels import copy_flat
from treelearn._random_kernels import permute_into
from treelearn.criteria._kernels import GINI, SQUARED_ERROR, weighted_impurity
from treelearn.growing._node_tables import (
    L_MAX_DEPTH,
    may_split,
    record_threshold_split,
    room_for,
    split_admissible,
    threshold_missing_child,
    weight_of_row,
    write_node,
)
from treelearn.splitting._cut_kernels import (
    N_CUT_ROWS,
    N_OUT,
    NUMERIC,
    OUT_FEATURE,
    OUT_GAIN,
    OUT_LEFT_CODE,
    OUT_MISSING_LEFT,
    cuts_fit,
    keep_split_if_better,
)
from treelearn.splitting._gini_scan_kernels import (
    scan_sorted_whole_gini_by_cuts,
    whole_gini_by_cuts_inlined,
)
from treelearn.splitting._kernels import scan_sorted_rows
from treelearn.splitting._sort_kernels import sort_rows_by_code
from treelearn.splitting._value_scan_kernels import (
    scan_sorted_values_by_cuts,
    value_cut_pairs_inlined,
    value_cuts_fit,
    values_by_cuts_inlined,
)
from treelearn.stats._kernels import add_gathered_row, gather_targets

#: Nodes of at most this many rows have their subtree grown in local mode. (512 until
#: the local scans got faster: 1,024 took 8-10% off full-depth fits of 100k x 20 with
#: 255 bins, 6-8% off regression's exact and 1M-row ones; 2,048 and 4,096 no more.
#: Measured again with the scans called from _search_local: against 512, 10-class
#: 7% and regression 2% faster with bins, exact regression the same.)
LOCAL_MAX_ROWS = 1024

#: Columns of the local stack: the node, its run ``[a, b)`` of local rows, its depth.
LS_NODE, LS_A, LS_B, LS_DEPTH = 0, 1, 2, 3

#: Nodes of at most this many rows are searched from their rows' codes (:func:`_search_few`).
MAX_FEW_ROWS = 3
#: The orderings of two or three rows :func:`_search_few` tells apart: where the first
#: and the second row of the node stand in code order (3 x 3 slots, 8 of them used),
#: times whether the codes are all apart, the lower two equal or the upper two.
N_FEW_PATTERNS = 27


@njit(cache=True)
def local_workspace(feature_codes, n_rows, n_channels, max_codes):
    """The arrays of :func:`grow_local` for subtrees of up to ``n_rows`` rows of
    ``feature_codes`` (features up to ``max_codes`` codes, missing included), allocated
    once per loop."""
    n_features = feature_codes.shape[0]
    return (
        np.empty((n_features, n_rows), dtype=feature_codes.dtype),  # local_codes
        # Two copies (see grow_local): each feature's codes in code order, their local rows.
        np.empty((2, n_features, n_rows), dtype=feature_codes.dtype),  # local_keys
        np.empty((2, n_features, n_rows), dtype=np.int32),  # local_order
        np.empty(n_rows, dtype=np.int32),  # node_rows: local rows in node order
        np.empty(n_rows, dtype=np.bool_),  # goes_left
        np.empty((2, n_rows)),  # targets: weight; class index or y
        np.arange(n_rows, dtype=np.int32),  # identity
        np.empty(max_codes + 1, dtype=np.int64),  # counts (counting sort)
        np.empty(3 * n_rows, dtype=np.int32),  # merge_work (merge sort)
        np.empty(n_rows, dtype=np.int32),  # spare_rows
        np.empty(n_rows, dtype=feature_codes.dtype),  # spare_keys
        np.empty((n_rows + 1, 4), dtype=np.int64),  # stack_int (LS_* columns)
        np.empty((n_rows + 1, N_OUT)),  # stack_out
        np.empty((n_rows + 1, n_channels)),  # stack_stats
        np.empty((2, n_channels)),  # child_stats
        np.empty((5, n_channels)),  # scan work rows
        np.zeros(max(n_channels - 1, 1), dtype=np.int64),  # class_map: class -> channel
        np.empty(n_rows),  # present_class: each row's class among those present
        np.empty(n_channels),  # present_stats: the node's statistics of those classes
        np.empty((N_CUT_ROWS, n_rows)),  # cut_rows: the three-pass scans' scratch
        np.empty((3, N_FEW_PATTERNS)),  # few_patterns (_search_few)
        np.empty((N_CUT_ROWS, n_rows)),  # cut_rows of a pair's second feature (_search_local)
        np.empty(4),  # best of a pair's second feature
    )


@njit(cache=True, inline="always")
def _search_workspace(ws):
    """The arrays of :func:`local_workspace` that :func:`_search_local` reads, those
    only :func:`_search_few` reads in a tuple of their own. A call copies its arguments onto
    the stack, every field of every array: the whole workspace and ``search`` made
    about 330 words a call, these about 180. (Full-depth regression, 100,000 x 20,
    255 bins, on an AMD EPYC: the copies before the call took 7.8% of perf's
    samples of the fit, 5% after; the fit's time moved within the machine's noise.)"""
    (
        local_codes, local_keys, local_order, node_rows, _goes_left, targets, _identity,
        _counts, _merge_work, spare_rows, spare_keys, _stack_int, _stack_out, _stack_stats,
        _child_stats, work, class_map, present_class, present_stats, cut_rows, few_patterns,
        cut_rows_g, best_g,
    ) = ws  # fmt: skip
    few = (local_codes, spare_rows, spare_keys, few_patterns)
    return (local_keys, local_order, node_rows, targets, work, class_map, present_class,
            present_stats, cut_rows, cut_rows_g, best_g, few)  # fmt: skip


@njit(cache=True, inline="always")
def _search_settings(search, pairs_settle):
    """What :func:`_search_local` reads of ``search`` (see :func:`_search_workspace`):
    the features' missing codes, ``max_features``, the leaf minimums, whether
    weights are whole and whether every row weighs 1; and ``pairs_settle``
    (:func:`_search_few`)."""
    return search[0], search[3], search[4], search[5], search[14], search[15][3], pairs_settle


@njit(cache=True, inline="always")
def copy_node_codes(feature_codes, rows, start, end, by_feature):
    """``by_feature[f, i] = feature_codes[f, rows[start + i]]`` for every feature ``f``:
    the codes of the node ``rows[start:end]`` in node order, a feature's after
    another's (each feature's codes read at the node's rows in one pass)."""
    for f in range(feature_codes.shape[0]):
        column = feature_codes[f]
        out = by_feature[f]
        for i in range(end - start):
            out[i] = column[np.uint64(rows[start + i])]  # (see _partition_orders)


@njit(cache=True, _nrt=False)
def _load(feature_codes, rows, start, end, y_class, y_value, weight, is_classification, sorted_rows,
          sorted_codes, sorted_slot, n_codes, local_of_row, ws):  # fmt: skip
    """Copy the node ``rows[start:end]`` into the workspace: its targets, its codes,
    and each feature's local rows in code order (ties in node order) with their
    codes, in copy 0 of ``local_order`` and ``local_keys`` (a presorted feature's
    read beside its rows when ``sorted_codes`` has rows). Returns True when no row
    of the node misses a value of any feature."""
    local_codes, node_rows = ws[0], ws[3]
    targets, identity, counts, merge_work = ws[5], ws[6], ws[7], ws[8]
    local_keys = ws[1][0]
    local_order = ws[2][0]
    m = end - start
    # (np.bool_ with_weights, as the other calls pass a variable: one compilation.)
    gather_targets(rows, start, end, y_class, y_value, weight, is_classification, targets,
                   np.bool_(True))  # fmt: skip
    for i in range(m):
        node_rows[i] = i
    if sorted_rows.shape[0]:
        for i in range(m):
            local_of_row[rows[start + i]] = i
    copy_node_codes(feature_codes, rows, start, end, local_codes)
    first = np.int64(0)  # (a literal 0 would compile the sorts below once more)
    for f in range(local_codes.shape[0]):
        slot = sorted_slot[f]
        if slot >= 0:
            # The feature's rows are kept presorted: the node's run of them, renamed.
            presorted = sorted_rows[slot]
            for i in range(m):
                local_order[f, i] = local_of_row[presorted[start + i]]
            if sorted_codes.shape[0]:
                for i in range(m):
                    local_keys[f, i] = sorted_codes[slot, start + i]
                continue
        else:
            sort_rows_by_code(
                local_codes[f], identity, first, m, n_codes[f] + 1, local_order[f], counts,
                merge_work,
            )  # fmt: skip
        for i in range(m):
            local_keys[f, i] = local_codes[f, local_order[f, i]]
    # Each feature's keys are in code order: the missing code, the largest, comes last.
    known_everywhere = True
    for f in range(local_keys.shape[0]):
        known_everywhere &= local_keys[f, m - 1] != n_codes[f]
    return known_everywhere


@njit(cache=True, _nrt=False)
def _partition_node(local_codes, f, node_rows, a, b, left_code, missing_code, missing_left,
                    goes_left, targets, is_classification, child_stats, spare_rows):  # fmt: skip
    """Stable partition of the local rows ``node_rows[a:b]`` by the split (on feature
    ``f``), marking ``goes_left``; each child's statistics summed in node order.
    Returns the first right row and the number of rows missing the split feature."""
    child_stats[:, :] = 0.0
    left_at = np.uint64(a)  # (unsigned: see _partition_orders)
    n_right = np.uint64(0)
    n_missing = 0
    codes_f = local_codes[f]
    for i in range(np.uint64(a), np.uint64(b)):
        j = np.uint64(node_rows[i])
        code = codes_f[j]
        is_missing = code == missing_code
        n_missing += is_missing
        left = missing_left if is_missing else code <= left_code
        goes_left[j] = left
        # Both places written, one kept: no branch on the side, which is random.
        node_rows[left_at] = j
        spare_rows[n_right] = j
        left_at += np.uint64(left)
        n_right += np.uint64(not left)
        add_gathered_row(child_stats[0 if left else 1], j, targets[0], targets[1], targets[1],
                         is_classification)  # fmt: skip
    for i in range(n_right):
        node_rows[left_at + i] = spare_rows[i]
    return int(left_at), n_missing


@njit(cache=True, inline="always")
def _runs_of(local_order, local_keys, source, f):
    """Feature ``f``'s code-ordered run in copy ``source`` and in the other copy:
    ``(order_in, keys_in, order_out, keys_out)``."""
    target = 1 - source
    return (
        local_order[source, f],
        local_keys[source, f],
        local_order[target, f],
        local_keys[target, f],
    )


@njit(cache=True, _nrt=False)
def _partition_orders(local_order, local_keys, source, a, middle, b, goes_left):
    """Stable partition of every feature's code-ordered run ``[a, b)`` of copy
    ``source`` of ``local_order`` and ``local_keys`` by ``goes_left``, into the
    other copy: the left child's rows to ``[a, middle)``, the right child's to
    ``[middle, b)``.

    Each row is written once, where its side's count says, and both counts move
    on by a selection: no branch on the side, which is random in every feature but
    the split's (when it partitioned in place, a branch mispredicted about one row
    in two: 4.8-6.3 ns a row and feature, against 1.2-1.9 without it, on 20
    features of 8-512 rows). Into the other copy rather than in place: no row is
    written twice, and none of the right child's copied back from a spare buffer
    (20 features of 1,024 rows: 2.06 -> 1.62 ns a row and feature)."""
    for f in range(local_order.shape[1]):
        order_in, keys_in, order_out, keys_out = _runs_of(local_order, local_keys, source, f)
        # Unsigned positions: numba adds a signed index's length where it is
        # negative, a few instructions for each of the five reads and writes of a
        # row: 1.62 -> 0.59 ns a row and feature (20 features of 1,024 rows, an
        # AMD EPYC).
        left_at = np.uint64(a)
        right_at = np.uint64(middle)
        for i in range(np.uint64(a), np.uint64(b)):
            j = np.uint32(order_in[i])
            key = keys_in[i]
            left = goes_left[j]
            at = left_at if left else right_at
            order_out[at] = j
            keys_out[at] = key
            left_at += np.uint64(left)
            right_at += np.uint64(not left)


@njit(cache=True, _nrt=False)
def _keep_left_orders(local_order, local_keys, source, a, b, goes_left):
    """:func:`_partition_orders` of the left child's rows only (without a branch on
    the side: every row is written at the left child's count, which only a left row
    moves on): the right child's positions in the other copy are left holding no
    run (but a row written at its first position in passing), as that child is not
    searched from them."""
    for f in range(local_order.shape[1]):
        order_in, keys_in, order_out, keys_out = _runs_of(local_order, local_keys, source, f)
        left_at = np.uint64(a)  # (unsigned positions, as in _partition_orders)
        for i in range(np.uint64(a), np.uint64(b)):
            j = np.uint32(order_in[i])
            order_out[left_at] = j
            keys_out[left_at] = keys_in[i]
            left_at += np.uint64(goes_left[j])


@njit(cache=True, _nrt=False)
def _keep_right_orders(local_order, local_keys, source, a, b, goes_left):
    """:func:`_partition_orders` of the right child's rows only, from the end (a
    left row before the right child's first is written at the left child's last
    position, never before ``a``): the left child's positions in the other copy are
    left holding no run, as that child is not searched from them."""
    for f in range(local_order.shape[1]):
        order_in, keys_in, order_out, keys_out = _runs_of(local_order, local_keys, source, f)
        right_at = np.uint64(b - 1)  # (unsigned positions, as in _partition_orders)
        for back in range(np.uint64(b - a)):
            i = np.uint64(b - 1) - back
            j = np.uint32(order_in[i])
            order_out[right_at] = j
            keys_out[right_at] = keys_in[i]
            right_at -= np.uint64(not goes_left[j])


@njit(cache=True, _nrt=False)
def _present_classes(node_rows, a, b, row_class, stats, class_map, present_class,
                     present_stats):  # fmt: skip
    """The node's statistics over the classes of positive weight only (in class
    order, at least one channel), and each node row's class renumbered among
    them in ``present_class``; returns both.

    Every weighted impurity, side weight and difference the scan computes is then
    the same to the bit: a class of zero weight at the node has zero weight on
    either side of any cut, and adding 0.0 changes no sum (weights are never
    negative). Deep nodes hold few of the classes, so the scan's loops over
    classes shrink with them.
    """
    present_stats[0] = stats[0]
    n_present = 0
    for k in range(stats.shape[0] - 1):
        class_map[k] = 0  # (a row of weight 0 of an absent class adds 0.0 anywhere)
        if stats[1 + k] != 0.0:
            class_map[k] = n_present
            present_stats[1 + n_present] = stats[1 + k]
            n_present += 1
    if n_present == 0:
        present_stats[1] = 0.0
        n_present = 1
    for i in range(a, b):
        j = node_rows[i]
        present_class[j] = class_map[int(row_class[j])]
    return present_class, present_stats[: 1 + n_present]


@njit(cache=True, inline="always")
def _three_pass_scans(criterion, is_classification, whole_weights, unit_weights):
    """Which unit-weight three-pass scan a node may take, as
    :func:`~treelearn.splitting._kernels.scan_sorted_rows` chooses it: ``(values, gini)``,
    squared error's and whole-weight Gini's."""
    values = unit_weights and not is_classification and criterion == SQUARED_ERROR
    gini = unit_weights and is_classification and criterion == GINI and whole_weights
    return values, gini


#: :func:`_three_pass_scan`'s answers.
NO_THREE_PASS, THREE_PASS_VALUES, THREE_PASS_GINI = 0, 1, 2


@njit(cache=True, inline="always")
def _three_pass_scan(values_by_cuts, gini_by_cuts, cut_rows, keys, m, missing_code):
    """The three-pass scan a feature's run of ``m`` rows in code order (``keys``) takes
    (:func:`_three_pass_scans`' flags): :data:`THREE_PASS_VALUES`,
    :data:`THREE_PASS_GINI`, or :data:`NO_THREE_PASS` (``scan_sorted_rows`` scans it)."""
    if values_by_cuts and value_cuts_fit(cut_rows, keys, m, missing_code):
        return THREE_PASS_VALUES
    if gini_by_cuts and cuts_fit(cut_rows, keys, m, missing_code):
        return THREE_PASS_GINI
    return NO_THREE_PASS


@njit(cache=True, error_model="numpy", _nrt=False)
def _search_local(search_ws, settings, order, limits, criterion, is_classification, a, b,
                  source, stats_rows, k, node_weight, best, out_rows):  # fmt: skip
    """``Grower._search`` of the local node ``[a, b)`` (every feature numeric, its
    statistics ``stats_rows[k]``): each feature scanned from its code-ordered run
    in copy ``source`` of the workspace's (see :func:`grow_local`; a node of two or
    three rows from its rows' codes, :func:`_search_few`), in the order
    ``order`` (all features, or ``rng.permutation`` of them, drawn by the caller).
    True when the best split (in ``out_rows[k]``) is admissible.

    Without reference counting: every view it takes of the workspace (each
    feature's run of keys and rows, the targets, the scratch rows) would
    otherwise count a reference up and down, an atomic operation, for every
    feature of every node: 27% of a full-depth regression fit on an Intel Xeon
    went to numba's reference counting. It allocates nothing and returns no array.
    """
    (
        both_keys, both_orders, node_rows, targets, work, class_map, present_class,
        present_stats, cut_rows, cut_rows_g, best_g, few_ws,
    ) = search_ws  # fmt: skip
    local_keys, local_order = both_keys[source], both_orders[source]
    n_codes, max_features, min_count, min_weight, whole_weights, unit_weights, _ = settings
    stats = stats_rows[k]
    out = out_rows[k]
    parent_cost = weighted_impurity(stats, criterion)
    row_class = targets[1]
    if is_classification:
        # Only the classes present count: the others add exact zeros to every sum.
        row_class, stats = _present_classes(node_rows, a, b, targets[1], stats, class_map,
                                            present_class, present_stats)  # fmt: skip
    n_channels = stats.shape[0]
    work_rows = (
        work[0, :n_channels], work[1, :n_channels], work[2, :n_channels],
        work[3, :n_channels], work[4, :n_channels],
    )  # fmt: skip
    out[OUT_GAIN] = -np.inf
    out[OUT_FEATURE] = -1.0
    m = b - a
    if 2 <= m <= MAX_FEW_ROWS:
        _search_few(few_ws, node_rows, targets, cut_rows, settings, order, criterion,
                    is_classification, a, m, stats, parent_cost, row_class, work_rows, best,
                    out)  # fmt: skip
        return split_admissible(out, limits, node_weight)
    values_by_cuts, gini_by_cuts = _three_pass_scans(criterion, is_classification, whole_weights,
                                                     unit_weights)  # fmt: skip
    n_visited = 0
    n_order = order.shape[0]
    j = 0
    while j < n_order:
        if n_visited >= max_features:
            break
        f = order[j]
        if values_by_cuts and j + 1 < n_order:
            # Two features scanned at once where both take squared error's
            # three-pass scan (see value_cut_pairs_inlined); kept in their order.
            g = order[j + 1]
            keys_f = local_keys[f, a:b]
            keys_g = local_keys[g, a:b]
            if value_cuts_fit(cut_rows, keys_f, m, n_codes[f]) and value_cuts_fit(
                cut_rows, keys_g, m, n_codes[g]
            ):
                n_present_f, n_present_g = value_cut_pairs_inlined(
                    keys_f, local_order[f, a:b], keys_g, local_order[g, a:b], m, targets[1],
                    stats, parent_cost, min_count, min_weight, best, best_g, cut_rows, cut_rows_g,
                )  # fmt: skip
                if n_present_f >= 2:
                    n_visited += 1
                    keep_split_if_better(out, f, best, NUMERIC)
                if n_visited >= max_features:
                    break
                if n_present_g >= 2:
                    n_visited += 1
                    keep_split_if_better(out, g, best_g, NUMERIC)
                j += 2
                continue
        n_present = _scan_run(
            local_keys[f, a:b], local_order[f, a:b], m, n_codes[f], targets, row_class, stats,
            parent_cost, criterion, is_classification, min_count, min_weight, work_rows, best,
            whole_weights, unit_weights, cut_rows, values_by_cuts, gini_by_cuts,
        )  # fmt: skip
        if n_present >= 2:
            n_visited += 1
            keep_split_if_better(out, f, best, NUMERIC)
        j += 1
    return split_admissible(out, limits, node_weight)


@njit(cache=True, inline="always")
def _scan_run(keys, rows, m, missing_code, targets, row_class, stats, parent_cost, criterion,
              is_classification, min_count, min_weight, work_rows, best, whole_weights,
              unit_weights, cut_rows, values_by_cuts, gini_by_cuts):  # fmt: skip
    """The scan of one feature's run of ``m`` local rows in code order (``keys``,
    ``rows``), as local mode makes it; returns the number of values present.

    scan_sorted_rows's choice, made here: the unit-weight three-pass scans are
    inlined, not called for every feature of every node (full-depth regression
    7-10% faster for a call level fewer, 3-4% more for none). Inlined itself: its
    callers are compiled under numpy's error model, which the three-pass scans'
    division before the test of an empty side needs."""
    scan = _three_pass_scan(values_by_cuts, gini_by_cuts, cut_rows, keys, m, missing_code)
    if scan == THREE_PASS_VALUES:
        return values_by_cuts_inlined(keys, rows, m, None, targets[1], stats, parent_cost,
                                      min_count, min_weight, best, cut_rows)  # fmt: skip
    if scan == THREE_PASS_GINI:
        return whole_gini_by_cuts_inlined(keys, rows, m, None, row_class, stats, parent_cost,
                                          min_count, min_weight, best, work_rows[0],
                                          cut_rows)  # fmt: skip
    return scan_sorted_rows(
        keys, rows, m, missing_code, targets[0], row_class, targets[1], is_classification,
        stats, parent_cost, criterion, min_count, min_weight, work_rows, best, whole_weights,
        cut_rows, unit_weights,
    )  # fmt: skip


@njit(cache=True, _nrt=False)
def _search_few(few_ws, node_rows, targets, cut_rows, settings, order, criterion,
                is_classification, a, m, stats, parent_cost, row_class, work_rows, best,
                out):  # fmt: skip
    """:func:`_search_local`'s loop over the features of a node of ``m`` rows, two or
    three (``node_rows[a:a + m]``), read from their codes alone: the features'
    code-ordered runs are not needed, so the caller need not partition them for
    such a node.

    A feature puts the rows in code order (ties in node order) and cuts them at each
    change of code; the scan sums the same rows in the same order for every
    feature that orders and ties them alike, so its gains and its choice of cut
    are the same. Each such pattern (:data:`N_FEW_PATTERNS`) is scanned once, at
    the first feature that has it; a later feature with the same pattern gets the
    same gain at the same cut, with its own codes on either side, kept or not by
    the same tie rule (a lower feature index wins a tie). Two rows have a pattern
    for each side of their one cut: the sides' gains are equal in exact arithmetic
    but not always in floating point. Features of one code are neither counted
    against ``max_features`` nor kept, as the scan has it; a feature with a row
    missing is scanned.

    ``pairs_settle`` (the last of ``settings``): the features are searched in
    index order, all of them, and no row of the subtree misses a value. A node of
    two rows is then settled once both its patterns are scanned: every later
    feature has one of them, so the same gain as a feature before it and a higher
    index, and is not kept. (A feature with a row missing is scanned apart and may
    gain more in the last bit; three rows' patterns are too many to wait for.)
    Full-depth regression, 100,000 x 20, 255 bins: 28,167 of the 79,999 splits are
    of two rows; this function's share of perf's samples of the fit 8.3 -> 6.5%.
    """
    local_codes, spare_rows, spare_keys, few_patterns = few_ws
    n_codes, max_features, min_count, min_weight, whole_weights, unit_weights, pairs_settle = (
        settings
    )
    values_by_cuts, gini_by_cuts = _three_pass_scans(criterion, is_classification, whole_weights,
                                                     unit_weights)  # fmt: skip
    p = node_rows[a]
    q = node_rows[a + 1]
    r = node_rows[a + m - 1]  # (q again for two rows: never read)
    # Per pattern: the gain of its cut (NaN: not scanned yet), which change of code
    # it cuts at (0: the first), its missing_left.
    pattern_gain = few_patterns[0]
    pattern_cut = few_patterns[1]
    pattern_missing_left = few_patterns[2]
    pattern_gain[:] = np.nan
    n_visited = 0
    # Patterns scanned while the node may settle (two rows have two); -1 where it may not.
    n_scanned = 0 if pairs_settle and m == 2 else -1
    for j in range(order.shape[0]):
        if n_visited >= max_features or n_scanned == 2:
            break
        f = order[j]
        code_p = local_codes[f, p]
        code_q = local_codes[f, q]
        code_r = local_codes[f, r]
        if code_p == code_q and code_q == code_r:
            continue
        # Stable places in code order: an earlier row of an equal code goes first.
        if m == 2:
            at_p = 1 if code_q < code_p else 0
            at_q = 1 - at_p
        else:
            at_p = (code_q < code_p) + (code_r < code_p)
            at_q = (code_p <= code_q) + (code_r < code_q)
            spare_rows[3 - at_p - at_q] = r
            spare_keys[3 - at_p - at_q] = code_r
        spare_rows[at_p] = p
        spare_rows[at_q] = q
        spare_keys[at_p] = code_p
        spare_keys[at_q] = code_q
        low, middle, high = spare_keys[0], spare_keys[1], spare_keys[m - 1]
        missing_code = n_codes[f]
        # The codes apart, in order: the cut at change c has codes[c] on its left.
        second = high if low == middle else middle
        pattern = (at_p * 3 + at_q) * 3 + (1 if low == middle else 2 if middle == high else 0)
        if high != missing_code and not np.isnan(pattern_gain[pattern]):
            n_visited += 1
            best[0] = pattern_gain[pattern]
            if pattern_cut[pattern] == 0.0:
                best[1] = low
                best[2] = second
            else:
                best[1] = second
                best[2] = high
            best[3] = pattern_missing_left[pattern]
            keep_split_if_better(out, f, best, NUMERIC)
            continue
        # _scan_run's choice of scan, its three-pass scans called straight (a few scans
        # a node, where inlining them made full-depth regression 3% slower; through
        # scan_sorted_rows, a call of 18 arguments more).
        scan = _three_pass_scan(values_by_cuts, gini_by_cuts, cut_rows, spare_keys, m,
                                missing_code)  # fmt: skip
        if scan == THREE_PASS_VALUES:
            n_present = scan_sorted_values_by_cuts(
                spare_keys, spare_rows, m, None, targets[1], stats, parent_cost, min_count,
                min_weight, best, cut_rows,
            )  # fmt: skip
        elif scan == THREE_PASS_GINI:
            n_present = scan_sorted_whole_gini_by_cuts(
                spare_keys, spare_rows, m, None, row_class, stats, parent_cost, min_count,
                min_weight, best, work_rows[0], cut_rows,
            )  # fmt: skip
        else:
            n_present = scan_sorted_rows(
                spare_keys, spare_rows, m, missing_code, targets[0], row_class, targets[1],
                is_classification, stats, parent_cost, criterion, min_count, min_weight,
                work_rows, best, whole_weights, cut_rows, unit_weights,
            )  # fmt: skip
        if n_present >= 2:
            n_visited += 1
            keep_split_if_better(out, f, best, NUMERIC)
        if high != missing_code:
            pattern_gain[pattern] = best[0]
            pattern_cut[pattern] = 0.0 if best[1] == low else 1.0
            pattern_missing_left[pattern] = best[3]
            if n_scanned >= 0 and not np.isnan(best[0]):
                n_scanned += 1


@njit(cache=True, _nrt=False)
def _copy_row(source, k, target, t):
    """``target[t] = source[k]``, element by element, without reference counting (not
    inlined: numba's inlining makes each array argument a counted reference)."""
    for c in range(source.shape[1]):
        target[t, c] = source[k, c]


@njit(cache=True)
def local_mode_pays(limits, depth, n_rows, local_rows):
    """Whether the loop grows the subtree of a popped node (``n_rows`` rows, at
    ``depth``) in local mode: small enough, and its children may be split."""
    max_depth = limits[L_MAX_DEPTH]
    return n_rows <= local_rows and (max_depth < 0 or depth + 1 < max_depth)


@njit(cache=True)
def grow_local(data, search, rng, limits, thresholds, tables, ws, root, start, end, depth,
               split, stats, local_of_row):  # fmt: skip
    """Grow the subtree of the node ``root`` (rows ``rows[start:end]``, at ``depth``,
    its split ``split`` and statistics ``stats``; ``split[OUT_GAIN]`` NaN: not
    searched yet, which is done here first) as the depth-first loop would, nodes
    appended to ``tables = (nodes, n_nodes, category_pool, n_cat)``
    (the node table of :mod:`~treelearn.growing._node_tables`, the category pool);
    returns the tables (maybe grown).

    ``ws``: :func:`local_workspace` for at least ``end - start`` rows;
    ``local_of_row``: scratch with an entry per training row.

    The features' code-ordered runs of a node are in one of two copies
    (``local_order[c]``, ``local_keys[c]``): the root's in copy 0, a node's at
    ``depth + d`` in copy ``d % 2``. A split partitions its node's runs into the
    other copy, where its children's runs do not meet any other node's still to
    be searched (those lie outside the node's ``[a, b)`` in both copies).
    """
    feature_codes, rows, y_class, y_value, weight, is_classification, criterion = data[:7]
    n_codes, all_features, sorted_rows, sorted_slot = search[0], search[2], search[10], search[11]
    n_features = all_features.shape[0]
    drawn = search[3] < n_features  # max_features: features drawn by rng.permutation
    nodes, n_nodes, category_pool, n_cat = tables
    local_codes, local_keys, local_order, node_rows, goes_left, targets = ws[:6]
    spare_rows = ws[9]
    stack_int, stack_out, stack_stats, child_stats = ws[11:15]
    search_ws = _search_workspace(ws)
    known_everywhere = _load(feature_codes, rows, start, end, y_class, y_value, weight,
                             is_classification, sorted_rows, search[15][4], sorted_slot,
                             n_codes, local_of_row, ws)  # fmt: skip
    # (order is all_features, np.arange, unless drawn: see _search_few.)
    settings = _search_settings(search, known_everywhere and not drawn)
    best = np.empty(4)
    child_out = np.empty((2, N_OUT))
    child_weight = np.empty(2)
    child_found = np.zeros(2, dtype=np.bool_)
    child_may_split = np.zeros(2, dtype=np.bool_)
    bounds = np.empty(3, dtype=np.int64)
    # The features' order of search, drawn afresh for each node if drawn. (Written
    # in place, and the tables grown once, before the loop: a variable reassigned in
    # the loop would count a reference up and down at every node.)
    order = all_features.copy()
    two = np.int64(2)  # (children of a split: a variable, not a literal 2)
    if np.isnan(split[OUT_GAIN]):
        # (Never with drawn features: the loop searches those nodes itself. np.int64:
        # a literal 0 would compile _search_local once more, for that value.)
        zero = np.int64(0)
        copy_flat(stats, child_stats[0])
        if not _search_local(
            search_ws, settings, order, limits, criterion, is_classification, zero, end - start,
            zero, child_stats, zero, weight_of_row(child_stats, zero, is_classification), best,
            child_out,
        ):  # fmt: skip
            return nodes, n_nodes, category_pool, n_cat  # (a leaf, as the loop wrote it)
        split = child_out[0]  # (copied onto the stack below, before child_out is reused)
    nodes = room_for(nodes, n_nodes, 2 * (end - start - 1))  # (see the loop's first test)
    stack_int[0, LS_NODE] = root
    stack_int[0, LS_A] = 0
    stack_int[0, LS_B] = end - start
    stack_int[0, LS_DEPTH] = depth
    copy_flat(split, stack_out[0])
    copy_flat(stats, stack_stats[0])
    top = 1
    while top > 0:
        top -= 1
        node = stack_int[top, LS_NODE]
        a = stack_int[top, LS_A]
        b = stack_int[top, LS_B]
        child_depth = stack_int[top, LS_DEPTH] + 1
        source = (child_depth - 1 - depth) % 2  # (the copy of the node's runs)
        f = int(stack_out[top, OUT_FEATURE])
        missing_code = n_codes[f]
        bounds[0] = a
        bounds[2] = b
        bounds[1], n_missing = _partition_node(
            local_codes, f, node_rows, a, b, int(stack_out[top, OUT_LEFT_CODE]), missing_code,
            stack_out[top, OUT_MISSING_LEFT] != 0.0, goes_left, targets, is_classification,
            child_stats, spare_rows,
        )  # fmt: skip
        # Every split leaves a row or more on each side: at most 2m - 2 nodes below
        # a root of m rows, for which there is room.
        if n_nodes + 2 > nodes[0].shape[0]:
            raise AssertionError("grow_local: a split left a child without rows")
        first = n_nodes
        for k in range(2):
            w = weight_of_row(child_stats, k, is_classification)
            impurity = write_node(
                nodes, n_nodes, child_stats, k, w, bounds[k + 1] - bounds[k],
                node, is_classification, criterion,
            )  # fmt: skip
            n_nodes += 1
            child_weight[k] = w
            child_may_split[k] = may_split(limits, child_depth, bounds[k + 1] - bounds[k], w,
                                           impurity)  # fmt: skip
        # Each feature's code-ordered run is needed by the children searched from
        # it: those that may split, of more than MAX_FEW_ROWS rows (see _search_few).
        left_needs = child_may_split[0] and bounds[1] - a > MAX_FEW_ROWS
        right_needs = child_may_split[1] and b - bounds[1] > MAX_FEW_ROWS
        if left_needs and right_needs:
            _partition_orders(local_order, local_keys, source, a, bounds[1], b, goes_left)
        elif left_needs:
            _keep_left_orders(local_order, local_keys, source, a, b, goes_left)
        elif right_needs:
            _keep_right_orders(local_order, local_keys, source, a, b, goes_left)
        for k in range(2):
            child_found[k] = False
            if child_may_split[k]:
                if drawn:
                    permute_into(rng, order)
                child_found[k] = _search_local(
                    search_ws, settings, order, limits, criterion, is_classification, bounds[k],
                    bounds[k + 1], 1 - source, child_stats, k, child_weight[k], best, child_out,
                )  # fmt: skip
        record_threshold_split(
            nodes, node, stack_out, top, first, two,
            threshold_missing_child(stack_out, top, n_missing, child_weight, two), thresholds,
        )  # fmt: skip
        for k in range(1, -1, -1):
            if child_found[k]:
                stack_int[top, LS_NODE] = first + k
                stack_int[top, LS_A] = bounds[k]
                stack_int[top, LS_B] = bounds[k + 1]
                stack_int[top, LS_DEPTH] = child_depth
                _copy_row(child_out, k, stack_out, top)
                _copy_row(child_stats, k, stack_stats, top)
                top += 1
    return nodes, n_nodes, category_pool, n_cat
