"""Pessimistic error pruning (Quinlan 1987) on hand-built trees with numbers worked by hand."""

import numpy as np
import pytest

from treelearn import CARTClassifier, CARTRegressor
from treelearn._dtypes import NODE_THRESHOLD
from treelearn.exceptions import ParameterError
from treelearn.pruning import is_subtree, prune_pessimistic
from treelearn.tree import TreeBuilder


def two_level_model(leaves):
    """root -> A (leaves[0], leaves[1]), B (leaves[2], leaves[3]); counts per class."""
    b = TreeBuilder(n_features=2, n_classes=2)
    a_counts = np.add(leaves[0], leaves[1])
    b_counts = np.add(leaves[2], leaves[3])
    root = b.add_node(a_counts + b_counts, sum(a_counts + b_counts), sum(a_counts + b_counts), 1.0)
    a = b.add_node(a_counts, sum(a_counts), sum(a_counts), 1.0)
    bb = b.add_node(b_counts, sum(b_counts), sum(b_counts), 1.0)
    b.set_split(root, 0, NODE_THRESHOLD, [a, bb], 0, threshold=0.5)
    for parent, pair in ((a, leaves[:2]), (bb, leaves[2:])):
        kids = [b.add_node(c, sum(c), sum(c), 0.0) for c in pair]
        b.set_split(parent, 1, NODE_THRESHOLD, kids, 0, threshold=0.5)
    model = CARTClassifier().fit([[0, 0], [1, 1]], [0, 1])
    model.tree_ = b.build()
    return model


def test_quinlans_test_node_by_node():
    """root [14, 6] -> A [10, 2] (leaves [9, 0], [1, 2]), B [4, 4] (leaves [4, 1], [0, 3]).

    root: e' = 6 + 1/2 = 6.5; subtree 2 + 4/2 = 4, SE = sqrt(4 x 16 / 20) = 1.789:
          6.5 > 5.789, kept.
    A:    e' = 2.5; subtree 1 + 1 = 2, SE = sqrt(2 x 10 / 12) = 1.291: 2.5 <= 3.291, pruned.
    B:    e' = 4.5; subtree 2, SE = sqrt(2 x 6 / 8) = 1.225: 4.5 > 3.225, kept.
    """
    model = two_level_model([(9, 0), (1, 2), (4, 1), (0, 3)])
    pruned = prune_pessimistic(model)
    tree = pruned.tree_
    np.testing.assert_array_equal(tree.feature, [0, -1, 1, -1, -1])
    np.testing.assert_array_equal(tree.value[1], [10, 2])
    assert is_subtree(tree, model.tree_)
    assert model.tree_.node_count == 7


def test_top_down_is_quinlans_order_and_not_idempotent():
    """root [3, 3] -> A [1, 1] (leaves [0, 1], [1, 0]), B [2, 2] (leaves [0, 2], [2, 0]).

    Top-down, against the subtrees as grown: root e' = 3.5 > 2 + sqrt(2 x 4 / 6)
    = 3.155, kept; A e' = 1.5 <= 1 + sqrt(1/2) = 1.707, pruned; B e' = 2.5 > 1 +
    sqrt(3/4) = 1.866, kept. Pruning again, the root's subtree now has 1 error
    in 3 leaves: 3.5 <= 2.5 + sqrt(2.5 x 3.5 / 6) = 3.708, and the root goes.
    Bottom-up, the root is judged against its pruned subtree at once.
    """
    model = two_level_model([(0, 1), (1, 0), (0, 2), (2, 0)])
    once = prune_pessimistic(model)
    assert once.tree_.node_count == 5
    twice = prune_pessimistic(once)
    assert twice.tree_.node_count == 1
    bottom_up = prune_pessimistic(model, traversal="bottom_up")
    assert bottom_up.tree_.node_count == 1
    assert prune_pessimistic(bottom_up, traversal="bottom_up").tree_.node_count == 1


def test_empty_leaves_count_no_error():
    """A leaf without training rows (ID3's empty branch) carries its parent's
    class counts but no weight: it adds 1/2 to the subtree's corrected errors
    and nothing else."""
    b = TreeBuilder(n_features=1, n_classes=2)
    root = b.add_node([8, 1], 9, 9.0, 0.5)
    kids = [b.add_node([8, 0], 8, 8.0, 0.0), b.add_node([0, 1], 1, 1.0, 0.0)]
    empty = b.add_node([8, 1], 0, 0.0, 0.0)
    b.set_split(root, 0, 2, [*kids, empty], 0, category_child=[0, 1, 2])
    model = CARTClassifier().fit([[0.0], [1.0]], [0, 1])
    model.tree_ = b.build()
    # e'(root) = 1.5; subtree 0 + 3/2 = 1.5, SE = sqrt(1.5 x 7.5 / 9) = 1.118: pruned
    assert prune_pessimistic(model).tree_.node_count == 1


def test_bad_input():
    model = two_level_model([(9, 0), (1, 2), (4, 1), (0, 3)])
    with pytest.raises(ParameterError, match="traversal"):
        prune_pessimistic(model, traversal="sideways")
    regressor = CARTRegressor().fit([[0.0], [1.0]], [0.0, 1.0])
    with pytest.raises(ParameterError, match="classification tree"):
        prune_pessimistic(regressor)
    with pytest.raises(ParameterError, match="fitted treelearn tree estimator"):
        prune_pessimistic(model.tree_)
