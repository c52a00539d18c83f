"""What every treelearn tree classifier shares: classes, class weights, probabilities."""

import numbers

import numpy as np
from sklearn.utils.class_weight import compute_sample_weight
from sklearn.utils.validation import check_is_fitted

from treelearn.data.target import encode_class_target
from treelearn.estimators.base import _prediction_threads
from treelearn.exceptions import ParameterError


class TreeClassifierMixin:
    """Target encoding and prediction for classifiers built on :class:`BaseTree`.

    A leaf's value is its weighted class counts; its prediction is the class
    with the largest count (ties: the first class in ``classes_``).
    """

    def _encode_target(self, y, n_rows):
        classes, y_index = encode_class_target(y, n_rows, type(self).__name__)
        factor = None
        class_weight = getattr(self, "class_weight", None)
        if class_weight is not None:
            factor = _class_weight_factor(class_weight, classes, y_index)
        fitted = {"classes_": classes, "n_classes_": len(classes), "n_outputs_": 1}
        return y_index, len(classes), factor, fitted

    def predict_proba(self, X):
        """Class probabilities: the weighted class distribution of each row's leaf.

        In a tree that splits missing values by weight (C4.5), a row missing
        a value there gets the weighted combination of the leaves below
        (:meth:`treelearn.tree.Tree.class_distribution`).

        Returns
        -------
        ndarray of shape (n_samples, n_classes)
        """
        matrix = self._prediction_matrix(X)  # raises NotFittedError first
        with _prediction_threads(getattr(self, "n_jobs", None)):
            return self.tree_.class_distribution(matrix)

    def predict_log_proba(self, X):
        """Logarithm of :meth:`predict_proba`."""
        with np.errstate(divide="ignore"):
            return np.log(self.predict_proba(X))

    def predict(self, X):
        """Most probable class of each row (ties: the first class in ``classes_``)."""
        check_is_fitted(self, "tree_")
        if self.tree_.splits_missing_by_weight:
            return self.classes_[np.argmax(self.predict_proba(X), axis=1)]
        index = self._walk_tree(X, "class")  # the class of each row's leaf, in one pass
        classes = self.classes_
        if classes.dtype == index.dtype and np.array_equal(classes, np.arange(classes.shape[0])):
            return index
        return classes.take(index)


def _class_weight_factor(class_weight, classes, y_index):
    """Per-row factor from ``class_weight`` (``"balanced"`` or a dict keyed by class label)."""
    if not (class_weight == "balanced" or isinstance(class_weight, dict)):
        raise ParameterError(
            f"class_weight must be None, 'balanced' or a dict {{class label: weight}}, "
            f"got {class_weight!r}."
        )
    if isinstance(class_weight, dict):
        unknown = [label for label in class_weight if label not in set(classes.tolist())]
        if unknown:
            raise ParameterError(
                f"class_weight names labels {unknown!r} that are not classes of y; "
                f"the classes are {classes.tolist()!r}."
            )
        bad = {k: v for k, v in class_weight.items() if not _is_weight(v)}
        if bad:
            raise ParameterError(f"class_weight values must be finite numbers >= 0, got {bad!r}.")
    return compute_sample_weight(class_weight, classes[y_index])


def _is_weight(value):
    return (
        isinstance(value, numbers.Real)
        and not isinstance(value, bool)
        and np.isfinite(value)
        and value >= 0
    )
