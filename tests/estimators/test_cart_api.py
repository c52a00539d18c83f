"""CART estimators as users meet them: input kinds, bad input, and the scikit-learn API."""

import pickle
import warnings

import numpy as np
import pandas as pd
import polars as pl
import pyarrow as pa
import pytest
from sklearn.exceptions import NotFittedError
from sklearn.utils.class_weight import compute_sample_weight

from treelearn import CARTClassifier, CARTRegressor
from treelearn.exceptions import DataError, ParameterError, SchemaMismatchError, TargetError

TREE_ARRAYS = ("feature", "kind", "threshold", "children", "category_child", "missing_child")


def assert_same_tree(a, b):
    """Two fitted estimators hold the same tree (structure, thresholds, values)."""
    for name in TREE_ARRAYS:
        np.testing.assert_array_equal(getattr(a.tree_, name), getattr(b.tree_, name), name)
    np.testing.assert_allclose(a.tree_.value, b.tree_.value, rtol=1e-12)
    np.testing.assert_allclose(a.tree_.weight, b.tree_.weight, rtol=1e-12)


def _numeric_data(n=200, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    y = (X[:, 0] + 0.5 * X[:, 1] > 0).astype(int)
    return X, y


def _mixed_frame(n=240, seed=1):
    """A DataFrame with every column kind, missing values in each, and a class target."""
    rng = np.random.default_rng(seed)
    colors = np.array(["red", "green", "blue"], dtype=object)[rng.integers(0, 3, n)]
    size = rng.normal(size=n)
    count = rng.integers(0, 6, n)
    flag = rng.integers(0, 2, n).astype(bool)
    y = ((colors == "red") ^ (size > 0.3) ^ flag).astype(int)
    holes = rng.random((4, n)) < 0.1
    return pd.DataFrame(
        {
            "color": pd.Series(colors).mask(holes[0]),
            "size": pd.Series(size).mask(holes[1]),
            "count": pd.Series(count, dtype="Int64").mask(holes[2]),
            "flag": pd.Series(flag, dtype="boolean").mask(holes[3]),
        }
    ), y


# --- fitted attributes and the API ----------------------------------------------


def test_numpy_float_input_fits_and_predicts():
    X, y = _numeric_data()
    model = CARTClassifier(max_depth=4, random_state=0).fit(X, y)
    assert model.n_features_in_ == 3
    assert not hasattr(model, "feature_names_in_")
    assert model.classes_.tolist() == [0, 1]
    assert model.score(X, y) > 0.9
    proba = model.predict_proba(X)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    np.testing.assert_array_equal(model.predict(X), model.classes_[proba.argmax(axis=1)])
    assert model.get_depth() <= 4
    assert model.get_n_leaves() == model.tree_.n_leaves
    assert model.apply(X).shape == (200,)
    assert model.decision_path(X).shape == (200, model.tree_.node_count)
    assert model.feature_importances_.shape == (3,)


def test_regressor_fits_numpy_input():
    X, _ = _numeric_data()
    y = 2.0 * X[:, 0] + (X[:, 1] > 0)
    model = CARTRegressor(max_depth=5).fit(X, y)
    assert model.predict(X).dtype == np.float64
    assert model.score(X, y) > 0.8


def test_feature_names_only_when_fitted_on_a_dataframe():
    X, y = _numeric_data()
    frame = pd.DataFrame(X, columns=["a", "b", "c"])
    model = CARTClassifier().fit(frame, y)
    assert model.feature_names_in_.tolist() == ["a", "b", "c"]
    assert model.feature_names_in_.dtype == object
    model.fit(X, y)
    assert not hasattr(model, "feature_names_in_")
    model.fit(pd.DataFrame(X), y)  # integer column names are not feature names
    assert not hasattr(model, "feature_names_in_")


def test_predict_matches_dataframe_columns_by_name_in_any_order():
    frame, y = _mixed_frame()
    model = CARTClassifier(random_state=0).fit(frame, y)
    shuffled = frame[["flag", "size", "color", "count"]]
    np.testing.assert_array_equal(model.predict(shuffled), model.predict(frame))
    np.testing.assert_array_equal(model.predict_proba(shuffled), model.predict_proba(frame))


def test_pickle_round_trips_predictions():
    frame, y = _mixed_frame()
    for model in (CARTClassifier(random_state=0), CARTRegressor(random_state=0)):
        model.fit(frame, y)
        restored = pickle.loads(pickle.dumps(model))
        np.testing.assert_array_equal(restored.predict(frame), model.predict(frame))
        assert_same_tree(restored, model)


def test_unfitted_estimators_raise_not_fitted():
    X, _ = _numeric_data()
    for model in (CARTClassifier(), CARTRegressor()):
        with pytest.raises(NotFittedError):
            model.predict(X)
        with pytest.raises(NotFittedError):
            model.apply(X)
    with pytest.raises(NotFittedError):
        CARTClassifier().predict_proba(X)


def test_predict_on_numpy_after_dataframe_fit_warns_and_goes_by_position():
    X, y = _numeric_data()
    model = CARTClassifier().fit(pd.DataFrame(X, columns=["a", "b", "c"]), y)
    with pytest.warns(UserWarning, match="X does not have valid feature names"):
        predicted = model.predict(X)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        np.testing.assert_array_equal(
            predicted, model.predict(pd.DataFrame(X, columns=list("abc")))
        )


# --- input kinds -----------------------------------------------------------------


def test_numpy_object_strings_are_nominal_and_match_a_dataframe():
    frame, y = _mixed_frame()
    plain = frame.astype({"count": "float64"}).drop(columns=["flag"])
    array = plain.astype(object).where(plain.notna(), None).to_numpy()
    from_array = CARTClassifier(random_state=0).fit(array, y)
    from_frame = CARTClassifier(random_state=0).fit(plain, y)
    assert from_array.feature_schema_.kinds == ("nominal", "numeric", "numeric")
    assert_same_tree(from_array, from_frame)
    np.testing.assert_array_equal(from_array.predict(array), from_frame.predict(plain))


def _needs_subset_split(n=120):
    """x0 in {0, 1, 2, 3}: class 1 for the codes {0, 2}, which no threshold separates."""
    rng = np.random.default_rng(3)
    code = rng.integers(0, 4, n)
    noise = rng.normal(size=n)
    return np.column_stack([noise, code.astype(float)]), np.isin(code, [0, 2]).astype(int)


@pytest.mark.parametrize("categorical_features", [[1], [-1], [False, True], np.array([1])])
def test_categorical_features_for_numpy_by_index_or_mask(categorical_features):
    X, y = _needs_subset_split()
    as_numbers = CARTClassifier(max_depth=1).fit(X, y)
    as_categories = CARTClassifier(max_depth=1, categorical_features=categorical_features)
    as_categories.fit(X, y)
    assert as_categories.feature_schema_.kinds == ("numeric", "nominal")
    assert as_categories.score(X, y) == 1.0
    assert as_numbers.score(X, y) < 1.0


def test_categorical_features_by_name_for_a_dataframe():
    X, y = _needs_subset_split()
    frame = pd.DataFrame({"noise": X[:, 0], "code": X[:, 1].astype(int)})
    model = CARTClassifier(max_depth=1, categorical_features=["code"]).fit(frame, y)
    assert model.feature_schema_.kinds == ("numeric", "nominal")
    assert model.feature_schema_.categories[1] == (0, 1, 2, 3)
    assert model.score(frame, y) == 1.0


def test_pandas_dtypes_give_the_same_tree_as_plain_columns():
    """category, object, str, nullable Int64/boolean/string with pd.NA, bool: one tree."""
    frame, y = _mixed_frame()
    reference = CARTClassifier(random_state=0).fit(frame, y)
    variants = {
        "str": frame.astype({"color": "str"}),
        "string": frame.astype({"color": "string"}),
        "category": frame.astype({"color": pd.CategoricalDtype(["blue", "green", "red"])}),
        "object_flag": frame.astype({"flag": object}),
        "float_count": frame.astype({"count": "float64"}),
    }
    for name, variant in variants.items():
        model = CARTClassifier(random_state=0).fit(variant, y)
        assert model.feature_schema_.kinds == reference.feature_schema_.kinds, name
        assert_same_tree(model, reference)
        np.testing.assert_array_equal(model.predict(variant), reference.predict(frame), name)


def test_plain_bool_column_is_nominal():
    frame, y = _mixed_frame()
    frame = frame.assign(flag=frame["flag"].fillna(False).astype(bool))
    model = CARTClassifier().fit(frame, y)
    assert model.feature_schema_.kinds[3] == "nominal"
    assert model.feature_schema_.categories[3] == (False, True)


def test_category_dtype_keeps_its_declared_order():
    frame, y = _mixed_frame()
    order = ["red", "blue", "green", "violet"]
    frame = frame.astype({"color": pd.CategoricalDtype(order)})
    model = CARTClassifier().fit(frame, y)
    assert model.feature_schema_.categories[0] == tuple(order)


@pytest.mark.parametrize("convert", [pl.from_pandas, pa.Table.from_pandas])
def test_polars_and_pyarrow_give_the_pandas_results(convert):
    frame, y = _mixed_frame()
    other = convert(frame)
    for make in (CARTClassifier, CARTRegressor):
        reference = make(random_state=0).fit(frame, y)
        model = make(random_state=0).fit(other, y)
        assert model.feature_names_in_.tolist() == frame.columns.tolist()
        assert_same_tree(model, reference)
        np.testing.assert_array_equal(model.predict(other), reference.predict(frame))
        np.testing.assert_array_equal(reference.predict(other), reference.predict(frame))


@pytest.mark.parametrize("missing", [np.nan, None, pd.NA])
def test_every_kind_of_missing_value_predicts_like_nan(missing):
    frame, y = _mixed_frame()
    model = CARTClassifier(random_state=0).fit(frame, y)
    row = frame.iloc[:1].astype(object)
    expected = {}
    for column in frame.columns:
        as_nan = frame.iloc[:1].copy()
        as_nan[column] = as_nan[column].astype(object)
        as_nan.loc[as_nan.index[0], column] = None
        expected[column] = model.predict_proba(as_nan.astype(frame.dtypes.to_dict()))
        probe = row.copy()
        probe.loc[probe.index[0], column] = missing
        np.testing.assert_array_equal(model.predict_proba(probe), expected[column], column)


def test_unseen_category_is_routed_as_missing():
    frame, y = _mixed_frame()
    model = CARTClassifier(random_state=0).fit(frame, y)
    assert model.feature_importances_[0] > 0  # the tree uses "color"
    unseen = frame.assign(color="purple")
    missing = frame.assign(color=None)
    np.testing.assert_array_equal(model.predict_proba(unseen), model.predict_proba(missing))
    # The same for numpy object input.
    array = frame.astype(object).where(frame.notna(), None).to_numpy()
    model = CARTClassifier(random_state=0).fit(array, y)
    unseen = array.copy()
    unseen[:, 0] = "purple"
    missing = array.copy()
    missing[:, 0] = None
    np.testing.assert_array_equal(model.predict_proba(unseen), model.predict_proba(missing))


def test_categorical_target_keeps_category_order():
    frame, y = _mixed_frame()
    labels = pd.Series(pd.Categorical.from_codes(y, categories=["yes", "no"]))
    model = CARTClassifier().fit(frame, labels)
    assert model.classes_.tolist() == ["yes", "no"]
    assert set(model.predict(frame)) <= {"yes", "no"}
    assert model.score(frame, labels) > 0.9


@pytest.mark.parametrize("class_weight", ["balanced", {0: 1.0, 1: 3.5}])
def test_class_weight_equals_the_same_sample_weight(class_weight):
    frame, y = _mixed_frame()
    with_class_weight = CARTClassifier(class_weight=class_weight, random_state=0)
    with_class_weight.fit(frame, y)
    weight = compute_sample_weight(class_weight, y)
    with_sample_weight = CARTClassifier(random_state=0).fit(frame, y, sample_weight=weight)
    assert_same_tree(with_class_weight, with_sample_weight)
    np.testing.assert_array_equal(
        with_class_weight.predict_proba(frame), with_sample_weight.predict_proba(frame)
    )


def test_zero_weight_rows_are_the_same_as_removed_rows():
    X, y = _numeric_data(seed=5)
    weight = np.ones(len(y))
    weight[::3] = 0.0
    weighted = CARTClassifier(random_state=0).fit(X, y, sample_weight=weight)
    removed = CARTClassifier(random_state=0).fit(X[weight > 0], y[weight > 0])
    assert_same_tree(weighted, removed)
    np.testing.assert_array_equal(weighted.tree_.n_samples, removed.tree_.n_samples)


@pytest.mark.parametrize("max_bins", [255, None])
@pytest.mark.parametrize("Estimator", [CARTClassifier, CARTRegressor])
def test_no_sample_weight_is_weights_of_one(Estimator, max_bins):
    """No ``sample_weight`` (no weights stored) grows the tree of weights all 1."""
    X, y = _numeric_data(n=3000, seed=7)
    if Estimator is CARTRegressor:
        y = X[:, 0] + np.random.default_rng(7).normal(scale=0.5, size=len(y))
    plain = Estimator(max_bins=max_bins, random_state=0).fit(X, y)
    ones = Estimator(max_bins=max_bins, random_state=0).fit(X, y, sample_weight=np.ones(len(y)))
    assert_same_tree(plain, ones)
    np.testing.assert_array_equal(plain.tree_.weight, ones.tree_.weight)


# --- bad input -------------------------------------------------------------------


def test_empty_data_is_refused():
    with pytest.raises(DataError, match=r"0 sample\(s\) \(shape=\(0, 3\)\).*X has no rows"):
        CARTClassifier().fit(np.empty((0, 3)), [])
    with pytest.raises(DataError, match=r"0 feature\(s\) \(shape=\(5, 0\)\).*X has no columns"):
        CARTRegressor().fit(np.empty((5, 0)), np.arange(5.0))
    with pytest.raises(DataError, match=r"0 sample\(s\)"):
        CARTClassifier().fit(pd.DataFrame({"a": pd.Series([], dtype=float)}), [])


def test_target_with_nan_names_the_rows():
    X, y = _numeric_data(n=20)
    with pytest.raises(TargetError, match=r"y has missing values \(NaN/None\) at rows \[3, 7\]"):
        CARTRegressor().fit(X, np.where(np.isin(np.arange(20), [3, 7]), np.nan, 1.0))
    labels = y.astype(object)
    labels[[0, 19]] = None
    with pytest.raises(TargetError, match=r"at rows \[0, 19\]; drop those rows"):
        CARTClassifier().fit(X, labels)


def test_x_and_y_of_different_lengths():
    X, y = _numeric_data(n=20)
    with pytest.raises(DataError, match=r"X has 20 rows but y has 19 values"):
        CARTClassifier().fit(X, y[:19])


def test_infinite_value_names_the_column_and_rows():
    frame, y = _mixed_frame()
    frame.loc[[4, 9], "size"] = [np.inf, -np.inf]
    with pytest.raises(DataError, match=r"Column 'size' has infinite values at rows \[4, 9\]"):
        CARTClassifier().fit(frame, y)
    X, y = _numeric_data(n=10)
    X[2, 1] = np.inf
    with pytest.raises(DataError, match=r"Column 'x1' has infinite values at rows \[2\]"):
        CARTClassifier().fit(X, y)


def test_entirely_missing_column_is_named():
    frame, y = _mixed_frame()
    frame["blank"] = np.nan
    with pytest.raises(DataError, match=r"Column 'blank' has no known value"):
        CARTClassifier().fit(frame, y)


def test_predict_names_missing_and_extra_columns():
    frame, y = _mixed_frame()
    model = CARTClassifier().fit(frame, y)
    with pytest.raises(
        SchemaMismatchError,
        match=r"missing columns 'count', 'flag'; unexpected columns 'weight'",
    ):
        model.predict(frame.drop(columns=["count", "flag"]).assign(weight=1.0))


def test_predict_with_the_wrong_number_of_numpy_columns():
    X, y = _numeric_data()
    model = CARTRegressor().fit(X, y.astype(float))
    with pytest.raises(
        SchemaMismatchError, match=r"X has 2 features, but CARTRegressor is expecting 3 features"
    ):
        model.predict(X[:, :2])


def test_non_numeric_regression_target():
    X, _ = _numeric_data(n=4)
    with pytest.raises(TargetError, match=r"A regression target must be numeric.*'low'"):
        CARTRegressor().fit(X, ["low", "high", "low", "mid"])


@pytest.mark.parametrize(
    ("weight", "message"),
    [
        ([1.0, -2.0, 1.0, 1.0], r"negative at rows \[1\]"),
        ([1.0, 1.0, np.nan, 1.0], r"NaN or infinite at rows \[2\]"),
        ([0.0, 0.0, 0.0, 0.0], r"sample_weight is zero for every row"),
    ],
)
def test_bad_sample_weight(weight, message):
    X, y = _numeric_data(n=4)
    with pytest.raises(DataError, match=message):
        CARTClassifier().fit(X, y, sample_weight=weight)


@pytest.mark.parametrize(
    ("make", "params", "message"),
    [
        (
            CARTClassifier,
            {"criterion": "squared_error"},
            r"criterion='squared_error' is not a classification criterion; choose one of "
            r"'gini', 'entropy'",
        ),
        (CARTRegressor, {"criterion": "gini"}, r"criterion='gini' is not a regression"),
        (CARTClassifier, {"max_depth": 0}, r"max_depth must be an integer >= 1 or None, got 0"),
        (CARTClassifier, {"max_depth": 2.5}, r"max_depth must be an integer >= 1"),
        (CARTClassifier, {"max_features": 4}, r"max_features must be .* \[1, n_features=3\]"),
        (CARTClassifier, {"max_features": 0}, r"max_features must be .*, got 0"),
        (CARTClassifier, {"max_features": 1.5}, r"max_features must be .*, got 1.5"),
        (CARTClassifier, {"max_features": "auto"}, r"max_features must be .*, got 'auto'"),
        (CARTClassifier, {"min_samples_leaf": 0}, r"min_samples_leaf must be an integer >= 1"),
        (CARTClassifier, {"min_samples_split": 1}, r"min_samples_split must be an integer >= 2"),
        (
            CARTClassifier,
            {"min_weight_fraction_leaf": 0.7},
            r"min_weight_fraction_leaf must be a number in \[0.0, 0.5\], got 0.7",
        ),
        (CARTClassifier, {"max_leaf_nodes": 1}, r"max_leaf_nodes must be an integer >= 2"),
        (CARTClassifier, {"min_impurity_decrease": -1.0}, r"min_impurity_decrease must be"),
        (
            CARTClassifier,
            {"missing": "bogus"},
            r"missing must be one of 'learn', 'surrogate', got 'bogus'",
        ),
        (CARTClassifier, {"max_surrogates": -1}, r"max_surrogates must be an integer >= 0"),
        (CARTClassifier, {"class_weight": "even"}, r"class_weight must be None, 'balanced'"),
        (CARTClassifier, {"class_weight": {7: 2.0}}, r"class_weight names labels \[7\]"),
        (CARTClassifier, {"class_weight": {1: -2.0}}, r"class_weight values must be finite"),
        (CARTRegressor, {"huber_delta": 0.0}, r"huber_delta must be a positive number"),
        (CARTClassifier, {"random_state": "seed"}, r"random_state must be None, an integer"),
        (CARTClassifier, {"categorical_features": ["nope"]}, r"names column 'nope'"),
    ],
)
def test_invalid_parameters_name_the_parameter(make, params, message):
    X, y = _numeric_data(n=20)
    with pytest.raises(ParameterError, match=message):
        make(**params).fit(X, y)


def test_parameters_are_checked_before_the_data():
    with pytest.raises(ParameterError, match=r"max_depth"):
        CARTClassifier(max_depth=0).fit(np.empty((0, 3)), [])


def test_numbers_in_a_column_trained_on_strings_are_refused_at_predict():
    frame, y = _mixed_frame()
    model = CARTClassifier().fit(frame, y)
    coded = frame.assign(color=frame["color"].map({"red": 0, "green": 1, "blue": 2}))
    with pytest.raises(
        SchemaMismatchError,
        match=r"Column 'color' was trained on strings \(categories 'blue', 'green', 'red'\) "
        r"but holds numbers at rows \[0, 1, ",
    ):
        model.predict(coded)


def test_strings_in_a_column_trained_on_numbers_are_refused_at_predict():
    X, y = _needs_subset_split()
    model = CARTClassifier(categorical_features=[1]).fit(X, y)
    named = X.astype(object)
    named[:, 1] = np.array(["zero", "one", "two", "three"])[X[:, 1].astype(int)]
    with pytest.raises(SchemaMismatchError, match=r"Column 'x1' was trained on numbers"):
        model.predict(named)


def test_strings_in_a_numeric_column_are_refused_at_predict():
    frame, y = _mixed_frame()
    model = CARTClassifier().fit(frame, y)
    with pytest.raises(
        SchemaMismatchError, match=r"Column 'size' was numeric at fit time but holds nominal"
    ):
        model.predict(frame.assign(size="large"))
