"""Partition kernels: reorder a node's rows child by child after a split.

A node owns the run ``rows[start:end]``; splitting it reorders that run so
each child owns a contiguous sub-run. In exact mode every numeric feature also
keeps its own run of the node's rows in code order (``sorted_rows``), and beside
it the codes of those rows (``sorted_codes``), which are split the same way,
stably, so no node ever sorts, nor reads a presorted row's code at random.
"""

import numpy as np
from numba import njit, prange

from treelearn._copy_kernels import copy_flat
from treelearn._parallel_options import PRANGE_ONLY
from treelearn.stats._kernels import value_row_added, weight_at


@njit(cache=True)
def counting_sort_rows(codes_f, n_bins, out, out_codes):
    """All rows ordered by code (stable), in O(n + n_bins): ``out`` receives row ids,
    ``out_codes`` (unless it is empty) their codes, in the same order.

    The counts are of ``out``'s dtype (at most the number of rows): int32 below
    2**31 rows, whose counts of 800,000 distinct codes take half the cache of
    int64 ones (20 such columns, one thread: 0.198 -> 0.168 s)."""
    counts = np.zeros(n_bins + 1, dtype=out.dtype)
    for r in range(codes_f.shape[0]):
        counts[codes_f[r] + 1] += 1
    for k in range(n_bins):
        counts[k + 1] += counts[k]
    for r in range(codes_f.shape[0]):
        code = codes_f[r]
        out[counts[code]] = r
        counts[code] += 1
    if out_codes.shape[0]:
        # (counts[k] is now the end of code k's rows.)
        first = 0
        for k in range(n_bins):
            out_codes[first : counts[k]] = k
            first = counts[k]


@njit(cache=True, parallel=PRANGE_ONLY)
def counting_sort_columns(feature_codes, features, n_bins, out, out_codes):
    """:func:`counting_sort_rows` of each feature's codes ``feature_codes[features[s]]``
    (``n_bins[s]`` codes) into ``out[s]`` and ``out_codes[s]`` (no rows: the codes are not written),
    the columns shared out among numba's threads."""
    for s in prange(features.shape[0]):
        codes_s = out_codes[s] if out_codes.shape[0] else out_codes.reshape(-1)[:0]
        counting_sort_rows(feature_codes[features[s]], n_bins[s], out[s], codes_s)


@njit(cache=True, inline="always")
def _partition_sorted_run(sorted_rows, sorted_codes, s, start, end, child_of_row, bounds, buffer,
                          position):  # fmt: skip
    """Split feature slot ``s``'s run ``sorted_rows[s, start:end]`` by child, stably,
    and its codes ``sorted_codes[s, start:end]`` with it (unless ``sorted_codes``
    has no rows); ``buffer``: two rows of scratch (rows, codes)."""
    with_codes = sorted_codes.shape[0] > 0
    row_buffer = buffer[0]
    code_buffer = buffer[1]
    if bounds.shape[0] == 3:
        # Two children: both write positions in registers and no branch on the
        # child (which is random), 6.1 -> 3.7 ns per row at 800k rows.
        # (Unsigned positions and rows: see partition_threshold.)
        left = np.uint64(bounds[0] - start)
        right = np.uint64(bounds[1] - start)
        for i in range(np.uint64(start), np.uint64(end)):
            r = sorted_rows[s, i]
            goes_right = child_of_row[np.uint64(r)] != 0
            at = right if goes_right else left
            row_buffer[at] = r
            if with_codes:
                code_buffer[at] = sorted_codes[s, i]
            right += np.uint64(goes_right)
            left += np.uint64(not goes_right)
    else:
        for k in range(bounds.shape[0] - 1):
            position[k] = bounds[k] - start
        for i in range(np.uint64(start), np.uint64(end)):
            r = sorted_rows[s, i]
            k = child_of_row[np.uint64(r)]
            row_buffer[position[k]] = r
            if with_codes:
                code_buffer[position[k]] = sorted_codes[s, i]
            position[k] += 1
    first = np.uint64(start)
    for i in range(np.uint64(end - start)):
        sorted_rows[s, first + i] = row_buffer[i]
    if with_codes:
        for i in range(np.uint64(end - start)):
            sorted_codes[s, first + i] = code_buffer[i]


@njit(cache=True)
def partition_sorted_rows(sorted_rows, sorted_codes, start, end, child_of_row, bounds, buffer):
    """Split each feature's code-ordered run ``sorted_rows[s, start:end]`` into its
    children's runs (``bounds`` as :func:`partition_by_child` writes them),
    keeping the code order inside each child; ``sorted_codes`` (no rows: none
    kept) the same way. ``buffer``: two rows of at least ``end - start``."""
    position = np.empty(bounds.shape[0] - 1, dtype=np.int64)
    for s in range(sorted_rows.shape[0]):
        _partition_sorted_run(sorted_rows, sorted_codes, s, start, end, child_of_row, bounds,
                              buffer, position)  # fmt: skip


@njit(cache=True, parallel=PRANGE_ONLY)
def partition_sorted_rows_parallel(sorted_rows, sorted_codes, start, end, child_of_row, bounds):
    """:func:`partition_sorted_rows` with the features on numba's threads (each
    with its own buffer; the same result whatever the thread count)."""
    for s in prange(sorted_rows.shape[0]):
        buffer = np.empty((2, end - start), dtype=sorted_rows.dtype)
        position = np.empty(bounds.shape[0] - 1, dtype=np.int64)
        _partition_sorted_run(sorted_rows, sorted_codes, s, start, end, child_of_row, bounds,
                              buffer, position)  # fmt: skip


@njit(cache=True, _nrt=False)
def _summarise_run(k, rows, lo, hi, codes_f, missing_code, y_class, y_value, weight,
                   is_classification, child_of_row, stats_row, add_stats,
                   count_missing):  # fmt: skip
    """The rows ``rows[lo:hi]`` of child ``k``: added to ``stats_row`` (when
    ``add_stats``), marked as its rows (when ``child_of_row`` is not empty);
    returns how many of them miss the split feature (0 unless ``count_missing``).

    Without reference counting: ``stats_row`` passed on to :func:`add_row` at
    every row would otherwise count a reference up and down each time."""
    n_missing = 0
    mark_rows = child_of_row.shape[0] > 0
    if add_stats and not is_classification:
        # Regression's four sums in registers, not through memory at every row:
        # :func:`add_row`'s arithmetic in its order, the same sums to the bit.
        sums = (stats_row[0], stats_row[1], stats_row[2], stats_row[3])
        for i in range(np.uint64(lo), np.uint64(hi)):
            r = np.uint64(rows[i])  # (unsigned: see partition_threshold)
            if mark_rows:
                child_of_row[r] = k
            sums = value_row_added(sums, r, weight, y_value)
            if count_missing:
                n_missing += codes_f[r] == missing_code
        for c in range(4):
            stats_row[c] = sums[c]
        return n_missing
    if add_stats and stats_row.shape[0] == 3:
        return _summarise_two_classes(k, rows, lo, hi, codes_f, missing_code, y_class, weight,
                                      child_of_row, stats_row, count_missing)  # fmt: skip
    # More classes (when add_stats): the row count in a register, not added to
    # ``stats_row[0]`` in memory at every row (a chain of stores and loads of one
    # address: 400,000 rows of 800,000, 10 classes, 1.13 -> 0.29 ms); the same sums.
    count = stats_row[0] if add_stats else 0.0
    for i in range(np.uint64(lo), np.uint64(hi)):
        r = np.uint64(rows[i])
        if mark_rows:
            child_of_row[r] = k
        if add_stats:
            count += 1.0
            stats_row[np.uint64(1 + int(y_class[r]))] += weight_at(weight, r)
        if count_missing and codes_f[r] == missing_code:
            n_missing += 1
    if add_stats:
        stats_row[0] = count
    return n_missing


@njit(cache=True, _nrt=False)
def _summarise_two_classes(k, rows, lo, hi, codes_f, missing_code, y_class, weight,
                           child_of_row, stats_row, count_missing):  # fmt: skip
    """:func:`_summarise_run` of two classes' statistics: the count and both classes'
    weights in registers, each class added the row's weight or +0.0 (which changes
    no sum: none is -0.0). Rows of one class follow each other often with two
    classes, each row's add then waiting on the previous row's store to the same
    entry: 400,000 rows of 800,000, 0.59 -> 0.28 ms. The same sums."""
    n_missing = 0
    mark_rows = child_of_row.shape[0] > 0
    count = stats_row[0]
    first = stats_row[1]
    second = stats_row[2]
    for i in range(np.uint64(lo), np.uint64(hi)):
        r = np.uint64(rows[i])
        if mark_rows:
            child_of_row[r] = k
        count += 1.0
        w = weight_at(weight, r)
        is_first = y_class[r] == 0
        first += w if is_first else 0.0
        second += 0.0 if is_first else w
        if count_missing and codes_f[r] == missing_code:
            n_missing += 1
    stats_row[0] = count
    stats_row[1] = first
    stats_row[2] = second
    return n_missing


@njit(cache=True, _nrt=False)
def largest_child(bounds, n_children):
    """The child with most rows (the first of equals) of the runs ``bounds``: the
    one whose histograms and, with exact sums, statistics are the parent's less
    its siblings'."""
    largest = 0
    for k in range(1, n_children):
        if bounds[k + 1] - bounds[k] > bounds[largest + 1] - bounds[largest]:
            largest = k
    return largest


@njit(cache=True, inline="always")
def _child_to_subtract(bounds, exact_sums):
    """:func:`largest_child`, or -1 without ``exact_sums``: every child summed."""
    return largest_child(bounds, bounds.shape[0] - 1) if exact_sums else -1


@njit(cache=True, inline="always")
def _subtract_siblings(parent_stats, stats_out, largest):
    """``stats_out[largest] = parent_stats - (the other rows of stats_out)``."""
    for c in range(stats_out.shape[1]):
        value = parent_stats[c]
        for k in range(stats_out.shape[0]):
            if k != largest:
                value -= stats_out[k, c]
        stats_out[largest, c] = value


@njit(cache=True, inline="always")
def _skips_largest(largest, known_missing, child_of_row):
    """Whether the largest child's rows need no visit: its statistics are subtracted
    (``largest`` not -1), the missing rows were counted by the partition, and no
    row is marked with its child."""
    return largest >= 0 and known_missing >= 0 and child_of_row.shape[0] == 0


@njit(cache=True)
def summarise_children(
    rows,
    bounds,
    codes_f,
    missing_code,
    y_class,
    y_value,
    weight,
    is_classification,
    child_of_row,
    sorted_rows,
    sorted_codes,
    sorted_buffer,
    stats_out,
    parent_stats,
    exact_sums,
    known_missing,
):
    """After a partition: each child's statistics row, the child of every row,
    and each feature's code-ordered runs (and their codes, unless
    ``sorted_codes`` has no rows) split by child (``sorted_buffer``: two rows of
    scratch, see :func:`partition_sorted_rows`).

    ``bounds`` are the children's run boundaries in ``rows``. Writes
    ``stats_out[k]`` for child ``k`` and ``child_of_row[r]`` for the node's
    rows (not when ``child_of_row`` is empty: nothing reads it where no
    feature keeps presorted rows, and deep in the tree each of these stores is
    a cache miss); returns how many of them miss the split feature (code
    ``missing_code``).

    ``parent_stats``: the node's statistics. ``exact_sums``: every sum of them
    is exact (classes, whole row weights below
    :data:`~treelearn.splitting._kernels.WHOLE_WEIGHT_LIMIT`); the child with
    most rows then gets the node's statistics less its siblings' (the same
    numbers, to the bit, as summing its rows), and its rows are only counted
    and marked: a class weight added row by row is a chain of loads and stores
    through memory, the costliest step here.

    ``known_missing``: how many of the node's rows miss the split feature, as the
    partition counted them (:func:`partition_threshold`), or -1 to count them
    here. When it is known and no row is marked, the largest child's rows
    (subtracted) are not visited at all.
    """
    largest = _child_to_subtract(bounds, exact_sums)
    count_missing = known_missing < 0
    skip_largest = _skips_largest(largest, known_missing, child_of_row)
    n_missing = 0
    for k in range(bounds.shape[0] - 1):
        stats_out[k, :] = 0.0
        if k == largest and skip_largest:
            continue
        n_missing += _summarise_run(
            k, rows, bounds[k], bounds[k + 1], codes_f, missing_code, y_class, y_value, weight,
            is_classification, child_of_row, stats_out[k], k != largest, count_missing,
        )  # fmt: skip
    if not count_missing:
        n_missing = known_missing
    if largest >= 0:
        _subtract_siblings(parent_stats, stats_out, largest)
    if sorted_rows.shape[0] > 0:
        partition_sorted_rows(
            sorted_rows, sorted_codes, bounds[0], bounds[-1], child_of_row, bounds, sorted_buffer
        )
    return n_missing


@njit(cache=True, parallel=PRANGE_ONLY)
def summarise_children_parallel(
    rows, bounds, codes_f, missing_code, y_class, y_value, weight, is_classification,
    child_of_row, stats_out, parent_stats, exact_sums, known_missing, piece_rows,
):  # fmt: skip
    """:func:`summarise_children` without the presorted runs, on numba's threads,
    with the same statistics to the bit whatever the thread count.

    Without ``exact_sums`` (sums that depend on their order), each child's
    rows are summed in order by one thread. With them, the rows visited (the
    node's run; the smaller child's of two when the largest's need no visit)
    are cut into pieces of about ``piece_rows`` rows, each summed on its own
    (the children other than the largest) and the pieces then added: the threads
    share the rows evenly however unequal the children are.
    """
    n_children = bounds.shape[0] - 1
    count_missing = known_missing < 0
    if not exact_sums:
        missing_of_child = np.zeros(n_children, dtype=np.int64)
        for k in prange(n_children):
            stats_out[k, :] = 0.0
            # (np.bool_: numba would compile _summarise_run for a literal True too;
            # np.int64: for prange's unsigned index too.)
            missing_of_child[k] = _summarise_run(
                np.int64(k), rows, bounds[k], bounds[k + 1], codes_f, missing_code, y_class,
                y_value, weight, is_classification, child_of_row, stats_out[k], np.bool_(True),
                count_missing,
            )  # fmt: skip
        return missing_of_child.sum() if count_missing else known_missing
    largest = _child_to_subtract(bounds, exact_sums)
    skip_largest = _skips_largest(largest, known_missing, child_of_row)
    start = bounds[0]
    n = bounds[n_children] - start
    if skip_largest and n_children == 2:
        start = bounds[1 - largest]
        n = bounds[2 - largest] - start
    n_pieces = max(1, -(-n // piece_rows))
    pieces = np.zeros((n_pieces, n_children, stats_out.shape[1]))
    missing_of_piece = np.zeros(n_pieces, dtype=np.int64)
    for p in prange(n_pieces):
        first = start + n * p // n_pieces
        stop = start + n * (p + 1) // n_pieces
        for k in range(n_children):
            lo = max(first, bounds[k])
            hi = min(stop, bounds[k + 1])
            if lo < hi and not (k == largest and skip_largest):
                missing_of_piece[p] += _summarise_run(
                    k, rows, lo, hi, codes_f, missing_code, y_class, y_value, weight,
                    is_classification, child_of_row, pieces[p, k], k != largest, count_missing,
                )  # fmt: skip
    stats_out[:, :] = 0.0
    for p in range(n_pieces):
        stats_out += pieces[p]
    _subtract_siblings(parent_stats, stats_out, largest)
    return missing_of_piece.sum() if count_missing else known_missing


@njit(cache=True, _nrt=False)
def partition_threshold(codes_f, rows, start, end, left_code, missing_code, missing_left, buffer):
    """Stable in-place partition of ``rows[start:end]`` by ``code <= left_code``.

    Rows whose code is ``missing_code`` go left iff ``missing_left``. Returns
    the index where the right child's rows begin and the number of rows with
    that code (the children's summaries need not read the codes again).
    """
    # Unsigned positions and rows: numba adds a signed index's length where it is
    # negative, a few instructions at every read and write (see
    # treelearn.growing._local_kernels._partition_orders).
    left_at = np.uint64(start)
    n_right = np.uint64(0)
    n_missing = 0
    for i in range(np.uint64(start), np.uint64(end)):
        r = rows[i]
        code = codes_f[np.uint64(r)]
        is_missing = code == missing_code
        n_missing += is_missing
        goes_left = missing_left if is_missing else code <= left_code
        # Both places written, one kept: no branch on the side, which is random.
        rows[left_at] = r
        buffer[n_right] = r
        left_at += np.uint64(goes_left)
        n_right += np.uint64(not goes_left)
    for i in range(n_right):  # (a loop: a slice copy may allocate)
        rows[left_at + i] = buffer[i]
    return int(left_at), n_missing


@njit(cache=True, parallel=PRANGE_ONLY)
def partition_threshold_parallel(
    codes_f, rows, start, end, left_code, missing_code, missing_left, buffer, n_pieces
):
    """:func:`partition_threshold` with the run cut into ``n_pieces`` pieces on
    numba's threads: the same rows in the same order (a stable partition is
    unique), whatever ``n_pieces`` is.

    Each piece first partitions itself into its own span of ``buffer`` (left
    rows from its front, right rows from its back, reversed), then every piece
    copies its two parts to their places in ``rows``. Returns what
    :func:`partition_threshold` returns.
    """
    n = end - start
    n_left = np.empty(n_pieces, dtype=np.int64)
    n_missing = np.empty(n_pieces, dtype=np.int64)
    for p in prange(n_pieces):
        first = n * p // n_pieces
        stop = n * (p + 1) // n_pieces
        left = np.uint64(first)  # (unsigned: see partition_threshold)
        right = np.uint64(stop - 1)
        missing = 0
        for i in range(np.uint64(start + first), np.uint64(start + stop)):
            r = rows[i]
            code = codes_f[np.uint64(r)]
            is_missing = code == missing_code
            missing += is_missing
            goes_left = missing_left if is_missing else code <= left_code
            buffer[left if goes_left else right] = r
            left += np.uint64(goes_left)
            right -= np.uint64(not goes_left)
        n_left[p] = int(left) - first
        n_missing[p] = missing
    left_before = np.zeros(n_pieces + 1, dtype=np.int64)
    for p in range(n_pieces):
        left_before[p + 1] = left_before[p] + n_left[p]
    middle = start + left_before[n_pieces]
    # (Unsigned positions here too: the partition of 200,000 to 800,000 rows took
    # 15-25% less time than with signed ones, on one and two threads of an Intel Xeon.)
    for p in prange(n_pieces):
        first = np.uint64(n * p // n_pieces)
        stop = np.uint64(n * (p + 1) // n_pieces)
        piece_left = np.uint64(n_left[p])
        left_at = np.uint64(start + left_before[p])
        for i in range(piece_left):
            rows[left_at + i] = buffer[first + i]
        # Right rows before this piece's: the rows before it that went right.
        right_at = np.uint64(middle - left_before[p]) + first
        last = stop - np.uint64(1)
        for i in range(stop - first - piece_left):
            rows[right_at + i] = buffer[last - i]
    return middle, n_missing.sum()


@njit(cache=True)
def partition_by_child(codes_f, rows, start, end, child_of_code, n_children, buffer, bounds):
    """Stable in-place partition of ``rows[start:end]`` into ``n_children`` runs.

    ``child_of_code[code]`` is the child of each code (every code present must
    map to a child). Writes the run boundaries to ``bounds[0..n_children]``.
    """
    counts = np.zeros(n_children + 1, dtype=np.int64)
    for i in range(start, end):
        counts[child_of_code[codes_f[rows[i]]] + 1] += 1
    for k in range(n_children):
        counts[k + 1] += counts[k]
    for k in range(n_children + 1):
        bounds[k] = start + counts[k]
    for i in range(start, end):
        r = rows[i]
        child = child_of_code[codes_f[r]]
        buffer[counts[child]] = r
        counts[child] += 1
    copy_flat(buffer[: end - start], rows[start:end])
