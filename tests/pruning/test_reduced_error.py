"""Reduced-error pruning and validation pre-pruning: losses, tie rules, regression, bad input."""

import numpy as np
import pandas as pd
import pytest
from _oracles import leaf_losses_oracle, reduced_error_oracle
from sklearn.datasets import make_classification, make_regression

from treelearn import C45Classifier, CARTClassifier, CARTRegressor, ID3Classifier
from treelearn._dtypes import MISSING_BY_WEIGHT, NODE_THRESHOLD
from treelearn.exceptions import DataError, ParameterError, SchemaMismatchError
from treelearn.pruning import is_subtree, prune_reduced_error, prune_validation
from treelearn.pruning._common import leaf_losses, read_rows
from treelearn.pruning.reduced_error import reduced_error_leaves
from treelearn.tree import TreeBuilder, _traverse


@pytest.fixture(scope="module")
def noisy():
    X, y = make_classification(
        1500, 8, n_informative=4, n_redundant=0, n_classes=3, flip_y=0.2, random_state=5
    )
    return X[:1000], y[:1000], X[1000:], y[1000:]


def test_losses_match_the_oracle_with_surrogates_and_missing_values(noisy):
    X, y, X_val, y_val = noisy
    X, X_val = X.copy(), X_val.copy()
    rng = np.random.default_rng(0)
    X[rng.random(X.shape) < 0.1] = np.nan
    X_val[rng.random(X_val.shape) < 0.1] = np.nan
    for missing in ("learn", "surrogate"):
        model = CARTClassifier(max_depth=6, missing=missing).fit(X, y)
        w = rng.uniform(0.5, 2, y_val.shape[0])
        matrix, target, weight = read_rows(model, X_val, y_val, w, "_val")
        np.testing.assert_allclose(
            leaf_losses(model.tree_, matrix, target, weight),
            leaf_losses_oracle(model.tree_, X_val, y_val, w),
            rtol=1e-12,
        )


def test_losses_split_a_missing_value_by_the_childrens_weight():
    """A by-weight root (weights 3 and 1): a row of class 1 missing x0 counts
    3/4 in the left leaf (class 0: an error) and 1/4 in the right one (class 1)."""
    b = TreeBuilder(n_features=1, n_classes=2)
    root = b.add_node([3, 1], 4, 4.0, 0.375)
    kids = [b.add_node([3, 0], 3, 3.0, 0.0), b.add_node([0, 1], 1, 1.0, 0.0)]
    b.set_split(root, 0, NODE_THRESHOLD, kids, MISSING_BY_WEIGHT, threshold=0.5)
    model = CARTClassifier().fit([[0.0], [1.0]], [0, 1])
    model.tree_ = b.build()
    X_val = np.array([[np.nan], [0.0], [1.0]])
    y_val = np.array([1, 1, 1])
    matrix, target, weight = read_rows(model, X_val, y_val, None, "_val")
    losses = leaf_losses(model.tree_, matrix, target, weight)
    np.testing.assert_allclose(losses, [3.0, 0.75 + 1.0, 0.0])
    np.testing.assert_allclose(losses, leaf_losses_oracle(model.tree_, X_val, y_val, np.ones(3)))
    # the subtree loses 1.75 of 3 rows, the root as a leaf all 3: kept
    assert prune_reduced_error(model, X_val, y_val).tree_.node_count == 3


@pytest.mark.parametrize("ties", ["keep_accuracy", "improve"])
def test_node_selection_matches_the_recursive_oracle(noisy, ties):
    X, y, X_val, y_val = noisy
    model = CARTClassifier(min_samples_leaf=3).fit(X, y)
    matrix, target, weight = read_rows(model, X_val, y_val, None, "_val")
    losses = leaf_losses(model.tree_, matrix, target, weight)
    leaves = reduced_error_leaves(model.tree_, losses, ties)
    assert set(np.flatnonzero(leaves).tolist()) == reduced_error_oracle(model.tree_, losses, ties)


def test_pruning_raises_validation_accuracy_on_noise(noisy):
    X, y, X_val, y_val = noisy
    model = CARTClassifier().fit(X, y)
    quinlan = prune_reduced_error(model, X_val, y_val)
    strict = prune_reduced_error(model, X_val, y_val, ties="improve")
    pre = prune_validation(model, X_val, y_val)
    before = model.score(X_val, y_val)
    assert quinlan.score(X_val, y_val) == strict.score(X_val, y_val) > before + 0.1
    # Quinlan's rule also cuts what does not change the accuracy: a smaller tree
    assert quinlan.get_n_leaves() < strict.get_n_leaves() < model.get_n_leaves()
    assert pre.get_n_leaves() < model.get_n_leaves()
    for pruned in (quinlan, strict, pre):
        assert is_subtree(pruned.tree_, model.tree_)


def test_sample_weight_of_the_validation_rows(noisy):
    X, y, X_val, y_val = noisy
    model = CARTClassifier(max_depth=6).fit(X, y)
    twice = prune_reduced_error(model, np.vstack([X_val, X_val]), np.concatenate([y_val, y_val]))
    weighted = prune_reduced_error(model, X_val, y_val, sample_weight=np.full(500, 2.0))
    np.testing.assert_array_equal(twice.tree_.feature, weighted.tree_.feature)
    assert twice.tree_.node_count == weighted.tree_.node_count


def test_regression_trees_are_judged_by_squared_error():
    X, y = make_regression(1200, 5, noise=30.0, random_state=2)
    model = CARTRegressor(min_samples_leaf=2).fit(X[:800], y[:800])
    X_val, y_val = X[800:], y[800:]
    pruned = prune_reduced_error(model, X_val, y_val)
    sse = lambda m: float(((m.predict(X_val) - y_val) ** 2).sum())  # noqa: E731
    assert sse(pruned) < sse(model)
    assert pruned.get_n_leaves() < model.get_n_leaves() / 2  # 153 of 349
    matrix, target, weight = read_rows(model, X_val, y_val, None, "_val")
    np.testing.assert_allclose(
        leaf_losses(model.tree_, matrix, target, weight),
        leaf_losses_oracle(model.tree_, X_val, y_val, np.ones(400)),
        rtol=1e-9,
    )
    assert prune_validation(model, X_val, y_val).get_n_leaves() < model.get_n_leaves()


def test_bad_validation_sets():
    frame = pd.DataFrame({"a": ["x", "y", "x", "y"], "b": ["u", "u", "v", "v"]})
    y = ["no", "yes", "no", "yes"]
    model = ID3Classifier().fit(frame, y)
    message = r"y_val holds classes \['maybe'\] that the model did not see in training"
    with pytest.raises(DataError, match=message):
        prune_reduced_error(model, frame, ["no", "maybe", "no", "yes"])
    with pytest.raises(DataError, match=message):
        prune_validation(model, frame, ["no", "maybe", "no", "yes"])
    with pytest.raises(SchemaMismatchError, match="c"):
        prune_reduced_error(model, frame.rename(columns={"b": "c"}), y)
    with pytest.raises(DataError, match="4 rows but y has 3"):
        prune_reduced_error(model, frame, y[:3])
    with pytest.raises(ParameterError, match="ties must be one of 'keep_accuracy', 'improve'"):
        prune_reduced_error(model, frame, y, ties="strict")
    with pytest.raises(DataError, match="sample_weight"):
        prune_reduced_error(model, frame, y, sample_weight=[1, 1, -1, 1])


def test_c45_trees_are_judged_by_their_own_predictions():
    """In a C4.5 tree a validation row with a missing value is classified by
    combining leaves; each cut is judged by predicting those rows with the tree
    as it would be, passes repeat until nothing is cut, and the accuracy never
    drops (with a per-leaf count of shares it could)."""
    X, y = make_classification(
        1500, 6, n_informative=4, n_redundant=0, n_classes=3, flip_y=0.2, random_state=8
    )
    X[np.random.default_rng(2).random(X.shape) < 0.15] = np.nan
    model = C45Classifier(pruning=None, collapse=False).fit(X[:1000], y[:1000])
    X_val, y_val = X[1000:], y[1000:]
    assert model.tree_.missing_child.min() == MISSING_BY_WEIGHT
    assert np.isnan(X_val).any(axis=1).mean() > 0.5  # most rows combine leaves
    before = model.score(X_val, y_val)
    for ties in ("keep_accuracy", "improve"):
        pruned = prune_reduced_error(model, X_val, y_val, ties=ties)
        assert pruned.score(X_val, y_val) >= before
        assert pruned.get_n_leaves() < model.get_n_leaves()
        assert is_subtree(pruned.tree_, model.tree_)
        again = prune_reduced_error(pruned, X_val, y_val, ties=ties)
        assert again.tree_.node_count == pruned.tree_.node_count


def test_judging_combined_rows_shares_the_walks_compilation():
    """The rows a C4.5 tree classifies by combining leaves are judged by the
    prediction kernel on a copy of the node kinds (cut nodes marked as leaves),
    read through a read-only view as every Tree array is: the pruning adds no
    compilation of the walk to the one ``predict_proba`` made."""
    X, y = make_classification(600, 4, n_informative=3, n_redundant=0, random_state=3)
    X[np.random.default_rng(4).random(X.shape) < 0.15] = np.nan
    model = C45Classifier(pruning=None, collapse=False).fit(X[:400], y[:400])
    X_val, y_val = X[400:], y[400:]
    assert model.tree_.missing_child.min() == MISSING_BY_WEIGHT
    model.predict_proba(X_val)  # (combines leaves for the rows with a missing value)
    walks = (_traverse.weighted_leaf_values, _traverse._child)
    predicted = {kernel: set(kernel.signatures) for kernel in walks}
    pruned = prune_reduced_error(model, X_val, y_val)
    assert pruned.get_n_leaves() < model.get_n_leaves()  # (cuts were judged)
    # (Compared with the signatures before the pruning, not all of the process's:
    # another test may call a walk with arrays of its own.)
    assert {kernel: set(kernel.signatures) for kernel in walks} == predicted
