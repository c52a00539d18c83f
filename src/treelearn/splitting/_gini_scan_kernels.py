"""Gini's threshold scans when every row weight is a whole number and their sum
is below :data:`~treelearn.splitting._kernels.WHOLE_WEIGHT_LIMIT`.

Each side's sum of squared class weights is kept up to date as rows move left,
so a cut costs two divisions whatever the number of classes; the sums are whole
numbers, exact, so the gains are the channel-row scan's to the bit. One pass
over a node's rows in code order (:func:`_scan_sorted_whole_gini`) or over a
histogram (:func:`_scan_threshold_whole_gini`), and three passes over a node
without missing rows (:func:`whole_gini_by_cuts_inlined`). The scans are chosen
by :func:`~treelearn.splitting._kernels.scan_sorted_rows` and
:func:`~treelearn.splitting._kernels.scan_threshold`, and by local mode's
search; ``_nrt=False`` and inlining as described in
:mod:`treelearn.splitting._kernels`.
"""

import numpy as np
from numba import njit

from treelearn.splitting._cut_kernels import (
    NO_CODE,
    _allowed_gain,
    _keep_if_higher,
    keep_first_best_cut,
)
from treelearn.stats._kernels import weight_at


@njit(cache=True, inline="always")
def _gini_cost(weight, squares):
    """:func:`~treelearn.criteria._kernels.weighted_impurity` (Gini) of a side from
    its weight and the sum of its squared class weights."""
    return weight - squares / weight if weight > 0.0 else 0.0


@njit(cache=True, inline="always")
def _keep_gini_cut(left, right, parent_cost, min_count, min_weight, best, left_code, right_code,
                   missing_left):  # fmt: skip
    """:func:`~treelearn.splitting._cut_kernels._keep_cut` of Gini with the sides as
    ``(n, weight, squares)``."""
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
    """:func:`~treelearn.splitting._cut_kernels._try_cut` of a whole-weight Gini scan: missing
    rows right, then left. ``counts`` and ``weights``: ``(known, total, missing)``
    rows and weight."""
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
    """:func:`~treelearn.splitting._cut_kernels._try_missing_apart` of a whole-weight Gini scan
    (every known row left)."""
    if has_missing and prev >= 0:
        _keep_gini_cut((n_left, w_left, squares[0]), (counts[2], weights[2], sq_missing),
                       parent_cost, min_count, min_weight, best, prev, NO_CODE, 0.0)  # fmt: skip


@njit(cache=True, _nrt=False)
def _scan_sorted_whole_gini(keys, order, m, missing_code, row_weight, row_class, total,
                            parent_cost, min_count, min_weight, best, left, missing):  # fmt: skip
    """:func:`~treelearn.splitting._kernels.scan_sorted_rows` for Gini when every row weight
    is a whole number and their sum is below ``2**26``
    (:data:`~treelearn.splitting._kernels.WHOLE_WEIGHT_LIMIT`).

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
    passes of :func:`~treelearn.splitting._value_scan_kernels.values_by_cuts_inlined`,
    inlined as it is (its caller compiled with ``error_model="numpy"``;
    :func:`scan_sorted_whole_gini_by_cuts` is it, called): each cut's left rows, left
    weight and the two sides' sums of squared class weights (kept up to date row
    by row as the one-pass scan keeps them: whole numbers, exact), then the
    gains without branches, then the first best. The same gains to the bit.
    ``row_weight`` None: every row weighs 1, as
    :func:`~treelearn.splitting._value_scan_kernels.scan_sorted_values_by_cuts` takes it."""
    w_known = 0.0
    sq_right = 0.0
    for c in range(1, total.shape[0]):
        w_known += total[c]
        sq_right += total[c] * total[c]
    sq_left = 0.0
    left[:] = 0.0
    w_left = 0.0
    at = np.uint64(0)  # the cut the row's sums go to (unsigned, as in _value_cut_sums)
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
        cut_rows[0, at] = i + 1.0
        if row_weight is not None:
            w_left += w
            cut_rows[1, at] = w_left
        cut_rows[2, at] = sq_left
        cut_rows[3, at] = sq_right
        at += np.uint64(keys[i + 1] != keys[i])
    n_cuts = np.int64(at)
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
    keep_first_best_cut(cut_rows, n_cuts, keys, best)
    return n_cuts + 1


@njit(cache=True, _nrt=False)
def _scan_threshold_whole_gini(hist, n_known, known, total, has_missing, parent_cost,
                               min_count, min_weight, best, left):  # fmt: skip
    """:func:`~treelearn.splitting._kernels.scan_threshold`'s loop for Gini with whole weights (as
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
