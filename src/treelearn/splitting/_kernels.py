"""Split-search and partition kernels for criteria that are sums over rows.

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
short tests and lookups (:func:`cuts_fit`, :func:`_histogram_rows`). LLVM inlines
the rest where it pays. numba types an inlined helper again at every call, and
nested helpers again within each: the cut step (:func:`_try_cut`, :func:`_keep_cut`,
:func:`_split_gain`, :func:`_side_ok`,
:func:`~treelearn.criteria._kernels.weighted_impurity`) inlined made the CLI's first
run compile for 170 s instead of 124 (2026-12-06), and fits no faster; inlining the
larger helpers too had cost a quarter of the first fit's compile time before.
"""

import numpy as np
from numba import get_thread_id, njit, prange, types
from numba.extending import overload

from treelearn._dtypes import row_index_dtype
from treelearn._optional_kernels import if_present, row_of
from treelearn.criteria._kernels import GINI, SQUARED_ERROR, stats_weight, weighted_impurity
from treelearn.stats._kernels import (
    add_gathered_row,
    add_row,
    build_histogram,
    gather_targets,
    value_row_added,
    weight_at,
)

#: Slots of the ``out`` array of :func:`find_best_split`.
OUT_GAIN = 0
OUT_FEATURE = 1
OUT_LEFT_CODE = 2
OUT_RIGHT_CODE = 3
OUT_MISSING_LEFT = 4
OUT_IS_SUBSET = 5
N_OUT = 6

#: Above this many levels (categories present at the node, missing counted as
#: one), multi-class subset splits use the per-class ordering heuristic.
MAX_EXHAUSTIVE_LEVELS = 12

#: Nodes with at most this many rows order them by code with an insertion sort.
INSERTION_SORT_MAX_ROWS = 32
#: Larger nodes use a counting sort when the feature has at most this many codes
#: per node row (it costs one pass over the codes and two over the rows).
COUNTING_SORT_BINS_PER_ROW = 8
#: Nodes with at most this many rows scan their numeric features straight from
#: the rows in code order (:func:`scan_sorted_rows`): no histogram, no view.
SMALL_NODE_MAX_ROWS = 32
#: Row weights that are whole numbers summing to less than this keep every sum
#: of class weights, and of their squares, a whole number below ``2**53``:
#: exact in float64 whatever the order of the additions.
WHOLE_WEIGHT_LIMIT = 2.0**26

#: No code (a scan's previous code before the first, the right code of "missing
#: rows apart"), and ``is_nominal_f`` of :func:`keep_split_if_better` and
#: :func:`keep_if_better` where the caller knows it: typed values, not the literals
#: -1, False and True, for which numba would compile the kernels they are passed to
#: once more each (a variable that starts as a literal compiles its callee for the
#: literal too).
NO_CODE = np.int64(-1)
NUMERIC = np.bool_(False)
NOMINAL = np.bool_(True)


@njit(cache=True)
def _side_ok(stats, is_classification, min_count, min_weight):
    return stats[0] >= min_count and stats_weight(stats, is_classification) >= min_weight


@njit(cache=True)
def _split_gain(parent_cost, left, right, criterion):
    return parent_cost - weighted_impurity(left, criterion) - weighted_impurity(right, criterion)


@njit(cache=True)
def _keep_if_higher(best, gain, left_code, right_code, missing_left):
    """``best = [gain, left_code, right_code, missing_left]`` if ``gain`` beats ``best[0]``."""
    if gain > best[0]:
        best[0] = gain
        best[1] = left_code
        best[2] = right_code
        best[3] = missing_left


@njit(cache=True)
def _keep_cut(left, right, parent_cost, criterion, is_classification, min_count, min_weight,
              best, left_code, right_code, missing_left):  # fmt: skip
    """Keep the cut with sides ``left``/``right`` in ``best`` (``[gain, left_code,
    right_code, missing_left]``) when both sides satisfy the leaf constraints and
    its gain is higher: the one step every threshold candidate goes through."""
    if _side_ok(left, is_classification, min_count, min_weight) and _side_ok(
        right, is_classification, min_count, min_weight
    ):
        _keep_if_higher(best, _split_gain(parent_cost, left, right, criterion), left_code,
                        right_code, missing_left)  # fmt: skip


@njit(cache=True)
def _try_cut(prev, code, left, right, with_missing, missing, known, total, has_missing,
             parent_cost, criterion, is_classification, min_count, min_weight, best):  # fmt: skip
    """Try the cut between the present codes ``prev`` and ``code`` (``left``: the
    known rows up to ``prev``), missing rows right and then left; keeps the
    better in ``best`` (the threshold scans' step)."""
    n_channels = total.shape[0]
    for c in range(n_channels):
        right[c] = known[c] - left[c]
    _keep_cut(left, right, parent_cost, criterion, is_classification, min_count, min_weight,
              best, prev, code, 0.0)  # fmt: skip
    if has_missing:
        for c in range(n_channels):
            with_missing[c] = left[c] + missing[c]
            right[c] = total[c] - with_missing[c]
        _keep_cut(with_missing, right, parent_cost, criterion, is_classification, min_count,
                  min_weight, best, prev, code, 1.0)  # fmt: skip


@njit(cache=True)
def _try_missing_apart(prev, left, missing, has_missing, parent_cost, criterion,
                       is_classification, min_count, min_weight, best):  # fmt: skip
    """Try "every known value left (up to ``prev``), missing rows right"."""
    if has_missing and prev >= 0:
        _keep_cut(left, missing, parent_cost, criterion, is_classification, min_count,
                  min_weight, best, prev, NO_CODE, 0.0)  # fmt: skip


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


@njit(cache=True)
def _scan_ordered_levels(
    hist,
    ordered,
    n_levels,
    total,
    parent_cost,
    criterion,
    is_classification,
    min_count,
    min_weight,
    left,
    right,
):
    """Best prefix ``ordered[:j]`` (left) of levels; returns (gain, j)."""
    n_channels = total.shape[0]
    left[:] = 0.0
    best_gain = -np.inf
    best_j = 0
    for j in range(1, n_levels):
        level = ordered[j - 1]
        for c in range(n_channels):
            left[c] += hist[level, c]
            right[c] = total[c] - left[c]
        if _side_ok(left, is_classification, min_count, min_weight) and _side_ok(
            right, is_classification, min_count, min_weight
        ):
            gain = _split_gain(parent_cost, left, right, criterion)
            if gain > best_gain:
                best_gain = gain
                best_j = j
    return best_gain, best_j


@njit(cache=True)
def _level_keys(hist, levels, n_levels, is_classification, target_channel, keys):
    """Per level: the weight fraction of ``target_channel`` (classification) or the mean y."""
    for j in range(n_levels):
        row = hist[levels[j]]
        if is_classification:
            w = stats_weight(row, is_classification)
            keys[j] = row[target_channel] / w if w > 0.0 else 0.0
        else:
            keys[j] = row[2] / row[1] if row[1] > 0.0 else 0.0


@njit(cache=True)
def scan_subset(
    hist,
    n_rows,
    total,
    parent_cost,
    criterion,
    is_classification,
    n_classes,
    min_count,
    min_weight,
    best,
    mask,
    skip_missing=False,
):
    """Best binary split of a nominal feature into two sets of categories.

    The levels are the rows of ``hist[:n_rows]`` (categories, missing last)
    present at the node. Two classes and regression: levels sorted by the
    class-1 fraction / mean target (stable), best prefix; exact for these
    criteria (Breiman et al. 1984, thm. 4.5; Fisher 1958) when no leaf-size
    constraint binds. All other cases with ``L <= MAX_EXHAUSTIVE_LEVELS``
    (more classes, or ``min_count > 1`` / ``min_weight > 0``, which the
    ordering theorem does not cover): all ``2**(L-1) - 1`` subsets in Gray-code
    order, exact. Beyond that: two classes and regression take the best
    prefix as above, more classes the best prefix of the levels sorted by each
    class's fraction in turn (heuristics).

    ``skip_missing`` (``missing="surrogate"``): the missing level takes no
    part, as in :func:`scan_threshold`; its mask entry stays 0.

    Writes ``best = [gain, -1, -1, missing_left]`` and ``mask[level]``: 1 for
    a level sent left, 2 for one sent right, 0 for a level absent at the node.
    Returns the number of present levels.
    """
    n_channels = total.shape[0]
    left = np.zeros(n_channels)
    right = np.empty(n_channels)
    levels = np.empty(n_rows, dtype=np.int64)
    n_levels = np.int64(0)  # (a literal 0 would compile _level_keys for it too)
    n_scanned = n_rows
    if skip_missing:
        n_scanned = n_rows - 1
        if hist[n_rows - 1, 0] > 0.0:
            total = total - hist[n_rows - 1]
            parent_cost = weighted_impurity(total, criterion)
    for i in range(n_scanned):
        if hist[i, 0] > 0.0:
            levels[n_levels] = i
            n_levels += 1
    best[0] = -np.inf
    best[1] = -1.0
    best[2] = -1.0
    best[3] = 0.0
    mask[:n_rows] = 0
    if n_levels < 2:
        return n_levels
    keys = np.empty(n_levels)
    # The ordering theorem ignores leaf-size constraints: with them, small
    # problems are searched exhaustively so the answer stays exact.
    ordered_is_exact = not is_classification or n_classes == 2
    constrained = min_count > 1 or min_weight > 0.0
    if ordered_is_exact and (not constrained or n_levels > MAX_EXHAUSTIVE_LEVELS):
        _level_keys(hist, levels, n_levels, is_classification, np.int64(2), keys)
        order = levels[:n_levels][np.argsort(keys, kind="mergesort")]
        gain, j = _scan_ordered_levels(
            hist,
            order,
            n_levels,
            total,
            parent_cost,
            criterion,
            is_classification,
            min_count,
            min_weight,
            left,
            right,
        )
        if gain > -np.inf:
            best[0] = gain
            for t in range(j):
                mask[order[t]] = 1
    elif n_levels <= MAX_EXHAUSTIVE_LEVELS:
        in_left = np.zeros(n_levels, dtype=np.bool_)
        best_set = 0
        current = 0
        for step in range(1, 1 << (n_levels - 1)):
            bit = 0
            while not (step >> bit) & 1:
                bit += 1
            level = levels[bit]
            sign = -1.0 if in_left[bit] else 1.0
            in_left[bit] = not in_left[bit]
            current ^= 1 << bit
            for c in range(n_channels):
                left[c] += sign * hist[level, c]
                right[c] = total[c] - left[c]
            if _side_ok(left, is_classification, min_count, min_weight) and _side_ok(
                right, is_classification, min_count, min_weight
            ):
                gain = _split_gain(parent_cost, left, right, criterion)
                if gain > best[0]:
                    best[0] = gain
                    best_set = current
        if best[0] > -np.inf:
            for t in range(n_levels):
                if (best_set >> t) & 1:
                    mask[levels[t]] = 1
    else:
        best_order = levels[:n_levels].copy()
        best_j = 0
        for k in range(n_classes):
            _level_keys(hist, levels, n_levels, is_classification, 1 + k, keys)
            order = levels[:n_levels][np.argsort(keys, kind="mergesort")]
            gain, j = _scan_ordered_levels(
                hist,
                order,
                n_levels,
                total,
                parent_cost,
                criterion,
                is_classification,
                min_count,
                min_weight,
                left,
                right,
            )
            if gain > best[0]:
                best[0] = gain
                best_order[:] = order
                best_j = j
        for t in range(best_j):
            mask[best_order[t]] = 1
    for t in range(n_levels):
        if mask[levels[t]] == 0:
            mask[levels[t]] = 2
    best[3] = 1.0 if mask[n_rows - 1] == 1 else 0.0
    return n_levels


@njit(cache=True)
def scan_multiway(hist, n_rows, total, parent_cost, criterion, min_count, min_weight, best):
    """Gain of splitting a nominal feature into one branch per category (ID3, C4.5).

    ``hist[:n_rows - 1]`` are the categories and ``hist[n_rows - 1]`` the
    missing rows, which take no part (ID3 refuses them; C4.5 weighs them in
    elsewhere): gain = cost(known rows) - sum of the categories' costs. The
    split is admissible when at least two branches hold ``min_count`` rows and
    ``min_weight`` weight (C4.5's rule for its ``m``; with ``min_count=1`` it
    only asks for two non-empty branches).

    Writes ``best = [gain, -1, -1, 0]``; returns the number of present levels.
    """
    known = total - hist[n_rows - 1] if hist[n_rows - 1, 0] > 0.0 else total
    known_cost = weighted_impurity(known, criterion) if hist[n_rows - 1, 0] > 0.0 else parent_cost
    is_classification = criterion != SQUARED_ERROR
    children_cost = 0.0
    n_present = 0
    n_large = 0
    for i in range(n_rows - 1):
        if hist[i, 0] > 0.0:
            n_present += 1
            children_cost += weighted_impurity(hist[i], criterion)
            if _side_ok(hist[i], is_classification, min_count, min_weight):
                n_large += 1
    best[0] = known_cost - children_cost if n_large >= 2 else -np.inf
    best[1] = -1.0
    best[2] = -1.0
    best[3] = 0.0
    return n_present


@njit(cache=True, _nrt=False)
def compact_histogram(
    codes_f,
    ordered_rows,
    missing_code,
    y_class,
    y_value,
    weight,
    is_classification,
    hist,
    bin_codes,
):
    """Histogram of only the codes present among ``ordered_rows`` (rows sorted by code).

    Fills ``hist[:m]`` (distinct known codes in increasing order, their codes in
    ``bin_codes[:m]``) and ``hist[m]`` (missing rows, which come last because
    the missing code is the largest); returns ``m``.
    """
    m = 0
    current = -1
    n = ordered_rows.shape[0]
    first_missing = n
    for i in range(n):
        r = ordered_rows[i]
        code = codes_f[r]
        if code == missing_code:
            first_missing = i
            break
        if code != current:
            if current >= 0:
                m += 1
            hist[m, :] = 0.0
            current = code
            bin_codes[m] = code
        add_row(hist[m], r, y_class, y_value, weight, is_classification)
    if current >= 0:
        m += 1
    hist[m, :] = 0.0
    for i in range(first_missing, n):
        add_row(hist[m], ordered_rows[i], y_class, y_value, weight, is_classification)
    return m


@njit(cache=True, _nrt=False)
def sort_rows_by_code(codes_f, rows, start, end, n_bins, out, counts):
    """The node's rows ``rows[start:end]`` ordered by code (stable) into ``out``.

    Without allocating: an insertion sort for at most
    :data:`INSERTION_SORT_MAX_ROWS` rows, else a counting sort over the
    ``n_bins`` codes (``counts`` needs ``n_bins + 1`` entries). Returns False
    (``out`` untouched) when neither pays: more codes than
    :data:`COUNTING_SORT_BINS_PER_ROW` per row.
    """
    m = end - start
    if m <= INSERTION_SORT_MAX_ROWS:
        for i in range(m):
            r = rows[start + i]
            code = codes_f[r]
            j = i
            while j > 0 and codes_f[out[j - 1]] > code:
                out[j] = out[j - 1]
                j -= 1
            out[j] = r
        return True
    if n_bins > COUNTING_SORT_BINS_PER_ROW * m:
        return False
    counts[: n_bins + 1] = 0
    for i in range(start, end):
        counts[codes_f[rows[i]] + 1] += 1
    for k in range(n_bins):
        counts[k + 1] += counts[k]
    for i in range(start, end):
        r = rows[i]
        code = codes_f[r]
        out[counts[code]] = r
        counts[code] += 1
    return True


#: Where :func:`fill_feature_histogram` left a feature's statistics: the node's
#: kept histogram, a full histogram built in ``scratch_hist``, or a compact one there.
HIST_KEPT, HIST_BUILT, HIST_COMPACT = 0, 1, 2


@njit(cache=True, _nrt=False)
def merge_sort_rows_by_code(codes_f, rows, start, end, out, work):
    """The node's rows ordered by code (stable) into ``out``, by a bottom-up merge
    sort: the fallback of :func:`sort_rows_by_code` when neither of its sorts pays
    (few rows, many codes). ``work`` needs three entries per node row."""
    m = end - start
    keys = work[:m]
    spare_keys = work[m : 2 * m]
    spare_rows = work[2 * m : 3 * m]
    for i in range(m):
        out[i] = rows[start + i]
        keys[i] = codes_f[out[i]]
    src_keys, src_rows, dst_keys, dst_rows = keys, out, spare_keys, spare_rows
    in_out = True  # whether the sorted runs are in ``out`` (else in ``spare_rows``)
    width = 1
    while width < m:
        for lo in range(0, m, 2 * width):
            mid = min(lo + width, m)
            hi = min(lo + 2 * width, m)
            i, j = lo, mid
            for k in range(lo, hi):
                if j >= hi or (i < mid and src_keys[i] <= src_keys[j]):
                    dst_keys[k] = src_keys[i]
                    dst_rows[k] = src_rows[i]
                    i += 1
                else:
                    dst_keys[k] = src_keys[j]
                    dst_rows[k] = src_rows[j]
                    j += 1
        src_keys, src_rows, dst_keys, dst_rows = dst_keys, dst_rows, src_keys, src_rows
        in_out = not in_out
        width *= 2
    if not in_out:
        for i in range(m):
            out[i] = spare_rows[i]


@njit(cache=True, _nrt=False)
def fill_feature_histogram(
    f,
    codes,
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
    codes_f = codes[:, f]
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
    if not sort_rows_by_code(codes_f, rows, start, end, n_bins, ordered, spare):
        merge_sort_rows_by_code(codes_f, rows, start, end, ordered, spare)
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
def scratch_codes_size(n_rows, max_bins):
    """Length of the ``scratch_codes`` that :func:`fill_feature_histogram` needs for
    nodes of up to ``n_rows`` rows and features of up to ``max_bins`` codes
    (missing included)."""
    return 2 * n_rows + max_bins + 2


@njit(cache=True)
def evaluate_nominal_feature(
    f,
    codes,
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
            codes[:, f], rows, start, end, y_class, y_value, weight, is_classification, hist
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


@njit(cache=True)
def _sort_small_node(f, codes, rows, start, end, by_row_id, keys, order):
    """Node rows ``0..m-1`` ordered by feature ``f``'s code into ``order`` (their
    codes, sorted, into ``keys``): an insertion sort, ties kept in node order, or
    in row-id order when ``by_row_id`` (the order of the presorted rows)."""
    for i in range(end - start):
        r = rows[start + i]
        code = codes[r, f]
        j = i
        while j > 0 and (
            keys[j - 1] > code
            or (by_row_id and keys[j - 1] == code and rows[start + order[j - 1]] > r)
        ):
            keys[j] = keys[j - 1]
            order[j] = order[j - 1]
            j -= 1
        keys[j] = code
        order[j] = i


@njit(cache=True, inline="always")
def _squared_cost(w, s, sq):
    """:func:`~treelearn.criteria._kernels.weighted_impurity` (squared error) of
    the statistics ``(n, w, s, sq)``, from its last three."""
    if w <= 0.0:
        return 0.0
    cost = sq - s * s / w
    return cost if cost > 0.0 else 0.0


@njit(cache=True, inline="always")
def _keep_value_cut(left, right, parent_cost, min_count, min_weight, best, left_code,
                    right_code, missing_left):  # fmt: skip
    """:func:`_keep_cut` of squared error with the sides as 4-tuples of scalars
    ``(n, w, s, sq)``: the same tests and arithmetic."""
    if (
        left[0] >= min_count
        and left[1] >= min_weight
        and right[0] >= min_count
        and right[1] >= min_weight
    ):
        gain = (
            parent_cost
            - _squared_cost(left[1], left[2], left[3])
            - _squared_cost(right[1], right[2], right[3])
        )
        _keep_if_higher(best, gain, left_code, right_code, missing_left)


@njit(cache=True, inline="always")
def _summed(a, b):
    """The channel-wise sum of two 4-tuples of statistics."""
    return (a[0] + b[0], a[1] + b[1], a[2] + b[2], a[3] + b[3])


@njit(cache=True, inline="always")
def _try_value_cut(prev, code, left, known, total, missing, has_missing, parent_cost, min_count,
                   min_weight, best):  # fmt: skip
    """:func:`_try_cut` of squared error on 4-tuples: missing rows right, then left."""
    right = (known[0] - left[0], known[1] - left[1], known[2] - left[2], known[3] - left[3])
    _keep_value_cut(left, right, parent_cost, min_count, min_weight, best, prev, code, 0.0)
    if has_missing:
        with_missing = _summed(left, missing)
        right = (total[0] - with_missing[0], total[1] - with_missing[1],
                 total[2] - with_missing[2], total[3] - with_missing[3])  # fmt: skip
        _keep_value_cut(with_missing, right, parent_cost, min_count, min_weight, best, prev,
                        code, 1.0)  # fmt: skip


@njit(cache=True, _nrt=False)
def _scan_sorted_values(keys, order, m, missing_code, row_weight, row_value, total, parent_cost,
                        min_count, min_weight, best):  # fmt: skip
    """:func:`scan_sorted_rows` for squared error, its statistics kept in
    registers (scalars, not scratch rows): the same sums in the same order, so
    the same gains to the bit, in about a third of the time."""
    zero = (0.0, 0.0, 0.0, 0.0)
    n_known = m
    while n_known > 0 and keys[n_known - 1] == missing_code:
        n_known -= 1
    missing = zero
    for i in range(n_known, m):
        # (Unsigned rows: see _partition_orders of local mode.)
        missing = value_row_added(missing, np.uint64(order[i]), row_weight, row_value)
    has_missing = n_known < m
    known = (total[0], total[1], total[2], total[3])
    best[0] = -np.inf
    best[1] = -1.0
    best[2] = -1.0
    best[3] = 0.0
    n_present = 1 if has_missing else 0
    left = zero
    prev = NO_CODE
    i = 0
    while i < n_known:
        code = np.int64(keys[i])  # (int64 as the histograms' codes: cut helpers compiled once)
        group = zero
        while i < n_known and keys[i] == code:
            group = value_row_added(group, np.uint64(order[i]), row_weight, row_value)
            i += 1
        n_present += 1
        if prev >= 0:
            _try_value_cut(prev, code, left, known, known, missing, has_missing, parent_cost,
                           min_count, min_weight, best)  # fmt: skip
        left = _summed(left, group)
        prev = code
    if has_missing and prev >= 0:
        _keep_value_cut(left, missing, parent_cost, min_count, min_weight, best, prev, NO_CODE, 0.0)
    return n_present


#: :func:`scan_sorted_rows` scans squared error in three passes at most this many
#: rows a code (runs of a code short enough that a branch on their ends would be
#: mispredicted).
VALUE_CUTS_MAX_ROWS_PER_CODE = 4

#: Rows of the three-pass scans' scratch (``cut_rows``): four sums at each cut
#: (:func:`scan_sorted_values_by_cuts`, :func:`scan_sorted_whole_gini_by_cuts`),
#: each cut's gain, each run's code.
N_CUT_ROWS = 6


@njit(cache=True, error_model="numpy", _nrt=False)
def scan_sorted_values_by_cuts(keys, order, m, row_weight, row_value, total, parent_cost,
                               min_count, min_weight, best, cut_rows):  # fmt: skip
    """:func:`values_by_cuts_inlined`, called (a kernel of its own, for the callers
    that do not inline it)."""
    return values_by_cuts_inlined(keys, order, m, row_weight, row_value, total, parent_cost,
                                  min_count, min_weight, best, cut_rows)  # fmt: skip


@njit(cache=True, inline="always")
def values_by_cuts_inlined(keys, order, m, row_weight, row_value, total, parent_cost,
                           min_count, min_weight, best, cut_rows):  # fmt: skip
    """:func:`_scan_sorted_values` of a node without missing rows in three passes
    over ``cut_rows`` (:data:`N_CUT_ROWS` rows of at least ``m``), inlined into its
    caller, which must be compiled with ``error_model="numpy"`` (the gains divide
    before the test of an empty side; :func:`scan_sorted_values_by_cuts` is it,
    called). The passes: the left side's
    sums at every cut (summed as the one-pass scan sums them), then every cut's
    gain in a loop without branches (which the compiler vectorises), then the
    first best. The same arithmetic on the same sums: the same gains to the bit.

    What it saves is the one-pass scan's mispredicted branches (a run's end, a
    cut's tests), so it pays where runs of a code are short and uneven: nodes of
    4 to 512 rows over 255 codes scan in 0.6-0.8 of the one-pass time (an Intel
    Xeon, numba 0.68); where every row has a code of its own, or runs are long,
    the one-pass scan's branches are predicted and it is the faster.

    ``row_weight`` None: every row weighs 1 (a compiled version of its own). A
    side's weight is then its row count, which is not summed: ``w * v`` is ``v``,
    the same sums again, one chain of additions and a weight load a row fewer
    (nodes of 16 to 256 rows: 0.82-0.86 of the time).
    """
    n_cuts = _value_cut_sums(keys, order, m, row_weight, row_value, cut_rows)
    _score_value_cuts(cut_rows, n_cuts, row_weight, total, parent_cost, min_count, min_weight,
                      best)  # fmt: skip
    return n_cuts + 1


@njit(cache=True, inline="always")
def _value_cut_sums(keys, order, m, row_weight, row_value, cut_rows):
    """The first pass of :func:`values_by_cuts_inlined`: the left side's sums at
    every cut into ``cut_rows`` (each cut's left rows, weight, sum and sum of
    squares; the run's code after it); returns the number of cuts."""
    left_w = 0.0
    left_s = 0.0
    left_sq = 0.0
    group_w = 0.0
    group_s = 0.0
    group_sq = 0.0
    n_cuts = np.int64(0)  # (a literal 0 would compile _keep_first_best_cut for it too)
    cut_rows[5, 0] = keys[0]
    # No branch on the end of a run of one code (mispredicted where runs are short
    # and uneven; 512 rows over 255 codes: 5.2 -> 3.7 ns a row): the cut is written
    # at every row and kept (the count moves on) at a run's last, and the run's
    # sums restart by a factor: ``group * 0.0 + x`` is ``x`` and ``group * 1.0 + x``
    # is ``group + x``, ``left + group * 0.0`` is ``left`` (sums of finite numbers
    # from +0.0 are never -0.0): the one-pass scan's sums to the bit.
    stays = 1.0
    for i in range(m - 1):
        j = np.uint64(order[i])  # (unsigned: see _partition_orders of local mode)
        v = row_value[j]
        # A cut after row i has i + 1 rows left (a sum of ones: exact).
        cut_rows[0, n_cuts] = i + 1.0
        if row_weight is None:
            group_s = group_s * stays + v
            group_sq = group_sq * stays + v * v
        else:
            w = weight_at(row_weight, j)
            group_w = group_w * stays + w
            group_s = group_s * stays + w * v
            group_sq = group_sq * stays + w * v * v
            cut_rows[1, n_cuts] = left_w + group_w
        cut_rows[2, n_cuts] = left_s + group_s
        cut_rows[3, n_cuts] = left_sq + group_sq
        ends = keys[i + 1] != keys[i]
        ended = 1.0 if ends else 0.0
        stays = 1.0 - ended
        if row_weight is not None:
            left_w += group_w * ended
        left_s += group_s * ended
        left_sq += group_sq * ended
        n_cuts += ends
        cut_rows[5, n_cuts] = keys[i + 1]
    return n_cuts


@njit(cache=True, inline="always")
def _score_value_cuts(cut_rows, n_cuts, row_weight, total, parent_cost, min_count, min_weight,
                      best):  # fmt: skip
    """The second and third passes of :func:`values_by_cuts_inlined`: every cut's gain
    from its sums in ``cut_rows`` (a loop without branches), then the first best
    into ``best``."""
    total_n = total[0]
    total_w = total[1]
    total_s = total[2]
    total_sq = total[3]
    for c in range(n_cuts):
        # _squared_cost's arithmetic as selections: its early return for an empty
        # side is a branch here (nodes of 4 rows: 5.9 -> 7.3 ns a row), and it
        # cannot divide first, as this loop does, under Python's error model.
        n_left = cut_rows[0, c]
        w_left = n_left if row_weight is None else cut_rows[1, c]
        s_left = cut_rows[2, c]
        w_right = total_w - w_left
        s_right = total_s - s_left
        cost_left = cut_rows[3, c] - s_left * s_left / w_left
        cost_left = cost_left if cost_left > 0.0 else 0.0
        cost_left = cost_left if w_left > 0.0 else 0.0
        cost_right = (total_sq - cut_rows[3, c]) - s_right * s_right / w_right
        cost_right = cost_right if cost_right > 0.0 else 0.0
        cost_right = cost_right if w_right > 0.0 else 0.0
        cut_rows[4, c] = _allowed_gain(parent_cost, cost_left, cost_right, n_left, w_left,
                                       total_n - n_left, w_right, min_count,
                                       min_weight)  # fmt: skip
    _keep_first_best_cut(cut_rows, n_cuts, best)


@njit(cache=True, inline="always")
def value_cut_pairs_inlined(keys_a, order_a, keys_b, order_b, m, row_value, total, parent_cost,
                            min_count, min_weight, best_a, best_b, cut_a, cut_b):  # fmt: skip
    """:func:`values_by_cuts_inlined` of two features of one node of ``m`` rows, every
    row of weight 1, at once: feature a's run (``keys_a``, ``order_a``) into
    ``cut_a`` and ``best_a``, feature b's into ``cut_b`` and ``best_b``; returns the
    number of values present of each. Inlined, as that scan is.

    Their first passes share one loop: two independent chains of multiply-adds (a
    run's sums restart by a factor) where each feature's stood alone, and one loop's
    overhead for two features (20 features of nodes of 4 to 16 rows, sizes varying
    from node to node: 27.9 ns a feature against 31.2; full-depth regression at
    100,000 x 20 4% faster). Each feature's arithmetic is the single scan's, in its
    order: the same sums and gains to the bit.
    """
    left_s_a = 0.0
    left_sq_a = 0.0
    group_s_a = 0.0
    group_sq_a = 0.0
    stays_a = 1.0
    n_cuts_a = np.int64(0)  # (np.int64: a literal 0 would compile _keep_first_best_cut again)
    left_s_b = 0.0
    left_sq_b = 0.0
    group_s_b = 0.0
    group_sq_b = 0.0
    stays_b = 1.0
    n_cuts_b = np.int64(0)
    cut_a[5, 0] = keys_a[0]
    cut_b[5, 0] = keys_b[0]
    for i in range(m - 1):
        rows_left = i + 1.0
        j_a = np.uint64(order_a[i])  # (unsigned: see _partition_orders of local mode)
        j_b = np.uint64(order_b[i])
        v_a = row_value[j_a]
        v_b = row_value[j_b]
        cut_a[0, n_cuts_a] = rows_left
        cut_b[0, n_cuts_b] = rows_left
        group_s_a = group_s_a * stays_a + v_a
        group_s_b = group_s_b * stays_b + v_b
        group_sq_a = group_sq_a * stays_a + v_a * v_a
        group_sq_b = group_sq_b * stays_b + v_b * v_b
        cut_a[2, n_cuts_a] = left_s_a + group_s_a
        cut_b[2, n_cuts_b] = left_s_b + group_s_b
        cut_a[3, n_cuts_a] = left_sq_a + group_sq_a
        cut_b[3, n_cuts_b] = left_sq_b + group_sq_b
        ends_a = keys_a[i + 1] != keys_a[i]
        ends_b = keys_b[i + 1] != keys_b[i]
        ended_a = 1.0 if ends_a else 0.0
        ended_b = 1.0 if ends_b else 0.0
        stays_a = 1.0 - ended_a
        stays_b = 1.0 - ended_b
        left_s_a += group_s_a * ended_a
        left_s_b += group_s_b * ended_b
        left_sq_a += group_sq_a * ended_a
        left_sq_b += group_sq_b * ended_b
        n_cuts_a += ends_a
        n_cuts_b += ends_b
        cut_a[5, n_cuts_a] = keys_a[i + 1]
        cut_b[5, n_cuts_b] = keys_b[i + 1]
    _score_value_cuts(cut_a, n_cuts_a, None, total, parent_cost, min_count, min_weight,
                      best_a)  # fmt: skip
    _score_value_cuts(cut_b, n_cuts_b, None, total, parent_cost, min_count, min_weight,
                      best_b)  # fmt: skip
    return n_cuts_a + 1, n_cuts_b + 1


@njit(cache=True, inline="always")
def _allowed_gain(parent_cost, cost_left, cost_right, n_left, w_left, n_right, w_right,
                  min_count, min_weight):  # fmt: skip
    """The gain of a cut of the three-pass scans, ``-inf`` where a side breaks the
    leaf constraints (:func:`_keep_cut`'s tests, as a selection: no branch)."""
    allowed = (
        (n_left >= min_count)
        & (w_left >= min_weight)
        & (n_right >= min_count)
        & (w_right >= min_weight)
    )
    gain = parent_cost - cost_left - cost_right
    return gain if allowed else -np.inf


@njit(cache=True, _nrt=False)
def _keep_first_best_cut(cut_rows, n_cuts, best):
    """``best`` of the first of the ``n_cuts`` cuts with the highest gain in
    ``cut_rows`` (:data:`N_CUT_ROWS`), missing rows right (none there); no cut
    when every gain is ``-inf``."""
    # In registers: ``best`` might share memory with ``cut_rows``, so a store to
    # it in the loop would reload the gains.
    best_gain = -np.inf
    best_cut = -1
    for c in range(n_cuts):
        gain = cut_rows[4, c]
        better = gain > best_gain
        best_gain = gain if better else best_gain
        best_cut = c if better else best_cut
    best[0] = best_gain
    best[1] = cut_rows[5, best_cut] if best_cut >= 0 else -1.0
    best[2] = cut_rows[5, best_cut + 1] if best_cut >= 0 else -1.0
    best[3] = 0.0


@njit(cache=True, _nrt=False)
def _scan_threshold_values(hist, n_known, known, total, missing, has_missing, parent_cost,
                           min_count, min_weight, best):  # fmt: skip
    """:func:`scan_threshold`'s loop for squared error, in registers (as
    :func:`_scan_sorted_values`); bins as ``hist`` indices. Returns the number
    of present known codes."""
    left = (0.0, 0.0, 0.0, 0.0)
    n_present = 0
    prev = NO_CODE
    for i in range(n_known):
        if hist[i, 0] <= 0.0:
            continue
        n_present += 1
        if prev >= 0:
            _try_value_cut(prev, i, left, known, total, missing, has_missing, parent_cost,
                           min_count, min_weight, best)  # fmt: skip
        left = _summed(left, (hist[i, 0], hist[i, 1], hist[i, 2], hist[i, 3]))
        prev = i
    if has_missing and prev >= 0:
        _keep_value_cut(left, missing, parent_cost, min_count, min_weight, best, prev, NO_CODE, 0.0)
    return n_present


@njit(cache=True, inline="always")
def _gini_cost(weight, squares):
    """:func:`~treelearn.criteria._kernels.weighted_impurity` (Gini) of a side from
    its weight and the sum of its squared class weights."""
    return weight - squares / weight if weight > 0.0 else 0.0


@njit(cache=True, inline="always")
def _keep_gini_cut(left, right, parent_cost, min_count, min_weight, best, left_code, right_code,
                   missing_left):  # fmt: skip
    """:func:`_keep_cut` of Gini with the sides as ``(n, weight, squares)``."""
    if (
        left[0] >= min_count
        and left[1] >= min_weight
        and right[0] >= min_count
        and right[1] >= min_weight
    ):
        gain = parent_cost - _gini_cost(left[1], left[2]) - _gini_cost(right[1], right[2])
        _keep_if_higher(best, gain, left_code, right_code, missing_left)


@njit(cache=True, inline="always")
def _whole_gini_start(known, total, missing):
    """The state of a whole-weight Gini scan with nothing on the left yet:
    ``(w_known, w_total, w_missing)``, the sums of squared class weights of the
    four sides a cut can have -- left, right (the known rows not left), left
    with the missing rows, right without them -- and that of the missing rows."""
    w_known = 0.0
    w_total = 0.0
    w_missing = 0.0
    sq_known = 0.0
    sq_missing = 0.0
    sq_rest = 0.0
    for c in range(1, total.shape[0]):
        w_known += known[c]
        w_total += total[c]
        w_missing += missing[c]
        sq_known += known[c] * known[c]
        sq_missing += missing[c] * missing[c]
        sq_rest += (total[c] - missing[c]) * (total[c] - missing[c])
    return (w_known, w_total, w_missing), (0.0, sq_known, sq_missing, sq_rest), sq_missing


@njit(cache=True, inline="always")
def _squares_after_adding(squares, before, w):
    """``squares - before**2 + (before + w)**2``: a class weight ``before`` grown by ``w``."""
    return squares + w * (2.0 * before + w)


@njit(cache=True, inline="always")
def _moved_left(squares, before, w, known_c, total_c, missing_c, has_missing):
    """The four sides' sums of squares (:func:`_whole_gini_start`) once weight
    ``w`` of a class moves left, ``before`` of it being there already
    (``known_c``, ``total_c``, ``missing_c``: its weight in the known rows, all
    rows, the missing rows)."""
    sq_left = _squares_after_adding(squares[0], before, w)
    sq_right = _squares_after_adding(squares[1], known_c - before, -w)
    if not has_missing:
        return (sq_left, sq_right, squares[2], squares[3])
    with_missing = before + missing_c
    return (
        sq_left,
        sq_right,
        _squares_after_adding(squares[2], with_missing, w),
        _squares_after_adding(squares[3], total_c - with_missing, -w),
    )


@njit(cache=True, inline="always")
def _try_gini_cut(prev, code, n_left, w_left, squares, counts, weights, has_missing,
                  parent_cost, min_count, min_weight, best):  # fmt: skip
    """:func:`_try_cut` of a whole-weight Gini scan: missing rows right, then
    left. ``counts`` and ``weights``: ``(known, total, missing)`` rows and weight."""
    _keep_gini_cut(
        (n_left, w_left, squares[0]), (counts[0] - n_left, weights[0] - w_left, squares[1]),
        parent_cost, min_count, min_weight, best, prev, code, 0.0,
    )  # fmt: skip
    if has_missing:
        n_with = n_left + counts[2]
        w_with = w_left + weights[2]
        _keep_gini_cut(
            (n_with, w_with, squares[2]), (counts[1] - n_with, weights[1] - w_with, squares[3]),
            parent_cost, min_count, min_weight, best, prev, code, 1.0,
        )  # fmt: skip


@njit(cache=True, inline="always")
def _try_gini_missing_apart(prev, n_left, w_left, squares, counts, weights, sq_missing,
                            has_missing, parent_cost, min_count, min_weight, best):  # fmt: skip
    """:func:`_try_missing_apart` of a whole-weight Gini scan (every known row left)."""
    if has_missing and prev >= 0:
        _keep_gini_cut((n_left, w_left, squares[0]), (counts[2], weights[2], sq_missing),
                       parent_cost, min_count, min_weight, best, prev, NO_CODE, 0.0)  # fmt: skip


@njit(cache=True, _nrt=False)
def _scan_sorted_whole_gini(keys, order, m, missing_code, row_weight, row_class, total,
                            parent_cost, min_count, min_weight, best, left, missing):  # fmt: skip
    """:func:`scan_sorted_rows` for Gini when every row weight is a whole number
    and their sum is below ``2**26`` (:data:`WHOLE_WEIGHT_LIMIT`).

    Each side's sum of squared class weights is then kept up to date row by
    row (a row of class ``c`` and weight ``w`` moving left changes it by
    ``w * (2 * left_c + w)``), so a cut costs two divisions whatever the number
    of classes. Every sum involved is a whole number below ``2**53``, exact in
    float64 whatever the order of the additions: the gains are those of the
    channel-row scan to the bit. ``left`` and ``missing`` are scratch rows of
    ``n_channels``.
    """
    n_known = m
    while n_known > 0 and keys[n_known - 1] == missing_code:
        n_known -= 1
    left[:] = 0.0
    missing[:] = 0.0
    for i in range(n_known, m):
        j = order[i]
        missing[1 + int(row_class[j])] += weight_at(row_weight, j)
    has_missing = n_known < m
    weights, squares, sq_missing = _whole_gini_start(total, total, missing)
    counts = (total[0], total[0], float(m - n_known))
    best[0] = -np.inf
    best[1] = -1.0
    best[2] = -1.0
    best[3] = 0.0
    n_present = 1 if has_missing else 0
    n_left = 0.0
    w_left = 0.0
    prev = NO_CODE
    i = 0
    while i < n_known:
        code = np.int64(keys[i])  # (int64 as the histograms' codes: cut helpers compiled once)
        n_present += 1
        if prev >= 0:
            _try_gini_cut(prev, code, n_left, w_left, squares, counts, weights, has_missing,
                          parent_cost, min_count, min_weight, best)  # fmt: skip
        while i < n_known and keys[i] == code:
            j = np.uint64(order[i])  # (unsigned: see _partition_orders of local mode)
            c = np.uint64(1 + int(row_class[j]))
            w = weight_at(row_weight, j)
            squares = _moved_left(squares, left[c], w, total[c], total[c], missing[c],
                                  has_missing)  # fmt: skip
            left[c] += w
            n_left += 1.0
            w_left += w
            i += 1
        prev = code
    _try_gini_missing_apart(prev, n_left, w_left, squares, counts, weights, sq_missing,
                            has_missing, parent_cost, min_count, min_weight, best)  # fmt: skip
    return n_present


@njit(cache=True, error_model="numpy", _nrt=False)
def scan_sorted_whole_gini_by_cuts(keys, order, m, row_weight, row_class, total, parent_cost,
                                   min_count, min_weight, best, left, cut_rows):  # fmt: skip
    """:func:`whole_gini_by_cuts_inlined`, called (a kernel of its own, for the
    callers that do not inline it)."""
    return whole_gini_by_cuts_inlined(keys, order, m, row_weight, row_class, total,
                                      parent_cost, min_count, min_weight, best, left,
                                      cut_rows)  # fmt: skip


@njit(cache=True, inline="always")
def whole_gini_by_cuts_inlined(keys, order, m, row_weight, row_class, total, parent_cost,
                               min_count, min_weight, best, left, cut_rows):  # fmt: skip
    """:func:`_scan_sorted_whole_gini` of a node without missing rows in the three
    passes of :func:`values_by_cuts_inlined`, inlined as it is (its caller compiled
    with ``error_model="numpy"``; :func:`scan_sorted_whole_gini_by_cuts` is it,
    called): each cut's left rows, left
    weight and the two sides' sums of squared class weights (kept up to date row
    by row as the one-pass scan keeps them: whole numbers, exact), then the
    gains without branches, then the first best. The same gains to the bit.
    ``row_weight`` None: every row weighs 1, as :func:`scan_sorted_values_by_cuts`
    takes it."""
    w_known = 0.0
    sq_right = 0.0
    for c in range(1, total.shape[0]):
        w_known += total[c]
        sq_right += total[c] * total[c]
    sq_left = 0.0
    left[:] = 0.0
    w_left = 0.0
    n_cuts = np.int64(0)  # (a literal 0 would compile _keep_first_best_cut for it too)
    cut_rows[5, 0] = keys[0]
    for i in range(m - 1):
        j = np.uint64(order[i])  # (unsigned: see _partition_orders of local mode)
        c = np.uint64(1 + int(row_class[j]))
        w = 1.0 if row_weight is None else weight_at(row_weight, j)
        before = left[c]
        sq_left = _squares_after_adding(sq_left, before, w)
        sq_right = _squares_after_adding(sq_right, total[c] - before, -w)
        left[c] = before + w
        # Written at every row, kept (the count moves on) at a run's last: no
        # branch to mispredict where runs are short and uneven (512 rows over
        # 255 codes: 5.9 -> 3.7 ns a row). A cut after row i has i + 1 rows left.
        cut_rows[0, n_cuts] = i + 1.0
        if row_weight is not None:
            w_left += w
            cut_rows[1, n_cuts] = w_left
        cut_rows[2, n_cuts] = sq_left
        cut_rows[3, n_cuts] = sq_right
        n_cuts += keys[i + 1] != keys[i]
        cut_rows[5, n_cuts] = keys[i + 1]
    total_n = total[0]
    for k in range(n_cuts):
        # (_keep_gini_cut's tests as a selection: the loop has no branch.)
        n_cut = cut_rows[0, k]
        w_cut = n_cut if row_weight is None else cut_rows[1, k]
        w_right = w_known - w_cut
        cost_left = _gini_cost(w_cut, cut_rows[2, k])
        cost_right = _gini_cost(w_right, cut_rows[3, k])
        cut_rows[4, k] = _allowed_gain(parent_cost, cost_left, cost_right, n_cut, w_cut,
                                       total_n - n_cut, w_right, min_count,
                                       min_weight)  # fmt: skip
    _keep_first_best_cut(cut_rows, n_cuts, best)
    return n_cuts + 1


@njit(cache=True, _nrt=False)
def _scan_threshold_whole_gini(hist, n_known, known, total, has_missing, parent_cost,
                               min_count, min_weight, best, left):  # fmt: skip
    """:func:`scan_threshold`'s loop for Gini with whole weights (as
    :func:`_scan_sorted_whole_gini`, a code's histogram row moving left class
    by class); bins as ``hist`` indices. Returns the number of present known
    codes."""
    missing = hist[n_known]
    weights, squares, sq_missing = _whole_gini_start(known, total, missing)
    counts = (known[0], total[0], missing[0])
    left[:] = 0.0
    n_left = 0.0
    w_left = 0.0
    n_present = 0
    prev = NO_CODE
    for i in range(n_known):
        if hist[i, 0] <= 0.0:
            continue
        n_present += 1
        if prev >= 0:
            _try_gini_cut(prev, i, n_left, w_left, squares, counts, weights, has_missing,
                          parent_cost, min_count, min_weight, best)  # fmt: skip
        # Every class, absent ones too: they add exact zeros, and skipping them
        # costs a mispredicted branch where classes come and go from bin to bin
        # (10 classes, nodes of 600 to 5,000 rows: 6.0-6.8 us a node -> 3.9).
        for c in range(1, total.shape[0]):
            w = hist[i, c]
            squares = _moved_left(squares, left[c], w, known[c], total[c], missing[c],
                                  has_missing)  # fmt: skip
            left[c] += w
            w_left += w
        n_left += hist[i, 0]
        prev = i
    _try_gini_missing_apart(prev, n_left, w_left, squares, counts, weights, sq_missing,
                            has_missing, parent_cost, min_count, min_weight, best)  # fmt: skip
    return n_present


@njit(cache=True, inline="always")
def cuts_fit(cut_rows, keys, m, missing_code):
    """Whether the three-pass scans (:func:`scan_sorted_values_by_cuts`) take the
    node: two rows or more, room for them in ``cut_rows``, none missing (the
    rows in code order end with the known ones)."""
    return m >= 2 and cut_rows.shape[1] >= m and keys[m - 1] != missing_code


@njit(cache=True, inline="always")
def value_cuts_fit(cut_rows, keys, m, missing_code):
    """Whether squared error's three-pass scan (:func:`scan_sorted_values_by_cuts`)
    takes the node: :func:`cuts_fit`, and runs of a code short enough on average.
    (Long runs: the one-pass scan's branch on a run's end is predicted, and it is
    the faster; 64 rows over 4 codes 1.9 ns a row against 2.9, 256 over 16 1.7
    against 2.8, 256 over 64 3.8 against 3.2.)"""
    return m <= VALUE_CUTS_MAX_ROWS_PER_CODE * missing_code and cuts_fit(
        cut_rows, keys, m, missing_code
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
    rows (and with at most :data:`VALUE_CUTS_MAX_ROWS_PER_CODE` rows a code) is
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
def keep_split_if_better(out, f, best, is_nominal_f):
    """The tie rule of :func:`keep_if_better` on ``out`` alone; True when kept."""
    gain = best[0]
    if gain > out[OUT_GAIN] or (gain == out[OUT_GAIN] and gain > -np.inf and f < out[OUT_FEATURE]):
        out[OUT_GAIN] = gain
        out[OUT_FEATURE] = f
        out[OUT_LEFT_CODE] = best[1]
        out[OUT_RIGHT_CODE] = best[2]
        out[OUT_MISSING_LEFT] = best[3]
        out[OUT_IS_SUBSET] = 1.0 if is_nominal_f else 0.0
        return True
    return False


@njit(cache=True)
def keep_if_better(out, out_mask, f, best, is_nominal_f, mask, n_bins):
    """Keep feature ``f``'s best split ``best`` in ``out`` if it wins under the tie
    rule (a higher gain, then the lower feature index); every split finder uses it."""
    if keep_split_if_better(out, f, best, is_nominal_f) and is_nominal_f:
        out_mask[:n_bins] = mask[:n_bins]


def sorted_scan_buffers(n_threads, n_rows, code_dtype, unit_weights=False, sorted_codes=None):
    """The ``sorted_scan`` scratch of :func:`find_best_split` and
    :func:`find_best_split_parallel` for nodes of up to ``n_rows`` rows: per
    thread a row of keys (``code_dtype``, the code matrix's) and two rows of
    gathered weights and targets, and ``arange(n_rows)`` (row positions, of the
    narrowest index type); allocated once (fresh pages per node cost a page
    fault each on first touch). The keys and positions have the types of local
    mode's (codes and int32 positions), so that every call of
    :func:`scan_sorted_rows` shares one compilation.

    ``unit_weights``: every row weight is 1. The weights' rows are then filled
    with ones here and never gathered: the gather reads only the targets, half
    its random reads (800k rows in random order: 5.8 ns a row with the weights,
    2.1 without). The fourth entry of the tuple says so.

    ``sorted_codes``: the codes of the presorted rows, run by run (the twin of
    ``sorted_rows``, partitioned with it by
    :func:`~treelearn.splitting._partition_kernels.summarise_children`), the fifth
    entry; None: an int32 array of no rows, and each presorted row's code is read
    from the code matrix (a random read a row and feature: 17.5% of a full-depth
    exact regression fit of 800k x 20 rows)."""
    gathered = np.empty((n_threads, 2, n_rows))
    if unit_weights:
        gathered[:, 0, :] = 1.0
    if sorted_codes is None:
        sorted_codes = np.empty((0, 0), dtype=np.int32)
    return (
        np.empty((n_threads, n_rows), dtype=code_dtype),
        np.arange(n_rows, dtype=row_index_dtype(n_rows)),
        gathered,
        bool(unit_weights),
        sorted_codes,
    )


def presorted_codes(sorted_scan):
    """The presorted rows' codes of :func:`sorted_scan_buffers` (its fifth entry), or
    an int32 array of no rows where ``sorted_scan`` is None (no numeric feature).
    Callable only from kernels."""
    raise NotImplementedError("presorted_codes is called from numba kernels only")


@overload(presorted_codes)
def _presorted_codes(sorted_scan):
    if isinstance(sorted_scan, types.NoneType):
        return lambda sorted_scan: np.empty((0, 0), dtype=np.int32)
    return lambda sorted_scan: sorted_scan[4]


@njit(cache=True)
def own_sorted_scan(sorted_scan, n_rows):
    """One thread's :func:`sorted_scan_buffers` for nodes of up to ``n_rows`` rows,
    of the kind of ``sorted_scan`` (its ``arange`` and codes shared; no rows when it
    has none)."""
    identity, gathered, unit_weights, sorted_codes = sorted_scan[1:]
    own = np.empty((1, 2, n_rows if gathered.shape[2] else 0))
    if unit_weights:
        own[0, 0, :] = 1.0
    keys = np.empty((1, n_rows), dtype=sorted_scan[0].dtype)
    return (keys, identity, own, unit_weights, sorted_codes)


@njit(cache=True)
def _thread_scan(sorted_scan, thread, codes, n_node, presorted):
    """Thread ``thread``'s part of ``sorted_scan`` for a node of ``n_node`` rows; where
    it has no room for the node on that thread, :func:`_node_scan_buffers` (of the
    node's rows when features are ``presorted``, else of none); the presorted codes
    whenever it has them."""
    n_own = n_node if presorted else 0
    if thread >= sorted_scan[0].shape[0] or sorted_scan[2].shape[2] < n_own:
        return _node_scan_buffers(codes, n_own, sorted_scan[1], sorted_scan[4])
    return (sorted_scan[0][thread], sorted_scan[1], sorted_scan[2][thread], sorted_scan[3],
            sorted_scan[4])  # fmt: skip


@njit(cache=True)
def _node_scan_buffers(codes, n_rows, positions, sorted_codes):
    """One thread's ``sorted_scan`` for a node of ``n_rows`` rows, made for it: keys of
    the code matrix's type, ``arange`` of the type of ``positions`` (those of
    :func:`sorted_scan_buffers`), the targets' rows, weights to be gathered, and
    ``sorted_codes``."""
    return (
        np.empty(n_rows, dtype=codes.dtype), np.arange(n_rows).astype(positions.dtype),
        np.empty((2, n_rows)), False, sorted_codes,
    )  # fmt: skip


@njit(cache=True)
def find_best_split(
    codes,
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

    ``sorted_scan``: :func:`sorted_scan_buffers` (its first thread's rows are
    used; see :func:`evaluate_numeric_feature`).

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
            np.empty(n_node if small else 0, dtype=codes.dtype),
            np.empty(n_node if small else 0, dtype=np.int32),
        )
        scan = _thread_scan(sorted_scan, 0, codes, n_node, sorted_rows.shape[0] > 0)
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
                f, codes, rows, start, end, y_class, y_value, weight, is_classification,
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
            f, codes, rows, start, end, y_class, y_value, weight, is_classification, criterion,
            n_classes, n_codes, node_hist, node_hist_offsets, node_stats, parent_cost,
            min_count, min_weight, scratch_hist, scratch_mask, skip_missing, multiway, best,
        )  # fmt: skip
        if n_present < 2:
            continue
        n_visited += 1
        keep_if_better(out, out_mask, f, best, NOMINAL, scratch_mask, n_codes[f] + 1)


@njit(cache=True, _nrt=False)
def evaluate_numeric_feature(
    f, codes, rows, start, end, y_class, y_value, weight, is_classification, criterion,
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
    type, ``arange``, and two rows of floats; :func:`sorted_scan_buffers`) the rows'
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
        _sort_small_node(f, codes, rows, start, end, sorted_slot[f] >= 0 and compact, keys, order)
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
            _gather_codes(codes, f, ordered, keys)
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
            f, codes, rows, start, end, y_class, y_value, weight, is_classification, n_codes,
            is_nominal, node_hist_offsets, hist_ratio, scratch_hist, scratch_codes, sorted_rows,
            sorted_slot,
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
def _gather_codes(codes, f, ordered, keys):
    """``keys[i] = codes[ordered[i], f]``."""
    for i in range(ordered.shape[0]):
        keys[i] = codes[ordered[i], f]


@njit(cache=True, _nrt=False)
def _copy_codes(source, keys):
    """``keys[i] = source[i]`` (the presorted runs' codes, of the row index type,
    into keys of the code matrix's)."""
    for i in range(source.shape[0]):
        keys[i] = source[i]


@njit(cache=True)
def _search_one_of_many(
    f, codes, rows, start, end, y_class, y_value, weight, is_classification, criterion,
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
        scan = _thread_scan(sorted_scan, get_thread_id(), codes, n_node, presorted)
        scratch_codes = np.empty(
            0 if presorted else scratch_codes_size(n_node, n_bins), dtype=np.int64
        )
        work = np.empty((5, n_channels))
        own_out = np.empty(N_OUT)
        own_out[OUT_GAIN] = -np.inf
        own_out[OUT_FEATURE] = -1.0
        # (``small`` as a bool, not the literal False: see NO_CODE.)
        return evaluate_numeric_feature(
            f, codes, rows, start, end, y_class, y_value, weight, is_classification,
            criterion, n_codes, is_nominal, node_hist, node_hist_offsets, node_stats,
            parent_cost, min_count, min_weight, hist_ratio, scratch_hist, scratch_codes,
            sorted_rows, sorted_slot, skip_missing, np.bool_(False), np.empty((2, 0)),
            (np.empty(0, dtype=codes.dtype), np.empty(0, dtype=np.int32)), work, best,
            own_out, whole_weights, scan,
        )  # fmt: skip
    if mask is None:
        raise AssertionError("find_best_split_parallel: a nominal feature, no out_mask")
    return evaluate_nominal_feature(
        f, codes, rows, start, end, y_class, y_value, weight, is_classification, criterion,
        n_classes, n_codes, node_hist, node_hist_offsets, node_stats, parent_cost, min_count,
        min_weight, scratch_hist, mask, skip_missing, multiway, best,
    )  # fmt: skip


@njit(cache=True, parallel=True)
def find_best_split_parallel(
    codes,
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

    ``sorted_scan`` (:func:`sorted_scan_buffers` with a row per numba thread):
    the scratch of the features whose rows are read in code order from
    their presorted run, reused by every node. (Allocating it per feature and
    node cost more than the search: the first touch of every fresh page is a
    page fault.) ``sorted_scan`` None where no feature is numeric, ``out_mask``
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
            feature_order[j], codes, rows, start, end, y_class, y_value, weight,
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
