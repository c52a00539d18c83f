"""The one base of every treelearn tree estimator.

An estimator turns its parameters into a :class:`~treelearn.growing.GrowthSpec`
(its algorithm's preset with the user's values), encodes ``X``, runs the
grower and keeps the resulting :class:`~treelearn.tree.Tree` as ``tree_``.
"""

import numbers
import warnings

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.utils.validation import check_is_fitted

from treelearn.data.dataset import build_dataset
from treelearn.data.encoding import prediction_matrix
from treelearn.data.schema import align_columns, is_dataframe
from treelearn.data.target import validate_sample_weight
from treelearn.exceptions import ParameterError
from treelearn.growing import Grower


def _check_int(name, value, low, allow_none=False):
    if value is None and allow_none:
        return None
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < low:
        expected = f"an integer >= {low}" + (" or None" if allow_none else "")
        raise ParameterError(f"{name} must be {expected}, got {value!r}.")
    return int(value)


def _check_float(name, value, low, high):
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not (low <= value <= high):
        raise ParameterError(f"{name} must be a number in [{low}, {high}], got {value!r}.")
    return float(value)


def resolve_min_samples(name, value, n_rows, low):
    """An int count, or a float fraction of ``n_rows`` (rounded up), as scikit-learn does."""
    if isinstance(value, numbers.Integral) and not isinstance(value, bool):
        return _check_int(name, value, low)
    if isinstance(value, numbers.Real) and 0.0 < value <= 1.0:
        return max(low, int(np.ceil(value * n_rows)))
    raise ParameterError(
        f"{name} must be an integer >= {low} or a fraction in (0, 1], got {value!r}."
    )


def resolve_max_features(value, n_features):
    """Number of features drawn per node from ``max_features``."""
    if value is None:
        return n_features
    if value == "sqrt":
        return max(1, int(np.sqrt(n_features)))
    if value == "log2":
        return max(1, int(np.log2(n_features)))
    if isinstance(value, numbers.Integral) and not isinstance(value, bool):
        if 1 <= value <= n_features:
            return int(value)
    elif isinstance(value, numbers.Real) and 0.0 < value <= 1.0:
        return max(1, int(value * n_features))
    raise ParameterError(
        f"max_features must be None, 'sqrt', 'log2', an integer in [1, n_features={n_features}] "
        f"or a fraction in (0, 1], got {value!r}."
    )


class BaseTree(BaseEstimator):
    """Shared fit/predict machinery; subclasses set the preset and the task."""

    #: The algorithm's :class:`GrowthSpec` preset; subclasses set it.
    _preset = None

    def _growth_spec(self, n_rows, total_weight, n_features):
        min_samples_leaf = resolve_min_samples("min_samples_leaf", self.min_samples_leaf, n_rows, 1)
        min_samples_split = resolve_min_samples(
            "min_samples_split", self.min_samples_split, n_rows, 2
        )
        fraction = _check_float("min_weight_fraction_leaf", self.min_weight_fraction_leaf, 0, 0.5)
        return self._preset.replace(
            criterion=self.criterion,
            max_depth=_check_int("max_depth", self.max_depth, 1, allow_none=True),
            min_samples_split=min_samples_split,
            min_samples_leaf=min_samples_leaf,
            min_weight_leaf=fraction * total_weight,
            min_impurity_decrease=_check_float(
                "min_impurity_decrease", self.min_impurity_decrease, 0.0, np.inf
            ),
            max_leaf_nodes=_check_int("max_leaf_nodes", self.max_leaf_nodes, 2, allow_none=True),
            max_features=resolve_max_features(self.max_features, n_features),
            missing=self.missing,
            max_surrogates=_check_int("max_surrogates", self.max_surrogates, 0),
            **self._extra_spec(),
        )

    def _extra_spec(self):
        return {}

    def _fit_tree(self, X, y_encoded, sample_weight, n_classes):
        """Encode ``X`` and grow ``tree_``; ``sample_weight`` is already validated."""
        dataset = build_dataset(X, self.categorical_features)
        spec = self._growth_spec(dataset.n_samples, float(sample_weight.sum()), dataset.n_features)
        rng = np.random.default_rng(self.random_state_seed())
        tree = Grower(dataset, y_encoded, sample_weight, n_classes, spec, rng).grow()
        self.tree_ = tree
        self.feature_schema_ = dataset.schema
        self.n_features_in_ = dataset.n_features
        if dataset.schema.from_frame:
            self.feature_names_in_ = np.array(dataset.schema.names, dtype=object)
        elif hasattr(self, "feature_names_in_"):
            del self.feature_names_in_
        return self

    def random_state_seed(self):
        """A seed for numpy's Generator from ``random_state`` (int, RandomState or None)."""
        state = self.random_state
        if isinstance(state, np.random.RandomState):
            return int(state.randint(np.iinfo(np.int32).max))
        if isinstance(state, np.random.Generator):
            return int(state.integers(np.iinfo(np.int32).max))
        return state

    @staticmethod
    def _weights(sample_weight, n_rows):
        return validate_sample_weight(sample_weight, n_rows)

    def _prediction_matrix(self, X):
        check_is_fitted(self, "tree_")
        schema = self.feature_schema_
        if is_dataframe(X) and not schema.from_frame:
            warnings.warn(
                f"X has feature names, but {type(self).__name__} was fitted without feature "
                "names; columns are taken by position.",
                UserWarning,
                stacklevel=3,
            )
        elif not is_dataframe(X) and schema.from_frame:
            warnings.warn(
                f"X does not have valid feature names, but {type(self).__name__} was fitted "
                "with feature names; columns are taken in the fitted order.",
                UserWarning,
                stacklevel=3,
            )
        columns = align_columns(X, schema)
        return prediction_matrix(columns, schema)

    def apply(self, X):
        """Index of the leaf each row of ``X`` ends up in.

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_samples, n_features)

        Returns
        -------
        ndarray of int64, shape (n_samples,)
        """
        return self.tree_.apply(self._prediction_matrix(X))

    def decision_path(self, X):
        """Sparse indicator (n_samples, n_nodes) of the nodes each row passes through.

        Returns
        -------
        scipy.sparse.csr_matrix
        """
        from scipy.sparse import csr_matrix

        matrix = self._prediction_matrix(X)
        rows, nodes = self.tree_.decision_path(matrix)
        data = np.ones(rows.shape[0], dtype=np.int64)
        return csr_matrix((data, (rows, nodes)), shape=(matrix.shape[0], self.tree_.node_count))

    def get_depth(self):
        """Depth of the tree (a lone root has depth 0)."""
        check_is_fitted(self, "tree_")
        return self.tree_.max_depth

    def get_n_leaves(self):
        """Number of leaves."""
        check_is_fitted(self, "tree_")
        return self.tree_.n_leaves

    @property
    def feature_importances_(self):
        """Normalised total impurity decrease per feature (sums to 1 unless the tree is a leaf)."""
        check_is_fitted(self, "tree_")
        return self.tree_.feature_importances()

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = True
        tags.input_tags.categorical = True
        tags.input_tags.string = True
        return tags
