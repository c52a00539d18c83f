"""Squared error's threshold scans, a side's statistics ``(n, w, s, sq)`` kept in
registers (4-tuples of scalars, not scratch rows).

One pass over a node's rows in code order (:func:`_scan_sorted_values`) or over
a histogram (:func:`_scan_threshold_values`), and three passes over a node
without missing rows (:func:`values_by_cuts_inlined`, two features at once in
:func:`value_cut_pairs_inlined`): the same sums in the same order as the
channel-row scans, so the same gains to the bit. The scans are chosen by
:func:`~treelearn.splitting._kernels.scan_sorted_rows` and
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
    cuts_fit,
    keep_first_best_cut,
)
from treelearn.stats._kernels import value_row_added, weight_at


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
    """:func:`~treelearn.splitting._cut_kernels._keep_cut` of squared error with the sides as
    4-tuples of scalars ``(n, w, s, sq)``: the same tests and arithmetic."""
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
    """:func:`~treelearn.splitting._cut_kernels._try_cut` of squared error on 4-tuples: missing
    rows right, then left."""
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
    """:func:`~treelearn.splitting._kernels.scan_sorted_rows` for squared error, its
    statistics kept in registers (scalars, not scratch rows): the same sums in the same order, so
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


#: :func:`~treelearn.splitting._kernels.scan_sorted_rows` scans squared error in three
#: passes at most this many rows a code (runs of a code short enough that a branch
#: on their ends would be mispredicted).
VALUE_CUTS_MAX_ROWS_PER_CODE = 4


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
    over ``cut_rows`` (:data:`~treelearn.splitting._cut_kernels.N_CUT_ROWS` rows of at least
    ``m``), inlined into its caller, which must be compiled with
    ``error_model="numpy"`` (the gains divide before the test of an empty side;
    :func:`scan_sorted_values_by_cuts` is it, called). The passes: the left side's
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
    _score_value_cuts(cut_rows, n_cuts, keys, row_weight, total, parent_cost, min_count,
                      min_weight, best)  # fmt: skip
    return n_cuts + 1


@njit(cache=True, inline="always")
def _run_ends(key, next_key):
    """1 where a run of a code ends between two keys in code order (``next_key >=
    key``), else 0, as an int64 that the three-pass scans both count cuts with and
    turn into their factor ``float(ends)``, without a branch. The factor as
    ``1.0 if next_key != key else 0.0`` compiles to one (x86 has no conditional
    move into a floating-point register), mispredicted at every uneven end of a
    run: two features of nodes of 256 rows over 255 random codes took 7.0 ns a row
    and feature with it, 3.6 with this, 1,024 rows 5.2 and 3.0 (an AMD EPYC, numba
    0.68). Where every row has a code of its own the branch is predicted and this
    costs 2-5% more. In a tree's nodes the codes are less even than random ones:
    full-depth regression (100,000 x 20, 255 bins) fitted within that machine's
    noise of its time before."""
    return min(np.int64(next_key) - np.int64(key), 1)


@njit(cache=True, inline="always")
def _value_cut_sums(keys, order, m, row_weight, row_value, cut_rows):
    """The first pass of :func:`values_by_cuts_inlined`: the left side's sums at
    every cut into ``cut_rows`` (each cut's left rows, weight, sum and sum of
    squares; its codes are read from ``keys`` once the best is known); returns the
    number of cuts."""
    left_w = 0.0
    left_s = 0.0
    left_sq = 0.0
    group_w = 0.0
    group_s = 0.0
    group_sq = 0.0
    # Unsigned: numba adds a signed index's length where it is negative, a few
    # instructions for each of the row's stores.
    n_cuts = np.uint64(0)
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
        ends = _run_ends(keys[i], keys[i + 1])
        ended = np.float64(ends)
        stays = 1.0 - ended
        if row_weight is not None:
            left_w += group_w * ended
        left_s += group_s * ended
        left_sq += group_sq * ended
        n_cuts += np.uint64(ends)
    return np.int64(n_cuts)


@njit(cache=True, inline="always")
def _score_value_cuts(cut_rows, n_cuts, keys, row_weight, total, parent_cost, min_count,
                      min_weight, best):  # fmt: skip
    """The second and third passes of :func:`values_by_cuts_inlined`: every cut's gain
    from its sums in ``cut_rows`` (a loop without branches), then the first best
    into ``best`` (its codes from ``keys``)."""
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
    keep_first_best_cut(cut_rows, n_cuts, keys, best)


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
    n_cuts_a = np.uint64(0)  # (unsigned, as in _value_cut_sums)
    left_s_b = 0.0
    left_sq_b = 0.0
    group_s_b = 0.0
    group_sq_b = 0.0
    stays_b = 1.0
    n_cuts_b = np.uint64(0)
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
        ends_a = _run_ends(keys_a[i], keys_a[i + 1])
        ends_b = _run_ends(keys_b[i], keys_b[i + 1])
        ended_a = np.float64(ends_a)
        ended_b = np.float64(ends_b)
        stays_a = 1.0 - ended_a
        stays_b = 1.0 - ended_b
        left_s_a += group_s_a * ended_a
        left_s_b += group_s_b * ended_b
        left_sq_a += group_sq_a * ended_a
        left_sq_b += group_sq_b * ended_b
        n_cuts_a += np.uint64(ends_a)
        n_cuts_b += np.uint64(ends_b)
    _score_value_cuts(cut_a, np.int64(n_cuts_a), keys_a, None, total, parent_cost, min_count,
                      min_weight, best_a)  # fmt: skip
    _score_value_cuts(cut_b, np.int64(n_cuts_b), keys_b, None, total, parent_cost, min_count,
                      min_weight, best_b)  # fmt: skip
    return np.int64(n_cuts_a) + 1, np.int64(n_cuts_b) + 1


@njit(cache=True, _nrt=False)
def _scan_threshold_values(hist, n_known, known, total, missing, has_missing, parent_cost,
                           min_count, min_weight, best):  # fmt: skip
    """:func:`~treelearn.splitting._kernels.scan_threshold`'s loop for squared error, in
    registers (as :func:`_scan_sorted_values`); bins as ``hist`` indices. Returns the number
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
def value_cuts_fit(cut_rows, keys, m, missing_code):
    """Whether squared error's three-pass scan (:func:`scan_sorted_values_by_cuts`)
    takes the node: :func:`cuts_fit`, and runs of a code short enough on average.
    (Long runs: the one-pass scan's branch on a run's end is predicted, and it is
    the faster; 64 rows over 4 codes 1.9 ns a row against 2.9, 256 over 16 1.7
    against 2.8, 256 over 64 3.8 against 3.2.)"""
    return m <= VALUE_CUTS_MAX_ROWS_PER_CODE * missing_code and cuts_fit(
        cut_rows, keys, m, missing_code
    )
