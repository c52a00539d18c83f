"""Histogram mode: numeric columns cut into at most ``max_bins`` quantile bins.

Bin edges
    A column with at most ``max_bins`` distinct values keeps one bin per value,
    so its codes are the exact codes (the edges are the midpoints between
    neighbouring values), and the dataset makes it an exact column: no bin
    edges, its distinct values kept (:class:`ColumnBins`), as exact mode encodes
    it (see Thresholds). Otherwise the bin edges are the midpoint quantiles of
    the column's known values at ``1/max_bins, 2/max_bins, ...``
    (scikit-learn's HistGradientBoosting bins the same way), with repeated
    edges and edges that would leave a bin empty dropped, so bins hold roughly
    equal numbers of rows and none is empty.

Subsample
    A column with more than :data:`BIN_SAMPLE_ROWS` known values takes its
    quantiles from a sample of that many of them (LightGBM's
    ``bin_construct_sample_cnt`` and HistGradientBoosting's ``subsample`` are
    the same 200,000): a uniform random sample without replacement drawn with
    the fixed seed 0 (:func:`sample_positions`), so the same column always gets
    the same edges (with the same numpy: its generator's streams may change
    between numpy versions). Random rather than every k-th row: rows often come in a
    pattern (a period, blocks by group or time), and a strided sample of such
    a column can see only some phases of it; a random sample's quantiles miss
    the column's by about 0.1% of the rows (one standard error,
    ``sqrt(q(1-q)/200000)`` at most), against a bin of 0.4% of the rows at
    ``max_bins=255``.

    The sample never costs a small-cardinality column its exactness: when the
    sample has at most ``max_bins`` distinct values, one pass over the full
    column (a binary search among those values) looks for values the sample
    missed. If there are none, or if with them the column still has at most
    ``max_bins`` distinct values, the column keeps one bin per value; if they
    bring it above ``max_bins``, its edges are the quantiles of the full
    column (computed from its value counts). So a column's edges differ from
    the full column's only when its sample alone has more than ``max_bins``
    distinct values.

Codes
    A value's code is the index of its bin: ``edges[k-1] < x <= edges[k]`` for
    bin ``k`` (``np.searchsorted(edges, x, side="left")``), so a split that
    sends bins ``0..k`` left is the test ``x <= edges[k]``. Missing values take
    the code ``len(edges) + 1`` (one past the last bin), as in exact mode. A
    numba kernel (:mod:`treelearn.data._kernels`) does the binary search and
    writes each column straight into the code matrix, in its narrow dtype: at
    most ``max_bins`` bins means codes ``0 .. max_bins - 1`` and a missing code
    of at most ``max_bins``, so ``max_bins=255`` keeps the whole matrix in one
    byte per cell. The edges come from the column's (or its sample's) values
    sorted by ``np.sort``: with more than ``max_bins`` distinct values, the
    quantiles are read off the sorted values at their ranks
    (:func:`sorted_quantile_edges`); with fewer, a kernel of
    :mod:`treelearn.data._kernels` lists the distinct values and their counts.

Thresholds
    A split of a node between the codes ``l`` (the highest of its rows going
    left) and ``r`` (the lowest going right) sends its rows the same way with any
    threshold from ``edges[l]`` to ``edges[r - 1]``: the bins between hold none
    of its rows. Its threshold is the middle of that gap, ``edges[l] / 2 +
    edges[r - 1] / 2`` (:func:`bin_threshold`; ``edges[l]`` when the bins are
    neighbours), as an exact tree puts its threshold midway between the node's two
    neighbouring values, so that an unseen value in the gap goes to the side it
    is nearer. The upper edge of the left bin (scikit-learn's
    HistGradientBoosting's choice) sends the whole gap right: at full depth, where
    a small node's two sides are often several bins apart, that cost 0.44 points
    of held-out accuracy (ten classes, 100,000 x 20, eight data sets;
    ``benchmarks/bench_binning_accuracy.py``). With ``threshold_at="data"`` the
    threshold stays at ``edges[l]``, the nearest to the largest value on the left
    that the bins tell. A column with at most ``max_bins`` distinct values is an
    exact column (see Bin edges), its thresholds the exact tree's, ``v[l] / 2 +
    v[r] / 2`` between the node's two values: its edges, ``v[k] / 2 + v[k + 1] /
    2``, would give that only where the two are neighbours or each as far from
    its inner neighbour (as integers are), and moved 7 of the 11 thresholds of the
    wine table's tree.

Nominal columns
    Only numeric columns are binned. A nominal column keeps one code per
    category however many categories it has, ``max_bins`` or not (a set of
    categories has no order to cut into bins, and merging categories would
    lose which is which): a column with more than 255 categories widens the
    code matrix to ``uint16`` (:func:`treelearn._dtypes.code_dtype_for`), and
    splits on it still separate categories exactly.
"""

import functools
from typing import NamedTuple

import numpy as np

from treelearn._dtypes import code_dtype_for
from treelearn._threads import map_on_threads
from treelearn.data import _kernels
from treelearn.data.encoding import midpoint_thresholds

#: Columns with more known values than this take their bin edges from a sample of this size.
BIN_SAMPLE_ROWS = 200_000
#: Seed of the sample (see the module docstring).
BIN_SAMPLE_SEED = 0


def bin_threshold(edges, left_code, right_code):
    """The threshold of a split between the bins ``left_code`` and ``right_code``
    (codes, or arrays of them) of a column with bin ``edges``: the middle of the
    bins between them, ``edges[left_code]`` when they are neighbours (see the
    module docstring). :func:`treelearn.growing._node_tables.threshold_of` is the
    same sum in the growing loop."""
    return edges[left_code] / 2.0 + edges[right_code - 1] / 2.0


@functools.lru_cache(maxsize=4)
def sample_positions(n_values, n_sample):
    """Sorted positions of the deterministic sample of ``n_sample`` among ``n_values``.

    A uniform random sample without replacement from
    ``np.random.default_rng(BIN_SAMPLE_SEED)``; the same ``n_values`` always
    gives the same positions (columns without missing values share them).
    Read-only.
    """
    rng = np.random.default_rng(BIN_SAMPLE_SEED)
    positions = np.sort(rng.choice(n_values, size=n_sample, replace=False))
    positions.flags.writeable = False
    return positions


def _distinct_counts(ascending):
    """The distinct values of a sorted column (``np.sort``: NaN last, and left out) as
    float64, and how often each occurs: one pass for the runs
    (:func:`treelearn.data._kernels.value_runs`); -0.0 counts as 0.0.
    """
    distinct = np.empty(ascending.shape[0])
    counts = np.empty(ascending.shape[0], dtype=np.int64)
    n_runs = _kernels.value_runs(ascending, distinct, counts)
    return distinct[:n_runs], counts[:n_runs]


def _midpoint_edges(distinct):
    """One bin per value: the thresholds between neighbouring distinct values."""
    return midpoint_thresholds(distinct[:-1], distinct[1:])


@functools.lru_cache(maxsize=8)
def _midpoint_ranks(n, max_bins):
    """The ranks numpy's ``midpoint`` quantiles of ``n`` values at ``q = k / max_bins``
    (``0 < k < max_bins``) read: the lower and upper neighbours' ranks and the weight
    ``gamma`` of the upper one (numpy 1.22+'s arithmetic). Read-only, and made once
    for the columns of one length (a dozen small numpy calls: 1 ms of a fit of 20
    columns, each sorted or sampled to the same length)."""
    quantiles = np.linspace(0.0, 1.0, max_bins + 1)[1:-1]
    scaled = (n - 1) * quantiles
    virtual = 0.5 * (np.floor(scaled) + np.ceil(scaled))
    previous = np.floor(virtual)
    following = previous + 1
    above = virtual >= n - 1
    previous[above] = n - 1
    following[above] = n - 1
    gamma = np.where(virtual % 1 == 0, 0.0, 0.5)
    ranks = previous.astype(np.intp), following.astype(np.intp), gamma
    for array in ranks:
        array.flags.writeable = False
    return ranks


def midpoint_quantiles(distinct, counts, max_bins):
    """``np.quantile(x, q, method="midpoint")`` at ``q = k / max_bins``, ``0 < k < max_bins``,
    for the values ``x`` that hold ``counts[k]`` copies of ``distinct[k]`` (float64,
    ascending).

    Bit for bit numpy's arithmetic (numpy 1.22+'s ``midpoint`` rule and its
    two-sided linear interpolation,
    :func:`treelearn.data._kernels.midpoint_quantiles_at`), read off the value
    counts instead of a partitioned copy of the column.
    """
    previous, following, gamma = _midpoint_ranks(int(counts.sum()), max_bins)
    # The value of rank r is the first distinct value whose cumulative count exceeds r.
    cumulative = np.cumsum(counts)
    out = np.empty(previous.shape[0])
    _kernels.midpoint_quantiles_at(
        distinct,
        np.searchsorted(cumulative, previous, side="right"),
        np.searchsorted(cumulative, following, side="right"),
        gamma,
        out,
    )
    return out


def sorted_quantile_edges(ascending, max_bins):
    """The bin edges of a column from its sorted values ``ascending`` (float32 or
    float64, no NaN, more than ``max_bins`` distinct): its quantiles read off the
    values at their ranks (as float64, -0.0 as 0.0), then the edges from them, in
    one kernel (:func:`treelearn.data._kernels.sorted_quantile_edges`): 8 us a column
    of 80,000 or 200,000 float32 values, against 49 and 115 us for the dozen numpy
    calls it replaced (an Intel Xeon)."""
    previous, following, gamma = _midpoint_ranks(ascending.shape[0], max_bins)
    out = np.empty(previous.shape[0])
    n_edges = _kernels.sorted_quantile_edges(ascending, previous, following, gamma, out)
    return out[:n_edges]


def _quantile_edges(distinct, counts, max_bins):
    """The bin edges of a column from its distinct values and their counts (more
    than ``max_bins`` distinct): :func:`midpoint_quantiles`, then the edges from
    them as :func:`sorted_quantile_edges` makes them."""
    quantiles = midpoint_quantiles(distinct, counts, max_bins)
    return quantiles[: _kernels.quantile_edges_in_place(quantiles, distinct)]


def padded(sorted_values):
    """``sorted_values`` padded with ``+inf`` to ``2**depth - 1`` entries, and ``depth``.

    The form the kernels' fixed-depth binary search reads
    (:mod:`treelearn.data._kernels`).
    """
    depth = int(sorted_values.shape[0]).bit_length()
    out = np.full((1 << depth) - 1, np.inf)
    out[: sorted_values.shape[0]] = sorted_values
    return out, depth


def _unseen_distinct(known, distinct, at_most, parallel):
    """The distinct values of ``known`` (NaN aside) that are none of the sorted
    ``distinct`` (float64, ascending, -0.0 as 0.0), in one pass; None when there are
    more than ``at_most`` of them (the column then has too many values to keep)."""
    table, depth = padded(distinct)
    n = known.shape[0]
    n_chunks = 1
    kernel = _kernels.unseen_distinct_serial
    if parallel and n >= _kernels.PARALLEL_MIN_ROWS:
        n_chunks = -(-n // _kernels.CHUNK)
        kernel = _kernels.unseen_distinct_parallel
    found = np.empty((n_chunks, at_most))
    n_found = np.empty(n_chunks, dtype=np.int64)
    kernel(known, table, depth, distinct.shape[0], found, n_found)
    if n_found.max() > at_most:
        return None
    # (Each chunk's values are distinct, not the chunks' together.)
    unseen = np.unique(found[np.arange(at_most) < n_found[:, None]])
    return unseen if unseen.shape[0] <= at_most else None


class ColumnBins(NamedTuple):
    """A numeric column's binning (:func:`quantile_bins`)."""

    #: Upper edges of all but the last bin (float64, sorted, distinct).
    edges: np.ndarray
    #: The column's sorted distinct known values (float64) where it has a bin per
    #: value, else None: such a column is encoded as an exact one (see the module
    #: docstring), its codes those values' ranks.
    values: np.ndarray | None


def quantile_bin_edges(known_values, max_bins, parallel=True, sample=None, sample_sorted=False):
    """Upper edges of all but the last bin of a numeric column: the ``edges`` of
    :func:`quantile_bins` (see there for the parameters).

    Returns
    -------
    ndarray of float64, sorted, distinct, at most ``max_bins - 1`` entries
    """
    return quantile_bins(known_values, max_bins, parallel, sample, sample_sorted).edges


def quantile_bins(known_values, max_bins, parallel=True, sample=None, sample_sorted=False):
    """The bins of a numeric column (see the module docstring).

    Parameters
    ----------
    known_values : array of numbers
        The column's known (non-missing) training values; float32 and float64
        arrays are read where they are, in any layout (never copied whole,
        never written), other numbers as float64.
    max_bins : int
        At most this many bins (2 or more).
    parallel : bool
        Whether a long column may be read on numba's threads; False where the
        caller runs columns on threads of its own (numba's default thread pool
        must not be entered from two threads at once).
    sample : array of numbers, optional
        ``known_values[sample_positions(n, BIN_SAMPLE_ROWS)]`` already gathered
        (:func:`matrix_samples`), for a column of more than
        :data:`BIN_SAMPLE_ROWS` values; for a shorter one, a copy of all of
        ``known_values`` (in any order). Read from ``known_values`` when None.
    sample_sorted : bool
        Whether ``sample`` is already in ascending order (sorted by the caller,
        as :func:`sort_samples` sorts them); it is then read as it is.

    Returns
    -------
    ColumnBins
        The edges, and the column's distinct values where it has at most
        ``max_bins`` of them (a bin each).
    """
    known = _kernels.as_kernel_floats(known_values)
    n = known.shape[0]
    sampled = n > BIN_SAMPLE_ROWS
    if sample is None:
        sample = known[sample_positions(n, BIN_SAMPLE_ROWS)] if sampled else known
    ascending = sample if sample_sorted else np.sort(sample)
    if _kernels.distinct_at_most(ascending, max_bins + 1) > max_bins:
        # Quantiles read straight off the sorted values, no distinct values listed.
        return ColumnBins(sorted_quantile_edges(ascending, max_bins), None)
    distinct, counts = _distinct_counts(ascending)
    if sampled and distinct.shape[0] <= max_bins:
        # Exactness for few distinct values: look for values the sample missed.
        missed = _unseen_distinct(known, distinct, max_bins - distinct.shape[0], parallel)
        if missed is None:
            # More than max_bins values in all, some of them rare: the whole column's
            # quantiles, from its value counts.
            distinct, counts = _distinct_counts(np.sort(known))
            return ColumnBins(_quantile_edges(distinct, counts, max_bins), None)
        if missed.shape[0]:
            distinct = np.union1d(distinct, missed)
    if distinct.shape[0] <= max_bins:
        # (A copy: ``distinct`` is a view of an array as long as the sample.)
        return ColumnBins(_midpoint_edges(distinct), distinct.copy())
    return ColumnBins(_quantile_edges(distinct, counts, max_bins), None)


def column_bins(column, max_bins, parallel=True, sample=None, sample_sorted=False):
    """:func:`quantile_bins` of a numeric :class:`~treelearn.data.schema.RawColumn`.

    A column without missing values is read where it is; otherwise its known
    values are gathered first (in the column's own dtype). ``sample`` and
    ``sample_sorted``: as :func:`quantile_bin_edges` takes them (a column without
    missing values only).
    """
    values = column.values
    if column.has_missing:
        if sample is not None:
            raise ValueError("a sample of a column with missing values must be of its known values")
        values = values[~column.missing]
    return quantile_bins(values, max_bins, parallel, sample, sample_sorted)


def matrix_samples(matrix, columns, parallel=True):
    """The bin sample of each of ``columns`` of a C-ordered float32 or float64
    ``matrix`` without missing values and of more than :data:`BIN_SAMPLE_ROWS`
    rows: ``out[t]`` is ``matrix[:, columns[t]][sample_positions(...)]`` (what
    :func:`quantile_bin_edges` would gather), every sampled row read once for all
    the columns.

    One column at a time, the sample reads a cache line of the matrix for each
    sampled row and column: on 800,000 x 20 float32 rows, 28 ms for the 20
    columns one by one against 8 ms here (an Intel Xeon, one thread).
    """
    positions = sample_positions(matrix.shape[0], BIN_SAMPLE_ROWS)
    out = np.empty((len(columns), positions.shape[0]), dtype=matrix.dtype)
    gather = (
        _kernels.gather_matrix_rows_parallel
        if parallel and positions.shape[0] >= _kernels.PARALLEL_MIN_ROWS
        else _kernels.gather_matrix_rows_serial
    )
    gather(matrix, positions, np.asarray(columns, dtype=np.int64), out)
    return out


def sort_samples(samples, n_threads=1):
    """Sort each row of ``samples`` (as :func:`matrix_samples` gathers them, or a list
    of 1-D arrays) in place, on ``n_threads`` threads.

    numpy's sort releases the GIL, so the rows sort side by side; the rest of
    :func:`quantile_bin_edges` is small numpy calls that hold it, which kept threads
    of whole columns waiting on each other (20 float32 columns of 800,000 rows on
    two threads: 34 ms, against 37 ms on one; an Intel Xeon).
    """
    map_on_threads(np.ndarray.sort, samples, n_threads)


def write_bin_codes(values, edges, out):
    """Bin codes of ``values`` into ``out`` (any unsigned dtype wide enough).

    ``out[i] = np.searchsorted(edges, values[i], side="left")``; a NaN (missing)
    value gets ``len(edges) + 1``. A float32 or float64 column is read where it
    is, in any layout (:func:`treelearn.data._kernels.as_kernel_floats`).
    """
    values = _kernels.as_kernel_floats(values)
    missing_code = edges.shape[0] + 1
    if missing_code > np.iinfo(out.dtype).max:
        raise ValueError(f"codes up to {missing_code} do not fit in {out.dtype}")
    edges = np.asarray(edges, dtype=np.float64)
    parallel = values.shape[0] >= _kernels.PARALLEL_MIN_ROWS
    if _prefix_tables_pay(values.shape[0], edges):
        tables, edge_rows, crowded = prefix_tables([edges])
        kernel = _kernels.prefix_codes_parallel if parallel else _kernels.prefix_codes_serial
        kernel(values, tables, edge_rows, bool(crowded[0]), missing_code, out)
        return
    table, depth = padded(edges)
    kernel = _kernels.bin_codes_parallel if parallel else _kernels.bin_codes_serial
    kernel(values, table, depth, missing_code, out)


def write_matrix_bin_codes(matrix, columns, edges, out):
    """:func:`write_bin_codes` of several columns of one C-ordered float32 or float64
    ``matrix`` at once: column ``j = columns[t]`` by ``edges[t]`` into ``out[:, j]``.

    A block of rows is read for all the columns together, so each row of the
    matrix comes from memory once instead of once per column (a column of a
    C-ordered matrix is a strided view: coding the columns one at a time reads
    every cache line of the matrix once per column). Columns whose prefix tables
    pay (:func:`prefix_tables`) are coded through them, up to
    :data:`~treelearn.data._kernels.PREFIX_TABLE_COLUMNS` at a time; the others
    by binary search, together.
    """
    columns = np.asarray(columns, dtype=np.int64)
    edges = [np.asarray(e, dtype=np.float64) for e in edges]
    missing_codes = np.array([e.shape[0] + 1 for e in edges], dtype=np.int64)
    if missing_codes.shape[0] and missing_codes.max() > np.iinfo(out.dtype).max:
        raise ValueError(f"codes up to {missing_codes.max()} do not fit in {out.dtype}")
    parallel = matrix.shape[0] >= _kernels.PARALLEL_MIN_ROWS
    by_prefix = [_prefix_tables_pay(matrix.shape[0], e) for e in edges]
    searched = [t for t, use in enumerate(by_prefix) if not use]
    if searched:
        tables = [padded(edges[t]) for t in searched]
        width = max(table.shape[0] for table, _ in tables)
        table_rows = np.full((len(tables), width), np.inf)
        for k, (table, _) in enumerate(tables):
            table_rows[k, : table.shape[0]] = table
        depths = np.array([depth for _, depth in tables], dtype=np.int64)
        kernel = (
            _kernels.bin_matrix_codes_parallel if parallel else _kernels.bin_matrix_codes_serial
        )
        kernel(matrix, columns[searched], table_rows, depths, missing_codes[searched], out)
    looked_up = np.flatnonzero(by_prefix)
    kernel = (
        _kernels.prefix_matrix_codes_parallel if parallel else _kernels.prefix_matrix_codes_serial
    )
    for first in range(0, looked_up.shape[0], _kernels.PREFIX_TABLE_COLUMNS):
        group = looked_up[first : first + _kernels.PREFIX_TABLE_COLUMNS]
        tables, edge_rows, crowded = prefix_tables([edges[t] for t in group])
        kernel(matrix, columns[group], tables, edge_rows, crowded, missing_codes[group], out)


def _prefix_tables_pay(n_rows, edges):
    """Whether a column of ``n_rows`` values is coded by ``edges`` through a prefix
    table (:func:`prefix_tables`) rather than by binary search."""
    return (
        n_rows >= _kernels.PREFIX_TABLE_MIN_ROWS
        and edges.shape[0] <= _kernels.PREFIX_TABLE_MAX_EDGES
    )


def prefix_tables(edges):
    """The prefix tables of the kernels' other way of coding (a list of float64
    edges, each sorted, at most :data:`~treelearn.data._kernels.PREFIX_TABLE_MAX_EDGES`):
    ``(tables, edge_rows, crowded)``, as :func:`treelearn.data._kernels.fill_prefix_tables`
    fills them; ``edge_rows[t]`` is ``edges[t]`` padded with ``+inf``.

    A value's code is the number of edges below it. Its first
    :data:`~treelearn.data._kernels.PREFIX_BITS` bits (of the float32 it rounds to,
    in an order-preserving form) index the column's table, which says how many
    edges have a smaller prefix, all of them below the value; the next edge is the
    only one it is compared with where no two edges share a prefix (as float64, so
    the codes are ``searchsorted``'s). See :mod:`treelearn.data._kernels`.
    """
    n_edges = np.array([e.shape[0] for e in edges], dtype=np.int64)
    edge_rows = np.full((len(edges), _kernels.PREFIX_TABLE_MAX_EDGES + 1), np.inf)
    for t, e in enumerate(edges):
        edge_rows[t, : e.shape[0]] = e
    tables = np.empty((len(edges), 1 << _kernels.PREFIX_BITS), dtype=np.uint8)
    crowded = np.empty(len(edges), dtype=np.bool_)
    _kernels.fill_prefix_tables(edge_rows, n_edges, tables, crowded)
    return tables, edge_rows, crowded


def encode_numeric_binned(column, max_bins):
    """Bin codes of a numeric column and its bin edges.

    Returns
    -------
    codes : ndarray of the narrowest unsigned dtype
        Bin of each value; missing rows get ``len(edges) + 1``.
    edges : ndarray of float64
        From :func:`quantile_bin_edges`.
    """
    edges = column_bins(column, max_bins).edges
    codes = np.empty(column.values.shape[0], dtype=code_dtype_for(edges.shape[0] + 1))
    write_bin_codes(column.values, edges, codes)
    return codes, edges
