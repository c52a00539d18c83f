"""Validating targets and row weights."""

import numpy as np
import pandas as pd
import polars as pl
import pyarrow as pa
import pytest
from sklearn.exceptions import DataConversionWarning

from treelearn.data.target import (
    encode_class_target,
    validate_regression_target,
    validate_sample_weight,
)
from treelearn.exceptions import DataError, TargetError

# --- class targets -----------------------------------------------------------


def test_classes_are_sorted_and_indexed():
    classes, index = encode_class_target(["b", "a", "c", "a"], 4)
    assert classes.tolist() == ["a", "b", "c"]
    assert index.tolist() == [1, 0, 2, 0]


def test_pandas_categorical_target_keeps_declared_order():
    y = pd.Series(pd.Categorical(["lo", "hi", "mid", "hi"], categories=["lo", "mid", "hi", "x"]))
    classes, index = encode_class_target(y, 4)
    assert classes.tolist() == ["lo", "mid", "hi"]  # unused category left out
    assert index.tolist() == [0, 2, 1, 2]


def test_polars_enum_target_keeps_declared_order():
    y = pl.Series(["lo", "hi", "lo"], dtype=pl.Enum(["lo", "hi"]))
    classes, index = encode_class_target(y, 3)
    assert classes.tolist() == ["lo", "hi"]
    assert index.tolist() == [0, 1, 0]


@pytest.mark.parametrize(
    "y",
    [
        [0.0, np.nan, 1.0, np.nan],
        ["a", None, "b", None],
        pd.Series(["a", pd.NA, "b", pd.NA], dtype="string"),
        pd.Series([1, None, 2, None], dtype="Int64"),
        pl.Series(["a", None, "b", None]),
        pa.chunked_array([["a", None, "b", None]]),
    ],
)
def test_missing_class_labels_name_the_rows(y):
    with pytest.raises(TargetError, match=r"y has missing values \(NaN/None\) at rows \[1, 3\]"):
        encode_class_target(y, 4)


def test_y_none_is_refused_in_scikit_learn_words():
    with pytest.raises(
        TargetError, match=r"CARTClassifier requires y to be passed, but the target y is None"
    ):
        encode_class_target(None, 3, "CARTClassifier")


def test_length_mismatch_names_both_lengths():
    with pytest.raises(DataError, match=r"X has 3 rows but y has 2 values; pass one target"):
        encode_class_target([0, 1], 3)
    with pytest.raises(DataError, match=r"X has 3 rows but y has 4 values"):
        validate_regression_target([0.0, 1.0, 2.0, 3.0], 3)


def test_column_vector_targets_are_raveled_with_a_warning():
    with pytest.warns(DataConversionWarning, match="column-vector y"):
        classes, _ = encode_class_target(np.array([[0], [1]]), 2)
    assert classes.tolist() == [0, 1]
    with pytest.warns(DataConversionWarning):
        assert validate_regression_target(pd.DataFrame({"y": [1.0, 2.0]}), 2).tolist() == [1, 2]


def test_several_target_columns_are_refused():
    with pytest.raises(TargetError, match=r"y should be a 1d array .* got shape \(2, 2\)"):
        encode_class_target(np.zeros((2, 2)), 2)
    with pytest.raises(TargetError, match=r"y has 2 columns; treelearn trees predict one"):
        encode_class_target(pd.DataFrame({"a": [0, 1], "b": [1, 0]}), 2)


def test_continuous_class_target_is_refused_by_scikit_learn():
    with pytest.raises(ValueError, match=r"Unknown label type: continuous"):
        encode_class_target([0.5, 1.25, 2.75], 3)


# --- regression targets ------------------------------------------------------


@pytest.mark.parametrize(
    "y",
    [
        [1, 2.5, 3],
        np.array([1, 2, 3], dtype=np.int8),
        np.array([1, 2.5, 3], dtype=object),
        pd.Series([1, 2, 3], dtype="Int64"),
        pl.Series([1.0, 2.0, 3.0]),
    ],
)
def test_numeric_targets_become_float64(y):
    target = validate_regression_target(y, 3)
    assert target.dtype == np.float64
    assert target.shape == (3,)


@pytest.mark.parametrize(
    ("y", "example"),
    [
        (["1.5", "2", "x"], "'1.5'"),
        (np.array([1.0, "high", 2.0], dtype=object), "'high'"),
        (pd.Series(["a", "b", "c"], dtype="str"), "'a'"),
        (pd.Categorical(["a", "b", "a"]), "'a'"),
    ],
)
def test_non_numeric_regression_target_is_refused(y, example):
    with pytest.raises(
        TargetError,
        match=r"A regression target must be numeric, but y holds values that are not "
        rf"numbers .* e\.g\. {example}\. CARTRegressor predicts numbers",
    ):
        validate_regression_target(y, 3, "CARTRegressor")


def test_regression_target_missing_and_infinite_values_name_the_rows():
    y = pd.Series([1.0, pd.NA, 3.0], dtype="Float64")
    with pytest.raises(TargetError, match=r"missing values \(NaN/None\) at rows \[1\]"):
        validate_regression_target(y, 3)
    with pytest.raises(TargetError, match=r"y has infinite values at rows \[2\]; a target must"):
        validate_regression_target([1.0, 2.0, np.inf], 3)
    with pytest.raises(TargetError, match=r"y has infinite values at rows \[0\]"):
        encode_class_target([np.inf, 1.0, 0.0], 3)


@pytest.mark.parametrize(
    "y",
    [
        np.array([3, 1, 3, 2, 7]),
        np.array([-5, 120, -128, 0, 120], dtype=np.int8),
        np.array([250, 3, 3, 0], dtype=np.uint8),
        np.array([2**40, 2**40 + 3, 2**40], dtype=np.int64),
        np.array([0, 10**9, 5], dtype=np.int64),  # a wide span: sorted as before
        np.array([1, 2**63], dtype=np.uint64),
        np.random.default_rng(0).integers(-3, 40, size=5000).astype(np.int16),
        np.array([3, 1, 3, 2], dtype=">i8"),  # (not the machine's byte order)
        np.array([-4, 9, 9, -4, 0], dtype=">i2")[::2],  # (and strided)
    ],
)
def test_integer_classes_as_numpy_unique_gives_them(y):
    classes, index = encode_class_target(y, y.shape[0])
    expected_classes, expected_index = np.unique(y, return_inverse=True)
    assert classes.dtype == y.dtype
    np.testing.assert_array_equal(classes, expected_classes)
    np.testing.assert_array_equal(index, expected_index)
    assert index.dtype == np.int32


def test_targets_are_not_copied_more_than_the_grower_needs():
    # Class indices come as int32, the grower's dtype, so it takes them as they are.
    _, index = encode_class_target(np.array([3, 1, 3, 2]), 4)
    assert index.dtype == np.int32
    _, index = encode_class_target(pd.Series(pd.Categorical(["b", "a", "b"])), 3)
    assert index.dtype == np.int32
    # A writable float64 target is used as it is; others are converted (or copied).
    y = np.array([1.5, 2.0, 3.0])
    assert validate_regression_target(y, 3) is y
    frozen = y.copy()
    frozen.flags.writeable = False
    target = validate_regression_target(frozen, 3)
    assert target.flags.writeable
    np.testing.assert_array_equal(target, y)
    assert validate_regression_target(y.astype(np.float32), 3).dtype == np.float64


def test_fitting_leaves_y_and_the_weights_as_they_were():
    from treelearn import CARTClassifier, CARTRegressor

    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 3))
    y = X[:, 0] + rng.normal(size=300)
    weight = rng.integers(1, 3, size=300).astype(float)  # no zero: y goes to the grower as is
    saved = y.copy(), weight.copy()
    for criterion in ("squared_error", "absolute_error", "huber"):
        for max_bins in (None, 255):
            model = CARTRegressor(criterion=criterion, max_depth=4, max_bins=max_bins)
            model.fit(X, y, sample_weight=weight)
            np.testing.assert_array_equal(y, saved[0])
            np.testing.assert_array_equal(weight, saved[1])
    weight[::5] = 0.0
    saved = y.copy(), weight.copy()
    labels = (y > 0).astype(int)
    saved_labels = labels.copy()
    CARTClassifier(max_depth=4).fit(X, labels, sample_weight=weight)
    np.testing.assert_array_equal(labels, saved_labels)
    np.testing.assert_array_equal(weight, saved[1])


def test_complex_target_is_refused():
    with pytest.raises(TargetError, match=r"Complex data not supported: y has dtype complex"):
        validate_regression_target(np.array([1 + 1j, 2]), 2)


# --- sample weights ----------------------------------------------------------


def test_sample_weight_defaults_and_scalars():
    np.testing.assert_array_equal(validate_sample_weight(None, 3), [1.0, 1.0, 1.0])
    np.testing.assert_array_equal(validate_sample_weight(2, 2), [2.0, 2.0])
    np.testing.assert_array_equal(validate_sample_weight(pd.Series([1, 0, 2]), 3), [1, 0, 2])


def test_negative_and_nan_sample_weights_name_the_rows():
    with pytest.raises(
        DataError,
        match=r"sample_weight must be finite and >= 0, but it is NaN or infinite at rows "
        r"\[1\]; negative at rows \[2, 3\]",
    ):
        validate_sample_weight([1.0, np.nan, -1.0, -0.5], 4)


def test_all_zero_sample_weight_is_refused():
    with pytest.raises(DataError, match=r"sample_weight is zero for every row"):
        validate_sample_weight([0, 0, 0], 3)


def test_sample_weight_of_the_wrong_length():
    with pytest.raises(DataError, match=r"sample_weight has shape \(2,\) but X has 3 rows"):
        validate_sample_weight([1, 2], 3)
