"""TreeView: node records, branch conditions and missing routes, read back against the arrays."""

import dataclasses

import numpy as np
import pandas as pd
import pytest
from _trees import hand_built_tree

from treelearn import CARTClassifier, CARTRegressor
from treelearn._dtypes import (
    MISSING_BY_WEIGHT,
    NO_CHILD,
    NODE_MULTIWAY,
    NODE_SUBSET,
    NODE_THRESHOLD,
)
from treelearn.datasets import load_dataset
from treelearn.exceptions import ParameterError
from treelearn.tree import Branch, Condition, NodeInfo, Surrogate, TreeBuilder, TreeView


def multiway_by_weight_tree():
    """A C4.5-style node: one child per category, codes 1 and 3 share a child,
    code 4 unseen, missing values by weight; a regression tree."""
    b = TreeBuilder(n_features=1, n_classes=0)
    root = b.add_node([2.0], 7, 7.0, 1.0)
    kids = [b.add_node([v], n, float(n), 0.0) for v, n in ((1.5, 4), (-1.0, 2), (10.0, 1))]
    b.set_split(
        root, 0, NODE_MULTIWAY, kids, MISSING_BY_WEIGHT, category_child=[0, 1, 2, 1, NO_CHILD]
    )
    return b.build()


def surrogate_tree():
    """x0 <= 1 with two surrogates: x1 > 3 (reversed threshold) and x2 in {0} (code 2 unmapped)."""
    b = TreeBuilder(n_features=3, n_classes=2)
    root = b.add_node([3, 3], 6, 6.0, 0.5)
    left = b.add_node([3, 0], 3, 3.0, 0.0)
    right = b.add_node([0, 3], 3, 3.0, 0.0)
    b.set_split(
        root,
        0,
        NODE_THRESHOLD,
        [left, right],
        1,
        threshold=1.0,
        surrogates=[
            (1, NODE_THRESHOLD, 3.0, 1, (), 0.9, 0.8),
            (2, NODE_SUBSET, np.nan, 0, [0, 1, NO_CHILD], 0.7, 0.4),
        ],
    )
    return b.build()


def test_node_records_follow_the_arrays():
    tree = hand_built_tree()
    view = TreeView(tree)
    assert len(view) == view.node_count == 7
    assert view.feature_names == ("x0", "x1", "x2")
    assert view.classes == (0, 1)
    root = view.node(0)
    assert root == NodeInfo(
        index=0,
        depth=0,
        parent=-1,
        children=(1, 2),
        is_leaf=False,
        kind="threshold",
        feature=1,
        feature_name="x1",
        n_samples=10,
        weight=10.0,
        impurity=0.48,
        value=(6.0, 4.0),
        prediction=0,
        class_index=0,
        confidence=0.6,
    )
    leaf = view.node(6)
    assert (leaf.is_leaf, leaf.kind, leaf.feature, leaf.feature_name) == (True, "leaf", -1, None)
    assert (leaf.depth, leaf.parent, leaf.children) == (3, 4, ())
    assert (leaf.prediction, leaf.class_index) == (1, 1)
    assert leaf.confidence == pytest.approx(2 / 3)
    assert view.node(2).kind == "subset"
    for node in view:
        assert node.depth == tree.node_depth[node.index]
        assert node.value == tuple(tree.value[node.index])
    with pytest.raises(dataclasses.FrozenInstanceError):
        root.weight = 3.0


def test_threshold_and_subset_branches():
    view = TreeView(hand_built_tree())
    left, right = view.branches(0)
    assert left == Branch(
        node=0,
        position=0,
        child=1,
        condition=Condition(1, "x1", "<=", 0.5),
        missing="no",
        fraction=0.4,
    )
    assert right.condition == Condition(1, "x1", ">", 0.5)
    assert (right.missing, right.takes_missing, right.fraction) == ("yes", True, 0.6)
    first, second = view.branches(2)
    assert first.condition == Condition(0, "x0", "in", None, (0,), (0,))
    assert (first.missing, first.unseen) == ("no", ())
    # The unseen category 2 is routed as missing: listed on the branch taking missing values.
    assert second.condition == Condition(0, "x0", "in", None, (1,), (1,))
    assert (second.missing, second.unseen, second.unseen_codes) == ("yes", (2,), (2,))
    assert view.branches(4)[0].missing == "yes"
    assert view.branches(1) == ()


def test_multiway_by_weight_branches():
    tree = multiway_by_weight_tree()
    view = TreeView(tree)
    assert not view.is_classifier and view.classes is None
    branches = view.branches(0)
    assert [b.condition.operator for b in branches] == ["==", "in", "=="]
    assert [b.condition.codes for b in branches] == [(0,), (1, 3), (2,)]
    assert [b.missing for b in branches] == ["by weight"] * 3
    assert [b.fraction for b in branches] == pytest.approx([4 / 7, 2 / 7, 1 / 7])
    assert all(b.unseen == (4,) for b in branches)
    assert view.node(0).prediction == 2.0
    assert view.node(0).class_index is None and view.node(0).confidence is None


def test_surrogates_are_directed_at_each_branch():
    view = TreeView(surrogate_tree())
    left, right = view.branches(0)
    assert (left.missing, right.missing) == ("no", "yes")
    assert [s.condition for s in left.surrogates] == [
        Condition(1, "x1", ">", 3.0),  # reversed: x1 <= 3 goes right
        Condition(2, "x2", "in", None, (0,), (0,)),
    ]
    assert [s.condition for s in right.surrogates] == [
        Condition(1, "x1", "<=", 3.0),
        Condition(2, "x2", "in", None, (1,), (1,)),
    ]
    best, second = right.surrogates
    assert best == Surrogate(0, Condition(1, "x1", "<=", 3.0), None, 0.9, 0.8)
    assert (second.rank, second.known_codes, second.adjusted) == (1, (0, 1), 0.4)


def test_labels_from_a_fitted_model():
    X, y = load_dataset("play_tennis")
    model = CARTClassifier(max_depth=2).fit(X, y)
    view = TreeView(model)
    assert view.feature_names == tuple(X.columns)
    outlook = view.categories[list(X.columns).index("outlook")]
    assert outlook == ("overcast", "rainy", "sunny")
    assert view.classes == ("no", "yes")
    left, right = view.branches(0)
    assert left.condition.categories == ("rainy", "sunny")
    assert right.condition.categories == ("overcast",)
    assert view.category_label(left.condition.feature, 0) == "overcast"
    # Leaves predict what the model predicts.
    leaves = model.apply(X)
    predicted = [view.node(int(leaf)).prediction for leaf in leaves]
    assert predicted == model.predict(X).tolist()
    probabilities = model.predict_proba(X).max(axis=1)
    confidence = [view.node(int(leaf)).confidence for leaf in leaves]
    np.testing.assert_allclose(confidence, probabilities)


def test_regression_model():
    X, _ = load_dataset("iris")
    model = CARTRegressor(max_depth=2).fit(X.iloc[:, 1:], X.iloc[:, 0])
    view = TreeView(model)
    predicted = [view.node(int(leaf)).prediction for leaf in model.apply(X.iloc[:, 1:])]
    np.testing.assert_allclose(predicted, model.predict(X.iloc[:, 1:]))
    assert view.categories == (None, None, None)


def test_overrides_and_errors():
    tree = hand_built_tree()
    view = TreeView(tree, feature_names=["a", "b", "c"], class_names=["no", "yes"])
    assert view.node(0).feature_name == "b"
    assert view.branches(0)[0].condition.feature_name == "b"
    assert view.node(6).prediction == "yes"
    assert TreeView(view).feature_names == ("a", "b", "c")
    with pytest.raises(ParameterError, match="feature_names has 1 names but the tree has 3"):
        TreeView(tree, feature_names=["a"])
    with pytest.raises(ParameterError, match="class_names has 3 names but the tree has 2"):
        TreeView(tree, class_names=["a", "b", "c"])
    with pytest.raises(ParameterError, match="regression tree"):
        TreeView(multiway_by_weight_tree(), class_names=["a"])
    with pytest.raises(ParameterError, match="not fitted; call fit first"):
        TreeView(CARTClassifier())
    with pytest.raises(ParameterError, match=r"export_x needs a fitted .* got str"):
        TreeView("a tree", caller="export_x")
    with pytest.raises(ParameterError, match="Node 7 does not exist"):
        view.node(7)


def test_depth_first_order_paths_and_leaves():
    view = TreeView(hand_built_tree())
    assert [n.index for n in view.depth_first()] == [0, 1, 2, 3, 4, 5, 6]
    assert [n.index for n in view.leaves()] == [1, 3, 5, 6]
    assert [(b.node, b.position) for b in view.path(6)] == [(0, 1), (2, 1), (4, 1)]
    assert view.path(0) == ()


def _walk(view, row):
    """The leaf a row of the prediction matrix reaches, by the view's branches alone."""
    node = view.root
    while not node.is_leaf:
        branches = view.branches(node.index)
        x = row[node.feature]
        chosen = None
        if not np.isnan(x):
            for branch in branches:
                c = branch.condition
                if (c.operator == "<=" and x <= c.threshold) or (
                    c.operator == ">" and x > c.threshold
                ):
                    chosen = branch
                if c.is_nominal and int(x) in c.codes:
                    chosen = branch
        if chosen is None:
            for surrogate_rank in range(len(branches[0].surrogates)):
                options = [b for b in branches if b.surrogates]
                s = options[0].surrogates[surrogate_rank]
                z = row[s.condition.feature]
                if np.isnan(z) or (s.known_codes is not None and int(z) not in s.known_codes):
                    continue
                for branch in options:
                    c = branch.surrogates[surrogate_rank].condition
                    if (
                        (c.operator == "<=" and z <= c.threshold)
                        or (c.operator == ">" and z > c.threshold)
                        or (c.is_nominal and int(z) in c.codes)
                    ):
                        chosen = branch
                break
        if chosen is None:
            chosen = max(branches, key=lambda b: (b.missing == "yes", b.fraction))
        node = view.node(chosen.child)
    return node.index


@pytest.mark.parametrize("missing", ["learn", "surrogate"])
def test_walking_the_view_reaches_the_leaf_apply_reaches(missing):
    rng = np.random.default_rng(0)
    n = 300
    X = pd.DataFrame(
        {
            "a": rng.normal(size=n),
            "b": rng.choice(["p", "q", "r", "s"], size=n).astype(object),
            "c": rng.integers(0, 5, size=n).astype(float),
        }
    )
    y = (X["a"] > 0) ^ (X["b"] == "q") | (X["c"] > 3)
    for column, rate in (("a", 0.15), ("b", 0.1), ("c", 0.2)):
        X.loc[rng.random(n) < rate, column] = np.nan if column != "b" else None
    model = CARTClassifier(max_depth=5, missing=missing).fit(X, y)
    view = TreeView(model)
    matrix = model._prediction_matrix(X)
    walked = [_walk(view, row) for row in matrix]
    np.testing.assert_array_equal(walked, model.apply(X))


def test_walking_the_view_on_hand_built_trees():
    nan = np.nan
    X = np.array(
        [
            [0.0, 0.5, 9.0],
            [0.0, 0.6, 9.0],
            [1.0, 0.6, 2.0],
            [1.0, 0.6, 2.1],
            [2.0, 0.6, 9.0],
            [nan, 0.6, nan],
            [nan, nan, 0.0],
        ]
    )
    tree = hand_built_tree()
    view = TreeView(tree)
    assert [_walk(view, row) for row in X] == tree.apply(X).tolist()
    tree = surrogate_tree()
    view = TreeView(tree)
    X = np.array(
        [[0.0, 9, 9], [2.0, 9, 9], [nan, 2.0, 1], [nan, 4.0, 1], [nan, nan, 0], [nan, nan, 2]]
    )
    assert [_walk(view, row) for row in X] == tree.apply(X).tolist() == [1, 2, 2, 1, 1, 2]
