"""Reduced-error pruning (Quinlan 1987) and validation-based pre-pruning.

Both judge a subtree by its loss on a validation set that played no part in
growing the tree: the weight of misclassified validation rows for a
classifier (1 - accuracy, unnormalised), the weighted squared error for a
regressor. A node turned into a leaf predicts its training majority (its
``value``'s argmax, ties to the first class of ``classes_``) or its training
value; nothing is relearned from the validation rows.

Rows are routed as at prediction (known value, surrogates, ``missing_child``).
In a C4.5 tree (a by-weight node: a row missing the value goes down every
branch, and its class distribution combines the leaves it reaches by the
branches' weights), a row with a missing value is not classified by one leaf:
reduced-error pruning judges each cut by predicting those rows with the tree
as it would be, so it never lowers the validation accuracy there either, and
repeats its bottom-up pass until nothing more is cut (a cut changes the
predictions under other nodes); pre-pruning counts such a row in every leaf
it reaches, with a share of its weight (its prediction depends on the rest of
the tree, which growth would not have decided yet).
"""

import numpy as np

from treelearn._arrays import read_only
from treelearn._dtypes import NODE_LEAF
from treelearn.pruning._common import (
    check_choice,
    combined_rows,
    fitted_tree,
    leaf_losses,
    postorder_internal,
    read_rows,
    with_tree,
)
from treelearn.pruning._kernels import reaching_pairs
from treelearn.pruning._subtree import prune_tree
from treelearn.tree._traverse import weighted_leaf_values

TIES = ("keep_accuracy", "improve")


def _children_loss(tree, loss):
    """Per node, the sum of its children's ``loss`` (0 for a leaf)."""
    total = np.zeros(tree.node_count)
    parents = np.repeat(np.arange(tree.node_count), np.diff(tree.child_ptr))
    np.add.at(total, parents, loss[tree.children])
    return total


class _CombinedRows:
    """Validation rows a C4.5 tree classifies by combining leaves (see the module
    docstring), and the change in their weighted errors when a node is cut.

    Predictions come from the prediction kernel itself
    (``weighted_leaf_values``, as ``Tree.class_distribution``) run on the
    tree's arrays with the cut nodes marked as leaves, so they are the
    predictions of the pruned tree, to the last bit.
    """

    def __init__(self, tree, X, rows, target, weight):
        self.X, self.rows = X, rows
        self.target, self.weight = target[rows], weight[rows]
        nodes, self.surrogates = tree._kernel_args()
        self.kind = tree.kind.copy()
        # The kernels read the copy through a read-only view (it shows the marks
        # below), as they read every Tree's arrays: the walk compiled for
        # predict_proba serves, not a second compilation for a writable array.
        self.nodes = (nodes[0], read_only(self.kind), *nodes[2:])
        totals = tree.value.sum(axis=1, keepdims=True)
        with np.errstate(invalid="ignore", divide="ignore"):
            self.proba = np.where(
                totals > 0, tree.value / np.where(totals > 0, totals, 1), 1.0 / tree.n_classes
            )
        empty = np.empty(0, dtype=np.int64)
        n = reaching_pairs(X, rows, nodes, self.surrogates, empty, empty, False)
        local, node = np.empty(n, dtype=np.int64), np.empty(n, dtype=np.int64)
        reaching_pairs(X, rows, nodes, self.surrogates, local, node, True)
        order = np.argsort(node, kind="stable")
        self.local = local[order]
        self.ptr = np.searchsorted(node[order], np.arange(tree.node_count + 1))

    def _errors(self, local):
        out = np.empty((local.shape[0], self.proba.shape[1]))
        weighted_leaf_values(self.X, self.rows[local], self.nodes, self.surrogates, self.proba, out)
        return float(self.weight[local] @ (np.argmax(out, axis=1) != self.target[local]))

    def change(self, node):
        """Weighted errors among the rows reaching ``node`` if it were cut, minus now."""
        local = self.local[self.ptr[node] : self.ptr[node + 1]]
        if local.shape[0] == 0:
            return 0.0
        before = self._errors(local)
        kind = self.kind[node]
        self.kind[node] = NODE_LEAF
        after = self._errors(local)
        self.kind[node] = kind
        return after - before

    def cut(self, node):
        self.kind[node] = NODE_LEAF


def reduced_error_leaves(tree, loss, ties="keep_accuracy", combined=None):
    """Nodes reduced-error pruning turns into leaves, from each node's validation
    ``loss`` as a leaf (see :func:`prune_reduced_error`); ``combined`` (a
    :class:`_CombinedRows`) judges the rows ``loss`` leaves out."""
    subtree = loss.astype(np.float64).copy()
    leaves = np.zeros(tree.node_count, dtype=bool)
    for node in postorder_internal(tree):
        below = subtree[tree.children_of(node)].sum()
        change = loss[node] - below
        if combined is not None:
            change += combined.change(node)
        prune = change <= 0 if ties == "keep_accuracy" else change < 0
        leaves[node] = prune
        subtree[node] = loss[node] if prune else below
        if prune and combined is not None:
            combined.cut(node)
    return leaves


def validation_leaves(tree, loss):
    """Nodes validation pre-pruning leaves unexpanded: those whose children, as
    leaves, do not have a strictly smaller validation ``loss`` than the node."""
    return ~tree.is_leaf & ~(_children_loss(tree, loss) < loss)


def prune_reduced_error(model, X_val, y_val, *, ties="keep_accuracy", sample_weight=None):
    """Reduced-error pruning (Quinlan 1987) on a validation set.

    Bottom-up (every node after its descendants), a subtree is replaced by a
    leaf when that does not lower the accuracy on the validation rows: with
    ``L(t)`` the validation loss of node ``t`` as a leaf and ``L(T_t)`` the
    loss of its subtree as already pruned below it,

    - ``ties="keep_accuracy"`` (Quinlan 1987): prune when ``L(t) <= L(T_t)``,
      so the smallest subtree of best validation accuracy is kept; a subtree
      that no validation row reaches is pruned;
    - ``ties="improve"`` (Zhou 2016, section 4.3.2): prune only when
      ``L(t) < L(T_t)``, strictly higher accuracy.

    Pruning never lowers the validation accuracy of the tree, and pruning the
    result again changes nothing.

    Parameters
    ----------
    model : fitted treelearn tree estimator
        Classifier (loss: weight of misclassified rows) or regressor (loss:
        weighted squared error).
    X_val, y_val : validation rows, in the form ``model`` was fitted on
        Classes unseen in training, or columns other than the fitted ones,
        raise :class:`~treelearn.exceptions.DataError`.
    ties : {"keep_accuracy", "improve"}, default="keep_accuracy"
    sample_weight : array-like of shape (n_val,), optional
        Weights of the validation rows.

    Returns
    -------
    estimator
        A deep copy of ``model`` with the pruned ``tree_``; ``model`` is unchanged.

    References
    ----------
    Quinlan, J. R. (1987). Simplifying decision trees. International Journal
    of Man-Machine Studies 27(3): 221-234.
    """
    fitted_tree(model, "prune_reduced_error")
    return with_tree(model, reduced_error_tree(model, X_val, y_val, ties, sample_weight))


def prune_validation(model, X_val, y_val, *, sample_weight=None):
    """Validation-based pre-pruning: expand a node only if validation accuracy strictly improves.

    The textbook procedure (Zhou 2016, section 4.3.1) decides while growing:
    a node is split only when the tree with the node's children as leaves
    (each predicting its training majority; a child without training rows,
    its parent's) is strictly more accurate on the validation rows than the
    tree with the node as a leaf. As the splits a grower chooses do not depend
    on the validation set, and only the rows reaching a node differ between
    the two trees, the decision is local and is taken here in one top-down
    pass over the fully grown tree: node ``t`` is expanded when
    ``sum_c L(c) < L(t)``, ``L`` being the validation loss of a node as a
    leaf, and its children are examined only if it is. The result is the tree
    that growing with this stop rule would have produced.

    Parameters
    ----------
    model : fitted treelearn tree estimator
    X_val, y_val : validation rows, in the form ``model`` was fitted on
    sample_weight : array-like of shape (n_val,), optional

    Returns
    -------
    estimator
        A deep copy of ``model`` with the pre-pruned ``tree_``.

    References
    ----------
    Zhou, Z.-H. (2016). Machine Learning (机器学习), section 4.3.1. Tsinghua
    University Press.
    """
    fitted_tree(model, "prune_validation")
    return with_tree(model, validation_tree(model, X_val, y_val, sample_weight))


def reduced_error_tree(model, X_val, y_val, ties="keep_accuracy", sample_weight=None):
    """The Tree :func:`prune_reduced_error` gives the fitted ``model``."""
    check_choice("ties", ties, TIES)
    tree = model.tree_
    X, target, weight = read_rows(model, X_val, y_val, sample_weight, "_val")
    while True:
        rows = combined_rows(tree, X)
        single = weight.copy()
        single[rows] = 0.0  # the rows of `combined` are judged by prediction
        loss = leaf_losses(tree, X, target, single, np.empty(0, dtype=np.int64))
        combined = _CombinedRows(tree, X, rows, target, weight) if rows.size else None
        pruned = prune_tree(tree, reduced_error_leaves(tree, loss, ties, combined))
        # One pass is final when every row ends in one leaf; otherwise a cut
        # changes the predictions below other nodes, and passes repeat until
        # none cuts anything (Quinlan: until any replacement would add errors).
        if combined is None or pruned.node_count == tree.node_count:
            return pruned
        tree = pruned


def validation_tree(model, X_val, y_val, sample_weight=None):
    """The Tree :func:`prune_validation` gives the fitted ``model``."""
    tree = model.tree_
    X, target, weight = read_rows(model, X_val, y_val, sample_weight, "_val")
    return prune_tree(tree, validation_leaves(tree, leaf_losses(tree, X, target, weight)))
