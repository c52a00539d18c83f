"""Cost-complexity pruning: scikit-learn's path and pruned trees, alpha by cross-validation.

scikit-learn and CARTClassifier/CARTRegressor grow the same tree on float32
data without exact ties between different splits (see
tests/estimators/test_cart_vs_sklearn.py); on those trees the pruning paths
must agree, and pruning at each alpha of the path must give the same subtree.
"""

import numpy as np
import pandas as pd
import pytest
from _oracles import ccp_path_oracle
from sklearn.datasets import make_classification, make_regression
from sklearn.model_selection import StratifiedKFold
from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor

from treelearn import CARTClassifier, CARTRegressor, ID3Classifier
from treelearn.exceptions import ParameterError
from treelearn.pruning import (
    cost_complexity_pruning_path,
    is_subtree,
    prune_cost_complexity,
    select_ccp_alpha,
)
from treelearn.pruning.cost_complexity import tree_pruning_path

N_TRAIN = 4000


@pytest.fixture(scope="module")
def classification():
    X, y = make_classification(
        5000, 10, n_informative=6, n_redundant=0, n_classes=3, random_state=1
    )
    X = X.astype(np.float32)
    return X[:N_TRAIN], y[:N_TRAIN], X[N_TRAIN:]


@pytest.fixture(scope="module")
def regression():
    X, y = make_regression(5000, 10, noise=10.0, random_state=0)
    X = X.astype(np.float32)
    return X[:N_TRAIN], y[:N_TRAIN], X[N_TRAIN:]


def assert_same_tree(ours, theirs, *row_sets):
    """Same size, and both group and predict every row alike."""
    assert ours.tree_.node_count == theirs.tree_.node_count
    for rows in row_sets:
        pairs = set(zip(ours.apply(rows).tolist(), theirs.apply(rows).tolist(), strict=True))
        assert len({a for a, _ in pairs}) == len({b for _, b in pairs}) == len(pairs)
        np.testing.assert_allclose(ours.predict(rows), theirs.predict(rows), rtol=1e-12)


def check_path_and_prunings(ours, theirs, make_theirs, X, y, X_test):
    alphas, impurities = cost_complexity_pruning_path(ours)
    path = theirs.cost_complexity_pruning_path(X, y)
    assert alphas.shape == path.ccp_alphas.shape
    np.testing.assert_allclose(alphas, path.ccp_alphas, rtol=1e-9, atol=1e-15)
    np.testing.assert_allclose(impurities, path.impurities, rtol=1e-9, atol=1e-12)
    # Each library pruned at its own alpha_k: the same subtree (at most 40
    # alphas, spread over the path, to bound the time).
    for k in np.unique(np.linspace(0, alphas.shape[0] - 1, 40).round().astype(int)):
        pruned = prune_cost_complexity(ours, alphas[k])
        reference = make_theirs(path.ccp_alphas[k]).fit(X, y)
        assert pruned.get_n_leaves() == reference.get_n_leaves()
        assert_same_tree(pruned, reference, X_test)
    return alphas


CLASSIFIER_CASES = [{"max_depth": 5}, {"min_samples_leaf": 100}, {"max_leaf_nodes": 30}]


@pytest.mark.parametrize("criterion", ["gini", "entropy"])
@pytest.mark.parametrize("params", CLASSIFIER_CASES, ids=lambda p: next(iter(p)))
def test_classifier_path_and_prunings_match_scikit_learn(classification, criterion, params):
    X, y, X_test = classification
    ours = CARTClassifier(max_bins=None, criterion=criterion, **params).fit(X, y)
    theirs = DecisionTreeClassifier(criterion=criterion, random_state=0, **params).fit(X, y)
    assert_same_tree(ours, theirs, X, X_test)

    def make(alpha):
        return DecisionTreeClassifier(
            criterion=criterion, random_state=0, ccp_alpha=alpha, **params
        )

    alphas = check_path_and_prunings(ours, theirs, make, X, y, X_test)
    assert alphas.shape[0] > 20


REGRESSOR_CASES = [{"max_depth": 6}, {"min_samples_leaf": 20}, {"max_leaf_nodes": 40}]


@pytest.mark.parametrize("params", REGRESSOR_CASES, ids=lambda p: next(iter(p)))
def test_regressor_path_and_prunings_match_scikit_learn(regression, params):
    X, y, X_test = regression
    ours = CARTRegressor(max_bins=None, **params).fit(X, y)
    theirs = DecisionTreeRegressor(random_state=0, **params).fit(X, y)
    assert_same_tree(ours, theirs, X, X_test)

    def make(alpha):
        return DecisionTreeRegressor(random_state=0, ccp_alpha=alpha, **params)

    alphas = check_path_and_prunings(ours, theirs, make, X, y, X_test)
    assert alphas.shape[0] > 30


def test_weighted_regressor_path_matches_scikit_learn(regression):
    X, y, _ = regression
    w = np.random.default_rng(0).uniform(0.5, 2.0, X.shape[0])
    ours = CARTRegressor(max_bins=None, max_depth=6).fit(X, y, sample_weight=w)
    theirs = DecisionTreeRegressor(max_depth=6, random_state=0).fit(X, y, sample_weight=w)
    alphas, impurities = cost_complexity_pruning_path(ours)
    path = theirs.cost_complexity_pruning_path(X, y, sample_weight=w)
    np.testing.assert_allclose(alphas, path.ccp_alphas, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(impurities, path.impurities, rtol=1e-9)


def test_ccp_alpha_parameter_matches_scikit_learn(classification, regression):
    X, y, X_test = classification
    alphas, _ = cost_complexity_pruning_path(CARTClassifier(max_bins=None, max_depth=5).fit(X, y))
    alpha = float(np.sqrt(alphas[10] * alphas[11]))  # inside an interval
    ours = CARTClassifier(max_bins=None, max_depth=5, ccp_alpha=alpha).fit(X, y)
    theirs = DecisionTreeClassifier(max_depth=5, ccp_alpha=alpha, random_state=0).fit(X, y)
    assert ours.get_n_leaves() == theirs.get_n_leaves() == 32 - 10  # ten cuts
    assert_same_tree(ours, theirs, X, X_test)
    X, y, X_test = regression
    ours = CARTRegressor(max_bins=None, min_samples_leaf=20, ccp_alpha=50.0).fit(X, y)
    theirs = DecisionTreeRegressor(min_samples_leaf=20, ccp_alpha=50.0, random_state=0).fit(X, y)
    full = CARTRegressor(max_bins=None, min_samples_leaf=20).fit(X, y)
    assert ours.get_n_leaves() == theirs.get_n_leaves() == 82 < full.get_n_leaves() == 154
    assert_same_tree(ours, theirs, X, X_test)


def test_alpha_zero_keeps_the_tree_and_a_large_alpha_leaves_the_root(classification):
    X, y, _ = classification
    model = CARTClassifier(max_bins=None, max_depth=4).fit(X, y)
    assert prune_cost_complexity(model, 0.0).tree_.node_count == model.tree_.node_count
    alphas, impurities = cost_complexity_pruning_path(model)
    root = prune_cost_complexity(model, alphas[-1])
    assert root.tree_.node_count == 1
    # the last impurity is the root's own weighted impurity
    assert impurities[-1] == pytest.approx(model.tree_.impurity[0])
    assert np.all(np.diff(alphas) >= 0) and np.all(np.diff(impurities) >= -1e-15)


def test_the_weakest_link_kernel_agrees_with_a_from_scratch_oracle():
    """Every step recomputed from scratch by recursion, on a full-depth tree with
    many equal alphas (two-row leaves) and on a multiway ID3 tree."""
    X, y = make_classification(300, 5, n_informative=3, random_state=4)
    trees = [CARTClassifier(max_bins=None).fit(X.astype(np.float32), y).tree_]
    frame = pd.DataFrame((X[:, :4] > 0).astype(int).astype(str), columns=list("abcd"))
    frame["e"] = pd.qcut(X[:, 4], 3, labels=["lo", "mid", "hi"]).astype(str)
    trees.append(ID3Classifier().fit(frame, y).tree_)
    for tree in trees:
        alphas, totals = tree_pruning_path(tree)
        expected_alphas, expected_totals, cuts = ccp_path_oracle(tree)
        np.testing.assert_allclose(alphas, expected_alphas, rtol=1e-12, atol=1e-15)
        np.testing.assert_allclose(totals, expected_totals, rtol=1e-12, atol=1e-15)
        assert len(cuts) == alphas.shape[0] - 1 > 10


def test_pruned_copy_leaves_the_original_alone(classification):
    X, y, _ = classification
    model = CARTClassifier(max_bins=None, max_depth=5).fit(X, y)
    tree = model.tree_
    pruned = prune_cost_complexity(model, 1e-3)
    assert model.tree_ is tree and pruned.tree_ is not tree
    assert is_subtree(pruned.tree_, tree)
    assert pruned.get_params() == model.get_params()


@pytest.mark.parametrize("bad", [-0.1, np.nan, "0.1", None])
def test_bad_alpha_is_refused(classification, bad):
    X, y, _ = classification
    model = CARTClassifier(max_bins=None, max_depth=2).fit(X, y)
    with pytest.raises(ParameterError, match="alpha"):
        prune_cost_complexity(model, bad)
    with pytest.raises(ParameterError, match="ccp_alpha"):
        CARTClassifier(max_bins=None, ccp_alpha=bad).fit(X, y)


# ---------------------------------------------------------------------------
# Choosing alpha by cross-validation
# ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def noisy():
    X, y = make_classification(800, 8, n_informative=4, n_redundant=0, flip_y=0.15, random_state=7)
    return X.astype(np.float32), y


def test_the_cv_table(noisy):
    X, y = noisy
    estimator = CARTClassifier(max_bins=None, min_samples_leaf=3)
    chosen = select_ccp_alpha(estimator, X, y, cv=5, rule="min", random_state=0)
    table = chosen.table
    assert list(table.columns) == [
        "alpha", "alpha_cv", "n_leaves", "impurity", "cv_error", "cv_std_error",
    ]  # fmt: skip
    full = CARTClassifier(max_bins=None, min_samples_leaf=3).fit(X, y)
    alphas, impurities = cost_complexity_pruning_path(full)
    # one row per distinct subtree of the path
    np.testing.assert_array_equal(table["alpha"], np.unique(alphas))
    last_of_each = np.append(alphas[1:] != alphas[:-1], True)
    np.testing.assert_array_equal(table["impurity"], impurities[last_of_each])
    a = table["alpha"].to_numpy()
    np.testing.assert_allclose(table["alpha_cv"].iloc[:-1], np.sqrt(a[:-1] * a[1:]))
    assert table["alpha_cv"].iloc[-1] == a[-1]
    assert table["n_leaves"].iloc[0] == full.get_n_leaves() and table["n_leaves"].iloc[-1] == 1
    assert np.all(np.diff(table["n_leaves"]) < 0)
    # The cv error of a row, recomputed: 5 shuffled stratified folds, each tree
    # grown on 4 folds and pruned at alpha_cv, every row predicted once.
    k = len(table) // 3
    folds = StratifiedKFold(5, shuffle=True, random_state=0)
    wrong = np.zeros(y.shape[0])
    for train, test in folds.split(X, y):
        model = CARTClassifier(
            max_bins=None, min_samples_leaf=3, ccp_alpha=table["alpha_cv"].iloc[k]
        )
        wrong[test] = model.fit(X[train], y[train]).predict(X[test]) != y[test]
    assert table["cv_error"].iloc[k] == pytest.approx(wrong.mean(), abs=1e-12)
    assert table["cv_std_error"].iloc[k] == pytest.approx(wrong.std(ddof=1) / np.sqrt(800))
    # the chosen alpha refits the chosen subtree
    best = int(np.argmin(table["cv_error"].to_numpy()[::-1]))
    best = len(table) - 1 - best
    assert chosen.alpha == table["alpha_cv"].iloc[best]
    refit = CARTClassifier(max_bins=None, min_samples_leaf=3, ccp_alpha=chosen.alpha).fit(X, y)
    assert refit.get_n_leaves() == table["n_leaves"].iloc[best]


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_one_standard_error_rule_picks_a_tree_no_larger_than_the_minimum(noisy, seed):
    X, y = noisy
    estimator = CARTClassifier(max_bins=None, min_samples_leaf=2)
    low = select_ccp_alpha(estimator, X, y, cv=5, rule="min", random_state=seed)
    one_se = select_ccp_alpha(estimator, X, y, cv=5, rule="1se", random_state=seed)
    pd.testing.assert_frame_equal(low.table, one_se.table)  # the same folds
    leaves = dict(zip(low.table["alpha_cv"], low.table["n_leaves"], strict=True))
    assert leaves[one_se.alpha] <= leaves[low.alpha]
    assert one_se.alpha >= low.alpha
    table = one_se.table
    at_min = table["cv_error"].idxmin()
    limit = table["cv_error"][at_min] + table["cv_std_error"][at_min]
    assert table.set_index("alpha_cv")["cv_error"][one_se.alpha] <= limit
    # noise: the minimum-error tree is much smaller than the full tree
    assert leaves[low.alpha] < table["n_leaves"].iloc[0] / 3


def test_regression_alpha_by_cross_validation(regression):
    X, y, _ = regression
    X, y = X[:600], y[:600]
    chosen = select_ccp_alpha(
        CARTRegressor(max_bins=None, min_samples_leaf=5), X, y, cv=4, random_state=0
    )
    assert chosen.rule == "1se"
    table = chosen.table
    assert 1 < table.set_index("alpha_cv")["n_leaves"][chosen.alpha] < table["n_leaves"].iloc[0]
    # y is linear in ten features: trees do only so well; the best subtree's
    # cross-validated squared error is about 0.65 of the lone root's
    assert table["cv_error"].min() < 0.7 * table["cv_error"].iloc[-1]
    assert table["cv_error"].iloc[-1] == pytest.approx(np.var(y), rel=0.02)


def test_bad_selection_parameters(noisy):
    X, y = noisy
    with pytest.raises(ParameterError, match="rule"):
        select_ccp_alpha(CARTClassifier(max_bins=None), X, y, rule="best")
    with pytest.raises(ParameterError, match="cv"):
        select_ccp_alpha(CARTClassifier(max_bins=None), X, y, cv=1)
    with pytest.raises(ParameterError, match="treelearn tree estimator"):
        select_ccp_alpha(DecisionTreeClassifier(), X, y)
