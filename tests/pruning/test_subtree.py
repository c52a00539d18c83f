"""prune_tree writes a valid smaller Tree; is_subtree recognises one."""

import numpy as np
import pandas as pd
import pytest
from _trees import hand_built_tree
from sklearn.datasets import make_classification

from treelearn import CARTClassifier
from treelearn.exceptions import ModelFormatError, ParameterError
from treelearn.pruning import is_subtree, prune_tree
from treelearn.pruning._subtree import subtree_node_map

ARRAYS = (
    "feature", "kind", "threshold", "child_ptr", "children", "category_ptr", "category_child",
    "missing_child", "value", "n_samples", "weight", "impurity", "surrogate_ptr",
    "surrogate_feature", "surrogate_kind", "surrogate_threshold", "surrogate_reverse",
    "surrogate_category_ptr", "surrogate_category_child", "surrogate_agreement",
    "surrogate_adjusted",
)  # fmt: skip


def test_pruning_nothing_rewrites_the_same_tree():
    tree = hand_built_tree()
    copy = prune_tree(tree)
    assert copy is not tree
    for name in ARRAYS:
        np.testing.assert_array_equal(getattr(copy, name), getattr(tree, name), err_msg=name)


def test_a_pruned_node_keeps_its_statistics_and_loses_its_split():
    tree = hand_built_tree()
    before = {name: getattr(tree, name).copy() for name in ARRAYS}
    pruned = prune_tree(tree, [2])
    # root, its leaf, and node 2 as a leaf with its own numbers
    assert pruned.node_count == 3
    np.testing.assert_array_equal(pruned.feature, [1, -1, -1])
    np.testing.assert_array_equal(pruned.value, [[6, 4], [4, 0], [2, 4]])
    np.testing.assert_array_equal(pruned.n_samples, [10, 4, 6])
    np.testing.assert_allclose(pruned.impurity, [0.48, 0.0, 4 / 9])
    assert pruned.category_child.shape == (0,) and pruned.category_ptr.tolist() == [0, 0, 0, 0]
    assert pruned.missing_child[2] == -1 and np.isnan(pruned.threshold[2])
    # the original is untouched
    for name in ARRAYS:
        np.testing.assert_array_equal(getattr(tree, name), before[name], err_msg=name)
    assert tree.node_count == 7


def test_a_mask_and_indices_give_the_same_tree():
    tree = hand_built_tree()
    mask = np.zeros(7, dtype=bool)
    mask[[4, 5]] = True  # 5 is a leaf already, 4 the node above it
    a, b = prune_tree(tree, mask), prune_tree(tree, np.array([4, 5]))
    assert a.node_count == b.node_count == 5
    for name in ARRAYS:
        np.testing.assert_array_equal(getattr(a, name), getattr(b, name))
    # a node below a pruned one changes nothing
    c = prune_tree(tree, [2, 4])
    assert c.node_count == 3


def test_nodes_are_numbered_as_the_grower_does():
    """Depth first, a node's children numbered together right after the node."""
    tree = hand_built_tree()
    raised = prune_tree(
        tree,
        raised={2: 4},
        stats={
            "value": tree.value,
            "n_samples": np.array([10, 4, 6, 2, 6, 1, 5]),
            "weight": tree.weight,
            "impurity": tree.impurity,
        },
    )
    # node 2 (a subset split) is replaced by its branch node 4 (x2 <= 2.0)
    assert raised.node_count == 5
    np.testing.assert_array_equal(raised.feature, [1, -1, 2, -1, -1])
    np.testing.assert_array_equal(raised.children, [1, 2, 3, 4])
    np.testing.assert_array_equal(raised.n_samples, [10, 4, 6, 1, 5])
    assert raised.threshold[2] == 2.0 and raised.missing_child[2] == 0


def test_inconsistent_statistics_are_refused():
    tree = hand_built_tree()
    with pytest.raises(ModelFormatError, match="n_samples"):
        prune_tree(tree, raised={2: 4})  # node 4 holds 4 rows, not node 2's 6


@pytest.mark.parametrize("bad", [np.zeros(3, dtype=bool), [7], [-1], [0.5]])
def test_bad_node_sets_are_refused(bad):
    with pytest.raises(ParameterError, match="leaves"):
        prune_tree(hand_built_tree(), bad)


def test_is_subtree():
    tree = hand_built_tree()
    small = prune_tree(tree, [4])
    assert is_subtree(small, tree) and is_subtree(tree, tree)
    assert not is_subtree(tree, small)
    root_only = prune_tree(tree, [0])
    assert root_only.node_count == 1 and is_subtree(root_only, small)
    np.testing.assert_array_equal(subtree_node_map(small, tree), [0, 1, 2, 3, 4])
    # another threshold, or other statistics, is another tree
    other = prune_tree(tree, [4])
    fields = {name: getattr(other, name) for name in ("value", "n_samples", "weight", "impurity")}
    fields["value"] = fields["value"] + 1
    moved = prune_tree(other, stats=fields)
    assert not is_subtree(moved, tree)


@pytest.fixture(scope="module")
def surrogate_model():
    """Numeric and nominal columns with missing values: subset splits, threshold
    and subset surrogates."""
    X, y = make_classification(600, 6, n_informative=4, random_state=3)
    frame = pd.DataFrame(X, columns=[f"x{j}" for j in range(6)])
    for j in (0, 1):
        frame[f"x{j}"] = pd.cut(frame[f"x{j}"], 5, labels=list("abcde")).astype(str)
    frame = frame.mask(np.random.default_rng(0).random(frame.shape) < 0.15)
    model = CARTClassifier(missing="surrogate", max_depth=5, random_state=0).fit(frame, y)
    tree = model.tree_
    assert tree.surrogate_ptr[-1] > 10 and tree.surrogate_category_ptr[-1] > 0
    assert tree.category_ptr[-1] > 0
    return model, model._prediction_matrix(frame)


def test_surrogates_and_category_maps_follow_their_nodes(surrogate_model):
    model, X = surrogate_model
    tree = model.tree_
    internal = np.flatnonzero(~tree.is_leaf)
    pruned = prune_tree(tree, internal[3::4])
    where = subtree_node_map(pruned, tree)
    assert where is not None and pruned.node_count < tree.node_count
    for i, j in enumerate(where):
        if pruned.is_leaf[i]:
            assert pruned.surrogate_ptr[i + 1] == pruned.surrogate_ptr[i]
            continue
        a = slice(pruned.surrogate_ptr[i], pruned.surrogate_ptr[i + 1])
        b = slice(tree.surrogate_ptr[j], tree.surrogate_ptr[j + 1])
        for name in ("feature", "kind", "threshold", "reverse", "agreement", "adjusted"):
            array = "surrogate_" + name
            np.testing.assert_array_equal(getattr(pruned, array)[a], getattr(tree, array)[b])
        for s, t in zip(range(a.start, a.stop), range(b.start, b.stop), strict=True):
            np.testing.assert_array_equal(
                pruned.surrogate_category_child[
                    pruned.surrogate_category_ptr[s] : pruned.surrogate_category_ptr[s + 1]
                ],
                tree.surrogate_category_child[
                    tree.surrogate_category_ptr[t] : tree.surrogate_category_ptr[t + 1]
                ],
            )
        np.testing.assert_array_equal(
            pruned.category_child[pruned.category_ptr[i] : pruned.category_ptr[i + 1]],
            tree.category_child[tree.category_ptr[j] : tree.category_ptr[j + 1]],
        )
    # A row ends in the pruned tree at the first node of its original path that
    # is a leaf there.
    rows, nodes = tree.decision_path(X)
    leaf_in_pruned = np.zeros(tree.node_count, dtype=bool)
    leaf_in_pruned[where[pruned.is_leaf]] = True
    first = {}
    for r, n in zip(rows.tolist(), nodes.tolist(), strict=True):
        if leaf_in_pruned[n] and r not in first:
            first[r] = n
    expected = np.array([first[r] for r in range(X.shape[0])])
    np.testing.assert_array_equal(where[pruned.apply(X)], expected)
