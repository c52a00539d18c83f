"""CART against scikit-learn's DecisionTreeClassifier / DecisionTreeRegressor.

scikit-learn casts X to float32, so both libraries get ``X.astype(np.float32)``
and see the same values and the same midpoint thresholds.

Exact agreement (same node count, identical held-out predictions) is only
expected where no two different splits of a node have exactly the same gain:
scikit-learn breaks such ties by a random feature order, treelearn by the lower
feature index. With two classes and integer counts, distinct partitions often
have identical class-count tables (45 rows split 20/25 one way and 25/20 the
other), and small nodes tie constantly, so the data of the exact tests is
drawn to have few such ties (three classes, six informative features, no
redundant ones) and :func:`compare_trees` asserts that none occurred: it
walks both trees together, and at every node the row counts, weights,
impurities and class distributions agree; where the two chosen splits differ
it computes both gains from the rows and asserts they are equal. Full-depth
trees, where ties are unavoidable, are compared that way; with continuous
sample weights no two *different* partitions tie, and the walk then reaches
every node of the tree.
"""

import itertools

import numpy as np
import pytest
from _oracles import naive_cost, naive_split_gain
from sklearn.datasets import make_classification, make_regression
from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor

from treelearn import CARTClassifier, CARTRegressor

N_TRAIN = 4000
EPS = np.finfo(np.float64).eps


def _split(X, y):
    X = X.astype(np.float32)
    return X[:N_TRAIN], y[:N_TRAIN], X[N_TRAIN:], y[N_TRAIN:]


@pytest.fixture(scope="module")
def classification():
    """Three classes, few exact ties between splits (see the module docstring)."""
    X, y = make_classification(
        5000, 10, n_informative=6, n_redundant=0, n_classes=3, random_state=1
    )
    return _split(X, y)


@pytest.fixture(scope="module")
def binary_classification():
    """scikit-learn's default make_classification: two classes, redundant features."""
    X, y = make_classification(5000, 10, random_state=0)
    return _split(X, y)


@pytest.fixture(scope="module")
def regression():
    X, y = make_regression(5000, 10, noise=10.0, random_state=0)
    return _split(X, y)


def integer_weights(n, seed=0):
    """Integer weights keep every weighted sum exact in both libraries."""
    return np.random.default_rng(seed).integers(1, 4, n).astype(float)


def float_weights(n, seed=0):
    return np.random.default_rng(seed).uniform(0.5, 2.0, n)


# ---------------------------------------------------------------------------
# Walking both trees together
# ---------------------------------------------------------------------------


def _subtree_size(tree, node):
    """Number of nodes in the subtree of a scikit-learn tree rooted at ``node``."""
    if tree.children_left[node] == -1:
        return 1
    return (
        1
        + _subtree_size(tree, tree.children_left[node])
        + _subtree_size(tree, tree.children_right[node])
    )


def compare_trees(ours, theirs, X, y, sample_weight=None, criterion="gini", pure_splits=None):
    """Walk both trees from the root over the training rows (see the module docstring).

    Returns ``(n_matched, ties)``: the number of node pairs compared and the list
    of ``(n_rows, our_feature, their_feature)`` where the chosen splits differed
    (with equal gain). Below a tie whose two partitions are the same row sets
    (e.g. two features that order the node's rows the same way) the walk goes
    on with the matching children; below other ties it stops.

    ``pure_splits``: a list to collect the sizes of the subtrees scikit-learn grew
    below nodes that are pure for both (its rounding quirk with float weights);
    None to fail on them.
    """
    ta, tb = ours.tree_, theirs.tree_
    X = X.astype(np.float64)
    w = np.ones(X.shape[0]) if sample_weight is None else np.asarray(sample_weight, float)
    classification = criterion != "squared_error"
    n_classes = int(y.max()) + 1 if classification else 0
    cost_scale = 1e-12 if classification else 1e-9 * float(np.mean(y.astype(float) ** 2))
    ties = []
    n_matched = 0
    stack = [(0, 0, np.arange(X.shape[0]))]
    while stack:
        i, j, rows = stack.pop()
        n_matched += 1
        where = f"our node {i} / their node {j} ({rows.shape[0]} rows)"
        assert ta.n_samples[i] == tb.n_node_samples[j] == rows.shape[0], where
        assert ta.weight[i] == pytest.approx(tb.weighted_n_node_samples[j], rel=1e-12), where
        assert ta.impurity[i] == pytest.approx(tb.impurity[j], rel=1e-9, abs=cost_scale), where
        if classification:
            ours_p = ta.value[i] / ta.value[i].sum()
            theirs_p = tb.value[j, 0] / tb.value[j, 0].sum()
            np.testing.assert_allclose(ours_p, theirs_p, rtol=1e-9, atol=1e-12, err_msg=where)
        else:
            assert ta.value[i, 0] == pytest.approx(tb.value[j, 0, 0], rel=1e-9, abs=1e-9)
        our_leaf = bool(ta.is_leaf[i])
        their_leaf = tb.children_left[j] == -1
        if our_leaf and not their_leaf and pure_splits is not None:
            # scikit-learn's impurity of a pure node can round to a few 1e-16, above
            # its EPSILON, and it then splits the pure node (gain 0).
            assert ta.impurity[i] <= EPS and tb.impurity[j] < 1e-13, where
            pure_splits.append(_subtree_size(tb, j))
            continue
        assert our_leaf == their_leaf, f"{where}: leaf for one library only"
        if our_leaf:
            continue
        fa, fb = int(ta.feature[i]), int(tb.feature[j])
        left_a = X[rows, fa] <= ta.threshold[i]
        left_b = X[rows, fb] <= tb.threshold[j]
        kids_a = ta.children_of(i)
        kids_b = (tb.children_left[j], tb.children_right[j])
        if fa == fb:
            assert ta.threshold[i] == tb.threshold[j], where
        else:
            gain_a = naive_split_gain(y[rows], w[rows], left_a, criterion, n_classes)
            gain_b = naive_split_gain(y[rows], w[rows], left_b, criterion, n_classes)
            scale = max(1.0, naive_cost(y[rows], w[rows], criterion, n_classes))
            assert gain_a == pytest.approx(gain_b, rel=1e-9, abs=1e-9 * scale), (
                f"{where}: treelearn split on x{fa} (gain {gain_a}), scikit-learn on x{fb} "
                f"(gain {gain_b})"
            )
            ties.append((rows.shape[0], fa, fb))
            if np.array_equal(left_a, ~left_b):
                kids_b = kids_b[::-1]
            elif not np.array_equal(left_a, left_b):
                continue  # different partitions: the subtrees need not match
        stack.append((kids_a[1], kids_b[1], rows[~left_a]))
        stack.append((kids_a[0], kids_b[0], rows[left_a]))
    return n_matched, ties


def assert_identical(ours, theirs, X_train, y_train, X_test, sample_weight=None, criterion="gini"):
    """Same node count, no tie anywhere, identical held-out predictions."""
    n_matched, ties = compare_trees(ours, theirs, X_train, y_train, sample_weight, criterion)
    assert ties == []
    assert ours.tree_.node_count == theirs.tree_.node_count == n_matched
    if criterion == "squared_error":
        np.testing.assert_allclose(ours.predict(X_test), theirs.predict(X_test), rtol=1e-12)
    else:
        np.testing.assert_array_equal(ours.predict(X_test), theirs.predict(X_test))
        np.testing.assert_allclose(
            ours.predict_proba(X_test), theirs.predict_proba(X_test), rtol=1e-12, atol=1e-15
        )
    # The held-out rows are grouped into leaves the same way.
    pairs = set(zip(ours.apply(X_test).tolist(), theirs.apply(X_test).tolist(), strict=True))
    assert len({a for a, _ in pairs}) == len({b for _, b in pairs}) == len(pairs)


# ---------------------------------------------------------------------------
# Exact agreement: classification
# ---------------------------------------------------------------------------

CLASSIFIER_CASES = {
    "max_depth": {"max_depth": 5},
    "min_samples_leaf": {"min_samples_leaf": 100},
    "max_leaf_nodes": {"max_leaf_nodes": 30},
}


@pytest.mark.parametrize("criterion", ["gini", "entropy"])
@pytest.mark.parametrize("case", list(CLASSIFIER_CASES))
def test_classifier_identical(classification, case, criterion):
    X, y, X_test, _ = classification
    params = {**CLASSIFIER_CASES[case], "criterion": criterion}
    ours = CARTClassifier(max_bins=None, **params).fit(X, y)
    theirs = DecisionTreeClassifier(random_state=0, **params).fit(X, y)
    assert ours.tree_.node_count > 25
    assert_identical(ours, theirs, X, y, X_test, criterion=criterion)


@pytest.mark.parametrize(
    ("criterion", "params"),
    [("gini", {"max_depth": 5}), ("entropy", {"min_samples_leaf": 100})],
)
def test_classifier_identical_with_sample_weight(classification, criterion, params):
    X, y, X_test, _ = classification
    w = integer_weights(X.shape[0])
    ours = CARTClassifier(max_bins=None, criterion=criterion, **params).fit(X, y, sample_weight=w)
    theirs = DecisionTreeClassifier(random_state=0, criterion=criterion, **params)
    theirs.fit(X, y, sample_weight=w)
    assert_identical(ours, theirs, X, y, X_test, sample_weight=w, criterion=criterion)
    # The weights matter: without them the tree is another one.
    unweighted = CARTClassifier(max_bins=None, criterion=criterion, **params).fit(X, y)
    assert unweighted.tree_.node_count != ours.tree_.node_count or not np.array_equal(
        unweighted.tree_.threshold, ours.tree_.threshold
    )


def test_binary_classifier_identical_max_depth(binary_classification):
    """The default two-class data: one tie at the root between two redundant,
    mirror-image features that make the same partition, which both libraries
    resolve to the same tree."""
    X, y, X_test, _ = binary_classification
    ours = CARTClassifier(max_bins=None, max_depth=3).fit(X, y)
    theirs = DecisionTreeClassifier(max_depth=3, random_state=0).fit(X, y)
    n_matched, ties = compare_trees(ours, theirs, X, y)
    assert ties == [(N_TRAIN, 1, 3)]  # x3 is -x1 up to scale on these rows
    assert ours.tree_.node_count == theirs.tree_.node_count == n_matched
    np.testing.assert_array_equal(ours.predict(X_test), theirs.predict(X_test))


# ---------------------------------------------------------------------------
# Exact agreement: regression
# ---------------------------------------------------------------------------

REGRESSOR_CASES = {
    "max_depth": ({"max_depth": 6}, None),
    "min_samples_leaf": ({"min_samples_leaf": 20}, None),
    "max_leaf_nodes": ({"max_leaf_nodes": 40}, None),
    "sample_weight": ({"max_depth": 6}, "floats"),
    "sample_weight_min_samples_leaf": ({"min_samples_leaf": 10}, "integers"),
}


@pytest.mark.parametrize("case", list(REGRESSOR_CASES))
def test_regressor_identical(regression, case):
    X, y, X_test, _ = regression
    params, weights = REGRESSOR_CASES[case]
    w = None
    if weights == "floats":
        w = float_weights(X.shape[0])
    elif weights == "integers":
        w = integer_weights(X.shape[0])
    ours = CARTRegressor(max_bins=None, **params).fit(X, y, sample_weight=w)
    theirs = DecisionTreeRegressor(random_state=0, **params).fit(X, y, sample_weight=w)
    assert ours.tree_.node_count > 60
    assert_identical(ours, theirs, X, y, X_test, sample_weight=w, criterion="squared_error")


# ---------------------------------------------------------------------------
# Full-depth trees: structural comparison
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("criterion", ["gini", "entropy"])
def test_full_depth_classifier_structure(criterion):
    """Unweighted full-depth trees meet many exact ties; below a tie with two
    different partitions the subtrees differ, so the node counts need not agree
    in general (on make_classification(random_state=0) they differ by 2 to 4).
    On this data they do, and every node above such a tie agrees."""
    X, y, X_test, y_test = _split(*make_classification(5000, 10, random_state=3))
    ours = CARTClassifier(max_bins=None, criterion=criterion).fit(X, y)
    theirs = DecisionTreeClassifier(criterion=criterion, random_state=0).fit(X, y)
    n_matched, ties = compare_trees(ours, theirs, X, y, criterion=criterion)
    assert len(ties) >= 10, "this data is chosen for its ties; the comparison must meet some"
    assert n_matched > 0.7 * ours.tree_.node_count
    assert ours.tree_.node_count == theirs.tree_.node_count
    # Both fit the training data perfectly (no two rows share their features).
    np.testing.assert_array_equal(ours.predict(X), y)
    assert np.all(ours.tree_.impurity[ours.tree_.is_leaf] <= EPS)
    # Different choices among equal splits change the trees a little, not their quality.
    assert abs(ours.score(X_test, y_test) - theirs.score(X_test, y_test)) < 0.03


@pytest.mark.parametrize("criterion", ["gini", "entropy"])
@pytest.mark.parametrize("data", ["binary_classification", "classification"])
def test_full_depth_classifier_with_float_weights_matches_everywhere(data, criterion, request):
    """Continuous weights leave no two different partitions with equal gain: every
    tie is two features making the same partition, so the walk reaches every
    node, and the node counts agree once scikit-learn's splits of pure nodes
    (rounding of its impurity above EPSILON) are discounted."""
    X, y, X_test, _ = request.getfixturevalue(data)
    w = float_weights(X.shape[0], seed=1)
    ours = CARTClassifier(max_bins=None, criterion=criterion).fit(X, y, sample_weight=w)
    theirs = DecisionTreeClassifier(criterion=criterion, random_state=0)
    theirs.fit(X, y, sample_weight=w)
    pure_splits = []
    n_matched, ties = compare_trees(ours, theirs, X, y, w, criterion, pure_splits)
    assert ties  # mirrored features and two-row nodes
    assert n_matched == ours.tree_.node_count > 200
    extra = sum(size - 1 for size in pure_splits)
    assert ours.tree_.node_count == theirs.tree_.node_count - extra
    # Both fit the training rows; held-out rows may part where tied features differ.
    np.testing.assert_array_equal(ours.predict(X), y)
    np.testing.assert_array_equal(theirs.predict(X), y)
    assert np.mean(ours.predict(X_test) == theirs.predict(X_test)) > 0.95


@pytest.mark.parametrize("weights", [None, "floats"])
def test_full_depth_regressor_structure(regression, weights):
    X, y, _, _ = regression
    w = None if weights is None else float_weights(X.shape[0], seed=2)
    ours = CARTRegressor(max_bins=None).fit(X, y, sample_weight=w)
    theirs = DecisionTreeRegressor(random_state=0).fit(X, y, sample_weight=w)
    n_matched, _ = compare_trees(ours, theirs, X, y, w, criterion="squared_error")
    # Every leaf holds one row: the node counts agree whatever the ties.
    assert ours.tree_.node_count == theirs.tree_.node_count == 2 * N_TRAIN - 1
    assert n_matched > 1000
    np.testing.assert_allclose(ours.predict(X), y, rtol=1e-12)


# ---------------------------------------------------------------------------
# feature_importances_, apply, decision_path
# ---------------------------------------------------------------------------


def test_feature_importances_match(classification, regression):
    X, y, _, _ = classification
    ours = CARTClassifier(max_bins=None, max_depth=5).fit(X, y)
    theirs = DecisionTreeClassifier(max_depth=5, random_state=0).fit(X, y)
    np.testing.assert_allclose(
        ours.feature_importances_, theirs.feature_importances_, rtol=0, atol=1e-12
    )
    assert ours.feature_importances_.sum() == pytest.approx(1.0)
    assert np.count_nonzero(ours.feature_importances_) >= 5
    X, y, _, _ = regression
    ours = CARTRegressor(max_bins=None, max_depth=6).fit(X, y)
    theirs = DecisionTreeRegressor(max_depth=6, random_state=0).fit(X, y)
    np.testing.assert_allclose(
        ours.feature_importances_, theirs.feature_importances_, rtol=0, atol=1e-12
    )


def test_apply_and_decision_path_are_consistent_with_the_tree(classification):
    X, y, X_test, _ = classification
    ours = CARTClassifier(max_bins=None, max_depth=5).fit(X, y)
    tree = ours.tree_
    leaves = ours.apply(X_test)
    assert np.all(tree.is_leaf[leaves])
    # predict_proba is the normalised class distribution of the leaf.
    np.testing.assert_allclose(
        ours.predict_proba(X_test), tree.value[leaves] / tree.value[leaves].sum(axis=1)[:, None]
    )
    path = ours.decision_path(X_test)
    assert path.shape == (X_test.shape[0], tree.node_count)
    parent = tree.parent()
    depth = tree.node_depth
    for i in range(0, X_test.shape[0], 37):
        nodes = np.sort(path[i].indices)
        # A root-to-leaf chain that ends in the row's leaf, one node per depth.
        assert nodes[0] == 0 and nodes[-1] == leaves[i]
        np.testing.assert_array_equal(depth[nodes], np.arange(nodes.shape[0]))
        np.testing.assert_array_equal(parent[nodes[1:]], nodes[:-1])
        # Each step follows the split: x <= threshold goes to the first child.
        for node, child in itertools.pairwise(nodes):
            goes_left = X_test[i, tree.feature[node]] <= tree.threshold[node]
            assert child == tree.children_of(node)[0 if goes_left else 1]
    # Row totals: every row passes through depth(leaf) + 1 nodes.
    np.testing.assert_array_equal(np.asarray(path.sum(axis=1)).ravel(), depth[leaves] + 1)
    # The same paths as scikit-learn's, node for node once the trees are aligned.
    theirs = DecisionTreeClassifier(max_depth=5, random_state=0).fit(X, y)
    assert path.sum() == theirs.decision_path(X_test).sum()
