"""Pessimistic error pruning (Quinlan 1987): training errors with a continuity correction."""

import numpy as np

from treelearn.pruning._common import (
    check_choice,
    fitted_tree,
    postorder_internal,
    require_classifier,
    training_errors,
    with_tree,
)
from treelearn.pruning._subtree import prune_tree

TRAVERSALS = ("top_down", "bottom_up")


def _subtree_sums(tree, per_leaf, leaf):
    """Per node, the sum of ``per_leaf`` over the leaves (``leaf`` mask) of its subtree."""
    total = np.where(leaf, per_leaf, 0.0)
    for node in postorder_internal(tree):
        if not leaf[node]:
            total[node] = total[tree.children_of(node)].sum()
    return total


def pessimistic_test(errors, n, subtree_errors, n_leaves):
    """Quinlan's test: prune when the node's corrected errors are within one
    standard error of its subtree's (see :func:`prune_pessimistic`)."""
    corrected_leaf = errors + 0.5
    corrected_tree = subtree_errors + 0.5 * n_leaves
    variance = np.divide(
        corrected_tree * (n - corrected_tree), n, out=np.zeros_like(n), where=n > 0
    )
    return corrected_leaf <= corrected_tree + np.sqrt(np.maximum(variance, 0.0))


def pessimistic_leaves(tree, traversal="top_down"):
    """Nodes pessimistic error pruning turns into leaves (see :func:`prune_pessimistic`)."""
    errors = training_errors(tree)
    n = tree.weight.astype(np.float64)
    leaf = tree.is_leaf.copy()
    if traversal == "top_down":
        sub_errors = _subtree_sums(tree, errors, leaf)
        sub_leaves = _subtree_sums(tree, np.ones(tree.node_count), leaf)
        return ~leaf & pessimistic_test(errors, n, sub_errors, sub_leaves)
    sub_errors = np.where(leaf, errors, 0.0)
    sub_leaves = leaf.astype(np.float64)
    pruned = np.zeros(tree.node_count, dtype=bool)
    for node in postorder_internal(tree):
        kids = tree.children_of(node)
        e, k = sub_errors[kids].sum(), sub_leaves[kids].sum()
        if pessimistic_test(errors[node : node + 1], n[node : node + 1], e, k)[0]:
            pruned[node] = True
            e, k = errors[node], 1.0
        sub_errors[node], sub_leaves[node] = e, k
    return pruned


def prune_pessimistic(model, *, traversal="top_down"):
    """Pessimistic error pruning (Quinlan 1987): no validation set, a continuity correction.

    With ``N(t)`` the training weight at node ``t``, ``e(t)`` its training
    errors as a leaf, and its subtree ``T_t`` having ``L`` leaves and ``E``
    training errors, both are corrected by 1/2 error per leaf:

    ``e'(t) = e(t) + 1/2``,  ``e'(T_t) = E + L/2``,
    ``SE(e'(T_t)) = sqrt(e'(T_t) (N(t) - e'(T_t)) / N(t))``,

    and ``t`` becomes a leaf when ``e'(t) <= e'(T_t) + SE(e'(T_t))``.

    ``traversal="top_down"`` is Quinlan's order: nodes are examined from the
    root, each against its subtree as grown, and the descendants of a pruned
    node are not examined. Pruning a node's descendants raises the corrected
    errors of its subtree, so a second top-down pass may prune more: this
    order is not idempotent. ``traversal="bottom_up"`` examines every node
    after its descendants, against its subtree as already pruned; it is
    idempotent.

    Parameters
    ----------
    model : fitted treelearn tree classifier
        Only the tree's own statistics are read (``value``, ``weight``).
    traversal : {"top_down", "bottom_up"}, default="top_down"

    Returns
    -------
    estimator
        A deep copy of ``model`` with the pruned ``tree_``.

    References
    ----------
    Quinlan, J. R. (1987). Simplifying decision trees. International Journal
    of Man-Machine Studies 27(3): 221-234.
    """
    tree = fitted_tree(model, "prune_pessimistic")
    require_classifier(model, "Pessimistic error pruning")
    check_choice("traversal", traversal, TRAVERSALS)
    return with_tree(model, prune_tree(tree, pessimistic_leaves(tree, traversal)))
