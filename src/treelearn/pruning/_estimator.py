"""Pruning as estimator parameters: ``ccp_alpha``, and ``pruning`` with its options.

:class:`PruningMixin` goes before :class:`~treelearn.estimators.base.BaseTree`
in an estimator's bases. It checks the pruning parameters with the others and
prunes ``tree_`` right after growing, with the same functions as
:mod:`treelearn.pruning`:

``ccp_alpha`` (float >= 0)
    cost-complexity pruning at this alpha (0: none), as scikit-learn's.
``pruning``
    ``None``; ``"validation"`` (pre-pruning) or ``"reduced_error"``: a
    ``validation_fraction`` of the rows (stratified by class for
    classifiers, drawn with ``random_state``) is held out of growing and
    judges the tree; ``"pessimistic"``; ``"error_based"`` (C4.5, confidence
    factor ``cf``) on the training rows. An estimator with a
    ``subtree_raising`` attribute (default True) has it honoured by
    ``"error_based"``; one with a ``collapse`` attribute set (C4.5's collapse
    rule, as C4.5 and J48 apply it) has its tree collapsed before any pruning.
"""

import numpy as np
from sklearn.utils import _safe_indexing
from sklearn.utils.validation import _num_samples

from treelearn.data.target import encode_class_target
from treelearn.exceptions import DataError, ParameterError
from treelearn.pruning._common import check_choice, check_real
from treelearn.pruning._subtree import carry_split_records, prune_tree
from treelearn.pruning.cost_complexity import prune_tree_at
from treelearn.pruning.error_based import _check_cf, collapse_leaves, error_based_tree
from treelearn.pruning.pessimistic import pessimistic_leaves
from treelearn.pruning.reduced_error import reduced_error_tree, validation_tree

PRUNING_METHODS = ("validation", "reduced_error", "pessimistic", "error_based")
_VALIDATION_METHODS = ("validation", "reduced_error")
_CLASSIFICATION_ONLY = ("pessimistic", "error_based")


def validation_split(y, n_rows, fraction, seed, classification, estimator_name):
    """Row indices ``(grow, validate)``: ``fraction`` of the rows held out.

    Classifiers: per class, ``round(fraction * n_class)`` rows drawn at random,
    at most all but one (a class of one row stays in the growing part).
    Regressors: ``round(fraction * n)`` rows, at least 1 and at most ``n - 1``.
    """
    rng = np.random.default_rng(seed)
    if classification:
        _, y_index = encode_class_target(y, n_rows, estimator_name)
        held = []
        for c in np.unique(y_index):
            rows = rng.permutation(np.flatnonzero(y_index == c))
            held.append(rows[: min(round(fraction * rows.shape[0]), rows.shape[0] - 1)])
        held = np.sort(np.concatenate(held))
    else:
        count = min(max(round(fraction * n_rows), 1), n_rows - 1)
        held = np.sort(rng.permutation(n_rows)[:count])
    if held.shape[0] == 0:
        raise DataError(
            f"validation_fraction={fraction} of {n_rows} rows holds out no row (every class "
            "needs at least two rows to lend one); pass a larger validation_fraction or more data."
        )
    grow = np.setdiff1d(np.arange(n_rows), held)
    return grow, held


def _take(data, index):
    return None if data is None else _safe_indexing(data, index)


class PruningMixin:
    """Prunes ``tree_`` after growing, as the estimator's pruning parameters say."""

    def _check_params(self):
        super()._check_params()
        self._check_pruning_params()

    def _check_pruning_params(self):
        alpha = check_real("ccp_alpha", getattr(self, "ccp_alpha", 0.0), 0.0, np.inf)
        method = getattr(self, "pruning", None)
        if method is None:
            return
        check_choice("pruning", method, (None, *PRUNING_METHODS))
        if alpha > 0:
            raise ParameterError(
                f"ccp_alpha={alpha} and pruning={method!r} are two pruning methods; pass one "
                "of them (ccp_alpha=0.0 or pruning=None)."
            )
        if method in _CLASSIFICATION_ONLY and not self._classification:
            raise ParameterError(
                f"pruning={method!r} counts misclassifications and needs a classifier; "
                f"{type(self).__name__} can use 'validation', 'reduced_error' or ccp_alpha."
            )
        if method in _VALIDATION_METHODS:
            check_real(
                "validation_fraction",
                self.validation_fraction,
                0.0,
                1.0,
                low_open=True,
                hint=" It is the share of the rows held out to judge the tree.",
            )
            if self.validation_fraction == 1.0:
                raise ParameterError(
                    "validation_fraction must be below 1 (some rows must grow the tree), got 1.0."
                )
        if method == "error_based":
            _check_cf(self.cf)

    def _fit(self, X, y, sample_weight):
        self._check_params()
        method = getattr(self, "pruning", None)
        if method in _VALIDATION_METHODS:
            n = _num_samples(X)
            grow, held = validation_split(
                y,
                n,
                self.validation_fraction,
                self.random_state_seed(),
                self._classification,
                type(self).__name__,
            )
            super()._fit(_take(X, grow), _take(y, grow), _take(sample_weight, grow))
        else:
            super()._fit(X, y, sample_weight)
        grown = self.tree_
        if getattr(self, "collapse", False):
            # C4.5's FormTree: a subtree no better than a leaf on the training rows is one.
            self.tree_ = prune_tree(grown, collapse_leaves(grown))
        tree = self.tree_
        if method in _VALIDATION_METHODS:
            X_val, y_val, w_val = _take(X, held), _take(y, held), _take(sample_weight, held)
            if method == "validation":
                tree = validation_tree(self, X_val, y_val, w_val)
            else:
                tree = reduced_error_tree(self, X_val, y_val, "keep_accuracy", w_val)
        else:
            if method == "pessimistic":
                tree = prune_tree(tree, pessimistic_leaves(tree))
            elif method == "error_based":
                raising = getattr(self, "subtree_raising", True)
                tree = error_based_tree(self, X, y, self.cf, raising, sample_weight, tree=tree)
            tree = prune_tree_at(tree, float(getattr(self, "ccp_alpha", 0.0)))
        self.tree_ = grown
        records = getattr(self, "split_records_", None)
        if records and tree is not self.tree_:
            self.split_records_ = carry_split_records(records, self.tree_, tree)
        self.tree_ = tree
        return self
