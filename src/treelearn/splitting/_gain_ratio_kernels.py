"""C4.5's evaluation of every attribute at a node (Quinlan 1993, Release 8).

One row per feature of a *candidate table* (columns ``CAND_*``): the
attribute's information gain and split information as C4.5 computes them, and
for a numeric attribute its best threshold. Choosing among the rows (the
above-average-gain rule and the gain ratio) is :mod:`treelearn.splitting.gain_ratio`.

With ``N`` the node's total weight, ``K`` the weight of the rows that know the
attribute and ``U = N - K``:

- gain = (K / N) * (H(known rows) - sum_v (K_v / K) H(v)) =
  (K H(known) - sum_v K_v H(v)) / N, in bits (C4.5's ``ComputeGain``);
- split information = the entropy of the partition of all ``N`` into the
  branches *and* the unknown rows (``TotalInfo(ValFreq) / Items``);
- a nominal attribute splits into one branch per category and is admissible
  when at least two categories hold ``min_objs`` weight (and some weight);
- a numeric attribute tries each cut between neighbouring distinct known
  values that leaves at least ``MinSplit`` weight on each side, keeps the cut
  of largest gain, and with ``threshold_cost`` subtracts ``log2(number of
  cuts tried) / N`` from it; the attribute is admissible when what is left is
  positive (above ``GAIN_TOLERANCE``). With ``c45_min_split``, ``MinSplit =
  0.1 K / n_classes`` clipped to ``[min_objs, 25]`` and only values more than
  ``VALUE_TOLERANCE`` apart are cut between (C4.5); otherwise ``min_objs`` and
  every pair of distinct values.

Ties: scanning the cuts in increasing order, a cut replaces the best so far
only when its gain is larger by more than ``GAIN_TOLERANCE`` (as Weka's J48
compares; C4.5 computes in single precision), so cuts of equal gain up to
rounding go to the lower one.

With ``min_objs=0``, ``c45_min_split=False`` and ``threshold_cost=False`` the
table holds the textbook numbers (information gain over the known rows,
intrinsic value, Gini index after the split; a numeric attribute's best cut
among all midpoints), which is how ID3 and CART trees are explained.
"""

import numpy as np
from numba import njit

from treelearn.criteria._kernels import ENTROPY, GINI, weighted_impurity
from treelearn.splitting._sort_kernels import (
    compact_histogram,
    sort_rows_by_code,
)

#: Columns of the candidate table.
CAND_STATUS = 0  # STATUS_* below
CAND_GAIN = 1  # C4.5's gain (threshold cost subtracted), bits
CAND_SPLIT_INFO = 2  # split information, bits, unknown rows as one more branch
CAND_LEFT_CODE = 3  # numeric: last code of the left branch
CAND_RIGHT_CODE = 4  # numeric: first code of the right branch
CAND_RAW_GAIN = 5  # numeric: gain of the best cut before the threshold cost
CAND_TRIES = 6  # numeric: number of cuts tried
CAND_KNOWN_WEIGHT = 7  # weight of the rows that know the attribute
CAND_GINI_AFTER = 8  # Gini index after the split, over the known rows
CAND_ENTROPY_AFTER = 9  # conditional entropy H(Y | branch) over the known rows
CAND_THRESHOLD = 10  # numeric: the threshold value (filled in by the grower, not here)
N_CAND = 11

#: ``CAND_STATUS`` values.
STATUS_SKIPPED = -1.0  # not evaluated (a nominal attribute already tested above)
STATUS_NO_SPLIT = 0.0  # no split to score (no known row, or no cut leaves MinSplit each side)
STATUS_SPLIT = 1.0  # an admissible split; its numbers are in the row
# Not admissible (C4.5's gain -Epsilon), but the numbers of the split are in the row:
STATUS_TOO_FEW = 2.0  # nominal: fewer than two branches hold min_objs weight
STATUS_NO_NET_GAIN = 3.0  # numeric: the best cut's gain minus the threshold cost is <= 0

#: Upper clip of C4.5's minimum branch weight for numeric cuts.
MAX_MIN_SPLIT = 25.0
#: C4.5 cuts only between values more than this apart (``contin.c``: 1E-5).
VALUE_TOLERANCE = 1e-5
#: Gains closer than this are equal (Weka's ``Utils.gr``).
GAIN_TOLERANCE = 1e-6


@njit(cache=True)
def _partition_entropy(weights, n, total):
    """Entropy (bits) of the partition of ``total`` into ``weights[:n]``."""
    h = 0.0
    for i in range(n):
        w = weights[i]
        if w > 0.0:
            h -= w / total * np.log2(w / total)
    return h


@njit(cache=True, inline="always")
def _xlog2x(x):
    """``x log2 x`` (0 for ``x <= 0``)."""
    return x * np.log2(x) if x > 0.0 else 0.0


@njit(cache=True)
def scan_multiway_c45(hist, n_bins, node_weight, min_objs, row):
    """Fill a candidate ``row`` for a nominal attribute (one branch per category)."""
    n_channels = hist.shape[1]
    known = np.zeros(n_channels)
    branch_weights = np.empty(n_bins)
    children_entropy = 0.0
    children_gini = 0.0
    n_reasonable = 0
    for v in range(n_bins - 1):
        w = 0.0
        for c in range(1, n_channels):
            w += hist[v, c]
            known[c] += hist[v, c]
        branch_weights[v] = w
        if w > 0.0:
            children_entropy += weighted_impurity(hist[v], ENTROPY)
            children_gini += weighted_impurity(hist[v], GINI)
        if w > 0.0 and w >= min_objs:
            n_reasonable += 1
    unknown = node_weight
    for c in range(1, n_channels):
        unknown -= known[c]
    unknown = max(unknown, 0.0)
    branch_weights[n_bins - 1] = unknown
    known_weight = node_weight - unknown
    row[CAND_KNOWN_WEIGHT] = known_weight
    if known_weight <= 0.0:
        row[CAND_STATUS] = STATUS_NO_SPLIT
        return
    gain = (weighted_impurity(known, ENTROPY) - children_entropy) / node_weight
    row[CAND_STATUS] = STATUS_SPLIT if n_reasonable >= 2 else STATUS_TOO_FEW
    row[CAND_GAIN] = gain
    row[CAND_RAW_GAIN] = gain
    row[CAND_SPLIT_INFO] = _partition_entropy(branch_weights, n_bins, node_weight)
    row[CAND_GINI_AFTER] = children_gini / known_weight
    row[CAND_ENTROPY_AFTER] = children_entropy / known_weight


@njit(cache=True)
def scan_threshold_c45(
    hist,
    bin_codes,
    identity,
    n_known,
    values,
    node_weight,
    n_classes,
    min_objs,
    c45_min_split,
    threshold_cost,
    row,
):
    """Fill a candidate ``row`` for a numeric attribute (best binary cut).

    ``values[code]`` is the value of each code (empty: codes are bins, no
    value tolerance applies)."""
    n_channels = hist.shape[1]
    known = np.zeros(n_channels)
    for i in range(n_known):
        for c in range(1, n_channels):
            known[c] += hist[i, c]
    known_weight = 0.0
    for c in range(1, n_channels):
        known_weight += known[c]
    unknown = max(node_weight - known_weight, 0.0)
    row[CAND_KNOWN_WEIGHT] = known_weight
    row[CAND_STATUS] = STATUS_NO_SPLIT
    if known_weight <= 0.0 or known_weight < 2.0 * min_objs:
        return
    min_split = min_objs
    if c45_min_split:
        min_split = 0.1 * known_weight / n_classes
        if min_split <= min_objs:
            min_split = min_objs
        elif min_split > MAX_MIN_SPLIT:
            min_split = MAX_MIN_SPLIT
    known_cost = weighted_impurity(known, ENTROPY)
    left = np.zeros(n_channels)
    right = np.empty(n_channels)
    partition = np.empty(3)
    partition[0] = unknown
    best_gain = -np.inf
    best_left = -1
    best_right = -1
    best_info = 0.0
    tries = 0
    low = 0.0
    prev = -1
    tolerance = VALUE_TOLERANCE if c45_min_split and values.shape[0] > 0 else -1.0
    prev_value = 0.0
    # Each cut's gain is first estimated from sum(c log2 c) over the classes of each
    # side, updated bin by bin (a bin changes few classes), and computed exactly as
    # above only when the estimate could win: the estimate's error (rounding, below
    # 1e-9 in practice) is far under ``slack``, so the cut chosen is the one the
    # exact gains of every cut choose.
    slack = 1e-7 + 8.0 * n_known * 2.3e-16 * np.log2(2.0 + known_weight)
    sum_left = 0.0
    sum_right = 0.0
    for c in range(1, n_channels):
        sum_right += _xlog2x(known[c])
    for i in range(n_known):
        w = 0.0
        for c in range(1, n_channels):
            w += hist[i, c]
        if w <= 0.0:
            continue
        value = 0.0
        if values.shape[0] > 0:
            value = values[i] if identity else values[bin_codes[i]]
        # Written as J48 writes it (prev + 1e-5 < next): the rounding decides near 1e-5.
        if prev >= 0 and low >= min_split and prev_value + tolerance < value:
            if low > known_weight - min_split:
                break
            tries += 1
            estimate = (
                known_cost - (_xlog2x(low) - sum_left) - (_xlog2x(known_weight - low) - sum_right)
            ) / node_weight
            if best_left >= 0 and estimate - best_gain <= GAIN_TOLERANCE - slack:
                pass  # cannot win
            else:
                for c in range(n_channels):
                    right[c] = known[c] - left[c]
                gain = (
                    known_cost
                    - weighted_impurity(left, ENTROPY)
                    - weighted_impurity(right, ENTROPY)
                ) / node_weight
                if best_left < 0 or gain - best_gain > GAIN_TOLERANCE:
                    best_gain = gain
                    best_left = prev
                    best_right = i
                    partition[1] = low
                    partition[2] = known_weight - low
                    # (np.int64: a literal 3 would compile _partition_entropy again.)
                    best_info = _partition_entropy(partition, np.int64(3), node_weight)
        for c in range(1, n_channels):
            h = hist[i, c]
            if h != 0.0:
                before = left[c]
                after = before + h
                sum_left += _xlog2x(after) - _xlog2x(before)
                sum_right += _xlog2x(known[c] - after) - _xlog2x(known[c] - before)
        for c in range(n_channels):
            left[c] += hist[i, c]
        low += w
        prev = i
        prev_value = value
    row[CAND_TRIES] = tries
    if tries == 0:
        return
    cost = np.log2(tries) / node_weight if threshold_cost else 0.0
    # The best cut's children, for the Gini and entropy after the split.
    left[:] = 0.0
    for i in range(best_left + 1):
        for c in range(n_channels):
            left[c] += hist[i, c]
    for c in range(n_channels):
        right[c] = known[c] - left[c]
    row[CAND_STATUS] = STATUS_SPLIT if best_gain - cost > GAIN_TOLERANCE else STATUS_NO_NET_GAIN
    row[CAND_GAIN] = best_gain - cost
    row[CAND_RAW_GAIN] = best_gain
    row[CAND_SPLIT_INFO] = best_info
    row[CAND_LEFT_CODE] = best_left if identity else bin_codes[best_left]
    row[CAND_RIGHT_CODE] = best_right if identity else bin_codes[best_right]
    row[CAND_GINI_AFTER] = (
        weighted_impurity(left, GINI) + weighted_impurity(right, GINI)
    ) / known_weight
    row[CAND_ENTROPY_AFTER] = (
        weighted_impurity(left, ENTROPY) + weighted_impurity(right, ENTROPY)
    ) / known_weight


@njit(cache=True)
def c45_histogram(
    f, feature_codes, rows, start, end, y_class, weight, n_codes, is_nominal, hist_ratio,
    sorted_rows, sorted_slot, scratch_hist, scratch_codes,
):  # fmt: skip
    """Class weights of feature ``f``'s codes at the node ``rows[start:end]``.

    Returns ``(hist, bin_codes, identity, n_known)``: ``hist[:n_known]`` the
    known codes in increasing order (code ``i`` when ``identity``, else
    ``bin_codes[i]``), ``hist[n_known]`` the missing rows. A nominal feature,
    or one with at most ``hist_ratio`` codes per node row, gets a histogram of
    every code; otherwise the node's rows are read in code order:
    ``sorted_rows[sorted_slot[f], start:end]`` when the feature has a slot
    (kept sorted by the caller), else sorted here. Either way the weights of
    one code are added in the order of ``rows`` (the sort is stable), so the
    numbers do not depend on the path. ``scratch_hist`` needs ``n_codes[f] + 1``
    rows, ``scratch_codes``
    :func:`~treelearn.splitting._kernels.scratch_codes_size` entries.
    """
    n_node = end - start
    n_bins = n_codes[f] + 1
    codes_f = feature_codes[f]
    bin_codes = scratch_codes[n_node : 2 * n_node + 1]
    if is_nominal[f] or n_bins <= hist_ratio * n_node:
        hist = scratch_hist[:n_bins]
        hist[:, :] = 0.0
        for i in range(start, end):
            r = rows[i]
            h = hist[codes_f[r]]
            h[0] += 1.0
            h[1 + y_class[r]] += weight[r]
        return hist, bin_codes, True, n_bins - 1
    if sorted_slot[f] >= 0:
        ordered = sorted_rows[sorted_slot[f], start:end]
    else:
        # As fill_feature_histogram sorts: scratch_codes holds the node's rows in code
        # order, then bin_codes, then the sort's counts (or the merge sort's work).
        ordered = scratch_codes[:n_node]
        spare = scratch_codes[2 * n_node + 1 :]
        sort_rows_by_code(codes_f, rows, start, end, n_bins, ordered, spare, spare)
    # Only the codes present, in increasing order; the missing code (largest) last.
    # (``weight`` stands in for the regression target, which classification never reads.
    # np.bool_: a literal True would compile compact_histogram once more than the CART
    # search's call does.)
    m = compact_histogram(
        codes_f,
        ordered,
        n_bins - 1,
        y_class,
        weight,
        weight,
        np.bool_(True),
        scratch_hist,
        bin_codes,
    )
    return scratch_hist[: m + 1], bin_codes, False, m


@njit(cache=True)
def evaluate_candidates(
    feature_codes,
    rows,
    start,
    end,
    y_class,
    weight,
    n_classes,
    n_codes,
    is_nominal,
    usable,
    code_values,
    code_value_ptr,
    min_objs,
    c45_min_split,
    threshold_cost,
    hist_ratio,
    scratch_hist,
    scratch_codes,
    table,
    sorted_rows,
    sorted_slot,
):
    """Fill ``table[f]`` (a row of ``N_CAND`` columns) for every feature ``f`` of
    the node ``rows[start:end]``; features with ``usable[f] == 0`` are skipped.

    ``weight`` is indexed by row; the statistics of each feature come from
    :func:`c45_histogram` (``sorted_rows`` and ``sorted_slot``, scratch sizes as
    there). The values of a numeric feature's codes are
    ``code_values[code_value_ptr[f]:code_value_ptr[f + 1]]`` (empty for bins).
    """
    n_features = n_codes.shape[0]
    node_weight = 0.0
    for i in range(start, end):
        node_weight += weight[rows[i]]
    table[:, :] = np.nan
    for f in range(n_features):
        row = table[f]
        if not usable[f]:
            row[CAND_STATUS] = STATUS_SKIPPED
            continue
        hist, bin_codes, identity, n_known = c45_histogram(
            f, feature_codes, rows, start, end, y_class, weight, n_codes, is_nominal, hist_ratio,
            sorted_rows, sorted_slot, scratch_hist, scratch_codes,
        )  # fmt: skip
        if is_nominal[f]:
            scan_multiway_c45(hist, n_codes[f] + 1, node_weight, min_objs, row)
        else:
            scan_threshold_c45(
                hist,
                bin_codes,
                identity,
                n_known,
                code_values[code_value_ptr[f] : code_value_ptr[f + 1]],
                node_weight,
                n_classes,
                min_objs,
                c45_min_split,
                threshold_cost,
                row,
            )
