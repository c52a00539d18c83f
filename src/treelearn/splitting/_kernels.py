"""Split search for criteria that are sums over rows.

The search of a node over its features (:func:`find_best_split`,
:func:`find_best_split_parallel`), each feature's statistics (a kept, built or
compact histogram, :func:`fill_feature_histogram`, or the node's rows in code
order) and the choice of its scan: :func:`scan_threshold` of a histogram,
:func:`scan_sorted_rows` of rows in code order. The scans of one criterion and
the shared parts live in their own modules, below this one:
:mod:`~treelearn.splitting._cut_kernels` (the ``out`` slots, a cut's tests and
gain, the tie rule), :mod:`~treelearn.splitting._value_scan_kernels` (squared
error), :mod:`~treelearn.splitting._gini_scan_kernels` (Gini with whole
weights), :mod:`~treelearn.splitting._subset_kernels` (nominal features),
:mod:`~treelearn.splitting._sort_kernels` (rows ordered by code) and
:mod:`~treelearn.splitting._scan_buffer_kernels` (the sorted scans' scratch). The
notes below hold for all of them.

Every scan reads a histogram ``hist`` whose rows are codes in increasing order
(a full histogram, or a compact one holding only the codes present at the
node) and whose columns are statistics channels (:mod:`treelearn._dtypes`).

Tie rule (documented in :mod:`treelearn.growing.grower`): higher gain wins;
among equal gains the lower feature index, then the lower threshold, then the
split that sends missing values right; subset searches keep the first subset
found in their documented enumeration order.

Kernels marked ``_nrt=False`` neither allocate nor return arrays, so numba
compiles them without reference counting: otherwise every array argument of
every call, and every slice, costs an atomic increment and decrement, which
took a quarter of the time of a deep tree (nodes of a few rows, searched
feature by feature). Their callers that allocate (:func:`find_best_split`,
the subset and multiway scans) keep it.

numba inlines (``inline="always"``) only what was measured to pay: the three-pass
scans and their steps, inlined into local mode's search (``*_inlined``), and a few
short tests and lookups (:func:`~treelearn.splitting._cut_kernels.cuts_fit`,
:func:`_histogram_rows`). LLVM inlines the rest where it pays. numba types an
inlined helper again at every call, and nested helpers again within each: the cut
step (:func:`~treelearn.splitting._cut_kernels._try_cut`,
:func:`~treelearn.splitting._cut_kernels._keep_cut`,
:func:`~treelearn.splitting._cut_kernels._split_gain`,
:func:`~treelearn.splitting._cut_kernels._side_ok`,
:func:`~treelearn.criteria._kernels.weighted_impurity`) inlined made the CLI's first
run compile for 170 s instead of 124 (2026-12-06), and fits no faster; inlining the
larger helpers too had cost a quarter of the first fit's compile time before.
"""

import numpy as np
from numba import get_thread_id, njit, prange

from treelearn._optional_kernels import if_present, row_of
from treelearn._parallel_options import PRANGE_ONLY
from treelearn.criteria._kernels import GINI, SQUARED_ERROR, weighted_impurity
from treelearn.splitting._cut_kernels import (
    N_CUT_ROWS,
    N_OUT,
    NO_CODE,
    NOMINAL,
    NUMERIC,
    OUT_FEATURE,
    OUT_GAIN,
    _try_cut,
    _try_missing_apart,
    cuts_fit,
    keep_if_better,
    keep_split_if_better,
)
from treelearn.splitting._gini_scan_kernels import (
    _scan_sorted_whole_gini,
    _scan_threshold_whole_gini,
    scan_sorted_whole_gini_by_cuts,
)
from treelearn.splitting._scan_buffer_kernels import _thread_scan
from treelearn.splitting._sort_kernels import (
    _sort_small_node,
    compact_histogram,
    sort_rows_by_code,
)
from treelearn.splitting._subset_kernels import scan_multiway, scan_subset
from treelearn.splitting._value_scan_kernels import (
    _scan_sorted_values,
    _scan_threshold_values,
    scan_sorted_values_by_cuts,
    value_cuts_fit,
)
from treelearn.stats._kernels import add_gathered_row, build_histogram, gather_targets

#: Nodes with at most this many rows scan their numeric features straight from
#: the rows in code order (:func:`scan_sorted_rows`): no histogram, no view.
SMALL_NODE_MAX_ROWS = 32
#: Row weights that are whole numbers summing to less than this keep every sum
#: of class weights, and of their squares, a whole number below ``2**53``:
#: exact in float64 whatever the order of the additions.
WHOLE_WEIGHT_LIMIT = 2.0**26


@njit(cache=True, _nrt=False)
def scan_threshold(
    hist,
    bin_codes,
    identity,
    n_known,
    total,
    parent_cost,
    criterion,
    is_classification,
    min_count,
    min_weight,
    best,
    left,
    right,
    with_missing,
    skip_missing=False,
    whole_weights=False,
):
    """Best ``x <= t`` split of a numeric feature.

    ``hist[:n_known]`` are the known codes (code ``i`` if ``identity``, else
    ``bin_codes[i]``) and ``hist[n_known]`` the missing rows. Each threshold
    between two neighbouring present codes is tried with missing rows sent
    right and then left; last comes "every known value left, missing right".

    ``skip_missing`` (``missing="surrogate"``, as rpart's ``bsplit``): the
    rows missing the feature take no part; the thresholds are tried on the
    known rows alone, their gain is ``cost(known rows) - cost(left) -
    cost(right)`` (not rescaled to the node: rpart's improvement is the same
    sum over the non-missing rows), and the leaf constraints apply to the
    known rows of each side.

    Writes ``best = [gain, left_code, right_code, missing_left]`` (right_code
    -1 for the last kind) and returns the number of distinct present values
    (missing counted as one, unless skipped); a feature with fewer than 2
    cannot split. ``left``, ``right`` and ``with_missing`` are scratch rows of
    ``n_channels`` (passed in: the scan runs for every feature of every node,
    and allocating or slicing there would dominate small nodes).

    ``whole_weights`` (see :func:`scan_sorted_rows`): Gini is scanned with
    running sums of squares (:func:`_scan_threshold_whole_gini`), the same gains.
    """
    n_channels = total.shape[0]
    left[:] = 0.0
    missing = hist[n_known]
    has_missing = missing[0] > 0.0
    known = total
    if skip_missing:
        if has_missing:
            # (with_missing is free: no split sends missing rows anywhere here.)
            for c in range(n_channels):
                with_missing[c] = total[c] - missing[c]
            known = with_missing
            parent_cost = weighted_impurity(known, criterion)
        has_missing = False
    best[0] = -np.inf
    n_present = 1 if has_missing else 0
    if not is_classification and criterion == SQUARED_ERROR:
        n_present += _scan_threshold_values(
            hist, n_known, (known[0], known[1], known[2], known[3]),
            (total[0], total[1], total[2], total[3]),
            (missing[0], missing[1], missing[2], missing[3]), has_missing, parent_cost,
            min_count, min_weight, best,
        )  # fmt: skip
    elif is_classification and criterion == GINI and whole_weights:
        n_present += _scan_threshold_whole_gini(
            hist, n_known, known, total, has_missing, parent_cost, min_count, min_weight, best,
            left,
        )  # fmt: skip
    else:
        prev = NO_CODE
        for i in range(n_known):
            if hist[i, 0] <= 0.0:
                continue
            n_present += 1
            if prev >= 0:
                _try_cut(
                    prev, i, left, right, with_missing, missing, known, total, has_missing,
                    parent_cost, criterion, is_classification, min_count, min_weight, best,
                )  # fmt: skip
            for c in range(n_channels):
                left[c] += hist[i, c]
            prev = i
        _try_missing_apart(prev, left, missing, has_missing, parent_cost, criterion,
                           is_classification, min_count, min_weight, best)  # fmt: skip
    if best[0] > -np.inf and not identity:
        best[1] = bin_codes[int(best[1])]
        if best[2] >= 0:
            best[2] = bin_codes[int(best[2])]
    return n_present


#: Where :func:`fill_feature_histogram` left a feature's statistics: the node's
#: kept histogram, a full histogram built in ``scratch_hist``, or a compact one there.
HIST_KEPT, HIST_BUILT, HIST_COMPACT = 0, 1, 2


@njit(cache=True, _nrt=False)
def fill_feature_histogram(
    f,
    feature_codes,
    rows,
    start,
    end,
    y_class,
    y_value,
    weight,
    is_classification,
    n_codes,
    is_nominal,
    node_hist_offsets,
    hist_ratio,
    scratch_hist,
    scratch_codes,
    sorted_rows,
    sorted_slot,
):
    """Statistics of feature ``f`` at the node ``rows[start:end]``, by the cheapest path.

    Returns ``(path, n_known)``: ``path`` is ``HIST_KEPT`` (the node's kept
    histogram holds them), ``HIST_BUILT`` (a histogram of every code in
    ``scratch_hist[:n_codes[f] + 1]``) or ``HIST_COMPACT`` (the codes present,
    in ``scratch_hist[:n_known + 1]``, their codes in ``scratch_codes[n_node:]``);
    :func:`_histogram_rows` says which rows hold it. The paths are described in
    :func:`find_best_split`; ``scratch_hist`` needs ``n_codes[f] + 1`` rows for
    the histogram path and ``end - start + 1`` for the compact path,
    ``scratch_codes`` :func:`scratch_codes_size` entries. A compact histogram's
    codes are ``scratch_codes[n_node : n_node + n_known]`` in increasing order.
    """
    n_node = end - start
    n_bins = n_codes[f] + 1
    codes_f = feature_codes[f]
    if node_hist_offsets[f] >= 0:
        return HIST_KEPT, n_bins - 1
    if is_nominal[f] or n_bins <= hist_ratio * n_node:
        build_histogram(
            codes_f, rows, start, end, y_class, y_value, weight, is_classification,
            scratch_hist[:n_bins],
        )  # fmt: skip
        return HIST_BUILT, n_bins - 1
    # scratch_codes: the node's rows in code order, then bin_codes, then sort counts.
    bin_codes = scratch_codes[n_node : 2 * n_node + 1]
    if sorted_slot[f] >= 0:
        ordered = sorted_rows[sorted_slot[f], start:end]
        n_known = compact_histogram(
            codes_f, ordered, n_codes[f], y_class, y_value, weight, is_classification,
            scratch_hist, bin_codes,
        )  # fmt: skip
        return HIST_COMPACT, n_known
    ordered = scratch_codes[:n_node]
    spare = scratch_codes[2 * n_node + 1 :]  # (n_bins + 1 entries: > 8 per node row here)
    sort_rows_by_code(codes_f, rows, start, end, n_bins, ordered, spare, spare)
    n_known = compact_histogram(
        codes_f, ordered, n_codes[f], y_class, y_value, weight, is_classification,
        scratch_hist, bin_codes,
    )  # fmt: skip
    return HIST_COMPACT, n_known


@njit(cache=True, inline="always")
def _histogram_rows(path, n_known, f, n_codes, node_hist_offsets):
    """Rows ``[first, stop)`` that hold :func:`fill_feature_histogram`'s result: of
    the node's kept histogram (``HIST_KEPT``), else of ``scratch_hist``. Numbers,
    not a view: kernels compiled without reference counting call it too (a view
    returned to them is never released, nor the array under it)."""
    if path == HIST_KEPT:
        first = node_hist_offsets[f]
        return first, first + n_codes[f] + 1
    if path == HIST_BUILT:
        return 0, n_codes[f] + 1
    return 0, n_known + 1


@njit(cache=True)
def scratch_codes_size(n_rows, max_bins, hist_ratio):
    """Length of the ``scratch_codes`` that :func:`fill_feature_histogram` needs for
    nodes of up to ``n_rows`` rows and features of up to ``max_bins`` codes
    (missing included), with ``hist_ratio``: only a node of fewer than
    ``max_bins / hist_ratio`` rows is sorted (a larger one gets a histogram of every
    code), so a larger node needs no more (with 256 bins, 2 KB instead of 2 x 8
    bytes a training row)."""
    sorted_rows = n_rows
    if hist_ratio * n_rows > max_bins:  # (0: every node sorts)
        sorted_rows = int(max_bins / hist_ratio) + 1
    return 2 * sorted_rows + max_bins + 2


@njit(cache=True)
def evaluate_nominal_feature(
    f,
    feature_codes,
    rows,
    start,
    end,
    y_class,
    y_value,
    weight,
    is_classification,
    criterion,
    n_classes,
    n_codes,
    node_hist,
    node_hist_offsets,
    node_stats,
    parent_cost,
    min_count,
    min_weight,
    scratch_hist,
    scratch_mask,
    skip_missing,
    multiway,
    best,
):
    """Best split of nominal feature ``f`` at the node, from its histogram (the
    node's kept one when ``node_hist_offsets[f] >= 0``, else one built now in
    ``scratch_hist``, of at least ``n_codes[f] + 1`` rows): into two sets of
    categories (:func:`scan_subset`, which marks them in ``scratch_mask``) or,
    ``multiway``, a branch per category (:func:`scan_multiway`). Writes ``best``;
    returns the number of distinct present values. (Numeric features:
    :func:`evaluate_numeric_feature`.)
    """
    n_bins = n_codes[f] + 1
    first = node_hist_offsets[f]
    if first >= 0:
        hist = node_hist[first : first + n_bins]
    else:
        hist = scratch_hist[:n_bins]
        build_histogram(
            feature_codes[f], rows, start, end, y_class, y_value, weight, is_classification, hist
        )
    if multiway:
        return scan_multiway(
            hist, n_bins, node_stats, parent_cost, criterion, min_count, min_weight, best
        )
    return scan_subset(
        hist,
        n_bins,
        node_stats,
        parent_cost,
        criterion,
        is_classification,
        n_classes,
        min_count,
        min_weight,
        best,
        scratch_mask,
        skip_missing,
    )


@njit(cache=True, _nrt=False)
def scan_sorted_rows(
    keys, order, m, missing_code, row_weight, row_class, row_value, is_classification, total,
    parent_cost, criterion, min_count, min_weight, work_rows, best, whole_weights=False,
    cut_rows=None, unit_weights=False,
):  # fmt: skip
    """:func:`scan_threshold` of a numeric feature read straight from the node's
    ``m`` rows in code order, without building a histogram: the ``i``-th has the
    code ``keys[i]`` and its targets at ``order[i]`` of ``row_weight`` and
    ``row_class`` (classification) or ``row_value``: the training arrays and
    row ids, or a small node's gathered targets and its row positions.

    Rows of one code are summed first and then added to the left side, as the
    histogram paths sum them, so the gains (and the split) are the same to the
    bit. ``work_rows`` are five scratch rows of ``n_channels`` (left, right, with
    missing, group, missing). Writes ``best`` as :func:`scan_threshold` does;
    returns the number of distinct present values.

    ``whole_weights`` (every row weight a whole number, their sum below
    :data:`WHOLE_WEIGHT_LIMIT`): Gini is scanned by :func:`_scan_sorted_whole_gini`,
    with the same gains at a fraction of the cost. ``cut_rows`` (scratch of
    :data:`N_CUT_ROWS` rows of at least ``m``): squared error without missing
    rows (and with at most
    :data:`~treelearn.splitting._value_scan_kernels.VALUE_CUTS_MAX_ROWS_PER_CODE` rows a code) is
    scanned by :func:`scan_sorted_values_by_cuts`, whole-weight Gini without
    missing rows by :func:`scan_sorted_whole_gini_by_cuts`: the same gains again,
    faster still with ``unit_weights`` (every row's weight is 1: not read).

    (Inlined into its callers, this choice of scan took 6-12% off full-depth
    regression fits, but the test suite's first run, which compiles every kernel,
    went from 8 to 25 minutes on two cores: not inlined. Local mode's search,
    which calls it for every feature of every small node, calls the unit-weight
    three-pass scans itself instead: 7-10% off full-depth regression, 2-4% off
    classification, on one thread.)
    """
    if not is_classification and criterion == SQUARED_ERROR:
        if cut_rows is not None and value_cuts_fit(cut_rows, keys, m, missing_code):
            if unit_weights:
                return scan_sorted_values_by_cuts(keys, order, m, None, row_value, total,
                                                  parent_cost, min_count, min_weight, best,
                                                  cut_rows)  # fmt: skip
            return scan_sorted_values_by_cuts(keys, order, m, row_weight, row_value, total,
                                              parent_cost, min_count, min_weight, best,
                                              cut_rows)  # fmt: skip
        return _scan_sorted_values(keys, order, m, missing_code, row_weight, row_value, total,
                                   parent_cost, min_count, min_weight, best)  # fmt: skip
    if is_classification and criterion == GINI and whole_weights:
        if cut_rows is not None and cuts_fit(cut_rows, keys, m, missing_code):
            if unit_weights:
                return scan_sorted_whole_gini_by_cuts(keys, order, m, None, row_class, total,
                                                      parent_cost, min_count, min_weight,
                                                      best, work_rows[0], cut_rows)  # fmt: skip
            return scan_sorted_whole_gini_by_cuts(keys, order, m, row_weight, row_class, total,
                                                  parent_cost, min_count, min_weight, best,
                                                  work_rows[0], cut_rows)  # fmt: skip
        return _scan_sorted_whole_gini(keys, order, m, missing_code, row_weight, row_class,
                                       total, parent_cost, min_count, min_weight, best,
                                       work_rows[0], work_rows[4])  # fmt: skip
    n_channels = total.shape[0]
    left, right, with_missing, group, missing = work_rows
    left[:] = 0.0
    missing[:] = 0.0
    n_known = m
    while n_known > 0 and keys[n_known - 1] == missing_code:
        n_known -= 1
    # (Positions as uint64, as local mode's partition passes them: one compilation.)
    for i in range(n_known, m):
        add_gathered_row(missing, np.uint64(order[i]), row_weight, row_class, row_value,
                         is_classification)  # fmt: skip
    has_missing = n_known < m
    best[0] = -np.inf
    best[1] = -1.0
    best[2] = -1.0
    best[3] = 0.0
    n_present = 1 if has_missing else 0
    prev = NO_CODE
    i = 0
    while i < n_known:
        code = np.int64(keys[i])  # (int64 as the histograms' codes: cut helpers compiled once)
        group[:] = 0.0
        while i < n_known and keys[i] == code:
            add_gathered_row(group, np.uint64(order[i]), row_weight, row_class, row_value,
                             is_classification)  # fmt: skip
            i += 1
        n_present += 1
        if prev >= 0:
            _try_cut(
                prev, code, left, right, with_missing, missing, total, total, has_missing,
                parent_cost, criterion, is_classification, min_count, min_weight, best,
            )  # fmt: skip
        for c in range(n_channels):
            left[c] += group[c]
        prev = code
    _try_missing_apart(prev, left, missing, has_missing, parent_cost, criterion,
                       is_classification, min_count, min_weight, best)  # fmt: skip
    return n_present


@njit(cache=True)
def find_best_split(
    feature_codes,
    rows,
    start,
    end,
    y_class,
    y_value,
    weight,
    is_classification,
    criterion,
    n_classes,
    feature_order,
    max_features,
    n_codes,
    is_nominal,
    node_hist,
    node_hist_offsets,
    node_stats,
    min_count,
    min_weight,
    hist_ratio,
    scratch_hist,
    scratch_codes,
    scratch_mask,
    out,
    out_mask,
    sorted_rows,
    sorted_slot,
    skip_missing=False,
    multiway=False,
    whole_weights=False,
    sorted_scan=None,
):
    """Best split of the node ``rows[start:end]`` over the features in ``feature_order``.

    ``feature_codes[f, r]`` is the code of row ``r`` in feature ``f``: the dataset's
    code matrix transposed, C-contiguous whatever the number of features (so every
    table takes one compilation; an (n, 1) matrix would be typed apart from wider ones).
    Features are visited in ``feature_order`` until ``max_features`` of them
    that are not constant at the node have been evaluated. A feature's
    statistics come from ``node_hist`` when ``node_hist_offsets[f] >= 0``
    (kept for the node, e.g. by subtraction); else a numeric feature with a
    slot is scanned straight from ``sorted_rows[sorted_slot[f], start:end]``
    (the node's rows kept sorted by that feature's code); else they come from
    a histogram built now (nominal features, and numeric ones with at most
    ``hist_ratio`` codes per node row), else from a compact histogram of the
    codes present at the node, by sorting the node's codes. Nodes of at most
    :data:`SMALL_NODE_MAX_ROWS` rows scan their numeric features straight from
    the rows in code order (:func:`scan_sorted_rows`). All paths give the same
    answer, to the bit; only the cost differs.

    ``skip_missing`` (``missing="surrogate"``): each feature is evaluated on
    the node's rows that know it (see :func:`scan_threshold`); a feature
    known at fewer than two distinct values cannot split.

    ``multiway``: nominal features split into one branch per category
    (:func:`scan_multiway`) instead of two sets of categories.

    ``whole_weights``: every weight is a whole number, their sum below
    :data:`WHOLE_WEIGHT_LIMIT` (see :func:`scan_sorted_rows`).

    ``sorted_scan``: :func:`~treelearn.splitting._scan_buffer_kernels.sorted_scan_buffers`
    (its first thread's rows are used; see :func:`evaluate_numeric_feature`).

    Writes the slots ``OUT_*`` of ``out`` (gain -inf when no split satisfies
    the leaf constraints) and, for a subset split, ``out_mask`` as
    :func:`scan_subset` marks it (``scratch_mask``: as large, its scratch).

    Where no feature is numeric, ``sorted_scan`` may be None, and where none is
    nominal, ``out_mask`` and ``scratch_mask``: numba then leaves the search of
    that kind of feature out of the compilation (:mod:`treelearn._optional_kernels`).
    """
    n_node = end - start
    small = n_node <= SMALL_NODE_MAX_ROWS and not skip_missing
    parent_cost = weighted_impurity(node_stats, criterion)
    best = np.empty(4)
    work = np.empty((5, node_stats.shape[0]))
    if sorted_scan is not None:
        local = np.empty((2 + N_CUT_ROWS, n_node if small else 0))  # targets; cut_rows
        if small:
            # (np.bool_ with_weights, as the other calls pass a variable: one compilation.)
            gather_targets(rows, start, end, y_class, y_value, weight, is_classification,
                           local, np.bool_(True))  # fmt: skip
        # A small node's feature in code order: its codes, its rows' places in the node.
        small_sort = (
            np.empty(n_node if small else 0, dtype=feature_codes.dtype),
            np.empty(n_node if small else 0, dtype=np.int32),
        )
        scan = _thread_scan(
            sorted_scan, np.int64(0), feature_codes, n_node, sorted_rows.shape[0] > 0
        )
    out[OUT_GAIN] = -np.inf
    out[OUT_FEATURE] = -1.0
    n_visited = 0
    for j in range(feature_order.shape[0]):
        if n_visited >= max_features:
            break
        f = feature_order[j]
        if not is_nominal[f]:
            if sorted_scan is None:
                raise AssertionError("find_best_split: a numeric feature, no sorted_scan")
            # (Numeric features: one call without reference counting, which keeps
            # the best split in ``out`` itself.)
            n_present = evaluate_numeric_feature(
                f, feature_codes, rows, start, end, y_class, y_value, weight, is_classification,
                criterion, n_codes, is_nominal, node_hist, node_hist_offsets, node_stats,
                parent_cost, min_count, min_weight, hist_ratio, scratch_hist, scratch_codes,
                sorted_rows, sorted_slot, skip_missing, small, local, small_sort, work, best,
                out, whole_weights, scan,
            )  # fmt: skip
            if n_present >= 2:
                n_visited += 1
            continue
        if out_mask is None:
            raise AssertionError("find_best_split: a nominal feature, no out_mask")
        n_present = evaluate_nominal_feature(
            f, feature_codes, rows, start, end, y_class, y_value, weight, is_classification,
            criterion, n_classes, n_codes, node_hist, node_hist_offsets, node_stats, parent_cost,
            min_count, min_weight, scratch_hist, scratch_mask, skip_missing, multiway, best,
        )  # fmt: skip
        if n_present < 2:
            continue
        n_visited += 1
        keep_if_better(out, out_mask, f, best, NOMINAL, scratch_mask, n_codes[f] + 1)


@njit(cache=True, _nrt=False)
def evaluate_numeric_feature(
    f, feature_codes, rows, start, end, y_class, y_value, weight, is_classification, criterion,
    n_codes, is_nominal, node_hist, node_hist_offsets, node_stats, parent_cost, min_count,
    min_weight, hist_ratio, scratch_hist, scratch_codes, sorted_rows, sorted_slot, skip_missing,
    small, local, small_sort, work, best, out, whole_weights, sorted_scan,
):  # fmt: skip
    """Best threshold of numeric feature ``f`` at the node, kept in ``out`` when it
    wins under the tie rule (:func:`keep_if_better`); returns the number of
    distinct present values.

    A feature with presorted rows (and no kept histogram) is scanned straight
    from them. With ``sorted_scan = (keys, identity, targets, unit_weights,
    sorted_codes)`` (scratch of at least the node's rows: keys of the code matrix's
    type, ``arange``, and two rows of floats;
    :func:`~treelearn.splitting._scan_buffer_kernels.sorted_scan_buffers`) the rows'
    codes (read in sequence from ``sorted_codes`` when it has rows), weights (unless
    ``unit_weights``: ones already) and targets are first gathered in code order, then
    scanned in sequence: gathering is independent reads, which the processor
    overlaps, where a scan reading each row's targets at its place waits on
    every one (at 800k rows, 21-35 ns per row against about 10). The buffers
    have rows for the node whenever a feature has presorted rows
    (:func:`_thread_scan`).

    A small node (``small``: its targets gathered in the first two rows of
    ``local`` by :func:`gather_targets`, :data:`N_CUT_ROWS` rows of scratch
    below them; ``small_sort``, two arrays of at least the node's rows, of the
    code matrix's type and int32) without a kept histogram is scanned straight from
    its rows in code order (:func:`scan_sorted_rows`); otherwise the statistics
    come from :func:`fill_feature_histogram` and :func:`scan_threshold` scans them.
    ``work``: 5 scratch rows of channels; ``best``: 4 slots; ``whole_weights`` as
    :func:`scan_sorted_rows` takes it.
    """
    n_node = end - start
    n_bins = n_codes[f] + 1
    work_rows = (work[0], work[1], work[2], work[3], work[4])
    compact = node_hist_offsets[f] < 0 and n_bins > hist_ratio * n_node
    if small and node_hist_offsets[f] < 0:
        keys = small_sort[0][:n_node]
        order = small_sort[1][:n_node]
        by_row_id = sorted_slot[f] >= 0 and compact
        _sort_small_node(f, feature_codes, rows, start, end, by_row_id, keys, order)
        n_present = scan_sorted_rows(
            keys, order, n_node, n_codes[f], local[0], local[1], local[1], is_classification,
            node_stats, parent_cost, criterion, min_count, min_weight, work_rows, best,
            whole_weights, local[2:], sorted_scan[3],
        )  # fmt: skip
    elif node_hist_offsets[f] < 0 and not skip_missing and sorted_slot[f] >= 0:
        # The node's rows in code order are at hand: scanned straight from them
        # (cheaper than any histogram of a feature with this many codes).
        slot = sorted_slot[f]
        ordered = sorted_rows[slot, start:end]
        gathered_keys, identity, gathered, unit_weights, sorted_codes = sorted_scan
        keys = gathered_keys[:n_node]
        if sorted_codes.shape[0]:
            # Kept beside the rows (partitioned with them): read in sequence.
            _copy_codes(sorted_codes[slot, start:end], keys)
        else:
            _gather_codes(feature_codes, f, ordered, keys)
        # (Rows of unit weight: their weights' row holds ones already.)
        gather_targets(ordered, np.int64(0), n_node, y_class, y_value, weight,
                       is_classification, gathered, not unit_weights)  # fmt: skip
        # (``local[2:]`` has no columns here, the node not being small: no
        # three-pass scan. Passed, as the small nodes' call passes it, and the
        # keys and positions of local mode's types, so that every call shares
        # one compilation of scan_sorted_rows.)
        n_present = scan_sorted_rows(
            keys, identity, n_node, n_codes[f], gathered[0], gathered[1], gathered[1],
            is_classification, node_stats, parent_cost, criterion, min_count, min_weight,
            work_rows, best, whole_weights, local[2:], unit_weights,
        )  # fmt: skip
    else:
        path, n_known = fill_feature_histogram(
            f, feature_codes, rows, start, end, y_class, y_value, weight, is_classification,
            n_codes, is_nominal, node_hist_offsets, hist_ratio, scratch_hist, scratch_codes,
            sorted_rows, sorted_slot,
        )  # fmt: skip
        first, stop = _histogram_rows(path, n_known, f, n_codes, node_hist_offsets)
        hist = node_hist[first:stop] if path == HIST_KEPT else scratch_hist[first:stop]
        n_present = scan_threshold(
            hist, scratch_codes[n_node : 2 * n_node + 1], path != HIST_COMPACT, n_known,
            node_stats, parent_cost, criterion, is_classification, min_count, min_weight, best,
            work[0], work[1], work[2], skip_missing, whole_weights,
        )  # fmt: skip
    if n_present >= 2:
        keep_split_if_better(out, f, best, NUMERIC)
    return n_present


@njit(cache=True, _nrt=False)
def _gather_codes(feature_codes, f, ordered, keys):
    """``keys[i] = codes[ordered[i], f]``."""
    for i in range(ordered.shape[0]):
        keys[i] = feature_codes[f, ordered[i]]


@njit(cache=True, _nrt=False)
def _copy_codes(source, keys):
    """``keys[i] = source[i]`` (the presorted runs' codes, of the row index type,
    into keys of the code matrix's)."""
    for i in range(source.shape[0]):
        keys[i] = source[i]


@njit(cache=True)
def _search_one_of_many(
    f, feature_codes, rows, start, end, y_class, y_value, weight, is_classification, criterion,
    n_classes, n_codes, is_nominal, node_hist, node_hist_offsets, node_stats, parent_cost,
    min_count, min_weight, hist_ratio, sorted_rows, sorted_slot, skip_missing, multiway,
    whole_weights, sorted_scan, best, mask,
):  # fmt: skip
    """One feature of :func:`find_best_split_parallel`, on one thread, with its own
    scratch: its best split in ``best`` (and ``mask``: None where no feature is
    nominal, ``sorted_scan`` where none is numeric); returns the number of distinct
    present values."""
    n_node = end - start
    n_channels = node_stats.shape[0]
    # Scratch sized for the path the feature takes: a kept histogram or rows
    # read in code order from their presorted run need none, a fresh
    # histogram a row per code, a compact one a row per node row.
    n_bins = n_codes[f] + 1
    compact = not is_nominal[f] and n_bins > hist_ratio * n_node
    kept = node_hist_offsets[f] >= 0
    presorted = not is_nominal[f] and not kept and not skip_missing and sorted_slot[f] >= 0
    n_rows = 1 if kept or presorted else (n_node + 1 if compact else n_bins)
    scratch_hist = np.empty((n_rows, n_channels))
    if not is_nominal[f]:
        if sorted_scan is None:
            raise AssertionError("find_best_split_parallel: a numeric feature, no sorted_scan")
        # The serial search's path (rows in code order scanned straight from
        # their presorted run when they have one).
        scan = _thread_scan(sorted_scan, get_thread_id(), feature_codes, n_node, presorted)
        scratch_codes = np.empty(
            0 if presorted else scratch_codes_size(n_node, n_bins, hist_ratio), dtype=np.int64
        )
        work = np.empty((5, n_channels))
        own_out = np.empty(N_OUT)
        own_out[OUT_GAIN] = -np.inf
        own_out[OUT_FEATURE] = -1.0
        # (``small`` as a bool, not the literal False: see NO_CODE.)
        return evaluate_numeric_feature(
            f, feature_codes, rows, start, end, y_class, y_value, weight, is_classification,
            criterion, n_codes, is_nominal, node_hist, node_hist_offsets, node_stats,
            parent_cost, min_count, min_weight, hist_ratio, scratch_hist, scratch_codes,
            sorted_rows, sorted_slot, skip_missing, np.bool_(False), np.empty((2, 0)),
            (np.empty(0, dtype=feature_codes.dtype), np.empty(0, dtype=np.int32)), work, best,
            own_out, whole_weights, scan,
        )  # fmt: skip
    if mask is None:
        raise AssertionError("find_best_split_parallel: a nominal feature, no out_mask")
    return evaluate_nominal_feature(
        f, feature_codes, rows, start, end, y_class, y_value, weight, is_classification, criterion,
        n_classes, n_codes, node_hist, node_hist_offsets, node_stats, parent_cost, min_count,
        min_weight, scratch_hist, mask, skip_missing, multiway, best,
    )  # fmt: skip


@njit(cache=True, parallel=PRANGE_ONLY)
def find_best_split_parallel(
    feature_codes,
    rows,
    start,
    end,
    y_class,
    y_value,
    weight,
    is_classification,
    criterion,
    n_classes,
    feature_order,
    n_codes,
    is_nominal,
    node_hist,
    node_hist_offsets,
    node_stats,
    min_count,
    min_weight,
    hist_ratio,
    out,
    out_mask,
    sorted_rows,
    sorted_slot,
    skip_missing=False,
    multiway=False,
    whole_weights=False,
    sorted_scan=None,
):
    """:func:`find_best_split` over every feature of ``feature_order``, the
    features searched in parallel (numba threads), each with its own scratch.

    ``sorted_scan`` (:func:`~treelearn.splitting._scan_buffer_kernels.sorted_scan_buffers`
    with a row per numba thread): the scratch of the features whose rows are read in
    code order from their presorted run, reused by every node. (Allocating it per
    feature and node cost more than the search: the first touch of every fresh page
    is a page fault.) ``sorted_scan`` None where no feature is numeric, ``out_mask``
    None where none is nominal, as :func:`find_best_split` takes them.

    The features' results are then compared in ``feature_order`` with the same
    tie rule, so the answer is the sequential one whatever the thread count.
    For ``max_features`` equal to the number of features.
    """
    parent_cost = weighted_impurity(node_stats, criterion)
    n_order = feature_order.shape[0]
    mask_width = 1
    for j in range(n_order):
        if is_nominal[feature_order[j]]:
            mask_width = max(mask_width, n_codes[feature_order[j]] + 1)
    results = np.empty((n_order, 4))
    present = np.zeros(n_order, dtype=np.int64)
    # (None where no feature is nominal: see find_best_split.)
    masks = if_present(out_mask, np.zeros((n_order, mask_width), dtype=np.uint8))
    for j in prange(n_order):
        present[j] = _search_one_of_many(
            feature_order[j], feature_codes, rows, start, end, y_class, y_value, weight,
            is_classification, criterion, n_classes, n_codes, is_nominal, node_hist,
            node_hist_offsets, node_stats, parent_cost, min_count, min_weight, hist_ratio,
            sorted_rows, sorted_slot, skip_missing, multiway, whole_weights, sorted_scan,
            results[j], row_of(masks, j),
        )  # fmt: skip
    out[OUT_GAIN] = -np.inf
    out[OUT_FEATURE] = -1.0
    for j in range(n_order):
        if present[j] >= 2:
            f = feature_order[j]
            if out_mask is None:
                keep_split_if_better(out, f, results[j], NUMERIC)
            else:
                keep_if_better(
                    out, out_mask, f, results[j], is_nominal[f], masks[j], n_codes[f] + 1
                )
