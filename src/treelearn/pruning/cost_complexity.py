"""Cost-complexity (weakest-link) pruning (Breiman, Friedman, Olshen & Stone 1984).

The cost-complexity of a subtree ``T`` at ``alpha >= 0`` is

    ``R_alpha(T) = R(T) + alpha * |leaves(T)|``,

with ``R(T)`` the sum over its leaves of ``R(t) = weight(t) / weight(root) *
impurity(t)``, exactly as scikit-learn defines it (the node's impurity,
Gini/entropy or the variance, weighted by its share of the training weight;
Breiman et al. use the misclassification rate for classification). For each
internal node ``t`` with subtree ``T_t``, cutting ``T_t`` back to ``t`` pays
off once ``alpha >= g(t) = (R(t) - R(T_t)) / (|leaves(T_t)| - 1)``. Weakest-link
pruning cuts the node of smallest ``g`` again and again; the values of ``g``
it meets are the *effective alphas* ``0 = alpha_0 <= alpha_1 <= ... <=
alpha_m``, and the subtree after the cuts up to ``alpha_k`` is the smallest
subtree minimising ``R_alpha`` for every ``alpha`` in ``[alpha_k,
alpha_{k+1})``. The subtrees are nested.

Choosing ``alpha`` by k-fold cross-validation (Breiman et al. 1984, ch. 3.4;
rpart's cp table, Therneau & Atkinson) is :func:`select_ccp_alpha`.
"""

from typing import NamedTuple

import numpy as np
import pandas as pd
from sklearn.base import clone
from sklearn.utils import _safe_indexing

from treelearn._dtypes import MISSING_BY_WEIGHT
from treelearn.exceptions import ParameterError
from treelearn.pruning._common import (
    check_choice,
    check_real,
    fitted_tree,
    with_tree,
)
from treelearn.pruning._kernels import weakest_link
from treelearn.pruning._subtree import prune_tree

RULES = ("min", "1se")


def _weakest_link(tree, alpha, record):
    """``(alphas, totals, cuts, leaves)`` of :func:`~treelearn.pruning._kernels.weakest_link`."""
    r_node = tree.weight * tree.impurity / tree.weight[0]
    n = tree.node_count
    alphas = np.zeros(n if record else 1)
    totals = np.zeros(n if record else 1)
    cuts = np.zeros(n if record else 1, dtype=np.int64)
    count, leaves = weakest_link(
        np.ascontiguousarray(r_node, dtype=np.float64),
        tree.child_ptr,
        tree.children,
        tree.parent(),
        np.ascontiguousarray(tree.is_leaf),
        float(alpha),
        record,
        alphas,
        totals,
        cuts,
    )
    return alphas[:count], totals[:count], cuts[:count], leaves


def tree_pruning_path(tree):
    """``(ccp_alphas, impurities)`` of a Tree (see :func:`cost_complexity_pruning_path`)."""
    alphas, totals, _, _ = _weakest_link(tree, 0.0, True)
    return alphas, totals


def prune_tree_at(tree, alpha):
    """The Tree pruned at ``ccp_alpha=alpha`` (``alpha=0``: the tree itself, unpruned)."""
    if alpha == 0.0 or tree.node_count == 1:
        return tree
    _, _, _, leaves = _weakest_link(tree, alpha, False)
    return prune_tree(tree, leaves & ~tree.is_leaf)


def cost_complexity_pruning_path(model):
    """The effective alphas of weakest-link pruning, and the subtrees' total leaf impurity.

    The same numbers as scikit-learn's
    ``DecisionTreeClassifier.cost_complexity_pruning_path`` for the same tree
    (see the module docstring for ``R`` and ``g``): ``ccp_alphas[0] = 0`` and
    ``impurities[0] = R(T)`` for the tree as grown, then one entry per cut,
    the ``g`` of the node cut and ``R`` of the tree after it, up to the lone
    root. Equal ``g`` values give one entry per cut; among them, the node
    first in index order is cut first (an ancestor before its descendants).

    Parameters
    ----------
    model : fitted treelearn tree estimator (classifier or regressor)

    Returns
    -------
    ccp_alphas : ndarray
    impurities : ndarray

    References
    ----------
    Breiman, L., Friedman, J. H., Olshen, R. A. & Stone, C. J. (1984).
    Classification and Regression Trees, ch. 3.3 and 8.5. Wadsworth.
    """
    tree = fitted_tree(model, "cost_complexity_pruning_path")
    return tree_pruning_path(tree)


def prune_cost_complexity(model, alpha):
    """The subtree of ``model``'s tree that minimises ``R(T) + alpha * |leaves(T)|``.

    Weakest-link cuts are made while the next cut's effective alpha is
    ``<= alpha``, as scikit-learn's ``ccp_alpha`` does (``alpha=0``: no cut).

    Parameters
    ----------
    model : fitted treelearn tree estimator
    alpha : float >= 0

    Returns
    -------
    estimator
        A deep copy of ``model`` with the pruned ``tree_``.
    """
    tree = fitted_tree(model, "prune_cost_complexity")
    alpha = check_real("alpha", alpha, 0.0, np.inf)
    return with_tree(model, prune_tree_at(tree, alpha))


class CCPAlphaSelection(NamedTuple):
    """What :func:`select_ccp_alpha` returns (unpacks as ``alpha, table, rule``)."""

    alpha: float
    table: pd.DataFrame
    rule: str


def _unfitted_base(estimator):
    """A clone of ``estimator`` that grows the full tree (no ccp_alpha, no other pruning)."""
    if not hasattr(estimator, "_prediction_matrix"):
        raise ParameterError(
            "select_ccp_alpha takes a treelearn tree estimator (CARTClassifier, "
            f"CARTRegressor, ...), got {type(estimator).__name__}."
        )
    base = clone(estimator)
    params = base.get_params(deep=False)
    reset = {"ccp_alpha": 0.0, "pruning": None}
    base.set_params(**{k: v for k, v in reset.items() if k in params})
    return base


def _distinct_subtrees(alphas, totals):
    """One entry per distinct subtree: the alphas without repeats, each with the
    total impurity after the last cut made at it."""
    keep = np.append(alphas[1:] != alphas[:-1], True)
    return alphas[keep], totals[keep]


def _cv_candidates(alphas):
    """rpart's representatives of the alpha intervals: geometric means of
    consecutive alphas; the last (the root alone) is its own alpha."""
    return np.append(np.sqrt(alphas[:-1] * alphas[1:]), alphas[-1])


def _take(data, index):
    return None if data is None else _safe_indexing(data, index)


def _leaves_along_path(tree, matrix, candidates):
    """Per candidate alpha, the node each row of ``matrix`` ends in once the
    tree is pruned at that alpha, from one weakest-link run: a row stops at the
    first node of its path cut at an alpha ``<= beta`` (``beta = 0``: no cut)."""
    alphas, _, cuts, _ = _weakest_link(tree, 0.0, True)
    cut_at = np.full(tree.node_count, np.inf)
    order = np.arange(cuts.shape[0] - 1, 0, -1)  # first cut of a node wins
    cut_at[cuts[order]] = alphas[order]
    cut_at[tree.is_leaf] = -np.inf
    rows, nodes = tree.decision_path(matrix)
    ends = np.empty((candidates.shape[0], matrix.shape[0]), dtype=np.int64)
    for j, beta in enumerate(candidates):
        stop = np.flatnonzero(cut_at[nodes] <= beta if beta > 0 else tree.is_leaf[nodes])
        first = np.unique(rows[stop], return_index=True)[1]
        ends[j] = nodes[stop[first]]
    return ends


def _fold_losses(base, X, y, sample_weight, train, test, candidates, classification):
    """Per candidate alpha, the loss of each held-out row of one fold."""
    model = clone(base).fit(_take(X, train), _take(y, train), _take(sample_weight, train))
    matrix = model._prediction_matrix(_take(X, test))
    target = np.asarray(_take(y, test))
    tree = model.tree_
    if (tree.missing_child[~tree.is_leaf] == MISSING_BY_WEIGHT).any():
        # C4.5's fractional prediction: predict with each pruned tree.
        losses = np.empty((candidates.shape[0], target.shape[0]))
        for j, alpha in enumerate(candidates):
            pruned = with_tree(model, prune_tree_at(tree, float(alpha)))
            predicted = pruned.predict(_take(X, test))
            losses[j] = (
                predicted != target if classification else (predicted - target.astype(float)) ** 2
            )
        return losses
    values = tree.value[_leaves_along_path(tree, matrix, candidates)]
    if classification:
        return model.classes_[np.argmax(values, axis=2)] != target
    return (values[:, :, 0] - target.astype(np.float64)) ** 2


def _splitter(cv, classification, random_state):
    # Imported here, not at the top: sklearn.model_selection (with sklearn.metrics) takes
    # about 0.07 s to import, and every estimator (and the CLI's start) imports this module.
    from sklearn.model_selection import KFold, StratifiedKFold, check_cv

    if isinstance(cv, int) and not isinstance(cv, bool):
        if cv < 2:
            raise ParameterError(f"cv must be an integer >= 2 (the number of folds), got {cv!r}.")
        kind = StratifiedKFold if classification else KFold
        return kind(n_splits=cv, shuffle=True, random_state=random_state)
    return check_cv(cv, classifier=classification)


def select_ccp_alpha(estimator, X, y, *, cv=10, rule="1se", sample_weight=None, random_state=None):
    """Choose ``ccp_alpha`` by k-fold cross-validation, as rpart's cp table does.

    1. Grow the full tree on all rows and compute its pruning path; each
       distinct effective alpha ``alpha_k`` stands for the subtree ``T_k``
       optimal on ``[alpha_k, alpha_{k+1})``, represented by the geometric mean
       ``beta_k = sqrt(alpha_k alpha_{k+1})`` (the last, the root alone, by
       ``alpha_m``), as rpart's ``xpred`` does.
    2. For each fold, grow the full tree on the other folds, prune it at every
       ``beta_k`` and predict the held-out rows; every row is predicted once
       per ``beta_k``.
    3. ``cv_error[k]``: the weighted mean loss of the held-out predictions
       (misclassification for a classifier, squared error for a regressor);
       ``cv_std_error[k]``: its standard error, ``sd(loss) / sqrt(n)``.
    4. ``rule="min"``: the ``k`` of smallest ``cv_error`` (the smallest tree
       among exact ties). ``rule="1se"`` (Breiman et al. 1984, 3.4.3): the
       smallest tree whose ``cv_error`` is at most the minimum plus its standard
       error. Both rules read the same table, so on the same folds the 1-SE
       tree never has more leaves than the minimum-error tree.

    Parameters
    ----------
    estimator : treelearn tree estimator (fitted or not; it is cloned)
        Its ``ccp_alpha`` and ``pruning``, if any, are ignored while selecting.
    X, y : training data
    cv : int or scikit-learn splitter, default=10
        An int makes shuffled stratified folds (classifiers) or shuffled folds
        (regressors) seeded by ``random_state``.
    rule : {"1se", "min"}, default="1se"
    sample_weight : array-like of shape (n_samples,), optional
    random_state : int or None
        Seeds the folds.

    Returns
    -------
    CCPAlphaSelection
        ``alpha``: ``beta_k`` of the chosen subtree (pass it as ``ccp_alpha``
        to refit, or to :func:`prune_cost_complexity` on the full tree);
        ``table``: a DataFrame, one row per subtree, columns ``alpha``
        (``alpha_k``), ``alpha_cv`` (``beta_k``), ``n_leaves``, ``impurity``
        (training ``R(T_k)``), ``cv_error``, ``cv_std_error``; ``rule``.

    References
    ----------
    Breiman, L., Friedman, J. H., Olshen, R. A. & Stone, C. J. (1984).
    Classification and Regression Trees, ch. 3.4. Wadsworth.
    Therneau, T. M. & Atkinson, E. J. An Introduction to Recursive
    Partitioning Using the RPART Routines (the cp table, ``xpred.rpart``).
    """
    check_choice("rule", rule, RULES)
    base = _unfitted_base(estimator)
    full = clone(base).fit(X, y, sample_weight)
    classification = full.tree_.n_classes > 0
    alphas, totals = _distinct_subtrees(*tree_pruning_path(full.tree_))
    candidates = _cv_candidates(alphas)
    target = np.asarray(y) if not hasattr(y, "to_numpy") else y.to_numpy()
    n = target.shape[0]
    weight = np.ones(n) if sample_weight is None else np.asarray(sample_weight, dtype=float)
    losses = np.zeros((candidates.shape[0], n))
    splitter = _splitter(cv, classification, random_state)
    for train, test in splitter.split(np.zeros((n, 1)), target if classification else None):
        losses[:, test] = _fold_losses(
            base, X, y, sample_weight, train, test, candidates, classification
        )
    total = weight.sum()
    mean = losses @ weight / total
    spread = ((losses - mean[:, None]) ** 2) @ weight / total
    std_error = np.sqrt(spread * n / max(n - 1, 1) / n)
    n_leaves = [prune_tree_at(full.tree_, float(b)).n_leaves for b in candidates]
    table = pd.DataFrame(
        {
            "alpha": alphas,
            "alpha_cv": candidates,
            "n_leaves": n_leaves,
            "impurity": totals,
            "cv_error": mean,
            "cv_std_error": std_error,
        }
    )
    best = int(np.flatnonzero(mean == mean.min())[-1])
    if rule == "1se":
        best = int(np.flatnonzero(mean <= mean[best] + std_error[best])[-1])
    return CCPAlphaSelection(float(candidates[best]), table, rule)
