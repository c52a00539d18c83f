"""Encoding reads the caller's columns where they are: same codes, edges and thresholds
as a float64 copy would give, for every dtype and memory layout, and nothing written."""

import numpy as np
import pandas as pd
import pytest

from treelearn import CARTClassifier, CARTRegressor
from treelearn._dtypes import code_dtype_for
from treelearn.data import _kernels
from treelearn.data.binning import BIN_SAMPLE_ROWS, quantile_bin_edges
from treelearn.data.dataset import build_dataset
from treelearn.data.schema import read_table
from treelearn.exceptions import DataError


def _matrix(n_rows, dtype, seed=0, nan=True):
    """Columns of several kinds: continuous, few values, negative zeros, integers."""
    rng = np.random.default_rng(seed)
    columns = [
        rng.normal(size=n_rows) * 1e3,
        rng.integers(0, 7, size=n_rows) - 3.0,
        np.where(rng.random(n_rows) < 0.5, -0.0, rng.integers(0, 300, size=n_rows)),
        rng.exponential(size=n_rows),
    ]
    X = np.column_stack(columns)
    if np.dtype(dtype).kind in "iu":
        X = np.clip(np.abs(np.round(X)), 0, np.iinfo(dtype).max)
    X = X.astype(dtype)
    if nan and np.dtype(dtype).kind == "f":
        X[rng.random(n_rows) < 0.05, 0] = np.nan
        X[::7, 3] = np.nan
    return X


def _reference(X, max_bins):
    """The dataset of a float64 copy of ``X`` whose columns are contiguous (the input the
    encoding kernels were given before they read columns where they are)."""
    return build_dataset(np.array(X, dtype=np.float64, order="F"), max_bins=max_bins)


def _assert_same_dataset(got, expected):
    assert got.codes.dtype == expected.codes.dtype
    np.testing.assert_array_equal(got.codes, expected.codes)
    np.testing.assert_array_equal(got.n_codes, expected.n_codes)
    for name in ("numeric_values", "bin_edges"):
        for ours, theirs in zip(getattr(got, name), getattr(expected, name), strict=True):
            if theirs is None:
                assert ours is None
            else:
                assert ours.dtype == np.float64
                np.testing.assert_array_equal(ours, theirs)


def _assert_oracle(dataset, X):
    """Codes against numpy: ranks among the distinct values (exact) or ``searchsorted``
    of the edges (bins); the missing code is ``n_codes``; thresholds are midpoints."""
    for j in range(X.shape[1]):
        column = np.asarray(X[:, j], dtype=np.float64)
        missing = np.isnan(column)
        codes = dataset.codes[:, j].astype(np.int64)
        np.testing.assert_array_equal(codes[missing], dataset.n_codes[j])
        known = column[~missing]
        edges = dataset.bin_edges[j] if dataset.bin_edges else None
        if edges is None:
            distinct = np.unique(known + 0.0)  # -0.0 is 0.0
            np.testing.assert_array_equal(dataset.numeric_values[j], distinct)
            np.testing.assert_array_equal(codes[~missing], np.searchsorted(distinct, known))
            if distinct.shape[0] > 1:
                low, high = distinct[0], distinct[1]
                assert dataset.threshold(j, 0, 1) == float(low / 2.0 + high / 2.0)
        else:
            np.testing.assert_array_equal(codes[~missing], np.searchsorted(edges, known))


LAYOUTS = {
    "C": lambda X: np.ascontiguousarray(X),
    "F": lambda X: np.asfortranarray(X),
    "strided": lambda X: np.repeat(X, 2, axis=0)[::2, ::-1][:, ::-1],
}


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.int64, np.uint8])
@pytest.mark.parametrize("layout", list(LAYOUTS))
@pytest.mark.parametrize("max_bins", [None, 255, 8])
def test_codes_edges_and_values_as_from_a_float64_copy(dtype, layout, max_bins):
    X = LAYOUTS[layout](_matrix(3000, dtype))
    before = X.copy()
    dataset = build_dataset(X, max_bins=max_bins)
    _assert_same_dataset(dataset, _reference(X, max_bins))
    _assert_oracle(dataset, X)
    np.testing.assert_array_equal(X, before)  # NaN compares equal to NaN here


@pytest.mark.parametrize("layout", list(LAYOUTS))
@pytest.mark.parametrize("max_bins", [None, 255])
def test_large_columns_on_the_threaded_kernels_and_the_sample(layout, max_bins):
    # More rows than the bin sample and than the threaded kernels' minimum.
    n_rows = BIN_SAMPLE_ROWS + 10_000
    assert n_rows >= _kernels.PARALLEL_MIN_ROWS
    rng = np.random.default_rng(1)
    # 250 common values and 40 that occur once: the sample misses some of them.
    few = rng.integers(0, 250, size=n_rows).astype(np.float64)
    few[rng.choice(n_rows, 40, replace=False)] = 1000.0 + np.arange(40)
    X = np.column_stack([rng.normal(size=n_rows), few, rng.integers(0, 5, n_rows) * 0.5])
    X[rng.random(n_rows) < 0.01, 0] = np.nan
    X = LAYOUTS[layout](X.astype(np.float32))
    before = X.copy()
    dataset = build_dataset(X, max_bins=max_bins)
    _assert_same_dataset(dataset, _reference(X, max_bins))
    _assert_oracle(dataset, X)
    np.testing.assert_array_equal(X, before)


def test_quantile_edges_of_float32_equal_those_of_float64():
    values = np.random.default_rng(2).normal(size=BIN_SAMPLE_ROWS + 1000).astype(np.float32)
    strided = np.repeat(values, 3)[::3]
    expected = quantile_bin_edges(values.astype(np.float64), 255)
    np.testing.assert_array_equal(quantile_bin_edges(values, 255), expected)
    np.testing.assert_array_equal(quantile_bin_edges(strided, 255), expected)


def test_radix_sort_reads_float32_as_its_float64_value():
    """A float32 column is sorted by 32-bit keys of its own bits, then widened: the
    keys and rows of its float64 copy, ties in row order, NaN left out."""
    values = np.array([2.5, -0.0, np.nan, -1e-30, 0.0, 3e38, -3e38, 1e-45], dtype=np.float32)
    rng = np.random.default_rng(3)
    # Every digit of the keys varies: magnitudes from subnormal to huge, both signs, ties.
    spread = rng.standard_normal(20_000) * 10.0 ** rng.integers(-45, 38, 20_000)
    spread = spread.astype(np.float32)
    spread[rng.random(spread.size) < 0.05] = np.nan
    spread[rng.random(spread.size) < 0.05] = -0.0
    spread[rng.random(spread.size) < 0.05] = np.float32(np.inf) * rng.choice([-1, 1])
    spread[1000:2000] = spread[:1000]  # ties
    for column in (values, np.repeat(values, 2)[::2], spread, np.full(5, np.nan, np.float32)):
        keys, rows = _kernels.radix_sort(column)
        expected_keys, expected_rows = _kernels.radix_sort(column.astype(np.float64))
        assert keys.dtype == expected_keys.dtype == np.uint64
        np.testing.assert_array_equal(keys, expected_keys)
        np.testing.assert_array_equal(rows, expected_rows)
    known = ~np.isnan(spread)
    order = np.argsort(spread.astype(np.float64) + 0.0, kind="stable")[: known.sum()]
    np.testing.assert_array_equal(_kernels.radix_sort(spread)[1], order)


def test_numeric_columns_are_read_only_views_of_the_input():
    X = _matrix(500, np.float32)
    table = read_table(X)
    for j, column in enumerate(table.columns):
        assert column.values.dtype == np.float32
        assert np.shares_memory(column.values, X)
        assert not column.values.flags.writeable
        np.testing.assert_array_equal(column.missing, np.isnan(X[:, j]))
    # Columns without a missing value share a mask that takes no memory.
    assert table.columns[1].missing.strides == (0,)
    assert X.flags.writeable  # the caller's array is as it was
    # One pass over the C-ordered matrix found its NaN and saw no infinity.
    assert all(column.finite for column in table.columns)
    X[7, 2] = -np.inf
    assert [column.finite for column in read_table(X).columns] == [True, True, False, True]
    assert not any(column.finite for column in read_table(np.asfortranarray(X)).columns)
    kept = table.take(np.arange(500) % 3 == 0)
    assert kept.columns[1].missing.strides == (0,)
    assert kept.columns[1].missing.shape == (kept.n_rows,)
    np.testing.assert_array_equal(kept.columns[0].missing, np.isnan(X[::3, 0]))


def test_frame_columns_are_read_where_they_are():
    X = _matrix(500, np.float32)
    frame = pd.DataFrame({f"c{j}": X[:, j] for j in range(X.shape[1])})
    table = read_table(frame)
    for j, column in enumerate(table.columns):
        assert column.values.dtype == np.float32
        assert np.shares_memory(column.values, frame[f"c{j}"].to_numpy())


def _mixed_frame(n_rows, seed=0):
    rng = np.random.default_rng(seed)
    X = _matrix(n_rows, np.float32, seed)
    return pd.DataFrame(
        {
            "f32": X[:, 0],
            "f64": X[:, 3].astype(np.float64),
            "i64": rng.integers(-50, 400, size=n_rows),
            "u8": rng.integers(0, 9, size=n_rows).astype(np.uint8),
            "nullable": pd.array(
                np.where(rng.random(n_rows) < 0.1, None, rng.integers(0, 30, n_rows)),
                dtype="Int64",
            ),
            "cat": pd.Categorical(rng.choice(["a", "b", "c", None], size=n_rows)),
            "text": rng.choice(["x", "y", "z"], size=n_rows).astype(object),
            "flag": rng.random(n_rows) < 0.3,
        }
    )


def _float64_frame(frame):
    """Every numeric column as float64 (NaN for missing): the reference input."""
    out = frame.copy()
    for name in ("f32", "f64", "i64", "u8", "nullable"):
        out[name] = frame[name].astype("float64").to_numpy(na_value=np.nan)
    return out


@pytest.mark.parametrize("max_bins", [None, 255, 8])
def test_frames_of_mixed_dtypes(max_bins):
    frame = _mixed_frame(2000)
    before = frame.copy(deep=True)
    dataset = build_dataset(frame, max_bins=max_bins)
    _assert_same_dataset(dataset, build_dataset(_float64_frame(frame), max_bins=max_bins))
    pd.testing.assert_frame_equal(frame, before)


@pytest.mark.parametrize("max_bins", [None, 255])
@pytest.mark.parametrize("estimator", [CARTClassifier, CARTRegressor])
def test_trees_of_float32_input_equal_those_of_float64(estimator, max_bins):
    X = _matrix(4000, np.float32)
    y = (np.nan_to_num(X[:, 0]) > 0).astype(int) + (X[:, 1] > 0) + np.arange(4000) % 2
    before = X.copy()
    ours = estimator(max_bins=max_bins, max_depth=6, random_state=0).fit(X, y)
    theirs = estimator(max_bins=max_bins, max_depth=6, random_state=0).fit(X.astype(np.float64), y)
    np.testing.assert_array_equal(ours.tree_.feature, theirs.tree_.feature)
    np.testing.assert_array_equal(ours.tree_.threshold, theirs.tree_.threshold)
    np.testing.assert_array_equal(ours.tree_.value, theirs.tree_.value)
    np.testing.assert_array_equal(X, before)
    assert X.flags.writeable


def test_zero_weight_rows_are_dropped_from_views():
    X = _matrix(3000, np.float32)
    y = np.arange(3000) % 3
    weight = (np.arange(3000) % 4 != 0).astype(float)
    ours = CARTClassifier(max_bins=None, max_depth=5).fit(X, y, sample_weight=weight)
    kept = weight > 0
    theirs = CARTClassifier(max_bins=None, max_depth=5).fit(X[kept].astype(np.float64), y[kept])
    np.testing.assert_array_equal(ours.tree_.threshold, theirs.tree_.threshold)


@pytest.mark.parametrize(
    ("n_distinct", "expected"),
    [(2, np.uint8), (255, np.uint8), (256, np.uint16), (65535, np.uint16), (65536, np.uint32)],
)
def test_exact_codes_take_the_narrowest_dtype(n_distinct, expected):
    # n_distinct known values: codes 0 .. n_distinct - 1 and the missing code n_distinct.
    values = np.arange(n_distinct, dtype=np.float32)
    X = np.column_stack([values, values[::-1]])
    dataset = build_dataset(X, max_bins=None)
    assert dataset.codes.dtype == expected == code_dtype_for(n_distinct)
    # A missing value in place of a value: the missing code is one lower.
    column = values.reshape(-1, 1).copy()
    column[0, 0] = np.nan
    assert build_dataset(column, max_bins=None).codes.dtype == code_dtype_for(n_distinct - 1)
    # The widest column decides the matrix's dtype.
    mixed = np.column_stack([np.arange(10.0).repeat(n_distinct // 10 + 1)[:n_distinct], values])
    assert build_dataset(mixed, max_bins=None).codes.dtype == expected


def test_errors_name_the_column_and_rows_of_a_strided_float32_column():
    X = _matrix(50, np.float32, nan=False)
    X[[3, 17], 2] = np.inf
    with pytest.raises(DataError, match=r"Column 'x2' has infinite values at rows \[3, 17\]"):
        build_dataset(X)
    X = _matrix(50, np.float32, nan=False)
    X[:, 1] = np.nan
    with pytest.raises(DataError, match="Column 'x1' has no known value"):
        build_dataset(X)


@pytest.mark.parametrize("kernel", ["scan_nan_inf", "scan_nan_inf_parallel"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("seed", range(12))
def test_scan_nan_inf_flags_each_column_with_a_nan_or_an_infinity(kernel, dtype, seed):
    """The scan of a C-ordered matrix flags exactly the columns holding a NaN and those
    holding an infinity (either sign), whichever rows and columns hold them (on
    threads: in blocks of ``CHUNK`` rows, the last one short; odd seeds put the NaN
    and infinities in the blocks after the first)."""
    rng = np.random.default_rng(seed)
    n_rows, n_columns = int(rng.integers(1, 300)), int(rng.integers(1, 9))
    first_row = 0
    if kernel == "scan_nan_inf_parallel":
        n_rows = int(rng.integers(1, 3 * _kernels.CHUNK))
        if seed % 2 and n_rows > _kernels.CHUNK:
            first_row = _kernels.CHUNK
    X = rng.normal(size=(n_rows, n_columns)).astype(dtype)
    for value in (np.nan, np.inf, -np.inf):
        for _ in range(int(rng.integers(0, 4))):
            X[rng.integers(first_row, n_rows), rng.integers(n_columns)] = value
    if seed == 0:
        X[:] = 1e30  # (huge, finite: x - x is 0.0)
    has_nan = np.zeros(n_columns, dtype=bool)
    has_inf = np.zeros(n_columns, dtype=bool)
    getattr(_kernels, kernel)(X, has_nan, has_inf)
    np.testing.assert_array_equal(has_nan, np.isnan(X).any(axis=0))
    np.testing.assert_array_equal(has_inf, np.isinf(X).any(axis=0))
