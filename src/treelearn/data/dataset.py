"""The training data as the engine sees it: a matrix of codes plus what maps them back."""

import threading
from collections import deque
from dataclasses import dataclass, field
from functools import cached_property
from typing import NamedTuple

import numba
import numpy as np

from treelearn._dtypes import code_dtype_for, row_index_dtype
from treelearn._threads import thread_pool
from treelearn.data import binning
from treelearn.data._kernels import copy_matrix_columns, copy_matrix_columns_parallel
from treelearn.data.binning import (
    bin_threshold,
    column_bins,
    matrix_samples,
    sort_samples,
    write_bin_codes,
    write_matrix_bin_codes,
)
from treelearn.data.encoding import (
    midpoint_thresholds,
    nominal_codes,
    numeric_threshold,
    read_code_values,
    sort_numeric,
    write_exact_codes,
)
from treelearn.data.schema import (
    NOMINAL,
    FeatureSchema,
    check_not_empty,
    infer_schema,
    read_table,
)

#: How far above the midpoint a training value may lie and still be C4.5's threshold.
DATA_THRESHOLD_TOLERANCE = 1e-6
#: Tables of at least this many rows sort (or find the bin edges of) several numeric
#: columns at once, one per numba thread; smaller ones are not worth the threads.
THREADED_MIN_ROWS = 1 << 16
#: Most bytes of bin samples of a C-ordered matrix's columns gathered together
#: (:func:`_column_bins`): 20 float32 columns of 200,000 rows.
SAMPLE_BLOCK_BYTES = 16 << 20
#: Most bytes a row of a C-ordered matrix's columns copied together to be sorted
#: (:func:`_exact_coded_columns`; :func:`_column_bins` where it does not
#: sample): four float32 columns, two float64, less than the radix sort's own 24
#: bytes a row.
SORT_BLOCK_ROW_BYTES = 16
#: Exact numeric columns of at least this many codes keep their rows in code order,
#: and those rows' codes, from the sort that made the codes (:attr:`Dataset.presorted`):
#: the growers keep such features' rows sorted in every node
#: (``treelearn.growing.settings``: more codes than ``STORE_MAX_BINS - 1``) and would
#: otherwise sort them again by code (a counting sort of 800,000 rows x 20 features:
#: 0.25 s on one thread, 0.14 on two).
ROW_ORDER_MIN_CODES = 256


class PresortedColumns(NamedTuple):
    """Exact numeric features' rows in code order and their codes, as the encoding
    sorted them (:attr:`Dataset.presorted`)."""

    #: The features, ascending.
    features: np.ndarray
    #: ``rows[s]``: every row in the code order of feature ``features[s]`` (the known
    #: rows by value, equal values in row order, then the missing rows in row order: a
    #: stable sort of the codes); :func:`~treelearn._dtypes.row_index_dtype`.
    rows: np.ndarray
    #: ``codes[s, i]``: the code of row ``rows[s, i]``, in the same dtype.
    codes: np.ndarray


@dataclass(frozen=True)
class Dataset:
    """Encoded training features.

    Attributes
    ----------
    codes : ndarray of shape (n_samples, n_features), Fortran order
        Codes in the narrowest unsigned dtype (see :mod:`treelearn._dtypes`).
    n_codes : ndarray of int64, shape (n_features,)
        Number of known codes per feature; the missing code is ``n_codes[f]``.
    is_nominal : ndarray of bool, shape (n_features,)
    distinct_values : tuple
        Per feature with exact numeric codes, its sorted distinct training values
        when kept (the value of code ``c`` is ``distinct_values[f][c]``), else None.
    exact_columns : tuple
        Per feature with exact numeric codes whose distinct values are not kept,
        the column its codes were made from
        (:attr:`~treelearn.data.schema.RawColumn.values`: a view of the input where
        the input holds numbers), else None. :meth:`code_values` reads the values
        back from it when wanted, in one pass over the rows. A column is kept
        instead of its values when it takes no more bytes (it takes none where it
        is a view): with many distinct values, the values would take 8 bytes a row
        while the tree grows, and most trees need them only for the thresholds of
        their splits, once grown.
    bin_edges : tuple
        Per feature, the bin edges (numeric, histogram mode: see
        :mod:`treelearn.data.binning`) or None: nominal features, and numeric ones
        of at most ``max_bins`` distinct values, which have exact codes (their
        :attr:`distinct_values` kept) as in exact mode.
    schema : FeatureSchema
    presorted : list
        ``[PresortedColumns]`` of the exact numeric features of at least
        :data:`ROW_ORDER_MIN_CODES` codes, or ``[]`` where there are none or they were
        taken: handed over once (:meth:`take_presorted`).
    """

    codes: np.ndarray
    n_codes: np.ndarray
    is_nominal: np.ndarray
    distinct_values: tuple
    exact_columns: tuple
    schema: FeatureSchema
    bin_edges: tuple = ()
    presorted: list = field(default_factory=list, repr=False, compare=False)

    def take_presorted(self):
        """The :class:`PresortedColumns` (or None), handed over: the dataset keeps none
        afterwards (8 bytes a row and feature, the taker's to use and let go of), so a
        later call gets None."""
        return self.presorted.pop() if self.presorted else None

    @property
    def n_samples(self):
        return self.codes.shape[0]

    @property
    def n_features(self):
        return self.codes.shape[1]

    @cached_property
    def numeric_values(self):
        """Per feature, the sorted distinct training values (exact numeric codes:
        ``numeric_values[f][c]`` is the value of code ``c``) or None; read on first
        use and kept (for growers that look thresholds up node by node)."""
        return tuple(self.code_values(f) for f in range(self.n_features))

    def code_values(self, feature):
        """The sorted distinct training values of one exact numeric feature (None for
        any other): kept ones (:attr:`distinct_values`, or :attr:`numeric_values` once
        read), else read from the column and its codes (one pass over the rows) and
        not kept."""
        kept = self.__dict__.get("numeric_values", self.distinct_values)
        if kept[feature] is not None:
            return kept[feature]
        column = self.exact_columns[feature]
        if column is None:
            return None
        return read_code_values(column, self.codes[:, feature], int(self.n_codes[feature]))

    def threshold(self, feature, left_code, right_code):
        """The ``x <= threshold`` value of a split between two codes of a numeric feature.

        Exact codes: between the two neighbouring training values
        (:func:`~treelearn.data.encoding.numeric_threshold`); bins: midway across
        the bins between the two codes, which hold none of the node's rows
        (:func:`~treelearn.data.binning.bin_threshold`). Reads :attr:`numeric_values`
        (all features' values, kept): for growers that ask node by node;
        :meth:`thresholds` for many at once.
        """
        if self.bin_edges and self.bin_edges[feature] is not None:
            return float(bin_threshold(self.bin_edges[feature], left_code, right_code))
        return numeric_threshold(self.numeric_values[feature], left_code, right_code)

    def data_threshold(self, feature, left_code, right_code):
        """The largest training value not above :meth:`threshold` (C4.5 Release 8).

        C4.5 moves a cut from the midpoint down to a value seen in training
        (anywhere in the training data, not only at the node), so the tree's
        thresholds are values of the data. Rows at the node go the same way
        either way. Bins: the upper edge of the left bin, the nearest to the
        largest value on the left that the bins tell.
        """
        if self.bin_edges and self.bin_edges[feature] is not None:
            return float(self.bin_edges[feature][left_code])
        cut = self.threshold(feature, left_code, right_code)
        values = self.numeric_values[feature]
        if values is None:
            return cut
        # A value within DATA_THRESHOLD_TOLERANCE above the midpoint counts as below it:
        # the midpoint's rounding must not move the threshold off a value (J48 does the same).
        index = int(np.searchsorted(values, cut + DATA_THRESHOLD_TOLERANCE, side="right")) - 1
        return float(values[min(max(index, left_code), right_code - 1)])

    def thresholds(self, feature, left_codes, right_codes, at_data=False):
        """:meth:`threshold` (``at_data``: :meth:`data_threshold`) of many splits of
        one numeric feature at once, from arrays of codes; the same numbers. Reads
        the feature's values by :meth:`code_values` (once for all the splits)."""
        left_codes = np.asarray(left_codes, dtype=np.int64)
        right_codes = np.asarray(right_codes, dtype=np.int64)
        if self.bin_edges and self.bin_edges[feature] is not None:
            edges = self.bin_edges[feature]
            if at_data:
                return np.asarray(edges[left_codes], dtype=np.float64)
            return np.asarray(bin_threshold(edges, left_codes, right_codes), dtype=np.float64)
        values = self.code_values(feature)
        cut = midpoint_thresholds(values[left_codes], values[right_codes])
        if not at_data:
            return cut.astype(np.float64)
        index = np.searchsorted(values, cut + DATA_THRESHOLD_TOLERANCE, side="right") - 1
        index = np.minimum(np.maximum(index, left_codes), right_codes - 1)
        return values[index].astype(np.float64)


def build_dataset(X, categorical_features=None, max_bins=None):
    """Read, validate and encode ``X`` (exact codes, or bins when ``max_bins`` is set).

    Parameters
    ----------
    X : array-like or DataFrame of shape (n_samples, n_features)
    categorical_features : see :func:`treelearn.data.schema.read_table`

    Returns
    -------
    Dataset
    """
    return encode_table(read_table(X, categorical_features), max_bins)


def encode_table(table, max_bins=None):
    """Validate and encode a :class:`~treelearn.data.schema.RawTable`.

    Numeric columns get exact codes, or, with ``max_bins``, at most that many
    quantile bins (:mod:`treelearn.data.binning`). Each column's codes are
    written straight into the code matrix, in the narrowest dtype that holds
    every feature's missing code; the matrix is made once the nominal and
    binned features' code counts are known, and widened (copied) in the rare
    case an exact numeric feature needs more codes. With several numba threads,
    tables of :data:`THREADED_MIN_ROWS` rows or more sort (or bin) several
    numeric columns at once, one per thread, each thread writing the exact codes
    of the columns it sorted; the result is the same.

    Raises
    ------
    DataError
        If the table has no row or no column, a numeric column holds an
        infinite value, or a column has no known value.
    """
    check_not_empty(table)
    columns = table.columns
    schema = infer_schema(columns, table.from_frame)
    n_features = len(columns)
    distinct_values = [None] * n_features
    exact_columns = [None] * n_features
    bin_edges = [None] * n_features
    n_codes = np.zeros(n_features, dtype=np.int64)
    presorted = []
    numeric = [j for j in range(n_features) if schema.kinds[j] != NOMINAL]
    for j in range(n_features):
        if schema.kinds[j] == NOMINAL:
            n_codes[j] = len(schema.categories[j])
    threaded = table.n_rows >= THREADED_MIN_ROWS and len(numeric) > 1
    n_threads = numba.get_num_threads() if threaded else 1
    # Each numeric column's codes in histogram mode: the index of its bin among these
    # edges. A column of a bin per value keeps its values instead of its edges: its
    # codes are their ranks, the exact codes, and it is an exact column.
    coding_edges = [None] * n_features
    if max_bins is not None:
        for j, bins in zip(numeric, _column_bins(table, numeric, max_bins, n_threads), strict=True):
            coding_edges[j] = bins.edges
            n_codes[j] = bins.edges.shape[0] + 1
            if bins.values is None:
                bin_edges[j] = bins.edges
            else:
                distinct_values[j] = bins.values
    dtype = code_dtype_for(int(n_codes.max()))
    matrix = np.empty((table.n_rows, n_features), dtype=dtype, order="F")
    # Binned columns of a C-ordered matrix are coded together, a block of rows at a time.
    from_matrix = [
        j for j in numeric if coding_edges[j] is not None and _is_matrix_column(table, j)
    ]
    coded = set(from_matrix)
    if from_matrix:
        edges = [coding_edges[j] for j in from_matrix]
        write_matrix_bin_codes(table.matrix, from_matrix, edges, matrix)
    for j, column in enumerate(columns):
        if schema.kinds[j] == NOMINAL:
            nominal_codes(column, schema.categories[j], matrix[:, j])
        elif coding_edges[j] is not None and j not in coded:
            write_bin_codes(column.values, coding_edges[j], matrix[:, j])
    if max_bins is None:
        code_matrix = _CodeMatrix(matrix, numeric)
        coded_columns = _exact_coded_columns(table, numeric, n_threads, code_matrix)
        for j, values in zip(numeric, coded_columns, strict=True):
            n_codes[j] = values.shape[0]
            if columns[j].values.nbytes <= values.nbytes:
                exact_columns[j] = columns[j].values
            else:
                distinct_values[j] = values
        matrix = code_matrix.matrix
        presorted = code_matrix.take_presorted()
    return Dataset(
        codes=matrix,
        n_codes=n_codes,
        is_nominal=schema.is_nominal,
        distinct_values=tuple(distinct_values),
        exact_columns=tuple(exact_columns),
        schema=schema,
        bin_edges=tuple(bin_edges),
        presorted=presorted,
    )


def _is_matrix_column(table, j):
    """Whether column ``j`` of ``table`` holds exactly column ``j`` of ``table.matrix``
    (the same numbers at the same addresses)."""
    values = table.columns[j].values
    source = table.matrix
    return (
        source is not None
        and values.dtype == source.dtype
        and values.shape == (source.shape[0],)
        and values.strides[0] == source.strides[0]
        and values.ctypes.data == source.ctypes.data + j * source.strides[1]
    )


def _column_bins(table, numeric, max_bins, n_threads):
    """:func:`~treelearn.data.binning.column_bins` of each of the ``numeric``
    columns, yielded in their order, on ``n_threads`` threads (:func:`_column_results`).

    The columns of a C-ordered matrix are read in blocks, each row of the matrix
    once for a block's columns instead of once per column: where columns are
    sampled, the bin samples of a block's columns without missing values are
    gathered together (:func:`~treelearn.data.binning.matrix_samples`, at most
    :data:`SAMPLE_BLOCK_BYTES` of samples); where they are not (every value is
    sorted), :data:`SORT_BLOCK_ROW_BYTES` a row of columns are copied into
    contiguous rows first (:func:`~treelearn.data._kernels.copy_matrix_columns`):
    at 80,000 x 20 float32, a depth-1 fit went from 27.5 to 24.0 ms (one thread,
    an Intel Xeon), the strided copies of the sorts 2% of a full-depth fit."""
    columns = table.columns
    matrix = table.matrix
    sampled = table.n_rows > binning.BIN_SAMPLE_ROWS
    width = 1
    if matrix is not None:
        if sampled:
            width = max(SAMPLE_BLOCK_BYTES // (binning.BIN_SAMPLE_ROWS * matrix.itemsize), 1)
        else:
            width = max(SORT_BLOCK_ROW_BYTES // matrix.itemsize, 1)
    buffer = None
    for first in range(0, len(numeric), width):
        block = numeric[first : first + width]
        samples = {}
        copied = {}
        if width > 1 and sampled:
            gathered = [
                j for j in block if _is_matrix_column(table, j) and not columns[j].has_missing
            ]
            if gathered:
                block_samples = matrix_samples(matrix, gathered)
                sort_samples(block_samples, n_threads)
                samples = dict(zip(gathered, block_samples, strict=True))
        elif width > 1:
            in_matrix = [j for j in block if _is_matrix_column(table, j)]
            if in_matrix:
                if buffer is None:
                    buffer = np.empty((width, table.n_rows), dtype=matrix.dtype)
                copy_matrix_columns(matrix, np.asarray(in_matrix, dtype=np.int64), buffer)
                copied = {j: buffer[t] for t, j in enumerate(in_matrix)}
                # The copies of columns without missing values are sorted where they
                # are (on threads), and their edges read off them as off sorted samples.
                samples = {j: copied[j] for j in in_matrix if not columns[j].has_missing}
                sort_samples(list(samples.values()), n_threads)
        # Columns of sorted samples (or sorted copies) are quick and hold the GIL:
        # one after the other, each read on numba's threads where it is. (Columns on
        # threads of their own read each column on one thread. Each block's edges are
        # all made before the next block is copied over it.)
        threads = 1 if len(samples) == len(block) else n_threads
        yield from _column_results(
            lambda j, samples=samples, copied=copied, threads=threads: column_bins(
                columns[j].with_values(copied[j]) if j in copied else columns[j],
                max_bins,
                parallel=threads == 1,
                sample=samples.get(j),
                sample_sorted=j in samples,
            ),
            block,
            threads,
        )


class _CodeMatrix:
    """The code matrix that exact numeric columns are written into, from several
    threads at once: a column with more codes than the matrix's dtype holds widens
    (copies) it first, once no other column is being written, and no column is
    written while it is copied.

    Each of the ``numeric`` columns with at least :data:`ROW_ORDER_MIN_CODES` codes
    also writes its rows in code order and their codes into its own row of two
    matrices (:class:`PresortedColumns`), made once but paged in only where written."""

    def __init__(self, matrix, numeric):
        self.matrix = matrix
        self._changed = threading.Condition()
        self._n_writing = 0
        self._slot = {j: s for s, j in enumerate(numeric)}
        self._sorted_rows, self._sorted_codes = _reserved_presorted(len(numeric), matrix.shape[0])
        self._presorted = set()

    def _too_narrow(self, n_distinct):
        return n_distinct > np.iinfo(self.matrix.dtype).max

    def write_exact(self, j, sorted_column):
        """:func:`~treelearn.data.encoding.write_exact_codes` of ``sorted_column``
        into column ``j`` (and, for a column of many codes, its rows in code order);
        returns the column's sorted distinct values."""
        n_distinct = sorted_column.n_distinct
        with self._changed:
            if self._too_narrow(n_distinct):
                self._changed.wait_for(lambda: self._n_writing == 0)
                if self._too_narrow(n_distinct):  # (unless another column widened it)
                    wider = code_dtype_for(n_distinct)
                    self.matrix = self.matrix.astype(wider, order="F")
            self._n_writing += 1
            matrix = self.matrix
        in_code_order = None
        if n_distinct >= ROW_ORDER_MIN_CODES and self._sorted_rows is not None:
            slot = self._slot[j]
            in_code_order = (self._sorted_rows[slot], self._sorted_codes[slot])
        try:
            values = write_exact_codes(sorted_column, matrix[:, j], in_code_order)
        finally:
            with self._changed:
                self._n_writing -= 1
                self._changed.notify_all()
        if in_code_order is not None:
            self._presorted.add(j)  # (written in full: the codes did not raise)
        return values

    def take_presorted(self):
        """Once every column is written: ``[PresortedColumns]`` of the columns that
        wrote their rows in code order, their rows moved up to the first slots in
        column order (no move where every column did), or ``[]`` where none did."""
        features = np.array(sorted(self._presorted), dtype=np.int64)
        rows, codes = self._sorted_rows, self._sorted_codes
        self._sorted_rows = self._sorted_codes = None
        if not features.size:
            return []  # (the reserved matrices never paged in, let go of)
        for s, j in enumerate(features):
            if self._slot[j] != s:
                rows[s] = rows[self._slot[j]]
                codes[s] = codes[self._slot[j]]
        return [PresortedColumns(features, rows[: features.size], codes[: features.size])]


def _reserved_presorted(n_columns, n_rows):
    """``(rows, codes)``: two matrices of ``n_columns`` rows of ``n_rows`` row indices,
    for the exact columns' rows in code order (:class:`_CodeMatrix`). Only the rows of
    the columns that turn out to have many codes are ever written, and only those
    are paged in; where even the reservation fails (an address space or overcommit
    limit), ``(None, None)``: no column keeps its order and the growers sort them."""
    dtype = row_index_dtype(n_rows)
    try:
        rows = np.empty((n_columns, n_rows), dtype=dtype)
        return rows, np.empty_like(rows)
    except MemoryError:
        return None, None


def _exact_coded_columns(table, numeric, n_threads, code_matrix):
    """Sort each of the ``numeric`` columns (:func:`~treelearn.data.encoding.sort_numeric`)
    and write its exact codes into ``code_matrix`` (:class:`_CodeMatrix`), on
    ``n_threads`` threads (:func:`_column_results`); yields each column's sorted
    distinct values, in their order.

    The columns of a C-ordered matrix are copied into contiguous rows,
    :data:`SORT_BLOCK_ROW_BYTES` a row at a time (each row of the matrix read
    once for the block), and sorted from there: the radix sort reads its column
    once to make the keys, and a strided column reads a cache line of the
    matrix a row. Encoding 800,000 x 20 went 0.73 -> 0.66 s (float32) and
    1.07 -> 0.85 s (float64) on one thread, 1.0 -> 0.6-0.7 s and 1.5 -> 0.9 s on
    two, where the strided reads of two threads at once had made it slower than
    one (an Intel Xeon). Each thread writes the codes of the columns it sorted, at
    the same time as the others (:class:`_CodeMatrix`): written one at a time by the
    calling thread, while two others sorted, the codes of 800,000 x 20 float32 took
    0.30 s on two threads against 0.38-0.39 on one; now 0.21-0.22 s, and 0.19 with
    each block copied on the threads too (its copy 25 -> 14 ms)."""
    columns = table.columns
    matrix = table.matrix
    width = 1 if matrix is None else max(SORT_BLOCK_ROW_BYTES // matrix.itemsize, 1)
    buffer = None
    for first in range(0, len(numeric), width):
        block = numeric[first : first + width]
        copied = {}
        in_matrix = [j for j in block if _is_matrix_column(table, j)]
        if width > 1 and in_matrix:
            if buffer is None:
                buffer = np.empty((width, table.n_rows), dtype=matrix.dtype)
            copy = copy_matrix_columns_parallel if n_threads > 1 else copy_matrix_columns
            copy(matrix, np.asarray(in_matrix, dtype=np.int64), buffer)
            copied = {j: buffer[t] for t, j in enumerate(in_matrix)}
        # (Each block's sorts are all done before the next block is copied over them.)
        yield from _column_results(
            lambda j, copied=copied: code_matrix.write_exact(
                j,
                sort_numeric(columns[j].with_values(copied[j]) if j in copied else columns[j]),
            ),
            block,
            n_threads,
        )


def _column_results(work, columns, n_threads):
    """``work(j)`` for each of ``columns``, yielded in their order; on ``n_threads``
    threads (numba's kernels release the GIL) with at most ``n_threads`` results
    made ahead of the one yielded, so that no more columns' work buffers (a
    sorted column holds 16 bytes a row) live at once than threads."""
    if n_threads <= 1:
        for j in columns:
            yield work(j)
        return
    pool = thread_pool(n_threads)
    pending = deque()
    for j in columns:
        if len(pending) == n_threads:
            yield pending.popleft().result()
        pending.append(pool.submit(work, j))
    while pending:
        yield pending.popleft().result()
