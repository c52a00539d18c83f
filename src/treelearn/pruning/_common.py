"""What the pruners share: checking a fitted model and its data, routing rows,
per-node losses, and returning a pruned copy of the model."""

import copy
import numbers

import numpy as np
import pandas as pd
from sklearn.utils.validation import check_is_fitted

from treelearn._dtypes import MISSING_BY_WEIGHT
from treelearn.data.target import encode_class_target, validate_regression_target
from treelearn.data.target import validate_sample_weight as _validate_weight
from treelearn.exceptions import DataError, ParameterError
from treelearn.pruning._kernels import accumulate_reaching
from treelearn.pruning._subtree import carry_split_records
from treelearn.tree.structure import _kernel_matrix


def fitted_tree(model, what):
    """The ``tree_`` of a fitted treelearn estimator, with a clear error otherwise."""
    if not hasattr(model, "_prediction_matrix"):
        raise ParameterError(
            f"{what} takes a fitted treelearn tree estimator (CARTClassifier, ID3Classifier, ...), "
            f"got {type(model).__name__}."
        )
    check_is_fitted(model, "tree_")
    return model.tree_


def is_classifier_tree(model):
    return model.tree_.n_classes > 0


def require_classifier(model, what):
    """Refuse a regression tree for a method that counts misclassifications."""
    if not is_classifier_tree(model):
        raise ParameterError(
            f"{what} counts misclassified training cases, so it needs a classification tree; "
            f"{type(model).__name__} is a regressor. Use prune_cost_complexity or "
            "prune_reduced_error for regression trees."
        )


def with_tree(model, tree):
    """A deep copy of ``model`` holding ``tree`` as its ``tree_`` (the original is
    unchanged); its split records, if any, follow the nodes (:func:`carry_split_records`)."""
    pruned = copy.deepcopy(model)
    pruned.tree_ = tree
    records = getattr(model, "split_records_", None)
    if records:
        pruned.split_records_ = carry_split_records(records, model.tree_, tree)
    return pruned


def check_real(name, value, low, high, low_open=False, hint=""):
    """``value`` as a float in ``[low, high]`` (``(low, high]`` when ``low_open``)."""
    ok = isinstance(value, numbers.Real) and not isinstance(value, bool) and np.isfinite(value)
    ok = ok and (value > low if low_open else value >= low) and value <= high
    if not ok:
        interval = f"{'(' if low_open else '['}{low}, {high}]"
        raise ParameterError(f"{name} must be a number in {interval}, got {value!r}.{hint}")
    return float(value)


def check_choice(name, value, choices):
    if not isinstance(value, str) or value not in choices:
        raise ParameterError(
            f"{name} must be one of {', '.join(repr(c) for c in choices)}, got {value!r}."
        )
    return value


def encode_target_like(model, y, n_rows, role):
    """``y`` as class indices into ``model.classes_`` (classification) or floats.

    A label the model never saw in training is refused: a tree cannot predict
    it, and counting it as an error everywhere would not be a choice between
    subtrees.
    """
    name = f"y{role}"
    if not is_classifier_tree(model):
        return validate_regression_target(y, n_rows, f"the {name} of {type(model).__name__}")
    labels, index = encode_class_target(y, n_rows, type(model).__name__)
    classes = model.classes_
    position = pd.Index(classes).get_indexer(labels)
    unseen = labels[position < 0]
    if unseen.size:
        raise DataError(
            f"{name} holds classes {unseen.tolist()!r} that the model did not see in training "
            f"(its classes are {classes.tolist()!r}); drop those rows or refit on data that "
            "holds them."
        )
    return position[index].astype(np.int64)


def read_rows(model, X, y, sample_weight, role):
    """The prediction matrix of ``X``, ``y`` encoded for the model, and the row weights."""
    matrix = model._prediction_matrix(X)
    n = matrix.shape[0]
    if n == 0:
        raise DataError(f"X{role} has no rows; pruning needs at least one row.")
    target = encode_target_like(model, y, n, role)
    weight = _validate_weight(sample_weight, n)
    return _kernel_matrix(np.asarray(matrix)), target, weight


def reaching(tree, X, target, weight):
    """Per node, the weighted class counts (classification) or the squared error
    around the node's value (regression) of the rows of ``X`` that reach it, a
    row missing the value at a by-weight node going down every branch with a
    share of its weight (:func:`~treelearn.pruning._kernels.accumulate_reaching`)."""
    nodes, surrogates = tree._kernel_args()
    n = tree.node_count
    classification = tree.n_classes > 0
    class_out = np.zeros((n, tree.n_classes if classification else 0))
    sse = np.zeros(n)
    y_class = target if classification else np.zeros(1, dtype=np.int64)
    y_value = np.zeros(1) if classification else np.asarray(target, dtype=np.float64)
    fitted = np.zeros(n) if classification else np.ascontiguousarray(tree.value[:, 0])
    accumulate_reaching(X, weight, y_class, y_value, fitted, nodes, surrogates, class_out, sse)
    return class_out if classification else sse


def leaf_class(tree):
    """The class each node predicts as a leaf: its ``value``'s argmax (ties: the first class)."""
    return np.argmax(tree.value, axis=1)


def splits_by_weight(tree):
    """True when some node sends missing values down every branch (C4.5)."""
    return bool((tree.missing_child[~tree.is_leaf] == MISSING_BY_WEIGHT).any())


def combined_rows(tree, X):
    """Rows whose prediction combines several leaves: in a classification tree
    with a by-weight split, the rows with a missing value (as
    ``Tree.class_distribution`` treats them). Every other row ends in one leaf."""
    if tree.n_classes == 0 or not splits_by_weight(tree):
        return np.empty(0, dtype=np.int64)
    return np.flatnonzero(np.isnan(X).any(axis=1))


def _path_losses(tree, X, target, weight):
    """Per node, the loss as a leaf of the rows whose path (as prediction walks
    it, the heaviest branch at a by-weight node) passes through it."""
    rows, nodes = tree.decision_path(X)
    if tree.n_classes:
        per_pair = weight[rows] * (target[rows] != leaf_class(tree)[nodes])
    else:
        per_pair = weight[rows] * (np.asarray(target)[rows] - tree.value[nodes, 0]) ** 2
    return np.bincount(nodes, weights=per_pair, minlength=tree.node_count)


def leaf_losses(tree, X, target, weight, combined=None):
    """Per node: the loss of the rows that reach it if the node were a leaf.

    Classification: the weight of misclassified rows (the node predicts its
    training majority, ties to the first class of ``classes_``). Regression:
    the weighted squared error around the node's value. Rows are routed as at
    prediction. The rows of ``combined`` (see :func:`combined_rows`) are
    counted with a share of their weight in every leaf they reach; pass an
    empty array to leave them out.
    """
    combined = combined_rows(tree, X) if combined is None else combined
    single = np.array(weight, dtype=np.float64)
    single[combined] = 0.0
    losses = _path_losses(tree, X, target, single)
    if combined.size:
        shared = np.zeros_like(single)
        shared[combined] = weight[combined]
        counts = reaching(tree, X, target, shared)
        losses += counts.sum(axis=1) - counts[np.arange(tree.node_count), leaf_class(tree)]
    return losses


def training_errors(tree):
    """Per node, its training errors as a leaf: ``weight * (1 - max_k value_k / sum_k value_k)``.

    A leaf with no training rows (ID3's and C4.5's empty branches, which
    predict their parent's class) has no errors.
    """
    total = tree.value.sum(axis=1)
    share = np.divide(tree.value.max(axis=1), total, out=np.zeros_like(total), where=total > 0)
    return tree.weight * (1.0 - share)


def postorder_internal(tree):
    """Internal nodes, every node after all of its descendants (children have larger indices)."""
    return np.flatnonzero(~tree.is_leaf)[::-1]
