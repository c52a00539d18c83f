"""Histogram kernels.

A histogram of feature ``f`` at a node has one row per code (``n_codes[f] + 1``
rows, the missing code last) and one column per statistics channel (see
:mod:`treelearn._dtypes`). Histograms add up over disjoint row sets, so a
child's histogram is its parent's minus its siblings' (the subtraction trick).
"""

import numpy as np
from numba import literal_unroll, njit, prange

from treelearn._parallel_options import PRANGE_ONLY

# ``_nrt=False``: these kernels neither allocate nor return arrays, so numba
# compiles them without reference counting (see treelearn.splitting._kernels).
# Rows and class indices index as unsigned numbers: numba adds a signed index's
# length where it is negative, a few instructions at every read (see
# treelearn.growing._local_kernels._partition_orders).


@njit(cache=True, inline="always")
def weight_at(weight, row):
    """``weight[row]``, or 1.0 where ``weight`` is empty: when no sample weights are
    given, the numba loop's grower stores none (every row weighs 1; 8 bytes a row
    less memory), and every kernel that loop reaches reads a row's weight here. (The
    other loops, C4.5's, surrogates' and the robust losses', are given ones.)"""
    return weight[row] if weight.shape[0] else 1.0


@njit(cache=True, inline="always")
def read_target(t, row_weight, row_class, row_value, is_classification, unit_weights=False):
    """``(w, channel, v)`` of the ``t``-th of the weights and targets given (the
    training arrays, or gathered ones: :func:`gather_targets`), as
    :func:`add_read_target` adds them: the weight (1 where ``unit_weights``, the
    weights not read), the class's channel (classification) and the value
    (regression). Read once, added to several statistics rows (a histogram's
    bins: the reads are not repeated after each add, which the compiler must
    assume may have written them)."""
    w = 1.0 if unit_weights else weight_at(row_weight, t)
    if is_classification:
        return w, np.uint64(1 + int(row_class[t])), 0.0
    return w, np.uint64(0), row_value[t]


@njit(cache=True, inline="always")
def add_read_target(out, w, channel, v, is_classification, unit_weights=False):
    """Add a target (:func:`read_target`) to the statistics row ``out``: a count,
    then the class's weight, or the weight, ``w y`` and ``w y**2``. ``unit_weights``:
    a row of weight 1, the channel :func:`_complete_unit_histogram` fills in after
    the last row left out (the count of classification, the weight of regression;
    ``w * v`` is ``v``: the same sums)."""
    if unit_weights:
        if is_classification:
            out[channel] += 1.0
        else:
            out[0] += 1.0
            out[2] += v
            out[3] += v * v
        return
    out[0] += 1.0
    if is_classification:
        out[channel] += w
    else:
        out[1] += w
        out[2] += w * v
        out[3] += w * v * v


@njit(cache=True)
def add_gathered_row(out, j, row_weight, row_class, row_value, is_classification):
    """Add the ``j``-th of the weights and targets given (the training arrays, or
    gathered ones: :func:`gather_targets`) to the statistics row ``out``
    (:func:`read_target`, :func:`add_read_target`)."""
    row = np.uint64(j)  # (see the comment above the kernels)
    w, channel, v = read_target(row, row_weight, row_class, row_value, is_classification)
    add_read_target(out, w, channel, v, is_classification)


@njit(cache=True, inline="always")
def value_row_added(sums, row, row_weight, row_value):
    """Regression's statistics ``sums`` (a 4-tuple, kept in registers by the loops
    that add a row to them at every row) with ``row`` added as
    :func:`add_gathered_row` adds it: the same sums to the bit."""
    w = weight_at(row_weight, row)
    v = row_value[row]
    return (sums[0] + 1.0, sums[1] + w, sums[2] + w * v, sums[3] + w * v * v)


@njit(cache=True, inline="always")
def add_row(out, r, y_class, y_value, weight, is_classification):
    """Add training row ``r`` to the statistics row ``out`` (:func:`add_gathered_row`
    of the training arrays)."""
    add_gathered_row(out, r, weight, y_class, y_value, is_classification)


@njit(cache=True, _nrt=False)
def node_statistics(rows, start, end, y_class, y_value, weight, is_classification, out):
    """Statistics row of the rows ``rows[start:end]`` into ``out`` (zeroed first).

    :func:`add_row`'s sums in its order, those added at every row kept in registers
    (the count; regression's four): added to ``out`` in memory, each row's add waits
    for the previous row's store (800,000 rows: 2.23 -> 1.15 ms with 2 classes, 0.46 with
    10)."""
    out[:] = 0.0
    count = 0.0
    if is_classification:
        for i in range(start, end):
            r = np.uint64(rows[i])
            count += 1.0
            out[np.uint64(1 + int(y_class[r]))] += weight_at(weight, r)
        out[0] = count
        return
    sums = (0.0, 0.0, 0.0, 0.0)
    for i in range(start, end):
        sums = value_row_added(sums, np.uint64(rows[i]), weight, y_value)
    for c in range(4):
        out[c] = sums[c]


@njit(cache=True, _nrt=False)
def gather_targets(rows, start, end, y_class, y_value, weight, is_classification, gathered,
                   with_weights=True):  # fmt: skip
    """The targets and weights of the rows ``rows[start:end]``, read once, in node
    order: ``gathered[0, i]`` the weight of the node's ``i``-th row,
    ``gathered[1, i]`` its class index or ``y`` (float64: both exact).
    ``with_weights=False``: ``gathered[1]`` only (rows of weight 1, whose
    ``gathered[0]`` holds ones already: half the random reads)."""
    for i in range(end - start):
        r = np.uint64(rows[start + i])
        if with_weights:
            gathered[0, i] = weight_at(weight, r)
        gathered[1, i] = y_class[r] if is_classification else y_value[r]


@njit(cache=True, parallel=PRANGE_ONLY)
def gather_targets_parallel(rows, start, end, y_class, y_value, weight, is_classification,
                            gathered, with_weights, n_threads):  # fmt: skip
    """:func:`gather_targets` with the rows cut into ``n_threads`` runs, one a thread
    (the same values: each is read and written on its own)."""
    n = end - start
    for p in prange(n_threads):
        first = n * p // n_threads
        stop = n * (p + 1) // n_threads
        gather_targets(rows, start + first, start + stop, y_class, y_value, weight,
                       is_classification, gathered[:, first:stop], with_weights)  # fmt: skip


@njit(cache=True, inline="always")
def _complete_unit_histogram(hist, is_classification):
    """The channel :func:`add_read_target` leaves out for rows of weight 1, in every
    bin: a bin's row count is its classes' weights summed, a regression bin's weight
    its row count (sums of ones: whole numbers, exact in any order, so the bits
    :func:`add_gathered_row` would have summed)."""
    for b in range(hist.shape[0]):
        if is_classification:
            count = 0.0
            for c in range(1, hist.shape[1]):
                count += hist[b, c]
            hist[b, 0] = count
        else:
            hist[b, 1] = hist[b, 0]


# The histograms of one, two or four features in one pass over the rows: a pass
# reads each row's index and target once for all of its features (``node_order``:
# the targets are gathered ones, read at the row's place in the node, else the
# training arrays, read at the row). Each bin's sums are added in row order
# whatever the features passed with it: the same histograms, to the bit (420,000
# rows of 800,000, 20 features, two classes, one thread: 4.9 ms four at a time
# against 8.9 one at a time, in the same minutes).


@njit(cache=True, _nrt=False)
def _build_together(features, rows, start, end, row_weight, row_class, row_value, node_order,
                    is_classification, unit_weights):  # fmt: skip
    """The histograms of ``features``, a tuple of one, two or four ``(code column,
    histogram)`` pairs (unrolled: each column and histogram kept in registers)."""
    for column_hist in literal_unroll(features):
        column_hist[1][:, :] = 0.0
    for i in range(start, end):
        r = np.uint64(rows[i])
        t = np.uint64(i - start) if node_order else r
        w, k, v = read_target(t, row_weight, row_class, row_value, is_classification,
                              unit_weights)  # fmt: skip
        for column_hist in literal_unroll(features):
            hist = column_hist[1]
            add_read_target(hist[column_hist[0][r]], w, k, v, is_classification, unit_weights)
    if unit_weights:
        for column_hist in literal_unroll(features):
            _complete_unit_histogram(column_hist[1], is_classification)


@njit(cache=True, _nrt=False)
def build_histogram(codes_f, rows, start, end, y_class, y_value, weight, is_classification, hist):
    """Histogram of one feature over ``rows[start:end]`` into ``hist`` (zeroed first).

    Without sample weights (``weight`` empty) each row adds to one channel fewer
    (:func:`add_read_target`): a read and a write of the histogram fewer a row, the
    same histogram."""
    _build_together(((codes_f, hist),), rows, start, end, weight, y_class, y_value, False,
                    is_classification, weight.shape[0] == 0)  # fmt: skip


@njit(cache=True, inline="always")
def _stacked_pair(feature_codes, features, offsets, hist, j):
    """The code column and the histogram of the ``j``-th feature of a stack."""
    return feature_codes[features[j]], hist[offsets[j] : offsets[j + 1]]


@njit(cache=True, _nrt=False)
def _build_stack_part(first, last, feature_codes, rows, start, end, row_weight, row_class,
                      row_value, node_order, is_classification, unit_weights, features, offsets,
                      hist):  # fmt: skip
    """Histograms ``first:last`` of a stack (:func:`build_node_histograms`), four
    features a pass while four are left."""
    j = first
    while last - j >= 4:
        four = (
            _stacked_pair(feature_codes, features, offsets, hist, j),
            _stacked_pair(feature_codes, features, offsets, hist, j + 1),
            _stacked_pair(feature_codes, features, offsets, hist, j + 2),
            _stacked_pair(feature_codes, features, offsets, hist, j + 3),
        )
        _build_together(four, rows, start, end, row_weight, row_class, row_value, node_order,
                        is_classification, unit_weights)  # fmt: skip
        j += 4
    if last - j >= 2:
        two = (
            _stacked_pair(feature_codes, features, offsets, hist, j),
            _stacked_pair(feature_codes, features, offsets, hist, j + 1),
        )
        _build_together(two, rows, start, end, row_weight, row_class, row_value, node_order,
                        is_classification, unit_weights)  # fmt: skip
        j += 2
    if last - j == 1:
        one = (_stacked_pair(feature_codes, features, offsets, hist, j),)
        _build_together(one, rows, start, end, row_weight, row_class, row_value, node_order,
                        is_classification, unit_weights)  # fmt: skip


@njit(cache=True, inline="always")
def _build_stacked(first, last, feature_codes, rows, start, end, y_class, y_value, weight,
                   is_classification, features, offsets, hist, gathered):  # fmt: skip
    """:func:`_build_stack_part` of the training arrays' targets or gathered ones."""
    unit_weights = weight.shape[0] == 0
    if gathered.shape[1]:
        _build_stack_part(first, last, feature_codes, rows, start, end, gathered[0], gathered[1],
                          gathered[1], True, is_classification, unit_weights, features, offsets,
                          hist)  # fmt: skip
    else:
        _build_stack_part(first, last, feature_codes, rows, start, end, weight, y_class, y_value,
                          False, is_classification, unit_weights, features, offsets,
                          hist)  # fmt: skip


@njit(cache=True, _nrt=False, inline="always")
def build_node_histograms(
    feature_codes, rows, start, end, y_class, y_value, weight, is_classification, features,
    offsets, hist, gathered,
):  # fmt: skip
    """Histograms of several features, stacked: feature ``features[j]`` in rows
    ``offsets[j]:offsets[j+1]`` of ``hist``, each zeroed first, as
    :func:`build_histogram` makes them, to the bit (up to four in one pass over the
    rows).

    ``gathered``: the node's targets (:func:`gather_targets`), or no columns to
    read them at each row. A node deep in the tree holds one row in many of
    the training set: each feature's pass then reads the targets at scattered
    rows, a cache miss each, where a pass over gathered ones reads them in
    sequence (at 1 row in 16, 3-7x cheaper per row and feature). Without sample
    weights (``weight`` empty), ``gathered[0]`` is not read.

    Inlined into its one caller among the kernels
    (:func:`~treelearn.growing._kept_hist_kernels.build_kept`): as a kernel of its own, its
    library held a second copy of the two :func:`_build_stack_part` libraries (about 22,000
    LLVM instructions) for no caller but that one, compiled again for 4-7 s of a first fit.
    Called from Python (the grower's own loop, the tests), numba compiles it as a kernel.
    Inlined, its ``_nrt=False`` gives way to its caller's reference counting: the views of
    ``gathered`` it passes on cost a few atomic operations a node.
    """
    # (np.int64: numba would compile _build_stack_part for a literal 0 too.)
    _build_stacked(np.int64(0), features.shape[0], feature_codes, rows, start, end, y_class,
                   y_value, weight, is_classification, features, offsets, hist,
                   gathered)  # fmt: skip


@njit(cache=True, parallel=PRANGE_ONLY)
def build_node_histograms_parallel(
    feature_codes, rows, start, end, y_class, y_value, weight, is_classification, features,
    offsets, hist, gathered, n_threads,
):  # fmt: skip
    """:func:`build_node_histograms` with the features shared out among ``n_threads``
    of numba's threads, a run of them each (passed in: numba's thread count read in
    a kernel keeps it from being cached). Each histogram is its own and summed in
    row order: the result does not depend on the thread count."""
    n_features = features.shape[0]
    n_parts = max(1, min(n_threads, n_features))
    for p in prange(n_parts):
        _build_stacked(p * n_features // n_parts, (p + 1) * n_features // n_parts, feature_codes,
                       rows, start, end, y_class, y_value, weight, is_classification, features,
                       offsets, hist, gathered)  # fmt: skip


@njit(cache=True, _nrt=False)
def subtract_histograms(parent, siblings_sum, is_classification, out):
    """``out = parent - siblings_sum`` (C-contiguous histograms of one shape).

    Rounding can leave a tiny negative residue where the true value is zero; it
    is clipped on every channel that cannot be negative (all but the regression
    channel ``sum(w y)``). Read as flat runs of numbers: a classification
    histogram's values are clipped alike, in one loop the compiler vectorises
    (20 x 256 bins of three channels: 14.5 -> 1.8 us).
    """
    p = parent.reshape(-1)
    s = siblings_sum.reshape(-1)
    o = out.reshape(-1)
    if is_classification:
        for k in range(p.shape[0]):
            value = p[k] - s[k]
            o[k] = 0.0 if value < 0.0 else value
        return
    n_channels = parent.shape[1]
    for first in range(0, p.shape[0], n_channels):
        for c in range(n_channels):
            value = p[first + c] - s[first + c]
            o[first + c] = 0.0 if value < 0.0 and c != 2 else value
