"""Codes: order-preserving ranks, the missing code, thresholds, unseen categories."""

import threading

import numba
import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from treelearn import CARTClassifier, CARTRegressor
from treelearn._dtypes import row_index_dtype
from treelearn.data import dataset as dataset_module
from treelearn.data.dataset import build_dataset
from treelearn.data.encoding import (
    midpoint_thresholds,
    numeric_threshold,
    sort_numeric,
    write_exact_codes,
)
from treelearn.data.schema import read_table
from treelearn.estimators.base import _numba_threads as numba_threads

SETTINGS = settings(max_examples=100, deadline=None)

finite = st.floats(allow_nan=False, allow_infinity=False, width=64)


# ---------------------------------------------------------------------------
# Numeric codes
# ---------------------------------------------------------------------------


@SETTINGS
@given(
    values=arrays(np.float64, st.integers(1, 60), elements=finite | st.just(np.nan)),
)
def test_numeric_codes_are_ranks_that_keep_order(values):
    if np.isnan(values).all():
        values[0] = 0.0
    values[values == 0.0] = 0.0  # -0.0 and 0.0 are one value
    dataset = build_dataset(values.reshape(-1, 1))
    codes = dataset.codes[:, 0].astype(np.int64)
    missing = np.isnan(values)
    distinct = np.unique(values[~missing])
    assert dataset.n_codes[0] == distinct.shape[0]
    np.testing.assert_array_equal(dataset.numeric_values[0], distinct)
    # The missing code is n_codes (one past the last known code).
    np.testing.assert_array_equal(codes[missing], dataset.n_codes[0])
    # Known codes are the rank of the value among the distinct values...
    np.testing.assert_array_equal(codes[~missing], np.searchsorted(distinct, values[~missing]))
    # ...so they order rows exactly as the values do.
    known = values[~missing]
    kc = codes[~missing]
    np.testing.assert_array_equal(known[:, None] < known[None, :], kc[:, None] < kc[None, :])
    np.testing.assert_array_equal(known[:, None] == known[None, :], kc[:, None] == kc[None, :])


def test_numeric_codes_pin_an_example():
    X = np.array([[3.5, 0.0], [-1.0, 1.0], [3.5, 2.0], [np.nan, 3.0], [10.0, 4.0], [-1.0, 5.0]])
    dataset = build_dataset(X)
    np.testing.assert_array_equal(dataset.codes[:, 0], [1, 0, 1, 3, 2, 0])
    np.testing.assert_array_equal(dataset.n_codes, [3, 6])
    np.testing.assert_array_equal(dataset.numeric_values[0], [-1.0, 3.5, 10.0])
    assert dataset.numeric_values[1].tolist() == [0, 1, 2, 3, 4, 5]
    missing = dataset.codes == dataset.n_codes  # the missing code is one past the last
    np.testing.assert_array_equal(missing.any(axis=0), [True, False])
    assert not dataset.is_nominal.any()
    assert dataset.codes.flags.f_contiguous
    assert dataset.codes.dtype == np.uint8


def test_code_dtype_widens_only_when_the_missing_code_needs_it():
    assert build_dataset(np.arange(255.0).reshape(-1, 1)).codes.dtype == np.uint8  # max 255
    wide = build_dataset(np.arange(256.0).reshape(-1, 1))  # missing code 256
    assert wide.codes.dtype == np.uint16
    assert int(wide.codes[:, 0].max()) == 255 and wide.n_codes[0] == 256


# ---------------------------------------------------------------------------
# Nominal codes
# ---------------------------------------------------------------------------


def test_nominal_codes_follow_sorted_categories_and_missing_is_last():
    frame = pd.DataFrame(
        {
            "color": ["red", "blue", None, "green", "blue", np.nan],
            "size": pd.Categorical(["S", "L", "M", "S", None, "L"], categories=["S", "M", "L"]),
            "flag": [True, False, True, True, False, False],
        }
    )
    dataset = build_dataset(frame)
    assert dataset.is_nominal.tolist() == [True, True, True]
    assert dataset.schema.categories[0] == ("blue", "green", "red")
    np.testing.assert_array_equal(dataset.codes[:, 0], [2, 0, 3, 1, 0, 3])
    # A declared category order is kept (not sorted); missing gets n_codes = 3.
    assert dataset.schema.categories[1] == ("S", "M", "L")
    np.testing.assert_array_equal(dataset.codes[:, 1], [0, 2, 1, 0, 3, 2])
    assert dataset.schema.categories[2] == (False, True)
    np.testing.assert_array_equal(dataset.codes[:, 2], [1, 0, 1, 1, 0, 0])
    np.testing.assert_array_equal(dataset.n_codes, [3, 3, 2])


def test_categorical_features_makes_numbers_nominal():
    X = np.array([[10.0, 1.0], [30.0, 2.0], [20.0, 3.0], [np.nan, 4.0]])
    dataset = build_dataset(X, categorical_features=[0])
    assert dataset.is_nominal.tolist() == [True, False]
    assert dataset.numeric_values[0] is None
    assert dataset.n_codes[0] == 3
    np.testing.assert_array_equal(dataset.codes[:, 0], [0, 2, 1, 3])


# ---------------------------------------------------------------------------
# Thresholds
# ---------------------------------------------------------------------------


def test_threshold_is_the_midpoint_of_neighbouring_values():
    values = np.array([-3.0, 1.0, 2.0, 4.0])
    assert numeric_threshold(values, 0, 1) == -1.0
    assert numeric_threshold(values, 1, 2) == 1.5
    assert numeric_threshold(values, 2, 3) == 3.0
    # Huge values: no overflow to inf.
    big = np.array([1.0e308, 1.7e308])
    assert numeric_threshold(big, 0, 1) == pytest.approx(1.35e308)


def test_adjacent_floats_threshold_keeps_them_apart():
    low = np.nextafter(1.0, 2.0)  # 1 + eps: odd last mantissa bit
    high = np.nextafter(low, 2.0)  # 1 + 2 eps
    assert low / 2.0 + high / 2.0 == high  # the midpoint rounds up to the right value
    threshold = numeric_threshold(np.array([low, high]), 0, 1)
    assert threshold == low
    assert low <= threshold < high
    # Rounding down to the left value is fine as it is.
    a, b = 1.0, np.nextafter(1.0, 2.0)
    assert numeric_threshold(np.array([a, b]), 0, 1) == a


@SETTINGS
@given(values=st.lists(finite, min_size=2, max_size=40, unique=True))
def test_midpoint_thresholds_of_arrays_are_those_of_each_pair(values):
    """One rule for a pair and for arrays of pairs: each cut separates its two values."""
    values = np.unique(np.array(values) + 0.0)
    low, high = values[:-1], values[1:]
    cuts = midpoint_thresholds(low, high)
    assert cuts.dtype == np.float64
    np.testing.assert_array_equal(
        cuts, [numeric_threshold(values, k, k + 1) for k in range(low.shape[0])]
    )
    assert np.all((low <= cuts) & (cuts < high))


def test_adjacent_floats_are_separated_by_a_fitted_tree():
    low = np.nextafter(1.0, 2.0)
    high = np.nextafter(low, 2.0)
    X = np.array([[low], [high], [low], [high]])
    y = np.array([0, 1, 0, 1])
    model = CARTClassifier().fit(X, y)
    assert model.tree_.node_count == 3
    assert model.tree_.threshold[0] == low
    np.testing.assert_array_equal(model.predict(X), y)


@SETTINGS
@given(values=arrays(np.float64, st.integers(2, 30), elements=finite, unique=True))
def test_thresholds_separate_every_pair_of_neighbours(values):
    values = np.unique(values)
    for k in range(values.shape[0] - 1):
        t = numeric_threshold(values, k, k + 1)
        assert values[k] <= t < values[k + 1]


# ---------------------------------------------------------------------------
# Unseen categories at predict time are treated as missing
# ---------------------------------------------------------------------------


def _frame_with_missing(n=200, seed=0):
    rng = np.random.default_rng(seed)
    color = rng.choice(["blue", "green", "red", "white"], n).astype(object)
    color[rng.random(n) < 0.15] = None
    x = rng.normal(size=n)
    y = np.where(np.isin(color, ["red", "white"]), 1, 0)
    y[color == None] = 1  # noqa: E711 - elementwise comparison
    y = np.where(rng.random(n) < 0.1, 1 - y, y)
    return pd.DataFrame({"color": color, "x": x}), y


def test_unseen_category_predicts_like_missing_classifier():
    X, y = _frame_with_missing()
    model = CARTClassifier(max_depth=3, random_state=0).fit(X, y)
    assert model.tree_.feature[0] == 0  # the root splits on the nominal column
    test = pd.DataFrame({"color": ["purple", "black", "red", "blue"], "x": [0.1, -0.3, 0.2, 0.0]})
    as_missing = test.assign(color=[None, None, "red", "blue"])
    np.testing.assert_array_equal(model.predict(test), model.predict(as_missing))
    np.testing.assert_array_equal(model.predict_proba(test), model.predict_proba(as_missing))
    np.testing.assert_array_equal(model.apply(test), model.apply(as_missing))
    as_nan = test.assign(color=[np.nan, np.nan, "red", "blue"])
    np.testing.assert_array_equal(model.apply(test), model.apply(as_nan))
    # Missing rows were class 1 in training and learn their own direction: they do
    # not simply follow the heavier child.
    assert model.predict(as_missing)[0] == 1


def test_unseen_category_predicts_like_missing_regressor_numpy():
    rng = np.random.default_rng(1)
    n = 300
    color = rng.choice(["a", "b", "c"], n).astype(object)
    y = np.select([color == "a", color == "b"], [1.0, 5.0], 9.0) + rng.normal(0, 0.1, n)
    color[:20] = None
    y[:20] = 20.0
    X = np.column_stack([color, rng.normal(size=n)]).astype(object)
    model = CARTRegressor(max_depth=4, categorical_features=[0]).fit(X, y)
    test = np.array([["zzz", 0.0], [None, 0.0], ["b", 0.0]], dtype=object)
    prediction = model.predict(test)
    assert prediction[0] == prediction[1]
    assert prediction[0] == pytest.approx(20.0, abs=0.5)
    assert prediction[2] == pytest.approx(5.0, abs=0.5)


def test_data_threshold_is_the_training_value_the_midpoint_rounds_below():
    from treelearn.data.dataset import build_dataset

    # (0.557 + 0.565) / 2 rounds to 0.5609999999999999, just below the training value 0.561.
    dataset = build_dataset(np.array([[0.557], [0.561], [0.565], [0.9]]))
    assert dataset.threshold(0, 0, 2) < 0.561
    assert dataset.data_threshold(0, 0, 2) == 0.561
    assert dataset.data_threshold(0, 2, 3) == 0.565  # midpoint 0.7325: the value below it


@SETTINGS
@given(
    values=arrays(
        np.float64,
        st.integers(2, 40),
        elements=st.floats(allow_nan=False, allow_infinity=False, width=32),
    ),
    max_bins=st.sampled_from([None, 3, 8]),
    float32=st.booleans(),
)
def test_thresholds_of_many_splits_are_the_scalar_ones(values, max_bins, float32):
    """``Dataset.thresholds`` (all splits of a feature at once) gives, to the bit,
    ``threshold`` and ``data_threshold`` of each pair of codes."""
    column = values.astype(np.float32) if float32 else values
    dataset = build_dataset(column.reshape(-1, 1), max_bins=max_bins)
    n_codes = int(dataset.n_codes[0])
    left, right = np.triu_indices(n_codes, 1)
    for at_data, scalar in ((False, dataset.threshold), (True, dataset.data_threshold)):
        many = dataset.thresholds(0, left, right, at_data)
        assert many.dtype == np.float64
        expected = [scalar(0, int(a), int(b)) for a, b in zip(left, right, strict=True)]
        np.testing.assert_array_equal(many, np.array(expected, dtype=np.float64), strict=True)


def test_exact_codes_keep_the_column_or_the_distinct_values_whichever_is_smaller():
    """A float32 column of 1,000 distinct values (4 kB) is kept and its values (8 kB)
    read back when asked; a float64 column of 5 distinct values (8 kB) keeps the
    values (40 bytes). Either way the same values, as ``np.unique`` gives them."""
    rng = np.random.default_rng(7)
    many = rng.standard_normal(1000).astype(np.float32)
    few = rng.integers(0, 5, 1000).astype(np.float64)
    few[::10] = np.nan
    frame = pd.DataFrame({"many": many, "few": few, "kind": rng.choice(["a", "b"], 1000)})
    dataset = build_dataset(frame)
    assert dataset.exact_columns[0].nbytes == 4000 and dataset.distinct_values[0] is None
    assert dataset.exact_columns[1] is None
    np.testing.assert_array_equal(dataset.distinct_values[1], [0.0, 1.0, 2.0, 3.0, 4.0])
    assert dataset.exact_columns[2] is None and dataset.distinct_values[2] is None
    expected = np.unique(many).astype(np.float64)
    read = dataset.code_values(0)
    np.testing.assert_array_equal(read, expected, strict=True)
    assert dataset.code_values(0) is not read  # read again: not kept
    assert dataset.code_values(1) is dataset.distinct_values[1]
    assert dataset.code_values(2) is None
    kept = dataset.numeric_values  # all of them, read once and kept
    assert dataset.numeric_values is kept and dataset.code_values(0) is kept[0]
    np.testing.assert_array_equal(kept[0], expected, strict=True)
    assert kept[1] is dataset.distinct_values[1] and kept[2] is None


# ---------------------------------------------------------------------------
# Nominal columns read from their codes (pandas category, pandas strings)
# ---------------------------------------------------------------------------


def _nominal_frames(n=500, seed=0):
    """The same nominal data as a category column (declared order, an unused category),
    a pandas string column and an object column."""
    rng = np.random.default_rng(seed)
    values = rng.choice(np.array(["pear", "apple", "fig", "kiwi"], dtype=object), n)
    values[rng.random(n) < 0.1] = None
    declared = ["kiwi", "pear", "plum", "apple", "fig"]
    return (
        pd.DataFrame({"fruit": pd.Categorical(values, categories=declared)}),
        pd.DataFrame({"fruit": pd.Series(values, dtype="string")}),
        pd.DataFrame({"fruit": pd.Series(values, dtype=object)}),
        values,
        declared,
    )


def _expected_codes(values, categories):
    position = {c: k for k, c in enumerate(categories)}
    return np.array([position.get(v, len(categories)) for v in values])


def test_category_and_string_columns_encode_from_their_codes():
    categorical, strings, objects, values, declared = _nominal_frames()
    for frame, categories in [
        (categorical, tuple(declared)),
        (strings, ("apple", "fig", "kiwi", "pear")),
        (objects, ("apple", "fig", "kiwi", "pear")),
    ]:
        table = read_table(frame)
        column = table.columns[0]
        assert column.missing.tolist() == [v is None for v in values]
        assert column.values.tolist() == values.tolist()
        dataset = build_dataset(frame)
        assert dataset.schema.categories[0] == categories
        np.testing.assert_array_equal(dataset.codes[:, 0], _expected_codes(values, categories))
    assert read_table(categorical).columns[0].level_codes is not None
    assert read_table(strings).columns[0].level_codes is not None


def test_dropped_rows_take_their_categories_with_them():
    _, strings, objects, values, _ = _nominal_frames()
    weight = np.where(values == "fig", 0.0, 1.0)
    y = np.arange(values.shape[0]) % 2
    for frame in (strings, objects):
        model = CARTClassifier(max_depth=2).fit(frame, y, sample_weight=weight)
        assert model.feature_schema_.categories[0] == ("apple", "kiwi", "pear")


def test_category_codes_map_to_the_training_categories_at_prediction():
    categorical, strings, objects, values, _ = _nominal_frames()
    y = np.isin(values, ["fig", "kiwi"]).astype(int)
    for train in (categorical, strings, objects):
        model = CARTClassifier(max_depth=3).fit(train, y)
        np.testing.assert_array_equal(model.predict(train), y)
        other_order = pd.DataFrame(
            {"fruit": pd.Categorical(values, categories=["fig", "kiwi", "melon", "pear", "apple"])}
        )
        for test in (categorical, strings, objects, other_order):
            np.testing.assert_array_equal(model.apply(test), model.apply(objects))


def test_replacing_a_columns_values_drops_its_codes():
    column = read_table(_nominal_frames()[0]).columns[0]
    assert column.level_codes is not None and column.levels is not None
    changed = column.with_values(np.full(column.values.shape[0], "x", dtype=object))
    assert changed.level_codes is None and changed.levels is None
    taken = column.take(np.arange(10))
    np.testing.assert_array_equal(taken.level_codes, column.level_codes[:10])
    assert taken.values.tolist() == column.values[:10].tolist()


def test_exact_codes_widen_the_matrix_column_by_column():
    """A later numeric column needing a wider dtype keeps the earlier columns' codes."""
    rng = np.random.default_rng(0)
    X = np.column_stack(
        [rng.integers(0, 5, 1000), rng.standard_normal(1000), rng.integers(0, 3, 1000)]
    ).astype(np.float64)
    X[::7, 0] = np.nan
    dataset = build_dataset(X, max_bins=None)
    assert dataset.codes.dtype == np.uint16
    for f in range(3):
        known = ~np.isnan(X[:, f])
        distinct, inverse = np.unique(X[known, f], return_inverse=True)
        np.testing.assert_array_equal(dataset.numeric_values[f], distinct)
        np.testing.assert_array_equal(dataset.codes[known, f], inverse)
        np.testing.assert_array_equal(dataset.codes[~known, f], distinct.shape[0])


@pytest.mark.skipif(numba.config.NUMBA_NUM_THREADS < 2, reason="needs two numba threads")
@pytest.mark.parametrize("max_bins", [None, 255, 16])
def test_columns_encoded_on_threads_are_the_serial_encoding(max_bins, monkeypatch):
    """Numeric columns sorted (or binned) several at a time, on threads, give the codes,
    values and edges of one column at a time; exact codes, written by the threads that
    sorted them, still widen column by column (uint8 -> uint16 -> uint32, the earlier
    columns kept), nominal columns untouched."""
    monkeypatch.setattr(dataset_module, "THREADED_MIN_ROWS", 1)
    rng = np.random.default_rng(3)
    n = 70_000
    frame = pd.DataFrame(
        {
            "few": rng.integers(0, 5, n).astype(np.float64),
            "colour": rng.choice(["red", "green", "blue"], n),
            "some": rng.integers(0, 1000, n).astype(np.float32),
            "many": rng.standard_normal(n),
            "int": rng.integers(-3, 3, n),
            "float32": rng.standard_normal(n).astype(np.float32),
        }
    )
    frame.loc[::9, "many"] = np.nan
    frame.loc[::11, "few"] = np.nan

    column_threads = []
    code_threads = []
    for name, threads in [
        ("sort_numeric", column_threads),
        ("column_bins", column_threads),
        ("write_exact_codes", code_threads),
    ]:
        work = getattr(dataset_module, name)

        def recorded(*args, work=work, threads=threads, **kwargs):
            threads.append(threading.get_ident())
            return work(*args, **kwargs)

        monkeypatch.setattr(dataset_module, name, recorded)

    def encoded(n_threads):
        column_threads.clear()
        code_threads.clear()
        with numba_threads(n_threads):
            return build_dataset(frame, max_bins=max_bins)

    serial = encoded(1)
    assert set(column_threads + code_threads) == {threading.get_ident()}
    threaded = encoded(2)
    assert len(column_threads) == 5 and threading.get_ident() not in column_threads
    assert len(code_threads) == (5 if max_bins is None else 0)
    assert threading.get_ident() not in code_threads
    assert threaded.codes.dtype == serial.codes.dtype
    assert threaded.codes.flags.f_contiguous
    if max_bins is None:
        assert serial.codes.dtype == np.uint32  # ("float32": 70,000 distinct values)
    np.testing.assert_array_equal(threaded.codes, serial.codes)
    np.testing.assert_array_equal(threaded.n_codes, serial.n_codes)
    for mine, theirs in [
        *zip(threaded.numeric_values, serial.numeric_values, strict=True),
        *zip(threaded.bin_edges, serial.bin_edges, strict=True),
    ]:
        assert (mine is None) == (theirs is None)
        if mine is not None:
            np.testing.assert_array_equal(mine, theirs, strict=True)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("n_rows", [1, 16_384, 40_001])
def test_matrix_columns_copied_on_threads_are_the_columns(dtype, n_rows):
    """A block of a C-ordered matrix's columns copied on two threads, a run of rows
    each (one run, whole runs and a partial last one): the columns, as one thread
    copies them."""
    from treelearn.data._kernels import copy_matrix_columns, copy_matrix_columns_parallel

    matrix = np.random.default_rng(n_rows).standard_normal((n_rows, 7)).astype(dtype)
    columns = np.array([5, 0, 3, 6], dtype=np.int64)
    serial = np.zeros((4, n_rows), dtype=dtype)
    copy_matrix_columns(matrix, columns, serial)
    threaded = np.zeros((4, n_rows), dtype=dtype)
    with numba_threads(2):
        copy_matrix_columns_parallel(matrix, columns, threaded)
    np.testing.assert_array_equal(serial, matrix[:, columns].T)
    np.testing.assert_array_equal(threaded, serial)


@pytest.mark.parametrize("float32", [False, True])
def test_exact_codes_are_numpys_unique_on_awkward_values(float32):
    """The radix sort against np.unique: huge, tiny, subnormal, infinite, -0.0, ties."""
    from treelearn.data.encoding import encode_numeric_exact, read_code_values
    from treelearn.data.schema import RawColumn

    rng = np.random.default_rng(int(float32))
    tiny, huge = (1e-45, 3.4e38) if float32 else (5e-324, 1.7e308)  # subnormal, near max
    specials = np.array([0.0, -0.0, np.inf, -np.inf, tiny, -tiny, huge, -huge, 1.0, -1.0, np.nan])
    if float32:
        specials = specials.astype(np.float32).astype(np.float64)
    for trial in range(60):
        n = int(rng.integers(1, 5000))
        x = rng.standard_normal(n) * 10.0 ** rng.integers(-30, 30)
        if trial % 3 == 0:
            x = np.round(x, 0)
        if float32:
            x = x.astype(np.float32).astype(np.float64)
        special = rng.random(n) < 0.3
        x[special] = rng.choice(specials, int(special.sum()))
        codes, values = encode_numeric_exact(RawColumn("x", "numeric", x, np.isnan(x)))
        known = ~np.isnan(x)
        distinct, inverse = np.unique(x[known], return_inverse=True)
        np.testing.assert_array_equal(values, distinct)
        np.testing.assert_array_equal(codes[known], inverse)
        np.testing.assert_array_equal(codes[~known], distinct.shape[0])
        assert codes.dtype == (np.uint8 if distinct.shape[0] <= 255 else np.uint16)
        # Read back from the column (a strided view, in float32 where the values are
        # float32's) and its codes: the same values, bit for bit (-0.0 is 0.0 there too).
        column = x.astype(np.float32) if float32 else x
        strided = np.repeat(column[:, None], 3, axis=1)[:, 1]
        back = read_code_values(strided, codes, distinct.shape[0])
        np.testing.assert_array_equal(back.view(np.uint64), values.view(np.uint64))


_ORDER_VALUES = st.one_of(
    st.sampled_from([0.0, -0.0, 1.5, -2.0, np.nan]),
    st.floats(-1e3, 1e3, allow_nan=False, width=32),
)


def _assert_in_code_order(dataset, features):
    """``dataset.presorted``: ``features``' rows as a stable sort of their codes, and
    those rows' codes."""
    (presorted,) = dataset.presorted
    np.testing.assert_array_equal(presorted.features, features)
    assert presorted.rows.shape == presorted.codes.shape == (len(features), dataset.n_samples)
    assert presorted.rows.dtype == presorted.codes.dtype == row_index_dtype(dataset.n_samples)
    for s, j in enumerate(features):
        codes = dataset.codes[:, j]
        np.testing.assert_array_equal(presorted.rows[s], np.argsort(codes, kind="stable"))
        np.testing.assert_array_equal(presorted.codes[s], codes[presorted.rows[s]])


@settings(max_examples=60, deadline=None)
@given(
    values=arrays(np.float64, st.integers(1, 200), elements=_ORDER_VALUES),
    dtype=st.sampled_from([np.float64, np.float32]),
)
def test_presorted_rows_are_stable_sorts_of_the_exact_codes(values, dtype):
    """An exact numeric column keeps its rows in code order, and their codes, from
    the sort that made its codes: the known rows by value (equal values, -0.0 and 0.0
    among them, in row order), then the missing rows in row order, as a stable sort
    of the codes; handed over once."""
    if np.isnan(values).all():
        values[0] = 1.0
    frame = pd.DataFrame({"x": values.astype(dtype), "ints": np.arange(values.shape[0]) % 3})
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(dataset_module, "ROW_ORDER_MIN_CODES", 1)
        dataset = build_dataset(frame)
    _assert_in_code_order(dataset, [0, 1])
    presorted = dataset.take_presorted()
    np.testing.assert_array_equal(presorted.features, [0, 1])
    assert dataset.take_presorted() is None and dataset.presorted == []


def test_presorted_rows_are_kept_for_columns_of_many_codes_on_any_thread_count():
    """Only columns of at least ROW_ORDER_MIN_CODES codes keep their rows in code order
    (nominal and binned ones none), moved up to the first rows of the matrices, the
    same whether the columns were sorted on one thread or two."""
    rng = np.random.default_rng(4)
    n = dataset_module.THREADED_MIN_ROWS + 10
    frame = pd.DataFrame(
        {
            "few": rng.integers(0, dataset_module.ROW_ORDER_MIN_CODES - 1, n).astype(float),
            "many": rng.standard_normal(n),
            "just enough": rng.integers(0, dataset_module.ROW_ORDER_MIN_CODES, n),
            "nominal": rng.choice(list("abc"), n),
            "float32": rng.standard_normal(n).astype(np.float32),
        }
    )
    frame.loc[::7, "many"] = np.nan
    kept = []
    for n_threads in (1, 2):
        with numba_threads(n_threads):
            dataset = build_dataset(frame)
        assert dataset.n_codes[2] == dataset_module.ROW_ORDER_MIN_CODES
        _assert_in_code_order(dataset, [1, 2, 4])
        kept.append(dataset.take_presorted())
    assert build_dataset(frame, max_bins=255).presorted == []
    assert build_dataset(frame[["few", "nominal"]]).presorted == []
    np.testing.assert_array_equal(kept[0].rows, kept[1].rows)
    np.testing.assert_array_equal(kept[0].codes, kept[1].codes)


def test_no_presorted_rows_where_their_room_cannot_be_reserved(monkeypatch):
    """Where the matrices for the rows in code order cannot even be reserved, the
    codes are the same and no column keeps its order (the growers sort them)."""
    frame = pd.DataFrame({"x": np.arange(300.0)[::-1], "y": np.arange(300) % 7})
    expected = build_dataset(frame)
    reserve = dataset_module._reserved_presorted
    # (2**40 times as many columns: far beyond any address space.)
    monkeypatch.setattr(
        dataset_module, "_reserved_presorted", lambda n, rows: reserve(n << 40, rows)
    )
    with pytest.raises(MemoryError):
        np.empty((1 << 41, 300), dtype=np.int32)
    dataset = build_dataset(frame)
    assert dataset.presorted == [] and expected.presorted != []
    np.testing.assert_array_equal(dataset.codes, expected.codes)


def test_write_exact_codes_writes_the_rows_in_code_order_beside_the_codes():
    """``write_exact_codes`` with ``in_code_order``: the same codes, and every row in
    code order with its code (the missing rows last, in row order)."""
    values = np.array([3.0, np.nan, 1.0, 3.0, np.nan, 2.0, -0.0, 0.0])
    sorted_column = sort_numeric(read_table(values[:, None]).columns[0])
    codes = np.empty(8, dtype=np.uint8)
    rows, row_codes = np.full(8, -1, dtype=np.int32), np.full(8, -1, dtype=np.int32)
    distinct = write_exact_codes(sorted_column, codes, (rows, row_codes))
    np.testing.assert_array_equal(distinct, [0.0, 1.0, 2.0, 3.0])
    np.testing.assert_array_equal(codes, [3, 4, 1, 3, 4, 2, 0, 0])
    np.testing.assert_array_equal(rows, [6, 7, 2, 5, 0, 3, 1, 4])
    np.testing.assert_array_equal(row_codes, [0, 0, 1, 2, 3, 3, 4, 4])
    alone = np.empty(8, dtype=np.uint8)
    write_exact_codes(sorted_column, alone)
    np.testing.assert_array_equal(alone, codes)
