"""Pruning: each method rewrites a fitted tree into a new, smaller one.

Every function takes a fitted treelearn estimator and returns a pruned copy
(a deep copy with a new ``tree_``); the original is never modified. A pruned
node keeps its own training statistics and predicts as it would have as a leaf
(its training majority; ties to the first class of ``classes_``).

- validation pre-pruning (the textbook's): :func:`prune_validation`, on a
  validation set;
- reduced-error pruning (Quinlan 1987): :func:`prune_reduced_error`, on a
  validation set;
- pessimistic error pruning (Quinlan 1987): :func:`prune_pessimistic`, the
  tree alone;
- error-based pruning of C4.5 (Quinlan 1993), with subtree raising:
  :func:`prune_error_based`, on the training data; its confidence limit
  :func:`upper_error_limit` (``U_CF``) and :func:`added_errors` (``AddErrs``);
  C4.5's collapse rule :func:`prune_collapse`, the tree alone;
- cost-complexity pruning (Breiman et al. 1984): :func:`prune_cost_complexity`
  and :func:`cost_complexity_pruning_path`, the tree alone;
  :func:`select_ccp_alpha`, alpha by k-fold cross-validation.

The estimators take the same methods as parameters (``ccp_alpha``;
``pruning=...`` with ``validation_fraction`` and ``cf``), applied after growing.

Trees: :func:`prune_tree` writes a Tree with given nodes turned into leaves;
:func:`is_subtree` tells whether one Tree is a rooted subtree of another.
"""

from treelearn.pruning._subtree import is_subtree, prune_tree
from treelearn.pruning.cost_complexity import (
    CCPAlphaSelection,
    cost_complexity_pruning_path,
    prune_cost_complexity,
    select_ccp_alpha,
)
from treelearn.pruning.error_based import (
    added_errors,
    prune_collapse,
    prune_error_based,
    upper_error_limit,
)
from treelearn.pruning.pessimistic import prune_pessimistic
from treelearn.pruning.reduced_error import prune_reduced_error, prune_validation

__all__ = [
    "CCPAlphaSelection",
    "added_errors",
    "cost_complexity_pruning_path",
    "is_subtree",
    "prune_collapse",
    "prune_cost_complexity",
    "prune_error_based",
    "prune_pessimistic",
    "prune_reduced_error",
    "prune_tree",
    "prune_validation",
    "select_ccp_alpha",
    "upper_error_limit",
]
