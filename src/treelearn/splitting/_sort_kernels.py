"""A node's rows ordered by a feature's code, without allocating: an insertion,
counting or merge sort (:func:`sort_rows_by_code`, :func:`insertion_sort_rows_by_code`,
:func:`merge_sort_rows_by_code`, :func:`_sort_small_node`), and the compact
histogram of the codes present read off them (:func:`compact_histogram`).

Used by :func:`~treelearn.splitting._kernels.fill_feature_histogram`,
:func:`~treelearn.splitting._kernels.evaluate_numeric_feature` (small nodes), local
mode and C4.5's :func:`~treelearn.splitting._gain_ratio_kernels.c45_histogram`;
``_nrt=False`` as described in :mod:`treelearn.splitting._kernels`.
"""

from numba import njit

from treelearn.stats._kernels import add_row

#: Nodes with at most this many rows order them by code with an insertion sort.
INSERTION_SORT_MAX_ROWS = 32
#: Larger nodes use a counting sort when the feature has at most this many codes
#: per node row (it costs one pass over the codes and two over the rows).
COUNTING_SORT_BINS_PER_ROW = 8


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


@njit(cache=True, _nrt=False, inline="always")
def insertion_sort_rows_by_code(codes_f, rows, start, end, out):
    """The node's rows ``rows[start:end]`` ordered by code (stable) into ``out`` by an
    insertion sort: for nodes of at most :data:`INSERTION_SORT_MAX_ROWS` rows."""
    for i in range(end - start):
        r = rows[start + i]
        code = codes_f[r]
        j = i
        while j > 0 and codes_f[out[j - 1]] > code:
            out[j] = out[j - 1]
            j -= 1
        out[j] = r


@njit(cache=True, _nrt=False)
def sort_rows_by_code(codes_f, rows, start, end, n_bins, out, counts, work):
    """The node's rows ``rows[start:end]`` ordered by code (stable) into ``out``.

    Without allocating: an insertion sort for at most
    :data:`INSERTION_SORT_MAX_ROWS` rows, a counting sort over the ``n_bins`` codes
    where there are at most :data:`COUNTING_SORT_BINS_PER_ROW` of them per row
    (``counts`` needs ``n_bins + 1`` entries), else a merge sort
    (:func:`merge_sort_rows_by_code`; ``work`` needs three entries per row).
    ``counts`` and ``work`` may be the same array.
    """
    m = end - start
    if m <= INSERTION_SORT_MAX_ROWS:
        insertion_sort_rows_by_code(codes_f, rows, start, end, out)
        return
    if n_bins > COUNTING_SORT_BINS_PER_ROW * m:
        merge_sort_rows_by_code(codes_f, rows, start, end, out, work)
        return
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


@njit(cache=True, _nrt=False)
def merge_sort_rows_by_code(codes_f, rows, start, end, out, work):
    """The node's rows ordered by code (stable) into ``out``, by a bottom-up merge
    sort: :func:`sort_rows_by_code`'s where neither of its other sorts pays (more
    than a few rows, many codes per row). ``work`` needs three entries per node row."""
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


@njit(cache=True)
def _sort_small_node(f, feature_codes, rows, start, end, by_row_id, keys, order):
    """Node rows ``0..m-1`` ordered by feature ``f``'s code into ``order`` (their
    codes, sorted, into ``keys``): an insertion sort, ties kept in node order, or
    in row-id order when ``by_row_id`` (the order of the presorted rows)."""
    for i in range(end - start):
        r = rows[start + i]
        code = feature_codes[f, r]
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
