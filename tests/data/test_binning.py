"""Histogram mode: quantile bin edges, bin codes, and trees grown on bins."""

from unittest import mock

import numba
import numpy as np
import pandas as pd
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from sklearn.datasets import load_wine, make_classification, make_regression

from treelearn import CARTClassifier, CARTRegressor
from treelearn._dtypes import code_dtype_for
from treelearn.data import _kernels, binning
from treelearn.data import dataset as dataset_module
from treelearn.data.binning import (
    encode_numeric_binned,
    midpoint_quantiles,
    padded,
    quantile_bin_edges,
)
from treelearn.data.dataset import build_dataset, encode_table
from treelearn.data.schema import RawColumn, read_table
from treelearn.growing import grower
from treelearn.growing import settings as settings_module


def _column(values):
    values = np.asarray(values, dtype=np.float64)
    return RawColumn("x", "numeric", values, np.isnan(values))


@settings(max_examples=100, deadline=None)
@given(
    values=st.lists(
        st.one_of(st.floats(-1e6, 1e6, allow_nan=False), st.just(np.nan)), min_size=1, max_size=60
    ).filter(lambda v: not all(np.isnan(v))),
    max_bins=st.integers(2, 20),
)
def test_codes_are_bins_of_the_edges(values, max_bins):
    codes, edges = encode_numeric_binned(_column(values), max_bins)
    values = np.asarray(values)
    known = ~np.isnan(values)
    assert edges.shape[0] <= max_bins - 1
    assert np.all(np.diff(edges) > 0)
    assert np.all(codes[~known] == edges.shape[0] + 1)
    for k, edge in enumerate(edges):
        # x <= edges[k] exactly when the code is k or lower: a split on codes is a threshold.
        np.testing.assert_array_equal(values[known] <= edge, codes[known] <= k)
    # No bin is empty.
    assert set(codes[known]) == set(range(edges.shape[0] + 1))


def test_few_distinct_values_keep_exact_codes():
    values = np.array([3.0, 1.0, 2.0, 2.0, 5.0, np.nan])
    codes, edges = encode_numeric_binned(_column(values), max_bins=4)
    np.testing.assert_array_equal(edges, [1.5, 2.5, 4.0])
    np.testing.assert_array_equal(codes, [2, 0, 1, 1, 3, 4])


def test_many_values_make_equal_frequency_bins():
    values = np.arange(1000, dtype=np.float64)
    edges = quantile_bin_edges(values, max_bins=4)
    np.testing.assert_allclose(edges, [249.5, 499.5, 749.5])
    codes, _ = encode_numeric_binned(_column(values), 4)
    np.testing.assert_array_equal(np.bincount(codes), [250, 250, 250, 250])


def test_code_dtype_is_one_byte_up_to_255_bins():
    X, _ = make_classification(3000, 4, random_state=0)
    assert build_dataset(X, max_bins=255).codes.dtype == np.uint8
    assert build_dataset(X).codes.dtype == np.uint16


def test_enough_bins_grow_the_exact_tree():
    """With at least as many bins as distinct values every column is an exact one: the
    same dataset and tree as exact mode, thresholds included."""
    X, y = make_classification(3000, 6, random_state=2)
    exact = CARTClassifier(max_depth=6, max_bins=None).fit(X, y)
    binned = CARTClassifier(max_depth=6, max_bins=10**6).fit(X, y)
    for name in ("feature", "threshold", "value", "n_samples"):
        np.testing.assert_array_equal(getattr(binned.tree_, name), getattr(exact.tree_, name))


@pytest.mark.parametrize("max_bins", [255, 8])
def test_a_column_of_few_values_is_encoded_as_in_exact_mode(max_bins):
    """A column of at most ``max_bins`` distinct values (missing ones, negative zeros,
    float32, a single value) has no bin edges: its codes, code count and values are
    exact mode's, while a column of more values is binned beside it."""
    rng = np.random.default_rng(8)
    n = 4000
    X = np.column_stack(
        [
            rng.choice([0.5, 1.0, 4.0, 4.5, 100.0], n),
            np.where(rng.random(n) < 0.1, np.nan, rng.integers(-3, 4, n) * 0.1),
            np.where(rng.random(n) < 0.5, -0.0, rng.integers(0, max_bins, n)),
            np.full(n, 7.0),
            rng.standard_normal(n),
        ]
    )
    for dtype in (np.float64, np.float32):
        binned = build_dataset(X.astype(dtype), max_bins=max_bins)
        exact = build_dataset(X.astype(dtype), max_bins=None)
        for f in range(4):
            assert binned.bin_edges[f] is None
            np.testing.assert_array_equal(binned.codes[:, f], exact.codes[:, f])
            assert binned.n_codes[f] == exact.n_codes[f]
            assert binned.numeric_values[f].dtype == np.float64
            np.testing.assert_array_equal(binned.numeric_values[f], exact.numeric_values[f])
        assert binned.bin_edges[4].shape == (max_bins - 1,)
        assert binned.n_codes[4] == max_bins


def test_a_textbook_table_grows_its_exact_tree_with_the_default_bins():
    """Every column of the wine table has fewer than 255 distinct values: the default
    tree is the exact one, thresholds and all, where the edges' midpoints had moved 7 of
    its 11 thresholds (a node whose two values are not neighbours among the column's)."""
    X, y = load_wine(return_X_y=True)
    exact = CARTClassifier(max_bins=None).fit(X, y).tree_
    default = CARTClassifier().fit(X, y).tree_
    for name in ("feature", "threshold", "value"):
        np.testing.assert_array_equal(getattr(default, name), getattr(exact, name))


def test_binned_trees_keep_their_accuracy():
    X, y = make_classification(20000, 10, random_state=0)
    train, test = slice(0, 15000), slice(15000, None)
    exact = CARTClassifier(max_depth=8, max_bins=None).fit(X[train], y[train])
    exact = exact.score(X[test], y[test])
    binned = CARTClassifier(max_depth=8, max_bins=255).fit(X[train], y[train])
    assert binned.score(X[test], y[test]) == pytest.approx(exact, abs=0.01)


@pytest.mark.parametrize("n_jobs", [1, 2])
def test_a_binned_threshold_lies_midway_across_the_bins_its_node_leaves_empty(n_jobs):
    """Per split, ``low`` the highest code of the node's rows going left and ``high`` the
    lowest going right: the threshold is ``edges[low] / 2 + edges[high - 1] / 2``
    (``edges[low]`` where the bins are neighbours), so the node's rows go as their codes
    say and an unseen value between goes to the nearer side."""
    X, y = make_classification(20000, 10, random_state=0)
    tree = CARTClassifier(max_depth=8, max_bins=255, n_jobs=n_jobs).fit(X, y).tree_
    dataset = build_dataset(X, max_bins=255)
    path_rows, path_nodes = tree.decision_path(X)
    gaps = 0
    for node in np.flatnonzero(~tree.is_leaf):
        left, right = tree.children[tree.child_ptr[node] : tree.child_ptr[node + 1]]
        f, edges = tree.feature[node], dataset.bin_edges[tree.feature[node]]
        low = dataset.codes[path_rows[path_nodes == left], f].max()
        high = dataset.codes[path_rows[path_nodes == right], f].min()
        assert low < high
        gaps += high > low + 1
        assert tree.threshold[node] == edges[low] / 2 + edges[high - 1] / 2
    assert gaps >= 10  # (splits with empty bins between their sides, where the rule shows)


@pytest.mark.parametrize("task", ["classification", "regression"])
def test_subtraction_gives_the_tree_of_direct_histograms(task, monkeypatch):
    """Binned features keep node histograms and derive the larger child's by
    subtraction; building every histogram directly grows the same tree."""
    if task == "classification":
        X, y = make_classification(6000, 8, n_classes=3, n_informative=5, random_state=4)
        make = lambda: CARTClassifier(max_depth=7, max_bins=64)  # noqa: E731
    else:
        X, y = make_regression(6000, 8, random_state=4)
        make = lambda: CARTRegressor(max_depth=7, max_bins=64)  # noqa: E731
    subtractions = []
    subtract = grower.subtract_histograms

    def counted(*args):
        subtractions.append(args[0].shape)
        return subtract(*args)

    monkeypatch.setattr(grower, "subtract_histograms", counted)
    monkeypatch.setattr(settings_module, "FAST_LOOP", False)  # count the Python loop's subtractions
    with_subtraction = make().fit(X, y)
    assert subtractions, "binned features should derive children's histograms by subtraction"
    monkeypatch.setattr(settings_module, "STORE_MIN_ROWS", 10**9)
    direct = make().fit(X, y)
    np.testing.assert_array_equal(with_subtraction.tree_.feature, direct.tree_.feature)
    np.testing.assert_array_equal(with_subtraction.tree_.threshold, direct.tree_.threshold)
    np.testing.assert_allclose(with_subtraction.tree_.value, direct.tree_.value, rtol=1e-9)
    monkeypatch.setattr(settings_module, "FAST_LOOP", True)  # the numba loop subtracts the same way
    fast = make().set_params(n_jobs=1).fit(X, y)
    np.testing.assert_array_equal(fast.tree_.feature, with_subtraction.tree_.feature)
    np.testing.assert_array_equal(fast.tree_.value, with_subtraction.tree_.value)


def test_max_bins_is_checked():
    from treelearn.exceptions import ParameterError

    X, y = make_classification(100, 4, random_state=0)
    with pytest.raises(ParameterError, match="max_bins must be an integer >= 2"):
        CARTClassifier(max_bins=1).fit(X, y)


# ---------------------------------------------------------------------------
# Fast binning: the kernels, the quantiles, the subsample
# ---------------------------------------------------------------------------


def _reference_edges(known_values, max_bins):
    """The bin edges as computed before the subsample (np.unique and np.quantile
    on the full column)."""
    distinct = np.unique(known_values)
    if distinct.shape[0] <= max_bins:
        edges = distinct[:-1] / 2.0 + distinct[1:] / 2.0
        return np.where(edges == distinct[1:], distinct[:-1], edges)
    quantiles = np.linspace(0.0, 1.0, max_bins + 1)[1:-1]
    edges = np.unique(np.quantile(known_values, quantiles, method="midpoint"))
    edges = edges[edges < distinct[-1]]
    counts = np.bincount(np.searchsorted(edges, distinct, side="left"), minlength=edges.size + 1)
    return edges[counts[:-1] > 0]


def _messy_column(rng, n, float32=False):
    """Ties, NaN, -0.0 and 0.0, a few huge values."""
    x = rng.standard_normal(n)
    x = np.where(rng.random(n) < 0.3, np.round(x, 1), x)
    x[rng.random(n) < 0.1] = 0.0
    x[rng.random(n) < 0.1] = -0.0
    x[rng.random(n) < 0.01] = 1e30
    x[rng.random(n) < 0.05] = np.nan
    if float32:
        x = x.astype(np.float32).astype(np.float64)
    return x


small_floats = st.one_of(
    st.floats(-1e6, 1e6, allow_nan=False, width=32),
    st.sampled_from([0.0, -0.0, 1.0, np.nan, 1e-300, -1e300]),
)

#: Values a float32 column holds as they are.
float32_floats = st.one_of(
    st.floats(-1e6, 1e6, allow_nan=False, width=32),
    st.sampled_from([0.0, -0.0, 1.0, np.nan, 1e-30, -3e38]),
)


@settings(max_examples=200, deadline=None)
@given(
    values=st.lists(small_floats, min_size=0, max_size=300),
    edges=st.lists(st.floats(-1e6, 1e6, allow_nan=False), min_size=0, max_size=300),
    parallel=st.booleans(),
)
def test_bin_kernels_equal_searchsorted(values, edges, parallel):
    _check_bin_kernel(np.asarray(values, dtype=np.float64), edges, parallel)


def _check_bin_kernel(column, edges, parallel):
    """The serial or threaded bin kernel gives ``column`` (any float dtype and layout)
    the codes ``np.searchsorted`` gives its float64 values, NaN the missing code."""
    edges = np.unique(np.asarray(edges, dtype=np.float64))
    missing_code = edges.shape[0] + 1
    out = np.empty(column.shape[0], dtype=code_dtype_for(missing_code))
    table, depth = padded(edges)
    kernel = _kernels.bin_codes_parallel if parallel else _kernels.bin_codes_serial
    kernel(column, table, depth, missing_code, out)
    values = column.astype(np.float64)
    expected = np.searchsorted(edges, values, side="left")
    expected[np.isnan(values)] = missing_code
    np.testing.assert_array_equal(out, expected)


@settings(max_examples=100, deadline=None)
@given(
    values=st.lists(float32_floats, min_size=0, max_size=300),
    edges=st.lists(st.floats(-1e6, 1e6, allow_nan=False, width=32), min_size=0, max_size=300),
    parallel=st.booleans(),
)
def test_bin_kernels_read_strided_float32_columns(values, edges, parallel):
    """A column of a C-ordered float32 matrix (a strided view, as a NumPy X gives
    it) gets the codes of its float64 values: each value is copied into the
    block once and compared as the float64 it converts to exactly."""
    values = np.asarray(values, dtype=np.float32)
    matrix = np.full((values.shape[0], 3), 7.0, dtype=np.float32)
    matrix[:, 1] = values
    column = matrix[:, 1]
    assert not column.flags.c_contiguous or values.shape[0] <= 1
    _check_bin_kernel(column, edges, parallel)


#: Values of every kind a prefix table meets: both zeros, NaN, infinities, the
#: largest and smallest floats (float32 and float64), neighbours of an edge.
prefix_floats = st.one_of(
    st.floats(allow_nan=True, allow_infinity=True),
    st.floats(-1e6, 1e6, width=32),
    st.floats(999.9, 1000.1),
    st.sampled_from([0.0, -0.0, 5e-324, -5e-324, 1.4e-45, 3.4e38, 3.5e38, 1e300, -np.inf]),
)
#: Edges, crowded or not: many between 999.9 and 1000.1 share a prefix.
prefix_edges = st.lists(
    st.one_of(
        st.floats(-1e300, 1e300, allow_nan=False),
        st.floats(-1e6, 1e6, width=32),
        st.floats(999.9, 1000.1),
        st.sampled_from([0.0, -0.0, 1.4e-45, 3.4e38, -3.5e38]),
    ),
    max_size=300,
)


@settings(max_examples=300, deadline=None)
@given(
    values=st.lists(prefix_floats, max_size=200),
    edges=prefix_edges,
    float32=st.booleans(),
    parallel=st.booleans(),
)
def test_prefix_tables_code_as_searchsorted(values, edges, float32, parallel):
    """Through prefix tables (every column, whatever its rows) a value's code is the
    number of edges below its float64 value, as ``np.searchsorted`` counts them;
    a column of more than 255 edges is searched instead. Alone and in a matrix of
    columns (two tables at a time), float32 or float64, strided or not."""
    values = np.asarray(values, dtype=np.float64)
    if float32:
        with np.errstate(over="ignore"):
            values = values.astype(np.float32)
    edges = np.unique(np.asarray(edges, dtype=np.float64))
    matrix = np.stack([values, values[::-1], values], axis=1)
    edge_sets = [edges, edges[::2], edges[:3]]
    out = np.empty(matrix.shape, dtype=np.uint16, order="F")
    with (
        mock.patch.object(_kernels, "PREFIX_TABLE_MIN_ROWS", 0),
        mock.patch.object(_kernels, "PREFIX_TABLE_COLUMNS", 2),
        mock.patch.object(_kernels, "PARALLEL_MIN_ROWS", 0 if parallel else 10**9),
    ):
        binning.write_matrix_bin_codes(matrix, [0, 1, 2], edge_sets, out)
        alone = np.empty(values.shape[0], dtype=np.uint16)
        binning.write_bin_codes(matrix[:, 1], edge_sets[1], alone)
    for j, column_edges in enumerate(edge_sets):
        column = matrix[:, j].astype(np.float64)
        expected = np.searchsorted(column_edges, column, side="left")
        expected[np.isnan(column)] = column_edges.shape[0] + 1
        np.testing.assert_array_equal(out[:, j], expected)
        if j == 1:
            np.testing.assert_array_equal(alone, expected)


def test_prefix_tables_are_used_from_their_rows_on():
    """Columns of 255 edges or fewer and at least ``PREFIX_TABLE_MIN_ROWS`` rows are
    coded through prefix tables, the others by binary search: the same codes."""
    rng = np.random.default_rng(5)
    n_rows = _kernels.PREFIX_TABLE_MIN_ROWS
    matrix = rng.normal(size=(n_rows, 3))
    edges = [np.sort(rng.normal(size=k)) for k in (255, 256, 40)]
    codes = {}
    for rows in (n_rows, n_rows - 1):
        out = np.empty((rows, 3), dtype=np.uint16, order="F")
        with (
            mock.patch.object(
                _kernels, "fill_prefix_tables", wraps=_kernels.fill_prefix_tables
            ) as filled,
        ):
            binning.write_matrix_bin_codes(matrix[:rows], [0, 1, 2], edges, out)
        codes[rows] = out
        if rows == n_rows:
            filled.assert_called_once()
            assert filled.call_args.args[1].tolist() == [255, 40]  # (edges of each table)
        else:
            filled.assert_not_called()
    np.testing.assert_array_equal(codes[n_rows][:-1], codes[n_rows - 1])
    for j in range(3):
        expected = np.searchsorted(edges[j], matrix[:, j], side="left")
        np.testing.assert_array_equal(codes[n_rows][:, j], expected)


@settings(max_examples=100, deadline=None)
@given(
    n_rows=st.integers(0, 200),
    n_columns=st.integers(1, 6),
    float32=st.booleans(),
    parallel=st.booleans(),
    seed=st.integers(0, 2**32 - 1),
)
def test_matrix_bin_codes_are_each_columns_codes(n_rows, n_columns, float32, parallel, seed):
    """Coding some columns of a C-ordered matrix together, a block of rows at a
    time, gives each column the codes it gets alone (each by its own edges, of
    any length, none included); the other columns of ``out`` are left alone."""
    rng = np.random.default_rng(seed)
    matrix = rng.normal(size=(n_rows, n_columns)).round(1)
    matrix[rng.random(matrix.shape) < 0.1] = np.nan
    matrix[rng.random(matrix.shape) < 0.1] = -0.0
    matrix = matrix.astype(np.float32 if float32 else np.float64)
    columns = np.flatnonzero(rng.random(n_columns) < 0.7)
    edges = [np.unique(rng.normal(size=rng.integers(0, 300)).round(2)) for _ in columns]
    widest = max([e.shape[0] + 1 for e in edges], default=1)
    out = np.full((n_rows, n_columns), 77, dtype=code_dtype_for(max(widest, 77)), order="F")
    # (The threaded kernel from 0 rows on, or the serial one for every size.)
    with mock.patch.object(_kernels, "PARALLEL_MIN_ROWS", 0 if parallel else 10**9):
        binning.write_matrix_bin_codes(matrix, columns, edges, out)
    for t, j in enumerate(columns):
        expected = np.empty(n_rows, dtype=out.dtype)
        binning.write_bin_codes(np.ascontiguousarray(matrix[:, j]), edges[t], expected)
        np.testing.assert_array_equal(out[:, j], expected)
    untouched = np.setdiff1d(np.arange(n_columns), columns)
    np.testing.assert_array_equal(out[:, untouched], 77)


@pytest.mark.parametrize("n_rows", [500, _kernels.PARALLEL_MIN_ROWS + 321])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_a_c_ordered_matrix_is_binned_as_its_columns(n_rows, dtype):
    """``encode_table`` reads the binned columns of a C-ordered matrix a block of rows
    at a time: the same codes and edges as from the Fortran-ordered copy and from a
    DataFrame (each column coded alone), nominal columns in between included."""
    rng = np.random.default_rng(n_rows)
    X = rng.normal(size=(n_rows, 5)).astype(dtype)
    X[rng.random(X.shape) < 0.05] = np.nan
    X[:, 2] = rng.integers(0, 4, n_rows)  # made nominal below
    table = read_table(X, categorical_features=[2])
    assert table.matrix is not None
    assert read_table(np.asfortranarray(X), categorical_features=[2]).matrix is None
    with mock.patch.object(
        dataset_module, "write_matrix_bin_codes", wraps=binning.write_matrix_bin_codes
    ) as by_matrix:
        by_blocks = encode_table(table, 255)
    # (The numeric columns went through the matrix kernel, all in one call.)
    by_matrix.assert_called_once()
    assert list(by_matrix.call_args.args[1]) == [0, 1, 3, 4]
    for other in (np.asfortranarray(X), pd.DataFrame(X)):
        by_columns = encode_table(read_table(other, categorical_features=[2]), 255)
        np.testing.assert_array_equal(by_blocks.codes, by_columns.codes)
        for mine, theirs in zip(by_blocks.bin_edges, by_columns.bin_edges, strict=True):
            assert (mine is None) == (theirs is None)
            if mine is not None:
                np.testing.assert_array_equal(mine, theirs)


def test_a_column_changed_after_reading_is_binned_from_its_own_values():
    """A table's column that no longer reads its matrix column (replaced values) is
    coded from its own values, not from the matrix."""
    X = np.arange(40, dtype=np.float64).reshape(20, 2).copy()
    table = read_table(X)
    changed = table.columns[1].with_values(np.ascontiguousarray(-table.columns[1].values))
    table = type(table)([table.columns[0], changed], table.n_rows, False, table.matrix)
    dataset = encode_table(table, 4)
    expected = np.empty(20, dtype=dataset.codes.dtype)
    binning.write_bin_codes(changed.values, dataset.bin_edges[1], expected)
    np.testing.assert_array_equal(dataset.codes[:, 1], expected)
    assert dataset.codes[0, 1] == dataset.codes[:, 1].max()  # (-1 is the largest of -X[:, 1])


@settings(max_examples=200, deadline=None)
@given(
    values=st.lists(float32_floats, min_size=0, max_size=300)
    | st.lists(small_floats, max_size=300),
    float32=st.booleans(),
)
def test_distinct_counts_are_numpys_unique(values, float32):
    """The sorted distinct values (float64) and their counts, -0.0 merged into 0.0
    (stored as 0.0), NaN left out."""
    values = np.asarray(values, dtype=np.float64)
    if float32 and np.all(np.isnan(values) | (np.abs(values) < 3.4e38)):
        values = values.astype(np.float32)
    known = values[~np.isnan(values)].astype(np.float64) + 0.0
    expected, expected_counts = np.unique(known, return_counts=True)
    distinct, counts = binning._distinct_counts(np.sort(values))
    assert distinct.dtype == np.float64
    np.testing.assert_array_equal(distinct, expected)
    np.testing.assert_array_equal(np.signbit(distinct), np.signbit(expected))
    np.testing.assert_array_equal(counts, expected_counts)


@pytest.mark.parametrize("float32", [False, True])
@pytest.mark.parametrize("n_rows", [1000, _kernels.PARALLEL_MIN_ROWS + 123])
def test_bin_codes_equal_searchsorted_on_messy_columns(n_rows, float32):
    rng = np.random.default_rng(n_rows)
    x = _messy_column(rng, n_rows, float32)
    for max_bins in (2, 7, 255, 4000):
        codes, edges = encode_numeric_binned(_column(x), max_bins)
        known = ~np.isnan(x)
        assert codes.dtype == code_dtype_for(edges.shape[0] + 1)
        np.testing.assert_array_equal(codes[known], np.searchsorted(edges, x[known], side="left"))
        np.testing.assert_array_equal(codes[~known], edges.shape[0] + 1)
        np.testing.assert_array_equal(edges, _reference_edges(x[known], max_bins))


@settings(max_examples=200, deadline=None)
@given(
    values=st.lists(st.sampled_from([-2.5, -1.0, -0.0, 0.0, 0.1, 3.0, 7.0, 1e300]), min_size=1)
    | st.lists(st.floats(-1e3, 1e3, allow_nan=False), min_size=1, max_size=400),
    max_bins=st.integers(2, 300),
)
def test_midpoint_quantiles_are_numpys_bit_for_bit(values, max_bins):
    values = np.asarray(values, dtype=np.float64)
    distinct, counts = np.unique(values, return_counts=True)
    quantiles = np.linspace(0.0, 1.0, max_bins + 1)[1:-1]
    expected = np.quantile(values, quantiles, method="midpoint")
    np.testing.assert_array_equal(midpoint_quantiles(distinct, counts, max_bins), expected)


@settings(max_examples=300, deadline=None)
@given(
    values=st.lists(st.sampled_from([-2.5, -1.0, -0.0, 0.0, 0.1, 3.0, 7.0, 1e30]), min_size=3)
    | st.lists(st.floats(-1e3, 1e3, allow_nan=False, width=32), min_size=3, max_size=400)
    | st.lists(st.floats(-1e30, 1e30, allow_nan=False), min_size=3, max_size=50),
    float32=st.booleans(),
    data=st.data(),
)
def test_sorted_quantile_edges_are_numpys_bit_for_bit(values, float32, data):
    """The one-kernel edges of a sorted column of more than ``max_bins`` distinct
    values (float32 or float64): numpy's quantiles (-0.0 as 0.0), np.unique, those
    below the largest value, each leaving a bin that holds rows; and the same as
    the edges made from the column's value counts."""
    values = np.asarray(values, dtype=np.float32 if float32 else np.float64)
    wide = values.astype(np.float64) + 0.0
    distinct, counts = np.unique(wide, return_counts=True)
    assume(distinct.shape[0] > 2)
    max_bins = data.draw(st.integers(2, distinct.shape[0] - 1), label="max_bins")
    quantiles = np.linspace(0.0, 1.0, max_bins + 1)[1:-1]
    expected = np.unique(np.quantile(wide, quantiles, method="midpoint") + 0.0)
    expected = expected[expected < distinct[-1]]
    rows_at_most = np.searchsorted(wide, expected, side="right", sorter=np.argsort(wide))
    expected = expected[np.diff(rows_at_most, prepend=0) > 0]
    got = binning.sorted_quantile_edges(np.sort(values), max_bins)
    assert got.dtype == np.float64
    np.testing.assert_array_equal(got, expected)
    np.testing.assert_array_equal(np.signbit(got), np.signbit(expected))
    np.testing.assert_array_equal(got, binning._quantile_edges(distinct, counts, max_bins))


@settings(max_examples=200, deadline=None)
@given(
    values=st.lists(st.sampled_from([-1.0, -0.0, 0.0, 0.5, 2.0]), max_size=40)
    | st.lists(st.floats(-10, 10, allow_nan=False), max_size=300),
    limit=st.integers(0, 50),
    float32=st.booleans(),
)
def test_distinct_at_most_counts_up_to_the_limit(values, limit, float32):
    """-0.0 and 0.0 are one value."""
    values = np.sort(np.asarray(values, dtype=np.float32 if float32 else np.float64))
    n_distinct = np.unique(values + 0.0).shape[0]
    assert _kernels.distinct_at_most(values, limit) == min(n_distinct, limit)


@settings(max_examples=100, deadline=None)
@given(
    values=st.lists(small_floats, min_size=1, max_size=200).filter(lambda v: not np.isnan(v).all()),
    max_bins=st.integers(2, 40),
)
def test_edges_without_a_sample_are_the_full_columns(values, max_bins):
    values = np.asarray(values, dtype=np.float64)
    known = values[~np.isnan(values)]
    np.testing.assert_array_equal(
        quantile_bin_edges(known, max_bins), _reference_edges(known, max_bins)
    )


@pytest.fixture
def small_sample(monkeypatch):
    """A sample of 2,000 rows, so that the subsample shows on small columns."""
    monkeypatch.setattr(binning, "BIN_SAMPLE_ROWS", 2000)
    return 2000


def test_large_columns_take_their_edges_from_a_deterministic_sample(small_sample):
    rng = np.random.default_rng(0)
    x = rng.standard_normal(20 * small_sample)
    edges = quantile_bin_edges(x, 64)
    binning.sample_positions.cache_clear()
    np.testing.assert_array_equal(quantile_bin_edges(x.copy(), 64), edges)
    # The sample: sorted, distinct positions, the same for every column of that length.
    positions = binning.sample_positions(x.shape[0], small_sample)
    assert positions.shape == (small_sample,)
    assert np.all(np.diff(positions) > 0)
    assert not positions.flags.writeable
    np.testing.assert_array_equal(edges, _reference_edges(x[positions], 64))
    # ...and its quantiles are close to the full column's: bins of about 1/64 of the rows.
    counts = np.bincount(np.searchsorted(edges, x), minlength=64)
    assert counts.shape == (64,)
    assert counts.min() > 0.6 * x.shape[0] / 64
    assert counts.max() < 1.4 * x.shape[0] / 64


def test_few_distinct_values_stay_exact_when_the_sample_misses_some(small_sample):
    rng = np.random.default_rng(1)
    n = 50 * small_sample
    x = rng.integers(0, 40, n).astype(np.float64)
    rare = rng.choice(n, 5, replace=False)
    x[rare] = [100.5, 200.25, -7.0, 41.5, 1e9]  # five values the sample most likely misses
    x[rng.random(n) < 0.01] = np.nan
    positions = binning.sample_positions(int((~np.isnan(x)).sum()), small_sample)
    assert np.unique(x[~np.isnan(x)][positions]).shape[0] < 45  # the sample missed some
    codes, edges = encode_numeric_binned(_column(x), 255)
    known = ~np.isnan(x)
    distinct = np.unique(x[known])
    assert distinct.shape[0] == 45
    np.testing.assert_array_equal(edges, _reference_edges(x[known], 255))
    np.testing.assert_array_equal(codes[known], np.searchsorted(distinct, x[known]))
    # With the values the sample missed the column passes max_bins: the full column's
    # quantiles, as without a sample.
    codes, edges = encode_numeric_binned(_column(x), 42)
    np.testing.assert_array_equal(edges, _reference_edges(x[known], 42))
    np.testing.assert_array_equal(codes[known], np.searchsorted(edges, x[known]))


@pytest.mark.parametrize("parallel", [False, True])
@pytest.mark.parametrize("at_most", [0, 3, 6, 40])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_unseen_values_are_found_in_one_pass(parallel, at_most, dtype):
    """The values a column holds beyond the given distinct ones (NaN aside, -0.0 as 0.0),
    each once and ascending; None when there are more than ``at_most``, also when each
    chunk of the column holds few enough and the chunks together too many."""
    rng = np.random.default_rng(at_most)
    n = 5 * _kernels.CHUNK + 123
    assert n >= _kernels.PARALLEL_MIN_ROWS
    values = rng.choice([-2.5, -0.0, 0.0, 1.0, 3.0, np.nan], n).astype(dtype)
    distinct = np.array([-2.5, 0.0, 1.0, 3.0])
    rare = [7.0, -0.0, 9.5, 7.0, -1e30, 0.25]  # four new values; -0.0 is 0.0
    values[[5, 17, _kernels.CHUNK + 3, 3 * _kernels.CHUNK, 4 * _kernels.CHUNK + 99, n - 1]] = rare
    found = binning._unseen_distinct(values, distinct, at_most, parallel)
    expected = np.setdiff1d(np.unique(values[~np.isnan(values)].astype(np.float64) + 0.0), distinct)
    np.testing.assert_array_equal(
        expected, np.sort(np.array([7.0, 9.5, -1e30, 0.25], dtype)).astype(np.float64)
    )
    if at_most >= 4:
        assert found.dtype == np.float64
        np.testing.assert_array_equal(found, expected)
    else:  # (at_most 3: every chunk holds one or two new values, all of them four)
        assert found is None
    assert binning._unseen_distinct(
        values, np.unique(values[~np.isnan(values)]), at_most, parallel
    ).shape == (0,)


def test_textbook_thresholds_are_midpoints_with_a_sample(small_sample):
    """A large column of few values keeps the exact midpoint thresholds."""
    rng = np.random.default_rng(2)
    X = rng.choice(
        [64.0, 65.0, 68.0, 69.0, 70.0, 71.0, 72.0, 75.0, 80.0, 81.0, 83.0, 85.0],
        (10 * small_sample, 1),
    )
    y = (X[:, 0] > 70.5).astype(int)
    model = CARTClassifier(max_depth=1, max_bins=255).fit(X, y)
    assert model.tree_.threshold[0] == 70.5


def test_max_bins_255_codes_fit_one_byte_with_the_missing_code():
    rng = np.random.default_rng(3)
    X = rng.standard_normal((5000, 3)).astype(np.float32)
    X[rng.random(X.shape) < 0.05] = np.nan
    dataset = build_dataset(X, max_bins=255)
    assert dataset.codes.dtype == np.uint8
    assert dataset.codes.flags.f_contiguous
    np.testing.assert_array_equal(dataset.n_codes, [255, 255, 255])  # 254 edges: 255 bins
    np.testing.assert_array_equal(dataset.codes[np.isnan(X)], 255)  # the missing code
    assert int(dataset.codes[~np.isnan(X)].max()) == 254
    for f in range(3):
        known = ~np.isnan(X[:, f])
        np.testing.assert_array_equal(
            dataset.codes[known, f],
            np.searchsorted(dataset.bin_edges[f], X[known, f].astype(np.float64)),
        )


def test_encoding_builds_no_wide_code_matrix():
    """The codes go straight into the narrow matrix: no int64 matrix on the way."""
    import tracemalloc

    n, p = 100_000, 12
    X = np.random.default_rng(4).standard_normal((n, p))
    table = read_table(X)
    encode_table(table, 255), encode_table(table, None)  # compile first
    threads = numba.get_num_threads()
    numba.set_num_threads(1)  # (each thread has a column's temporaries of its own)
    try:
        for max_bins in (255, None):
            tracemalloc.start()
            dataset = encode_table(table, max_bins)
            kept, peak = tracemalloc.get_traced_memory()
            tracemalloc.stop()
            # What stays: the matrix, in one byte a cell with 255 bins, and the bin
            # edges; exact codes keep no distinct values (8 bytes each, 9.6 MB here):
            # they are read back from the columns when wanted. Exact columns of many
            # codes keep their rows in code order and their codes (4 bytes a row
            # each), for the grower.
            assert dataset.codes.dtype == (np.uint8 if max_bins else np.uint32)
            edges = sum(e.nbytes for e in dataset.bin_edges if e is not None)
            orders = sum(kept.rows.nbytes + kept.codes.nbytes for kept in dataset.presorted)
            assert orders == (0 if max_bins else 8 * n * p)
            assert kept < dataset.codes.nbytes + edges + orders + 100_000
            # On the way: one column's temporaries at a time (bins: its sorted copy,
            # distinct values and counts; exact codes: the radix sort's keys and row
            # numbers, twice: 24 bytes a row, and its distinct values; and the block of
            # columns copied out of the matrix to be sorted, or binned: 100,000 rows
            # are not sampled), never a matrix of wide codes (8 bytes a cell: 96
            # bytes a row here).
            copied = dataset_module.SORT_BLOCK_ROW_BYTES * n
            assert peak - kept < 6 * 8 * n + copied, (max_bins, peak, kept)
    finally:
        numba.set_num_threads(threads)


def test_a_nominal_column_is_never_binned():
    """300 categories with max_bins=255: one code each (uint16), split exactly."""
    rng = np.random.default_rng(5)
    n_categories = 300
    labels = np.array([f"c{k:03d}" for k in range(n_categories)], dtype=object)
    index = np.concatenate([np.arange(n_categories), rng.integers(0, n_categories, 2700)])
    frame = pd.DataFrame(
        {"category": pd.Categorical(labels[index], categories=labels), "x": rng.normal(size=3000)}
    )
    dataset = build_dataset(frame, max_bins=255)
    assert dataset.codes.dtype == np.uint16
    assert dataset.n_codes[0] == n_categories
    assert dataset.bin_edges[0] is None
    np.testing.assert_array_equal(dataset.codes[:, 0], index)
    # A regression tree on y = category number separates every category.
    y = index.astype(np.float64)
    model = CARTRegressor(max_bins=255).fit(frame, y)
    np.testing.assert_array_equal(model.predict(frame), y)
    assert model.get_n_leaves() == n_categories
    # Binary classes: one subset split of the categories is enough.
    classes = index % 2
    clf = CARTClassifier(max_bins=255, max_depth=1).fit(frame, classes)
    assert clf.score(frame, classes) == 1.0


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("n_sample", [2000, 70_000])  # the serial and the threaded gather
def test_matrix_samples_are_each_columns_own_sample(dtype, n_sample, monkeypatch):
    monkeypatch.setattr(binning, "BIN_SAMPLE_ROWS", n_sample)
    rng = np.random.default_rng(4)
    X = rng.standard_normal((2 * n_sample + 7, 5)).astype(dtype)
    columns = [4, 0, 2]
    samples = binning.matrix_samples(X, columns)
    positions = binning.sample_positions(X.shape[0], n_sample)
    assert samples.shape == (3, n_sample)
    assert samples.dtype == dtype
    for t, j in enumerate(columns):
        np.testing.assert_array_equal(samples[t], X[positions, j])
        np.testing.assert_array_equal(
            quantile_bin_edges(X[:, j], 32, sample=samples[t]), quantile_bin_edges(X[:, j], 32)
        )


@pytest.mark.parametrize("n_threads", [1, 2])
def test_sorted_samples_give_the_same_edges(n_threads, monkeypatch):
    """Samples sorted beforehand (on threads) are read as they are: the same edges,
    for columns of many values and of few (where the whole column is read too)."""
    monkeypatch.setattr(binning, "BIN_SAMPLE_ROWS", 2000)
    rng = np.random.default_rng(5)
    X = np.column_stack(
        [rng.standard_normal(5000), rng.integers(0, 7, 5000), rng.integers(0, 300, 5000)]
    ).astype(np.float32)
    X[4321, 1] = 99.0  # (a value the sample misses: the column is read for it)
    columns = [0, 1, 2]
    samples = binning.matrix_samples(X, columns)
    sorted_samples = samples.copy()
    binning.sort_samples(sorted_samples, n_threads)
    np.testing.assert_array_equal(sorted_samples, np.sort(samples, axis=1))
    for t, j in enumerate(columns):
        np.testing.assert_array_equal(
            quantile_bin_edges(X[:, j], 32, sample=sorted_samples[t], sample_sorted=True),
            quantile_bin_edges(X[:, j], 32),
        )
    assert 99.0 not in sorted_samples[1]
    few = quantile_bin_edges(X[:, 1], 32, sample=sorted_samples[1], sample_sorted=True)
    np.testing.assert_array_equal(few, [0.5, 1.5, 2.5, 3.5, 4.5, 5.5, 52.5])


def test_a_given_sample_is_refused_for_a_column_with_missing_values():
    values = np.array([1.0, np.nan, 2.0])
    column = RawColumn("x", "numeric", values, np.isnan(values))
    with pytest.raises(ValueError, match="known values"):
        binning.column_bins(column, 4, sample=values[:2])


@pytest.mark.parametrize("block_bytes", [1, 2 * 2000 * 4, 16 << 20])
def test_matrix_columns_binned_in_blocks_of_samples(small_sample, block_bytes, monkeypatch):
    """A C-ordered matrix's columns take their samples a block at a time (one column,
    two, all): the edges and codes of each column binned on its own."""
    monkeypatch.setattr(dataset_module, "SAMPLE_BLOCK_BYTES", block_bytes)
    rng = np.random.default_rng(5)
    n = 3 * small_sample
    X = np.column_stack(
        [
            rng.standard_normal(n),
            rng.integers(0, 7, n) * 1.5,
            np.where(rng.random(n) < 0.05, np.nan, rng.standard_normal(n)),
            rng.exponential(size=n),
            rng.integers(0, 300, n).astype(np.float64),
        ]
    ).astype(np.float32)
    X = np.ascontiguousarray(X)
    dataset = build_dataset(X, max_bins=64)
    _assert_each_column_binned_on_its_own(dataset, X, range(X.shape[1]), 64)


def _assert_each_column_binned_on_its_own(dataset, X, features, max_bins):
    """The edges (or, a bin per value, the values) and codes of each of ``features`` are
    those of the column alone."""
    for f in features:
        column = np.asfortranarray(X)[:, f]
        known = column[~np.isnan(column)]
        bins = binning.quantile_bins(known, max_bins)
        if bins.values is None:
            np.testing.assert_array_equal(dataset.bin_edges[f], bins.edges)
        else:
            assert dataset.bin_edges[f] is None
            np.testing.assert_array_equal(dataset.numeric_values[f], bins.values)
        codes = np.where(
            np.isnan(column), bins.edges.shape[0] + 1, np.searchsorted(bins.edges, column)
        )
        np.testing.assert_array_equal(dataset.codes[:, f], codes)


@pytest.mark.parametrize("threaded", [False, True])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("row_bytes", [1, 8, 16, 1 << 10])
def test_matrix_columns_binned_from_copied_blocks(dtype, row_bytes, threaded, monkeypatch):
    """Columns of a C-ordered matrix too short to be sampled are binned from blocks
    copied out of it (a column at a time, one or two, more, all; a nominal column
    among them), the copies of columns without missing values sorted in place (on
    two threads, or one): the edges and codes of each column binned on its own."""
    monkeypatch.setattr(dataset_module, "SORT_BLOCK_ROW_BYTES", row_bytes)
    if threaded:
        if numba.get_num_threads() < 2:
            pytest.skip("needs two numba threads")
        monkeypatch.setattr(dataset_module, "THREADED_MIN_ROWS", 1)
        sorted_on_threads = []
        monkeypatch.setattr(
            dataset_module,
            "sort_samples",
            lambda rows, n_threads: (
                sorted_on_threads.append(n_threads) or binning.sort_samples(rows, n_threads)
            ),
        )
    rng = np.random.default_rng(7)
    n = 5_000
    assert n <= binning.BIN_SAMPLE_ROWS
    X = np.column_stack(
        [
            rng.standard_normal(n),
            rng.integers(0, 7, n) * 1.5,
            np.where(rng.random(n) < 0.05, np.nan, rng.standard_normal(n)),
            rng.integers(0, 4, n).astype(np.float64),
            rng.exponential(size=n),
            rng.integers(-300, 300, n).astype(np.float64),
        ]
    ).astype(dtype)
    dataset = build_dataset(np.ascontiguousarray(X), max_bins=32, categorical_features=[3])
    assert dataset.bin_edges[3] is None
    _assert_each_column_binned_on_its_own(dataset, X, (0, 1, 2, 4, 5), 32)
    if threaded:  # (copied a column at a time: no block)
        blocks = row_bytes // np.dtype(dtype).itemsize > 1
        assert set(sorted_on_threads) == ({2} if blocks else set())


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("row_bytes", [1, 8, 16, 1 << 10])
def test_matrix_columns_sorted_in_copied_blocks(dtype, row_bytes, monkeypatch):
    """Exact codes of a C-ordered matrix's columns sorted from blocks copied out of it
    (a column at a time, two, more, all; a nominal column among them): each column's
    codes are the ranks of its values among its distinct values (NaN: the missing
    code), its values those distinct values."""
    monkeypatch.setattr(dataset_module, "SORT_BLOCK_ROW_BYTES", row_bytes)
    rng = np.random.default_rng(6)
    n = 5_000
    X = np.column_stack(
        [
            rng.standard_normal(n),
            rng.integers(0, 7, n) * 1.5,
            np.where(rng.random(n) < 0.05, np.nan, rng.standard_normal(n)),
            np.where(rng.random(n) < 0.3, -0.0, rng.exponential(size=n)),
            rng.integers(0, 4, n).astype(np.float64),
            rng.integers(-300, 300, n).astype(np.float64),
        ]
    ).astype(dtype)
    dataset = build_dataset(np.ascontiguousarray(X), categorical_features=[4])
    for f in (0, 1, 2, 3, 5):
        column = X[:, f].astype(np.float64) + 0.0  # (-0.0 is 0.0)
        missing = np.isnan(column)
        values = np.unique(column[~missing])
        codes = np.where(missing, values.shape[0], np.searchsorted(values, column))
        np.testing.assert_array_equal(dataset.codes[:, f], codes)
        np.testing.assert_array_equal(dataset.code_values(f), values)
