"""Histogram mode: numeric columns cut into at most ``max_bins`` quantile bins.

A column with at most ``max_bins`` distinct values keeps one bin per value, so
its codes are the exact codes. Otherwise the bin edges are the midpoint
quantiles of the column's known values at ``1/max_bins, 2/max_bins, ...``
(scikit-learn's HistGradientBoosting bins the same way), with repeated edges
and edges that would leave a bin empty dropped, so bins hold roughly equal
numbers of rows and none is empty.

A value's code is the index of its bin: ``edges[k-1] < x <= edges[k]`` for
bin ``k``, so a split that sends bins ``0..k`` left is the test
``x <= edges[k]``. Missing values take the code ``len(edges) + 1`` (one past
the last bin), as in exact mode.
"""

import numpy as np


def quantile_bin_edges(known_values, max_bins):
    """Upper edges of all but the last bin of a numeric column.

    Parameters
    ----------
    known_values : ndarray of float64
        The column's known (non-missing) training values.
    max_bins : int
        At most this many bins (2 or more).

    Returns
    -------
    ndarray of float64, sorted, distinct, at most ``max_bins - 1`` entries
    """
    distinct = np.unique(known_values)
    if distinct.shape[0] <= max_bins:
        edges = distinct[:-1] / 2.0 + distinct[1:] / 2.0
        # Adjacent floats: the midpoint rounds up to the right value; keep the left.
        return np.where(edges == distinct[1:], distinct[:-1], edges)
    quantiles = np.linspace(0.0, 1.0, max_bins + 1)[1:-1]
    edges = np.unique(np.quantile(known_values, quantiles, method="midpoint"))
    # An edge equal to the largest value would leave the last bin empty.
    edges = edges[edges < distinct[-1]]
    # Two edges in one gap between values leave a bin empty: drop its upper edge
    # (merging it into the next bin, which holds rows).
    counts = np.bincount(np.searchsorted(edges, distinct, side="left"), minlength=edges.size + 1)
    return edges[counts[:-1] > 0]


def encode_numeric_binned(column, max_bins):
    """Bin codes of a numeric column and its bin edges.

    Returns
    -------
    codes : ndarray of int64
        Bin of each value; missing rows get ``len(edges) + 1``.
    edges : ndarray of float64
        From :func:`quantile_bin_edges`.
    """
    known = ~column.missing
    edges = quantile_bin_edges(column.values[known], max_bins)
    codes = np.full(column.values.shape[0], edges.shape[0] + 1, dtype=np.int64)
    codes[known] = np.searchsorted(edges, column.values[known], side="left")
    return codes, edges
