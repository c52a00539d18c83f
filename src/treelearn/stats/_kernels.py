"""Histogram kernels.

A histogram of feature ``f`` at a node has one row per code (``n_codes[f] + 1``
rows, the missing code last) and one column per statistics channel (see
:mod:`treelearn._dtypes`). Histograms add up over disjoint row sets, so a
child's histogram is its parent's minus its siblings' (the subtraction trick).
"""

from numba import njit, prange

# ``_nrt=False``: these kernels neither allocate nor return arrays, so numba
# compiles them without reference counting (see treelearn.splitting._kernels).


@njit(cache=True, inline="always")
def add_row(out, r, y_class, y_value, weight, is_classification):
    """Add training row ``r`` to the statistics row ``out``."""
    out[0] += 1.0
    w = weight[r]
    if is_classification:
        out[1 + y_class[r]] += w
    else:
        v = y_value[r]
        out[1] += w
        out[2] += w * v
        out[3] += w * v * v


@njit(cache=True, _nrt=False)
def node_statistics(rows, start, end, y_class, y_value, weight, is_classification, out):
    """Statistics row of the rows ``rows[start:end]`` into ``out`` (zeroed first)."""
    out[:] = 0.0
    for i in range(start, end):
        add_row(out, rows[i], y_class, y_value, weight, is_classification)


@njit(cache=True, _nrt=False)
def build_histogram(codes_f, rows, start, end, y_class, y_value, weight, is_classification, hist):
    """Histogram of one feature over ``rows[start:end]`` into ``hist`` (zeroed first)."""
    hist[:, :] = 0.0
    for i in range(start, end):
        r = rows[i]
        add_row(hist[codes_f[r]], r, y_class, y_value, weight, is_classification)


@njit(cache=True, inline="always")
def _build_stacked(
    j, codes, rows, start, end, y_class, y_value, weight, is_classification, features, offsets,
    hist,
):  # fmt: skip
    """The ``j``-th histogram of a stack (:func:`build_node_histograms`)."""
    build_histogram(
        codes[:, features[j]], rows, start, end, y_class, y_value, weight, is_classification,
        hist[offsets[j] : offsets[j + 1]],
    )  # fmt: skip


@njit(cache=True, _nrt=False)
def build_node_histograms(
    codes, rows, start, end, y_class, y_value, weight, is_classification, features, offsets, hist
):
    """Histograms of several features, stacked: feature ``features[j]`` in rows
    ``offsets[j]:offsets[j+1]`` of ``hist``."""
    for j in range(features.shape[0]):
        _build_stacked(
            j, codes, rows, start, end, y_class, y_value, weight, is_classification, features,
            offsets, hist,
        )  # fmt: skip


@njit(cache=True, parallel=True)
def build_node_histograms_parallel(
    codes, rows, start, end, y_class, y_value, weight, is_classification, features, offsets, hist
):
    """:func:`build_node_histograms` with the features on numba's threads (each
    histogram is its own, so the result does not depend on the thread count)."""
    for j in prange(features.shape[0]):
        _build_stacked(
            j, codes, rows, start, end, y_class, y_value, weight, is_classification, features,
            offsets, hist,
        )  # fmt: skip


@njit(cache=True, _nrt=False)
def subtract_histograms(parent, siblings_sum, is_classification, out):
    """``out = parent - siblings_sum``.

    Rounding can leave a tiny negative residue where the true value is zero; it
    is clipped on every channel that cannot be negative (all but the regression
    channel ``sum(w y)``).
    """
    for i in range(parent.shape[0]):
        for c in range(parent.shape[1]):
            value = parent[i, c] - siblings_sum[i, c]
            if value < 0.0 and (is_classification or c != 2):
                value = 0.0
            out[i, c] = value
