"""CARTRegressor with criterion="absolute_error" and "huber"."""

import numpy as np
import pandas as pd
import pytest
from _oracles import huber_location_oracle, robust_cost_oracle, weighted_median_oracle
from sklearn.datasets import make_regression
from sklearn.tree import DecisionTreeRegressor

from treelearn import CARTRegressor
from treelearn.exceptions import ParameterError


def regression_data(n, n_features, seed):
    """Training rows and held-out rows; float32 because scikit-learn's trees are."""
    X, y = make_regression(n + 500, n_features, noise=10, random_state=seed)
    X = X.astype(np.float32)
    return X[:n], y[:n], X[n:]


def leaf_rows(model, X):
    """Training rows of every leaf."""
    leaves = model.apply(X)
    return {leaf: np.flatnonzero(leaves == leaf) for leaf in np.unique(leaves)}


def internal_nodes(tree):
    return np.flatnonzero(tree.feature >= 0)


def assert_same_tree(ours, theirs):
    """Walk both trees together: same features, thresholds and leaf values."""
    a, b = ours.tree_, theirs.tree_
    assert a.node_count == b.node_count
    stack = [(0, 0)]
    while stack:
        i, j = stack.pop()
        assert (a.feature[i] < 0) == (b.children_left[j] < 0)
        if a.feature[i] < 0:
            assert a.value[i, 0] == b.value[j, 0, 0]
            continue
        assert (a.feature[i], a.threshold[i]) == (b.feature[j], b.threshold[j])
        assert a.impurity[i] == pytest.approx(b.impurity[j], rel=1e-9)
        left, right = a.children[a.child_ptr[i] : a.child_ptr[i + 1]]
        stack += [(left, b.children_left[j]), (right, b.children_right[j])]


# Absolute-error trees have many exact ties between splits: moving rows across a
# threshold in pairs, one above and one below both children's medians, leaves
# the total cost unchanged. scikit-learn breaks such ties by a random feature
# order and by its own rounding, treelearn by its documented rule, so where
# both are optimal deeper trees may differ (e.g. seed 1, max_depth=6). These
# settings grow trees without ties; with sample weights they are integers.
SKLEARN_CASES = [
    (3000, 8, 0, {"max_depth": 5}, False),
    (3000, 8, 0, {"max_depth": 6}, False),
    (3000, 8, 2, {"max_depth": 6, "min_samples_leaf": 50}, False),
    (3000, 8, 1, {"max_depth": 8, "min_samples_leaf": 100}, False),
    (3000, 8, 0, {"max_leaf_nodes": 30, "min_samples_leaf": 20}, False),
    (1000, 5, 0, {"max_depth": 4, "min_samples_leaf": 20}, False),
    (3000, 8, 0, {"max_depth": 5}, True),
    (3000, 8, 1, {"max_depth": 6, "min_samples_leaf": 50}, True),
    (3000, 8, 2, {"max_leaf_nodes": 30, "min_samples_leaf": 20}, True),
    (1000, 5, 1, {"max_depth": 5}, True),
]


@pytest.mark.parametrize(("n", "n_features", "seed", "params", "weighted"), SKLEARN_CASES)
def test_absolute_error_matches_scikit_learn(n, n_features, seed, params, weighted):
    X, y, X_test = regression_data(n, n_features, seed)
    weight = np.random.default_rng(seed).integers(1, 4, size=n).astype(float) if weighted else None
    ours = CARTRegressor(max_bins=None, criterion="absolute_error", **params).fit(
        X, y, sample_weight=weight
    )
    theirs = DecisionTreeRegressor(criterion="absolute_error", random_state=0, **params)
    theirs.fit(X, y, sample_weight=weight)
    assert_same_tree(ours, theirs)
    np.testing.assert_array_equal(ours.predict(X_test), theirs.predict(X_test))
    np.testing.assert_array_equal(ours.predict(X), theirs.predict(X))


def test_absolute_error_leaves_are_weighted_medians_with_nominal_and_missing():
    """Whatever the splits, every node's value is its rows' weighted median and
    its impurity their mean absolute deviation (DataFrame, category, NaN)."""
    rng = np.random.default_rng(3)
    n = 600
    frame = pd.DataFrame(
        {
            "x": np.where(rng.random(n) < 0.2, np.nan, rng.normal(size=n)),
            "colour": pd.Categorical(rng.choice(["red", "green", "blue", "grey"], size=n)),
            "z": rng.integers(0, 6, size=n).astype(float),
        }
    )
    frame.loc[rng.random(n) < 0.1, "colour"] = np.nan
    y = (
        np.nan_to_num(frame["x"].to_numpy(), nan=3.0)
        + (frame["colour"] == "red") * 4.0
        + rng.standard_t(2, size=n)
    )
    weight = rng.integers(1, 3, size=n).astype(float)
    model = CARTRegressor(
        max_bins=None, criterion="absolute_error", max_depth=5, min_samples_leaf=5
    )
    model.fit(frame, y, sample_weight=weight)
    tree = model.tree_
    assert tree.kind[internal_nodes(tree)].size > 0
    path = model.decision_path(frame).tocsc()
    for node in range(tree.node_count):
        rows = path[:, node].nonzero()[0]
        assert tree.value[node, 0] == weighted_median_oracle(y[rows], weight[rows])
        cost = robust_cost_oracle(y[rows], weight[rows], "absolute_error", 1.0)
        assert tree.impurity[node] == pytest.approx(cost / weight[rows].sum(), rel=1e-9)
    assert np.all(np.isfinite(model.predict(frame)))


@pytest.mark.parametrize("delta", [0.5, 5.0, 40.0])
def test_huber_leaf_values_are_the_oracle_minimisers(delta):
    X, y, _ = regression_data(400, 4, 5)
    weight = np.random.default_rng(5).integers(1, 4, size=y.shape[0]).astype(float)
    model = CARTRegressor(
        max_bins=None, criterion="huber", huber_delta=delta, max_depth=3, min_samples_leaf=10
    )
    model.fit(X, y, sample_weight=weight)
    tree = model.tree_
    for leaf, rows in leaf_rows(model, X).items():
        c, cost = huber_location_oracle(y[rows], weight[rows], delta)
        value = tree.value[leaf, 0]
        if np.any(np.abs(y[rows] - c) < delta - 1e-6):  # unique minimiser
            assert value == pytest.approx(c, abs=1e-6 * (1 + abs(c)))
        assert tree.impurity[leaf] == pytest.approx(cost / weight[rows].sum(), rel=1e-9)


def test_huge_delta_grows_the_squared_error_tree():
    # Exact ties between features (two features isolating the same outlier row
    # in a small node) are decided by rounding, which differs between the two
    # kernels; these settings grow trees without such ties.
    for seed, params in [(0, {"max_depth": 6}), (1, {"min_samples_leaf": 5})]:
        X, y, X_test = regression_data(3000, 8, seed)
        squared = CARTRegressor(max_bins=None, criterion="squared_error", **params).fit(X, y)
        huber = CARTRegressor(max_bins=None, criterion="huber", huber_delta=1e12, **params).fit(
            X, y
        )
        np.testing.assert_array_equal(huber.tree_.feature, squared.tree_.feature)
        np.testing.assert_array_equal(huber.tree_.threshold, squared.tree_.threshold)
        np.testing.assert_allclose(huber.predict(X_test), squared.predict(X_test), rtol=1e-12)
        # Huber's loss is half the squared error inside delta.
        np.testing.assert_allclose(2 * huber.tree_.impurity, squared.tree_.impurity, rtol=1e-9)


def absolute_error_gain(X, y, feature, threshold):
    left = X[:, feature] <= threshold
    ones = np.ones(y.shape[0])
    return (
        robust_cost_oracle(y, ones, "absolute_error", 1.0)
        - robust_cost_oracle(y[left], ones[left], "absolute_error", 1.0)
        - robust_cost_oracle(y[~left], ones[~left], "absolute_error", 1.0)
    )


def test_tiny_delta_approaches_absolute_error():
    delta = 1e-6
    # Seed 1 to depth 4 has no tie between absolute-error splits: the same tree.
    X, y, X_test = regression_data(3000, 8, 1)
    absolute = CARTRegressor(max_bins=None, criterion="absolute_error", max_depth=4).fit(X, y)
    huber = CARTRegressor(max_bins=None, criterion="huber", huber_delta=delta, max_depth=4).fit(
        X, y
    )
    np.testing.assert_array_equal(huber.tree_.feature, absolute.tree_.feature)
    np.testing.assert_array_equal(huber.tree_.threshold, absolute.tree_.threshold)
    np.testing.assert_allclose(huber.predict(X_test), absolute.predict(X_test), atol=2 * delta)
    # rho_delta(r) / delta = |r| - delta / 2 outside [-delta, delta].
    np.testing.assert_allclose(
        huber.tree_.impurity / delta + delta / 2, absolute.tree_.impurity, atol=1e-6
    )
    # Elsewhere absolute-error ties are frequent (seed 3: already at the root)
    # and Huber's quadratic part decides them: every Huber split is still an
    # optimal absolute-error split, every value the median within 2 delta.
    X, y, _ = regression_data(3000, 8, 3)
    huber = CARTRegressor(max_bins=None, criterion="huber", huber_delta=delta, max_depth=3).fit(
        X, y
    )
    tree = huber.tree_
    path = huber.decision_path(X).tocsc()
    for node in range(tree.node_count):
        rows = path[:, node].nonzero()[0]
        median = weighted_median_oracle(y[rows], np.ones(rows.shape[0]))
        assert tree.value[node, 0] == pytest.approx(median, abs=2 * delta)
        if tree.feature[node] < 0:
            continue
        stump = CARTRegressor(max_bins=None, criterion="absolute_error", max_depth=1).fit(
            X[rows], y[rows]
        )
        best = absolute_error_gain(
            X[rows], y[rows], stump.tree_.feature[0], stump.tree_.threshold[0]
        )
        ours = absolute_error_gain(X[rows], y[rows], tree.feature[node], tree.threshold[node])
        assert ours == pytest.approx(best, rel=1e-10)


def test_robust_trees_respect_stop_rules():
    X, y, _ = regression_data(500, 4, 7)
    for criterion in ("absolute_error", "huber"):
        model = CARTRegressor(
            max_bins=None, criterion=criterion, max_leaf_nodes=12, min_samples_leaf=7
        )
        model.fit(X, y)
        assert model.get_n_leaves() == 12
        assert model.tree_.n_samples[model.tree_.feature < 0].min() >= 7
        assert (
            CARTRegressor(max_bins=None, criterion=criterion, max_depth=2).fit(X, y).get_depth()
            == 2
        )


def test_constant_target_gives_a_single_leaf():
    X, _, _ = regression_data(50, 3, 0)
    for criterion in ("absolute_error", "huber"):
        model = CARTRegressor(max_bins=None, criterion=criterion).fit(X, np.full(50, 2.5))
        assert model.tree_.node_count == 1
        assert model.predict(X[:3]).tolist() == [2.5, 2.5, 2.5]


@pytest.mark.parametrize("delta", [0, -1.0, "1", None])
def test_bad_huber_delta(delta):
    X, y, _ = regression_data(20, 2, 0)
    with pytest.raises(ParameterError, match="huber_delta"):
        CARTRegressor(max_bins=None, criterion="huber", huber_delta=delta).fit(X, y)
