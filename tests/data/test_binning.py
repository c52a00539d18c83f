"""Histogram mode: quantile bin edges, bin codes, and trees grown on bins."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.datasets import make_classification, make_regression

from treelearn import CARTClassifier, CARTRegressor
from treelearn.data.binning import encode_numeric_binned, quantile_bin_edges
from treelearn.data.dataset import build_dataset
from treelearn.data.schema import RawColumn
from treelearn.growing import grower


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
    """With a bin per distinct value the tree makes the same splits of the training rows
    (thresholds are the global neighbour midpoints instead of the node's)."""
    X, y = make_classification(3000, 6, random_state=2)
    exact = CARTClassifier(max_depth=6).fit(X, y)
    binned = CARTClassifier(max_depth=6, max_bins=10**6).fit(X, y)
    np.testing.assert_array_equal(binned.tree_.feature, exact.tree_.feature)
    np.testing.assert_array_equal(binned.apply(X), exact.apply(X))


def test_binned_trees_keep_their_accuracy():
    X, y = make_classification(20000, 10, random_state=0)
    train, test = slice(0, 15000), slice(15000, None)
    exact = CARTClassifier(max_depth=8).fit(X[train], y[train]).score(X[test], y[test])
    binned = CARTClassifier(max_depth=8, max_bins=255).fit(X[train], y[train])
    assert binned.score(X[test], y[test]) == pytest.approx(exact, abs=0.01)
    # Every threshold is a bin edge of its feature.
    dataset = build_dataset(X[train], max_bins=255)
    tree = binned.tree_
    for node in np.flatnonzero(~tree.is_leaf):
        assert tree.threshold[node] in dataset.bin_edges[tree.feature[node]]


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
    monkeypatch.setattr(grower, "FAST_LOOP", False)  # count the Python loop's subtractions
    with_subtraction = make().fit(X, y)
    assert subtractions, "binned features should derive children's histograms by subtraction"
    monkeypatch.setattr(grower, "STORE_MIN_ROWS", 10**9)
    direct = make().fit(X, y)
    np.testing.assert_array_equal(with_subtraction.tree_.feature, direct.tree_.feature)
    np.testing.assert_array_equal(with_subtraction.tree_.threshold, direct.tree_.threshold)
    np.testing.assert_allclose(with_subtraction.tree_.value, direct.tree_.value, rtol=1e-9)
    monkeypatch.setattr(grower, "FAST_LOOP", True)  # the numba loop subtracts the same way
    fast = make().set_params(n_jobs=1).fit(X, y)
    np.testing.assert_array_equal(fast.tree_.feature, with_subtraction.tree_.feature)
    np.testing.assert_array_equal(fast.tree_.value, with_subtraction.tree_.value)


def test_max_bins_is_checked():
    from treelearn.exceptions import ParameterError

    X, y = make_classification(100, 4, random_state=0)
    with pytest.raises(ParameterError, match="max_bins must be an integer >= 2"):
        CARTClassifier(max_bins=1).fit(X, y)
